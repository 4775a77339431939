//! [`parse`](fn@parse): the four steps in order, and the top-level parser's errors (`unrecognized arguments:` with
//! vLLM's and qpath's hints).

use std::collections::HashSet;

use super::argparse::{cached_parser, OptParser, Run};
use super::engine::build;
use super::enums::enums;
use super::escape::{escape_for_message, hidden_characters};
use super::limits::{capped_list, MAX_ARGUMENTS, MAX_SUGGESTED};
use super::preprocess::{dash_key, matches_option_regex, preprocess, Tok};
use super::python::py_lower;
use super::shell::{tokenize, vllm_args, Word};
use super::table::{table, FlagRow};
use super::CANNOT_MODEL;
use super::{err, ParseError, ServeCommand, UnusedOption};
use crate::release::Release;
use crate::release::Release::V0_29_0;

/// Parses `[NAME=value …] vllm serve [MODEL] [options]` the way `release` does (see the module documentation for the
/// steps and their sources). Notable vLLM behaviours reproduced:
///
/// - the model is the positional `model_tag`; `--model X` anywhere is moved there first; without either, vLLM serves
///   [`DEFAULT_MODEL`];
/// - `--kv-cache-dtype-skip-layers` is nargs `+` and takes every following token up to the next option, so
///   `vllm serve --kv-cache-dtype-skip-layers 0 2 meta-llama/X` puts `meta-llama/X` in the list and serves the
///   default model, and `vllm serve M --kv-cache-dtype-skip-layers 0 2 other` makes `other` a layer token;
/// - dotted keys (`-ac.use_trtllm_attention true`, `--attention-config.backend=FLASHINFER`) always take the next token
///   as their value, decode it JSON-first (`true` → true, `True` → "True"), and are merged and appended at the end of
///   the line: they replace a JSON `--attention-config` given anywhere, and `-ac.*` / `--attention-config.*` spellings
///   are not merged (the last one wins);
/// - unknown options: `vllm: error: unrecognized arguments: …`, with qpath's hint (the releases that have it, or the
///   closest option of this release).
pub fn parse(release: Release, command_line: &str) -> Result<ServeCommand, ParseError> {
    parse_words(release, command_line).map_err(name_hidden_characters)
}

/// One entry of [`ServeCommand::unused`] (an option as written, with its values) read as `release`'s argparse read
/// it: its first long spelling (an abbreviation or a `_` spelling resolved), the option string matched and its value.
/// `None` for an entry that is not one option of the release (an entry [`parse`](fn@parse) did not write).
pub fn unused_option(release: Release, entry: &str) -> Option<UnusedOption> {
    unused_option_in(release, entry, None)
}

/// [`unused_option`] for an entry that is one of `flags` (their first long spellings), else `None`: the entry's value
/// is read only for those (the readers that look for one option call this on every entry, some of which may hold a
/// very long value).
pub fn unused_option_of(release: Release, entry: &str, flags: &[&str]) -> Option<UnusedOption> {
    unused_option_in(release, entry, Some(flags))
}

fn unused_option_in(release: Release, entry: &str, flags: Option<&[&str]>) -> Option<UnusedOption> {
    let words = match flags {
        None => tokenize(entry).ok()?,
        Some(_) => super::shell::tokenize_upto(entry, 1).ok()?,
    };
    let first = words.first()?;
    let arg = match first.text.split_once('=') {
        Some((key, value)) if first.text.starts_with("--") => format!("{}={value}", dash_key(key)),
        _ => dash_key(&first.text),
    };
    let parser = cached_parser(release, table().ok()?, enums().ok()?);
    let (row, option, explicit) = parser.row_of(&arg)?;
    let value = match flags {
        None => explicit.or_else(|| words.get(1).map(|w| w.text.clone())),
        Some(f) if !f.contains(&row.flag.as_str()) => return None,
        Some(_) => explicit.or_else(|| {
            let words = super::shell::tokenize_upto(entry, 2).ok()?;
            words.get(1).map(|w| w.text.clone())
        }),
    };
    Some(UnusedOption {
        flag: row.flag.as_str(),
        option,
        value,
    })
}

/// An error about a token with characters a terminal does not show gets qpath's line naming them (vLLM's own text
/// before it is unchanged). `unrecognized arguments:` names them itself.
fn name_hidden_characters(mut e: ParseError) -> ParseError {
    if let Some(t) = e.token.as_deref() {
        let named = hidden_characters(t);
        if !named.is_empty() && !e.message.contains("qpath: characters a terminal does not show") {
            e.message.push_str(&format!(
                "\nqpath: characters a terminal does not show: `{}`{named}",
                escape_for_message(t)
            ));
        }
    }
    e
}

