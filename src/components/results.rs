//! Results: the answer for one scenario, rendered from a [`Report`] of the core and nothing else.
//!
//! Layout, top to bottom: the stamp (`#result-stamp`: releases, GPU, CUDA, cubins), the model line (`#result-model`),
//! speculative decoding (`#result-speculative`: the method, tokens, drafter, runner; why, in `.speculative-trace`), the
//! scenario error (`.scenario-error`) when vLLM rejects the scenario as a whole or qpath cannot model it, qpath's
//! notes (`.notes`) and the flags that do not matter (`.unused-flags`), the engine's selection log (`.engine-logs`), the
//! layer strip (`.layer-strip`, one `.layer` cell per layer with `data-layer` / `data-group`; the drafter's layers in
//! their own `.layer-strip.drafter-strip`, since vLLM numbers them apart) with its legend, and one
//! `article.group[data-group=n][data-role=target|drafter]` per attention group, the drafter's after the target's, each
//! with a `.drafter-badge` in its heading.
//!
//! In a group card (every backend's: FlashInfer, FLASH_ATTN, TRITON_ATTN, …), `.q-prefill`, `.q-decode`,
//! `.kernel-prefill` and `.kernel-decode` hold only the value text (`bfloat16`, `fa3-varlen-aot`, or `—` when the code
//! raised before deciding it or qpath cannot model it), so tests and scripts can read them; `.kernel-*` is the first
//! batch's kernel, and a phase whose kernel depends on the batch lists the others after it (`.kernel-else`), each with
//! its condition (`.kernel-when`) and the call as vLLM's code names it (`.kernel-call`). `.query-quant` says how the
//! attention layer quantizes an FP8 query and its scale (`.query-quant-why`: where the scale comes from), and
//! `.unmodelled` what qpath cannot model about the group. An MLA group's card adds its dims (`.mla-dims`: the latent
//! cache's `.mla-kv-lora-rank` and `.mla-rope`, whose sum is the head size, `.mla-nope`, `.mla-v`, `.mla-q-lora-rank`,
//! a sparse model's `.mla-topk`) and, after each kernel, who runs it (`.kernel-runner`: the MLA prefill backend
//! `MLAAttention` selects apart from the decode backend, or the decode backend).
//!
//! It depends on nothing of its crate but the report it is given: `tests/results.rs` mounts it on reports of the core.

use std::rc::Rc;

use qpath_core::dtype::TorchDtype;
use qpath_core::options::echo_words;
use qpath_core::report::{
    AttentionKind, GroupError, GroupReport, GroupRole, KernelChoice, LogRecord, QueryQuant, Report, ScenarioError,
    ScenarioErrorKind, TraceStep,
};
use qpath_core::resolve::short_list;
use yew::prelude::*;

#[derive(PartialEq, Properties)]
pub struct ResultsProps {
    pub report: Rc<Report>,
}

/// The tooltip of a value the code never computed.
pub const NOT_REACHED: &str = "not reached: the code raised first";

/// What a recurrent (linear-attention / Mamba) group's card says when the report gives it no query dtype and no kernel.
pub const RECURRENT_WORDS: &str =
    "No query dtype: recurrent state, no KV cache. These layers run a state-space / linear-attention kernel, not an \
     attention backend's.";

/// How the layer strip numbers layers.
pub const LAYER_CAPTION: &str = "Layers are numbered from 0, the index vLLM matches in --kv-cache-dtype-skip-layers.";

/// The number of group colours `static/results.css` defines (`--qp-group-1` … `--qp-group-8`); more groups reuse them.
const GROUP_COLOURS: usize = 8;

fn cache_dtype_words(cache_dtype: &str) -> String {
    if cache_dtype == "auto" {
        "auto (16-bit, unquantized)".to_string()
    } else {
        cache_dtype.to_string()
    }
}

fn colour_class(n: usize) -> String {
    format!("g{}", (n - 1) % GROUP_COLOURS + 1)
}

