//! `qpath`: what vLLM's FlashInfer backend decides for a GPU, a release and a `vllm serve` command line. The binary
//! (`src/main.rs`) only hands `argv` to [`run`] and prints; everything else is here, so tests (the crate's own and
//! the page's JS API tests, which compare the API with this CLI) call the real parser.
//!
//! ```text
//! qpath [--gpu ID | --compute-capability X.Y] [--vllm VERSION] [--cuda X.Y] [--trtllm-cubins yes|no]
//!       [--flashinfer VERSION] [--format table|json|markdown] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
//! qpath matrix [same options; --format markdown|json] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
//! qpath gpus | releases
//! ```

use qpath_core::gpu::GPUS;
use qpath_core::options::{self, OptionKey, ScenarioOptions};
use qpath_core::release::{FlashInfer, Release};
use qpath_core::resolve::{resolve, Scenario, DEFAULT_CUDA};
use qpath_core::{matrix, render};

/// The usage text; its release range and defaults come from the core's data.
pub fn usage() -> String {
    format!(
        "usage:
  qpath [--gpu ID | --compute-capability X.Y] [--vllm VERSION] [--cuda X.Y] [--trtllm-cubins yes|no]
        [--flashinfer VERSION] [--format table|json|markdown] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
  qpath matrix [the same options, --format markdown|json] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
  qpath gpus        list the GPU table's ids
  qpath releases    list the vLLM releases ({range}) and the FlashInfer each pins
defaults: --gpu {gpu} --vllm {latest} --cuda {cuda}, TRTLLM cubins available in every release (flashinfer-cubin
  installed or NVIDIA's artifactory reachable); --trtllm-cubins no: offline without flashinfer-cubin
--vllm: a release ({range}) or any vLLM version (a nightly such as 0.27.2rc1.dev77+g1234abc, a patch): it runs as
  the last release at or before it, and the report says so
--flashinfer: the installed flashinfer-python when it is not the release's pin ({fis}); FlashInfer's rules follow it",
        fis = FlashInfer::list_text(),
        range = Release::range_text(),
        gpu = options::DEFAULT_GPU,
        latest = Release::LATEST.name(),
        cuda = DEFAULT_CUDA,
    )
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Format {
    Table,
    Json,
    Markdown,
}

/// What the command line asks for.
#[derive(Debug)]
pub struct Args {
    pub matrix: bool,
    pub options: ScenarioOptions,
    pub format: Option<Format>,
    /// The vLLM command line's words, after `--`.
    pub command: Vec<String>,
}

impl Args {
    /// The scenario: the options (the core's defaults where absent) and the words joined back into one line.
    pub fn scenario(&self) -> Result<Scenario, String> {
        let line: Vec<String> = self.command.iter().map(|s| shell_quote(s)).collect();
        self.options.scenario(line.join(" ")).map_err(|e| option_message(&e))
    }
}

/// An option error as the CLI says it: `--gpu `h900` is not in qpath's GPU table (see `qpath gpus`)`.
fn option_message(e: &options::OptionError) -> String {
    let hint = if e.key == OptionKey::Gpu { " (see `qpath gpus`)" } else { "" };
    format!("{} `{}` {}{hint}", e.key.flag(), e.value, e.reason)
}

/// Quotes one argument for a POSIX shell when it needs it, so the core parses the joined line back to the same tokens.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=,@%+".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Reads qpath's own options and the vLLM command line after `--`.
pub fn parse_args(argv: &[String]) -> Result<Args, String> {
    let mut a = Args {
        matrix: false,
        options: ScenarioOptions::default(),
        format: None,
        command: vec![],
    };
    let mut i = 0;
    if argv.first().map(String::as_str) == Some("matrix") {
        a.matrix = true;
        i = 1;
    }
    while i < argv.len() {
        let arg = argv[i].as_str();
        if arg == "--" {
            a.command = argv[i + 1..].to_vec();
            break;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg, None),
        };
        let key = OptionKey::ALL.into_iter().find(|k| k.flag() == name);
        if key.is_none() && name != "--format" {
            return Err(format!("unknown option `{arg}`"));
        }
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                argv.get(i).cloned().ok_or_else(|| format!("`{name}` needs a value"))?
            }
        };
        match key {
            Some(key) => a.options.set(key, &value).map_err(|e| option_message(&e))?,
            None => {
                a.format = Some(match value.as_str() {
                    "table" => Format::Table,
                    "json" => Format::Json,
                    "markdown" | "md" => Format::Markdown,
                    _ => return Err(format!("--format `{value}`: table, json or markdown")),
                })
            }
        }
        i += 1;
    }
    if a.command.is_empty() {
        return Err("give the vLLM command line after `--`, e.g. `qpath --gpu l4 -- vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8`".into());
    }
    Ok(a)
}

/// Runs `qpath ARGS…` and returns what it prints on success; an error is the message for standard error.
pub fn run(argv: &[String]) -> Result<String, String> {
    match argv.first().map(String::as_str) {
        Some("gpus") => {
            return Ok(GPUS
                .iter()
                .map(|g| format!("{:<24} {:<5} {}\n", g.id, g.capability.to_string(), g.name))
                .collect());
        }
        Some("releases") => {
            return Ok(Release::ALL
                .iter()
                .map(|r| match r.note() {
                    Some(note) => format!("{:<14} flashinfer {:<13} {note}\n", r.name(), r.flashinfer()),
                    None => format!("{:<14} flashinfer {}\n", r.name(), r.flashinfer()),
                })
                .collect());
        }
        Some("-h" | "--help" | "help") | None => return Ok(format!("{}\n", usage())),
        _ => {}
    }
    let a = parse_args(argv)?;
    let scenario = a.scenario()?;
    if a.matrix {
        let m = matrix::matrix(&scenario)?;
        return Ok(match a.format {
            Some(Format::Json) => serde_json::to_string_pretty(&m).map_err(|e| e.to_string())? + "\n",
            _ => matrix::markdown(&m),
        });
    }
    let report = resolve(&scenario);
    Ok(match a.format.unwrap_or(Format::Table) {
        Format::Json => serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n",
        Format::Markdown => render::markdown(&report, &scenario.command_line, None),
        Format::Table => render::text(&report),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
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
        let e = parse_args(&args("--vllm 0.20.1 -- vllm serve m")).unwrap_err();
        assert_eq!(
            e,
            "--vllm `0.20.1` is before the first vLLM release qpath knows (0.24.0 to 0.33.0)"
        );
        let e = parse_args(&args("--flashinfer 0.6.15 -- vllm serve m")).unwrap_err();
        assert!(e.starts_with("--flashinfer `0.6.15` is not a FlashInfer release"), "{e}");
    }

    #[test]
    fn usage_and_releases_come_from_the_data() {
        let u = usage();
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

    #[test]
    fn quoting_keeps_json_arguments_whole() {
        assert_eq!(shell_quote("fp8"), "fp8");
        assert_eq!(
            shell_quote(r#"{"use_trtllm_attention": false}"#),
            r#"'{"use_trtllm_attention": false}'"#
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
