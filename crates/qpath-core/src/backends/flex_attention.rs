//! FLEX_ATTENTION (`vllm/v1/attention/backends/flex_attention.py`), every release 0.20.0 – 0.33.0: selection
//! (`validate_configuration` with FlexAttentionBackend's class facts), the attention layer's `flex_attn_block_m/n`
//! check, `FlexAttentionImpl.__init__`, the runner's DCP check (before 0.30.0), `FlexAttentionMetadataBuilder`'s block
//! sizes, and the forward: one compiled `flex_attention` call per batch over a directly built block mask, the same
//! kernel for prefill and decode, the query in the model dtype. `docs/source-notes/flex-turboquant-registry.md` §2
//! restates the statements per release. Before 0.21.0 the class declares neither kernel block sizes nor batch
//! invariance; before 0.22.0 there are no `flex_attn_*` config fields (the layer check, the impl's `block_m` /
//! `block_n` and `_get_block_sizes` are 0.22.0's) and `get_kernel_options` sets the batch-invariant blocks itself.

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery, Raise, SINK_REASON};
use crate::attention::{Backend, CgSupport, GroupErrorKind, Kernel, Phases};
use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::release::Release;
use crate::report::{GroupReport, KernelChoice};
use crate::source;
use crate::trace::Trace;

/// FLEX_ATTENTION's rules.
pub struct FlexAttention;

impl BackendRules for FlexAttention {
    fn class_name(&self) -> &'static str {
        "FlexAttentionBackend"
    }

    /// `validate_configuration` for FLEX_ATTENTION, in vLLM's order: `supported_kv_cache_dtypes` auto / float16 /
    /// bfloat16 ([`source::FLEX_KV_DTYPES`]), `[MultipleOf(16)]` kernel blocks, no `supports_sink` override (False),
    /// `supports_per_head_quant_scales` False (the base class's), and the impl's `supports_dcp` False (checked from
    /// 0.30.0). No dtype (fp16 / bf16 / fp32), head-size (`[]`: any), capability, attention-type (decoder and
    /// encoder-only), sliding-window (0.26.0+), R-SWA (0.30.0+), non-causal, mm-prefix or batch-invariance reason:
    /// FlexAttentionBackend supports each. The PCP reason (0.26.0+) needs `-pcp > 1`, which qpath does not read.
    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String> {
        let mut reasons = Vec::new();
        let r = p.release;
        if !matches!(l.kv_cache_dtype.as_str(), "auto" | "float16" | "bfloat16") {
            reasons.push("kv_cache_dtype not supported".to_string());
        }
        // `get_supported_kernel_block_sizes` → `[MultipleOf(16)]` from 0.21.0 ([`source::FLEX_KERNEL_BLOCK_SIZES`],
        // flex_attention.py L144 in 0.21.0); before it the base class's `[MultipleOf(1)]`
        // ([`source::FLEX_BASE_KERNEL_BLOCK_SIZES`], backend.py L70 in 0.20.x) takes any block size.
        if r >= Release::V0_21_0 {
            super::multiple_of_16_reason(l, &mut reasons);
        }
        if l.has_sinks {
            reasons.push(SINK_REASON.to_string());
        }
        if l.use_per_head_quant_scales {
            reasons.push("per-head quant scales not supported".to_string());
        }
        // `supports_batch_invariance` → True from 0.21.0 (flex_attention.py L108 in 0.21.0); before it the base
        // class's False, and `validate_configuration` (backend.py L320 in 0.20.x) refuses VLLM_BATCH_INVARIANT.
        if r < Release::V0_21_0 && p.batch_invariant {
            reasons.push("batch invariance not supported".to_string());
        }
        if r >= Release::V0_30_0 && l.use_dcp {
            reasons.push("DCP not supported".to_string());
        }
        reasons
    }

    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let mut t = Trace::new(p.release);
        let Some(l) = cx.query else { return };
        if p.release >= Release::V0_21_0 {
            super::block_size_step(Backend::FlexAttention, l, &source::FLEX_KERNEL_BLOCK_SIZES, &mut t);
        } else if let Some(bs) = l.block_size {
            // 0.20.x: FlexAttentionBackend has no `get_supported_kernel_block_sizes`; the base class's
            // `[MultipleOf(1)]` (backend.py L70) takes any block size.
            t.step(
                Some(&source::FLEX_BASE_KERNEL_BLOCK_SIZES),
                format!("{} kernel block size", Backend::FlexAttention),
                format!(
                    "--block-size {bs}: FlexAttentionBackend declares no kernel block sizes before 0.21.0; the base \
                     class's [MultipleOf(1)] accepts it"
                ),
            );
        }
        let outcome = run(p, cx, l, g, &mut t);
        match outcome {
            Outcome::Raised(raised) => super::init_error(p, Some(raised), &mut t, g),
            Outcome::Unmodelled(why) => g.unmodelled = Some(why),
            Outcome::Runs => {}
        }
        super::take_trace(g, t);
    }

    fn cudagraph_support(&self, _p: &Platform, _g: &GroupReport, _q_heads: u32, _non_causal: bool) -> CgDecision {
        super::class_attribute(CgSupport::Always, &source::CG_FLEX_SUPPORT)
    }
    fn kernel_block_sizes(&self, _p: &Platform, _q_heads: u32, _kv_heads: u32, _t: &mut Trace) -> Option<KernelSizes> {
        None
    }
}

