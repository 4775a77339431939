//! What the property runs share (each `tests/*.rs` file is its own crate and includes this module): the case count
//! (`QPATH_FUZZ_CASES`, default 20,000), the seed (`QPATH_FUZZ_SEED`, else the run's own default) and the generator.
#![allow(dead_code)]

/// How many cases a property run makes: `QPATH_FUZZ_CASES`, else 20,000.
pub fn cases() -> u64 {
    std::env::var("QPATH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

/// The run's seed: `QPATH_FUZZ_SEED`, else `default` (each property run has its own).
pub fn seed_or(default: u64) -> u64 {
    std::env::var("QPATH_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[path = "../../src/test_rng.rs"]
mod test_rng;

/// xorshift64*, the core's unit tests' generator.
pub use test_rng::Rng;
