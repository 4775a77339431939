//! TURBOQUANT (`vllm/v1/attention/backends/turboquant_attn.py`, `vllm/v1/attention/ops/triton_turboquant_*.py`), every
//! release 0.20.0 – 0.33.0: selection (`validate_configuration` with TurboQuantAttentionBackend's class facts),
//! `TurboQuantAttentionImpl.__init__` (its preset, FlashAttention 2), the runner's DCP check before 0.30.0, and the
//! forward per phase: decodes on the Triton TurboQuant decode kernel, prefills on FA2 over the raw K/V (first chunks),
//! the decode kernel (continuations of at most 128 tokens) or the dequantized cache then FA2 (longer continuations).
//! [`config`] holds the engine config's effects (the boundary layers, `flash_attn_version = 2`), [`layout`] the KV-cache
//! layout every backend must share (0.29.0+). `docs/source-notes/flex-turboquant-registry.md` §3 restates the
//! statements per release.

pub mod config;
pub mod layout;

pub use config::engine_config;

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery, SINK_REASON};
use crate::attention::{Backend, CgSupport, Kernel, QPATH_LIMIT};
use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::release::Release;
use crate::report::{GroupReport, KernelChoice};
use crate::source;
use crate::trace::Trace;

/// TURBOQUANT's rules.
pub struct TurboQuant;

impl BackendRules for TurboQuant {
    fn class_name(&self) -> &'static str {
        "TurboQuantAttentionBackend"
    }

    /// `validate_configuration` for TURBOQUANT, in vLLM's order: `supported_dtypes` float16 / bfloat16 (its head-size
    /// rule, > 0, never fails), `supports_kv_cache_dtype` = `turboquant_*`, `[16, 32, 64, 128]` kernel blocks (a
    /// multiple of any), and the base class's False for mm-prefix, sinks, per-head quant scales, sliding windows
    /// (checked from 0.26.0), non-causal attention, batch invariance and (the impl's) DCP (checked from 0.30.0). The
    /// R-SWA (0.30.0+) and PCP (0.26.0+) reasons need settings qpath does not read. Attention type: DECODER only,
    /// which every layer qpath models is.
    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String> {
        let r = p.release;
        let mut reasons = Vec::new();
        if !p.model_dtype.is_16bit() {
            reasons.push("dtype not supported".to_string());
        }
        if !l.kv_cache_dtype.starts_with("turboquant_") {
            reasons.push("kv_cache_dtype not supported".to_string());
        }
        super::multiple_of_16_reason(l, &mut reasons);
        if l.use_mm_prefix {
            reasons.push("partial multimodal token full attention not supported".to_string());
        }
        if l.has_sinks {
            reasons.push(SINK_REASON.to_string());
        }
        if l.use_per_head_quant_scales {
            reasons.push("per-head quant scales not supported".to_string());
        }
        if r >= Release::V0_26_0 && l.sliding_window {
            reasons.push("sliding window not supported".to_string());
        }
        if l.use_non_causal {
            reasons.push("non-causal attention not supported".to_string());
        }
        if p.batch_invariant {
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
        super::block_size_step(Backend::TurboQuant, l, &source::TURBOQUANT_KERNEL_BLOCK_SIZES, &mut t);
        let preset = Preset::of(&l.kv_cache_dtype);
        let fa2 = impl_init(p, g, &preset, &mut t);
        if let Some(r) = super::flex_attention::dcp_check(p, "TurboQuantAttentionImpl", &mut t) {
            super::init_error(p, Some(r), &mut t, g);
        } else {
            forward(p, cx, l, g, &preset, fa2, &mut t);
        }
        crate::backends::take_trace(g, t);
    }

    fn cudagraph_support(&self, _p: &Platform, _g: &GroupReport, _q_heads: u32, _non_causal: bool) -> CgDecision {
        super::class_attribute(CgSupport::UniformBatch, &source::CG_TURBOQUANT_SUPPORT)
    }
    fn kernel_block_sizes(&self, _p: &Platform, _q_heads: u32, _kv_heads: u32, _t: &mut Trace) -> Option<KernelSizes> {
        None
    }
}

