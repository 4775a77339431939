//! The attention backends other than FlashInfer: what vLLM checks when it selects them and when it builds them, where
//! that check raises. qpath does not explain these backends' kernels; it restates only what makes engine start-up fail.
//!
//! - Selection (`AttentionBackend.validate_configuration`, `vllm/v1/attention/backend.py`, every release): a user's
//!   `--block-size` against the kernel block sizes (TRITON_ATTN's own `supports_block_size`, FLEX_ATTENTION's
//!   `[MultipleOf(16)]`, TURBOQUANT's `[16, 32, 64, 128]`: all "a multiple of 16"; FLASH_ATTN's FA4 pages: 128 at
//!   head size 256 on 10.x from 0.29.0, 64 for an FP8 cache at head size 512 on SM90 from 0.31.0), FLEX_ATTENTION's
//!   and TURBOQUANT's missing sink support, TURBOQUANT's 16-bit model dtypes. They are reasons
//!   [`crate::selection::reasons`] lists: a forced backend raises vLLM's "Selected backend … is not valid", an
//!   unforced one falls through to the next. Without `--block-size` vLLM picks a block size the kernels take.
//! - Init (`TritonAttentionImpl.__init__`, built in each layer's `Attention.__init__` right after its backend is
//!   selected): on CUDA an fp8* cache below SM89 and a bfloat16 cache below SM80 raise `ValueError`.
//!   `FlexAttentionMetadataBuilder.__init__` (engine start, after the KV cache): a cache block size that is not a
//!   power of 2 raises `ValueError`. Every release 0.24.0 … 0.33.0 has all three, with the same text.
//!
//! Left out: `FlashAttentionImpl.__init__`'s NotImplementedError for a quantized cache and its sinks assert (they ask
//! the `flash_attn_supports_kv_cache_dtype` / `flash_attn_supports_sinks` selection asked; they differ only with
//! ALiBi, which no qpath model has); `FlexAttentionImpl.__init__`'s NotImplementedErrors (a quantized cache: selection
//! takes only 16-bit caches; ALiBi, logits soft-cap, KV sharing: no qpath model has them); the attention layer's
//! FLEX_ATTENTION `flex_attn_block_m/n` check and `_get_block_sizes` with `flex_attn_*` fields set (a trace step says
//! qpath does not model them); `TritonAttentionBackend.get_kv_cache_shape`'s block-size raise (0.24.0 … 0.28.0: it
//! receives the kernel block size, a multiple of 16); the Triton kernels' own block constraints (a compile error in
//! the first forward, not an init check); `--attention-config.flash_attn_version`, which changes FA's version.

use crate::platform::Platform;
use crate::release::Release::{V0_29_0, V0_31_0};
use crate::report::{GroupError, GroupErrorKind, GroupReport, Stage};
use crate::selection::{Backend, LayerQuery};
use crate::serve::AttentionConfig;
use crate::source::{self, Cite};
use crate::trace::Trace;

/// The `validate_configuration` reasons qpath's selection adds for TRITON_ATTN, FLEX_ATTENTION and TURBOQUANT, in
/// vLLM's order around the ones [`crate::selection`] lists (head size, kv cache dtype): dtype before them, block size
/// and sinks after.
pub fn selector_reasons(p: &Platform, b: Backend, l: &LayerQuery, reasons: &mut Vec<String>) {
    if b == Backend::FlashAttn {
        flash_attn_block_reason(p, l, reasons);
        return;
    }
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
        reasons.push(BLOCK_SIZE_REASON.to_string());
    }
    // Flex and TurboQuant do not override `supports_sink` (False); TritonAttentionBackend's returns True.
    if b != Backend::TritonAttn && l.has_sinks {
        reasons.push("attention sinks not supported".to_string());
    }
}

const BLOCK_SIZE_REASON: &str = "block_size not supported";

/// FLASH_ATTN's `get_supported_kernel_block_sizes()` as `supports_block_size` calls it at selection (no KV spec: the
/// model's head size and the global `--kv-cache-dtype`): one fixed size where FA4 runs a paged kernel with its own page,
/// else `[MultipleOf(16)]` (which [`crate::selection`] restates). 0.31.0+: SM90, an fp8 / fp8_e4m3 cache and head size
/// 512 (FA3 upgraded to FA4) take 64; 0.29.0+: compute capability 10.x (FA4) at head size 256 takes FA4's 128-token
/// page unless `_fa4_hd256_fallback_reason` sends it to FA2 (a quantized cache, decode context parallelism; sinks are
/// not asked here). Batch invariance turns FA4 into FA2 in both.
fn flash_attn_fixed_block(p: &Platform, l: &LayerQuery) -> Option<(u32, &'static Cite)> {
    let r = p.release;
    if p.batch_invariant {
        return None;
    }
    let fp8 = matches!(p.global_kv.as_str(), "fp8" | "fp8_e4m3");
    if r >= V0_31_0 && p.is_family(90) && fp8 && l.head_size == 512 {
        return Some((64, &source::FA_SM90_FP8_KV_BLOCK_SIZE));
    }
    let quantized = crate::selection::is_quantized(&p.global_kv);
    if r >= V0_29_0 && p.major() == 10 && l.head_size == 256 && !quantized && p.dcp <= 1 {
        return Some((128, &source::FA_FA4_HD256_BLOCK_SIZE));
    }
    None
}

