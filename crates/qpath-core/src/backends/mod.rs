//! The attention backends, one module each, behind one small interface ([`BackendRules`]): what vLLM's
//! `validate_configuration` says of a layer (selection), what the backend decides for an attention group (its query
//! dtype and kernel per phase, its errors and log lines, the trace of why), and the CUDA-graph support its metadata
//! builder declares. [`rules`] is the one `match` on [`Backend`] that picks the module; everything else asks it.
//!
//! | module | vLLM backend | vLLM source it restates |
//! |---|---|---|
//! | [`flashinfer`] | FLASHINFER | `v1/attention/backends/flashinfer.py`, `utils/flashinfer.py`, flashinfer-python |
//! | [`flash_attn`] | FLASH_ATTN | `v1/attention/backends/flash_attn.py`, `fa_utils.py` |
//! | [`triton_attn`] | TRITON_ATTN | `v1/attention/backends/triton_attn.py` |
//! | [`flex_attention`] | FLEX_ATTENTION | `v1/attention/backends/flex_attention.py` |
//! | [`turboquant`] | TURBOQUANT | `v1/attention/backends/turboquant_attn.py` |
//! | [`mla`] | the MLA backends (FLASHMLA, CUTLASS_MLA, FLASHINFER_MLA, TRITON_MLA, FLASH_ATTN_MLA, their sparse variants, TOKENSPEED_MLA) and DEEPSEEK_V32_INDEXER | `v1/attention/backends/mla/` |
//! | [`composite`] | TRITON_FLASH_ATTN, TRITON_FLASHINFER (0.30.0+) | `v1/attention/backends/composite.py`, `triton_flash_attn.py`, `triton_flashinfer.py` |
//! | [`recurrent`] | GDN_ATTN, MAMBA2, MAMBA1, LINEAR, SHORT_CONV | `v1/attention/backends/{gdn,mamba*,linear,short_conv}_attn.py` |
//!
//! Adding a backend: a variant of [`Backend`] (`attention.rs`), a module here implementing [`BackendRules`], its arm
//! in [`rules`], its place in [`crate::selection::priorities`] where a release's priority list names it, and its
//! `supports_*` / class attributes in `data/source-lines.toml`. The compiler finds every other place (every `match` on
//! `Backend` is exhaustive).

pub mod composite;
pub mod flash_attn;
pub mod flashinfer;
pub mod flex_attention;
pub mod mla;
pub mod query;
pub mod recurrent;
pub mod triton_attn;
pub mod turboquant;

use crate::attention::{Backend, CgSupport};
use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::report::{GroupError, GroupErrorKind, GroupReport, Stage};
use crate::serve::AttentionConfig;
use crate::source::Cite;
use crate::trace::Trace;

/// What one layer asks the selector for (`AttentionSelectorConfig`, and what `validate_configuration` reads).
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
    /// `AttentionSelectorConfig.use_mm_prefix`: the layer's `model_config.is_mm_prefix_lm`
    /// ([`crate::model::ModelSpec::layers_use_mm_prefix`]: gemma-3 multimodal from 0.33.0, gemma-4 with vision
    /// bidirectional attention). Backends without `supports_mm_prefix` refuse it; it puts the composites first (0.30.0+).
    pub use_mm_prefix: bool,
    /// `use_per_head_quant_scales`: a compressed-tensors checkpoint whose `kv_cache_scheme.strategy` is `attn_head`
    /// (`Attention.__init__`, before the skip list). Printed in vLLM's errors; TRITON_ATTN and the composites refuse it.
    pub use_per_head_quant_scales: bool,
    /// `--attention-config.use_non_causal`. Printed in vLLM's errors; qpath's backend rules do not read it.
    pub use_non_causal: bool,
    /// `decode_context_parallel_size > 1` (the selector's `use_dcp`, 0.29.0+). Printed in vLLM's errors.
    pub use_dcp: bool,
    /// An MLA layer's dims (`use_mla=True`; `use_sparse` when it has `index_topk`): the selector walks the MLA
    /// priority list and only MLA backends take it.
    pub mla: Option<crate::model::MlaDims>,
}

