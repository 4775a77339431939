//! Step 3, CPython 3.11's `argparse` on the `serve` sub-parser (Lib/argparse.py): the option strings of one release,
//! `_parse_optional`'s classification of each token, and `_parse_known_args`'s loop that consumes the positional
//! `model_tag` and each option's arguments and applies its `type` and `choices`.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::fasthash::FastHash;

use super::convert::{check_choice, convert};
use super::enums::Enums;
use super::json::Value;
use super::preprocess::Tok;
use super::python::py_str_repr;
use super::shell::shell_quote;
use super::table::{FlagRow, Kind};
use super::CANNOT_MODEL;
use super::{err, AttentionConfig, ParseError};
use crate::release::Release;

/// What qpath does with an option's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Role {
    Help,
    Model,
    Dtype,
    KvCacheDtype,
    SkipLayers,
    AttentionBackend,
    AttentionCfg,
    BlockSize,
    Tp,
    Dcp,
    SpecConfig,
    SpecMethod,
    SpecModel,
    SpecTokens,
    HfOverrides,
    Unused,
}

fn role_of(flag: &str) -> Role {
    match flag {
        "--model" => Role::Model,
        "--dtype" => Role::Dtype,
        "--kv-cache-dtype" => Role::KvCacheDtype,
        "--kv-cache-dtype-skip-layers" => Role::SkipLayers,
        "--attention-backend" => Role::AttentionBackend,
        "--attention-config" => Role::AttentionCfg,
        "--block-size" => Role::BlockSize,
        "--tensor-parallel-size" => Role::Tp,
        "--decode-context-parallel-size" => Role::Dcp,
        "--speculative-config" => Role::SpecConfig,
        "--spec-method" => Role::SpecMethod,
        "--spec-model" => Role::SpecModel,
        "--spec-tokens" => Role::SpecTokens,
        "--hf-overrides" => Role::HfOverrides,
        _ => Role::Unused,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Nargs {
    Zero,
    One,
    Optional,
    OneOrMore,
}

pub(super) struct Action<'t> {
    row: Option<&'t FlagRow>,
    /// `_get_action_name`: the visible option strings joined by `/`.
    name: String,
    nargs: Nargs,
    role: Role,
}

/// A converted value (the result of the option's argparse `type`).
#[derive(Clone, Debug)]
pub(super) enum Conv {
    None,
    /// A boolean option (its value, True or False for `--no-…` forms, is of no use to qpath).
    Flag,
    Str(String),
    /// `None` inside: a valid integer beyond 128 bits (Python has no limit).
    Int(Option<i128>),
    Float,
    Json(Value),
    Attn(Box<AttentionConfig>),
    List(Vec<Conv>),
    /// `--flag=--`: argparse strips the `--` and stores an empty list.
    Empty,
}

/// `_parse_optional`'s answer for an option-like token: the action (None = unknown), the option string, the explicit
/// argument.
pub(super) type OptTuple = (Option<usize>, String, Option<String>);

/// The option parser of each release, built from the static table the first time that release parses (building one
/// costs about 0.2 ms; parsing a command line with a ready one costs a few microseconds): the page's first result
/// builds only the release it shows.
pub(super) fn cached_parser(release: Release, rows: &'static [FlagRow], enums: &'static Enums) -> &'static OptParser<'static> {
    static PARSERS: OnceLock<Vec<OnceLock<OptParser<'static>>>> = OnceLock::new();
    let all = PARSERS.get_or_init(|| Release::ALL.iter().map(|_| OnceLock::new()).collect());
    let i = release.index().min(all.len() - 1);
    all[i].get_or_init(|| OptParser::new(Release::ALL[i], rows, enums))
}

pub(super) struct OptParser<'t> {
    release: Release,
    /// The release's name lists, for the type functions that validate names (`--attention-config`).
    enums: &'t Enums,
    actions: Vec<Action<'t>>,
    /// Option strings in registration order (argparse's `_option_string_actions` iteration order).
    pub(super) strings: Vec<(String, usize)>,
    index: HashMap<String, usize, FastHash>,
}

