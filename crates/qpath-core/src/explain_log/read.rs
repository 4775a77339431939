//! Reading a pasted log: each line cleaned (ANSI escapes, the `(EngineCore_DP0 pid=…)` / `name  | ` prefixes), vLLM's
//! log records recognised (`LEVEL MM-DD HH:MM:SS [file.py:NNN] text`, `vllm/logger.py` `_FORMAT` in every release
//! 0.24.0–0.33.0; `fileinfo` is the file name, or a shortened path under `VLLM_LOGGING_LEVEL=DEBUG`), and the facts a
//! scenario needs picked out, each with the line it was read from.

use serde_json::Value;

use super::pyrepr;
use super::{Exception, Fact, LogReading, Record, Skipped, MAX_LINE_BYTES, MAX_LOG_BYTES, MAX_RECORDS};
use crate::gpu;

/// The levels of Python's logging that vLLM's format prints.
const LEVELS: [&str; 5] = ["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"];

/// `text` without ANSI escape sequences (CSI `ESC [ … final`, OSC `ESC ] … BEL/ST`, two-byte `ESC x`) and other
/// control characters but tab; returns how many sequences it dropped.
pub(super) fn strip_controls(text: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut dropped = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => {
                dropped += 1;
                match chars.next() {
                    Some('[') => {
                        for c in chars.by_ref() {
                            if ('@'..='~').contains(&c) {
                                break;
                            }
                        }
                    }
                    Some(']') => {
                        while let Some(c) = chars.next() {
                            if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                                break;
                            }
                        }
                    }
                    _ => {}
                }
            }
            '\t' => out.push(c),
            c if c.is_control() => dropped += 1,
            c => out.push(c),
        }
    }
    (out, dropped)
}

/// The line without the prefixes vLLM's processes and log collectors add: `(EngineCore_DP0 pid=123) `,
/// `(APIServer pid=1) `, `(Worker_TP0 pid=…) `, a compose service's `vllm-1  | `, a collector's
/// `2026-05-01 21:55:02.609 | `, journald's `Aug 25 14:58:34 host vllm[1]: `, an ISO timestamp.
pub(super) fn strip_prefixes(mut s: &str) -> &str {
    loop {
        let t = s.trim_start();
        if let Some(rest) = t.strip_prefix('(') {
            if let Some(close) = rest.find(") ") {
                // `pid=`, `rank=`, or a redacted `<HOST>d=1` (a log scrubber's): a short group with an `=`.
                if close <= 60 && rest[..close].contains('=') {
                    s = &rest[close + 2..];
                    continue;
                }
            }
        }
        if let Some(bar) = t.find(" | ") {
            // A compose service (`vllm-1  | `) or a collector's timestamp (`2026-05-01 21:55:02.609 | `).
            let head = t[..bar].trim_end();
            let service = head.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
            let stamp = head.starts_with(|c: char| c.is_ascii_digit())
                && head.chars().all(|c| c.is_ascii_digit() || " -:.,TZ+".contains(c));
            if !head.is_empty() && head.len() <= 40 && (service || stamp) {
                s = &t[bar + 3..];
                continue;
            }
        }
        // journald: `Aug 25 14:58:34 host vllm[17578]: `.
        if let Some(end) = t.get(..t.len().min(100)).and_then(|h| h.find("]: ")) {
            let head = &t[..end];
            const MONTHS: [&str; 12] = [
                "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
            ];
            if MONTHS.iter().any(|m| head.starts_with(m)) && head.contains('[') && head.as_bytes().get(3) == Some(&b' ') {
                s = &t[end + 3..];
                continue;
            }
        }
        // `2026-07-25T13:41:51.123456Z ` (docker logs -t, kubectl --timestamps).
        let b = t.as_bytes();
        if b.len() > 20 && b[4] == b'-' && b[7] == b'-' && b[10] == b'T' && b[..4].iter().all(u8::is_ascii_digit) {
            if let Some(sp) = t.find(' ') {
                s = &t[sp + 1..];
                continue;
            }
        }
        return t;
    }
}

