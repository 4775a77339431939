//! The release timeline (issue 23, item 3): one scenario resolved at every release qpath knows, one row per release
//! (its backend, query dtypes and kernels per group, CUDA-graph mode, first error), and for a row whose answer differs
//! from the release before it, what changed and the trace step that decides it in the newer release (its rule, both
//! outcomes, and the cited line).
//!
//! Each release reads the command line with its own option table and runs with the FlashInfer it pins (the installed
//! FlashInfer of the scenario is a choice of one release; [`TimelineRow::flashinfer`] names the pin), so a row is what
//! `pip install vllm==<release>` gives on the same GPU.

use serde::Serialize;

use crate::attention::{Backend, Kernel, Phases};
use crate::dtype::TorchDtype;
use crate::matrix::{self, CellStatus, MatrixMode};
use crate::release::Release;
use crate::report::{GroupReport, Report, TraceStep, Verdict};
use crate::resolve::{resolve_sharing, shared_config, short_list, without_configs, Scenario};

/// One group of a row, as the timeline compares it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimelineGroup {
    /// The group's layers (`0-31`, `0-46 (every 6th)` …, as the reports write them).
    pub layers: String,
    pub backend: Backend,
    pub q_dtype: Phases<Option<TorchDtype>>,
    pub kernel: Phases<Option<Kernel>>,
    /// Every kernel each phase can run (its batch decides among them), in the order the code tries them.
    pub kernels: Phases<Vec<Kernel>>,
    /// The group's first error, `Type (stage): text`.
    pub error: Option<String>,
}

/// What changed in a row from the release before it, with the step of the newer release's trace that decides it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimelineChange {
    /// What changed, e.g. `group 1 (layers 0-31): decode query float8_e4m3fn → bfloat16`.
    pub what: String,
    /// The first step of the newer release's trace (the group's, or the CUDA-graph resolution's) whose outcome is not
    /// the older release's for the same rule (or that the older release does not have); `None` when the change is
    /// the scenario's error, whose line is `source` instead.
    pub rule: Option<String>,
    /// That step's outcome in the older release (`None`: the older release has no such step).
    pub before: Option<String>,
    pub after: Option<String>,
    /// The cited line in the newer release (`file:line`) and its link.
    pub source: Option<String>,
    pub url: Option<String>,
}

/// One release's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimelineRow {
    pub release: Release,
    /// The flashinfer-python the release pins, which the row runs with.
    pub flashinfer: &'static str,
    pub verdict: Verdict,
    pub status: CellStatus,
    /// The matrix's picked-mode summary: the error's headline, or every group with its backend, query and kernels.
    pub summary: String,
    pub groups: Vec<TimelineGroup>,
    /// The resolved `cudagraph_mode` (`None` when the scenario stops before it).
    pub cuda_graph_mode: Option<String>,
    /// The scenario's error, `Type: message` (argparse, a ValueError, a selection error …).
    pub error: Option<String>,
    /// What differs from the row before (empty for the first row and for a row that answers the same).
    pub changes: Vec<TimelineChange>,
}

/// The timeline of one scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Timeline {
    pub command_line: String,
    pub gpu: String,
    pub rows: Vec<TimelineRow>,
}

impl Timeline {
    /// The releases whose answer differs from the release before.
    pub fn changed(&self) -> impl Iterator<Item = &TimelineRow> {
        self.rows.iter().filter(|r| !r.changes.is_empty())
    }
}

/// `base` resolved at every release of [`Release::ALL`], oldest first, each with its pinned FlashInfer.
pub fn timeline(base: &Scenario) -> Timeline {
    let mut rows: Vec<TimelineRow> = Vec::with_capacity(Release::ALL.len());
    let mut previous: Option<Report> = None;
    let mut gpu = String::new();
    // The config.json, parsed once for every release (its model spec is built per release).
    let config = shared_config(base);
    let bare = without_configs(base);
    for release in Release::ALL {
        let s = Scenario {
            release,
            flashinfer: None,
            vllm_version: None,
            flashinfer_version: None,
            ..bare.clone()
        };
        let report = resolve_sharing(&s, &config);
        gpu.clone_from(&report.gpu.name);
        let mut row = row_of(release, &report);
        if let (Some(before), Some(b)) = (&previous, rows.last()) {
            row.changes = changes(before, b, &report, &row);
        }
        rows.push(row);
        previous = Some(report);
    }
    Timeline {
        command_line: base.command_line.clone(),
        gpu,
        rows,
    }
}

/// A table cell's text: one line, `|` escaped.
fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}

