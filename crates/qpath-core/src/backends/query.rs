//! The attention layer's query quantization and its scale, which every backend shares
//! (`vllm/model_executor/layers/attention/attention.py`, `vllm/model_executor/layers/quantization/kv_cache.py`;
//! `docs/source-notes/flash-attn.md` §6–7 restate them per release).
//!
//! - `Attention.__init__` builds `query_quant` (`QuantFP8(static=True)`, per tensor, or per KV-head group when the
//!   layer's `q_scale` has one value per KV head) when the backend's impl sets `supports_quant_query_input` and the
//!   layer's own cache dtype starts with `fp8` or is NVFP4 (`== "nvfp4"` before 0.28.0, `startswith("nvfp4")` from
//!   it), and does not end with `per_token_head` (every release). Its forward then asserts the cache dtype is `fp8` /
//!   `fp8_e4m3` / NVFP4 (a bare `AssertionError` for `fp8_e5m2`, in the memory profile's forward at engine start) and
//!   quantizes the query to `float8_e4m3fn` with `layer._q_scale`.
//! - `_q_scale` is 1.0 unless a KV-scale quant method loads one: none without a `quantization_config` (nothing warns);
//!   compressed-tensors' method starts at ones and copies the checkpoint's scales (nothing warns); `fp8` / ModelOpt
//!   checkpoints use `BaseKVCacheMethod`, which warns "Checkpoint does not provide a q scaling factor. Setting it to
//!   k_scale. …" when the checkpoint has no q_scale and four statements later sets it to 1.0 anyway.

use super::GroupContext;
use crate::attention::{GroupErrorKind, Stage};
use crate::dtype::TorchDtype;
use crate::model::KvScheme;
use crate::platform::Platform;
use crate::report::{GroupError, QueryQuant};
use crate::source;
use crate::trace::Trace;

/// Whether `Attention.__init__` builds `query_quant` for a layer whose cache dtype is `kv` on an impl that does
/// (`impl_takes`) or does not take a quantized query ([`source::FA_ATTN_QUERY_QUANT_COND`]).
pub fn builds_query_quant(p: &Platform, kv: &str, impl_takes: bool) -> bool {
    let nvfp4 = super::flashinfer::is_nvfp4(p.release, kv);
    impl_takes && (kv.starts_with("fp8") || nvfp4) && !kv.ends_with("per_token_head")
}

/// What the layer's query quantization does for a group whose impl takes a quantized query (`impl_takes`, with the
/// statement that says so): the query dtype both phases receive, the quantization's scale, and the memory profile's
/// assert for a cache dtype it cannot quantize for (`fp8_e5m2`). Writes its trace steps.
pub struct LayerQuery {
    /// The dtype the kernel receives in both phases (the layer quantizes every forward alike).
    pub q_dtype: TorchDtype,
    pub quant: Option<QueryQuant>,
    /// The bare `AssertionError` of `Attention.forward`, at the memory profile's forward.
    pub error: Option<GroupError>,
}

/// The layer's query: quantized to `float8_e4m3fn` when [`builds_query_quant`], else the model dtype.
pub fn layer_query(
    p: &Platform,
    cx: &GroupContext,
    kv: &str,
    (impl_takes, why_takes): (bool, &str),
    kv_heads: u32,
    t: &mut Trace,
) -> LayerQuery {
    if !builds_query_quant(p, kv, impl_takes) {
        let why = if !impl_takes {
            format!("{why_takes}: the layer builds no query_quant")
        } else {
            format!("kv_cache_dtype {kv:?} is not FP8 / NVFP4 (or is per-token-head): the layer builds no query_quant")
        };
        t.step(
            Some(&source::FA_ATTN_QUERY_QUANT_COND),
            "query quantization by the attention layer",
            format!("{why}; the query stays {}", p.model_dtype),
        );
        return LayerQuery {
            q_dtype: p.model_dtype,
            quant: None,
            error: None,
        };
    }
    t.step(
        Some(&source::FA_ATTN_QUERY_QUANT),
        "query quantization by the attention layer",
        format!(
            "{why_takes} and kv_cache_dtype {kv:?}: the layer quantizes the query to {} (static QuantFP8) in every \
             forward, prefill and decode alike",
            TorchDtype::Float8E4m3fn
        ),
    );
    let accepted = kv == "fp8" || kv == "fp8_e4m3" || super::flashinfer::is_nvfp4(p.release, kv);
    if !accepted {
        let cite = source::ATTN_LAYER_QUERY_QUANT_ASSERT;
        t.step(
            Some(&cite),
            "raises AssertionError",
            format!(
                "Attention.forward asserts the cache dtype is one it quantizes the query for; {kv:?} is not: {}",
                crate::attention::BARE_ASSERT
            ),
        );
        let error = GroupError {
            kind: GroupErrorKind::AssertionError,
            message: String::new(),
            stage: Stage::ProfileRun,
            source: cite.at(p.release).map(|s| s.short()),
            raised_in: "Attention.forward (the memory profile's forward pass)".to_string(),
        };
        return LayerQuery {
            q_dtype: TorchDtype::Float8E4m3fn,
            quant: None,
            error: Some(error),
        };
    }
    let quant = scale(cx, kv, kv_heads, t);
    LayerQuery {
        q_dtype: TorchDtype::Float8E4m3fn,
        quant: Some(quant),
        error: None,
    }
}

