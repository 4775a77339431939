//! `qpath explain-log FILE|-`: a vLLM log read into its scenario ([`qpath_core::explain_log`]), resolved, and set
//! beside qpath's answer line by line. qpath's options fill what the log does not say and override what it says; the
//! command after `--` is used when the log has no command line. The exit code is the scenario's (0 serves, 1 fails);
//! 2 when the input is not a log qpath can read or its release is one qpath cannot model.

use std::io::Read;

use qpath_core::explain_log::{self, CommandSource};
use qpath_core::render;

use crate::{
    exit, line::command_line, option_message, pretty, resolve_with, usage_answer, verdict, with_model_config, Answer, Args,
    Format, UsageError,
};

/// The most bytes read from a file or standard input (a longer input is read up to here: its start is the start-up,
/// and the log reader keeps the first and last 16 MiB of what it gets).
pub const MAX_READ_BYTES: u64 = 128 << 20;

fn input_error(message: String) -> UsageError {
    UsageError {
        message,
        show_usage: false,
    }
}

/// The bytes of `path` (`-`: standard input), at most [`MAX_READ_BYTES`]; and whether there was more. A path must
/// be a regular file (a FIFO or a device is refused before it is opened: pipe it to `-` instead).
fn read_input(path: &str) -> Result<(Vec<u8>, bool), UsageError> {
    if path == "-" {
        let mut data = Vec::new();
        std::io::stdin()
            .lock()
            .take(MAX_READ_BYTES + 1)
            .read_to_end(&mut data)
            .map_err(|e| input_error(format!("cannot read the log from standard input: {e}")))?;
        let more = data.len() as u64 > MAX_READ_BYTES;
        data.truncate(MAX_READ_BYTES as usize);
        return Ok((data, more));
    }
    crate::read::read_prefix(std::path::Path::new(path), MAX_READ_BYTES, None).map_err(|e| {
        let hint = match e {
            crate::read::Problem::NotRegular { kind, .. } if kind != "a directory" => {
                "; to read a stream, pipe it in: `… | qpath explain-log -`".to_string()
            }
            _ => String::new(),
        };
        input_error(format!("cannot read the log `{path}`: {e}{hint}"))
    })
}

pub(crate) fn explain_answer(a: &Args, json: bool, env: &dyn Fn(&str) -> Option<String>) -> Answer {
    match explain(a, env) {
        Ok(answer) => answer,
        Err(e) => usage_answer(&e, json),
    }
}

