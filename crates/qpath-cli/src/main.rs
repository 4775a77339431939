//! `qpath`: what vLLM's FlashInfer backend decides for a GPU, a release and a `vllm serve` command line.
//!
//! ```text
//! qpath [--gpu ID | --compute-capability X.Y] [--vllm RELEASE] [--cuda X.Y] [--trtllm-cubins yes|no]
//!       [--format table|json|markdown] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
//! qpath matrix [same options; --format markdown|json] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
//! qpath gpus | releases
//! ```

use std::process::ExitCode;

use qpath_core::capability::CudaVersion;
use qpath_core::gpu::GPUS;
use qpath_core::release::Release;
use qpath_core::resolve::{resolve, Hardware, Scenario, DEFAULT_CUDA};
use qpath_core::{matrix, render};

const USAGE: &str = "usage:
  qpath [--gpu ID | --compute-capability X.Y] [--vllm RELEASE] [--cuda X.Y] [--trtllm-cubins yes|no]
        [--format table|json|markdown] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
  qpath matrix [the same options, --format markdown|json] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]
  qpath gpus        list the GPU table's ids
  qpath releases    list the vLLM releases and the FlashInfer each pins
defaults: --gpu h100-sxm --vllm 0.33.0 --cuda 12.9, TRTLLM cubins as the release ships them (yes up to 0.25.1, no from 0.26.0)";

#[derive(Clone, Copy, Debug, PartialEq)]
enum Format {
    Table,
    Json,
    Markdown,
}

#[derive(Debug)]
struct Args {
    matrix: bool,
    hardware: Hardware,
    release: Release,
    cuda: CudaVersion,
    cubins: Option<bool>,
    format: Option<Format>,
    command: Vec<String>,
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

fn parse_args(argv: &[String]) -> Result<Args, String> {
    let mut a = Args {
        matrix: false,
        hardware: Hardware::parse("h100-sxm")?,
        release: Release::LATEST,
        cuda: DEFAULT_CUDA,
        cubins: None,
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
        let takes_value = matches!(
            name,
            "--gpu" | "--compute-capability" | "--vllm" | "--cuda" | "--trtllm-cubins" | "--format"
        );
        if !takes_value {
            return Err(format!("unknown option `{arg}`"));
        }
        let value = match inline {
            Some(v) => v,
            None => {
                i += 1;
                argv.get(i).cloned().ok_or_else(|| format!("`{name}` needs a value"))?
            }
        };
        match name {
            "--gpu" => {
                a.hardware = Hardware::Gpu(
                    qpath_core::gpu::find(&value)
                        .ok_or_else(|| format!("--gpu `{value}` is not in the GPU table (see `qpath gpus`)"))?,
                )
            }
            "--compute-capability" => {
                a.hardware = Hardware::Capability(value.parse().map_err(|e| format!("--compute-capability: {e}"))?)
            }
            "--vllm" => a.release = value.parse()?,
            "--cuda" => a.cuda = value.parse().map_err(|e| format!("--cuda: {e}"))?,
            "--trtllm-cubins" => {
                a.cubins = Some(match value.as_str() {
                    "yes" | "true" | "1" => true,
                    "no" | "false" | "0" => false,
                    _ => return Err(format!("--trtllm-cubins `{value}`: say yes or no")),
                })
            }
            _ => {
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

fn run(argv: &[String]) -> Result<String, String> {
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
                .map(|r| format!("{:<14} flashinfer {}\n", r.name(), r.flashinfer()))
                .collect());
        }
        Some("-h" | "--help" | "help") | None => return Ok(format!("{USAGE}\n")),
        _ => {}
    }
    let a = parse_args(argv)?;
    let line: Vec<String> = a.command.iter().map(|s| shell_quote(s)).collect();
    let scenario = Scenario {
        hardware: a.hardware,
        release: a.release,
        cuda: a.cuda,
        trtllm_cubins: a.cubins,
        command_line: line.join(" "),
    };
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

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match run(&argv) {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("qpath: {e}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
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
        assert!(matches!(a.hardware, Hardware::Gpu(g) if g.id == "l4"));
        assert_eq!(a.release, Release::V0_25_0);
        assert_eq!(a.cuda, CudaVersion::new(12, 8));
        assert_eq!(a.cubins, Some(false));
        assert_eq!(a.command, args("vllm serve m --kv-cache-dtype fp8"));
        assert!(parse_args(&args("--gpu h900 -- vllm serve m"))
            .unwrap_err()
            .contains("`h900`"));
        assert!(parse_args(&args("--bogus 1 -- vllm serve m"))
            .unwrap_err()
            .contains("`--bogus`"));
        assert!(parse_args(&args("--gpu l4")).unwrap_err().contains("after `--`"));
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
