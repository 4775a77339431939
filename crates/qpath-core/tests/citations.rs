//! Every cited line is the line of the statement it names. `data/source-lines.toml` gives each cite an anchor (the
//! start of the statement's stripped first line); `data/source-statements.tsv`, written from the released wheels by
//! `scripts/source-anchors.py --write`, holds the statement at every cited line. This test checks:
//!
//! - every cite x release line has its row in the TSV at the same line (so a line edited without regenerating fails),
//!   and that statement starts with the anchor; the TSV has no row the data does not cite;
//! - with `QPATH_VLLM_SRC` set to the unpacked sources (`scripts/fetch-vllm-source.sh DIR`), the anchor at the line of
//!   the real file (skipped when unset);
//! - a message audit: every error qpath attributes to a `file:line` matches the string literals of the statement at
//!   that line (f-string fields, `%s`-style and `.format` fields are wildcards), except the [`KNOWN`] ones.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use qpath_core::gpu::GPUS;
use qpath_core::release::Release;
use qpath_core::report::Report;
use qpath_core::resolve::{resolve, Hardware, Scenario};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data").join(name)
}

/// One cite x release of the cite files (`data/source-lines.toml`, `data/source-lines/*.toml`): (name, release key, file, line, anchor).
struct Cited {
    name: String,
    key: String,
    repo: String,
    file: String,
    line: u32,
    anchor: String,
}

/// `data/source-lines.toml` and every `data/source-lines/*.toml`, as build.rs reads them.
fn cite_tables() -> Vec<toml::Table> {
    let mut files = vec![data("source-lines.toml")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(data("source-lines"))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    more.retain(|p| p.extension().is_some_and(|x| x == "toml"));
    more.sort();
    files.extend(more);
    files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap().parse().unwrap())
        .collect()
}

fn cited() -> Vec<Cited> {
    let tables = cite_tables();
    let mut out = Vec::new();
    for (name, c) in tables.iter().flatten() {
        let s = |k: &str| c.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        let anchors = c.get("anchors").and_then(|v| v.as_table());
        for (key, line) in c["lines"].as_table().unwrap() {
            let line = line.as_integer().unwrap() as u32;
            if line == 0 {
                continue;
            }
            let anchor = anchors
                .and_then(|a| a.get(key))
                .and_then(|v| v.as_str())
                .map_or_else(|| s("anchor"), str::to_string);
            out.push(Cited {
                name: name.clone(),
                key: key.clone(),
                repo: s("repo"),
                file: s("file"),
                line,
                anchor,
            });
        }
    }
    out
}

/// `data/source-statements.tsv`: (name, release key) -> (file, line, statement).
fn statements() -> BTreeMap<(String, String), (String, u32, String)> {
    let text = std::fs::read_to_string(data("source-statements.tsv")).unwrap();
    let mut out = BTreeMap::new();
    for row in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = row.splitn(5, '\t').collect();
        assert_eq!(f.len(), 5, "data/source-statements.tsv: a row without 5 columns: {row:?}");
        let line = f[3].parse().unwrap_or_else(|_| panic!("bad line in {row:?}"));
        let old = out.insert((f[0].into(), f[1].into()), (f[2].into(), line, f[4].into()));
        assert!(old.is_none(), "data/source-statements.tsv: {} {} twice", f[0], f[1]);
    }
    out
}

