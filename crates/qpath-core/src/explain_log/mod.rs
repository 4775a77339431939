//! `qpath explain-log`: a pasted vLLM start-up log or traceback read back into a scenario, resolved, and qpath's
//! predicted log lines and error set beside the pasted ones, line by line.
//!
//! - [`read`] finds the facts ([`LogReading`]): the vLLM version, the GPU, the `non-default args` dictionary (or a
//!   command line written in the report, or the engine's config line), the environment, the model, the exception, and
//!   every one of vLLM's log records, each with its line number; it names what it skipped ([`Skipped`]).
//! - [`build`] turns them into scenario options and a `vllm serve` command line (the fields it could not find keep
//!   the caller's values and are listed in [`Built::missing`], so a front end asks for them with its own controls).
//! - [`compare`] sets a report's log records and first error beside the pasted records and exception ([`Row`]).
//!
//! Nothing here knows a rule of vLLM: the answer is [`crate::resolve`]'s for the scenario built.

mod pyrepr;
mod read;

use std::fmt::{self, Write as _};

use serde::Serialize;
use serde_json::Value;

pub use self::read::{decode, read};
use crate::gpu::Gpu;
use crate::options::{echo, echo_words, OptionKey, ScenarioOptions};
use crate::report::{Report, ScenarioErrorKind};

/// The most bytes of a log read: a longer one is read as its first and last halves of this.
pub const MAX_LOG_BYTES: usize = 32 << 20;
/// The longest line read (vLLM's longest start-up lines, the engine's config, are a few KiB).
pub const MAX_LINE_BYTES: usize = 256 << 10;
/// The most of vLLM's log records kept for the comparison.
pub const MAX_RECORDS: usize = 50_000;

/// A value read from the log, and the (1-based) line it was read from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fact<T> {
    pub value: T,
    pub line: usize,
}

/// One of vLLM's log records: `LEVEL MM-DD HH:MM:SS [file.py:NNN] text`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Record {
    /// The line of the pasted text.
    pub number: usize,
    pub level: &'static str,
    /// The file's base name as the record prints it (`cuda.py`).
    pub file: String,
    pub line: u32,
    pub text: String,
}

impl Record {
    /// `INFO [cuda.py:482] text`: the record as [`crate::report::LogRecord::show`] prints qpath's.
    pub fn show(&self) -> String {
        format!("{} [{}:{}] {}", self.level, self.file, self.line, self.text)
    }
}

/// The exception a traceback ends in, and the last frame in vLLM's or FlashInfer's package before it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Exception {
    /// The exception's class without its module (`ValueError`, `ValidationError`).
    pub kind: String,
    pub message: String,
    /// `vllm/v1/attention/backends/flashinfer.py`, 612.
    pub raised_at: Option<(String, u32)>,
}

/// What the reader left out, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Skipped {
    /// NUL bytes in the first KiB: not a text log.
    Binary { bytes: usize },
    /// The middle of a log over [`MAX_LOG_BYTES`].
    Middle { bytes: usize },
    /// What follows the first `read` bytes of an input the reader was not given whole (the CLI reads 128 MiB).
    Rest { read: u64 },
    /// A line over [`MAX_LINE_BYTES`].
    LongLine { line: usize, bytes: usize },
    /// vLLM's records after the first [`MAX_RECORDS`].
    Records { from_line: usize },
    /// Terminal escape sequences and control characters.
    Controls { count: usize },
    /// A `non-default args` line that did not read as a Python dict.
    Args { line: usize, why: String },
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skipped::Binary { bytes } => write!(f, "the input ({bytes} bytes) is binary (NUL bytes), not a log"),
            Skipped::Middle { bytes } => {
                write!(
                    f,
                    "{bytes} bytes in the middle of the log (it is over {} MiB)",
                    MAX_LOG_BYTES >> 20
                )
            }
            Skipped::Rest { read } => write!(f, "everything after the first {} MiB of the input (not read)", read >> 20),
            Skipped::LongLine { line, bytes } => {
                write!(f, "line {line}: {bytes} bytes long (over {} KiB)", MAX_LINE_BYTES >> 10)
            }
            Skipped::Records { from_line } => {
                write!(f, "vLLM's log records from line {from_line} on (over {MAX_RECORDS})")
            }
            Skipped::Controls { count } => write!(f, "{count} terminal escape sequences and control characters"),
            Skipped::Args { line, why } => write!(f, "line {line}: the `non-default args` dictionary ({why})"),
        }
    }
}

