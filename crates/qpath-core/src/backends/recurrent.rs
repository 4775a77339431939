//! The recurrent-state backends of hybrid models' linear-attention and Mamba layers (GDN_ATTN, MAMBA2, MAMBA1,
//! LINEAR, SHORT_CONV): they are never selected by `get_attn_backend` (a layer's `mamba_type` names one), so they have
//! no selection reasons; their CUDA-graph support is their builders' class attributes. What their layers run per
//! phase (`docs/source-notes/recurrent-kernels.md` restates the statements per release):
//!
//! - GDN_ATTN (Qwen3-Next's gated delta net, `model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py`): at layer
//!   init `ChunkGatedDeltaRule` resolves the prefill kernel ([`gdn_prefill`]: FlashInfer's, the in-tree CuTe DSL one,
//!   or FLA's Triton `chunk_gated_delta_rule`) and logs it; the layer reads `VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE`
//!   and (0.28.0+) `VLLM_GDN_DECODE_KERNEL`; decodes run `fused_recurrent_gated_delta_rule_packed_decode` or
//!   `fused_sigmoid_gating_delta_rule_update` per batch, and (0.29.0+, a non-interleaved model such as Qwen3.5 whose
//!   fused CUDA decode is supported, with a speculative config) batches of speculative decodes only run
//!   `fused_gdn_decode_post_conv_mtp` (`docs/source-notes/gdn-decode-qwen3_5.md`). q, k, v are the model dtype;
//!   float32 fails FLA's prefill.
//! - MAMBA2 (`mamba_mixer2.py`): the SSD chunk scan for prefills, `selective_state_update` for decodes from the SSU
//!   backend `--mamba-backend` names (Triton, or FlashInfer's), chosen when the KV cache is initialised.
//! - MAMBA1, LINEAR, SHORT_CONV: the kernel names per phase only (qpath builds no model with such layers).

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery, Raise};
use crate::attention::{Backend, CgSupport, GroupErrorKind, Kernel, Phases, Stage, QPATH_LIMIT};
use crate::dtype::TorchDtype;
use crate::model::{HybridSpec, HybridState, VllmModel};
use crate::platform::Platform;
use crate::release::Release::*;
use crate::report::{GroupError, GroupReport, KernelChoice};
use crate::source::{self, Cite};
use crate::trace::Trace;

/// What a recurrent group's rules read beyond the platform: the model's recurrent layers, the flags and environment
/// variables their layers and the SSU dispatch read, and the state dtypes the block-size alignment derived.
pub struct RecurrentInputs<'a> {
    pub spec: &'a HybridSpec,
    pub layers: &'a [u32],
    /// `--gdn-prefill-backend` as given (`None`: unset, `additional_config` has no `gdn_prefill_backend`: "auto").
    pub gdn_prefill_backend: Option<&'a str>,
    /// `--mamba-backend` as given (`None`: `MambaConfig.backend`'s default, `TRITON`).
    pub mamba_backend: Option<&'a str>,
    /// `--mamba-ssu-algorithm` (0.27.0+; `None`: unset).
    pub mamba_ssu_algorithm: Option<&'a str>,
    /// `--use-replayssm` (0.27.0+).
    pub use_replayssm: bool,
    /// `VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE` as the command line sets it (`None`: unset, vLLM's default `"1"`).
    pub packed_decode_env: Option<&'a str>,
    /// `VLLM_GDN_DECODE_KERNEL` as the command line sets it (`None`: not in the environment).
    pub gdn_decode_kernel_env: Option<&'a str>,
    /// A `--speculative-config` (the layers' `speculative_config is not None`).
    pub speculative: bool,
    /// Its `num_speculative_tokens` (0 without one).
    pub num_speculative_tokens: u32,
    /// The mamba cache mode the engine settled on (`none`, `all`, `align`).
    pub mamba_cache_mode: &'a str,
    /// The conv and temporal (ssm) state dtypes (`MAMBA_STATE_DTYPE`); `None` when qpath could not read them.
    pub state: Option<(TorchDtype, TorchDtype)>,
}

/// What a recurrent layer runs: the procedure of its backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Gdn,
    Mamba2,
    Mamba1,
    Linear,
    ShortConv,
}

/// One recurrent backend's rules: its class, its builder's class attribute and its layers' procedure.
pub struct Recurrent {
    backend: Backend,
    kind: Kind,
    class_name: &'static str,
    cudagraph: (CgSupport, &'static Cite, &'static str),
}

pub const GDN_ATTN: Recurrent = Recurrent {
    backend: Backend::GdnAttn,
    kind: Kind::Gdn,
    class_name: "GDNAttentionBackend",
    cudagraph: (CgSupport::UniformBatch, &source::CG_GDN_SUPPORT, "the class attribute"),
};
pub const MAMBA2: Recurrent = Recurrent {
    backend: Backend::Mamba2,
    kind: Kind::Mamba2,
    class_name: "Mamba2AttentionBackend",
    cudagraph: MAMBA_CG,
};
pub const MAMBA1: Recurrent = Recurrent {
    backend: Backend::Mamba1,
    kind: Kind::Mamba1,
    class_name: "Mamba1AttentionBackend",
    cudagraph: MAMBA_CG,
};
pub const SHORT_CONV: Recurrent = Recurrent {
    backend: Backend::ShortConv,
    kind: Kind::ShortConv,
    class_name: "ShortConvAttentionBackend",
    cudagraph: MAMBA_CG,
};
pub const LINEAR: Recurrent = Recurrent {
    backend: Backend::Linear,
    kind: Kind::Linear,
    class_name: "LinearAttentionBackend",
    cudagraph: (
        CgSupport::UniformSingleTokenDecode,
        &source::CG_LINEAR_SUPPORT,
        "LinearAttentionMetadataBuilder's class attribute (qpath cannot model this: Bailing's builder, UNIFORM_BATCH)",
    ),
};

/// `BaseMambaAttentionMetadataBuilder._cudagraph_support`, which Mamba1, Mamba2 and ShortConv inherit.
const MAMBA_CG: (CgSupport, &Cite, &str) = (
    CgSupport::UniformBatch,
    &source::CG_MAMBA_SUPPORT,
    "BaseMambaAttentionMetadataBuilder's class attribute",
);

impl BackendRules for Recurrent {
    fn class_name(&self) -> &'static str {
        self.class_name
    }

    /// A recurrent backend is not a candidate of `get_attn_backend` (`--attention-backend` cannot name it).
    fn reasons(&self, _p: &Platform, _l: &LayerQuery) -> Vec<String> {
        vec![format!(
            "{}: a recurrent-state backend, not selected per attention layer",
            self.backend
        )]
    }

    /// The recurrent layers' input dtype and kernel per phase, their init errors and log lines, in vLLM's order:
    /// layer init (model construction, before the attention layers select their backend), the memory profile's
    /// warm-up, the KV-cache initialisation (MAMBA2's SSU backend), then the phases.
    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let Some(inp) = cx.recurrent else {
            g.unmodelled = Some(format!(
                "{QPATH_LIMIT}: the {} layers' model, flags and environment were not given to the rules",
                self.backend
            ));
            return;
        };
        let mut t = Trace::new(p.release);
        if let Some((conv, ssm)) = inp.state {
            g.cache_dtype = format!("conv {conv} / ssm {ssm}");
        }
        match self.kind {
            Kind::Gdn => gdn(p, inp, &mut t, g),
            Kind::Mamba2 => mamba2(p, inp, &mut t, g),
            Kind::Mamba1 => mamba1(p, inp, &mut t, g),
            // MiniMax's linear attention: `layers/mamba/linear/minimax_linear_attn.py` from 0.23.0; until 0.22.1 the
            // layer lived in `layers/mamba/linear_attn.py`, which qpath does not cite.
            Kind::Linear if p.release < V0_23_0 => {
                g.unmodelled = Some(format!(
                    "{QPATH_LIMIT}: vLLM {}'s linear-attention layers (model_executor/layers/mamba/linear_attn.py, \
                     before 0.23.0's linear/minimax_linear_attn.py) are not restated",
                    p.release
                ));
            }
            Kind::Linear => fixed(p, (Kernel::LightningAttention, Kernel::LinearDecode), LINEAR_CITES, &mut t, g),
            Kind::ShortConv => fixed(
                p,
                (Kernel::CausalConv1d, Kernel::CausalConv1dUpdate),
                SHORT_CONV_CITES,
                &mut t,
                g,
            ),
        }
        g.warnings = t.warnings;
        g.logs = t.logs;
        g.log_records = t.records;
        g.trace.extend(t.steps);
    }

    fn cudagraph_support(&self, _p: &Platform, _g: &GroupReport, _q_heads: u32, _non_causal: bool) -> CgDecision {
        let (support, cite, why) = self.cudagraph;
        CgDecision {
            support,
            cite,
            why: why.to_string(),
        }
    }
    fn kernel_block_sizes(&self, _p: &Platform, _q_heads: u32, _kv_heads: u32, _t: &mut Trace) -> Option<KernelSizes> {
        None
    }
}

/// Both phases' input dtype: the model (activation) dtype, which no recurrent layer quantizes.
fn model_dtype_inputs(p: &Platform, g: &mut GroupReport) {
    g.q_dtype = Phases {
        prefill: Some(p.model_dtype),
        decode: Some(p.model_dtype),
    };
}

/// The kernel of each phase when every batch of it runs one kernel.
fn one_kernel_each(g: &mut GroupReport, prefill: Kernel, decode: Option<Kernel>) {
    g.kernel = Phases {
        prefill: Some(prefill),
        decode,
    };
    g.kernels.prefill = vec![KernelChoice::always(prefill)];
    if let Some(d) = decode {
        g.kernels.decode = vec![KernelChoice::always(d)];
    }
}

// ---------------------------------------------------------------------------------------------------------------
// GDN_ATTN
// ---------------------------------------------------------------------------------------------------------------

/// The GDN prefill kernel `_resolve_gdn_prefill_backend` makes active on CUDA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GdnPrefill {
    FlashInfer,
    CuteDsl,
    Triton,
}

