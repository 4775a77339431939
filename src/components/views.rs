//! The answer column: the tabs, the view they select (explain, compare, matrix, timeline) and the share box. These hold no
//! state, so they are plain functions that the page calls in its render, not components.

use std::rc::Rc;

use qpath_core::release::Release;
use qpath_core::report::Report;
use qpath_core::resolve::{resolve, Scenario};
use yew::prelude::*;

use crate::components::choice::{choice_select, ChoiceOption};
use crate::components::compare::Compare;
use crate::components::copy_button::copy_button;
use crate::components::results::{in_page_text, in_page_words};
use crate::state::{Action, View};

/// The tabs that choose the view: `view` is selected; a click dispatches [`Action::SetView`] with its view.
pub fn view_tabs(view: View, ondispatch: &Callback<Action>) -> Html {
    let tab = |tab_view: View, id: &'static str, label: &'static str| {
        let onclick = ondispatch.reform(move |_: MouseEvent| Action::SetView(tab_view));
        let selected = view == tab_view;
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
            { tab(View::Timeline, "tab-timeline", "Release timeline") }
            { tab(View::Log, "tab-log", "Explain a log") }
        </div>
    }
}

/// What the last matrix cell click changed, in a polite live region that is always there (a region added with its
/// text is not announced), empty until a click.
pub fn pick_note(note: Option<&str>) -> Html {
    html! {
        <p id="pick-note" class={classes!("pick-note", note.is_none().then_some("empty"))} role="status" aria-live="polite">
            { note.unwrap_or_default().to_string() }
        </p>
    }
}

/// The compare view: the release select, then the page's `report` (the right side) beside `other`, the same scenario
/// at the release to compare with (the left side). `onrelease` gets the select's value as it reports it (the page
/// parses it and names a value it cannot use). `model`: the command line's model id, for the page's words.
pub fn compare_view(report: Rc<Report>, other: &Scenario, model: &str, onrelease: Callback<String>) -> Html {
    let releases: Vec<ChoiceOption> = Release::ALL.iter().map(|r| ChoiceOption::new(r.name(), r.name())).collect();
    let left = Rc::new(in_page_words(resolve(other), model));
    html! {
        <div class="compare-view">
            <label class="compare-pick"><span>{ "Compare with vLLM" }</span>
                { choice_select("compare-release", releases, AttrValue::from(other.release.name()), onrelease) }
            </label>
            <Compare {left} right={report} />
        </div>
    }
}

/// The timeline view: `scenario` at every release (each with the FlashInfer it pins), one row per release, the rows
/// whose answer changes marked (a "changed" badge, not colour alone) and the scenario's own release `aria-current`;
/// under the table each change with the step that decides it, both outcomes and the cited line's link; the core's
/// texts in the page's words (`model`: the command line's model id).
pub fn timeline_view(scenario: &Scenario, model: &str) -> Html {
    let mut t = qpath_core::timeline::timeline(scenario);
    for r in t.rows.iter_mut() {
        in_page_text(&mut r.summary, model);
        for c in r.changes.iter_mut() {
            in_page_text(&mut c.what, model);
            for text in [&mut c.before, &mut c.after].into_iter().flatten() {
                in_page_text(text, model);
            }
        }
    }
    let rows = t.rows.iter().map(|r| {
        let changed = !r.changes.is_empty();
        let current = (r.release == scenario.release).then_some("true");
        html! {
            <tr class={classes!(changed.then_some("changed"), r.status.name())} aria-current={current}
                data-release={r.release.name()}>
                <th scope="row">{ r.release.name() }
                    if changed { {" "}<span class="badge">{ "changed" }</span> }
                </th>
                <td class="verdict">{ r.verdict.name() }</td>
                <td class="summary">{ r.summary.clone() }</td>
                <td class="cg">{ r.cuda_graph_mode.clone().unwrap_or_else(|| "–".to_string()) }</td>
            </tr>
        }
    });
    let changes = t
        .changed()
        .flat_map(|r| r.changes.iter().map(move |c| (r.release, c)))
        .map(|(release, c)| {
            html! {
                <li data-release={release.name()}>
                    <strong>{ release.name() }</strong>{ ": " }{ c.what.clone() }
                    if let Some(rule) = &c.rule {
                        <div class="why">
                            <code>{ rule.clone() }</code>
                            if let (Some(source), Some(url)) = (&c.source, &c.url) {
                                {" ("}<a href={url.clone()} target="_blank" rel="noopener">{ source.clone() }</a>{")"}
                            }
                            { ": " }{ c.before.clone().unwrap_or_else(|| "no such step before".to_string()) }
                            { " → " }{ c.after.clone().unwrap_or_default() }
                        </div>
                    }
                </li>
            }
        });
    html! {
        <div class="timeline-view">
            <table id="timeline-table">
                <caption>{ format!("Every vLLM release on {}, each with the FlashInfer it pins", t.gpu) }</caption>
                <thead><tr>
                    <th scope="col">{ "vLLM" }</th><th scope="col">{ "Verdict" }</th>
                    <th scope="col">{ "What runs, or the error" }</th><th scope="col">{ "cudagraph_mode" }</th>
                </tr></thead>
                <tbody>{ for rows }</tbody>
            </table>
            if t.changed().next().is_none() {
                <p id="timeline-changes">{ "Every release gives the same answer." }</p>
            } else {
                <ul id="timeline-changes">{ for changes }</ul>
            }
        </div>
    }
}

/// The page's address (without its hash) followed by `hash`.
fn page_link(hash: &str) -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default();
    format!("{base}{hash}")
}

/// Copy the link or the Markdown for an issue, for the page's `report` and `command`. The link is the page's address
/// with the state's `hash`, not the address bar's, which the hash effect updates only after this render (on a first
/// load without a hash the bar has none yet). `config_too_large`: the link leaves out the pasted config.json, and the
/// box says so beside the button.
pub fn share(report: &Report, command: &str, hash: &str, config_too_large: bool) -> Html {
    let link = page_link(hash);
    let markdown = qpath_core::render::markdown(report, command, Some(&link));
    html! {
        <section class="share" aria-label="Share">
            { copy_button("copy-link", "Copy link", link) }
            { copy_button("copy-markdown", "Copy as Markdown", markdown.clone()) }
            if config_too_large {
                <p id="link-note" class="hint">{ crate::hash::CONFIG_TOO_LARGE }</p>
            }
            if hash.len() > crate::hash::MAX_LINK {
                <p id="link-over-cap" class="hint">{ crate::hash::over_cap_note(hash.len()) }</p>
            }
            <details>
                <summary>{ "Markdown for a GitHub issue" }</summary>
                <pre id="markdown-preview" tabindex="0" role="region" aria-label="Markdown preview">{ markdown }</pre>
            </details>
        </section>
    }
}