/// The timeline as Markdown: one table row per release (the releases whose answer changes in bold), then each change
/// with the step that decides it and its line.
pub fn markdown(t: &Timeline) -> String {
    let mut out = format!(
        "Release timeline on {} of `{}` (each release with the FlashInfer it pins)\n\n| vLLM | verdict | what runs, or the \
         error | cudagraph_mode |\n|---|---|---|---|\n",
        t.gpu,
        cell(&t.command_line)
    );
    for r in &t.rows {
        let name = if r.changes.is_empty() {
            r.release.name().to_string()
        } else {
            format!("**{}**", r.release.name())
        };
        out.push_str(&format!(
            "| {name} | {} | {} | {} |\n",
            r.verdict.name(),
            cell(&r.summary),
            r.cuda_graph_mode.as_deref().unwrap_or("–")
        ));
    }
    let changed: Vec<&TimelineRow> = t.changed().collect();
    if changed.is_empty() {
        out.push_str("\nEvery release gives the same answer.\n");
        return out;
    }
    out.push_str("\nWhat changed:\n");
    for r in changed {
        for c in &r.changes {
            out.push_str(&format!("- **{}**: {}\n", r.release.name(), c.what.replace('\n', " ")));
            let at = match (&c.source, &c.url) {
                (Some(s), Some(u)) => format!(" ([{s}]({u}))"),
                (Some(s), None) => format!(" ({s})"),
                _ => String::new(),
            };
            match &c.rule {
                Some(rule) => out.push_str(&format!(
                    "  - `{rule}`{at}: {} → {}\n",
                    c.before.as_deref().unwrap_or("no such step before"),
                    c.after.as_deref().unwrap_or("–")
                )),
                None if !at.is_empty() => out.push_str(&format!("  - raised at{at}\n")),
                None => {}
            }
        }
    }
    out
}

/// The mark after a release whose answer differs from the release before, in [`text`].
pub const CHANGED: &str = "*";

/// The timeline as text that fits `width` columns (`None`: unwrapped): the command line on a line of its own (never
/// wrapped, so that it stays copy-pasteable), a table of the releases (verdict, cudagraph_mode, what runs or the error;
/// the releases whose answer changes marked [`CHANGED`]), or, when no table fits, one block per release; then each
/// change with the step that decides it and its `file:line`.
pub fn text(t: &Timeline, width: Option<usize>) -> String {
    use crate::matrix::hang;
    let mut out = hang(
        &format!("Release timeline on {} (each release with the FlashInfer it pins) of:", t.gpu),
        width,
        "",
        "",
        &[],
    );
    // A command line is never wrapped: a broken command is worse than a long line.
    out.push_str(&format!("  {}\n", t.command_line.replace('\n', " ")));
    let any_changed = t.rows.iter().any(|r| !r.changes.is_empty());
    if any_changed {
        out.push_str(&hang(
            &format!("{CHANGED} the answer differs from the release before (what changed: below)"),
            width,
            "",
            "  ",
            &[],
        ));
    }
    out.push('\n');
    let name = |r: &TimelineRow| {
        if r.changes.is_empty() {
            r.release.name().to_string()
        } else {
            format!("{} {CHANGED}", r.release.name())
        }
    };
    let graphs = |r: &TimelineRow| r.cuda_graph_mode.clone().unwrap_or_else(|| "–".to_string());
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| vec![name(r), r.verdict.name().to_string(), graphs(r), r.summary.clone()])
        .collect();
    let table = crate::columns::table(
        &["vLLM", "verdict", "cudagraph_mode", "what runs, or the error"],
        &rows,
        width,
    )
    // A table too narrow to keep each release's name (and mark) on its first line is not one to read.
    .filter(|table| {
        rows.iter()
            .all(|r| table.lines().any(|l| l == r[0] || l.starts_with(&format!("{}  ", r[0]))))
    });
    match table {
        Some(table) => out.push_str(&table),
        None => {
            for r in &t.rows {
                out.push_str(&hang(
                    &format!("{}: {}, cudagraph_mode {}", name(r), r.verdict.name(), graphs(r)),
                    width,
                    "",
                    "  ",
                    &[],
                ));
                out.push_str(&hang(&r.summary, width, "  ", "  ", crate::columns::CELL_BREAKS));
            }
        }
    }
    if !any_changed {
        out.push_str("\nEvery release gives the same answer.\n");
        return out;
    }
    out.push_str("\nWhat changed:\n");
    for r in t.changed() {
        out.push_str(&format!("{}\n", r.release.name()));
        for c in &r.changes {
            out.push_str(&hang(&c.what, width, "  - ", "    ", &[',']));
            let at = c.source.as_deref().map_or(String::new(), |s| format!(" ({s})"));
            match &c.rule {
                Some(rule) => {
                    out.push_str(&hang(&format!("{rule}{at}"), width, "    rule: ", "      ", &[]));
                    let before = c.before.as_deref().unwrap_or("no such step before");
                    out.push_str(&hang(before, width, "      before: ", "        ", &[]));
                    out.push_str(&hang(
                        c.after.as_deref().unwrap_or("–"),
                        width,
                        "      after:  ",
                        "        ",
                        &[],
                    ));
                }
                None if !at.is_empty() => out.push_str(&hang(&format!("raised at{at}"), width, "    ", "      ", &[])),
                None => {}
            }
        }
    }
    out
}