impl GdnPrefill {
    /// The name `_log_gdn_backend_decision` prints.
    fn chosen(self) -> &'static str {
        match self {
            GdnPrefill::FlashInfer => "FlashInfer",
            GdnPrefill::CuteDsl => "CuteDSL",
            GdnPrefill::Triton => "Triton/FLA",
        }
    }

    fn kernel(self) -> Kernel {
        match self {
            GdnPrefill::FlashInfer => Kernel::GdnChunkFlashInfer,
            GdnPrefill::CuteDsl => Kernel::GdnChunkCuteDsl,
            GdnPrefill::Triton => Kernel::GdnChunkFla,
        }
    }
}

/// `_resolve_gdn_prefill_backend(vllm_config)` on CUDA: what was requested, what the platform supports, the active
/// kernel, or the raise it makes instead.
pub(crate) struct GdnPrefillDecision {
    /// `str(additional_config.get("gdn_prefill_backend", "auto")).strip().lower()`.
    pub requested: String,
    pub supports_flashinfer: bool,
    pub active: GdnPrefill,
    pub raise: Option<Raise>,
}

/// `_resolve_gdn_prefill_backend` on CUDA, every release: 0.33.0 raises for `sycl`, 0.32.0+ for `aiter_flydsl`
/// (a ROCm backend); FlashInfer is possible on SM90 exactly, on the SM10x family with `linear_key_head_dim` 128 and
/// CUDA >= 13 (0.24.0-0.25.x also an intact `nvidia-cutlass-dsl-libs-cu13` install, which qpath assumes), and
/// 0.30.0+ on the SM12x family under the same two conditions; CuTe DSL only where SM10x allows FlashInfer. `auto` or
/// `flashinfer` takes FlashInfer where possible, `cutedsl` CuTe DSL where possible; everything else is Triton/FLA.
pub(crate) fn gdn_prefill(p: &Platform, requested: Option<&str>, head_k_dim: u32) -> GdnPrefillDecision {
    let r = p.release;
    let requested = requested.map_or_else(|| "auto".to_string(), |s| crate::serve::python::py_lower(s.trim()));
    let raise = if r >= V0_33_0 && requested == "sycl" {
        Some(Raise {
            kind: GroupErrorKind::ValueError,
            message: "GDN prefill backend 'sycl' is only supported on XPU.".into(),
            cite: &source::RECURRENT_GDN_SYCL_NOT_XPU,
            raised_in: "ChunkGatedDeltaRule.__init__ → _resolve_gdn_prefill_backend",
        })
    } else if r >= V0_32_0 && requested == "aiter_flydsl" {
        Some(Raise {
            kind: GroupErrorKind::RuntimeError,
            message: "GDN prefill backend 'aiter_flydsl' was requested but it is a ROCm AITER backend and the current \
                      platform is cuda."
                .into(),
            cite: &source::RECURRENT_GDN_AITER_ON_CUDA,
            raised_in: "ChunkGatedDeltaRule.__init__ → _resolve_gdn_prefill_backend",
        })
    } else {
        None
    };
    let blackwell_terms = head_k_dim == 128 && p.cuda.major >= 13;
    let sm100 = p.is_family(100) && blackwell_terms;
    let sm120 = r >= V0_30_0 && p.is_family(120) && blackwell_terms;
    let supports_flashinfer = p.is_cc(90) || sm100 || sm120;
    let supports_cutedsl = sm100;
    let active = if (requested == "flashinfer" || requested == "auto") && supports_flashinfer {
        GdnPrefill::FlashInfer
    } else if requested == "cutedsl" && supports_cutedsl {
        GdnPrefill::CuteDsl
    } else {
        GdnPrefill::Triton
    };
    GdnPrefillDecision {
        requested,
        supports_flashinfer,
        active,
        raise,
    }
}

/// The GDN layers' head dims (`linear_key_head_dim`, `linear_value_head_dim`).
fn gdn_head_dims(spec: &HybridSpec) -> (u32, u32) {
    match spec.state {
        HybridState::Gdn {
            head_k_dim, head_v_dim, ..
        } => (head_k_dim, head_v_dim),
        HybridState::Mamba2 { .. } | HybridState::Mamba1 { .. } => (0, 0),
    }
}

/// GDN_ATTN: layer init (prefill kernel, its logs, the decode environment), the memory profile's warm-up, the phases.
fn gdn(p: &Platform, inp: &RecurrentInputs, t: &mut Trace, g: &mut GroupReport) {
    if p.release < V0_22_0 {
        gdn_before_0_22(p, inp, t, g);
        return;
    }
    let (hk, _) = gdn_head_dims(inp.spec);
    // `_resolve_gdn_prefill_backend` and `_log_gdn_backend_decision` read `linear_key_head_dim` from
    // `model_config.hf_config` in 0.22.x (qwen_gdn_linear_attn.py:180 and :221@0.22.0), from `hf_text_config` from
    // 0.23.0: Qwen3.5's multimodal config carries it only in its text_config, so 0.22.x reads None there (no
    // FlashInfer or CuTe DSL prefill on the SM10x family, and the log says head_k_dim=None).
    let multimodal = inp.spec.model == VllmModel::Qwen3_5 && !inp.spec.architecture.is_some_and(|a| a.ends_with("ForCausalLM"));
    let read = if p.release < V0_23_0 && multimodal { None } else { Some(hk) };
    let hk_text = read.map_or_else(|| "None".to_string(), |h| h.to_string());
    let d = gdn_prefill(p, inp.gdn_prefill_backend, read.unwrap_or(0));
    gdn_prefill_steps(p, &d, &hk_text, t);
    if let Some(raise) = d.raise {
        super::init_error(p, Some(raise), t, g);
        return;
    }
    gdn_prefill_logs(p, &d, &hk_text, t);
    let Some(decode) = gdn_decode_init(p, inp, t, g) else { return };
    gdn_inputs(p, t, g);
    gdn_prefill_kernel(p, inp, &d, t, g);
    gdn_decode_kernels(p, inp, decode, d.active.kernel(), t, g);
}

/// vLLM 0.20.0-0.21.0: the GDN layer is `model_executor/layers/mamba/gdn_linear_attn.py`'s `GatedDeltaNetAttention`
/// (0.22.0 moved it to `gdn/qwen_gdn_linear_attn.py`). Its `ChunkGatedDeltaRule.__init__` (gdn_linear_attn.py:122-157
/// @0.20.0, :138-173@0.21.0) has no `_resolve_gdn_prefill_backend`: FlashInfer is possible only on compute capability
/// 9.0 exactly (no Blackwell GDN prefill, no CuTe DSL kernel); `flashinfer` takes it where possible (else a fallback
/// warning), `triton` never, anything else (`auto`) where possible; then `Using FlashInfer GDN prefill kernel` and a
/// JIT line, or `Using Triton/FLA GDN prefill kernel`, both info. The prefill kernel and its logs are restated; the
/// layer's decode path, its memory-profile warm-up and FLA's float32 assert are not ("cannot model").
fn gdn_before_0_22(p: &Platform, inp: &RecurrentInputs, t: &mut Trace, g: &mut GroupReport) {
    let r = p.release;
    let requested = inp
        .gdn_prefill_backend
        .map_or_else(|| "auto".to_string(), |s| crate::serve::python::py_lower(s.trim()));
    t.step(
        Some(&source::RECURRENT_GDN_REQUEST_OLD),
        "GDN prefill backend requested",
        match inp.gdn_prefill_backend {
            None => "auto: no --gdn-prefill-backend (additional_config has no gdn_prefill_backend)".to_string(),
            Some(_) => format!("--gdn-prefill-backend {requested}: additional_config[\"gdn_prefill_backend\"]"),
        },
    );
    let supports = p.is_cc(90);
    let cc = p.cc;
    t.step(
        Some(&source::RECURRENT_GDN_CHUNK_OP_OLD),
        "GDN prefill kernels possible",
        format!(
            "vLLM {r} (gdn_linear_attn.py): supports_flashinfer = is_cuda() and is_device_capability(90): compute \
             capability {cc} {} (no Blackwell GDN prefill, no CuTe DSL kernel before 0.22.0)",
            if supports {
                "is exactly 9.0: FlashInfer possible"
            } else {
                "is not 9.0: Triton/FLA only"
            }
        ),
    );
    let use_flashinfer = requested != "triton" && supports;
    if requested == "flashinfer" && !supports {
        t.warn(
            &source::RECURRENT_GDN_FALLBACK_WARN_OLD,
            "GDN prefill backend 'flashinfer' is selected but cannot use this kernel on the current platform. Falling \
             back to Triton/FLA.",
        );
    }
    let kernel = if use_flashinfer {
        t.info(&source::RECURRENT_GDN_FI_LOG_OLD, "Using FlashInfer GDN prefill kernel");
        t.info(
            &source::RECURRENT_GDN_FI_JIT_LOG_OLD,
            "FlashInfer GDN prefill kernel is JIT-compiled; first run may take a while to compile. Set \
             `--gdn-prefill-backend triton` to avoid JIT compile time.",
        );
        Kernel::GdnChunkFlashInfer
    } else {
        t.info(&source::RECURRENT_GDN_FLA_LOG_OLD, "Using Triton/FLA GDN prefill kernel");
        Kernel::GdnChunkFla
    };
    t.step(
        Some(&source::RECURRENT_GDN_FORWARD_METHOD_OLD),
        "GDN prefill forward",
        format!(
            "requested {requested}: _forward_method = {}",
            if use_flashinfer {
                "forward_cuda → fi_chunk_gated_delta_rule → flashinfer.gdn_prefill.chunk_gated_delta_rule"
            } else {
                "forward_native → FLA's chunk_gated_delta_rule (Triton)"
            }
        ),
    );
    t.step(
        Some(if use_flashinfer {
            &source::RECURRENT_GDN_FI_CALL_OLD
        } else {
            &source::RECURRENT_GDN_FLA_CALL_OLD
        }),
        "GDN prefill kernel call",
        kernel.call(),
    );
    let limit = format!(
        "{QPATH_LIMIT}: vLLM {r}'s GDN decode path (model_executor/layers/mamba/gdn_linear_attn.py, before 0.22.0's \
         gdn/qwen_gdn_linear_attn.py): its decode kernels, the memory profile's warm-up and a float32 model's prefill \
         are not restated"
    );
    g.unmodelled = Some(limit);
    if p.model_dtype == TorchDtype::Float32 {
        return;
    }
    model_dtype_inputs(p, g);
    g.q_dtype.decode = None;
    g.kernel.prefill = Some(kernel);
    g.kernels.prefill = vec![KernelChoice::always(kernel)];
}

