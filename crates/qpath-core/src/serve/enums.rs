//! The embedded name lists `data/vllm-enums.tsv` (printed by `scripts/gen-vllm-flags.py --enums` from the released
//! sources): `AttentionBackendEnum` members, `AttentionConfig` fields and `CacheDType` values, each in declaration
//! order with the releases that have it, parsed once.

use std::sync::OnceLock;

use super::table::{covers, release_bounds, tsv_rows};
use super::{err, ParseError};
use crate::release::Release;

/// `data/vllm-enums.tsv`, as build.rs copies it (the page's copy has no comment lines).
pub(super) const ENUMS_TSV: &str = include_str!(concat!(env!("OUT_DIR"), "/vllm-enums.tsv"));

/// One name and the source releases that have it (`last` inclusive; `None`: to the newest).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct EnumRow {
    pub(super) name: String,
    pub(super) first: Release,
    pub(super) last: Option<Release>,
}

/// The three lists, each in declaration order.
#[derive(Clone, Debug, Default)]
pub(super) struct Enums {
    /// `AttentionBackendEnum` members (v1/attention/backends/registry.py).
    pub(super) backends: Vec<EnumRow>,
    /// `AttentionConfig` fields (config/attention.py).
    pub(super) attention_fields: Vec<EnumRow>,
    /// `CacheDType` literal values (config/cache.py).
    pub(super) cache_dtypes: Vec<EnumRow>,
}

impl Enums {
    /// The `AttentionBackendEnum` member names of release `r`, in declaration order.
    pub(super) fn backends(&self, r: Release) -> Vec<&str> {
        names_in(&self.backends, r)
    }

    /// The `AttentionConfig` field names of release `r`, in declaration order.
    pub(super) fn attention_fields(&self, r: Release) -> Vec<&str> {
        names_in(&self.attention_fields, r)
    }

    /// The `CacheDType` values of release `r`, in declaration order.
    pub(super) fn cache_dtypes(&self, r: Release) -> Vec<&str> {
        names_in(&self.cache_dtypes, r)
    }
}

/// The names of `list` that release `r` has (bounds compared with `r`'s source release, as for the option table).
fn names_in(list: &[EnumRow], r: Release) -> Vec<&str> {
    list.iter()
        .filter(|row| covers(r, row.first, row.last))
        .map(|row| row.name.as_str())
        .collect()
}

/// Reads `data/vllm-enums.tsv`: comment lines (`#`) and blank lines are skipped, then the header row
/// `list name first last`, then one row per name. Every list must have at least one row.
pub(super) fn parse_enums(text: &str) -> Result<Enums, String> {
    let mut enums = Enums::default();
    let header = ["list", "name", "first", "last"];
    for (line_no, [list, name, first, last]) in tsv_rows("data/vllm-enums.tsv", text, header)? {
        let bad = |what: &str, v: &str| format!("data/vllm-enums.tsv line {line_no} ({name}): bad {what} `{v}`");
        let rows = match list {
            "AttentionBackendEnum" => &mut enums.backends,
            "AttentionConfig" => &mut enums.attention_fields,
            "CacheDType" => &mut enums.cache_dtypes,
            other => return Err(bad("list", other)),
        };
        if name.is_empty() {
            return Err(bad("name", name));
        }
        let (first, last) = release_bounds(first, last, bad)?;
        rows.push(EnumRow {
            name: name.to_string(),
            first,
            last,
        });
    }
    for (list, rows) in [
        ("AttentionBackendEnum", &enums.backends),
        ("AttentionConfig", &enums.attention_fields),
        ("CacheDType", &enums.cache_dtypes),
    ] {
        if rows.is_empty() {
            return Err(format!("data/vllm-enums.tsv has no {list} rows"));
        }
    }
    Ok(enums)
}

/// The parsed lists, or qpath's error naming the broken line (reported like a broken option table, never a panic).
pub(super) fn enums() -> Result<&'static Enums, ParseError> {
    static ENUMS: OnceLock<Result<Enums, String>> = OnceLock::new();
    match ENUMS.get_or_init(|| parse_enums(ENUMS_TSV)) {
        Ok(enums) => Ok(enums),
        Err(e) => Err(err(format!("qpath's name lists are broken: {e}"), None)),
    }
}