/// `(full, FLASHINFER, fp8)`: what tells a group apart at a glance (an MLA group's attention: `MLA`, `sparse MLA`).
fn group_brief(g: &GroupReport) -> String {
    let attention = match (g.attention, g.sliding_window) {
        (AttentionKind::SlidingWindow, Some(w)) => format!("sliding_window {w}"),
        _ => g.attention_text().to_string(),
    };
    format!("{attention}, {}, {}", g.backend, g.cache_dtype)
}

fn attention_words(g: &GroupReport) -> String {
    if let Some(m) = &g.mla {
        return match m.index_topk {
            Some(k) => format!("sparse multi-head latent attention (MLA, DeepSeek Sparse Attention: top-{k} tokens)"),
            None => "multi-head latent attention (MLA)".to_string(),
        };
    }
    match (g.attention, g.sliding_window) {
        (AttentionKind::Full, _) => "full attention".to_string(),
        (AttentionKind::SlidingWindow, Some(w)) => format!("sliding-window attention ({w} tokens)"),
        (AttentionKind::SlidingWindow, None) => "sliding_window attention".to_string(),
        (AttentionKind::LinearAttention, _) => "linear attention (gated delta net)".to_string(),
        (AttentionKind::Mamba, _) => "Mamba (state-space) layers".to_string(),
        (AttentionKind::Indexer, _) => "the sparse attention's lightning indexer (its key cache)".to_string(),
        (AttentionKind::ChunkedLocal, _) => "chunked local attention".to_string(),
    }
}

/// A `file:line` as a link when its URL is known.
/// Log lines as vLLM's logger prints them: each after the `[file:line]` of its `logger.` call.
fn log_lines(records: &[LogRecord]) -> Html {
    let last = records.len().saturating_sub(1);
    html! {
        { for records.iter().enumerate().map(|(i, l)| html! {
            <>
                <code class="log-at">{ format!("[{}]", l.location()) }</code>
                { format!(" {}{}", l.text, if i < last { "\n" } else { "" }) }
            </>
        }) }
    }
}

fn source_link(source: &str, url: Option<&str>) -> Html {
    match url {
        Some(url) => html! {
            <a class="source" href={url.to_string()} target="_blank" rel="noopener noreferrer"><code>{ source }</code></a>
        },
        None => html! { <code class="source">{ source }</code> },
    }
}

#[function_component(Results)]
pub fn results(props: &ResultsProps) -> Html {
    let r = &*props.report;
    // Named after its scenario, so several on one page (embedded elements) are distinct landmarks.
    let label = format!("Results for vLLM {} on {}", r.vllm, r.gpu.name);
    html! {
        <section class="results" aria-label={label}>
            { stamp(r) }
            { speculative(r) }
            { cuda_graphs(r) }
            if let Some(e) = &r.error {
                { scenario_error(e) }
            }
            { notes(r) }
            if r.error.is_none() {
                if !r.logs.is_empty() {
                    <div class="engine-log-block">
                        <h3>{ "Backend selection log" }</h3>
                        <pre class="engine-logs">{ log_lines(&r.log_records) }</pre>
                    </div>
                }
                { layer_strip(r) }
                <div class="groups">
                    { for r.groups.iter().enumerate().map(|(i, g)| {
                        group_card(i + 1, g, r.cuda_graphs.as_ref().and_then(|c| c.support))
                    }) }
                </div>
            }
        </section>
    }
}

fn stamp(r: &Report) -> Html {
    // A raw capability's name is already "compute capability X.Y".
    let gpu = if r.gpu.id.is_some() {
        format!("{} · compute capability {}", r.gpu.name, r.gpu.compute_capability)
    } else {
        r.gpu.name.clone()
    };
    let cubins = if r.trtllm_cubins {
        "TRTLLM cubins available"
    } else {
        "TRTLLM cubins not available"
    };
    html! {
        <>
            <p id="result-stamp" class="stamp">
                <span class="stamp-release">{ format!("as of vLLM {} / {}", r.vllm, qpath_core::render::flashinfer_text(r)) }</span>
                { sep() }
                <span class="stamp-gpu">{ gpu }</span>
                { sep() }
                <span class="stamp-cuda">{ format!("CUDA {}", r.cuda) }</span>
                { sep() }
                <span class="stamp-cubins">{ cubins }</span>
            </p>
            if let Some(m) = &r.model {
                <p id="result-model" class="model-line">
                    <code>{ m.id.clone() }</code>
                    { format!(": {} layers, model dtype {}{}", m.num_layers, m.dtype, match (m.preset, &m.config) {
                        (true, _) => String::new(),
                        (false, Some(file)) => format!(" (read from {file}, not a preset)"),
                        (false, None) => " (described by --hf-overrides, not a preset)".to_string(),
                    }) }
                </p>
            }
        </>
    }
}