/// `_resolve_gdn_prefill_backend`'s steps: the request, what the platform supports, the pick or the raise.
fn gdn_prefill_steps(p: &Platform, d: &GdnPrefillDecision, hk: &str, t: &mut Trace) {
    t.step(
        Some(&source::RECURRENT_GDN_CHUNK_OP),
        "GDN prefill kernel",
        "QwenGatedDeltaNetAttention.__init__ builds ChunkGatedDeltaRule(), which resolves the prefill kernel at \
         layer init (model construction, before the attention layers select their backend)",
    );
    if d.requested == "auto" {
        t.step(
            Some(&source::GDN_PREFILL_BACKEND),
            "GDN prefill backend requested",
            "auto: no --gdn-prefill-backend (additional_config has no gdn_prefill_backend)",
        );
    } else {
        t.step(
            Some(&source::RECURRENT_GDN_PREFILL_FLAG),
            "GDN prefill backend requested",
            format!(
                "--gdn-prefill-backend {}: additional_config[\"gdn_prefill_backend\"]",
                d.requested
            ),
        );
    }
    if let Some(raise) = &d.raise {
        t.step(
            Some(raise.cite),
            "GDN prefill backend on CUDA",
            format!("{}: not a CUDA backend, _resolve_gdn_prefill_backend raises", d.requested),
        );
        return;
    }
    let cc = p.cc;
    let cuda = p.cuda;
    let (cite, what) = if p.is_cc(90) {
        (
            &source::RECURRENT_GDN_FI_SM90,
            format!("compute capability {cc} is exactly 9.0 (is_device_capability(90)): FlashInfer possible, no other condition"),
        )
    } else if p.is_family(100) {
        (
            &source::RECURRENT_GDN_FI_SM100,
            format!(
                "the SM10x family with linear_key_head_dim {hk} (needs 128) and CUDA {cuda} (get_cuda_runtime_major() \
                 needs >= 13): {}",
                if d.supports_flashinfer {
                    "FlashInfer and CuTe DSL possible"
                } else {
                    "neither FlashInfer nor CuTe DSL"
                }
            ),
        )
    } else if p.is_family(120) && p.release >= V0_30_0 {
        (
            &source::RECURRENT_GDN_FI_SM120,
            format!(
                "the SM12x family with linear_key_head_dim {hk} (needs 128) and CUDA {cuda} (needs >= 13): {} (the \
                 in-tree CuTe DSL kernel targets SM100 only)",
                if d.supports_flashinfer {
                    "FlashInfer possible"
                } else {
                    "FlashInfer not possible"
                }
            ),
        )
    } else {
        (
            &source::RECURRENT_GDN_FI_SM90,
            format!(
                "compute capability {cc}: neither 9.0 nor the SM10x family{}: no FlashInfer or CuTe DSL GDN prefill",
                if p.release >= V0_30_0 { " or the SM12x family" } else { "" }
            ),
        )
    };
    t.step(Some(cite), "GDN prefill kernels possible", what);
    if p.release < V0_26_0 && p.is_family(100) && d.supports_flashinfer {
        t.step(
            Some(&source::RECURRENT_GDN_LIBS_CU13_WARN),
            "nvidia-cutlass-dsl-libs-cu13",
            "FlashInfer's Blackwell GDN also needs an intact nvidia-cutlass-dsl-libs-cu13 install (the SHA-256 of its \
             RECORD files; else a warning and Triton/FLA): qpath assumes an intact install",
        );
    }
    let (cite, why) = match d.active {
        GdnPrefill::FlashInfer => (
            &source::RECURRENT_GDN_PREFILL_PICK,
            format!("requested {} and FlashInfer possible: flashinfer", d.requested),
        ),
        GdnPrefill::CuteDsl => (
            &source::RECURRENT_GDN_CUTEDSL_PICK,
            "requested cutedsl and CuTe DSL possible: cutedsl".to_string(),
        ),
        GdnPrefill::Triton => (
            &source::RECURRENT_GDN_CUTEDSL_PICK,
            format!(
                "requested {}: {}: triton (FLA)",
                d.requested,
                match d.requested.as_str() {
                    "auto" | "flashinfer" => "FlashInfer not possible here",
                    "cutedsl" => "CuTe DSL not possible here",
                    _ => "no other kernel requested",
                }
            ),
        ),
    };
    t.step(Some(cite), "GDN prefill backend", why);
}

/// `ChunkGatedDeltaRule.__init__`'s log lines, once per process: the fallback warning when the requested kernel is
/// not the active one, `Using … GDN prefill kernel`, and on SM90 FlashInfer's JIT warning.
fn gdn_prefill_logs(p: &Platform, d: &GdnPrefillDecision, hk: &str, t: &mut Trace) {
    let requested_other = matches!(
        (d.requested.as_str(), d.active),
        ("flashinfer", GdnPrefill::CuteDsl | GdnPrefill::Triton) | ("cutedsl", GdnPrefill::FlashInfer | GdnPrefill::Triton)
    );
    if requested_other {
        t.warn(
            &source::RECURRENT_GDN_FALLBACK_WARN,
            format!(
                "GDN prefill backend '{}' is selected but cannot use this kernel on the current platform. Falling back \
                 to Triton/FLA.",
                d.requested
            ),
        );
    }
    t.info(
        &source::RECURRENT_GDN_PREFILL_LOG,
        format!(
            "Using {} GDN prefill kernel (requested={}, head_k_dim={hk}).",
            d.active.chosen(),
            d.requested
        ),
    );
    if d.active == GdnPrefill::FlashInfer && p.is_cc(90) {
        t.warn(
            &source::RECURRENT_GDN_FI_JIT_WARN,
            "FlashInfer GDN prefill is JIT-compiled; first run may take a while. Set --gdn-prefill-backend triton to \
             skip JIT.",
        );
        t.step(
            Some(&source::RECURRENT_GDN_WARMUP_CALL),
            "FlashInfer GDN JIT",
            "the JIT compilation happens at engine start: the memory profile's forward has no attention metadata, so \
             each GDN layer runs _warmup_prefill_kernels (one chunk_gated_delta_rule call on 64 tokens) before the \
             first request",
        );
    }
}

/// What `QwenGatedDeltaNetAttention.__init__` settled for the decodes.
#[derive(Clone, Copy, Debug)]
struct GdnDecode {
    /// `enable_packed_recurrent_decode` (`VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE`).
    packed: bool,
    /// 0.28.0+: `self.gdn_decode_kernel` is still `"cuda"` after `_fused_gdn_decode_unsupported_reason`: 0.28.0-0.31.x
    /// `enable_fused_gdn_decode`, 0.32.0+ `enable_fused_gdn_spec_decode` with a speculative config.
    fused: bool,
}

/// `gqa_interleaved_layout`, the argument the model file builds its GDN layers with: `True` for Qwen3-Next
/// (`qwen3_next.py`), `False` for Qwen3.5 (`qwen3_5.py`, `source::RECURRENT_QWEN3_5_GDN_LAYER`).
fn gqa_interleaved(spec: &HybridSpec) -> bool {
    spec.model != VllmModel::Qwen3_5
}