/// `INFO 07-25 13:41:51 [core.py:114] text` (the date may carry milliseconds) → (level, file, line, text).
pub(super) fn parse_record(s: &str) -> Option<(&'static str, String, u32, String)> {
    let (level, rest) = s.split_once(' ')?;
    let level = LEVELS.iter().find(|l| **l == level)?;
    let rest = rest.trim_start();
    let open = rest.find('[')?;
    let stamp = &rest[..open];
    if stamp.len() > 30 || !stamp.trim().chars().all(|c| c.is_ascii_digit() || " -:.,".contains(c)) {
        return None;
    }
    let close = rest[open..]
        .find("] ")
        .map(|i| open + i)
        .or_else(|| rest.ends_with(']').then(|| rest.len() - 1))?;
    let (file, line) = rest[open + 1..close].rsplit_once(':')?;
    let line = line.parse().ok()?;
    let file = file.rsplit('/').next().unwrap_or(file).to_string();
    let text = rest.get(close + 2..).unwrap_or("").to_string();
    Some((level, file, line, text))
}

/// A traceback's exception line: `ValueError: text`, `AssertionError`, `torch.OutOfMemoryError: …`,
/// `pydantic_core._pydantic_core.ValidationError: 1 validation error …`.
pub(super) fn parse_exception(s: &str) -> Option<(String, String)> {
    let s = s.trim_end();
    let (name, message) = match s.split_once(": ") {
        Some((n, m)) => (n, m),
        None => (s.strip_suffix(':').unwrap_or(s), ""),
    };
    let base = name.rsplit('.').next().unwrap_or(name);
    let exception = base.ends_with("Error") || base.ends_with("Exception") || base == "SystemExit" || base == "KeyboardInterrupt";
    (exception
        && !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && base.chars().next().is_some_and(|c| c.is_ascii_uppercase()))
    .then(|| (base.to_string(), message.to_string()))
}

/// `File "/usr/lib/python3.12/site-packages/vllm/v1/attention/backends/flashinfer.py", line 612, in __init__` →
/// (`vllm/v1/attention/backends/flashinfer.py`, 612) for a frame in vLLM's or FlashInfer's package.
fn parse_frame(s: &str) -> Option<(String, u32)> {
    let rest = s.trim_start().strip_prefix("File \"")?;
    let (path, rest) = rest.split_once("\", line ")?;
    let line: u32 = rest.split(',').next()?.trim().parse().ok()?;
    let at = ["/vllm/", "/flashinfer/"].iter().filter_map(|p| path.rfind(p)).max()?;
    Some((path[at + 1..].to_string(), line))
}

/// The text between the first `prefix` and the end of `s`'s word (up to a blank, `,` or `)`).
fn word_after<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let at = s.find(prefix)? + prefix.len();
    let rest = &s[at..];
    let end = rest
        .find(|c: char| c.is_whitespace() || c == ',' || c == ')')
        .unwrap_or(rest.len());
    Some(rest[..end].trim_matches(|c| c == '\'' || c == '"')).filter(|w| !w.is_empty())
}

/// Whether `word` looks like a vLLM version (`0.25.1`, `0.28.1rc1.dev446+g798544433`).
fn is_version(word: &str) -> bool {
    let mut parts = word.split('.');
    parts
        .next()
        .is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        && parts.next().is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()))
}

fn set<T>(slot: &mut Option<Fact<T>>, value: T, line: usize) {
    if slot.is_none() {
        *slot = Some(Fact { value, line });
    }
}

/// The line [`decode`] puts where it left a log's middle out, followed by the number of lines left out.
const SKIPPED_LINES: &str = "\u{0}qpath: lines left out: ";

