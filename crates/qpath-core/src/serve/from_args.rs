//! [`command_from_args`]: a `vllm serve` command line rebuilt from the `non-default args: {…}` dictionary vLLM logs at
//! start-up (`log_non_default_args`, `vllm/entrypoints/serve/utils/api_utils.py:273` in 0.24.0–0.29.0,
//! `vllm/entrypoints/common/startup.py:96` in 0.33.0): each key is an argparse `dest`, found in the release's option
//! table (`data/vllm-flags.tsv`) by its first long option, and written back as the option that sets that value.

use serde_json::Value;

use super::shell::shell_quote;
use super::table::{table, Kind};
use crate::release::Release;

/// The command line rebuilt from the arguments, and the arguments that did not become an option (each `key (why)`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RebuiltCommand {
    pub command_line: String,
    pub model: Option<String>,
    pub not_converted: Vec<String>,
}

/// A scalar as argparse had it before its type conversion: a string as written, a number in Python's repr, a JSON
/// value (a dict, a list of dicts) as JSON text.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "True" } else { "False" }.to_string()),
        Value::Null => None,
        Value::Array(_) | Value::Object(_) => Some(v.to_string()),
    }
}

/// `vllm serve MODEL --flag value …` with `env` (`NAME=value` words) in front, for release `release`, from the logged
/// `(dest, value)` pairs in their logged order. `model_tag` (the positional) and `model` name the model; a key the
/// release's options do not have, a `None`, or a value of a shape the option cannot take is listed in
/// `not_converted` and left out.
pub fn command_from_args(release: Release, args: &[(String, Value)], env: &[(String, String)]) -> RebuiltCommand {
    let mut out = RebuiltCommand::default();
    let mut words: Vec<String> = env.iter().map(|(k, v)| shell_quote(&format!("{k}={v}"))).collect();
    words.push("vllm".into());
    words.push("serve".into());
    let model_at = words.len();
    let rows = table().unwrap_or(&[]);
    for (dest, value) in args {
        if dest == "model_tag" || dest == "model" {
            if let Value::String(m) = value {
                out.model.get_or_insert_with(|| m.clone());
            }
            continue;
        }
        let flag = format!("--{}", dest.replace('_', "-"));
        let Some(row) = rows.iter().find(|r| r.flag == flag && r.covers(release)) else {
            out.not_converted.push(format!("{dest} (vLLM {release} has no {flag})"));
            continue;
        };
        let mut not = |why: &str| out.not_converted.push(format!("{dest} ({why})"));
        match (row.kind, value) {
            (_, Value::Null) => not("None"),
            (Kind::StoreTrue, Value::Bool(true)) => words.push(flag.clone()),
            (Kind::BoolOpt, Value::Bool(true)) => words.push(flag.clone()),
            (Kind::BoolOpt, Value::Bool(false)) => match row.negatives.first() {
                Some(neg) => words.push(neg.clone()),
                None => not("False, and the option has no negative form"),
            },
            (Kind::StoreTrue | Kind::BoolOpt, _) => not("not a boolean"),
            (Kind::OptionalValue, Value::Bool(true)) => words.push(flag.clone()),
            (Kind::List | Kind::Append, Value::Array(items)) if !items.is_empty() => {
                let texts: Vec<String> = items.iter().filter_map(scalar_text).collect();
                if row.kind == Kind::List {
                    words.push(flag.clone());
                    words.extend(texts.iter().map(|t| shell_quote(t)));
                } else {
                    for t in &texts {
                        words.push(flag.clone());
                        words.push(shell_quote(t));
                    }
                }
            }
            (Kind::Json, Value::Object(map)) => {
                // A config object's repr lists its fields with their defaults; `None` fields are left out (the JSON
                // reader takes a missing key as the default).
                // (Inserted one by one: collecting into the map sorts first, which costs the page a sort's code.)
                let mut kept = serde_json::Map::new();
                for (k, v) in map.iter().filter(|(_, v)| !v.is_null()) {
                    kept.insert(k.clone(), v.clone());
                }
                words.push(flag.clone());
                words.push(shell_quote(&Value::Object(kept).to_string()));
            }
            (_, v) => match scalar_text(v) {
                Some(t) if !t.starts_with('-') => {
                    words.push(flag.clone());
                    words.push(shell_quote(&t));
                }
                Some(t) => words.push(shell_quote(&format!("{flag}={t}"))),
                None => not("None"),
            },
        }
    }
    if let Some(m) = &out.model {
        words.insert(model_at, shell_quote(m));
    }
    out.command_line = words.join(" ");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(pairs: &[(&str, Value)]) -> Vec<(String, Value)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn logged_arguments_become_the_options_that_set_them() {
        let a = args(&[
            ("model_tag", json!("meta-llama/Llama-3.1-8B-Instruct")),
            ("kv_cache_dtype", json!("fp8")),
            ("kv_cache_dtype_skip_layers", json!(["0", "sliding_window"])),
            ("enforce_eager", json!(true)),
            ("max_model_len", json!(8192)),
            ("gpu_memory_utilization", json!(0.85)),
            ("speculative_config", json!({"method": "eagle3", "num_speculative_tokens": 3})),
            (
                "attention_config",
                json!({"backend": "FLASHINFER", "flash_attn_version": null}),
            ),
            ("enable_prefix_caching", json!(false)),
            ("model", json!("meta-llama/Llama-3.1-8B-Instruct")),
            ("no_such_option", json!(1)),
            ("tokenizer", Value::Null),
        ]);
        let r = command_from_args(Release::V0_25_0, &a, &[("VLLM_BATCH_INVARIANT".into(), "1".into())]);
        assert_eq!(
            r.command_line,
            "VLLM_BATCH_INVARIANT=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 \
             --kv-cache-dtype-skip-layers 0 sliding_window --enforce-eager --max-model-len 8192 \
             --gpu-memory-utilization 0.85 --speculative-config '{\"method\":\"eagle3\",\"num_speculative_tokens\":3}' \
             --attention-config '{\"backend\":\"FLASHINFER\"}' --no-enable-prefix-caching"
        );
        assert_eq!(
            r.not_converted,
            ["no_such_option (vLLM 0.25.0 has no --no-such-option)", "tokenizer (None)"]
        );
        let parsed = crate::serve::parse(Release::V0_25_0, &r.command_line).unwrap();
        assert_eq!(parsed.model, "meta-llama/Llama-3.1-8B-Instruct");
    }
}
