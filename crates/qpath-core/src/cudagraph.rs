//! CUDA graphs after the attention backends are known: each attention group's CUDA-graph support (its metadata
//! builder's `get_cudagraph_support`, or the `_cudagraph_support` class attribute it returns), the minimum over every
//! group (drafter layers included) the model runner takes, and `CompilationConfig.resolve_cudagraph_mode_and_sizes`
//! (`vllm/config/compilation.py`): the downgrades of the requested `cudagraph_mode`, with vLLM's warnings, and the
//! `ValueError` it raises. Both runners (V1 `_check_and_update_cudagraph_mode`, V2 `get_attn_cg_support`) take the
//! same minimum. `docs/source-notes/cuda-graphs.md` has the statements per release and what is not modelled.

use serde::Serialize;

use crate::platform::Platform;
use crate::release::Release::{V0_25_0Prefix, V0_26_0, V0_28_0, V0_30_0, V0_32_0, V0_33_0};
use crate::report::{GroupReport, GroupRole, LogRecord, ScenarioError, ScenarioErrorKind, TraceStep};
use crate::selection::Backend;
use crate::source::{self, Cite};
use crate::trace::Trace;

/// `AttentionCGSupport` (`vllm/v1/attention/backend.py`, a plain `Enum`): the widest batches a backend's attention
/// may be captured in a full CUDA graph for. Ordered as its values (`NEVER` = 0 … `ALWAYS` = 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum CgSupport {
    #[serde(rename = "NEVER")]
    Never,
    /// Batches of single-token decodes only.
    #[serde(rename = "UNIFORM_SINGLE_TOKEN_DECODE")]
    UniformSingleTokenDecode,
    /// Batches whose queries all have the same length (spec-decode verification: 1 + num_speculative_tokens).
    #[serde(rename = "UNIFORM_BATCH")]
    UniformBatch,
    /// Any batch, mixed prefills and decodes too.
    #[serde(rename = "ALWAYS")]
    Always,
}

impl CgSupport {
    pub const ALL: [CgSupport; 4] = [
        CgSupport::Never,
        CgSupport::UniformSingleTokenDecode,
        CgSupport::UniformBatch,
        CgSupport::Always,
    ];

    /// The member's name, the JSON string.
    pub fn name(self) -> &'static str {
        match self {
            CgSupport::Never => "NEVER",
            CgSupport::UniformSingleTokenDecode => "UNIFORM_SINGLE_TOKEN_DECODE",
            CgSupport::UniformBatch => "UNIFORM_BATCH",
            CgSupport::Always => "ALWAYS",
        }
    }
}

/// As Python's `str()` of the member prints it (`AttentionCGSupport.UNIFORM_BATCH`), which vLLM's messages embed.
impl std::fmt::Display for CgSupport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AttentionCGSupport.{}", self.name())
    }
}

/// The backend class's `__name__`, as `min_cg_attn_backend` carries it into vLLM's messages.
pub fn backend_class(b: Backend) -> &'static str {
    match b {
        Backend::FlashInfer => "FlashInferBackend",
        Backend::FlashAttn => "FlashAttentionBackend",
        Backend::TritonAttn => "TritonAttentionBackend",
        Backend::FlexAttention => "FlexAttentionBackend",
        Backend::TurboQuant => "TurboQuantAttentionBackend",
        Backend::GdnAttn => "GDNAttentionBackend",
        Backend::Mamba2 => "Mamba2AttentionBackend",
        Backend::Mamba1 => "Mamba1AttentionBackend",
        Backend::Linear => "LinearAttentionBackend",
        Backend::ShortConv => "ShortConvAttentionBackend",
    }
}

