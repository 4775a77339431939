//! pydantic as vLLM uses it: the `ValidationError` text, lax `bool`, and `--attention-config`'s
//! `TypeAdapter(AttentionConfig).validate_json` (`parse_dataclass`, engine/arg_utils.py L369 in 0.33.0) after
//! `_expand_json_human_readable_numbers` (L302).

use super::enums::Enums;
use super::json::{Obj, Value};
use super::python::{human_readable_int_text, py_lower, py_repr, py_str_repr, py_type, py_upper, HrErr};
use super::AttentionConfig;
use crate::release::Release;

/// One line of a pydantic `ValidationError`.
pub(super) struct PydErr {
    pub(super) loc: Option<String>,
    msg: String,
    kind: &'static str,
    input: Value,
}

pub(super) fn pyd(loc: &str, msg: impl Into<String>, kind: &'static str, input: Value) -> PydErr {
    PydErr {
        loc: Some(loc.to_string()),
        msg: msg.into(),
        kind,
        input,
    }
}

/// `repr(ValidationError)` without the "For further information visit …" lines.
pub(super) fn pydantic_message(model: &str, errs: &[PydErr]) -> String {
    let n = errs.len();
    let mut s = format!("{n} validation error{} for {model}", if n == 1 { "" } else { "s" });
    for e in errs {
        if let Some(loc) = &e.loc {
            s.push('\n');
            s.push_str(loc);
        }
        s.push_str(&format!(
            "\n  {} [type={}, input_value={}, input_type={}]",
            e.msg,
            e.kind,
            truncate_repr(&py_repr(&e.input)),
            py_type(&e.input)
        ));
    }
    s
}

/// pydantic shortens an `input_value` repr longer than 50 characters to its first 25 and last 24 around `...`.
pub(super) fn truncate_repr(r: &str) -> String {
    let chars: Vec<char> = r.chars().collect();
    if chars.len() <= 50 {
        return r.to_string();
    }
    let head: String = chars.iter().take(25).collect();
    let tail: String = chars.iter().skip(chars.len() - 24).collect();
    format!("{head}...{tail}")
}

/// pydantic's lax `bool`: JSON booleans, 0/1, 0.0/1.0 and (case-insensitive) "0 off f false n no" / "1 on t true y yes".
fn pyd_bool(loc: &str, v: &Value, optional: bool) -> Result<Option<bool>, PydErr> {
    let parsing = || {
        pyd(
            loc,
            "Input should be a valid boolean, unable to interpret input",
            "bool_parsing",
            v.clone(),
        )
    };
    let typ = || pyd(loc, "Input should be a valid boolean", "bool_type", v.clone());
    match v {
        Value::Null if optional => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        Value::Number(n) if n.is_i64() || n.is_u64() => match n.as_i64() {
            Some(0) => Ok(Some(false)),
            Some(1) => Ok(Some(true)),
            _ => Err(parsing()),
        },
        Value::Number(n) => match n.as_f64() {
            Some(0.0) => Ok(Some(false)),
            Some(1.0) => Ok(Some(true)),
            _ => Err(typ()),
        },
        Value::String(s) => match py_lower(s).as_str() {
            "0" | "off" | "f" | "false" | "n" | "no" => Ok(Some(false)),
            "1" | "on" | "t" | "true" | "y" | "yes" => Ok(Some(true)),
            _ => Err(parsing()),
        },
        _ => Err(typ()),
    }
}

/// `AttentionBackendEnum[value.upper()]` (`_AttentionBackendEnumMeta.__getitem__`, v1/attention/backends/registry.py).
pub(super) fn backend_member(release: Release, enums: &Enums, name: &str) -> Result<String, String> {
    let up = py_upper(name);
    let members = enums.backends(release);
    if members.contains(&up.as_str()) {
        Ok(up)
    } else {
        Err(format!(
            "Unknown attention backend: '{up}'. Valid options are: {}",
            members.join(", ")
        ))
    }
}

