//! Step 1, the shell: POSIX word splitting and quoting of the command line (no expansion), and the quoting
//! `format` writes back.

use super::{err, ParseError};

/// One shell word; `assignment` when it is `NAME=…` with the name and `=` unquoted (a shell variable assignment when it
/// precedes the command).
pub(super) struct Word {
    pub(super) text: String,
    pub(super) assignment: bool,
}

/// A shell variable name (`[A-Za-z_][A-Za-z0-9_]*`).
pub(super) fn is_shell_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic()) && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The words split so far and the one being read.
#[derive(Default)]
struct Words {
    words: Vec<Word>,
    cur: String,
    in_word: bool,
    /// Where in `cur` the first quoted character went (an `=` after it does not make an assignment).
    first_quote: Option<usize>,
}

impl Words {
    /// A quote or backslash starts (or continues) a word, even an empty one (`''`).
    fn quote(&mut self) {
        self.first_quote.get_or_insert(self.cur.len());
        self.in_word = true;
    }

    /// An unquoted blank ends the word being read, if any.
    fn finish(&mut self) {
        if self.in_word {
            // A copy of exactly the word's length; `cur` keeps its capacity for the next word (no regrowth per word).
            let text = self.cur.clone();
            self.cur.clear();
            let assignment = match text.find('=') {
                Some(eq) => is_shell_name(&text[..eq]) && self.first_quote.is_none_or(|q| q > eq),
                None => false,
            };
            self.words.push(Word { text, assignment });
        }
        self.in_word = false;
        self.first_quote = None;
    }
}

/// POSIX word splitting: blanks separate words; `'…'` is literal; `"…"` keeps `\` only before `$`, `` ` ``, `"`, `\`
/// and newline; an unquoted `\` quotes the next character; backslash-newline (also `\` CR LF) continues the line.
/// No expansion happens (`$VAR` stays as written). Unquoted operators (`|`, `&`, `;`, `<`, `>`, `(`, `)`) are refused:
/// qpath reads one simple command.
pub(super) fn tokenize(line: &str) -> Result<Vec<Word>, ParseError> {
    tokenize_upto(line, usize::MAX)
}

/// [`tokenize`] up to the end of the `limit`-th word: the words of a long entry that a reader needs (its option, not
/// its 100 KB value) without copying the rest. The text after them is not checked.
pub(super) fn tokenize_upto(line: &str, limit: usize) -> Result<Vec<Word>, ParseError> {
    let mut w = Words::default();
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            ' ' | '\t' | '\n' | '\r' => {
                w.finish();
                if w.words.len() >= limit {
                    return Ok(w.words);
                }
            }
            '\\' => {
                let mut chars = rest.chars();
                match chars.next() {
                    Some('\n') | None => {}
                    Some('\r') if chars.as_str().starts_with('\n') => {
                        chars.next();
                    }
                    Some(n) => {
                        w.quote();
                        w.cur.push(n);
                    }
                }
                rest = chars.as_str();
            }
            '\'' => {
                w.quote();
                let Some(end) = rest.find('\'') else {
                    return Err(err(
                        "unterminated single quote: the command line ends inside '…'",
                        Some(line.trim()),
                    ));
                };
                w.cur.push_str(&rest[..end]);
                rest = &rest[end + 1..];
            }
            '"' => {
                w.quote();
                let Some(after) = double_quoted(rest, &mut w.cur) else {
                    return Err(err(
                        "unterminated double quote: the command line ends inside \"…\"",
                        Some(line.trim()),
                    ));
                };
                rest = after;
            }
            '|' | '&' | ';' | '<' | '>' | '(' | ')' => {
                return Err(err(
                    format!(
                        "the shell operator `{c}` is not part of a `vllm serve` command: qpath reads one command \
                         (remove pipes, redirections, `&` and `;`, or quote the character)"
                    ),
                    Some(&c.to_string()),
                ))
            }
            _ => {
                // This character and the plain ones after it, copied at once.
                w.in_word = true;
                w.cur.push(c);
                let plain = rest.find(is_special).unwrap_or(rest.len());
                w.cur.push_str(&rest[..plain]);
                rest = &rest[plain..];
            }
        }
    }
    w.finish();
    Ok(w.words)
}

/// A character [`tokenize`] treats apart: a blank, a quote, a backslash or an operator.
fn is_special(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\r' | '\\' | '\'' | '"' | '|' | '&' | ';' | '<' | '>' | '(' | ')'
    )
}

