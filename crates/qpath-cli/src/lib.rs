//! `qpath`: what vLLM's attention backends decide for a GPU, a release and a `vllm serve` command line. The binary
//! (`src/main.rs`) only hands `argv` to [`run`] and prints the [`Answer`]; everything else is here, so tests (the
//! crate's own and the page's JS API tests, which compare the API with this CLI) call the real parser.
//!
//! ```text
//! qpath [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]      one scenario (--format table|json|markdown)
//! qpath matrix [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...] all GPUs x cache dtypes (--backend flashinfer|picked)
//! qpath timeline [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...] every release, and what changed where
//! qpath fix [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]      what to run instead
//! qpath explain-log [OPTIONS] FILE|- [-- vllm serve …]                 a pasted log: its scenario, line by line
//! qpath doctor [OPTIONS] [-- vllm serve …]                            this machine as --gpu auto reads it
//! qpath gpus | models | releases [--format table|json]                 the tables
//! qpath completions bash|zsh|fish|elvish|powershell                    a shell's completion script
//! ```
//!
//! qpath's options are read by clap (`args.rs`): help with examples, `--version` with the releases qpath models,
//! did-you-mean on qpath's own options and (qpath's) on GPU ids, subcommands, completions from the same definition.
//! The vLLM command after `--` is not clap's: the core parses it as that release's argparse does (`line.rs` joins the
//! words back into one shell line, `NAME=value` words before `vllm` staying assignments).
//!
//! The exit code is the same in every mode ([`exit`]): 0 vLLM would start and serve, 1 vLLM would fail (the report
//! says where), 2 qpath could not read the input or cannot model it. With `--format json` an error in qpath's own
//! options or input is a JSON object on standard output: `{"error": {"type": "usage" | "input", "message": …}}` (plus
//! `usage`, qpath's usage lines, for `usage`).
//!
//! The model's config.json is read as vLLM would find it, without the network (`config.rs`): `--model-config FILE`;
//! else MODEL as a local directory holding config.json; else MODEL as a Hugging Face id in the local HF cache; else a
//! qpath preset of that id. The report says which (`model.config`).

mod args;
mod check;
mod complete;
mod config;
mod doctor;
mod explain;
mod line;
pub mod machine;
mod models;
pub mod read;
mod sides;
pub mod width;

pub use args::{
    close_gpu_ids, command, option_message, parse_args, version_text, Action, Args, Format, UsageError, EXIT_CODES,
    GPU_SUGGESTIONS, USAGE_LINE,
};
pub use check::{Assumed, NOT_CHECKED};
pub use config::{find_draft_config, find_model_config, hf_cache_config, hf_hub_cache, FoundConfig};
pub use line::{command_line, shell_quote};

use qpath_core::gpu::GPUS;
use qpath_core::matrix::{self, CellStatus, Matrix};
use qpath_core::release::Release;
use qpath_core::report::{self, Report, QPATH_LIMIT};
use qpath_core::resolve::{default_cubins, resolve, Scenario};
use qpath_core::timeline;
use qpath_core::{options, render};

/// qpath's exit codes, the same for a scenario, `qpath matrix`, `qpath gpus` and `qpath releases`.
pub mod exit {
    /// vLLM would start and serve (a matrix: every cell); also help, version, the tables, completions.
    pub const SERVES: u8 = 0;
    /// vLLM would fail: the scenario's error of vLLM's own kind (ArgumentError, ValueError, NotImplementedError,
    /// AssertionError, ZeroDivisionError) or a group's `error` (a matrix: any cell).
    pub const FAILS: u8 = 1;
    /// qpath could not read the input (its own options, a config.json) or cannot model it (InputError, "qpath cannot
    /// model this"; a matrix: a cell qpath cannot model and none that fails): also a command that is neither `vllm
    /// serve` nor a launcher the core reads (an unclosed quote, an empty string, a bare model id), and an answer qpath
    /// cannot write to standard output (the binary; a reader that goes away keeps the answer's code).
    pub const CANNOT: u8 = 2;
}

/// What one run prints and how it ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub stdout: String,
    pub stderr: String,
    /// One of [`exit`]'s codes.
    pub code: u8,
}

impl Answer {
    fn out(stdout: impl Into<String>, code: u8) -> Answer {
        Answer {
            stdout: stdout.into(),
            stderr: String::new(),
            code,
        }
    }
}

/// What a scenario comes to, for the exit code and `--check`'s line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// vLLM would start and serve: what runs (`FLASH_ATTN bf16/bf16 fa3-varlen-aot/fa3-varlen-aot`).
    Serves(String),
    /// vLLM would fail: where (the scenario's error, or the first group's).
    Fails(String),
    /// qpath cannot model it: why.
    CannotModel(String),
}

impl Verdict {
    pub fn code(&self) -> u8 {
        match self {
            Verdict::Serves(_) => exit::SERVES,
            Verdict::Fails(_) => exit::FAILS,
            Verdict::CannotModel(_) => exit::CANNOT,
        }
    }

    /// `--check --format json`'s object before its assumptions (`check::line` adds them):
    /// `{"exit_code": 1, "verdict": "fails", "message": …}` (`verdict`: `serves`, `fails`, `cannot-model`).
    pub fn check_object(&self) -> serde_json::Value {
        let (verdict, message) = match self {
            Verdict::Serves(m) => ("serves", m),
            Verdict::Fails(m) => ("fails", m),
            Verdict::CannotModel(m) => ("cannot-model", m),
        };
        serde_json::json!({"exit_code": self.code(), "verdict": verdict, "message": message})
    }

    /// `--check`'s text line.
    pub fn line(&self) -> String {
        match self {
            Verdict::Serves(s) => format!("vLLM would start and serve: {s}"),
            Verdict::Fails(s) => format!("vLLM would fail: {s}"),
            Verdict::CannotModel(s) => s.clone(),
        }
    }
}

/// A report's verdict, as the core decides it ([`Report::verdict`]), with the line that says it: vLLM's error (the
/// scenario's, else the first failing group's), what qpath cannot model (the scenario's `InputError`, a limit note, a
/// group's `unmodelled`), or what every group runs (its backend, query dtypes and kernels: the matrix's picked cell).
pub fn verdict(r: &Report) -> Verdict {
    let message = qpath_core::render::verdict_message(r);
    match r.verdict {
        report::Verdict::Fails => Verdict::Fails(message),
        report::Verdict::CannotModel => Verdict::CannotModel(message),
        report::Verdict::Serves => Verdict::Serves(message),
    }
}

/// A matrix's verdict: any cell that fails fails it; else any cell qpath cannot model; else it serves.
pub fn matrix_verdict(m: &Matrix) -> Verdict {
    let failing: Vec<&matrix::Cell> = m.cells.iter().filter(|c| c.status == CellStatus::Error).collect();
    let unmodelled: Vec<&matrix::Cell> = m.cells.iter().filter(|c| c.status == CellStatus::CannotModel).collect();
    let n = m.cells.len();
    let first = |c: &matrix::Cell| format!("first: {} {}: {}", c.gpu, c.kv_cache_dtype, c.summary);
    if let Some(c) = failing.first() {
        return Verdict::Fails(format!("{} of {n} cells ({})", failing.len(), first(c)));
    }
    if let Some(c) = unmodelled.first() {
        return Verdict::CannotModel(format!("{QPATH_LIMIT} in {} of {n} cells ({})", unmodelled.len(), first(c)));
    }
    Verdict::Serves(format!("all {n} cells"))
}

/// The arguments as text: each must be valid UTF-8 (a file name or a word in another encoding is named by its position,
/// counted from 1 after the program name, its bytes shown with `\xNN` escapes), else the message to print.
pub fn utf8_args<I: IntoIterator<Item = std::ffi::OsString>>(args: I) -> Result<Vec<String>, String> {
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|bad| {
                format!(
                    "argument {} is not valid UTF-8: {}",
                    i + 1,
                    bad.as_encoded_bytes().escape_ascii()
                )
            })
        })
        .collect()
}

/// What writing the answer came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Written {
    /// All of it.
    Done,
    /// The reader went away (`qpath … | head -c1`): nothing more to say.
    ReaderGone,
    /// Another failure (a full disk, `> /dev/full`): the message to print.
    Failed(String),
}