/// A `TQ_PRESETS` entry ([`source::TURBOQUANT_PRESETS`], the same four in every release).
struct Preset {
    /// FP8 keys (`key_quant_bits` 8); else Lloyd-Max MSE keys of `key_bits`, rotated by a Hadamard matrix.
    key_fp8: bool,
    key_bits: u32,
    value_bits: u32,
    norm_correction: bool,
}

impl Preset {
    fn of(kv: &str) -> Preset {
        let (key_bits, value_bits, norm_correction) = match kv {
            "turboquant_k8v4" => (8, 4, false),
            "turboquant_4bit_nc" => (4, 4, true),
            "turboquant_k3v4_nc" => (3, 4, true),
            _ => (3, 3, true),
        };
        Preset {
            key_fp8: key_bits == 8,
            key_bits,
            value_bits,
            norm_correction,
        }
    }

    fn keys(&self) -> String {
        if self.key_fp8 {
            "FP8 keys".to_string()
        } else {
            format!(
                "{}-bit Lloyd-Max keys (Hadamard-rotated{})",
                self.key_bits,
                if self.norm_correction { ", norm correction" } else { "" }
            )
        }
    }
}

/// `TurboQuantAttentionImpl.__init__` (no raise of its own in any release): the preset, `fa_version =
/// get_flash_attn_version(head_size=…)` (2 under the engine config's override; `None` where FA2 is unsupported, below
/// SM80), and 0.28.0+ FlyDSL (gfx950 only). Returns whether the prefill's FlashAttention is FA2.
fn impl_init(p: &Platform, g: &GroupReport, preset: &Preset, t: &mut Trace) -> Result<(), String> {
    let r = p.release;
    t.step(
        Some(&source::TURBOQUANT_IMPL_CONFIG),
        "TurboQuantAttentionImpl.__init__",
        format!(
            "TurboQuantConfig.from_cache_dtype({:?}, {}): {}, {}-bit values; no raise",
            g.cache_dtype,
            g.head_dim,
            preset.keys(),
            preset.value_bits
        ),
    );
    if r < Release::V0_26_0 {
        if let Some(w) = g.sliding_window {
            t.step(
                Some(&source::TURBOQUANT_IMPL_SLIDING_WINDOW_ARG),
                "sliding window",
                format!(
                    "the impl takes sliding_window={w} and never reads it (before 0.26.0 selection does not check \
                     sliding windows): these layers attend to the whole context"
                ),
            );
        }
    }
    let fa = if p.cc.major < 8 {
        t.step(
            Some(&source::FA_IFACE_FA2_SUPPORTED),
            "get_flash_attn_version",
            format!(
                "FA2 needs compute capability 8.0+ ({}): vLLM logs an error (\"Cannot use FA version 2 is not supported \
                 due to …\"), its assert fails inside the try and get_flash_attn_version returns None",
                p.cc
            ),
        );
        Err(format!(
            "{QPATH_LIMIT}: on compute capability {} TurboQuant's fa_version is None, and its prefill calls \
             flash_attn_varlen_func without fa_version, whose behaviour on this GPU the Python source does not show",
            p.cc
        ))
    } else {
        match p.flash_attn_version {
            Some(2) => {
                t.step(
                    Some(&source::TURBOQUANT_IMPL_FA_VERSION),
                    "get_flash_attn_version",
                    "attention_config.flash_attn_version = 2 (the engine config's TurboQuant override): fa_version 2",
                );
                Ok(())
            }
            v => Err(format!(
                "{QPATH_LIMIT}: flash_attn_version {v:?} for TurboQuant's prefill (vLLM's engine config sets 2 for a \
                 TurboQuant cache)"
            )),
        }
    };
    if r >= Release::V0_28_0 {
        t.step(
            Some(&source::TURBOQUANT_IMPL_FLYDSL),
            "FlyDSL",
            "is_flydsl_available() imports vllm.platforms.rocm; on_gfx950() is False on CUDA: no FlyDSL, the \
             default Triton store and decode",
        );
        t.step(
            Some(&source::TURBOQUANT_ROCM_ROCM_C_WARNING),
            "importing vllm.platforms.rocm",
            format!(
                "{QPATH_LIMIT}: the module's import-time warnings (\"Failed to import from amdsmi with …\", \"Failed \
                 to import from vllm._rocm_C with …\") print unless it was imported before or those modules are \
                 installed"
            ),
        );
    }
    fa
}

