//! All GPUs × cache dtypes for the rest of a scenario (the CLI's `qpath matrix`, the page's matrix), in one of two
//! modes ([`MatrixMode`]): FlashInfer's cache dtypes and what its groups run, or the backend vLLM picks (or the command
//! line forces) over the cache dtypes any backend qpath models accepts, with every group's backend, query dtypes and
//! kernels.

use serde::Serialize;

use crate::gpu::GPUS;
use crate::model::ParsedConfig;
use crate::release::Release;
use crate::report::{Backend, GroupReport, NoteKind, Report, ScenarioErrorKind, Verdict, QPATH_LIMIT};
use crate::resolve::{prepare_sharing, resolve_shared, shared_config, without_configs, Hardware, Prepared, Scenario};
use crate::serve;

/// The `--kv-cache-dtype` values FlashInfer's backend lists at a release (`supported_kv_cache_dtypes`).
pub fn flashinfer_kv_dtypes(r: Release) -> Vec<&'static str> {
    let mut v = vec!["auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "nvfp4"];
    if r >= Release::V0_28_0 {
        v.push("nvfp4_4over6");
    }
    v
}

/// The `--kv-cache-dtype` values some attention backend qpath models accepts at a release: FLASHINFER's list (which
/// holds FLASH_ATTN's, FLEX_ATTENTION's and TRITON_ATTN's 16-bit and FP8 caches), then TRITON_ATTN's per-token-head
/// caches (`int4_per_token_head` from 0.25.0-prefix), then TURBOQUANT's `turboquant_*` caches. The tests check that
/// every one is selected by some backend on some GPU of the table.
pub fn any_backend_kv_dtypes(r: Release) -> Vec<&'static str> {
    let mut v = flashinfer_kv_dtypes(r);
    v.extend(["int8_per_token_head", "fp8_per_token_head"]);
    if r >= Release::V0_25_0Prefix {
        v.push("int4_per_token_head");
    }
    v.extend([
        "turboquant_k8v4",
        "turboquant_4bit_nc",
        "turboquant_k3v4_nc",
        "turboquant_3bit_nc",
    ]);
    v
}

/// The `--kv-cache-dtype` values some MLA backend lists at a release (the union of their `supported_kv_cache_dtypes`):
/// the 16-bit and FP8 caches, DeepSeek's `fp8_ds_mla` layout (every release) and `nvfp4_ds_mla` (0.30.0+, when the
/// release's `CacheDType` has it). The picked mode's columns for an MLA model: the other backends' caches would only
/// repeat "No valid attention backend found" for its layers.
pub fn mla_kv_dtypes(r: Release) -> Vec<&'static str> {
    let mut v = vec!["auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_ds_mla"];
    if r >= Release::V0_30_0 {
        v.push("nvfp4_ds_mla");
    }
    v
}

/// Whether the command line's model builds MLA layers at `release` (a DeepSeek-architecture model, from its preset or
/// `model_config`, with `--hf-overrides` and `VLLM_MLA_DISABLE` read as the resolve reads them). One model read, no
/// selection: what the page's controls and the matrix's columns ask before resolving anything. False when the model
/// cannot be read (the resolve then says why).
pub fn model_uses_mla(release: Release, cmd: &serve::ServeCommand, model_config: Option<&str>) -> bool {
    model_uses_mla_in(release, cmd, model_config.map(ParsedConfig::new).as_ref())
}

/// [`model_uses_mla`] on a shared config.json: the spec it builds is the one the resolve of the same command line
/// reuses (the same id, file name, overrides and environment).
fn model_uses_mla_in(release: Release, cmd: &serve::ServeCommand, model_config: Option<&ParsedConfig>) -> bool {
    use crate::model;
    let env = model::ModelEnv {
        mla_disable: matches!(cmd.env_flag("VLLM_MLA_DISABLE"), Ok(Some(true))),
    };
    let overrides = cmd.hf_overrides.as_ref();
    let spec = match model_config {
        Some(c) if c.text().len() > serve::limits::MAX_CONFIG_JSON_BYTES => return false,
        Some(c) => c.resolve_model_in(release, env, &cmd.model, &format!("config.json of {}", cmd.model), overrides),
        None => model::resolve_model_in(release, env, &cmd.model, overrides),
    };
    spec.is_ok_and(|s| s.layers.iter().any(|l| l.mla.is_some()))
}

/// What the matrix shows (the JSON's `mode`, `qpath matrix --backend`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatrixMode {
    /// FlashInfer's cache dtypes ([`flashinfer_kv_dtypes`]); a cell summarizes the FlashInfer groups, or, where no
    /// layer runs on FlashInfer, what the backends vLLM picks instead run (`other-backend`).
    #[default]
    #[serde(rename = "flashinfer")]
    FlashInfer,
    /// The backend vLLM picks on each GPU (or the one the command line's `--attention-backend` forces), over the cache
    /// dtypes any modelled backend accepts ([`any_backend_kv_dtypes`]); a cell summarizes every group: its backend,
    /// query dtypes and kernels.
    Picked,
}

impl MatrixMode {
    pub const ALL: [MatrixMode; 2] = [MatrixMode::FlashInfer, MatrixMode::Picked];