/// How a group's start-up ends.
enum Outcome {
    Runs,
    Raised(Raise),
    Unmodelled(String),
}

/// The `--attention-config` fields FLEX_ATTENTION reads (`AttentionConfig`, `int | None` each).
#[derive(Default)]
struct BlockConfig {
    block_m: Option<u64>,
    block_n: Option<u64>,
    q_block_size: Option<u64>,
    kv_block_size: Option<u64>,
}

impl BlockConfig {
    /// The four fields from `--attention-config`: a positive integer, `null`, or absent. Another value (a string
    /// pydantic coerces, 0, which `or` replaces or divides by, a negative number) is qpath's limit.
    fn read(cx: &GroupContext) -> Result<BlockConfig, String> {
        let mut c = BlockConfig::default();
        for (name, text) in &cx.engine.attention_config.other {
            let slot = match name.as_str() {
                "flex_attn_block_m" => &mut c.block_m,
                "flex_attn_block_n" => &mut c.block_n,
                "flex_attn_q_block_size" => &mut c.q_block_size,
                "flex_attn_kv_block_size" => &mut c.kv_block_size,
                _ => continue,
            };
            *slot = match text.as_str() {
                "null" => None,
                t => match t.parse::<u64>() {
                    Ok(n) if n > 0 => Some(n),
                    _ => {
                        return Err(format!(
                            "{}: --attention-config sets {name} to {text}, which qpath only follows as a positive \
                             integer or null",
                            crate::attention::QPATH_LIMIT
                        ))
                    }
                },
            };
        }
        Ok(c)
    }
}

/// `None` as Python prints it, else the number.
fn py_opt(v: Option<u64>) -> String {
    v.map_or("None".to_string(), |n| n.to_string())
}

/// Start-up in vLLM's order (the layer, the impl, the runner's context-parallel check, the builder), then the forward.
fn run(p: &Platform, cx: &GroupContext, l: &LayerQuery, g: &mut GroupReport, t: &mut Trace) -> Outcome {
    let cfg = match BlockConfig::read(cx) {
        Ok(c) => c,
        Err(why) => {
            t.step(
                Some(&source::FLEX_BUILDER_GET_BLOCK_SIZES),
                "FlexAttention block sizes",
                why.clone(),
            );
            return Outcome::Unmodelled(why);
        }
    };
    if let Some(r) = layer_init(p, l, &cfg, t) {
        return Outcome::Raised(r);
    }
    impl_init(p, &cfg, t);
    if let Some(r) = dcp_check(p, "FlexAttentionImpl", t) {
        return Outcome::Raised(r);
    }
    if cx.engine.hybrid {
        // Before 0.22.0 the builder takes that block size as the block mask's KV block unchecked
        // ([`source::FLEX_BUILDER_BLOCK_SIZES_FIXED`]); from 0.22.0 `_get_block_sizes` checks it.
        let (then, cite) = if p.release >= Release::V0_22_0 {
            ("its builder then checks that block size", &source::FLEX_KV_BLOCK_POWER_OF_2)
        } else {
            (
                "its builder then uses that block size as the block mask's KV block",
                &source::FLEX_BUILDER_BLOCK_SIZES_FIXED,
            )
        };
        let why = format!(
            "{}: a hybrid model's block size follows its recurrent state page, which qpath does not align for \
             FLEX_ATTENTION ({then})",
            crate::attention::QPATH_LIMIT
        );
        t.step(Some(cite), "FlexAttention block sizes", why.clone());
        return Outcome::Unmodelled(why);
    }
    let blocks = match builder_init(p, &cfg, t) {
        Ok(b) => b,
        Err(o) => return o,
    };
    forward(p, cx, l, g, &cfg, &blocks, t);
    Outcome::Runs
}

