//! Step 2, `FlexibleArgumentParser.parse_args`'s pre-processing (utils/argparse_utils.py; `parse_args` at L313 in
//! 0.33.0, L243 in 0.24.0–0.28.0; docs/source-notes/cli-flags.md section 4.1): the rewrites vLLM makes to the tokens
//! after `vllm` before argparse sees them. Line numbers below are 0.33.0's; the logic is the same in every release.

use super::json::{int_value, Obj, Value};
use super::python::{human_readable_int, py_json_dumps};
use super::{err, ParseError};

/// A token after pre-processing, with the indices of the command-line tokens (after `vllm`) it came from.
#[derive(Clone, Debug)]
pub(super) struct Tok {
    pub(super) text: String,
    pub(super) orig: Origins,
}

/// The command-line tokens a [`Tok`] came from: almost always one (kept inline, no allocation), several for a merged
/// dotted-key dict, none for the dict's JSON value. Derefs to the indices, ascending.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) enum Origins {
    #[default]
    None,
    One([usize; 1]),
    Many(Vec<usize>),
}

impl std::ops::Deref for Origins {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        match self {
            Origins::None => &[],
            Origins::One(i) => i,
            Origins::Many(v) => v,
        }
    }
}

impl From<Vec<usize>> for Origins {
    fn from(v: Vec<usize>) -> Self {
        match v.as_slice() {
            [] => Origins::None,
            [i] => Origins::One([*i]),
            _ => Origins::Many(v),
        }
    }
}

/// `re.match(r"^--model(=.+|$)", arg)`.
fn is_model_option(t: &str) -> bool {
    match t.strip_prefix("--model") {
        Some("") | Some("\n") => true,
        Some(rest) => rest
            .strip_prefix('=')
            .and_then(|v| v.chars().next())
            .is_some_and(|c| c != '\n'),
        None => false,
    }
}

/// `re.match(r"^--served[-_]model[-_]name(=.+|$)", arg)` and `^--config(=.+|$)`.
pub(super) fn matches_option_regex(t: &str, names: &[&str]) -> bool {
    names.iter().any(|n| match t.strip_prefix(n) {
        Some("") | Some("\n") => true,
        Some(rest) => rest
            .strip_prefix('=')
            .and_then(|v| v.chars().next())
            .is_some_and(|c| c != '\n'),
        None => false,
    })
}

/// `pattern.sub(repl, key, count=1)` with `pattern = (?<=--)[^\.]*`: underscores become hyphens between the leading
/// `--` and the first `.`.
pub(super) fn dash_key(key: &str) -> String {
    let Some(rest) = key.strip_prefix("--") else {
        return key.to_string();
    };
    if !rest.split('.').next().unwrap_or("").contains('_') {
        return key.to_string();
    }
    match rest.find('.') {
        Some(dot) => format!("--{}{}", rest[..dot].replace('_', "-"), &rest[dot..]),
        None => format!("--{}", rest.replace('_', "-")),
    }
}

/// Steps 1–5 of `parse_args`, in vLLM's order (docs/source-notes/cli-flags.md sections 4.1–4.2). `args[0]` is
/// `serve`.
pub(super) fn preprocess(args: &[String]) -> Result<Vec<Tok>, ParseError> {
    let toks: Vec<Tok> = args
        .iter()
        .enumerate()
        .map(|(i, a)| Tok {
            text: a.clone(),
            orig: Origins::One([i]),
        })
        .collect();
    let toks = move_model_option(toks, args)?;
    check_served_model_name(&toks)?;
    refuse_config(&toks, args)?;
    let toks = rewrite_option_names(toks);
    merge_dotted_keys(toks, args)
}

/// The token at index `i` of the command line (after `vllm`), as written.
fn shown(args: &[String], i: usize) -> Option<&str> {
    args.get(i).map(String::as_str)
}

/// Step 1a (L324–355): `--model X` / `--model=X` moves to the positional slot (the first match only); `--model` as
/// the last token is Python's IndexError.
fn move_model_option(toks: Vec<Tok>, args: &[String]) -> Result<Vec<Tok>, ParseError> {
    let Some(j) = toks.iter().position(|t| is_model_option(&t.text)) else {
        return Ok(toks);
    };
    let (model, rest) = if toks[j].text == "--model" {
        match toks.get(j + 1) {
            Some(m) => (m.clone(), j + 2),
            None => {
                return Err(err(
                    "`--model` is the last token: vLLM's FlexibleArgumentParser.parse_args takes the token after \
                     `--model` as the model and fails with IndexError: list index out of range",
                    shown(args, j),
                ))
            }
        }
    } else {
        let text = toks[j].text.strip_prefix("--model=").unwrap_or(&toks[j].text).to_string();
        (
            Tok {
                text,
                orig: toks[j].orig.clone(),
            },
            j + 1,
        )
    };
    let mut moved = vec![toks[0].clone(), model];
    moved.extend(toks[1..j].iter().cloned());
    moved.extend(toks[rest..].iter().cloned());
    Ok(moved)
}

