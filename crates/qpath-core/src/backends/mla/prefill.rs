//! The MLA prefill backend (`v1/attention/backends/mla/prefill/`): chosen by every MLA layer's `__init__` apart from
//! the decode backend (`get_mla_prefill_backend`, 0.21.0–0.31.0 its priority list in `prefill/selector.py`, 0.32.0+
//! `Platform.get_mla_prefill_backend_cls` in `platforms/interface.py`), and what it runs for the prefill rows a dense
//! MLA layer sends to `forward_mha` (and a sparse layer's dense-MHA rows, 0.26.0+): FLASH_ATTN's
//! `flash_attn_varlen_func` (its FlashAttention version per GPU, V zero-padded where the version cannot take a value
//! head size different from the query's), TRTLLM_RAGGED's `trtllm_ragged_attention_deepseek`, FLASHINFER's ragged
//! wrapper, TOKENSPEED_MLA's `tokenspeed_mla_prefill`. Also the builder's prefill query dtype
//! (`determine_prefill_query_data_type`, FP8 only on the SM100 family with a FlashInfer / TRT-LLM / TokenSpeed prefill
//! backend and `use_prefill_query_quantization`). `docs/source-notes/mla-selection.md` §6 and `mla-path.md` §1.4, §2.
//!
//! 0.20.x has no prefill selector: a dense impl picks its prefill kernel from the attention config in its `__init__`
//! ([`legacy`]); 0.21.0 migrates those (deprecated) flags to a forced backend; 0.21.0–0.23.0 check DeepSeek R1's dims
//! (`requires_r1_mla_dimensions`) where 0.24.0+ lists the dims each backend takes.

use crate::attention::{GroupErrorKind, Kernel, QPATH_LIMIT};
use crate::backends::{GroupContext, Raise};
use crate::dtype::TorchDtype;
use crate::model::MlaDims;
use crate::platform::Platform;
use crate::release::Release::*;
use crate::source::{self, Cite};
use crate::trace::Trace;

/// An `MLAPrefillBackendEnum` member that runs on CUDA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefillBackend {
    FlashAttn,
    TrtllmRagged,
    FlashInfer,
    TokenspeedMla,
}

impl PrefillBackend {
    /// The enum member's name (and `get_name()`, the same strings).
    pub fn name(self) -> &'static str {
        match self {
            PrefillBackend::FlashAttn => "FLASH_ATTN",
            PrefillBackend::TrtllmRagged => "TRTLLM_RAGGED",
            PrefillBackend::FlashInfer => "FLASHINFER",
            PrefillBackend::TokenspeedMla => "TOKENSPEED_MLA",
        }
    }

    fn parse(s: &str) -> Option<PrefillBackend> {
        [
            PrefillBackend::FlashAttn,
            PrefillBackend::TrtllmRagged,
            PrefillBackend::FlashInfer,
            PrefillBackend::TokenspeedMla,
        ]
        .into_iter()
        .find(|b| b.name() == s)
    }
}

/// `MLADimensions`: (qk_nope_head_dim, qk_rope_head_dim, v_head_dim).
type Dims = (u32, u32, u32);

/// DeepSeek-V2/V3/R1/V3.2's and Kimi-K2's dims.
const DIMS_DEEPSEEK: Dims = (128, 64, 128);
/// GLM-5's.
const DIMS_GLM: Dims = (192, 64, 256);
/// Mistral's DeepSeek-architecture small models'.
const DIMS_MISTRAL_S4: Dims = (64, 64, 128);
/// The rope-free (NoPE) MLA dims FLASH_ATTN takes from 0.30.0.
const DIMS_NOPE_256: Dims = (256, 0, 256);

/// `str(MLADimensions)`: `(qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128)`.
fn dims_str((n, r, v): Dims) -> String {
    format!("(qk_nope_head_dim={n}, qk_rope_head_dim={r}, v_head_dim={v})")
}