fn explain(a: &Args, env: &dyn Fn(&str) -> Option<String>) -> Result<Answer, UsageError> {
    if let Some(e) = crate::width::refuse_brief(a) {
        return Err(e);
    }
    let path = a.log.as_deref().unwrap_or("-");
    let (data, more) = read_input(path)?;
    let (text, mut skipped) = explain_log::decode(&data);
    let mut reading = explain_log::read(&text);
    if more {
        skipped.push(explain_log::Skipped::Rest { read: MAX_READ_BYTES });
    }
    if let Some(explain_log::Skipped::Binary { bytes }) = skipped.first() {
        return Err(input_error(format!(
            "`{path}` is binary ({bytes} bytes, NUL bytes in its first KiB), not a vLLM log"
        )));
    }
    skipped.append(&mut reading.skipped);
    reading.skipped = skipped;
    let found_anything = !reading.records.is_empty()
        || reading.version.is_some()
        || reading.args.is_some()
        || reading.command.is_some()
        || reading.exception.is_some();
    if !found_anything {
        let why: Vec<String> = reading.skipped.iter().map(|s| format!("; skipped {s}")).collect();
        return Err(input_error(format!(
            "`{path}` does not read as a vLLM log: none of its {} lines is a vLLM log record, a version, a \
             `non-default args` line, a `vllm serve` command or an exception{}",
            reading.lines,
            why.join("")
        )));
    }
    let fallback_command = command_line(&a.command);
    let mut built = explain_log::build(&reading, &a.options, &fallback_command);
    // What the user passes overrides the log (a correction), and fills what it lacks.
    for key in &a.given {
        built.options.take(&a.options, *key);
    }
    built.missing.retain(|f| match f {
        explain_log::Field::Version => !a.given.contains(&qpath_core::options::OptionKey::Vllm),
        explain_log::Field::Gpu => !a.given.iter().any(|k| {
            matches!(
                k,
                qpath_core::options::OptionKey::Gpu | qpath_core::options::OptionKey::ComputeCapability
            )
        }),
        _ => true,
    });
    if a.given.contains(&qpath_core::options::OptionKey::Vllm) {
        built.cannot_model = None;
    }
    let json = a.format == Some(Format::Json);
    let markdown = a.format == Some(Format::Markdown);
    if let Some(why) = &built.cannot_model {
        let text = if json {
            pretty(&serde_json::json!({"reading": reading, "scenario": built, "report": null, "comparison": null}))
        } else {
            format!(
                "{}\n{why}: pass --vllm to explain it as a release qpath models\n",
                explain_log::comparison_text(&reading, &built, &Default::default(), markdown).trim_end()
            )
        };
        return Ok(Answer::out(text, exit::CANNOT));
    }
    if built.command_from == CommandSource::None && a.command.is_empty() {
        return Err(input_error(format!(
            "`{path}` names no model and has no `non-default args` line or `vllm serve` command: give the command line \
             after `--` (qpath explain-log {path} -- vllm serve MODEL …)"
        )));
    }
    let scenario = built
        .options
        .scenario(built.command_line.clone())
        .map_err(|e| input_error(option_message(&e)))?;
    let (scenario, found) = with_model_config(scenario, (a.model_config.as_deref(), a.draft_model_config.as_deref()), env)?;
    let report = resolve_with(&scenario, found.as_ref());
    let comparison = explain_log::compare(&reading, &report);
    let v = verdict(&report);
    let text = if a.check {
        crate::check::line(&v, &crate::check::Assumed::of_report(&report), json)
    } else if json {
        pretty(&serde_json::json!({"reading": reading, "scenario": built, "report": report, "comparison": comparison}))
    } else {
        let answer = if markdown {
            render::markdown(&report, &scenario.command_line, None)
        } else {
            render::text_in(&report, a.text_layout())
        };
        let lines = explain_log::comparison_text(&reading, &built, &comparison, markdown);
        let (read_part, rows_part) = lines.split_once("\n\n").unwrap_or((&lines, ""));
        let rows_part = if report.verdict == qpath_core::report::Verdict::CannotModel {
            "No line by line: qpath predicts no lines for a scenario it cannot model (above).\n"
        } else {
            rows_part
        };
        let fit = |t: &str| {
            if markdown {
                t.to_string()
            } else {
                crate::width::fit_lines(t, a.text_layout())
            }
        };
        format!("{}\n\n{}\n\n{}", fit(read_part), answer.trim_end(), fit(rows_part))
    };
    Ok(Answer::out(text, v.code()))
}

#[cfg(test)]
mod tests {
    use crate::{exit, run};

    fn logs() -> String {
        format!("{}/../qpath-core/tests/fixtures/logs", env!("CARGO_MANIFEST_DIR"))
    }

    /// `qpath WORDS…`, an explain-log's text unwrapped (`--wide`: these tests read its lines whole).
    fn run_words(words: &[&str]) -> crate::Answer {
        let mut argv: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        if argv.first().is_some_and(|w| w == "explain-log") {
            argv.insert(1, "--wide".into());
        }
        run(&argv)
    }

    /// A file of the test's own, removed after.
    struct Temp(std::path::PathBuf);

