//! TRITON_ATTN (`vllm/v1/attention/backends/triton_attn.py`, `vllm/v1/attention/ops/triton_unified_attention.py`):
//! selection ([`TritonAttn::reasons`]), `TritonAttentionImpl.__init__`'s cache-dtype raises on CUDA ([`impl_init`]),
//! the attention layer's query (quantized to FP8 for an fp8 / fp8_e4m3 cache, `supports_quant_query_input =
//! current_platform.is_cuda()`), the metadata builder's 3D threshold ([`Launch::new`]) and the kernel each batch runs
//! ([`Launch::choices`]): one `unified_attention` launch per batch, no prefill / decode split, either the 2D grid or
//! the 3D split-KV grid; the INT4 cache's packed kernel. `docs/source-notes/triton-attn.md` restates the statements
//! per release.

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery, Raise};
use crate::attention::{Backend, CgSupport, GroupErrorKind, Kernel, Phases, Stage, QPATH_LIMIT};
use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::release::Release::*;
use crate::report::{GroupError, GroupReport, KernelChoice};
use crate::source;
use crate::trace::Trace;

/// TRITON_ATTN's rules.
pub struct TritonAttn;

/// The per-head quant scales reason of `validate_configuration` (`supports_per_head_quant_scales` not overridden).
pub(crate) const PER_HEAD_SCALES_REASON: &str = "per-head quant scales not supported";

/// The DCP reason of `validate_configuration` (0.30.0+; the impl's `supports_dcp` is the base False).
pub(crate) const DCP_REASON: &str = "DCP not supported";

/// The KV-cache dtypes TRITON_ATTN lists (`supported_kv_cache_dtypes`, [`source::TRITON_KV_DTYPES`]).
pub(crate) fn accepts_kv(p: &Platform, kv: &str) -> bool {
    matches!(
        kv,
        "auto" | "float16" | "bfloat16" | "fp8" | "fp8_e4m3" | "fp8_e5m2" | "int8_per_token_head" | "fp8_per_token_head"
    ) || (p.release >= V0_25_0Prefix && kv == "int4_per_token_head")
}

impl BackendRules for TritonAttn {
    fn class_name(&self) -> &'static str {
        "TritonAttentionBackend"
    }

    /// `validate_configuration` for TRITON_ATTN, in the base class's order: head size >= 32
    /// ([`source::TRITON_HEAD_SIZE`]), the model dtype (float16, bfloat16, float32), the KV-cache dtypes per release,
    /// its own `supports_block_size` (a multiple of 16); mm-prefix layers and sinks are supported; per-head quant
    /// scales are not ([`source::TRITON_REASON_PER_HEAD_SCALES`]); any compute capability, sliding windows,
    /// non-causal attention and batch invariance are; 0.30.0+ DCP is not ([`source::TRITON_REASON_DCP`]).
    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String> {
        let mut reasons = Vec::new();
        if l.head_size < 32 {
            reasons.push("head_size not supported".to_string());
        }
        if !matches!(
            p.model_dtype,
            TorchDtype::Float16 | TorchDtype::BFloat16 | TorchDtype::Float32
        ) {
            reasons.push("dtype not supported".to_string());
        }
        if !accepts_kv(p, &l.kv_cache_dtype) {
            reasons.push("kv_cache_dtype not supported".to_string());
        }
        super::multiple_of_16_reason(l, &mut reasons);
        if l.use_per_head_quant_scales {
            reasons.push(PER_HEAD_SCALES_REASON.to_string());
        }
        if p.release >= V0_30_0 && l.use_dcp {
            reasons.push(DCP_REASON.to_string());
        }
        reasons
    }

    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let Some(l) = cx.query else { return };
        let mut t = Trace::new(p.release);
        super::block_size_step(Backend::TritonAttn, l, &source::TRITON_SUPPORTS_BLOCK_SIZE, &mut t);
        if l.use_mm_prefix {
            t.step(
                Some(&source::TRITON_SUPPORTS_MM_PREFIX),
                "mm-prefix layer",
                "use_mm_prefix=True (the layer's model_config.is_mm_prefix_lm): TRITON_ATTN's supports_mm_prefix is \
                 True; the runner's image ranges reach the kernel as mm_prefix_range (bidirectional attention inside \
                 each image span)",
            );
        }
        run(p, cx, l, g, &mut t);
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

