//! Text renderings of a [`Report`]: the CLI's table and Markdown (also the page's "copy as Markdown").

use std::fmt::Write as _;

use crate::columns::{self, Layout};
use crate::options::echo_words;
use crate::report::{GroupReport, GroupRole, NoteKind, Report, Verdict, QPATH_LIMIT};
use crate::resolve::short_list;

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("—".to_string(), |x| x.to_string())
}

/// What a group's row leaves out, line by line (label, text): an MLA group's dims and who runs each phase (the MLA
/// prefill backend apart from the decode backend); each phase's error in full (type, when and where, vLLM's text,
/// the raising line) or its kernels with their conditions, where a phase raises or its kernel depends on the batch;
/// the query's quantization and scale; what qpath cannot model. Empty when the row says it all.
pub fn group_details(g: &GroupReport) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(dims) = g.mla_text() {
        out.push(("mla", dims));
    }
    if let Some(phases) = g.mla_phases_text() {
        out.push(("phases", phases));
    }
    let raises = g.phase_errors.prefill.is_some() || g.phase_errors.decode.is_some();
    for (label, is_prefill) in [("prefill", true), ("decode", false)] {
        let own = if is_prefill {
            &g.phase_errors.prefill
        } else {
            &g.phase_errors.decode
        };
        match own {
            Some(e) => out.push((label, e.full())),
            None if raises || g.kernel_varies(is_prefill) => out.push((label, format!("runs {}", g.kernels_text(is_prefill)))),
            None => {}
        }
    }
    if let Some(q) = &g.query_quant {
        out.push(("query", q.text()));
    }
    if let Some(why) = &g.unmodelled {
        out.push(("limit", why.clone()));
    }
    out
}

/// The heading of a group's details: `group 2 (drafter layers 32)`.
fn details_heading(n: usize, g: &GroupReport) -> String {
    format!("group {n} ({}layers {})", role_prefix(g), short_list(&g.layers))
}

/// A group's layers as the renderings name them: a drafter's are marked (`drafter 0`), since its indices are the
/// names vLLM gives the drafter's layers and can equal the target's.
pub fn layers_label(g: &GroupReport) -> String {
    match g.role {
        crate::report::GroupRole::Target => short_list(&g.layers),
        crate::report::GroupRole::Drafter => format!("drafter {}", short_list(&g.layers)),
    }
}

/// `drafter ` for a drafter's group, nothing for the target's.
fn role_prefix(g: &GroupReport) -> &'static str {
    match g.role {
        crate::report::GroupRole::Target => "",
        crate::report::GroupRole::Drafter => "drafter ",
    }
}

/// One line on speculative decoding: the method, tokens, drafter, model runner, the drafter's backend and cache dtype.
pub fn speculative_line(r: &Report) -> Option<String> {
    let s = r.speculative.as_ref()?;
    let tokens = match s.num_speculative_tokens {
        None => "tokens unset".to_string(),
        Some(1) => "1 token".to_string(),
        Some(n) => format!("{n} tokens"),
    };
    let drafter = match (&s.model, s.attention_layers) {
        (_, false) => "no attention layers".to_string(),
        (Some(m), true) => format!("drafter {m}, backend {}, cache {}", s.backend, s.kv_cache_dtype),
        (None, true) => format!("backend {}, cache {}", s.backend, s.kv_cache_dtype),
    };
    Some(format!(
        "speculative decoding: method {}, {tokens}, {drafter}, model runner {}",
        s.method,
        match s.runner {
            crate::report::ModelRunner::V1 => "V1",
            crate::report::ModelRunner::V2 => "V2",
        }
    ))
}

/// One line on CUDA graphs: the requested mode and, when the runner changes it, the resolved one and why.
pub fn cuda_graphs_line(r: &Report) -> Option<String> {
    let c = r.cuda_graphs.as_ref()?;
    let why = match (&c.min_backend, c.support) {
        (Some(b), Some(s)) => format!(" ({b}: {})", s.name()),
        _ => String::new(),
    };
    Some(if c.mode == c.requested {
        format!("CUDA graphs: cudagraph_mode {} ({}){why}", c.mode, c.set_by)
    } else {
        format!("CUDA graphs: cudagraph_mode {} ({}) → {}{why}", c.requested, c.set_by, c.mode)
    })
}

/// One group's row: layers, attention, backend, cache dtype, Q prefill, Q decode, kernels per phase, outcome.
fn cells(g: &GroupReport) -> [String; 9] {
    [
        layers_label(g),
        g.attention_text().to_string(),
        g.backend.name().to_string(),
        g.cache_dtype.clone(),
        opt(g.q_dtype.prefill),
        opt(g.q_dtype.decode),
        g.kernel_names(true),
        g.kernel_names(false),
        g.outcome(),
    ]
}

