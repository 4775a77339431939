//! One FlashInfer attention group, as vLLM's `FlashInferMetadataBuilder` sees it: `__init__` (cache dtype, query
//! dtypes, decode kernel, start-up errors), then the first mixed batch (`build()`: the prefill TRTLLM decision and the
//! decode route) and the FlashInfer wrappers' `plan()` (which resolve `backend="auto"` and generate the JIT module).
//!
//! One procedure for every release; each release difference is an `if` on [`Release`] next to the line it restates.

use crate::dtype::TorchDtype;
use crate::flashinfer;
use crate::platform::Platform;
use crate::release::Release::{self, *};
use crate::report::GroupErrorKind::{self, AssertionError, NotImplementedError, RuntimeError, ValueError};
use crate::report::{GroupError, Kernel, Phases, Stage};
use crate::source::{self, Cite};
use crate::trace::Trace;
use crate::trtllm;

/// What the builder is constructed from: one attention group's per-layer KV spec and heads (per tensor-parallel rank).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupSpec {
    /// The layer's (skip-adjusted) `kv_cache_dtype` is not `auto`/`float16`/`bfloat16`: `kv_quant_mode != NONE`.
    pub quantized: bool,
    /// `kv_cache_spec.dtype` for an unquantized group (the model dtype, or `--kv-cache-dtype float16/bfloat16`).
    pub spec_dtype: TorchDtype,
    pub head_dim: u32,
    pub q_heads: u32,
    pub kv_heads: u32,
    pub sliding_window: Option<u32>,
    pub has_sinks: bool,
}

/// What the builder decided for the group.
#[derive(Debug)]
pub struct GroupOutcome {
    pub cache_dtype: String,
    pub q_dtype: Phases<Option<TorchDtype>>,
    pub kernel: Phases<Option<Kernel>>,
    pub error: Option<GroupError>,
    pub trace: Trace,
}

struct Run<'a> {
    p: &'a Platform,
    g: &'a GroupSpec,
    t: Trace,
    cache_dtype: String,
    q: Phases<Option<TorchDtype>>,
    kernel: Phases<Option<Kernel>>,
}

/// An error the real code raises, stopping the group where it fires.
struct Raise {
    kind: GroupErrorKind,
    message: String,
    stage: Stage,
    cite: Cite,
}

fn raise(kind: GroupErrorKind, message: impl Into<String>, stage: Stage, cite: Cite) -> Raise {
    Raise {
        kind,
        message: message.into(),
        stage,
        cite,
    }
}

/// Runs the builder for one group.
pub fn resolve_group(p: &Platform, g: &GroupSpec) -> GroupOutcome {
    let mut run = Run {
        p,
        g,
        t: Trace::new(p.release),
        cache_dtype: String::new(),
        q: Phases::default(),
        kernel: Phases::default(),
    };
    let error = run.all().err().map(|r| {
        let src = r.cite.at(p.release).map(|s| s.short());
        let shown = if r.message.is_empty() {
            "(a bare assert, no message)".to_string()
        } else {
            r.message.clone()
        };
        run.t.step(Some(&r.cite), format!("raises {}", r.kind), shown);
        GroupError {
            kind: r.kind,
            message: r.message,
            stage: r.stage,
            source: src,
        }
    });
    GroupOutcome {
        cache_dtype: run.cache_dtype,
        q_dtype: run.q,
        kernel: run.kernel,
        error,
        trace: run.t,
    }
}

/// `get_dtype_for_flashinfer`: the FP8 dtype of an fp8* string (NVFP4 is handled before it is called).
fn fp8_of(cache_dtype: &str) -> Option<TorchDtype> {
    match cache_dtype {
        "fp8" | "fp8_e4m3" => Some(TorchDtype::Float8E4m3fn),
        "fp8_e5m2" => Some(TorchDtype::Float8E5m2),
        _ => None,
    }
}