/// `repr(MLAPrefillSelectorConfig)`: 0.21.0–0.23.0 a NamedTuple of the dtype and `is_r1_compatible` (prefill/selector.py
/// L25 in 0.23.0), 0.24.0+ the dims.
fn config_repr(p: &Platform, dims: Dims) -> String {
    if p.release < V0_24_0 {
        return format!(
            "MLAPrefillSelectorConfig(dtype={}, is_r1_compatible={})",
            p.model_dtype.torch_repr(),
            if dims == DIMS_DEEPSEEK { "True" } else { "False" }
        );
    }
    format!(
        "MLAPrefillSelectorConfig(dtype={}, mla_dimensions={})",
        p.model_dtype.torch_repr(),
        dims_str(dims)
    )
}

/// The dims a backend takes (`None`: any), and whether the list is the class attribute `supported_mla_dimensions`
/// (whose reason names it) rather than FLASH_ATTN's `supports_mla_dimensions` method (0.26.0+).
fn supported_dims(p: &Platform, b: PrefillBackend) -> (Option<&'static [Dims]>, bool) {
    let r = p.release;
    match b {
        PrefillBackend::FlashAttn if r < V0_26_0 => (None, false),
        PrefillBackend::FlashAttn if r < V0_27_0 => {
            // 0.26.0 asks get_flash_attn_version() without arguments: FA4 (SM100) refuses GLM's dims.
            if crate::backends::flash_attn::version_for(p, None, None, None) == Some(4) {
                (Some(&[DIMS_DEEPSEEK, DIMS_MISTRAL_S4]), false)
            } else {
                (Some(&[DIMS_DEEPSEEK, DIMS_GLM, DIMS_MISTRAL_S4]), false)
            }
        }
        PrefillBackend::FlashAttn if r < V0_30_0 => (Some(&[DIMS_DEEPSEEK, DIMS_GLM, DIMS_MISTRAL_S4]), false),
        PrefillBackend::FlashAttn => (Some(&[DIMS_DEEPSEEK, DIMS_GLM, DIMS_MISTRAL_S4, DIMS_NOPE_256]), false),
        PrefillBackend::TrtllmRagged => (Some(&[DIMS_DEEPSEEK, DIMS_GLM]), true),
        PrefillBackend::FlashInfer | PrefillBackend::TokenspeedMla => (Some(&[DIMS_DEEPSEEK]), true),
    }
}

/// `MLAPrefillBackend.validate_configuration`'s reasons, in its order: compute capability (FLASH_ATTN any; the others
/// major 10), model dtype (float16 / bfloat16), dependencies (vllm_flash_attn, flashinfer-python and tokenspeed-mla are
/// all dependencies of the CUDA wheel, so never), MLA dims.
fn reasons(p: &Platform, b: PrefillBackend, dims: Dims) -> Vec<String> {
    let mut out = Vec::new();
    if b != PrefillBackend::FlashAttn && p.major() != 10 {
        out.push(format!("compute capability {}.{} not supported", p.cc.major, p.cc.minor));
    }
    if !p.model_dtype.is_16bit() {
        out.push(format!("dtype {} not supported", p.model_dtype.torch_repr()));
    }
    if p.release < V0_24_0 {
        // 0.21.0–0.23.0: `requires_r1_mla_dimensions` (TRTLLM_RAGGED, FLASHINFER, TOKENSPEED_MLA; prefill/base.py
        // L67 in 0.23.0) instead of a list of dims: GLM's dims are not TRTLLM_RAGGED's yet.
        if b != PrefillBackend::FlashAttn && dims != DIMS_DEEPSEEK {
            out.push(
                "model does not have DeepSeek R1 MLA dimensions (qk_nope_head_dim=128, qk_rope_head_dim=64, \
                 v_head_dim=128)"
                    .to_string(),
            );
        }
        return out;
    }
    if let (Some(list), class_list) = supported_dims(p, b) {
        if !list.contains(&dims) {
            let mut reason = format!("Model does not have supported MLA dimensions (got {}", dims_str(dims));
            if class_list {
                let shown: Vec<String> = list.iter().map(|d| dims_str(*d)).collect();
                reason.push_str(&format!("; supported: {}", shown.join(", ")));
            }
            out.push(reason + ")");
        }
    }
    out
}