/// The label before a detail line: `MLA: `, `runs: `, `prefill: `, `decode:  `, `query quantization: `, nothing
/// before a limit (its text starts with "qpath cannot model this").
fn detail_label(label: &str) -> &'static str {
    match label {
        "prefill" => "prefill: ",
        "decode" => "decode:  ",
        "query" => "query quantization: ",
        "mla" => "MLA: ",
        "phases" => "runs: ",
        _ => "",
    }
}

/// "FlashInfer 0.6.18" or, when the scenario installs another, "FlashInfer 0.7.2.post1 (release pins 0.6.18)".
pub fn flashinfer_text(r: &Report) -> String {
    if r.flashinfer == r.flashinfer_pinned {
        format!("FlashInfer {}", r.flashinfer)
    } else {
        format!("FlashInfer {} (release pins {})", r.flashinfer, r.flashinfer_pinned)
    }
}

fn header(r: &Report) -> String {
    let fi = if r.flashinfer == r.flashinfer_pinned {
        format!("({})", flashinfer_text(r))
    } else {
        format!("with {}", flashinfer_text(r))
    };
    format!(
        "vLLM {} {fi} on {} (compute capability {}), CUDA {}, TRTLLM cubins {}",
        r.vllm,
        r.gpu.name,
        r.gpu.compute_capability,
        r.cuda,
        if r.trtllm_cubins { "available" } else { "unavailable" }
    )
}

/// A readable plain-text table (the CLI's default), unwrapped: one line per row, step and log line (`--wide`).
pub fn text(r: &Report) -> String {
    text_in(r, Layout::default())
}

/// What `--brief` says it left out, as its last line.
pub const BRIEF_LEFT_OUT: &str =
    "--brief left out the group details, the why trace and the log lines vLLM would print: run without --brief to see them";

/// The report's verdict as one line, as `qpath --check` starts it: "vLLM would start and serve: …", "vLLM would fail:
/// …", or what qpath cannot model ([`verdict_message`]).
pub fn verdict_line(r: &Report) -> String {
    let m = verdict_message(r);
    match r.verdict {
        Verdict::Serves => format!("vLLM would start and serve: {m}"),
        Verdict::Fails => format!("vLLM would fail: {m}"),
        Verdict::CannotModel => m,
    }
}

/// Text written for a width (each paragraph wrapped with a hanging indent) or unwrapped.
struct Out {
    s: String,
    width: Option<usize>,
}

impl Out {
    /// `text` after `first`, its continuation lines after `rest` (blanks only as breaks).
    fn para(&mut self, first: &str, rest: &str, text: &str) {
        match self.width {
            None => {
                let _ = writeln!(self.s, "{first}{text}");
            }
            Some(w) => self.s.push_str(&columns::wrap_hanging(text, w, first, rest, &[])),
        }
    }

    fn blank(&mut self) {
        self.s.push('\n');
    }
}