/// Step 1b (L357–369): `--served-model-name` (any `-`/`_` spelling) without a positional model and without
/// `--config` is vLLM's ValueError.
fn check_served_model_name(toks: &[Tok]) -> Result<(), ParseError> {
    if toks.get(1).is_some_and(|t| t.text.starts_with('-'))
        && !toks.iter().any(|t| matches_option_regex(&t.text, &["--config"]))
        && toks.iter().any(|t| {
            matches_option_regex(
                &t.text,
                &[
                    "--served-model-name",
                    "--served_model_name",
                    "--served-model_name",
                    "--served_model-name",
                ],
            )
        })
    {
        return Err(err(
            "ValueError: `model` should be provided as the first positional argument when using `vllm serve`. i.e. \
             `vllm serve <model> --<arg> <value>`.",
            None,
        ));
    }
    Ok(())
}

/// Step 2 (L371, `_pull_args_from_config` L516–557, `load_config_file` L633–636): the exact token `--config FILE`
/// pulls a YAML file in. vLLM's own errors (two `--config`, no file, not `.yaml`/`.yml`) are reproduced; a valid one
/// is refused, as qpath cannot read files.
fn refuse_config(toks: &[Tok], args: &[String]) -> Result<(), ParseError> {
    let configs: Vec<usize> = (0..toks.len()).filter(|&i| toks[i].text == "--config").collect();
    let Some(&c) = configs.first() else {
        return Ok(());
    };
    let token = toks[c].orig.first().and_then(|&i| shown(args, i));
    if configs.len() > 1 {
        return Err(err("AssertionError: More than one config file specified!", token));
    }
    let Some(file) = toks.get(c + 1) else {
        return Err(err(
            "ValueError: No config file specified! Please check your command-line arguments.",
            token,
        ));
    };
    let extension = file.text.rsplit('.').next().unwrap_or("");
    if extension != "yaml" && extension != "yml" {
        return Err(err(
            format!("ValueError: Config file must be of a yaml/yml type. {extension} supplied"),
            Some(&file.text),
        ));
    }
    Err(err(
        format!(
            "`--config {}`: vLLM reads this YAML file and inserts its keys as options before the rest of the \
             command line; qpath cannot read files, so write those options on the command line instead",
            file.text
        ),
        token,
    ))
}

/// Steps 3–4 (L373–408): underscores → hyphens in option names (between `--` and the first `.`, never in a
/// value), `--help=…` → `--help`, and the `-O` shorthands (`-O3`, `-O=3`, `-Odecode`, `-O <0-3>`) →
/// `--optimization-level`.
fn rewrite_option_names(toks: Vec<Tok>) -> Vec<Tok> {
    let mut out: Vec<Tok> = Vec::with_capacity(toks.len());
    let mut toks = toks.into_iter().peekable();
    while let Some(t) = toks.next() {
        let a = &t.text;
        if a.starts_with("--help=") {
            out.push(Tok {
                text: "--help".into(),
                orig: t.orig.clone(),
            });
        } else if a.starts_with("--") {
            let key = a.split_once('=').map_or(a.as_str(), |(key, _)| key);
            if !key.split('.').next().unwrap_or("").contains('_') {
                // Nothing to rewrite: the token as written.
                out.push(t);
                continue;
            }
            let text = match a.split_once('=') {
                Some((key, value)) => format!("{}={value}", dash_key(key)),
                None => dash_key(a),
            };
            out.push(Tok {
                text,
                orig: t.orig.clone(),
            });
        } else if let Some(rest) = a.strip_prefix("-O").filter(|r| !r.is_empty()) {
            let level = rest.strip_prefix('=').unwrap_or(rest);
            out.push(Tok {
                text: "--optimization-level".into(),
                orig: t.orig.clone(),
            });
            out.push(Tok {
                text: level.to_string(),
                orig: t.orig.clone(),
            });
        } else if a == "-O" && toks.peek().is_some_and(|n| matches!(n.text.as_str(), "0" | "1" | "2" | "3")) {
            out.push(Tok {
                text: "--optimization-level".into(),
                orig: t.orig.clone(),
            });
        } else {
            out.push(t);
        }
    }
    out
}

/// One dotted key's contribution: the option spelling before the first `.`, the nested dict it sets, and the
/// command-line tokens it came from.
struct Dotted {
    option: String,
    update: Obj,
    origs: Vec<usize>,
}

