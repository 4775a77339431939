//! qpath's own options, read by clap: the command ([`command`]), what a command line asks for ([`Action`]) and the
//! messages of a command line qpath cannot read ([`UsageError`]): clap's own (did-you-mean on qpath's options, a
//! missing value) reworded in qpath's words, a GPU id with the ids it is close to, and the hint for a vLLM command
//! without `--` before it.

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, ArgMatches, Command};

use qpath_core::gpu::GPUS;
use qpath_core::matrix::MatrixMode;
use qpath_core::options::{self, OptionKey, ScenarioOptions};
use qpath_core::release::{FlashInfer, Release};
use qpath_core::resolve::DEFAULT_CUDA;

/// How the answer is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Markdown,
}

/// One scenario's options and its command line (the default action and `qpath matrix`).
#[derive(Debug)]
pub struct Args {
    pub matrix: bool,
    /// `qpath timeline`: the scenario at every release qpath models.
    pub timeline: bool,
    /// `qpath fix`: the command lines near this one that run.
    pub fix: bool,
    /// `qpath explain-log FILE`: the log to read (`-`: standard input); the command after `--` is then optional.
    pub log: Option<String>,
    /// The scenario options given on the command line (explain-log: they override what the log says).
    pub given: Vec<OptionKey>,
    /// `qpath matrix --backend`: what the matrix shows (default FlashInfer's groups over its cache dtypes).
    pub matrix_mode: MatrixMode,
    pub options: ScenarioOptions,
    pub format: Option<Format>,
    /// `--check`: only the exit code matters (one line is printed).
    pub check: bool,
    /// `--model-config FILE`: the model's config.json.
    pub model_config: Option<String>,
    /// `--draft-model-config FILE`: the speculative drafter's config.json (an EAGLE head or a draft model).
    pub draft_model_config: Option<String>,
    /// The vLLM command line's words, after `--`.
    pub command: Vec<String>,
}

/// What a command line asks for.
#[derive(Debug)]
pub enum Action {
    /// `--help`, `--version` or no argument: the text clap renders.
    Text(String),
    Scenario(Box<Args>),
    Gpus(Format),
    Releases(Format),
    /// `qpath models`: the model presets.
    Models(Format),
    Completions(clap_complete::Shell),
}

/// A command line qpath cannot read: the message, and whether qpath's usage line belongs after it (an error in
/// qpath's own options; not for a file qpath cannot read).
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError {
    pub message: String,
    pub show_usage: bool,
}

impl UsageError {
    fn usage(message: impl Into<String>) -> UsageError {
        UsageError {
            message: message.into(),
            show_usage: true,
        }
    }
}

