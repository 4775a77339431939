//! Property runs over generated config.json texts (in `tests/fuzz.rs`'s style): valid configs with random fields set
//! to random values, truncations, byte flips, wrong types, deep nesting and huge numbers go to the reader
//! (`model::resolve_model_from_config`) on every case and to a whole `resolve` on every 8th; neither may panic, and
//! every error names the file.
//!
//! The test command runs 20,000 cases; a long run is
//! `QPATH_FUZZ_CASES=1000000 cargo test --release -p qpath-core --test fuzz_config -- --nocapture`.
//! `QPATH_FUZZ_SEED=n` picks another sequence; a failure prints the seed, the case and the input.

use qpath_core::gpu::GPUS;
use qpath_core::model;
use qpath_core::release::Release;
use qpath_core::resolve::{resolve, Hardware, Scenario};
use serde_json::{Map, Value};

mod common;

use common::{cases, Rng};

fn seed() -> u64 {
    common::seed_or(0xc0f1_6a5e)
}

/// Valid configs of each architecture qpath reads (shortened real configs).
const BASES: &[&str] = &[
    r#"{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "torch_dtype": "bfloat16"}"#,
    r#"{"architectures": ["MistralForCausalLM"], "model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "sliding_window": 4096, "torch_dtype": "bfloat16"}"#,
    r#"{"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 896, "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2, "sliding_window": 32768, "use_sliding_window": false, "max_window_layers": 21, "torch_dtype": "bfloat16"}"#,
    r#"{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "head_dim": 128, "hidden_size": 1024, "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8, "sliding_window": null, "use_sliding_window": false, "max_window_layers": 28, "torch_dtype": "bfloat16"}"#,
    r#"{"architectures": ["OPTForCausalLM"], "model_type": "opt", "hidden_size": 768, "num_attention_heads": 12, "num_hidden_layers": 12, "torch_dtype": "float16"}"#,
    r#"{"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss", "head_dim": 64, "hidden_size": 2880, "num_attention_heads": 64, "num_hidden_layers": 24, "num_key_value_heads": 8, "sliding_window": 128, "quantization_config": {"quant_method": "mxfp4"}}"#,
    r#"{"architectures": ["Gemma3ForConditionalGeneration"], "model_type": "gemma3", "text_config": {"head_dim": 128, "hidden_size": 5376, "num_attention_heads": 32, "num_hidden_layers": 62, "num_key_value_heads": 16, "sliding_window": 1024, "sliding_window_pattern": 6}, "torch_dtype": "bfloat16"}"#,
    r#"{"architectures": ["Gemma3ForCausalLM"], "model_type": "gemma3_text", "head_dim": 256, "hidden_size": 1152, "num_attention_heads": 4, "num_hidden_layers": 26, "num_key_value_heads": 1, "sliding_window": 512, "layer_types": ["sliding_attention", "full_attention"], "torch_dtype": "bfloat16"}"#,
    r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false, "symmetric": true}}}"#,
    r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}}"#,
    r#"{"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "full_attention_interval": 4, "head_dim": 256, "hidden_size": 2048, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_value_head_dim": 128, "num_attention_heads": 16, "num_hidden_layers": 48, "num_key_value_heads": 2, "torch_dtype": "bfloat16"}"#,
    r#"{"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "chunk_size": 128, "conv_kernel": 4, "head_dim": 128, "hidden_size": 4480, "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-", "mamba_head_dim": 80, "mamba_num_heads": 128, "n_groups": 8, "num_attention_heads": 40, "num_hidden_layers": 56, "num_key_value_heads": 8, "ssm_state_size": 128, "torch_dtype": "bfloat16"}"#,
    r#"{"architectures": ["Gemma4ForConditionalGeneration"], "model_type": "gemma4", "text_config": {"hidden_size": 2816, "num_hidden_layers": 12, "num_attention_heads": 16, "num_key_value_heads": 8, "num_global_key_value_heads": 2, "head_dim": 256, "global_head_dim": 512, "sliding_window": 1024, "attention_k_eq_v": true}}"#,
];

