//! Resolve throughput, natively: `cargo bench -p qpath-core --bench resolve` (scripts/bench.sh runs it and the wasm
//! twin in tests/wasm_bench.rs). Prints scenarios per second for a fixed mix of scenarios; asserts nothing about time.

use std::hint::black_box;
use std::time::Instant;

use qpath_core::bench_mix::scenarios;
use qpath_core::resolve::resolve;

fn main() {
    let mix = scenarios();
    // Warm up, then time whole passes over the mix until at least two seconds have passed.
    for s in &mix {
        black_box(resolve(s));
    }
    let start = Instant::now();
    let mut n = 0usize;
    while start.elapsed().as_secs_f64() < 2.0 {
        for s in &mix {
            black_box(resolve(s));
        }
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