/// The core's words for the CLI, in the page's: an unknown model's error names the config.json box (not MODEL as a
/// folder, `--model-config` or the Hugging Face cache, which the page has not) and the Model select (not `qpath
/// models`), and a config.json from the page's box is "the pasted config.json" (the core calls a scenario's config
/// "config.json of MODEL"). `model`: the command line's model id. Every view that shows the core's texts about the
/// model (explain, both sides of compare, the timeline, the matrix) passes them through [`in_page_text`]; the fix
/// finder does not search a scenario whose config.json it cannot read ("cannot model"), so its texts have none.
pub fn in_page_words(mut report: Report, model: &str) -> Report {
    if let Some(e) = report.error.as_mut() {
        in_page_text(&mut e.message, model);
    }
    if let Some(c) = report.model.as_mut().and_then(|m| m.config.as_mut()) {
        in_page_text(c, model);
    }
    for g in report.groups.iter_mut() {
        if let Some(e) = g.error.as_mut() {
            in_page_text(&mut e.message, model);
        }
    }
    report
}

/// One text of the core in the page's words ([`in_page_words`]); unchanged (and not copied) when it has none of the
/// CLI's.
pub fn in_page_text(text: &mut String, model: &str) {
    use qpath_core::model::{GIVE_CONFIG, GIVE_FOLDER, SEE_MODELS};
    if text.contains(GIVE_FOLDER) || text.contains(GIVE_CONFIG) || text.contains(SEE_MODELS) {
        *text = text
            .replace(GIVE_FOLDER, GIVE_IN_PAGE)
            .replace(GIVE_CONFIG, GIVE_IN_PAGE)
            .replace(SEE_MODELS, " (the Model select lists the presets)");
    }
    if text.contains("config.json of ") {
        let of_model = format!("config.json of {model}");
        if text.contains(&of_model) {
            *text = text.replace(&of_model, crate::components::model_fieldset::PASTED_CONFIG);
        }
    }
}

/// How the page tells the user to give a model's config.json.
pub const GIVE_IN_PAGE: &str = "paste or drop its config.json into the config.json box (under Model: it is read \
     instead of a preset)";

/// CUDA graphs, once per scenario: the mode the command line asks for, the one the runner resolves once the backends
/// are known, and why (the core's line and trace); vLLM's downgrade warnings are among the log lines.
fn cuda_graphs(r: &Report) -> Html {
    let (Some(c), Some(line)) = (&r.cuda_graphs, qpath_core::render::cuda_graphs_line(r)) else {
        return html! {};
    };
    html! {
        <div class="cuda-graphs-block">
            <p id="result-cuda-graphs" class="cuda-graphs-line">{ line }</p>
            if !c.trace.is_empty() {
                <details class="cuda-graphs-why">
                    <summary>{ "Why this CUDA-graph mode" }</summary>
                    <ol class="trace cuda-graphs-trace">{ for c.trace.iter().map(trace_step) }</ol>
                </details>
            }
        </div>
    }
}