/// The plain-text report laid out for `layout`: with a width, every line fits it (the header, model and CUDA-graph
/// lines, the details, the why trace's steps, warnings, notes and vLLM's log lines wrap with a hanging indent, a
/// step's `[file:line]` kept whole; the group table as [`group_table`] fits it); without, [`text`]. `brief`: the
/// header and model lines, the verdict, the group table and a line naming what it left out.
pub fn text_in(r: &Report, layout: Layout) -> String {
    let mut o = Out {
        s: String::new(),
        width: layout.width,
    };
    o.para("", "  ", &header(r));
    if let Some(m) = &r.model {
        o.para("", "  ", &format!("model {} ({}, {} layers)", m.id, m.dtype, m.num_layers));
        if !layout.brief {
            if let Some(c) = &m.config {
                o.para("", "  ", &format!("config {c}"));
            }
            if let Some(kv) = &m.checkpoint_kv_cache_dtype {
                o.para("", "  ", &format!("cache dtype {kv}"));
            }
            if let Some(line) = speculative_line(r) {
                o.para("", "  ", &line);
            }
            if let Some(line) = cuda_graphs_line(r) {
                o.para("", "  ", &line);
            }
        }
    }
    if layout.brief {
        o.blank();
        o.para("", "  ", &verdict_line(r));
        if r.error.is_none() && !r.groups.is_empty() {
            o.blank();
            o.s.push_str(&group_table(r, layout.width));
        }
        o.blank();
        o.para("", "", BRIEF_LEFT_OUT);
        return o.s;
    }
    if let Some(e) = &r.error {
        o.blank();
        o.para(
            "",
            "  ",
            &format!("{}: {}", e.kind.heading(), echo_words(&e.kind.body(&e.message))),
        );
        if let Some(s) = &e.source {
            o.para("  at ", "     ", s);
        }
        return o.s;
    }
    o.blank();
    o.s.push_str(&group_table(r, layout.width));
    for (i, g) in r.groups.iter().enumerate() {
        let details = group_details(g);
        if details.is_empty() {
            continue;
        }
        o.blank();
        o.para("", "  ", &format!("{}:", details_heading(i + 1, g)));
        for (label, text) in details {
            o.para(&format!("  {}", detail_label(label)), "    ", &text);
        }
    }
    why(&mut o, r);
    let logs = log_lines(r);
    if !logs.is_empty() {
        o.blank();
        o.para("", "", "log lines vLLM would print:");
        for l in &logs {
            // vLLM's text byte for byte: broken only at blanks, each continuation indented under the line's start.
            o.para("  ", "      ", l);
        }
    }
    for n in &r.notes {
        o.blank();
        o.para("note: ", "  ", &n.text);
    }
    if !r.unused_flags.is_empty() {
        o.blank();
        o.para(
            "",
            "  ",
            &format!(
                "flags that do not affect this decision: {}",
                crate::options::echo_entries(&r.unused_flags)
            ),
        );
    }
    o.s
}

/// Where a layer list (`0-2, 4-6, drafter 32`) may break in a table cell: after its commas and at blanks, never inside
/// a range.
const LAYER_BREAKS: &[char] = &[','];

/// Where each column of the group table may break: the layer list after its commas, the outcome (prose) at blanks
/// only, the others at [`columns::CELL_BREAKS`] too.
const TABLE_BREAKS: [&[char]; 9] = [
    LAYER_BREAKS,
    columns::CELL_BREAKS,
    columns::CELL_BREAKS,
    columns::CELL_BREAKS,
    columns::CELL_BREAKS,
    columns::CELL_BREAKS,
    columns::CELL_BREAKS,
    columns::CELL_BREAKS,
    &[],
];

/// The headings of the group table's columns.
const HEAD: [&str; 9] = [
    "layers",
    "attention",
    "backend",
    "cache",
    "Q prefill",
    "Q decode",
    "prefill",
    "decode",
    "outcome",
];

/// The group table. Unwrapped: each column as wide as its widest cell up to a cap. For a width: the nine columns when
/// the kernel and dtype columns fit whole and the layer list and outcome keep room to read (each wraps inside its
/// column); else eight columns with each group's outcome on a line under its row; else, when even eight do not fit
/// unsqueezed, each group as a block of labelled lines ([`group_blocks`]).
pub fn group_table(r: &Report, width: Option<usize>) -> String {
    let rows: Vec<[String; 9]> = r.groups.iter().map(cells).collect();
    let Some(w) = width else {
        return unwrapped_table(&rows);
    };
    let len = |s: &str| s.chars().count();
    let mut natural: Vec<usize> = HEAD.iter().map(|h| len(h)).collect();
    let breaks = |i: usize| TABLE_BREAKS.get(i).copied().unwrap_or(columns::CELL_BREAKS);
    let mut least: Vec<usize> = HEAD.iter().map(|h| columns::longest_piece(h, columns::CELL_BREAKS)).collect();
    for row in &rows {
        for (i, c) in row.iter().enumerate() {
            natural[i] = natural[i].max(len(c));
            least[i] = least[i].max(columns::longest_piece(c, breaks(i)));
        }
    }
    // The layer list keeps at least 12 columns (or its whole width), the outcome 24: narrower, they read as a column
    // of fragments.
    let layers_min = natural[0].min(12).max(least[0]);
    let outcome_min = natural[8].min(24).max(least[8]);
    let middle: usize = natural[1..8].iter().sum();
    let head: Vec<&str> = HEAD.to_vec();
    let as_rows = |n: usize| -> Vec<Vec<String>> { rows.iter().map(|r| r[..n].to_vec()).collect() };
    // Nine columns: the outcome first gets its room, the layer list the rest.
    if let Some(room) = w.checked_sub(middle + 2 * 8) {
        if room >= layers_min + outcome_min {
            let outcome = natural[8].min(room - layers_min);
            let layers = natural[0].min(room - outcome);
            let mut widths = natural.clone();
            widths[0] = layers;
            widths[8] = outcome;
            return columns::table_with(&head, &as_rows(9), &widths, &TABLE_BREAKS);
        }
    }
    // Eight columns, each outcome under its row.
    if let Some(room) = w.checked_sub(middle + 2 * 7) {
        if room >= layers_min {
            let mut widths = natural[..8].to_vec();
            widths[0] = natural[0].min(room);
            let mut out = columns::table_with(&head[..8], &[], &widths, &TABLE_BREAKS);
            for row in &rows {
                // The row alone (its table's first line is the head, one line: every column is at least its head's
                // width), then its outcome.
                let one = columns::table_with(&head[..8], &[row[..8].to_vec()], &widths, &TABLE_BREAKS);
                out.push_str(one.split_once('\n').map_or("", |(_, r)| r));
                out.push_str(&columns::wrap_hanging(&row[8], w, "  outcome: ", "           ", &[]));
            }
            return out;
        }
    }
    group_blocks(r, w)
}

