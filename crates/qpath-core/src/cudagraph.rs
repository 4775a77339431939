//! CUDA graphs after the attention backends are known: each attention group's CUDA-graph support (its metadata
//! builder's `get_cudagraph_support`, or the `_cudagraph_support` class attribute it returns), the minimum over every
//! group (drafter layers included) the model runner takes, and `CompilationConfig.resolve_cudagraph_mode_and_sizes`
//! (`vllm/config/compilation.py`): the downgrades of the requested `cudagraph_mode`, with vLLM's warnings, and the
//! `ValueError` it raises. Both runners (V1 `_check_and_update_cudagraph_mode`, V2 `get_attn_cg_support`) take the
//! same minimum. `docs/source-notes/cuda-graphs.md` has the statements per release and what is not modelled.

use crate::attention::{Backend, CgSupport, GroupRole};
use crate::platform::Platform;
use crate::report::{CudaGraphReport, GroupReport, ScenarioError, ScenarioErrorKind, TraceStep};
use crate::source::{self, Cite};
use crate::trace::Trace;

/// The backend class's `__name__`, as `min_cg_attn_backend` carries it into vLLM's messages.
pub fn backend_class(p: &Platform, b: Backend) -> &'static str {
    crate::backends::mla::class_name_at(b, p.release).unwrap_or_else(|| crate::backends::rules(b).class_name())
}

/// The CUDA-graph support `g`'s builder declares in this release, and the step that says why. `model_q_heads` is
/// the model's query heads per rank (`model_config.get_num_attention_heads(parallel_config)`, which FlashInfer's
/// check reads rather than the group's); `non_causal` is `attention_config.use_non_causal` of the config the runner
/// passes.
pub fn support(p: &Platform, g: &GroupReport, model_q_heads: u32, non_causal: bool) -> (CgSupport, TraceStep) {
    if g.attention == crate::report::AttentionKind::ChunkedLocal {
        // `create_chunked_local_attention_backend` subclasses the selected backend; its builder overrides
        // `get_cudagraph_support` to NEVER whatever the backend's own (every release 0.20.0-0.33.0).
        let mut t = trace(p);
        t.step(
            Some(&source::CHUNKED_LOCAL_CG_NEVER),
            format!("{} CUDA-graph support", group_class(p, g)),
            format!(
                "the chunked local attention builder returns AttentionCGSupport.NEVER, whatever {}'s own support → {}",
                backend_class(p, g.backend),
                CgSupport::Never
            ),
        );
        return (CgSupport::Never, t.steps.remove(0));
    }
    let rules = crate::backends::rules(g.backend);
    let d = rules.cudagraph_support(p, g, model_q_heads, non_causal);
    let mut t = trace(p);
    t.step(
        Some(d.cite),
        format!("{} CUDA-graph support", backend_class(p, g.backend)),
        format!("{} → {}", d.why, d.support),
    );
    (d.support, t.steps.remove(0))
}

/// The class `min_cg_attn_backend` names for a group: its backend's, or for chunked local attention the subclass
/// `ChunkedLocalAttention_{attention_chunk_size}_{class}` (`source::CHUNKED_LOCAL_BACKEND_NAME`).
fn group_class(p: &Platform, g: &GroupReport) -> String {
    let class = backend_class(p, g.backend);
    match (g.attention, p.attention_chunk_size) {
        (crate::report::AttentionKind::ChunkedLocal, Some(c)) => format!("ChunkedLocalAttention_{c}_{class}"),
        _ => class.to_string(),
    }
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
    let mut min: Option<(CgSupport, Option<String>)> = None;
    let mut group_support = Vec::new();
    for g in groups {
        let non_causal = g.role == GroupRole::Drafter && non_causal_drafter;
        let (s, step) = support(p, g, model_q_heads, non_causal);
        trace_steps.push(step);
        group_support.push(Some(s));
        let (m, _) = min.get_or_insert((CgSupport::Always, None));
        if s < *m {
            min = Some((s, Some(group_class(p, g))));
        }
    }
    let (support, backend) = min.map_or((None, None), |(s, b)| (Some(s), b));
    let backend = backend.as_deref();
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
fn warn(t: &mut Trace, cite: &Cite, rule: &'static str, text: String) {
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

    /// The mixed-FULL check raises under NEVER (only 0.20.0-0.21.0's TRITON_MLA builder declares NEVER, the base
    /// builder's class attribute; golden_old_platform reaches it with `-cc.cudagraph_mode FULL`).
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