/// The group in vLLM's order: `TritonAttentionImpl.__init__` (each layer, as the model is built), the layer's query
/// (its quantization and the memory profile's assert), 0.24.0 – 0.29.0 the runner's DCP check, the metadata
/// builder's `__init__` (the 3D threshold), then the kernel of each batch.
fn run(p: &Platform, cx: &GroupContext, l: &LayerQuery, g: &mut GroupReport, t: &mut Trace) {
    let kv = l.kv_cache_dtype.as_str();
    let raised = impl_init(p, cx.engine.device, kv, t);
    super::init_error(p, raised, t, g);
    if g.error.is_some() {
        return;
    }
    impl_fields(g, t);
    let q = query(p, cx, g, kv, t);
    if let Some(e) = q.error {
        fail(t, &source::ATTN_LAYER_QUERY_QUANT_ASSERT, e, g);
        return;
    }
    // After the memory profile's assert (fp8_e5m2), which fires before any Triton kernel is compiled.
    unchecked_capability(p, cx.engine.device, kv, g, t);
    q_scale_assert(p, kv, &q, g);
    g.q_dtype = Phases {
        prefill: Some(q.q_dtype),
        decode: Some(q.q_dtype),
    };
    g.query_quant = q.quant;
    if let Some(e) = dcp_check(p, l, t) {
        fail(t, &source::TRITON_DCP_LSE_ASSERT, e, g);
        return;
    }
    let launch = Launch::new(p, g, q.q_dtype, kv, t);
    launch.rule_steps(p, kv, q.q_dtype, t);
    let kernels = launch.choices(p);
    g.kernel = Phases {
        prefill: kernels.prefill.first().map(|c| c.kernel),
        decode: kernels.decode.first().map(|c| c.kernel),
    };
    t.step(
        Some(&source::TRITON_UA_LAUNCH),
        "kernel per phase (one launch per batch)",
        format!(
            "the first prefill (512 tokens): {}; a decode batch of a few requests: {}",
            g.kernel.prefill.map_or("none", |k| k.name()),
            g.kernel.decode.map_or("none", |k| k.name()),
        ),
    );
    g.kernels = kernels;
    if p.cc.to_int() < 75 {
        t.step(
            None,
            "Triton on this GPU",
            format!(
                "vLLM has no capability check for TRITON_ATTN on {} (compute capability {}); qpath cannot model this: \
                 whether the installed Triton and torch still compile kernel_unified_attention for {}",
                cx.engine.device,
                p.cc,
                p.arch()
            ),
        );
    }
}

/// Records `e` as the group's error, with its step.
fn fail(t: &mut Trace, cite: &source::Cite, e: GroupError, g: &mut GroupReport) {
    let shown = if e.message.is_empty() {
        crate::attention::BARE_ASSERT.to_string()
    } else {
        e.message.clone()
    };
    t.step(Some(cite), format!("raises {}", e.kind), shown);
    g.error = Some(e);
}

