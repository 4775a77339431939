//! "How to make it run": beside a scenario vLLM fails with (or runs with fewer CUDA graphs than asked), the command
//! lines one or two changes away that run (`qpath_core::fix`), best first, each with its changes, its diff and what
//! vLLM then runs, and an Apply button that sets its release, FlashInfer and command line like every control does.

use qpath_core::fix::{Fixes, Problem};
use yew::prelude::*;

use crate::state::Action;

/// The panel's title for `problem` (the verdict bar points to it by name).
pub fn title(problem: &Problem) -> &'static str {
    match problem {
        Problem::Fails(_) => "How to make it run",
        Problem::CudaGraphDowngrade { .. } => "How to keep the CUDA graphs",
        Problem::Fallback { .. } => "How to run what you asked for",
    }
}

/// The panel for `f` (the page computes it once per scenario, `use_memo` in the App); nothing when there is no problem.
/// A plain function, not a component (a component's generic code costs the page more bytes).
pub fn fix_panel(f: &Fixes, ondispatch: &Callback<Action>) -> Html {
    let Some(problem) = &f.problem else {
        return html! {};
    };
    let heading = title(problem);
    let items = f.suggestions.iter().enumerate().map(|(i, s)| {
        let onclick = {
            let (r, fi, line) = (s.release, s.installed, s.command_line.clone());
            ondispatch.reform(move |_: MouseEvent| Action::ApplyFix(r, fi, line.clone()))
        };
        let graphs = s
            .cuda_graph_mode
            .as_deref()
            .map_or(String::new(), |m| format!(", cudagraph_mode {m}"));
        html! {
            <li class="fix" data-index={i.to_string()}>
                <p class="fix-changes">{ s.changes.join("; ") }</p>
                if !(s.removed.is_empty() && s.added.is_empty()) {
                    <pre class="fix-diff">
                        { for s.removed.iter().map(|r| format!("- {r}\n")) }
                        { for s.added.iter().map(|a| format!("+ {a}\n")) }
                    </pre>
                }
                <p class="fix-outcome">{ format!("vLLM {} runs: {}{graphs}", s.release.name(), s.outcome) }</p>
                <button type="button" class="apply-fix" {onclick}>{ "Apply" }</button>
            </li>
        }
    });
    html! {
        <section class="fixes" aria-labelledby="fixes-title">
            <h2 id="fixes-title">{ heading }</h2>
            if let Some(why) = &f.skipped {
                <p class="fix-none">{ format!("{why}.") }</p>
            } else if f.suggestions.is_empty() {
                <p class="fix-none">{ format!("No command line one or two changes away runs ({} tried).", f.tried) }
                    if let Some(c) = &f.closest {
                        { format!(" The closest, {} (vLLM {}), still gives: {}", c.changes.join("; "), c.release.name(), c.outcome) }
                    }
                </p>
            } else {
                <ol>{ for items }</ol>
            }
        </section>
    }
}
