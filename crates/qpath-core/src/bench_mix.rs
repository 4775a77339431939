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