    impl Temp {
        fn new(name: &str, data: &[u8]) -> Temp {
            let p = std::env::temp_dir().join(format!("qpath-explain-{}-{name}", std::process::id()));
            std::fs::write(&p, data).unwrap();
            Temp(p)
        }
        fn path(&self) -> &str {
            self.0.to_str().unwrap()
        }
    }

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
        }
    }

    #[test]
    fn a_real_log_is_explained_line_by_line_with_the_scenarios_exit_code() {
        let f = format!("{}/rtx5090-qwen3-8b-fp8-flashinfer-jit.log", logs());
        let a = run_words(&["explain-log", &f]);
        assert_eq!(a.code, exit::SERVES, "{a:?}");
        assert!(
            a.stdout
                .starts_with("Read from the log (30 lines):\n  vLLM 0.26.0 (line 4)\n"),
            "{}",
            a.stdout
        );
        assert!(
            a.stdout.contains("vLLM 0.26.0 (FlashInfer 0.6.14) on GeForce RTX 5090"),
            "{}",
            a.stdout
        );
        assert!(
            a.stdout.contains("= INFO [cuda.py:482] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN'].  (log line 18)"),
            "{}",
            a.stdout
        );
        let md = run_words(&["explain-log", "--format", "md", &f]);
        assert!(
            md.stdout
                .starts_with("**Read from the log (30 lines):**\n- vLLM 0.26.0 (line 4)\n"),
            "{}",
            md.stdout
        );
        let json: serde_json::Value = serde_json::from_str(&run_words(&["explain-log", "--format", "json", &f]).stdout).unwrap();
        assert_eq!(
            json["scenario"]["command_line"],
            "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8"
        );
        assert_eq!(json["reading"]["gpu"]["value"][1], "rtx-5090");
        assert_eq!(json["report"]["vllm"], "0.26.0");
        assert_eq!(json["comparison"]["rows"][1]["kind"], "same");
        // A flashinfer-python no release pins, passed over the log, is kept as given (the note names it).
        let json: serde_json::Value =
            serde_json::from_str(&run_words(&["explain-log", "--flashinfer", "0.6.15.post1", "--format", "json", &f]).stdout)
                .unwrap();
        assert_eq!(json["report"]["flashinfer"], "0.6.14");
        assert!(json["report"]["notes"][0]
            .as_str()
            .unwrap()
            .starts_with("flashinfer-python 0.6.15.post1 is not a release"));
        // What the user passes overrides the log: at 0.25.0-prefix the L4-era rules apply, and the release is said.
        let over = run_words(&["explain-log", "--vllm", "0.25.0", "--check", &f]);
        assert_eq!(over.code, exit::SERVES, "{over:?}");
        // --check names what it assumed, as the other commands' lines do
        assert!(
            over.stdout.contains("; assumed: ") && over.stdout.contains("vLLM 0.25.0, FlashInfer 0.6.13"),
            "{over:?}"
        );
        // A log without a GPU or version says so and uses qpath's defaults; the user's options fill them.
        let t = format!("{}/rtx5090-qwen3-8b-fp8-triton-0271.log", logs());
        let a = run_words(&["explain-log", &t]);
        assert!(
            a.stdout.contains("not in the log: the GPU; qpath uses h100-sxm (pass --gpu)"),
            "{}",
            a.stdout
        );
        let a = run_words(&["explain-log", "--gpu", "rtx-5090", "--vllm", "0.27.1", &t]);
        assert!(!a.stdout.contains("not in the log"), "{}", a.stdout);
        assert!(
            a.stdout
                .contains("Line by line: 2 same, 0 different, 0 only predicted, 0 only in the log"),
            "{}",
            a.stdout
        );
    }

    #[test]
    fn logs_qpath_cannot_model_or_read_exit_2_and_say_why() {
        let q = format!("{}/qwen36-27b-nvfp4kv-flashinfer-0251-cmd.log", logs());
        let a = run_words(&["explain-log", &q]);
        assert_eq!(a.code, exit::CANNOT);
        assert!(a.stdout.contains("No line by line: qpath predicts no lines"), "{}", a.stdout);
        let old = Temp::new(
            "old.log",
            b"INFO 10-27 20:11:24 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: model='m'\n",
        );
        let a = run_words(&["explain-log", old.path()]);
        assert_eq!(a.code, exit::CANNOT);
        assert!(
            a.stdout
                .contains("qpath cannot model this log's release: line 1: vllm `0.11.0` is before"),
            "{}",
            a.stdout
        );
        let h = format!("{}/h100-llama31-8b-fp8-flashinfer-jit-0110.log", logs());
        let a = run_words(&["explain-log", &h]);
        assert_eq!(a.code, exit::CANNOT);
        assert!(
            a.stderr.contains("names no model and has no `non-default args` line"),
            "{}",
            a.stderr
        );
        // With the command given after `--`, it is explained.
        let a = run_words(&[
            "explain-log",
            "--vllm",
            "0.24.0",
            "--gpu",
            "h100-sxm",
            &h,
            "--",
            "vllm",
            "serve",
            "meta-llama/Llama-3.1-8B-Instruct",
        ]);
        assert_eq!(a.code, exit::SERVES, "{a:?}");
        assert!(a.stdout.contains("CUDA of the torch build 12.8 (line 17)"), "{}", a.stdout);
    }

    /// Empty, binary, missing, a directory, huge and hostile input: a message naming the input, never a hang or a
    /// panic; what the reader skipped is named.
    #[test]
    fn bad_input_is_named() {
        let empty = Temp::new("empty.log", b"");
        let a = run_words(&["explain-log", empty.path()]);
        assert_eq!(a.code, exit::CANNOT);
        assert!(
            a.stderr.contains("does not read as a vLLM log: none of its 1 lines"),
            "{}",
            a.stderr
        );
        let binary = Temp::new("bin.log", &[0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0]);
        let a = run_words(&["explain-log", binary.path()]);
        assert_eq!(a.code, exit::CANNOT);
        assert!(
            a.stderr
                .contains("is binary (10 bytes, NUL bytes in its first KiB), not a vLLM log"),
            "{}",
            a.stderr
        );
        let a = run_words(&["explain-log", "/no/such/file.log"]);
        assert!(a.stderr.contains("cannot read the log `/no/such/file.log`"), "{}", a.stderr);
        let a = run_words(&["explain-log", "/"]);
        assert!(
            a.stderr.contains("cannot read the log `/`: a directory, not a regular file"),
            "{}",
            a.stderr
        );
        // Escapes, markup, a 300 KiB line and invalid UTF-8 around a real record.
        let mut hostile = b"\x1b[1;36m(EngineCore_DP0 pid=1)\x1b[0m INFO 08-21 05:41:30 [api_utils.py:273] non-default args: {'model_tag': 'Qwen/Qwen3-8B', 'kv_cache_dtype': 'fp8'}\n<script>alert(1)</script>\n\xff\xfe\n".to_vec();
        hostile.extend(std::iter::repeat_n(b'x', 300 << 10));
        hostile.extend(b"\nINFO 08-21 05:41:38 [cuda.py:482] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN'].\n");
        let h = Temp::new("hostile.log", &hostile);
        let a = run_words(&["explain-log", "--gpu", "l4", "--vllm", "0.26.0", h.path()]);
        assert_eq!(a.code, exit::SERVES, "{a:?}");
        assert!(
            a.stdout.contains("skipped: line 4: 307200 bytes long (over 256 KiB)"),
            "{}",
            a.stdout
        );
        assert!(
            a.stdout
                .contains("skipped: 2 terminal escape sequences and control characters"),
            "{}",
            a.stdout
        );
        assert!(a
            .stdout
            .contains("command line from the non-default args (line 1): vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8"));
        // 40 MB: the first and last 16 MiB are read, the middle named.
        let mut big = b"INFO 08-21 05:41:30 [api_utils.py:273] non-default args: {'model_tag': 'Qwen/Qwen3-8B'}\n".to_vec();
        let filler = b"INFO 08-21 05:41:31 [gpu_model_runner.py:1] Loading weights took 1.00 seconds\n";
        while big.len() < 40 << 20 {
            big.extend_from_slice(filler);
        }
        let b = Temp::new("big.log", &big);
        let a = run_words(&["explain-log", "--gpu", "l4", b.path()]);
        assert_eq!(a.code, exit::SERVES, "{}", a.stderr);
        assert!(
            a.stdout.contains("bytes in the middle of the log (it is over 32 MiB)"),
            "{}",
            &a.stdout[..2000]
        );
    }
}