/// `Attention.__init__` for a layer whose backend is FLEX_ATTENTION ([`source::FLEX_LAYER_BLOCK_M_RAISE`], 0.22.0+;
/// before it `AttentionConfig` has no `flex_attn_block_m` / `_n`, which the option parser refuses): under `VLLM_BATCH_INVARIANT`, `flex_attn_block_m` / `flex_attn_block_n` larger than
/// `cache_config.block_size` (`--block-size`, else `CacheConfig.DEFAULT_BLOCK_SIZE` 16 at this point) raise.
fn layer_init(p: &Platform, l: &LayerQuery, cfg: &BlockConfig, t: &mut Trace) -> Option<Raise> {
    if cfg.block_m.is_none() && cfg.block_n.is_none() {
        return None;
    }
    let cache_block = u64::from(l.block_size.unwrap_or(16));
    if p.batch_invariant {
        for (name, v, cite) in [
            ("flex_attn_block_m", cfg.block_m, &source::FLEX_LAYER_BLOCK_M_RAISE),
            ("flex_attn_block_n", cfg.block_n, &source::FLEX_LAYER_BLOCK_N_RAISE),
        ] {
            if let Some(v) = v.filter(|&v| v > cache_block) {
                return Some(Raise {
                    kind: GroupErrorKind::ValueError,
                    message: format!("{name} ({v}) must be <= cache block size ({cache_block}) for batch invariance"),
                    cite,
                    raised_in: "Attention.__init__",
                });
            }
        }
    }
    t.step(
        Some(&source::FLEX_LAYER_BLOCK_M_RAISE),
        "Attention.__init__: flex_attn_block_m / flex_attn_block_n",
        format!(
            "block_m {}, block_n {} passed to the impl{}",
            py_opt(cfg.block_m),
            py_opt(cfg.block_n),
            if p.batch_invariant {
                format!("; VLLM_BATCH_INVARIANT: both <= the cache block size {cache_block}, no raise")
            } else {
                String::new()
            }
        ),
    );
    None
}

/// `FlexAttentionImpl.__init__` (every release): its raises are for attention types selection already refused,
/// ALiBi, logits soft-capping, KV sharing and quantized caches (selection took only 16-bit caches); no model qpath
/// reads has ALiBi, a soft cap or cross-layer KV sharing (`docs/source-notes/flex-turboquant-registry.md` §2.3), so
/// none fires. `block_m` / `block_n`: 16 under `VLLM_BATCH_INVARIANT`, overridden by the config's.
fn impl_init(p: &Platform, cfg: &BlockConfig, t: &mut Trace) {
    t.step(
        Some(&source::FLEX_IMPL_SOFTCAP_RAISE),
        "FlexAttentionImpl.__init__",
        "no ALiBi slopes, logits soft cap or cross-layer KV sharing in the model as qpath reads it (it does not read \
         gemma-4's num_kv_shared_layers), a 16-bit cache: no raise",
    );
    // `block_m` / `block_n` are the impl's from 0.22.0 ([`source::FLEX_IMPL_BATCH_INVARIANT_BLOCK_M`]); before it
    // `get_kernel_options` sets 16 under VLLM_BATCH_INVARIANT ([`source::FLEX_KERNEL_OPTIONS_BATCH_INVARIANT`]).
    if p.release >= Release::V0_22_0 && (p.batch_invariant || cfg.block_m.is_some() || cfg.block_n.is_some()) {
        let inv = if p.batch_invariant { Some(16) } else { None };
        t.step(
            Some(&source::FLEX_IMPL_BATCH_INVARIANT_BLOCK_M),
            "FlexAttentionImpl block_m / block_n",
            format!(
                "block_m {}, block_n {} (16 under VLLM_BATCH_INVARIANT, then the config's flex_attn_block_m / _n)",
                py_opt(cfg.block_m.or(inv)),
                py_opt(cfg.block_n.or(inv))
            ),
        );
    }
}

