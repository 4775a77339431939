//! The composite backends (0.30.0+): TRITON_FLASH_ATTN and TRITON_FLASHINFER (`vllm/v1/attention/backends/
//! composite.py`, `triton_flash_attn.py`, `triton_flashinfer.py`), which route each batch either to TRITON_ATTN (a
//! query that overlaps an image span needs the multimodal prefix mask) or to their causal child (FLASH_ATTN /
//! FLASHINFER). `docs/source-notes/triton-attn.md` §8 restates them.

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery};
use crate::attention::{Backend, CgSupport, QPATH_LIMIT};
use crate::platform::Platform;
use crate::report::GroupReport;
use crate::source;
use crate::trace::Trace;

/// One composite backend's rules.
pub struct Composite {
    backend: Backend,
    class_name: &'static str,
}

pub const TRITON_FLASH_ATTN: Composite = Composite {
    backend: Backend::TritonFlashAttn,
    class_name: "TritonFlashAttentionBackend",
};
pub const TRITON_FLASHINFER: Composite = Composite {
    backend: Backend::TritonFlashInfer,
    class_name: "TritonFlashInferBackend",
};

impl BackendRules for Composite {
    fn class_name(&self) -> &'static str {
        self.class_name
    }

    fn reasons(&self, _p: &Platform, _l: &LayerQuery) -> Vec<String> {
        vec![format!("{QPATH_LIMIT}: {}'s selection rules", self.backend)]
    }

    fn resolve_group(&self, _p: &Platform, _cx: &GroupContext, g: &mut GroupReport) {
        g.unmodelled = Some(format!("{QPATH_LIMIT}: what {} runs", self.backend));
    }

    fn cudagraph_support(&self, _p: &Platform, _g: &GroupReport, _q_heads: u32, _non_causal: bool) -> CgDecision {
        CgDecision {
            support: CgSupport::Never,
            cite: &source::CG_TRITON_SUPPORT,
            why: format!("{QPATH_LIMIT}: {}'s CUDA-graph support", self.backend),
        }
    }

    fn kernel_block_sizes(&self, _p: &Platform, _q_heads: u32, _kv_heads: u32, _t: &mut Trace) -> Option<KernelSizes> {
        None
    }
}
