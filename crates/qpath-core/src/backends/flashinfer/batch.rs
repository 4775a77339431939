//! The first mixed batch: `FlashInferMetadataBuilder.build()` (`vllm/v1/attention/backends/flashinfer.py`) — the
//! prefill TRTLLM decision, the decode route, the checks of a batch that is not all TRTLLM — then the FlashInfer
//! wrappers' `plan()` for each phase (where `backend="auto"` resolves and the JIT module's checks fire).

use super::library as flashinfer;
use super::trtllm;
use super::{raise, shown, Init, Raise, Run, PREFILL_TOKENS};
use crate::attention::GroupErrorKind::{AssertionError, AttributeError, NotImplementedError, RuntimeError, ValueError};
use crate::attention::{Kernel, Phases, Stage};
use crate::dtype::TorchDtype;
use crate::release::Release::*;
use crate::source;

/// The sinks text of 0.24.0–0.29.0, at `__init__` and in `build()`.
const SINKS_OLD: &str = "FlashInfer backend currently does not support attention sinks, please use trtllm on blackwell or flash attention on earlier GPUs.";

impl Run<'_> {
    /// The first mixed batch: `build()` then the wrappers' `plan()`, in the source's order.
    pub(super) fn first_batch(&mut self, init: Init) -> Result<(), Raise> {
        let prefill_trtllm = self.prefill_use_trtllm();
        let decode_trtllm = self.decode_route(&init);
        let mut reset = false;
        if !(prefill_trtllm && decode_trtllm) {
            self.sinks_at_build(&init)?;
            reset = self.sticky_q_reset();
        }
        let prefill = self.prefill_plan(&init, prefill_trtllm);
        self.record(true, prefill);
        let decode = self.decode_plan(&init, decode_trtllm);
        self.record(false, decode);
        self.query_dtype_assert_0_24(reset);
        self.nvfp4_decode_out(&init, decode_trtllm);
        self.trtllm_gen_arch_prediction();
        Ok(())
    }

    /// A phase's outcome: its error stops that phase only (the other phase's plan and forward are their own code path),
    /// and is kept for [`Run::first_phase_error`].
    pub(super) fn record(&mut self, is_prefill: bool, outcome: Result<(), Raise>) {
        let Err(r) = outcome else { return };
        self.t.step(
            Some(&r.cite),
            format!("{} raises {} ({})", trtllm::phase(is_prefill), r.kind, r.stage.name()),
            shown(&r.message).to_string(),
        );
        if is_prefill {
            self.phase_err.prefill = Some(r);
        } else {
            self.phase_err.decode = Some(r);
        }
    }

    /// The query dtype of a phase as `build()` reads it (`self.q_data_type_prefill` / `_decode`; 0.24.0's one
    /// `self.q_data_type`).
    pub(super) fn q_of(&self, is_prefill: bool) -> TorchDtype {
        let q = if is_prefill { self.q.prefill } else { self.q.decode };
        q.unwrap_or(self.p.model_dtype)
    }

    /// `prefill_use_trtllm = use_trtllm_attention(…, self.cache_dtype, <prefill Q>, is_prefill=True,
    /// force_use_trtllm=prefill_force_trtllm, has_sinks=self.has_sinks, …)` with `prefill_force_trtllm = True if
    /// page_size >= 128 else attention_config.use_trtllm_attention` ([`source::FI_PREFILL_USE_TRTLLM`]); before 0.24.0
    /// `force_use_trtllm=self.attention_config.use_trtllm_attention` (0.23.0 flashinfer.py:920, no large pages).
    fn prefill_use_trtllm(&mut self) -> bool {
        let (p, g) = (self.p, self.g);
        let force = if self.r() >= V0_24_0 && p.page_size >= 128 {
            Some(true)
        } else {
            p.force_trtllm
        };
        let cache_dtype = self.cache_dtype.clone();
        let args = trtllm::UseArgs {
            q_heads: g.q_heads,
            kv_heads: g.kv_heads,
            num_tokens: PREFILL_TOKENS,
            dcp_world_size: p.dcp,
            kv_cache_dtype: &cache_dtype,
            q_dtype: self.q_of(true),
            is_prefill: true,
            force,
            has_sinks: g.has_sinks,
            has_spec: false,
        };
        trtllm::use_trtllm(p, &mut self.t, &args)
    }

    /// The decode route: the static kernel of `__init__`, if any; 0.20.0–0.25.x `and dcp_world_size <= 1`
    /// ([`source::FI_DECODE_ROUTE`]).
    fn decode_route(&mut self, init: &Init) -> bool {
        let (p, r) = (self.p, self.r());
        let decode_trtllm = init.decode_kernel.is_some() && (r >= V0_26_0 || p.dcp <= 1);
        self.t.step(
            Some(&source::FI_DECODE_ROUTE),
            "decode route",
            match (init.decode_kernel, decode_trtllm) {
                (Some(k), true) => format!("decodes go through the TRTLLM API ({})", k.name()),
                (Some(_), false) => format!("decode_context_parallel_size {} > 1: native decode wrapper", p.dcp),
                (None, _) => "native decode wrapper (BatchDecodeWithPagedKVCacheWrapper)".to_string(),
            },
        );
        decode_trtllm
    }

    /// `if not all_uses_trtllm:` the sinks raise — 0.24.0–0.27.0 `if self.has_sinks`; 0.28.0–0.29.0 `and (not
    /// self.use_dedicated_xqa or self.use_dcp or use_cascade)`; 0.30.0–0.31.0 `and (self.use_dcp or use_cascade)`;
    /// 0.32.0+ `and self.use_dcp`, each with its text ([`source::FI_SINKS_BUILD`]).
    fn sinks_at_build(&mut self, init: &Init) -> Result<(), Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        if !g.has_sinks {
            return Ok(());
        }
        let dedicated_xqa = r >= V0_28_0 && r < V0_30_0 && p.is_family(120) && init.decode_kernel == Some(Kernel::Xqa);
        let fires = if r < V0_28_0 {
            Some(SINKS_OLD)
        } else if r < V0_30_0 {
            (!dedicated_xqa || p.dcp > 1).then_some(SINKS_OLD)
        } else if r < V0_32_0 {
            (p.dcp > 1).then_some("FlashInfer BatchDCPPrefillWrapper and MultiLevelCascadeAttentionWrapper do not support attention sinks. Please use TRTLLM on Blackwell or FlashAttention on earlier GPUs.")
        } else {
            (p.dcp > 1).then_some("FlashInfer BatchDCPPrefillWrapper does not support attention sinks. Please use TRTLLM on Blackwell or FlashAttention on earlier GPUs.")
        };
        match fires {
            Some(text) => Err(raise(NotImplementedError, text, Stage::Build, source::FI_SINKS_BUILD)),
            None => Ok(()),
        }
    }

    /// 0.20.0–0.24.0, `if not all_uses_trtllm:` `self.q_data_type = self.model_config.dtype` on the builder itself, for
    /// every later batch too ([`source::FI_STICKY_Q_RESET`]).
    fn sticky_q_reset(&mut self) -> bool {
        let p = self.p;
        if self.r() >= V0_25_0Prefix || self.q_of(true) == p.model_dtype {
            return false;
        }
        self.q = Phases {
            prefill: Some(p.model_dtype),
            decode: Some(p.model_dtype),
        };
        self.t.step(
            Some(&source::FI_STICKY_Q_RESET),
            "q_data_type reset",
            format!(
                "the batch is not all TRTLLM: q_data_type = {} for this builder from now on",
                p.model_dtype
            ),
        );
        true
    }

    /// Prefill metadata: TRTLLM (`TRTLLMPrefill`; with an NVFP4 cache `forward()` asserts an FP8 query,
    /// [`source::FI_NVFP4_PREFILL_FP8_Q`]), else the native prefill wrapper's `plan()`.
    fn prefill_plan(&mut self, init: &Init, prefill_trtllm: bool) -> Result<(), Raise> {
        let qp = self.q_of(true);
        if !prefill_trtllm {
            self.kernel.prefill = Some(self.native_prefill(init, qp)?);
            return Ok(());
        }
        self.kernel.prefill = Some(Kernel::TrtllmGen);
        if init.nvfp4 && !qp.is_fp8() {
            // 0.24.0 asserts on its one `q_data_type`, later releases on `q_data_type_prefill`.
            return Err(raise(
                AssertionError,
                "NVFP4 KV cache requires FP8 quantized queries for trtllm-gen prefill. Set disable_flashinfer_q_quantization=False.",
                Stage::PrefillForward,
                source::FI_NVFP4_PREFILL_FP8_Q,
            )
            .via("FlashInferImpl.forward"));
        }
        Ok(())
    }

    /// Decode metadata: the TRTLLM-API route (`FlashInferTrtllmAPIDecode(kernel=…)`; XQA's own checks,
    /// [`source::FLASHINFER_XQA_Q_DTYPE`]; the call, [`source::FI_XQA_DEDICATED_CALL`] or [`source::FI_TRTLLM_DECODE_CALL`]),
    /// else the native decode wrapper's `plan()`.
    fn decode_plan(&mut self, init: &Init, decode_trtllm: bool) -> Result<(), Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        let qd = self.q_of(false);
        if !decode_trtllm {
            self.kernel.decode = Some(self.native_decode(init, qd)?);
            return Ok(());
        }
        let k = init.decode_kernel.unwrap_or(Kernel::TrtllmGen);
        self.kernel.decode = Some(k);
        if k == Kernel::Xqa {
            let ratio = g.q_heads.checked_div(g.kv_heads).unwrap_or(0);
            if let Some((kind, message, cite, stage)) = flashinfer::xqa_rejects(p, qd, g.head_dim, ratio) {
                let via = if stage == Stage::DecodeJit {
                    "FlashInferImpl.forward → xqa → get_xqa_module → gen_xqa_module"
                } else {
                    "FlashInferImpl.forward → xqa"
                };
                return Err(raise(kind, message, stage, cite).via(via));
            }
            let call = if r >= V0_30_0 || (r >= V0_28_0 && p.is_family(120)) {
                &source::FI_XQA_DEDICATED_CALL
            } else {
                &source::FI_TRTLLM_DECODE_CALL
            };
            self.t.step(
                Some(call),
                "decode kernel call",
                format!("XQA decode with a {qd} query over a {} cache", init.kv),
            );
        } else {
            self.t.step(
                Some(&source::FI_TRTLLM_DECODE_CALL),
                "decode kernel call",
                format!("trtllm-gen decode with a {qd} query"),
            );
        }
        Ok(())
    }

    /// Not a vLLM statement: vLLM's SM100-family gates pass on 10.x GPUs other than 10.0 and 10.3, but FlashInfer's
    /// trtllm-gen cubins are built for sm_100a / sm_103a only, so qpath predicts a load failure (derived, not run).
    fn trtllm_gen_arch_prediction(&mut self) {
        let p = self.p;
        let trtllm_gen = self.kernel.prefill == Some(Kernel::TrtllmGen) || self.kernel.decode == Some(Kernel::TrtllmGen);
        if trtllm_gen && p.cc.major == 10 && !matches!(p.cc.minor, 0 | 3) {
            self.t.unverified(
                format!("vLLM's SM100-family gates pass at {}, but FlashInfer's trtllm-gen kernels are built for sm_100a/sm_103a; expect them to fail to load (Jetson Thor reports 10.1 before CUDA 13; derived, not run)", p.cc),
            );
        }
    }

    /// vLLM quantizes a query slice with `scaled_fp8_quant`, which always produces `current_platform.fp8_dtype()`
    /// (e4m3); a wrapper planned for an e5m2 query then rejects it on its first run (`_check_cached_qkv_data_type`).
    /// Derived from the source; a third-party H100 log shows exactly this message.
    fn e5m2_query_check(&mut self, q: TorchDtype, is_prefill: bool) -> Result<(), Raise> {
        if q != TorchDtype::Float8E5m2 {
            return Ok(());
        }
        let (stage, via) = if is_prefill {
            (
                Stage::PrefillForward,
                "FlashInferImpl.forward → BatchPrefillWithPagedKVCacheWrapper.run → _check_cached_qkv_data_type",
            )
        } else {
            (
                Stage::DecodeForward,
                "FlashInferImpl.forward → BatchDecodeWithPagedKVCacheWrapper.run → _check_cached_qkv_data_type",
            )
        };
        Err(raise(
            ValueError,
            "The dtype of q torch.float8_e4m3fn does not match the q_data_type torch.float8_e5m2 specified in plan function.",
            stage,
            source::FLASHINFER_CHECK_QKV_DTYPE,
        )
        .via(via))
    }

    /// FlashInfer's FA2 module generation: the FP8-query assertion ([`source::FLASHINFER_FA2_FP8_ASSERT`]), and the
    /// architectures an FA2 module with head_dim > 256 is compiled for ([`source::FLASHINFER_FA2_LARGE_HEAD`]).
    fn fa2_checks(&mut self, init: &Init, q: TorchDtype, is_prefill: bool) -> Result<(), Raise> {
        let (stage, via) = if is_prefill {
            (
                Stage::PrefillJit,
                "BatchPrefillWithPagedKVCacheWrapper.plan → get_batch_prefill_module",
            )
        } else {
            (
                Stage::DecodeJit,
                "BatchDecodeWithPagedKVCacheWrapper.plan (tensor cores) → get_batch_prefill_module",
            )
        };
        if q.is_fp8() {
            return Err(raise(
                AssertionError,
                flashinfer::FA2_FP8_ASSERT,
                stage,
                source::FLASHINFER_FA2_FP8_ASSERT,
            )
            .via(via));
        }
        if let Some(majors) = flashinfer::fa2_large_head_majors(self.p, init.kv, self.g.head_dim) {
            if !majors.contains(&self.p.major()) {
                let list: Vec<String> = majors.iter().map(|m| m.to_string()).collect();
                return Err(raise(
                    RuntimeError,
                    format!(
                        "No supported CUDA architectures found for major versions [{}].",
                        list.join(", ")
                    ),
                    stage,
                    source::FLASHINFER_FA2_LARGE_HEAD,
                )
                .via(via));
            }
        }
        Ok(())
    }

    /// The native prefill wrapper (`_get_prefill_wrapper`): `BatchDCPPrefillWrapper` under DCP
    /// ([`source::FI_DCP_PREFILL_WRAPPER`]), the sink wrapper ([`source::FI_SINK_WRAPPER`]), or
    /// `BatchPrefillWithPagedKVCacheWrapper` ([`source::FI_PREFILL_WRAPPER`]) whose `plan()` resolves `backend="auto"`
    /// ([`source::FLASHINFER_PREFILL_AUTO`]).
    fn native_prefill(&mut self, init: &Init, q: TorchDtype) -> Result<Kernel, Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        let sink_wrapper = g.has_sinks && ((r >= V0_28_0 && p.is_family(120)) || (r >= V0_30_0 && p.is_cc(90)));
        if p.dcp > 1 {
            return self.dcp_prefill(init, q);
        } else if sink_wrapper {
            let (k, why) = flashinfer::determine(p, q, init.kv, g.head_dim);
            self.t.step(
                Some(&source::FI_SINK_WRAPPER),
                "prefill wrapper",
                "BatchAttentionWithAttentionSinkWrapper(backend=\"auto\")",
            );
            self.t.step(
                Some(&source::FLASHINFER_SINK_WRAPPER),
                "sink wrapper backend",
                format!("{why} (its module bypasses the FA2 FP8 assertion)"),
            );
            if q.is_fp8() {
                self.t.unverified(
                    format!("an {q} query reaches the sink wrapper's {} module, which no Python check guards; expect a JIT compile or kernel failure (derived from the source, not run)", k.name()),
                );
            }
            return Ok(k);
        } else if init.nvfp4 && !init.nvfp4_fa2 {
            self.t.step(
                Some(&source::FI_PREFILL_WRAPPER),
                "prefill wrapper",
                "BatchPrefillWithPagedKVCacheWrapper(backend=\"trtllm-gen\") for NVFP4, planned with kv_data_type=\"nvfp4\" (a string)",
            );
            self.kernel.prefill = Some(Kernel::TrtllmGen);
            return Err(nvfp4_kv_string(
                Stage::PrefillPlan,
                "BatchPrefillWithPagedKVCacheWrapper.plan → canonicalize_torch_dtype",
            ));
        } else {
            self.t.step(
                Some(&source::FI_PREFILL_WRAPPER),
                "prefill wrapper",
                // 0.20.x passes no `backend` (FlashInfer's default "auto"; 0.20.0 flashinfer.py:768).
                if r < V0_21_0 {
                    "BatchPrefillWithPagedKVCacheWrapper(workspace, layout): backend defaults to \"auto\""
                } else {
                    "BatchPrefillWithPagedKVCacheWrapper(backend=\"auto\")"
                },
            );
        }
        let (k, why) = flashinfer::determine(p, q, init.kv, g.head_dim);
        self.t
            .step(Some(&source::FLASHINFER_PREFILL_AUTO), "prefill plan: backend \"auto\"", why);
        // The wrapper stores the resolved backend before generating the module, where the FA2 checks fire.
        self.kernel.prefill = Some(k);
        if k == Kernel::Fa2 {
            self.fa2_checks(init, q, true)?;
        }
        self.e5m2_query_check(q, true)?;
        Ok(k)
    }

    /// Under DCP the prefill wrapper is vLLM's `BatchDCPPrefillWrapper` ([`source::FI_DCP_PREFILL_WRAPPER`]): a
    /// `BatchPrefillWithPagedKVCacheWrapper` (backend "auto") over the cache, then a ragged one over the new tokens. Its
    /// context `plan()` ([`source::FI_DCP_CONTEXT_PLAN`]) passes the cache dtype as given (the string "nvfp4" for NVFP4)
    /// and no `o_data_type`, so FlashInfer makes the output the query's dtype; the module generator refuses an FP8 output
    /// ([`source::FLASHINFER_FP8_OUTPUT_ASSERT`]) before its fa2 FP8-query assertion.
    fn dcp_prefill(&mut self, init: &Init, q: TorchDtype) -> Result<Kernel, Raise> {
        let (p, g) = (self.p, self.g);
        self.t.step(
            Some(&source::FI_DCP_PREFILL_WRAPPER),
            "prefill wrapper",
            "BatchDCPPrefillWrapper: BatchPrefillWithPagedKVCacheWrapper(backend=\"auto\") over the cache, BatchPrefillWithRaggedKVCacheWrapper over the new tokens",
        );
        if init.nvfp4 && !init.nvfp4_fa2 {
            self.t.step(
                Some(&source::FI_DCP_CONTEXT_PLAN),
                "DCP context plan",
                "kv_data_type=\"nvfp4\" (a string), which FlashInfer looks up on torch",
            );
            return Err(nvfp4_kv_string(
                Stage::PrefillPlan,
                "BatchDCPPrefillWrapper.plan → BatchPrefillWithPagedKVCacheWrapper.plan → canonicalize_torch_dtype",
            ));
        }
        let (k, why) = flashinfer::determine(p, q, init.kv, g.head_dim);
        self.t
            .step(Some(&source::FLASHINFER_PREFILL_AUTO), "prefill plan: backend \"auto\"", why);
        self.kernel.prefill = Some(k);
        if q.is_fp8() {
            self.t.step(
                Some(&source::FI_DCP_CONTEXT_PLAN),
                "DCP context plan",
                format!("no o_data_type: FlashInfer makes the output the query's dtype, {q}"),
            );
            return Err(raise(
                AssertionError,
                "FP8 output is not supported in fa2/fa3 backends yet",
                Stage::PrefillJit,
                source::FLASHINFER_FP8_OUTPUT_ASSERT,
            )
            .via("BatchDCPPrefillWrapper.plan → BatchPrefillWithPagedKVCacheWrapper.plan → get_batch_prefill_module"));
        }
        if k == Kernel::Fa2 {
            self.fa2_checks(init, q, true)?;
        }
        Ok(k)
    }

    /// The native decode wrapper (`_get_decode_wrapper`, [`source::FI_DECODE_WRAPPER`]): `trtllm-gen` for NVFP4,
    /// `fa2` below SM90 from 0.33.0, else `backend="auto"` with tensor cores, whose `plan()` resolves it
    /// ([`source::FLASHINFER_DECODE_AUTO`], [`source::FLASHINFER_DECODE_FA2`]).
    fn native_decode(&mut self, init: &Init, q: TorchDtype) -> Result<Kernel, Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        if init.nvfp4 && !init.nvfp4_fa2 {
            self.t.step(
                Some(&source::FI_DECODE_WRAPPER),
                "decode wrapper",
                "BatchDecodeWithPagedKVCacheWrapper(backend=\"trtllm-gen\") for NVFP4, planned with kv_data_type=\"nvfp4\" (a string)",
            );
            self.kernel.decode = Some(Kernel::TrtllmGen);
            return Err(nvfp4_kv_string(
                Stage::DecodePlan,
                "BatchDecodeWithPagedKVCacheWrapper.plan → canonicalize_torch_dtype",
            ));
        }
        let k = if r >= V0_33_0 && p.cc.major < 9 {
            self.t.step(
                Some(&source::FI_DECODE_WRAPPER),
                "decode wrapper",
                format!(
                    "BatchDecodeWithPagedKVCacheWrapper(backend=\"fa2\"): {} is below SM90",
                    p.arch()
                ),
            );
            Kernel::Fa2
        } else {
            self.t.step(
                Some(&source::FI_DECODE_WRAPPER),
                "decode wrapper",
                // 0.20.x passes no `backend` (FlashInfer's default "auto"; 0.20.0 flashinfer.py:789).
                if r < V0_21_0 {
                    "BatchDecodeWithPagedKVCacheWrapper(use_tensor_cores=True): backend defaults to \"auto\""
                } else {
                    "BatchDecodeWithPagedKVCacheWrapper(use_tensor_cores=True, backend=\"auto\")"
                },
            );
            if q.is_fp8() || init.kv.is_fp8() {
                let (k, why) = flashinfer::determine(p, q, init.kv, g.head_dim);
                self.t.step(
                    Some(&source::FLASHINFER_DECODE_AUTO),
                    "decode plan: backend \"auto\" with FP8",
                    why,
                );
                k
            } else {
                self.t.step(
                    Some(&source::FLASHINFER_DECODE_FA2),
                    "decode plan: backend \"auto\"",
                    "no FP8 query or cache: fa2 on every architecture",
                );
                Kernel::Fa2
            }
        };
        self.kernel.decode = Some(k);
        if k == Kernel::Fa2 {
            self.fa2_checks(init, q, false)?;
        }
        self.e5m2_query_check(q, false)?;
        Ok(k)
    }
}

/// NVFP4's trtllm-gen path keeps the cache dtype as the string "nvfp4" and hands it to a native wrapper's `plan()` as
/// `kv_data_type`; FlashInfer's `canonicalize_torch_dtype` looks a string up on `torch` ([`source::FLASHINFER_CANONICALIZE_DTYPE`]),
/// which has no such attribute: torch's module `__getattr__` raises.
fn nvfp4_kv_string(stage: Stage, via: &'static str) -> Raise {
    raise(
        AttributeError,
        "module 'torch' has no attribute 'nvfp4'",
        stage,
        source::FLASHINFER_CANONICALIZE_DTYPE,
    )
    .via(via)
}
