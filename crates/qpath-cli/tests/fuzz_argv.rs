//! The "argv bytes" entry point's property run (issue 15): generated argument vectors (random bytes, invalid UTF-8
//! included; qpath's options with good, bad and random values; `--` or not; vLLM flags; one-string commands; assignments
//! with blanks) go through [`utf8_args`] and [`run_with_env`] as the binary hands them. No case may panic; every exit
//! code is 0, 1 or 2; an error is said (standard error, or standard output with `--format json`); with `--format json`
//! standard output is JSON (but for `--help`, `--version` and `completions`, which print text).
//!
//! The test command runs 2,000 cases (`QPATH_FUZZ_CASES`); a long run is
//! `QPATH_FUZZ_CASES=1000000 cargo test --release -p qpath-cli --test fuzz_argv -- --nocapture`.
//! `QPATH_FUZZ_SEED=n` picks another sequence; a failure prints the seed, the case and the arguments.
#![cfg(not(target_arch = "wasm32"))]

use std::ffi::OsString;

use qpath_cli::{exit, parse_args, run_with_env, utf8_args, wants_json, Action};

#[path = "../../qpath-core/src/test_rng.rs"]
mod test_rng;

use test_rng::Rng;

fn cases() -> u64 {
    std::env::var("QPATH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000)
}

fn seed() -> u64 {
    std::env::var("QPATH_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0xa76f_2026)
}

const SUBCOMMANDS: &[&str] = &[
    "matrix",
    "gpus",
    "releases",
    "completions",
    "help",
    "gpu",
    "matrx",
    "vllm",
    "-h",
    "--help",
    "-V",
    "--version",
];

const OPTIONS: &[&str] = &[
    "--gpu",
    "--gp",
    "--compute-capability",
    "--vllm",
    "--cuda",
    "--trtllm-cubins",
    "--flashinfer",
    "--model-config",
    "--format",
    "--check",
    "--bogus",
    "-x",
    "--",
    "--gpu=",
    "--format=json",
];

/// Options qpath takes, with good values.
const GOOD: &[&str] = &[
    "--gpu l4",
    "--gpu b200",
    "--gpu h100-sxm",
    "--compute-capability 9.0",
    "--vllm 0.25.0-prefix",
    "--vllm 0.28.0",
    "--cuda 12.8",
    "--trtllm-cubins no",
    "--flashinfer 0.7.2.post1",
    "--format json",
    "--format markdown",
    "--check",
];

const VALUES: &[&str] = &[
    "l4",
    "h100",
    "h100-sxm",
    "b200",
    "H100-SXM",
    "h900",
    "9.0",
    "12.0",
    "8.9",
    "x.y",
    "0.25.0-prefix",
    "0.33.0",
    "0.20.1",
    "0.19.1",
    "0.27.2rc1.dev77+g1234abc",
    "12.8",
    "13.0",
    "yes",
    "no",
    "maybe",
    "0.7.2.post1",
    "0.6.15",
    "json",
    "table",
    "markdown",
    "md",
    "yaml",
    "bash",
    "zsh",
    "fish",
    "tcsh",
    "/nonexistent/config.json",
    "",
    " ",
    "--",
    "-",
    "é",
    "\u{200b}",
    "\u{1b}[31m",
];

const VLLM_WORDS: &[&str] = &[
    "vllm",
    "serve",
    "meta-llama/Llama-3.1-8B-Instruct",
    "google/gemma-3-27b-it",
    "openai/gpt-oss-20b",
    "Qwen/Qwen3-8B",
    "no-such/model",
    "--kv-cache-dtype",
    "fp8",
    "nvfp4",
    "auto",
    "--attention-backend",
    "FLASHINFER",
    "TRITON_MLA",
    "--kv-cache-dtype-skip-layers",
    "0",
    "sliding_window",
    "--hf-overrides",
    "{\"num_hidden_layers\": 4}",
    "{\"rope_theta\": NaN}",
    "-tp",
    "2",
    "--block-size",
    "16",
    "--enforce-eager",
    "-ac.use_trtllm_attention",
    "true",
    "--speculative-config",
    "{\"method\": \"ngram\", \"num_speculative_tokens\": 2}",
    "--bogus",
    "HF_HOME=/my dir",
    "VLLM_ATTENTION_BACKEND=FLASHINFER",
    "it's",
    "'",
    "\"",
    "\\",
    "`",
    "$(x)",
];

/// A random word: raw bytes (invalid UTF-8 and control characters included) or a random string of a few chars.
fn random_word(rng: &mut Rng) -> OsString {
    let n = rng.below(12);
    let bytes: Vec<u8> = (0..n)
        .map(|_| match rng.below(4) {
            0 => rng.next() as u8,
            1 => {
                let special = b"-= '\"\\$`{}[]";
                special[rng.below(special.len())]
            }
            _ => b'a' + rng.below(26) as u8,
        })
        .collect();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        OsString::from_vec(bytes)
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// One generated argument vector (without the program name).
fn generate(rng: &mut Rng) -> Vec<OsString> {
    let mut argv: Vec<OsString> = Vec::new();
    if rng.below(3) == 0 {
        let sub = rng.pick(SUBCOMMANDS);
        // The matrix resolves 240 scenarios: keep it to one case in fifty.
        if sub != "matrix" || rng.below(50) == 0 {
            argv.push(sub.into());
        }
    }
    for _ in 0..rng.below(5) {
        if rng.below(3) > 0 {
            argv.extend(rng.pick(GOOD).split(' ').map(OsString::from));
            continue;
        }
        argv.push(rng.pick(OPTIONS).into());
        if rng.below(5) > 0 {
            argv.push(rng.pick(VALUES).into());
        }
    }
    if rng.below(4) == 0 {
        argv.push(random_word(rng));
    }
    if rng.below(6) > 0 {
        argv.push("--".into());
    }
    let mut vllm: Vec<String> = Vec::new();
    if rng.below(4) > 0 {
        vllm.extend(["vllm", "serve", rng.pick(&VLLM_WORDS[2..7])].map(String::from));
    }
    for _ in 0..rng.below(7) {
        vllm.push(rng.pick(VLLM_WORDS).to_string());
    }
    if rng.below(5) == 0 {
        // One string holding the whole command, as a user pastes it.
        argv.push(vllm.join(" ").into());
    } else {
        argv.extend(vllm.into_iter().map(OsString::from));
    }
    if rng.below(8) == 0 {
        let at = rng.below(argv.len() + 1);
        argv.insert(at, random_word(rng));
    }
    argv
}

/// The checks of one case: its exit code (3: not UTF-8), or a message for a failure.
fn check(argv: Vec<OsString>) -> Result<u8, String> {
    let words = match utf8_args(argv) {
        Ok(words) => words,
        Err(e) => return e.starts_with("argument ").then_some(3).ok_or(format!("utf8_args: {e}")),
    };
    let a = run_with_env(&words, &|_| None);
    if ![exit::SERVES, exit::FAILS, exit::CANNOT].contains(&a.code) {
        return Err(format!("exit code {}", a.code));
    }
    if a.stdout.is_empty() && a.stderr.is_empty() {
        return Err(format!("exit {} with nothing said", a.code));
    }
    // Help, version and completions print text whatever `--format` says (clap reads `-h` inside `-h1x` too).
    let text_only = matches!(parse_args(&words), Ok(Action::Text(_) | Action::Completions(_)));
    if wants_json(&words) && !text_only {
        serde_json::from_str::<serde_json::Value>(&a.stdout)
            .map_err(|e| format!("--format json printed no JSON ({e}): {}", a.stdout))?;
        if !a.stderr.is_empty() {
            return Err(format!("--format json wrote to standard error: {}", a.stderr));
        }
    }
    if a.code == exit::CANNOT && a.stdout.is_empty() && !a.stderr.starts_with("qpath: ") {
        return Err(format!("an error not said as qpath's: {}", a.stderr));
    }
    Ok(a.code)
}

#[test]
fn generated_argv_never_panics_and_ends_with_a_documented_code() {
    let (n, seed) = (cases(), seed());
    let mut rng = Rng(seed);
    let start = std::time::Instant::now();
    // How many cases ended with each code (and how many were not UTF-8), so a run shows what it reached.
    let mut ended = [0u64; 4];
    for case in 0..n {
        let argv = generate(&mut rng);
        let shown = format!("{argv:?}");
        let outcome = std::panic::catch_unwind(|| check(argv));
        match outcome {
            Ok(Ok(code)) => ended[usize::from(code)] += 1,
            Ok(Err(e)) => panic!("seed {seed}, case {case}: {shown}: {e}"),
            Err(_) => panic!("seed {seed}, case {case}: {shown}: panicked"),
        }
    }
    println!(
        "argv: {n} cases, seed {seed}, {:.1} s; exit 0: {}, 1: {}, 2: {}, not UTF-8: {}",
        start.elapsed().as_secs_f64(),
        ended[0],
        ended[1],
        ended[2],
        ended[3]
    );
    for (code, count) in ended.iter().enumerate().take(3) {
        assert!(n < 1_000 || *count > 0, "no case ended with exit {code}");
    }
}