#[test]
fn every_cited_line_is_the_statement_its_anchor_names() {
    let rows = statements();
    let cites = cited();
    assert!(cites.len() > 900, "only {} cite x release lines", cites.len());
    let mut bad = Vec::new();
    for c in &cites {
        match rows.get(&(c.name.clone(), c.key.clone())) {
            None => bad.push(format!("[{}] {}: no row in data/source-statements.tsv", c.name, c.key)),
            Some((file, line, stmt)) => {
                if (file, *line) != (&c.file, c.line) {
                    bad.push(format!(
                        "[{}] {}: cites {}:{}, the statements table has {file}:{line} (run scripts/source-anchors.py --write)",
                        c.name, c.key, c.file, c.line
                    ));
                } else if c.anchor.is_empty() || !stmt.starts_with(&c.anchor) {
                    bad.push(format!(
                        "[{}] {} {}:{}: {stmt:?} does not start with the anchor {:?}",
                        c.name, c.key, c.file, c.line, c.anchor
                    ));
                }
            }
        }
    }
    let cited: BTreeSet<(String, String)> = cites.iter().map(|c| (c.name.clone(), c.key.clone())).collect();
    for k in rows.keys().filter(|k| !cited.contains(*k)) {
        bad.push(format!("data/source-statements.tsv: {} {} is cited nowhere", k.0, k.1));
    }
    assert!(bad.is_empty(), "{} wrong citation(s):\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn anchors_hold_in_the_released_files() {
    let Some(src) = std::env::var_os("QPATH_VLLM_SRC") else {
        eprintln!("QPATH_VLLM_SRC unset: the released files are not read (scripts/fetch-vllm-source.sh DIR)");
        return;
    };
    let mut files: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
    let mut bad = Vec::new();
    for c in cited() {
        let path = Path::new(&src).join(format!("{}-{}", c.repo, c.key)).join(&c.file);
        let lines = files.entry(path.clone()).or_insert_with(|| {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            text.lines().map(str::to_string).collect()
        });
        let got = lines.get(c.line as usize - 1).map_or("", |l| l.trim());
        if !got.starts_with(&c.anchor) {
            bad.push(format!(
                "[{}] {} {}:{}: {got:?} does not start with {:?}",
                c.name, c.key, c.file, c.line, c.anchor
            ));
        }
    }
    assert!(bad.is_empty(), "{} wrong line(s):\n{}", bad.len(), bad.join("\n"));
}

/// Errors whose text qpath composes from several statements, or that no string literal at their line spells: the
/// message's start, and why.
const KNOWN: &[(&str, &str)] = &[];

/// A piece of a message template: text, or a field (f-string `{...}`, `%s`, `.format`'s `{}`) matching anything.
#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Text(char),
    Any,
}

/// The string literals of a Python statement, adjacent ones concatenated, each group as a template.
fn templates(stmt: &str) -> Vec<Vec<Piece>> {
    let chars: Vec<char> = stmt.chars().collect();
    let formats = stmt.contains(".format(");
    let (mut groups, mut cur, mut i) = (Vec::new(), Vec::new(), 0);
    let mut last_end = 0;
    while i < chars.len() {
        let Some((prefix, start)) = literal_start(&chars, i) else {
            i += 1;
            continue;
        };
        if !cur.is_empty() && chars[last_end..i].iter().any(|c| !c.is_whitespace()) {
            groups.push(std::mem::take(&mut cur));
        }
        let (pieces, end) = literal(&chars, start, &prefix, formats);
        cur.extend(pieces);
        last_end = end;
        i = end;
    }
    if !cur.is_empty() {
        groups.push(cur);
    }
    groups
}

/// A string literal starting at `i` (its prefix letters, lower-cased, and the index of its opening quote).
fn literal_start(chars: &[char], i: usize) -> Option<(String, usize)> {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    let mut j = i;
    while j < chars.len() && j - i < 2 && "rRbBfFuU".contains(chars[j]) {
        j += 1;
    }
    (j < chars.len() && (chars[j] == '"' || chars[j] == '\'')).then(|| (chars[i..j].iter().collect::<String>().to_lowercase(), j))
}

