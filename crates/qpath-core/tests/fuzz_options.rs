//! Property run over generated scenario options (in `tests/fuzz.rs`'s style): the option objects the JS API, the CLI,
//! the URL hash and the element hand to [`ScenarioOptions`] (every key in each of its spellings, unknown keys, and values
//! that are valid, mutated, empty, huge, unicode, control characters, numbers where versions are expected, `NaN`,
//! `Infinity`, …), then the scenario they make (with a generated `modelConfig` at times) through a whole `resolve` and
//! the JSON the CLI and the JS API print. Nothing may panic; every option error names its key (in the reader's
//! `OptionError` and in its text) and echoes the value shortened.
//!
//! The test command runs 20,000 cases; a long run is
//! `QPATH_FUZZ_CASES=1000000 cargo test --release -p qpath-core --test fuzz_options -- --nocapture`.
//! `QPATH_FUZZ_SEED=n` picks another sequence; a failure prints the seed, the case and the input.

use qpath_core::gpu::GPUS;
use qpath_core::options::{OptionError, OptionKey, ScenarioOptions, ECHO_LIMIT};
use qpath_core::release::{FlashInfer, Release};
use qpath_core::resolve::resolve;

mod common;

use common::{cases, Rng};

fn seed() -> u64 {
    common::seed_or(0x0b7_1045)
}

/// Values some key reads (each key's valid values are drawn from every key's list: a CUDA version given as a GPU…).
const VALID: &[&str] = &[
    "l4",
    "h100-sxm",
    "b200",
    "jetson-agx-thor",
    "rtx-5090",
    "8.0",
    "8.9",
    "9.0",
    "10.0",
    "12.1",
    "0.25.0",
    "v0.25.0",
    "0.25.0-prefix",
    "0.33.0",
    "0.27.2rc1.dev77+g1234abc",
    "0.31.1",
    "0.34.0.dev3",
    "1.0",
    "12.8",
    "12.9",
    "13.0",
    "yes",
    "no",
    "true",
    "FALSE",
    "1",
    "0",
    "default",
    "pinned",
    "0.6.13",
    "0.6.18",
    "0.7.2.post1",
];

/// Values no key reads, or reads at the edges of its range.
const ODD: &[&str] = &[
    "",
    " ",
    "\t\n",
    "NaN",
    "nan",
    "Infinity",
    "-Infinity",
    "1e309",
    "-0",
    "0.0",
    "-1.0",
    "99.99",
    "99.9",
    "100.0",
    "8.10",
    "8.",
    ".9",
    "8..9",
    "255.255",
    "256.0",
    "18446744073709551616.0",
    "0.18446744073709551616.0",
    "0.25.0.0.0.0.0.0.0.0.0",
    "0.25.0rc",
    "0.25.0-rc.1",
    "0.25.0.post",
    "0.25.0.dev",
    "0.25.0+",
    "0.25.0++x",
    "0.25.0+é",
    "v",
    "vv0.25.0",
    "0.25.0 0.26.0",
    "null",
    "undefined",
    "[object Object]",
    "{}",
    "[]",
    "true ",
    "\u{0}",
    "\u{1b}[31mred",
    "\u{200b}l4",
    "l4\u{200b}",
    "Ｌ４",
    "\u{1F600}",
    "é",
    "\u{FEFF}0.25.0",
    "0.２5.0",
    "\\",
    "\"",
    "'",
    "%00",
    "H100-SXM",
    "h100",
];

/// A key as some front end spells it, or a key no front end reads.
fn key_name(r: &mut Rng) -> (String, Option<OptionKey>) {
    let k = OptionKey::ALL[r.below(OptionKey::ALL.len())];
    let name = match r.below(8) {
        0 => k.name().to_string(),
        1 => k.flag().to_string(),
        2 => k.name().replace('-', "_"),
        3 => format!("{}x", k.js_name()),
        4 => r
            .pick(&["", "modelConfig", "theme", "__proto__", "GPU", "gpu ", "\u{0}", "--", "-"])
            .to_string(),
        _ => k.js_name().to_string(),
    };
    let key = OptionKey::parse(&name);
    (name, key)
}

