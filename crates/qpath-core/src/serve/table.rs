//! The embedded option table `data/vllm-flags.tsv`: which `vllm serve` options each release has, with their kind,
//! aliases, choices and argparse type, parsed once.

use std::sync::OnceLock;

use super::{err, ParseError};
use crate::release::Release;

/// `data/vllm-flags.tsv`, as build.rs copies it (the page's copy has no comment lines).
pub(super) const FLAGS_TSV: &str = include_str!(concat!(env!("OUT_DIR"), "/vllm-flags.tsv"));

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    StoreTrue,
    BoolOpt,
    Value,
    OptionalValue,
    List,
    Append,
    Json,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Ty {
    Any,
    StrOpt,
    Int,
    IntOpt,
    Float,
    FloatOpt,
    Hrint,
    HrintOpt,
    HrintOrAuto,
    Json,
    JsonOpt,
    JsonRaw,
    DictOrStr,
    Dataclass(String, bool),
    LowerDash,
}

#[derive(Clone, Debug)]
pub(super) struct FlagRow {
    pub(super) flag: String,
    pub(super) positives: Vec<String>,
    pub(super) negatives: Vec<String>,
    pub(super) kind: Kind,
    /// The first and last (inclusive; `None`: the newest) source release with this row.
    pub(super) first: Release,
    pub(super) last: Option<Release>,
    pub(super) choices: Option<Vec<String>>,
    pub(super) ty: Ty,
}

impl FlagRow {
    pub(super) fn covers(&self, r: Release) -> bool {
        covers(r, self.first, self.last)
    }
}

/// Whether a row that runs from `first` to `last` (source releases, both inclusive; `None`: to the newest) is in
/// release `r`: the bounds are compared with the release whose source files `r` reads ([`Release::source_release`]),
/// so a patch release with byte-identical sources (0.25.1) reads its source release's rows.
pub(super) fn covers(r: Release, first: Release, last: Option<Release>) -> bool {
    let r = r.source_release();
    first <= r && last.is_none_or(|l| r <= l)
}

fn parse_kind(s: &str) -> Option<Kind> {
    Some(match s {
        "bool:store_true" => Kind::StoreTrue,
        "bool:BooleanOptionalAction" => Kind::BoolOpt,
        "value" => Kind::Value,
        "value:optional" => Kind::OptionalValue,
        "list:+" => Kind::List,
        "list:append" => Kind::Append,
        "json" => Kind::Json,
        _ => return None,
    })
}

fn parse_ty(s: &str) -> Option<Ty> {
    if let Some(name) = s.strip_prefix("dataclass?:") {
        return Some(Ty::Dataclass(name.to_string(), true));
    }
    if let Some(name) = s.strip_prefix("dataclass:") {
        return Some(Ty::Dataclass(name.to_string(), false));
    }
    Some(match s {
        "-" => Ty::Any,
        "str?" => Ty::StrOpt,
        "int" => Ty::Int,
        "int?" => Ty::IntOpt,
        "float" => Ty::Float,
        "float?" => Ty::FloatOpt,
        "hrint" => Ty::Hrint,
        "hrint?" => Ty::HrintOpt,
        "hrint_or_auto" => Ty::HrintOrAuto,
        "json" => Ty::Json,
        "json?" => Ty::JsonOpt,
        "json_raw" => Ty::JsonRaw,
        "dict_or_str" => Ty::DictOrStr,
        "lower_dash" => Ty::LowerDash,
        _ => return None,
    })
}

/// Splits a `choices` cell on unescaped commas (`\,` is a comma inside a choice, `\\` a backslash).
pub(super) fn split_choices(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            ',' => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The data rows of the tab-separated table `file` (comment lines `#` and blank lines skipped), after its header row
/// `header`, each with its line number and exactly the header's columns; an error names the file and the line.
pub(super) fn tsv_rows<'t, const N: usize>(
    file: &str,
    text: &'t str,
    header: [&str; N],
) -> Result<Vec<(usize, [&'t str; N])>, String> {
    let mut rows = Vec::new();
    let mut header_seen = false;
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if !header_seen {
            if cols != header {
                return Err(format!("{file} line {line_no}: expected the header row, found `{line}`"));
            }
            header_seen = true;
            continue;
        }
        let cols = <[&str; N]>::try_from(cols.as_slice())
            .map_err(|_| format!("{file} line {line_no}: expected {N} columns, found {}", cols.len()))?;
        rows.push((line_no, cols));
    }
    Ok(rows)
}

/// A row's release range: `first`, and `last` (`-`: still there in the newest release).
pub(super) fn release_bounds(
    first: &str,
    last: &str,
    bad: impl Fn(&str, &str) -> String,
) -> Result<(Release, Option<Release>), String> {
    let first = first.parse::<Release>().map_err(|_| bad("first release", first))?;
    let last = match last {
        "-" => None,
        l => Some(l.parse::<Release>().map_err(|_| bad("last release", l))?),
    };
    Ok((first, last))
}

pub(super) fn parse_table(text: &str) -> Result<Vec<FlagRow>, String> {
    let header = ["flag", "aliases", "kind", "first", "last", "choices", "type"];
    let mut rows = Vec::new();
    for (line_no, [flag, aliases, kind, first, last, choices, ty]) in tsv_rows("data/vllm-flags.tsv", text, header)? {
        let bad = |what: &str, v: &str| format!("data/vllm-flags.tsv line {line_no} ({flag}): bad {what} `{v}`");
        if !flag.starts_with("--") {
            return Err(bad("flag", flag));
        }
        let (mut positives, mut negatives) = (Vec::new(), Vec::new());
        if aliases != "-" {
            for a in aliases.split(',') {
                match a.strip_prefix('!') {
                    Some(neg) if neg.starts_with("--") => negatives.push(neg.to_string()),
                    None if a.starts_with('-') => positives.push(a.to_string()),
                    _ => return Err(bad("alias", a)),
                }
            }
        }
        let kind = parse_kind(kind).ok_or_else(|| bad("kind", kind))?;
        let (first, last) = release_bounds(first, last, bad)?;
        let choices = match choices {
            "-" => None,
            c => Some(split_choices(c)),
        };
        let ty = parse_ty(ty).ok_or_else(|| bad("type", ty))?;
        rows.push(FlagRow {
            flag: flag.to_string(),
            positives,
            negatives,
            kind,
            first,
            last,
            choices,
            ty,
        });
    }
    if rows.is_empty() {
        return Err("data/vllm-flags.tsv has no rows".to_string());
    }
    Ok(rows)
}

pub(super) fn table() -> Result<&'static [FlagRow], ParseError> {
    static TABLE: OnceLock<Result<Vec<FlagRow>, String>> = OnceLock::new();
    match TABLE.get_or_init(|| parse_table(FLAGS_TSV)) {
        Ok(rows) => Ok(rows),
        Err(e) => Err(err(format!("qpath's option table is broken: {e}"), None)),
    }
}