/// Writes `text` to `out` and flushes it, without a panic on any failure.
pub fn write_answer(out: &mut dyn std::io::Write, text: &str) -> Written {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Written::Done,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Written::ReaderGone,
        Err(e) => Written::Failed(format!("cannot write the answer to standard output: {e}")),
    }
}

/// Runs `qpath ARGS…` (without the program name): what to print and the exit code.
pub fn run(argv: &[String]) -> Answer {
    run_with_env(argv, &|name| std::env::var(name).ok())
}

/// [`run`] with the environment read through `env` (the HF cache variables and `HOME`), so tests need not change the
/// process's environment.
pub fn run_with_env(argv: &[String], env: &dyn Fn(&str) -> Option<String>) -> Answer {
    run_in(argv, env, None)
}

/// [`run_with_env`] for a standard output that is a terminal `terminal` columns wide (`None`: not a terminal, so text
/// is laid out for 80 columns; [`width`]).
pub fn run_in(argv: &[String], env: &dyn Fn(&str) -> Option<String>, terminal: Option<usize>) -> Answer {
    let json = wants_json(argv);
    // Help is wrapped to the terminal's width, 80 columns when not a terminal.
    match args::parse_args_in(argv, terminal) {
        Err(e) => usage_answer(&e, json),
        Ok(Action::Text(text)) => Answer::out(text, exit::SERVES),
        Ok(Action::Gpus(f)) => Answer::out(gpus(f), exit::SERVES),
        Ok(Action::Releases(f)) => Answer::out(releases(f), exit::SERVES),
        Ok(Action::Models(f)) => Answer::out(models::models(f), exit::SERVES),
        Ok(Action::Completions(shell)) => Answer::out(complete::script(shell), exit::SERVES),
        Ok(Action::Scenario(mut a)) => {
            a.terminal = terminal;
            if a.log.is_some() {
                explain::explain_answer(&a, json, env)
            } else if a.machine.is_some() {
                doctor::answer(&mut a, json, env)
            } else {
                scenario_answer(&a, json, env)
            }
        }
    }
}

/// Whether qpath's own options (the words before `--`) ask for JSON, so that even an error in them is JSON.
pub fn wants_json(argv: &[String]) -> bool {
    let mut own = argv.iter().map(String::as_str).take_while(|a| *a != "--");
    let mut last = None;
    while let Some(word) = own.next() {
        if word == "--format" {
            last = own.next();
        } else if let Some(value) = word.strip_prefix("--format=") {
            last = Some(value);
        }
    }
    // The last `--format` wins, as clap reads it.
    last == Some("json")
}

/// An error in qpath's options or input: JSON on standard output with `--format json`, else a message (and, for
/// qpath's own options, the usage lines) on standard error; exit 2.
fn usage_answer(e: &UsageError, json: bool) -> Answer {
    if json {
        let mut error = serde_json::json!({
            "type": if e.show_usage { "usage" } else { "input" },
            "message": e.message,
        });
        if e.show_usage {
            error["usage"] = USAGE_LINE.into();
        }
        return Answer::out(pretty(&serde_json::json!({ "error": error })), exit::CANNOT);
    }
    let usage = if e.show_usage {
        format!("\n\n{USAGE_LINE}")
    } else {
        String::new()
    };
    Answer {
        stdout: String::new(),
        stderr: format!("qpath: {}{usage}\n", e.message),
        code: exit::CANNOT,
    }
}

fn pretty<T: serde::Serialize>(value: &T) -> String {
    // The core's DTOs serialise without a failure (strings, numbers, enums as strings).
    serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")) + "\n"
}

/// `qpath gpus`: the table's ids, capability and name; as JSON the JS API's `gpus()` objects.
fn gpus(f: Format) -> String {
    if f == Format::Json {
        let rows: Vec<serde_json::Value> = GPUS
            .iter()
            .map(|g| {
                serde_json::json!({
                    "id": g.id, "name": g.name, "arch": g.arch, "compute_capability": g.capability, "sm": g.sm,
                    "memory_gb": g.memory_gb, "fp8": g.fp8, "fp4": g.fp4, "segment": g.segment, "year": g.year,
                })
            })
            .collect();
        return pretty(&rows);
    }
    GPUS.iter()
        .map(|g| format!("{:<24} {:<5} {}\n", g.id, g.capability.to_string(), g.name))
        .collect()
}

/// `qpath releases`: each release and its FlashInfer pin; as JSON the JS API's `releases()` objects.
fn releases(f: Format) -> String {
    if f == Format::Json {
        let rows: Vec<serde_json::Value> = Release::ALL
            .iter()
            .map(|&r| {
                serde_json::json!({"vllm": r.name(), "flashinfer": r.flashinfer(), "published": r.published(),
                    "cubinsByDefault": default_cubins(r)})
            })
            .collect();
        return pretty(&rows);
    }
    Release::ALL
        .iter()
        .map(|r| {
            let day = r
                .published()
                .map_or_else(|| "unpublished".to_string(), |d| format!("published {d}"));
            match r.note() {
                Some(note) => format!("{:<14} flashinfer {:<13} {day:<21} {note}\n", r.name(), r.flashinfer()),
                None => format!("{:<14} flashinfer {:<13} {day}\n", r.name(), r.flashinfer()),
            }
        })
        .collect()
}

/// The scenario of the options and the command line, with the model's config.json the CLI found.
fn scenario_of(a: &Args, env: &dyn Fn(&str) -> Option<String>) -> Result<(Scenario, Option<FoundConfig>), UsageError> {
    let scenario = a.options.scenario(command_line(&a.command)).map_err(|e| UsageError {
        message: option_message(&e),
        show_usage: true,
    })?;
    with_model_config(scenario, (a.model_config.as_deref(), a.draft_model_config.as_deref()), env)
}