/// The rest of a `"…"` string appended to `cur`: `\` escapes only `$`, `` ` ``, `"`, `\` and newline (which it
/// removes). The text after the closing quote; `None` when the line ends first.
fn double_quoted<'a>(mut rest: &'a str, cur: &mut String) -> Option<&'a str> {
    loop {
        let k = rest.find(['"', '\\'])?;
        cur.push_str(&rest[..k]);
        let after = &rest[k + 1..];
        if rest.as_bytes()[k] == b'"' {
            return Some(after);
        }
        match after.chars().next() {
            Some(n @ ('$' | '`' | '"' | '\\')) => {
                cur.push(n);
                rest = &after[1..];
            }
            Some('\n') => rest = &after[1..],
            _ => {
                cur.push('\\');
                rest = after;
            }
        }
    }
}

/// Shell-quotes one word so that [`tokenize`] gives it back unchanged.
pub(super) fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':' | '=' | '@' | '%' | '+' | ',' | '^'));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The launchers qpath reads, as its messages list them.
pub(super) const LAUNCHERS: &str = "`env`, `sudo`, `nohup`, `uv run`, `uvx`, `python -m vllm.entrypoints.openai.api_server`, \
     `python -m vllm.entrypoints.cli.main`, `docker run … vllm/vllm-openai`";

/// `NAME=value` with a shell variable name, as `env`, `sudo` and `docker -e` read it: the name and the value.
fn env_assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    is_shell_name(name).then(|| (name.to_string(), value.to_string()))
}