impl<'t> OptParser<'t> {
    /// The parser `EngineArgs.add_cli_args` builds for `release`: `-h/--help`, then the release's rows in registration
    /// order, each with its negative forms (`BooleanOptionalAction`, 0.33.0's `EnableDisableAction`).
    fn new(release: Release, rows: &'t [FlagRow], enums: &'t Enums) -> Self {
        let mut p = OptParser {
            release,
            enums,
            actions: Vec::new(),
            strings: Vec::new(),
            index: HashMap::default(),
        };
        p.add(
            None,
            vec!["-h".into(), "--help".into()],
            "-h/--help".into(),
            Nargs::Zero,
            Role::Help,
        );
        for row in rows.iter().filter(|r| r.covers(release)) {
            let mut strings: Vec<String> = Vec::new();
            for s in std::iter::once(&row.flag).chain(&row.positives) {
                strings.push(s.clone());
                if row.kind == Kind::BoolOpt {
                    if let Some(rest) = s.strip_prefix("--") {
                        let neg = format!("--no-{rest}");
                        if row.negatives.contains(&neg) {
                            strings.push(neg);
                        }
                    }
                }
            }
            for n in &row.negatives {
                if !strings.contains(n) {
                    strings.push(n.clone());
                }
            }
            // 0.33.0's EnableDisableAction hides --no-enable-X / --no-disable-X from the action's name.
            let inverse = row.negatives.iter().any(|n| !n.starts_with("--no-"));
            let name = if inverse {
                std::iter::once(&row.flag)
                    .chain(&row.positives)
                    .chain(row.negatives.iter().filter(|n| !n.starts_with("--no-")))
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("/")
            } else {
                strings.join("/")
            };
            let nargs = match row.kind {
                Kind::StoreTrue | Kind::BoolOpt => Nargs::Zero,
                Kind::Value | Kind::Json | Kind::Append => Nargs::One,
                Kind::OptionalValue => Nargs::Optional,
                Kind::List => Nargs::OneOrMore,
            };
            p.add(Some(row), strings, name, nargs, role_of(&row.flag));
        }
        p
    }

    fn add(&mut self, row: Option<&'t FlagRow>, strings: Vec<String>, name: String, nargs: Nargs, role: Role) {
        let idx = self.actions.len();
        for s in strings {
            if !self.index.contains_key(&s) {
                self.index.insert(s.clone(), idx);
                self.strings.push((s, idx));
            }
        }
        self.actions.push(Action { row, name, nargs, role });
    }

    /// The table row and option string argparse matched for `arg` (an option token after the pre-processing: exact,
    /// `--opt=value` or a unique prefix), and its explicit value; `None` when it names no option of the release.
    pub(super) fn row_of(&self, arg: &str) -> Option<(&'t FlagRow, String, Option<String>)> {
        let (Some(a), option, explicit) = self.parse_optional(arg).ok()?? else {
            return None;
        };
        Some((self.actions.get(a)?.row?, option, explicit))
    }

    /// `ArgumentParser._parse_optional` (CPython 3.11): `None` for a positional token.
    fn parse_optional(&self, arg: &str) -> Result<Option<OptTuple>, String> {
        if arg.is_empty() || !arg.starts_with('-') {
            return Ok(None);
        }
        if let Some(&a) = self.index.get(arg) {
            return Ok(Some((Some(a), arg.to_string(), None)));
        }
        if arg.chars().count() == 1 {
            return Ok(None);
        }
        if let Some((opt, explicit)) = arg.split_once('=') {
            if let Some(&a) = self.index.get(opt) {
                return Ok(Some((Some(a), opt.to_string(), Some(explicit.to_string()))));
            }
        }
        let tuples = self.option_tuples(arg);
        if tuples.len() > 1 {
            let matches: Vec<&str> = tuples.iter().map(|(_, s, _)| s.as_str()).collect();
            return Err(format!("ambiguous option: {arg} could match {}", matches.join(", ")));
        }
        if let Some(t) = tuples.into_iter().next() {
            return Ok(Some(t));
        }
        if is_negative_number(arg) || arg.contains(' ') {
            return Ok(None);
        }
        Ok(Some((None, arg.to_string(), None)))
    }