/// The priority list (`_get_mla_prefill_backend_priorities`, 0.32.0+ `get_mla_prefill_backend_cls`): major 10 →
/// FLASH_ATTN, TRTLLM_RAGGED, FLASHINFER, TOKENSPEED_MLA (0.27.0+: TRTLLM_RAGGED first for GLM's dims); else FLASH_ATTN.
fn priorities(p: &Platform, dims: Dims) -> (Vec<PrefillBackend>, &'static Cite) {
    use PrefillBackend::*;
    let r = p.release;
    let (glm_cite, list_cite) = if r < V0_32_0 {
        (&source::MLA_PATH_PREFILL_PRIO_GLM_DIMS, &source::MLA_PATH_PREFILL_PRIORITIES)
    } else {
        (
            &source::MLA_PATH_PREFILL_PLATFORM_GLM_DIMS,
            &source::MLA_PATH_PREFILL_PLATFORM_FN,
        )
    };
    if p.major() != 10 {
        return (vec![FlashAttn], list_cite);
    }
    if r >= V0_27_0 && dims == DIMS_GLM {
        return (vec![TrtllmRagged, FlashAttn, FlashInfer, TokenspeedMla], glm_cite);
    }
    (vec![FlashAttn, TrtllmRagged, FlashInfer, TokenspeedMla], list_cite)
}

/// A JSON text of `--attention-config` read as pydantic's lax `bool` reads it (`true`, `1`, `"yes"`, …).
pub(crate) fn config_bool(cx: &GroupContext, key: &str) -> bool {
    let Some((_, v)) = cx.engine.attention_config.other.iter().find(|(k, _)| k == key) else {
        return false;
    };
    let v = v.trim_matches('"').to_ascii_lowercase();
    matches!(v.as_str(), "true" | "1" | "1.0" | "on" | "t" | "y" | "yes")
}

/// `--attention-config.mla_prefill_backend`: `Ok(None)` unset, `Err` a value qpath does not model on CUDA. 0.21.0 only:
/// without it, `AttentionConfig.__post_init__` migrates the deprecated flags (config/attention.py L107–141 in 0.21.0):
/// `use_cudnn_prefill` raises (qpath cannot model that config error here), `use_trtllm_ragged_deepseek_prefill` forces
/// TRTLLM_RAGGED, `disable_flashinfer_prefill` FLASH_ATTN (unless already set), each with its `warning_once`.
fn forced(p: &Platform, cx: &GroupContext, t: &mut Trace) -> Result<Option<PrefillBackend>, String> {
    let explicit = cx
        .engine
        .attention_config
        .other
        .iter()
        .any(|(k, v)| k == "mla_prefill_backend" && v != "null");
    if p.release < V0_22_0 && !explicit {
        if config_bool(cx, "use_cudnn_prefill") {
            return Err(format!(
                "{QPATH_LIMIT}: --attention-config use_cudnn_prefill in vLLM 0.21.0 (AttentionConfig.__post_init__ \
                 raises ValueError: the cuDNN MLA prefill backend has been removed)"
            ));
        }
        let mut migrated = None;
        if config_bool(cx, "use_trtllm_ragged_deepseek_prefill") {
            migrated = Some(PrefillBackend::TrtllmRagged);
            t.warn(
                &source::MLA_PATH_PREFILL_DEPRECATED_TRTLLM_LOG,
                "use_trtllm_ragged_deepseek_prefill is deprecated and will be removed in v0.22. Use \
                 --attention-config.mla_prefill_backend=TRTLLM_RAGGED instead.",
            );
        }
        if config_bool(cx, "disable_flashinfer_prefill") {
            migrated.get_or_insert(PrefillBackend::FlashAttn);
            t.warn(
                &source::MLA_PATH_PREFILL_DEPRECATED_FI_LOG,
                "disable_flashinfer_prefill is deprecated and will be removed in v0.22. Use \
                 --attention-config.mla_prefill_backend=FLASH_ATTN instead.",
            );
        }
        if migrated.is_some() {
            return Ok(migrated);
        }
    }
    let Some((_, v)) = cx
        .engine
        .attention_config
        .other
        .iter()
        .find(|(k, _)| k == "mla_prefill_backend")
    else {
        return Ok(None);
    };
    if v == "null" {
        return Ok(None);
    }
    let name = v.trim_matches('"').to_ascii_uppercase();
    PrefillBackend::parse(&name).map(Some).ok_or_else(|| {
        format!(
            "{QPATH_LIMIT}: --attention-config mla_prefill_backend {v} (AttentionConfig's validator accepts only an \
             MLAPrefillBackendEnum member name; qpath models FLASH_ATTN, TRTLLM_RAGGED, FLASHINFER and TOKENSPEED_MLA \
             on CUDA)"
        )
    })
}