/// Everything [`read`] found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LogReading {
    /// Lines read.
    pub lines: usize,
    pub records: Vec<Record>,
    pub version: Option<Fact<String>>,
    /// The device name as the log prints it, and the row of qpath's table it is.
    #[serde(serialize_with = "ser_gpu")]
    pub gpu: Option<Fact<(String, &'static Gpu)>>,
    pub flashinfer: Option<Fact<String>>,
    /// The CUDA version of the torch build (collect_env's `CUDA used to build PyTorch`).
    pub cuda: Option<Fact<String>>,
    pub model: Option<Fact<String>>,
    /// The `non-default args` dictionary, its keys in the logged order.
    pub args: Option<Fact<Vec<(String, Value)>>>,
    /// `kv_cache_dtype`, `tensor_parallel_size`, `enforce_eager` from the engine's config line.
    pub engine_config: Option<Fact<Vec<(String, String)>>>,
    /// A `vllm serve …` command line written in the report.
    pub command: Option<Fact<String>>,
    /// `VLLM_*` / `FLASHINFER_*` assignments.
    pub env: Vec<Fact<(String, String)>>,
    pub exception: Option<Fact<Exception>>,
    pub skipped: Vec<Skipped>,
}

fn ser_gpu<S: serde::Serializer>(g: &Option<Fact<(String, &'static Gpu)>>, s: S) -> Result<S::Ok, S::Error> {
    g.as_ref()
        .map(|f| Fact {
            value: [f.value.0.as_str(), f.value.1.id],
            line: f.line,
        })
        .serialize(s)
}

/// A field a scenario needs that the log did not give.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    Version,
    Gpu,
    Model,
    Arguments,
}

impl Field {
    pub fn name(self) -> &'static str {
        match self {
            Field::Version => "the vLLM version",
            Field::Gpu => "the GPU",
            Field::Model => "the model",
            Field::Arguments => "the command line (vLLM's `non-default args` line)",
        }
    }
}

/// Where the command line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandSource {
    /// The `non-default args: {…}` record.
    Args,
    /// A `vllm serve …` line of the report.
    Written,
    /// The engine's `Initializing a V1 LLM engine … with config:` line (its cache dtype, TP size, eager mode only).
    EngineConfig,
    /// Only the model was found.
    ModelOnly,
    /// Nothing: the caller's command line is kept.
    None,
}

/// The scenario a log describes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Built {
    #[serde(skip)]
    pub options: ScenarioOptions,
    pub command_line: String,
    pub command_from: CommandSource,
    /// The line the command line was read from.
    pub command_line_at: Option<usize>,
    pub missing: Vec<Field>,
    /// `non-default args` keys that did not become an option (`key (why)`).
    pub not_converted: Vec<String>,
    /// Facts found but not usable (a version qpath cannot model, a FlashInfer or CUDA it does not know), each naming
    /// the line.
    pub problems: Vec<String>,
    /// The log's vLLM version is outside the releases qpath models: the answer is not vLLM's.
    pub cannot_model: Option<String>,
}

