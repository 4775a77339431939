//! The fix finder (issue 23, item 1): for a scenario that fails, loses its CUDA graphs or falls back from what its
//! command line asks for (a group on another backend than the forced one, a 16-bit cache), the command lines one or two
//! changes away (the attention backend, the cache dtype, the skip layers, the block size, FlashAttention's version,
//! FlashInfer's query quantization and TRTLLM switches, the CUDA-graph mode, the speculative config's backend, the
//! tensor-parallel size, the vLLM release one step up or down, the installed FlashInfer), each resolved by the same core,
//! and the ones that run, best first: fewest changes, then what the user asked for kept (a quantized cache stays
//! quantized, a forced backend stays forced, the release stays), then the least costly kind of change.
//!
//! Each candidate edits the parsed command line ([`ServeCommand`]) and writes it back with [`serve::format`], the
//! way the page's controls edit it, so a suggestion's command line is one the release parses and its diff names whole
//! options. Nothing here decides what vLLM does: a candidate "works" when [`resolve`] says vLLM serves it.

use serde::Serialize;

use crate::attention::Backend;
use crate::backends::is_quantized;
use crate::matrix::{self, MatrixMode};
use crate::release::{FlashInfer, Release};
use crate::report::{Report, Verdict};
use crate::resolve::{resolve_sharing, shared_config, without_configs, Scenario, SharedConfigs};
use crate::serve::{self, ServeCommand};

/// One edit of the scenario.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    AttentionBackend(Option<String>),
    KvCacheDtype(String),
    ClearSkipLayers,
    BlockSize(Option<u32>),
    FlashAttnVersion(Option<u32>),
    DisableQQuant(bool),
    UseTrtllm(Option<bool>),
    /// `cudagraph_mode` through `--compilation-config`, or `NONE` through `--enforce-eager`.
    CudaGraphMode(&'static str),
    SpeculativeBackend(Option<String>),
    TensorParallel(u32),
    Release(Release),
    FlashInfer(FlashInfer),
}

impl Change {
    /// How much the change costs the user, for the order among candidates with as many changes: a switch first, a
    /// different backend or cache next, another release or FlashInfer, then fewer CUDA graphs or more GPUs.
    fn cost(&self) -> u8 {
        match self {
            Change::BlockSize(_) | Change::DisableQQuant(_) | Change::UseTrtllm(_) | Change::FlashAttnVersion(_) => 1,
            Change::ClearSkipLayers | Change::SpeculativeBackend(_) => 2,
            Change::AttentionBackend(_) => 3,
            Change::KvCacheDtype(_) => 4,
            Change::Release(_) | Change::FlashInfer(_) => 5,
            Change::CudaGraphMode("NONE") => 7,
            Change::CudaGraphMode(_) => 6,
            Change::TensorParallel(_) => 8,
        }
    }