const KEYS: &[&str] = &[
    "architectures",
    "model_type",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "hidden_size",
    "head_dim",
    "layer_types",
    "sliding_window",
    "sliding_window_pattern",
    "use_sliding_window",
    "max_window_layers",
    "use_bidirectional_attention",
    "torch_dtype",
    "dtype",
    "text_config",
    "llm_config",
    "quantization_config",
    "quant_method",
    "kv_cache_scheme",
    "kv_cache_quant_algo",
    "quantization",
    "num_bits",
    "type",
    "strategy",
    "symmetric",
    "dynamic",
    "global_head_dim",
    "num_global_key_value_heads",
    "attention_k_eq_v",
    "full_attention_interval",
    "linear_num_key_heads",
    "linear_num_value_heads",
    "linear_key_head_dim",
    "linear_value_head_dim",
    "linear_conv_kernel_dim",
    "hybrid_override_pattern",
    "layers_block_type",
    "mamba_num_heads",
    "mamba_head_dim",
    "ssm_state_size",
    "n_groups",
    "mamba_n_groups",
    "mamba_num_groups",
    "conv_kernel",
    "mamba_d_conv",
    "chunk_size",
    "mamba_chunk_size",
    "mamba_ssm_cache_dtype",
    "x",
];

const VALUES: &[&str] = &[
    "0",
    "1",
    "-3",
    "2",
    "7",
    "8",
    "8.0",
    "4",
    "64",
    "128",
    "4096",
    "4097",
    "1e9",
    "1e308",
    "18446744073709551616",
    "123456789012345678901234567890",
    "null",
    "true",
    "false",
    "\"\"",
    "\"bfloat16\"",
    "\"float8_e4m3fn\"",
    "\"fp8\"",
    "\"FP8\"",
    "\"nvfp4\"",
    "\"float\"",
    "\"int\"",
    "\"tensor\"",
    "\"attn_head\"",
    "\"channel\"",
    "\"modelopt\"",
    "\"compressed-tensors\"",
    "\"LlamaForCausalLM\"",
    "[\"Gemma3ForConditionalGeneration\"]",
    "[\"Qwen3ForCausalLM\"]",
    "[\"Nope\"]",
    "[1]",
    "[]",
    "[\"full_attention\",\"sliding_attention\",\"linear_attention\",\"mamba\",\"chunked_attention\"]",
    "{}",
    "{\"num_hidden_layers\": 2, \"num_attention_heads\": 2, \"head_dim\": 64}",
    "{\"num_bits\": 8, \"type\": \"float\", \"dynamic\": false}",
    "{\"num_bits\": 4, \"type\": \"float\"}",
    "2.5",
    "\"\\u0000\"",
    "\"M*-E\"",
    "\"M-X\"",
    "\"*\"",
    "\"float32\"",
    "[\"linear_attention\",\"moe\",\"full_attention\",\"mlp\"]",
    "[\"NemotronHForCausalLM\"]",
    "[\"Qwen3NextForCausalLM\"]",
    "65536",
    "4294967295",
];

/// A random JSON value, sometimes nested `depth` deep.
fn value(r: &mut Rng, depth: u32) -> Value {
    if depth > 0 && r.below(4) == 0 {
        let mut m = Map::new();
        for _ in 0..r.below(4) {
            m.insert(KEYS[r.below(KEYS.len())].to_string(), value(r, depth - 1));
        }
        return Value::Object(m);
    }
    if depth > 0 && r.below(6) == 0 {
        let n = r.below(70);
        return Value::Array((0..n).map(|_| value(r, 0)).collect());
    }
    serde_json::from_str(VALUES[r.below(VALUES.len())]).unwrap_or(Value::Null)
}

