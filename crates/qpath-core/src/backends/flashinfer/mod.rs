//! One FlashInfer attention group, as vLLM's `FlashInferMetadataBuilder` sees it: `__init__` (cache dtype, query
//! dtypes, decode kernel, start-up errors), then the first mixed batch (`build()`: the prefill TRTLLM decision and the
//! decode route) and the FlashInfer wrappers' `plan()` (which resolve `backend="auto"` and generate the JIT module).
//!
//! One procedure for every release; each release difference is an `if` on [`Release`] next to the line it restates.
//! [`init`] restates `__init__` and [`batch`] the first batch, each as named steps in the source's order
//! (`vllm/v1/attention/backends/flashinfer.py`; each step's doc comment names the statement and its [`source`] line).

mod batch;
mod cudagraph;
mod forward;
mod init;
pub mod library;
mod selection;
pub mod trtllm;

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery};
use crate::attention::{GroupErrorKind, Kernel, Phases, Stage};
use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::release::Release;
use crate::report::{GroupError, GroupReport, KernelChoice};
use crate::source::Cite;
use crate::trace::Trace;

/// FLASHINFER's rules: selection ([`selection`]), the metadata builder ([`resolve_group`]), CUDA graphs
/// ([`cudagraph`]).
pub struct FlashInferRules;

impl BackendRules for FlashInferRules {
    fn class_name(&self) -> &'static str {
        "FlashInferBackend"
    }

    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String> {
        selection::reasons(p, l)
    }

    /// Runs the builder on the group's per-layer KV spec: the query's skip-adjusted cache dtype, the group's heads.
    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let Some(l) = cx.query else { return };
        let spec = GroupSpec {
            quantized: super::is_quantized(&l.kv_cache_dtype),
            spec_dtype: super::unquantized_spec_dtype(&l.kv_cache_dtype, p.model_dtype),
            head_dim: g.head_dim,
            q_heads: g.num_q_heads,
            kv_heads: g.num_kv_heads,
            sliding_window: g.sliding_window,
            has_sinks: g.has_sinks,
        };
        let out = resolve_group(p, &spec);
        // Runtime failures no Python line raises, which qpath does not model: FlashInfer on SM75 (vLLM 0.20.0–0.23.0
        // select it there), an NVFP4 cache in an FA2/FA3 module of a FlashInfer before 0.6.11.post2.
        let unmodelled = if out.error.is_some() {
            None
        } else {
            library::sm75_paged_prefill_unknown(p, spec.quantized && l.kv_cache_dtype.starts_with("fp8"))
                .or_else(|| library::nvfp4_fa_module_unknown(p, is_nvfp4(p.release, &out.cache_dtype), out.kernel))
        };
        g.cache_dtype = out.cache_dtype;
        g.q_dtype = out.q_dtype;
        g.kernel = out.kernel;
        g.kernels = Phases {
            prefill: out.kernel.prefill.map(KernelChoice::always).into_iter().collect(),
            decode: out.kernel.decode.map(KernelChoice::always).into_iter().collect(),
        };
        if unmodelled.is_some() {
            g.unmodelled = unmodelled;
        }
        g.error = out.error;
        g.phase_errors = out.phase_errors;
        g.warnings = out.trace.warnings;
        g.logs = out.trace.logs;
        g.log_records = out.trace.records;
        g.trace.extend(out.trace.steps);
    }

    fn cudagraph_support(&self, p: &Platform, g: &GroupReport, model_q_heads: u32, non_causal: bool) -> CgDecision {
        cudagraph::support(p, g, model_q_heads, non_causal)
    }
    /// `FlashInferBackend.get_supported_kernel_block_sizes`: up to 1024 for GQA on the SM100 family where trtllm-gen
    /// can be used, else [16, 32, 64]; before 0.24.0 a plain `return [16, 32, 64]` on every GPU
    /// ([`crate::source::FI_KERNEL_BLOCK_SIZES`], 0.23.0 flashinfer.py:341).
    fn kernel_block_sizes(&self, p: &Platform, qo: u32, kv: u32, t: &mut Trace) -> Option<KernelSizes> {
        let old = p.release < Release::V0_24_0;
        let large = !old && qo / kv > 1 && p.is_family(100) && trtllm::can_use(p, qo, kv, false);
        t.step(
            Some(&crate::source::FI_KERNEL_BLOCK_SIZES),
            "FlashInfer kernel block sizes",
            if old {
                "[16, 32, 64] on every GPU (no trtllm-gen large pages before 0.24.0)".into()
            } else if large {
                format!(
                    "[16, 32, 64, 128, 256, 512, 1024]: GQA ({qo} query / {kv} KV heads per rank) on the SM100 \
                     family with trtllm-gen usable (pages >= 128 run on trtllm-gen only)"
                )
            } else {
                "[16, 32, 64] (pages >= 128 only for GQA on the SM100 family with trtllm-gen usable)".into()
            },
        );
        Some(KernelSizes::Exact(if large {
            vec![16, 32, 64, 128, 256, 512, 1024]
        } else {
            vec![16, 32, 64]
        }))
    }
}

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
    pub phase_errors: Phases<Option<GroupError>>,
    pub trace: Trace,
}

