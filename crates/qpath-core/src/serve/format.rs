//! [`format`](fn@format): the canonical command line of a [`ServeCommand`], which [`parse`](fn@super::parse) reads back
//! unchanged.

use super::shell::{is_shell_name, shell_quote, tokenize};
use super::{AttentionConfig, ServeCommand, SpeculativeConfig};

/// `--flag value`, or `--flag=value` when the value would read as an option.
fn push_opt(parts: &mut Vec<String>, flag: &str, value: &str) {
    if value.starts_with('-') {
        parts.push(shell_quote(&format!("{flag}={value}")));
    } else {
        parts.push(flag.to_string());
        parts.push(shell_quote(value));
    }
}

fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// The environment variables qpath reads (`vllm/envs.py`): their values decide its answer, so a shared command line
/// keeps them. Every other variable's value (`HF_TOKEN=hf_…`, paths) is dropped from what the page shares.
pub const READ_ENV: [&str; 6] = [
    "VLLM_BATCH_INVARIANT",
    "VLLM_HAS_FLASHINFER_CUBIN",
    "VLLM_KV_CACHE_LAYOUT",
    "VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE",
    "VLLM_GDN_DECODE_KERNEL",
    "VLLM_MLA_DISABLE",
];

/// What a dropped value is written as (`HF_TOKEN=…`): a plain shell word, so the shared command line still parses.
pub const DROPPED_VALUE: &str = "…";

/// The command line `text` as links, Markdown and messages carry it: each leading `NAME=value` assignment of a
/// variable qpath does not read ([`READ_ENV`]) keeps its name and loses its value ([`DROPPED_VALUE`]); also the names
/// whose value was dropped. Text without such an assignment is returned as written. When values are dropped, the rest
/// is rewritten word by word (the same words, requoted); text the shell cannot split (an unterminated quote) is read
/// by blanks, so a value is dropped even then.
pub fn without_unread_env(text: &str) -> (String, Vec<String>) {
    let unread = |name: &str, value: &str| !value.is_empty() && !READ_ENV.contains(&name);
    let words: Vec<(String, bool)> = match super::shell::tokenize(text) {
        Ok(w) => w.into_iter().map(|w| (w.text, w.assignment)).collect(),
        Err(_) => text.split_whitespace().map(|w| (w.to_string(), true)).collect(),
    };
    let leading = words
        .iter()
        .take_while(|(w, assignment)| *assignment && w.split_once('=').is_some_and(|(k, _)| is_shell_name(k)));
    let dropped: Vec<String> = leading
        .clone()
        .filter_map(|(w, _)| w.split_once('=').filter(|(k, v)| unread(k, v)).map(|(k, _)| k.to_string()))
        .collect();
    if dropped.is_empty() {
        return (text.to_string(), dropped);
    }
    let n = leading.count();
    let parts: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, (w, _))| match w.split_once('=') {
            Some((k, v)) if i < n && unread(k, v) => format!("{k}={DROPPED_VALUE}"),
            Some((k, v)) if i < n => format!("{k}={}", shell_quote(v)),
            _ => shell_quote(w),
        })
        .collect();
    (parts.join(" "), dropped)
}

