//! Resolve throughput in WebAssembly, the twin of `benches/resolve.rs`. It runs under Node through
//! wasm-bindgen-test-runner: `scripts/bench.sh` (the page's `web` profile). It prints scenarios per second and asserts nothing
//! about time; natively it compiles to nothing.
#![cfg(target_arch = "wasm32")]

use qpath_core::bench_mix::scenarios;
use qpath_core::resolve::resolve;
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
fn wasm_resolve_throughput() {
    let mix = scenarios();
    for s in &mix {
        std::hint::black_box(resolve(s));
    }
    let start = js_sys::Date::now();
    let mut n = 0usize;
    while js_sys::Date::now() - start < 2000.0 {
        for s in &mix {
            std::hint::black_box(resolve(s));
        }
        n += mix.len();
    }
    let secs = (js_sys::Date::now() - start) / 1000.0;
    console_log!(
        "wasm resolve: {n} scenarios in {secs:.2} s = {:.0} scenarios/s ({:.1} µs each; mix of {})",
        n as f64 / secs,
        secs * 1e6 / n as f64,
        mix.len()
    );
    assert!(n > 0);
}
