//! TurboQuant's effects on the engine config (`EngineArgs.create_engine_config`, `vllm/engine/arg_utils.py`, every
//! release; UltraQuant's `ultraquant_4bit` too from 0.32.0): the boundary layers kept at the model dtype
//! (`TurboQuantConfig.get_boundary_skip_layers`, merged into `kv_cache_dtype_skip_layers`) and the forced
//! `flash_attn_version = 2` with its warning. `docs/source-notes/flex-turboquant-registry.md` §3.2.

use std::collections::BTreeSet;

use crate::model::{AttentionKind, ModelSpec};
use crate::release::Release;
use crate::report::{LogLevel, LogRecord, Note, Report, ScenarioError, ScenarioErrorKind};
use crate::serve::python::{py_int, py_str_repr};
use crate::serve::ServeCommand;
use crate::source::{self, Cite};

/// The packed-KV backend a resolved cache dtype names (`uses_packed_kv_backend`): `TurboQuant` for `turboquant_*`,
/// `UltraQuant` for `ultraquant_4bit` (0.32.0+, [`source::ULTRAQUANT_ARGS_PACKED`]).
pub fn packed_kv_backend(r: Release, kv: &str) -> Option<&'static str> {
    if kv.starts_with("turboquant_") {
        Some("TurboQuant")
    } else if r >= Release::V0_32_0 && kv == "ultraquant_4bit" {
        Some("UltraQuant")
    } else {
        None
    }
}

fn error(r: Release, kind: ScenarioErrorKind, message: String, cite: Option<&Cite>) -> ScenarioError {
    ScenarioError {
        kind,
        message,
        source: cite.and_then(|c| c.at(r)).map(|s| s.short()),
    }
}

fn at(r: Release, cite: &Cite) -> String {
    cite.at(r).map(|s| s.short()).unwrap_or_default()
}

/// TurboQuant's config-time effects, in `create_engine_config`'s order, on the command (`cmd`, whose cache dtype is
/// the resolved one: `--kv-cache-dtype`, or the checkpoint's under `auto`) and the report's notes:
///
/// 1. right after `CacheConfig` is built ([`source::TURBOQUANT_ARGS_BOUNDARY`]): the boundary layers
///    ([`boundary_layers`]) join `kv_cache_dtype_skip_layers`, sorted with `key=int` before 0.32.0 (a token `int()`
///    refuses, such as `sliding_window`, raises ValueError there) and as strings from it
///    ([`source::TURBOQUANT_ARGS_SKIP_SORT`]); `Attention.__init__` then gives those layers the cache dtype `auto`;
/// 2. with the attention config ([`source::TURBOQUANT_FA2_OVERRIDE`]): `flash_attn_version` None or >= 3 becomes 2,
///    with a plain `logger.warning` ([`source::TURBOQUANT_FA2_WARNING`]), so every FLASH_ATTN layer and TurboQuant's
///    own prefill run FlashAttention 2 on every GPU.
///
/// Returns the log records (the hybrid model's info line from 0.21.0, 0.20.x's skip-list info line, the warning) in
/// that order.
pub fn engine_config(
    r: Release,
    spec: &ModelSpec,
    cmd: &mut ServeCommand,
    report: &mut Report,
) -> Result<Vec<LogRecord>, ScenarioError> {
    let Some(name) = packed_kv_backend(r, &cmd.kv_cache_dtype) else {
        return Ok(Vec::new());
    };
    let at_call = (r, r.flashinfer_pin());
    let mut records = Vec::new();
    let boundary = boundary_layers(r, spec, &cmd.kv_cache_dtype, report, &mut records)?;
    cmd.kv_cache_dtype_skip_layers = merged_skip_list(r, &cmd.kv_cache_dtype_skip_layers, &boundary)?;
    if r < Release::V0_21_0 {
        // 0.20.x logs the merged list (arg_utils.py L1691, [`source::TURBOQUANT_ARGS_SKIP_LOG`]):
        // "TQ: skipping layers %s for boundary protection (num_layers=%d)", a Python list of strings.
        let shown: Vec<String> = cmd.kv_cache_dtype_skip_layers.iter().map(|t| py_str_repr(t)).collect();
        records.push(LogRecord::new(
            LogLevel::Info,
            &source::TURBOQUANT_ARGS_SKIP_LOG,
            at_call,
            format!(
                "TQ: skipping layers [{}] for boundary protection (num_layers={})",
                shown.join(", "),
                spec.decoder_layers
            ),
        ));
    }
    if cmd.attention_config.flash_attn_version.is_none_or(|v| v >= 3) {
        let was = cmd
            .attention_config
            .flash_attn_version
            .map_or("unset".to_string(), |v| v.to_string());
        records.push(LogRecord::new(
            LogLevel::Warning,
            &source::TURBOQUANT_FA2_WARNING,
            at_call,
            format!(
                "{name} is not yet compatible with FlashAttention >= 3. Overriding flash_attn_version to 2. To \
                 silence this warning, pass --attention-config.flash_attn_version=2"
            ),
        ));
        report.notes.push(Note::info(format!(
            "--kv-cache-dtype {}: vLLM sets attention_config.flash_attn_version = 2 (was {was}; {}), so the \
             FLASH_ATTN layers and {name}'s prefill run FlashAttention 2 on this GPU.",
            cmd.kv_cache_dtype,
            at(r, &source::TURBOQUANT_FA2_OVERRIDE)
        )));
        cmd.attention_config.flash_attn_version = Some(2);
    }
    Ok(records)
}