struct Run<'a> {
    p: &'a Platform,
    g: &'a GroupSpec,
    t: Trace,
    cache_dtype: String,
    q: Phases<Option<TorchDtype>>,
    kernel: Phases<Option<Kernel>>,
    /// Each phase's own first error (plan, JIT module, forward), recorded so the other phase still runs.
    phase_err: Phases<Option<Raise>>,
}

#[derive(Clone)]
/// An error the real code raises: `__init__` and `build()` errors stop the group; a phase's error stops that phase.
struct Raise {
    kind: GroupErrorKind,
    message: String,
    stage: Stage,
    cite: Cite,
    /// The call that reaches the raising statement (a traceback's last frames).
    raised_in: &'static str,
}

fn raise(kind: GroupErrorKind, message: impl Into<String>, stage: Stage, cite: Cite) -> Raise {
    Raise {
        kind,
        message: message.into(),
        stage,
        cite,
        raised_in: match stage {
            Stage::Build => "FlashInferMetadataBuilder.build",
            _ => "FlashInferMetadataBuilder.__init__",
        },
    }
}

impl Raise {
    /// The call path of a phase's error (`BatchPrefillWithPagedKVCacheWrapper.plan → gen_batch_prefill_module`).
    fn via(mut self, raised_in: &'static str) -> Self {
        self.raised_in = raised_in;
        self
    }

    fn report(&self, p: &Platform) -> GroupError {
        GroupError {
            kind: self.kind,
            message: self.message.clone(),
            stage: self.stage,
            source: self.cite.at_with(p.release, p.flashinfer).map(|s| s.short()),
            raised_in: self.raised_in.to_string(),
        }
    }
}

/// Runs the builder for one group.
pub fn resolve_group(p: &Platform, g: &GroupSpec) -> GroupOutcome {
    let mut run = Run {
        p,
        g,
        t: Trace {
            flashinfer: p.flashinfer,
            ..Trace::new(p.release)
        },
        cache_dtype: String::new(),
        q: Phases::default(),
        kernel: Phases::default(),
        phase_err: Phases::default(),
    };
    let stopped = run.all().err();
    let phase_errors = Phases {
        prefill: run.phase_err.prefill.as_ref().map(|r| r.report(p)),
        decode: run.phase_err.decode.as_ref().map(|r| r.report(p)),
    };
    let first = match stopped {
        Some(r) => Some(r),
        None => run.first_phase_error(),
    };
    let error = first.map(|r| {
        run.t
            .step(Some(&r.cite), format!("raises {}", r.kind), shown(&r.message).to_string());
        r.report(p)
    });
    GroupOutcome {
        cache_dtype: run.cache_dtype,
        q_dtype: run.q,
        kernel: run.kernel,
        error,
        phase_errors,
        trace: run.t,
    }
}

/// `is_kvcache_nvfp4` and its twins (the builder, `get_q_data_type`, the attention layer, `supports_kv_cache_dtype`):
/// `== "nvfp4"` before 0.28.0, `.startswith("nvfp4")` from it (when `nvfp4_4over6` arrived).
pub(crate) fn is_nvfp4(r: Release, cache_dtype: &str) -> bool {
    if r < Release::V0_28_0 {
        cache_dtype == "nvfp4"
    } else {
        cache_dtype.starts_with("nvfp4")
    }
}

/// What the report shows for an error's text: the message, or that the assert had none.
fn shown(message: &str) -> &str {
    if message.is_empty() {
        crate::attention::BARE_ASSERT
    } else {
        message
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

    /// The memory profile's forward, `__init__` at engine start, then the first batches of each phase.
    fn all(&mut self) -> Result<(), Raise> {
        // The layer's cache dtype string, as `__init__` will take it (the profile run raises before `__init__`).
        self.cache_dtype = if self.g.quantized {
            self.p.global_kv.clone()
        } else {
            "auto".into()
        };
        self.profile_run()?;
        let init = self.init()?;
        self.first_batch(init)
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