    /// The change as the user writes it.
    pub fn describe(&self, cmd: &ServeCommand, s: &Scenario) -> String {
        let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "unset".to_string());
        // `option: before → after`, an unset value written "unset".
        fn set<T: std::fmt::Display>(option: &str, before: Option<T>, after: Option<T>) -> String {
            let text = |v: Option<T>| v.map_or("unset".to_string(), |v| v.to_string());
            format!("{option}: {} → {}", text(before), text(after))
        }
        let ac = &cmd.attention_config;
        match self {
            Change::AttentionBackend(b) => format!("--attention-backend: {} → {}", opt(&cmd.attention_backend), opt(b)),
            Change::KvCacheDtype(d) => format!("--kv-cache-dtype: {} → {d}", cmd.kv_cache_dtype),
            Change::ClearSkipLayers => format!(
                "--kv-cache-dtype-skip-layers {} removed",
                cmd.kv_cache_dtype_skip_layers.join(" ")
            ),
            Change::BlockSize(b) => set("--block-size", cmd.block_size, *b),
            Change::FlashAttnVersion(v) => set("--attention-config.flash_attn_version", ac.flash_attn_version, *v),
            Change::DisableQQuant(v) => set(
                "--attention-config.disable_flashinfer_q_quantization",
                Some(ac.disable_flashinfer_q_quantization),
                Some(*v),
            ),
            Change::UseTrtllm(v) => set("--attention-config.use_trtllm_attention", ac.use_trtllm_attention, *v),
            Change::CudaGraphMode("NONE") => "--enforce-eager added (no CUDA graphs)".to_string(),
            Change::CudaGraphMode(m) => format!("--compilation-config cudagraph_mode {m}"),
            Change::SpeculativeBackend(b) => format!(
                "--speculative-config attention_backend: {} → {}",
                opt(&cmd.speculative_config.as_ref().and_then(|c| c.attention_backend.clone())),
                opt(b)
            ),
            Change::TensorParallel(n) => format!("--tensor-parallel-size: {} → {n}", cmd.tensor_parallel_size),
            Change::Release(r) => format!("vLLM {} → {}", s.release.name(), r.name()),
            Change::FlashInfer(f) => format!(
                "flashinfer-python {} → {}",
                s.flashinfer.unwrap_or_else(|| s.release.flashinfer_pin()).name(),
                f.name()
            ),
        }
    }

    /// `cmd` and `s` with the change made.
    fn apply(&self, cmd: &mut ServeCommand, s: &mut Scenario) {
        match self {
            Change::AttentionBackend(b) => cmd.attention_backend = b.clone(),
            Change::KvCacheDtype(d) => cmd.kv_cache_dtype = d.clone(),
            Change::ClearSkipLayers => cmd.kv_cache_dtype_skip_layers.clear(),
            Change::BlockSize(b) => cmd.block_size = *b,
            Change::FlashAttnVersion(v) => cmd.attention_config.flash_attn_version = *v,
            Change::DisableQQuant(v) => cmd.attention_config.disable_flashinfer_q_quantization = *v,
            Change::UseTrtllm(v) => cmd.attention_config.use_trtllm_attention = *v,
            Change::CudaGraphMode(m) => {
                cmd.unused.retain(|u| {
                    !(u.starts_with("--enforce-eager")
                        || u.starts_with("--compilation-config")
                        || u.starts_with("-cc")
                        || u.starts_with("-O")
                        || u.starts_with("--optimization-level"))
                });
                if *m == "NONE" {
                    cmd.unused.push("--enforce-eager".to_string());
                } else {
                    cmd.unused
                        .push(format!("--compilation-config '{{\"cudagraph_mode\": \"{m}\"}}'"));
                }
            }
            Change::SpeculativeBackend(b) => {
                if let Some(c) = cmd.speculative_config.as_mut() {
                    c.attention_backend = b.clone();
                }
            }
            Change::TensorParallel(n) => cmd.tensor_parallel_size = *n,
            Change::Release(r) => s.release = *r,
            Change::FlashInfer(f) => s.flashinfer = Some(*f),
        }
    }
}

/// What is wrong with the scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Problem {
    /// vLLM fails (the scenario's error or a group's): its one-line summary.
    Fails(String),
    /// vLLM runs, but the CUDA-graph mode is downgraded from the requested one.
    CudaGraphDowngrade { requested: String, resolved: String },
    /// vLLM runs, but a group falls back from what the command line asks for: another backend than the one forced (a
    /// drafter that does not inherit it), or a 16-bit cache where a quantized one is asked for with no skip list.
    Fallback { asked: String, got: String },
}

/// One command line that differs from the user's by `changes`, and what vLLM then does.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Suggestion {
    /// Each change, as the user writes it (`--attention-backend: unset → FLASH_ATTN`).
    pub changes: Vec<String>,
    /// The whole command line with the changes (`serve::format`), and the release and FlashInfer it runs at.
    pub command_line: String,
    /// The command-line diff against the user's line as qpath writes it ([`serve::option_units`]): the options it
    /// removes and those it adds (both empty for a change of release or FlashInfer only).
    pub removed: Vec<String>,
    pub added: Vec<String>,
    pub release: Release,
    pub flashinfer: &'static str,
    /// The scenario's installed FlashInfer as the suggestion sets it (`None`: the release's pin), for applying it.
    #[serde(skip)]
    pub installed: Option<FlashInfer>,
    pub verdict: Verdict,
    /// What every group runs (backend, query dtypes, kernels), or the error that remains.
    pub outcome: String,
    pub cuda_graph_mode: Option<String>,
    /// The user's quantized cache dtype (or forced backend) is kept.
    pub keeps_cache_dtype: bool,
    pub keeps_backend: bool,
}

