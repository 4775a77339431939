//! Attention-backend selection, per layer (`vllm/v1/attention/selector.py` → `vllm/platforms/cuda.py`
//! `get_attn_backend_cls`): a forced backend is validated alone; otherwise the release's priority list is walked and the
//! first backend whose `validate_configuration` (`vllm/v1/attention/backend.py`) returns no reason wins.
//!
//! FLASHINFER's reasons are restated in full (its class attributes in `vllm/v1/attention/backends/flashinfer.py`). The
//! other backends only matter as the ones that win before FlashInfer; their rules are restated to that depth
//! (kv dtypes, head sizes, sinks, compute capability) and say so in the trace.

use serde::Serialize;

use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::release::Release::*;
use crate::trtllm;

/// An attention backend as `AttentionBackendEnum` names it (the JSON's `backend`, e.g. `"FLASHINFER"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Backend {
    #[serde(rename = "FLASH_ATTN")]
    FlashAttn,
    #[serde(rename = "FLASHINFER")]
    FlashInfer,
    #[serde(rename = "TRITON_ATTN")]
    TritonAttn,
    #[serde(rename = "FLEX_ATTENTION")]
    FlexAttention,
    #[serde(rename = "TURBOQUANT")]
    TurboQuant,
    /// The recurrent-state backends of hybrid models' linear-attention / Mamba layers, as
    /// `MambaAttentionBackendEnum` (`vllm/v1/attention/backends/registry.py`) names them. A layer's `mamba_type`
    /// property picks one; `--attention-backend` never applies to them.
    #[serde(rename = "GDN_ATTN")]
    GdnAttn,
    #[serde(rename = "MAMBA2")]
    Mamba2,
    #[serde(rename = "MAMBA1")]
    Mamba1,
    #[serde(rename = "LINEAR")]
    Linear,
    #[serde(rename = "SHORT_CONV")]
    ShortConv,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::FlashAttn => "FLASH_ATTN",
            Backend::FlashInfer => "FLASHINFER",
            Backend::TritonAttn => "TRITON_ATTN",
            Backend::FlexAttention => "FLEX_ATTENTION",
            Backend::TurboQuant => "TURBOQUANT",
            Backend::GdnAttn => "GDN_ATTN",
            Backend::Mamba2 => "MAMBA2",
            Backend::Mamba1 => "MAMBA1",
            Backend::Linear => "LINEAR",
            Backend::ShortConv => "SHORT_CONV",
        }
    }

    /// Every backend qpath names: the attention backends ([`Backend::ATTENTION`]), then the recurrent-state ones.
    pub const ALL: [Backend; 10] = [
        Backend::FlashAttn,
        Backend::FlashInfer,
        Backend::TritonAttn,
        Backend::FlexAttention,
        Backend::TurboQuant,
        Backend::GdnAttn,
        Backend::Mamba2,
        Backend::Mamba1,
        Backend::Linear,
        Backend::ShortConv,
    ];

    /// The attention backends qpath models (`AttentionBackendEnum` names; what `--attention-backend` may name).
    pub const ATTENTION: [Backend; 5] = [
        Backend::FlashAttn,
        Backend::FlashInfer,
        Backend::TritonAttn,
        Backend::FlexAttention,
        Backend::TurboQuant,
    ];

    /// A `MambaAttentionBackendEnum` member: the backend of a recurrent (linear-attention / Mamba) layer.
    pub fn is_recurrent(self) -> bool {
        !Backend::ATTENTION.contains(&self)
    }

    /// An attention backend by its `AttentionBackendEnum` name (the recurrent ones are not: vLLM's
    /// `--attention-backend` does not name them).
    pub fn parse(s: &str) -> Option<Backend> {
        Backend::ATTENTION
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(s.trim()))
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What one layer asks the selector for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LayerQuery {
    pub head_size: u32,
    /// The layer's skip-adjusted `kv_cache_dtype` string.
    pub kv_cache_dtype: String,
    pub has_sinks: bool,
    pub sliding_window: bool,
    pub q_heads: u32,
    pub kv_heads: u32,
    /// `--block-size`, when the user set it (the selector passes `None` otherwise).
    pub block_size: Option<u32>,
    /// `AttentionSelectorConfig.use_mm_prefix`: `model_config.is_mm_prefix_lm` (a multimodal prefix-LM such as
    /// model_type `gemma3`). Printed in vLLM's errors; qpath's backend rules do not read it.
    pub use_mm_prefix: bool,
    /// `use_per_head_quant_scales`: a compressed-tensors checkpoint whose `kv_cache_scheme.strategy` is `attn_head`
    /// (`Attention.__init__`, before the skip list). Printed in vLLM's errors; qpath's backend rules do not read it.
    pub use_per_head_quant_scales: bool,
    /// `--attention-config.use_non_causal`. Printed in vLLM's errors; qpath's backend rules do not read it.
    pub use_non_causal: bool,
    /// `decode_context_parallel_size > 1` (the selector's `use_dcp`, 0.29.0+). Printed in vLLM's errors.
    pub use_dcp: bool,
}