/// The table without a width: each column as wide as its widest cell up to a cap (a longer cell pushes its row on; the
/// outcome, last, is not padded). The backend column fits every backend's name (FLASHINFER_MLA_SPARSE_SM120), the
/// cache column the indexer's "fp8 (indexer keys)", the kernel columns the MLA kernels' names
/// (flashinfer-mla-sparse-sm120).
fn unwrapped_table(rows: &[[String; 9]]) -> String {
    let head = HEAD.map(String::from);
    const CAPS: [usize; 8] = [14, 15, 27, 18, 14, 14, 27, 27];
    let mut widths = [0usize; 8];
    for row in std::iter::once(&head).chain(rows.iter()) {
        for ((w, c), cap) in widths.iter_mut().zip(row.iter()).zip(CAPS) {
            *w = (*w).max(c.chars().count().min(cap));
        }
    }
    let line = |cells: &[String; 9]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths.iter().chain([&0]))
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        padded.join("  ").trim_end().to_string()
    };
    let mut out = String::new();
    let _ = writeln!(out, "{}", line(&head));
    for row in rows {
        let _ = writeln!(out, "{}", line(row));
    }
    out
}

/// Two phases' values as one: `x (prefill and decode)` when they agree, else `prefill x, decode y`.
fn phases(prefill: &str, decode: &str) -> String {
    if prefill == decode {
        format!("{prefill} (prefill and decode)")
    } else {
        format!("prefill {prefill}, decode {decode}")
    }
}

/// The groups for a width the table's columns do not fit: each group a block of labelled lines, blocks a blank line
/// apart, each value wrapped under its label:
///
/// ```text
/// group 1  layers 0-31
///   backend  FLASHINFER, attention full, cache fp8
///   Q dtype  float8_e4m3fn (prefill and decode)
///   kernels  fa2 (prefill and decode)
///   outcome  AssertionError on the first decode: fp8 tensor core is not supported in
///            fa2 backend
/// ```
pub fn group_blocks(r: &Report, width: usize) -> String {
    let mut out = String::new();
    for (i, g) in r.groups.iter().enumerate() {
        let c = cells(g);
        if i > 0 {
            out.push('\n');
        }
        let first = format!("group {}  {}layers ", i + 1, role_prefix(g));
        let rest = " ".repeat(first.chars().count());
        out.push_str(&columns::wrap_hanging(&short_list(&g.layers), width, &first, &rest, &[]));
        let lines = [
            ("backend", format!("{}, attention {}, cache {}", c[2], c[1], c[3])),
            ("Q dtype", phases(&c[4], &c[5])),
            ("kernels", phases(&c[6], &c[7])),
            ("outcome", c[8].clone()),
        ];
        for (label, value) in lines {
            out.push_str(&columns::wrap_hanging(
                &value,
                width,
                &format!("  {label}  "),
                "           ",
                &[],
            ));
        }
    }
    out
}