/// The fix finder's answer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fixes {
    /// `None`: the scenario serves as asked (nothing to fix), or qpath cannot model it (`cannot_model` says why).
    pub problem: Option<Problem>,
    pub cannot_model: Option<String>,
    /// The candidates that run, best first (at most [`MAX_SUGGESTIONS`]).
    pub suggestions: Vec<Suggestion>,
    /// When none runs: the candidate that came closest (its error is not the user's), and why it still fails.
    pub closest: Option<Suggestion>,
    /// How many candidate scenarios were resolved.
    pub tried: usize,
    /// Why no search was made for a scenario with a problem (a command line longer than [`MAX_SEARCHED_LINE`]).
    pub skipped: Option<String>,
}

/// The longest command line (bytes) the fix finder searches around: each candidate writes and reads the line again,
/// so a pasted megabyte would cost the page seconds per keystroke (the answer itself stays).
pub const MAX_SEARCHED_LINE: usize = 16 << 10;

/// The most suggestions [`find`] returns.
pub const MAX_SUGGESTIONS: usize = 5;

/// The changes one step away from `cmd` at `s`'s release: every one a control of the page could make.
fn neighbours(cmd: &ServeCommand, s: &Scenario, base: &Report) -> Vec<Change> {
    let r = s.release;
    let mut out = Vec::new();
    let mla = base.groups.iter().any(|g| g.mla.is_some());
    // Backends: unforced, and every backend the release's enum has and qpath models.
    if cmd.attention_backend.is_some() {
        out.push(Change::AttentionBackend(None));
    }
    for b in Backend::ALL {
        let name = b.name();
        if b.is_mla() == mla
            && serve::backend_exists(r, name)
            && cmd.attention_backend.as_deref() != Some(name)
            && !b.is_recurrent()
        {
            out.push(Change::AttentionBackend(Some(name.to_string())));
        }
    }
    let dtypes = if mla {
        matrix::mla_kv_dtypes(r)
    } else {
        MatrixMode::Picked.kv_dtypes(r, false)
    };
    for d in dtypes {
        if d != cmd.kv_cache_dtype {
            out.push(Change::KvCacheDtype(d.to_string()));
        }
    }
    if !cmd.kv_cache_dtype_skip_layers.is_empty() {
        out.push(Change::ClearSkipLayers);
    }
    for b in [None, Some(16), Some(32), Some(64)] {
        if b != cmd.block_size {
            out.push(Change::BlockSize(b));
        }
    }
    for v in [None, Some(2), Some(3)] {
        if v != cmd.attention_config.flash_attn_version {
            out.push(Change::FlashAttnVersion(v));
        }
    }
    out.push(Change::DisableQQuant(!cmd.attention_config.disable_flashinfer_q_quantization));
    for v in [None, Some(true), Some(false)] {
        if v != cmd.attention_config.use_trtllm_attention {
            out.push(Change::UseTrtllm(v));
        }
    }
    let graphs = serve::cuda_graphs(cmd);
    for m in ["PIECEWISE", "FULL_DECODE_ONLY", "NONE"] {
        if graphs.mode != m {
            out.push(Change::CudaGraphMode(m));
        }
    }
    if cmd.speculative_config.is_some() {
        for b in [None, Some("FLASH_ATTN"), Some("TRITON_ATTN"), Some("FLASHINFER")] {
            let b = b.map(str::to_string);
            if cmd.speculative_config.as_ref().and_then(|c| c.attention_backend.clone()) != b {
                out.push(Change::SpeculativeBackend(b));
            }
        }
    }
    for n in [1, 2, 4, 8] {
        if n != cmd.tensor_parallel_size.max(1) {
            out.push(Change::TensorParallel(n));
        }
    }
    let i = Release::ALL.iter().position(|x| *x == r).unwrap_or(0);
    // The release up first: a fix that shipped is likelier than one that regressed.
    for j in [Some(i + 1), i.checked_sub(1)].into_iter().flatten() {
        if let Some(other) = Release::ALL.get(j) {
            out.push(Change::Release(*other));
        }
    }
    let installed = s.flashinfer.unwrap_or_else(|| r.flashinfer_pin());
    for f in FlashInfer::ALL {
        if f != installed {
            out.push(Change::FlashInfer(f));
        }
    }
    out
}