/// Speculative decoding, when the command line has a `--speculative-config`: the core's one-line summary and why.
fn speculative(r: &Report) -> Html {
    let (Some(s), Some(line)) = (&r.speculative, qpath_core::render::speculative_line(r)) else {
        return html! {};
    };
    let drafters = r.groups.iter().filter(|g| g.role == GroupRole::Drafter).count();
    let groups = match (s.attention_layers, drafters) {
        (false, _) => String::new(),
        (true, 0) => " No drafter group: see the notes.".to_string(),
        (true, 1) => " The drafter's layers are the group marked \"drafter\" below.".to_string(),
        (true, n) => format!(" The drafter's layers are the {n} groups marked \"drafter\" below."),
    };
    html! {
        <div class="speculative-block">
            <p id="result-speculative" class="speculative-line">{ format!("{}.{groups}", capitalized(&line)) }</p>
            if !s.trace.is_empty() {
                <details class="speculative-why">
                    <summary>{ "Why this drafter" }</summary>
                    <ol class="trace speculative-trace">{ for s.trace.iter().map(trace_step) }</ol>
                </details>
            }
        </div>
    }
}

fn capitalized(line: &str) -> String {
    let mut c = line.chars();
    c.next()
        .map_or(String::new(), |f| f.to_ascii_uppercase().to_string() + c.as_str())
}

fn scenario_error(e: &ScenarioError) -> Html {
    html! {
        <div class="scenario-error" role="alert">
            <p class="error-head">
                <span class="error-label">{ format!("{}: ", e.kind.heading()) }</span>
                if e.kind != ScenarioErrorKind::InputError {
                    <span class="error-type">{ e.kind.name() }</span>
                }
            </p>
            <pre class="error-message"><code>{ echo_words(&e.text()) }</code></pre>
            if let Some(s) = &e.source {
                <p class="error-source">{ "raised at " }<code class="source">{ s.clone() }</code></p>
            }
        </div>
    }
}

fn notes(r: &Report) -> Html {
    html! {
        <>
            if !r.notes.is_empty() {
                <div class="notes-block">
                    <h3>{ "Noticed" }</h3>
                    <ul class="notes">
                        { for r.notes.iter().map(|n| html! { <li>{ echo_words(&n.text) }</li> }) }
                    </ul>
                </div>
            }
            if !r.unused_flags.is_empty() {
                <div class="unused-block">
                    <h3>{ "Flags that do not affect this decision" }</h3>
                    <ul class="unused-flags">
                        { for r.unused_flags.iter().map(|f| html! { <li><code>{ qpath_core::options::echo_entry(f) }</code></li> }) }
                    </ul>
                </div>
            }
        </>
    }
}

/// The layer strips and their legend: the target's layers, then the drafter's (numbered apart by vLLM, so a strip of
/// their own).
fn layer_strip(r: &Report) -> Html {
    if r.groups.is_empty() {
        return html! {};
    }
    let numbered = |role: GroupRole| -> Vec<(usize, &GroupReport)> {
        r.groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.role == role)
            .map(|(i, g)| (i + 1, g))
            .collect()
    };
    let (target, drafter) = (numbered(GroupRole::Target), numbered(GroupRole::Drafter));
    let model_layers = r.model.as_ref().map_or(0, |m| m.num_layers);
    html! {
        <figure class="layers">
            if !target.is_empty() { { strip_row(&target, model_layers, GroupRole::Target) } }
            if !drafter.is_empty() { { strip_row(&drafter, 0, GroupRole::Drafter) } }
            <figcaption>
                <ul class="legend">
                    { for r.groups.iter().enumerate().map(|(i, g)| html! {
                        <li data-group={(i + 1).to_string()} data-role={g.role.name()}>
                            <span class={classes!("swatch", colour_class(i + 1))} aria-hidden="true">{ (i + 1).to_string() }</span>
                            { format!("group {} ({}): {} layer{}", i + 1, group_brief(g), g.layers.len(),
                                if g.layers.len() == 1 { "" } else { "s" }) }
                            if g.role == GroupRole::Drafter { { drafter_badge() } }
                            if g.error.is_some() { <span class="badge error-badge">{ "raises" }</span> }
                        </li>
                    }) }
                </ul>
                <p class="layer-caption">{ LAYER_CAPTION }</p>
            </figcaption>
        </figure>
    }
}