/// `scenario` reading the model's config.json the CLI finds for it ([`find_model_config`]: `--model-config FILE`, a
/// model folder, the local HF cache) and the drafter's ([`find_draft_config`]: `--draft-model-config FILE`, the
/// speculative config's model as a folder or in the HF cache), and what was found for the model; a file it cannot
/// read is an input error.
fn with_model_config(
    mut scenario: Scenario,
    (model_config, draft_config): (Option<&str>, Option<&str>),
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(Scenario, Option<FoundConfig>), UsageError> {
    let usage = |message| UsageError {
        message,
        show_usage: false,
    };
    let found = find_model_config(model_config, &scenario, env).map_err(usage)?;
    if let Some(f) = &found {
        scenario.model_config = Some(f.text.clone());
    }
    if let Some(d) = find_draft_config(draft_config, &scenario, env).map_err(usage)? {
        scenario.draft_model_config = Some(d.text);
    }
    Ok((scenario, found))
}

/// The report of `scenario`, its model line naming the config.json `found` (where the CLI read it).
fn resolve_with(scenario: &Scenario, found: Option<&FoundConfig>) -> Report {
    let mut report = resolve(scenario);
    if let (Some(f), Some(m)) = (found, report.model.as_mut()) {
        m.config = Some(f.origin.clone());
    }
    report
}

/// The default action and `qpath matrix`.
fn scenario_answer(a: &Args, json: bool, env: &dyn Fn(&str) -> Option<String>) -> Answer {
    if let Some(e) = width::refuse_brief(a) {
        return usage_answer(&e, json);
    }
    let (scenario, found) = match scenario_of(a, env) {
        Ok(s) => s,
        Err(e) => return usage_answer(&e, json),
    };
    if a.matrix {
        return matrix_answer(a, &scenario);
    }
    if a.timeline {
        return timeline_answer(a, &scenario);
    }
    if a.fix {
        return fix_answer(a, &scenario);
    }
    let report = resolve_with(&scenario, found.as_ref());
    let v = verdict(&report);
    let text = match a.format.unwrap_or(Format::Table) {
        f if a.check => check::line(&v, &Assumed::of_report(&report), f == Format::Json),
        Format::Json => pretty(&report),
        Format::Markdown => render::markdown(&report, &scenario.command_line, None),
        Format::Table => render::text_in(&report, a.text_layout()),
    };
    Answer::out(text, v.code())
}

/// `qpath fix`: text fitted to the width, Markdown or JSON; the exit code is the scenario's own (1 when vLLM fails as
/// asked, whatever the suggestions).
fn fix_answer(a: &Args, scenario: &Scenario) -> Answer {
    let f = qpath_core::fix::find(scenario);
    scenario_coded(a, scenario, &f, qpath_core::fix::markdown, qpath_core::fix::text)
}

/// `qpath timeline`: text fitted to the width, Markdown or JSON; the exit code is the scenario's release's (`--vllm`).
fn timeline_answer(a: &Args, scenario: &Scenario) -> Answer {
    let t = timeline::timeline(scenario);
    scenario_coded(a, scenario, &t, timeline::markdown, timeline::text)
}

/// An answer about `scenario` (its fixes, its timeline) whose exit code is the scenario's own: `--check`'s line, the
/// JSON of `value`, its Markdown (`--format markdown`) or its text fitted to the width.
fn scenario_coded<T: serde::Serialize>(
    a: &Args,
    scenario: &Scenario,
    value: &T,
    markdown: fn(&T) -> String,
    text: fn(&T, Option<usize>) -> String,
) -> Answer {
    let report = resolve(scenario);
    let v = verdict(&report);
    let json = a.format == Some(Format::Json);
    let text = if a.check {
        check::line(&v, &Assumed::of_report(&report), json)
    } else if json {
        pretty(value)
    } else if a.format == Some(Format::Markdown) {
        markdown(value)
    } else {
        text(value, a.text_layout().width)
    };
    Answer::out(text, v.code())
}

/// `qpath matrix`: a text grid fitted to the width, Markdown or JSON; a command line vLLM rejects is its error alone, with the single scenario's code.
fn matrix_answer(a: &Args, scenario: &Scenario) -> Answer {
    let json = a.format == Some(Format::Json);
    let mut m = match matrix::matrix_in(scenario, a.matrix_mode) {
        Ok(m) => m,
        Err(_) => {
            let report = resolve(scenario);
            let v = verdict(&report);
            let text = match (&report.error, json) {
                _ if a.check => check::line(&v, &Assumed::of_report(&report), json),
                (Some(e), true) => pretty(&serde_json::json!({ "error": e })),
                (Some(e), false) => format!("{}: {}\n", e.kind.heading(), options::echo_words(&e.kind.body(&e.message))),
                (None, _) => format!("{}\n", v.line()),
            };
            return Answer::out(text, v.code());
        }
    };
    sides::restrict_matrix(&mut m, a);
    let v = matrix_verdict(&m);
    let text = if a.check {
        check::line(&v, &Assumed::of_matrix(scenario), json)
    } else if json {
        pretty(&m)
    } else {
        let notes = sides::matrix_notes(&m, scenario.release, &scenario.command_line);
        match a.format {
            Some(Format::Markdown) => matrix::markdown(&m) + &notes,
            _ => {
                let width = a.text_layout().width;
                matrix::text(&m, width) + &matrix::wrap_notes(&notes, width)
            }
        }
    };
    Answer::out(text, v.code())
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_must_be_utf8_and_a_bad_one_is_named() {
        use std::ffi::OsString;
        assert_eq!(
            utf8_args(["a", "b"].map(OsString::from)),
            Ok(vec!["a".to_string(), "b".to_string()])
        );
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStringExt;
            let args = vec![OsString::from("--"), OsString::from_vec(vec![0xff, b'x'])];
            assert_eq!(utf8_args(args), Err("argument 2 is not valid UTF-8: \\xffx".to_string()));
        }
    }

    /// A writer that fails with `kind`.
    struct Failing(std::io::ErrorKind);

    impl std::io::Write for Failing {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from(self.0))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn writing_the_answer_never_panics() {
        let mut ok = Vec::new();
        assert_eq!(write_answer(&mut ok, "x\n"), Written::Done);
        assert_eq!(ok, b"x\n");
        assert_eq!(
            write_answer(&mut Failing(std::io::ErrorKind::BrokenPipe), "x"),
            Written::ReaderGone
        );
        let Written::Failed(e) = write_answer(&mut Failing(std::io::ErrorKind::StorageFull), "x") else {
            panic!("a full disk is a failure")
        };
        assert!(e.starts_with("cannot write the answer to standard output: "), "{e}");
    }

    use super::*;
    use qpath_core::release::FlashInfer;
    use std::path::PathBuf;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    /// What a run printed: standard output when it printed there (a report, with any exit code), else the message.
    fn printed(a: Answer) -> Result<String, String> {
        if a.stdout.is_empty() {
            Err(a.stderr.strip_prefix("qpath: ").unwrap_or(&a.stderr).to_string())
        } else {
            Ok(a.stdout)
        }
    }

    fn run(argv: &[String]) -> Result<String, String> {
        printed(super::run(argv))
    }

    fn run_with_env(argv: &[String], env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
        printed(super::run_with_env(argv, env))
    }

    /// The scenario a command line asks for, or the message of its error.
    fn parse_args(argv: &[String]) -> Result<Args, String> {
        match super::parse_args(argv) {
            Ok(Action::Scenario(a)) => Ok(*a),
            Ok(other) => panic!("not a scenario: {other:?}"),
            Err(e) => Err(e.message),
        }
    }

    fn usage() -> String {
        command().render_long_help().to_string()
    }

    /// The scenario of parsed arguments (the options and the joined command line).
    trait ScenarioOf {
        fn scenario(&self) -> Result<Scenario, String>;
    }

    impl ScenarioOf for Args {
        fn scenario(&self) -> Result<Scenario, String> {
            self.options
                .scenario(command_line(&self.command))
                .map_err(|e| option_message(&e))
        }
    }

    #[test]
    fn options_and_command_line() {
        let a = parse_args(&args(
            "--gpu l4 --vllm 0.25.0 --cuda 12.8 --trtllm-cubins no --format json -- vllm serve m --kv-cache-dtype fp8",
        ))
        .unwrap();
        let s = a.scenario().unwrap();
        assert!(matches!(s.hardware, qpath_core::resolve::Hardware::Gpu(g) if g.id == "l4"));
        assert_eq!(s.release, Release::V0_25_0);
        assert_eq!(s.cuda, qpath_core::capability::CudaVersion::new(12, 8));
        assert_eq!(s.trtllm_cubins, Some(false));
        assert_eq!(a.command, args("vllm serve m --kv-cache-dtype fp8"));
        assert!(parse_args(&args("--gpu h900 -- vllm serve m"))
            .unwrap_err()
            .contains("`h900`"));
        assert!(parse_args(&args("--bogus 1 -- vllm serve m"))
            .unwrap_err()
            .contains("`--bogus`"));
        assert!(parse_args(&args("--gpu l4")).unwrap_err().contains("after `--`"));
        // A 1 MB input is echoed shortened, in the option error and in vLLM's error text.
        let big = "x".repeat(1_000_000);
        let e = parse_args(&args(&format!("--gpu {big} -- vllm serve m"))).unwrap_err();
        assert!(e.len() < 300 && e.contains("… (1000000 characters)"), "{}", e.len());
        for cmd in [format!("vllm serve m --{big}"), format!("vllm serve {big}"), big.clone()] {
            let out = run(&args(&format!("--gpu l4 -- {cmd}"))).unwrap_or_else(|e| e);
            assert!(out.len() < 2_000 && out.contains(" characters) …"), "{}", out.len());
        }
        let e = parse_args(&args("--gpu l4 --compute-capability 9.0 -- vllm serve m"))
            .unwrap()
            .scenario()
            .unwrap_err();
        assert!(e.contains("exclude each other"), "{e}");
        let s = parse_args(&args(
            "--vllm 0.27.2rc1.dev77+g1234abc --flashinfer 0.7.2.post1 -- vllm serve m",
        ))
        .unwrap()
        .scenario()
        .unwrap();
        assert_eq!(s.release, Release::V0_27_1);
        assert_eq!(s.vllm_version.as_deref(), Some("0.27.2rc1.dev77+g1234abc"));
        assert_eq!(s.flashinfer, Some(FlashInfer::F0_7_2Post1));
        let e = parse_args(&args("--vllm 0.19.1 -- vllm serve m")).unwrap_err();
        assert_eq!(
            e,
            format!(
                "--vllm `0.19.1` is before the first vLLM release qpath knows ({})",
                Release::range_text()
            )
        );
        let e = parse_args(&args("--flashinfer 0.6.1 -- vllm serve m")).unwrap_err();
        assert!(
            e.starts_with(&format!(
                "--flashinfer `0.6.1` is before flashinfer-python {}",
                FlashInfer::ALL[0]
            )),
            "{e}"
        );
    }

    #[test]
    fn usage_and_releases_come_from_the_data() {
        // The help's words, whatever their line breaks (help is wrapped to 80 columns).
        let u = usage().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            u.contains(&format!("--vllm {}", Release::LATEST.name())) && u.contains(&Release::range_text()),
            "{u}"
        );
        assert!(u.contains("TRTLLM cubins available in every release"), "{u}");
        assert!(u.contains("0.6.12, 0.6.13, 0.6.14, 0.6.16.post3"), "{u}");
        let listed = run(&args("releases")).unwrap();
        assert!(
            listed.lines().any(|l| l.starts_with("0.27.1 ") && l.contains("0.6.16.post3")),
            "{listed}"
        );
        assert_eq!(listed.lines().count(), Release::ALL.len());
    }

    /// A temporary directory removed on drop (no extra dependency).
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let d = std::env::temp_dir().join(format!("qpath-cli-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&d);
            std::fs::create_dir_all(&d).unwrap();
            TempDir(d)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Qwen/Qwen3-0.6B's config.json (https://huggingface.co/Qwen/Qwen3-0.6B/blob/main/config.json, as the preset's
    /// sources restate it: 28 layers, 16 heads, 8 KV heads, head_dim 128, hidden 1024, sliding_window null,
    /// use_sliding_window false, max_window_layers 28, torch_dtype bfloat16).
    const QWEN3_06B: &str = r#"{"architectures": ["Qwen3ForCausalLM"], "head_dim": 128, "hidden_size": 1024,
        "max_window_layers": 28, "model_type": "qwen3", "num_attention_heads": 16, "num_hidden_layers": 28,
        "num_key_value_heads": 8, "sliding_window": null, "torch_dtype": "bfloat16", "use_sliding_window": false}"#;

    pub(super) fn json_of(out: &str) -> serde_json::Value {
        serde_json::from_str(out).unwrap()
    }

    #[test]
    fn vllm_serve_a_local_directory_reads_its_config_json() {
        let dir = TempDir::new("dir");
        std::fs::write(dir.0.join("config.json"), QWEN3_06B).unwrap();
        let d = dir.0.display().to_string();
        let no_env = |_: &str| None;
        let out = run_with_env(&args(&format!("--gpu l4 --format json -- vllm serve {d}")), &no_env).unwrap();
        let j = json_of(&out);
        assert_eq!(j["model"]["config"], format!("{d}/config.json"), "{out}");
        assert_eq!(j["model"]["num_layers"], 28);
        assert_eq!(j["model"]["preset"], false);
        // Its answer is the preset's.
        let preset = json_of(&run_with_env(&args("--gpu l4 --format json -- vllm serve Qwen/Qwen3-0.6B"), &no_env).unwrap());
        assert_eq!(j["groups"], preset["groups"]);
        // The table says where the config came from.
        let table = run_with_env(&args(&format!("--gpu l4 -- vllm serve {d}")), &no_env).unwrap();
        assert!(table.contains(&format!("config {d}/config.json")), "{table}");
        // --model-config FILE wins and is named.
        let file = dir.0.join("other.json");
        std::fs::write(
            &file,
            QWEN3_06B.replace("\"num_hidden_layers\": 28", "\"num_hidden_layers\": 2"),
        )
        .unwrap();
        let f = file.display().to_string();
        let j = json_of(
            &run_with_env(
                &args(&format!("--gpu l4 --model-config {f} --format json -- vllm serve {d}")),
                &no_env,
            )
            .unwrap(),
        );
        assert_eq!(
            (j["model"]["config"].clone(), j["model"]["num_layers"].clone()),
            (format!("--model-config {f}").into(), 2.into())
        );
        // A malformed config.json is named, never a panic.
        std::fs::write(
            dir.0.join("config.json"),
            "{\"architectures\": [\"Qwen3ForCausalLM\"], \"num_hidden_layers\": ",
        )
        .unwrap();
        let m = run_with_env(&args(&format!("--gpu l4 -- vllm serve {d}")), &no_env).unwrap_err();
        assert!(m.starts_with(&format!("{d}/config.json: not valid JSON: ")), "{m}");
        // A directory without config.json, a --model-config that does not exist: errors naming the file.
        std::fs::remove_file(dir.0.join("config.json")).unwrap();
        let e = run_with_env(&args(&format!("--gpu l4 -- vllm serve {d}")), &no_env).unwrap_err();
        assert!(e.contains(&format!("{d}/config.json")), "{e}");
        let e = run_with_env(&args("--model-config /nonexistent/qpath.json -- vllm serve m"), &no_env).unwrap_err();
        assert!(e.starts_with("--model-config /nonexistent/qpath.json: "), "{e}");
    }

    #[test]
    fn vllm_serve_an_hf_id_reads_the_local_hf_cache() {
        let cache = TempDir::new("hub");
        let folder = cache.0.join("models--acme--tiny-qwen3");
        let old = folder.join("snapshots").join("1111");
        let main = folder.join("snapshots").join("2222");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::create_dir_all(&main).unwrap();
        std::fs::write(
            old.join("config.json"),
            QWEN3_06B.replace("\"num_hidden_layers\": 28", "\"num_hidden_layers\": 3"),
        )
        .unwrap();
        std::fs::write(main.join("config.json"), QWEN3_06B).unwrap();
        std::fs::create_dir_all(folder.join("refs")).unwrap();
        std::fs::write(folder.join("refs").join("main"), "2222").unwrap();
        let hub = cache.0.display().to_string();
        let env = |name: &str| (name == "HF_HUB_CACHE").then(|| hub.clone());
        let j = json_of(&run_with_env(&args("--gpu h100-sxm --format json -- vllm serve acme/tiny-qwen3"), &env).unwrap());
        assert_eq!(j["model"]["num_layers"], 28, "refs/main names 2222");
        let origin = j["model"]["config"].as_str().unwrap();
        assert!(
            origin.ends_with("snapshots/2222/config.json (Hugging Face cache)"),
            "{origin}"
        );
        // $HF_HOME/hub when HF_HUB_CACHE is unset; without refs/main the newest snapshot.
        std::fs::remove_file(folder.join("refs").join("main")).unwrap();
        let home = cache.0.join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::rename(&folder, home.join("hub-placeholder")).unwrap();
        std::fs::create_dir_all(home.join("hub")).unwrap();
        std::fs::rename(
            home.join("hub-placeholder"),
            home.join("hub").join("models--acme--tiny-qwen3"),
        )
        .unwrap();
        let h = home.display().to_string();
        let env = |name: &str| (name == "HF_HOME").then(|| h.clone());
        let out = run_with_env(&args("--gpu h100-sxm --format json -- vllm serve acme/tiny-qwen3"), &env).unwrap();
        assert!(json_of(&out)["model"]["config"]
            .as_str()
            .unwrap()
            .contains("/hub/models--acme--tiny-qwen3/snapshots/"));
        // A cache folder without a snapshot: named.
        let empty = home.join("hub").join("models--acme--empty");
        std::fs::create_dir_all(empty.join("snapshots")).unwrap();
        let e = run_with_env(&args("-- vllm serve acme/empty"), &env).unwrap_err();
        assert!(
            e.contains("models--acme--empty") && e.contains("no snapshot holding config.json"),
            "{e}"
        );
        // A preset id with no local config still uses the preset.
        let j = json_of(&run_with_env(&args("--format json -- vllm serve Qwen/Qwen3-8B"), &env).unwrap());
        assert_eq!(
            (j["model"]["preset"].clone(), j["model"].get("config").cloned()),
            (true.into(), None)
        );
    }

    #[test]
    fn the_process_environment_names_the_hf_cache() {
        // The one test that sets the real variables: HF_HUB_CACHE for this process, pointing at a cache only it uses.
        let cache = TempDir::new("env");
        let snap = cache.0.join("models--envorg--envmodel").join("snapshots").join("abc");
        std::fs::create_dir_all(&snap).unwrap();
        std::fs::write(snap.join("config.json"), QWEN3_06B).unwrap();
        std::env::set_var("HF_HUB_CACHE", &cache.0);
        let out = run(&args("--format json -- vllm serve envorg/envmodel"));
        std::env::remove_var("HF_HUB_CACHE");
        let j = json_of(&out.unwrap());
        assert!(j["model"]["config"]
            .as_str()
            .unwrap()
            .contains("models--envorg--envmodel/snapshots/abc/config.json"));
    }
}

