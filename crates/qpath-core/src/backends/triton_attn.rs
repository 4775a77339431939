//! TRITON_ATTN (`vllm/v1/attention/backends/triton_attn.py`): selection (head size, KV-cache dtypes per release, the
//! block size), `TritonAttentionImpl.__init__`'s cache-dtype raises on CUDA, and CUDA-graph support.
//! `docs/source-notes/other-backends.md` restates the statements per release.

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery, Raise};
use crate::attention::{Backend, CgSupport, GroupErrorKind};
use crate::platform::Platform;
use crate::release::Release::*;
use crate::report::GroupReport;
use crate::source;
use crate::trace::Trace;

/// TRITON_ATTN's rules.
pub struct TritonAttn;

impl BackendRules for TritonAttn {
    fn class_name(&self) -> &'static str {
        "TritonAttentionBackend"
    }

    /// `validate_configuration` for TRITON_ATTN: head size >= 32, KV-cache dtypes per release, its own
    /// `supports_block_size` (a multiple of 16); `supports_sink` is True.
    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String> {
        let mut reasons = Vec::new();
        if l.head_size < 32 {
            reasons.push("head_size not supported".to_string());
        }
        let mut kvs = vec![
            "auto",
            "float16",
            "bfloat16",
            "fp8",
            "fp8_e4m3",
            "fp8_e5m2",
            "int8_per_token_head",
            "fp8_per_token_head",
        ];
        if p.release >= V0_25_0Prefix {
            kvs.push("int4_per_token_head");
        }
        if !kvs.contains(&l.kv_cache_dtype.as_str()) {
            reasons.push("kv_cache_dtype not supported".to_string());
        }
        super::multiple_of_16_reason(l, &mut reasons);
        reasons
    }

    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let mut t = Trace::new(p.release);
        let Some(l) = cx.query else { return };
        super::block_size_step(Backend::TritonAttn, l, &source::TRITON_SUPPORTS_BLOCK_SIZE, &mut t);
        let raised = impl_init(p, cx.engine.device, &l.kv_cache_dtype, &mut t);
        super::init_error(p, raised, &mut t, g);
        g.trace.extend(t.steps);
    }

    fn cudagraph_support(&self, _p: &Platform, _g: &GroupReport, _q_heads: u32, _non_causal: bool) -> CgDecision {
        super::class_attribute(CgSupport::Always, &source::CG_TRITON_SUPPORT)
    }
    fn kernel_block_sizes(&self, _p: &Platform, _q_heads: u32, _kv_heads: u32, t: &mut Trace) -> Option<KernelSizes> {
        t.unverified(format!(
            "{}'s kernel block sizes taken as [MultipleOf(16)] (its general case; qpath does not restate its \
             FA4 / fp8 special cases)",
            "TRITON_ATTN"
        ));
        Some(KernelSizes::MultipleOf(16))
    }
}

/// `TritonAttentionImpl.__init__` on CUDA (every release): an fp8* cache needs `has_device_capability(89)`, a bfloat16
/// cache `has_device_capability(80)`; the FP8 message suggests float16 below SM80, bfloat16 above.
fn impl_init(p: &Platform, device: &str, kv: &str, t: &mut Trace) -> Option<Raise> {
    let cap = p.cc;
    let (fp8, bf16) = (kv.starts_with("fp8"), kv == "bfloat16");
    if !fp8 && !bf16 {
        return None;
    }
    let (needed, cite) = if fp8 {
        (89, &source::TRITON_FP8_BELOW_SM89)
    } else {
        (80, &source::TRITON_BF16_BELOW_SM80)
    };
    if cap.to_int() >= needed {
        t.step(
            Some(cite),
            "TritonAttentionImpl cache dtype",
            format!("kv_cache_dtype {kv:?} on compute capability {cap}: SM{needed}+, no raise"),
        );
        return None;
    }
    t.step(
        Some(&source::TRITON_DEVICE_NAME),
        "device name",
        format!("qpath cannot model this: vLLM names the device as NVML reports it (get_device_name()); qpath writes {device:?}"),
    );
    let message = if fp8 {
        let suggested = if cap.to_int() < 80 { "float16" } else { "bfloat16" };
        format!(
            "FP8 KV cache is not supported by the Triton attention backend on {device} (compute capability {cap}); \
             native FP8 (fp8e4nv) requires SM89+. Re-run with --kv-cache-dtype {suggested}."
        )
    } else {
        format!(
            "bfloat16 KV cache is not supported on {device} (compute capability {cap}); bfloat16 requires SM80+. \
             Re-run with --kv-cache-dtype float16."
        )
    };
    Some(Raise {
        kind: GroupErrorKind::ValueError,
        message,
        cite,
        raised_in: "TritonAttentionImpl.__init__",
    })
}