/// The ` · ` between the parts of a line (hidden from screen readers), written once for every view.
pub fn sep() -> Html {
    html! { <span class="sep" aria-hidden="true">{ " · " }</span> }
}

fn drafter_badge() -> Html {
    html! { <span class="badge drafter-badge" title="a layer of the speculative-decoding drafter">{ "drafter" }</span> }
}

/// One strip: a cell per layer, each numbered with its group. The target's strip runs from layer 0 to the last of
/// `min_count` and its groups' layers; the drafter's (`role`) only over its own layers' indices, which vLLM names
/// after the target's.
fn strip_row(groups: &[(usize, &GroupReport)], min_count: u32, role: GroupRole) -> Html {
    let layers = || groups.iter().flat_map(|(_, g)| g.layers.iter().copied());
    let end = layers().max().map_or(0, |m| m + 1).max(min_count);
    let start = if role == GroupRole::Drafter {
        layers().min().unwrap_or(0)
    } else {
        0
    };
    let count = end - start;
    let mut owner: Vec<Option<(usize, &GroupReport)>> = vec![None; count as usize];
    for &(n, g) in groups {
        for &l in &g.layers {
            owner[(l - start) as usize] = Some((n, g));
        }
    }
    let drafter = role == GroupRole::Drafter;
    let whose = if drafter { "drafter " } else { "" };
    let summary: Vec<String> = groups
        .iter()
        .map(|(n, g)| format!("group {n} ({}): layers {}", group_brief(g), short_list(&g.layers)))
        .collect();
    let label = format!(
        "{}{count} layer{} in {} group{}: {}",
        if drafter { "drafter: " } else { "" },
        if count == 1 { "" } else { "s" },
        groups.len(),
        if groups.len() == 1 { "" } else { "s" },
        summary.join("; ")
    );
    let cells = owner
        .iter()
        .enumerate()
        .map(|(i, o)| (i + start as usize, o))
        .map(|(layer, o)| match o {
            Some((n, g)) => {
                let title = format!("{whose}layer {layer}: group {n} ({})", group_brief(g));
                html! {
                    <span key={layer} class={classes!("layer", colour_class(*n), g.error.is_some().then_some("failing"))}
                        data-layer={layer.to_string()} data-group={n.to_string()} {title}>{ n.to_string() }</span>
                }
            }
            None => html! {
                <span key={layer} class="layer none" data-layer={layer.to_string()} data-group=""
                    title={format!("{whose}layer {layer}: in no attention group")}>{ "·" }</span>
            },
        });
    html! {
        <div class={classes!("strip-row", drafter.then_some("drafter-row"))}>
            if drafter { <span class="strip-label" aria-hidden="true">{ "drafter" }</span> }
            <div class={classes!("layer-strip", drafter.then_some("drafter-strip"))} role="img" aria-label={label}>{ for cells }</div>
        </div>
    }
}

