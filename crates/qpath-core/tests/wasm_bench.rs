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

/// The fix finder's whole search per case and the seed story's timeline (issue 23's speed item), in the page's
/// profile; the page adds its render. Prints milliseconds; asserts nothing about time.
#[wasm_bindgen_test]
fn wasm_fix_and_timeline() {
    for (name, s) in qpath_core::bench_mix::fix_cases() {
        let start = js_sys::Date::now();
        let mut runs = 0;
        let mut tried = 0;
        while runs < 3 || js_sys::Date::now() - start < 500.0 {
            tried = std::hint::black_box(qpath_core::fix::find(&s)).tried;
            runs += 1;
        }
        let ms = (js_sys::Date::now() - start) / runs as f64;
        console_log!("wasm fix: {name}: {ms:.1} ms ({tried} candidates)");
    }
    let (_, seed) = qpath_core::bench_mix::fix_cases().remove(0);
    let start = js_sys::Date::now();
    for _ in 0..10 {
        std::hint::black_box(qpath_core::timeline::timeline(&seed));
    }
    console_log!("wasm timeline: seed story: {:.1} ms", (js_sys::Date::now() - start) / 10.0);
}