/// Issue 15's rows that are the CLI's: exit codes, JSON errors, did-you-mean, one-string commands, assignments.
#[cfg(test)]
mod issue15 {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn answer(s: &str) -> Answer {
        run_with_env(&argv(s), &no_env)
    }

    const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";

    #[test]
    fn fix_lists_what_to_run_instead_and_exits_with_the_scenarios_code() {
        let seed = format!("--gpu l4 --vllm 0.25.0-prefix -- {LLAMA} --kv-cache-dtype fp8");
        let a = answer(&format!("fix --format markdown {seed}"));
        assert_eq!(a.code, 1, "vLLM fails as asked: {a:?}");
        assert!(a.stdout.starts_with(
            "**vLLM fails:** AssertionError: fp8 tensor core is not supported in fa2 backend\n\nHow to make it run ("
        ));
        assert!(a.stdout.contains(
            "\n1. --attention-config.disable_flashinfer_q_quantization: false → true\n   + `--attention-config '{\"disable_flashinfer_q_quantization\": true}'`\n"
        ));
        assert!(a.stdout.contains("\n4. vLLM 0.25.0-prefix → 0.25.0\n"), "{}", a.stdout);
        let a = answer(&format!("fix --format json {seed}"));
        let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(j["suggestions"][0]["outcome"], "FLASHINFER bf16/bf16 fa2/fa2");
        assert_eq!(j["suggestions"][0]["verdict"], "serves");
        let a = answer(&format!("fix -- {LLAMA}"));
        assert_eq!(
            (a.code, a.stdout.as_str()),
            (0, "Nothing to fix: vLLM starts and serves this scenario as asked.\n")
        );
    }