/// The decode environment `QwenGatedDeltaNetAttention.__init__` reads after the prefill kernel:
/// `VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE` (`bool(int(…))`, default 1), then 0.28.0+ `VLLM_GDN_DECODE_KERNEL`
/// (`cuda` / `triton`, case-insensitive, default `cuda`). With `cuda` the layer asks
/// `_fused_gdn_decode_unsupported_reason` ([`fused_decode_supported`]): never supported for Qwen3-Next (interleaved
/// GQA layout); for Qwen3.5 when the head dims, the gate activation, the model and state dtypes and the GPU allow it.
/// An unsupported `cuda` raises when set explicitly, else falls back to Triton with a log line (0.32.0+: only with a
/// speculative config); then the kernel's log line (0.32.0+: only with a speculative config). `None` when the layer
/// raised (or qpath cannot tell).
fn gdn_decode_init(p: &Platform, inp: &RecurrentInputs, t: &mut Trace, g: &mut GroupReport) -> Option<GdnDecode> {
    let r = p.release;
    let packed = match inp.packed_decode_env.map(crate::serve::py_int_bool) {
        None => true,
        Some(Ok(b)) => b,
        Some(Err(message)) => {
            t.step(
                Some(&source::RECURRENT_ENV_PACKED_DECODE),
                "VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE",
                format!(
                    "{:?}: envs.py reads bool(int(os.getenv(\"VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE\", \"1\"))) when \
                     the layer asks for it; int() raises ValueError",
                    inp.packed_decode_env.unwrap_or_default()
                ),
            );
            g.error = Some(GroupError {
                kind: GroupErrorKind::ValueError,
                message,
                stage: Stage::Init,
                source: None,
                raised_in: "QwenGatedDeltaNetAttention.__init__ → envs.VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE → int()".into(),
            });
            return None;
        }
    };
    t.step(
        Some(&source::RECURRENT_GDN_PACKED_ENABLE),
        "packed recurrent decode",
        match inp.packed_decode_env {
            None => "VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE unset: \"1\", enabled".to_string(),
            Some(v) => format!(
                "VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE={v}: {}",
                if packed { "enabled" } else { "disabled" }
            ),
        },
    );
    if r < V0_28_0 {
        if inp.gdn_decode_kernel_env.is_some() {
            t.step(
                None,
                "VLLM_GDN_DECODE_KERNEL",
                format!("not in vLLM {r}'s vllm/envs.py (0.28.0+): the GDN layers do not read it"),
            );
        }
        return Some(GdnDecode { packed, fused: false });
    }
    let kernel = match inp.gdn_decode_kernel_env {
        None => "cuda".to_string(),
        Some(v) => {
            let lower = crate::serve::python::py_lower(v);
            if lower != "cuda" && lower != "triton" {
                t.step(
                    Some(&source::RECURRENT_ENV_GDN_DECODE_KERNEL),
                    "VLLM_GDN_DECODE_KERNEL",
                    format!("{v:?}: env_with_choices accepts cuda or triton (case-insensitive)"),
                );
                super::init_error(
                    p,
                    Some(Raise {
                        kind: GroupErrorKind::ValueError,
                        message: format!("Invalid value '{v}' for VLLM_GDN_DECODE_KERNEL. Valid options: ['cuda', 'triton']."),
                        cite: &source::RECURRENT_ENV_CHOICES_RAISE,
                        raised_in: "QwenGatedDeltaNetAttention.__init__ → envs.VLLM_GDN_DECODE_KERNEL",
                    }),
                    t,
                    g,
                );
                return None;
            }
            lower
        }
    };
    t.step(
        Some(&source::RECURRENT_GDN_DECODE_KERNEL_ENV),
        "VLLM_GDN_DECODE_KERNEL",
        match inp.gdn_decode_kernel_env {
            None => "unset: \"cuda\" (the fused CUDA decode where supported)".to_string(),
            Some(v) => format!("{v}: {kernel}, set explicitly"),
        },
    );
    let reason = if r < V0_29_0 {
        "the fused CUDA kernel requires a BF16 GDN model with K=V=128, SiLU gating, non-interleaved GQA layout, BF16 \
         convolution cache, BF16 or FP32 recurrent state, and a GPU with compute capability 8.0+"
    } else {
        "the fused CUDA kernel requires a BF16 GDN model with K=V=128, SiLU or sigmoid gating, non-interleaved GQA \
         layout, BF16 convolution cache, BF16 or FP32 recurrent state, and a GPU with compute capability 8.0+"
    };
    let interleaved = gqa_interleaved(inp.spec);
    let mut fused = kernel == "cuda";
    if fused {
        let supported = if interleaved {
            t.step(
                Some(&source::RECURRENT_GDN_FUSED_REASON),
                "fused CUDA GDN decode",
                "unsupported: Qwen3-Next's GDN layers use the interleaved GQA layout (gqa_interleaved_layout=True)",
            );
            false
        } else {
            match fused_decode_supported(p, inp, t) {
                Ok(s) => s,
                Err(why) => {
                    g.unmodelled = Some(why);
                    return None;
                }
            }
        };
        if !supported {
            if inp.gdn_decode_kernel_env.is_some() {
                super::init_error(
                    p,
                    Some(Raise {
                        kind: GroupErrorKind::ValueError,
                        message: format!("VLLM_GDN_DECODE_KERNEL=cuda is not supported: {reason}"),
                        cite: &source::RECURRENT_GDN_DECODE_KERNEL_RAISE,
                        raised_in: "QwenGatedDeltaNetAttention.__init__",
                    }),
                    t,
                    g,
                );
                return None;
            }
            if r < V0_32_0 {
                t.info(
                    &source::RECURRENT_GDN_DECODE_FALLBACK_LOG,
                    format!("Falling back to the Triton GDN decode path: {reason}"),
                );
            } else if inp.speculative {
                t.info(
                    &source::RECURRENT_GDN_DECODE_FALLBACK_LOG,
                    format!("Falling back to the Triton GDN spec decode path: {reason}"),
                );
            }
            fused = false;
        }
    }
    let name = if fused { "cuda" } else { "triton" };
    if r < V0_32_0 {
        t.info(&source::RECURRENT_GDN_DECODE_KERNEL_LOG, format!("GDN decode kernel: {name}"));
    } else if inp.speculative {
        t.info(
            &source::RECURRENT_GDN_DECODE_KERNEL_LOG,
            format!("GDN spec decode kernel: {name}"),
        );
    }
    if interleaved {
        t.step(
            Some(&source::RECURRENT_GDN_DECODE_KERNEL_LOG),
            "GDN decode kernel",
            "triton: the fused CUDA kernel (torch.ops._C.fused_gdn_decode_post_conv_mtp) is never used for Qwen3-Next",
        );
    } else {
        let (what, on) = if r < V0_32_0 {
            ("enable_fused_gdn_decode", fused)
        } else {
            ("enable_fused_gdn_spec_decode", fused && inp.speculative)
        };
        let why = match (fused, r >= V0_32_0, inp.speculative) {
            (false, _, _) => "the layers keep the Triton decode path",
            (true, false, _) => "every forward takes the fused-norm op (whose speculative decodes may run the fused CUDA kernel)",
            (true, true, true) => {
                "a speculative config: forwards take the fused-norm op, whose speculative decodes may run the fused CUDA kernel"
            }
            (true, true, false) => {
                "no speculative config (it needs one): the layers keep the Triton decode path, and no log line"
            }
        };
        t.step(
            Some(&source::RECURRENT_GDN_FUSED_ENABLE),
            "GDN decode kernel",
            format!("{name}: {what} = {}: {why}", if on { "True" } else { "False" }),
        );
    }
    Some(GdnDecode { packed, fused })
}

/// `_fused_gdn_decode_unsupported_reason` (0.28.0+) for a layer built with `gqa_interleaved_layout=False` (Qwen3.5):
/// `head_k_dim` and `head_v_dim` 128, `self.norm.activation` silu (0.29.0+: or sigmoid; the layer's
/// `output_gate_type`, `getattr(config, "output_gate_type", "silu")` with "swish" read as "silu": Qwen3.5's configs
/// have none and qpath reads none, so a config.json saying "sigmoid" is taken as silu), the model dtype
/// bfloat16, the conv state bfloat16 and the recurrent state in `FUSED_GDN_STATE_DTYPES` (float32, bfloat16),
/// `has_device_capability(80)`; then the op must be registered (`hasattr(torch.ops._C,
/// "fused_gdn_decode_post_conv_mtp")`, 0.33.0 `supports_fused_mtp_decode()`), which every released CUDA wheel does
/// (its `vllm/_C_stable_libtorch.abi3.so` carries the op's schema: read in the 0.28.0 and 0.33.0 wheels). `Err`: the
/// state dtypes qpath could not read.
fn fused_decode_supported(p: &Platform, inp: &RecurrentInputs, t: &mut Trace) -> Result<bool, String> {
    let r = p.release;
    let (hk, hv) = gdn_head_dims(inp.spec);
    t.step(
        Some(&source::RECURRENT_QWEN3_5_GDN_LAYER),
        "GDN layer layout",
        "Qwen3_5DecoderLayer builds QwenGatedDeltaNetAttention(gqa_interleaved_layout=False): separate q, k, v, z and \
         b, a projections, not Qwen3-Next's interleaved GQA layout",
    );
    t.step(
        Some(&source::RECURRENT_GDN_INTERLEAVED_ATTR),
        "gqa_interleaved_layout",
        "self.gqa_interleaved_layout = False: the reason's first condition holds",
    );
    t.step(
        Some(&source::RECURRENT_GDN_OUTPUT_GATE_TYPE),
        "GDN gate activation",
        format!(
            "self.norm.activation = getattr(config, \"output_gate_type\", \"silu\") (\"swish\" becomes \"silu\"): \
             \"silu\" (Qwen3.5's text config has no output_gate_type; qpath does not read one), which the fused \
             kernel accepts ({})",
            if r < V0_29_0 {
                "0.28.0 accepts silu only"
            } else {
                "silu or sigmoid from 0.29.0"
            }
        ),
    );
    let Some((conv, ssm)) = inp.state else {
        return Err(format!(
            "{QPATH_LIMIT}: the GDN state dtypes (--mamba-cache-dtype / --mamba-ssm-cache-dtype) that \
             _fused_gdn_decode_unsupported_reason reads"
        ));
    };
    t.step(
        Some(&source::RECURRENT_GDN_FUSED_STATE_DTYPES),
        "fused GDN state dtypes",
        format!(
            "get_state_dtype(): conv {conv}, recurrent {ssm}; FUSED_GDN_STATE_DTYPES = (torch.float32, \
             torch.bfloat16): the recurrent state {} in it",
            if matches!(ssm, TorchDtype::Float32 | TorchDtype::BFloat16) {
                "is"
            } else {
                "is not"
            }
        ),
    );
    let dt = p.model_dtype;
    let cc = p.cc;
    let checks = [
        (hk == 128, format!("head_k_dim {hk}")),
        (hv == 128, format!("head_v_dim {hv}")),
        (dt == TorchDtype::BFloat16, format!("model dtype {dt}")),
        (conv == TorchDtype::BFloat16, format!("conv state {conv}")),
        (
            matches!(ssm, TorchDtype::Float32 | TorchDtype::BFloat16),
            format!("recurrent state {ssm}"),
        ),
        (cc.to_int() >= 80, format!("compute capability {cc}")),
    ];
    let failing: Vec<&str> = checks.iter().filter(|(ok, _)| !ok).map(|(_, what)| what.as_str()).collect();
    if !failing.is_empty() {
        t.step(
            Some(&source::RECURRENT_GDN_FUSED_CONDITIONS),
            "fused CUDA GDN decode",
            format!(
                "unsupported: {} (it needs head_k_dim = head_v_dim = 128, a bfloat16 model and conv state, a float32 \
                 or bfloat16 recurrent state (FUSED_GDN_STATE_DTYPES), compute capability 8.0+)",
                failing.join(", ")
            ),
        );
        return Ok(false);
    }
    t.step(
        Some(&source::RECURRENT_GDN_FUSED_CONDITIONS),
        "fused CUDA GDN decode",
        format!(
            "every condition holds: non-interleaved layout, head_k_dim {hk}, head_v_dim {hv}, silu gating, model \
             dtype {dt}, conv state {conv}, recurrent state {ssm} (in FUSED_GDN_STATE_DTYPES: float32, bfloat16), \
             compute capability {cc} >= 8.0"
        ),
    );
    if r >= V0_33_0 {
        t.step(
            Some(&source::RECURRENT_GDN_SUPPORTS_FUSED_MTP),
            "fused CUDA GDN decode op",
            "supports_fused_mtp_decode(): not ROCm, so hasattr(torch.ops._C, \"fused_gdn_decode_post_conv_mtp\")",
        );
    }
    t.step(
        Some(&source::RECURRENT_GDN_FUSED_BUILT),
        "fused CUDA GDN decode op",
        "torch.ops._C.fused_gdn_decode_post_conv_mtp is registered: the released CUDA wheels build it (their \
         vllm/_C_stable_libtorch.abi3.so carries its schema); no reason, gdn_decode_kernel stays \"cuda\"",
    );
    Ok(true)
}

