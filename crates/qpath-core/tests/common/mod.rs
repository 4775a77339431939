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

/// The MLA dims the MLA tests build layers with: the presets' values (golden_mla_models checks that the presets and
/// their config.json give exactly these).
pub mod mla {
    use qpath_core::model::MlaDims;

    /// DeepSeek-V3 / R1 / Kimi-K2: kv_lora_rank 512, q_lora_rank 1536, qk_nope 128, qk_rope 64, v 128.
    pub const V3: MlaDims = MlaDims {
        kv_lora_rank: 512,
        q_lora_rank: Some(1536),
        qk_nope_head_dim: 128,
        qk_rope_head_dim: 64,
        v_head_dim: 128,
        index_topk: None,
    };

    /// DeepSeek-V3.2: V3's dims and DeepSeek Sparse Attention's index_topk 2048.
    pub const V32: MlaDims = MlaDims {
        index_topk: Some(2048),
        ..V3
    };

    /// DeepSeek-V2-Lite: no q_lora_rank.
    pub const V2_LITE: MlaDims = MlaDims { q_lora_rank: None, ..V3 };

    /// GLM-5: V3.2's with qk_nope 192 and v 256.
    pub const GLM: MlaDims = MlaDims {
        qk_nope_head_dim: 192,
        v_head_dim: 256,
        ..V32
    };
}
