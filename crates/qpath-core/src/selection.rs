//! Attention-backend selection, per layer (`vllm/v1/attention/selector.py` → `vllm/platforms/cuda.py`
//! `get_attn_backend_cls`): a forced backend is validated alone; otherwise the release's priority list is walked and the
//! first backend whose `validate_configuration` (`vllm/v1/attention/backend.py`) returns no reason wins.
//!
//! Each backend's `validate_configuration` is its module's ([`crate::backends::BackendRules::reasons`]); this module
//! holds what is the platform's: the priority lists, the walk, the errors and log lines, the selector config's repr.

use crate::attention::Backend;
use crate::backends::LayerQuery;
use crate::platform::Platform;
use crate::release::Release::*;

/// `AttentionSelectorConfig.__repr__()` (`vllm/v1/attention/selector.py`, a NamedTuple whose `__repr__` is an
/// f-string): every field of the release, in its order, as Python formats it (`torch.bfloat16`, the cache dtype
/// string unquoted, `None`, `True`/`False`, `AttentionType.DECODER`, which is how Python 3.11+ formats a `str` enum
/// member; Python 3.10 would print `decoder`).
///
/// Fields qpath does not model print the value vLLM has for the scenarios qpath models: `use_mla`, `use_sparse`
/// False (no MLA / sparse model), `attn_type` `AttentionType.DECODER` (decoder self-attention), `use_kv_connector`
/// False (0.23.0+; qpath does not read `--kv-transfer-config`), `use_pcp` False (nor `--prefill-context-parallel-size`),
/// `use_adaptive_verification` False (nor the speculative config's `enable_adaptive_verification`), `use_rswa` False
/// (no model qpath reads has `rswa_window`).
pub fn selector_config_repr(p: &Platform, l: &LayerQuery) -> String {
    let r = p.release;
    let py = |b: bool| if b { "True" } else { "False" };
    let mut fields: Vec<(&str, String)> = vec![
        ("head_size", l.head_size.to_string()),
        ("dtype", p.model_dtype.torch_repr().to_string()),
        ("kv_cache_dtype", l.kv_cache_dtype.clone()),
        ("block_size", l.block_size.map_or("None".to_string(), |b| b.to_string())),
        ("use_mla", py(l.mla.is_some()).into()),
        ("has_sink", py(l.has_sinks).into()),
        ("use_sparse", py(l.mla.is_some_and(|m| m.sparse())).into()),
        ("use_mm_prefix", py(l.use_mm_prefix).into()),
        ("use_per_head_quant_scales", py(l.use_per_head_quant_scales).into()),
        ("attn_type", "AttentionType.DECODER".into()),
    ];
    if r >= V0_26_0 {
        fields.push(("has_sliding_window", py(l.sliding_window).into()));
    }
    fields.push(("use_non_causal", py(l.use_non_causal).into()));
    fields.push(("use_batch_invariant", py(p.batch_invariant).into()));
    // `use_kv_connector` joined the NamedTuple and its repr in 0.23.0 (selector.py:34@0.23.0); 0.20.0 - 0.22.1 end
    // the repr at `use_batch_invariant`.
    if r >= V0_23_0 {
        fields.push(("use_kv_connector", py(false).into()));
    }
    if r >= V0_28_0 {
        fields.push(("use_adaptive_verification", py(false).into()));
    }
    if r >= V0_26_0 {
        fields.push(("use_pcp", py(false).into()));
    }
    if r >= V0_29_0 {
        fields.push(("use_dcp", py(l.use_dcp).into()));
    }
    if r >= V0_30_0 {
        fields.push(("use_rswa", py(false).into()));
    }
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("AttentionSelectorConfig({})", body.join(", "))
}

/// The priority list (`_get_backend_priorities`, non-MLA, [`crate::source::CUDA_PRIORITIES`]): FlashInfer first on
/// compute capability 10.x, FlashAttention first elsewhere (0.26.0+: the 10.x list only for causal attention, which is
/// what qpath models). 0.30.0+: a layer that selects with `use_mm_prefix` tries a composite first: TRITON_FLASHINFER
/// on 10.x ([`crate::source::COMPOSITE_PRIORITY_SM100`]), TRITON_FLASH_ATTN on 9.x
/// ([`crate::source::COMPOSITE_PRIORITY_OTHER`]).
pub fn priorities(p: &Platform, l: &LayerQuery) -> Vec<Backend> {
    use Backend::*;
    if l.mla.is_some() {
        return crate::backends::mla::selection::priorities(p, l);
    }
    let composite = p.release >= V0_30_0 && l.use_mm_prefix;
    let mut list = Vec::with_capacity(6);
    if p.major() == 10 {
        // The 10.x list is vLLM's only for causal layers; a non-causal layer gets the other one, which has no
        // composite on 10.x.
        if composite && !l.use_non_causal {
            list.push(TritonFlashInfer);
        }
        list.extend([FlashInfer, FlashAttn, TritonAttn, FlexAttention, TurboQuant]);
    } else {
        if composite && p.major() == 9 {
            list.push(TritonFlashAttn);
        }
        list.extend([FlashAttn, FlashInfer, TritonAttn, FlexAttention, TurboQuant]);
    }
    list
}