impl LayerQuery {
    /// Equal in every field but `kv_cache_dtype` (which the caller compares as a `&str`, so that looking a layer's
    /// query up allocates nothing).
    pub fn same_but_cache_dtype(&self, o: &LayerQuery) -> bool {
        let LayerQuery {
            head_size,
            kv_cache_dtype: _,
            has_sinks,
            sliding_window,
            q_heads,
            kv_heads,
            block_size,
            use_mm_prefix,
            use_per_head_quant_scales,
            use_non_causal,
            use_dcp,
            mla,
        } = self;
        (*head_size, *has_sinks, *sliding_window, *q_heads, *kv_heads, *block_size)
            == (
                o.head_size,
                o.has_sinks,
                o.sliding_window,
                o.q_heads,
                o.kv_heads,
                o.block_size,
            )
            && (*use_mm_prefix, *use_per_head_quant_scales, *use_non_causal, *use_dcp, *mla)
                == (
                    o.use_mm_prefix,
                    o.use_per_head_quant_scales,
                    o.use_non_causal,
                    o.use_dcp,
                    o.mla,
                )
    }
}

/// What the engine's configuration tells every group's rules beyond the platform.
#[derive(Clone, Copy)]
pub struct Engine<'a> {
    /// `--attention-config`.
    pub attention_config: &'a AttentionConfig,
    /// The name the report gives the GPU (vLLM prints NVML's).
    pub device: &'a str,
    /// A hybrid model: its block size follows the recurrent state page.
    pub hybrid: bool,
    /// The checkpoint's `quantization_config` as far as it concerns the KV cache (`None`: no quantization config),
    /// which decides the layers' q/k/v scales ([`query`]).
    pub checkpoint: Option<&'a crate::model::CheckpointKv>,
    /// How many distinct sliding-window configs the model's FLASH_ATTN layers have (`_get_sliding_window_configs`):
    /// FA3's AOT scheduler metadata needs exactly one.
    pub fa_window_configs: usize,
    /// The speculative-decoding drafter's groups: their metadata builders build with `fast_build` (no FA3 AOT
    /// scheduling).
    pub drafter: bool,
    /// Some attention layer of the model has a sliding window it does not clamp for multimodal prefixes
    /// ([`crate::model::ModelSpec::has_unclamped_window`]): the composite backends' routing refuses CUDA graphs.
    pub unclamped_window: bool,
}

/// What a group's rules read beyond the platform and the group's shape.
pub struct GroupContext<'a> {
    pub engine: &'a Engine<'a>,
    /// The group's first layer as it asked the selector (its skip-adjusted cache dtype, its `--block-size`); `None`
    /// for a recurrent group, whose layers never ask.
    pub query: Option<&'a LayerQuery>,
    /// A recurrent group's layers, flags and environment ([`recurrent`]); `None` for an attention group.
    pub recurrent: Option<&'a recurrent::RecurrentInputs<'a>>,
}

/// A builder's declared CUDA-graph support and why.
pub struct CgDecision {
    pub support: CgSupport,
    /// The statement that decides it in this release.
    pub cite: &'static Cite,
    pub why: String,
}

/// What every backend module provides. Each method restates one part of the backend's vLLM source for the
/// scenario's release; none has a default, so a new backend states each.
pub trait BackendRules: Sync {
    /// The backend class's `__name__` (`FlashInferBackend`), as vLLM's messages name it.
    fn class_name(&self) -> &'static str;

    /// `validate_configuration`'s reasons for one layer, in vLLM's order; empty when the backend is valid.
    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String>;