/// One character a mutation inserts or puts in place of another.
fn odd_char(r: &mut Rng) -> char {
    let pool = [
        '.',
        '-',
        '+',
        '0',
        '9',
        'v',
        'x',
        ' ',
        '\t',
        '\u{0}',
        '\u{7f}',
        '\u{e9}',
        '\u{200b}',
        '\u{1F600}',
        '\u{FFFD}',
    ];
    pool[r.below(pool.len())]
}

/// A valid value with one character inserted, removed or replaced.
fn mutated(r: &mut Rng) -> String {
    let mut chars: Vec<char> = r.pick(VALID).chars().collect();
    let i = r.below(chars.len() + 1);
    match r.below(3) {
        0 => chars.insert(i, odd_char(r)),
        1 if i < chars.len() => {
            chars.remove(i);
        }
        _ if i < chars.len() => chars[i] = odd_char(r),
        _ => chars.push(odd_char(r)),
    }
    chars.into_iter().collect()
}

/// One option value.
fn option_value(r: &mut Rng) -> String {
    match r.below(16) {
        0..=5 => r.pick(VALID).to_string(),
        6..=9 => r.pick(ODD).to_string(),
        10..=12 => mutated(r),
        // Numbers as a JS number becomes a string (String(x)), large and small.
        13 => match r.below(3) {
            0 => (r.next() as f64 / 1e10).to_string(),
            1 => (r.next() % 100).to_string(),
            _ => format!("{}.{}", r.next() % 300, r.next() % 300),
        },
        // Random printable and control characters.
        14 => (0..r.below(40))
            .map(|_| char::from_u32(r.below(0x300) as u32).unwrap_or('?'))
            .collect(),
        // Very long: a valid value padded or repeated, up to 100,000 characters.
        _ => {
            let v = r.pick(VALID);
            match r.below(3) {
                0 => format!("{}{v}", " ".repeat(r.below(100_000))),
                1 => v.repeat(1 + r.below(10_000)),
                _ => format!("0.{}", "9".repeat(r.below(100_000))),
            }
        }
    }
}

/// Command lines the options run under (the options are what this run varies).
const LINES: &[&str] = &[
    "vllm serve meta-llama/Llama-3.1-8B-Instruct",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype nvfp4",
    "vllm serve openai/gpt-oss-20b --kv-cache-dtype fp8",
    "vllm serve google/gemma-3-27b-it --attention-backend FLASHINFER",
    "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":2}'",
    "VLLM_HAS_FLASHINFER_CUBIN=0 vllm serve acme/tiny --kv-cache-dtype fp8_e5m2",
    "vllm serve acme/tiny -dcp 2 -tp 2 --kv-cache-dtype fp8",
    "",
    "vllm serve",
];

/// A model's config.json as `modelConfig` gives it: valid, cut, or not JSON.
fn model_config(r: &mut Rng) -> Option<String> {
    const QWEN3: &str = r#"{"architectures": ["Qwen3ForCausalLM"], "head_dim": 128, "hidden_size": 1024, "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8, "torch_dtype": "bfloat16"}"#;
    match r.below(12) {
        0 => Some(QWEN3.to_string()),
        1 => Some(QWEN3.chars().take(r.below(QWEN3.len())).collect()),
        2 => Some(option_value(r)),
        _ => None,
    }
}