/// The CUDA-graph support `g`'s builder declares in this release, and the step that says why. `model_q_heads` is
/// the model's query heads per rank (`model_config.get_num_attention_heads(parallel_config)`, which FlashInfer's
/// check reads rather than the group's); `non_causal` is `attention_config.use_non_causal` of the config the runner
/// passes.
pub fn support(p: &Platform, g: &GroupReport, model_q_heads: u32, non_causal: bool) -> (CgSupport, TraceStep) {
    use CgSupport::*;
    let (s, cite, why): (CgSupport, &Cite, String) = match g.backend {
        Backend::FlashInfer => flashinfer_support(p, g, model_q_heads, non_causal),
        Backend::FlashAttn => {
            let v = crate::selection::fa_version(p);
            let always = v == 3 || (p.release >= V0_33_0 && v == 4);
            let s = if always { Always } else { UniformBatch };
            let rule = if p.release >= V0_33_0 { "FA3 or FA4" } else { "FA3" };
            (
                s,
                &source::CG_FA_SUPPORT,
                format!("FlashAttention {v} on {}: ALWAYS only on {rule}", p.arch()),
            )
        }
        Backend::TritonAttn => (Always, &source::CG_TRITON_SUPPORT, "the class attribute".into()),
        Backend::FlexAttention => (Always, &source::CG_FLEX_SUPPORT, "the class attribute".into()),
        Backend::TurboQuant => (UniformBatch, &source::CG_TURBOQUANT_SUPPORT, "the class attribute".into()),
        Backend::GdnAttn => (UniformBatch, &source::CG_GDN_SUPPORT, "the class attribute".into()),
        Backend::Mamba2 | Backend::Mamba1 | Backend::ShortConv => (
            UniformBatch,
            &source::CG_MAMBA_SUPPORT,
            "BaseMambaAttentionMetadataBuilder's class attribute".into(),
        ),
        Backend::Linear => (
            UniformSingleTokenDecode,
            &source::CG_LINEAR_SUPPORT,
            "LinearAttentionMetadataBuilder's class attribute (qpath cannot model this: Bailing's builder, \
             UNIFORM_BATCH)"
                .into(),
        ),
    };
    let mut t = trace(p);
    t.step(
        Some(cite),
        format!("{} CUDA-graph support", backend_class(g.backend)),
        format!("{why} → {s}"),
    );
    (s, t.steps.remove(0))
}

/// `FlashInferMetadataBuilder.get_cudagraph_support`, first match wins: the support, the deciding line, why.
fn flashinfer_support(p: &Platform, g: &GroupReport, q_heads: u32, non_causal: bool) -> (CgSupport, &'static Cite, String) {
    use CgSupport::{UniformBatch as Batch, UniformSingleTokenDecode as Single};
    let r = p.release;
    if r >= V0_30_0 && p.dcp > 1 {
        let why = format!(
            "decode_context_parallel_size {}: XQA has no LSE, trtllm-gen varlen not graphed",
            p.dcp
        );
        return (Single, &source::CG_FI_DCP, why);
    }
    if r >= V0_33_0 && p.cc.to_int() < 90 {
        let s = if non_causal { Single } else { Batch };
        let why = format!(
            "{} below SM90: native decode is fa2, uniform {}causal queries",
            p.arch(),
            if non_causal { "non-" } else { "" }
        );
        return (s, &source::CG_FI_FA2_NATIVE, why);
    }
    if r >= V0_25_0Prefix && r < V0_30_0 && p.is_cc(90) {
        return (
            Single,
            &source::CG_FI_SM90,
            "SM90: the XQA integration graphs single-token decodes only".into(),
        );
    }
    let sm12x = p.is_family(120);
    if r >= V0_28_0 && r < V0_30_0 && sm12x && p.dcp > 1 {
        return (
            Single,
            &source::CG_FI_SM12X_DCP,
            format!("SM12x with decode_context_parallel_size {}", p.dcp),
        );
    }
    if let Some(why) = spec_refusal(p, g, q_heads) {
        return (Single, &source::CG_FI_SPEC_CHECK, why);
    }
    let xqa_arch = p.is_cc(90) || sm12x;
    let causal_ok = if r < V0_26_0 {
        true
    } else if r < V0_28_0 {
        !non_causal
    } else if r < V0_30_0 {
        sm12x || !non_causal
    } else {
        xqa_arch || !non_causal
    };
    let heads = format!("can_use_trtllm_attention({q_heads}, {}) on {}", g.num_kv_heads, p.arch());
    if causal_ok {
        (Batch, &source::CG_FI_UNIFORM_BATCH, heads)
    } else {
        (Single, &source::CG_FI_UNIFORM_BATCH, format!("{heads}, but use_non_causal"))
    }
}