    /// Fills `g` (whose shape, cache dtype and selection steps are set) with what the backend decides: the query
    /// dtype and kernel per phase, the errors (each phase's and the first the engine meets), warnings, log lines
    /// and the trace.
    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport);

    /// The `AttentionCGSupport` the group's metadata builder declares. `model_q_heads` is the model's query heads per
    /// rank; `non_causal` the runner's `use_non_causal` for this group.
    fn cudagraph_support(&self, p: &Platform, g: &GroupReport, model_q_heads: u32, non_causal: bool) -> CgDecision;

    /// `get_supported_kernel_block_sizes()` for a layer with these heads per rank, as a hybrid model's block-size
    /// alignment asks it; `None` where qpath does not restate it.
    fn kernel_block_sizes(&self, p: &Platform, q_heads: u32, kv_heads: u32, t: &mut Trace) -> Option<KernelSizes>;
}

/// The module of a backend: the one `match` on [`Backend`] that dispatches a rule.
pub fn rules(b: Backend) -> &'static dyn BackendRules {
    match b {
        Backend::FlashAttn => &flash_attn::FlashAttn,
        Backend::FlashInfer => &flashinfer::FlashInferRules,
        Backend::TritonAttn => &triton_attn::TritonAttn,
        Backend::FlexAttention => &flex_attention::FlexAttention,
        Backend::TurboQuant => &turboquant::TurboQuant,
        Backend::TritonFlashAttn => &composite::TRITON_FLASH_ATTN,
        Backend::TritonFlashInfer => &composite::TRITON_FLASHINFER,
        Backend::FlashMla => &mla::FLASHMLA,
        Backend::FlashMlaSparse => &mla::FLASHMLA_SPARSE,
        Backend::CutlassMla => &mla::CUTLASS_MLA,
        Backend::FlashInferMla => &mla::FLASHINFER_MLA,
        Backend::FlashInferMlaSparse => &mla::FLASHINFER_MLA_SPARSE,
        Backend::FlashInferMlaSparseSm120 => &mla::FLASHINFER_MLA_SPARSE_SM120,
        Backend::FlashInferMlaSparseSm90 => &mla::FLASHINFER_MLA_SPARSE_SM90,
        Backend::TritonMla => &mla::TRITON_MLA,
        Backend::FlashAttnMla => &mla::FLASH_ATTN_MLA,
        Backend::FlashAttnMlaSparse => &mla::FLASH_ATTN_MLA_SPARSE,
        Backend::FlashAttnMlaSparseFa4 => &mla::FLASH_ATTN_MLA_SPARSE_FA4,
        Backend::TokenspeedMla => &mla::TOKENSPEED_MLA,
        Backend::DeepseekV32Indexer => &mla::indexer::Indexer,
        Backend::GdnAttn => &recurrent::GDN_ATTN,
        Backend::Mamba2 => &recurrent::MAMBA2,
        Backend::Mamba1 => &recurrent::MAMBA1,
        Backend::Linear => &recurrent::LINEAR,
        Backend::ShortConv => &recurrent::SHORT_CONV,
    }
}

/// The kernel block sizes a backend declares: exact sizes, or `MultipleOf(base)`.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelSizes {
    Exact(Vec<u32>),
    MultipleOf(u32),
}

impl KernelSizes {
    pub fn min(&self) -> u32 {
        match self {
            KernelSizes::Exact(v) => v.iter().copied().min().unwrap_or(16),
            KernelSizes::MultipleOf(b) => *b,
        }
    }

    /// `select_common_block_size` for one backend.
    pub fn kernel_block(&self, block: u32) -> Option<u32> {
        match self {
            KernelSizes::MultipleOf(b) => (block % b == 0).then_some(block),
            KernelSizes::Exact(v) if v.contains(&block) => Some(block),
            KernelSizes::Exact(v) => v.iter().copied().filter(|s| block % s == 0).max(),
        }
    }

    pub fn show(&self) -> String {
        match self {
            KernelSizes::Exact(v) => format!("{v:?}"),
            KernelSizes::MultipleOf(b) => format!("[MultipleOf({b})]"),
        }
    }
}

/// Whether a `--kv-cache-dtype` string quantizes the cache (`get_kv_quant_mode != NONE`).
pub fn is_quantized(kv: &str) -> bool {
    !matches!(kv, "auto" | "float16" | "bfloat16")
}