/// q, k, v of every GDN kernel: the model dtype (the conv returns its input's dtype, the post-conv prep allocates
/// q/k/v in the conv output's dtype; g and beta are float32).
fn gdn_inputs(p: &Platform, t: &mut Trace, g: &mut GroupReport) {
    let dt = p.model_dtype;
    let post_conv = if p.release < V0_26_0 {
        &source::RECURRENT_FLA_POST_CONV_DTYPE_OLD
    } else {
        &source::RECURRENT_FLA_POST_CONV_DTYPE
    };
    t.step(
        Some(&source::RECURRENT_CONV_FN_DTYPE),
        "GDN q dtype",
        format!(
            "q, k, v are the in-projection's output in the model dtype {dt}: causal_conv1d_fn / causal_conv1d_update \
             return their input's dtype"
        ),
    );
    t.step(
        Some(post_conv),
        "GDN prefill q dtype",
        format!(
            "fused_post_conv_prep allocates q, k, v in the conv output's dtype ({dt}), L2-normalized; g and beta in \
             float32. No recurrent kernel quantizes its inputs (--kv-cache-dtype does not reach this group)"
        ),
    );
    model_dtype_inputs(p, g);
}

/// The prefill kernel `ChunkGatedDeltaRule._forward_method` calls, the state it reads and writes, and FLA's float32
/// assert (at the first prefill; the memory profile's warm-up catches it and warns per layer).
fn gdn_prefill_kernel(p: &Platform, inp: &RecurrentInputs, d: &GdnPrefillDecision, t: &mut Trace, g: &mut GroupReport) {
    let (method, call_cite) = match d.active {
        GdnPrefill::FlashInfer => (
            "forward_cuda → fi_chunk_gated_delta_rule → flashinfer.gdn_prefill.chunk_gated_delta_rule",
            &source::RECURRENT_GDN_FI_CALL,
        ),
        GdnPrefill::CuteDsl => (
            "forward_cutedsl → chunk_gated_delta_rule_cutedsl",
            &source::RECURRENT_GDN_CUTEDSL_CALL,
        ),
        GdnPrefill::Triton => (
            "forward_native → FLA's chunk_gated_delta_rule (Triton)",
            &source::RECURRENT_GDN_FLA_CALL,
        ),
    };
    t.step(
        Some(&source::RECURRENT_GDN_FORWARD_METHOD),
        "GDN prefill forward",
        format!("active backend {}: _forward_method = {method}", d.active.chosen()),
    );
    t.step(
        Some(&source::RECURRENT_GDN_CONV_PREFILL),
        "GDN prefill path",
        "causal_conv1d_fn over the prefill tokens, fused_post_conv_prep, then the chunk kernel",
    );
    t.step(Some(call_cite), "GDN prefill kernel call", d.active.kernel().call());
    let ssm = inp.state.map_or("the ssm cache dtype".to_string(), |(_, s)| s.to_string());
    t.step(
        Some(&source::RECURRENT_GDN_PREFILL_INITIAL_STATE),
        "GDN prefill state",
        if p.release < V0_23_0 {
            format!("initial state = ssm_state[non_spec_state_indices_tensor] ({ssm}), zeroed for requests without one")
        } else {
            format!("initial state = ssm_state[prefill_state_indices] ({ssm}), zeroed for requests without one")
        },
    );
    if d.active == GdnPrefill::FlashInfer {
        t.step(
            Some(&source::RECURRENT_GDN_FI_STATE_FP32),
            "FlashInfer GDN state",
            "fi_chunk_gated_delta_rule casts the initial state, g and beta to float32 for FlashInfer",
        );
        if p.release >= V0_33_0 && inp.mamba_cache_mode == "align" {
            t.step(
                Some(&source::RECURRENT_GDN_CKPT_PLAN),
                "FlashInfer GDN checkpoints",
                "align mode: when the builder planned checkpoints the layer calls fi_chunk_gated_delta_rule with \
                 state_checkpoints (the same FlashInfer kernel, emitting mid-prefill states)",
            );
        }
    }
    t.step(
        Some(&source::RECURRENT_GDN_STATE_WRITEBACK),
        "GDN prefill state write-back",
        format!("the final state is written back as last_recurrent_state.to(ssm_state.dtype) ({ssm})"),
    );
    one_kernel_each(g, d.active.kernel(), None);
    if p.model_dtype != TorchDtype::Float32 {
        return;
    }
    match d.active {
        GdnPrefill::Triton => fla_float32(p, inp, t, g),
        other => {
            g.unmodelled = Some(format!(
                "{QPATH_LIMIT}: the {} GDN prefill ({}) with float32 q, k, v: its kernels are built for float16 / \
                 bfloat16, and where and with what text it rejects float32 is not restated",
                other.chosen(),
                other.kernel().call()
            ));
        }
    }
}

/// `--dtype float32` with FLA's prefill: `chunk_gated_delta_rule` asserts `q.dtype != torch.float32` (every release).
/// The memory profile's warm-up meets it first and only warns, once per GDN layer; the first prefill raises.
fn fla_float32(p: &Platform, inp: &RecurrentInputs, t: &mut Trace, g: &mut GroupReport) {
    for layer in inp.layers {
        t.warn(
            &source::RECURRENT_GDN_WARMUP_FAIL,
            format!(
                "GDN prefill kernel warmup (T=64) failed for layer model.layers.{layer}.linear_attn. First inference \
                 may OOM due to autotuner."
            ),
        );
    }
    t.step(
        Some(&source::RECURRENT_GDN_WARMUP_FAIL),
        "GDN prefill warm-up",
        format!(
            "the memory profile runs chunk_gated_delta_rule once per GDN layer on T = 64 tokens; the float32 assert \
             raises there, is caught and logged ({} warnings, one per layer)",
            inp.layers.len()
        ),
    );
    let cite = if p.release < V0_26_0 {
        &source::RECURRENT_FLA_FP32_ASSERT_OLD
    } else {
        &source::RECURRENT_FLA_FP32_ASSERT
    };
    let message = "ChunkGatedDeltaRuleFunction does not support float32. Please use bfloat16.";
    t.step(
        Some(cite),
        "raises AssertionError",
        format!("{message} (the first prefill; decodes run the decode kernels, which check no dtype)"),
    );
    let e = GroupError {
        kind: GroupErrorKind::AssertionError,
        message: message.into(),
        stage: Stage::PrefillForward,
        source: cite.at(p.release).map(|s| s.short()),
        raised_in: "ChunkGatedDeltaRule.forward_native → chunk_gated_delta_rule".into(),
    };
    g.phase_errors.prefill = Some(e.clone());
    g.error = Some(e);
}