/// The batch's two parts (every release): `do_kv_cache_update` quantizes the new K/V into the packed cache; the
/// builder puts decodes first (reorder threshold 1); decodes run the Triton decode kernel, prefills FlashAttention
/// on the raw K/V or the decode kernel / dequantized cache for continuations.
fn forward(
    p: &Platform,
    cx: &GroupContext,
    l: &LayerQuery,
    g: &mut GroupReport,
    preset: &Preset,
    fa2: Result<(), String>,
    t: &mut Trace,
) {
    let model = p.model_dtype;
    t.step(
        Some(&source::TURBOQUANT_SUPPORTS_QUANT_QUERY),
        "supports_quant_query_input",
        "TurboQuantAttentionImpl sets it False",
    );
    let q = super::query::layer_query(
        p,
        cx,
        &l.kv_cache_dtype,
        (false, "TurboQuantAttentionImpl does not take a quantized query"),
        g.num_kv_heads,
        t,
    );
    t.step(
        Some(&source::TURBOQUANT_STORE_CALL),
        "do_kv_cache_update",
        format!(
            "triton_turboquant_store: {} and {}-bit uniform values, packed per head into one uint8 slot",
            preset.keys(),
            preset.value_bits
        ),
    );
    t.step(
        Some(&source::TURBOQUANT_REORDER),
        "TurboQuantMetadataBuilder",
        "reorder threshold 1, supports_spec_as_decode False: decodes (one token) first; a speculative verification \
         batch (1 + k tokens) is a prefill",
    );
    t.step(
        Some(&source::TURBOQUANT_FORWARD_DECODE_ONLY),
        "TurboQuantAttentionImpl.forward",
        "is_prefill = max_query_len > 1: a decode-only batch runs the decode kernel; a mixed batch its decodes, \
         then its prefills",
    );
    // Decode: triton_turboquant_decode_attention (stage 1 split-KV over the packed cache + stage 2 reduce).
    let decode_q = if preset.key_fp8 { q.q_dtype } else { TorchDtype::Float32 };
    t.step(
        Some(&source::TURBOQUANT_DECODE_CALL),
        "decode",
        "triton_turboquant_decode_attention: Triton _tq_decode_stage1 (split-KV over the packed cache, \
         tq_max_kv_splits_for_cuda_graph splits, 32 by default) + _fwd_kernel_stage2; output in the query's dtype",
    );
    if p.release < Release::V0_21_0 {
        // 0.20.x: stage 2 writes a float32 output, cast on return (triton_turboquant_decode.py L623); from 0.21.0
        // stage 2 writes the query's dtype (OUTPUT_FP16).
        t.step(
            Some(&source::TURBOQUANT_DECODE_OUTPUT_CAST),
            "decode output",
            format!("stage 2 writes a float32 output; the launcher returns output.to(query.dtype), a {model} copy"),
        );
    }
    t.step(
        Some(&source::TURBOQUANT_DECODE_Q_ROT),
        "decode query",
        if preset.key_fp8 {
            format!("FP8 keys: the {model} query goes to the kernel as it is")
        } else {
            format!(
                "MSE keys: q_rot = query.float() @ Pi.T, a {} query (the Hadamard-rotated {model} query)",
                TorchDtype::Float32
            )
        },
    );
    if preset.key_fp8 && p.cc.to_int() < 89 {
        t.step(
            Some(&source::TURBOQUANT_FP8_E4B15),
            "FP8 key format",
            format!("compute capability {} < 8.9: the kernel reads the FP8 keys as fp8e4b15", p.cc),
        );
    }
    g.q_dtype.decode = Some(decode_q);
    g.kernel.decode = Some(Kernel::TurboquantDecode);
    g.kernels.decode = vec![KernelChoice::always(Kernel::TurboquantDecode)];
    // Prefill.
    g.q_dtype.prefill = Some(q.q_dtype);
    match fa2 {
        Err(why) => {
            t.step(Some(&source::TURBOQUANT_PREFILL_FAST_PATH), "prefill", why.clone());
            g.unmodelled = Some(why);
        }
        Ok(()) => {
            t.step(
                Some(&source::TURBOQUANT_HAS_FLASH_ATTN),
                "_HAS_FLASH_ATTN",
                "is_flash_attn_varlen_func_available() is True on CUDA: vllm_flash_attn's flash_attn_varlen_func",
            );
            t.step(
                Some(&source::TURBOQUANT_PREFILL_FAST_PATH),
                "prefill, first chunks",
                format!(
                    "max_query_len == max_seq_len (no request of the prefill part has cached tokens): one \
                     flash_attn_varlen_func(fa_version=2, causal) over the batch's raw {model} K/V, not the cache"
                ),
            );
            t.step(
                Some(&source::TURBOQUANT_PREFILL_CONTINUATION_DECODE),
                "prefill, continuations",
                format!(
                    "else per request: a first chunk on the same FA2 call; a continuation of at most 128 tokens \
                     (_CONTINUATION_DECODE_THRESHOLD) on the decode kernel with per-token sequence lengths (its query \
                     {decode_q})"
                ),
            );
            // 0.21.0 moved the dequantized K/V into the shared WorkspaceManager (turboquant_attn.py L747 in 0.21.0);
            // 0.20.x grows per-layer buffers (L698 in 0.20.x).
            let buffers = if p.release >= Release::V0_21_0 {
                "float16 workspace buffers"
            } else {
                "per-layer float16 buffers (each layer's own, grown on demand)"
            };
            t.step(
                Some(&source::TURBOQUANT_CONTINUATION_FA_CALL),
                "prefill, long continuations",
                format!(
                    "more than 128 tokens: _continuation_prefill dequantizes the cached K/V (Triton \
                     _tq_full_dequant_kv) into {buffers}, joins the chunk's raw K/V in {model}, then \
                     flash_attn_varlen_func(fa_version=2)"
                ),
            );
            if p.release >= Release::V0_21_0 && p.release < Release::V0_24_0 {
                // 0.21.0-0.23.0 take the buffers from the WorkspaceManager at the chunk (turboquant_attn.py L747);
                // 0.24.0's builder reserves them at init (`_reserve_workspace`). capture_model locks the workspace
                // after start-up (gpu_model_runner.py L6579 in 0.23.0) unless cudagraph_mode is NONE.
                let graphs = p.resolved_graphs.as_ref().unwrap_or(&p.graphs);
                t.step(
                    Some(&source::TURBOQUANT_CONTINUATION_WORKSPACE),
                    "continuation workspace",
                    if graphs.mode != "NONE" {
                        format!(
                            "before 0.24.0 TurboQuantMetadataBuilder reserves no workspace: a long continuation takes \
                             its two float16 (1, {}, cached tokens rounded up to the block, {}) buffers from the \
                             WorkspaceManager at that chunk, after capture_model locked it (cudagraph_mode {}); one \
                             larger than the workspace start-up reached raises AssertionError \"Workspace is locked \
                             but allocation from … Workspace growth is not allowed after locking.\"",
                            g.num_kv_heads, g.head_dim, graphs.mode
                        )
                    } else {
                        "before 0.24.0 TurboQuantMetadataBuilder reserves no workspace: a long continuation takes its \
                         float16 buffers from the WorkspaceManager at that chunk; cudagraph_mode NONE: capture_model \
                         returns before lock_workspace, so the workspace grows"
                            .to_string()
                    },
                );
            }
            g.kernel.prefill = Some(Kernel::FaVarlen2);
            g.kernels.prefill = vec![
                KernelChoice::when(
                    Kernel::FaVarlen2,
                    "first chunks: no request of the prefill part has cached tokens (else, per request, a chunk that \
                     is its whole sequence); over the raw K/V",
                ),
                KernelChoice::when(
                    Kernel::TurboquantDecode,
                    format!(
                        "a continuation chunk of at most 128 tokens (speculative verification too): the decode \
                         kernel with per-token sequence lengths, query {decode_q}"
                    ),
                ),
                KernelChoice::when(
                    Kernel::TurboquantDequantFa2,
                    "a continuation chunk of more than 128 tokens: the cached K/V dequantized, then FA2",
                ),
            ];
        }
    }
    g.query_quant = q.quant;
}