/// Reads the literal whose quote is at `q`; returns its template and the index after it.
fn literal(chars: &[char], q: usize, prefix: &str, formats: bool) -> (Vec<Piece>, usize) {
    let quote = chars[q];
    let triple = chars.get(q + 1) == Some(&quote) && chars.get(q + 2) == Some(&quote);
    let (fstr, raw) = (prefix.contains('f'), prefix.contains('r'));
    let mut i = q + if triple { 3 } else { 1 };
    let mut out = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        let closes = c == quote && (!triple || (chars.get(i + 1) == Some(&quote) && chars.get(i + 2) == Some(&quote)));
        if closes {
            return (out, i + if triple { 3 } else { 1 });
        }
        if c == '\\' && i + 1 < chars.len() {
            let e = chars[i + 1];
            let decoded = match e {
                _ if raw => None,
                'n' => Some('\n'),
                't' => Some('\t'),
                '\\' | '\'' | '"' => Some(e),
                _ => None,
            };
            match decoded {
                Some(d) => out.push(Piece::Text(d)),
                None => out.extend([Piece::Text('\\'), Piece::Text(e)]),
            }
            i += 2;
            continue;
        }
        if (fstr || formats) && (c == '{' || c == '}') {
            if chars.get(i + 1) == Some(&c) {
                out.push(Piece::Text(c));
                i += 2;
                continue;
            }
            if c == '{' {
                let mut depth = 0;
                while i < chars.len() {
                    depth += match chars[i] {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
                out.push(Piece::Any);
                continue;
            }
        }
        if !fstr && c == '%' {
            if chars.get(i + 1) == Some(&'%') {
                out.push(Piece::Text('%'));
                i += 2;
                continue;
            }
            let mut j = i + 1;
            while j < chars.len() && (chars[j].is_ascii_digit() || ".-+# ".contains(chars[j])) {
                j += 1;
            }
            if j < chars.len() && "sdrifxgeEc".contains(chars[j]) {
                out.push(Piece::Any);
                i = j + 1;
                continue;
            }
        }
        out.push(Piece::Text(c));
        i += 1;
    }
    (out, i)
}

/// Glob match of a whole message against a template.
fn matches(t: &[Piece], msg: &[char]) -> bool {
    let (mut ti, mut mi, mut star, mut mark) = (0, 0, None, 0);
    while mi < msg.len() {
        match t.get(ti) {
            Some(Piece::Text(c)) if *c == msg[mi] => (ti, mi) = (ti + 1, mi + 1),
            Some(Piece::Any) => (star, mark, ti) = (Some(ti), mi, ti + 1),
            _ => match star {
                Some(s) => (ti, mark, mi) = (s + 1, mark + 1, mark + 1),
                None => return false,
            },
        }
    }
    t[ti..].iter().all(|p| *p == Piece::Any)
}

/// An `assert` with no message: no comma outside brackets and string literals.
fn bare_assert(stmt: &str) -> bool {
    let Some(body) = stmt.strip_prefix("assert ") else {
        return false;
    };
    let (mut depth, mut quote) = (0i32, None::<char>);
    let mut prev = ' ';
    for c in body.chars() {
        match quote {
            Some(q) if c == q && prev != '\\' => quote = None,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => return false,
                _ => {}
            },
        }
        prev = c;
    }
    true
}

/// True when `message` is spelt by the statement: one group of adjacent literals, or all groups joined by fields.
fn spelt_by(stmt: &str, message: &str) -> bool {
    let msg: Vec<char> = message.split_whitespace().collect::<Vec<_>>().join(" ").chars().collect();
    let groups = templates(stmt);
    let joined: Vec<Piece> = groups.iter().flat_map(|g| g.iter().cloned().chain([Piece::Any])).collect();
    groups.iter().any(|g| matches(g, &msg)) || matches(&joined, &msg)
}

const MODELS: &[&str] = &[
    "meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER",
    "meta-llama/Llama-3.1-8B-Instruct",
    "openai/gpt-oss-20b --attention-backend FLASHINFER",
    "google/gemma-3-27b-it --attention-backend FLASHINFER",
    "Qwen/Qwen3-Next-80B-A3B-Instruct --attention-backend FLASHINFER",
    "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
    "google/gemma-3-27b-it",
    "openai/gpt-oss-20b",
    "meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --hf-overrides '{\"head_dim\": 256}'",
    "meta-llama/Llama-3.1-8B-Instruct --attention-backend TRITON_MLA",
    "meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --speculative-config '{\"method\": \"ngram\", \"num_speculative_tokens\": 3}'",
    "meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --dtype float16",
    "meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --speculative-config '{\"model\": \"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B\", \"num_speculative_tokens\": 3}'",
    "Qwen/Qwen3-8B --speculative-config '{\"model\": \"Qwen/Qwen3-0.6B\", \"num_speculative_tokens\": 2}'",
    "Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-config '{\"method\": \"qwen3_next_mtp\", \"num_speculative_tokens\": 2}'",
];

