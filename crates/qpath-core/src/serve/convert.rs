//! Step 3, the values: each option's argparse `type` function (engine/arg_utils.py, utils/argparse_utils.py) and
//! argparse's `_check_value` against its `choices`.

use super::argparse::Conv;
use super::enums::Enums;
use super::json::{self, LoadsError, Value};
use super::pydantic::{validate_attention, validate_dataclass_shape};
use super::python::{human_readable_int, py_float, py_int, py_lower, py_str_repr, py_strip, HrErr};
use super::table::Ty;
use crate::release::Release;
use crate::release::Release::V0_31_0;

/// The option's `type` function applied to one token (`engine/arg_utils.py`, `utils/argparse_utils.py`); the error is
/// the text argparse prints after `argument NAME: `.
pub(super) fn convert(release: Release, enums: &Enums, ty: &Ty, raw: &str) -> Result<Conv, String> {
    let none_like = raw.is_empty() || raw == "None";
    let loads = |s: &str| {
        json::loads(s).map_err(|e| match e {
            LoadsError::Invalid => format!("Value {s} cannot be converted to <function loads at 0x…>."),
            LoadsError::CannotModel(m) => m,
        })
    };
    Ok(match ty {
        Ty::Any => Conv::Str(raw.to_string()),
        Ty::StrOpt if none_like => Conv::None,
        Ty::StrOpt => Conv::Str(raw.to_string()),
        Ty::LowerDash => Conv::Str(py_lower(raw).replace('-', "_")),
        Ty::Int => match py_int(raw) {
            Ok(v) => Conv::Int(v),
            Err(()) => return Err(format!("invalid int value: {}", py_str_repr(raw))),
        },
        Ty::IntOpt if none_like => Conv::None,
        Ty::IntOpt => match py_int(raw) {
            Ok(v) => Conv::Int(v),
            Err(()) => return Err(format!("Value {raw} cannot be converted to <class 'int'>.")),
        },
        Ty::Float => match py_float(raw) {
            Some(_) => Conv::Float,
            None => return Err(format!("invalid float value: {}", py_str_repr(raw))),
        },
        Ty::FloatOpt if none_like => Conv::None,
        Ty::FloatOpt => match py_float(raw) {
            Some(_) => Conv::Float,
            None => return Err(format!("Value {raw} cannot be converted to <class 'float'>.")),
        },
        Ty::Hrint => hrint(raw, || format!("invalid human_readable_int value: {}", py_str_repr(raw)))?,
        Ty::HrintOpt if none_like => Conv::None,
        Ty::HrintOpt => hrint(raw, || {
            format!("Value {raw} cannot be converted to <function human_readable_int at 0x…>.")
        })?,
        Ty::HrintOrAuto => {
            let t = py_strip(raw);
            if t == "-1" || py_lower(t) == "auto" {
                Conv::Int(Some(-1))
            } else {
                hrint(raw, || {
                    format!("invalid human_readable_int_or_auto value: {}", py_str_repr(raw))
                })?
            }
        }
        Ty::Json => Conv::Json(loads(raw)?),
        Ty::JsonOpt if none_like => Conv::None,
        Ty::JsonOpt => Conv::Json(loads(raw)?),
        Ty::JsonRaw => match json::loads(raw) {
            Ok(v) => Conv::Json(v),
            Err(LoadsError::Invalid) => return Err(format!("invalid loads value: {}", py_str_repr(raw))),
            Err(LoadsError::CannotModel(m)) => return Err(m),
        },
        Ty::DictOrStr => {
            let t = py_strip(raw);
            if t.starts_with('{') && t.ends_with('}') && t.len() >= 2 {
                Conv::Json(loads(raw)?)
            } else {
                Conv::Str(raw.to_string())
            }
        }
        Ty::Dataclass(name, optional) => {
            if *optional && none_like {
                Conv::None
            } else if name == "AttentionConfig" {
                Conv::Attn(Box::new(validate_attention(release, enums, raw)?))
            } else {
                validate_dataclass_shape(name, raw)?;
                Conv::Json(Value::Null)
            }
        }
    })
}

/// `human_readable_int` (utils/argparse_utils.py) as an option type: its `ArgumentTypeError` for decimals with a
/// binary suffix, else `invalid` (what argparse prints for the wrapper in use) when the text is no integer.
fn hrint(raw: &str, invalid: impl FnOnce() -> String) -> Result<Conv, String> {
    match human_readable_int(raw) {
        Ok(v) => Ok(Conv::Int(v)),
        Err(HrErr::Decimal(msg)) => Err(msg),
        Err(HrErr::Invalid) => Err(invalid()),
    }
}

/// argparse's `_check_value`. `None` is a choice of vLLM's optional literals: the string `"None"` in 0.24.0–0.30.0
/// (so Python's None, what `optional_type` makes of "None" and "", is rejected) and Python's None from 0.31.0.
pub(super) fn check_choice(release: Release, ty: &Ty, choices: &[String], value: &Conv) -> Result<(), String> {
    let none_is_value = release.source_release() >= V0_31_0;
    let int_choices = matches!(ty, Ty::Int | Ty::IntOpt);
    let ok = match value {
        Conv::None => none_is_value && choices.iter().any(|c| c == "None"),
        Conv::Str(s) => choices.iter().any(|c| c == s && !(none_is_value && c == "None")),
        Conv::Int(Some(n)) => choices.iter().any(|c| c.parse::<i128>().ok() == Some(*n)),
        Conv::Int(None) => false,
        _ => true,
    };
    if ok {
        return Ok(());
    }
    let shown = match value {
        Conv::None => "None".to_string(),
        Conv::Str(s) => py_str_repr(s),
        Conv::Int(Some(n)) => n.to_string(),
        _ => "…".to_string(),
    };
    let list: Vec<String> = choices
        .iter()
        .map(|c| {
            if c == "None" && none_is_value {
                "None".to_string()
            } else if int_choices && c.parse::<i128>().is_ok() {
                c.clone()
            } else {
                py_str_repr(c)
            }
        })
        .collect();
    Err(format!("invalid choice: {shown} (choose from {})", list.join(", ")))
}