/// Why the group's layer spec fails the per-spec test: `can_use_trtllm_attention(model heads, kv heads,
/// is_prefill=False)`; from 0.30.0 on an XQA arch (SM90, SM12x) also `_is_xqa_head_dim_supported`, and from 0.32.0 an
/// NVFP4 cache on SM90.
fn spec_refusal(p: &Platform, g: &GroupReport, q_heads: u32) -> Option<String> {
    if !crate::trtllm::can_use(p, q_heads, g.num_kv_heads, false) {
        let why = if p.force_trtllm == Some(false) {
            "use_trtllm_attention=False".to_string()
        } else if !crate::trtllm::supports(p, false) {
            crate::trtllm::supports_reason(p, false)
        } else {
            format!("{q_heads} query heads not divisible by {} KV heads", g.num_kv_heads)
        };
        return Some(format!("can_use_trtllm_attention is False ({why})"));
    }
    let (r, sm12x) = (p.release, p.is_family(120));
    if r < V0_30_0 || !(p.is_cc(90) || sm12x) {
        return None;
    }
    if r >= V0_32_0 && !sm12x && crate::builder::is_nvfp4(r, &g.cache_dtype) {
        return Some(format!("an {} KV cache on SM90 (XQA)", g.cache_dtype));
    }
    let h = g.head_dim;
    (!((16..=256).contains(&h) && h % 16 == 0))
        .then(|| format!("head_dim {h}: XQA needs a multiple of 16 in [16, 256] (_is_xqa_head_dim_supported)"))
}

/// What the runner resolves `cudagraph_mode` to once the attention backends are known.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CudaGraphReport {
    /// The mode before the backend downgrades (`p.graphs.mode`).
    pub requested: String,
    /// What set it (`p.graphs.set_by`).
    pub set_by: String,
    /// The resolved `cudagraph_mode` (the requested one when `error` is set: vLLM stops there).
    pub mode: String,
    /// The minimum over the groups; `None` without groups (vLLM then keeps `ALWAYS`).
    pub support: Option<CgSupport>,
    /// The class of the first group with that minimum; `None` when the minimum is `ALWAYS` (vLLM's
    /// `min_cg_attn_backend` stays `None`: it takes a backend only below `ALWAYS`).
    pub min_backend: Option<String>,
    /// Each group's support, in the order of the groups given (vLLM asks every group's builder class).
    pub group_support: Vec<Option<CgSupport>>,
    /// The `ValueError` vLLM raises at engine start (in `initialize_kv_cache`, before any forward), or `None`.
    pub error: Option<ScenarioError>,
    /// The downgrade warnings, each with the line of its `logger.warning(` call.
    pub log_records: Vec<LogRecord>,
    pub trace: Vec<TraceStep>,
}

/// `CUDAGraphMode`'s members as (decode mode, mixed mode): `FULL_DECODE_ONLY` = (FULL, NONE), `FULL_AND_PIECEWISE` =
/// (FULL, PIECEWISE), the plain modes both.
fn split_mode(mode: &str) -> Option<(&'static str, &'static str)> {
    Some(match mode {
        "NONE" => ("NONE", "NONE"),
        "PIECEWISE" => ("PIECEWISE", "PIECEWISE"),
        "FULL" => ("FULL", "FULL"),
        "FULL_DECODE_ONLY" => ("FULL", "NONE"),
        "FULL_AND_PIECEWISE" => ("FULL", "PIECEWISE"),
        _ => return None,
    })
}

