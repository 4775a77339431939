//! qpath's own options, read by clap: the command ([`command`]), what a command line asks for ([`Action`]) and the
//! messages of a command line qpath cannot read ([`UsageError`]): clap's own (did-you-mean on qpath's options, a
//! missing value) reworded in qpath's words, a GPU id with the ids it is close to, and the hint for a vLLM command
//! without `--` before it.

use clap::builder::{PossibleValue, PossibleValuesParser, StringValueParser, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, ArgMatches, Command, ValueHint};

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
    /// `--brief`, `--wide`, `--width N`: how a text answer is laid out (the width is settled by
    /// [`crate::width::layout`] once the terminal is known).
    pub layout: crate::width::LayoutFlags,
    /// Standard output's width when it is a terminal (set by [`crate::run_in`]; `None`: not a terminal).
    pub terminal: Option<usize>,
    /// `--model-config FILE`: the model's config.json.
    pub model_config: Option<String>,
    /// `--draft-model-config FILE`: the speculative drafter's config.json (an EAGLE head or a draft model).
    pub draft_model_config: Option<String>,
    /// The vLLM command line's words, after `--`.
    pub command: Vec<String>,
    /// `--gpu auto` or `qpath doctor`: read this machine ([`crate::machine`]).
    pub machine: Option<crate::machine::Ask>,
}

impl Args {
    /// How a text answer is laid out: the flags, then the terminal.
    pub fn text_layout(&self) -> qpath_core::columns::Layout {
        crate::width::layout(self.layout, self.terminal)
    }
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
       qpath doctor [OPTIONS] [-- vllm serve MODEL [FLAGS...]]
       qpath gpus | models | releases [--format table|json] | completions SHELL
see `qpath --help`";

/// The examples `--help` shows: a comment (or none) and a command line; `-h` shows [`SHORT_EXAMPLES`] of them.
const EXAMPLES: [(&str, &str); 9] = [
    (
        "",
        "qpath --gpu l4 --vllm 0.25.0-prefix -- vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
    ),
    (
        "",
        "qpath --gpu h100-sxm --format json -- vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER",
    ),
    (
        "all GPUs x FlashInfer cache dtypes",
        "qpath matrix --vllm 0.33.0 -- vllm serve google/gemma-3-27b-it",
    ),
    (
        "the backend vLLM picks on every GPU",
        "qpath matrix --backend picked -- vllm serve Qwen/Qwen3-4B",
    ),
    ("L4's row only", "qpath matrix --gpu l4 -- vllm serve Qwen/Qwen3-4B"),
    (
        "every release, and what changed where",
        "qpath timeline --gpu l4 -- vllm serve M --kv-cache-dtype fp8",
    ),
    (
        "what to run instead",
        "qpath fix --gpu l4 --vllm 0.25.0-prefix -- vllm serve M --kv-cache-dtype fp8",
    ),
    (
        "a log: its scenario, line by line",
        "qpath explain-log --gpu rtx-5090 vllm.log",
    ),
    (
        "CI: the exit code only",
        "qpath --check -- vllm serve M --kv-cache-dtype fp8 || exit 1",
    ),
];

/// The [`EXAMPLES`] `-h` shows.
const SHORT_EXAMPLES: [usize; 3] = [0, 2, 8];

/// `examples` at `width` columns: a comment line above its command, and a command too long for a line continued
/// with ` \` (at its `--` when that is enough), so that each pastes into a shell as it is printed.
fn examples<'a>(list: impl IntoIterator<Item = &'a (&'a str, &'a str)>, width: usize) -> String {
    let mut out = String::from("examples:");
    for (comment, command) in list {
        if !comment.is_empty() {
            out.push_str("\n  # ");
            out.push_str(comment);
        }
        out.push('\n');
        out.push_str(&shell_lines(command, width));
    }
    out
}

