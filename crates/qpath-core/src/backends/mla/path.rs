//! What a selected MLA group runs (to be restated from `docs/source-notes/mla-path.md`).

use super::Mla;
use crate::attention::{CgSupport, QPATH_LIMIT};
use crate::backends::{CgDecision, GroupContext};
use crate::platform::Platform;
use crate::report::GroupReport;
use crate::source;

pub fn resolve_group(b: &Mla, _p: &Platform, _cx: &GroupContext, g: &mut GroupReport) {
    g.unmodelled = Some(format!("{QPATH_LIMIT}: what {} runs", b.backend));
}

pub fn cudagraph_support(b: &Mla, _p: &Platform, _g: &GroupReport, _q: u32, _nc: bool) -> CgDecision {
    CgDecision {
        support: CgSupport::Never,
        cite: &source::CG_TRITON_SUPPORT,
        why: format!("{QPATH_LIMIT}: {}'s CUDA-graph support", b.backend),
    }
}