    /// The JSON string, also `qpath matrix --backend`'s value.
    pub fn name(self) -> &'static str {
        match self {
            MatrixMode::FlashInfer => "flashinfer",
            MatrixMode::Picked => "picked",
        }
    }

    pub fn parse(s: &str) -> Option<MatrixMode> {
        MatrixMode::ALL.into_iter().find(|m| m.name() == s)
    }

    /// What the mode shows, in a few words (the page's selector, the CLI's help).
    pub fn label(self) -> &'static str {
        match self {
            MatrixMode::FlashInfer => "FlashInfer's groups, over FlashInfer's cache dtypes",
            MatrixMode::Picked => "the backend vLLM picks, over every backend's cache dtypes",
        }
    }

    /// The cache dtypes of its columns at a release, for a model whose layers are MLA (`mla`) or not: FlashInfer's
    /// list; in the picked mode every backend's, or the MLA backends' ([`mla_kv_dtypes`]) for an MLA model.
    pub fn kv_dtypes(self, r: Release, mla: bool) -> Vec<&'static str> {
        match (self, mla) {
            (MatrixMode::FlashInfer, _) => flashinfer_kv_dtypes(r),
            (MatrixMode::Picked, false) => any_backend_kv_dtypes(r),
            (MatrixMode::Picked, true) => mla_kv_dtypes(r),
        }
    }
}

impl std::str::FromStr for MatrixMode {
    type Err = String;

    fn from_str(s: &str) -> Result<MatrixMode, String> {
        MatrixMode::parse(s).ok_or_else(|| "one of flashinfer, picked".to_string())
    }
}

/// What a cell shows (the JSON's `status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellStatus {
    /// Every group the cell summarizes runs: the summary lists their query dtypes and kernels.
    Ok,
    /// A group or the scenario fails: the summary is the first error.
    Error,
    /// FlashInfer mode: no layer runs on FlashInfer; the summary says what the backends that run them do.
    OtherBackend,
    /// qpath cannot model the scenario or part of it (the report's verdict): the summary says what.
    CannotModel,
}

impl CellStatus {
    /// The JSON string, also the cell's CSS class on the page.
    pub fn name(self) -> &'static str {
        match self {
            CellStatus::Ok => "ok",
            CellStatus::Error => "error",
            CellStatus::OtherBackend => "other-backend",
            CellStatus::CannotModel => "cannot-model",
        }
    }
}

/// One cell: the outcome of the scenario on one GPU with one cache dtype.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub gpu: &'static str,
    pub kv_cache_dtype: &'static str,
    /// The command line of this cell (the base one with `--kv-cache-dtype` replaced): one text shared by the cells of
    /// a column, not a copy per cell (a long command line times 240 cells was the page's memory).
    #[serde(serialize_with = "shared_str")]
    pub command_line: std::sync::Arc<str>,
    pub status: CellStatus,
    /// A short summary: `bf16/bf16 fa2/fa2` per distinct FlashInfer group (FlashInfer mode), `FLASH_ATTN bf16/bf16
    /// fa3-varlen-aot/fa3-varlen-aot` per distinct group (every group in picked mode, other backends' in FlashInfer
    /// mode), or the error.
    pub summary: String,
    /// The backends the scenario's groups run on, each once, in group order (empty when the scenario fails as a
    /// whole).
    pub backends: Vec<Backend>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Matrix {
    pub vllm: &'static str,
    pub kv_cache_dtypes: Vec<&'static str>,
    pub gpus: Vec<&'static str>,
    /// Row-major: for each GPU, one cell per cache dtype.
    pub cells: Vec<Cell>,
    /// What the cells show.
    pub mode: MatrixMode,
    /// The base model's layers are MLA ([`model_uses_mla`]): the picked mode's columns are [`mla_kv_dtypes`]. Not in
    /// the JSON (its columns say it).
    #[serde(skip)]
    pub mla: bool,
    /// The base scenario's GPU (`None`: a bare compute capability) and its command's `--kv-cache-dtype`: the cell the
    /// text grid marks. Not in the JSON.
    #[serde(skip)]
    pub base_gpu: Option<&'static str>,
    #[serde(skip)]
    pub base_kv_cache_dtype: String,
}

fn short_dtype(d: Option<crate::dtype::TorchDtype>) -> &'static str {
    use crate::dtype::TorchDtype::*;
    match d {
        Some(BFloat16) => "bf16",
        Some(Float16) => "fp16",
        Some(Float32) => "fp32",
        Some(Float8E4m3fn) => "e4m3",
        Some(Float8E5m2) => "e5m2",
        Some(Uint8) => "u8",
        None => "—",
    }
}

/// A phase's kernels in a cell: `fa2`, or `triton-unified-3d|triton-unified-2d` where the batch decides (each once).
fn short_kernels(g: &GroupReport, is_prefill: bool) -> String {
    let names = g.distinct_kernel_names(is_prefill);
    if names.is_empty() {
        "—".to_string()
    } else {
        names.join("|")
    }
}

/// One group in a cell: `bf16/e4m3 fa2/xqa` (query dtypes, then kernels, at prefill/decode), after its backend when
/// `with_backend`; a recurrent group without either: `MAMBA2 (recurrent state)`.
fn group_summary(g: &GroupReport, with_backend: bool) -> String {
    let bare = g.q_dtype.prefill.is_none()
        && g.q_dtype.decode.is_none()
        && g.kernel_choices(true).is_empty()
        && g.kernel_choices(false).is_empty();
    if bare && g.backend.is_recurrent() {
        return format!("{} (recurrent state)", g.backend);
    }
    let decided = format!(
        "{}/{} {}/{}",
        short_dtype(g.q_dtype.prefill),
        short_dtype(g.q_dtype.decode),
        short_kernels(g, true),
        short_kernels(g, false)
    );
    if with_backend {
        format!("{} {decided}", g.backend)
    } else {
        decided
    }
}

/// The distinct summaries of `groups`, joined by `; `.
fn joined<'a>(groups: impl Iterator<Item = &'a GroupReport>, with_backend: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    for g in groups {
        let s = group_summary(g, with_backend);
        if !parts.contains(&s) {
            parts.push(s);
        }
    }
    parts.join("; ")
}

