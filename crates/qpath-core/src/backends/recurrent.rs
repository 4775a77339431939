//! The recurrent-state backends of hybrid models' linear-attention and Mamba layers (GDN_ATTN, MAMBA2, MAMBA1,
//! LINEAR, SHORT_CONV): they are never selected by `get_attn_backend` (a layer's `mamba_type` names one), so they have
//! no selection reasons; their CUDA-graph support is their builders' class attributes.

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery};
use crate::attention::{Backend, CgSupport};
use crate::platform::Platform;
use crate::report::GroupReport;
use crate::source::{self, Cite};
use crate::trace::Trace;

/// One recurrent backend's rules: its class and its builder's class attribute.
pub struct Recurrent {
    backend: Backend,
    class_name: &'static str,
    cudagraph: (CgSupport, &'static Cite, &'static str),
}

pub const GDN_ATTN: Recurrent = Recurrent {
    backend: Backend::GdnAttn,
    class_name: "GDNAttentionBackend",
    cudagraph: (CgSupport::UniformBatch, &source::CG_GDN_SUPPORT, "the class attribute"),
};
pub const MAMBA2: Recurrent = Recurrent {
    backend: Backend::Mamba2,
    class_name: "Mamba2AttentionBackend",
    cudagraph: MAMBA_CG,
};
pub const MAMBA1: Recurrent = Recurrent {
    backend: Backend::Mamba1,
    class_name: "Mamba1AttentionBackend",
    cudagraph: MAMBA_CG,
};
pub const SHORT_CONV: Recurrent = Recurrent {
    backend: Backend::ShortConv,
    class_name: "ShortConvAttentionBackend",
    cudagraph: MAMBA_CG,
};
pub const LINEAR: Recurrent = Recurrent {
    backend: Backend::Linear,
    class_name: "LinearAttentionBackend",
    cudagraph: (
        CgSupport::UniformSingleTokenDecode,
        &source::CG_LINEAR_SUPPORT,
        "LinearAttentionMetadataBuilder's class attribute (qpath cannot model this: Bailing's builder, UNIFORM_BATCH)",
    ),
};

/// `BaseMambaAttentionMetadataBuilder._cudagraph_support`, which Mamba1, Mamba2 and ShortConv inherit.
const MAMBA_CG: (CgSupport, &Cite, &str) = (
    CgSupport::UniformBatch,
    &source::CG_MAMBA_SUPPORT,
    "BaseMambaAttentionMetadataBuilder's class attribute",
);

impl BackendRules for Recurrent {
    fn class_name(&self) -> &'static str {
        self.class_name
    }

    /// A recurrent backend is not a candidate of `get_attn_backend` (`--attention-backend` cannot name it).
    fn reasons(&self, _p: &Platform, _l: &LayerQuery) -> Vec<String> {
        vec![format!(
            "{}: a recurrent-state backend, not selected per attention layer",
            self.backend
        )]
    }

    fn resolve_group(&self, _p: &Platform, _cx: &GroupContext, _g: &mut GroupReport) {}

    fn cudagraph_support(&self, _p: &Platform, _g: &GroupReport, _q_heads: u32, _non_causal: bool) -> CgDecision {
        let (support, cite, why) = self.cudagraph;
        CgDecision {
            support,
            cite,
            why: why.to_string(),
        }
    }
    fn kernel_block_sizes(&self, _p: &Platform, _q_heads: u32, _kv_heads: u32, _t: &mut Trace) -> Option<KernelSizes> {
        None
    }
}