/// A command line indented by two, continued with ` \` on lines indented by four when it is wider than `width`.
fn shell_lines(command: &str, width: usize) -> String {
    let fits = |line: &str, indent: usize| indent + line.chars().count() <= width;
    if fits(command, 2) {
        return format!("  {command}");
    }
    if let Some((qpath, vllm)) = command.split_once(" -- ") {
        if fits(qpath, 2 + " -- \\".len()) && fits(vllm, 4) {
            return format!("  {qpath} -- \\\n    {vllm}");
        }
    }
    let mut lines: Vec<String> = vec![];
    let mut line = String::new();
    for word in command.split(' ') {
        let indent = if lines.is_empty() { 2 } else { 4 };
        if !line.is_empty() && !fits(&format!("{line} {word} \\"), indent) {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    let indented: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{}{l}", if i == 0 { "  " } else { "    " }))
        .collect();
    indented.join(" \\\n")
}

/// The exit codes, shown by `--help` (the README's table says the same).
pub const EXIT_CODES: &str = "exit codes (every command: a scenario, matrix, timeline, fix, doctor, …):
  0  vLLM would start and serve (matrix: every cell; timeline: at --vllm,
     default the newest release), as far as qpath checks: the attention path,
     the flags' range checks and --quantization against the checkpoint, not
     memory, weight loading or the rest of the config validation; doctor
     without a command line: always 0
  1  vLLM would fail: the report says where (the scenario's error, or a
     group's `error`; matrix: any cell)
  2  qpath could not read the input (its own options, a config.json it cannot
     read) or cannot model it (\"qpath cannot model this\"; matrix: a cell it
     cannot model and none that fails), including a command that is not
     `vllm serve` or a launcher qpath reads (env, sudo, uv run, python -m,
     docker run), and standard output qpath cannot write (a full disk); a
     reader that goes away (`| head`) keeps the code";

/// [`EXIT_CODES`] at `width` columns (as it is at 80 or more; re-wrapped, each code's text indented, below).
fn exit_codes(width: usize) -> String {
    if width >= crate::width::NOT_A_TERMINAL {
        return EXIT_CODES.to_string();
    }
    let mut lines = EXIT_CODES.lines();
    let mut out = wrap(lines.next().unwrap_or_default(), "", "  ", width);
    // (the code, its text)
    let mut entries: Vec<(&str, String)> = vec![];
    for line in lines {
        match (line.trim_start().split_once("  "), entries.last_mut()) {
            (Some((code, text)), _) if code.len() == 1 && code.chars().all(|c| c.is_ascii_digit()) => {
                entries.push((code, text.to_string()))
            }
            (_, Some((_, text))) => {
                text.push(' ');
                text.push_str(line.trim());
            }
            (_, None) => entries.push(("", line.trim().to_string())),
        }
    }
    for (code, text) in entries {
        out.push('\n');
        out.push_str(&wrap(&text, &format!("  {code:<3}"), "     ", width));
    }
    out
}

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

/// `text` wrapped at `width` columns, its lines after the first indented by two spaces.
fn hanging(text: &str, width: usize) -> String {
    wrap(text, "", "  ", width)
}

/// `text` wrapped at `width` columns (at blanks), its first line indented by `first`, the others by `rest`; no
/// newline after the last line.
fn wrap(text: &str, first: &str, rest: &str, width: usize) -> String {
    let wrapped = qpath_core::columns::wrap_hanging(text, width, first, rest, &[]);
    wrapped.trim_end_matches('\n').to_string()
}

/// Which side of `--` an option goes on, with an example; wrapped at `width` columns.
fn sides(width: usize) -> String {
    let rule = hanging(
        "qpath's options (--gpu, --vllm, --format, …) go before `--`; after it, the vLLM command line as you would \
         run it, with vLLM's own flags (--kv-cache-dtype, --attention-backend, …), or the same as one quoted string:",
        width,
    );
    format!("{rule}\n  qpath --gpu l4 -- \"HF_HOME=/h vllm serve M --kv-cache-dtype fp8\"")
}

/// The text after the options in `-h` (and with no argument): the sides of `--`, three examples, the exit codes in
/// a line; `--help` has the rest. Prose wrapped at `width` columns (the examples fit 80).
fn short_after_help(width: usize) -> String {
    format!(
        "{}

{}

{}",
        sides(width),
        examples(SHORT_EXAMPLES.iter().map(|&i| &EXAMPLES[i]), width),
        hanging(
            "exit codes: 0 vLLM would start and serve, 1 vLLM would fail, 2 qpath could not read or cannot model the \
             input; `qpath --help` says more (defaults, versions, where MODEL's config.json is read, all the examples)",
            width
        )
    )
}

/// The text after the options: where qpath's options and vLLM's go, the defaults, what `--vllm`, `--flashinfer` and
/// MODEL are read as, the exit codes, the examples; prose wrapped at `width` columns (the exit codes and examples fit
/// 80).
fn after_help(width: usize) -> String {
    let para = |text: String| hanging(&text, width);
    [
        sides(width),
        para(format!(
            "defaults: --gpu {gpu} --vllm {latest} --cuda {cuda}; TRTLLM cubins available in every release \
             (flashinfer-cubin installed or NVIDIA's artifactory reachable); --trtllm-cubins no: offline without \
             flashinfer-cubin",
            gpu = options::DEFAULT_GPU,
            latest = Release::LATEST.name(),
            cuda = DEFAULT_CUDA,
        )),
        para(format!(
            "--vllm: a release ({}) or any vLLM version (a nightly such as 0.27.2rc1.dev77+g1234abc, a patch): it \
             runs as the release whose commit its +g… names, else the last release at or before it, and the report \
             says so",
            Release::range_text()
        )),
        para(format!(
            "--flashinfer: the installed flashinfer-python when it is not the release's pin ({}); FlashInfer's rules \
             follow it; any other version from the first on runs as the newest of those at or below it (0.6.15.post1 \
             as 0.6.14), and says so",
            FlashInfer::list_text()
        )),
        para(
            "MODEL's config.json: --model-config FILE, else MODEL as a directory with config.json, else MODEL in the \
             local Hugging Face cache ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub; HF_HOME=… \
             before `vllm` counts), else qpath's preset of that id (`qpath models`); the drafter's (the speculative \
             config's \"model\") likewise: --draft-model-config FILE, a directory, the HF cache, a preset"
                .into(),
        ),
        para("with --format json, an error in qpath's options or input is one JSON object:".into())
            + "\n  {\"error\": {\"type\": \"usage\" | \"input\", \"message\": …}}",
    ]
    .join("\n")
        + "\n\n"
        + &exit_codes(width)
        + "\n\n"
        + &examples(&EXAMPLES, width)
}

/// `--gpu`'s help: what [`qpath_core::gpu::lookup`] reads.
const GPU_HELP: &str = "id, name or nvidia-smi name; auto reads this machine (default h100-sxm)";

/// `--compute-capability`'s help: what [`options::parse_compute_capability`] reads.
const CAPABILITY_HELP: &str = "instead of --gpu: 9.0, 90 or sm_90";

/// The value parser of `--gpu`, `--vllm`, `--flashinfer`, …: any text (the option's own parser reads it later, with
/// qpath's messages: [`options::ScenarioOptions::set`]), and the values a shell's completion offers
/// ([`TypedValueParser::possible_values`]: the GPU ids, the releases, the FlashInfer versions; hidden from help).
#[derive(Clone)]
struct Offered(Vec<String>);

impl Offered {
    fn of(key: OptionKey) -> Offered {
        let names: Vec<String> = match key {
            OptionKey::Gpu => std::iter::once("auto".to_string())
                .chain(GPUS.iter().map(|g| g.id.to_string()))
                .collect(),
            OptionKey::ComputeCapability => {
                let mut caps: Vec<_> = GPUS.iter().map(|g| g.capability).collect();
                caps.sort();
                caps.dedup();
                caps.iter().map(|c| c.to_string()).collect()
            }
            OptionKey::Vllm => Release::ALL.iter().map(|r| r.name().to_string()).collect(),
            OptionKey::Cubins => vec!["yes".into(), "no".into()],
            OptionKey::FlashInfer => FlashInfer::ALL.iter().map(|f| f.name().to_string()).collect(),
            // The CUDA builds torch publishes for the releases qpath covers (any other version is read too).
            OptionKey::Cuda => qpath_core::choices::cuda_versions().iter().map(|c| c.to_string()).collect(),
        };
        Offered(names)
    }
}

impl TypedValueParser for Offered {
    type Value = String;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &std::ffi::OsStr) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().map(PossibleValue::new)))
    }
}

