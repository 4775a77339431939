//! Whether the engine captures full CUDA graphs of decode batches at start-up: the decode mode of the resolved
//! `compilation_config.cudagraph_mode` (`vllm/config/vllm.py`): `--enforce-eager` sets `NONE`; an explicit
//! `cudagraph_mode` (`-cc.cudagraph_mode=…`, `--compilation-config '{"cudagraph_mode": …}'`) is kept; otherwise the
//! optimization level's default (`-O0` NONE, `-O1` PIECEWISE, `-O2` (the default) and `-O3` FULL_AND_PIECEWISE).
//! Read from the options vLLM accepts that qpath keeps as written ([`super::ServeCommand::unused`]).

use super::shell::tokenize;
use super::ServeCommand;

/// What the command line sets for CUDA graphs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CudaGraphs {
    /// The `cudagraph_mode` in effect before the backend's own downgrades, upper case (`FULL_AND_PIECEWISE`).
    pub mode: String,
    /// What set it, for the trace (`the default -O2`, `--enforce-eager`).
    pub set_by: String,
}

impl CudaGraphs {
    /// The decode mode is FULL: decode-only batches are captured (built, planned and run) at engine start.
    pub fn full_decode(&self) -> bool {
        matches!(self.mode.as_str(), "FULL" | "FULL_DECODE_ONLY" | "FULL_AND_PIECEWISE")
    }
}

/// The option name and its value of one kept option as written (`-O0`, `-O 1`, `--optimization-level=2`,
/// `-cc.cudagraph_mode=NONE`, `--compilation-config '{…}'`).
fn split(written: &str) -> Option<(String, String)> {
    let words: Vec<String> = tokenize(written).ok()?.into_iter().map(|w| w.text).collect();
    let first = words.first()?.clone();
    if let Some(level) = first.strip_prefix("-O").filter(|l| !l.is_empty() && !l.starts_with('=')) {
        return Some(("-O".into(), level.trim_start_matches('.').to_string()));
    }
    match first.split_once('=') {
        Some((name, value)) => Some((name.to_string(), value.to_string())),
        None => Some((first, words.get(1).cloned().unwrap_or_default())),
    }
}

/// The `cudagraph_mode` of the last `--compilation-config` JSON or dotted key that names one.
fn explicit_mode(name: &str, value: &str) -> Option<String> {
    match name {
        "-cc.cudagraph_mode" | "--compilation-config.cudagraph_mode" => Some(value.to_ascii_uppercase()),
        "-cc" | "--compilation-config" => serde_json::from_str::<serde_json::Value>(value)
            .ok()?
            .get("cudagraph_mode")?
            .as_str()
            .map(str::to_ascii_uppercase),
        _ => None,
    }
}

/// The resolved `cudagraph_mode` of `cmd`, before any backend or speculative-decoding downgrade.
pub fn cuda_graphs(cmd: &ServeCommand) -> CudaGraphs {
    let mut eager = false;
    let mut level: Option<String> = None;
    let mut mode: Option<String> = None;
    for written in &cmd.unused {
        let Some((name, value)) = split(written) else { continue };
        match name.as_str() {
            "--enforce-eager" => eager = true,
            "--no-enforce-eager" => eager = false,
            "-O" | "--optimization-level" => level = Some(value.trim_start_matches('O').to_string()),
            _ => {
                if let Some(m) = explicit_mode(&name, &value) {
                    mode = Some(m);
                }
            }
        }
    }
    if eager {
        return CudaGraphs {
            mode: "NONE".into(),
            set_by: "--enforce-eager".into(),
        };
    }
    if let Some(m) = mode {
        return CudaGraphs {
            mode: m,
            set_by: "--compilation-config's cudagraph_mode".into(),
        };
    }
    let (mode, set_by) = match level.as_deref() {
        Some("0") => ("NONE", "-O0"),
        Some("1") => ("PIECEWISE", "-O1"),
        Some(l @ ("2" | "3")) => ("FULL_AND_PIECEWISE", if l == "2" { "-O2" } else { "-O3" }),
        _ => ("FULL_AND_PIECEWISE", "the default optimization level -O2"),
    };
    CudaGraphs {
        mode: mode.into(),
        set_by: set_by.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graphs(line: &str) -> CudaGraphs {
        cuda_graphs(&crate::serve::parse(crate::release::Release::V0_33_0, line).unwrap())
    }

    #[test]
    fn the_decode_mode_follows_eager_levels_and_explicit_modes() {
        let m = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
        for (args, mode) in [
            ("", "FULL_AND_PIECEWISE"),
            ("--enforce-eager", "NONE"),
            ("--enforce-eager --no-enforce-eager", "FULL_AND_PIECEWISE"),
            ("-O0", "NONE"),
            ("-O 1", "PIECEWISE"),
            ("-O3", "FULL_AND_PIECEWISE"),
            ("-cc.cudagraph_mode=piecewise", "PIECEWISE"),
            (
                "--compilation-config '{\"cudagraph_mode\": \"FULL_DECODE_ONLY\"}'",
                "FULL_DECODE_ONLY",
            ),
            ("-O0 -cc.cudagraph_mode=FULL", "FULL"),
            ("-cc.cudagraph_mode=FULL --enforce-eager", "NONE"),
        ] {
            assert_eq!(graphs(&format!("{m} {args}")).mode, mode, "{args}");
        }
        assert!(graphs(m).full_decode());
        assert!(!graphs(&format!("{m} -O1")).full_decode());
        assert!(graphs(&format!("{m} -cc.cudagraph_mode=FULL_DECODE_ONLY")).full_decode());
    }
}
