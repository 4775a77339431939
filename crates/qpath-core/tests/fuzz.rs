//! Property runs over generated input: the `vllm serve` parser, `--hf-overrides` JSON and whole scenarios never panic,
//! and every command line that parses formats back to one that parses to the same flags.
//!
//! The test command runs 20,000 cases per property; a long run is
//! `QPATH_FUZZ_CASES=1000000 cargo test --release -p qpath-core --test fuzz -- --nocapture`.
//! `QPATH_FUZZ_SEED=n` picks another sequence; a failure prints the seed and the input.

use qpath_core::model;
use qpath_core::release::Release;
use qpath_core::resolve::{resolve, Hardware, Scenario};
use qpath_core::serve;

mod common;

use common::{cases, Rng};

fn seed() -> u64 {
    common::seed_or(0x5eed_cafe)
}

const FLAGS: &[&str] = &[
    "--kv-cache-dtype",
    "--kv-cache-dtype-skip-layers",
    "--attention-backend",
    "--attention-config",
    "-ac",
    "--attention-config.use_trtllm_attention",
    "-ac.disable_flashinfer_q_quantization",
    "--block-size",
    "-dcp",
    "--decode-context-parallel-size",
    "-tp",
    "--dtype",
    "--hf-overrides",
    "--speculative-config",
    "--max-model-len",
    "--enable-prefix-caching",
    "--no-enable-prefix-caching",
    "--model",
    "--config",
    "--",
    "-O3",
    "--kv_cache_dtype",
    "--attention-config.backend",
    "--help",
    "-h",
    "--bogus",
    "-q",
    "--kv-cache-dtype=fp8",
];
const VALUES: &[&str] = &[
    "fp8",
    "fp8_e5m2",
    "nvfp4",
    "nvfp4_4over6",
    "auto",
    "float16",
    "0",
    "1",
    "2",
    "-1",
    "1e3",
    "4k",
    "sliding_window",
    "FLASHINFER",
    "true",
    "false",
    "True",
    "null",
    "{}",
    "{\"use_trtllm_attention\": false}",
    "{\"head_dim\": 512}",
    "[1,2]",
    "\"x\"",
    "{\"num_speculative_tokens\": 3, \"method\": \"ngram\"}",
    "'",
    "\"",
    "\\",
    "=",
    "''",
    "a b",
    "{",
    "}",
    "\u{1F600}",
    "",
];
const MODELS: &[&str] = &[
    "meta-llama/Llama-3.1-8B-Instruct",
    "openai/gpt-oss-20b",
    "google/gemma-3-27b-it",
    "x/y",
    "",
    "--x",
];
const ENVS: &[&str] = &[
    "VLLM_BATCH_INVARIANT=1",
    "VLLM_HAS_FLASHINFER_CUBIN=0",
    "VLLM_KV_CACHE_LAYOUT=HND",
    "A=",
    "=1",
    "X=\"a b\"",
];

/// One command line: sometimes raw bytes, mostly a soup of real flags and values.
fn line(r: &mut Rng) -> String {
    if r.below(8) == 0 {
        let n = r.below(60);
        return (0..n)
            .map(|_| char::from_u32(32 + r.below(95) as u32).unwrap_or(' '))
            .collect();
    }
    let mut words: Vec<String> = Vec::new();
    for _ in 0..r.below(3) {
        words.push(r.pick(ENVS).to_string());
    }
    words.push(if r.below(20) == 0 {
        "vllm".into()
    } else {
        "vllm serve".into()
    });
    words.push(r.pick(MODELS).to_string());
    for _ in 0..r.below(10) {
        let w = if r.below(3) == 0 { r.pick(VALUES) } else { r.pick(FLAGS) };
        let quoted = match r.below(6) {
            0 => format!("'{w}'"),
            1 => format!("\"{w}\""),
            _ => w.to_string(),
        };
        words.push(quoted);
    }
    words.join(" ")
}