/// `validate_configuration`'s reasons for one layer on backend `b` (its module restates them). A non-MLA backend's
/// module restates them for the layers it is built for; an MLA layer (the MLA backends' own rules know it) meets two
/// more generic reasons there (`vllm/v1/attention/backend.py`, every release, in this order): `MLA not supported`
/// ([`crate::source::MLA_SEL_REASON_MLA`]: `use_mla` and the class is not MLA) after the head-size, dtype,
/// cache-dtype, block-size and multimodal-prefix reasons, and, for a sparse layer, `sparse not supported`
/// ([`crate::source::MLA_SEL_REASON_SPARSE`]) after the sink reason (an MLA layer has no sinks, so right after it).
pub fn reasons(p: &Platform, b: Backend, l: &LayerQuery) -> Vec<String> {
    let mut reasons = crate::backends::rules(b).reasons(p, l);
    if let Some(m) = l.mla.filter(|_| !b.is_mla()) {
        const BEFORE_MLA: [&str; 5] = [
            "head_size not supported",
            "dtype not supported",
            "kv_cache_dtype not supported",
            "block_size not supported",
            "partial multimodal token full attention not supported",
        ];
        let at = reasons.iter().take_while(|r| BEFORE_MLA.contains(&r.as_str())).count();
        let mut generic = vec!["MLA not supported".to_string()];
        if m.sparse() {
            generic.push("sparse not supported".to_string());
        }
        reasons.splice(at..at, generic);
    }
    reasons
}

/// The outcome of selecting a backend for one layer.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    pub backend: Backend,
    /// Backends tried before it, with their reasons (empty when forced).
    pub rejected: Vec<(Backend, Vec<String>)>,
    /// Every valid candidate, in priority order (the log line lists them).
    pub valid: Vec<Backend>,
    pub forced: bool,
    /// With `--block-size` (and no forced backend): the higher-priority backends whose only reason was the block
    /// size, which vLLM names in a warning ([`crate::source::MLA_SEL_BLOCK_SIZE_PRECLUDED_LOG`], every release).
    pub precluded: Vec<Backend>,
}

impl Selection {
    /// The warning `get_attn_backend_cls` logs (`logger.warning`, before the chosen backend's line) when
    /// `--block-size` precluded higher-priority backends.
    pub fn precluded_warning(&self, block_size: Option<u32>) -> Option<String> {
        let bs = block_size?;
        if self.precluded.is_empty() {
            return None;
        }
        let names: Vec<&str> = self.precluded.iter().map(|b| b.name()).collect();
        Some(format!(
            "--block-size {bs} precluded higher-priority backend(s) {}. Using {} instead, which may result in reduced \
             performance. Consider removing --block-size to auto-select the optimal block size.",
            names.join(", "),
            self.backend.name()
        ))
    }
}

/// Why selection failed, as vLLM's ValueError says it.
#[derive(Clone, Debug, PartialEq)]
pub struct SelectionError {
    pub message: String,
    pub forced: bool,
    /// `Some(line)`: vLLM raises something qpath cannot spell at that line (the message says so), not the
    /// selector's ValueError.
    pub unmodelled: Option<&'static crate::source::Cite>,
}

fn python_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("'{s}'")).collect();
    format!("[{}]", quoted.join(", "))
}

pub fn select(p: &Platform, forced: Option<Backend>, l: &LayerQuery) -> Result<Selection, SelectionError> {
    if let Some(b) = forced {
        if let Some((message, cite)) = crate::backends::mla::selection::raises(b, p, l) {
            return Err(SelectionError {
                message,
                forced: true,
                unmodelled: Some(cite),
            });
        }
        let why = reasons(p, b, l);
        if !why.is_empty() {
            return Err(SelectionError {
                message: format!(
                    "Selected backend AttentionBackendEnum.{} is not valid for this configuration. Reason: {}",
                    b.name(),
                    python_list(&why)
                ),
                forced: true,
                unmodelled: None,
            });
        }
        return Ok(Selection {
            backend: b,
            rejected: vec![],
            valid: vec![b],
            forced: true,
            precluded: vec![],
        });
    }
    let mut rejected = Vec::new();
    let mut valid = Vec::new();
    for b in priorities(p, l) {
        let why = reasons(p, b, l);
        if why.is_empty() {
            valid.push(b);
        } else if valid.is_empty() {
            rejected.push((b, why));
        }
    }
    match valid.first() {
        Some(&backend) => {
            let precluded = if l.block_size.is_some() {
                let only_block = |why: &Vec<String>| why.len() == 1 && why[0] == crate::backends::BLOCK_SIZE_REASON;
                rejected.iter().filter(|(_, why)| only_block(why)).map(|(b, _)| *b).collect()
            } else {
                vec![]
            };
            Ok(Selection {
                backend,
                rejected,
                valid,
                forced: false,
                precluded,
            })
        }
        None => Err(SelectionError {
            message: no_valid_backend(p, l, &rejected),
            forced: false,
            unmodelled: None,
        }),
    }
}

/// `get_attn_backend_cls`'s ValueError when no backend is valid: `cls.device_name` ("cuda"), the selector config's
/// repr, and the reasons as its f-string builds them: `{NAME: [reason, reason], ...}`, unquoted, in priority order.
fn no_valid_backend(p: &Platform, l: &LayerQuery, rejected: &[(Backend, Vec<String>)]) -> String {
    let parts: Vec<String> = rejected
        .iter()
        .map(|(b, why)| format!("{}: [{}]", b.name(), why.join(", ")))
        .collect();
    format!(
        "No valid attention backend found for cuda with {}. Reasons: {{{}}}.",
        selector_config_repr(p, l),
        parts.join(", ")
    )
}