/// The sparse impl's answers to the layer's two questions before it selects a prefill backend.
#[derive(Clone, Copy, Debug)]
pub struct SparseImpl {
    /// `impl.supports_dense_mha_prefill` (0.27.0+; FLASHINFER_MLA_SPARSE_SM120's is False from 0.29.0).
    pub dense_mha: bool,
}

/// What the layer settled on for its prefill rows.
#[derive(Default)]
pub struct Prefill {
    /// The prefill backend (`None`: a sparse layer without one, or the selection raised).
    pub backend: Option<PrefillBackend>,
    /// Its kernel for new tokens (the context chunks run the same, non-causal).
    pub kernel: Option<Kernel>,
    /// FLASH_ATTN: the FlashAttention version.
    pub fa_version: Option<u8>,
    /// The layer-init `ValueError` of the selector.
    pub(crate) error: Option<Raise>,
    /// What qpath cannot model about it.
    pub unmodelled: Option<String>,
}

/// `MLAAttention.__init__`'s prefill backend: the sparse layer's short cut (0.27.0+), the forced or automatic
/// selection, its log line or `ValueError` (swallowed for a sparse layer without a forced backend, 0.26.0+), then the
/// backend's kernel.
pub fn layer_prefill(p: &Platform, cx: &GroupContext, dims: &MlaDims, sparse: Option<SparseImpl>, t: &mut Trace) -> Prefill {
    let r = p.release;
    let d = (dims.qk_nope_head_dim, dims.qk_rope_head_dim, dims.v_head_dim);
    if sparse.is_some_and(|s| r >= V0_27_0 && !s.dense_mha) {
        let text = if r < V0_29_0 {
            "Sparse MLA impl has no dense-MHA prefill path; using the top-k MQA path only."
        } else {
            "Sparse MLA layer has no dense-MHA prefill path; using the top-k MQA path only."
        };
        t.warn(&source::MLA_PATH_LOG_SPARSE_NO_DENSE_MHA, text);
        t.step(
            Some(&source::MLA_PATH_LOG_SPARSE_NO_DENSE_MHA),
            "MLA prefill backend",
            "the sparse impl's supports_dense_mha_prefill is False: no prefill backend; every token takes the top-k \
             MQA path",
        );
        return Prefill::default();
    }
    if r < V0_21_0 {
        return legacy(p, cx, dims, sparse.is_some(), t);
    }
    let forced = match forced(p, cx, t) {
        Ok(f) => f,
        Err(why) => {
            return Prefill {
                unmodelled: Some(why),
                ..Prefill::default()
            }
        }
    };
    let chosen = match forced {
        Some(b) => {
            let why = reasons(p, b, d);
            if !why.is_empty() {
                let quoted: Vec<String> = why.iter().map(|w| format!("'{w}'")).collect();
                let message = format!(
                    "Selected MLA prefill backend {} is not valid for this configuration. Reason: [{}]",
                    b.name(),
                    quoted.join(", ")
                );
                t.step(
                    Some(&source::MLA_PATH_PREFILL_FORCED_RAISE),
                    "raises ValueError",
                    message.clone(),
                );
                return Prefill {
                    error: Some(Raise {
                        kind: GroupErrorKind::ValueError,
                        message,
                        cite: &source::MLA_PATH_PREFILL_FORCED_RAISE,
                        raised_in: "MLAAttention.__init__ → get_mla_prefill_backend",
                    }),
                    ..Prefill::default()
                };
            }
            t.info(
                &source::MLA_PATH_PREFILL_LOG_FORCED,
                format!("Using {} MLA prefill backend.", b.name()),
            );
            let per_layer = if r < V0_25_0 {
                format!(" ({r} logs it with logger.info, not info_once: once per MLA layer)")
            } else {
                String::new()
            };
            t.step(
                Some(&source::MLA_PATH_PREFILL_FORCED_RAISE),
                "MLA prefill backend",
                format!(
                    "--attention-config mla_prefill_backend {}: valid for {}{per_layer}",
                    b.name(),
                    config_repr(p, d)
                ),
            );
            b
        }
        None => match auto(p, d, t) {
            Ok(b) => b,
            Err(e) => {
                if let (Some(_), true) = (sparse, r >= V0_26_0) {
                    t.warn(
                        &source::MLA_PATH_LOG_SPARSE_NO_PREFILL,
                        "No MLA prefill backend supports this model; sparse MLA will use the top-k MQA path only (no \
                         dense-MHA prefill).",
                    );
                    t.step(
                        Some(&source::MLA_PATH_PREFILL_SELECT),
                        "MLA prefill backend",
                        "the selector's ValueError is swallowed for a sparse layer without a forced prefill backend: no \
                         prefill backend",
                    );
                    return Prefill::default();
                }
                return Prefill {
                    error: Some(e),
                    ..Prefill::default()
                };
            }
        },
    };
    let mut out = Prefill {
        backend: Some(chosen),
        ..Prefill::default()
    };
    kernel(p, chosen, d, &mut out, t);
    out
}

