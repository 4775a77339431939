//! The MLA backends (DeepSeek-architecture models' multi-head latent attention): FLASHMLA, FLASHMLA_SPARSE,
//! CUTLASS_MLA, FLASHINFER_MLA and its sparse variants, TRITON_MLA, FLASH_ATTN_MLA and its sparse variants,
//! TOKENSPEED_MLA (`vllm/v1/attention/backends/mla/`), and the sparse models' indexer cache (DEEPSEEK_V32_INDEXER).
//!
//! - [`selection`]: the MLA priority lists (`_get_backend_priorities`' MLA branch) and each backend's
//!   `validate_configuration` facts and `supports_combination` texts (`docs/source-notes/mla-selection.md`).
//! - [`path`]: what a selected MLA group runs: the cache dtype it settles on (`fp8_ds_mla`), the decode kernel, the
//!   query dtype of each phase (the layer's absorbed decode query, FP8 where the impl takes it), errors, CUDA graphs
//!   (`docs/source-notes/mla-path.md`).
//! - [`decode`]: each backend's impl and builder: whether it takes an FP8 query, its raises, its decode/prefill split,
//!   its decode (MQA) kernels.
//! - [`prefill`]: the separately selected MLA prefill backend and its kernel.
//! - [`indexer`]: DEEPSEEK_V32_INDEXER, the fixed backend of a sparse layer's indexer cache.

pub mod decode;
pub mod indexer;
pub mod path;
pub mod prefill;
pub mod selection;

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery};
use crate::attention::Backend;
use crate::platform::Platform;
use crate::release::Release;
use crate::report::GroupReport;
use crate::trace::Trace;

/// One MLA backend.
pub struct Mla {
    pub backend: Backend,
    pub class_name: &'static str,
}

macro_rules! mla {
    ($name:ident, $variant:ident, $class:literal) => {
        pub const $name: Mla = Mla {
            backend: Backend::$variant,
            class_name: $class,
        };
    };
}

mla!(FLASHMLA, FlashMla, "FlashMLABackend");
mla!(FLASHMLA_SPARSE, FlashMlaSparse, "FlashMLASparseBackend");
mla!(CUTLASS_MLA, CutlassMla, "CutlassMLABackend");
mla!(FLASHINFER_MLA, FlashInferMla, "FlashInferMLABackend");
mla!(FLASHINFER_MLA_SPARSE, FlashInferMlaSparse, "FlashInferMLASparseTRTLLMBackend");
mla!(
    FLASHINFER_MLA_SPARSE_SM120,
    FlashInferMlaSparseSm120,
    "FlashInferMLASparseSM120Backend"
);
mla!(
    FLASHINFER_MLA_SPARSE_SM90,
    FlashInferMlaSparseSm90,
    "FlashInferMLASparseSM90Backend"
);
mla!(TRITON_MLA, TritonMla, "TritonMLABackend");
mla!(FLASH_ATTN_MLA, FlashAttnMla, "FlashAttnMLABackend");
mla!(FLASH_ATTN_MLA_SPARSE, FlashAttnMlaSparse, "FlashAttnMLASparseBackend");
mla!(
    FLASH_ATTN_MLA_SPARSE_FA4,
    FlashAttnMlaSparseFa4,
    "FlashAttnMLASparseFA4Backend"
);
mla!(TOKENSPEED_MLA, TokenspeedMla, "TokenspeedMLABackend");

/// The backend class's `__name__` in release `r` where it is not [`BackendRules::class_name`]'s (0.24.0+):
/// FLASHINFER_MLA_SPARSE's class is `FlashInferMLASparseBackend` before 0.24.0 (flashinfer_mla_sparse.py L55 in
/// 0.20.0–0.23.0), `FlashInferMLASparseTRTLLMBackend` after the SM120 split. `None` elsewhere.
pub fn class_name_at(b: Backend, r: Release) -> Option<&'static str> {
    (b == Backend::FlashInferMlaSparse && r < Release::V0_24_0).then_some("FlashInferMLASparseBackend")
}

impl BackendRules for Mla {
    fn class_name(&self) -> &'static str {
        self.class_name
    }

    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String> {
        selection::reasons(self, p, l)
    }

    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        path::resolve_group(self, p, cx, g);
    }

    fn cudagraph_support(&self, p: &Platform, g: &GroupReport, model_q_heads: u32, non_causal: bool) -> CgDecision {
        path::cudagraph_support(self, p, g, model_q_heads, non_causal)
    }

    fn kernel_block_sizes(&self, p: &Platform, q_heads: u32, kv_heads: u32, t: &mut Trace) -> Option<KernelSizes> {
        selection::kernel_block_sizes(self, p, q_heads, kv_heads, t)
    }
}