    #[test]
    fn timeline_marks_the_changed_releases_and_exits_with_the_chosen_one() {
        let seed = format!("--gpu l4 -- {LLAMA} --kv-cache-dtype fp8");
        let a = answer(&format!("timeline --format markdown {seed}"));
        assert_eq!(a.code, 0, "the newest release serves: {a:?}");
        assert!(a
            .stdout
            .contains("\n| 0.24.0 | serves | FLASHINFER bf16/bf16 fa2/fa2 | FULL_AND_PIECEWISE |\n"));
        assert!(a
            .stdout
            .contains("\n| **0.25.0-prefix** | fails | AssertionError: fp8 tensor core is not supported in fa2 backend |"));
        assert!(a.stdout.contains("\n| **0.25.0** | serves |"));
        assert!(a.stdout.contains(
            "  - `get_q_data_type(is_prefill=True)` ([vllm/v1/attention/backends/flashinfer.py:824](https://github.com/vllm-project/vllm/blob/v0.25.0/vllm/v1/attention/backends/flashinfer.py#L824)): "
        ));
        assert_eq!(answer(&format!("timeline --format md {seed}")).stdout, a.stdout);
        // The exit code is the --vllm release's.
        let a = answer(&format!(
            "timeline --vllm 0.25.0-prefix --gpu l4 -- {LLAMA} --kv-cache-dtype fp8"
        ));
        assert_eq!(a.code, 1);
        let a = answer(&format!("timeline --format json {seed}"));
        let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
        let rows = j["rows"].as_array().unwrap();
        assert_eq!(rows.len(), Release::ALL.len());
        let changed: Vec<&str> = rows
            .iter()
            .filter(|r| !r["changes"].as_array().unwrap().is_empty())
            .map(|r| r["release"].as_str().unwrap())
            .collect();
        assert_eq!(changed, ["0.25.0-prefix", "0.25.0"]);
        let prefix = rows.iter().find(|r| r["release"] == "0.25.0-prefix").unwrap();
        assert_eq!(prefix["changes"][0]["source"], "vllm/v1/attention/backends/flashinfer.py:824");
        // A command line no release reads: every row says argparse's error.
        let a = answer(&format!("timeline -- {LLAMA} --bogus"));
        assert_eq!(a.code, 1);
        assert!(a.stdout.contains("Every release gives the same answer."), "{}", a.stdout);
    }

    #[test]
    fn exit_codes_are_the_same_in_every_mode() {
        // 0: vLLM would start and serve; the tables, help, version, completions.
        for s in [
            format!("-- {LLAMA}"),
            format!("--gpu b200 --format json -- {LLAMA} --kv-cache-dtype fp8"),
            "gpus".into(),
            "releases --format json".into(),
            "--help".into(),
            "--version".into(),
            "completions zsh".into(),
            String::new(),
        ] {
            assert_eq!(answer(&s).code, exit::SERVES, "{s}");
        }
        // 1: vLLM would fail, in every format and in the matrix: argparse's error, a group's error.
        for s in [
            format!("-- {LLAMA} --bogus"),
            format!("--format json -- {LLAMA} --bogus"),
            format!("--format markdown -- {LLAMA} --bogus"),
            format!("--gpu l4 --vllm 0.25.0-prefix -- {LLAMA} --kv-cache-dtype fp8"),
            format!("--gpu v100 -- {LLAMA} --attention-backend FLASHINFER"),
            format!("matrix -- {LLAMA}"),
            format!("matrix -- {LLAMA} --bogus"),
            format!("matrix --format json -- {LLAMA} --bogus"),
        ] {
            let a = answer(&s);
            assert_eq!((a.code, a.stderr.as_str()), (exit::FAILS, ""), "{s}");
            assert!(!a.stdout.is_empty(), "{s}: the report says where");
        }
        // 2: qpath cannot model it (the report still printed) or could not read its options (the message).
        for s in [
            "-- vllm serve no-such-org/no-such-model",
            "matrix -- vllm serve no-such-org/no-such-model",
        ] {
            let a = answer(s);
            assert_eq!(a.code, exit::CANNOT, "{s}");
            assert!(a.stdout.contains(QPATH_LIMIT), "{s}: {}", a.stdout);
        }
        for s in [
            "--gpu h900 -- vllm serve m",
            "--bogus -- vllm serve m",
            "gpus --format yaml",
            "matrix --gpu l4",
        ] {
            let a = answer(s);
            assert_eq!((a.code, a.stdout.as_str()), (exit::CANNOT, ""), "{s}");
            assert!(
                a.stderr.starts_with("qpath: ") && a.stderr.contains("see `qpath --help`"),
                "{s}: {}",
                a.stderr
            );
        }
    }

