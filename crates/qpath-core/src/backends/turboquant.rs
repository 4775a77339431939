//! TURBOQUANT (`vllm/v1/attention/backends/turboquant_attn.py`): selection (16-bit model dtypes, `turboquant_*`
//! caches, the block size, no sinks) and CUDA-graph support. `docs/source-notes/other-backends.md` restates the
//! statements per release.

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery, SINK_REASON};
use crate::attention::{Backend, CgSupport};
use crate::platform::Platform;
use crate::report::GroupReport;
use crate::source;
use crate::trace::Trace;

/// TURBOQUANT's rules.
pub struct TurboQuant;

impl BackendRules for TurboQuant {
    fn class_name(&self) -> &'static str {
        "TurboQuantAttentionBackend"
    }

    /// `validate_configuration` for TURBOQUANT: `supported_dtypes` float16 / bfloat16 (its head-size rule, > 0,
    /// never fails, so this is the first reason), `turboquant_*` caches, `[16, 32, 64, 128]` kernel blocks, and no
    /// `supports_sink` override (False).
    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String> {
        let mut reasons = Vec::new();
        if !p.model_dtype.is_16bit() {
            reasons.push("dtype not supported".to_string());
        }
        if !l.kv_cache_dtype.starts_with("turboquant_") {
            reasons.push("kv_cache_dtype not supported".to_string());
        }
        super::multiple_of_16_reason(l, &mut reasons);
        if l.has_sinks {
            reasons.push(SINK_REASON.to_string());
        }
        reasons
    }

    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let mut t = Trace::new(p.release);
        let Some(l) = cx.query else { return };
        super::block_size_step(Backend::TurboQuant, l, &source::TURBOQUANT_KERNEL_BLOCK_SIZES, &mut t);
        g.trace.extend(t.steps);
    }

    fn cudagraph_support(&self, _p: &Platform, _g: &GroupReport, _q_heads: u32, _non_causal: bool) -> CgDecision {
        super::class_attribute(CgSupport::UniformBatch, &source::CG_TURBOQUANT_SUPPORT)
    }
    fn kernel_block_sizes(&self, _p: &Platform, _q_heads: u32, _kv_heads: u32, _t: &mut Trace) -> Option<KernelSizes> {
        None
    }
}