/// The model runner's context-parallel check before 0.30.0 (`check_attention_cp_compatibility`,
/// [`source::TRITON_DCP_LSE_ASSERT`]): with `-dcp > 1` every attention impl must return the softmax LSE for decode;
/// FLEX_ATTENTION's and TURBOQUANT's impls keep `can_return_lse_for_decode` False. From 0.30.0
/// `validate_configuration` refuses DCP first ("DCP not supported").
pub(crate) fn dcp_check(p: &Platform, impl_name: &str, t: &mut Trace) -> Option<Raise> {
    if p.dcp <= 1 || p.release >= Release::V0_30_0 {
        return None;
    }
    t.step(
        Some(&source::TRITON_DCP_LSE_ASSERT),
        "decode context parallelism",
        format!(
            "-dcp {}: need_to_return_lse_for_decode = dcp_world_size > 1 and can_return_lse_for_decode, which \
             {impl_name} leaves False",
            p.dcp
        ),
    );
    Some(Raise {
        kind: GroupErrorKind::AssertionError,
        message: format!(
            "Decode Context Parallelism (DCP) requires attention implementations to return the softmax LSE during \
             decode, but {impl_name} does not. Try a different backend by setting --attention-backend or disable DCP."
        ),
        cite: &source::TRITON_DCP_LSE_ASSERT,
        raised_in: "GPUModelRunner.initialize_attn_backend → check_attention_cp_compatibility",
    })
}

/// The builder's block sizes.
struct Blocks {
    q: u64,
    kv: u64,
    cache: u64,
    direct: bool,
}

/// `FlexAttentionMetadataBuilder.__init__` → `_get_block_sizes` (0.22.0+; every release pins torch 2.9 or newer,
/// so `supports_small_blocks` and, for a decoder's paged cache, the query block 16 and the KV block = the cache block
/// size): `flex_attn_q_block_size` / `flex_attn_kv_block_size` replace them; each must be a power of 2 divisible by
/// `flex_attn_block_m` / `_n`, else ValueError. The direct block-mask build stays on while the KV block is the
/// cache block.
///
/// Before 0.22.0 (flex_attention.py L759 in 0.20.x, L772 in 0.21.0, [`source::FLEX_BUILDER_BLOCK_SIZES_FIXED`]) the
/// blocks are fixed (query 16, KV = the cache block), unchecked, and the direct build always on: a cache block below
/// 16 or not a power of 2 becomes the kernel's BLOCK_N, which torch's Triton template meets at the first forward
/// (qpath's limit: torch's and Triton's code, not vLLM's).
fn builder_init(p: &Platform, cfg: &BlockConfig, t: &mut Trace) -> Result<Blocks, Outcome> {
    let cache = u64::from(p.page_size);
    if p.release < Release::V0_22_0 {
        t.step(
            Some(&source::FLEX_BUILDER_BLOCK_SIZES_FIXED),
            "FlexAttentionMetadataBuilder block sizes",
            format!(
                "torch >= 2.9 (supports_small_blocks): query block 16, KV block = the cache block size {cache}, direct \
                 block-mask build on (no flex_attn_q_block_size / flex_attn_kv_block_size and no check before 0.22.0)"
            ),
        );
        // A KV block below 16 (0.20.x only: 0.21.0's selection refuses it) fails in Triton's codegen at the first
        // forward (vLLM issue 39340, which 0.21.0's [MultipleOf(16)] fixed); one not a power of 2 0.22.0 refuses.
        if cache < 16 || !cache.is_power_of_two() {
            let why = format!(
                "{}: vLLM {} builds FLEX_ATTENTION's block mask with the cache block {cache} as its KV block and passes \
                 it to the kernel as BLOCK_N unchecked ({}); what torch's flex-attention Triton template does with \
                 that BLOCK_N at the first forward is torch's and Triton's code, which qpath does not restate",
                crate::attention::QPATH_LIMIT,
                p.release,
                if cache < 16 {
                    "0.21.0 refuses a block size below 16 at selection"
                } else {
                    "0.22.0 raises ValueError here"
                }
            );
            t.step(Some(&source::FLEX_BUILDER_BLOCK_SIZES_FIXED), "KV block", why.clone());
            return Err(Outcome::Unmodelled(why));
        }
        return Ok(Blocks {
            q: 16,
            kv: cache,
            cache,
            direct: true,
        });
    }
    t.step(
        Some(&source::FLEX_SMALL_BLOCK_SIZES),
        "FlexAttentionMetadataBuilder._get_block_sizes",
        format!(
            "torch >= 2.9 (supports_small_blocks) and a paged decoder cache: query block 16, KV block = the cache \
             block size {cache}"
        ),
    );
    let q = cfg.q_block_size.unwrap_or(16);
    if !q.is_power_of_two() || cfg.block_m.is_some_and(|m| q % m != 0) {
        return Err(Outcome::Raised(Raise {
            kind: GroupErrorKind::ValueError,
            message: format!(
                "flex_attn_q_block_size must be a power of 2 and divisible by flex_attn_block_m, got {q}, {}",
                py_opt(cfg.block_m)
            ),
            cite: &source::FLEX_Q_BLOCK_POWER_OF_2,
            raised_in: "FlexAttentionMetadataBuilder.__init__",
        }));
    }
    let kv = cfg.kv_block_size.unwrap_or(cache);
    if !kv.is_power_of_two() || cfg.block_n.is_some_and(|n| kv % n != 0) {
        return Err(Outcome::Raised(Raise {
            kind: GroupErrorKind::ValueError,
            message: format!(
                "flex_attn_kv_block_size must be a power of 2 and divisible by flex_attn_block_n, got {kv}, {}",
                py_opt(cfg.block_n)
            ),
            cite: &source::FLEX_KV_BLOCK_POWER_OF_2,
            raised_in: "FlexAttentionMetadataBuilder.__init__",
        }));
    }
    t.step(
        Some(&source::FLEX_KV_BLOCK_POWER_OF_2),
        "FlexAttention block sizes",
        format!(
            "query block {q}, KV block {kv}{}: powers of 2, no raise",
            if cfg.kv_block_size.is_none() {
                " (= the cache block size)"
            } else {
                ""
            }
        ),
    );
    let direct = kv == cache;
    t.step(
        Some(&source::FLEX_BUILDER_DIRECT_BUILD_OFF),
        "direct block-mask build",
        if direct {
            "on: the KV block is the cache block".to_string()
        } else {
            format!("off: the KV block {kv} is not the cache block {cache} (create_block_mask_compiled instead)")
        },
    );
    Ok(Blocks { q, kv, cache, direct })
}