/// 0.20.x: no prefill selector. A sparse impl (`SparseMLAAttentionImpl`) has no prefill path of its own; a dense
/// layer's `MLACommonImpl.__init__` picks its prefill kernels from the attention config
/// ([`source::MLA_PATH_LEGACY_PREFILL_IF`], mla_attention.py L2243 in 0.20.0): TRT-LLM ragged when
/// `use_trtllm_ragged_deepseek_prefill` is set, FlashInfer when `disable_flashinfer_prefill` is False (default True)
/// and `use_cudnn_prefill` is not — each on the SM100 family and with DeepSeek R1 dims only
/// ([`source::MLA_PATH_LEGACY_USE_TRTLLM`], [`source::MLA_PATH_LEGACY_USE_FI`]) —, cuDNN when `use_cudnn_prefill` is set
/// on the SM100 family (qpath cannot model it), else FlashAttention.
fn legacy(p: &Platform, cx: &GroupContext, dims: &MlaDims, sparse: bool, t: &mut Trace) -> Prefill {
    if sparse {
        t.step(
            Some(&source::MLA_PATH_FWD_SPARSE_ALL_MQA),
            "MLA prefill backend",
            "vLLM 0.20.x: a sparse impl selects no prefill backend (the MLA prefill selector comes in 0.21.0)",
        );
        return Prefill::default();
    }
    let d = (dims.qk_nope_head_dim, dims.qk_rope_head_dim, dims.v_head_dim);
    let sm100 = p.is_family(100);
    let r1 = d == DIMS_DEEPSEEK;
    let cudnn = config_bool(cx, "use_cudnn_prefill");
    let trtllm = config_bool(cx, "use_trtllm_ragged_deepseek_prefill");
    // `disable_flashinfer_prefill: bool = True` (config/attention.py L45 in 0.20.0): only an explicit false enables it.
    let fi_enabled = cx
        .engine
        .attention_config
        .other
        .iter()
        .find(|(k, _)| k == "disable_flashinfer_prefill")
        .is_some_and(|_| !config_bool(cx, "disable_flashinfer_prefill"));
    let why = format!(
        "{} (SM100 family: {}), DeepSeek R1 dims {}: {}",
        p.arch(),
        if sm100 { "yes" } else { "no" },
        dims_str(d),
        if r1 { "yes" } else { "no" }
    );
    let (chosen, log) = if trtllm && sm100 && r1 {
        (PrefillBackend::TrtllmRagged, "Using TRT-LLM ragged DeepSeek prefill for MLA")
    } else if fi_enabled && !cudnn && sm100 && r1 {
        (PrefillBackend::FlashInfer, "Using FlashInfer prefill for MLA")
    } else if cudnn && sm100 {
        return Prefill {
            unmodelled: Some(format!(
                "{QPATH_LIMIT}: vLLM 0.20.x's cuDNN MLA prefill (--attention-config use_cudnn_prefill on the SM100 \
                 family; it also needs the NVIDIA artifactory)"
            )),
            ..Prefill::default()
        };
    } else {
        (PrefillBackend::FlashAttn, "Using FlashAttention prefill for MLA")
    };
    t.step(
        Some(&source::MLA_PATH_LEGACY_PREFILL_IF),
        "MLA prefill (MLACommonImpl.__init__, no prefill selector before 0.21.0)",
        format!(
            "use_trtllm_ragged_deepseek_prefill={}, disable_flashinfer_prefill={}, use_cudnn_prefill={}; {why}: {}",
            if trtllm { "True" } else { "False" },
            if fi_enabled { "False" } else { "True" },
            if cudnn { "True" } else { "False" },
            chosen.name()
        ),
    );
    let log_cite = match chosen {
        PrefillBackend::TrtllmRagged => &source::MLA_PATH_LEGACY_LOG_TRTLLM,
        PrefillBackend::FlashInfer => &source::MLA_PATH_LEGACY_LOG_FI,
        _ => &source::MLA_PATH_LEGACY_LOG_FA,
    };
    t.info(log_cite, log);
    let mut out = Prefill {
        backend: Some(chosen),
        ..Prefill::default()
    };
    kernel(p, chosen, d, &mut out, t);
    out
}