/// Each group's why trace (its steps with their source lines) and warnings. With a width, a step wraps under its text
/// (after its number) and its `[file:line]` stays whole: at the end of the step's last line when it fits there, else
/// on a line of its own.
fn why(o: &mut Out, r: &Report) {
    for (i, g) in r.groups.iter().enumerate() {
        o.blank();
        o.para(
            "",
            "  ",
            &format!("group {} ({}layers {}): why", i + 1, role_prefix(g), short_list(&g.layers)),
        );
        for (n, s) in g.trace.iter().enumerate() {
            let first = format!("  {:>2}. ", n + 1);
            let rest = " ".repeat(first.chars().count());
            let text = format!("{}: {}", s.rule, s.outcome);
            let cite = s.source().map(|c| format!("[{c}]"));
            match (o.width, cite) {
                (None, cite) => {
                    let _ = writeln!(o.s, "{first}{text}{}", cite.map_or(String::new(), |c| format!("  {c}")));
                }
                (Some(w), None) => o.s.push_str(&columns::wrap_hanging(&text, w, &first, &rest, &[])),
                (Some(w), Some(cite)) => {
                    let mut step = columns::wrap_hanging(&text, w, &first, &rest, &[]);
                    step.pop();
                    let last = step.rsplit('\n').next().unwrap_or("").chars().count();
                    if last + 2 + cite.chars().count() <= w {
                        let _ = writeln!(step, "  {cite}");
                    } else {
                        step.push('\n');
                        // On its own line; a citation wider than that line breaks after a `/` (or is cut).
                        step.push_str(&columns::wrap_hanging(&cite, w, &rest, &rest, &['/']));
                    }
                    o.s.push_str(&step);
                }
            }
        }
        for w in &g.warnings {
            o.para("  warning: ", "           ", w);
        }
    }
}

/// `text` as one Markdown code span: fenced with one more backtick than its longest run of backticks (CommonMark),
/// padded with a space when it starts or ends with one.
/// The longest run of backticks in `text`.
fn longest_backtick_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// A fenced code block of `text` (CommonMark: a fence closes only at a run of backticks at least as long as the
/// opening one, so the fence is longer than any run in the text, and at least three).
fn code_block(info: &str, text: &str) -> String {
    let fence = "`".repeat((longest_backtick_run(text) + 1).max(3));
    format!("{fence}{info}\n{text}\n{fence}")
}