/// The canonical command line of `cmd`: its environment assignments, `vllm serve MODEL`, the kept options that differ
/// from vLLM's defaults (long spellings, JSON for `--attention-config` / `--speculative-config` / `--hf-overrides`),
/// then [`ServeCommand::unused`] as written. Words are shell-quoted where needed; a model that starts with `-` is put
/// last, after `--`. For every command [`parse`](fn@super::parse) accepts, `parse(release, &format(&cmd))` gives
/// `cmd` back.
pub fn format(cmd: &ServeCommand) -> String {
    let mut parts: Vec<String> = cmd.env.iter().map(|(k, v)| format!("{k}={}", shell_quote(v))).collect();
    parts.push("vllm".into());
    parts.push("serve".into());
    let model_first = !cmd.model.starts_with('-');
    if model_first {
        parts.push(shell_quote(&cmd.model));
    }
    if cmd.dtype != "auto" {
        push_opt(&mut parts, "--dtype", &cmd.dtype);
    }
    if cmd.kv_cache_dtype != "auto" {
        push_opt(&mut parts, "--kv-cache-dtype", &cmd.kv_cache_dtype);
    }
    match cmd.kv_cache_dtype_skip_layers.as_slice() {
        [] => {}
        [one] => push_opt(&mut parts, "--kv-cache-dtype-skip-layers", one),
        many => {
            parts.push("--kv-cache-dtype-skip-layers".into());
            parts.extend(many.iter().map(|s| shell_quote(s)));
        }
    }
    if let Some(b) = &cmd.attention_backend {
        push_opt(&mut parts, "--attention-backend", b);
    }
    if cmd.attention_config != AttentionConfig::default() {
        parts.push("--attention-config".into());
        parts.push(shell_quote(&attention_config_json(&cmd.attention_config)));
    }
    if let Some(b) = cmd.block_size {
        parts.push("--block-size".into());
        parts.push(b.to_string());
    }
    if cmd.tensor_parallel_size != 1 {
        parts.push("--tensor-parallel-size".into());
        parts.push(cmd.tensor_parallel_size.to_string());
    }
    if cmd.decode_context_parallel_size != 1 {
        parts.push("--decode-context-parallel-size".into());
        parts.push(cmd.decode_context_parallel_size.to_string());
    }
    if let Some(sc) = &cmd.speculative_config {
        parts.push("--speculative-config".into());
        parts.push(shell_quote(&speculative_config_json(sc)));
    }
    if let Some(m) = cmd.hf_overrides.as_ref().filter(|m| !m.is_empty()) {
        parts.push("--hf-overrides".into());
        parts.push(shell_quote(&super::json::restore_non_finite(
            &serde_json::Value::Object(m.clone()).to_string(),
        )));
    }
    parts.extend(cmd.unused.iter().cloned());
    if !model_first {
        parts.push("--".into());
        parts.push(shell_quote(&cmd.model));
    }
    parts.join(" ")
}

/// The JSON object of the `AttentionConfig` fields that differ from the defaults, in declaration order, then the other
/// keys as parsed.
fn attention_config_json(ac: &AttentionConfig) -> String {
    let mut fields = Vec::new();
    if let Some(b) = &ac.backend {
        fields.push(format!("\"backend\": {}", json_string(b)));
    }
    if let Some(u) = ac.use_trtllm_attention {
        fields.push(format!("\"use_trtllm_attention\": {u}"));
    }
    if ac.disable_flashinfer_q_quantization {
        fields.push("\"disable_flashinfer_q_quantization\": true".into());
    }
    if ac.use_non_causal {
        fields.push("\"use_non_causal\": true".into());
    }
    if let Some(v) = ac.flash_attn_version {
        fields.push(format!("\"flash_attn_version\": {v}"));
    }
    for (k, text) in &ac.other {
        fields.push(format!("{}: {text}", json_string(k)));
    }
    format!("{{{}}}", fields.join(", "))
}

/// The JSON object of the `SpeculativeConfig` fields that are set.
fn speculative_config_json(sc: &SpeculativeConfig) -> String {
    let mut fields = Vec::new();
    if let Some(m) = &sc.method {
        fields.push(format!("\"method\": {}", json_string(m)));
    }
    if let Some(m) = &sc.model {
        fields.push(format!("\"model\": {}", json_string(m)));
    }
    if let Some(n) = sc.num_speculative_tokens {
        fields.push(format!("\"num_speculative_tokens\": {n}"));
    }
    if let Some(b) = &sc.attention_backend {
        fields.push(format!("\"attention_backend\": {}", json_string(b)));
    }
    if let Some(kv) = &sc.kv_cache_dtype {
        fields.push(format!("\"kv_cache_dtype\": {}", json_string(kv)));
    }
    format!("{{{}}}", fields.join(", "))
}

/// A command line's options as units (`--kv-cache-dtype fp8`, `--enforce-eager`), each word shell-quoted as
/// [`format`] writes it: an option and the words after it up to the next word that starts with `-`. Words before the
/// first option (`vllm serve MODEL`) are one unit. A line the shell cannot split gives no units. What a fix's diff
/// compares (`crate::fix`).
pub fn option_units(line: &str) -> Vec<String> {
    let Ok(words) = tokenize(line) else {
        return Vec::new();
    };
    let mut units: Vec<String> = Vec::new();
    for w in words {
        let quoted = shell_quote(&w.text);
        match units.last_mut() {
            Some(last) if !(w.text.starts_with('-') && w.text.len() > 1) => {
                last.push(' ');
                last.push_str(&quoted);
            }
            _ => units.push(quoted),
        }
    }
    units
}
