//! FLASH_ATTN (`vllm/v1/attention/backends/flash_attn.py`, `fa_utils.py`): selection (`validate_configuration`:
//! head sizes, KV-cache dtypes per release, the FA4 fixed pages, sinks, compute capability) and CUDA-graph support.
//! `docs/source-notes/other-backends.md` and `vllm-logic.md` §4.5 restate the statements per release.

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery, BLOCK_SIZE_REASON, SINK_REASON};
use crate::attention::CgSupport;
use crate::capability::ComputeCapability;
use crate::platform::Platform;
use crate::release::Release::*;
use crate::report::GroupReport;
use crate::source::{self, Cite};
use crate::trace::Trace;

/// FLASH_ATTN's rules.
pub struct FlashAttn;

/// FlashAttention's version on this GPU (`get_flash_attn_version`): FA3 on SM90, FA4 on SM100, FA2 elsewhere.
pub(crate) fn fa_version(p: &Platform) -> u8 {
    match p.major() {
        9 => 3,
        10 => 4,
        _ => 2,
    }
}

/// FLASH_ATTN's `get_supported_kernel_block_sizes()` as `supports_block_size` calls it at selection (no KV spec: the
/// model's head size and the global `--kv-cache-dtype`): one fixed size where FA4 runs a paged kernel with its own page,
/// else `[MultipleOf(16)]`. 0.31.0+: SM90, an fp8 / fp8_e4m3 cache and head size 512 (FA3 upgraded to FA4) take 64;
/// 0.29.0+: compute capability 10.x (FA4) at head size 256 takes FA4's 128-token page unless
/// `_fa4_hd256_fallback_reason` sends it to FA2 (a quantized cache, decode context parallelism; sinks are not asked
/// here). Batch invariance turns FA4 into FA2 in both.
fn fixed_block(p: &Platform, l: &LayerQuery) -> Option<(u32, &'static Cite)> {
    let r = p.release;
    if p.batch_invariant {
        return None;
    }
    let fp8 = matches!(p.global_kv.as_str(), "fp8" | "fp8_e4m3");
    if r >= V0_31_0 && p.is_family(90) && fp8 && l.head_size == 512 {
        return Some((64, &source::FA_SM90_FP8_KV_BLOCK_SIZE));
    }
    let quantized = super::is_quantized(&p.global_kv);
    if r >= V0_29_0 && p.major() == 10 && l.head_size == 256 && !quantized && p.dcp <= 1 {
        return Some((128, &source::FA_FA4_HD256_BLOCK_SIZE));
    }
    None
}

impl BackendRules for FlashAttn {
    fn class_name(&self) -> &'static str {
        "FlashAttentionBackend"
    }

    /// `validate_configuration` for FLASH_ATTN: head sizes, dtype, KV-cache dtypes per release, the block size
    /// (a multiple of 16, and of FA4's fixed page where it has one), sinks, compute capability.
    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String> {
        let mut reasons = Vec::new();
        let fa4_on_device = matches!(p.major(), 9..=11);
        let head_ok = l.head_size % 8 == 0 && (l.head_size <= 256 || (fa4_on_device && l.head_size <= 512));
        if !head_ok {
            reasons.push("head_size not supported".to_string());
        }
        if !p.model_dtype.is_16bit() {
            reasons.push("dtype not supported".to_string());
        }
        let r = p.release;
        let kv_ok = match l.kv_cache_dtype.as_str() {
            "auto" | "float16" | "bfloat16" => true,
            // `supports_kv_cache_dtype` asks for the FA version without a head size: FA3 on SM90 (0.27.0+: or FA4 on
            // SM100).
            "fp8" | "fp8_e4m3" => p.is_family(90) || (r >= V0_27_0 && p.is_family(100)),
            _ => false,
        };
        if !kv_ok {
            reasons.push("kv_cache_dtype not supported".to_string());
        } else if r >= V0_27_0 && l.kv_cache_dtype.starts_with("fp8") && p.is_family(90) && l.head_size > 256 {
            // `supports_combination` asks again with the head size: SM90 runs head sizes above 256 on FA4, which takes
            // an FP8 cache there only from 0.31.0 (and only at head size 512).
            if r < V0_31_0 {
                reasons.push("FP8 KV cache requires FA3 on SM90 or FA4 on SM100".to_string());
            } else if l.head_size != 512 {
                reasons.push("FP8 KV cache requires FA3 on SM90, FA4 with head_size=512 on SM90, or FA4 on SM100".to_string());
            }
        }
        if let Some(b) = l.block_size {
            let fixed = fixed_block(p, l).is_some_and(|(kernel, _)| b % kernel != 0);
            if b % 16 != 0 || fixed {
                reasons.push(BLOCK_SIZE_REASON.to_string());
            }
        }
        if l.has_sinks && fa_version(p) < 3 {
            reasons.push(SINK_REASON.to_string());
        }
        if p.cc < ComputeCapability::new(8, 0) {
            reasons.push("compute capability not supported".to_string());
        }
        reasons
    }

    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let mut t = Trace::new(p.release);
        if let (Some(l), Some(bs)) = (cx.query, cx.query.and_then(|l| l.block_size)) {
            if let Some((kernel, cite)) = fixed_block(p, l) {
                t.step(
                    Some(cite),
                    "FLASH_ATTN kernel block size",
                    format!("--block-size {bs} is a multiple of FA4's {kernel}-token page: accepted"),
                );
            }
        }
        g.trace.extend(t.steps);
    }

    /// `FlashAttentionMetadataBuilder._cudagraph_support`: ALWAYS on FA3 (0.33.0+: FA3 or FA4), else UNIFORM_BATCH.
    fn cudagraph_support(&self, p: &Platform, _g: &GroupReport, _q_heads: u32, _non_causal: bool) -> CgDecision {
        let v = fa_version(p);
        let always = v == 3 || (p.release >= V0_33_0 && v == 4);
        let rule = if p.release >= V0_33_0 { "FA3 or FA4" } else { "FA3" };
        CgDecision {
            support: if always { CgSupport::Always } else { CgSupport::UniformBatch },
            cite: &source::CG_FA_SUPPORT,
            why: format!("FlashAttention {v} on {}: ALWAYS only on {rule}", p.arch()),
        }
    }
    fn kernel_block_sizes(&self, _p: &Platform, _q_heads: u32, _kv_heads: u32, t: &mut Trace) -> Option<KernelSizes> {
        t.unverified(format!(
            "{}'s kernel block sizes taken as [MultipleOf(16)] (its general case; qpath does not restate its \
             FA4 / fp8 special cases)",
            "FLASH_ATTN"
        ));
        Some(KernelSizes::MultipleOf(16))
    }
}