/// Commands whose flags vLLM itself rejects, run once per GPU and release.
const REJECTED: &[&str] = &[
    "meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --attention-config.backend FLASHINFER",
    "meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASH_ATTN --kv-cache-dtype nvfp4",
];

/// Issue 24's models, whole command lines run once per GPU and release: Qwen3.5's SSM dtype warning and MTP (the GDN
/// decode logs), Llama 4's chunked local attention (the CUDA-graph downgrade naming the wrapper class) and the hybrid
/// KV-cache manager's warnings and error.
const ONCE: &[&str] = &[
    "vllm serve Qwen/Qwen3.5-27B --mamba-ssm-cache-dtype bfloat16 --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 2}'",
    "vllm serve Qwen/Qwen3.5-35B-A3B --speculative-config '{\"method\": \"qwen3_5_mtp\", \"num_speculative_tokens\": 2}'",
    "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0 vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct",
    "vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct --disable-hybrid-kv-cache-manager --attention-backend FLASHINFER",
    "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0 vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct --no-disable-hybrid-kv-cache-manager",
];

/// The Llama-3.1-8B config.json with a checkpoint's `quantization_config`: a compressed-tensors FP8 KV scheme, an
/// int8 one, and a ModelOpt checkpoint with an algorithm vLLM does not know.
const CHECKPOINTS: &[&str] = &[
    r#""quantization_config": {"quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false, "symmetric": true}}"#,
    r#""quantization_config": {"quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "int", "strategy": "tensor", "symmetric": true}}"#,
    r#""quantization_config": {"quant_method": "modelopt", "kv_cache_quant_algo": "INT4_AWQ"}"#,
];

const LLAMA_31_8B: &str = include_str!("fixtures/llama-3.1-8b-instruct.config.json");

const FLAGS: &[&str] = &[
    "",
    "-ac.use_trtllm_attention true",
    "-ac.use_trtllm_attention false",
    "-ac.disable_flashinfer_q_quantization true",
    "--kv-cache-dtype-skip-layers 0",
    "-dcp 2",
    "-ac.disable_flashinfer_q_quantization true -ac.use_trtllm_attention true",
    "--block-size 8",
];

const CACHE_DTYPES: &[&str] = &["auto", "fp8", "fp8_e5m2", "nvfp4"];

/// What the corpus of scenarios produced, once each: errors with a `file:line` source (release, message, source), and
/// log records (release, level, `file:line`, text).
struct Corpus {
    errors: BTreeSet<(Release, String, String)>,
    logs: BTreeSet<(Release, &'static str, String, String)>,
    /// Reports whose `log_records` are not their `logs` (a record missing or out of order).
    unpaired: Vec<String>,
}

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut c = Corpus {
            errors: BTreeSet::new(),
            logs: BTreeSet::new(),
            unpaired: Vec::new(),
        };
        // One GPU per compute capability: the rules read the capability, not the board.
        let mut gpus: Vec<_> = GPUS.iter().collect();
        gpus.sort_by_key(|g| g.capability);
        gpus.dedup_by_key(|g| g.capability);
        for r in Release::ALL {
            for &gpu in &gpus {
                c.rejected_and_checkpoints(r, gpu);
                for model in MODELS {
                    for flags in FLAGS {
                        for dtype in CACHE_DTYPES {
                            let cmd = format!("vllm serve {model} --kv-cache-dtype {dtype} {flags}");
                            let report = resolve(&Scenario::new(Hardware::Gpu(gpu), r, cmd.clone()));
                            c.add(r, &cmd, &report);
                        }
                    }
                }
            }
        }
        c
    })
}