    /// `ArgumentParser._get_option_tuples` (CPython 3.11, `allow_abbrev=True`).
    fn option_tuples(&self, arg: &str) -> Vec<OptTuple> {
        let mut out = Vec::new();
        if arg.starts_with("--") {
            let (prefix, explicit) = match arg.split_once('=') {
                Some((p, e)) => (p, Some(e.to_string())),
                None => (arg, None),
            };
            for (s, a) in &self.strings {
                if s.starts_with(prefix) {
                    out.push((Some(*a), s.clone(), explicit.clone()));
                }
            }
        } else {
            let split = arg.char_indices().nth(2).map_or(arg.len(), |(i, _)| i);
            let (short, short_explicit) = arg.split_at(split);
            for (s, a) in &self.strings {
                if s == short {
                    out.push((Some(*a), s.clone(), Some(short_explicit.to_string())));
                } else if s.starts_with(arg) {
                    out.push((Some(*a), s.clone(), None));
                }
            }
        }
        out
    }
}

/// argparse's `_negative_number_matcher`: `^-\d+$|^-\d*\.\d+$`.
fn is_negative_number(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('-') else {
        return false;
    };
    let rest = rest.strip_suffix('\n').unwrap_or(rest);
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    digits(rest)
        || rest
            .split_once('.')
            .is_some_and(|(a, b)| (a.is_empty() || digits(a)) && digits(b))
}

/// What argparse leaves in the namespace for the options qpath keeps.
#[derive(Default)]
pub(super) struct Ns {
    pub(super) model_tag: Option<String>,
    pub(super) values: HashMap<Role, Conv, FastHash>,
    /// The as-written tokens of each kept option's last occurrence, for error messages.
    pub(super) tokens: HashMap<Role, String, FastHash>,
    pub(super) unused: Vec<String>,
}

/// One `parse_known_args` run over the pre-processed tokens after `serve`.
pub(super) struct Run<'p, 't> {
    p: &'p OptParser<'t>,
    pub(super) toks: &'p [Tok],
    as_written: &'p [String],
    /// `_parse_known_args`'s `arg_strings_pattern`: `O` option, `A` argument, `-` the `--` separator.
    pattern: Vec<u8>,
    opts: HashMap<usize, OptTuple, FastHash>,
    positional_pending: bool,
    /// Indices (into `toks`) of the tokens argparse could not use: `unrecognized arguments:`.
    pub(super) extras: Vec<usize>,
    pub(super) ns: Ns,
}

/// One call of an action: the action, its argument strings, the option string used, and the command-line tokens.
type ActionCall = (usize, Vec<String>, String, Vec<usize>);

/// What an explicit argument (`--opt=value`, `-xVALUE`) makes of an option: the last call, or a call followed by the
/// next single-dash flag glued to it (`-xyz`).
enum Explicit {
    Last(ActionCall),
    Chain(ActionCall, usize, String, Option<String>),
}

impl<'p, 't> Run<'p, 't> {
    pub(super) fn new(p: &'p OptParser<'t>, toks: &'p [Tok], as_written: &'p [String]) -> Self {
        Run {
            p,
            toks,
            as_written,
            pattern: Vec::new(),
            opts: HashMap::default(),
            positional_pending: true,
            extras: Vec::new(),
            ns: Ns::default(),
        }
    }

