//! The page: owns the state ([`Page`], changed by [`Action`]s), keeps it in the URL hash (see
//! [`crate::components::hooks`]) and lays out the page. The parts that hold no state (the header, the notices, the GPU
//! section, the inputs' container, the tabs, the compare view, the share box, the footer) are plain functions called
//! here; the rest are components that get what they show as props.

use std::rc::Rc;

use qpath_core::resolve::resolve;
use qpath_core::serve;
use yew::prelude::*;

use crate::components::chrome::{notices, site_footer, site_header};
use crate::components::command_line::command_line;
use crate::components::fix_panel::fix_panel;
use crate::components::gpu_picker::gpu_picker;
use crate::components::hooks::{current_hash, use_after_first_frame, use_hash_sync, use_size_messages, use_theme};
use crate::components::inputs::inputs;
use crate::components::log_view::log_view;
use crate::components::matrix_view::MatrixView;
use crate::components::results::Results;
use crate::components::views::{compare_view, pick_note, share, timeline_view, view_tabs};
use crate::embed::Outbox;
use crate::state::{Action, Page, View};
use crate::theme::Theme;

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| Page::from_hash(&current_hash()));
    // In an iframe (`embed=1`): what the parent has been told (see crate::embed).
    let outbox = use_mut_ref(|| Outbox::new(state.origin.clone()));
    let root = use_node_ref();
    use_hash_sync(&state, outbox.clone());
    use_size_messages(state.embed, root.clone(), outbox);
    let ondispatch = {
        let state = state.clone();
        Callback::from(move |action: Action| state.dispatch(action))
    };
    let forced_theme = state.theme.as_deref().and_then(Theme::from_link);
    let (theme, ontheme) = use_theme(forced_theme, ondispatch.reform(Action::Notice));
    // The GPU browser (folded on a first visit) and the selects' other options are built in the render after the
    // first frame.
    let ready = use_after_first_frame();
    let _held = crate::components::choice::hold_options(!ready);

    let report = Rc::new(crate::components::results::in_page_words(
        resolve(&state.scenario()),
        &state.last_valid.model,
    ));
    // The fix finder, once per scenario: for one without a problem it is the one resolve it repeats.
    let fixes = use_memo(state.scenario(), qpath_core::fix::find);
    let results = match state.view {
        View::Explain if fixes.problem.is_some() => html! { <>
            { fix_panel(&fixes, &ondispatch) }
            <Results report={report.clone()} />
        </> },
        View::Explain => html! { <Results report={report.clone()} /> },
        View::Compare => compare_view(
            report.clone(),
            &state.compare_scenario(),
            &state.last_valid.model,
            ondispatch.reform(|v: String| Action::parsed("release to compare with", &v, Action::SetCompareRelease)),
        ),
        View::Matrix => html! {
            <MatrixView base={state.scenario()} mode={state.matrix_mode}
                onmode={ondispatch.reform(|v: String| Action::parsed("matrix mode", &v, Action::SetMatrixMode))}
                onpick={ondispatch.reform(|(g, kv)| Action::PickCell(g, kv))}
                arch={state.matrix_arch.clone()}
                onarch={ondispatch.reform(|v: String| Action::SetMatrixArch(Some(v).filter(|v| !v.is_empty())))} />
        },
        View::Timeline => timeline_view(&state.scenario(), &state.last_valid.model),
        View::Log => log_view(state.log.as_deref(), &report, &ondispatch),
    };
    // One parse of the command line serves the error line and the unused-flags line.
    let (shared_command, dropped_env) = state.shared_command();
    let (command_error, unused) = match serve::parse(state.release, &state.command) {
        Ok(cmd) => (None, cmd.unused),
        Err(e) => (Some(qpath_core::options::echo_words(&e.to_string())), Vec::new()),
    };

    let embedded = state.embed;
    let fields = inputs(&state, &report, &ondispatch);
    html! {
        <div class={classes!("qpath", embedded.then_some("embed"))} ref={root}>
            if !embedded {
                { site_header(theme, ontheme) }
            }
            { notices(&state.notices, ondispatch.reform(|_: MouseEvent| Action::DismissNotices)) }
            // Embedded, the page has no header: its h1 is in main (visually hidden), and names main, which must stand apart
            // from the host page's own main.
            // The command line first (with the GPU and release under it), then the fieldsets that edit it, then the one
            // folded advanced section; the answer beside them (static/style.css: a column that stays in view on wide
            // screens, the verdict at its top; on narrow ones the verdict bar first and sticky, with a button to the
            // results).
            <main class="layout" aria-labelledby={embedded.then_some("embed-title")}>
                if embedded {
                    <h1 id="embed-title" class="visually-hidden">{ "qpath" }</h1>
                }
                <div class="setup">
                    { command_line(&state.command, state.command_refused.clone().or(command_error), &unused, &dropped_env, ondispatch.reform(Action::SetCommand)) }
                    { gpu_picker(state.gpu, &state.filter, &ondispatch, ready, fields.release) }
                    { fields.flags }
                    { fields.advanced }
                </div>
                <div class="answer">
                    <div class="verdict-sticky">
                        { verdict_bar(&report, &fixes, state.view == View::Explain) }
                        if !embedded {
                            <button type="button" class="to-results" onclick={Callback::from(|_: MouseEvent| to_results())}>
                                { "Results" }<span aria-hidden="true">{ " ↓" }</span></button>
                        }
                    </div>
                    <div class="answer-view" id="answer-view">
                        { pick_note(state.pick_note.as_deref()) }
                        { view_tabs(state.view, &ondispatch) }
                        { results }
                        if !embedded {
                            { share(&report, &shared_command, &state.hash(), state.config_too_large()) }
                        }
                    </div>
                </div>
            </main>
            if !embedded {
                { site_footer() }
            }
        </div>
    }
}