fn trace(p: &Platform) -> Trace {
    let mut t = Trace::new(p.release);
    t.flashinfer = p.flashinfer;
    t
}

/// The runner's CUDA-graph resolution: every group's support (target and drafter groups; a drafter group reads
/// `use_non_causal` as `non_causal_drafter`, a target group as False), their minimum, and
/// `resolve_cudagraph_mode_and_sizes` with `uniform_decode_query_len = 1 + num_speculative_tokens`.
pub fn resolve(
    p: &Platform,
    groups: &[GroupReport],
    model_q_heads: u32,
    num_speculative_tokens: u32,
    non_causal_drafter: bool,
) -> CudaGraphReport {
    let mut t = trace(p);
    let mut trace_steps = Vec::new();
    let mut min: Option<(CgSupport, Option<&'static str>)> = None;
    let mut group_support = Vec::new();
    for g in groups {
        let non_causal = g.role == GroupRole::Drafter && non_causal_drafter;
        let (s, step) = support(p, g, model_q_heads, non_causal);
        trace_steps.push(step);
        group_support.push(Some(s));
        let (m, _) = min.get_or_insert((CgSupport::Always, None));
        if s < *m {
            min = Some((s, Some(backend_class(g.backend))));
        }
    }
    let (support, backend) = min.map_or((None, None), |(s, b)| (Some(s), b));
    let udql = 1 + num_speculative_tokens;
    t.steps = trace_steps;
    t.step(
        Some(&source::CG_MIN_SUPPORT),
        "min_cg_support",
        match (support, backend) {
            (None, _) => "no attention groups: ALWAYS, no backend".to_string(),
            (Some(s), None) => format!("{s} in every group: min_cg_attn_backend stays None"),
            (Some(s), Some(b)) => format!("{s} from {b} (the first group at the minimum)"),
        },
    );
    t.step(
        Some(&source::CG_UNIFORM_DECODE_QUERY_LEN),
        "uniform_decode_query_len",
        format!("1 + {num_speculative_tokens} speculative tokens = {udql}"),
    );
    let min_support = support.unwrap_or(CgSupport::Always);
    let outcome = downgrade(&mut t, &p.graphs.mode, min_support, backend, udql);
    let (mode, error) = match outcome {
        Ok(mode) => (mode, None),
        Err(e) => (p.graphs.mode.clone(), Some(e)),
    };
    CudaGraphReport {
        requested: p.graphs.mode.clone(),
        set_by: p.graphs.set_by.clone(),
        mode,
        support,
        min_backend: backend.map(str::to_string),
        group_support,
        error,
        log_records: t.records,
        trace: t.steps,
    }
}

/// `resolve_cudagraph_mode_and_sizes`' three downgrades in order, each logging its `msg`; the mixed-FULL check raises
/// under `NEVER`. Splitting ops contain attention (the VLLM_COMPILE default, see the module doc), so the downgrades
/// keep piecewise graphs. The final `NEVER` check is unreachable after them.
fn downgrade(t: &mut Trace, requested: &str, min: CgSupport, backend: Option<&str>, udql: u32) -> Result<String, ScenarioError> {
    let b = backend.unwrap_or("None");
    let Some(mut modes) = split_mode(requested) else {
        t.step(
            Some(&source::CG_RESOLVE_MODE),
            "cudagraph_mode",
            format!("qpath cannot model this: cudagraph_mode {requested} is not a CUDAGraphMode member"),
        );
        return Ok(requested.to_string());
    };
    let mut mode = requested.to_string();
    if modes.0 == "NONE" && modes.1 == "NONE" {
        t.step(
            Some(&source::CG_RESOLVE_MODE),
            "cudagraph_mode",
            "NONE: no CUDA graphs, nothing to resolve",
        );
        return Ok(mode);
    }
    if modes.1 == "FULL" && min != CgSupport::Always {
        let msg = format!("CUDAGraphMode.{mode} is not supported with {b} backend (support: {min})");
        if min == CgSupport::Never {
            let cite = &source::CG_MIXED_FULL_NEVER;
            t.step(Some(cite), "full graphs of mixed batches", format!("{min}: ValueError"));
            return Err(ScenarioError {
                kind: ScenarioErrorKind::ValueError,
                message: format!("{msg}; please try cudagraph_mode=PIECEWISE, and make sure compilation mode is VLLM_COMPILE"),
                source: cite.at(t.release).map(|s| s.short()),
            });
        }
        mode = "FULL_AND_PIECEWISE".into();
        warn(
            t,
            &source::CG_MIXED_FULL_WARNING,
            "full graphs of mixed batches",
            format!("{msg}; setting cudagraph_mode={mode}"),
        );
    }
    modes = split_mode(&mode).unwrap_or(modes);
    if modes.0 == "FULL" && min == CgSupport::Never {
        let msg = format!("CUDAGraphMode.{mode} is not supported with {b} backend (support: {min})");
        mode = "PIECEWISE".into();
        let text = format!("{msg}; setting cudagraph_mode=PIECEWISE because attention is compiled piecewise");
        warn(t, &source::CG_DECODE_FULL_NEVER_WARNING, "full graphs of decodes", text);
    }
    modes = split_mode(&mode).unwrap_or(modes);
    if modes.0 == "FULL" && udql > 1 && min < CgSupport::UniformBatch {
        let msg = format!("CUDAGraphMode.{mode} is not supported with spec-decode for attention backend {b} (support: {min})");
        mode = "PIECEWISE".into();
        warn(
            t,
            &source::CG_SPEC_DECODE_WARNING,
            "full graphs of spec-decode verification",
            format!("{msg}; setting cudagraph_mode=PIECEWISE"),
        );
    }
    t.step(
        Some(&source::CG_RESOLVE_MODE),
        "cudagraph_mode",
        format!("{requested} → {mode} ({min})"),
    );
    Ok(mode)
}

/// A downgrade: its trace step and its `logger.warning(msg)` record.
fn warn(t: &mut Trace, cite: &Cite, rule: &str, text: String) {
    t.step(Some(cite), rule, text.clone());
    t.warn(cite, text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::Release;

    #[test]
    fn names_order_and_display_follow_the_python_enum() {
        for s in CgSupport::ALL {
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{}\"", s.name()));
        }
        assert!(CgSupport::ALL.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            CgSupport::UniformSingleTokenDecode.to_string(),
            "AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE"
        );
    }

    /// The mixed-FULL check raises under NEVER (no qpath backend declares NEVER, so only this test reaches it).
    #[test]
    fn mixed_full_with_never_raises_and_decode_full_with_never_goes_piecewise() {
        let mut t = Trace::new(Release::V0_33_0);
        let e = downgrade(&mut t, "FULL", CgSupport::Never, Some("XBackend"), 1).unwrap_err();
        assert_eq!(
            e.message,
            "CUDAGraphMode.FULL is not supported with XBackend backend (support: AttentionCGSupport.NEVER); please \
             try cudagraph_mode=PIECEWISE, and make sure compilation mode is VLLM_COMPILE"
        );
        assert_eq!(e.source.as_deref(), Some("vllm/config/compilation.py:1410"));
        let mut t = Trace::new(Release::V0_24_0);
        let mode = downgrade(&mut t, "FULL_DECODE_ONLY", CgSupport::Never, Some("XBackend"), 4).unwrap();
        assert_eq!(mode, "PIECEWISE");
        assert_eq!(
            t.records.iter().map(|r| (r.line, r.text.as_str())).collect::<Vec<_>>(),
            [(
                1385,
                "CUDAGraphMode.FULL_DECODE_ONLY is not supported with XBackend backend (support: \
                 AttentionCGSupport.NEVER); setting cudagraph_mode=PIECEWISE because attention is compiled piecewise"
            )]
        );
    }
}