/// The decode kernels per batch (`_forward_core`): decode-only batches without spec tokens take the packed decode
/// when it is enabled; the decodes of a mixed batch, and speculative decodes (with `num_accepted_tokens`), take
/// `fused_sigmoid_gating_delta_rule_update`. With the fused CUDA decode on ([`GdnDecode::fused`]; 0.32.0+ only with a
/// speculative config) `forward_cuda` calls `qwen_gdn_attention_core_fused_norm_packed` instead, whose
/// `_forward_core_fused_norm` sends a batch of speculative decodes only to `fused_gdn_decode_post_conv_mtp` when
/// `_can_use_fused_gdn_mtp_decode` holds ([`fused_mtp_decode`]) and every other batch to the same `_forward_core`
/// (then FLA's gated RMSNorm). The first decode batch qpath models is decode-only (a speculative one with a
/// speculative config).
fn gdn_decode_kernels(p: &Platform, inp: &RecurrentInputs, d: GdnDecode, chunk: Kernel, t: &mut Trace, g: &mut GroupReport) {
    let fused_forward = d.fused && (p.release < V0_32_0 || inp.speculative);
    let mut mtp = false;
    if fused_forward {
        let dt = p.model_dtype;
        t.step(
            Some(&source::RECURRENT_GDN_FUSED_FORWARD),
            "GDN fused-norm forward",
            format!(
                "{} and hidden states {dt}, self.norm.weight {dt} (the model dtype; bfloat16 or float32 accepted): \
                 forward_cuda takes the fused path",
                if p.release < V0_32_0 {
                    "enable_fused_gdn_decode"
                } else {
                    "enable_fused_gdn_spec_decode"
                }
            ),
        );
        t.step(
            Some(&source::RECURRENT_GDN_FUSED_NORM_OP),
            "GDN fused-norm op",
            "torch.ops.vllm.qwen_gdn_attention_core_fused_norm_packed(mixed_qkvz, ba, …) → _forward_core_fused_norm: \
             the recurrent kernel and the gated RMSNorm in one custom op (the same kernels for prefills)",
        );
        if inp.speculative {
            mtp = fused_mtp_decode(p, inp, t);
        }
        t.step(
            Some(&source::RECURRENT_GDN_FUSED_RMS_NORM),
            "GDN fused-norm fallback",
            format!(
                "{}: _forward_core (the kernels below), then _rms_norm_gated_cuda (FLA's layer_norm_fwd, Triton) \
                 for the gated norm",
                if mtp {
                    "every batch but a spec-decode-only one"
                } else {
                    "every batch"
                }
            ),
        );
    }
    t.step(
        Some(&source::RECURRENT_GDN_CONV_DECODE),
        "GDN decode path",
        "causal_conv1d_update, then the recurrent kernel, updating ssm_state in place",
    );
    if inp.speculative {
        t.step(
            Some(&source::RECURRENT_GDN_SPEC_CALL),
            "GDN speculative decode",
            if mtp {
                "the drafted requests of a batch that also has prefills (1 + num_speculative_tokens tokens each) run \
                 fused_sigmoid_gating_delta_rule_update with num_accepted_tokens; plain decodes in such a batch are \
                 reclassified as prefills"
            } else {
                "the drafted requests (1 + num_speculative_tokens tokens each) run fused_sigmoid_gating_delta_rule_update \
                 with num_accepted_tokens; plain decodes in such a batch are reclassified as prefills"
            },
        );
    }
    let mtp_choice = KernelChoice::when(
        Kernel::GdnFusedMtpDecode,
        "speculative decodes of a batch without prefills (1 + num_speculative_tokens <= MAX_FUSED_GDN_MTP_TOKENS 8)",
    );
    if !d.packed {
        t.step(
            Some(&source::RECURRENT_GDN_DECODE_ONLY_CALL),
            "GDN decode",
            if mtp {
                "packed decode disabled: every other decode runs fused_sigmoid_gating_delta_rule_update"
            } else {
                "packed decode disabled: every decode runs fused_sigmoid_gating_delta_rule_update"
            },
        );
        if mtp {
            g.kernel.decode = Some(Kernel::GdnFusedMtpDecode);
            g.kernels.decode = vec![mtp_choice, KernelChoice::when(Kernel::GdnSigmoidGating, "every other decode")];
        } else if p.release < V0_23_0 {
            // 0.22.x: the decodes of a batch with prefills run the chunk kernel (0.22.0:1463).
            t.step(
                Some(&source::RECURRENT_GDN_MIXED_CHUNK_OLD),
                "GDN decodes beside prefills",
                format!(
                    "a batch with prefills and decodes: vLLM {} runs the decodes with the prefills through the \
                     prefill chunk kernel ({})",
                    p.release,
                    chunk.call()
                ),
            );
            g.kernel.decode = Some(Kernel::GdnSigmoidGating);
            g.kernels.decode = vec![
                KernelChoice::when(Kernel::GdnSigmoidGating, "batches without prefills"),
                KernelChoice::when(chunk, "the decodes of a batch that also has prefills"),
            ];
        } else {
            g.kernel.decode = Some(Kernel::GdnSigmoidGating);
            g.kernels.decode = vec![KernelChoice::always(Kernel::GdnSigmoidGating)];
        }
        return;
    }
    t.step(
        Some(&source::RECURRENT_GDN_PACKED_BRANCH),
        "GDN decode-only batch",
        "packed decode enabled, no spec tokens, no prefill in the batch: _forward_core_decode_non_spec → \
         fused_recurrent_gated_delta_rule_packed_decode (what FULL decode CUDA graphs capture)",
    );
    t.step(
        Some(&source::RECURRENT_GDN_PACKED_CALL),
        "GDN packed decode call",
        Kernel::GdnPackedDecode.call(),
    );
    // qwen_gdn_linear_attn.py: 0.23.0 peels the decodes of a mixed batch off to the sigmoid-gating kernel
    // (split_non_spec, 0.23.0:1484); 0.22.x runs every non-spec token of a batch with prefills through the chunk
    // kernel (`if attn_metadata.num_prefills > 0:`, 0.22.0:1463).
    let mixed = if p.release >= V0_23_0 {
        t.step(
            Some(&source::RECURRENT_GDN_SPLIT_DECODE_CALL),
            "GDN decodes beside prefills",
            "a batch with prefills and decodes: the decodes are split off to fused_sigmoid_gating_delta_rule_update",
        );
        Kernel::GdnSigmoidGating
    } else {
        t.step(
            Some(&source::RECURRENT_GDN_MIXED_CHUNK_OLD),
            "GDN decodes beside prefills",
            format!(
                "a batch with prefills and decodes: vLLM {} runs the decodes with the prefills through the prefill \
                 chunk kernel ({}); 0.23.0 splits them off to fused_sigmoid_gating_delta_rule_update",
                p.release,
                chunk.call()
            ),
        );
        chunk
    };
    let packed_choice = KernelChoice::when(Kernel::GdnPackedDecode, "decode-only batches without spec tokens");
    if mtp {
        g.kernel.decode = Some(Kernel::GdnFusedMtpDecode);
        g.kernels.decode = vec![
            mtp_choice,
            KernelChoice::when(
                Kernel::GdnSigmoidGating,
                "speculative decodes of a batch that also has prefills, and the decodes of a batch that also has \
                 prefills",
            ),
            packed_choice,
        ];
        return;
    }
    if mixed != Kernel::GdnSigmoidGating {
        let mixed = KernelChoice::when(mixed, "the decodes of a batch that also has prefills");
        if inp.speculative {
            g.kernel.decode = Some(Kernel::GdnSigmoidGating);
            g.kernels.decode = vec![
                KernelChoice::when(Kernel::GdnSigmoidGating, "speculative decodes (with num_accepted_tokens)"),
                packed_choice,
                mixed,
            ];
        } else {
            g.kernel.decode = Some(Kernel::GdnPackedDecode);
            g.kernels.decode = vec![packed_choice, mixed];
        }
        return;
    }
    let (first, sigmoid) = if inp.speculative {
        (
            Kernel::GdnSigmoidGating,
            "speculative decodes (with num_accepted_tokens), and the decodes of a batch that also has prefills",
        )
    } else {
        (Kernel::GdnPackedDecode, "the decodes of a batch that also has prefills")
    };
    let sigmoid = KernelChoice::when(Kernel::GdnSigmoidGating, sigmoid);
    g.kernel.decode = Some(first);
    g.kernels.decode = if inp.speculative {
        vec![sigmoid, packed_choice]
    } else {
        vec![packed_choice, sigmoid]
    };
}

/// `_can_use_fused_gdn_mtp_decode` (0.28.0+), asked per batch by `_forward_core_fused_norm` with `num_prefills == 0`:
/// speculative decodes only (`spec_sequence_masks` set, `num_decodes == 0`, `num_spec_decodes > 0`), the recurrent
/// state in `FUSED_GDN_STATE_DTYPES` and the kernel `cuda` (both settled at init), `num_v_heads` a multiple of
/// `num_k_heads` (0.28.0: exactly 8 times; 0.29.0+: 1, 2, 3, 4 or 8 times), `spec_state_indices_tensor.size(1)`
/// (1 + num_speculative_tokens) at most `MAX_FUSED_GDN_MTP_TOKENS` (8), and the op registered. Whether such batches
/// run `fused_gdn_decode_post_conv_mtp`.
fn fused_mtp_decode(p: &Platform, inp: &RecurrentInputs, t: &mut Trace) -> bool {
    let (nk, nv) = match inp.spec.state {
        HybridState::Gdn {
            num_k_heads,
            num_v_heads,
            ..
        } => (num_k_heads, num_v_heads),
        HybridState::Mamba2 { .. } | HybridState::Mamba1 { .. } => (0, 0),
    };
    let ratio_ok = if p.release < V0_29_0 {
        nk > 0 && nv == 8 * nk
    } else {
        nk > 0 && nv % nk == 0 && matches!(nv / nk, 1 | 2 | 3 | 4 | 8)
    };
    let heads = if p.release < V0_29_0 {
        format!("num_v_heads {nv} == 8 * num_k_heads {nk}: {ratio_ok}")
    } else {
        format!(
            "num_v_heads {nv} / num_k_heads {nk}{} in (1, 2, 3, 4, 8): {ratio_ok}",
            if nk > 0 && nv % nk == 0 {
                format!(" = {}", nv / nk)
            } else {
                " (not a multiple)".to_string()
            }
        )
    };
    t.step(
        Some(&source::RECURRENT_GDN_FUSED_MTP_CAN_USE),
        "fused MTP decode",
        format!(
            "_can_use_fused_gdn_mtp_decode: {heads}; the recurrent state dtype and gdn_decode_kernel \"cuda\" hold (as \
             at init); a batch of speculative decodes only, each with 1 + num_speculative_tokens state slots \
             (spec_state_indices_tensor) <= MAX_FUSED_GDN_MTP_TOKENS 8: {}",
            if ratio_ok {
                "such batches (with no prefill) run the fused CUDA kernel"
            } else {
                "never, every speculative decode runs the Triton kernels"
            }
        ),
    );
    if !ratio_ok {
        return false;
    }
    let slots = 1 + inp.num_speculative_tokens;
    t.step(
        Some(&source::RECURRENT_GDN_FUSED_MTP_MAX),
        "fused MTP decode tokens",
        format!(
            "MAX_FUSED_GDN_MTP_TOKENS = 8: 1 + num_speculative_tokens = {slots} {}",
            if slots <= 8 {
                "<= 8"
            } else {
                "> 8: every speculative decode runs the Triton kernels"
            }
        ),
    );
    if slots > 8 {
        return false;
    }
    t.step(
        Some(&source::RECURRENT_GDN_SPEC_STATE_INDICES),
        "speculative state slots",
        "GDNAttentionMetadataBuilder: spec_state_indices_tensor = block_table_tensor[:num_spec_decodes, : num_spec + 1]",
    );
    t.step(
        Some(&source::RECURRENT_GDN_FUSED_MTP_BRANCH),
        "GDN spec-decode-only batch",
        "_forward_core_fused_norm: _can_use_fused_gdn_mtp_decode and num_prefills == 0: \
         _forward_core_decode_spec_fused_norm (causal_conv1d_update with num_accepted_tokens, then the fused kernel with \
         the gated RMSNorm; what FULL decode CUDA graphs capture, uniform batches of 1 + num_speculative_tokens tokens)",
    );
    t.step(
        Some(&source::RECURRENT_GDN_FUSED_MTP_CALL),
        "GDN fused MTP decode call",
        if p.release >= V0_33_0 {
            "fused_mtp_decode_impl() → ops.fused_gdn_decode_post_conv_mtp (not ROCm) → \
             torch.ops._C.fused_gdn_decode_post_conv_mtp"
        } else {
            "ops.fused_gdn_decode_post_conv_mtp → torch.ops._C.fused_gdn_decode_post_conv_mtp"
        },
    );
    true
}

// ---------------------------------------------------------------------------------------------------------------
// MAMBA2, MAMBA1
// ---------------------------------------------------------------------------------------------------------------