/// One generated config.json text.
fn config_text(r: &mut Rng) -> String {
    let base = BASES[r.below(BASES.len())];
    let mut v: Value = serde_json::from_str(base).expect("valid base");
    // Set or remove random fields, at the top level or in a nested object.
    for _ in 0..r.below(5) {
        let key = KEYS[r.below(KEYS.len())].to_string();
        let target = match r.below(3) {
            0 => v.get_mut("text_config").filter(|t| t.is_object()),
            1 => v.get_mut("quantization_config").filter(|t| t.is_object()),
            _ => None,
        };
        let target = match target {
            Some(t) => t,
            None => &mut v,
        };
        if let Some(m) = target.as_object_mut() {
            if r.below(5) == 0 {
                m.remove(&key);
            } else {
                m.insert(key, value(r, 3));
            }
        }
    }
    let mut text = v.to_string();
    match r.below(8) {
        // Truncated at a random character.
        0 => {
            let cut = r.below(text.chars().count() + 1);
            text = text.chars().take(cut).collect();
        }
        // A random character replaced.
        1 => {
            let chars: Vec<char> = text.chars().collect();
            let i = r.below(chars.len());
            let pool = [
                '{', '}', '[', ']', '"', ',', ':', '0', '9', '-', 'e', ' ', '\\', 'x', '\u{e9}',
            ];
            let c = pool[r.below(pool.len())];
            text = chars.iter().enumerate().map(|(j, &x)| if j == i { c } else { x }).collect();
        }
        // Deep nesting (past serde_json's recursion limit at times), at the top or as a field.
        2 => {
            let d = r.below(300);
            let nest = format!("{}{}", "[".repeat(d), "]".repeat(d));
            text = if r.below(2) == 0 {
                nest
            } else {
                text.replacen('{', &format!("{{\"text_config\": {nest}, "), 1)
            };
        }
        // Not an object at all.
        3 if r.below(4) == 0 => text = VALUES[r.below(VALUES.len())].to_string(),
        _ => {}
    }
    text
}

const LINES: &[&str] = &[
    "vllm serve m",
    "vllm serve m --kv-cache-dtype fp8",
    "vllm serve m --kv-cache-dtype fp8_e5m2",
    "vllm serve m --kv-cache-dtype nvfp4",
    "vllm serve m --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers sliding_window,0",
    "vllm serve m -tp 2 --dtype float16",
    r#"vllm serve m --hf-overrides '{"num_hidden_layers": 3}'"#,
    r#"vllm serve m --hf-overrides '{"text_config": {"head_dim": 256}}'"#,
    "vllm serve m --attention-backend FLASHINFER --kv-cache-dtype fp8",
    "vllm serve m --mamba-ssm-cache-dtype bfloat16 --block-size 128",
];

#[test]
fn config_json_texts_never_panic() {
    let mut r = Rng(seed());
    let n = cases();
    let (mut read_ok, mut resolved) = (0u64, 0u64);
    let start = std::time::Instant::now();
    for i in 0..n {
        let text = config_text(&mut r);
        let release = Release::ALL[r.below(Release::ALL.len())];
        let outcome =
            std::panic::catch_unwind(|| model::resolve_model_from_config(release, "m", "config.json of m", &text, None));
        match outcome {
            Ok(Ok(_)) => read_ok += 1,
            Ok(Err(e)) => assert!(
                e.message.starts_with("config.json of m"),
                "case {i} (seed {}): an error that does not name the file: {} for {text}",
                seed(),
                e.message
            ),
            Err(_) => panic!("case {i} (seed {}): the reader panicked on {text}", seed()),
        }
        if i % 8 == 0 {
            let g = &GPUS[r.below(GPUS.len())];
            let mut s = Scenario::new(Hardware::Gpu(g), release, LINES[r.below(LINES.len())]);
            s.model_config = Some(text.clone());
            let outcome = std::panic::catch_unwind(|| resolve(&s));
            assert!(
                outcome.is_ok(),
                "case {i} (seed {}): resolve panicked on {} with {text}",
                seed(),
                s.command_line
            );
            resolved += 1;
        }
    }
    println!(
        "config.json: {n} cases ({read_ok} read, {resolved} whole resolves) in {:.1} s",
        start.elapsed().as_secs_f64()
    );
}
