//! "Explain a log": a paste area for a vLLM start-up log or traceback; what the page read from it (version, GPU,
//! non-default args, model, environment) and what it could not find (the page's own controls then choose it); and
//! qpath's predicted log lines and error beside the log's, line by line (`qpath_core::explain_log`). The log is read
//! in the reducer ([`Action::PasteLog`]), which applies it to the scenario like every control; this view only shows.

use qpath_core::explain_log::{self, Field, Match, Row};
use qpath_core::report::Report;
use wasm_bindgen::JsCast;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::state::{Action, PastedLog};

/// `text` with its bytes `range` in a `<mark>` (a range off the text's character boundaries shows it unmarked).
fn marked(text: &str, range: Option<(usize, usize)>) -> Html {
    match range.and_then(|(a, b)| Some((text.get(..a)?, text.get(a..b)?, text.get(b..)?))) {
        Some((before, mid, after)) if !mid.is_empty() => html! { <>{ before }<mark>{ mid }</mark>{ after }</> },
        _ => html! { { text } },
    }
}

fn row(r: &Row) -> Html {
    let (class, label) = match r.kind {
        Match::Same => ("same", "same"),
        Match::Different => ("different", "different"),
        Match::Predicted => ("predicted", "only qpath"),
        Match::Pasted => ("pasted", "only the log"),
    };
    let predicted = r.predicted.as_deref().map(|p| marked(p, r.differs.map(|d| d[0])));
    let pasted = r.pasted.as_ref().map(|(n, l)| {
        html! { <>
            <span class="log-line-no">{ format!("line {n}: ") }</span>{ marked(l, r.differs.map(|d| d[1])) }
        </> }
    });
    html! {
        <tr class={class}>
            <td class="log-match"><span class="badge">{ label }</span></td>
            <td class="log-predicted">{ predicted.unwrap_or_else(|| html! { "–" }) }</td>
            <td class="log-pasted">{ pasted.unwrap_or_else(|| html! { "–" }) }</td>
        </tr>
    }
}

/// What the page uses for a field the log lacks, and where to change it.
fn missing_text(f: Field, report: &Report) -> String {
    match f {
        Field::Version => format!(
            "the vLLM version: the page uses {}; choose yours in the release section",
            report.vllm
        ),
        Field::Gpu => format!(
            "the GPU: the page uses the {}; choose yours in the GPU section",
            report.gpu.name
        ),
        Field::Model => "the model: the command line's is used; edit it below the inputs".to_string(),
        Field::Arguments => "vLLM's `non-default args` line: the command line is built from what the log gives; \
                             edit it below the inputs"
            .to_string(),
    }
}

/// The view: the paste area, then for the last pasted log what was read and the line-by-line table against
/// `report` (the page's answer for the scenario the log set).
pub fn log_view(log: Option<&PastedLog>, report: &Report, ondispatch: &Callback<Action>) -> Html {
    let oninput = ondispatch.reform(|e: InputEvent| {
        let area: HtmlTextAreaElement = e.target().expect("an input event has a target").unchecked_into();
        Action::PasteLog(area.value())
    });
    let body = log.map(|log| {
        let built = &log.built;
        let found = explain_log::found_lines(&log.reading, built);
        let c = if built.cannot_model.is_none() {
            Some(explain_log::compare(&log.reading, report))
        } else {
            None
        };
        html! { <>
            <section id="log-read" aria-labelledby="log-read-title">
                <h2 id="log-read-title">{ format!("Read from the log ({} lines)", log.reading.lines) }</h2>
                <ul>{ for found.iter().map(|l| html! { <li>{ qpath_core::options::echo_words(l) }</li> }) }</ul>
                if !built.missing.is_empty() {
                    <ul id="log-missing">
                        { for built.missing.iter().map(|f| html! { <li>{ "Not in the log: " }{ missing_text(*f, report) }</li> }) }
                    </ul>
                }
                if !(built.problems.is_empty() && built.not_converted.is_empty() && log.reading.skipped.is_empty()) {
                    <ul id="log-skipped">
                        { for built.problems.iter().map(|p| html! { <li>{ qpath_core::options::echo_words(p) }</li> }) }
                        { for built.not_converted.iter().map(|p| html! { <li>{ format!("Not used: {p}") }</li> }) }
                        { for log.reading.skipped.iter().map(|s| html! { <li>{ format!("Skipped: {s}") }</li> }) }
                    </ul>
                }
            </section>
            if let Some(c) = c {
                <table id="log-rows">
                    <caption>{ {
                        let [same, diff, pred, pasted] = c.counts();
                        format!("Line by line: {same} same, {diff} different, {pred} only qpath, {pasted} only the log")
                    } }</caption>
                    <thead><tr>
                        <th scope="col">{ "Match" }</th><th scope="col">{ "qpath predicts" }</th>
                        <th scope="col">{ "The log" }</th>
                    </tr></thead>
                    <tbody>{ for c.rows.iter().chain(&c.error).map(row) }</tbody>
                </table>
                if c.other_records > 0 {
                    <p class="hint">{ format!(
                        "{} other records of the log are about what qpath does not predict (loading, the server, …).",
                        c.other_records
                    ) }</p>
                }
            }
        </> }
    });
    html! {
        <div class="log-view">
            <label for="log-input">{ "Paste a vLLM start-up log or traceback" }</label>
            <p class="hint">{ "qpath reads its vLLM version, GPU, non-default args, model and environment lines, sets \
                the page to that scenario and puts its predicted lines beside the log's. The log stays in this page." }</p>
            <textarea id="log-input" rows="8" spellcheck="false" autocomplete="off" {oninput}
                placeholder="(EngineCore_DP0 pid=…) INFO 08-03 17:45:41 [api_utils.py:273] non-default args: {…}" />
            { body.unwrap_or_default() }
        </div>
    }
}
