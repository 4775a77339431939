//! The answer column: the tabs, the view they select (explain, compare, matrix) and the share box.

use std::rc::Rc;

use qpath_core::release::Release;
use qpath_core::report::Report;
use qpath_core::resolve::{resolve, Scenario};
use yew::prelude::*;

use crate::components::choice::{Choice, ChoiceOption};
use crate::components::compare::Compare;
use crate::state::View;

#[derive(PartialEq, Properties)]
pub struct ViewTabsProps {
    pub view: View,
    pub onview: Callback<View>,
}

#[function_component(ViewTabs)]
pub fn view_tabs(props: &ViewTabsProps) -> Html {
    let tab = |view: View, id: &'static str, label: &'static str| {
        let onclick = props.onview.reform(move |_: MouseEvent| view);
        let selected = props.view == view;
        html! {
            <button type="button" role="tab" {id} aria-selected={selected.to_string()}
                class={classes!("tab", selected.then_some("active"))} {onclick}>{ label }</button>
        }
    };
    html! {
        <div class="tabs" role="tablist" aria-label="Views">
            { tab(View::Explain, "tab-explain", "Explain") }
            { tab(View::Compare, "tab-compare", "Compare releases") }
            { tab(View::Matrix, "tab-matrix", "All GPUs × cache dtypes") }
        </div>
    }
}

#[derive(PartialEq, Properties)]
pub struct CompareViewProps {
    /// The page's report (the right side).
    pub report: Rc<Report>,
    /// The same scenario at the release to compare with (the left side).
    pub other: Scenario,
    /// The select's value, as it reports it (the page parses it and names a value it cannot use).
    pub onrelease: Callback<String>,
}

#[function_component(CompareView)]
pub fn compare_view(props: &CompareViewProps) -> Html {
    let releases: Vec<ChoiceOption> = Release::ALL.iter().map(|r| ChoiceOption::new(r.name(), r.name())).collect();
    let other = Rc::new(resolve(&props.other));
    html! {
        <div class="compare-view">
            <label class="compare-pick"><span>{ "Compare with vLLM" }</span>
                <Choice id="compare-release" options={releases} value={AttrValue::from(props.other.release.name())}
                    onchange={props.onrelease.clone()} />
            </label>
            <Compare left={other} right={props.report.clone()} />
        </div>
    }
}

/// The page's address (without its hash) followed by `hash`.
fn page_link(hash: &str) -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default();
    format!("{base}{hash}")
}

pub fn copy_to_clipboard(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

#[derive(PartialEq, Properties)]
pub struct ShareProps {
    pub report: Rc<Report>,
    pub command: AttrValue,
    /// The hash of the page's state.
    pub hash: AttrValue,
}

/// Copy the link or the Markdown for an issue. The link is the page's address with the state's hash, not the address
/// bar's, which the hash effect updates only after this render (on a first load without a hash the bar has none yet).
#[function_component(Share)]
pub fn share(props: &ShareProps) -> Html {
    let link = page_link(&props.hash);
    let markdown = qpath_core::render::markdown(&props.report, &props.command, Some(&link));
    let oncopy_link = Callback::from(move |_: MouseEvent| copy_to_clipboard(&link));
    let oncopy_markdown = {
        let markdown = markdown.clone();
        Callback::from(move |_: MouseEvent| copy_to_clipboard(&markdown))
    };
    html! {
        <section class="share" aria-label="Share">
            <button type="button" id="copy-link" onclick={oncopy_link}>{ "Copy link" }</button>
            <button type="button" id="copy-markdown" onclick={oncopy_markdown}>{ "Copy as Markdown" }</button>
            <details>
                <summary>{ "Markdown for a GitHub issue" }</summary>
                <pre id="markdown-preview" tabindex="0" role="region" aria-label="Markdown preview">{ markdown }</pre>
            </details>
        </section>
    }
}