/// The forward (every release): the layer hands the query over unquantized (the impl keeps AttentionImpl's
/// `supports_quant_query_input = False`), `build()` pre-builds the block mask, and `forward` makes one
/// `flex_attention_compiled` call over the whole batch, prefills and decodes alike.
fn forward(p: &Platform, cx: &GroupContext, l: &LayerQuery, g: &mut GroupReport, cfg: &BlockConfig, b: &Blocks, t: &mut Trace) {
    t.step(
        Some(&source::FA_BASE_QQI),
        "supports_quant_query_input",
        "FlexAttentionImpl does not set it: AttentionImpl's False",
    );
    let q = super::query::layer_query(
        p,
        cx,
        &l.kv_cache_dtype,
        (false, "FlexAttentionImpl does not take a quantized query"),
        g.num_kv_heads,
        t,
    );
    let (mask, mask_cite) = if b.direct {
        (
            format!(
                "_build_block_mask_direct: BlockMask.from_kv_blocks over the block table, BLOCK_SIZE ({}, {})",
                b.q, b.kv
            ),
            &source::FLEX_FROM_KV_BLOCKS,
        )
    } else {
        (
            format!("build_block_mask: create_block_mask_compiled, BLOCK_SIZE ({}, {})", b.q, b.kv),
            &source::FLEX_CREATE_BLOCK_MASK_CALL,
        )
    };
    t.step(
        Some(&source::FLEX_BUILD_PREBUILD_MASK),
        "FlexAttentionMetadataBuilder.build",
        "the block mask is built in build(), ready before CUDA-graph capture",
    );
    t.step(Some(mask_cite), "block mask", mask);
    if p.release < Release::V0_24_0 {
        // Before 0.24.0 build() passes no sliding window (0.24.0 passes the spec's under full CUDA graphs,
        // flex_attention.py L954-L963): the forward's `attn_metadata.sliding_window != self.sliding_window` check
        // (L1118 in 0.23.0) rebuilds the mask.
        if let Some(w) = g.sliding_window {
            t.step(
                Some(&source::FLEX_FORWARD_SLIDING_REBUILD),
                "sliding window",
                format!(
                    "build() passes no sliding window before 0.24.0, so the mask it builds is not windowed: in each \
                     batch the group's first layer to run finds attn_metadata.sliding_window None != {w}, sets it and \
                     rebuilds the block mask in its forward (CUDA-graph capture included)"
                ),
            );
        }
    }
    let inv = if p.batch_invariant { Some(16) } else { None };
    let (block_m, block_n) = (cfg.block_m.or(inv), cfg.block_n.or(inv));
    if p.release < Release::V0_22_0 && p.batch_invariant {
        // Before 0.22.0 `get_kernel_options` returns first under VLLM_BATCH_INVARIANT (flex_attention.py L1173 in
        // 0.21.0; 0.20.x's selection refuses batch invariance); from 0.22.0 the impl's block_m / block_n override it.
        t.step(
            Some(&source::FLEX_KERNEL_OPTIONS_BATCH_INVARIANT),
            "get_kernel_options",
            "FORCE_USE_FLEX_ATTENTION True; VLLM_BATCH_INVARIANT: BLOCK_M 16, BLOCK_N 16, IS_DIVISIBLE False, returned \
             before the direct-build choice",
        );
    } else if b.direct {
        t.step(
            Some(&source::FLEX_KERNEL_OPTIONS_DIRECT),
            "get_kernel_options",
            format!(
                "FORCE_USE_FLEX_ATTENTION True; direct build: BLOCK_M {}, BLOCK_N {} (the block mask's block sizes)",
                b.q, b.kv
            ),
        );
    } else {
        let preferred = if q.q_dtype == TorchDtype::Float32 { 32 } else { 64 };
        t.step(
            Some(&source::FLEX_KERNEL_OPTIONS_FORCE),
            "get_kernel_options",
            format!(
                "FORCE_USE_FLEX_ATTENTION True; not a direct build: BLOCK_M / BLOCK_N start at {preferred} (a divisor \
                 of the mask's blocks), halved below 144 KiB of opt-in shared memory per block and floored at 16 \
                 (qpath does not know this GPU's opt-in shared memory)"
            ),
        );
    }
    if p.release >= Release::V0_22_0 && (block_m.is_some() || block_n.is_some()) {
        let shown = |v: Option<u64>, direct: u64| match v {
            Some(v) => v.to_string(),
            None if b.direct => direct.to_string(),
            None => "get_kernel_options'".to_string(),
        };
        t.step(
            Some(&source::FLEX_FORWARD_IMPL_BLOCK_M),
            "the impl's block_m / block_n",
            format!(
                "BLOCK_M {}, BLOCK_N {}{}",
                shown(block_m, b.q),
                shown(block_n, b.kv),
                if p.batch_invariant {
                    "; VLLM_BATCH_INVARIANT: IS_DIVISIBLE False"
                } else {
                    ""
                }
            ),
        );
    }
    if p.release < Release::V0_23_0 {
        // Before 0.23.0 the cache is (2, num_blocks, …) (flex_attention.py L128 in 0.22.x), unbound on axis 0; 0.23.0
        // puts num_blocks first and adds get_kv_cache_stride_order.
        t.step(
            Some(&source::FLEX_KV_CACHE_SHAPE_SPLIT_FIRST),
            "KV cache shape",
            format!(
                "get_kv_cache_shape: (2, num_blocks, {}, {}, {}), key and value caches kv_cache.unbind(0) (num_blocks \
                 first from 0.23.0)",
                b.cache, g.num_kv_heads, g.head_dim
            ),
        );
    }
    t.step(
        Some(&source::FLEX_FORWARD_CALL),
        "FlexAttentionImpl.forward",
        format!(
            "no prefill / decode split: the batch's whole query [1, {h}, tokens, {d}] in {qd}, the paged cache \
             flattened to one token axis (cache block {cache}), one flex_attention_compiled call (torch.compile of \
             torch's flex_attention, fullgraph; Inductor's flex-attention Triton template, compiled at the first \
             forward) with enable_gqa={gqa}; prefill and decode run the same kernel",
            h = g.num_q_heads,
            d = g.head_dim,
            qd = q.q_dtype,
            cache = b.cache,
            gqa = if g.num_q_heads != g.num_kv_heads { "True" } else { "False" },
        ),
    );
    g.q_dtype = Phases {
        prefill: Some(q.q_dtype),
        decode: Some(q.q_dtype),
    };
    g.kernel = Phases {
        prefill: Some(Kernel::FlexAttention),
        decode: Some(Kernel::FlexAttention),
    };
    g.kernels = Phases {
        prefill: vec![KernelChoice::always(Kernel::FlexAttention)],
        decode: vec![KernelChoice::always(Kernel::FlexAttention)],
    };
    g.query_quant = q.quant;
}