/// Checks an option error: it names the key it was raised for, its text starts with that key and repeats the value
/// at most [`ECHO_LIMIT`] characters (plus the reason and the shortening note).
fn check_error(e: &OptionError, key: OptionKey, value: &str) -> Result<(), String> {
    let text = e.to_string();
    if e.key != key || !text.starts_with(key.name()) {
        return Err(format!("error for {key:?} names {:?}: {text}", e.key));
    }
    if e.value != value {
        return Err(format!("error for {key:?} keeps {:?}, not the value given", e.value));
    }
    if text.chars().count() > ECHO_LIMIT + 600 {
        return Err(format!("error for {key:?} is {} characters long", text.chars().count()));
    }
    Ok(())
}

/// One case: a generated option object read into [`ScenarioOptions`]; the scenario it makes resolved and printed.
/// Returns whether the scenario resolved (`Ok(false)`: an option error, checked).
fn run_case(r: &mut Rng, stats: &mut Stats) -> Result<bool, String> {
    let mut o = ScenarioOptions::default();
    let mut trail = Vec::new();
    for _ in 0..r.below(7) {
        let (name, key) = key_name(r);
        let value = option_value(r);
        trail.push(format!("{name:?}: {:?}", value.chars().take(120).collect::<String>()));
        let Some(key) = key else {
            stats.unknown_keys += 1;
            continue;
        };
        let before = o.clone();
        match std::panic::catch_unwind(|| {
            let mut o = before.clone();
            o.set(key, &value).map(|()| o)
        }) {
            Ok(Ok(next)) => o = next,
            Ok(Err(e)) => {
                check_error(&e, key, &value).map_err(|m| format!("{m} (options {trail:?})"))?;
                stats.option_errors += 1;
                if r.below(2) == 0 {
                    return Ok(false);
                }
            }
            Err(_) => {
                return Err(format!(
                    "ScenarioOptions::set panicked: {key:?} = {value:?} (options {trail:?})"
                ))
            }
        }
    }
    let line = r.pick(LINES);
    let config = model_config(r);
    let outcome = std::panic::catch_unwind(|| {
        let mut s = o.scenario(line)?;
        s.model_config = config.clone();
        let report = resolve(&s);
        Ok::<_, OptionError>(serde_json::to_string(&report).map_err(|e| e.to_string()))
    });
    match outcome {
        Err(_) => Err(format!(
            "resolve panicked: {o:?}, {line:?}, config {config:?} (options {trail:?})"
        )),
        Ok(Err(e)) => {
            let hardware = e.key == OptionKey::ComputeCapability && e.reason.contains("gpu");
            if !hardware {
                return Err(format!("scenario error that names no option pair: {e} (options {trail:?})"));
            }
            stats.option_errors += 1;
            Ok(false)
        }
        Ok(Ok(Err(e))) => Err(format!("the report does not serialise: {e} (options {trail:?})")),
        Ok(Ok(Ok(_json))) => Ok(true),
    }
}

#[derive(Default)]
struct Stats {
    unknown_keys: u64,
    option_errors: u64,
}

#[test]
fn generated_options_never_panic_and_errors_name_the_option() {
    // The generator draws every key, release, FlashInfer and GPU of the tables at some point.
    assert!(GPUS.len() > 1 && Release::ALL.len() > 1 && FlashInfer::ALL.len() > 1);
    let mut r = Rng(seed());
    let n = cases();
    let mut stats = Stats::default();
    let mut resolved = 0u64;
    let start = std::time::Instant::now();
    for i in 0..n {
        match run_case(&mut r, &mut stats) {
            Ok(true) => resolved += 1,
            Ok(false) => {}
            Err(m) => panic!("case {i} (seed {}): {m}", seed()),
        }
    }
    println!(
        "options: {n} cases ({resolved} whole resolves, {} option errors, {} unknown keys) in {:.1} s",
        stats.option_errors,
        stats.unknown_keys,
        start.elapsed().as_secs_f64()
    );
    assert!(
        resolved > n / 4,
        "the generator must reach valid options too ({resolved} of {n})"
    );
    assert!(stats.option_errors > n / 10, "and bad ones ({} of {n})", stats.option_errors);
}