/// Group `n`'s card (from 1); `min_cg` is the scenario's CUDA-graph support (the minimum over all groups), to mark a
/// group whose own differs. A plain function: as a component it cost code of its own and a copy of the group per render.
fn group_card(n: usize, g: &GroupReport, min_cg: Option<qpath_core::report::CgSupport>) -> Html {
    let raised = g.error.is_some();
    let fp8_query = [g.q_dtype.prefill, g.q_dtype.decode].iter().flatten().any(|d| d.is_fp8());
    let drafter = g.role == GroupRole::Drafter;
    let title = format!(
        "Group {n}: {}layers {}",
        if drafter { "drafter " } else { "" },
        short_list(&g.layers)
    );
    html! {
        <article key={n} class={classes!("group", colour_class(n), raised.then_some("raises"), drafter.then_some("drafter"),
            g.unmodelled.is_some().then_some("unmodelled-group"))}
            data-group={n.to_string()} data-role={g.role.name()} data-backend={g.backend.name()}
            aria-labelledby={format!("group-{n}-title")}>
            <h3 id={format!("group-{n}-title")}>
                <span class={classes!("swatch", colour_class(n))} aria-hidden="true">{ n.to_string() }</span>
                <span class="group-title">{ title }</span>
                if drafter { { drafter_badge() } }
                if fp8_query { <span class="badge fp8-badge">{ "FP8 query" }</span> }
            </h3>
            { group_shape(g) }
            { mla_dims(g) }
            { decision(g, min_cg) }
            if let Some(why) = &g.unmodelled {
                <p class="unmodelled" role="note">{ echo_words(why) }</p>
            } else if bare_recurrent(g) {
                <p class="recurrent">{ RECURRENT_WORDS }</p>
            }
            if let Some(e) = &g.error {
                { group_error(e, &g.trace, "Raises ", None) }
            }
            { for other_phase_error(g).map(|(phase, e)| group_error(e, &g.trace, phase, Some(phase))) }
            if !g.warnings.is_empty() {
                <div class="warnings-block">
                    <h4>{ "Warnings" }</h4>
                    <ul class="warnings">
                        { for g.warnings.iter().map(|w| html! {
                            <li><span class="warn-label">{ "Warning: " }</span>{ w.clone() }</li>
                        }) }
                    </ul>
                </div>
            }
            if !g.logs.is_empty() {
                <div class="logs-block">
                    <h4>{ "What vLLM logs" }</h4>
                    <pre class="logs">{ log_lines(&g.log_records) }</pre>
                </div>
            }
            <div class="trace-block">
                <h4>{ "Why" }</h4>
                <ol class="trace">{ for g.trace.iter().map(trace_step) }</ol>
            </div>
        </article>
    }
}

/// A recurrent group the report gives neither a query dtype nor a kernel.
fn bare_recurrent(g: &GroupReport) -> bool {
    g.backend.is_recurrent()
        && g.q_dtype.prefill.is_none()
        && g.q_dtype.decode.is_none()
        && g.kernel_choices(true).is_empty()
        && g.kernel_choices(false).is_empty()
}

/// The group's shape: its attention, heads, head size and sinks (a recurrent group: its backend family).
fn group_shape(g: &GroupReport) -> Html {
    html! {
    <p class="shape">
        <span class="attention">{ attention_words(g) }</span>
        if g.backend.is_recurrent() {
            { sep() }
            <span class="family">{ "Mamba-family backend (MambaAttentionBackendEnum)" }</span>
        } else {
        { sep() }
        <span class="heads">{ format!("heads {}/{} ({})", g.num_q_heads, g.num_kv_heads,
            if g.mla.is_some() { "q/latent kv" } else { "q/kv" }) }</span>
        { sep() }
        <span class="head-dim">{ match &g.mla {
            Some(m) => format!("head size {} = kv_lora_rank {} + qk_rope_head_dim {}", g.head_dim, m.kv_lora_rank,
                m.qk_rope_head_dim),
            None => format!("head_dim {}", g.head_dim),
        } }</span>
        { sep() }
        <span class="sinks">{ if g.has_sinks { "attention sinks" } else { "no sinks" } }</span>
        }
    </p>
    }
}

/// An MLA group's dims (`.mla-dims`): the latent cache (`.mla-kv-lora-rank`, `.mla-rope`), the per-head query and value
/// dims (`.mla-nope`, `.mla-v`), `.mla-q-lora-rank`, a sparse model's `.mla-topk`, and how the two phases use them.
fn mla_dims(g: &GroupReport) -> Html {
    let Some(m) = &g.mla else { return html! {} };
    html! {
        <div class="mla-block">
            <p class="shape mla-dims">
                <span class="mla-kv-lora-rank">{ format!("kv_lora_rank {} (latent)", m.kv_lora_rank) }</span>{ sep() }
                <span class="mla-rope">{ format!("qk_rope_head_dim {}", m.qk_rope_head_dim) }</span>{ sep() }
                <span class="mla-nope">{ format!("qk_nope_head_dim {}", m.qk_nope_head_dim) }</span>{ sep() }
                <span class="mla-v">{ format!("v_head_dim {}", m.v_head_dim) }</span>{ sep() }
                <span class="mla-q-lora-rank">{ m.q_lora_rank.map_or("no q_lora_rank".to_string(), |q| format!("q_lora_rank {q}")) }</span>
                if let Some(k) = m.index_topk {
                    { sep() }<span class="mla-topk">{ format!("index_topk {k} (sparse)") }</span>
                }
            </p>
            <p class="hint mla-why">{ format!(
                "The cache holds one latent head per token: kv_c ({}) ‖ k_pe ({}) = {}. Decode absorbs W_UK into the \
                 query and attends over the latent ({} dims per head) on {}; prefill rows up-project the latent to \
                 per-head K of {} and V of {} and run the MLA prefill backend's kernel.",
                m.kv_lora_rank, m.qk_rope_head_dim, m.kv_lora_rank + m.qk_rope_head_dim,
                m.kv_lora_rank + m.qk_rope_head_dim, g.backend, m.qk_nope_head_dim + m.qk_rope_head_dim, m.v_head_dim
            ) }</p>
        </div>
    }
}

