//! [`format`](fn@format): the canonical command line of a [`ServeCommand`], which [`parse`](fn@super::parse) reads back
//! unchanged.

use super::shell::shell_quote;
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
        parts.push(shell_quote(&serde_json::Value::Object(m.clone()).to_string()));
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
    format!("{{{}}}", fields.join(", "))
}
