//! Which side of `--` an option belongs on: qpath's own options before it (and global options before a subcommand,
//! moved after it), vLLM's after it. qpath's options found among the vLLM command's words are answered with a hint
//! before vLLM's parser sees them (argparse's prefix matching would read `--gpu l4` as `--gpu-memory-utilization`);
//! vLLM's options given to qpath get a hint naming the side they go on. Also the notes `qpath matrix` adds: the rows
//! `--gpu` keeps, and the command's `--kv-cache-dtype` each column replaces.

use clap::Command;

use qpath_core::matrix::Matrix;
use qpath_core::options::{self, OptionKey};
use qpath_core::release::Release;
use qpath_core::serve;

use crate::args::{command, Args, UsageError};

/// One of qpath's long options: its name without dashes and whether it takes a value.
struct Own {
    name: String,
    takes_value: bool,
}

fn own_of(cmd: &Command) -> Vec<Own> {
    cmd.get_arguments()
        .filter_map(|a| {
            let name = a.get_long()?;
            (name != "help" && name != "version").then(|| Own {
                name: name.to_string(),
                takes_value: a.get_action().takes_values(),
            })
        })
        .collect()
}

/// Every long option qpath has, in any command (`--backend` is `matrix`'s).
fn all_own() -> Vec<Own> {
    let cmd = command();
    let mut all = own_of(&cmd);
    for sub in cmd.get_subcommands() {
        for o in own_of(sub) {
            if !all.iter().any(|a| a.name == o.name) {
                all.push(o);
            }
        }
    }
    all
}

/// `--name` or `--name=value`: the option's name (without dashes) and its inline value.
fn split_option(word: &str) -> Option<(&str, Option<&str>)> {
    let rest = word.strip_prefix("--").filter(|r| !r.is_empty())?;
    Some(match rest.split_once('=') {
        Some((k, v)) => (k, Some(v)),
        None => (rest, None),
    })
}

/// Global options before a subcommand (`qpath --format json gpus`, `qpath --gpu l4 matrix -- …`) moved after it, where
/// clap reads them; an option the subcommand does not take is said so. A command line without such a subcommand is
/// returned unchanged (clap then says what it says).
pub fn hoist_globals(argv: &[String]) -> Result<Vec<String>, UsageError> {
    let cmd = command();
    let root = own_of(&cmd);
    let mut i = 0;
    let mut moved: Vec<(usize, usize)> = Vec::new(); // [start, end) of each option with its value
    while i < argv.len() {
        let word = argv[i].as_str();
        if word == "--" {
            return Ok(argv.to_vec());
        }
        if let Some((name, inline)) = split_option(word) {
            let Some(o) = root.iter().find(|o| o.name == name) else {
                return Ok(argv.to_vec());
            };
            let end = if o.takes_value && inline.is_none() { i + 2 } else { i + 1 };
            if end > argv.len() {
                return Ok(argv.to_vec());
            }
            moved.push((i, end));
            i = end;
            continue;
        }
        let Some(sub) = cmd.get_subcommands().find(|s| s.get_name() == word) else {
            return Ok(argv.to_vec());
        };
        if moved.is_empty() {
            return Ok(argv.to_vec());
        }
        let takes = own_of(sub);
        for &(s, _) in &moved {
            let name = split_option(&argv[s]).map(|(n, _)| n).unwrap_or_default();
            if !takes.iter().any(|o| o.name == name) {
                let given = argv[moved[0].0..i].join(" ");
                let what = match takes.iter().map(|o| format!("--{}", o.name)).collect::<Vec<_>>() {
                    v if v.is_empty() => "it takes no option".to_string(),
                    v => format!("it takes {}", v.join(", ")),
                };
                return Err(UsageError {
                    message: options::echo_words(&format!(
                        "`--{name}` does not apply to `qpath {word}` ({what}); in `qpath {given} {word}` drop it"
                    )),
                    show_usage: true,
                });
            }
        }
        let mut out = vec![argv[i].clone()];
        out.extend_from_slice(&argv[..i]);
        out.extend_from_slice(&argv[i + 1..]);
        return Ok(out);
    }
    Ok(argv.to_vec())
}

/// The words of the vLLM command as a shell would split them (one quoted string: split at blanks).
fn command_words(command: &[String]) -> Vec<String> {
    match command {
        [one] if one.contains(char::is_whitespace) => one.split_whitespace().map(str::to_string).collect(),
        _ => command.to_vec(),
    }
}