/// `--model` followed by a value that starts with a dash (quoted or not).
fn dash_model(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .any(|w| w[0].trim_matches(['\'', '"']) == "--model" && w[1].trim_matches(['\'', '"']).starts_with('-'))
}

#[test]
fn the_parser_never_panics_and_formats_round_trip() {
    let mut r = Rng(seed());
    let (mut parsed, n) = (0u64, cases());
    let start = std::time::Instant::now();
    for i in 0..n {
        let release = Release::ALL[r.below(Release::ALL.len())];
        let text = line(&mut r);
        let outcome = std::panic::catch_unwind(|| serve::parse(release, &text));
        let Ok(result) = outcome else {
            panic!("case {i} (seed {}): parse panicked on {release} {text:?}", seed())
        };
        if let Ok(cmd) = result {
            parsed += 1;
            // Known gap: vLLM moves `--model VALUE` into the positional slot before argparse runs; a model *named* like
            // an option (`--model -q`) does not survive formatting. Real model ids never start with a dash.
            if dash_model(&text) {
                continue;
            }
            let again = serve::format(&cmd);
            let back = serve::parse(release, &again)
                .unwrap_or_else(|e| panic!("case {i}: {text:?} formats to {again:?}, which fails: {e}"));
            assert_eq!(back, cmd, "case {i}: {text:?} → {again:?} changes the flags");
        }
    }
    println!(
        "parser: {n} cases, {parsed} parsed and round-tripped in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    assert!(
        parsed > n / 20,
        "the generator must reach valid command lines too ({parsed} of {n})"
    );
}

#[test]
fn hf_overrides_never_panic() {
    let keys = [
        "num_hidden_layers",
        "num_attention_heads",
        "num_key_value_heads",
        "head_dim",
        "hidden_size",
        "layer_types",
        "sliding_window",
        "torch_dtype",
        "text_config",
        "x",
    ];
    let values = [
        "0",
        "1",
        "-3",
        "7",
        "64",
        "4096",
        "1e9",
        "18446744073709551616",
        "null",
        "true",
        "\"bfloat16\"",
        "\"x\"",
        "[]",
        "[\"full_attention\",\"sliding_attention\"]",
        "{}",
        "{\"num_hidden_layers\": 2}",
        "2.5",
    ];
    let mut r = Rng(seed() ^ 0xabcdef);
    let n = cases();
    let start = std::time::Instant::now();
    for i in 0..n {
        let mut obj = serde_json::Map::new();
        for _ in 0..r.below(6) {
            let v: serde_json::Value = serde_json::from_str(values[r.below(values.len())]).unwrap_or(serde_json::Value::Null);
            obj.insert(keys[r.below(keys.len())].to_string(), v);
        }
        let id = MODELS[r.below(MODELS.len())];
        let release = Release::ALL[r.below(Release::ALL.len())];
        let outcome = std::panic::catch_unwind(|| model::resolve_model_at(release, id, Some(&obj)));
        assert!(
            outcome.is_ok(),
            "case {i} (seed {}): resolve_model panicked on {id} {obj:?}",
            seed()
        );
    }
    println!("hf-overrides: {n} cases in {:.1} s", start.elapsed().as_secs_f64());
}

#[test]
fn whole_scenarios_never_panic() {
    let mut r = Rng(seed() ^ 0x1234);
    let gpus = [
        "l4",
        "h100-sxm",
        "b200",
        "rtx-5090",
        "jetson-agx-thor",
        "t4",
        "8.0",
        "10.7",
        "12.1",
        "11.0",
    ];
    let n = cases();
    let start = std::time::Instant::now();
    for i in 0..n {
        let release = Release::ALL[r.below(Release::ALL.len())];
        let s = Scenario::new(Hardware::parse(gpus[r.below(gpus.len())]).unwrap(), release, line(&mut r));
        let outcome = std::panic::catch_unwind(|| resolve(&s));
        assert!(outcome.is_ok(), "case {i} (seed {}): resolve panicked on {s:?}", seed());
    }
    println!("scenarios: {n} cases in {:.1} s", start.elapsed().as_secs_f64());
}