/// `TritonAttentionImpl.__init__` on CUDA (0.24.0+; before it [`unchecked_capability`]): an fp8* cache needs
/// `has_device_capability(89)`, a bfloat16 cache `has_device_capability(80)`; the FP8 message suggests float16 below
/// SM80, bfloat16 above. (`startswith("fp8")`: fp8_e5m2 and fp8_per_token_head too.)
pub(crate) fn impl_init(p: &Platform, device: &str, kv: &str, t: &mut Trace) -> Option<Raise> {
    if p.release < V0_24_0 {
        return None;
    }
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

/// 0.20.0–0.23.0: `TritonAttentionImpl.__init__` checks no capability (0.24.0 added the SM89 / SM80 raises of
/// [`impl_init`]), so an fp8* cache below SM89 or a bfloat16 cache below SM80 reaches Triton's compiler at the first
/// forward, whose error (Triton's native FP8 `fp8e4nv` is SM89+) is not in vLLM's Python source.
fn unchecked_capability(p: &Platform, device: &str, kv: &str, g: &mut GroupReport, t: &mut Trace) {
    let needed = if kv.starts_with("fp8") {
        89
    } else if kv == "bfloat16" {
        80
    } else {
        return;
    };
    if p.release >= V0_24_0 || p.cc.to_int() >= needed {
        return;
    }
    let what = if needed == 89 {
        "compiles kernel_unified_attention (and the cache write) for its float8_e4m3fn cache, which Triton supports \
         natively only from SM89"
    } else {
        "compiles kernel_unified_attention for a bfloat16 cache below SM80"
    };
    let text = format!(
        "{QPATH_LIMIT}: vLLM {} has no capability check in TritonAttentionImpl for a {kv:?} cache on {device} (compute \
         capability {}; 0.24.0 added one that raises ValueError below SM{needed}); whether Triton {what}, and the error \
         its compiler raises at the first forward, are not in vLLM's Python source",
        p.release.name(),
        p.cc
    );
    t.step(None, "TritonAttentionImpl cache dtype", text.clone());
    g.unmodelled = Some(text);
}

/// 0.20.0–0.21.0: `TritonAttentionImpl.forward` asserts `layer._q_scale_float == 1.0` for a per-tensor quantized cache
/// (the kernel takes no q_descale), at the first forward; a checkpoint's q_scale is not known to qpath.
fn q_scale_assert(p: &Platform, kv: &str, q: &super::query::LayerQuery, g: &mut GroupReport) {
    if p.release >= V0_22_0 || !super::is_quantized_kv_cache(p.release, kv) || kv.ends_with("per_token_head") {
        return;
    }
    if let Some(qq) = q.quant.as_ref().filter(|qq| qq.q_scale != "1.0" && g.unmodelled.is_none()) {
        g.unmodelled = Some(format!(
            "{QPATH_LIMIT}: vLLM {} asserts layer._q_scale_float == 1.0 in TritonAttentionImpl.forward (AssertionError \
             \"A non 1.0 q_scale is not currently supported.\" at the first forward), and the layer's q_scale comes \
             from the checkpoint ({}), whose value qpath does not read",
            p.release.name(),
            qq.q_scale
        ));
    }
}

/// `TritonAttentionImpl.__init__`'s window tuple and sinks (every release): nothing raises for qpath's models (the
/// sinks assert compares the layer's own heads).
fn impl_fields(g: &GroupReport, t: &mut Trace) {
    if g.sliding_window.is_none() && !g.has_sinks {
        return;
    }
    let window = g
        .sliding_window
        .map_or("(-1, -1)".to_string(), |w| format!("({}, 0)", w.saturating_sub(1)));
    let sinks = if g.has_sinks {
        format!("; sinks of {} heads passed to the kernel (USE_SINKS)", g.num_q_heads)
    } else {
        String::new()
    };
    t.step(
        Some(&source::TRITON_SLIDING_WINDOW_TUPLE),
        "TritonAttentionImpl window",
        format!("sliding_window {window} (left, right){sinks}"),
    );
}

/// The layer's query: `TritonAttentionImpl.supports_quant_query_input = current_platform.is_cuda()` (every release),
/// so the layer quantizes the query for an fp8 / fp8_e4m3 cache ([`super::query::layer_query`]).
pub(crate) fn query(p: &Platform, cx: &GroupContext, g: &GroupReport, kv: &str, t: &mut Trace) -> super::query::LayerQuery {
    t.step(
        Some(&source::TRITON_QUANT_QUERY_INPUT),
        "TritonAttentionImpl.supports_quant_query_input",
        "current_platform.is_cuda(): True",
    );
    let why = "TritonAttentionImpl takes a quantized query (supports_quant_query_input on CUDA)";
    super::query::layer_query(p, cx, kv, (true, why), g.num_kv_heads, t)
}

/// 0.24.0 – 0.29.0 (before the selector refuses DCP): the runner's `check_attention_cp_compatibility`, after the memory
/// profile, asserts each layer's impl returns the softmax LSE for decodes, which TritonAttentionImpl does not.
fn dcp_check(p: &Platform, l: &LayerQuery, t: &mut Trace) -> Option<GroupError> {
    if p.release >= V0_30_0 || !l.use_dcp {
        return None;
    }
    let cite = &source::TRITON_DCP_LSE_ASSERT;
    t.step(
        Some(cite),
        "decode context parallelism",
        format!(
            "decode_context_parallel_size {}: TritonAttentionImpl.need_to_return_lse_for_decode is False (it cannot \
             return the LSE)",
            p.dcp
        ),
    );
    Some(GroupError {
        kind: GroupErrorKind::AssertionError,
        message: "Decode Context Parallelism (DCP) requires attention implementations to return the softmax LSE \
                  during decode, but TritonAttentionImpl does not. Try a different backend by setting \
                  --attention-backend or disable DCP."
            .into(),
        stage: Stage::Init,
        source: cite.at(p.release).map(|s| s.short()),
        raised_in: "GPUModelRunner.initialize_kv_cache → check_attention_cp_compatibility".into(),
    })
}

/// The capture size nearest `t` among the default `cudagraph_capture_sizes` (`[1, 2, 4] + range(8, 256, 8) + …`,
/// ascending; `min` keeps the first of a tie), as the builder snaps its threshold.
fn nearest_capture_size(t: u32) -> u32 {
    let mut best = (1, t.abs_diff(1));
    for s in [2u32, 4].into_iter().chain((8..256).step_by(8)) {
        if s.abs_diff(t) < best.1 {
            best = (s, s.abs_diff(t));
        }
    }
    best.0
}

/// What `TritonAttentionMetadataBuilder.__init__` sets up for a group and what `unified_attention` derives per launch:
/// the numbers each batch's 2D / 3D choice reads.
pub(crate) struct Launch {
    kv_heads: u32,
    /// `BLOCK_Q = BLOCK_M // (query heads per KV head)`.
    block_q: u32,
    /// `seq_threshold_3D`.
    pub threshold: u32,
    /// 0.32.0+ on SM 12.0 exactly: the scratch may take 64 segments (by the SM count, which qpath does not know).
    sm120: bool,
    /// `TILE_SIZE_PREFILL` (the 2D grid's tile) of a decode-only batch; a batch with multi-token queries takes 128
    /// under `tuned_large_head`.
    tile_prefill: u32,
    tile_decode: u32,
    /// `tuned_large_head` for multi-token queries: head 256 on the SM100 family with at most 16 query heads per KV head.
    tuned_large_head: bool,
    int4: bool,
}

impl Launch {
    /// The builder's `__init__` (engine start): `seq_threshold_3D = 128 // num_heads_kv`, snapped to the nearest CUDA-graph
    /// capture size when decode graphs are FULL; 16 segments (0.32.0+ SM 12.0: maybe 64); 0.33.0's scratch rows.
    pub(crate) fn new(p: &Platform, g: &GroupReport, q: TorchDtype, kv: &str, t: &mut Trace) -> Launch {
        let kv_heads = g.num_kv_heads.max(1);
        let graphs = p.resolved_graphs.as_ref().unwrap_or(&p.graphs);
        let full = graphs.full_decode();
        t.step(
            Some(&source::TRITON_DECODE_CG_ENABLED),
            "TritonAttentionMetadataBuilder decode CUDA graphs",
            format!(
                "cudagraph_mode {} ({}): decode_cudagraph_enabled = {}",
                graphs.mode,
                graphs.set_by,
                if full { "True" } else { "False" }
            ),
        );
        let base = 128 / kv_heads;
        t.step(
            Some(&source::TRITON_SEQ_THRESHOLD_3D),
            "seq_threshold_3D",
            format!("MIN_LAUNCH_GRID_SIZE_2D // num_heads_kv = 128 // {kv_heads} = {base}"),
        );
        let threshold = if full {
            let snapped = nearest_capture_size(base);
            t.step(
                Some(&source::TRITON_SEQ_THRESHOLD_CAPTURE),
                "seq_threshold_3D snapped to a capture size",
                format!(
                    "the capture size nearest {base} among the default cudagraph_capture_sizes [1, 2, 4, 8, 16, 24, …]: \
                     {snapped} (qpath follows the default sizes, not --cuda-graph-sizes, max_cudagraph_capture_size \
                     or speculative decoding's rounding of them to multiples of 1 + num_speculative_tokens)"
                ),
            );
            snapped
        } else {
            base
        };
        let sm120 = p.release >= V0_32_0 && p.is_cc(120);
        if sm120 {
            t.step(
                Some(&source::TRITON_SM120_MAX_SEQS_64),
                "SM 12.0 split-KV segments",
                format!(
                    "max_seqs_64_segments = (num_compute_units() - 1) // (16 × {kv_heads}); when it is above 0 (more than \
                     {} SMs) the scratch takes 64 segments and build() falls back to its 16-segment view for batches of \
                     more requests (or more query tokens than its rows); qpath cannot model this: the GPU's SM count",
                    16 * kv_heads
                ),
            );
        }
        if p.release >= V0_33_0 {
            t.step(
                Some(&source::TRITON_MAX_QUERY_LEN_3D),
                "split-KV scratch rows",
                format!(
                    "min(seq_threshold_3D {threshold}, max_num_seqs) × max_query_len_3d rows (max_query_len_3d = 1 \
                     without speculative decoding, min(1 + num_speculative_tokens, 8) with it; 1 for an INT4 cache)"
                ),
            );
        }
        let q_per_kv = (g.num_q_heads / kv_heads).max(1);
        let block_m = if q_per_kv <= 16 { 16 } else { q_per_kv.next_power_of_two() };
        let gemma3 = g.sliding_window == Some(1024) && matches!(g.head_dim, 128 | 256);
        // 0.24.0+ (triton_unified_attention.py's tuned_large_head).
        let tuned_large_head = p.release >= V0_24_0 && g.head_dim == 256 && q_per_kv <= 16 && p.is_family(100);
        let tile_decode = if gemma3 || q.is_fp8() { 32 } else { 16 };
        Launch {
            kv_heads,
            block_q: (block_m / q_per_kv).max(1),
            threshold,
            sm120,
            tile_prefill: 32,
            tile_decode,
            tuned_large_head,
            int4: p.release >= V0_25_0Prefix && kv == "int4_per_token_head",
        }
    }

    /// The launch rules' steps: batch invariance, the INT4 hand-off, the FP8 path, the tiles, the 3D rule.
    fn rule_steps(&self, p: &Platform, kv: &str, q: TorchDtype, t: &mut Trace) {
        if p.batch_invariant {
            t.step(
                Some(&source::TRITON_UA_BATCH_INVARIANT),
                "VLLM_BATCH_INVARIANT",
                "is_batch_invariant: every batch runs the 2D grid",
            );
        }
        if self.int4 {
            t.step(
                Some(&source::TRITON_UA_INT4_DISPATCH),
                "INT4 per-token-head cache",
                "unified_attention hands every batch to unified_attention_int4 (the query rotated by a randomized \
                 Hadamard transform, kernel _attn_packed); causal attention only",
            );
            t.step(
                Some(&source::TRITON_INT4_USE_3D),
                "INT4 split-KV rule",
                format!(
                    "3D split-KV grid only for a decode-only batch of at most {} requests, else the 2D grid",
                    self.threshold
                ),
            );
            return;
        }
        if q.is_fp8() && p.release < V0_22_0 {
            // 0.20.0–0.21.0: no q_descale (unified_attention asserts it is None) and no scale on an FP8 query's path.
            t.step(
                Some(&source::TRITON_UA_CAST_FP8_Q),
                "FP8 query and cache",
                format!(
                    "Q {q} and a per-tensor {kv:?} cache (read as float8_e4m3fn): K and V go unconverted into FP8 dots \
                     and no scale is applied (q_descale=None; _cast_kv_tile skips k_scale / v_scale for an FP8 query)"
                ),
            );
            t.step(
                Some(&source::TRITON_FWD_Q_SCALE_ASSERT),
                "q_scale",
                "TritonAttentionImpl.forward asserts layer._q_scale_float == 1.0 (\"A non 1.0 q_scale is not currently \
                 supported.\")",
            );
        } else if q.is_fp8() {
            t.step(
                Some(&source::TRITON_UA_FP8_Q_DESCALE),
                "FP8 query and cache",
                format!(
                    "Q {q} and a per-tensor {kv:?} cache (read as float8_e4m3fn): K and V go unconverted into FP8 dots, \
                     q_scale × k_scale folded into the softmax scale, v_scale into the output"
                ),
            );
        } else if kv.ends_with("per_token_head") {
            t.step(
                Some(&source::TRITON_FWD_PTH_BRANCH),
                "per-token-head cache",
                format!("each K / V tile dequantized to {q} with its (token, head) scale from the cache"),
            );
        }
        t.step(
            Some(&source::TRITON_UA_TILE_SIZE),
            "tile sizes",
            format!(
                "BLOCK_Q {}, prefill tile {}, decode tile {}{}",
                self.block_q,
                self.tile_prefill,
                self.tile_decode,
                if self.tuned_large_head {
                    " (tuned_large_head: head 256 on the SM100 family; a batch with multi-token queries takes BLOCK_M \
                     32, 8 warps and prefill tile 128)"
                } else {
                    ""
                }
            ),
        );
        let rule = if p.release >= V0_33_0 {
            format!(
                "3D when the batch's longest query is 1 token, or at most MAX_3D_QUERY_LEN (8) with causal masking, no \
                 mm-prefix ranges{}; and requests × ⌈longest query / {}⌉ ≤ seq_threshold_3D {}; and not batch \
                 invariant; and the scratch holds its query tokens (else logger.debug_once, 2D)",
                if self.tuned_large_head {
                    " and not tuned_large_head"
                } else {
                    ""
                },
                self.block_q,
                self.threshold
            )
        } else {
            format!(
                "3D when the batch is decode-only (max_seqlen_q == 1) with at most seq_threshold_3D {} requests and \
                 not batch invariant; every other batch 2D",
                self.threshold
            )
        };
        t.step(Some(&source::TRITON_UA_USE_3D), "2D or 3D", rule);
    }

    /// The 2D grid, as a phase's choice describes it (`multi_token`: a batch with a query longer than one token).
    fn grid_2d(&self, multi_token: bool) -> String {
        let tile = if multi_token && self.tuned_large_head {
            128
        } else {
            self.tile_prefill
        };
        format!("the 2D grid (q blocks × {} KV heads), tile {tile}", self.kv_heads)
    }

    /// The 3D grid, as a phase's choice describes it.
    fn grid_3d(&self) -> String {
        let segments = if self.sm120 {
            "64 segments while the batch has at most max_seqs_64_segments requests and fits the 64-segment rows, else \
             16 (qpath cannot model this: the SM count it reads)"
        } else {
            "16 segments"
        };
        format!(
            "the 3D split-KV grid (q blocks × {} KV heads × {segments}), tile {}, then reduce_segments",
            self.kv_heads, self.tile_decode
        )
    }

    /// The kernel choices of a decode-only batch (single-token queries), the 3D one first (a small batch).
    pub(crate) fn decode_choices(&self, p: &Platform, prefix: &str) -> Vec<KernelChoice> {
        if self.int4 {
            return vec![KernelChoice::when(
                Kernel::TritonInt4Packed,
                format!(
                    "{prefix}every decode batch: its 3D split-KV grid for at most {} requests, else its 2D grid",
                    self.threshold
                ),
            )];
        }
        if p.batch_invariant || self.threshold == 0 {
            let why = if p.batch_invariant {
                "VLLM_BATCH_INVARIANT"
            } else {
                "seq_threshold_3D is 0"
            };
            return vec![KernelChoice::when(
                Kernel::TritonUnified2d,
                format!("{prefix}every decode batch ({why}): {}", self.grid_2d(false)),
            )];
        }
        let t = self.threshold;
        vec![
            KernelChoice::when(
                Kernel::TritonUnified3d,
                format!(
                    "{prefix}a decode batch of at most {t} requests (seq_threshold_3D): {}",
                    self.grid_3d()
                ),
            ),
            KernelChoice::when(
                Kernel::TritonUnified2d,
                format!("{prefix}a decode batch of more than {t} requests: {}", self.grid_2d(false)),
            ),
        ]
    }

    /// The kernel choices of a batch with a prefill, the one of the first modelled batch (512 prompt tokens) first.
    pub(crate) fn prefill_choices(&self, p: &Platform, prefix: &str) -> Vec<KernelChoice> {
        if self.int4 {
            return vec![KernelChoice::when(
                Kernel::TritonInt4Packed,
                format!("{prefix}every batch with a prefill: its 2D grid"),
            )];
        }
        let short_3d = p.release >= V0_33_0 && !p.batch_invariant && !self.tuned_large_head && self.threshold > 0;
        if !short_3d {
            return vec![KernelChoice::when(
                Kernel::TritonUnified2d,
                format!(
                    "{prefix}every batch with a prefill (a query longer than 1 token): {}",
                    self.grid_2d(true)
                ),
            )];
        }
        let (t, bq) = (self.threshold, self.block_q);
        vec![
            KernelChoice::when(
                Kernel::TritonUnified2d,
                format!(
                    "{prefix}a batch whose longest query is over 8 tokens (MAX_3D_QUERY_LEN), or with requests × \
                     ⌈longest query / {bq}⌉ over {t}, or more query tokens than the scratch's rows, or mm-prefix \
                     ranges / non-causal masking: {}",
                    self.grid_2d(true)
                ),
            ),
            KernelChoice::when(
                Kernel::TritonUnified3d,
                format!(
                    "{prefix}a causal batch without mm-prefix ranges whose longest query is at most 8 tokens (short \
                     prompts, speculative-decoding verification), with requests × ⌈longest query / {bq}⌉ ≤ {t} and \
                     its query tokens within the scratch's rows: {}",
                    self.grid_3d()
                ),
            ),
        ]
    }

    /// An image prefill a composite routes to TRITON_ATTN: a multi-token query with mm-prefix ranges, always the 2D
    /// grid (0.33.0's short-query 3D excludes mm-prefix ranges).
    pub(crate) fn image_prefill(&self, prefix: &str) -> KernelChoice {
        KernelChoice::when(Kernel::TritonUnified2d, format!("{prefix}{}", self.grid_2d(true)))
    }

    /// Every kernel each phase can run, the first modelled batch's first.
    pub(crate) fn choices(&self, p: &Platform) -> Phases<Vec<KernelChoice>> {
        Phases {
            prefill: self.prefill_choices(p, ""),
            decode: self.decode_choices(p, ""),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::nearest_capture_size;

    /// The builder's `min(capture_sizes, key=|x - t|)` over the default sizes: kv 8 → 16, kv 3 → 42 → 40, kv 6 → 21 →
    /// 24, kv 5 → 25 → 24, kv 256 → 0 → 1.
    #[test]
    fn threshold_snaps_to_the_nearest_default_capture_size() {
        for (t, s) in [
            (16, 16),
            (42, 40),
            (21, 24),
            (25, 24),
            (0, 1),
            (128, 128),
            (64, 64),
            (12, 8),
            (20, 16),
        ] {
            assert_eq!(nearest_capture_size(t), s, "{t}");
        }
    }
}
