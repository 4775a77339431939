//! Text renderings of a [`Report`]: the CLI's table and Markdown (also the page's "copy as Markdown").

use std::fmt::Write as _;

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
    ]
    .map(String::from);
    let rows: Vec<[String; 9]> = r.groups.iter().map(cells).collect();
    // Each column as wide as its widest cell up to a cap (a longer cell pushes its row on; the outcome, last, is not
    // padded). The backend column fits every backend's name (FLASHINFER_MLA_SPARSE_SM120), the cache column the
    // indexer's "fp8 (indexer keys)", the kernel columns the MLA kernels' names (flashinfer-mla-sparse-sm120).
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
    let _ = writeln!(out, "{}", line(&head));
    for row in &rows {
        let _ = writeln!(out, "{}", line(row));
    }
    for (i, g) in r.groups.iter().enumerate() {
        let details = group_details(g);
        if details.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}:", details_heading(i + 1, g));
        for (label, text) in details {
            let _ = writeln!(out, "  {}{text}", detail_label(label));
        }
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
                s.source().as_ref().map_or(String::new(), |s| format!("  [{s}]"))
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
