//! FLASHINFER's `validate_configuration` (its class attributes and `supports_*` methods in
//! `vllm/v1/attention/backends/flashinfer.py`): head sizes, dtype, KV-cache dtypes (NVFP4's gates per release), kernel
//! block sizes (TRTLLM's large pages), sinks, compute capability, batch invariance, 0.32.0's NVFP4 combinations.

use super::trtllm;
use crate::backends::{LayerQuery, BLOCK_SIZE_REASON, SINK_REASON};
use crate::capability::ComputeCapability;
use crate::platform::Platform;
use crate::release::Release::*;

/// `FlashInferBackend.supports_kv_cache_dtype` (plus the class list `supported_kv_cache_dtypes`).
fn flashinfer_accepts_kv(p: &Platform, kv: &str) -> bool {
    let r = p.release;
    let mut list = vec!["auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2"];
    // `"nvfp4"` joined the class list in 0.21.0 (0.21.0 flashinfer.py:336).
    if r >= V0_21_0 {
        list.push("nvfp4");
    }
    if r >= V0_28_0 {
        list.push("nvfp4_4over6");
    }
    if !list.contains(&kv) {
        return false;
    }
    if !super::is_nvfp4(r, kv) || r < V0_25_0Prefix {
        return true;
    }
    if r >= V0_32_0 && matches!(p.major(), 8 | 9 | 12) {
        return kv == "nvfp4";
    }
    p.is_family(100) && trtllm::supports(p, true) && trtllm::supports(p, false)
}

/// `validate_configuration` reasons for FLASHINFER, in vLLM's order.
pub(super) fn reasons(p: &Platform, l: &LayerQuery) -> Vec<String> {
    let mut reasons = Vec::new();
    // `get_supported_head_sizes`: [64, 128, 256], and 512 from 0.22.0 (0.22.0 flashinfer.py:405).
    let max_head = if p.release >= V0_22_0 { 512 } else { 256 };
    if ![64, 128, 256, 512].contains(&l.head_size) || l.head_size > max_head {
        reasons.push("head_size not supported".to_string());
    }
    if !p.model_dtype.is_16bit() {
        reasons.push("dtype not supported".to_string());
    }
    if !flashinfer_accepts_kv(p, &l.kv_cache_dtype) {
        reasons.push("kv_cache_dtype not supported".to_string());
    }
    if let Some(b) = l.block_size {
        let mut sizes = vec![16, 32, 64];
        let gqa = l.kv_heads > 0 && l.q_heads / l.kv_heads > 1;
        let sm100 = p.release < V0_25_0Prefix || p.is_family(100);
        // Large pages from 0.24.0; before it `get_supported_kernel_block_sizes` is `[16, 32, 64]` (0.23.0 :341).
        if p.release >= V0_24_0 && gqa && sm100 && trtllm::can_use(p, l.q_heads, l.kv_heads, false) {
            sizes.extend([128, 256, 512, 1024]);
        }
        if !sizes.iter().any(|s| b % s == 0) {
            reasons.push(BLOCK_SIZE_REASON.to_string());
        }
    }
    // `supports_mm_prefix` is not overridden (the base False), every release: a layer that selects with
    // `use_mm_prefix` (gemma-3 multimodal from 0.33.0) is refused.
    if l.use_mm_prefix {
        reasons.push("partial multimodal token full attention not supported".to_string());
    }
    if l.has_sinks && !trtllm::supports_sink(p) {
        reasons.push(SINK_REASON.to_string());
    }
    let cc = p.cc;
    // `supports_compute_capability`: from SM75 before 0.24.0, which raised the floor to SM80 (0.24.0 flashinfer.py:432,
    // FlashInfer issue #3620; 0.23.0 :408 `capability >= DeviceCapability(7, 5)`).
    let floor = if p.release >= V0_24_0 {
        ComputeCapability::new(8, 0)
    } else {
        ComputeCapability::new(7, 5)
    };
    if cc < floor || cc > ComputeCapability::new(12, 1) {
        reasons.push("compute capability not supported".to_string());
    }
    // `supports_non_causal` is the base class's False before 0.24.0 (0.24.0 flashinfer.py:362 returns True):
    // `validate_configuration` then refuses a non-causal layer (0.23.0 backend.py:323).
    if p.release < V0_24_0 && l.use_non_causal {
        reasons.push("non-causal attention not supported".to_string());
    }
    if p.batch_invariant {
        reasons.push("batch invariance not supported".to_string());
    }
    if p.release >= V0_32_0 && l.kv_cache_dtype.starts_with("nvfp4") && matches!(p.major(), 8 | 9 | 12) {
        if l.head_size == 64 {
            reasons.push("fa2 prefill misreads an NVFP4 KV cache at head_size 64".to_string());
        } else if l.has_sinks {
            reasons.push("the sink prefill wrapper cannot read an NVFP4 KV cache".to_string());
        }
    }
    reasons
}