/// Step 5 (L441–500): every dotted key is removed from the line; the keys of one literal option spelling are merged
/// into one dict (`recursive_dict_update`), and each dict is appended at the end as `<option> <json.dumps(dict)>`.
fn merge_dotted_keys(out: Vec<Tok>, args: &[String]) -> Result<Vec<Tok>, ParseError> {
    let mut deleted = vec![false; out.len()];
    let mut dicts: Vec<Dotted> = Vec::new();
    for i in 0..out.len() {
        if deleted[i] {
            continue;
        }
        let Some(d) = read_dotted_key(&out, i, &mut deleted, args)? else {
            continue;
        };
        match dicts.iter_mut().find(|o| o.option == d.option) {
            Some(o) => {
                dict_update(&mut o.update, d.update);
                o.origs.extend(d.origs);
            }
            None => dicts.push(d),
        }
        deleted[i] = true;
    }
    let mut processed: Vec<Tok> = out.into_iter().zip(deleted).filter(|(_, d)| !d).map(|(t, _)| t).collect();
    for Dotted {
        option,
        update,
        mut origs,
    } in dicts
    {
        crate::order::sort_dedup(&mut origs);
        processed.push(Tok {
            text: option,
            orig: origs.into(),
        });
        processed.push(Tok {
            text: py_json_dumps(&Value::Object(update)),
            orig: Origins::None,
        });
    }
    Ok(processed)
}

/// Step 5, one token (L446–487): `out[i]` is a dotted key when it starts with `-` and has a `.` before any `=`. Its
/// value is after `=`, else the next token whatever it is (marked deleted; a dotted key as the last token is Python's
/// IndexError); a trailing `+` makes the value a list split on commas, otherwise it is decoded JSON-first.
fn read_dotted_key(out: &[Tok], i: usize, deleted: &mut [bool], args: &[String]) -> Result<Option<Dotted>, ParseError> {
    let t = &out[i].text;
    if t.starts_with("--") && !t.contains('.') {
        return Ok(None);
    }
    if !(t.starts_with('-') && t.contains('.')) {
        return Ok(None);
    }
    let mut origs = out[i].orig.to_vec();
    let (key, value_str) = match t.split_once('=') {
        Some((k, _)) if !k.contains('.') => return Ok(None),
        Some((k, v)) => (k.to_string(), v.to_string()),
        None => match out.get(i + 1) {
            Some(v) => {
                deleted[i + 1] = true;
                origs.extend(v.orig.iter().copied());
                (t.clone(), v.text.clone())
            }
            None => {
                return Err(err(
                    format!(
                        "`{t}` is the last token: vLLM's FlexibleArgumentParser.parse_args takes the token after a \
                         dotted key as its value and fails with IndexError: list index out of range"
                    ),
                    out[i].orig.first().and_then(|&o| shown(args, o)),
                ))
            }
        },
    };
    let (key, value) = match key.strip_suffix('+') {
        Some(k) => (
            k.to_string(),
            Value::Array(value_str.split(',').map(|s| Value::String(s.into())).collect()),
        ),
        None => (key.clone(), decode_dotted_value(&value_str)),
    };
    let mut parts = key.split('.');
    let option = parts.next().unwrap_or("").to_string();
    let keys: Vec<&str> = parts.collect();
    if keys.len() >= MAX_DOTTED_DEPTH {
        return Err(err(
            format!(
                "RecursionError: maximum recursion depth exceeded while encoding a JSON object (vLLM's \
                 FlexibleArgumentParser json.dumps the {}-level dict of a dotted key)",
                keys.len()
            ),
            out[i].orig.first().and_then(|&o| shown(args, o)),
        ));
    }
    let mut nested = value;
    for k in keys.iter().rev() {
        let mut m = Obj::new();
        m.insert((*k).to_string(), nested);
        nested = Value::Object(m);
    }
    let Value::Object(update) = nested else {
        return Ok(None);
    };
    Ok(Some(Dotted { option, update, origs }))
}

/// Python's default recursion limit (1000) less the frames below `json.dumps` in vLLM: a dotted key this deep makes
/// `parse_args` fail (approximate; measured without vLLM's call stack: 999 levels encode, 1000 do not).
const MAX_DOTTED_DEPTH: usize = 980;

/// The value of a dotted key: `json.loads`, else `human_readable_int`, else the string.
fn decode_dotted_value(s: &str) -> Value {
    if let Ok(v) = super::json::loads(s) {
        return v;
    }
    match human_readable_int(s) {
        Ok(Some(n)) => int_value(n),
        _ => Value::String(s.to_string()),
    }
}

/// `recursive_dict_update`: nested dicts merge, lists concatenate, anything else is replaced.
fn dict_update(original: &mut Obj, update: Obj) {
    for (k, v) in update {
        match (original.get_mut(&k), v) {
            (Some(Value::Object(o)), Value::Object(u)) => dict_update(o, u),
            (Some(Value::Array(o)), Value::Array(u)) => o.extend(u),
            (_, v) => {
                original.insert(k, v);
            }
        }
    }
}