/// The one-line usage printed after an error in qpath's own options.
pub const USAGE_LINE: &str = "usage: qpath [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
       qpath matrix [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
       qpath timeline [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
       qpath fix [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
       qpath explain-log [OPTIONS] FILE|-
       qpath gpus | models | releases [--format table|json] | completions SHELL
see `qpath --help`";

/// The README's three examples, shown by `--help`.
const EXAMPLES: &str = "examples:
  qpath --gpu l4 --vllm 0.25.0-prefix -- vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8
  qpath --gpu h100-sxm --format json -- vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER
  qpath matrix --vllm 0.33.0 -- vllm serve google/gemma-3-27b-it     # all GPUs x FlashInfer cache dtypes
  qpath matrix --backend picked -- vllm serve Qwen/Qwen3-4B           # the backend vLLM picks on every GPU
  qpath matrix --gpu l4 -- vllm serve Qwen/Qwen3-4B                   # L4's row only
  qpath timeline --gpu l4 -- vllm serve M --kv-cache-dtype fp8        # every release, and what changed where
  qpath fix --gpu l4 --vllm 0.25.0-prefix -- vllm serve M --kv-cache-dtype fp8   # what to run instead
  qpath explain-log --gpu rtx-5090 vllm.log                           # a log: its scenario, line by line
  qpath --check -- vllm serve M --kv-cache-dtype fp8 || exit 1      # CI: the exit code only";

/// The exit codes, shown by `--help` (the README's table says the same).
pub const EXIT_CODES: &str =
    "exit codes (the same for a scenario, `matrix`, `timeline`, `fix`, `explain-log`, `gpus` and `releases`):
  0  vLLM would start and serve (matrix: every cell; timeline: at --vllm, default the newest release), as far
     as qpath checks: the attention path, not memory, quantization or other config validation
  1  vLLM would fail: the report says where (the scenario's error, or a group's `error`; matrix: any cell)
  2  qpath could not read the input (its own options, a config.json it cannot read) or cannot model it
     (\"qpath cannot model this\"; matrix: a cell it cannot model and none that fails), including a command
     that is not `vllm serve` or a launcher qpath reads (env, sudo, uv run, python -m, docker run), and
     standard output qpath cannot write (a full disk); a reader that goes away (`| head`) keeps the code";

/// `qpath --version`: qpath's version, the vLLM releases it models and the FlashInfer each pins.
pub fn version_text() -> String {
    let mut out = format!(
        "{}\nmodels vLLM {} (any other version runs as the last release at or before it)\nreleases and their FlashInfer pins:\n",
        env!("CARGO_PKG_VERSION"),
        Release::range_text()
    );
    for r in Release::ALL {
        let extra = match (r.is_released(), r.source_release()) {
            (false, _) => " (never released: see `qpath releases`)".to_string(),
            (true, s) if s != r => format!(" (the same files as {})", s.name()),
            _ => String::new(),
        };
        out.push_str(&format!("  {:<14} flashinfer-python {}{extra}\n", r.name(), r.flashinfer()));
    }
    out.push_str(&format!("--flashinfer takes any of {}", FlashInfer::list_text()));
    out
}

fn after_help() -> String {
    format!(
        "defaults: --gpu {gpu} --vllm {latest} --cuda {cuda}, TRTLLM cubins available in every release (flashinfer-cubin
  installed or NVIDIA's artifactory reachable); --trtllm-cubins no: offline without flashinfer-cubin
--vllm: a release ({range}) or any vLLM version (a nightly such as 0.27.2rc1.dev77+g1234abc, a patch): it runs as
  the release whose commit its +g… names, else the last release at or before it, and the report says so
--flashinfer: the installed flashinfer-python when it is not the release's pin ({fis}); FlashInfer's rules follow it;
  any other version from the first on runs as the newest of those at or below it (0.6.15.post1 as 0.6.14), and says so
MODEL's config.json: --model-config FILE, else MODEL as a directory with config.json, else MODEL in the local Hugging Face
  cache ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub; HF_HOME=… before `vllm` counts), else
  qpath's preset of that id; the drafter's (the speculative config's \"model\") likewise: --draft-model-config FILE, a
  directory, the HF cache, a preset
the command after `--` may also be one quoted string: qpath -- \"HF_HOME=/h vllm serve M --kv-cache-dtype fp8\"
with --format json, an error in qpath's options or input is {{\"error\": {{\"type\": \"usage\" | \"input\", \"message\": …}}}}

{EXIT_CODES}

{EXAMPLES}",
        fis = FlashInfer::list_text(),
        range = Release::range_text(),
        gpu = options::DEFAULT_GPU,
        latest = Release::LATEST.name(),
        cuda = DEFAULT_CUDA,
    )
}

/// `--gpu`'s help: what [`qpath_core::gpu::lookup`] reads.
const GPU_HELP: &str = "id, name or nvidia-smi name (default h100-sxm)";

/// `--compute-capability`'s help: what [`options::parse_compute_capability`] reads.
const CAPABILITY_HELP: &str = "instead of --gpu: 9.0, 90 or sm_90";

/// `--gpu`, `--vllm`, …: the scenario's options (the default action and `qpath matrix`).
fn scenario_args(cmd: Command, formats: &'static [&'static str]) -> Command {
    let value = |key: OptionKey, name: &'static str, help: &'static str| {
        Arg::new(key.name()).long(&key.flag()[2..]).value_name(name).help(help)
    };
    cmd.arg(value(OptionKey::Gpu, "ID", GPU_HELP))
        .arg(value(OptionKey::ComputeCapability, "X.Y", CAPABILITY_HELP))
        .arg(value(
            OptionKey::Vllm,
            "VERSION",
            "a release or any vLLM version (default the newest)",
        ))
        .arg(value(OptionKey::Cuda, "X.Y", "the CUDA version of the build"))
        .arg(value(OptionKey::Cubins, "yes|no", "TRTLLM cubins available (default yes)"))
        .arg(value(
            OptionKey::FlashInfer,
            "VERSION",
            "the installed flashinfer-python (default the pin)",
        ))
        .arg(
            Arg::new("model-config")
                .long("model-config")
                .value_name("FILE")
                .help("the model's config.json"),
        )
        .arg(
            Arg::new("draft-model-config")
                .long("draft-model-config")
                .value_name("FILE")
                .help("the speculative drafter's config.json (an EAGLE head, a draft model)"),
        )
        .arg(format_arg(formats))
        .arg(
            Arg::new("check")
                .long("check")
                .action(ArgAction::SetTrue)
                .help("print one line (with --format json, one JSON object); the exit code says it (for CI)"),
        )
        .arg(
            Arg::new("command")
                .value_name("VLLM COMMAND")
                .num_args(1..)
                .last(true)
                .allow_hyphen_values(true)
                .help("[ENV=VAL ...] vllm serve MODEL [FLAGS...], or the same as one string"),
        )
}

fn format_arg(formats: &'static [&'static str]) -> Arg {
    Arg::new("format")
        .long("format")
        .value_name("FORMAT")
        // `md` is `markdown`'s short spelling, accepted but not listed.
        .value_parser(PossibleValuesParser::new(
            formats.iter().map(|f| PossibleValue::new(*f).hide(*f == "md")),
        ))
        .hide_possible_values(false)
        .help("how to print the answer")
}

/// qpath's command: the default action's options, `matrix`, `gpus`, `releases`, `completions`.
pub fn command() -> Command {
    let root = Command::new("qpath")
        .about("What vLLM's attention backends decide for a GPU, a release and a `vllm serve` command line")
        .version(env!("CARGO_PKG_VERSION"))
        .long_version(version_text())
        .override_usage("qpath [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]\n       qpath <COMMAND>")
        .after_help(after_help())
        .args_conflicts_with_subcommands(true)
        .args_override_self(true)
        .subcommand(scenario_args(
            Command::new("matrix")
                .about("all GPUs x cache dtypes for a command line: FlashInfer's groups, or the backend vLLM picks")
                .long_about(
                    "all GPUs x cache dtypes for a command line: FlashInfer's groups, or the\n\
                     backend vLLM picks. --gpu ID keeps that GPU's row (--compute-capability\n\
                     does not apply); each column replaces the command's own --kv-cache-dtype,\n\
                     and a note under the text says so",
                )
                .args_override_self(true)
                .arg(
                    Arg::new("backend")
                        .long("backend")
                        .value_name("MODE")
                        .value_parser(PossibleValuesParser::new(
                            MatrixMode::ALL.map(|m| PossibleValue::new(m.name()).help(m.label())),
                        ))
                        .help(
                            "flashinfer (default): FlashInfer's groups over FlashInfer's cache dtypes; picked: the \
                             backend vLLM picks on each GPU (or the command line's --attention-backend forces), its \
                             query dtypes and kernels, over every backend's cache dtypes",
                        ),
                ),
            &["markdown", "md", "table", "json"],
        ))
        .subcommand(scenario_args(
            Command::new("timeline")
                .about("one command line at every vLLM release qpath models: each release's answer, and what changed where")
                .args_override_self(true),
            &["markdown", "md", "table", "json"],
        ))
        .subcommand(scenario_args(
            Command::new("fix")
                .about("for a command line vLLM fails with (or runs without the CUDA graphs asked for): the command lines one or two changes away that run, best first")
                .args_override_self(true),
            &["markdown", "md", "table", "json"],
        ))
        .subcommand(
            scenario_args(
                Command::new("explain-log")
                    .about("read a vLLM start-up log or traceback: its scenario (version, GPU, non-default args, model), qpath's answer, and qpath's log lines and error beside the log's, line by line; options fill what the log lacks and override what it says")
                    .args_override_self(true)
                    .arg(
                        Arg::new("log")
                            .value_name("FILE")
                            .required(true)
                            .help("the log (`-`: standard input)"),
                    ),
                &["table", "markdown", "md", "json"],
            )
            .mut_arg("command", |a| a.help("the command line to use when the log has none")),
        )
        .subcommand(
            Command::new("gpus")
                .about("list the GPU table")
                .args_override_self(true)
                .arg(format_arg(&["table", "json"])),
        )
        .subcommand(
            Command::new("models")
                .about("list the model presets (any other: its folder or --model-config)")
                .args_override_self(true)
                .arg(format_arg(&["table", "json"])),
        )
        .subcommand(
            Command::new("releases")
                .about("list the vLLM releases and the FlashInfer each pins")
                .args_override_self(true)
                .arg(format_arg(&["table", "json"])),
        )
        .subcommand(
            Command::new("completions").about("print a shell's completion script").arg(
                Arg::new("shell")
                    .required(true)
                    .value_parser(clap::value_parser!(clap_complete::Shell)),
            ),
        );
    scenario_args(root, &["table", "json", "markdown", "md"])
}

fn format_of(m: &ArgMatches) -> Option<Format> {
    m.get_one::<String>("format").map(|f| match f.as_str() {
        "json" => Format::Json,
        "markdown" | "md" => Format::Markdown,
        _ => Format::Table,
    })
}

/// Reads a command line (without the program name).
pub fn parse_args(argv: &[String]) -> Result<Action, UsageError> {
    if argv.is_empty() {
        return Ok(Action::Text(command().render_help().to_string()));
    }
    let argv = &crate::sides::hoist_globals(argv)?;
    let words = std::iter::once("qpath".to_string()).chain(argv.iter().cloned());
    let m = match command().try_get_matches_from(words) {
        Ok(m) => m,
        Err(e) => return clap_outcome(e, argv),
    };
    match m.subcommand() {
        Some(("gpus", sub)) => Ok(Action::Gpus(format_of(sub).unwrap_or(Format::Table))),
        Some(("releases", sub)) => Ok(Action::Releases(format_of(sub).unwrap_or(Format::Table))),
        Some(("models", sub)) => Ok(Action::Models(format_of(sub).unwrap_or(Format::Table))),
        Some(("completions", sub)) => Ok(Action::Completions(
            *sub.get_one::<clap_complete::Shell>("shell").expect("required"),
        )),
        Some(("matrix", sub)) => sided(scenario_of(sub, Mode::Matrix), argv),
        Some(("timeline", sub)) => sided(scenario_of(sub, Mode::Timeline), argv),
        Some(("fix", sub)) => sided(scenario_of(sub, Mode::Fix), argv),
        Some(("explain-log", sub)) => sided(scenario_of(sub, Mode::ExplainLog), argv),
        _ => sided(scenario_of(&m, Mode::Scenario), argv),
    }
}

/// A scenario whose options are on the right side of `--` ([`crate::sides`]), and that `matrix` takes.
fn sided(action: Result<Action, UsageError>, argv: &[String]) -> Result<Action, UsageError> {
    if let Ok(Action::Scenario(a)) = &action {
        if let Some(e) = crate::sides::own_options_after_dashes(argv, a) {
            return Err(e);
        }
        crate::sides::matrix_options(a)?;
    }
    action
}

/// Which command reads a scenario's options.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Scenario,
    Matrix,
    Timeline,
    Fix,
    ExplainLog,
}

fn scenario_of(m: &ArgMatches, mode: Mode) -> Result<Action, UsageError> {
    let matrix = mode == Mode::Matrix;
    let mut options = ScenarioOptions::default();
    let mut given = Vec::new();
    for key in OptionKey::ALL {
        if let Some(value) = m.get_one::<String>(key.name()) {
            options.set(key, value).map_err(|e| UsageError::usage(option_message(&e)))?;
            given.push(key);
        }
    }
    let command: Vec<String> = m.get_many::<String>("command").into_iter().flatten().cloned().collect();
    if command.is_empty() && mode != Mode::ExplainLog {
        return Err(UsageError::usage(
            "give the vLLM command line after `--`, e.g. `qpath --gpu l4 -- vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8`",
        ));
    }
    let matrix_mode = if matrix {
        m.get_one::<String>("backend")
            .and_then(|b| MatrixMode::parse(b))
            .unwrap_or_default()
    } else {
        MatrixMode::default()
    };
    Ok(Action::Scenario(Box::new(Args {
        matrix,
        timeline: mode == Mode::Timeline,
        fix: mode == Mode::Fix,
        log: (mode == Mode::ExplainLog).then(|| m.get_one::<String>("log").cloned().unwrap_or_default()),
        given,
        matrix_mode,
        options,
        format: format_of(m),
        check: m.get_flag("check"),
        model_config: m.get_one::<String>("model-config").cloned(),
        draft_model_config: m.get_one::<String>("draft-model-config").cloned(),
        command,
    })))
}

/// An option error as the CLI says it: `--gpu `h100` is not in qpath's GPU table: did you mean …? (see `qpath gpus`)`.
pub fn option_message(e: &options::OptionError) -> String {
    let ambiguous = matches!(qpath_core::gpu::lookup(&e.value), qpath_core::gpu::Lookup::Ambiguous(_));
    let hint = if e.key == OptionKey::Gpu && ambiguous {
        // The reason already names the rows the value could mean.
        " (see `qpath gpus`)".to_string()
    } else if e.key == OptionKey::Gpu {
        match close_gpu_ids(&e.value).as_slice() {
            [] => " (see `qpath gpus`)".to_string(),
            ids => format!("; did you mean {}? (see `qpath gpus`)", or_list(ids)),
        }
    } else {
        String::new()
    };
    format!("{} `{}` {}{hint}", e.key.flag(), options::echo(&e.value), e.reason)
}

/// "`a`", "`a` or `b`", "`a`, `b` or `c`".
fn or_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.concat(),
    }
}