/// The SSU backend `--mamba-backend` names (`MambaBackendEnum[value.upper()]`; `EngineArgs` rejected other names),
/// and its `selective_state_update`; `Err` what qpath cannot model.
fn ssu_backend(inp: &RecurrentInputs, t: &mut Trace) -> Result<(Kernel, &'static str), String> {
    let name = inp
        .mamba_backend
        .map_or_else(|| "TRITON".to_string(), crate::serve::python::py_upper);
    t.step(
        Some(&source::RECURRENT_MAMBA_BACKEND_DEFAULT),
        "Mamba SSU backend",
        match inp.mamba_backend {
            None => "MambaConfig.backend: TRITON (no --mamba-backend)".to_string(),
            Some(v) => format!("--mamba-backend {v}: MambaBackendEnum.{name}"),
        },
    );
    match name.as_str() {
        "FLASHINFER" => {
            t.step(
                Some(&source::RECURRENT_SSU_FI_IMPORT),
                "Mamba SSU kernel",
                "FlashInferSSUBackend: flashinfer.mamba.selective_state_update (every FlashInfer vLLM pins has it)",
            );
            Ok((Kernel::FlashInferSelectiveStateUpdate, "flashinfer"))
        }
        "TRITON" => {
            t.step(
                Some(&source::RECURRENT_SSU_TRITON_KERNEL),
                "Mamba SSU kernel",
                "TritonSSUBackend: vLLM's Triton selective_state_update (mamba/ops/mamba_ssm.py)",
            );
            Ok((Kernel::SelectiveStateUpdate, "triton"))
        }
        other => Err(format!(
            "{QPATH_LIMIT}: --mamba-backend {}: the {other} SSU backend on a CUDA GPU (its kernel is not restated)",
            inp.mamba_backend.unwrap_or_default()
        )),
    }
}

/// `initialize_mamba_ssu_backend` (`GPUModelRunner.initialize_kv_cache`, after the attention builders): a MAMBA1 /
/// MAMBA2 group makes the SSU backend, whose construction logs (0.27.0+ FlashInfer: its algorithm) and then its name.
fn ssu_init_logs(p: &Platform, inp: &RecurrentInputs, name: &str, t: &mut Trace) {
    t.step(
        Some(&source::RECURRENT_SSU_INIT_CALL),
        "Mamba SSU backend init",
        "GPUModelRunner.initialize_kv_cache calls initialize_mamba_ssu_backend: a MAMBA1 / MAMBA2 KV-cache group \
         builds the SSU backend (_BACKEND_REGISTRY) once",
    );
    if name == "flashinfer" && p.release >= V0_27_0 {
        t.info(
            &source::RECURRENT_SSU_FI_ALGO_LOG,
            format!(
                "Using FlashInfer Mamba SSU algorithm: {}",
                inp.mamba_ssu_algorithm.unwrap_or("auto")
            ),
        );
    }
    t.info(&source::RECURRENT_SSU_INIT_LOG, format!("Using {name} Mamba SSU backend."));
}

/// MAMBA2 (`MambaMixer2`): the memory profile warms the SSD kernels up; prefills run the SSD chunk scan; decodes run
/// `selective_state_update` from the SSU backend. The inputs x, B, C (and dt) are the model dtype; A is float32.
fn mamba2(p: &Platform, inp: &RecurrentInputs, t: &mut Trace, g: &mut GroupReport) {
    let dt = p.model_dtype;
    let ssm = inp.state.map_or("the ssm cache dtype".to_string(), |(_, s)| s.to_string());
    t.step(
        Some(&source::RECURRENT_M2_BLACKWELL),
        "MambaMixer2 init",
        format!(
            "is_blackwell = {} (the SM10x family: it tunes the decode launch only); no log at layer init",
            p.is_family(100)
        ),
    );
    // mamba_mixer2.py: `_warmup_ssd_kernels` and its log line are new in 0.22.0 (0.22.0:578, 0.22.0:722); until
    // 0.21.0 the memory profile's forward returns without running the SSD kernels.
    if p.release >= V0_22_0 {
        t.info(&source::RECURRENT_M2_WARMUP_LOG, "Warming up Mamba2 SSD Triton kernels...");
        t.step(
            Some(&source::RECURRENT_M2_WARMUP_CALL),
            "Mamba2 SSD warm-up",
            format!(
                "the memory profile's forward has no attention metadata: _warmup_ssd_kernels runs \
                 mamba_chunk_scan_combined_varlen per layer in {dt} with state_dtype {ssm}, so Triton autotunes at \
                 engine start"
            ),
        );
    } else {
        t.step(
            None,
            "Mamba2 SSD warm-up",
            format!(
                "none in vLLM {}: MambaMixer2 has no _warmup_ssd_kernels (0.22.0+); Triton autotunes the SSD kernels \
                 at the first prefill",
                p.release
            ),
        );
    }
    let ssu = ssu_backend(inp, t);
    if let Ok((_, name)) = &ssu {
        ssu_init_logs(p, inp, name, t);
    }
    t.step(
        Some(&source::RECURRENT_CONV_FN_DTYPE),
        "Mamba2 input dtype",
        format!(
            "x, B, C (the conv output, split) and dt are {dt}, the model dtype (causal_conv1d_fn / _update return \
             their input's dtype); the \"query\" of a Mamba2 layer is its C (SSD duality); no recurrent kernel \
             quantizes its inputs"
        ),
    );
    model_dtype_inputs(p, g);
    t.step(
        Some(&source::RECURRENT_M2_CONV_PREFILL),
        "Mamba2 prefill path",
        "causal_conv1d_fn, then the SSD chunk scan",
    );
    t.step(
        Some(&source::RECURRENT_M2_PREFILL_SCAN),
        "Mamba2 prefill kernel",
        format!(
            "mamba_chunk_scan_combined_varlen (Triton SSD: _chunk_cumsum_fwd, _chunk_state_fwd, _state_passing_fwd, \
             _bmm_chunk_fwd, _chunk_scan_fwd) with A float32 and state_dtype {ssm}; every GPU, every release"
        ),
    );
    t.step(
        Some(&source::RECURRENT_M2_CONV_DECODE),
        "Mamba2 decode path",
        "causal_conv1d_update, then selective_state_update (the same call for speculative decodes, with \
         num_accepted_tokens)",
    );
    t.step(
        Some(&source::RECURRENT_M2_A_FP32),
        "Mamba2 decode A",
        "A expanded to (heads, head_dim, d_state) and cast to float32",
    );
    let decode = match ssu {
        Err(why) => {
            g.unmodelled = Some(why);
            None
        }
        Ok(_) if inp.use_replayssm => {
            t.step(
                Some(&source::RECURRENT_M2_REPLAYSSM_BRANCH),
                "ReplaySSM",
                "--use-replayssm: the decode runs ReplaySSM's kernels instead of selective_state_update",
            );
            g.unmodelled = Some(format!(
                "{QPATH_LIMIT}: --use-replayssm: the decode kernel (selective_state_update_replayssm_output_only, or \
                 0.30.0+ with --mamba-backend flashinfer selective_state_update_replayssm_flashinfer) and its \
                 conditions are not restated"
            ));
            None
        }
        Ok((kernel, _)) => {
            t.step(Some(&source::RECURRENT_M2_DECODE_SSU), "Mamba2 decode kernel", kernel.call());
            // mamba_ssm.py: the tuned-config lookup (`try_get_optimal_ssm_config`) is new in 0.22.0 (0.22.0:619).
            if p.release >= V0_22_0 {
                t.step(
                    Some(&source::RECURRENT_SSM_CONFIG_LOOKUP),
                    "selective_state_update launch config",
                    "the Triton kernel looks up a tuned config at its first call and logs which (\"Using SSM config from \
                     …\" or \"Using default Mamba SSU config…\"): that depends on the JSON files in the wheel, not \
                     restated",
                );
            }
            Some(kernel)
        }
    };
    one_kernel_each(g, Kernel::MambaChunkScan, decode);
}

/// MAMBA1 (`MambaMixer`, e.g. Jamba, Falcon-Mamba): `selective_scan_fn` for prefills, `selective_state_update` from
/// the same SSU dispatch for decodes.
fn mamba1(p: &Platform, inp: &RecurrentInputs, t: &mut Trace, g: &mut GroupReport) {
    model_dtype_inputs(p, g);
    let ssu = ssu_backend(inp, t);
    if let Ok((_, name)) = &ssu {
        ssu_init_logs(p, inp, name, t);
    }
    t.step(
        Some(&source::RECURRENT_M1_PREFILL_SCAN),
        "Mamba1 prefill kernel",
        "causal_conv1d_fn, then selective_scan_fn (ops.selective_scan_fwd, CUDA C++)",
    );
    let decode = match ssu {
        Err(why) => {
            g.unmodelled = Some(why);
            None
        }
        Ok((kernel, _)) => {
            t.step(Some(&source::RECURRENT_M1_DECODE_SSU), "Mamba1 decode kernel", kernel.call());
            Some(kernel)
        }
    };
    one_kernel_each(g, Kernel::SelectiveScan, decode);
}

// ---------------------------------------------------------------------------------------------------------------
// LINEAR, SHORT_CONV
// ---------------------------------------------------------------------------------------------------------------

/// The statements of a backend whose phases always run the same kernels: (prefill, decode).
type FixedCites = (&'static Cite, &'static Cite);

const LINEAR_CITES: FixedCites = (&source::RECURRENT_LINEAR_PREFILL, &source::RECURRENT_LINEAR_DECODE);
const SHORT_CONV_CITES: FixedCites = (&source::RECURRENT_SHORTCONV_PREFILL, &source::RECURRENT_SHORTCONV_DECODE);

