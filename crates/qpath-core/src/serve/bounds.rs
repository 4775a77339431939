//! The pydantic range checks (`Field(gt=/ge=/lt=/le=)`) on the config fields `vllm serve` flags feed, from the
//! embedded `data/vllm-field-bounds.tsv` (printed by `scripts/gen-field-bounds.py` from the released sources): a flag
//! given on the command line whose value is out of its field's range fails when `create_engine_config` builds that
//! config, with pydantic's `ValidationError` (all failing fields of one class in one error).

use std::sync::OnceLock;

use super::argparse::{Conv, Ns};
use super::convert::convert;
use super::enums::Enums;
use super::json::{int_value, Value};
use super::pydantic::{pyd, PydErr};
use super::python::py_float;
use super::table::{covers, release_bounds, tsv_rows, FlagRow, Ty};
use crate::release::Release;

/// `data/vllm-field-bounds.tsv`, as build.rs copies it (the page's copy has no comment lines).
const BOUNDS_TSV: &str = include_str!(concat!(env!("OUT_DIR"), "/vllm-field-bounds.tsv"));

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Gt,
    Ge,
    Lt,
    Le,
}

/// One flag's field and its bounds over a release range.
#[derive(Clone, Debug)]
pub(super) struct BoundRow {
    pub(super) flag: String,
    pub(super) class: String,
    pub(super) field: String,
    float: bool,
    /// (op, bound as f64, bound as pydantic prints it).
    bounds: Vec<(Op, f64, String)>,
    first: Release,
    last: Option<Release>,
}

/// Reads the table: header `flag class field type bounds first last source`, one row per field and release range.
pub(super) fn parse_bounds(text: &str) -> Result<Vec<BoundRow>, String> {
    let file = "data/vllm-field-bounds.tsv";
    let header = ["flag", "class", "field", "type", "bounds", "first", "last", "source"];
    let mut out = Vec::new();
    for (n, [flag, class, field, ty, bounds, first, last, _]) in tsv_rows(file, text, header)? {
        let bad = |what: &str, v: &str| format!("{file} line {n}: {what} `{v}` is not valid");
        let float = match ty.trim_end_matches('?') {
            "float" => true,
            "int" => false,
            _ => return Err(bad("type", ty)),
        };
        let mut parsed = Vec::new();
        for b in bounds.split(',') {
            let (op, num) = b.split_once('=').ok_or_else(|| bad("bound", b))?;
            let op = match op {
                "gt" => Op::Gt,
                "ge" => Op::Ge,
                "lt" => Op::Lt,
                "le" => Op::Le,
                _ => return Err(bad("bound", b)),
            };
            // A decimal literal as the source writes it (`-1`, `0.0`); read and shown without core's float tables
            // (crate::float: the page's wasm carries no str::parse::<f64> / f64 Display).
            let digits = num.strip_prefix('-').unwrap_or(num);
            let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
            if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()) {
                return Err(bad("bound", b));
            }
            let x = crate::float::parse_decimal(num);
            // pydantic-core prints a bound with Rust's `Display` for its number (a float 1.0 as `1`): an integral
            // bound as its integer; another as written (every bound in the table is integral).
            let whole = match int.trim_start_matches('0') {
                "" => "0",
                w => w,
            };
            let sign = if num.starts_with('-') && whole != "0" { "-" } else { "" };
            let shown = if frac.bytes().all(|c| c == b'0') {
                format!("{sign}{whole}")
            } else {
                num.to_string()
            };
            parsed.push((op, x, shown));
        }
        let (first, last) = release_bounds(first, last, bad)?;
        out.push(BoundRow {
            flag: flag.to_string(),
            class: class.to_string(),
            field: field.to_string(),
            float,
            bounds: parsed,
            first,
            last,
        });
    }
    if out.is_empty() {
        return Err(format!("{file}: no rows"));
    }
    Ok(out)
}

/// The parsed table, once per process (`Err`: the embedded table is broken, which the tests rule out).
pub(super) fn bounds_table() -> Result<&'static [BoundRow], String> {
    static TABLE: OnceLock<Result<Vec<BoundRow>, String>> = OnceLock::new();
    TABLE
        .get_or_init(|| parse_bounds(BOUNDS_TSV))
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Clone::clone)
}

/// The position of `class.field` among release `r`'s rows (the order pydantic reports a class's errors in).
pub(super) fn position(r: Release, class: &str, field: &str) -> Option<usize> {
    let rows = bounds_table().ok()?;
    rows.iter()
        .filter(|b| covers(r, b.first, b.last))
        .position(|b| b.class == class && b.field == field)
}