/// The most GPU ids a did-you-mean names.
pub const GPU_SUGGESTIONS: usize = 5;

/// The GPU ids a mistyped `--gpu` value is close to, in the table's order: ids it begins (`h100` → h100-pcie,
/// h100-sxm, h100-nvl), else ids holding it (`4090` → rtx-4090), else ids within a third of its length in edits
/// (`l4o` → l40, l40s). At most [`GPU_SUGGESTIONS`]; none for a value longer than any id could be mistyped into.
pub fn close_gpu_ids(value: &str) -> Vec<&'static str> {
    let v = value.trim().to_ascii_lowercase();
    if v.is_empty() || v.chars().count() > 40 {
        return vec![];
    }
    let pick = |f: &dyn Fn(&str) -> bool| -> Vec<&'static str> {
        GPUS.iter().map(|g| g.id).filter(|id| f(id)).take(GPU_SUGGESTIONS).collect()
    };
    let begun = pick(&|id| id.starts_with(&v));
    if !begun.is_empty() {
        return begun;
    }
    let held = if v.len() >= 2 { pick(&|id| id.contains(&v)) } else { vec![] };
    if !held.is_empty() {
        return held;
    }
    let limit = (v.chars().count() / 3).max(1);
    pick(&|id| edit_distance(id, &v) <= limit)
}

