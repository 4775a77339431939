//! The GPU list's filters, in the GPU section.

use qpath_core::gpu::{self, GpuFilter};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::choice::{labeled_select, ChoiceOption};
use crate::state::Action;

/// Memory thresholds offered by the "memory at least" filter, in GB.
const MEMORY_STEPS: &[u32] = &[16, 24, 32, 48, 80, 96, 128, 180];

/// `""` stands for "any" in every filter select.
fn any() -> ChoiceOption {
    ChoiceOption::new("", "any")
}

/// The select value of an optional filter.
fn value_of<T: ToString>(v: &Option<T>) -> AttrValue {
    v.as_ref().map(|x| x.to_string()).unwrap_or_default().into()
}

/// Parses a select value; `""` (and anything unparsable, which the options never produce) is "any".
fn parse_choice<T: std::str::FromStr>(value: &str) -> Option<T> {
    value.parse().ok().filter(|_| !value.is_empty())
}

fn yes_no() -> Vec<ChoiceOption> {
    vec![any(), ChoiceOption::new("true", "yes"), ChoiceOption::new("false", "no")]
}

/// The filters of the GPU list, showing `f`; each change goes to `d` as an action. It holds no state, so it is a plain
/// function; its selects are [`Choice`] components.
pub fn filter_bar(f: &GpuFilter, d: &Callback<Action>) -> Html {
    let oninput = d.reform(|e: InputEvent| Action::SetText(e.target_unchecked_into::<HtmlInputElement>().value()));
    let onclear = d.reform(|_: MouseEvent| Action::ClearFilters);

    let archs: Vec<ChoiceOption> = std::iter::once(any())
        .chain(gpu::architectures().into_iter().map(|a| ChoiceOption::new(a, a)))
        .collect();
    let ccs: Vec<ChoiceOption> = std::iter::once(any())
        .chain(
            gpu::capabilities()
                .into_iter()
                .map(|c| ChoiceOption::new(c.to_string(), format!("{c} ({})", c.sm()))),
        )
        .collect();
    let memories: Vec<ChoiceOption> = std::iter::once(any())
        .chain(
            MEMORY_STEPS
                .iter()
                .map(|m| ChoiceOption::new(m.to_string(), format!("{m} GB"))),
        )
        .collect();

    html! {
        <form class="filters" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <label class="search">
                <span>{ "Search" }</span>
                <input id="gpu-search" type="search" placeholder="name, id or SM, e.g. 6000, h100, sm_120"
                    value={f.text.clone()} {oninput} autocomplete="off" />
            </label>
            { labeled_select("Architecture", "filter-arch", archs, AttrValue::from(value_of(&f.arch)), d.reform(|v: String| Action::SetArch(parse_choice(&v)))) }
            { labeled_select("Compute capability", "filter-cc", ccs, AttrValue::from(value_of(&f.capability)), d.reform(|v: String| Action::SetCapability(parse_choice(&v)))) }
            { labeled_select("FP8 tensor cores", "filter-fp8", yes_no(), AttrValue::from(value_of(&f.fp8)), d.reform(|v: String| Action::SetFp8(parse_choice(&v)))) }
            { labeled_select("FP4 tensor cores", "filter-fp4", yes_no(), AttrValue::from(value_of(&f.fp4)), d.reform(|v: String| Action::SetFp4(parse_choice(&v)))) }
            { labeled_select("Memory at least", "filter-memory", memories, AttrValue::from(value_of(&f.min_memory_gb)), d.reform(|v: String| Action::SetMinMemory(parse_choice(&v)))) }
            <button type="button" class="clear" onclick={onclear} disabled={*f == GpuFilter::default()}>{ "Clear filters" }</button>
        </form>
    }
}