/// What the group decides, for every backend: backend, cache dtype, its CUDA-graph support where it differs from the
/// scenario's minimum (`min_cg`), the Q dtype and kernel(s) of each phase, and the query's quantization.
fn decision(g: &GroupReport, min_cg: Option<qpath_core::report::CgSupport>) -> Html {
    // Why a value is missing: the code raised first, qpath cannot model it, or nothing decides it.
    let why_missing = match (&g.error, &g.unmodelled) {
        (Some(_), _) => NOT_REACHED.to_string(),
        (None, Some(why)) => why.clone(),
        (None, None) => "not determined".to_string(),
    };
    // A recurrent layer has no query: its kernels take the layer's input.
    let input = if g.backend.is_recurrent() { "Input dtype" } else { "Q dtype" };
    html! {
    <dl class="decision">
        <dt>{ "Backend" }</dt>
        <dd class="backend">{ g.backend.name() }</dd>
        if !g.backend.is_recurrent() {
            <dt>{ "Cache dtype" }</dt>
            <dd class="cache-dtype">{ cache_dtype_words(&g.cache_dtype) }</dd>
        } else if !bare_recurrent(g) {
            <dt>{ "State dtypes" }</dt>
            <dd class="cache-dtype">{ g.cache_dtype.clone() }</dd>
        }
        if let Some(cg) = g.cudagraph_support.filter(|s| Some(*s) != min_cg) {
            <dt>{ "CUDA graphs" }</dt>
            <dd class="cudagraph-support">{ cg.name() }</dd>
        }
        if !bare_recurrent(g) {
            <dt>{ format!("{input}, prefill") }</dt>
            <dd>{ dtype_value("q-prefill", g.q_dtype.prefill, &why_missing) }</dd>
            <dt>{ format!("{input}, decode") }</dt>
            <dd>{ dtype_value("q-decode", g.q_dtype.decode, &why_missing) }</dd>
            <dt>{ "Kernel, prefill" }</dt>
            <dd>{ kernel_value("kernel-prefill", g, true, &why_missing) }</dd>
            <dt>{ "Kernel, decode" }</dt>
            <dd>{ kernel_value("kernel-decode", g, false, &why_missing) }</dd>
        }
        if let Some(q) = &g.query_quant {
            <dt>{ "Query quantization" }</dt>
            <dd>{ query_quant(q) }</dd>
        }
    </dl>
    }
}

/// An absent value, with why it is absent (`title`).
fn missing(class: &'static str, title: &str) -> Html {
    html! { <span class={classes!(class, "missing")} title={title.to_string()}>{ "—" }</span> }
}

fn dtype_value(class: &'static str, d: Option<TorchDtype>, why_missing: &str) -> Html {
    match d {
        None => missing(class, why_missing),
        Some(d) => html! {
            <>
                <code class={class}>{ d.name() }</code>
                if d.is_fp8() { { " " }<span class="badge fp8-badge">{ "FP8" }</span> }
            </>
        },
    }
}