/// `_auto_select_mla_prefill_backend`: the first valid backend of the priority list, its `info_once`, or the
/// `ValueError` naming every reason.
fn auto(p: &Platform, d: Dims, t: &mut Trace) -> Result<PrefillBackend, Raise> {
    let r = p.release;
    let (list, cite) = priorities(p, d);
    let names: Vec<&str> = list.iter().map(|b| b.name()).collect();
    t.step(
        Some(cite),
        "MLA prefill backend priorities",
        format!("compute capability {}: [{}]", p.cc, names.join(", ")),
    );
    let mut rejected: Vec<(PrefillBackend, Vec<String>)> = Vec::new();
    for b in list {
        let why = reasons(p, b, d);
        if why.is_empty() {
            t.info(
                &source::MLA_PATH_PREFILL_LOG_AUTO,
                format!("Using {} MLA prefill backend.", b.name()),
            );
            let skipped = if rejected.is_empty() {
                String::new()
            } else {
                let s: Vec<String> = rejected
                    .iter()
                    .map(|(b, w)| format!("{}: {}", b.name(), w.join(", ")))
                    .collect();
                format!(" (after {})", s.join("; "))
            };
            t.step(
                Some(&source::MLA_PATH_PREFILL_LOG_AUTO),
                "MLA prefill backend",
                format!("{}: the first valid for {}{skipped}", b.name(), config_repr(p, d)),
            );
            return Ok(b);
        }
        rejected.push((b, why));
    }
    let reasons_str: Vec<String> = rejected
        .iter()
        .map(|(b, w)| format!("{}: [{}]", b.name(), w.join(", ")))
        .collect();
    let message = format!(
        "No valid MLA prefill backend found with {}. Reasons: {{{}}}.",
        config_repr(p, d),
        reasons_str.join(", ")
    );
    let cite = if r < V0_32_0 {
        &source::MLA_PATH_PREFILL_NONE_RAISE
    } else {
        &source::MLA_PATH_PREFILL_PLATFORM_NONE_RAISE
    };
    t.step(Some(cite), "raises ValueError", message.clone());
    Err(Raise {
        kind: GroupErrorKind::ValueError,
        message,
        cite,
        raised_in: "MLAAttention.__init__ → get_mla_prefill_backend",
    })
}