fn group_of(g: &GroupReport) -> TimelineGroup {
    TimelineGroup {
        layers: short_list(&g.layers),
        backend: g.backend,
        q_dtype: g.q_dtype,
        kernel: g.kernel,
        kernels: Phases {
            prefill: g.kernels.prefill.iter().map(|c| c.kernel).collect(),
            decode: g.kernels.decode.iter().map(|c| c.kernel).collect(),
        },
        error: g.error.as_ref().map(|e| format!("{} ({}): {}", e.kind, e.when(), e.text())),
    }
}

fn row_of(release: Release, r: &Report) -> TimelineRow {
    let (status, summary) = matrix::summarize_in(r, MatrixMode::Picked);
    TimelineRow {
        release,
        flashinfer: release.flashinfer_pin().name(),
        verdict: r.verdict,
        status,
        summary,
        groups: r.groups.iter().map(group_of).collect(),
        cuda_graph_mode: r.cuda_graphs.as_ref().filter(|_| r.error.is_none()).map(|c| c.mode.clone()),
        error: r.error.as_ref().map(|e| format!("{}: {}", e.kind.heading(), e.text())),
        changes: Vec::new(),
    }
}

fn dtype(d: Option<TorchDtype>) -> &'static str {
    d.map_or("none", TorchDtype::name)
}

fn kernel(k: Option<Kernel>) -> &'static str {
    k.map_or("none", Kernel::name)
}

fn kernel_list(kernels: &[Kernel]) -> String {
    if kernels.is_empty() {
        return "none".to_string();
    }
    kernels.iter().map(|k| k.name()).collect::<Vec<_>>().join(" | ")
}

/// What differs between two releases' reports of the same scenario (`b`, `a`: their rows, already made), each with its
/// deciding step.
fn changes(before: &Report, b: &TimelineRow, after: &Report, a: &TimelineRow) -> Vec<TimelineChange> {
    let mut out = Vec::new();
    // vLLM's text decides: qpath's hints after it name the release (`… not of 0.28.0`).
    let vllm_text = |r: &Report| {
        r.error
            .as_ref()
            .map(|e| (e.kind, e.message.split("\nqpath: ").next().map(str::to_string)))
    };
    if vllm_text(before) != vllm_text(after) {
        let what = match (&b.error, &a.error) {
            (None, Some(e)) => format!("fails: {e}"),
            (Some(_), None) => "no longer fails".to_string(),
            (_, e) => format!("fails differently: {}", e.as_deref().unwrap_or_default()),
        };
        let at = after.error.as_ref().and_then(|e| e.source.clone());
        out.push(TimelineChange {
            what,
            rule: None,
            before: None,
            after: None,
            url: None,
            source: at,
        });
    }
    if b.groups.len() != a.groups.len() && before.error.is_none() && after.error.is_none() {
        out.push(plain(format!("{} attention groups → {}", b.groups.len(), a.groups.len())));
    }
    for (i, (gb, ga)) in b.groups.iter().zip(&a.groups).enumerate() {
        if gb == ga {
            continue;
        }
        let name = format!("group {} (layers {})", i + 1, ga.layers);
        let mut diffs = Vec::new();
        if gb.backend != ga.backend {
            diffs.push(format!("backend {} → {}", gb.backend, ga.backend));
        }
        for (phase, qb, qa) in [
            ("prefill", gb.q_dtype.prefill, ga.q_dtype.prefill),
            ("decode", gb.q_dtype.decode, ga.q_dtype.decode),
        ] {
            if qb != qa {
                diffs.push(format!("{phase} query {} → {}", dtype(qb), dtype(qa)));
            }
        }
        for (phase, kb, ka) in [
            ("prefill", gb.kernel.prefill, ga.kernel.prefill),
            ("decode", gb.kernel.decode, ga.kernel.decode),
        ] {
            if kb != ka {
                diffs.push(format!("{phase} kernel {} → {}", kernel(kb), kernel(ka)));
            }
        }
        for (phase, lb, la) in [
            ("prefill", &gb.kernels.prefill, &ga.kernels.prefill),
            ("decode", &gb.kernels.decode, &ga.kernels.decode),
        ] {
            if lb != la {
                diffs.push(format!("{phase} kernels {} → {}", kernel_list(lb), kernel_list(la)));
            }
        }
        if gb.error != ga.error {
            diffs.push(match &ga.error {
                Some(e) => format!("error: {e}"),
                None => "its error is gone".to_string(),
            });
        }
        if gb.layers != ga.layers {
            diffs.push(format!("layers {} → {}", gb.layers, ga.layers));
        }
        if diffs.is_empty() {
            continue;
        }
        let what = format!("{name}: {}", diffs.join(", "));
        let step = match (before.groups.get(i), after.groups.get(i)) {
            (Some(x), Some(y)) => first_different_step(&x.trace, &y.trace),
            _ => None,
        };
        out.push(with_step(what, step));
    }
    if b.cuda_graph_mode != a.cuda_graph_mode && before.error.is_none() && after.error.is_none() {
        let what = format!(
            "cudagraph_mode {} → {}",
            b.cuda_graph_mode.as_deref().unwrap_or("none"),
            a.cuda_graph_mode.as_deref().unwrap_or("none")
        );
        let step = match (&before.cuda_graphs, &after.cuda_graphs) {
            (Some(x), Some(y)) => first_different_step(&x.trace, &y.trace),
            _ => None,
        };
        out.push(with_step(what, step));
    }
    if out.is_empty() && before.error.is_none() && after.error.is_none() && b.summary != a.summary {
        out.push(plain(format!("{} → {}", b.summary, a.summary)));
    }
    out
}