/// The words after `vllm` of the command that starts at `words[start]` (after its leading assignments), unwrapping the
/// common launchers: `env [-i] [-u NAME] NAME=value …`, `sudo [-E] [-u USER] …`, `nohup …`, `uv run [uv options] …`,
/// `uvx [--from vllm] …`, `python[3[.N]] [-u …] -m vllm.entrypoints.openai.api_server …` (the same parser as
/// `vllm serve`: `make_arg_parser`, `--model M` or a positional model tag), `python -m vllm.entrypoints.cli.main …`
/// (`vllm` itself) and `docker|podman run [docker options] [REGISTRY/]vllm/vllm-openai[:TAG] ARGS…` (the image's
/// entrypoint is `vllm serve`; `-e/--env NAME=value` are environment assignments). The assignments the launchers make
/// are appended to `env`. A command qpath does not read is "qpath cannot model this", naming the word it found.
pub(super) fn vllm_args(words: &[Word], start: usize, env: &mut Vec<(String, String)>) -> Result<Vec<String>, ParseError> {
    let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    let rest = |i: usize| -> Vec<String> { texts.get(i..).unwrap_or(&[]).iter().map(|s| s.to_string()).collect() };
    let mut via: Vec<&str> = Vec::new();
    let mut i = start;
    loop {
        if !via.is_empty() {
            while let Some(a) = texts.get(i).and_then(|w| env_assignment(w)) {
                env.push(a);
                i += 1;
            }
        }
        let Some(&program) = texts.get(i) else {
            let msg = match (words.is_empty(), via.last()) {
                (true, _) => "empty command line: expected `vllm serve MODEL [options]`".to_string(),
                (false, Some(l)) => format!("`{l}` without a command: expected `vllm serve MODEL [options]` after it"),
                (false, None) => "only environment assignments: expected `vllm serve MODEL [options]` after them".into(),
            };
            return Err(err(format!("{}: {msg}", super::CANNOT_MODEL), None));
        };
        let name = program.rsplit('/').next().unwrap_or(program);
        i = match name {
            "vllm" => return Ok(rest(i + 1)),
            "env" => skip_options(&texts, i + 1, &["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]),
            "sudo" => skip_options(
                &texts,
                i + 1,
                &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R"],
            ),
            "nohup" => i + 1,
            "uvx" => skip_options(&texts, i + 1, UV_VALUED),
            "uv" if texts.get(i + 1) == Some(&"run") || texts.get(i + 1..i + 3) == Some(&["tool", "run"]) => {
                let after = if texts.get(i + 1) == Some(&"run") { i + 2 } else { i + 3 };
                let j = skip_options(&texts, after, UV_VALUED);
                // `uv run -m MODULE …`: uv runs the module with its Python.
                if matches!(texts.get(j), Some(&("-m" | "--module"))) {
                    let module = texts.get(j + 1).copied().unwrap_or("");
                    return python_module(module, rest(j + 2), program);
                }
                j
            }
            _ if is_python(name) => return python(&texts, i),
            "docker" | "podman" => return docker(&texts, i, env),
            _ => return Err(unknown_program(program, &via)),
        };
        via.push(program);
    }
}

/// The uv options that take a value (`uv run --help`, `uvx --help`).
#[rustfmt::skip]
const UV_VALUED: &[&str] = &[
    "--with", "-w", "--with-editable", "--with-requirements", "--python", "-p", "--project", "--directory", "--package",
    "--extra", "--group", "--only-group", "--no-group", "--env-file", "--index", "--default-index", "--index-url", "-i",
    "--extra-index-url", "--find-links", "-f", "--from", "--config-file", "--cache-dir", "--index-strategy",
    "--keyring-provider", "--resolution", "--prerelease", "--exclude-newer", "--link-mode", "--refresh-package",
    "--reinstall-package", "--upgrade-package", "-P", "--config-setting", "-C", "--color", "--python-platform",
];

/// The index of the first word at or after `i` that is not an option (`-x`, `--x`, `--x=v`, or one of `valued` and its
/// value); after `--`, the word that follows it. `-m`/`--module` stop the scan (uv's module mode).
fn skip_options(texts: &[&str], mut i: usize, valued: &[&str]) -> usize {
    while let Some(w) = texts.get(i) {
        if *w == "--" {
            return i + 1;
        }
        if !w.starts_with('-') || *w == "-" || *w == "-m" || *w == "--module" {
            return i;
        }
        i += if valued.contains(w) { 2 } else { 1 };
    }
    i
}

/// `python`, `python3`, `python3.12` (a path's last component).
fn is_python(name: &str) -> bool {
    name.strip_prefix("python")
        .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.') && !v.starts_with('.'))
}

/// `python [options] -m MODULE ARGS…` at `texts[i]`.
fn python(texts: &[&str], i: usize) -> Result<Vec<String>, ParseError> {
    let program = texts[i];
    let mut j = i + 1;
    while let Some(w) = texts.get(j) {
        if let Some(m) = w.strip_prefix("-m") {
            let (module, next) = if m.is_empty() {
                (texts.get(j + 1).copied().unwrap_or(""), j + 2)
            } else {
                (m, j + 1)
            };
            let rest = texts.get(next..).unwrap_or(&[]).iter().map(|s| s.to_string()).collect();
            return python_module(module, rest, program);
        }
        if !w.starts_with('-') || w.starts_with("-c") {
            break;
        }
        j += if matches!(*w, "-X" | "-W" | "--check-hash-based-pycs") {
            2
        } else {
            1
        };
    }
    let found = texts.get(j).copied().unwrap_or("");
    Err(err(
        format!(
            "{}: expected `{program} -m vllm.entrypoints.openai.api_server …` (or `-m vllm.entrypoints.cli.main \
             serve …`), found `{found}` after `{program}`; the launchers qpath reads: {LAUNCHERS}",
            super::CANNOT_MODEL
        ),
        Some(found),
    ))
}

/// The words after `vllm` for `python -m MODULE REST…`.
fn python_module(module: &str, rest: Vec<String>, program: &str) -> Result<Vec<String>, ParseError> {
    match module {
        // api_server's parser is make_arg_parser's, the one `vllm serve` uses (a model tag or `--model`).
        "vllm.entrypoints.openai.api_server" => Ok(std::iter::once("serve".to_string()).chain(rest).collect()),
        "vllm.entrypoints.cli.main" => Ok(rest),
        _ => Err(err(
            format!(
                "{}: `{program} -m {module}` is not a vLLM server module qpath reads: expected \
                 `-m vllm.entrypoints.openai.api_server` or `-m vllm.entrypoints.cli.main`",
                super::CANNOT_MODEL
            ),
            Some(module),
        )),
    }
}

/// The docker options that take a value (`docker run --help`).
#[rustfmt::skip]
const DOCKER_VALUED: &[&str] = &[
    "-e", "--env", "--env-file", "-p", "--publish", "-v", "--volume", "--gpus", "--runtime", "--name", "--ipc",
    "--shm-size", "--network", "--net", "-w", "--workdir", "-u", "--user", "--mount", "--device", "--cpus", "-m",
    "--memory", "--memory-swap", "--ulimit", "-l", "--label", "--label-file", "--platform", "-h", "--hostname",
    "--add-host", "--cap-add", "--cap-drop", "--security-opt", "--log-driver", "--log-opt", "--restart", "--pull",
    "--cidfile", "--pid", "--uts", "--userns", "--group-add", "--tmpfs", "--cpuset-cpus", "--expose", "--link", "--dns",
    "--stop-signal", "--stop-timeout", "--volumes-from", "--cgroupns", "--device-cgroup-rule", "--entrypoint",
];

/// `docker|podman [container] run [options] IMAGE ARGS…` at `texts[i]`: the image must be vLLM's OpenAI server image,
/// whose entrypoint is `vllm serve` (ARGS are serve's); `-e NAME=value` are appended to `env`.
fn docker(texts: &[&str], i: usize, env: &mut Vec<(String, String)>) -> Result<Vec<String>, ParseError> {
    let program = texts[i];
    let run = match texts.get(i + 1..i + 3) {
        Some(["container", "run"]) => i + 3,
        _ if texts.get(i + 1) == Some(&"run") => i + 2,
        _ => {
            let found = texts.get(i + 1).copied().unwrap_or("");
            return Err(err(
                format!(
                    "{}: expected `{program} run … vllm/vllm-openai …`, found `{program} {found}`",
                    super::CANNOT_MODEL
                ),
                Some(found),
            ));
        }
    };
    let mut j = run;
    while let Some(&w) = texts.get(j) {
        if !w.starts_with('-') {
            break;
        }
        let (name, inline) = match w.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (w, None),
        };
        let value = match (inline, DOCKER_VALUED.contains(&name)) {
            (Some(v), _) => Some(v),
            (None, true) => {
                j += 1;
                texts.get(j).copied()
            }
            (None, false) => None,
        };
        // `-eNAME=value` too.
        let env_value = match name {
            "-e" | "--env" => value,
            _ => w.strip_prefix("-e").filter(|v| v.contains('=') && !w.starts_with("--")),
        };
        if let Some(a) = env_value.and_then(env_assignment) {
            env.push(a);
        }
        if name == "--entrypoint" {
            return Err(err(
                format!(
                    "{}: `{program} run --entrypoint {}` replaces the image's `vllm serve`: qpath reads the image's own \
                     entrypoint (drop `--entrypoint`, or write the command as `vllm serve …`)",
                    super::CANNOT_MODEL,
                    value.unwrap_or("")
                ),
                Some("--entrypoint"),
            ));
        }
        j += 1;
    }
    let Some(&image) = texts.get(j) else {
        return Err(err(
            format!(
                "{}: `{program} run` without an image: expected `vllm/vllm-openai[:TAG]`",
                super::CANNOT_MODEL
            ),
            None,
        ));
    };
    let repo = image.split('@').next().unwrap_or(image);
    let last = repo.rsplit('/').next().unwrap_or(repo);
    let last = last.split(':').next().unwrap_or(last);
    if last != "vllm-openai" {
        return Err(err(
            format!(
                "{}: expected the image `vllm/vllm-openai[:TAG]` after `{program} run` and its options, found `{image}` \
                 (qpath reads vLLM's OpenAI server image, whose entrypoint is `vllm serve`)",
                super::CANNOT_MODEL
            ),
            Some(image),
        ));
    }
    let args = texts.get(j + 1..).unwrap_or(&[]).iter().map(|s| s.to_string());
    Ok(std::iter::once("serve".to_string()).chain(args).collect())
}

/// "qpath cannot model this" for a program that is neither `vllm` nor a launcher qpath reads.
fn unknown_program(program: &str, via: &[&str]) -> ParseError {
    let after = via.last().map(|l| format!(" after `{l}`")).unwrap_or_default();
    let model_hint = if program.contains('/') && !program.starts_with(['/', '.', '~']) {
        format!(" (a model id alone? write `vllm serve {program}`)")
    } else {
        String::new()
    };
    err(
        format!(
            "{}: expected `vllm serve MODEL [options]`, found `{program}`{after}{model_hint}; the launchers qpath \
             reads: {LAUNCHERS}",
            super::CANNOT_MODEL
        ),
        Some(program),
    )
}