/// What a report says in one line (the matrix's picked summary).
fn outcome(r: &Report) -> String {
    matrix::summarize_in(r, MatrixMode::Picked).1
}

/// What is wrong with `r`, the report of `cmd` (`None` for a line that did not parse: nothing was asked for then).
fn problem(r: &Report, cmd: Option<&ServeCommand>) -> Option<Problem> {
    if r.verdict == Verdict::Fails {
        return Some(Problem::Fails(outcome(r)));
    }
    if let Some(cg) = r.cuda_graphs.as_ref().filter(|cg| cg.mode != cg.requested) {
        return Some(Problem::CudaGraphDowngrade {
            requested: cg.requested.clone(),
            resolved: cg.mode.clone(),
        });
    }
    cmd.and_then(|c| fallback(r, c))
}

/// The first attention group (not a recurrent or indexer one) that does not run what `cmd` asks for: the backend
/// `--attention-backend` (or `--attention-config.backend`) forces, or a quantized `--kv-cache-dtype` when no layer
/// is skipped (a drafter with the speculative config's own cache dtype is not compared; TurboQuant's 16-bit boundary
/// layers are its design).
fn fallback(r: &Report, cmd: &ServeCommand) -> Option<Problem> {
    let attention = r
        .groups
        .iter()
        .enumerate()
        .filter(|(_, g)| !g.backend.is_recurrent() && g.backend != Backend::DeepseekV32Indexer);
    let name = |i: usize, g: &crate::report::GroupReport| format!("group {} (layers {})", i + 1, crate::render::layers_label(g));
    if let Some(b) = cmd.attention_backend.as_deref().or(cmd.attention_config.backend.as_deref()) {
        if let Some((i, g)) = attention.clone().find(|(_, g)| g.backend.name() != b) {
            return Some(Problem::Fallback {
                asked: format!("--attention-backend {b}"),
                got: format!("{} runs {}", name(i, g), g.backend.name()),
            });
        }
    }
    let own_drafter_cache = cmd.speculative_config.as_ref().is_some_and(|c| c.kv_cache_dtype.is_some());
    // TurboQuant keeps its boundary layers at 16 bits by design (turboquant.rs): not a fallback.
    if is_quantized(&cmd.kv_cache_dtype)
        && cmd.kv_cache_dtype_skip_layers.is_empty()
        && !cmd.kv_cache_dtype.starts_with("turboquant")
    {
        let drafter = |g: &crate::report::GroupReport| g.role == crate::report::GroupRole::Drafter;
        if let Some((i, g)) = attention
            .clone()
            .find(|(_, g)| !is_quantized(&g.cache_dtype) && (!own_drafter_cache || !drafter(g)))
        {
            return Some(Problem::Fallback {
                asked: format!("--kv-cache-dtype {}", cmd.kv_cache_dtype),
                got: format!("{} has cache dtype {}", name(i, g), g.cache_dtype),
            });
        }
    }
    None
}

/// A candidate resolved: its changes, the scenario and the report.
struct Tried {
    changes: Vec<Change>,
    scenario: Scenario,
    /// The candidate's command line as edited (`None` for a line that did not parse).
    cmd: Option<ServeCommand>,
    report: Report,
}