/// The chosen backend's kernel (its `__init__` and `run_prefill_new_tokens`).
fn kernel(p: &Platform, b: PrefillBackend, (nope, rope, v): Dims, out: &mut Prefill, t: &mut Trace) {
    let r = p.release;
    let qk = nope + rope;
    let k = match b {
        PrefillBackend::FlashAttn => {
            // 0.24.0–0.25.0 ask get_flash_attn_version(head_size=qk); 0.26.0+ also head_size_v=v.
            let hv = if r < V0_26_0 { None } else { Some(v) };
            let version = crate::backends::flash_attn::version_for(p, Some(qk), hv, Some(t));
            let Some(fa) = version else {
                out.unmodelled = Some(format!(
                    "{QPATH_LIMIT}: the FLASH_ATTN MLA prefill backend without a FlashAttention version on {} \
                     (flash_attn_varlen_func is then called without fa_version)",
                    p.arch()
                ));
                return;
            };
            out.fa_version = Some(fa);
            let padded = !((fa == 3 && p.major() == 9) || fa == 4);
            // 0.20.x: the same version call and padding rule inside MLACommonImpl.__init__.
            let (version_cite, vpad_cite) = if r < V0_21_0 {
                (&source::MLA_PATH_LEGACY_FA_VERSION, &source::MLA_PATH_LEGACY_VPAD)
            } else {
                (&source::MLA_PATH_FA_PREFILL_VERSION, &source::MLA_PATH_FA_PREFILL_VPAD)
            };
            t.step(
                Some(version_cite),
                "FLASH_ATTN MLA prefill",
                format!(
                    "get_flash_attn_version(head_size={qk}{}) = {fa}",
                    hv.map_or(String::new(), |v| format!(", head_size_v={v}"))
                ),
            );
            t.step(
                Some(vpad_cite),
                "V padding",
                if padded {
                    format!(
                        "FA{fa} on {} takes one head size: V ({v}) is zero-padded to the QK head size ({qk}) before \
                         the kernel",
                        p.arch()
                    )
                } else if v == qk {
                    format!("FA{fa}: V and QK have the same head size ({qk}); no padding")
                } else {
                    format!("FA{fa} on {} takes V's head size ({v}) as it is: no padding", p.arch())
                },
            );
            match fa {
                2 => Kernel::FaVarlen2,
                3 => Kernel::FaVarlen3,
                _ => Kernel::FaVarlen4,
            }
        }
        PrefillBackend::TrtllmRagged => {
            t.step(
                Some(if r < V0_21_0 {
                    &source::MLA_PATH_LEGACY_TRTLLM_CALL
                } else {
                    &source::MLA_PATH_TRTLLM_RAGGED_CALL
                }),
                "TRTLLM_RAGGED MLA prefill",
                "flashinfer.prefill.trtllm_ragged_attention_deepseek(query, key, value, …, is_causal=True)",
            );
            Kernel::TrtllmRaggedDeepseek
        }
        PrefillBackend::FlashInfer => {
            t.step(
                Some(if r < V0_21_0 {
                    &source::MLA_PATH_LEGACY_FI_WRAPPER
                } else {
                    &source::MLA_PATH_FI_PREFILL_WRAPPER
                }),
                "FLASHINFER MLA prefill",
                "BatchPrefillWithRaggedKVCacheWrapper(workspace, \"NHD\", backend=\"cutlass\"), planned in build(), \
                 run per prefill (one wrapper per context chunk)",
            );
            Kernel::FlashInferRaggedCutlass
        }
        PrefillBackend::TokenspeedMla => {
            t.step(
                Some(&source::MLA_PATH_TS_PREFILL_CALL),
                "TOKENSPEED_MLA MLA prefill",
                "tokenspeed_mla_prefill(query, key, value, seq_lens, cum_seq_lens, …, is_causal=True) (the \
                 tokenspeed-mla package, a dependency of the vLLM wheel)",
            );
            Kernel::TokenspeedMlaPrefill
        }
    };
    out.kernel = Some(k);
}