fn parse_words(release: Release, command_line: &str) -> Result<ServeCommand, ParseError> {
    let rows = table()?;
    let enums = enums()?;
    // The shell's own errors (an unterminated quote, an operator): qpath cannot read the line, vLLM never sees it.
    let words = tokenize(command_line).map_err(|mut e| {
        e.message = format!("{CANNOT_MODEL}: {}", e.message);
        e
    })?;
    if words.len() > MAX_ARGUMENTS {
        return Err(err(
            format!(
                "qpath cannot model this: more than {MAX_ARGUMENTS} words on the command line ({}; qpath's cap \
                 serve::limits::MAX_ARGUMENTS)",
                words.len()
            ),
            None,
        ));
    }
    let (mut env, i) = environment(&words);
    let args = serve_args(vllm_args(&words, i, &mut env)?)?;
    let toks = preprocess(&args)?;
    top_level_check(&toks, &args)?;
    let parser = cached_parser(release, rows, enums);
    let mut run = Run::new(parser, toks.get(1..).unwrap_or(&[]), &args);
    run.run()?;
    if !run.extras.is_empty() {
        return Err(unrecognized(release, rows, parser, &run, &args));
    }
    build(release, rows, enums, env, run.ns)
}

/// The shell's leading `NAME=value` assignments (the command's environment), and the index of the first other word.
fn environment(words: &[Word]) -> (Vec<(String, String)>, usize) {
    let mut env = Vec::new();
    let mut i = 0;
    while let Some(w) = words.get(i) {
        if !w.assignment {
            break;
        }
        let (k, v) = w.text.split_once('=').unwrap_or((&w.text, ""));
        env.push((k.to_string(), v.to_string()));
        i += 1;
    }
    (env, i)
}

/// The words after `vllm` (as [`vllm_args`] finds them, launchers unwrapped), starting with the `serve` sub-command:
/// `vllm`'s `main` (entrypoints/cli/main.py) hands `--omni` anywhere to vllm-omni, and needs a sub-command.
fn serve_args(args: Vec<String>) -> Result<Vec<String>, ParseError> {
    if args.iter().any(|a| a == "--omni") {
        return Err(err(
            "`--omni` hands the whole command to vllm-omni (entrypoints/cli/main.py); qpath models vLLM's own \
             `vllm serve` only",
            Some("--omni"),
        ));
    }
    match args.first().map(String::as_str) {
        Some("serve") => Ok(args),
        None => Err(err(
            "`vllm` without a sub-command: expected `vllm serve MODEL [options]`",
            Some("vllm"),
        )),
        // Another of vLLM's own sub-commands: a valid command qpath does not model.
        Some(other @ ("chat" | "complete" | "bench" | "collect-env" | "run-batch" | "launch")) => Err(err(
            format!("{CANNOT_MODEL}: `vllm {other}` is not `vllm serve`: qpath models the server's start-up only"),
            Some(other),
        )),
        Some(other) => Err(err(
            format!("expected the sub-command `serve` after `vllm`, found `{other}`"),
            Some(other),
        )),
    }
}

/// The top-level `vllm` parser (options `-h/--help`, `-v/--version`) classifies every token before the `serve`
/// sub-parser sees them; the only token it can reject is one starting `--=` (before a `--`), whose empty option name
/// is a prefix of both of its options.
fn top_level_check(toks: &[Tok], as_written: &[String]) -> Result<(), ParseError> {
    for t in toks.iter().take_while(|t| t.text != "--") {
        if t.text.starts_with("--=") {
            let token = t.orig.first().and_then(|&i| as_written.get(i)).map(String::as_str);
            return Err(err(
                format!("vllm: error: ambiguous option: {} could match --help, --version", t.text),
                token,
            ));
        }
    }
    Ok(())
}