/// The candidates for `s` that run, best first (see the module doc), or the closest one.
pub fn find(s: &Scenario) -> Fixes {
    // The config.json, parsed once for every candidate (its model spec built once per release).
    let shared = shared_config(s);
    let config = &shared;
    let base = resolve_sharing(s, config);
    let parsed = serve::parse(s.release, &s.command_line).ok();
    let mut fixes = Fixes {
        problem: problem(&base, parsed.as_ref()),
        cannot_model: None,
        suggestions: Vec::new(),
        closest: None,
        tried: 0,
        skipped: None,
    };
    if base.verdict == Verdict::CannotModel {
        fixes.problem = None;
        fixes.cannot_model = Some(outcome(&base));
        return fixes;
    }
    if fixes.problem.is_none() {
        return fixes;
    }
    if s.command_line.len() > MAX_SEARCHED_LINE {
        fixes.skipped = Some(format!(
            "qpath searches for fixes around command lines of up to {} KiB; this one is {} bytes",
            MAX_SEARCHED_LINE >> 10,
            s.command_line.len()
        ));
        return fixes;
    }
    let Some(cmd) = parsed else {
        // argparse's error: no option to turn; the neighbourhood is the releases (an option another release has).
        let mut tried = Vec::new();
        for r in Release::ALL {
            if r != s.release {
                try_changes(
                    s,
                    &ServeCommand::default(),
                    vec![Change::Release(r)],
                    &mut tried,
                    Some(&s.command_line),
                    config,
                );
            }
        }
        fixes.tried = tried.len();
        return rank(fixes, s, &ServeCommand::default(), &s.command_line, &base, tried);
    };
    let singles = neighbours(&cmd, s, &base);
    let mut tried: Vec<Tried> = Vec::new();
    for c in &singles {
        try_changes(s, &cmd, vec![c.clone()], &mut tried, None, config);
    }
    let wanted = wanted_mode(&fixes);
    if !tried.iter().any(|t| works(t, wanted.as_deref())) {
        // Two changes: each single that changed the outcome, with every other single.
        let moved: Vec<Change> = tried
            .iter()
            .filter(|t| outcome(&t.report) != outcome(&base))
            .map(|t| t.changes[0].clone())
            .collect();
        for a in &moved {
            for b in &singles {
                if std::mem::discriminant(a) != std::mem::discriminant(b) {
                    try_changes(s, &cmd, vec![a.clone(), b.clone()], &mut tried, None, config);
                }
            }
        }
    }
    fixes.tried = tried.len();
    rank(fixes, s, &cmd, &serve::format(&cmd), &base, tried)
}

/// For a CUDA-graph downgrade, the mode the user asked for: a fix keeps it (asking for less is not one).
fn wanted_mode(fixes: &Fixes) -> Option<String> {
    match &fixes.problem {
        Some(Problem::CudaGraphDowngrade { requested, .. }) => Some(requested.clone()),
        _ => None,
    }
}

/// A candidate runs: vLLM serves it, with the CUDA-graph mode asked for when that was the problem.
fn works(t: &Tried, wanted: Option<&str>) -> bool {
    t.report.verdict == Verdict::Serves
        && problem(&t.report, t.cmd.as_ref()).is_none()
        && wanted.is_none_or(|m| t.report.cuda_graphs.as_ref().is_some_and(|c| c.mode == m))
}

/// Resolves `s` with `changes` made to `cmd` (or, for an unparsed line, `line` at the changed release) and keeps it.
fn try_changes(
    s: &Scenario,
    cmd: &ServeCommand,
    changes: Vec<Change>,
    tried: &mut Vec<Tried>,
    line: Option<&str>,
    config: &SharedConfigs,
) {
    let mut c = cmd.clone();
    // The config.json texts are in `config` (no change edits them): not copied per candidate.
    let mut scenario = without_configs(s);
    for ch in &changes {
        ch.apply(&mut c, &mut scenario);
    }
    scenario.command_line = match line {
        Some(l) => l.to_string(),
        None => serve::format(&c),
    };
    if scenario.release != s.release {
        scenario.vllm_version = None;
    }
    if changes.iter().any(|c| matches!(c, Change::FlashInfer(_))) {
        scenario.flashinfer_version = None;
    }
    let report = resolve_sharing(&scenario, config);
    tried.push(Tried {
        changes,
        scenario,
        cmd: line.is_none().then_some(c),
        report,
    });
}

