//! The page's state: one [`Explorer`] value changed only by [`Action`]s (yew's `Reducible`), so every change of the
//! page is a value a test can build and compare.

use std::rc::Rc;

use qpath_core::capability::ComputeCapability;
use qpath_core::gpu::{Gpu, GpuFilter};
use yew::Reducible;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Explorer {
    pub filter: GpuFilter,
    pub selected: Option<&'static Gpu>,
    /// Messages about input the page could not use (for example an unknown GPU in the link).
    pub notices: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    SetText(String),
    SetArch(Option<String>),
    SetCapability(Option<ComputeCapability>),
    SetFp8(Option<bool>),
    SetFp4(Option<bool>),
    SetMinMemory(Option<u32>),
    ClearFilters,
    Select(&'static Gpu),
    DismissNotices,
}

impl Reducible for Explorer {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        let f = &mut next.filter;
        match action {
            Action::SetText(t) => f.text = t,
            Action::SetArch(a) => f.arch = a,
            Action::SetCapability(c) => f.capability = c,
            Action::SetFp8(v) => f.fp8 = v,
            Action::SetFp4(v) => f.fp4 = v,
            Action::SetMinMemory(m) => f.min_memory_gb = m,
            Action::ClearFilters => *f = GpuFilter::default(),
            Action::Select(g) => next.selected = Some(g),
            Action::DismissNotices => next.notices.clear(),
        }
        next.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qpath_core::gpu;

    #[test]
    fn actions_change_only_their_part() {
        let s = Rc::new(Explorer::default());
        let s = s.reduce(Action::SetArch(Some("Hopper".into())));
        let s = s.reduce(Action::Select(gpu::find("h200").unwrap()));
        let s = s.reduce(Action::SetFp4(Some(false)));
        assert_eq!(s.filter.arch.as_deref(), Some("Hopper"));
        assert_eq!(s.filter.fp4, Some(false));
        assert_eq!(s.selected.map(|g| g.id), Some("h200"));
        let s = s.reduce(Action::ClearFilters);
        assert_eq!(s.filter, GpuFilter::default());
        assert_eq!(s.selected.map(|g| g.id), Some("h200"), "clearing filters keeps the selection");
    }
}