/// The top-level parser's `unrecognized arguments:` error (the tokens after FlexibleArgumentParser's rewrites), the
/// 0.29.0+ `--task` hint, and qpath's hints.
fn unrecognized(release: Release, rows: &[FlagRow], parser: &OptParser, run: &Run, args: &[String]) -> ParseError {
    let texts: Vec<&str> = run
        .extras
        .iter()
        .filter_map(|&i| run.toks.get(i))
        .map(|t| t.text.as_str())
        .collect();
    let joined = texts.join(" ");
    let mut msg = format!("vllm: error: unrecognized arguments: {joined}");
    let task_arg = args.iter().skip(1).any(|a| matches_option_regex(a, &["--task"]));
    let task_in_msg = joined
        .split(char::is_whitespace)
        .any(|w| w == "--task" || w.starts_with("--task="));
    if release.source_release() >= V0_29_0 && task_arg && task_in_msg {
        msg.push_str(
            "\n\nHint: --task is not a vllm serve option. For embedding, reranking, or reward models, use --runner \
             pooling. To adapt a generative model for pooling, also use --convert embed, --convert classify, or \
             --convert reward.",
        );
    }
    msg.push_str(&qpath_hints(release, rows, parser, &texts));
    let token = run
        .extras
        .first()
        .and_then(|&i| run.toks.get(i))
        .map(|t| run.written(&t.orig));
    ParseError {
        message: msg,
        token: token.filter(|t| !t.is_empty()).or(texts.first().map(|t| t.to_string())),
    }
}

/// qpath's lines after `unrecognized arguments:`: the hidden characters of each token (escaped and named), then a
/// suggestion per distinct token, for at most [`MAX_SUGGESTED`] tokens (each suggestion scans the option table), each
/// hint once.
fn qpath_hints(release: Release, rows: &[FlagRow], parser: &OptParser, texts: &[&str]) -> String {
    let mut out = String::new();
    let mut tokens_seen = HashSet::new();
    let mut hints_seen = HashSet::new();
    let mut hidden = Vec::new();
    let mut unchecked = 0usize;
    for t in texts {
        if !tokens_seen.insert(*t) {
            continue;
        }
        let named = hidden_characters(t);
        if !named.is_empty() {
            hidden.push(format!("`{}`{named}", escape_for_message(t)));
        }
        if tokens_seen.len() > MAX_SUGGESTED {
            unchecked += 1;
            continue;
        }
        if let Some(h) = suggest(release, rows, parser, t) {
            if hints_seen.insert(h.clone()) {
                out.push_str("\nqpath: ");
                out.push_str(&h);
            }
        }
    }
    if !hidden.is_empty() {
        out.push_str(&format!(
            "\nqpath: characters a terminal does not show: {}",
            capped_list(&hidden)
        ));
    }
    if unchecked > 0 {
        out.push_str(&format!(
            "\nqpath: {unchecked} more unrecognized arguments not checked for a suggestion (qpath suggests for the \
             first {MAX_SUGGESTED}, serve::limits::MAX_SUGGESTED)"
        ));
    }
    out
}

/// A row range as the hint shows it. `last` is a source release: the range runs to the newest release that reads it
/// (a row whose last source release is 0.25.0 is in 0.25.1 too).
fn range_text(first: Release, last: Option<Release>) -> String {
    let last = last.map(|l| Release::ALL.into_iter().rev().find(|r| r.source_release() == l).unwrap_or(l));
    match last {
        Some(l) if l == first => format!("{first} only"),
        Some(l) => format!("{first} to {l}"),
        None => format!("{first} and later"),
    }
}

/// A hint for an unknown option: the releases that have it, or the closest option string of this release.
fn suggest(release: Release, rows: &[FlagRow], parser: &OptParser, token: &str) -> Option<String> {
    let name = token.split_once('=').map_or(token, |(n, _)| n);
    if !name.starts_with('-') || name.len() < 2 {
        return None;
    }
    let having: Vec<&FlagRow> = rows
        .iter()
        .filter(|r| r.flag == name || r.positives.iter().any(|p| p == name) || r.negatives.iter().any(|n| n == name))
        .collect();
    if let Some(first) = having.iter().map(|r| r.first).min() {
        let last = if having.iter().any(|r| r.last.is_none()) {
            None
        } else {
            having.iter().filter_map(|r| r.last).max()
        };
        return Some(format!(
            "`{}` is an option of vLLM {}, not of {}",
            escape_for_message(name),
            range_text(first, last),
            release.name()
        ));
    }
    if name.chars().count() > 80 {
        return None;
    }
    let norm = py_lower(&name.replace('_', "-"));
    let mut best: Option<(usize, &str)> = None;
    for (s, _) in &parser.strings {
        let d = if py_lower(s) == norm { 0 } else { levenshtein(&norm, s) };
        if best.is_none_or(|(b, _)| d < b) {
            best = Some((d, s));
        }
    }
    let (d, s) = best?;
    let limit = if name.chars().count() >= 12 { 3 } else { 2 };
    (d <= limit).then(|| {
        format!(
            "`{}` is not an option of vLLM {}; did you mean `{s}`?",
            escape_for_message(name),
            release.name()
        )
    })
}

fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