impl Corpus {
    fn rejected_and_checkpoints(&mut self, r: Release, gpu: &'static qpath_core::gpu::Gpu) {
        for cmd in REJECTED {
            let cmd = format!("vllm serve {cmd}");
            self.add(r, &cmd, &resolve(&Scenario::new(Hardware::Gpu(gpu), r, cmd.clone())));
        }
        for cmd in ONCE {
            self.add(r, cmd, &resolve(&Scenario::new(Hardware::Gpu(gpu), r, cmd.to_string())));
        }
        for extra in CHECKPOINTS {
            let i = LLAMA_31_8B.rfind('}').unwrap();
            let config = format!("{},\n  {extra}\n}}", LLAMA_31_8B[..i].trim_end());
            for dtype in CACHE_DTYPES {
                let cmd = format!("vllm serve m --attention-backend FLASHINFER --kv-cache-dtype {dtype}");
                let mut s = Scenario::new(Hardware::Gpu(gpu), r, cmd.clone());
                s.model_config = Some(config.clone());
                self.add(r, &format!("{cmd} (config.json {extra})"), &resolve(&s));
            }
        }
    }

    fn add(&mut self, r: Release, cmd: &str, report: &Report) {
        let scenario = report.error.iter().map(|e| (&e.message, &e.source));
        let groups = report
            .groups
            .iter()
            .flat_map(|g| [&g.error, &g.phase_errors.prefill, &g.phase_errors.decode])
            .filter_map(|e| e.as_ref())
            .map(|e| (&e.message, &e.source));
        for (msg, source) in scenario.chain(groups) {
            if let Some(s) = source {
                self.errors.insert((r, msg.clone(), s.clone()));
            }
        }
        let engine = std::iter::once((&report.logs, &report.log_records));
        for (logs, records) in engine.chain(report.groups.iter().map(|g| (&g.logs, &g.log_records))) {
            let texts: Vec<&String> = records.iter().map(|l| &l.text).collect();
            if texts != logs.iter().collect::<Vec<_>>() {
                self.unpaired.push(format!("{r} {cmd}: logs {logs:?}, records {texts:?}"));
            }
            for l in records {
                let at = format!("{}:{}", l.file, l.line);
                self.logs.insert((r, l.level.name(), at, l.text.clone()));
            }
        }
    }
}

/// (file, line, release key) -> statement; a vLLM file is keyed by its source release, FlashInfer's by its version.
fn by_line(rows: &BTreeMap<(String, String), (String, u32, String)>) -> BTreeMap<(String, u32, String), &String> {
    rows.iter()
        .map(|((_, key), (file, line, stmt))| ((file.clone(), *line, key.clone()), stmt))
        .collect()
}

/// The statement at `source` (`file:line`) in release `r`.
fn statement_at<'a>(by_line: &BTreeMap<(String, u32, String), &'a String>, r: Release, source: &str) -> Option<&'a String> {
    let (file, line) = source.rsplit_once(':')?;
    let line: u32 = line.parse().ok()?;
    let keys = [r.source_release().name(), r.flashinfer_pin().name()];
    keys.iter()
        .find_map(|k| by_line.get(&(file.to_string(), line, k.to_string())).copied())
}

/// A `logger.warning(msg)` logs a message built before it: the last cited `msg = (` within 30 lines followed by one
/// of the cited `msg += …` branches after it. Other statements are their own message.
fn messages_of(by_line: &BTreeMap<(String, u32, String), &String>, r: Release, source: &str, stmt: &str) -> Vec<String> {
    if stmt != "logger.warning(msg)" {
        return vec![stmt.to_string()];
    }
    let Some((file, line)) = source.rsplit_once(':') else {
        return vec![stmt.to_string()];
    };
    let line: u32 = line.parse().unwrap_or(0);
    let key = r.source_release().name().to_string();
    let before: Vec<&String> = (line.saturating_sub(30)..line)
        .filter_map(|l| by_line.get(&(file.to_string(), l, key.clone())).copied())
        .filter(|s| s.starts_with("msg = (") || s.starts_with("msg += "))
        .collect();
    let Some(start) = before.iter().rposition(|s| s.starts_with("msg = (")) else {
        return vec![stmt.to_string()];
    };
    let base = before[start];
    before[start + 1..].iter().map(|suffix| format!("{base} {suffix}")).collect()
}