/// The cell's status and summary from a report, in FlashInfer mode ([`summarize_in`]).
pub fn summarize(r: &Report) -> (CellStatus, String) {
    summarize_in(r, MatrixMode::FlashInfer)
}

/// The cell's status and summary from a report: the scenario's error (its headline), the first group's error, what
/// qpath cannot model, else what the groups run (FlashInfer mode: the FlashInfer groups, or, where there is none, the
/// others with their backends; picked mode: every group with its backend).
pub fn summarize_in(r: &Report, mode: MatrixMode) -> (CellStatus, String) {
    if let Some(e) = &r.error {
        // The selection errors list every backend's reasons; the cell keeps the headline.
        let short = e.message.split(" for cuda with ").next().unwrap_or(&e.message);
        let short = short
            .split(" is not valid for this configuration. Reason: ")
            .collect::<Vec<_>>()
            .join(" is not valid: ");
        return match e.kind {
            ScenarioErrorKind::InputError => (CellStatus::CannotModel, format!("{QPATH_LIMIT}: {}", e.kind.body(&short))),
            _ => (CellStatus::Error, e.kind.body(&short)),
        };
    }
    if let Some(e) = r.groups.iter().find_map(|g| g.error.as_ref()) {
        return (CellStatus::Error, format!("{}: {}", e.kind, e.text()));
    }
    if r.verdict == Verdict::CannotModel {
        let note = r.notes.iter().find(|n| n.kind == NoteKind::Limit).map(|n| n.text.as_str());
        let group = r.groups.iter().find_map(|g| g.unmodelled.as_deref());
        return (CellStatus::CannotModel, note.or(group).unwrap_or(QPATH_LIMIT).to_string());
    }
    match mode {
        MatrixMode::Picked => (CellStatus::Ok, joined(r.groups.iter(), true)),
        MatrixMode::FlashInfer if r.groups.iter().any(|g| g.backend == Backend::FlashInfer) => (
            CellStatus::Ok,
            joined(r.groups.iter().filter(|g| g.backend == Backend::FlashInfer), false),
        ),
        MatrixMode::FlashInfer => (CellStatus::OtherBackend, joined(r.groups.iter(), true)),
    }
}

/// The backends of a report's groups, each once, in group order.
fn backends_of(r: &Report) -> Vec<Backend> {
    let mut v: Vec<Backend> = Vec::new();
    for g in &r.groups {
        if !v.contains(&g.backend) {
            v.push(g.backend);
        }
    }
    v
}

/// A shared text serialized as the string it holds.
fn shared_str<S: serde::Serializer>(text: &std::sync::Arc<str>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(text)
}

/// [`matrix_in`] in FlashInfer mode.
pub fn matrix(base: &Scenario) -> Result<Matrix, String> {
    matrix_in(base, MatrixMode::FlashInfer)
}

/// Resolves the base scenario on every GPU of the table with every cache dtype of `mode` at its release. Fails only
/// when the base command line does not parse (the error names the input).
pub fn matrix_in(base: &Scenario, mode: MatrixMode) -> Result<Matrix, String> {
    let cmd = serve::parse(base.release, &base.command_line).map_err(|e| e.to_string())?;
    // The config.json, parsed once for every cell (and its model spec built once): the cells' scenarios do not carry
    // its text, their `Prepared` share it.
    let config = shared_config(base);
    let mla = model_uses_mla_in(base.release, &cmd, config.model());
    let dtypes = mode.kv_dtypes(base.release, mla);
    let bare = Scenario {
        command_line: String::new(),
        ..without_configs(base)
    };
    // One command line per cache dtype, parsed once and resolved on every GPU.
    let columns: Vec<(&'static str, Scenario, Prepared, std::sync::Arc<str>)> = dtypes
        .iter()
        .map(|&kv| {
            let mut c = cmd.clone();
            c.kv_cache_dtype = kv.to_string();
            let s = Scenario {
                command_line: serve::format(&c),
                ..bare.clone()
            };
            let p = prepare_sharing(&s, &config);
            let line = std::sync::Arc::from(s.command_line.as_str());
            (kv, s, p, line)
        })
        .collect();
    let mut cells = Vec::with_capacity(GPUS.len() * dtypes.len());
    for g in GPUS {
        for (kv, column, prepared, line) in &columns {
            let s = Scenario {
                hardware: Hardware::Gpu(g),
                ..column.clone()
            };
            let line = line.clone();
            let kv = *kv;
            let report = resolve_shared(&s, prepared);
            let (status, summary) = summarize_in(&report, mode);
            cells.push(Cell {
                gpu: g.id,
                kv_cache_dtype: kv,
                command_line: line,
                status,
                summary,
                backends: backends_of(&report),
            });
        }
    }
    Ok(Matrix {
        vllm: base.release.name(),
        kv_cache_dtypes: dtypes,
        gpus: GPUS.iter().map(|g| g.id).collect(),
        cells,
        mode,
        mla,
        base_gpu: match base.hardware {
            Hardware::Gpu(g) => Some(g.id),
            Hardware::Capability(_) => None,
        },
        base_kv_cache_dtype: cmd.kv_cache_dtype.clone(),
    })
}

/// The matrix as a Markdown table (rows: GPUs; columns: cache dtypes).
pub fn markdown(m: &Matrix) -> String {
    let mut out = format!(
        "| GPU | {} |\n|---|{}\n",
        m.kv_cache_dtypes.join(" | "),
        "---|".repeat(m.kv_cache_dtypes.len())
    );
    for (i, g) in m.gpus.iter().enumerate() {
        let row: Vec<String> = m.cells[i * m.kv_cache_dtypes.len()..(i + 1) * m.kv_cache_dtypes.len()]
            .iter()
            .map(|c| {
                let s = c.summary.replace('|', "\\|");
                if c.status == CellStatus::Error {
                    format!("**{s}**")
                } else {
                    s
                }
            })
            .collect();
        out.push_str(&format!("| {g} | {} |\n", row.join(" | ")));
    }
    out
}

/// One distinct outcome of a matrix's cells, as the text grid's legend lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The key the grid shows in its cells: `A`, `B` … for what runs (lower case in FlashInfer mode where no layer runs
    /// on FlashInfer), `1`, `2` … for vLLM's errors, then for what qpath cannot model (footnotes).
    pub key: String,
    pub status: CellStatus,
    pub summary: String,
    /// How many cells have it.
    pub cells: usize,
}