fn plain(what: String) -> TimelineChange {
    TimelineChange {
        what,
        rule: None,
        before: None,
        after: None,
        source: None,
        url: None,
    }
}

/// The deciding step of `after` and the older outcome of its rule.
struct Step<'a> {
    after: &'a TraceStep,
    before: Option<&'a TraceStep>,
}

fn with_step(what: String, step: Option<Step>) -> TimelineChange {
    match step {
        None => plain(what),
        Some(Step { after, before }) => TimelineChange {
            what,
            rule: Some(after.rule.to_string()),
            before: before.map(|s| s.outcome.to_string()),
            after: Some(after.outcome.to_string()),
            source: after.source(),
            url: after.url(),
        },
    }
}

/// The first step of `after` whose rule's outcome differs from the same rule's in `before` (the n-th step of a rule
/// compared with the n-th of the same rule), or that `before` does not have; steps of qpath's own bookkeeping (no
/// cited line) are skipped unless nothing else differs.
fn first_different_step<'a>(before: &'a [TraceStep], after: &'a [TraceStep]) -> Option<Step<'a>> {
    let mut bookkeeping: Option<Step<'a>> = None;
    for (i, s) in after.iter().enumerate() {
        let nth = after[..i].iter().filter(|t| t.rule == s.rule).count();
        let old = before.iter().filter(|t| t.rule == s.rule).nth(nth);
        if old.is_some_and(|o| o.outcome == s.outcome) {
            continue;
        }
        let step = Step { after: s, before: old };
        if s.at.is_some() {
            return Some(step);
        }
        bookkeeping.get_or_insert(step);
    }
    bookkeeping
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::{Hardware, DEFAULT_CUDA};

    fn scenario(gpu: &str, command_line: &str) -> Scenario {
        Scenario {
            hardware: Hardware::Gpu(crate::gpu::find(gpu).expect("a GPU of the table")),
            release: Release::LATEST,
            cuda: DEFAULT_CUDA,
            trtllm_cubins: None,
            command_line: command_line.to_string(),
            model_config: None,
            draft_model_config: None,
            flashinfer: None,
            vllm_version: None,
            flashinfer_version: None,
        }
    }

    #[test]
    fn first_different_step_matches_rules_by_occurrence() {
        let s = |rule: &'static str, outcome: &'static str| TraceStep::new(rule, outcome, None);
        let before = [s("a", "1"), s("b", "x"), s("b", "y")];
        let after = [s("a", "1"), s("b", "x"), s("b", "z")];
        let step = first_different_step(&before, &after).expect("the second b differs");
        assert_eq!(&*step.after.outcome, "z");
        assert_eq!(step.before.map(|b| &*b.outcome), Some("y"));
        assert!(first_different_step(&before, &before).is_none());
        let added = [s("a", "1"), s("c", "new")];
        let step = first_different_step(&before, &added).expect("c is new");
        assert_eq!(&*step.after.rule, "c");
        assert!(step.before.is_none());
    }

    #[test]
    fn one_row_per_release_in_order() {
        let t = timeline(&scenario("l4", "vllm serve meta-llama/Llama-3.1-8B-Instruct"));
        let releases: Vec<Release> = t.rows.iter().map(|r| r.release).collect();
        assert_eq!(releases, Release::ALL);
        assert!(t.rows[0].changes.is_empty());
        assert!(t.rows.iter().all(|r| r.verdict == Verdict::Serves), "{t:#?}");
    }
}