    #[test]
    fn the_report_says_where_vllm_fails() {
        let a = answer(&format!(
            "--check --gpu l4 --vllm 0.25.0-prefix -- {LLAMA} --kv-cache-dtype fp8"
        ));
        assert_eq!(
            a.stdout,
            "vLLM would fail: group 1 (FLASHINFER, decode_jit): AssertionError: fp8 tensor core is not supported in fa2 backend; \
             assumed: NVIDIA L4 (compute capability 8.9), vLLM 0.25.0-prefix, FlashInfer 0.6.13\n"
        );
        let a = answer(&format!("--check -- {LLAMA} --bogus"));
        assert_eq!(
            (a.code, a.stdout.as_str()),
            (
                1,
                "vLLM would fail: the scenario: ArgumentError: vllm: error: unrecognized arguments: --bogus; assumed: \
                 NVIDIA H100 SXM5 (compute capability 9.0), vLLM 0.33.0, FlashInfer 0.7.2.post1\n"
            )
        );
        // Every backend's answer: the backend vLLM picks (FLASH_ATTN on the default H100), its query dtypes and kernels.
        let a = answer(&format!("--check -- {LLAMA}"));
        assert!(
            a.code == 0 && a.stdout.starts_with("vLLM would start and serve: FLASH_ATTN ") && a.stdout.lines().count() == 1,
            "{a:?}"
        );
        let a = answer(&format!("--check --gpu l4 --vllm 0.25.0 -- {LLAMA} --kv-cache-dtype fp8"));
        assert!(a
            .stdout
            .starts_with("vLLM would start and serve: FLASHINFER bf16/bf16 fa2/fa2; assumed: NVIDIA L4"));
        let a = answer(&format!("--check --gpu b200 -- {LLAMA} --kv-cache-dtype fp8"));
        assert!(a.code == 0 && a.stdout.starts_with("vLLM would start and serve: ") && a.stdout.lines().count() == 1);
        let a = answer("--check -- vllm serve no-such-org/no-such-model");
        assert!(
            a.code == 2 && a.stdout.starts_with("qpath cannot model this: no-such-org/no-such-model"),
            "{a:?}"
        );
        let a = answer(&format!("--check --format json -- {LLAMA} --bogus"));
        let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!((j["exit_code"].clone(), j["verdict"].clone()), (1.into(), "fails".into()));
        assert_eq!(a.stdout.lines().count(), 1);
        let a = answer(&format!("matrix --check -- {LLAMA}"));
        assert!(
            a.code == 1 && a.stdout.starts_with("vLLM would fail: ") && a.stdout.contains(" cells (first: "),
            "{a:?}"
        );
        // The matrix of a command line argparse rejects: the error alone (text: vLLM's heading; JSON: the error object).
        let a = answer(&format!("matrix -- {LLAMA} --bogus"));
        assert_eq!(
            a.stdout,
            "vLLM rejects this scenario: ArgumentError: vllm: error: unrecognized arguments: --bogus\n"
        );
        let j: serde_json::Value =
            serde_json::from_str(&answer(&format!("matrix --format json -- {LLAMA} --bogus")).stdout).unwrap();
        assert_eq!(j["error"]["type"], "ArgumentError");
    }

    fn cell(status: CellStatus, summary: &str) -> matrix::Cell {
        matrix::Cell {
            gpu: "l4",
            kv_cache_dtype: "fp8",
            command_line: "".into(),
            status,
            summary: summary.into(),
            backends: vec![],
        }
    }

    #[test]
    fn a_matrix_fails_on_any_failing_cell_then_on_any_cell_qpath_cannot_model() {
        let m = |cells: Vec<matrix::Cell>| Matrix {
            vllm: "0.33.0",
            kv_cache_dtypes: vec!["fp8"],
            gpus: vec!["l4"],
            cells,
            mode: matrix::MatrixMode::FlashInfer,
            mla: false,
            base_gpu: None,
            base_kv_cache_dtype: "auto".into(),
        };
        let ok = || cell(CellStatus::Ok, "bf16/bf16 fa2/fa2");
        let other = || cell(CellStatus::OtherBackend, "FLASH_ATTN");
        let fails = || cell(CellStatus::Error, "ValueError: x");
        let cannot = || cell(CellStatus::CannotModel, "qpath cannot model this: y");
        assert_eq!(matrix_verdict(&m(vec![ok(), other()])), Verdict::Serves("all 2 cells".into()));
        assert_eq!(matrix_verdict(&m(vec![ok(), cannot()])).code(), exit::CANNOT);
        assert_eq!(matrix_verdict(&m(vec![cannot(), fails(), ok()])).code(), exit::FAILS);
        assert_eq!(
            matrix_verdict(&m(vec![cannot(), fails()])).line(),
            "vLLM would fail: 1 of 2 cells (first: l4 fp8: ValueError: x)"
        );
    }

    #[test]
    fn with_format_json_an_option_error_is_a_json_object() {
        for s in [
            "--format json --gp l4 -- vllm serve m",
            "--format=json --gpu h100 -- vllm serve m",
            "matrix --format json --gpu -- vllm serve m",
            "gpus --format json --gpu l4",
            "--format markdown --format json --gp l4",
        ] {
            let a = answer(s);
            assert_eq!((a.code, a.stderr.as_str()), (exit::CANNOT, ""), "{s}");
            let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
            assert_eq!(j["error"]["type"], "usage", "{s}");
            assert!(j["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{s}");
            assert_eq!(j["error"]["usage"], USAGE_LINE, "{s}");
        }
        assert!(!wants_json(&argv("--format json --format markdown -- vllm serve m")));
        assert!(!wants_json(&argv("-- vllm serve m --format json")));
        // An input qpath cannot read: "input", without the usage.
        let a = answer("--format json --model-config /nonexistent/qpath.json -- vllm serve m");
        let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(j["error"]["type"], "input");
        assert!(j["error"].get("usage").is_none() && a.code == 2);
        // The same in text: the message, and the usage lines only for qpath's own options.
        let a = answer("--model-config /nonexistent/qpath.json -- vllm serve m");
        assert!(a.stderr.starts_with("qpath: --model-config /nonexistent/qpath.json: ") && !a.stderr.contains("usage"));
        let a = answer("--bogus -- vllm serve m");
        assert_eq!(a.stderr, format!("qpath: unknown option `--bogus`\n\n{USAGE_LINE}\n"));
    }

    #[test]
    fn did_you_mean_on_options_commands_and_gpu_ids() {
        let said = |s: &str| answer(s).stderr.lines().next().unwrap_or_default().to_string();
        assert_eq!(
            said("--gpu h100 -- vllm serve m"),
            "qpath: --gpu `h100` is not in qpath's GPU table; did you mean `h100-pcie`, `h100-sxm` or `h100-nvl`? (see `qpath gpus`)"
        );
        assert_eq!(
            said("--gp l4 -- vllm serve m"),
            "qpath: unknown option `--gp`; did you mean `--gpu`?"
        );
        assert_eq!(
            said("vllm serve M"),
            "qpath: put `--` before the vLLM command: qpath [OPTIONS] -- vllm serve MODEL [FLAGS...]"
        );
        assert_eq!(said("--gpu l4 vllm serve M"), said("vllm serve M"));
        assert_eq!(said("HF_HOME=/x vllm serve M"), said("vllm serve M"));
        assert_eq!(said("matrix vllm serve M"), said("vllm serve M"));
        assert_eq!(said("--gpu -- vllm serve m"), "qpath: `--gpu` needs a value");
        assert_eq!(said("--format -- vllm serve m"), "qpath: `--format` needs a value");
        assert!(said("gpu").starts_with("qpath: unknown command `gpu`; did you mean `gpus`?"));
        assert!(said("matrx -- vllm serve m").starts_with("qpath: unknown command `matrx`; did you mean `matrix`?"));
        assert_eq!(
            said("--format jsn -- vllm serve m"),
            "qpath: --format `jsn`: one of table, json, markdown; did you mean `json`?"
        );
        assert_eq!(close_gpu_ids("4090"), ["rtx-4090"]);
        assert_eq!(close_gpu_ids("L40"), ["l40", "l40s"]);
        assert_eq!(close_gpu_ids("h10"), ["h100-pcie", "h100-sxm", "h100-nvl"]);
        assert_eq!(close_gpu_ids("b20o"), ["b200"]);
        assert!(close_gpu_ids("zzzzzz").is_empty() && close_gpu_ids("").is_empty());
        assert!(close_gpu_ids("a").len() <= GPU_SUGGESTIONS);
        // A repeated option: the last one wins (as before clap).
        assert_eq!(answer("--gpu h900 --gpu l4 -- vllm serve m").code, exit::CANNOT); // m: not a preset
        assert!(answer(&format!("--gpu h900 --gpu l4 -- {LLAMA}")).stderr.is_empty());
    }

    #[test]
    fn one_string_after_dashes_is_the_command_line() {
        let split = answer(&format!("--gpu l4 --format json -- {LLAMA} --kv-cache-dtype fp8"));
        let one = run_with_env(
            &[
                "--gpu",
                "l4",
                "--format",
                "json",
                "--",
                &format!("{LLAMA} --kv-cache-dtype fp8"),
            ]
            .map(String::from),
            &no_env,
        );
        assert_eq!(one, split);
        // With assignments and quotes, as a user pastes it.
        let pasted = format!("VLLM_USE_V2_MODEL_RUNNER=0 {LLAMA} --hf-overrides '{{\"num_hidden_layers\": 4}}'");
        let a = run_with_env(&["--format".into(), "json".into(), "--".into(), pasted], &no_env);
        let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(
            (j["error"].clone(), j["model"]["num_layers"].clone()),
            (serde_json::Value::Null, 4.into()),
            "{a:?}"
        );
    }

    /// A directory removed on drop.
    struct Dir(std::path::PathBuf);

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn an_hf_home_assignment_with_a_blank_is_read_by_the_cache_lookup() {
        let home = Dir(std::env::temp_dir().join(format!("qpath-cli-hf home-{}", std::process::id())));
        let snap = home.0.join("hub").join("models--acme--spaced").join("snapshots").join("r1");
        std::fs::create_dir_all(&snap).unwrap();
        std::fs::write(
            snap.join("config.json"),
            r#"{"architectures": ["Qwen3ForCausalLM"], "head_dim": 128, "hidden_size": 1024, "model_type": "qwen3",
                "num_attention_heads": 16, "num_hidden_layers": 5, "num_key_value_heads": 8, "torch_dtype": "bfloat16"}"#,
        )
        .unwrap();
        let assignment = format!("HF_HOME={}", home.0.display());
        let words = ["--format", "json", "--", &assignment, "vllm", "serve", "acme/spaced"].map(String::from);
        let a = run_with_env(&words, &no_env);
        let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(j["model"]["num_layers"], 5, "{a:?}");
        assert!(
            j["model"]["config"].as_str().unwrap().contains("hf home-"),
            "{}",
            j["model"]["config"]
        );
        // The command's HF_HOME wins over the process's; HF_HUB_CACHE (either's) still wins over HF_HOME, as in hf_hub.
        let other = |name: &str| (name == "HF_HOME").then(|| "/nonexistent".to_string());
        assert_eq!(run_with_env(&words, &other), a);
        // The same in one string.
        let one = format!("HF_HOME='{}' vllm serve acme/spaced", home.0.display());
        let b = run_with_env(&["--format".into(), "json".into(), "--".into(), one], &no_env);
        assert_eq!(b, a);
    }