/// `AttentionSelectorConfig.__repr__()` (`vllm/v1/attention/selector.py`, a NamedTuple whose `__repr__` is an
/// f-string): every field of the release, in its order, as Python formats it (`torch.bfloat16`, the cache dtype
/// string unquoted, `None`, `True`/`False`, `AttentionType.DECODER`, which is how Python 3.11+ formats a `str` enum
/// member; Python 3.10 would print `decoder`).
///
/// Fields qpath does not model print the value vLLM has for the scenarios qpath models: `use_mla`, `use_sparse`
/// False (no MLA / sparse model), `attn_type` `AttentionType.DECODER` (decoder self-attention), `use_kv_connector`
/// False (qpath does not read `--kv-transfer-config`), `use_pcp` False (nor `--prefill-context-parallel-size`),
/// `use_adaptive_verification` False (nor the speculative config's `enable_adaptive_verification`), `use_rswa` False
/// (no model qpath reads has `rswa_window`).
pub fn selector_config_repr(p: &Platform, l: &LayerQuery) -> String {
    let r = p.release;
    let py = |b: bool| if b { "True" } else { "False" };
    let mut fields: Vec<(&str, String)> = vec![
        ("head_size", l.head_size.to_string()),
        ("dtype", p.model_dtype.torch_repr().to_string()),
        ("kv_cache_dtype", l.kv_cache_dtype.clone()),
        ("block_size", l.block_size.map_or("None".to_string(), |b| b.to_string())),
        ("use_mla", py(false).into()),
        ("has_sink", py(l.has_sinks).into()),
        ("use_sparse", py(false).into()),
        ("use_mm_prefix", py(l.use_mm_prefix).into()),
        ("use_per_head_quant_scales", py(l.use_per_head_quant_scales).into()),
        ("attn_type", "AttentionType.DECODER".into()),
    ];
    if r >= V0_26_0 {
        fields.push(("has_sliding_window", py(l.sliding_window).into()));
    }
    fields.push(("use_non_causal", py(l.use_non_causal).into()));
    fields.push(("use_batch_invariant", py(p.batch_invariant).into()));
    fields.push(("use_kv_connector", py(false).into()));
    if r >= V0_28_0 {
        fields.push(("use_adaptive_verification", py(false).into()));
    }
    if r >= V0_26_0 {
        fields.push(("use_pcp", py(false).into()));
    }
    if r >= V0_29_0 {
        fields.push(("use_dcp", py(l.use_dcp).into()));
    }
    if r >= V0_30_0 {
        fields.push(("use_rswa", py(false).into()));
    }
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("AttentionSelectorConfig({})", body.join(", "))
}

/// The priority list (`_get_backend_priorities`, non-MLA): FlashInfer first on compute capability 10.x, FlashAttention
/// first elsewhere (0.26.0+: the 10.x list only for causal attention, which is what qpath models).
pub fn priorities(p: &Platform) -> Vec<Backend> {
    use Backend::*;
    if p.major() == 10 {
        vec![FlashInfer, FlashAttn, TritonAttn, FlexAttention, TurboQuant]
    } else {
        vec![FlashAttn, FlashInfer, TritonAttn, FlexAttention, TurboQuant]
    }
}

