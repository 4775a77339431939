//! DEEPSEEK_V32_INDEXER: the lightning indexer's cache beside each sparse MLA layer (a fixed backend, never
//! selected; to be restated from `docs/source-notes/mla-models.md` §3).

use crate::attention::{CgSupport, QPATH_LIMIT};
use crate::backends::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery};
use crate::platform::Platform;
use crate::report::GroupReport;
use crate::source;
use crate::trace::Trace;

/// The indexer cache's rules.
pub struct Indexer;

impl BackendRules for Indexer {
    fn class_name(&self) -> &'static str {
        "DeepseekV32IndexerBackend"
    }

    fn reasons(&self, _p: &Platform, _l: &LayerQuery) -> Vec<String> {
        vec!["DEEPSEEK_V32_INDEXER: a fixed backend, not selected per attention layer".to_string()]
    }

    fn resolve_group(&self, _p: &Platform, _cx: &GroupContext, g: &mut GroupReport) {
        g.unmodelled = Some(format!("{QPATH_LIMIT}: the indexer cache's kernels"));
    }

    fn cudagraph_support(&self, _p: &Platform, _g: &GroupReport, _q: u32, _nc: bool) -> CgDecision {
        CgDecision {
            support: CgSupport::Never,
            cite: &source::CG_TRITON_SUPPORT,
            why: format!("{QPATH_LIMIT}: the indexer's CUDA-graph support"),
        }
    }

    fn kernel_block_sizes(&self, _p: &Platform, _q: u32, _kv: u32, _t: &mut Trace) -> Option<KernelSizes> {
        None
    }
}