/// A cache dtype's kind, for "the user's cache is kept": an FP8 cache stays FP8 (`fp8`, `fp8_e4m3`,
/// `fp8_per_token_head`, `fp8_ds_mla` …), likewise NVFP4, INT8, INT4 and TurboQuant; the 16-bit ones are one kind.
fn cache_family(d: &str) -> &str {
    if !is_quantized(d) {
        return "16-bit";
    }
    ["fp8", "nvfp4", "int8", "int4", "turboquant"]
        .into_iter()
        .find(|f| d.starts_with(f))
        .unwrap_or(d)
}

/// The candidates that work, best first; `base_line` is the user's line as the diff compares it.
fn rank(mut fixes: Fixes, s: &Scenario, cmd: &ServeCommand, base_line: &str, base: &Report, tried: Vec<Tried>) -> Fixes {
    let quantized = is_quantized(&cmd.kv_cache_dtype);
    let family = cache_family(&cmd.kv_cache_dtype);
    let keeps_cache = |t: &Tried| {
        !quantized
            || !t
                .changes
                .iter()
                .any(|c| matches!(c, Change::KvCacheDtype(d) if cache_family(d) != family))
    };
    let keeps_backend =
        |t: &Tried| cmd.attention_backend.is_none() || !t.changes.iter().any(|c| matches!(c, Change::AttentionBackend(_)));
    let before = serve::option_units(base_line);
    let suggestion = |t: &Tried| {
        let after = serve::option_units(&t.scenario.command_line);
        Suggestion {
            changes: t.changes.iter().map(|c| c.describe(cmd, s)).collect(),
            command_line: t.scenario.command_line.clone(),
            removed: before.iter().filter(|u| !after.contains(u)).cloned().collect(),
            added: after.iter().filter(|u| !before.contains(u)).cloned().collect(),
            release: t.scenario.release,
            flashinfer: t
                .scenario
                .flashinfer
                .unwrap_or_else(|| t.scenario.release.flashinfer_pin())
                .name(),
            installed: t.scenario.flashinfer,
            verdict: t.report.verdict,
            outcome: outcome(&t.report),
            cuda_graph_mode: t
                .report
                .cuda_graphs
                .as_ref()
                .filter(|_| t.report.error.is_none())
                .map(|c| c.mode.clone()),
            keeps_cache_dtype: keeps_cache(t),
            keeps_backend: keeps_backend(t),
        }
    };
    let key = |t: &Tried| {
        (
            t.changes.len(),
            !keeps_cache(t),
            !keeps_backend(t),
            t.changes.iter().map(Change::cost).sum::<u8>(),
        )
    };
    let wanted = wanted_mode(&fixes);
    let mut works: Vec<&Tried> = tried.iter().filter(|t| works(t, wanted.as_deref())).collect();
    // A stable sort: among equals, the order the candidates were made in.
    crate::order::sort_by(&mut works, |a, b| key(a).cmp(&key(b)));
    let mut seen: Vec<String> = Vec::new();
    for t in works {
        let sug = suggestion(t);
        // One suggestion per resulting command line and release (two edits can give the same line).
        let id = format!("{} @ {}", sug.command_line, sug.release.name());
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        fixes.suggestions.push(sug);
        if fixes.suggestions.len() == MAX_SUGGESTIONS {
            break;
        }
    }
    if fixes.suggestions.is_empty() {
        let base_outcome = outcome(base);
        let mut moved: Vec<&Tried> = tried.iter().filter(|t| outcome(&t.report) != base_outcome).collect();
        crate::order::sort_by(&mut moved, |a, b| key(a).cmp(&key(b)));
        fixes.closest = moved.first().map(|t| suggestion(t));
    }
    fixes
}