/// `--gpu`, `--vllm`, …: the scenario's options (the default action and `qpath matrix`).
fn scenario_args(cmd: Command, formats: &'static [&'static str]) -> Command {
    let value = |key: OptionKey, name: &'static str, help: &'static str| {
        Arg::new(key.name())
            .long(&key.flag()[2..])
            .value_name(name)
            .help(help)
            .value_parser(Offered::of(key))
            .hide_possible_values(true)
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
            Arg::new("gpu-index")
                .long("gpu-index")
                .value_name("N")
                .value_parser(clap::value_parser!(u16))
                .value_hint(ValueHint::Other)
                .help("with --gpu auto: nvidia-smi's GPU N (default 0, the first)"),
        )
        .arg(
            Arg::new("site-packages")
                .long("site-packages")
                .value_name("DIR")
                .value_hint(ValueHint::DirPath)
                .help("with --gpu auto: the Python environment's site-packages (default: the active one)"),
        )
        .arg(
            Arg::new("model-config")
                .long("model-config")
                .value_name("FILE")
                .value_hint(ValueHint::FilePath)
                .help("the model's config.json"),
        )
        .arg(
            Arg::new("draft-model-config")
                .long("draft-model-config")
                .value_name("FILE")
                .value_hint(ValueHint::FilePath)
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
            Arg::new("brief")
                .long("brief")
                .action(ArgAction::SetTrue)
                .help("print only the verdict and the group table (one screen)"),
        )
        .arg(
            Arg::new("wide")
                .long("wide")
                .action(ArgAction::SetTrue)
                .conflicts_with("width")
                .help("do not wrap: one line per row, step and log line, vLLM's log lines byte for byte (grep, copy)"),
        )
        .arg(
            Arg::new("width")
                .long("width")
                .value_name("COLUMNS")
                .value_parser(clap::value_parser!(u16).range(40..))
                // A number: no file names in completions.
                .value_hint(ValueHint::Other)
                .help("wrap text to COLUMNS (default: the terminal's width; 80 when not a terminal)"),
        )
        .arg(
            Arg::new("command")
                .value_name("VLLM COMMAND")
                .num_args(1..)
                .last(true)
                .allow_hyphen_values(true)
                .value_hint(ValueHint::CommandWithArguments)
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

/// qpath's command: the default action's options, `matrix`, `gpus`, `releases`, `completions`; its help laid out for
/// 80 columns (standard output not a terminal).
pub fn command() -> Command {
    command_for(None)
}

/// The width help is wrapped to: a terminal's width (`terminal`, at most 100 columns, clap's cap), else 80.
pub fn help_width(terminal: Option<usize>) -> usize {
    terminal
        .filter(|&w| w > 0)
        .map_or(crate::width::NOT_A_TERMINAL, |w| w.min(100))
}

/// [`command`] with its help wrapped for a standard output that is a terminal `terminal` columns wide (`None`: not a
/// terminal).
pub fn command_for(terminal: Option<usize>) -> Command {
    let width = help_width(terminal);
    let root = Command::new("qpath")
        .term_width(width)
        .about("What vLLM's attention backends decide for a GPU, a release and a `vllm serve` command line")
        .version(env!("CARGO_PKG_VERSION"))
        .long_version(version_text())
        .override_usage("qpath [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]\n       qpath <COMMAND>")
        .after_help(short_after_help(width))
        .after_long_help(after_help(width))
        .args_conflicts_with_subcommands(true)
        .args_override_self(true)
        .subcommand(scenario_args(
            Command::new("matrix")
                .about("every GPU x cache dtype: FlashInfer's groups, or vLLM's backend")
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
                .about("the command line at every release, and what changed where")
                .long_about(
                    "one command line at every vLLM release qpath models: each release's answer, and what changed \
                     where",
                )
                .args_override_self(true),
            &["markdown", "md", "table", "json"],
        ))
        .subcommand(scenario_args(
            Command::new("fix")
                .about("the command lines one or two changes away that run, best first")
                .long_about(
                    "for a command line vLLM fails with (or runs without the CUDA graphs asked for): the command \
                     lines one or two changes away that run, best first",
                )
                .args_override_self(true),
            &["markdown", "md", "table", "json"],
        ))
        .subcommand(
            scenario_args(
                Command::new("explain-log")
                    .about("a vLLM log or traceback: its scenario and qpath's answer")
                    .long_about(
                        "read a vLLM start-up log or traceback: its scenario (version, GPU, non-default args, \
                         model), qpath's answer, and qpath's log lines and error beside the log's, line by line; \
                         options fill what the log lacks and override what it says",
                    )
                    .args_override_self(true)
                    .arg(
                        Arg::new("log")
                            .value_name("FILE")
                            .value_hint(ValueHint::FilePath)
                            .required(true)
                            .help("the log (`-`: standard input)"),
                    ),
                &["table", "markdown", "md", "json"],
            )
            .mut_arg("command", |a| a.help("the command line to use when the log has none")),
        )
        .subcommand(
            scenario_args(
                Command::new("doctor")
                    .about("what qpath reads on this machine (--gpu auto), and the flag for what it cannot")
                    .long_about(
                        "read this machine as --gpu auto does (nvidia-smi; the active Python environment's vllm, \
                         flashinfer-python and torch, without importing them; the VLLM_* variables qpath reads) and \
                         say what was read, from where, what could not be and the flag that passes it; with a \
                         command line after `--`, also its answer. Exit 0 when it only reports (whatever it could \
                         not read); with a command line, that answer's code",
                    )
                    .args_override_self(true),
                &["table", "markdown", "md", "json"],
            )
            .mut_arg("command", |a| a.help("a command line to answer (optional)")),
        )
        .subcommand(
            Command::new("gpus")
                .about("list the GPU table")
                .args_override_self(true)
                .arg(format_arg(&["table", "json"])),
        )
        .subcommand(
            Command::new("models")
                .about("list the model presets (any other: its folder, --model-config)")
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

/// Reads a command line (without the program name); help is laid out for 80 columns.
pub fn parse_args(argv: &[String]) -> Result<Action, UsageError> {
    parse_args_in(argv, None)
}

/// [`parse_args`] for a standard output that is a terminal `terminal` columns wide (`None`: not a terminal): the
/// width help is wrapped to.
pub fn parse_args_in(argv: &[String], terminal: Option<usize>) -> Result<Action, UsageError> {
    if argv.is_empty() {
        return Ok(Action::Text(command_for(terminal).render_help().to_string()));
    }
    let argv = &crate::sides::hoist_globals(argv)?;
    let words = std::iter::once("qpath".to_string()).chain(argv.iter().cloned());
    let m = match command_for(terminal).try_get_matches_from(words) {
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
        Some(("doctor", sub)) => sided(scenario_of(sub, Mode::Doctor), argv),
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
    Doctor,
}

fn scenario_of(m: &ArgMatches, mode: Mode) -> Result<Action, UsageError> {
    let matrix = mode == Mode::Matrix;
    let mut options = ScenarioOptions::default();
    let mut given = Vec::new();
    let machine = crate::machine::ask_of(m, mode == Mode::Doctor, mode == Mode::ExplainLog)?;
    for key in OptionKey::ALL {
        if let Some(value) = m.get_one::<String>(key.name()) {
            if key == OptionKey::Gpu && crate::machine::is_auto(value) {
                continue;
            }
            options.set(key, value).map_err(|e| UsageError::usage(option_message(&e)))?;
            given.push(key);
        }
    }
    let command: Vec<String> = m.get_many::<String>("command").into_iter().flatten().cloned().collect();
    if command.is_empty() && !matches!(mode, Mode::ExplainLog | Mode::Doctor) {
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
        layout: crate::width::LayoutFlags {
            brief: m.get_flag("brief"),
            wide: m.get_flag("wide"),
            width: m.get_one::<u16>("width").map(|w| usize::from(*w)),
        },
        terminal: None,
        model_config: m.get_one::<String>("model-config").cloned(),
        draft_model_config: m.get_one::<String>("draft-model-config").cloned(),
        command,
        machine,
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
    ["matrix", "gpus", "models", "releases", "completions", "doctor"]
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
            "unknown command `{}`{} (qpath's commands: matrix, timeline, fix, explain-log, doctor, gpus, models, releases, completions; a vLLM command goes after `--`)",
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