/// The scenario `reading` describes: the found facts over `fallback` (the caller's GPU, release, … and command line).
pub fn build(reading: &LogReading, fallback: &ScenarioOptions, fallback_command: &str) -> Built {
    let mut options = fallback.clone();
    let mut missing = Vec::new();
    let mut problems = Vec::new();
    let mut cannot_model = None;
    match &reading.version {
        Some(v) => {
            if let Err(e) = options.set(OptionKey::Vllm, &v.value) {
                let text = format!("qpath cannot model this log's release: line {}: {}", v.line, e);
                problems.push(text.clone());
                cannot_model = Some(text);
            }
        }
        None => missing.push(Field::Version),
    }
    match &reading.gpu {
        Some(g) => {
            options.gpu = Some(g.value.1);
            options.compute_capability = None;
        }
        None => missing.push(Field::Gpu),
    }
    for (fact, key) in [(&reading.flashinfer, OptionKey::FlashInfer), (&reading.cuda, OptionKey::Cuda)] {
        if let Some(f) = fact {
            if let Err(e) = options.set(key, &f.value) {
                problems.push(format!("line {}: {e}; qpath uses its default", f.line));
            }
        }
    }
    let release = options.release_or_default();
    let env: Vec<(String, String)> = reading.env.iter().map(|f| f.value.clone()).collect();
    let mut not_converted = Vec::new();
    let (command_line, command_from, at) = if let Some(args) = &reading.args {
        let rebuilt = crate::serve::command_from_args(release, &args.value, &env);
        not_converted = rebuilt.not_converted;
        (rebuilt.command_line, CommandSource::Args, Some(args.line))
    } else if let Some(c) = &reading.command {
        let missing_env: Vec<String> = env
            .iter()
            .filter(|(k, _)| !c.value.contains(&format!("{k}=")))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let line = if missing_env.is_empty() {
            c.value.clone()
        } else {
            format!("{} {}", missing_env.join(" "), c.value)
        };
        (line, CommandSource::Written, Some(c.line))
    } else if let (Some(m), Some(e)) = (&reading.model, &reading.engine_config) {
        let mut args: Vec<(String, Value)> = vec![("model_tag".into(), Value::String(m.value.clone()))];
        for (k, v) in &e.value {
            match (k.as_str(), v.as_str()) {
                ("kv_cache_dtype", "auto") | ("tensor_parallel_size", "1") | ("enforce_eager", "False") => {}
                ("enforce_eager", "True") => args.push((k.clone(), Value::Bool(true))),
                _ => args.push((k.clone(), Value::String(v.clone()))),
            }
        }
        let rebuilt = crate::serve::command_from_args(release, &args, &env);
        (rebuilt.command_line, CommandSource::EngineConfig, Some(e.line))
    } else if let Some(m) = &reading.model {
        let args = [("model_tag".to_string(), Value::String(m.value.clone()))];
        let rebuilt = crate::serve::command_from_args(release, &args, &env);
        (rebuilt.command_line, CommandSource::ModelOnly, Some(m.line))
    } else {
        (fallback_command.to_string(), CommandSource::None, None)
    };
    if reading.model.is_none() && !matches!(command_from, CommandSource::Args | CommandSource::Written) {
        missing.push(Field::Model);
    }
    if matches!(
        command_from,
        CommandSource::ModelOnly | CommandSource::None | CommandSource::EngineConfig
    ) {
        missing.push(Field::Arguments);
    }
    Built {
        options,
        command_line,
        command_from,
        command_line_at: at,
        missing,
        not_converted,
        problems,
        cannot_model,
    }
}

/// How a predicted line and a pasted one compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Match {
    /// The same level, `file:line` and text.
    Same,
    /// The same statement (file and text, or file and the start of the text), printed differently.
    Different,
    /// qpath predicts it; the log does not have it.
    Predicted,
    /// The log has it (from a file qpath's answer reads); qpath does not predict it.
    Pasted,
}

/// One row of the line-by-line view.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Row {
    pub kind: Match,
    /// qpath's line (`INFO [cuda.py:482] text`, or `ValueError: text` for the error row).
    pub predicted: Option<String>,
    /// The log's line, and its number in the pasted text.
    pub pasted: Option<(usize, String)>,
    /// For [`Match::Different`]: the byte ranges, in `predicted` and in the pasted text, between their common start
    /// and common end (what differs).
    pub differs: Option<[(usize, usize); 2]>,
}

/// The line-by-line view of a report against a log.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Comparison {
    pub rows: Vec<Row>,
    /// The first error qpath predicts against the log's exception (`None` when neither has one).
    pub error: Option<Row>,
    /// vLLM's records of files no predicted line comes from (model loading, the server, …): not compared.
    pub other_records: usize,
}

impl Comparison {
    /// Rows of each kind: same, different, only predicted, only in the log (the error row included).
    pub fn counts(&self) -> [usize; 4] {
        let mut c = [0; 4];
        for r in self.rows.iter().chain(&self.error) {
            c[match r.kind {
                Match::Same => 0,
                Match::Different => 1,
                Match::Predicted => 2,
                Match::Pasted => 3,
            }] += 1;
        }
        c
    }
}

/// The files of vLLM's attention choice whose records are compared even when qpath predicts no line from them.
const ATTENTION_FILES: [&str; 5] = ["cuda.py", "selector.py", "flashinfer.py", "flash_attn.py", "triton_attn.py"];

/// The byte ranges between the common start and end of `a` and `b`, at character boundaries.
fn differing(a: &str, b: &str) -> [(usize, usize); 2] {
    let start = a
        .char_indices()
        .zip(b.chars())
        .take_while(|((_, x), y)| x == y)
        .last()
        .map_or(0, |((i, c), _)| i + c.len_utf8());
    let (ra, rb) = (&a[start..], &b[start..]);
    let end = ra
        .chars()
        .rev()
        .zip(rb.chars().rev())
        .take_while(|(x, y)| x == y)
        .map(|(c, _)| c.len_utf8())
        .sum::<usize>();
    [(start, a.len() - end), (start, b.len() - end)]
}