/// Scrolls the answer's view (tabs and results) into view: the narrow layout's verdict bar button (the page's address
/// hash is its state, so this is no `#` link).
fn to_results() {
    if let Some(view) = gloo::utils::document().get_element_by_id("answer-view") {
        view.scroll_into_view();
    }
}

/// The answer in one line, first and always in view (sticky at the top): vLLM starts and serves, or fails with which
/// error, or runs with fewer CUDA graphs than asked; on which release and GPU; and beside a problem the best fix (no
/// link: the page's address hash is its state), pointing to "How to make it run" when the explainer shows it.
fn verdict_bar(report: &qpath_core::report::Report, fixes: &qpath_core::fix::Fixes, panel_shown: bool) -> Html {
    use qpath_core::report::Verdict;
    let message = qpath_core::render::verdict_message(report);
    let (class, text) = match report.verdict {
        Verdict::Fails => ("fails", format!("vLLM would fail: {message}")),
        Verdict::CannotModel => ("cannot-model", message),
        Verdict::Serves => match report.cuda_graphs.as_ref().filter(|c| c.mode != c.requested) {
            Some(c) => (
                "downgraded",
                format!(
                    "vLLM would serve, with cudagraph_mode {} instead of {}: {message}",
                    c.mode, c.requested
                ),
            ),
            None => ("serves", format!("vLLM would start and serve: {message}")),
        },
    };
    let best = fixes.suggestions.first().map(|s| s.changes.join("; "));
    html! {
        <p id="verdict" class={classes!("verdict-bar", class)} role="status">
            <span class="verdict-where">{ format!("vLLM {} on {}", report.vllm, report.gpu.name) }</span>
            { " · " }<span class="verdict-text">{ text }</span>
            if let Some(best) = best {
                { " · " }<span class="verdict-fix">{ "Best fix: " }{ best }</span>
                if let Some(p) = fixes.problem.as_ref().filter(|_| panel_shown) {
                    { format!(" (see {})", crate::components::fix_panel::title(p)) }
                }
            }
        </p>
    }
}