/// The fix finder's answer as Markdown: the problem, then each suggestion with its changes, its diff and what vLLM
/// then runs; or the closest candidate and why it still fails.
pub fn markdown(f: &Fixes) -> String {
    let mut out = String::new();
    match (&f.problem, &f.cannot_model) {
        (_, Some(why)) => return format!("qpath cannot model this scenario, so it suggests nothing: {why}\n"),
        (None, None) => return "Nothing to fix: vLLM starts and serves this scenario as asked.\n".to_string(),
        (Some(Problem::Fails(why)), _) => out.push_str(&format!("**vLLM fails:** {why}\n")),
        (Some(Problem::CudaGraphDowngrade { requested, resolved }), _) => out.push_str(&format!(
            "**vLLM runs, but downgrades cudagraph_mode {requested} → {resolved}.**\n"
        )),
        (Some(Problem::Fallback { asked, got }), _) => {
            out.push_str(&format!("**vLLM runs, but not as asked:** {asked} is asked for; {got}.\n"))
        }
    }
    if let Some(why) = &f.skipped {
        out.push_str(&format!("\n{why}.\n"));
        return out;
    }
    if f.suggestions.is_empty() {
        out.push_str(&format!(
            "\nNo command line one or two changes away runs ({} tried).\n",
            f.tried
        ));
        if let Some(c) = &f.closest {
            out.push_str(&format!(
                "The closest: {} (vLLM {}), which still gives: {}\n",
                c.changes.join("; "),
                c.release.name(),
                c.outcome.replace('\n', " ")
            ));
        }
        return out;
    }
    let heading = match f.problem {
        Some(Problem::Fallback { .. }) => "How to run what was asked for",
        Some(Problem::CudaGraphDowngrade { .. }) => "How to keep the CUDA graphs",
        _ => "How to make it run",
    };
    out.push_str(&format!("\n{heading} ({} candidates tried, best first):\n", f.tried));
    for (i, s) in f.suggestions.iter().enumerate() {
        out.push_str(&format!("\n{}. {}\n", i + 1, s.changes.join("; ")));
        for r in &s.removed {
            out.push_str(&format!("   - `{r}`\n"));
        }
        for a in &s.added {
            out.push_str(&format!("   + `{a}`\n"));
        }
        let graphs = s
            .cuda_graph_mode
            .as_deref()
            .map_or(String::new(), |m| format!(", cudagraph_mode {m}"));
        out.push_str(&format!(
            "   vLLM {} (FlashInfer {}) runs: {}{graphs}\n   `{}`\n",
            s.release.name(),
            s.flashinfer,
            s.outcome,
            s.command_line
        ));
    }
    out
}

/// The indent of a suggestion's lines in [`text`], before its diff lines and its command line.
pub const INDENT: &str = "   ";