/// vLLM's own `is_quantized_kv_cache` as each release writes it: `fp8*`, `*per_token_head`, `nvfp4` (`== "nvfp4"`
/// before 0.28.0, `startswith("nvfp4")` from it) up to 0.32.0 (`vllm/utils/torch_utils.py`); 0.33.0's
/// `get_kv_quant_mode(...) != NONE` (`vllm/v1/kv_cache_interface.py`) also counts `turboquant_*`, `octave_*` and
/// `ultraquant_4bit`. (Not [`is_quantized`], which is qpath's "not a 16-bit cache".)
pub fn is_quantized_kv_cache(r: crate::release::Release, kv: &str) -> bool {
    let base = kv.starts_with("fp8") || kv.ends_with("per_token_head") || flashinfer::is_nvfp4(r, kv);
    if r < crate::release::Release::V0_33_0 {
        return base;
    }
    base || kv.starts_with("turboquant_") || kv.starts_with("octave_") || kv == "ultraquant_4bit"
}

/// The KV spec dtype of an unquantized layer: the model dtype for "auto", else the named 16-bit dtype.
pub fn unquantized_spec_dtype(kv: &str, model: TorchDtype) -> TorchDtype {
    match kv {
        "float16" => TorchDtype::Float16,
        "bfloat16" => TorchDtype::BFloat16,
        _ => model,
    }
}

/// `validate_configuration`'s block-size reason (`vllm/v1/attention/backend.py`, every release).
pub(crate) const BLOCK_SIZE_REASON: &str = "block_size not supported";

/// `validate_configuration`'s sink reason.
pub(crate) const SINK_REASON: &str = "attention sinks not supported";

/// A `--block-size` that is not a multiple of 16: TRITON_ATTN's own `supports_block_size` (`block_size % 16`),
/// FLEX_ATTENTION's `[MultipleOf(16)]` and TURBOQUANT's `[16, 32, 64, 128]` through the base class (a multiple of any
/// of them): the same test.
pub(crate) fn multiple_of_16_reason(l: &LayerQuery, reasons: &mut Vec<String>) {
    if l.block_size.is_some_and(|bs| bs % 16 != 0) {
        reasons.push(BLOCK_SIZE_REASON.to_string());
    }
}

/// With a user's `--block-size`, the backend that won selection accepted it: say against which rule (a multiple of
/// 16, the kernel block sizes `cite` restates).
pub(crate) fn block_size_step(b: Backend, l: &LayerQuery, cite: &Cite, t: &mut Trace) {
    let Some(bs) = l.block_size else { return };
    t.step(
        Some(cite),
        format!("{b} kernel block size"),
        format!("--block-size {bs} is a multiple of 16: accepted"),
    );
}

/// One init-time raise of a backend other than FlashInfer.
pub(crate) struct Raise {
    pub kind: GroupErrorKind,
    pub message: String,
    pub cite: &'static Cite,
    /// The `__init__` that raises (a traceback's last frame).
    pub raised_in: &'static str,
}

/// Records `raised` (if any) as the group's init-time error, with its trace step.
pub(crate) fn init_error(p: &Platform, raised: Option<Raise>, t: &mut Trace, g: &mut GroupReport) {
    if let Some(r) = raised {
        let source = r.cite.at(p.release).map(|s| s.short());
        t.step(Some(r.cite), format!("raises {}", r.kind), r.message.clone());
        g.error = Some(GroupError {
            kind: r.kind,
            message: r.message,
            stage: Stage::Init,
            source,
            raised_in: r.raised_in.to_string(),
        });
    }
}

/// Moves a backend's trace (its steps, warnings and log lines) into the group.
pub(crate) fn take_trace(g: &mut GroupReport, t: Trace) {
    g.warnings.extend(t.warnings);
    g.logs.extend(t.logs);
    g.log_records.extend(t.records);
    g.trace.extend(t.steps);
}

/// A builder's class attribute `_cudagraph_support`.
pub(crate) fn class_attribute(support: CgSupport, cite: &'static Cite) -> CgDecision {
    CgDecision {
        support,
        cite,
        why: "the class attribute".into(),
    }
}