/// `FlashInferBackend.supports_kv_cache_dtype` (plus the class list `supported_kv_cache_dtypes`).
fn flashinfer_accepts_kv(p: &Platform, kv: &str) -> bool {
    let r = p.release;
    let mut list = vec!["auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "nvfp4"];
    if r >= V0_28_0 {
        list.push("nvfp4_4over6");
    }
    if !list.contains(&kv) {
        return false;
    }
    if !crate::builder::is_nvfp4(r, kv) || r < V0_25_0Prefix {
        return true;
    }
    if r >= V0_32_0 && matches!(p.major(), 8 | 9 | 12) {
        return kv == "nvfp4";
    }
    p.is_family(100) && trtllm::supports(p, true) && trtllm::supports(p, false)
}

/// `validate_configuration` reasons for FLASHINFER, in vLLM's order.
pub fn flashinfer_reasons(p: &Platform, l: &LayerQuery) -> Vec<String> {
    let mut reasons = Vec::new();
    if ![64, 128, 256, 512].contains(&l.head_size) {
        reasons.push("head_size not supported".to_string());
    }
    if !p.model_dtype.is_16bit() {
        reasons.push("dtype not supported".to_string());
    }
    if !flashinfer_accepts_kv(p, &l.kv_cache_dtype) {
        reasons.push("kv_cache_dtype not supported".to_string());
    }
    if let Some(b) = l.block_size {
        let mut sizes = vec![16, 32, 64];
        let gqa = l.kv_heads > 0 && l.q_heads / l.kv_heads > 1;
        let sm100 = p.release < V0_25_0Prefix || p.is_family(100);
        if gqa && sm100 && trtllm::can_use(p, l.q_heads, l.kv_heads, false) {
            sizes.extend([128, 256, 512, 1024]);
        }
        if !sizes.iter().any(|s| b % s == 0) {
            reasons.push("block_size not supported".to_string());
        }
    }
    if l.has_sinks && !trtllm::supports_sink(p) {
        reasons.push("attention sinks not supported".to_string());
    }
    let cc = p.cc;
    if cc < crate::capability::ComputeCapability::new(8, 0) || cc > crate::capability::ComputeCapability::new(12, 1) {
        reasons.push("compute capability not supported".to_string());
    }
    if p.batch_invariant {
        reasons.push("batch invariance not supported".to_string());
    }
    if p.release >= V0_32_0 && l.kv_cache_dtype.starts_with("nvfp4") && matches!(p.major(), 8 | 9 | 12) {
        if l.head_size == 64 {
            reasons.push("fa2 prefill misreads an NVFP4 KV cache at head_size 64".to_string());
        } else if l.has_sinks {
            reasons.push("the sink prefill wrapper cannot read an NVFP4 KV cache".to_string());
        }
    }
    reasons
}

/// FlashAttention's version on this GPU (`get_flash_attn_version`): FA3 on SM90, FA4 on SM100, FA2 elsewhere.
pub(crate) fn fa_version(p: &Platform) -> u8 {
    match p.major() {
        9 => 3,
        10 => 4,
        _ => 2,
    }
}

/// `validate_configuration` reasons for FLASH_ATTN (kv dtypes per release, head sizes, sinks, capability).
pub fn flash_attn_reasons(p: &Platform, l: &LayerQuery) -> Vec<String> {
    let mut reasons = Vec::new();
    let fa4_on_device = matches!(p.major(), 9..=11);
    let head_ok = l.head_size % 8 == 0 && (l.head_size <= 256 || (fa4_on_device && l.head_size <= 512));
    if !head_ok {
        reasons.push("head_size not supported".to_string());
    }
    if !p.model_dtype.is_16bit() {
        reasons.push("dtype not supported".to_string());
    }
    let r = p.release;
    let kv_ok = match l.kv_cache_dtype.as_str() {
        "auto" | "float16" | "bfloat16" => true,
        // `supports_kv_cache_dtype` asks for the FA version without a head size: FA3 on SM90 (0.27.0+: or FA4 on SM100).
        "fp8" | "fp8_e4m3" => p.is_family(90) || (r >= V0_27_0 && p.is_family(100)),
        _ => false,
    };
    if !kv_ok {
        reasons.push("kv_cache_dtype not supported".to_string());
    } else if r >= V0_27_0 && l.kv_cache_dtype.starts_with("fp8") && p.is_family(90) && l.head_size > 256 {
        // `supports_combination` asks again with the head size: SM90 runs head sizes above 256 on FA4, which takes an
        // FP8 cache there only from 0.31.0 (and only at head size 512).
        if r < V0_31_0 {
            reasons.push("FP8 KV cache requires FA3 on SM90 or FA4 on SM100".to_string());
        } else if l.head_size != 512 {
            reasons.push("FP8 KV cache requires FA3 on SM90, FA4 with head_size=512 on SM90, or FA4 on SM100".to_string());
        }
    }
    if let Some(b) = l.block_size {
        if b % 16 != 0 {
            reasons.push("block_size not supported".to_string());
        }
    }
    if l.has_sinks && fa_version(p) < 3 {
        reasons.push("attention sinks not supported".to_string());
    }
    if p.cc < crate::capability::ComputeCapability::new(8, 0) {
        reasons.push("compute capability not supported".to_string());
    }
    reasons
}

/// `validate_configuration` reasons for TRITON_ATTN (kv dtypes per release, head size >= 32).
pub fn triton_reasons(p: &Platform, l: &LayerQuery) -> Vec<String> {
    let mut reasons = Vec::new();
    if l.head_size < 32 {
        reasons.push("head_size not supported".to_string());
    }
    let mut kvs = vec![
        "auto",
        "float16",
        "bfloat16",
        "fp8",
        "fp8_e4m3",
        "fp8_e5m2",
        "int8_per_token_head",
        "fp8_per_token_head",
    ];
    if p.release >= V0_25_0Prefix {
        kvs.push("int4_per_token_head");
    }
    if !kvs.contains(&l.kv_cache_dtype.as_str()) {
        reasons.push("kv_cache_dtype not supported".to_string());
    }
    reasons
}

/// FLEX_ATTENTION and TURBOQUANT come after TRITON_ATTN in every list; qpath restates only their KV-cache dtypes.
fn other_reasons(b: Backend, l: &LayerQuery) -> Vec<String> {
    let ok = match b {
        Backend::FlexAttention => matches!(l.kv_cache_dtype.as_str(), "auto" | "float16" | "bfloat16"),
        _ => l.kv_cache_dtype.starts_with("turboquant_"),
    };
    if ok {
        vec![]
    } else {
        vec!["kv_cache_dtype not supported".to_string()]
    }
}

pub fn reasons(p: &Platform, b: Backend, l: &LayerQuery) -> Vec<String> {
    let mut why = match b {
        Backend::FlashInfer => flashinfer_reasons(p, l),
        Backend::FlashAttn => flash_attn_reasons(p, l),
        Backend::TritonAttn => triton_reasons(p, l),
        _ => other_reasons(b, l),
    };
    crate::backends::selector_reasons(p, b, l, &mut why);
    why
}

/// The outcome of selecting a backend for one layer.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    pub backend: Backend,
    /// Backends tried before it, with their reasons (empty when forced).
    pub rejected: Vec<(Backend, Vec<String>)>,
    /// Every valid candidate, in priority order (the log line lists them).
    pub valid: Vec<Backend>,
    pub forced: bool,
}