/// One kernel: its name, who runs it in an MLA group (`.kernel-runner`: the MLA prefill backend or the decode backend),
/// its condition, and the call as vLLM's code names it.
fn kernel_line(class: &'static str, c: &KernelChoice, g: &GroupReport) -> Html {
    html! {
        <>
            <code class={class}>{ c.kernel.name() }</code>
            if g.mla.is_some() {
                <span class="kernel-runner">{ format!(" on {}", g.kernel_runner(c.kernel)) }</span>
            }
            if let Some(when) = &c.when {
                <span class="kernel-when">{ format!(" for {when}") }</span>
            }
            <div class="hint kernel-call">{ c.kernel.call() }</div>
        </>
    }
}

/// A phase's kernels: the first batch's (`class`), then, where the batch decides, the others after "else".
fn kernel_value(class: &'static str, g: &GroupReport, is_prefill: bool, why_missing: &str) -> Html {
    let choices = g.kernel_choices(is_prefill);
    let Some((first, rest)) = choices.split_first() else {
        return missing(class, why_missing);
    };
    html! {
        <>
            { kernel_line(class, first, g) }
            if !rest.is_empty() {
                <div class="kernel-else">
                    { for rest.iter().map(|c| html! { <div>{ "else " }{ kernel_line("kernel-alt", c, g) }</div> }) }
                </div>
            }
        </>
    }
}

/// The attention layer's query quantization: how and at what scale (the core's words), and where the scale comes
/// from.
fn query_quant(q: &QueryQuant) -> Html {
    html! {
        <>
            <span class="query-quant">{ q.brief() }</span>
            <span class="hint query-quant-why">{ format!(" {}", q.why) }</span>
        </>
    }
}

/// The phase error that is not the group's first error (the other phase raises too, on its own path), with its label.
fn other_phase_error(g: &GroupReport) -> Option<(&'static str, &GroupError)> {
    let first = g.error.as_ref()?;
    [
        ("Prefill also raises ", &g.phase_errors.prefill),
        ("Decode also raises ", &g.phase_errors.decode),
    ]
    .into_iter()
    .find_map(|(label, e)| {
        e.as_ref()
            .filter(|e| e.stage.is_prefill() != first.stage.is_prefill())
            .map(|e| (label, e))
    })
}

/// An error block: `label` ("Raises ", "Decode also raises "), the type, when and where (the core's words, with the
/// call that raises), vLLM's text (or the bare-assert words), the line.
fn group_error(e: &GroupError, trace: &[TraceStep], label: &'static str, also: Option<&'static str>) -> Html {
    // The raise's own line has no URL in the DTO; a trace step citing the same line has it.
    let url = e
        .source
        .as_ref()
        .and_then(|s| trace.iter().find(|t| t.source().as_ref() == Some(s)).and_then(TraceStep::url));
    html! {
        <div class={classes!("group-error", also.map(|_| "phase-error"))} role={if also.is_none() { "alert" } else { "note" }}
            data-stage={e.stage.name()}>
            <p class="error-head">
                <span class="error-label">{ label }</span>
                <span class="error-type">{ e.kind.name() }</span>
                <span class="error-stage">{ format!(" {}", e.when()) }</span>
            </p>
            if e.message.is_empty() {
                <p class="error-message bare">{ e.text() }</p>
            } else {
                <pre class="error-message"><code>{ echo_words(e.text()) }</code></pre>
            }
            if let Some(s) = &e.source {
                <p class="error-source">{ "raised at " }{ source_link(s, url.as_deref()) }</p>
            }
        </div>
    }
}

fn trace_step(t: &TraceStep) -> Html {
    let unverified = t.unverified;
    html! {
        <li class={classes!("step", unverified.then_some("unverified"))}>
            if unverified {
                <strong class="rule badge unverified-badge">{ t.rule.clone() }</strong>
            } else {
                <strong class="rule">{ t.rule.clone() }</strong>
            }
            { " " }
            <span class="outcome">{ t.outcome.clone() }</span>
            if let Some(s) = &t.source() {
                { " " }
                { source_link(s, t.url().as_deref()) }
            }
        </li>
    }
}