/// `TurboQuantConfig.get_boundary_skip_layers(model_config)` ([`source::TURBOQUANT_BOUNDARY_DEF`], the same code from
/// 0.21.0; 0.20.x's takes `num_layers`, and `create_engine_config` raises for a hybrid model before calling it,
/// [`source::TURBOQUANT_ARGS_HYBRID_RAISE`]): a hybrid model keeps none (it logs its full-attention layers, and raises NotImplementedError when
/// it finds none); a dense one keeps `min(2, L // 2)` layers at each end of its `L = num_hidden_layers`
/// ([`source::TURBOQUANT_BOUNDARY_N`]), as strings.
fn boundary_layers(
    r: Release,
    spec: &ModelSpec,
    kv: &str,
    report: &mut Report,
    records: &mut Vec<LogRecord>,
) -> Result<Vec<String>, ScenarioError> {
    if r < Release::V0_21_0 && spec.hybrid.is_some() {
        // 0.20.x: `if model_config.is_hybrid: raise NotImplementedError(…)` (arg_utils.py L1677).
        return Err(error(
            r,
            ScenarioErrorKind::NotImplementedError,
            "TurboQuant KV cache is not supported for hybrid (attention + Mamba) models. Boundary layer protection \
             requires uniform attention layers."
                .into(),
            Some(&source::TURBOQUANT_ARGS_HYBRID_RAISE),
        ));
    }
    if spec.hybrid.is_some() {
        // `_get_full_attention_layer_indices`: `layer_types` "full_attention"/"attention" (Qwen3-Next), else
        // `layers_block_type` "attention"/"hybrid" (NemotronH's `*`): the model's full-attention layers.
        let full: Vec<String> = spec
            .layers
            .iter()
            .filter(|l| l.kind == AttentionKind::Full)
            .map(|l| l.index.to_string())
            .collect();
        if full.is_empty() {
            return Err(error(
                r,
                ScenarioErrorKind::NotImplementedError,
                "TurboQuant KV cache requires identifiable full-attention layers, but none were found in the hybrid \
                 model config."
                    .into(),
                Some(&source::TURBOQUANT_BOUNDARY_HYBRID_RAISE),
            ));
        }
        records.push(LogRecord::new(
            LogLevel::Info,
            &source::TURBOQUANT_BOUNDARY_HYBRID_LOG,
            (r, r.flashinfer_pin()),
            format!("TQ hybrid: full-attention layers [{}]", full.join(", ")),
        ));
        report.notes.push(Note::info(format!(
            "--kv-cache-dtype {kv} on a hybrid model: TurboQuant keeps no boundary layers at the model dtype \
             (get_boundary_skip_layers returns [] for a hybrid model, {}).",
            at(r, &source::TURBOQUANT_BOUNDARY_HYBRID_LOG)
        )));
        return Ok(Vec::new());
    }
    let layers = spec.decoder_layers;
    let n = 2.min(layers / 2);
    let mut indices: Vec<u32> = (0..n).chain(layers - n..layers).collect();
    indices.dedup();
    if !indices.is_empty() {
        let shown: Vec<String> = indices.iter().map(|i| i.to_string()).collect();
        report.notes.push(Note::info(format!(
            "--kv-cache-dtype {kv}: vLLM keeps layers {} (the first and last {n} of {layers}) at the model dtype: \
             TurboQuantConfig.get_boundary_skip_layers adds them to kv_cache_dtype_skip_layers ({}, {}), so they \
             select their backend as unquantized layers do.",
            shown.join(", "),
            at(r, &source::TURBOQUANT_ARGS_BOUNDARY),
            at(r, &source::TURBOQUANT_BOUNDARY_N)
        )));
    }
    Ok(indices.iter().map(|i| i.to_string()).collect())
}

