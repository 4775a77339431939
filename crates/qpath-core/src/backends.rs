//! The attention backends other than FlashInfer: what vLLM checks when it selects them and when it builds them, where
//! that check raises. qpath does not explain these backends' kernels; it restates only what makes engine start-up fail.
//!
//! - Selection (`AttentionBackend.validate_configuration`, `vllm/v1/attention/backend.py`, every release): a user's
//!   `--block-size` against the kernel block sizes (TRITON_ATTN's own `supports_block_size`, FLEX_ATTENTION's
//!   `[MultipleOf(16)]`, TURBOQUANT's `[16, 32, 64, 128]`: all "a multiple of 16"), FLEX_ATTENTION's and TURBOQUANT's
//!   missing sink support, TURBOQUANT's 16-bit model dtypes. They are reasons [`crate::selection::reasons`] lists: a
//!   forced backend raises vLLM's "Selected backend … is not valid", an unforced one falls through to the next.
//!   Without `--block-size` vLLM picks the block size from the kernel block sizes, so nothing refuses it later.
//! - Init (`TritonAttentionImpl.__init__`, built in each layer's `Attention.__init__` right after its backend is
//!   selected): on CUDA an fp8* cache below SM89 and a bfloat16 cache below SM80 raise `ValueError`. Every release
//!   0.24.0 … 0.33.0 has both, with the same text.
//!
//! Left out, each because it cannot fire in a scenario qpath models: `FlashAttentionImpl.__init__`'s
//! NotImplementedError for a quantized cache and its sinks assert (the same `flash_attn_supports_kv_cache_dtype` /
//! `flash_attn_supports_sinks` selection asked; they differ only with ALiBi), `FlexAttentionImpl.__init__`'s
//! NotImplementedErrors (quantized cache: selection takes only 16-bit caches; ALiBi, logits soft-cap, KV sharing:
//! no qpath model has them), the attention layer's FLEX_ATTENTION `flex_attn_block_m/n` check (batch invariance with
//! `--attention-config` fields qpath does not read), `TritonAttentionBackend.get_kv_cache_shape`'s block-size raise
//! (0.24.0 … 0.28.0; it receives the kernel block size, a multiple of 16), TurboQuant's skipped boundary layers.

use crate::platform::Platform;
use crate::report::{GroupError, GroupErrorKind, GroupReport, Stage};
use crate::selection::{Backend, LayerQuery};
use crate::source::{self, Cite};
use crate::trace::Trace;

/// The `validate_configuration` reasons qpath's selection adds for TRITON_ATTN, FLEX_ATTENTION and TURBOQUANT, in
/// vLLM's order around the ones [`crate::selection`] lists (head size, kv cache dtype): dtype before them, block size
/// and sinks after.
pub fn selector_reasons(p: &Platform, b: Backend, l: &LayerQuery, reasons: &mut Vec<String>) {
    if !matches!(b, Backend::TritonAttn | Backend::FlexAttention | Backend::TurboQuant) {
        return;
    }
    // TurboQuantAttentionBackend.supported_dtypes: float16 and bfloat16 (Triton and Flex also take float32); its
    // head-size rule (> 0) never fails, so this is the first reason.
    if b == Backend::TurboQuant && !p.model_dtype.is_16bit() {
        reasons.insert(0, "dtype not supported".to_string());
    }
    // Triton: its own `supports_block_size` (block_size % 16); Flex `[MultipleOf(16)]` and TurboQuant
    // `[16, 32, 64, 128]` through the base class (a multiple of any of them): the same test.
    if l.block_size.is_some_and(|bs| bs % 16 != 0) {
        reasons.push("block_size not supported".to_string());
    }
    // Flex and TurboQuant do not override `supports_sink` (False); TritonAttentionBackend's returns True.
    if b != Backend::TritonAttn && l.has_sinks {
        reasons.push("attention sinks not supported".to_string());
    }
}

/// One init-time raise of a backend other than FlashInfer.
struct Raise {
    kind: GroupErrorKind,
    message: String,
    cite: &'static Cite,
}

/// Runs the init-time checks of `g`'s backend (a group on FlashInfer or a recurrent backend is left alone: the
/// builder and `hybrid` model those). `device` is the name the report gives the GPU; `l` is the group's first layer's
/// query to the selector (its skip-adjusted cache dtype, its `--block-size`).
pub fn init_checks(p: &Platform, device: &str, l: &LayerQuery, g: &mut GroupReport) {
    let mut t = Trace::new(p.release);
    block_size_step(l, g.backend, &mut t);
    let raised = match g.backend {
        Backend::TritonAttn => triton_impl_init(p, device, &l.kv_cache_dtype, &mut t),
        _ => None,
    };
    if let Some(r) = raised {
        let source = r.cite.at(p.release).map(|s| s.short());
        t.step(Some(r.cite), format!("raises {}", r.kind), r.message.clone());
        g.error = Some(GroupError {
            kind: r.kind,
            message: r.message,
            stage: Stage::Init,
            source,
        });
    }
    g.trace.extend(t.steps);
}

/// With a user's `--block-size`, the backend that won selection accepted it: say against which rule.
fn block_size_step(l: &LayerQuery, b: Backend, t: &mut Trace) {
    let Some(bs) = l.block_size else { return };
    let cite = match b {
        Backend::TritonAttn => &source::TRITON_SUPPORTS_BLOCK_SIZE,
        Backend::FlexAttention => &source::FLEX_KERNEL_BLOCK_SIZES,
        Backend::TurboQuant => &source::TURBOQUANT_KERNEL_BLOCK_SIZES,
        _ => return,
    };
    t.step(
        Some(cite),
        format!("{b} kernel block size"),
        format!("--block-size {bs} is a multiple of 16: accepted"),
    );
}

/// `TritonAttentionImpl.__init__` on CUDA (every release): an fp8* cache needs `has_device_capability(89)`, a bfloat16
/// cache `has_device_capability(80)`; the FP8 message suggests float16 below SM80, bfloat16 above.
fn triton_impl_init(p: &Platform, device: &str, kv: &str, t: &mut Trace) -> Option<Raise> {
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
    })
}