/// A `--block-size` that is a multiple of 16 but not of FLASH_ATTN's fixed kernel block: "block_size not supported",
/// in its place after the head-size / dtype / kv-cache reasons (before sinks and compute capability).
fn flash_attn_block_reason(p: &Platform, l: &LayerQuery, reasons: &mut Vec<String>) {
    let (Some(bs), Some((kernel, _))) = (l.block_size, flash_attn_fixed_block(p, l)) else {
        return;
    };
    if bs % kernel == 0 || reasons.iter().any(|r| r == BLOCK_SIZE_REASON) {
        return;
    }
    let later = ["attention sinks not supported", "compute capability not supported"];
    let at = reasons
        .iter()
        .position(|r| later.contains(&r.as_str()))
        .unwrap_or(reasons.len());
    reasons.insert(at, BLOCK_SIZE_REASON.to_string());
}

/// One init-time raise of a backend other than FlashInfer.
struct Raise {
    kind: GroupErrorKind,
    message: String,
    cite: &'static Cite,
    /// The `__init__` that raises (a traceback's last frame).
    raised_in: &'static str,
}

/// What the init-time checks read beyond the platform and the layer.
pub struct Engine<'a> {
    /// `--attention-config`.
    pub attention_config: &'a AttentionConfig,
    /// The name the report gives the GPU (vLLM prints NVML's).
    pub device: &'a str,
    /// A hybrid model: its block size follows the recurrent state page.
    pub hybrid: bool,
}

/// Runs the init-time checks of `g`'s backend (a group on FlashInfer or a recurrent backend is left alone: the
/// builder and `hybrid` model those). `l` is the group's first layer's query to the selector (its skip-adjusted cache
/// dtype, its `--block-size`).
pub fn init_checks(p: &Platform, e: &Engine, l: &LayerQuery, g: &mut GroupReport) {
    let mut t = Trace::new(p.release);
    block_size_step(p, l, g.backend, &mut t);
    let raised = match g.backend {
        Backend::TritonAttn => triton_impl_init(p, e.device, &l.kv_cache_dtype, &mut t),
        Backend::FlexAttention => flex_builder_init(p, e, &mut t),
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
            raised_in: r.raised_in.to_string(),
        });
    }
    g.trace.extend(t.steps);
}

/// With a user's `--block-size`, the backend that won selection accepted it: say against which rule.
fn block_size_step(p: &Platform, l: &LayerQuery, b: Backend, t: &mut Trace) {
    let Some(bs) = l.block_size else { return };
    if b == Backend::FlashAttn {
        if let Some((kernel, cite)) = flash_attn_fixed_block(p, l) {
            t.step(
                Some(cite),
                "FLASH_ATTN kernel block size",
                format!("--block-size {bs} is a multiple of FA4's {kernel}-token page: accepted"),
            );
        }
        return;
    }
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
        raised_in: "TritonAttentionImpl.__init__",
    })
}

/// The `--attention-config` fields `FlexAttentionMetadataBuilder._get_block_sizes` reads.
const FLEX_BLOCK_FIELDS: [&str; 4] = [
    "flex_attn_q_block_size",
    "flex_attn_kv_block_size",
    "flex_attn_block_m",
    "flex_attn_block_n",
];

/// `FlexAttentionMetadataBuilder.__init__` → `_get_block_sizes` (every release; the torch each release pins, 2.11 or
/// newer, is at least 2.9, so small blocks are on and a decoder's KV block is the cache block size): the query block 16
/// and the KV block must be powers of 2, else ValueError. The cache block is `--block-size` (selection made it a multiple of 16)
/// or the default 16.
fn flex_builder_init(p: &Platform, e: &Engine, t: &mut Trace) -> Option<Raise> {
    let cite = &source::FLEX_KV_BLOCK_POWER_OF_2;
    let fields = &e.attention_config.other;
    let unmodelled = if let Some((name, _)) = fields.iter().find(|(k, _)| FLEX_BLOCK_FIELDS.contains(&k.as_str())) {
        Some(format!("--attention-config sets {name}, which qpath does not restate"))
    } else if e.hybrid {
        Some("a hybrid model's block size follows its recurrent state page, which qpath does not align for FLEX_ATTENTION".into())
    } else {
        None
    };
    if let Some(why) = unmodelled {
        t.step(
            Some(cite),
            "FlexAttention block sizes",
            format!("qpath cannot model this: {why}"),
        );
        return None;
    }
    let kv = p.page_size;
    if kv.is_power_of_two() {
        t.step(
            Some(cite),
            "FlexAttention block sizes",
            format!("KV block = cache block size {kv}: a power of 2, no raise"),
        );
        return None;
    }
    Some(Raise {
        kind: GroupErrorKind::ValueError,
        message: format!("flex_attn_kv_block_size must be a power of 2 and divisible by flex_attn_block_n, got {kv}, None"),
        cite,
        raised_in: "FlexAttentionMetadataBuilder.__init__",
    })
}
