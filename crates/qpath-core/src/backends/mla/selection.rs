//! MLA selection: the priority lists and each MLA backend's `validate_configuration` (to be restated from
//! `docs/source-notes/mla-selection.md`).

use super::Mla;
use crate::attention::{Backend, QPATH_LIMIT};
use crate::backends::{KernelSizes, LayerQuery};
use crate::platform::Platform;
use crate::trace::Trace;

/// `_get_backend_priorities(use_mla=True, …)`.
pub fn priorities(_p: &Platform, _l: &LayerQuery) -> Vec<Backend> {
    Vec::new()
}

/// `validate_configuration` for an MLA backend (and for a non-MLA layer asking it).
pub fn reasons(b: &Mla, _p: &Platform, _l: &LayerQuery) -> Vec<String> {
    vec![format!("{QPATH_LIMIT}: {}'s selection rules", b.backend)]
}

/// `get_supported_kernel_block_sizes()`.
pub fn kernel_block_sizes(_b: &Mla, _p: &Platform, _q: u32, _kv: u32, _t: &mut Trace) -> Option<KernelSizes> {
    None
}