/// `MLACommonMetadataBuilder.determine_prefill_query_data_type` (builder init, every release): FP8 when the global
/// cache dtype is quantized, `use_prefill_query_quantization` is set and `backend_supports_prefill_query_quantization()`
/// (the SM100 family and a FLASHINFER / TRTLLM_RAGGED / TOKENSPEED_MLA prefill backend); else the model dtype, with
/// the release's `info_once` / `warning_once`.
pub fn prefill_q_dtype(p: &Platform, cx: &GroupContext, backend: Option<PrefillBackend>, t: &mut Trace) -> TorchDtype {
    let r = p.release;
    let quantized = crate::backends::is_quantized_kv_cache(r, &p.global_kv);
    let flag = config_bool(cx, "use_prefill_query_quantization");
    let supports = p.is_family(100)
        && matches!(
            backend,
            Some(PrefillBackend::FlashInfer | PrefillBackend::TrtllmRagged | PrefillBackend::TokenspeedMla)
        );
    let backend_name = backend.map_or("none", |b| b.name());
    t.step(
        Some(&source::MLA_PATH_PREFILL_QQ_SUPPORTED),
        "backend_supports_prefill_query_quantization",
        format!(
            "{} on {}: {}",
            backend_name,
            p.arch(),
            if supports {
                "True (SM100 family and a FLASHINFER / TRTLLM_RAGGED / TOKENSPEED_MLA prefill backend)"
            } else {
                "False (it needs the SM100 family and a FLASHINFER / TRTLLM_RAGGED / TOKENSPEED_MLA prefill backend)"
            }
        ),
    );
    let cite = &source::MLA_PATH_PREFILL_Q_DTYPE_FN;
    if quantized && flag && supports {
        let fp8 = TorchDtype::Float8E4m3fn;
        t.info(
            &source::MLA_PATH_LOG_FP8_PREFILL_ON,
            "FP8 prefill attention enabled: query data type is FP8",
        );
        t.step(
            Some(cite),
            "prefill query dtype",
            format!(
                "cache {:?} is quantized and use_prefill_query_quantization is set: {fp8} (q, k and v are cast to \
                 FP8 before the prefill kernel)",
                p.global_kv
            ),
        );
        return fp8;
    }
    if flag {
        t.info(
            &source::MLA_PATH_LOG_FP8_PREFILL_UNABLE,
            "Unable to perform FP8 prefill attention when use_prefill_query_quantization is enabled. Please ensure \
             that --kv-cache-dtype is set to fp8 and your prefill backend is compatible with FP8 attention.",
        );
    } else if quantized && supports {
        t.warn(
            &source::MLA_PATH_LOG_FP8_PREFILL_HINT,
            "FP8 KV cache is enabled but prefill queries are not quantized to FP8. For long-context workloads (ISL >= \
             4K), enabling FP8 prefill attention can significantly optimize prefill latency. To enable, add: \
             --attention-config '{\"use_prefill_query_quantization\": true}'",
        );
    }
    t.step(
        Some(cite),
        "prefill query dtype",
        format!(
            "{}: the model dtype {}",
            if !quantized {
                format!("cache {:?} is not quantized", p.global_kv)
            } else if !flag {
                "use_prefill_query_quantization is not set".to_string()
            } else {
                "the prefill backend takes no FP8 query here".to_string()
            },
            p.model_dtype
        ),
    );
    p.model_dtype
}