/// `sorted(set(existing) | set(boundary), key=int)` before 0.32.0 (`key=lambda x: int(x)` in 0.20.x), `sorted(set(...) | set(...))` from it
/// ([`source::TURBOQUANT_ARGS_SKIP_SORT`]). `int()` of a token that is not an integer raises ValueError; with two or
/// more such tokens the one named depends on the set's order (string hashes are randomised per process), which qpath
/// cannot know.
fn merged_skip_list(r: Release, existing: &[String], boundary: &[String]) -> Result<Vec<String>, ScenarioError> {
    // Built by inserting and sorted with crate::order: `collect` into a BTreeSet and `sort` would put core's
    // driftsort into the page twice (about 3 KB gzip).
    let mut all: BTreeSet<&str> = BTreeSet::new();
    for t in existing.iter().chain(boundary) {
        all.insert(t);
    }
    if r >= Release::V0_32_0 {
        return Ok(all.into_iter().map(str::to_string).collect());
    }
    let refused: Vec<&str> = all.iter().copied().filter(|t| py_int(t).is_err()).collect();
    match refused.as_slice() {
        [] => {}
        [one] if one.is_ascii() => {
            return Err(error(
                r,
                ScenarioErrorKind::ValueError,
                format!("invalid literal for int() with base 10: {}", py_str_repr(one)),
                Some(&source::TURBOQUANT_ARGS_SKIP_SORT),
            ))
        }
        _ => {
            let shown: Vec<String> = refused.iter().map(|t| py_str_repr(t)).collect();
            return Err(error(
                r,
                ScenarioErrorKind::InputError,
                format!(
                    "{}: vLLM {r} sorts the TurboQuant skip list with key=int ({}), and int() of the token(s) {} \
                     raises ValueError \"invalid literal for int() with base 10: …\" (or, for non-ASCII digits, \
                     may not): which token it names depends on the set's iteration order, which qpath does not know",
                    crate::attention::QPATH_LIMIT,
                    at(r, &source::TURBOQUANT_ARGS_SKIP_SORT),
                    crate::serve::limits::capped_list(&shown)
                ),
                None,
            ));
        }
    }
    let mut sorted: Vec<(i128, &str)> = all
        .into_iter()
        .map(|t| (py_int(t).ok().flatten().unwrap_or(i128::MAX), t))
        .collect();
    crate::order::sort_by(&mut sorted, Ord::cmp);
    Ok(sorted.into_iter().map(|(_, t)| t.to_string()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn the_skip_list_sorts_by_int_before_0_32_0_and_as_strings_from_it() {
        let existing = s(&["10", "3"]);
        let boundary = s(&["0", "1", "30", "31"]);
        let old = merged_skip_list(Release::V0_31_0, &existing, &boundary).unwrap();
        assert_eq!(old, s(&["0", "1", "3", "10", "30", "31"]));
        let new = merged_skip_list(Release::V0_32_0, &existing, &boundary).unwrap();
        assert_eq!(new, s(&["0", "1", "10", "3", "30", "31"]));
    }

    #[test]
    fn a_token_int_refuses_raises_before_0_32_0_only() {
        let existing = s(&["sliding_window"]);
        let e = merged_skip_list(Release::V0_24_0, &existing, &s(&["0"])).unwrap_err();
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(e.message, "invalid literal for int() with base 10: 'sliding_window'");
        let kept = merged_skip_list(Release::V0_32_0, &existing, &s(&["0"])).unwrap();
        assert_eq!(kept, s(&["0", "sliding_window"]));
        // Two such tokens: which one int() meets first is the set's order.
        let e = merged_skip_list(Release::V0_31_0, &s(&["a", "b"]), &[]).unwrap_err();
        assert_eq!(e.kind, ScenarioErrorKind::InputError);
        // int() accepts whitespace, a sign and underscores.
        assert!(merged_skip_list(Release::V0_31_0, &s(&[" 7", "+1", "1_0"]), &[]).is_ok());
    }
}
