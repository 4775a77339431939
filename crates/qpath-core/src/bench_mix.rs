//! The fixed mix of scenarios the throughput benchmarks resolve (native: `benches/resolve.rs`; wasm:
//! `tests/wasm_bench.rs`), so both measure the same work.

use crate::release::Release;
use crate::resolve::{Hardware, Scenario};

/// 4 GPUs × 4 releases × 4 command lines (dense and hybrid models, skip layers, forced backend).
pub fn scenarios() -> Vec<Scenario> {
    let cmds = [
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
        "vllm serve meta-llama/Llama-3.3-70B-Instruct --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 0 79 -tp 4",
        "vllm serve google/gemma-3-27b-it --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers sliding_window --attention-backend FLASHINFER",
        "VLLM_HAS_FLASHINFER_CUBIN=1 vllm serve openai/gpt-oss-20b --attention-config.use_trtllm_attention true",
    ];
    let mut out = Vec::new();
    for gpu in ["l4", "h100-sxm", "b200", "rtx-pro-6000-blackwell"] {
        for release in [Release::V0_24_0, Release::V0_25_0Prefix, Release::V0_28_0, Release::V0_33_0] {
            for cmd in cmds {
                if let Ok(h) = Hardware::parse(gpu) {
                    out.push(Scenario::new(h, release, cmd));
                }
            }
        }
    }
    out
}

/// The fix finder's benchmark cases (issue 23): the seed story at 0.25.0-prefix on an L4, FLASH_ATTN forced with FP8
/// on an A100, gpt-oss with FlashInfer forced on an L4 (sinks), FlashInfer with ngram speculative decoding on an H100
/// at 0.29.0 (a CUDA-graph downgrade); each with its name. The golden tests (tests/golden_fix.rs) check their answers.
pub fn fix_cases() -> Vec<(&'static str, Scenario)> {
    let case = |name, gpu, release, cmd: &str| Hardware::parse(gpu).ok().map(|h| (name, Scenario::new(h, release, cmd)));
    [
        case(
            "seed story (L4, 0.25.0-prefix, fp8)",
            "l4",
            Release::V0_25_0Prefix,
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
        ),
        case(
            "FA2 + fp8 on A100",
            "a100-80gb",
            Release::V0_33_0,
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASH_ATTN --kv-cache-dtype fp8",
        ),
        case(
            "gpt-oss sinks, FlashInfer forced on L4",
            "l4",
            Release::V0_33_0,
            "vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER",
        ),
        case(
            "spec-decode CUDA-graph downgrade (H100, 0.29.0)",
            "h100-sxm",
            Release::V0_29_0,
            r#"vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --speculative-config '{"method": "ngram", "num_speculative_tokens": 3}'"#,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}
