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
#[allow(unused_imports)]
pub use test_rng::Rng;

/// The report for a `vllm serve` command line on a GPU of the table at a vLLM release (names as the CLI takes them),
/// with every other option at its default: what the golden files resolve.
pub fn run(gpu: &str, vllm: &str, command: &str) -> qpath_core::report::Report {
    let mut o = qpath_core::options::ScenarioOptions::default();
    o.set(qpath_core::options::OptionKey::Gpu, gpu).unwrap();
    o.set(qpath_core::options::OptionKey::Vllm, vllm).unwrap();
    qpath_core::resolve::resolve(&o.scenario(command).unwrap())
}