    #[test]
    fn help_version_and_the_tables() {
        let help = answer("--help").stdout;
        for line in [
            "qpath --gpu l4 --vllm 0.25.0-prefix -- \\\n    vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
            "qpath --gpu h100-sxm --format json -- \\\n    vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER",
            "qpath matrix --vllm 0.33.0 -- vllm serve google/gemma-3-27b-it",
            "qpath --check -- vllm serve M --kv-cache-dtype fp8 || exit 1",
            EXIT_CODES,
        ] {
            assert!(help.contains(line), "{line}\n{help}");
        }
        assert_eq!(answer("").stdout, command().render_help().to_string());
        let version = answer("--version").stdout;
        assert!(version.starts_with(&format!(
            "qpath {}\nmodels vLLM {}",
            env!("CARGO_PKG_VERSION"),
            Release::range_text()
        )));
        for r in Release::ALL {
            let pin = format!("  {:<14} flashinfer-python {}", r.name(), r.flashinfer());
            assert!(version.contains(&pin), "{pin}\n{version}");
        }
        assert!(version.contains("0.25.0-prefix  flashinfer-python 0.6.13 (never released"));
        let gpus: serde_json::Value = serde_json::from_str(&answer("gpus --format json").stdout).unwrap();
        assert_eq!(gpus.as_array().map(Vec::len), Some(GPUS.len()));
        assert_eq!(
            (gpus[0]["id"].clone(), gpus[0]["compute_capability"].clone()),
            (GPUS[0].id.into(), GPUS[0].capability.to_string().into())
        );
        let releases: serde_json::Value = serde_json::from_str(&answer("releases --format json").stdout).unwrap();
        assert_eq!(releases.as_array().map(Vec::len), Some(Release::ALL.len()));
        assert_eq!(
            releases[0],
            serde_json::json!({"vllm": Release::ALL[0].name(), "flashinfer": Release::ALL[0].flashinfer(),
                "published": Release::ALL[0].published(), "cubinsByDefault": true})
        );
        assert_eq!(answer("gpus --format table").stdout, answer("gpus").stdout);
        for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
            let a = answer(&format!("completions {shell}"));
            assert!(
                a.code == 0 && a.stdout.contains("matrix") && a.stdout.contains("--gpu"),
                "{shell}"
            );
        }
        assert!(answer("completions tcsh")
            .stderr
            .starts_with("qpath: shell `tcsh`: one of bash, elvish, fish, powershell, zsh"));
    }
}

/// Issue 20's rows that are the CLI's: every backend's answer in the table, Markdown, `--check` and the matrix; bad
/// input as vLLM says it.
#[cfg(test)]
mod issue20 {
    use super::*;

    fn answer(s: &str) -> Answer {
        let argv: Vec<String> = s.split_whitespace().map(String::from).collect();
        run_with_env(&argv, &|_| None)
    }

    const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";

    /// Every backend's group in the table: FLASH_ATTN (vLLM's choice on an H100) with its query dtypes and kernels
    /// and an `ok` outcome, never "runs on" a backend with dashes; with an FP8 cache the query's quantization and its
    /// scale below the table; in Markdown the same.
    #[test]
    fn the_table_shows_every_backends_decisions() {
        let table = answer(&format!("--wide --gpu h100-sxm -- {LLAMA}")).stdout;
        let row = table.lines().find(|l| l.starts_with("0-31")).unwrap_or_default();
        assert!(
            row.contains("FLASH_ATTN")
                && row.contains("bfloat16   bfloat16")
                && row.contains("fa3-varlen")
                && row.ends_with(" ok"),
            "{table}"
        );
        assert!(!table.contains("runs on"), "{table}");
        let fp8 = answer(&format!("--wide --gpu h100-sxm -- {LLAMA} --kv-cache-dtype fp8")).stdout;
        assert!(
            fp8.contains("\ngroup 1 (layers 0-31):\n  query quantization: static FP8 per tensor, q_scale 1.0: "),
            "{fp8}"
        );
        let md = answer(&format!("--gpu h100-sxm --format markdown -- {LLAMA} --kv-cache-dtype fp8")).stdout;
        assert!(
            md.contains("| FLASH_ATTN | `fp8` | float8_e4m3fn | float8_e4m3fn | fa3-varlen"),
            "{md}"
        );
        assert!(
            md.contains("- query quantization: `static FP8 per tensor, q_scale 1.0: "),
            "{md}"
        );
        // TRITON_ATTN on a T4: both grids in the row, each phase's conditions below it.
        let t4 = answer("--wide --gpu t4 -- vllm serve Qwen/Qwen3-4B").stdout;
        let row = t4.lines().find(|l| l.starts_with("0-35")).unwrap_or_default();
        assert!(
            row.contains("TRITON_ATTN")
                && row.contains("float16    float16")
                && row.contains("triton-unified-3d or triton-unified-2d"),
            "{t4}"
        );
        assert!(t4.contains("\n  decode:  runs triton-unified-3d ("), "{t4}");
        assert!(t4.contains("), else triton-unified-2d ("), "{t4}");
        // A backend's own error at engine start: TRITON_ATTN's on a T4 with a bfloat16 cache, with the call that
        // raises and its line.
        let t4 = answer(&format!("--wide --gpu t4 -- {LLAMA} --kv-cache-dtype bfloat16"));
        assert_eq!(t4.code, exit::FAILS);
        let row = t4.stdout.lines().find(|l| l.starts_with("0-31")).unwrap_or_default();
        assert!(
            row.contains("TRITON_ATTN")
                && row.contains("ValueError at engine start: bfloat16 KV cache is not supported on NVIDIA T4"),
            "{}",
            t4.stdout
        );
    }