/// Why selection failed, as vLLM's ValueError says it.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectionError {
    pub message: String,
    pub forced: bool,
}

fn python_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("'{s}'")).collect();
    format!("[{}]", quoted.join(", "))
}

pub fn select(p: &Platform, forced: Option<Backend>, l: &LayerQuery) -> Result<Selection, SelectionError> {
    if let Some(b) = forced {
        let why = reasons(p, b, l);
        if !why.is_empty() {
            return Err(SelectionError {
                message: format!(
                    "Selected backend AttentionBackendEnum.{} is not valid for this configuration. Reason: {}",
                    b.name(),
                    python_list(&why)
                ),
                forced: true,
            });
        }
        return Ok(Selection {
            backend: b,
            rejected: vec![],
            valid: vec![b],
            forced: true,
        });
    }
    let mut rejected = Vec::new();
    let mut valid = Vec::new();
    for b in priorities(p) {
        let why = reasons(p, b, l);
        if why.is_empty() {
            valid.push(b);
        } else if valid.is_empty() {
            rejected.push((b, why));
        }
    }
    match valid.first() {
        Some(&backend) => Ok(Selection {
            backend,
            rejected,
            valid,
            forced: false,
        }),
        None => Err(SelectionError {
            message: no_valid_backend(p, l, &rejected),
            forced: false,
        }),
    }
}

/// `get_attn_backend_cls`'s ValueError when no backend is valid: `cls.device_name` ("cuda"), the selector config's
/// repr, and the reasons as its f-string builds them: `{NAME: [reason, reason], ...}`, unquoted, in priority order.
fn no_valid_backend(p: &Platform, l: &LayerQuery, rejected: &[(Backend, Vec<String>)]) -> String {
    let parts: Vec<String> = rejected
        .iter()
        .map(|(b, why)| format!("{}: [{}]", b.name(), why.join(", ")))
        .collect();
    format!(
        "No valid attention backend found for cuda with {}. Reasons: {{{}}}.",
        selector_config_repr(p, l),
        parts.join(", ")
    )
}

/// Whether a `--kv-cache-dtype` string quantizes the cache (`get_kv_quant_mode != NONE`).
pub fn is_quantized(kv: &str) -> bool {
    !matches!(kv, "auto" | "float16" | "bfloat16")
}

/// The KV spec dtype of an unquantized layer: the model dtype for "auto", else the named 16-bit dtype.
pub fn unquantized_spec_dtype(kv: &str, model: TorchDtype) -> TorchDtype {
    match kv {
        "float16" => TorchDtype::Float16,
        "bfloat16" => TorchDtype::BFloat16,
        _ => model,
    }
}