#[test]
fn log_records_are_the_cited_logger_calls() {
    let rows = statements();
    let by_line = by_line(&rows);
    let c = corpus();
    assert!(
        c.unpaired.is_empty(),
        "log_records differ from logs:\n{}",
        c.unpaired.join("\n")
    );
    let lines: BTreeSet<&String> = c.logs.iter().map(|(_, _, at, _)| at).collect();
    eprintln!("{} distinct log records at {} source lines", c.logs.len(), lines.len());
    assert!(c.logs.len() > 50, "only {} log records in the corpus", c.logs.len());
    let mut bad = Vec::new();
    for (r, level, at, text) in &c.logs {
        let Some(stmt) = statement_at(&by_line, *r, at) else {
            bad.push(format!("{r}: {at}: no cited statement there (log {text:?})"));
            continue;
        };
        let call = match *level {
            "INFO" => "logger.info",
            "WARNING" => "logger.warning",
            _ => "logger.debug",
        };
        if !stmt.starts_with(call) {
            bad.push(format!("{r}: {level} {at}: {stmt:?} is not a {call} call"));
        } else if !messages_of(&by_line, *r, at, stmt).iter().any(|m| spelt_by(m, text)) {
            bad.push(format!("{r}: {at}: {text:?} is not spelt by {stmt:?}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{} log record(s) differ from the cited call:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn error_messages_are_the_cited_statements_text() {
    let rows = statements();
    let by_line = by_line(&rows);
    let errors = &corpus().errors;
    assert!(errors.len() > 20, "only {} cited errors in the corpus", errors.len());
    let sources: BTreeSet<&String> = errors.iter().map(|(_, _, s)| s).collect();
    eprintln!("{} distinct cited errors at {} source lines", errors.len(), sources.len());
    let mut bad = Vec::new();
    let mut known_seen = BTreeSet::new();
    for (r, msg, source) in errors {
        let msg = &pydantic_inner(msg).to_string();
        if let Some((start, _)) = KNOWN.iter().find(|(start, _)| msg.starts_with(start)) {
            known_seen.insert(*start);
            continue;
        }
        match statement_at(&by_line, *r, source) {
            None => bad.push(format!("{r}: {source}: no cited statement there (message {msg:?})")),
            // A bare `assert` raises an AssertionError with no message.
            Some(stmt) if msg.is_empty() => {
                if !bare_assert(stmt) {
                    bad.push(format!("{r}: {source}: an empty message, but {stmt:?} is not a bare assert"))
                }
            }
            // FlashInfer's `getattr(torch, dtype)` on a dtype string: torch's module `__getattr__` raises (its file is
            // not one qpath cites, so the line is FlashInfer's call).
            Some(stmt) if stmt.contains("getattr(torch, ") => {
                if !(msg.starts_with("module 'torch' has no attribute '") && msg.ends_with('\'')) {
                    bad.push(format!("{r}: {source}: {msg:?} is not torch's AttributeError text"))
                }
            }
            Some(stmt) if !(stmt.starts_with("raise ") || stmt.starts_with("assert ")) => {
                bad.push(format!("{r}: {source}: the error cites {stmt:?}, not a raise or assert"))
            }
            Some(stmt) if !spelt_by(stmt, msg) => bad.push(format!("{r}: {source}: {msg:?} is not spelt by {stmt:?}")),
            Some(_) => {}
        }
    }
    let unused: Vec<&str> = KNOWN.iter().map(|(s, _)| *s).filter(|s| !known_seen.contains(s)).collect();
    assert!(unused.is_empty(), "KNOWN entries no scenario produces any more: {unused:?}");
    assert!(
        bad.is_empty(),
        "{} message(s) differ from the cited source:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// A `ValueError` raised inside a pydantic config dataclass reaches the user as pydantic's `ValidationError`, whose
/// text wraps the raise statement's message ("1 validation error for VllmConfig\n  Value error, <message> [type=
/// value_error, …]"): the statement spells the inner message.
fn pydantic_inner(msg: &str) -> &str {
    const START: &str = "\n  Value error, ";
    const END: &str = " [type=value_error, ";
    match (msg.find(START), msg.rfind(END)) {
        (Some(a), Some(b)) if msg.contains(" validation error for ") && a + START.len() <= b => &msg[a + START.len()..b],
        _ => msg,
    }
}

#[test]
fn templates_read_python_literals() {
    assert_eq!(
        pydantic_inner("1 validation error for VllmConfig\n  Value error, Total (3). [type=value_error, input_value=x]"),
        "Total (3)."
    );
    let stmt = r#"raise ValueError( f"Selected backend {selected_backend} is not valid for " f"this configuration. Reason: {invalid_reasons}" )"#;
    assert!(spelt_by(
        stmt,
        "Selected backend FLASHINFER is not valid for this configuration. Reason: ['x']"
    ));
    assert!(!spelt_by(stmt, "Selected backend FLASHINFER is valid"));
    let log =
        r#"logger.info_once( "Using %s attention backend out of potential backends: %s.", backend, tuple(b), scope="local", )"#;
    assert!(spelt_by(
        log,
        "Using FLASHINFER attention backend out of potential backends: ['FLASHINFER']."
    ));
    assert!(spelt_by(r#"raise ValueError("{} and {}".format(a, b))"#, "x and y"));
    assert!(spelt_by(r#"assert x, "100%% of {y}""#, "100% of {y}"));
    assert!(!spelt_by(r#"raise ValueError("a" + b + "c")"#, "ab"));
}

/// The lines users saw in real logs and tracebacks (issue 12): `[cuda.py:482]` (0.26.0, 0.27.x), `[cuda.py:526]`
/// (0.31.0), the forced-backend error at cuda.py:411 (0.25.1), the SM90 sliding-window error at flashinfer.py:757
/// (0.25.0).
#[test]
fn the_lines_real_logs_print() {
    use qpath_core::release::Release::*;
    let run = |gpu: &str, r: Release, args: &str| {
        resolve(&Scenario::new(Hardware::parse(gpu).unwrap(), r, format!("vllm serve {args}")))
    };
    for (r, line) in [(V0_26_0, 482), (V0_27_0, 482), (V0_27_1, 482), (V0_31_0, 526)] {
        let report = run("h100-sxm", r, "meta-llama/Llama-3.1-8B-Instruct");
        let first = report.log_records[0].show();
        assert!(
            first.starts_with(&format!("INFO [cuda.py:{line}] Using FLASH_ATTN attention backend")),
            "{r}: {first}"
        );
    }
    let forced = run(
        "v100",
        V0_25_1,
        "meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER",
    );
    let e = forced.error.expect("FlashInfer is not valid on a V100");
    assert_eq!(e.source.as_deref(), Some("vllm/platforms/cuda.py:411"), "{}", e.message);
    let gemma = run("h100-sxm", V0_25_0, "google/gemma-3-27b-it --attention-backend FLASHINFER");
    let sources: Vec<_> = gemma.groups.iter().filter_map(|g| g.error.as_ref()?.source.clone()).collect();
    assert!(
        sources.contains(&"vllm/v1/attention/backends/flashinfer.py:757".to_string()),
        "{sources:?}"
    );
}

/// Every statement a per-backend cite file (`data/source-lines/*.toml`) defines is cited by a rule or a test: the
/// files hold what the rules restate, not research left over (the notes in `docs/source-notes/` keep the rest).
#[test]
fn every_per_backend_cite_is_used() {
    let mut code = String::new();
    fn read_rs(dir: &Path, out: &mut String) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                read_rs(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push_str(&std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    read_rs(&root.join("src"), &mut code);
    read_rs(&root.join("tests"), &mut code);
    read_rs(&root.join("../../src"), &mut code);
    let mut unused = Vec::new();
    for e in std::fs::read_dir(data("source-lines")).unwrap() {
        let p = e.unwrap().path();
        let table: toml::Table = std::fs::read_to_string(&p).unwrap().parse().unwrap();
        for name in table.keys() {
            let used = code.match_indices(name.as_str()).any(|(at, _)| {
                let before = code[..at].chars().next_back();
                let after = code[at + name.len()..].chars().next();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
                !word(before) && !word(after)
            });
            if !used {
                unused.push(format!("{} [{name}]", p.file_name().unwrap().to_string_lossy()));
            }
        }
    }
    assert!(unused.is_empty(), "cites no rule uses:\n{}", unused.join("\n"));
}