/// Whether two texts of one file are the same statement printed with other values: a common start of at least 16
/// characters or of half the shorter text.
fn same_statement(a: &str, b: &str) -> bool {
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    common >= 16 || (common * 2 >= a.chars().count().min(b.chars().count()) && common >= 4)
}

/// `report`'s log records (the engine's, then each group's, each once) and its first error, beside `reading`'s.
pub fn compare(reading: &LogReading, report: &Report) -> Comparison {
    let mut predicted: Vec<&crate::report::LogRecord> = Vec::new();
    for l in report
        .log_records
        .iter()
        .chain(report.groups.iter().flat_map(|g| g.log_records.iter()))
    {
        if !predicted
            .iter()
            .any(|p| p.file == l.file && p.line == l.line && p.text == l.text)
        {
            predicted.push(l);
        }
    }
    let base = |f: &'static str| f.rsplit('/').next().unwrap_or(f);
    let in_scope = |file: &str| predicted.iter().any(|p| base(p.file) == file) || ATTENTION_FILES.contains(&file);
    let mut used = vec![false; reading.records.len()];
    // Each predicted line's pasted record: first an exact text of its file, then the same statement.
    let mut pairs: Vec<(usize, Option<usize>)> = Vec::new();
    for (i, p) in predicted.iter().enumerate() {
        let file = base(p.file);
        let exact = reading
            .records
            .iter()
            .enumerate()
            .position(|(j, r)| !used[j] && r.file == file && r.text == p.text);
        let near =
            exact.or_else(|| {
                reading.records.iter().enumerate().position(|(j, r)| {
                    !used[j] && r.file == file && r.level == p.level.name() && same_statement(&r.text, &p.text)
                })
            });
        if let Some(j) = near {
            used[j] = true;
        }
        pairs.push((i, near));
    }
    let mut rows: Vec<(usize, usize, Row)> = Vec::new(); // (order key: pasted line or the previous one, tie, row)
    let mut other_records = 0;
    for (j, r) in reading.records.iter().enumerate() {
        if used[j] {
            continue;
        }
        if in_scope(&r.file) {
            rows.push((
                r.number,
                1,
                Row {
                    kind: Match::Pasted,
                    predicted: None,
                    pasted: Some((r.number, r.show())),
                    differs: None,
                },
            ));
        } else {
            other_records += 1;
        }
    }
    let mut last_line = 0;
    for (i, near) in pairs {
        let p = predicted[i];
        let shown = p.show();
        let row = match near {
            Some(j) => {
                let r = &reading.records[j];
                last_line = r.number;
                let pasted = r.show();
                if pasted == shown {
                    Row {
                        kind: Match::Same,
                        predicted: Some(shown),
                        pasted: Some((r.number, pasted)),
                        differs: None,
                    }
                } else {
                    Row {
                        kind: Match::Different,
                        differs: Some(differing(&shown, &pasted)),
                        predicted: Some(shown),
                        pasted: Some((r.number, pasted)),
                    }
                }
            }
            None => Row {
                kind: Match::Predicted,
                predicted: Some(shown),
                pasted: None,
                differs: None,
            },
        };
        rows.push((last_line, 0, row));
    }
    crate::order::sort_by(&mut rows, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
    Comparison {
        rows: rows.into_iter().map(|(_, _, r)| r).collect(),
        error: error_row(reading, report),
        other_records,
    }
}

/// qpath's first error (`Type: message`), or `None` for none or for qpath's own input error.
pub fn predicted_error(report: &Report) -> Option<String> {
    if let Some(e) = &report.error {
        return (e.kind != ScenarioErrorKind::InputError).then(|| format!("{}: {}", e.kind.name(), e.message));
    }
    if let Some(e) = report.cuda_graphs.as_ref().and_then(|c| c.error.as_ref()) {
        return Some(format!("{}: {}", e.kind.name(), e.message));
    }
    report.groups.iter().find_map(|g| g.error.as_ref()).map(|e| {
        if e.message.is_empty() {
            e.kind.name().to_string()
        } else {
            format!("{}: {}", e.kind.name(), e.message)
        }
    })
}

fn error_row(reading: &LogReading, report: &Report) -> Option<Row> {
    let predicted = predicted_error(report);
    let pasted = reading.exception.as_ref().map(|f| {
        let e = &f.value;
        let text = if e.message.is_empty() {
            e.kind.clone()
        } else {
            format!("{}: {}", e.kind, e.message)
        };
        (f.line, text)
    });
    // A multi-line message (pydantic's) is compared by its first line, which is all the exception line holds.
    let first = |s: &str| s.lines().next().unwrap_or("").to_string();
    match (predicted, pasted) {
        (None, None) => None,
        (Some(p), None) => Some(Row {
            kind: Match::Predicted,
            predicted: Some(p),
            pasted: None,
            differs: None,
        }),
        (None, Some(l)) => Some(Row {
            kind: Match::Pasted,
            predicted: None,
            pasted: Some(l),
            differs: None,
        }),
        (Some(p), Some((n, l))) => {
            let same = first(&p) == first(&l);
            Some(Row {
                kind: if same { Match::Same } else { Match::Different },
                differs: (!same).then(|| differing(&p, &l)),
                predicted: Some(p),
                pasted: Some((n, l)),
            })
        }
    }
}

/// What a log gave, as lines for the CLI's text and Markdown (`line N: what`).
pub fn found_lines(reading: &LogReading, built: &Built) -> Vec<String> {
    let mut out = Vec::new();
    let at = |line: usize| format!("line {line}");
    if let Some(v) = &reading.version {
        out.push(format!("vLLM {} ({})", echo(&v.value), at(v.line)));
    }
    if let Some(g) = &reading.gpu {
        out.push(format!("GPU {} = {} ({})", echo(&g.value.0), g.value.1.id, at(g.line)));
    }
    if let Some(m) = &reading.model {
        out.push(format!("model {} ({})", echo(&m.value), at(m.line)));
    }
    if let Some(f) = &reading.flashinfer {
        out.push(format!("flashinfer-python {} ({})", echo(&f.value), at(f.line)));
    }
    if let Some(c) = &reading.cuda {
        out.push(format!("CUDA of the torch build {} ({})", echo(&c.value), at(c.line)));
    }
    for e in &reading.env {
        out.push(format!("{}={} ({})", e.value.0, echo(&e.value.1), at(e.line)));
    }
    if let Some(e) = &reading.exception {
        out.push(format!("exception {} ({})", e.value.kind, at(e.line)));
    }
    let from = match (built.command_from, built.command_line_at) {
        (CommandSource::Args, Some(n)) => format!("the non-default args ({})", at(n)),
        (CommandSource::Written, Some(n)) => format!("the command written at {}", at(n)),
        (CommandSource::EngineConfig, Some(n)) => format!("the engine's config ({}: cache dtype, TP size, eager only)", at(n)),
        (CommandSource::ModelOnly, Some(n)) => format!("the model alone ({})", at(n)),
        _ => "nowhere: the log has no command line; qpath keeps the one given".to_string(),
    };
    out.push(format!("command line from {from}: {}", echo_words(&built.command_line)));
    out
}

/// The explanation as text: what was found, what is missing, the line-by-line rows.
pub fn comparison_text(reading: &LogReading, built: &Built, c: &Comparison, markdown: bool) -> String {
    let mut out = String::new();
    let bullet = if markdown { "- " } else { "  " };
    let _ = writeln!(
        out,
        "{}Read from the log ({} lines):",
        if markdown { "**" } else { "" },
        reading.lines
    );
    if markdown {
        out.pop();
        out.push_str("**\n");
    }
    for l in found_lines(reading, built) {
        let _ = writeln!(out, "{bullet}{l}");
    }
    for f in &built.missing {
        let _ = writeln!(
            out,
            "{bullet}not in the log: {}; qpath uses {}",
            f.name(),
            default_used(*f, built)
        );
    }
    for p in built.problems.iter().chain(built.not_converted.iter().map(|n| n as &String)) {
        let _ = writeln!(out, "{bullet}not used: {}", echo_words(p));
    }
    for s in &reading.skipped {
        let _ = writeln!(out, "{bullet}skipped: {s}");
    }
    let [same, diff, pred, pasted] = c.counts();
    let _ = writeln!(
        out,
        "\n{}Line by line: {same} same, {diff} different, {pred} only predicted, {pasted} only in the log{}",
        if markdown { "**" } else { "" },
        if markdown { "**" } else { "" }
    );
    let fence = markdown.then_some("```");
    if let Some(f) = fence {
        let _ = writeln!(out, "{f}");
    }
    for r in c.rows.iter().chain(&c.error) {
        let _ = match (r.kind, &r.predicted, &r.pasted) {
            (Match::Same, _, Some((n, l))) => writeln!(out, "= {}  (log line {n})", echo_words(l)),
            (Match::Different, Some(p), Some((n, l))) => {
                writeln!(out, "≠ qpath:       {}\n  log line {n}: {}", echo_words(p), echo_words(l))
            }
            (Match::Predicted, Some(p), _) => writeln!(out, "- qpath only:  {}", echo_words(p)),
            (Match::Pasted, _, Some((n, l))) => writeln!(out, "+ log line {n} only: {}", echo_words(l)),
            _ => Ok(()),
        };
    }
    if let Some(f) = fence {
        let _ = writeln!(out, "{f}");
    }
    if c.other_records > 0 {
        let _ = writeln!(
            out,
            "{} other records of vLLM's log are about what qpath does not predict (loading, the server, …).",
            c.other_records
        );
    }
    out
}

/// What qpath uses for a missing field.
fn default_used(f: Field, built: &Built) -> String {
    match f {
        Field::Version => format!("vLLM {} (pass --vllm)", built.options.release_or_default()),
        Field::Gpu => format!("{} (pass --gpu)", built.options.gpu_or_default().id),
        Field::Model => "the command line's".to_string(),
        Field::Arguments => format!("`{}`", echo_words(&built.command_line)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::resolve;

    const SEED_LOG: &str = "\
INFO 07-25 13:41:50 [api_utils.py:320] vLLM server version 0.25.0, serving model meta-llama/Llama-3.1-8B-Instruct
INFO 07-25 13:41:50 [api_utils.py:273] non-default args: {'model_tag': 'meta-llama/Llama-3.1-8B-Instruct', \
'kv_cache_dtype': 'fp8', 'model': 'meta-llama/Llama-3.1-8B-Instruct'}
GPU 0: NVIDIA L4
(EngineCore_DP0 pid=7) INFO 07-25 13:41:51 [core.py:114] Initializing a V1 LLM engine (v0.25.0) with config: \
model='meta-llama/Llama-3.1-8B-Instruct', kv_cache_dtype=fp8, enforce_eager=False
(EngineCore_DP0 pid=7) INFO 07-25 13:41:52 [gpu_model_runner.py:3000] Loading model
";

    #[test]
    fn a_log_becomes_its_scenario() {
        let r = read(SEED_LOG);
        assert_eq!(r.version.as_ref().map(|v| (v.value.as_str(), v.line)), Some(("0.25.0", 1)));
        assert_eq!(r.gpu.as_ref().map(|g| g.value.1.id), Some("l4"));
        assert_eq!(r.records.len(), 4);
        let b = build(&r, &ScenarioOptions::default(), "vllm serve x");
        assert_eq!(
            b.command_line,
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8"
        );
        assert_eq!(b.missing, []);
        let s = b.options.scenario(b.command_line.clone()).unwrap();
        let report = resolve(&s);
        let c = compare(&r, &report);
        assert_eq!(c.other_records, 4, "{c:?}");
        assert!(c.rows.iter().all(|row| row.kind == Match::Predicted), "{c:?}");
    }

    #[test]
    fn missing_fields_and_releases_qpath_cannot_model() {
        let r = read("INFO 01-01 00:00:00 [api_utils.py:1] vLLM server version 0.11.0, serving model m\n");
        let b = build(&r, &ScenarioOptions::default(), "vllm serve x");
        assert!(b.cannot_model.as_deref().is_some_and(|t| t.contains("0.11.0")), "{b:?}");
        assert_eq!(b.missing, [Field::Gpu, Field::Arguments]);
        let empty = build(&read(""), &ScenarioOptions::default(), "vllm serve x");
        assert_eq!(empty.missing, [Field::Version, Field::Gpu, Field::Model, Field::Arguments]);
        assert_eq!(empty.command_line, "vllm serve x");
    }

    #[test]
    fn differences_are_the_middle_between_common_ends() {
        assert_eq!(differing("abcXYdef", "abcZdef"), [(3, 5), (3, 4)]);
        assert_eq!(differing("same", "same"), [(4, 4), (4, 4)]);
        assert_eq!(differing("é1", "é2"), [(2, 3), (2, 3)]);
    }
}