/// The subcommand a mistyped word is close to (`gpu` → gpus, `matrx` → matrix).
fn close_command(word: &str) -> Option<&'static str> {
    let w = word.to_ascii_lowercase();
    ["matrix", "gpus", "models", "releases", "completions"]
        .into_iter()
        .find(|c| edit_distance(c, &w) <= 2 || (w.len() >= 3 && c.starts_with(&w)))
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diag + usize::from(ca != *cb));
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// clap's answer to a command line it did not take: `--help` / `--version` text, or a [`UsageError`] in qpath's words.
fn clap_outcome(e: clap::Error, argv: &[String]) -> Result<Action, UsageError> {
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        return Ok(Action::Text(e.render().to_string()));
    }
    if e.kind() == ErrorKind::UnknownArgument {
        let unknown = context(&e, ContextKind::InvalidArg).unwrap_or_default();
        if let Some(hint) = crate::sides::vllm_option_before_dashes(&unknown, argv) {
            return Err(UsageError::usage(hint));
        }
    }
    let before_dashes = argv.iter().take_while(|a| *a != "--");
    let names_vllm = before_dashes.clone().any(|a| {
        let first = a.split_whitespace().find(|w| !w.contains('='));
        first.is_some_and(|w| w == "vllm" || w.ends_with("/vllm"))
    });
    if names_vllm && matches!(e.kind(), ErrorKind::InvalidSubcommand | ErrorKind::UnknownArgument) {
        return Err(UsageError::usage(
            "put `--` before the vLLM command: qpath [OPTIONS] -- vllm serve MODEL [FLAGS...]",
        ));
    }
    Err(UsageError::usage(clap_message(&e)))
}