/// LINEAR (MiniMax-Text-01's lightning attention) and SHORT_CONV (LFM2's short convolution): one kernel per phase.
fn fixed(p: &Platform, (prefill, decode): (Kernel, Kernel), (pc, dc): FixedCites, t: &mut Trace, g: &mut GroupReport) {
    model_dtype_inputs(p, g);
    t.step(Some(pc), "prefill kernel", prefill.call());
    t.step(Some(dc), "decode kernel", decode.call());
    one_kernel_each(g, prefill, Some(decode));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::CudaVersion;
    use crate::release::Release;

    fn platform(r: Release, cc: (u8, u8), cuda: (u8, u8)) -> Platform {
        Platform {
            cuda: CudaVersion::new(cuda.0, cuda.1),
            ..Platform::for_tests(r, cc)
        }
    }

    /// MAMBA1, LINEAR and SHORT_CONV (no model qpath builds has them): the model dtype in, one kernel per phase;
    /// MAMBA1's decode follows `--mamba-backend` like MAMBA2's.
    #[test]
    fn other_recurrent_backends_name_their_kernels() {
        let spec = crate::model::HybridSpec {
            model: crate::model::VllmModel::NemotronH,
            architecture: None,
            kind: crate::model::AttentionKind::Mamba,
            backend: Backend::Mamba1,
            state: HybridState::Mamba2 {
                num_heads: 8,
                head_dim: 64,
                n_groups: 1,
                state_size: 16,
                conv_kernel: 4,
                ssm_cache_dtype: None,
                chunk_size: None,
            },
            mtp_layers: None,
            supports_mamba_prefix_caching: false,
            layers_rule: String::new(),
        };
        let p = platform(V0_33_0, (9, 0), (12, 9));
        let ac = crate::serve::AttentionConfig::default();
        let engine = super::super::Engine {
            attention_config: &ac,
            device: "NVIDIA H100",
            hybrid: true,
            checkpoint: None,
            fa_window_configs: 0,
            drafter: false,
            unclamped_window: false,
        };
        let run = |b: Backend, mamba_backend: Option<&str>| {
            let inp = RecurrentInputs {
                spec: &spec,
                layers: &[0, 1],
                gdn_prefill_backend: None,
                mamba_backend,
                mamba_ssu_algorithm: None,
                use_replayssm: false,
                packed_decode_env: None,
                gdn_decode_kernel_env: None,
                speculative: false,
                num_speculative_tokens: 0,
                mamba_cache_mode: "align",
                state: Some((TorchDtype::BFloat16, TorchDtype::Float32)),
            };
            let cx = GroupContext {
                engine: &engine,
                query: None,
                recurrent: Some(&inp),
            };
            let mut g = GroupReport::unresolved(vec![0, 1], crate::model::AttentionKind::Mamba, b, "auto".into(), vec![]);
            super::super::rules(b).resolve_group(&p, &cx, &mut g);
            assert_eq!(
                g.q_dtype,
                Phases {
                    prefill: Some(TorchDtype::BFloat16),
                    decode: Some(TorchDtype::BFloat16)
                }
            );
            assert_eq!(g.cache_dtype, "conv bfloat16 / ssm float32");
            (g.kernel.prefill, g.kernel.decode, g.logs)
        };
        let (pre, dec, logs) = run(Backend::Mamba1, None);
        assert_eq!((pre, dec), (Some(Kernel::SelectiveScan), Some(Kernel::SelectiveStateUpdate)));
        assert_eq!(logs, ["Using triton Mamba SSU backend."]);
        let (_, dec, _) = run(Backend::Mamba1, Some("flashinfer"));
        assert_eq!(dec, Some(Kernel::FlashInferSelectiveStateUpdate));
        let (pre, dec, logs) = run(Backend::Linear, None);
        assert_eq!((pre, dec), (Some(Kernel::LightningAttention), Some(Kernel::LinearDecode)));
        assert!(logs.is_empty());
        let (pre, dec, _) = run(Backend::ShortConv, None);
        assert_eq!((pre, dec), (Some(Kernel::CausalConv1d), Some(Kernel::CausalConv1dUpdate)));
    }

    /// `_fused_gdn_decode_unsupported_reason`'s conditions one at a time for a non-interleaved layer (every failing
    /// one is named), and `_can_use_fused_gdn_mtp_decode`'s head ratio: exactly 8 in 0.28.0, 1/2/3/4/8 from 0.29.0.
    #[test]
    fn fused_gdn_decode_conditions() {
        let gdn = |nk: u32, nv: u32, hk: u32| crate::model::HybridSpec {
            model: VllmModel::Qwen3_5,
            architecture: None,
            kind: crate::model::AttentionKind::LinearAttention,
            backend: Backend::GdnAttn,
            state: HybridState::Gdn {
                num_k_heads: nk,
                num_v_heads: nv,
                head_k_dim: hk,
                head_v_dim: 128,
                conv_kernel: 4,
                ssm_dtype: Some("float32".into()),
            },
            mtp_layers: None,
            supports_mamba_prefix_caching: false,
            layers_rule: String::new(),
        };
        fn inputs(spec: &HybridSpec, state: Option<(TorchDtype, TorchDtype)>) -> RecurrentInputs<'_> {
            RecurrentInputs {
                spec,
                layers: &[0],
                gdn_prefill_backend: None,
                mamba_backend: None,
                mamba_ssu_algorithm: None,
                use_replayssm: false,
                packed_decode_env: None,
                gdn_decode_kernel_env: None,
                speculative: true,
                num_speculative_tokens: 0,
                mamba_cache_mode: "align",
                state,
            }
        }
        use TorchDtype::{BFloat16 as BF, Float16 as F16, Float32 as F32};
        let check = |r, cc, dt: TorchDtype, spec: &crate::model::HybridSpec, state| {
            let p = Platform {
                model_dtype: dt,
                ..platform(r, cc, (12, 9))
            };
            let mut t = Trace::new(r);
            let ok = fused_decode_supported(&p, &inputs(spec, state), &mut t).unwrap();
            let why = t
                .steps
                .iter()
                .find(|s| s.rule == "fused CUDA GDN decode")
                .unwrap()
                .outcome
                .to_string();
            (ok, why)
        };
        let qwen = gdn(16, 48, 128);
        assert!(check(V0_28_0, (9, 0), BF, &qwen, Some((BF, F32))).0);
        assert!(check(V0_33_0, (8, 0), BF, &qwen, Some((BF, BF))).0);
        let (ok, why) = check(V0_33_0, (7, 5), BF, &qwen, Some((BF, F32)));
        assert!(!ok && why.starts_with("unsupported: compute capability 7.5 ("), "{why}");
        let (ok, why) = check(V0_33_0, (9, 0), BF, &qwen, Some((BF, F16)));
        assert!(!ok && why.starts_with("unsupported: recurrent state float16 ("), "{why}");
        let (ok, why) = check(V0_33_0, (9, 0), BF, &qwen, Some((F32, F32)));
        assert!(!ok && why.starts_with("unsupported: conv state float32 ("), "{why}");
        let (ok, why) = check(V0_28_0, (9, 0), F16, &qwen, Some((F16, F32)));
        assert!(
            !ok && why.starts_with("unsupported: model dtype float16, conv state float16 ("),
            "{why}"
        );
        let (ok, why) = check(V0_33_0, (9, 0), BF, &gdn(16, 48, 64), Some((BF, F32)));
        assert!(!ok && why.starts_with("unsupported: head_k_dim 64 ("), "{why}");
        let mut t = Trace::new(V0_33_0);
        assert!(fused_decode_supported(&platform(V0_33_0, (9, 0), (12, 9)), &inputs(&qwen, None), &mut t).is_err());

        let mtp = |r, nk, nv| {
            let spec = gdn(nk, nv, 128);
            fused_mtp_decode(
                &platform(r, (9, 0), (12, 9)),
                &inputs(&spec, Some((BF, F32))),
                &mut Trace::new(r),
            )
        };
        assert!(!mtp(V0_28_0, 16, 48));
        assert!(mtp(V0_28_0, 16, 128));
        assert!(mtp(V0_29_0, 16, 48));
        assert!(mtp(V0_29_0, 16, 16));
        assert!(!mtp(V0_29_0, 16, 96), "ratio 6");
        assert!(!mtp(V0_33_0, 16, 40), "not a multiple");
    }

    /// `_resolve_gdn_prefill_backend` on CUDA: SM90 without conditions; SM10x needs head dim 128 and CUDA 13; SM12x
    /// from 0.30.0; `cutedsl` only on SM10x; the ROCm / XPU names raise where the release has them.
    #[test]
    fn gdn_prefill_backend_per_platform() {
        let active = |r, cc, cuda, req: Option<&str>, hk| gdn_prefill(&platform(r, cc, cuda), req, hk).active;
        use GdnPrefill::*;
        assert_eq!(active(V0_24_0, (9, 0), (12, 9), None, 128), FlashInfer);
        assert_eq!(active(V0_24_0, (9, 0), (12, 9), Some("triton"), 128), Triton);
        assert_eq!(active(V0_24_0, (9, 0), (12, 9), Some("cutedsl"), 128), Triton);
        assert_eq!(active(V0_24_0, (8, 9), (12, 9), Some("flashinfer"), 128), Triton);
        assert_eq!(active(V0_24_0, (10, 0), (12, 9), None, 128), Triton);
        assert_eq!(active(V0_24_0, (10, 0), (13, 0), None, 128), FlashInfer);
        assert_eq!(active(V0_24_0, (10, 3), (13, 0), Some("cutedsl"), 128), CuteDsl);
        assert_eq!(active(V0_24_0, (10, 0), (13, 0), None, 64), Triton);
        assert_eq!(active(V0_29_0, (12, 0), (13, 0), None, 128), Triton);
        assert_eq!(active(V0_30_0, (12, 0), (13, 0), None, 128), FlashInfer);
        assert_eq!(active(V0_30_0, (12, 1), (13, 0), Some("cutedsl"), 128), Triton);
        assert_eq!(active(V0_33_0, (12, 0), (12, 9), None, 128), Triton);
        let p = platform(V0_33_0, (9, 0), (12, 9));
        let sycl = gdn_prefill(&p, Some("sycl"), 128).raise.unwrap();
        assert_eq!(sycl.message, "GDN prefill backend 'sycl' is only supported on XPU.");
        let aiter = gdn_prefill(&p, Some("aiter_flydsl"), 128).raise.unwrap();
        assert_eq!(aiter.kind, GroupErrorKind::RuntimeError);
        assert!(aiter.message.ends_with("the current platform is cuda."));
        assert!(gdn_prefill(&platform(V0_32_0, (9, 0), (12, 9)), Some("sycl"), 128)
            .raise
            .is_none());
    }
}