/// The fix finder's answer as text that fits `width` columns (`None`: unwrapped): the problem, then each suggestion
/// (its changes, the option units it removes `-` and adds `+`, what vLLM then runs, and its whole command line), or
/// the closest candidate and why it still fails. Prose wraps; a command line and a diff's option units are each on a
/// line of their own after [`INDENT`] and are never wrapped, however wide: a command broken inside a word no longer
/// pastes into a shell, which is worse than a long line.
pub fn text(f: &Fixes, width: Option<usize>) -> String {
    use crate::matrix::hang;
    let para = |t: &str| hang(t, width, "", "", &[]);
    let mut out = String::new();
    match (&f.problem, &f.cannot_model) {
        (_, Some(why)) => return para(&format!("qpath cannot model this scenario, so it suggests nothing: {why}")),
        (None, None) => return para("Nothing to fix: vLLM starts and serves this scenario as asked."),
        (Some(Problem::Fails(why)), _) => out.push_str(&hang(why, width, "vLLM fails: ", "  ", &[])),
        (Some(Problem::CudaGraphDowngrade { requested, resolved }), _) => out.push_str(&para(&format!(
            "vLLM runs, but downgrades cudagraph_mode {requested} → {resolved}."
        ))),
        (Some(Problem::Fallback { asked, got }), _) => {
            out.push_str(&para(&format!("vLLM runs, but not as asked: {asked} is asked for; {got}.")))
        }
    }
    if let Some(why) = &f.skipped {
        out.push('\n');
        out.push_str(&para(&format!("{why}.")));
        return out;
    }
    // One suggestion's lines after its first: the diff, what runs, the command line.
    let body = |s: &Suggestion, out: &mut String| {
        for r in &s.removed {
            out.push_str(&format!("{INDENT}- {r}\n"));
        }
        for a in &s.added {
            out.push_str(&format!("{INDENT}+ {a}\n"));
        }
        let graphs = s
            .cuda_graph_mode
            .as_deref()
            .map_or(String::new(), |m| format!(", cudagraph_mode {m}"));
        let verb = if s.verdict == Verdict::Serves { "runs" } else { "gives" };
        out.push_str(&hang(
            &format!(
                "vLLM {} (FlashInfer {}) {verb}: {}{graphs}",
                s.release.name(),
                s.flashinfer,
                s.outcome
            ),
            width,
            INDENT,
            INDENT,
            &[],
        ));
        // Never wrapped (see above).
        out.push_str(&format!("{INDENT}{}\n", s.command_line.replace('\n', " ")));
    };
    if f.suggestions.is_empty() {
        out.push('\n');
        out.push_str(&para(&format!(
            "No command line one or two changes away runs ({} tried).",
            f.tried
        )));
        if let Some(c) = &f.closest {
            out.push_str(&hang(&c.changes.join("; "), width, "The closest: ", INDENT, &[]));
            body(c, &mut out);
        }
        return out;
    }
    let heading = match f.problem {
        Some(Problem::Fallback { .. }) => "How to run what was asked for",
        Some(Problem::CudaGraphDowngrade { .. }) => "How to keep the CUDA graphs",
        _ => "How to make it run",
    };
    out.push('\n');
    out.push_str(&para(&format!("{heading} ({} candidates tried, best first):", f.tried)));
    for (i, s) in f.suggestions.iter().enumerate() {
        out.push('\n');
        let first = format!("{:<w$}", format!("{}.", i + 1), w = INDENT.len());
        out.push_str(&hang(&s.changes.join("; "), width, &first, INDENT, &[]));
        body(s, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_order_switches_before_backends_before_releases() {
        assert!(Change::BlockSize(None).cost() < Change::AttentionBackend(None).cost());
        assert!(Change::AttentionBackend(None).cost() < Change::KvCacheDtype("auto".into()).cost());
        assert!(Change::KvCacheDtype("auto".into()).cost() < Change::Release(Release::LATEST).cost());
        assert!(Change::CudaGraphMode("PIECEWISE").cost() < Change::CudaGraphMode("NONE").cost());
    }

    /// The text: prose wraps to the width; a suggestion's command line and option units stay whole on their own
    /// lines, the only lines that may run over.
    #[test]
    fn the_text_never_wraps_a_command_line() {
        let long = format!("vllm serve m --served-model-name {}", "x".repeat(60));
        let s = Suggestion {
            changes: vec!["--kv-cache-dtype: fp8_e5m2 → fp8".to_string()],
            command_line: long.clone(),
            removed: vec!["--kv-cache-dtype fp8_e5m2".to_string()],
            added: vec!["--kv-cache-dtype fp8".to_string()],
            release: Release::LATEST,
            flashinfer: "0.7.2",
            installed: None,
            verdict: Verdict::Serves,
            outcome: "FLASHINFER e4m3/bf16 fa3/xqa and some more words to wrap over the width".to_string(),
            cuda_graph_mode: Some("FULL_AND_PIECEWISE".to_string()),
            keeps_cache_dtype: true,
            keeps_backend: true,
        };
        let f = Fixes {
            problem: Some(Problem::Fails(
                "ValueError: The dtype of q torch.float8_e4m3fn does not match".into(),
            )),
            cannot_model: None,
            suggestions: vec![s],
            closest: None,
            tried: 45,
            skipped: None,
        };
        let t = text(&f, Some(40));
        let over: Vec<&str> = t.lines().filter(|l| l.chars().count() > 40).collect();
        assert_eq!(over, [format!("{INDENT}{long}")], "{t}");
        assert!(
            t.starts_with("vLLM fails: ValueError: The dtype of q\n  torch.float8_e4m3fn does not match\n"),
            "{t}"
        );
        assert!(
            t.contains("\n1. --kv-cache-dtype: fp8_e5m2 → fp8\n   - --kv-cache-dtype fp8_e5m2\n   + --kv-cache-dtype fp8\n"),
            "{t}"
        );
        // Unwrapped: the problem, the heading, what runs and the command line are each one line.
        assert_eq!(
            text(&f, None).lines().filter(|l| l.chars().count() > 40).count(),
            4,
            "unwrapped"
        );
    }
}
