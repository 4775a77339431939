//! Resolve throughput, natively: `cargo bench -p qpath-core --bench resolve` (scripts/bench.sh runs it, the wasm
//! twin in tests/wasm_bench.rs, and this binary under callgrind). Prints scenarios per second for a fixed mix of
//! scenarios; asserts nothing about time.
//!
//! `QPATH_BENCH_PASSES=N` resolves the mix exactly N times after the warm-up instead of timing for two seconds: under
//! `valgrind --tool=callgrind --toggle-collect='*passes*'` the instructions counted are those N passes only, so
//! instructions per scenario = Ir / (N × mix size), a figure the machine's load does not change.

use std::hint::black_box;
use std::time::Instant;

use qpath_core::bench_mix::scenarios;
use qpath_core::resolve::{resolve, Scenario};

/// The CLI's allocator (crates/qpath-cli/src/main.rs).
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `passes` whole passes over the mix (what callgrind counts).
#[inline(never)]
fn passes(mix: &[Scenario], passes: usize) {
    for _ in 0..passes {
        for s in mix {
            black_box(resolve(black_box(s)));
        }
    }
}

fn main() {
    let mix = scenarios();
    // Warm up (the first parse builds the release's option parser), then measure.
    for s in &mix {
        black_box(resolve(s));
    }
    if let Some(n) = std::env::var("QPATH_BENCH_PASSES").ok().and_then(|v| v.parse::<usize>().ok()) {
        passes(&mix, n);
        println!(
            "native resolve: {} scenarios in {n} passes (mix of {})",
            n * mix.len(),
            mix.len()
        );
        return;
    }
    let start = Instant::now();
    let mut n = 0usize;
    while start.elapsed().as_secs_f64() < 2.0 {
        passes(&mix, 1);
        n += mix.len();
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "native resolve: {n} scenarios in {secs:.2} s = {:.0} scenarios/s ({:.1} µs each; mix of {})",
        n as f64 / secs,
        secs * 1e6 / n as f64,
        mix.len()
    );
}