    /// The command-line tokens at `origs`, shell-quoted, as the user wrote them.
    pub(super) fn written(&self, origs: &[usize]) -> String {
        let mut o: Vec<usize> = origs.to_vec();
        crate::order::sort_dedup(&mut o);
        o.iter()
            .filter_map(|&i| self.as_written.get(i))
            .map(|w| shell_quote(w))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn arg_error(&self, action: usize, msg: &str, token: Option<String>) -> ParseError {
        let name = self.p.actions.get(action).map_or("", |a| a.name.as_str());
        if msg.starts_with(CANNOT_MODEL) {
            // Not argparse's error: qpath's own limit while reading this argument.
            return ParseError {
                message: format!("{msg} (argument {name})"),
                token,
            };
        }
        ParseError {
            message: format!("vllm serve: error: argument {name}: {msg}"),
            token,
        }
    }

    /// `_parse_known_args`'s main loop: classify every token, then alternate `consume_positionals` and
    /// `consume_optional` up to the last option, then the trailing positionals; what is left over goes to `extras`.
    pub(super) fn run(&mut self) -> Result<(), ParseError> {
        let mut after_sep = false;
        for (i, t) in self.toks.iter().enumerate() {
            if after_sep {
                self.pattern.push(b'A');
            } else if t.text == "--" {
                self.pattern.push(b'-');
                after_sep = true;
            } else {
                match self.p.parse_optional(&t.text) {
                    Ok(None) => self.pattern.push(b'A'),
                    Ok(Some(o)) => {
                        self.opts.insert(i, o);
                        self.pattern.push(b'O');
                    }
                    Err(msg) => {
                        return Err(err(format!("vllm serve: error: {msg}"), Some(&self.written(&t.orig))));
                    }
                }
            }
        }
        let n = self.toks.len();
        let mut indices: Vec<usize> = self.opts.keys().copied().collect();
        crate::order::sort_by(&mut indices, Ord::cmp);
        let max_opt = indices.last().copied();
        let mut start = 0;
        while let Some(max) = max_opt {
            if start > max {
                break;
            }
            let Some(&next) = indices.get(indices.partition_point(|&k| k < start)) else {
                break;
            };
            if start != next {
                let end = self.consume_positionals(start)?;
                if end > start {
                    start = end;
                    continue;
                }
                start = end;
            }
            if !self.opts.contains_key(&start) {
                self.extras.extend(start..next);
                start = next;
            }
            start = self.consume_optional(start)?;
        }
        let stop = self.consume_positionals(start)?;
        self.extras.extend(stop..n);
        Ok(())
    }

    /// The positional `model_tag` (nargs `?`, pattern `-*A?-*`); argparse consumes it at the first chance.
    fn consume_positionals(&mut self, start: usize) -> Result<usize, ParseError> {
        if !self.positional_pending {
            return Ok(start);
        }
        let mut k = start;
        while self.pattern.get(k) == Some(&b'-') {
            k += 1;
        }
        if self.pattern.get(k) == Some(&b'A') {
            k += 1;
        }
        while self.pattern.get(k) == Some(&b'-') {
            k += 1;
        }
        self.positional_pending = false;
        let mut args: Vec<&str> = self
            .toks
            .get(start..k)
            .unwrap_or(&[])
            .iter()
            .map(|t| t.text.as_str())
            .collect();
        if let Some(pos) = args.iter().position(|a| *a == "--") {
            args.remove(pos);
        }
        self.ns.model_tag = args.first().map(|s| s.to_string());
        Ok(k)
    }

    /// `consume_optional` (CPython 3.11): the option at `start` and its arguments, then the action calls in order.
    /// Unknown options go to `extras`.
    fn consume_optional(&mut self, start: usize) -> Result<usize, ParseError> {
        let Some((Some(mut action), mut opt_str, mut explicit)) = self.opts.get(&start).cloned() else {
            self.extras.push(start);
            return Ok(start + 1);
        };
        let option_token = self.toks.get(start).map(|t| t.orig.clone()).unwrap_or_default();
        let mut calls: Vec<ActionCall> = Vec::new();
        let stop = loop {
            let Some(ex) = explicit.take() else {
                let (stop, call) = self.following_args(start, action, &opt_str, &option_token)?;
                calls.push(call);
                break stop;
            };
            match self.explicit_arg(action, &opt_str, ex, &option_token)? {
                Explicit::Last(call) => {
                    calls.push(call);
                    break start + 1;
                }
                Explicit::Chain(call, next, next_str, next_explicit) => {
                    calls.push(call);
                    (action, opt_str, explicit) = (next, next_str, next_explicit);
                }
            }
        };
        for (action, args, opt_str, origs) in calls {
            self.take_action(action, args, &opt_str, &origs)?;
        }
        Ok(stop)
    }

    /// `consume_optional` with an explicit argument: a single-dash option that takes no value reads the glued
    /// characters as the next short option (`-xyz`); an option that takes a value takes it; otherwise argparse's
    /// "ignored explicit argument".
    fn explicit_arg(&self, action: usize, opt_str: &str, ex: String, option_token: &[usize]) -> Result<Explicit, ParseError> {
        let nargs = self.p.actions.get(action).map_or(Nargs::Zero, |a| a.nargs);
        let arg_count = if nargs == Nargs::Zero { 0 } else { 1 };
        let single_dash = opt_str.chars().nth(1).is_some_and(|c| c != '-');
        if arg_count == 0 && single_dash && !ex.is_empty() {
            let call = (action, Vec::new(), opt_str.to_string(), option_token.to_vec());
            let mut chars = ex.chars();
            let first = chars.next().unwrap_or('-');
            let rest: String = chars.collect();
            let short = format!("-{first}");
            match self.p.index.get(&short) {
                Some(&a) => Ok(Explicit::Chain(
                    call,
                    a,
                    short,
                    if rest.is_empty() { None } else { Some(rest) },
                )),
                None => Err(self.ignored_explicit(action, &ex, option_token)),
            }
        } else if arg_count == 1 {
            Ok(Explicit::Last((action, vec![ex], opt_str.to_string(), option_token.to_vec())))
        } else {
            Err(self.ignored_explicit(action, &ex, option_token))
        }
    }

    fn ignored_explicit(&self, action: usize, ex: &str, option_token: &[usize]) -> ParseError {
        let msg = format!("ignored explicit argument {}", py_str_repr(ex));
        self.arg_error(action, &msg, Some(self.written(option_token)))
    }

    /// `consume_optional` without an explicit argument: `_match_argument` takes as many of the following `A` tokens as
    /// the option's nargs allows, with argparse's "expected one argument" / "expected at least one argument".
    fn following_args(
        &self,
        start: usize,
        action: usize,
        opt_str: &str,
        option_token: &[usize],
    ) -> Result<(usize, ActionCall), ParseError> {
        let nargs = self.p.actions.get(action).map_or(Nargs::Zero, |a| a.nargs);
        let s = start + 1;
        let rest = self.pattern.get(s..).unwrap_or(&[]);
        let count = match nargs {
            Nargs::Zero => 0,
            Nargs::One if rest.first() == Some(&b'A') => 1,
            Nargs::One => return Err(self.arg_error(action, "expected one argument", Some(self.written(option_token)))),
            Nargs::Optional => usize::from(rest.first() == Some(&b'A')),
            Nargs::OneOrMore => {
                let c = rest.iter().take_while(|&&b| b == b'A').count();
                if c == 0 {
                    return Err(self.arg_error(action, "expected at least one argument", Some(self.written(option_token))));
                }
                c
            }
        };
        let stop = s + count;
        let vals: Vec<&Tok> = self.toks.get(s..stop).unwrap_or(&[]).iter().collect();
        let mut origs = option_token.to_vec();
        for v in &vals {
            origs.extend(v.orig.iter().copied());
        }
        Ok((
            stop,
            (
                action,
                vals.iter().map(|t| t.text.clone()).collect(),
                opt_str.to_string(),
                origs,
            ),
        ))
    }

    /// `take_action`: `-h/--help` ends the run; the values are converted (`_get_values`) and stored under the kept
    /// option's role, or the option is listed as unused, as written.
    fn take_action(&mut self, idx: usize, mut args: Vec<String>, opt_str: &str, origs: &[usize]) -> Result<(), ParseError> {
        let Some(action) = self.p.actions.get(idx) else {
            return Ok(());
        };
        let written = self.written(origs);
        if action.role == Role::Help {
            return Err(err(
                format!("`{opt_str}`: vLLM prints the help text and exits (status 0); no server starts"),
                Some(&written),
            ));
        }
        let Some(row) = action.row else { return Ok(()) };
        if let Some(pos) = args.iter().position(|a| a == "--") {
            args.remove(pos);
        }
        let value = match action.nargs {
            Nargs::Zero => Conv::Flag,
            Nargs::Optional if args.is_empty() => Conv::Flag,
            Nargs::One | Nargs::Optional => match args.first() {
                Some(a) => self.convert_checked(idx, row, a, &written)?,
                None => Conv::Empty,
            },
            Nargs::OneOrMore => {
                let mut items = Vec::with_capacity(args.len());
                for a in &args {
                    items.push(self.convert_checked(idx, row, a, &written)?);
                }
                Conv::List(items)
            }
        };
        match action.role {
            Role::Unused => self.ns.unused.push(written),
            role => {
                self.ns.values.insert(role, value);
                self.ns.tokens.insert(role, written);
            }
        }
        Ok(())
    }

    /// The option's `type` applied to one argument, then `_check_value` against its `choices`.
    fn convert_checked(&self, idx: usize, row: &FlagRow, raw: &str, written: &str) -> Result<Conv, ParseError> {
        let conv = convert(self.p.release, self.p.enums, &row.ty, raw)
            .map_err(|msg| self.arg_error(idx, &msg, Some(written.to_string())))?;
        if let Some(choices) = &row.choices {
            check_choice(self.p.release, &row.ty, choices, &conv)
                .map_err(|msg| self.arg_error(idx, &msg, Some(written.to_string())))?;
        }
        Ok(conv)
    }
}
