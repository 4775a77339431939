//! `qpath completions SHELL`: clap_complete's script for [`crate::args::command`]. The values offered come from the
//! command itself: `--gpu` the GPU ids, `--vllm` the releases, `--flashinfer` the FlashInfer versions (their parsers'
//! possible values, hidden from help), `--format` and `matrix --backend` their choices, the config options and
//! explain-log's FILE file names, the subcommands. The vLLM command after `--` is a command for zsh and fish; bash
//! lists a positional's name among its candidates (`[VLLM COMMAND]...`, `<FILE>`), so its script offers nothing there
//! instead, and file names for explain-log's FILE.

use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Arg, Command};
use clap_complete::Shell;

/// The completion script for `shell`.
pub fn script(shell: Shell) -> String {
    let mut cmd = crate::args::command();
    if shell == Shell::Bash {
        cmd = no_positional_names(cmd);
    }
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "qpath", &mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    if shell == Shell::Bash {
        vllm_after_dashes(&files_for_explain_log(&text))
    } else {
        text
    }
}

/// bash: after `--`, the words are the vLLM command's, not qpath's: `vllm` first, then bash's own completion (file
/// names), never qpath's options or subcommands. Inserted after the function's locals (`opts=""`, its first
/// statement list's end).
fn vllm_after_dashes(script: &str) -> String {
    const ANCHOR: &str = "    opts=\"\"\n";
    const DASHES: &str = r#"    for (( i = 1; i < COMP_CWORD; i++ )); do
        if [[ "${COMP_WORDS[i]}" == "--" ]]; then
            if (( COMP_CWORD == i + 1 )); then
                COMPREPLY=( $(compgen -W "vllm" -- "${cur}") )
            fi
            return 0
        fi
    done
"#;
    match script.find(ANCHOR) {
        Some(at) => {
            let end = at + ANCHOR.len();
            format!("{}{DASHES}{}", &script[..end], &script[end..])
        }
        None => script.to_string(),
    }
}

/// A positional's parser for bash's script only: no candidate (bash's generator lists a positional without values by
/// its name).
#[derive(Clone)]
struct Nothing;

impl TypedValueParser for Nothing {
    type Value = String;

    fn parse_ref(&self, _: &Command, _: Option<&Arg>, value: &std::ffi::OsStr) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(std::iter::empty()))
    }
}

fn no_positional_names(cmd: Command) -> Command {
    let positionals: Vec<String> = cmd
        .get_positionals()
        .filter(|a| a.get_value_parser().possible_values().is_none())
        .map(|a| a.get_id().to_string())
        .collect();
    let mut cmd = positionals
        .iter()
        .fold(cmd, |c, id| c.mut_arg(id, |a| a.value_parser(Nothing)));
    let subs: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_string()).collect();
    for sub in subs {
        cmd = cmd.mut_subcommand(&sub, no_positional_names);
    }
    cmd
}

/// explain-log's case in bash's script: file names beside the options (its FILE).
fn files_for_explain_log(script: &str) -> String {
    const OFFER: &str = r#"COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )"#;
    const WITH_FILES: &str = r#"COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") $(compgen -f -- "${cur}") )"#;
    let mut out = String::with_capacity(script.len() + 128);
    let mut in_case = false;
    for line in script.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.ends_with(')') && trimmed.starts_with("qpath") && !trimmed.contains(' ') {
            in_case = trimmed == "qpath__explain__log)";
        }
        if in_case && trimmed == OFFER {
            out.push_str(&line.replace(OFFER, WITH_FILES));
        } else {
            out.push_str(line);
        }
    }
    out
}