    /// Bad input, as vLLM says it: a backend a GPU cannot run, an FP8 cache FLASH_ATTN refuses below FA3: vLLM's
    /// selection error with its line, exit 1.
    #[test]
    fn a_forced_backend_vllm_refuses_is_its_error_with_its_line() {
        for (gpu, flags, reason) in [
            (
                "v100",
                "--attention-backend FLASHINFER",
                "['compute capability not supported']",
            ),
            (
                "a100-80gb",
                "--attention-backend FLASH_ATTN --kv-cache-dtype fp8",
                "kv_cache_dtype not supported",
            ),
        ] {
            let a = answer(&format!("--wide --gpu {gpu} -- {LLAMA} {flags}"));
            assert_eq!(a.code, exit::FAILS, "{gpu}");
            assert!(
                a.stdout
                    .contains("vLLM rejects this scenario: ValueError: Selected backend AttentionBackendEnum.")
                    && a.stdout.contains(reason)
                    && a.stdout.contains("\n  at vllm/platforms/cuda.py:"),
                "{gpu}: {}",
                a.stdout
            );
        }
    }

    /// Bad input on FLASH_ATTN's version: FA3 on an A100 is vLLM's ERROR log line, then its assert in the memory
    /// profile's forward (exit 1, the call and line below the table); FA3 forced on a B200 is vLLM's fallback warning
    /// and FA4.
    #[test]
    fn an_fa_version_the_gpu_does_not_take_is_vllms_log_and_assert() {
        let a = answer(&format!("--wide --gpu a100-80gb -- {LLAMA} -ac.flash_attn_version=3"));
        assert_eq!(a.code, exit::FAILS);
        let row = a.stdout.lines().find(|l| l.starts_with("0-31")).unwrap_or_default();
        assert!(
            row.contains("FLASH_ATTN") && row.ends_with("AssertionError at engine start: FlashAttention version not detected."),
            "{}",
            a.stdout
        );
        assert!(
            a.stdout
                .contains("  ERROR [fa_utils.py:212] Cannot use FA version 3 is not supported due to FA3"),
            "{}",
            a.stdout
        );
        let b = answer(&format!(
            "--wide --gpu b200 -- {LLAMA} --attention-backend FLASH_ATTN -ac.flash_attn_version=3"
        ));
        assert_eq!(b.code, exit::SERVES);
        assert!(b.stdout.contains("fa4-varlen"), "{}", b.stdout);
        assert!(
            b.stdout
                .contains("  warning: Cannot use FA version 3 on Blackwell platform, defaulting to FA version 4"),
            "{}",
            b.stdout
        );
        let c = answer(&format!("--check --gpu a100-80gb -- {LLAMA} -ac.flash_attn_version=3"));
        assert_eq!(
            c.stdout,
            "vLLM would fail: group 1 (FLASH_ATTN, profile_run): AssertionError: FlashAttention version not detected.; \
             assumed: NVIDIA A100 80GB (compute capability 8.0), vLLM 0.33.0, FlashInfer 0.7.2.post1\n"
        );
    }

    /// `qpath matrix --backend picked`: the backend vLLM picks on every GPU over every backend's cache dtypes (JSON
    /// `mode`, each cell's `backends`); an unknown mode is named.
    #[test]
    fn the_matrix_shows_the_backend_vllm_picks() {
        let a = answer(&format!("matrix --backend picked --format json -- {LLAMA}"));
        let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(j["mode"], "picked");
        let kvs = matrix::any_backend_kv_dtypes(Release::LATEST);
        assert_eq!(j["kv_cache_dtypes"].as_array().map(Vec::len), Some(kvs.len()));
        let cell = |gpu: &str, kv: &str| {
            j["cells"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["gpu"] == gpu && c["kv_cache_dtype"] == kv)
                .cloned()
                .unwrap()
        };
        let h100 = cell("h100-sxm", "auto");
        assert_eq!(h100["backends"], serde_json::json!(["FLASH_ATTN"]));
        assert!(
            h100["summary"]
                .as_str()
                .unwrap()
                .starts_with("FLASH_ATTN bf16/bf16 fa3-varlen"),
            "{h100}"
        );
        assert_eq!(
            cell("h100-sxm", "int8_per_token_head")["backends"],
            serde_json::json!(["TRITON_ATTN"])
        );
        assert!(j["cells"].as_array().unwrap().iter().all(|c| c["status"] != "other-backend"));
        // The default is FlashInfer's grid, as before (JSON mode "flashinfer").
        let j: serde_json::Value = serde_json::from_str(&answer(&format!("matrix --format json -- {LLAMA}")).stdout).unwrap();
        assert_eq!(j["mode"], "flashinfer");
        assert_eq!(
            j["kv_cache_dtypes"].as_array().map(Vec::len),
            Some(matrix::flashinfer_kv_dtypes(Release::LATEST).len())
        );
        let md = answer(&format!("matrix --backend picked --format markdown -- {LLAMA}")).stdout;
        assert!(
            md.starts_with("| GPU | auto |") && md.contains("| int8_per_token_head |"),
            "{md}"
        );
        let e = answer(&format!("matrix --backend auto -- {LLAMA}"));
        assert!(e.code == exit::CANNOT && e.stderr.contains("`auto`"), "{e:?}");
        assert!(answer("matrix --help").stdout.contains("--backend"));
    }

    /// DeepSeek-V3 as a new user types it (issue 21): the table names the MLA backend, both query dtypes and both
    /// kernels, the MLA dims and the prefill backend apart from the decode one; the JSON has the group's `mla`; the
    /// picked matrix's columns are the MLA cache dtypes with MLA backends in its cells.
    #[test]
    fn deepseek_v3_shows_an_mla_group_in_every_format() {
        let a = answer("--wide --gpu b200 -- vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype fp8");
        assert_eq!(a.code, exit::SERVES, "{a:?}");
        let row = a.stdout.lines().find(|l| l.starts_with("0-60")).unwrap();
        for cell in [
            "MLA",
            "FLASHINFER_MLA",
            "bfloat16",
            "float8_e4m3fn",
            "fa4-varlen",
            "trtllm-gen-mla",
            "ok",
        ] {
            assert!(row.contains(cell), "{cell}: {row}");
        }
        assert!(
            a.stdout
                .contains("\n  MLA: latent cache kv_lora_rank 512 + qk_rope_head_dim 64 = head size 576 "),
            "{}",
            a.stdout
        );
        assert!(
            a.stdout.contains(
                "\n  runs: prefill on MLA prefill backend FLASH_ATTN (fa4-varlen); decode on FLASHINFER_MLA (trtllm-gen-mla)\n"
            ),
            "{}",
            a.stdout
        );
        let j = super::tests::json_of(
            &answer("--gpu b200 --format json -- vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype fp8").stdout,
        );
        let g = &j["groups"][0];
        assert_eq!(g["backend"], "FLASHINFER_MLA");
        assert_eq!(g["head_dim"], 576);
        assert_eq!(
            g["mla"],
            serde_json::json!({"kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
                "qk_rope_head_dim": 64, "v_head_dim": 128, "index_topk": null})
        );
        assert_eq!(
            g["kernel"],
            serde_json::json!({"prefill": "fa4-varlen", "decode": "trtllm-gen-mla"})
        );
        assert_eq!(
            g["q_dtype"],
            serde_json::json!({"prefill": "bfloat16", "decode": "float8_e4m3fn"})
        );
        let md = answer("--gpu b200 --format markdown -- vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype fp8").stdout;
        assert!(
            md.contains("| 0-60 | MLA | FLASHINFER_MLA | `fp8` | bfloat16 | float8_e4m3fn | fa4-varlen | trtllm-gen-mla | ok |"),
            "{md}"
        );
        let j =
            super::tests::json_of(&answer("matrix --backend picked --format json -- vllm serve deepseek-ai/DeepSeek-V3").stdout);
        assert_eq!(
            j["kv_cache_dtypes"],
            serde_json::json!(["auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_ds_mla", "nvfp4_ds_mla"])
        );
        let b200 = j["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["gpu"] == "b200" && c["kv_cache_dtype"] == "fp8")
            .unwrap();
        assert_eq!(b200["backends"], serde_json::json!(["FLASHINFER_MLA"]));
        // vLLM's own refusal of an MLA-unfit cache: pydantic's ValidationError, exit 1.
        let a = answer("--wide --gpu b200 -- vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype nvfp4");
        assert_eq!(a.code, exit::FAILS, "{a:?}");
        assert!(
            a.stdout
                .contains("pydantic_core._pydantic_core.ValidationError: 1 validation error for VllmConfig"),
            "{}",
            a.stdout
        );
    }
}
