//! The cost per input item of each list qpath reads, at growing sizes: `cargo bench -p qpath-core --bench caps`. Prints
//! microseconds per item for each size; a flat column is linear cost (BENCHMARKS.md, "Caps"). Asserts nothing about
//! time; tests/input_rows.rs checks the output sizes and the caps themselves.

use std::hint::black_box;
use std::time::Instant;

use qpath_core::options::ScenarioOptions;
use qpath_core::release::Release;
use qpath_core::resolve::resolve;
use qpath_core::serve::{self, limits};

const LLAMA: &str = "meta-llama/Llama-3.1-8B-Instruct";
const SIZES: [usize; 4] = [1_000, 4_000, 16_000, 64_000];

/// The command line for `n` items of one kind.
fn line(kind: &str, n: usize) -> String {
    let items: Vec<String> = match kind {
        "skip layers (4096 layers)" => (0..n).map(|i| (1_000_000 + i).to_string()).collect(),
        "unknown flags" => (0..n).map(|i| format!("--bogus{i}")).collect(),
        "dotted keys" => (0..n).map(|i| format!("--hf-overrides.k{i} 1")).collect(),
        _ => vec![format!(
            r#"--hf-overrides '{{"a": {}{}}}'"#,
            "[".repeat(n.min(limits::MAX_JSON_DEPTH - 1)),
            "]".repeat(n.min(limits::MAX_JSON_DEPTH - 1))
        )],
    };
    match kind {
        "skip layers (4096 layers)" => format!(
            r#"vllm serve {LLAMA} --hf-overrides '{{"num_hidden_layers": 4096}}' --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers {}"#,
            items.join(" ")
        ),
        _ => format!("vllm serve {LLAMA} {}", items.join(" ")),
    }
}

fn time_one(kind: &str, n: usize) -> f64 {
    let text = line(kind, n);
    let scenario = ScenarioOptions::default().scenario(text.clone()).unwrap();
    let start = Instant::now();
    let mut runs = 0u32;
    while runs < 3 || start.elapsed().as_secs_f64() < 0.5 {
        if kind.starts_with("skip") {
            black_box(resolve(&scenario));
        } else {
            black_box(serve::parse(Release::LATEST, &text).ok());
        }
        runs += 1;
    }
    start.elapsed().as_secs_f64() / f64::from(runs)
}

fn main() {
    println!("| input | {} |", SIZES.map(|n| format!("µs/item at {n}")).join(" | "));
    println!("|---|{}", "---|".repeat(SIZES.len()));
    for kind in ["skip layers (4096 layers)", "unknown flags", "dotted keys"] {
        let cells: Vec<String> = SIZES
            .iter()
            .map(|&n| format!("{:.2}", time_one(kind, n) * 1e6 / n as f64))
            .collect();
        println!("| {kind} | {} |", cells.join(" | "));
    }
    let depth = limits::MAX_JSON_DEPTH - 1;
    println!(
        "JSON nesting {depth} (the cap less one): {:.1} µs per parse",
        time_one("nesting", depth) * 1e6
    );
}