/// qpath's own options among the vLLM command's words (`qpath -- vllm serve M --gpu l4`): the hint to put them before
/// `--`. An option name the release's `vllm serve` really has (exactly, not as a prefix) is vLLM's and stays.
pub fn own_options_after_dashes(argv: &[String], a: &Args) -> Option<UsageError> {
    let release = a.options.release_or_default();
    let own = all_own();
    let words = command_words(&a.command);
    let mut found: Vec<String> = Vec::new();
    let mut kept: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        let hit = split_option(word).and_then(|(name, inline)| {
            let o = own.iter().find(|o| o.name == name)?;
            let key = format!("--{name}");
            let vllms = serve::unused_option(release, word).is_some_and(|u| u.option == key);
            (!vllms).then_some(if o.takes_value && inline.is_none() && i + 1 < words.len() {
                2
            } else {
                1
            })
        });
        match hit {
            Some(n) => {
                found.push(words[i..i + n].join(" "));
                i += n;
            }
            None => {
                kept.push(word.clone());
                i += 1;
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    let own_words: Vec<&str> = argv.iter().map(String::as_str).take_while(|w| *w != "--").collect();
    let rest = if a.command.len() == 1 && words.len() > 1 {
        format!("\"{}\"", kept.join(" "))
    } else {
        kept.join(" ")
    };
    let fixed = [
        "qpath".to_string(),
        own_words.join(" "),
        found.join(" "),
        "--".to_string(),
        rest,
    ]
    .into_iter()
    .filter(|p| !p.is_empty())
    .collect::<Vec<_>>()
    .join(" ");
    let named = found.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>();
    let (list, is) = match named.split_last() {
        Some((last, rest)) if !rest.is_empty() => (format!("{} and {last}", rest.join(", ")), "are qpath's options"),
        _ => (named.concat(), "is qpath's option"),
    };
    Some(UsageError {
        message: options::echo_words(&format!(
            "{list} {is}, not vLLM's: put {} before `--`: {fixed}",
            if found.len() > 1 { "them" } else { "it" }
        )),
        show_usage: true,
    })
}

/// Whether some release's `vllm serve` has the option `key` (`--kv-cache-dtype`) under exactly that name.
fn is_vllm_option(key: &str) -> bool {
    Release::ALL
        .iter()
        .any(|&r| serve::unused_option(r, key).is_some_and(|u| u.option == key))
}

/// clap's "unknown option" for a vLLM option given to qpath (`qpath --kv-cache-dtype fp8 -- vllm serve M`): the hint
/// to put it after `--`, with the command line that does.
pub fn vllm_option_before_dashes(unknown: &str, argv: &[String]) -> Option<String> {
    let key = unknown.split('=').next().unwrap_or_default();
    if !key.starts_with("--") || !is_vllm_option(key) {
        return None;
    }
    let dashes = argv.iter().position(|w| w == "--").unwrap_or(argv.len());
    let at = argv[..dashes]
        .iter()
        .position(|w| w == unknown || w.split('=').next() == Some(key))?;
    let subcommands: Vec<String> = command().get_subcommands().map(|s| s.get_name().to_string()).collect();
    let takes_next = !argv[at].contains('=')
        && argv[..dashes]
            .get(at + 1)
            .is_some_and(|v| !v.starts_with('-') && !subcommands.contains(v));
    let end = if takes_next { at + 2 } else { at + 1 };
    let option = argv[at..end].join(" ");
    let own: Vec<&str> = argv[..at].iter().chain(&argv[end..dashes]).map(String::as_str).collect();
    let vllm = match argv.get(dashes + 1..) {
        Some(cmd) if !cmd.is_empty() => match cmd {
            [one] if one.contains(char::is_whitespace) => format!("\"{one} {option}\""),
            _ => format!("{} {option}", cmd.join(" ")),
        },
        _ => format!("vllm serve MODEL {option}"),
    };
    let fixed = ["qpath", &own.join(" "), "--", &vllm]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    Some(options::echo_words(&format!(
        "unknown option `{}`: `{key}` is vLLM's option: put it after `--`: {fixed}",
        options::echo(unknown)
    )))
}

/// `qpath matrix --compute-capability`: refused (the matrix's rows are qpath's GPU table, each with its own
/// capability). `--gpu` is honoured: the matrix keeps that GPU's row ([`restrict_matrix`]).
pub fn matrix_options(a: &Args) -> Result<(), UsageError> {
    if a.matrix && a.given.contains(&OptionKey::ComputeCapability) {
        return Err(UsageError {
            message: format!(
                "`qpath matrix` spans the GPUs of qpath's table (`qpath gpus`), each with its own compute capability: \
                 `{}` does not apply; give `--gpu ID` for one GPU's row, or run the scenario without `matrix`",
                OptionKey::ComputeCapability.flag()
            ),
            show_usage: true,
        });
    }
    Ok(())
}

/// `qpath matrix --gpu ID`: only that GPU's row.
pub fn restrict_matrix(m: &mut Matrix, a: &Args) {
    let Some(gpu) = a.options.gpu.filter(|_| a.given.contains(&OptionKey::Gpu)) else {
        return;
    };
    let width = m.kv_cache_dtypes.len();
    let Some(row) = m.gpus.iter().position(|g| *g == gpu.id) else {
        return;
    };
    if m.cells.len() >= (row + 1) * width {
        m.cells = m.cells.drain(row * width..(row + 1) * width).collect();
        m.gpus = vec![m.gpus[row]];
    }
}

/// The text matrix's note line: the command's own `--kv-cache-dtype`, replaced in every column by the column's.
pub fn matrix_notes(m: &Matrix, release: Release, command_line: &str) -> String {
    let Ok(cmd) = serve::parse(release, command_line) else {
        return String::new();
    };
    let own = cmd.kv_cache_dtype.as_str();
    if own == "auto" {
        return String::new();
    }
    let column = if m.kv_cache_dtypes.contains(&own) {
        format!("the command as given is column `{}`", options::echo(own))
    } else {
        format!("no column is `{}`", options::echo(own))
    };
    format!(
        "\nnote: each column sets its own cache dtype: the command's `--kv-cache-dtype {}` is replaced in every \
         column ({column})\n",
        options::echo(own)
    )
}
