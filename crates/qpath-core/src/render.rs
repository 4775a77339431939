//! Text renderings of a [`Report`]: the CLI's table and Markdown (also the page's "copy as Markdown").

use std::fmt::Write as _;

use crate::options::echo_words;
use crate::report::{attention_name, Backend, GroupError, GroupReport, Kernel, Report, BARE_ASSERT};
use crate::resolve::short_list;

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("—".to_string(), |x| x.to_string())
}

fn kernel(k: Option<Kernel>) -> String {
    opt(k.map(|k| k.name()))
}

/// "AssertionError at first prefill (JIT module): text".
fn error_text(e: &GroupError) -> String {
    let message = if e.message.is_empty() { BARE_ASSERT } else { &e.message };
    format!("{} at {}: {message}", e.kind, stage_name(e.stage))
}

fn outcome(g: &GroupReport) -> String {
    match &g.error {
        Some(e) => error_text(e),
        None if g.backend.is_recurrent() => format!("recurrent state on {} (no KV cache)", g.backend),
        None if g.backend != Backend::FlashInfer => format!("runs on {}", g.backend),
        None => "ok".to_string(),
    }
}

/// A phase's outcome: its own first error, else the kernel it runs ("decode: runs fa2").
fn phase_outcome(g: &GroupReport, is_prefill: bool) -> String {
    let (e, k) = if is_prefill {
        (&g.phase_errors.prefill, g.kernel.prefill)
    } else {
        (&g.phase_errors.decode, g.kernel.decode)
    };
    match e {
        Some(e) => format!(
            "{}{}",
            error_text(e),
            e.source.as_ref().map_or(String::new(), |s| format!(" [{s}]"))
        ),
        None => format!("runs {}", kernel(k)),
    }
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
    let tokens = s.num_speculative_tokens.map_or("unset".to_string(), |n| n.to_string());
    let drafter = match (&s.model, s.attention_layers) {
        (_, false) => "no attention layers".to_string(),
        (Some(m), true) => format!("drafter {m}, backend {}, cache {}", s.backend, s.kv_cache_dtype),
        (None, true) => format!("backend {}, cache {}", s.backend, s.kv_cache_dtype),
    };
    Some(format!(
        "speculative decoding: method {}, {tokens} tokens, {drafter}, model runner {}",
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

/// The groups where a phase raises: (group number, layers, prefill outcome, decode outcome).
fn phase_rows(r: &Report) -> Vec<(usize, String, String, String)> {
    r.groups
        .iter()
        .enumerate()
        .filter(|(_, g)| g.phase_errors.prefill.is_some() || g.phase_errors.decode.is_some())
        .map(|(i, g)| {
            (
                i + 1,
                format!("{}layers {}", role_prefix(g), short_list(&g.layers)),
                phase_outcome(g, true),
                phase_outcome(g, false),
            )
        })
        .collect()
}

/// One group's row: layers, attention, backend, cache dtype, Q prefill, Q decode, kernels, outcome.
fn cells(g: &GroupReport) -> [String; 9] {
    [
        layers_label(g),
        attention_name(g.attention).to_string(),
        g.backend.name().to_string(),
        g.cache_dtype.clone(),
        opt(g.q_dtype.prefill),
        opt(g.q_dtype.decode),
        kernel(g.kernel.prefill),
        kernel(g.kernel.decode),
        outcome(g),
    ]
}

fn stage_name(s: crate::report::Stage) -> &'static str {
    use crate::report::Stage::*;
    match s {
        ProfileRun => "engine start (memory profile)",
        Init => "engine start (init)",
        Build => "first batch (build)",
        PrefillPlan => "first prefill (plan)",
        PrefillJit => "first prefill (JIT module)",
        PrefillForward => "first prefill (forward)",
        DecodePlan => "first decode (plan)",
        DecodeJit => "first decode (JIT module)",
        DecodeForward => "first decode (forward)",
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

/// A readable plain-text table (the CLI's default).
pub fn text(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", header(r));
    if let Some(m) = &r.model {
        let _ = writeln!(out, "model {} ({}, {} layers)", m.id, m.dtype, m.num_layers);
        if let Some(c) = &m.config {
            let _ = writeln!(out, "config {c}");
        }
        if let Some(kv) = &m.checkpoint_kv_cache_dtype {
            let _ = writeln!(out, "cache dtype {kv}");
        }
        if let Some(line) = speculative_line(r) {
            let _ = writeln!(out, "{line}");
        }
        if let Some(line) = cuda_graphs_line(r) {
            let _ = writeln!(out, "{line}");
        }
    }
    if let Some(e) = &r.error {
        let _ = writeln!(out, "\n{}: {}", e.kind.heading(), echo_words(&e.kind.body(&e.message)));
        if let Some(s) = &e.source {
            let _ = writeln!(out, "  at {s}");
        }
        return out;
    }
    let _ = writeln!(out);
    const WIDTHS: [usize; 8] = [14, 15, 12, 10, 14, 14, 10, 10];
    let line = |cells: [String; 9]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(WIDTHS.iter().chain([&0]))
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        padded.join(" ").trim_end().to_string()
    };
    let head = [
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
    let _ = writeln!(out, "{}", line(head.map(String::from)));
    for g in &r.groups {
        let _ = writeln!(out, "{}", line(cells(g)));
    }
    for (n, layers, prefill, decode) in phase_rows(r) {
        let _ = writeln!(
            out,
            "\ngroup {n} ({layers}), each phase:\n  prefill: {prefill}\n  decode:  {decode}"
        );
    }
    why(&mut out, r);
    let logs = log_lines(r);
    if !logs.is_empty() {
        let _ = writeln!(out, "\nlog lines vLLM would print:");
        for l in &logs {
            let _ = writeln!(out, "  {l}");
        }
    }
    for n in &r.notes {
        let _ = writeln!(out, "\nnote: {}", n.text);
    }
    if !r.unused_flags.is_empty() {
        let _ = writeln!(out, "\nflags that do not affect this decision: {}", r.unused_flags.join(" "));
    }
    out
}

/// Each group's why trace (its steps with their source lines) and warnings.
fn why(out: &mut String, r: &Report) {
    for (i, g) in r.groups.iter().enumerate() {
        let _ = writeln!(
            out,
            "\ngroup {} ({}layers {}): why",
            i + 1,
            role_prefix(g),
            short_list(&g.layers)
        );
        for (n, s) in g.trace.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {:>2}. {}: {}{}",
                n + 1,
                s.rule,
                s.outcome,
                s.source.as_ref().map_or(String::new(), |s| format!("  [{s}]"))
            );
        }
        for w in &g.warnings {
            let _ = writeln!(out, "  warning: {w}");
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
        for (n, layers, prefill, decode) in phase_rows(r) {
            let _ = writeln!(
                out,
                "\n**group {n} ({layers})**, each phase:\n- prefill: {}\n- decode: {}",
                code_span(&prefill),
                code_span(&decode)
            );
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
}