/// `_expand_json_human_readable_numbers` (engine/arg_utils.py): outside JSON strings, bare `\b\d+(\.\d+)?[kKmMgGtT]\b`
/// tokens become integers. A binary suffix with decimals is argparse's `Decimals are not allowed …` error.
pub(super) fn expand_hr_numbers(val: &str) -> Result<String, String> {
    let chars: Vec<char> = val.chars().collect();
    let n = chars.len();
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let is_suffix = |c: Option<&char>| matches!(c, Some('k' | 'K' | 'm' | 'M' | 'g' | 'G' | 't' | 'T'));
    let boundary_at = |p: usize| chars.get(p).is_none_or(|&c| !is_word(c));
    let mut out = String::with_capacity(val.len());
    let mut i = 0;
    while i < n {
        let c = chars[i];
        if c == '"' {
            // `"(?:[^"\\]|\\.)*"`: a complete string literal is copied untouched.
            let mut j = i + 1;
            let end = loop {
                match chars.get(j) {
                    Some('"') => break Some(j),
                    Some('\\') => match chars.get(j + 1) {
                        Some(&e) if e != '\n' => j += 2,
                        _ => break None,
                    },
                    Some(_) => j += 1,
                    None => break None,
                }
            };
            if let Some(end) = end {
                out.extend(&chars[i..=end]);
                i = end + 1;
                continue;
            }
        } else if c.is_ascii_digit() && (i == 0 || !is_word(chars[i - 1])) {
            let mut j = i;
            while chars.get(j).is_some_and(|d| d.is_ascii_digit()) {
                j += 1;
            }
            let mut matched = None;
            if chars.get(j) == Some(&'.') && chars.get(j + 1).is_some_and(|d| d.is_ascii_digit()) {
                let mut k = j + 1;
                while chars.get(k).is_some_and(|d| d.is_ascii_digit()) {
                    k += 1;
                }
                if is_suffix(chars.get(k)) && boundary_at(k + 1) {
                    matched = Some(k + 1);
                }
            }
            if matched.is_none() && is_suffix(chars.get(j)) && boundary_at(j + 1) {
                matched = Some(j + 1);
            }
            if let Some(end) = matched {
                let token: String = chars[i..end].iter().collect();
                match human_readable_int_text(&token) {
                    Ok(t) => out.push_str(&t),
                    Err(HrErr::Decimal(msg)) => return Err(msg),
                    Err(HrErr::Invalid) => out.push_str(&token),
                }
                i = end;
                continue;
            }
            out.extend(&chars[i..j]);
            i = j;
            continue;
        }
        out.push(c);
        i += 1;
    }
    Ok(out)
}

/// Parses the expanded JSON as pydantic's `validate_json` would before field validation.
fn dataclass_json(model: &str, raw: &str) -> Result<Obj, String> {
    let expanded = expand_hr_numbers(raw)?;
    match super::json::loads(&expanded) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(v) => Err(pydantic_message(
            model,
            &[PydErr {
                loc: None,
                msg: "Input should be an object".into(),
                kind: "dataclass_type",
                input: v,
            }],
        )),
        // pydantic reads the text with its own JSON parser (jiter), whose errors are serde_json's texts (its parser's,
        // the same whatever value type it builds: serde_json's own, whose reader the page has anyway).
        Err(_) => Err(pydantic_message(
            model,
            &[PydErr {
                loc: None,
                msg: format!(
                    "Invalid JSON: {}",
                    serde_json::from_str::<serde_json::Value>(&expanded)
                        .err()
                        .map(|e| e.to_string())
                        .unwrap_or_default()
                ),
                kind: "json_invalid",
                input: Value::String(expanded),
            }],
        )),
    }
}

/// Other config dataclasses (`--compilation-config`, …): qpath checks the JSON shape only, not their fields.
pub(super) fn validate_dataclass_shape(model: &str, raw: &str) -> Result<(), String> {
    dataclass_json(model, raw).map(|_| ())
}