impl Run<'_> {
    fn r(&self) -> Release {
        self.p.release
    }

    fn all(&mut self) -> Result<(), Raise> {
        let init = self.init()?;
        self.first_batch(init)
    }

    /// `__init__`. Returns the state `build()` reads.
    fn init(&mut self) -> Result<Init, Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        let model = p.model_dtype;

        // 1. The group's cache dtype: the global string when quantized, "auto" otherwise.
        let mut nvfp4 = false;
        let mut nvfp4_fa2 = false;
        let kv: TorchDtype;
        if g.quantized {
            self.cache_dtype = p.global_kv.clone();
            nvfp4 = if r <= V0_27_0 {
                self.cache_dtype == "nvfp4"
            } else {
                self.cache_dtype.starts_with("nvfp4")
            };
            self.t.step(
                Some(&source::FI_QUANTIZED_GROUP),
                "per-group cache dtype",
                format!(
                    "kv_quant_mode != NONE: cache_dtype = the global --kv-cache-dtype {:?}",
                    self.cache_dtype
                ),
            );
            if nvfp4 {
                self.nvfp4_gate(&mut nvfp4_fa2)?;
                kv = TorchDtype::Uint8;
            } else {
                kv = fp8_of(&self.cache_dtype).ok_or_else(|| {
                    raise(
                        ValueError,
                        format!("Unrecognized dtype: {}", self.cache_dtype),
                        Stage::Init,
                        source::FI_UNRECOGNIZED_DTYPE,
                    )
                })?;
            }
        } else {
            self.cache_dtype = "auto".into();
            self.t.step(
                Some(&source::FI_UNQUANTIZED_GROUP),
                "per-group cache dtype",
                format!(
                    "kv_quant_mode == NONE (unquantized or skipped layers): cache_dtype = \"auto\", KV dtype {}",
                    g.spec_dtype
                ),
            );
            if g.spec_dtype != model {
                // `assert self.kv_cache_spec.dtype == self.model_config.dtype` (bare assert, no message).
                self.t.step(
                    Some(&source::FI_UNQUANTIZED_GROUP),
                    "unquantized KV dtype must equal the model dtype",
                    format!("{} != {model}: assertion fails", g.spec_dtype),
                );
                return Err(raise(AssertionError, "", Stage::Init, source::FI_UNQUANTIZED_GROUP));
            }
            kv = g.spec_dtype;
        }

        // 2. Query dtypes.
        let (qp, qd) = self.query_dtypes(kv, nvfp4, nvfp4_fa2);
        self.q = Phases {
            prefill: Some(qp),
            decode: Some(qd),
        };

        // 3. Decode capability and kernel (static for FULL CUDA graphs).
        let mut can_decode = trtllm::can_use(p, g.q_heads, g.kv_heads, false);
        let detail = if p.force_trtllm == Some(false) {
            "use_trtllm_attention is false".to_string()
        } else if !trtllm::supports(p, false) {
            trtllm::supports_reason(p, false)
        } else if g.q_heads.checked_rem(g.kv_heads) != Some(0) {
            format!("{} query heads are not a multiple of {} KV heads", g.q_heads, g.kv_heads)
        } else {
            trtllm::supports_reason(p, false)
        };
        if r >= V0_32_0 && nvfp4_fa2 && !p.is_family(120) && can_decode {
            can_decode = false;
            self.t.step(
                Some(&source::FI_DECODE_CAPABILITY),
                "can_use_trtllm_attention(decode)",
                "NVFP4 on the FA2 path decodes natively off SM12x",
            );
        } else {
            self.t.step(
                Some(&source::FI_DECODE_CAPABILITY),
                "can_use_trtllm_attention(decode)",
                format!("{}: {detail}", if can_decode { "yes" } else { "no" }),
            );
        }

        // Page-size assert (pages above 64 need trtllm-gen with GQA).
        if p.page_size > 64 {
            let gqa = g.q_heads / g.kv_heads.max(1) > 1;
            let ok = if r == V0_24_0 {
                can_decode && gqa
            } else {
                p.is_family(100) && can_decode && gqa
            };
            if !ok {
                return Err(raise(
                    AssertionError,
                    format!("Unexpected FlashInfer page size {} without trtllm-gen GQA", p.page_size),
                    Stage::Init,
                    source::FI_PAGE_SIZE_ASSERT,
                ));
            }
        }

        let mut decode_kernel = if !can_decode {
            None
        } else if r == V0_24_0 {
            // No kernel enum: trtllm_batch_decode_with_kv_cache(backend="auto") = trtllm-gen on major 10.
            Some(Kernel::TrtllmGen)
        } else if p.is_cc(90) || (r >= V0_28_0 && p.is_family(120)) {
            Some(Kernel::Xqa)
        } else {
            Some(Kernel::TrtllmGen)
        };
        if let Some(k) = decode_kernel {
            let cite = if r == V0_24_0 {
                &source::FI_DECODE_KERNEL
            } else {
                &source::FI_XQA_KERNEL_CHOICE
            };
            self.t.step(
                Some(cite),
                "decode kernel",
                match k {
                    Kernel::Xqa => format!("{} → XQA (TRTLLM API)", if p.is_cc(90) { "SM90" } else { "SM12x" }),
                    _ => "SM100 family → trtllm-gen (TRTLLM API)".to_string(),
                },
            );
        }
        if decode_kernel == Some(Kernel::Xqa) && r >= V0_29_0 && !(16..=256).contains(&g.head_dim) | (g.head_dim % 16 != 0) {
            self.t.warn(format!(
                "FlashInfer XQA decode does not support head_dim={}; reverting this KV-cache group to native FlashInfer decode.",
                g.head_dim
            ));
            self.t.step(
                Some(&source::FI_XQA_HEAD_DIM_FALLBACK),
                "XQA head_dim check",
                format!("head_dim {} outside [16, 256]: native decode", g.head_dim),
            );
            decode_kernel = None;
        }
        if decode_kernel == Some(Kernel::Xqa) && r >= V0_26_0 && p.dcp > 1 {
            self.t.warn("FlashInfer XQA decode does not support returning LSE and therefore does not support DCP, reverting to native FlashInfer decode.");
            self.t.step(
                Some(&source::FI_XQA_DCP_FALLBACK),
                "XQA and DCP",
                format!("decode_context_parallel_size {}: native decode", p.dcp),
            );
            decode_kernel = None;
        }

        // SM90 + sliding window (0.25.0–0.29.0).
        if (V0_25_0Prefix..=V0_29_0).contains(&r) && p.is_cc(90) && g.sliding_window.is_some() {
            return Err(raise(
                NotImplementedError,
                "FlashInfer backend on SM90 currently crashes with sliding-window attention layers. Use the default attention backend.",
                Stage::Init,
                source::FI_SM90_SLIDING_WINDOW,
            ));
        }

        // Sinks.
        if g.has_sinks {
            let unsupported = if r == V0_24_0 {
                !trtllm::can_use(p, g.q_heads, g.kv_heads, false)
            } else {
                (r >= V0_32_0 && nvfp4_fa2) || !trtllm::supports_sink(p)
            };
            if unsupported {
                return Err(raise(
                    NotImplementedError,
                    "FlashInfer backend currently does not support attention sinks, please use trtllm on blackwell or flash attention on earlier GPUs.",
                    Stage::Init,
                    source::FI_SINKS_INIT,
                ));
            }
        }

        if r >= V0_25_0Prefix {
            let backend = decode_kernel.map_or("flashinfer-native", |k| k.name());
            let kv_repr = if nvfp4 { "nvfp4".to_string() } else { kv.torch_repr() };
            self.t.info(format!(
                "FlashInfer resolved query dtypes: prefill={}, decode={}, decode_backend={backend}, kv_cache_dtype={kv_repr}, arch={}",
                qp.torch_repr(),
                qd.torch_repr(),
                p.arch()
            ));
        }
        Ok(Init {
            kv,
            nvfp4,
            nvfp4_fa2,
            decode_kernel,
        })
    }

    /// The NVFP4 gates of `__init__`.
    fn nvfp4_gate(&mut self, nvfp4_fa2: &mut bool) -> Result<(), Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        if r == V0_24_0 {
            if !p.is_family(100) {
                return Err(raise(
                    ValueError,
                    "--kv-cache-dtype nvfp4 requires sm100f, please try a different dtype or remove",
                    Stage::Init,
                    source::FI_NVFP4_SM100_ONLY,
                ));
            }
            return Ok(());
        }
        let trtllm_path_missing = p.force_trtllm == Some(false) || !trtllm::supports(p, true) || !trtllm::supports(p, false);
        let message = if r <= V0_27_0 {
            "--kv-cache-dtype nvfp4 requires the SM100 trtllm-gen FlashInfer path.".to_string()
        } else {
            format!(
                "--kv-cache-dtype {} requires the SM100 trtllm-gen FlashInfer path.",
                self.cache_dtype
            )
        };
        if r >= V0_32_0 {
            *nvfp4_fa2 = matches!(p.major(), 8 | 9 | 12);
            if *nvfp4_fa2 {
                self.t.step(
                    Some(&source::FI_NVFP4_FA2_DCP),
                    "NVFP4 path",
                    format!("{} is in family 80/90/120: NVFP4 on FA2", p.arch()),
                );
                if p.dcp > 1 {
                    return Err(raise(
                        NotImplementedError,
                        "The DCP prefill wrapper cannot read NVFP4 block scales.",
                        Stage::Init,
                        source::FI_NVFP4_FA2_DCP,
                    ));
                }
                if g.head_dim == 64 {
                    return Err(raise(
                        NotImplementedError,
                        "fa2 prefill misreads NVFP4 at head_size 64.",
                        Stage::Init,
                        source::FI_NVFP4_FA2_HEAD64,
                    ));
                }
                return Ok(());
            }
        }
        if trtllm_path_missing {
            return Err(raise(ValueError, message, Stage::Init, source::FI_NVFP4_SM100_ONLY));
        }
        Ok(())
    }

    /// The query dtypes: 0.24.0's single `q_data_type`; the pre-fix `get_q_data_type` reading the global cache string;
    /// 0.25.0+'s `get_q_data_type(is_prefill)` reading the group's.
    fn query_dtypes(&mut self, kv: TorchDtype, nvfp4: bool, nvfp4_fa2: bool) -> (TorchDtype, TorchDtype) {
        let (p, g, r) = (self.p, self.g, self.r());
        let model = p.model_dtype;
        if r == V0_24_0 {
            let can = trtllm::can_use(p, g.q_heads, g.kv_heads, false);
            let q = if can && !p.disable_q_quant {
                if nvfp4 {
                    TorchDtype::Float8E4m3fn
                } else {
                    kv
                }
            } else {
                model
            };
            let why = if !can {
                "can_use_trtllm_attention is false: the model dtype".to_string()
            } else if p.disable_q_quant {
                "disable_flashinfer_q_quantization: the model dtype".to_string()
            } else if nvfp4 {
                "TRTLLM usable and NVFP4 cache: float8_e4m3fn".to_string()
            } else {
                format!("TRTLLM usable: the group's KV dtype {kv}")
            };
            self.t.step(
                Some(&source::FI_Q_DTYPE_INIT),
                "q_data_type (one for both phases)",
                format!("{q}: {why}"),
            );
            return (q, q);
        }
        let prefix = r.is_prefix();
        let phase = |is_prefill: bool, t: &mut Trace| -> TorchDtype {
            let ph = trtllm::phase(is_prefill);
            let rule = format!("get_q_data_type(is_prefill={})", if is_prefill { "True" } else { "False" });
            // The pre-fix builder read the global string; the fix reads the group's.
            let c: &str = if prefix { &p.global_kv } else { &self.cache_dtype };
            let reads = if prefix {
                "the global cache dtype"
            } else {
                "the group's cache dtype"
            };
            if p.disable_q_quant {
                t.step(
                    Some(&source::FI_Q_STEP_DISABLED),
                    rule,
                    format!("{ph}: disable_flashinfer_q_quantization → {model}"),
                );
                return model;
            }
            let xqa_arch = p.is_cc(90) || (r >= V0_28_0 && p.is_family(120));
            if xqa_arch && !is_prefill && p.force_trtllm != Some(false) && c.starts_with("fp8") {
                t.step(
                    Some(&source::FI_Q_STEP_XQA_DECODE),
                    rule,
                    format!(
                        "{ph}: {} with {reads} {c:?} and TRTLLM not forced off → {model} (XQA needs a 16-bit query)",
                        p.arch()
                    ),
                );
                return model;
            }
            if c.starts_with("fp8") {
                let fp8 = fp8_of(c).unwrap_or(TorchDtype::Float8E4m3fn);
                if prefix {
                    t.step(
                        Some(&source::FI_Q_STEP_FP8),
                        rule,
                        format!("{ph}: {reads} {c:?} starts with fp8 → {fp8} on every architecture (the bug #47485 fixed)"),
                    );
                    return fp8;
                }
                let quantizes = p.is_cc(90) || p.is_family(100);
                let q = if quantizes { fp8 } else { model };
                t.step(
                    Some(&source::FI_Q_STEP_FP8),
                    rule,
                    if quantizes {
                        format!("{ph}: {reads} {c:?} on {} (SM90 / SM100 family) → {q}", p.arch())
                    } else {
                        format!("{ph}: {reads} {c:?} on {}, not SM90 or the SM100 family → {q}", p.arch())
                    },
                );
                return q;
            }
            let is_nvfp4 = if r <= V0_27_0 { c == "nvfp4" } else { c.starts_with("nvfp4") };
            if is_nvfp4 {
                let q = if r >= V0_32_0 && nvfp4_fa2 {
                    model
                } else {
                    TorchDtype::Float8E4m3fn
                };
                t.step(Some(&source::FI_Q_STEP_NVFP4), rule, format!("{ph}: NVFP4 cache → {q}"));
                return q;
            }
            let q = g.spec_dtype;
            t.step(
                Some(&source::FI_Q_STEP_SPEC_DTYPE),
                rule,
                format!("{ph}: {reads} {c:?} → the KV spec dtype {q}"),
            );
            q
        };
        let qp = phase(true, &mut self.t);
        let qd = phase(false, &mut self.t);
        (qp, qd)
    }

    /// The first mixed batch: `build()` then the wrappers' `plan()`.
    fn first_batch(&mut self, init: Init) -> Result<(), Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        let mut qp = self.q.prefill.unwrap_or(p.model_dtype);
        let mut qd = self.q.decode.unwrap_or(p.model_dtype);

        // Prefill: use_trtllm_attention(is_prefill=True); pages >= 128 force it.
        let force = if p.page_size >= 128 { Some(true) } else { p.force_trtllm };
        let cache_dtype = self.cache_dtype.clone();
        let args = trtllm::UseArgs {
            q_heads: g.q_heads,
            kv_heads: g.kv_heads,
            num_tokens: PREFILL_TOKENS,
            dcp_world_size: p.dcp,
            kv_cache_dtype: &cache_dtype,
            q_dtype: qp,
            is_prefill: true,
            force,
            has_sinks: g.has_sinks,
            has_spec: false,
        };
        let prefill_trtllm = trtllm::use_trtllm(p, &mut self.t, &args);

        // Decode route: the static kernel, if any (0.24.0–0.25.x also require no DCP).
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

        let all_trtllm = prefill_trtllm && decode_trtllm;
        if !all_trtllm {
            if g.has_sinks {
                let dedicated_xqa =
                    (V0_28_0..=V0_29_0).contains(&r) && p.is_family(120) && init.decode_kernel == Some(Kernel::Xqa);
                let text_old = "FlashInfer backend currently does not support attention sinks, please use trtllm on blackwell or flash attention on earlier GPUs.";
                let fires = if r <= V0_27_0 {
                    Some(text_old)
                } else if r <= V0_29_0 {
                    (!dedicated_xqa || p.dcp > 1).then_some(text_old)
                } else if r <= V0_31_0 {
                    (p.dcp > 1).then_some("FlashInfer BatchDCPPrefillWrapper and MultiLevelCascadeAttentionWrapper do not support attention sinks. Please use TRTLLM on Blackwell or FlashAttention on earlier GPUs.")
                } else {
                    (p.dcp > 1).then_some("FlashInfer BatchDCPPrefillWrapper does not support attention sinks. Please use TRTLLM on Blackwell or FlashAttention on earlier GPUs.")
                };
                if let Some(text) = fires {
                    return Err(raise(NotImplementedError, text, Stage::Build, source::FI_SINKS_BUILD));
                }
            }
            if r == V0_24_0 && (qp != p.model_dtype) {
                qp = p.model_dtype;
                qd = p.model_dtype;
                self.q = Phases {
                    prefill: Some(qp),
                    decode: Some(qd),
                };
                self.t.step(
                    Some(&source::FI_STICKY_Q_RESET),
                    "q_data_type reset",
                    format!(
                        "the batch is not all TRTLLM: q_data_type = {} for this builder from now on",
                        p.model_dtype
                    ),
                );
            }
        }

        // Prefill plan.
        if prefill_trtllm {
            if init.nvfp4 && !qp.is_fp8() {
                return Err(raise(
                    ValueError,
                    "NVFP4 KV cache requires FP8 quantized queries for trtllm-gen prefill. Set disable_flashinfer_q_quantization=False.",
                    Stage::PrefillPlan,
                    source::FI_PREFILL_USE_TRTLLM,
                ));
            }
            self.kernel.prefill = Some(Kernel::TrtllmGen);
        } else {
            self.kernel.prefill = Some(self.native_prefill(&init, qp)?);
        }

        // Decode plan.
        if decode_trtllm {
            let k = init.decode_kernel.unwrap_or(Kernel::TrtllmGen);
            self.kernel.decode = Some(k);
            if k == Kernel::Xqa {
                if let Some((kind, message)) = flashinfer::xqa_rejects(p, qd, g.head_dim) {
                    return Err(raise(kind, message, Stage::DecodePlan, source::FLASHINFER_XQA_Q_DTYPE));
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
            self.kernel.decode = Some(k);
        } else {
            self.kernel.decode = Some(self.native_decode(&init, qd)?);
        }
        let trtllm_gen = self.kernel.prefill == Some(Kernel::TrtllmGen) || self.kernel.decode == Some(Kernel::TrtllmGen);
        if trtllm_gen && p.cc.major == 10 && !matches!(p.cc.minor, 0 | 3) {
            self.t.unverified(
                format!("vLLM's SM100-family gates pass at {}, but FlashInfer's trtllm-gen kernels are built for sm_100a/sm_103a; expect them to fail to load (Jetson Thor reports 10.1 before CUDA 13; derived, not run)", p.cc),
            );
        }
        Ok(())
    }

    /// vLLM quantizes a query slice with `scaled_fp8_quant`, which always produces `current_platform.fp8_dtype()`
    /// (e4m3); a wrapper planned for an e5m2 query then rejects it on its first run (`_check_cached_qkv_data_type`).
    /// Derived from the source; a third-party H100 log shows exactly this message.
    fn e5m2_query_check(&mut self, q: TorchDtype, is_prefill: bool) -> Result<(), Raise> {
        if q != TorchDtype::Float8E5m2 {
            return Ok(());
        }
        let stage = if is_prefill { Stage::PrefillPlan } else { Stage::DecodePlan };
        Err(raise(
            ValueError,
            "The dtype of q torch.float8_e4m3fn does not match the q_data_type torch.float8_e5m2 specified in plan function.",
            stage,
            source::FLASHINFER_CHECK_QKV_DTYPE,
        ))
    }

    fn fa2_checks(&mut self, init: &Init, q: TorchDtype, is_prefill: bool) -> Result<(), Raise> {
        let stage = if is_prefill { Stage::PrefillPlan } else { Stage::DecodePlan };
        if q.is_fp8() {
            return Err(raise(
                AssertionError,
                flashinfer::FA2_FP8_ASSERT,
                stage,
                source::FLASHINFER_FA2_FP8_ASSERT,
            ));
        }
        if let Some(majors) = flashinfer::fa2_large_head_majors(self.p, init.kv, self.g.head_dim, is_prefill) {
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
                ));
            }
        }
        Ok(())
    }

    fn native_prefill(&mut self, init: &Init, q: TorchDtype) -> Result<Kernel, Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        let nvfp4_trtllm = init.nvfp4 && !init.nvfp4_fa2;
        let sink_wrapper = g.has_sinks && ((r >= V0_28_0 && p.is_family(120)) || (r >= V0_30_0 && p.is_cc(90)));
        if p.dcp > 1 {
            self.t.step(
                Some(&source::FI_DCP_PREFILL_WRAPPER),
                "prefill wrapper",
                "BatchDCPPrefillWrapper (FlashInfer default backend \"auto\")",
            );
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
        } else if nvfp4_trtllm || (init.nvfp4 && r < V0_32_0) {
            self.t.step(
                Some(&source::FI_PREFILL_WRAPPER),
                "prefill wrapper",
                "BatchPrefillWithPagedKVCacheWrapper(backend=\"trtllm-gen\") for NVFP4",
            );
            return Ok(Kernel::TrtllmGen);
        } else {
            self.t.step(
                Some(&source::FI_PREFILL_WRAPPER),
                "prefill wrapper",
                "BatchPrefillWithPagedKVCacheWrapper(backend=\"auto\")",
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

    fn native_decode(&mut self, init: &Init, q: TorchDtype) -> Result<Kernel, Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        let nvfp4_trtllm = init.nvfp4 && !init.nvfp4_fa2;
        if nvfp4_trtllm || (init.nvfp4 && r < V0_32_0) {
            self.t.step(
                Some(&source::FI_DECODE_WRAPPER),
                "decode wrapper",
                "BatchDecodeWithPagedKVCacheWrapper(backend=\"trtllm-gen\") for NVFP4",
            );
            return Ok(Kernel::TrtllmGen);
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
                "BatchDecodeWithPagedKVCacheWrapper(use_tensor_cores=True, backend=\"auto\")",
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

/// The prefill tokens of the modelled first batch (`use_trtllm_attention` reads the count only for decodes).
const PREFILL_TOKENS: u32 = 512;

/// What `__init__` leaves for `build()`.
struct Init {
    kv: TorchDtype,
    nvfp4: bool,
    nvfp4_fa2: bool,
    decode_kernel: Option<Kernel>,
}