/// Bytes `data` as text: at most [`MAX_LOG_BYTES`] (the first and the last half of a longer log, cut at line
/// breaks), invalid UTF-8 replaced; a text with NUL bytes in its first KiB is binary and read as nothing.
pub fn decode(data: &[u8]) -> (String, Vec<Skipped>) {
    let mut skipped = Vec::new();
    if data.iter().take(1024).any(|b| *b == 0) {
        skipped.push(Skipped::Binary { bytes: data.len() });
        return (String::new(), skipped);
    }
    let text = if data.len() > MAX_LOG_BYTES {
        // Both halves and the marker line fit in MAX_LOG_BYTES, so `read` does not cut the text again.
        let half = (MAX_LOG_BYTES - 64) / 2;
        let head_end = data[..half].iter().rposition(|b| *b == b'\n').map_or(half, |i| i + 1);
        let tail_start = data.len() - half;
        let tail_start = data[tail_start..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(tail_start, |i| tail_start + i + 1);
        skipped.push(Skipped::Middle {
            bytes: tail_start - head_end,
        });
        // The lines left out, as one marker line, so the lines after keep their numbers in the file.
        let lines = data[head_end..tail_start].iter().filter(|b| **b == b'\n').count();
        let mut t = String::from_utf8_lossy(&data[..head_end]).into_owned();
        if !t.ends_with('\n') {
            t.push('\n');
        }
        t.push_str(&format!("{SKIPPED_LINES}{lines}\n"));
        t.push_str(&String::from_utf8_lossy(&data[tail_start..]));
        t
    } else {
        String::from_utf8_lossy(data).into_owned()
    };
    (text, skipped)
}

/// Reads `text` (see [`decode`] for bytes).
pub fn read(text: &str) -> LogReading {
    let mut r = LogReading::default();
    let text = if text.len() > MAX_LOG_BYTES {
        let (t, s) = decode(text.as_bytes());
        r.skipped.extend(s);
        std::borrow::Cow::Owned(t)
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let mut ansi = 0;
    let mut last_frame: Option<(String, u32)> = None;
    let mut command: Option<(String, usize)> = None;
    let mut in_command = false;
    // `vllm 0.26.0` in a report's prose: used only when no line of vLLM's own gives the version.
    let mut prose_version: Option<(String, usize)> = None;
    // Lines `decode` left out, less its marker line.
    let mut left_out: isize = 0;
    for (i, raw) in text.split('\n').enumerate() {
        if let Some(count) = raw.strip_prefix(SKIPPED_LINES) {
            left_out += count.parse::<isize>().unwrap_or(0) - 1;
            continue;
        }
        let n = (i as isize + 1 + left_out).max(1) as usize;
        r.lines = n;
        if raw.len() > MAX_LINE_BYTES {
            r.skipped.push(Skipped::LongLine {
                line: n,
                bytes: raw.len(),
            });
            continue;
        }
        let (clean, dropped) = strip_controls(raw);
        ansi += dropped;
        let s = strip_prefixes(&clean);
        if in_command {
            if let Some((c, _)) = &mut command {
                c.push(' ');
                c.push_str(s.trim().trim_end_matches('\\').trim_end());
            }
            in_command = s.trim_end().ends_with('\\');
            continue;
        }
        if let Some((level, file, line, text)) = parse_record(s) {
            // vLLM logs a traceback through its logger (`ERROR … [core.py:1330]   File "…", line 1430, in build`).
            if let Some(frame) = parse_frame(&text) {
                last_frame = Some(frame);
            } else if let Some((kind, message)) = parse_exception(&text) {
                note_exception(&mut r, kind, message, &mut last_frame, n);
            } else {
                facts_of_record(&mut r, &text, n);
            }
            if r.records.len() < MAX_RECORDS {
                r.records.push(Record {
                    number: n,
                    level,
                    file,
                    line,
                    text,
                });
            } else if r.records.len() == MAX_RECORDS {
                r.skipped.push(Skipped::Records { from_line: n });
                r.records.push(Record {
                    number: 0,
                    level: "",
                    file: String::new(),
                    line: 0,
                    text: String::new(),
                });
            }
            continue;
        }
        if let Some(frame) = parse_frame(s) {
            last_frame = Some(frame);
            continue;
        }
        if let Some((kind, message)) = parse_exception(s) {
            note_exception(&mut r, kind, message, &mut last_frame, n);
            continue;
        }
        if prose_version.is_none() {
            prose_version = version_in_prose(s).map(|v| (v, n));
        }
        facts_of_plain(&mut r, s, n, &mut command, &mut in_command);
    }
    if r.records.len() > MAX_RECORDS {
        r.records.pop();
    }
    if let Some((c, n)) = command {
        set(&mut r.command, c, n);
    }
    if let Some((v, n)) = prose_version {
        set(&mut r.version, v, n);
    }
    if ansi > 0 {
        r.skipped.push(Skipped::Controls { count: ansi });
    }
    r
}

/// The first exception line is the root cause (the API server's `RuntimeError: Engine core initialization failed`
/// comes after the engine's own).
fn note_exception(r: &mut LogReading, kind: String, message: String, last_frame: &mut Option<(String, u32)>, n: usize) {
    if r.exception.is_none() {
        r.exception = Some(Fact {
            value: Exception {
                kind,
                message,
                raised_at: last_frame.take(),
            },
            line: n,
        });
    }
}

/// `vllm 0.26.0`, `vLLM v0.27.1`, `vllm==0.25.1` in a sentence.
fn version_in_prose(s: &str) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("vllm") {
        let rest = &s[from + at + 4..];
        let rest = rest.strip_prefix("==").or_else(|| rest.strip_prefix(' ')).unwrap_or("");
        let word = rest
            .trim_start_matches('v')
            .split(|c: char| c.is_whitespace() || c == ',' || c == ')' || c == ';')
            .next()?;
        let word = word.trim_end_matches('.');
        if is_version(word) {
            return Some(word.to_string());
        }
        from += at + 4;
    }
    None
}

/// The facts in one of vLLM's log records.
fn facts_of_record(r: &mut LogReading, text: &str, n: usize) {
    // The start-up logo (api_utils.py / startup.py): `▄▄ ▄█ █     █     █ ▀▄▀ █  version 0.26.0`, `… █  model   m`.
    if text.contains('█') {
        if let Some(v) = word_after(text, "  version ") {
            set(&mut r.version, v.to_string(), n);
        } else if let Some(m) = word_after(text, "  model   ") {
            set(&mut r.model, m.to_string(), n);
        }
        return;
    }
    if let Some(dict) = text.strip_prefix("non-default args: ") {
        match pyrepr::read(dict) {
            Ok((Value::Object(map), _)) => {
                if let Some(Value::String(m)) = map.get("model_tag").or_else(|| map.get("model")) {
                    set(&mut r.model, m.clone(), n);
                }
                set(&mut r.args, map.into_iter().collect(), n);
            }
            Ok(_) => r.skipped.push(Skipped::Args {
                line: n,
                why: "it is not a dict".into(),
            }),
            Err(why) => r.skipped.push(Skipped::Args { line: n, why }),
        }
        return;
    }
    // `vLLM server version 0.25.1, serving model m` (api_utils.py / startup.py, without the logo).
    if let Some(rest) = text.strip_prefix("vLLM server version ") {
        if let Some((v, m)) = rest.split_once(", serving model ") {
            set(&mut r.version, v.trim().to_string(), n);
            set(&mut r.model, m.trim().to_string(), n);
        }
        return;
    }
    if let Some(rest) = text.strip_prefix("vLLM API server version ") {
        set(&mut r.version, rest.trim().to_string(), n);
        return;
    }
    // `Initializing a V1 LLM engine (v0.25.1) with config: model='m', …` (v1/engine/core.py).
    if let Some(rest) = text.strip_prefix("Initializing a V1 LLM engine (v") {
        if let Some((v, config)) = rest.split_once(") with config: ") {
            set(&mut r.version, v.to_string(), n);
            if let Some(m) = word_after(config, "model='") {
                set(&mut r.model, m.to_string(), n);
            }
            let mut engine = Vec::new();
            for key in ["kv_cache_dtype", "tensor_parallel_size", "enforce_eager"] {
                if let Some(v) = word_after(config, &format!(" {key}=")) {
                    engine.push((key.to_string(), v.to_string()));
                }
            }
            set(&mut r.engine_config, engine, n);
        }
        return;
    }
    facts_of_plain_text(r, text, n);
}

/// Facts any line may hold (a record's text or a plain line): the GPU's name, an environment assignment.
fn facts_of_plain_text(r: &mut LogReading, s: &str, n: usize) {
    if r.gpu.is_none() {
        if let Some(g) = gpu_in(s) {
            set(&mut r.gpu, g, n);
        }
    }
}

/// The device a line names: collect_env's `GPU 0: NVIDIA L4`, nvidia-smi's table row, a `device name` in a message.
fn gpu_in(s: &str) -> Option<(String, &'static gpu::Gpu)> {
    let t = s.trim().trim_matches('|').trim();
    let candidate = if let Some(rest) = t.strip_prefix("GPU ") {
        rest.split_once(": ")
            .map(|(_, name)| name.split(" (UUID").next().unwrap_or(name))
    } else if let Some(rest) = t.strip_prefix("GPU models and configuration: GPU ") {
        rest.split_once(": ").map(|(_, name)| name)
    } else if ["RTX ", "GeForce ", "DGX ", "Jetson "].iter().any(|w| t.contains(w)) && !t.contains("NVIDIA ") {
        // Prose: `RTX 5090 (sm_120), Qwen3-8B, vllm 0.26.0.` (the device's words are looked up among the line's).
        Some(t)
    } else if let Some(at) = t.find("NVIDIA ").or_else(|| t.find("Tesla ")) {
        // An nvidia-smi row (`|   0  NVIDIA H100 80GB HBM3          On  |`) or prose: the words up to a run of blanks.
        let rest = &t[at..];
        Some(rest.split("  ").next().unwrap_or(rest).trim_end_matches([',', '.', ')']))
    } else {
        None
    }?;
    let candidate = candidate.trim();
    let g = gpu::from_device_name(candidate)?;
    Some((candidate.to_string(), g))
}

/// Facts of a line that is not one of vLLM's records: collect_env's fields, an environment assignment, the command
/// line in prose.
fn facts_of_plain(r: &mut LogReading, s: &str, n: usize, command: &mut Option<(String, usize)>, in_command: &mut bool) {
    let t = s.trim();
    // collect_env: `vLLM Version                 : 0.25.1`, `CUDA used to build PyTorch   : 12.9`.
    if let Some((key, value)) = t.split_once(" : ").or_else(|| t.split_once(": ")) {
        let value = value.trim();
        match key.trim() {
            "vLLM Version" => set(
                &mut r.version,
                value
                    .split_whitespace()
                    .next()
                    .unwrap_or(value)
                    .trim_start_matches('v')
                    .to_string(),
                n,
            ),
            "CUDA used to build PyTorch" => set(&mut r.cuda, value.to_string(), n),
            _ => {}
        }
    }
    // pip list / pip freeze: `flashinfer-python==0.6.1`, `flashinfer-python        0.6.1`, `vllm==0.25.1`.
    for (name, slot) in [("flashinfer-python", 0), ("vllm", 1)] {
        let rest = t.strip_prefix("[pip3] ").or_else(|| t.strip_prefix("[conda] ")).unwrap_or(t);
        if let Some(v) = rest
            .strip_prefix(name)
            .and_then(|v| v.strip_prefix("==").or_else(|| v.strip_prefix(' ')))
        {
            let v = v.split_whitespace().next().unwrap_or("");
            if is_version(v) {
                if slot == 0 {
                    set(&mut r.flashinfer, v.to_string(), n);
                } else {
                    set(&mut r.version, v.to_string(), n);
                }
            }
        }
    }
    // A `non-default args` record whose prefix a scrubber or a copy broke (`[a<HOST>_utils.py:286]`).
    if let Some(at) = t.find("non-default args: {") {
        facts_of_record(r, &t[at..], n);
        return;
    }
    // `VLLM_ATTENTION_BACKEND=FLASHINFER`, `export VLLM_USE_V2_MODEL_RUNNER=1`.
    let assign = t.strip_prefix("export ").unwrap_or(t);
    if let Some((k, v)) = assign.split_once('=') {
        if (k.starts_with("VLLM_") || k.starts_with("FLASHINFER_"))
            && k.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && !v.contains(char::is_whitespace)
            && r.env.len() < 64
            && !r.env.iter().any(|f| f.value.0 == k)
        {
            r.env.push(Fact {
                value: (k.to_string(), v.trim_matches(|c| c == '"' || c == '\'').to_string()),
                line: n,
            });
        }
    }
    // The command line as a report writes it: `vllm serve m …`, `$ VLLM_X=1 vllm serve …`,
    // `python -m vllm.entrypoints.openai.api_server --model m …`, continued over lines ending in `\`.
    if command.is_none() {
        let t = t.trim_start_matches(['$', '#', '>', ' ']);
        let line = if let Some(at) = t.find("vllm serve ") {
            // After a shell prompt (`(.venv) user@host:~$ vllm serve …`).
            let start = t[..at].rfind("$ ").or_else(|| t[..at].rfind("# ")).map_or(0, |p| p + 2);
            let t = &t[start..];
            let at = at - start;
            let before = &t[..at];
            // Only environment assignments may come before it (a sentence mentioning `vllm serve` is not a command).
            before
                .split_whitespace()
                .all(|w| {
                    w.split_once('=')
                        .is_some_and(|(k, _)| k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                })
                .then(|| t.to_string())
        } else {
            t.find("vllm.entrypoints.openai.api_server").map(|at| {
                let rest = &t[at + "vllm.entrypoints.openai.api_server".len()..];
                format!("vllm serve{rest}")
            })
        };
        if let Some(line) = line {
            *in_command = line.trim_end().ends_with('\\');
            *command = Some((line.trim_end().trim_end_matches('\\').trim_end().to_string(), n));
        }
    }
    facts_of_plain_text(r, s, n);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_prefixes_and_escapes() {
        let line = "\u{1b}[1;36m(EngineCore_DP0 pid=1127182)\u{1b}[0;0m INFO 10-27 20:11:24 [cuda.py:482] Using X";
        let (clean, dropped) = strip_controls(line);
        assert_eq!(dropped, 2);
        let s = strip_prefixes(&clean);
        assert_eq!(
            parse_record(s),
            Some(("INFO", "cuda.py".to_string(), 482, "Using X".to_string()))
        );
        assert_eq!(
            parse_record(strip_prefixes(
                "vllm-1  | WARNING 07-25 13:41:51.123 [v1/attention/.../flashinfer.py:77] w"
            )),
            Some(("WARNING", "flashinfer.py".to_string(), 77, "w".to_string()))
        );
        // journald and a collector's timestamp before the process prefix.
        for line in [
            "Aug 25 14:58:34 sys0 vllm[17578]: (EngineCore pid=17578) INFO 08-25 14:58:34 [flash_attn.py:776] Using FlashAttention version 2",
            "2026-05-01 21:55:54.036 | (EngineCore pid=187) INFO 05-01 19:55:54 [flash_attn.py:776] Using FlashAttention version 2",
        ] {
            assert_eq!(
                parse_record(strip_prefixes(line)),
                Some(("INFO", "flash_attn.py".to_string(), 776, "Using FlashAttention version 2".to_string())),
                "{line}"
            );
        }
        assert_eq!(parse_record("INFO: Started server process [1]"), None);
        assert_eq!(parse_record("INFO 07-25 [x]"), None);
    }

    #[test]
    fn exceptions_and_frames() {
        assert_eq!(parse_exception("ValueError: bad"), Some(("ValueError".into(), "bad".into())));
        assert_eq!(
            parse_exception("AssertionError"),
            Some(("AssertionError".into(), String::new()))
        );
        assert_eq!(
            parse_exception("pydantic_core._pydantic_core.ValidationError: 1 validation error for VllmConfig"),
            Some(("ValidationError".into(), "1 validation error for VllmConfig".into()))
        );
        assert_eq!(parse_exception("During handling of the above exception: x"), None);
        assert_eq!(
            parse_exception("Error: something"),
            Some(("Error".into(), "something".into()))
        );
        assert_eq!(
            parse_frame(
                r#"  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/attention/backends/flashinfer.py", line 612, in __init__"#
            ),
            Some(("vllm/v1/attention/backends/flashinfer.py".into(), 612))
        );
    }
}