/// `--attention-config` / `-ac`: `TypeAdapter(AttentionConfig).validate_json` (pydantic, `extra="forbid"`) on the
/// expanded text; the fields qpath keeps are validated with pydantic's lax rules, the others only have to exist in
/// that release's `AttentionConfig` (config/attention.py). Errors are collected in field order, then unknown keys.
pub(super) fn validate_attention(release: Release, enums: &Enums, raw: &str) -> Result<AttentionConfig, String> {
    let map = dataclass_json("AttentionConfig", raw)?;
    let fields = enums.attention_fields(release);
    let mut cfg = AttentionConfig::default();
    let mut errs = Vec::new();
    for &f in &fields {
        let Some(v) = map.get(f) else { continue };
        if let Err(e) = attention_field(release, enums, &mut cfg, f, v) {
            errs.push(e);
        }
    }
    for (k, v) in map.iter() {
        if !fields.contains(&k.as_str()) {
            errs.push(pyd(
                k,
                "Unexpected keyword argument",
                "unexpected_keyword_argument",
                v.clone(),
            ));
        }
    }
    if !errs.is_empty() {
        return Err(pydantic_message("AttentionConfig", &errs));
    }
    msa_aliases(&mut cfg, &fields);
    Ok(cfg)
}

/// One field of `AttentionConfig` validated into `cfg`: `backend` through `AttentionBackendEnum` (`"auto"` and null
/// are unset), the booleans with pydantic's lax `bool`, `flash_attn_version` as `Literal[2, 3, 4] | None`; any
/// other field is kept as compact JSON, unchecked.
fn attention_field(release: Release, enums: &Enums, cfg: &mut AttentionConfig, f: &str, v: &Value) -> Result<(), PydErr> {
    match f {
        "backend" => match v {
            Value::Null => {}
            Value::String(s) if py_lower(s) == "auto" => {}
            Value::String(s) => match backend_member(release, enums, s) {
                Ok(m) => cfg.backend = Some(m),
                Err(msg) => return Err(pyd(f, format!("Value error, {msg}"), "value_error", v.clone())),
            },
            _ => return Err(pyd(f, "Input should be an AttentionBackendEnum member", "enum", v.clone())),
        },
        "use_trtllm_attention" => cfg.use_trtllm_attention = pyd_bool(f, v, true)?,
        "disable_flashinfer_q_quantization" => cfg.disable_flashinfer_q_quantization = pyd_bool(f, v, false)?.unwrap_or(false),
        "use_non_causal" => cfg.use_non_causal = pyd_bool(f, v, false)?.unwrap_or(false),
        "flash_attn_version" => {
            let n = match v {
                Value::Null => None,
                Value::Number(n) => n
                    .as_i64()
                    .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64)),
                _ => Some(0),
            };
            match (v, n) {
                (Value::Null, _) => {}
                (_, Some(k @ 2..=4)) => cfg.flash_attn_version = Some(k as u32),
                _ => return Err(pyd(f, "Input should be 2, 3 or 4", "literal_error", v.clone())),
            }
        }
        _ => cfg.other.push((f.to_string(), v.to_string())),
    }
    Ok(())
}

/// `AttentionConfig.__post_init__` (config/attention.py L172 in 0.33.0; releases whose `AttentionConfig` has
/// `minimax_m3_msa_decode_backend`, 0.27.0+): the MiniMax MSA aliases `CUTLASS_MSA` / `TRITON_MSA` select only the
/// sparse decode kernel, leaving `backend` unset.
fn msa_aliases(cfg: &mut AttentionConfig, fields: &[&str]) {
    let msa = match cfg.backend.as_deref() {
        Some("CUTLASS_MSA") => Some("cutlass"),
        Some("TRITON_MSA") => Some("triton"),
        _ => None,
    };
    let key = "minimax_m3_msa_decode_backend";
    if let (Some(kernel), true) = (msa, fields.contains(&key)) {
        cfg.backend = None;
        let text = format!("\"{kernel}\"");
        match cfg.other.iter_mut().find(|(k, _)| k == key) {
            Some(entry) => entry.1 = text,
            None => {
                cfg.other.push((key.to_string(), text));
                let pos = |k: &str| fields.iter().position(|f| *f == k).unwrap_or(usize::MAX);
                crate::order::sort_by(&mut cfg.other, |a, b| pos(&a.0).cmp(&pos(&b.0)));
            }
        }
    }
}

/// pydantic's literal list: `'a', 'b' or 'c'`.
pub(super) fn pydantic_or_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| py_str_repr(s)).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}