/// One failing field: its position among the release's rows, pydantic's line, and the entry as written.
pub(super) struct Failure {
    pub(super) pos: usize,
    pub(super) err: PydErr,
    pub(super) token: String,
}

/// The failing fields of `class` in release `r`, in pydantic's order, for the flags qpath keeps no field for (their
/// entries in `ns.unused`; the last occurrence of a flag wins, as argparse's `store`). A value left as the flag's
/// default is never checked (vLLM's defaults are in range); `None` passes a `| None` field.
pub(super) fn failures(r: Release, rows: &[FlagRow], enums: &Enums, ns: &Ns, class: &str) -> Vec<Failure> {
    let Ok(table) = bounds_table() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (pos, b) in table.iter().filter(|b| covers(r, b.first, b.last)).enumerate() {
        if b.class != class {
            continue;
        }
        let written = ns
            .unused
            .iter()
            .rev()
            // Only this row's option has its value read: every bound row looks at every entry.
            .find_map(|e| super::unused_option_of(r, e, &[b.flag.as_str()]).map(|o| (o, e)));
        let Some((opt, entry)) = written else { continue };
        let Some(raw) = opt.value else { continue };
        let Some(row) = rows.iter().find(|f| f.flag == b.flag && f.covers(r)) else {
            continue;
        };
        let Some(input) = typed_value(r, enums, &row.ty, b.float, &raw) else {
            continue;
        };
        if let Some(e) = violation(b, &input) {
            out.push(Failure {
                pos,
                err: e,
                token: entry.clone(),
            });
        }
    }
    out
}

/// The value argparse's `type` made of `raw` (already accepted by argparse), as pydantic receives it: a float from a
/// `float` option (`1` is `1.0`), an int otherwise; `None` for Python's None or an integer beyond i128.
fn typed_value(r: Release, enums: &Enums, ty: &Ty, float_field: bool, raw: &str) -> Option<Value> {
    match ty {
        Ty::Float | Ty::FloatOpt => {
            if matches!(ty, Ty::FloatOpt) && (raw.is_empty() || raw == "None") {
                return None;
            }
            let x = py_float(raw)?;
            Some(match serde_json::Number::from_f64(x) {
                Some(n) => Value::Number(n),
                None => Value::Float(x),
            })
        }
        _ => match convert(r, enums, ty, raw).ok()? {
            Conv::Int(Some(n)) if float_field => Some(Value::Number(serde_json::Number::from_f64(n as f64)?)),
            Conv::Int(Some(n)) => Some(int_value(n)),
            _ => None,
        },
    }
}

/// pydantic-core's constrained int / float check: `le`, `lt`, `ge`, `gt` in that order, the first that fails.
fn violation(b: &BoundRow, input: &Value) -> Option<PydErr> {
    let x = match input {
        Value::Number(n) => n.as_f64()?,
        Value::Float(f) => *f,
        _ => return None,
    };
    let exact = match input {
        Value::Number(n) => n.as_i64(),
        _ => None,
    };
    for want in [Op::Le, Op::Lt, Op::Ge, Op::Gt] {
        for (op, bound, shown) in b.bounds.iter().filter(|(op, _, _)| *op == want) {
            // pydantic-core tests `value > le`, `value >= lt`, `value < ge`, `value <= gt` (a nan passes every bound).
            let ok = match (exact, op) {
                (Some(i), Op::Gt) => (i as f64) > *bound,
                (Some(i), Op::Ge) => (i as f64) >= *bound,
                (Some(i), Op::Lt) => (i as f64) < *bound,
                (Some(i), Op::Le) => (i as f64) <= *bound,
                (None, Op::Gt) => x.is_nan() || x > *bound,
                (None, Op::Ge) => x.is_nan() || x >= *bound,
                (None, Op::Lt) => x.is_nan() || x < *bound,
                (None, Op::Le) => x.is_nan() || x <= *bound,
            };
            if !ok {
                let (text, kind) = match op {
                    Op::Gt => ("greater than", "greater_than"),
                    Op::Ge => ("greater than or equal to", "greater_than_equal"),
                    Op::Lt => ("less than", "less_than"),
                    Op::Le => ("less than or equal to", "less_than_equal"),
                };
                return Some(pyd(&b.field, format!("Input should be {text} {shown}"), kind, input.clone()));
            }
        }
    }
    None
}