/// `A` … `Z`, `AA` … : the `n`-th letter key (0-based), in upper or lower case.
fn letter_key(n: usize, upper: bool) -> String {
    let base = if upper { b'A' } else { b'a' };
    let mut n = n;
    let mut out = Vec::new();
    loop {
        out.push(base + (n % 26) as u8);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// The matrix's distinct outcomes (each status and summary once) with their keys, and each cell's outcome (an index
/// into the first list, row-major like `m.cells`). Keys are given in order of first appearance within each kind: what
/// runs (letters), what runs on another backend than FlashInfer (lower-case letters), vLLM's errors (numbers), what
/// qpath cannot model (the numbers after the errors'). The list is in key order: letters, lower-case, numbers.
pub fn legend(m: &Matrix) -> (Vec<Outcome>, Vec<usize>) {
    let kind = |s: CellStatus| match s {
        CellStatus::Ok => 0,
        CellStatus::OtherBackend => 1,
        CellStatus::Error => 2,
        CellStatus::CannotModel => 3,
    };
    // Distinct outcomes in order of first appearance.
    let mut seen: Vec<Outcome> = Vec::new();
    let mut of_cell: Vec<usize> = Vec::with_capacity(m.cells.len());
    for c in &m.cells {
        match seen.iter().position(|o| o.status == c.status && o.summary == c.summary) {
            Some(i) => {
                seen[i].cells += 1;
                of_cell.push(i);
            }
            None => {
                of_cell.push(seen.len());
                seen.push(Outcome {
                    key: String::new(),
                    status: c.status,
                    summary: c.summary.clone(),
                    cells: 1,
                });
            }
        }
    }
    // Key order: by kind, then first appearance (a stable sort of the indices).
    let mut order: Vec<usize> = (0..seen.len()).collect();
    order.sort_by_key(|&i| kind(seen[i].status));
    let mut counts = [0usize; 3];
    let mut new_index = vec![0usize; seen.len()];
    let mut sorted = Vec::with_capacity(seen.len());
    for (at, &i) in order.iter().enumerate() {
        let mut o = seen[i].clone();
        o.key = match kind(o.status) {
            0 => letter_key(post_inc(&mut counts[0]), true),
            1 => letter_key(post_inc(&mut counts[1]), false),
            _ => (post_inc(&mut counts[2]) + 1).to_string(),
        };
        new_index[i] = at;
        sorted.push(o);
    }
    (sorted, of_cell.into_iter().map(|i| new_index[i]).collect())
}

fn post_inc(n: &mut usize) -> usize {
    *n += 1;
    *n - 1
}

/// Where a legend's summary may break besides a blank: between alternatives (`|`), phases (`/`) and groups (`;`),
/// not inside a kernel's name.
const SUMMARY_BREAKS: &[char] = &['|', '/', ';', ','];

/// The mark of the command's own cell in the text grid.
pub const MARK: char = '*';

/// A grid's panels narrower than this many do not make a readable grid: the text lists each GPU's cells instead.
const MAX_PANELS: usize = 4;

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// The longest run of `s` that wrapping at blanks and [`crate::columns::CELL_BREAKS`] cannot split.
fn longest_piece(s: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for c in s.chars() {
        if c == ' ' {
            run = 0;
            continue;
        }
        run += 1;
        longest = longest.max(run);
        if crate::columns::CELL_BREAKS.contains(&c) {
            run = 0;
        }
    }
    longest
}

/// The placeholder of [`hang`]'s first-line lead (a character qpath's texts do not hold).
const PAD: char = '\u{1}';

/// `text` wrapped to `width` (none: as it is) after `first` on its first line and `rest` on the others, breaking at
/// blanks and at `breaks`; each line ends in `\n`. At least 10 columns are left for the text; when `first` leaves none
/// beside it, the text starts on the next line.
pub fn hang(text: &str, width: Option<usize>, first: &str, rest: &str, breaks: &[char]) -> String {
    let lines = match width {
        Some(w) => {
            let (f, r) = (chars(first), chars(rest));
            let rest_room = w.saturating_sub(r).max(10);
            if f <= r {
                crate::columns::wrap(text, rest_room, breaks)
            } else if f - r >= rest_room {
                // No room beside `first`: the text starts on the next line.
                std::iter::once(String::new())
                    .chain(crate::columns::wrap(text, rest_room, breaks))
                    .collect()
            } else {
                // The continuation lines use the room a shorter `rest` leaves: the first line's extra lead stands in
                // front of the text as unbreakable placeholders while wrapping.
                let padded: String = std::iter::repeat_n(PAD, f - r).chain(text.chars()).collect();
                let mut lines = crate::columns::wrap(&padded, rest_room, breaks);
                if let Some(l) = lines.first_mut() {
                    *l = l.trim_start_matches(PAD).to_string();
                }
                lines
            }
        }
        None => text.split('\n').map(str::to_string).collect(),
    };
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        let line = format!("{}{l}", if i == 0 { first } else { rest });
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The grid's rows as panels of columns that fit `width` (all columns in one panel when `None`), or `None` when they
/// need more than [`MAX_PANELS`] panels or a column does not fit beside the GPU column.
fn grid(m: &Matrix, keys: &[String], width: Option<usize>) -> Option<String> {
    let n = m.kv_cache_dtypes.len();
    let gpu_w = m.gpus.iter().map(|g| chars(g)).chain([3]).max().unwrap_or(3);
    let key_w: Vec<usize> = (0..n)
        .map(|j| {
            (0..m.gpus.len())
                .filter_map(|i| keys.get(i * n + j))
                .map(|k| chars(k))
                .max()
                .unwrap_or(1)
        })
        .collect();
    let full: Vec<usize> = (0..n).map(|j| chars(m.kv_cache_dtypes[j]).max(key_w[j])).collect();
    let least: Vec<usize> = (0..n).map(|j| longest_piece(m.kv_cache_dtypes[j]).max(key_w[j])).collect();
    // Columns into panels, greedily at their narrowest.
    let mut panels: Vec<Vec<usize>> = vec![Vec::new()];
    if let Some(w) = width {
        let mut used = gpu_w;
        for (j, &narrowest) in least.iter().enumerate() {
            if gpu_w + 2 + narrowest > w {
                return None;
            }
            if used + 2 + narrowest > w {
                panels.push(Vec::new());
                used = gpu_w;
            }
            used += 2 + narrowest;
            panels.last_mut()?.push(j);
        }
        if panels.len() > MAX_PANELS {
            return None;
        }
    } else {
        panels[0] = (0..n).collect();
    }
    let mut out = String::new();
    for (p, cols) in panels.iter().enumerate() {
        if p > 0 {
            out.push('\n');
        }
        // Each column at its full header, the one with the most room giving up a character at a time until it fits.
        let mut widths: Vec<usize> = cols.iter().map(|&j| full[j]).collect();
        if let Some(w) = width {
            while gpu_w + widths.iter().map(|x| x + 2).sum::<usize>() > w {
                let i = (0..cols.len())
                    .filter(|&i| widths[i] > least[cols[i]])
                    .max_by_key(|&i| (widths[i] - least[cols[i]], i))?;
                widths[i] -= 1;
            }
        }
        let heads: Vec<Vec<String>> = cols
            .iter()
            .zip(&widths)
            .map(|(&j, &w)| crate::columns::wrap(m.kv_cache_dtypes[j], w, crate::columns::CELL_BREAKS))
            .collect();
        let height = heads.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..height {
            let mut line = format!("{:<gpu_w$}", if k == 0 { "GPU" } else { "" });
            for (h, &w) in heads.iter().zip(&widths) {
                line.push_str(&format!("  {:<w$}", h.get(k).map_or("", String::as_str)));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for (i, g) in m.gpus.iter().enumerate() {
            let mut line = format!("{g:<gpu_w$}");
            for (&j, &w) in cols.iter().zip(&widths) {
                line.push_str(&format!("  {:<w$}", keys.get(i * n + j).map_or("", String::as_str)));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    Some(out)
}

const NBSP: char = '\u{a0}';

/// The grid's fallback for a narrow width: one paragraph per GPU, `v100: auto A, float16 A, bfloat16 1, …`.
fn per_gpu(m: &Matrix, keys: &[String], width: Option<usize>) -> String {
    let n = m.kv_cache_dtypes.len();
    let mut out = String::new();
    for (i, g) in m.gpus.iter().enumerate() {
        let pairs: Vec<String> = (0..n)
            .filter_map(|j| Some(format!("{}{NBSP}{}", m.kv_cache_dtypes[j], keys.get(i * n + j)?)))
            .collect();
        // A cache dtype and its key stay on one line: joined by a no-break space while wrapping.
        let para = hang(&format!("{g}: {}", pairs.join(", ")), width, "", "    ", &[]);
        out.push_str(&para.replace(NBSP, " "));
    }
    out
}

fn cells_word(n: usize) -> String {
    if n == 1 {
        "1 cell".to_string()
    } else {
        format!("{n} cells")
    }
}

/// The matrix as text that fits `width` columns (`None`: unwrapped): a line saying what the cells show and which one
/// is the command as given (marked [`MARK`]), a grid of GPUs (rows) × cache dtypes (columns) with one short key per
/// cell ([`legend`]), in up to four panels of columns, or for a width too narrow for that one paragraph per GPU; then
/// the legend: what runs, each once with its cell count, and vLLM's errors and what qpath cannot model as numbered
/// footnotes, each full text wrapped.
pub fn text(m: &Matrix, width: Option<usize>) -> String {
    let (outcomes, of_cell) = legend(m);
    let n = m.kv_cache_dtypes.len();
    let keys: Vec<String> = m
        .cells
        .iter()
        .zip(&of_cell)
        .map(|(c, &o)| {
            let key = outcomes[o].key.clone();
            let own = m.base_gpu == Some(c.gpu) && c.kv_cache_dtype == m.base_kv_cache_dtype;
            if own {
                format!("{key}{MARK}")
            } else {
                key
            }
        })
        .collect();
    let what = match (m.mode, m.mla) {
        (MatrixMode::FlashInfer, _) => "FlashInfer's attention groups",
        (MatrixMode::Picked, false) => "the attention backends vLLM picks",
        (MatrixMode::Picked, true) => "the MLA backends vLLM picks",
    };
    let mut out = hang(
        &format!(
            "vLLM {}: {what} on each GPU (rows) with each --kv-cache-dtype (columns).",
            m.vllm
        ),
        width,
        "",
        "",
        &[],
    );
    let own = m
        .cells
        .iter()
        .find(|c| m.base_gpu == Some(c.gpu) && c.kv_cache_dtype == m.base_kv_cache_dtype);
    if let Some(c) = own {
        out.push_str(&hang(
            &format!(
                "{MARK} the command as given: {} with --kv-cache-dtype {}",
                c.gpu, c.kv_cache_dtype
            ),
            width,
            "",
            "  ",
            &[],
        ));
    }
    out.push('\n');
    match grid(m, &keys, width) {
        Some(g) if n > 0 => out.push_str(&g),
        _ => out.push_str(&per_gpu(m, &keys, width)),
    }
    let key_w = outcomes.iter().map(|o| chars(&o.key)).max().unwrap_or(1);
    let running: &[(CellStatus, &str)] = match m.mode {
        MatrixMode::FlashInfer => &[
            (
                CellStatus::Ok,
                "FlashInfer runs (query dtype prefill/decode, kernels prefill/decode):",
            ),
            (CellStatus::OtherBackend, "No layer on FlashInfer; what runs instead:"),
        ],
        MatrixMode::Picked => &[
            (
                CellStatus::Ok,
                "What runs (backend, query dtype prefill/decode, kernels prefill/decode):",
            ),
            (CellStatus::OtherBackend, "What runs on another backend:"),
        ],
    };
    for &(status, heading) in running {
        let runs: Vec<&Outcome> = outcomes.iter().filter(|o| o.status == status).collect();
        if runs.is_empty() {
            continue;
        }
        out.push('\n');
        out.push_str(&hang(heading, width, "", "  ", &[]));
        for o in runs {
            let first = format!("  {:<key_w$}  ", o.key);
            let rest = " ".repeat(chars(&first));
            let body = format!("{} ({})", o.summary, cells_word(o.cells));
            out.push_str(&hang(&body, width, &first, &rest, SUMMARY_BREAKS));
        }
    }
    for (status, heading) in [
        (CellStatus::Error, "vLLM fails:"),
        (CellStatus::CannotModel, "qpath cannot model:"),
    ] {
        let notes: Vec<&Outcome> = outcomes.iter().filter(|o| o.status == status).collect();
        if notes.is_empty() {
            continue;
        }
        out.push('\n');
        out.push_str(heading);
        out.push('\n');
        let note_w = notes.iter().map(|o| chars(&o.key)).max().unwrap_or(1) + 2;
        for o in notes {
            let first = format!("  {:<note_w$} ", format!("[{}]", o.key));
            let rest = " ".repeat(chars(&first));
            let body = format!("{} ({})", o.summary, cells_word(o.cells));
            out.push_str(&hang(&body, width, &first, &rest, &[]));
        }
    }
    out
}

/// Note lines (`note: …`, as the CLI appends to the matrix) wrapped to `width`, each with a hanging indent under its
/// text; blank lines kept.
pub fn wrap_notes(notes: &str, width: Option<usize>) -> String {
    let mut out = String::new();
    for line in notes.lines() {
        if line.is_empty() {
            out.push('\n');
            continue;
        }
        let lead = line.find(": ").filter(|&i| i <= 8).map_or(0, |i| i + 2);
        let (first, body) = line.split_at(lead);
        out.push_str(&hang(body, width, first, &" ".repeat(lead), &[]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::resolve;

    /// The matrix's cell of one GPU and cache dtype.
    fn cell(m: &Matrix, gpu: &str, kv: &str) -> Cell {
        m.cells
            .iter()
            .find(|c| c.gpu == gpu && c.kv_cache_dtype == kv)
            .cloned()
            .unwrap()
    }

    #[test]
    fn status_and_mode_names_are_the_json_strings() {
        for s in [
            CellStatus::Ok,
            CellStatus::Error,
            CellStatus::OtherBackend,
            CellStatus::CannotModel,
        ] {
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{}\"", s.name()));
        }
        for m in MatrixMode::ALL {
            assert_eq!(serde_json::to_string(&m).unwrap(), format!("\"{}\"", m.name()));
            assert_eq!(MatrixMode::parse(m.name()), Some(m));
        }
        assert_eq!(MatrixMode::default(), MatrixMode::FlashInfer);
    }

    /// Every cache dtype of the picked mode is one some backend takes on some GPU of the table (vLLM does not answer
    /// "No valid attention backend" everywhere), at the first release and the newest.
    #[test]
    fn every_backends_cache_dtypes_are_each_selected_somewhere() {
        for r in [Release::ALL[0], Release::LATEST] {
            let fi = flashinfer_kv_dtypes(r);
            let all = any_backend_kv_dtypes(r);
            assert!(all.starts_with(&fi), "{r:?}");
            for kv in all {
                let somewhere = GPUS.iter().find_map(|g| {
                    let s = Scenario::new(
                        Hardware::Gpu(g),
                        r,
                        format!("vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype {kv}"),
                    );
                    let report = resolve(&s);
                    report.groups.first().map(|g| g.backend)
                });
                assert!(somewhere.is_some(), "{r:?}: no GPU selects a backend for {kv}");
            }
        }
    }

    /// The picked mode: the columns are every backend's cache dtypes, each cell names its backends, and on an H100
    /// the default Llama runs on FLASH_ATTN (vLLM's first choice on SM90) where FlashInfer's grid says other-backend.
    #[test]
    fn the_picked_mode_names_the_backend_of_every_cell() {
        let base = Scenario::new(
            Hardware::Gpu(crate::gpu::find("h100-sxm").unwrap()),
            Release::LATEST,
            "vllm serve meta-llama/Llama-3.1-8B-Instruct",
        );
        let picked = matrix_in(&base, MatrixMode::Picked).unwrap();
        assert_eq!(picked.mode, MatrixMode::Picked);
        assert_eq!(picked.kv_cache_dtypes, any_backend_kv_dtypes(Release::LATEST));
        assert_eq!(picked.cells.len(), GPUS.len() * picked.kv_cache_dtypes.len());
        let h100 = cell(&picked, "h100-sxm", "auto");
        assert_eq!(h100.backends, [Backend::FlashAttn]);
        assert!(h100.summary.starts_with("FLASH_ATTN "), "{}", h100.summary);
        assert_ne!(h100.status, CellStatus::OtherBackend, "picked cells are never other-backend");
        let grid = matrix(&base).unwrap();
        assert_eq!(grid.mode, MatrixMode::FlashInfer);
        let fi = cell(&grid, "h100-sxm", "auto");
        assert_eq!(
            (fi.status, fi.summary.clone()),
            (CellStatus::OtherBackend, h100.summary.clone())
        );
        // The same cell in both modes where FlashInfer runs: the picked one names it.
        let b200 = cell(&picked, "b200", "fp8");
        assert_eq!(b200.summary, format!("FLASHINFER {}", cell(&grid, "b200", "fp8").summary));
        assert!(picked.cells.iter().all(|c| c.status != CellStatus::OtherBackend));
        // A scenario error names no backend.
        let v100 = cell(&picked, "v100", "nvfp4");
        assert_eq!((v100.status, v100.backends.len()), (CellStatus::Error, 0), "{v100:?}");
    }

    /// An MLA model's picked matrix: its columns are the MLA backends' cache dtypes (fp8_ds_mla, and nvfp4_ds_mla from
    /// 0.30.0), its cells name MLA backends with both phases' kernels; each column is selected on some GPU for
    /// DeepSeek-V3 or the sparse DeepSeek-V3.2. The FlashInfer mode keeps FlashInfer's columns (no MLA layer runs there).
    #[test]
    fn an_mla_models_picked_matrix_has_the_mla_cache_dtypes_and_backends() {
        let base = |model: &str, r: Release| {
            Scenario::new(
                Hardware::Gpu(crate::gpu::find("h200").unwrap()),
                r,
                format!("vllm serve {model}"),
            )
        };
        let v3 = matrix_in(&base("deepseek-ai/DeepSeek-V3", Release::LATEST), MatrixMode::Picked).unwrap();
        assert!(v3.mla);
        assert_eq!(v3.kv_cache_dtypes, mla_kv_dtypes(Release::LATEST));
        assert_eq!(
            v3.kv_cache_dtypes,
            ["auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_ds_mla", "nvfp4_ds_mla"]
        );
        let b200 = cell(&v3, "b200", "fp8");
        assert_eq!(b200.backends, [Backend::FlashInferMla]);
        assert_eq!(b200.summary, "FLASHINFER_MLA bf16/e4m3 fa4-varlen/trtllm-gen-mla");
        assert_eq!(cell(&v3, "h200", "auto").backends, [Backend::FlashAttnMla]);
        assert!(v3.cells.iter().flat_map(|c| &c.backends).all(|b| b.is_mla()));
        let older = matrix_in(&base("deepseek-ai/DeepSeek-V3", Release::V0_29_0), MatrixMode::Picked).unwrap();
        assert!(!older.kv_cache_dtypes.contains(&"nvfp4_ds_mla"));
        assert!(older.kv_cache_dtypes.contains(&"fp8_ds_mla"));
        // A kernel listed under two conditions is named once in a cell.
        let v32 = matrix_in(&base("deepseek-ai/DeepSeek-V3.2", Release::LATEST), MatrixMode::Picked).unwrap();
        for c in &v32.cells {
            for part in c.summary.split([' ', '/', ';']) {
                let names: Vec<&str> = part.split('|').collect();
                assert!(
                    names.iter().enumerate().all(|(i, n)| !names[..i].contains(n)),
                    "{}: {}",
                    c.gpu,
                    c.summary
                );
            }
        }
        for kv in mla_kv_dtypes(Release::LATEST) {
            let selected = [&v3, &v32]
                .iter()
                .any(|m| m.cells.iter().any(|c| c.kv_cache_dtype == kv && !c.backends.is_empty()));
            assert!(selected, "no GPU selects an MLA backend for {kv}");
        }
        let grid = matrix_in(&base("deepseek-ai/DeepSeek-V3", Release::LATEST), MatrixMode::FlashInfer).unwrap();
        assert_eq!(grid.kv_cache_dtypes, flashinfer_kv_dtypes(Release::LATEST));
        assert_eq!(cell(&grid, "b200", "fp8").status, CellStatus::OtherBackend);
        // A standard model keeps every backend's columns.
        let llama = matrix_in(&base("meta-llama/Llama-3.1-8B-Instruct", Release::LATEST), MatrixMode::Picked).unwrap();
        assert!(!llama.mla);
        assert_eq!(llama.kv_cache_dtypes, any_backend_kv_dtypes(Release::LATEST));
    }

    /// A matrix of `gpus` × `kvs` whose cells are `(status, summary)` row-major, its own cell h100-sxm's auto.
    fn synthetic(gpus: &[&'static str], kvs: &[&'static str], cells: &[(CellStatus, &str)]) -> Matrix {
        let mut out = Vec::new();
        for (i, (status, summary)) in cells.iter().enumerate() {
            out.push(Cell {
                gpu: gpus[i / kvs.len()],
                kv_cache_dtype: kvs[i % kvs.len()],
                command_line: "".into(),
                status: *status,
                summary: summary.to_string(),
                backends: vec![],
            });
        }
        Matrix {
            vllm: "0.33.0",
            kv_cache_dtypes: kvs.to_vec(),
            gpus: gpus.to_vec(),
            cells: out,
            mode: MatrixMode::FlashInfer,
            mla: false,
            base_gpu: Some("h100-sxm"),
            base_kv_cache_dtype: "auto".into(),
        }
    }

    #[test]
    fn letter_keys_run_past_z() {
        let keys: Vec<String> = [0, 1, 25, 26, 27, 51, 52, 701, 702]
            .iter()
            .map(|&n| letter_key(n, true))
            .collect();
        assert_eq!(keys, ["A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA"]);
        assert_eq!(letter_key(27, false), "ab");
    }

    /// Keys by kind, then first appearance: letters for what runs, lower case for other backends, numbers for errors
    /// then for what qpath cannot model; each distinct outcome once with its cell count.
    #[test]
    fn the_legend_keys_each_outcome_once_by_kind_and_first_appearance() {
        use CellStatus::*;
        let m = synthetic(
            &["v100", "h100-sxm"],
            &["auto", "fp8", "nvfp4"],
            &[
                (CannotModel, "qpath cannot model this: x"),
                (Error, "ValueError: b"),
                (OtherBackend, "FLASH_ATTN bf16/bf16 fa2-varlen/fa2-varlen"),
                (Ok, "bf16/bf16 fa2/fa2"),
                (Error, "ValueError: a"),
                (Error, "ValueError: b"),
            ],
        );
        let (outcomes, of_cell) = legend(&m);
        let keys: Vec<(&str, CellStatus, &str, usize)> = outcomes
            .iter()
            .map(|o| (o.key.as_str(), o.status, o.summary.as_str(), o.cells))
            .collect();
        assert_eq!(
            keys,
            [
                ("A", Ok, "bf16/bf16 fa2/fa2", 1),
                ("a", OtherBackend, "FLASH_ATTN bf16/bf16 fa2-varlen/fa2-varlen", 1),
                ("1", Error, "ValueError: b", 2),
                ("2", Error, "ValueError: a", 1),
                ("3", CannotModel, "qpath cannot model this: x", 1),
            ]
        );
        let cell_keys: Vec<&str> = of_cell.iter().map(|&o| outcomes[o].key.as_str()).collect();
        assert_eq!(cell_keys, ["3", "1", "a", "A", "2", "1"]);
        let t = text(&m, Some(80));
        assert!(
            t.contains("\nGPU       auto  fp8  nvfp4\nv100      3     1    a\nh100-sxm  A*    2    1\n"),
            "{t}"
        );
        assert!(
            t.contains("* the command as given: h100-sxm with --kv-cache-dtype auto\n"),
            "{t}"
        );
        assert!(
            t.contains("vLLM fails:\n  [1] ValueError: b (2 cells)\n  [2] ValueError: a (1 cell)\n"),
            "{t}"
        );
        assert!(
            t.contains("qpath cannot model:\n  [3] qpath cannot model this: x (1 cell)\n"),
            "{t}"
        );
    }

    /// A grid too wide for the width splits its columns into panels, each repeating the GPU column; narrower still,
    /// one paragraph per GPU; a footnote wraps under its text; `None` wraps nothing.
    #[test]
    fn a_grid_fits_its_width_in_panels_then_paragraphs() {
        let kvs: Vec<&'static str> = any_backend_kv_dtypes(Release::LATEST);
        let gpus = ["rtx-pro-6000-blackwell", "h100-sxm"];
        let long = "ValueError: ".to_string() + &"word ".repeat(40);
        let cells: Vec<(CellStatus, &str)> = (0..kvs.len() * 2)
            .map(|i| {
                if i % 3 == 0 {
                    (CellStatus::Error, long.as_str())
                } else {
                    (CellStatus::Ok, "bf16/bf16 fa2/fa2")
                }
            })
            .collect();
        let m = synthetic(&gpus, &kvs, &cells);
        let at = |w: Option<usize>| text(&m, w);
        let panels = |t: &str| t.lines().filter(|l| l.starts_with("GPU ")).count();
        assert_eq!(panels(&at(None)), 1);
        assert!(at(None).lines().any(|l| l.chars().count() > 80));
        assert!(at(None).contains(&long.trim_end().to_string()));
        for w in [80, 60] {
            let t = at(Some(w));
            assert!(t.lines().all(|l| l.chars().count() <= w), "{t}");
            assert!((2..=MAX_PANELS).contains(&panels(&t)), "{w}: {t}");
            assert_eq!(t.matches("\nrtx-pro-6000-blackwell  ").count(), panels(&t), "{t}");
        }
        let t = at(Some(40));
        assert!(t.lines().all(|l| l.chars().count() <= 40), "{t}");
        assert_eq!(panels(&t), 0, "{t}");
        assert!(
            t.contains("\nrtx-pro-6000-blackwell: auto 1,\n    float16 A, bfloat16 A,"),
            "{t}"
        );
        // The footnote's continuation lines hang under its text.
        assert!(t.contains("  [1] ValueError: word word"), "{t}");
        assert!(t.contains("\n      word word"), "{t}");
    }

    #[test]
    fn a_hanging_indent_uses_the_room_the_rest_leaves() {
        assert_eq!(
            hang("aa bb cc dd", Some(12), "- 0.25.0: ", "  ", &[]),
            "- 0.25.0: aa\n  bb cc dd\n"
        );
        for w in 1..30 {
            for l in hang(
                "the quick brown-fox jumps_over the lazy,dog",
                Some(w.max(14)),
                "- 0.25.0: ",
                "  ",
                &[],
            )
            .lines()
            {
                assert!(l.chars().count() <= w.max(14), "{l:?} at {w}");
            }
        }
        assert_eq!(
            hang("aa bb cc dd ee", Some(14), "- x: ", "  ", &[]),
            "- x: aa bb cc\n  dd ee\n"
        );
        assert_eq!(hang("a\n  b", None, "[1] ", "    ", &[]), "[1] a\n      b\n");
        assert_eq!(
            wrap_notes("\nnote: one two three four five six\n", Some(20)),
            "\nnote: one two three\n      four five six\n"
        );
    }
}
