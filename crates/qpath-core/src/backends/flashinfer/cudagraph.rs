//! `FlashInferMetadataBuilder.get_cudagraph_support` per release: the DCP, below-SM90, SM90 XQA and SM12x DCP
//! rules, then the per-spec TRTLLM test (`docs/source-notes/cuda-graphs.md`).

use super::trtllm;
use crate::attention::CgSupport;
use crate::backends::CgDecision;
use crate::platform::Platform;
use crate::release::Release::{V0_25_0Prefix, V0_26_0, V0_28_0, V0_30_0, V0_32_0, V0_33_0};
use crate::report::GroupReport;
use crate::source::{self, Cite};

/// `FlashInferMetadataBuilder.get_cudagraph_support` for `g`.
pub(super) fn support(p: &Platform, g: &GroupReport, q_heads: u32, non_causal: bool) -> CgDecision {
    let (support, cite, why) = decide(p, g, q_heads, non_causal);
    CgDecision { support, cite, why }
}

/// `get_cudagraph_support`'s rules, first match wins: the support, the deciding line, why.
fn decide(p: &Platform, g: &GroupReport, q_heads: u32, non_causal: bool) -> (CgSupport, &'static Cite, String) {
    use CgSupport::{UniformBatch as Batch, UniformSingleTokenDecode as Single};
    let r = p.release;
    if r >= V0_30_0 && p.dcp > 1 {
        let why = format!(
            "decode_context_parallel_size {}: XQA has no LSE, trtllm-gen varlen not graphed",
            p.dcp
        );
        return (Single, &source::CG_FI_DCP, why);
    }
    if r >= V0_33_0 && p.cc.to_int() < 90 {
        let s = if non_causal { Single } else { Batch };
        let why = format!(
            "{} below SM90: native decode is fa2, uniform {}causal queries",
            p.arch(),
            if non_causal { "non-" } else { "" }
        );
        return (s, &source::CG_FI_FA2_NATIVE, why);
    }
    if r >= V0_25_0Prefix && r < V0_30_0 && p.is_cc(90) {
        return (
            Single,
            &source::CG_FI_SM90,
            "SM90: the XQA integration graphs single-token decodes only".into(),
        );
    }
    let sm12x = p.is_family(120);
    if r >= V0_28_0 && r < V0_30_0 && sm12x && p.dcp > 1 {
        return (
            Single,
            &source::CG_FI_SM12X_DCP,
            format!("SM12x with decode_context_parallel_size {}", p.dcp),
        );
    }
    if let Some(why) = spec_refusal(p, g, q_heads) {
        return (Single, &source::CG_FI_SPEC_CHECK, why);
    }
    let xqa_arch = p.is_cc(90) || sm12x;
    let causal_ok = if r < V0_26_0 {
        true
    } else if r < V0_28_0 {
        !non_causal
    } else if r < V0_30_0 {
        sm12x || !non_causal
    } else {
        xqa_arch || !non_causal
    };
    let heads = format!("can_use_trtllm_attention({q_heads}, {}) on {}", g.num_kv_heads, p.arch());
    if causal_ok {
        (Batch, &source::CG_FI_UNIFORM_BATCH, heads)
    } else {
        (Single, &source::CG_FI_UNIFORM_BATCH, format!("{heads}, but use_non_causal"))
    }
}

/// Why the group's layer spec fails the per-spec test: `can_use_trtllm_attention(model heads, kv heads,
/// is_prefill=False)`; from 0.30.0 on an XQA arch (SM90, SM12x) also `_is_xqa_head_dim_supported`, and from 0.32.0 an
/// NVFP4 cache on SM90.
fn spec_refusal(p: &Platform, g: &GroupReport, q_heads: u32) -> Option<String> {
    if !trtllm::can_use(p, q_heads, g.num_kv_heads, false) {
        return Some(if p.force_trtllm == Some(false) {
            "can_use_trtllm_attention is False (use_trtllm_attention=False)".to_string()
        } else if !trtllm::supports(p, false) {
            format!("can_use_trtllm_attention is False ({})", trtllm::supports_reason(p, false))
        } else {
            format!(
                "can_use_trtllm_attention is False ({q_heads} query heads not divisible by {} KV heads)",
                g.num_kv_heads
            )
        });
    }
    let (r, sm12x) = (p.release, p.is_family(120));
    if r < V0_30_0 || !(p.is_cc(90) || sm12x) {
        return None;
    }
    if r >= V0_32_0 && !sm12x && super::is_nvfp4(r, &g.cache_dtype) {
        return Some(format!("an {} KV cache on SM90 (XQA)", g.cache_dtype));
    }
    let h = g.head_dim;
    (!((16..=256).contains(&h) && h % 16 == 0))
        .then(|| format!("head_dim {h}: XQA needs a multiple of 16 in [16, 256] (_is_xqa_head_dim_supported)"))
}