/// `_q_scale` after weight loading, per the checkpoint's quant method ([`source::FA_ATTN_INIT_KV_QUANT`]).
fn scale(cx: &GroupContext, kv: &str, kv_heads: u32, t: &mut Trace) -> QueryQuant {
    let ckpt = cx.engine.checkpoint;
    let per_head = ckpt.is_some_and(|c| c.per_head_scales()) && kv_heads > 1;
    let granularity = if per_head { "per_kv_head" } else { "per_tensor" }.to_string();
    let Some(c) = ckpt else {
        let why = "no quantization_config: no KV-scale quant method, so nothing loads a scale and \
                   set_default_quant_scales leaves q/k/v scales at 1.0; vLLM warns nothing beyond the CacheConfig line \
                   \"… may cause accuracy drop without a proper scaling factor\""
            .to_string();
        t.step(
            Some(&source::FA_ATTN_DEFAULT_SCALES),
            "query scale",
            format!("_q_scale = 1.0: {why}"),
        );
        return QueryQuant {
            granularity,
            q_scale: "1.0".into(),
            why,
        };
    };
    if matches!(c.scheme, KvScheme::CompressedTensors(_)) || c.method == "compressed-tensors" {
        let why = "compressed-tensors' KV-cache method starts every scale at 1.0 (torch.ones) and copies the \
                   checkpoint's q/k/v scales; a missing q_scale stays 1.0 and vLLM warns nothing"
            .to_string();
        t.step(
            Some(&source::FA_CT_KV_Q_SCALE_ONES),
            "query scale",
            format!("_q_scale: {why}"),
        );
        return QueryQuant {
            granularity,
            q_scale: "checkpoint".into(),
            why,
        };
    }
    if c.loads_kv_scales() {
        let mut why = format!(
            "the {} checkpoint's BaseKVCacheMethod loads q_scale when the checkpoint stores one (qpath cannot model \
             this: whether its weights hold q_scale); without it vLLM logs \"Checkpoint does not provide a q scaling \
             factor. Setting it to k_scale. This only matters for FP8 Attention backends (flash-attn or flashinfer).\" \
             and then sets _q_scale to 1.0, not k_scale",
            if c.method.is_empty() { "quantized" } else { &c.method }
        );
        if kv == "fp8" {
            why.push_str(
                "; with --kv-cache-dtype fp8 it also warns \"Using uncalibrated q_scale 1.0 and/or prob_scale 1.0 with \
                 fp8 attention. …\" whenever q_scale or prob_scale is 1.0",
            );
        }
        t.step(Some(&source::FA_KVC_Q_SCALE_WARN), "query scale", format!("_q_scale: {why}"));
        t.step(
            Some(&source::FA_KVC_Q_SCALE_ONE),
            "query scale without a checkpoint q_scale",
            "q_scale = layer.q_scale if it is positive, else 1.0; then layer._q_scale.copy_(q_scale) overwrites the \
             k_scale the warning names",
        );
        return QueryQuant {
            granularity,
            q_scale: "checkpoint, else 1.0".into(),
            why,
        };
    }
    let why = format!(
        "the checkpoint's quantization_config ({}) gives the attention layers no KV-scale method qpath knows of, so \
         set_default_quant_scales leaves _q_scale at 1.0 (qpath cannot model this: a quant method that loads scales \
         for attention layers other than fp8, ModelOpt and compressed-tensors)",
        if c.method.is_empty() { "no quant_method" } else { &c.method }
    );
    t.step(
        Some(&source::FA_ATTN_DEFAULT_SCALES),
        "query scale",
        format!("_q_scale = 1.0: {why}"),
    );
    QueryQuant {
        granularity,
        q_scale: "1.0".into(),
        why,
    }
}