fn code_span(text: &str) -> String {
    let fence = "`".repeat(longest_backtick_run(text) + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// The log lines vLLM prints for the scenario as its logger shows them (`INFO [cuda.py:482] …`): the engine's, then
/// each group's, each once (a `*_once` call, or the same line from several groups).
fn log_lines(r: &Report) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for l in r.log_records.iter().chain(r.groups.iter().flat_map(|g| g.log_records.iter())) {
        let line = l.show();
        if !seen.contains(&line) {
            seen.push(line);
        }
    }
    seen
}

/// Markdown for a GitHub issue: the scenario, the command line, the per-group table, errors and logs.
pub fn markdown(r: &Report, command_line: &str, link: Option<&str>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "**qpath**: {}\n", header(r));
    let _ = writeln!(out, "{}\n", code_block("sh", command_line));
    if let Some(line) = speculative_line(r) {
        let _ = writeln!(out, "{line}\n");
    }
    if let Some(e) = &r.error {
        let _ = writeln!(
            out,
            "{}: {}{}",
            e.kind.heading(),
            code_span(&echo_words(&e.kind.body(&e.message))),
            e.source.as_ref().map_or(String::new(), |s| format!(" ({s})"))
        );
    } else {
        let _ = writeln!(
            out,
            "| layers | attention | backend | cache dtype | Q prefill | Q decode | prefill kernel | decode kernel | outcome |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
        for g in &r.groups {
            let mut c = cells(g);
            c[3] = format!("`{}`", c[3]);
            c[8] = c[8].replace('|', "\\|");
            let _ = writeln!(out, "| {} |", c.join(" | "));
        }
        for (i, g) in r.groups.iter().enumerate() {
            let details = group_details(g);
            if details.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n**{}**", details_heading(i + 1, g));
            for (label, text) in details {
                let _ = writeln!(out, "- {}{}", detail_label(label), code_span(&text));
            }
        }
        let logs = log_lines(r);
        if !logs.is_empty() {
            let _ = writeln!(
                out,
                "\n<details><summary>log lines vLLM would print</summary>\n\n{}\n</details>",
                code_block("", &logs.join("\n"))
            );
        }
    }
    if let Some(link) = link {
        let _ = writeln!(out, "\n[Open in qpath]({link})");
    }
    out
}

/// What a report's verdict says, after "vLLM would start and serve: " / "vLLM would fail: " (the CLI's `--check` line
/// and the page's verdict bar): vLLM's error (the scenario's, else the first failing group's with its backend and
/// stage), what qpath cannot model (the scenario's `InputError`, a limit note, a group's `unmodelled`), or what every
/// group runs (its backend, query dtypes and kernels: the matrix's picked cell).
pub fn verdict_message(r: &Report) -> String {
    let (_, summary) = crate::matrix::summarize_in(r, crate::matrix::MatrixMode::Picked);
    match r.verdict {
        Verdict::Fails => {
            if r.error.is_some() {
                return format!("the scenario: {summary}");
            }
            let Some((i, g, e)) = r
                .groups
                .iter()
                .enumerate()
                .find_map(|(i, g)| g.error.as_ref().map(|e| (i, g, e)))
            else {
                return summary;
            };
            let role = if g.role == GroupRole::Drafter { "drafter " } else { "" };
            format!("group {} ({role}{}, {}): {summary}", i + 1, g.backend.name(), e.stage.name())
        }
        Verdict::CannotModel => {
            if r.error.is_some() {
                return summary;
            }
            let note = r.notes.iter().find(|n| n.kind == NoteKind::Limit).map(|n| n.text.as_str());
            let group = r.groups.iter().find_map(|g| g.unmodelled.as_deref());
            echo_words(note.or(group).unwrap_or(QPATH_LIMIT))
        }
        Verdict::Serves => summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::ScenarioOptions;
    use crate::resolve::resolve;

    /// A command line holding a ``` fence (or a longer run) stays inside its code block: the block's fence is longer
    /// than any backtick run in it, so no line of the command closes it (CommonMark's closing-fence rule).
    #[test]
    fn a_fence_in_the_command_line_stays_in_its_code_block() {
        for cmd in [
            "vllm serve m --served-model-name 'a\n```\n# Injected heading\n````'",
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 # ```",
            "vllm serve meta-llama/Llama-3.1-8B-Instruct",
        ] {
            let report = resolve(&ScenarioOptions::default().scenario(cmd).unwrap());
            let md = markdown(&report, cmd, None);
            let fence = "`".repeat((longest_backtick_run(cmd) + 1).max(3));
            let block = format!("\n{fence}sh\n{cmd}\n{fence}\n");
            assert!(md.contains(&block), "{md}");
            // Every line of the command is inside the block: no line of it is a fence at least as long as the block's.
            assert!(
                cmd.lines().all(|l| longest_backtick_run(l.trim_start()) < fence.len()),
                "{cmd}"
            );
            // And after the block closes, nothing of the command is left over.
            let after = &md[md.find(&block).unwrap() + block.len()..];
            assert!(!after.contains("Injected heading"), "{after}");
        }
        assert_eq!(code_block("sh", "a ``` b"), "````sh\na ``` b\n````");
        assert_eq!(code_block("", "x"), "```\nx\n```");
        assert_eq!(code_span("a ` b"), "``a ` b``");
    }

    /// For a width the table does not fit, each group is a block of labelled lines, each within the width; the nine
    /// columns when they fit with room for the outcome; eight and the outcome under its row in between.
    #[test]
    fn the_group_table_becomes_blocks_when_its_columns_do_not_fit() {
        let mut r = on("l4", "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8");
        r.groups[0].unmodelled =
            Some("qpath cannot model this: a reason long enough to run past one line of eighty columns".into());
        r.groups[0].q_dtype.prefill = Some(crate::dtype::TorchDtype::Float8E4m3fn);
        r.groups[0].q_dtype.decode = Some(crate::dtype::TorchDtype::Float8E4m3fn);
        let blocks = group_table(&r, Some(80));
        assert_eq!(blocks, group_blocks(&r, 80));
        let outcome = r.groups[0].outcome();
        assert!(outcome.len() > 60, "{outcome}");
        let expected = format!(
            "group 1  layers 0-31\n  backend  {}, attention full, cache fp8\n  Q dtype  {} (prefill and decode)\n  \
             kernels  {} (prefill and decode)\n",
            r.groups[0].backend.name(),
            opt(r.groups[0].q_dtype.prefill),
            r.groups[0].kernel_names(true)
        );
        assert!(blocks.starts_with(&expected), "{blocks}");
        let last: Vec<&str> = blocks.lines().skip(4).collect();
        assert!(
            last[0].starts_with("  outcome  ") && last[1..].iter().all(|l| l.starts_with("           ")),
            "{blocks}"
        );
        assert_eq!(
            last.join(" ").split_whitespace().skip(1).collect::<Vec<_>>().join(" "),
            outcome
        );
        for w in [40, 60, 80] {
            assert!(group_blocks(&r, w).lines().all(|l| l.chars().count() <= w), "{w}");
        }
        // Wider: eight columns with the outcome under the row, then the nine.
        let eight = group_table(&r, Some(90));
        assert!(
            eight.starts_with("layers  attention") && !eight.lines().next().unwrap().contains("outcome"),
            "{eight}"
        );
        assert!(eight.contains("\n  outcome: "), "{eight}");
        let nine = group_table(&r, Some(200));
        assert!(
            nine.lines().next().unwrap().ends_with("outcome") && nine.lines().count() == 2,
            "{nine}"
        );
        assert_eq!(
            group_table(&r, None),
            unwrapped_table(&r.groups.iter().map(cells).collect::<Vec<_>>())
        );
        // A drafter's group says so in its block.
        let r = on(
            "h100-sxm",
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config {\"method\":\"eagle3\",\"model\":\"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B\",\"num_speculative_tokens\":2}",
        );
        if r.groups.iter().any(|g| g.role == GroupRole::Drafter) {
            assert!(group_blocks(&r, 80).contains("  drafter layers "), "{}", group_blocks(&r, 80));
        }
    }

    /// A report's group with every field a backend can fill: the rows, details and Markdown show them all.
    fn filled() -> Report {
        use crate::report::{Kernel, KernelChoice, QueryQuant};
        let mut r = resolve(
            &ScenarioOptions::default()
                .scenario("vllm serve meta-llama/Llama-3.1-8B-Instruct")
                .unwrap(),
        );
        let g = &mut r.groups[0];
        g.q_dtype.prefill = Some(crate::dtype::TorchDtype::Float8E4m3fn);
        g.q_dtype.decode = Some(crate::dtype::TorchDtype::Float8E4m3fn);
        g.kernel.prefill = Some(Kernel::TritonUnified2d);
        g.kernel.decode = Some(Kernel::TritonUnified3d);
        g.kernels.prefill = vec![KernelChoice::always(Kernel::TritonUnified2d)];
        g.kernels.decode = vec![
            KernelChoice::when(Kernel::TritonUnified3d, "decode-only batches of ≤ 16 requests"),
            KernelChoice::always(Kernel::TritonUnified2d),
        ];
        g.query_quant = Some(QueryQuant {
            granularity: "per_tensor".into(),
            q_scale: "1.0".into(),
            why: "no quantization_config".into(),
        });
        r
    }

    /// Every backend's group: its query dtypes and kernels in the row (both kernels a phase can run), the conditions
    /// and the query's scale below it; never "runs on" a backend with dashes.
    #[test]
    fn the_table_shows_every_backends_kernels_conditions_and_query_scale() {
        let r = filled();
        let t = text(&r);
        let row = t.lines().find(|l| l.starts_with("0-31")).unwrap();
        for cell in [
            "float8_e4m3fn  float8_e4m3fn",
            "triton-unified-2d",
            "triton-unified-3d or triton-unified-2d",
            "ok",
        ] {
            assert!(row.contains(cell), "{cell}: {row}");
        }
        assert!(!t.contains("runs on"), "{t}");
        assert!(
            t.contains(
                "\ngroup 1 (layers 0-31):\n  decode:  runs triton-unified-3d (decode-only batches of ≤ 16 requests), \
                 else triton-unified-2d\n  query quantization: static FP8 per tensor, q_scale 1.0: no quantization_config\n"
            ),
            "{t}"
        );
        let md = markdown(&r, "vllm serve meta-llama/Llama-3.1-8B-Instruct", None);
        assert!(
            md.contains("| triton-unified-2d | triton-unified-3d or triton-unified-2d | ok |"),
            "{md}"
        );
        assert!(
            md.contains(
                "**group 1 (layers 0-31)**\n- decode:  `runs triton-unified-3d (decode-only batches of ≤ 16 requests), \
                 else triton-unified-2d`\n- query quantization: `static FP8 per tensor, q_scale 1.0: no quantization_config`"
            ),
            "{md}"
        );
    }

    /// A group qpath cannot model says why, in its row and below it; a phase error says when, where (the call that
    /// raises, for any backend) and its line.
    #[test]
    fn a_limit_and_a_phase_error_are_said_in_full() {
        use crate::report::{GroupError, GroupErrorKind, Stage};
        let mut r = filled();
        r.groups[0].unmodelled = Some("qpath cannot model this: what X runs".into());
        let t = text(&r);
        assert!(
            t.lines()
                .any(|l| l.starts_with("0-31") && l.ends_with("qpath cannot model this: what X runs")),
            "{t}"
        );
        assert!(t.contains("\n  qpath cannot model this: what X runs\n"), "{t}");
        let mut r = filled();
        let e = GroupError {
            kind: GroupErrorKind::ValueError,
            message: String::new(),
            stage: Stage::DecodeForward,
            source: Some("vllm/x.py:7".into()),
            raised_in: "TritonAttentionImpl.forward".into(),
        };
        r.groups[0].phase_errors.decode = Some(e.clone());
        r.groups[0].error = Some(e);
        let t = text(&r);
        assert!(
            t.lines()
                .any(|l| l.starts_with("0-31") && l.ends_with("ValueError on the first decode: (a bare assert, no message)")),
            "{t}"
        );
        assert!(
            t.contains(
                "\n  prefill: runs triton-unified-2d\n  decode:  ValueError on the first decode, in \
                 TritonAttentionImpl.forward: (a bare assert, no message) [vllm/x.py:7]\n"
            ),
            "{t}"
        );
    }

    fn on(gpu: &str, cmd: &str) -> Report {
        resolve(&crate::resolve::Scenario::new(
            crate::resolve::Hardware::Gpu(crate::gpu::find(gpu).unwrap()),
            crate::release::Release::LATEST,
            cmd,
        ))
    }

    /// An MLA group's row says MLA, its backend, both query dtypes and both kernels; below it, its dims (the head size
    /// 576 as kv_lora_rank + qk_rope_head_dim) and who runs each phase: the MLA prefill backend apart from the decode
    /// backend. The same lines in the Markdown.
    #[test]
    fn an_mla_group_shows_its_dims_and_its_prefill_backend_apart_from_decode() {
        let cmd = "vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype fp8";
        let r = on("b200", cmd);
        let t = text(&r);
        let row = t.lines().find(|l| l.starts_with("0-60")).unwrap();
        let cells: Vec<&str> = row.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
        assert_eq!(
            cells,
            [
                "0-60",
                "MLA",
                "FLASHINFER_MLA",
                "fp8",
                "bfloat16",
                "float8_e4m3fn",
                "fa4-varlen",
                "trtllm-gen-mla",
                "ok"
            ],
            "{t}"
        );
        let dims = "latent cache kv_lora_rank 512 + qk_rope_head_dim 64 = head size 576 (one latent KV head, kv_c ‖ \
                    k_pe); qk_nope_head_dim 128, v_head_dim 128, q_lora_rank 1536";
        let runs = "prefill on MLA prefill backend FLASH_ATTN (fa4-varlen); decode on FLASHINFER_MLA (trtllm-gen-mla)";
        assert!(
            t.contains(&format!(
                "\ngroup 1 (layers 0-60):\n  MLA: {dims}\n  runs: {runs}\n  query quantization: "
            )),
            "{t}"
        );
        let md = markdown(&r, cmd, None);
        assert!(
            md.contains("| 0-60 | MLA | FLASHINFER_MLA | `fp8` | bfloat16 | float8_e4m3fn | fa4-varlen | trtllm-gen-mla | ok |"),
            "{md}"
        );
        assert!(md.contains(&format!("- MLA: `{dims}`\n- runs: `{runs}`\n")), "{md}");

        // Sparse: the top-k, and the prefill rows shared by the prefill backend and the sparse backend's kernels.
        let r = on("h200", "vllm serve deepseek-ai/DeepSeek-V3.2 --kv-cache-dtype fp8_ds_mla");
        let t = text(&r);
        let g = r
            .groups
            .iter()
            .find(|g| g.mla.is_some_and(|m| m.index_topk.is_some()))
            .unwrap();
        assert_eq!(g.attention_text(), "sparse MLA");
        assert!(t.contains("; sparse: index_topk 2048 tokens per query\n"), "{t}");
        assert!(
            t.contains(
                "  runs: prefill on MLA prefill backend FLASH_ATTN (fa3-varlen) or FLASHMLA_SPARSE \
                 (flashmla-sparse-decode-fp8, flashmla-sparse-fwd); decode on FLASHMLA_SPARSE (flashmla-sparse-decode-fp8)\n"
            ),
            "{t}"
        );
        assert_eq!(
            g.kernel_names(true),
            "fa3-varlen or flashmla-sparse-decode-fp8 or flashmla-sparse-fwd"
        );

        // No q_lora_rank (DeepSeek-V2-Lite): said; a standard group has none of these lines.
        let t = text(&on("l4", "vllm serve deepseek-ai/DeepSeek-V2-Lite"));
        assert!(
            t.contains("v_head_dim 128, no q_lora_rank (full-rank query projection)\n"),
            "{t}"
        );
        assert!(
            t.contains(
                "  runs: prefill on MLA prefill backend FLASH_ATTN (fa2-varlen); decode on TRITON_MLA (triton-mla-decode)\n"
            ),
            "{t}"
        );
        let t = text(&on("b200", "vllm serve meta-llama/Llama-3.1-8B-Instruct"));
        assert!(!t.contains("MLA") && !t.contains("runs: prefill"), "{t}");
    }
}
