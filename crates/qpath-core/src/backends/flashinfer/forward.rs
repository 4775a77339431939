//! What runs after the wrappers are planned, in the order the engine reaches it: the attention layer's query
//! quantization in the memory profile's forward (before any builder exists), `FlashInferImpl.forward()`'s own checks,
//! and the kernels' checks of what `forward()` hands them. Then which phase's error the engine meets first.

use super::trtllm;
use super::{is_nvfp4, raise, Init, Raise, Run};
use crate::attention::GroupErrorKind::{AssertionError, ValueError};
use crate::attention::{Kernel, Stage};
use crate::dtype::TorchDtype;
use crate::release::Release::*;
use crate::source;

impl Run<'_> {
    /// `FlashInferImpl.supports_quant_query_input` ([`source::FI_SUPPORTS_QUANT_QUERY`]): 0.20.0–0.24.0
    /// `can_use_trtllm_attention(num_heads, num_kv_heads) and not disable_flashinfer_q_quantization`; 0.25.0+ also
    /// `is_quantized_kv_cache(kv_cache_dtype) and is_device_capability_family(100)` (SM90's XQA decode needs a 16-bit
    /// query, so only SM100's trtllm-gen takes a query quantized by the layer).
    fn supports_quant_query_input(&self) -> bool {
        let (p, g) = (self.p, self.g);
        let base = trtllm::can_use(p, g.q_heads, g.kv_heads, false) && !p.disable_q_quant;
        if self.r() < V0_25_0Prefix {
            base
        } else {
            base && g.quantized && p.is_family(100)
        }
    }

    /// The attention layer builds `query_quant` when the impl `supports_quant_query_input` and the layer's cache dtype
    /// starts with `fp8` or is NVFP4 (`== "nvfp4"` before 0.28.0, `.startswith("nvfp4")` from it); 0.33.0 leaves out the
    /// `*per_token_head` dtypes. Its forward then quantizes the query to FP8 (e4m3).
    fn layer_quantizes_query(&self) -> bool {
        let kv = &self.p.global_kv;
        let nvfp4 = is_nvfp4(self.r(), kv);
        let per_token_head = self.r() >= V0_33_0 && kv.ends_with("per_token_head");
        self.g.quantized && (kv.starts_with("fp8") || nvfp4) && !per_token_head && self.supports_quant_query_input()
    }

    /// The memory profile's forward at engine start (`profile_run`, no attention metadata): the layer's
    /// `assert self.kv_cache_dtype in {"fp8", "fp8_e4m3", …}` (NVFP4 too) before it quantizes the query, a bare assert
    /// that fails for the other fp8 dtypes (`fp8_e5m2`) ([`source::ATTN_LAYER_QUERY_QUANT_ASSERT`]).
    pub(super) fn profile_run(&mut self) -> Result<(), Raise> {
        if !self.layer_quantizes_query() {
            return Ok(());
        }
        let kv = self.p.global_kv.clone();
        self.t.step(
            Some(&source::FI_SUPPORTS_QUANT_QUERY),
            "query quantization by the attention layer",
            format!(
                "supports_quant_query_input on {} with cache dtype {kv:?}: the layer quantizes the query to {} before FlashInfer",
                self.p.arch(),
                TorchDtype::Float8E4m3fn
            ),
        );
        if kv == "fp8" || kv == "fp8_e4m3" || is_nvfp4(self.r(), &kv) {
            return Ok(());
        }
        Err(
            raise(AssertionError, "", Stage::ProfileRun, source::ATTN_LAYER_QUERY_QUANT_ASSERT)
                .via("Attention.forward (the memory profile's forward pass)"),
        )
    }

    /// 0.20.0–0.24.0: `forward()` first asserts `attn_metadata.q_data_type == query.dtype` ([`source::FI_QUERY_DTYPE_ASSERT`]).
    /// After `build()` reset the builder's `q_data_type` to the model dtype, the layer still hands it an FP8 query, so
    /// every later forward raises, in either phase.
    pub(super) fn query_dtype_assert_0_24(&mut self, reset: bool) {
        if self.r() >= V0_25_0Prefix || !reset || !self.layer_quantizes_query() {
            return;
        }
        let message = format!(
            "Query dtype mismatch: expected {}, got {}",
            self.p.model_dtype.torch_repr(),
            TorchDtype::Float8E4m3fn.torch_repr()
        );
        for (is_prefill, stage) in [(true, Stage::PrefillForward), (false, Stage::DecodeForward)] {
            let e = raise(AssertionError, message.clone(), stage, source::FI_QUERY_DTYPE_ASSERT).via("FlashInferImpl.forward");
            self.record_forward(is_prefill, e);
        }
    }

    /// An NVFP4 cache's trtllm-gen decode (no DCP) writes into vLLM's FP8 output buffer (`needs_fp8_out`), and
    /// `trtllm_batch_decode_with_kv_cache` accepts an output dtype only if it is the query's or 16-bit
    /// ([`source::FLASHINFER_TRTLLM_DECODE_OUT_DTYPE`]): a 16-bit query fails on the first decode.
    pub(super) fn nvfp4_decode_out(&mut self, init: &Init, decode_trtllm: bool) {
        let p = self.p;
        let qd = self.q_of(false);
        let trtllm_gen = self.kernel.decode == Some(Kernel::TrtllmGen);
        if !(init.nvfp4 && !init.nvfp4_fa2 && trtllm_gen && p.dcp <= 1 && decode_trtllm) || qd.is_fp8() {
            return;
        }
        let e = raise(
            ValueError,
            format!("Unsupported out_dtype: {}", TorchDtype::Float8E4m3fn.torch_repr()),
            Stage::DecodeForward,
            source::FLASHINFER_TRTLLM_DECODE_OUT_DTYPE,
        )
        .via("FlashInferImpl.forward → trtllm_batch_decode_with_kv_cache");
        self.record_forward(false, e);
    }

    /// A forward-stage error: the phase's first error unless its plan already raised.
    fn record_forward(&mut self, is_prefill: bool, e: Raise) {
        let taken = if is_prefill {
            self.phase_err.prefill.is_some()
        } else {
            self.phase_err.decode.is_some()
        };
        if !taken {
            self.record(is_prefill, Err(e));
        }
    }

    /// Which phase's error the engine meets first. With full CUDA graphs for decode batches (the decode mode of the
    /// default `FULL_AND_PIECEWISE`; FlashInfer supports them in every release, [`source::FI_CUDAGRAPH_SUPPORT`]), the
    /// memory profile captures decode-only batches at engine start (their `build()`, decode `plan()` and forward,
    /// [`source::RUNNER_PROFILE_CUDAGRAPH`]) before any batch with a prefill: the decode's error fires first. Without
    /// them (`--enforce-eager`, [`source::VLLM_ENFORCE_EAGER`]; `-O0`, `-O1`, a piecewise mode) the first batch with a
    /// prefill comes first.
    pub(super) fn first_phase_error(&mut self) -> Option<Raise> {
        let g = self.p.resolved_graphs.as_ref().unwrap_or(&self.p.graphs);
        let full = g.full_decode();
        let mode = format!("cudagraph_mode {} ({})", g.mode, g.set_by);
        let (first, order) = match (&self.phase_err.prefill, &self.phase_err.decode) {
            (None, None) => return None,
            (Some(_), Some(d)) if full => (
                d.clone(),
                format!("{mode}: the engine captures decode-only batches in CUDA graphs at start-up, before any prefill, so the decode's error fires first"),
            ),
            (Some(pe), _) if full => (
                pe.clone(),
                format!("{mode}: decodes run (captured in CUDA graphs at start-up); the first batch with a prefill raises"),
            ),
            (Some(pe), _) => (
                pe.clone(),
                format!("{mode}: no decode graphs are captured, the first batch with a prefill comes first and the prefill's error fires first"),
            ),
            (None, Some(d)) if full => (
                d.clone(),
                format!("{mode}: the decode raises while the engine captures decode-only batches in CUDA graphs at start-up"),
            ),
            (None, Some(d)) => (d.clone(), format!("{mode}: prefills run; the first decode raises")),
        };
        let cite = if full {
            &source::RUNNER_PROFILE_CUDAGRAPH
        } else if g.set_by == "--enforce-eager" {
            &source::VLLM_ENFORCE_EAGER
        } else {
            &source::FI_CUDAGRAPH_SUPPORT
        };
        self.t.step(Some(cite), "first error", order);
        Some(first)
    }
}