fn context(e: &clap::Error, kind: ContextKind) -> Option<String> {
    match e.get(kind)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => v.first().cloned(),
        _ => None,
    }
}

/// clap's error as one line in qpath's words.
fn clap_message(e: &clap::Error) -> String {
    let arg = context(e, ContextKind::InvalidArg).unwrap_or_default();
    // clap names an option with its value, `--gpu <ID>`; qpath says the option.
    let flag = arg.split(' ').next().unwrap_or_default();
    let tip = context(e, ContextKind::SuggestedArg)
        .or_else(|| context(e, ContextKind::SuggestedSubcommand))
        .or_else(|| context(e, ContextKind::SuggestedValue))
        .map(|s| format!("; did you mean `{s}`?"))
        .unwrap_or_default();
    match e.kind() {
        ErrorKind::UnknownArgument if arg.starts_with('-') => format!("unknown option `{}`{tip}", options::echo(&arg)),
        ErrorKind::InvalidSubcommand | ErrorKind::UnknownArgument => format!(
            "unknown command `{}`{} (qpath's commands: matrix, gpus, models, releases, completions; a vLLM command goes after `--`)",
            options::echo(&arg),
            close_command(&arg).map(|c| format!("; did you mean `{c}`?")).unwrap_or(tip)
        ),
        ErrorKind::InvalidValue | ErrorKind::NoEquals if context(e, ContextKind::InvalidValue).unwrap_or_default().is_empty() => {
            format!("`{flag}` needs a value")
        }
        ErrorKind::InvalidValue => {
            let value = context(e, ContextKind::InvalidValue).unwrap_or_default();
            let valid: Vec<String> = match e.get(ContextKind::ValidValue) {
                Some(ContextValue::Strings(v)) => v.clone(),
                _ => vec![],
            };
            // A positional (`completions <SHELL>`) has no option to name.
            let what = match flag.strip_prefix('<').and_then(|f| f.strip_suffix('>')) {
                Some(name) => format!("{} ", name.to_ascii_lowercase()),
                None => format!("{flag} "),
            };
            format!("{what}`{}`: one of {}{tip}", options::echo(&value), valid.join(", "))
        }
        ErrorKind::ArgumentConflict => format!(
            "`{flag}` is given twice or with a command it does not belong to{}",
            context(e, ContextKind::PriorArg)
                .map(|p| format!(" (with `{p}`)"))
                .unwrap_or_default()
        ),
        ErrorKind::MissingRequiredArgument => format!(
            "missing {}",
            context(e, ContextKind::InvalidArg).unwrap_or_else(|| "an argument".into())
        ),
        _ => {
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or_default();
            options::echo_words(first.trim_start_matches("error: "))
        }
    }
}
