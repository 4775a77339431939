//! Hybrid models: which decoder layers are recurrent (gated-delta-net linear attention, Mamba2) and which are
//! attention, per vLLM model file, and the recurrent state those layers keep instead of a KV cache.
//!
//! - `qwen3_next.py` builds layer i as `config.layer_types[i]` (`QWEN3NEXT_LAYER_TYPE`): `"linear_attention"` is a
//!   `Qwen3NextGatedDeltaNet` (its `mamba_type` is `GDN_ATTN`, `MAMBA_TYPE_GDN`), `"full_attention"` an `Attention`.
//!   Without `layer_types` in config.json, vLLM's own `Qwen3NextConfig` (0.24.0-0.31.0) fills it with
//!   `"linear_attention" if (i + 1) % 4 else "full_attention"` (`QWEN3NEXT_CONFIG_LAYER_TYPES`); from 0.32.0 vLLM
//!   uses transformers' `Qwen3NextConfig`, which builds the same list from `full_attention_interval` (default 4;
//!   transformers 5.16.1 `models/qwen3_next/configuration_qwen3_next.py:131-136`, the oldest transformers 0.32.0 and
//!   0.33.0 accept). A config.json's own config class is restated in `config_json::hybrid`.
//! - `nemotron_h.py` builds layer i as `config.hybrid_override_pattern[i]` (`NEMOTRONH_LAYER_TYPE`): `M` a Mamba2
//!   mixer (`mamba_type` `MAMBA2`, `MAMBA_TYPE_MAMBA2`), `*` attention, `-` an MLP and `E` a MoE block (no token
//!   mixer: qpath lists no layer for them).
//! - `granitemoehybrid.py` builds layer i as `config.layer_types[i]` (Mamba2 or attention, names per release).
//! - `falcon_h1.py` builds every decoder layer i as a `FalconH1ParallelHybrid`: attention (layer i) and a Mamba2
//!   mixer named as layer `num_hidden_layers + i`, so 2n token mixers for n decoder layers.
//! - `jamba.py` builds layer i as `config.layers_block_type[i]` (`attention`, or `mamba`: a Mamba1 `MambaMixer`,
//!   `mamba_type` `MAMBA1`, `MAMBA_TYPE_MAMBA1`), which `JambaConfig` derives from `attn_layer_period` /
//!   `attn_layer_offset`.
//!
//! The state sizes (`get_mamba_state_shape_from_config`) are in [`State`]; the block-size alignment that uses them
//! is [`crate::hybrid`].

use serde_json::{Map, Value};

use super::config::TextConfig;
use super::layout::AttentionKind;
use super::presets::VllmModel;
use super::{err, ModelError};
use crate::attention::Backend;
use crate::release::Release;

/// What a hybrid model's recurrent layers are, and the config fields their state sizes come from.
#[derive(Clone, Debug, PartialEq)]
pub struct HybridSpec {
    pub model: VllmModel,
    /// config.json `architectures[0]` (vLLM's log lines name it), when known.
    pub architecture: Option<&'static str>,
    /// The recurrent layers' kind.
    pub kind: AttentionKind,
    /// The `MambaAttentionBackendEnum` member their `mamba_type` names.
    pub backend: Backend,
    pub state: State,
    /// The text config's `mtp_num_hidden_layers` (Qwen3.5's MTP layers; `None`: absent or another model file).
    pub mtp_layers: Option<u32>,
    /// The model class implements `SupportsMambaPrefixCaching` (`nemotron_h.py` until 0.32.0; `qwen3_next.py` never).
    pub supports_mamba_prefix_caching: bool,
    /// How the layer kinds were read, for the trace.
    pub layers_rule: String,
}

/// The config fields `get_mamba_state_shape_from_config` / `get_mamba_state_dtype_from_config` read.
#[derive(Clone, Debug, PartialEq)]
pub enum State {
    /// `MambaStateShapeCalculator.gated_delta_net_state_shape` (`GDN_STATE_SHAPE`), from `linear_num_key_heads`,
    /// `linear_num_value_heads`, `linear_key_head_dim`, `linear_value_head_dim`, `linear_conv_kernel_dim`.
    Gdn {
        num_k_heads: u32,
        num_v_heads: u32,
        head_k_dim: u32,
        head_v_dim: u32,
        conv_kernel: u32,
        /// The text config's `mamba_ssm_dtype` (Qwen3.5's default for `--mamba-ssm-cache-dtype auto`,
        /// `source::QWEN3_5_SSM_DTYPE`); `None` for Qwen3-Next, whose config has none that vLLM reads.
        ssm_dtype: Option<String>,
    },
    /// `MambaStateShapeCalculator.mamba2_state_shape` (`MAMBA2_STATE_SHAPE`), from `mamba_num_heads`,
    /// `mamba_head_dim` (intermediate size = their product), `n_groups`, `ssm_state_size`, `conv_kernel`.
    Mamba2 {
        num_heads: u32,
        head_dim: u32,
        n_groups: u32,
        state_size: u32,
        conv_kernel: u32,
        /// config.json `mamba_ssm_cache_dtype` (NemotronH's default for `--mamba-ssm-cache-dtype auto`).
        ssm_cache_dtype: Option<String>,
        /// `get_mamba_chunk_size()`: `mamba_chunk_size`, else `chunk_size`.
        chunk_size: Option<u32>,
    },
    /// `MambaStateShapeCalculator.mamba1_state_shape` (`MAMBA1_STATE_SHAPE`; jamba.py passes `intermediate_size =
    /// mamba_expand * hidden_size`, `mamba_d_state`, `mamba_d_conv` and no speculative tokens in any release): conv
    /// `(intermediate / tp, conv_kernel - 1)`, temporal `(intermediate / tp, state_size)`. Its config has no chunk
    /// size, so `get_mamba_chunk_size()` is 2048 (`MAMBA_CHUNK_SIZE_DEFAULT`).
    Mamba1 {
        intermediate_size: u32,
        state_size: u32,
        conv_kernel: u32,
    },
}

fn field(name: &str, raw: &Map<String, Value>, key: &str, file: &str) -> Result<u32, ModelError> {
    match raw.get(key).and_then(Value::as_u64) {
        Some(v) if v > 0 && v <= u32::MAX as u64 => Ok(v as u32),
        _ => err(format!(
            "{name}: vLLM's {file} reads config.{key}, which the config does not give as a positive integer; qpath \
             cannot model this hybrid model without it"
        )),
    }
}

/// Per decoder layer, the token mixer qpath reports (`None`: none), and how the kinds were read.
pub(super) type LayerKinds = (Vec<Option<AttentionKind>>, String);

/// Per decoder layer, what `rule` builds: `Some(kind)` for a token mixer qpath reports, `None` for a layer without
/// one (NemotronH's MLP / MoE blocks); `None` overall when `rule` is not a hybrid model file.
pub(super) fn layer_kinds(
    release: Release,
    name: &str,
    rule: VllmModel,
    n: u32,
    cfg: &TextConfig,
) -> Result<Option<LayerKinds>, ModelError> {
    let file = rule.file();
    match rule {
        VllmModel::Qwen3Next | VllmModel::Qwen3_5 => qwen3_next_kinds(release, rule, (name, file), n, cfg),
        VllmModel::NemotronH => nemotron_h_kinds((name, file), n, cfg),
        VllmModel::GraniteMoeHybrid => granite_kinds(release, (name, file), n, cfg),
        VllmModel::FalconH1 => Ok(Some(falcon_h1_kinds(n))),
        VllmModel::Jamba => jamba_kinds((name, file), n, cfg),
        _ => Ok(None),
    }
}

/// `qwen3_next.py`'s (and `qwen3_5.py`'s) decoder layers: one per `config.layer_types` entry, `linear_attention` or
/// `full_attention`.
fn qwen3_next_kinds(
    release: Release,
    rule: VllmModel,
    (name, file): (&str, &str),
    n: u32,
    cfg: &TextConfig,
) -> Result<Option<LayerKinds>, ModelError> {
    let (types, how) = qwen3_next_layer_types(release, rule, n, cfg);
    let mut kinds = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        kinds.push(Some(match types.get(i).map(String::as_str) {
            Some("full_attention") => AttentionKind::Full,
            Some("linear_attention") => AttentionKind::LinearAttention,
            Some(other) => {
                return err(format!(
                    "{name}: config.layer_types[{i}] = {other:?}: vLLM's {file} builds only \"linear_attention\" \
                     and \"full_attention\" layers"
                ))
            }
            None => {
                return err(format!(
                    "{name}: vLLM's {file} reads config.layer_types[{i}] but layer_types has only {} entries",
                    types.len()
                ))
            }
        }));
    }
    Ok(Some((kinds, how)))
}

/// `config.layer_types` as the config class leaves it: config.json's, else built per release (vLLM's Qwen3NextConfig:
/// `(i + 1) % 4`; transformers' Qwen3NextConfig and both Qwen3.5 text configs, vLLM's (0.24.0-0.31.0,
/// configs/qwen3_5.py:88-96@0.24.0) and transformers' (0.32.0+, configuration_qwen3_5.py:112-118 in 5.16.1):
/// `(i + 1) % full_attention_interval`, default 4), and how it was read.
fn qwen3_next_layer_types(release: Release, rule: VllmModel, n: u32, cfg: &TextConfig) -> (Vec<String>, String) {
    match cfg.raw.get("layer_types") {
        Some(Value::Array(a)) => (
            a.iter().map(|v| v.as_str().unwrap_or("").to_string()).collect(),
            "config.layer_types (config.json)".to_string(),
        ),
        _ if rule == VllmModel::Qwen3_5 => {
            let interval = cfg
                .raw
                .get("full_attention_interval")
                .and_then(Value::as_u64)
                .unwrap_or(4)
                .max(1) as u32;
            (
                (0..n)
                    .map(|i| {
                        if (i + 1) % interval == 0 {
                            "full_attention"
                        } else {
                            "linear_attention"
                        }
                        .to_string()
                    })
                    .collect(),
                format!(
                    "no layer_types in the text config: the Qwen3.5 text config builds \"full_attention\" iff (i + 1) % \
                     full_attention_interval == 0 (interval {interval})"
                ),
            )
        }
        _ => {
            let interval = if release >= Release::V0_32_0 {
                cfg.raw
                    .get("full_attention_interval")
                    .and_then(Value::as_u64)
                    .unwrap_or(4)
                    .max(1) as u32
            } else {
                4
            };
            let how = if release >= Release::V0_32_0 {
                format!(
                    "no layer_types in config.json: transformers' Qwen3NextConfig builds \"full_attention\" iff \
                     (i + 1) % full_attention_interval == 0 (interval {interval}; transformers 5.16.1 \
                     configuration_qwen3_next.py:131-136)"
                )
            } else {
                "no layer_types in config.json: vLLM's Qwen3NextConfig builds \"linear_attention\" if (i + 1) % 4 \
                 else \"full_attention\""
                    .to_string()
            };
            (
                (0..n)
                    .map(|i| {
                        if (i + 1) % interval == 0 {
                            "full_attention".to_string()
                        } else {
                            "linear_attention".to_string()
                        }
                    })
                    .collect(),
                how,
            )
        }
    }
}

/// `granitemoehybrid.py`'s decoder layers: `ALL_DECODER_LAYER_TYPES[config.layer_types[i]]`
/// (`source::GRANITE_LAYER_TYPE`), whose keys differ by release (`source::GRANITE_LAYER_CLASSES`): 0.24.0-0.25.0
/// `attention` / `mamba` (transformers < 5.13's names), 0.26.0-0.31.0 those and `full_attention` /
/// `linear_attention` (5.13+), 0.32.0+ only the new names (they need transformers >= 5.16.1, which remaps the old
/// ones when the config is built, `config_json`). Any other entry is vLLM's KeyError.
fn granite_kinds(
    release: Release,
    (name, file): (&str, &str),
    n: u32,
    cfg: &TextConfig,
) -> Result<Option<LayerKinds>, ModelError> {
    let Some(Value::Array(types)) = cfg.raw.get("layer_types") else {
        return err(format!("{name}: vLLM's {file} reads config.layer_types, which is not set"));
    };
    let legacy = release < Release::V0_32_0;
    let current = release >= Release::V0_26_0;
    let mut kinds = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        let Some(t) = types.get(i).and_then(Value::as_str) else {
            return err(format!(
                "{name}: vLLM's {file} reads config.layer_types[{i}] but layer_types has {} entries",
                types.len()
            ));
        };
        kinds.push(Some(match t {
            "mamba" if legacy => AttentionKind::Mamba,
            "attention" if legacy => AttentionKind::Full,
            "linear_attention" if current => AttentionKind::Mamba,
            "full_attention" if current => AttentionKind::Full,
            other => {
                return err(format!(
                    "{name}: config.layer_types[{i}] = {other:?}: vLLM {}'s {file} looks it up in \
                     ALL_DECODER_LAYER_TYPES ({}) and raises KeyError: '{other}'",
                    release.name(),
                    match (legacy, current) {
                        (true, false) => "attention, mamba",
                        (true, true) => "attention, mamba, full_attention, linear_attention",
                        _ => "full_attention, linear_attention",
                    }
                ))
            }
        }));
    }
    Ok(Some((kinds, "config.layer_types (config.json)".to_string())))
}

/// `falcon_h1.py`'s token mixers: every decoder layer i is a `FalconH1ParallelHybrid` (`source::FALCON_H1_LAYER_CLASS`)
/// with an `Attention` named `model.layers.{i}.attn` and a `MambaMixer2` under the shifted index `num_hidden_layers + i`
/// (`ssm_prefix = prefix.split(".")[0] + f".{ssm_layer_idx}"`: `model.{n + i}.mixer`, `source::FALCON_H1_SSM_LAYER_IDX`):
/// layers 0..n are attention, n..2n Mamba2.
fn falcon_h1_kinds(n: u32) -> LayerKinds {
    let mut kinds = vec![Some(AttentionKind::Full); n as usize];
    kinds.extend(std::iter::repeat_n(Some(AttentionKind::Mamba), n as usize));
    (
        kinds,
        format!(
            "falcon_h1.py's {n} FalconH1ParallelHybrid decoder layers (attention layers 0-{}, their Mamba2 mixers \
             {n}-{})",
            n.saturating_sub(1),
            (2 * n).saturating_sub(1)
        ),
    )
}

/// Token mixers per decoder layer: 2 for `falcon_h1.py` (attention and Mamba2 side by side), else 1.
pub(super) fn mixers_per_decoder_layer(rule: VllmModel) -> u32 {
    if rule == VllmModel::FalconH1 {
        2
    } else {
        1
    }
}

/// `jamba.py`'s decoder layers: `ALL_DECODER_LAYER_TYPES[config.layers_block_type[i]]` (`source::JAMBA_LAYER_TYPE`,
/// keys `attention` and `mamba` in every release, `source::JAMBA_LAYER_CLASSES`); JambaConfig's property gives
/// `"attention" if i % attn_layer_period == attn_layer_offset else "mamba"` (the config class writes the list into
/// `layers_block_type`, `config_json`).
fn jamba_kinds((name, file): (&str, &str), n: u32, cfg: &TextConfig) -> Result<Option<LayerKinds>, ModelError> {
    let Some(Value::Array(types)) = cfg.raw.get("layers_block_type") else {
        return err(format!(
            "{name}: vLLM's {file} reads config.layers_block_type, which is not set"
        ));
    };
    let mut kinds = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        kinds.push(Some(match types.get(i).and_then(Value::as_str) {
            Some("attention") => AttentionKind::Full,
            Some("mamba") => AttentionKind::Mamba,
            other => {
                return err(format!(
                    "{name}: config.layers_block_type[{i}] = {other:?}: vLLM's {file} builds only \"attention\" and \
                     \"mamba\" layers"
                ))
            }
        }));
    }
    let period = cfg.raw.get("attn_layer_period").and_then(Value::as_u64).unwrap_or(8);
    let offset = cfg.raw.get("attn_layer_offset").and_then(Value::as_u64).unwrap_or(4);
    Ok(Some((
        kinds,
        format!(
            "config.layers_block_type (JambaConfig: \"attention\" iff i % attn_layer_period {period} == \
             attn_layer_offset {offset})"
        ),
    )))
}

/// jamba.py's Mamba1 `intermediate_size = config.mamba_expand * config.hidden_size` (`source::JAMBA_STATE_SHAPE`).
fn jamba_intermediate(name: &str, cfg: &TextConfig, file: &str) -> Result<u32, ModelError> {
    let expand = field(name, &cfg.raw, "mamba_expand", file)?;
    let Some(hidden) = cfg.hidden_size else {
        return err(format!("{name}: vLLM's {file} reads config.hidden_size, which is not set"));
    };
    match expand.checked_mul(hidden) {
        Some(v) => Ok(v),
        None => err(format!(
            "{name}: qpath cannot model this: mamba_expand * hidden_size = {expand} * {hidden} is beyond qpath's limits"
        )),
    }
}

/// `nemotron_h.py`'s decoder layers: one per `config.hybrid_override_pattern` character (M, *, - or E).
fn nemotron_h_kinds((name, file): (&str, &str), n: u32, cfg: &TextConfig) -> Result<Option<LayerKinds>, ModelError> {
    let Some(pattern) = cfg.raw.get("hybrid_override_pattern").and_then(Value::as_str) else {
        return err(format!(
            "{name}: vLLM's {file} reads config.hybrid_override_pattern, which is not set; qpath cannot model \
             this hybrid model without it"
        ));
    };
    if pattern.chars().count() != n as usize {
        return err(format!(
            "{name}: hybrid_override_pattern has {} entries but num_hidden_layers is {n}; vLLM's \
             NemotronHConfig asserts \"hybrid_override_pattern must have same length as num_hidden_layers\"",
            pattern.chars().count()
        ));
    }
    let mut kinds = Vec::with_capacity(n as usize);
    for (i, c) in pattern.chars().enumerate() {
        kinds.push(match c {
            'M' => Some(AttentionKind::Mamba),
            '*' => Some(AttentionKind::Full),
            '-' | 'E' => None,
            other => {
                return err(format!(
                    "{name}: hybrid_override_pattern[{i}] = {other:?}: vLLM's {file} builds only M (Mamba2), \
                     * (attention), - (MLP) and E (MoE) layers"
                ))
            }
        });
    }
    Ok(Some((kinds, format!("config.hybrid_override_pattern {pattern:?}"))))
}

/// The hybrid description of a hybrid model file's config (None for other model files).
pub(super) fn spec(
    name: &str,
    rule: VllmModel,
    architecture: Option<&'static str>,
    cfg: &TextConfig,
    layers_rule: String,
) -> Result<Option<HybridSpec>, ModelError> {
    let raw = &cfg.raw;
    let file = rule.file();
    Ok(match rule {
        VllmModel::Qwen3Next | VllmModel::Qwen3_5 => Some(HybridSpec {
            model: rule,
            architecture,
            kind: AttentionKind::LinearAttention,
            backend: Backend::GdnAttn,
            state: State::Gdn {
                num_k_heads: field(name, raw, "linear_num_key_heads", file)?,
                num_v_heads: field(name, raw, "linear_num_value_heads", file)?,
                head_k_dim: field(name, raw, "linear_key_head_dim", file)?,
                head_v_dim: field(name, raw, "linear_value_head_dim", file)?,
                conv_kernel: field(name, raw, "linear_conv_kernel_dim", file)?,
                ssm_dtype: if rule == VllmModel::Qwen3_5 {
                    raw.get("mamba_ssm_dtype").and_then(Value::as_str).map(str::to_string)
                } else {
                    None
                },
            },
            mtp_layers: if rule == VllmModel::Qwen3_5 {
                raw.get("mtp_num_hidden_layers")
                    .and_then(Value::as_u64)
                    .map(|n| n.min(u32::MAX as u64) as u32)
            } else {
                None
            },
            // Neither qwen3_next.py's nor qwen3_5.py's model classes implement SupportsMambaPrefixCaching.
            supports_mamba_prefix_caching: false,
            layers_rule,
        }),
        VllmModel::NemotronH => Some(HybridSpec {
            model: rule,
            architecture,
            kind: AttentionKind::Mamba,
            backend: Backend::Mamba2,
            state: State::Mamba2 {
                num_heads: field(name, raw, "mamba_num_heads", file)?,
                head_dim: field(name, raw, "mamba_head_dim", file)?,
                n_groups: field(name, raw, "n_groups", file)?,
                state_size: field(name, raw, "ssm_state_size", file)?,
                conv_kernel: field(name, raw, "conv_kernel", file)?,
                ssm_cache_dtype: raw.get("mamba_ssm_cache_dtype").and_then(Value::as_str).map(str::to_string),
                chunk_size: raw
                    .get("mamba_chunk_size")
                    .or_else(|| raw.get("chunk_size"))
                    .and_then(Value::as_u64)
                    .map(|c| c as u32),
            },
            mtp_layers: None,
            supports_mamba_prefix_caching: true,
            layers_rule,
        }),
        // granitemoehybrid.py's MambaMixer2 (`get_mamba_state_shape_from_config`: intermediate_size = mamba_expand *
        // hidden_size, which GraniteMoeHybridConfig's validate_architecture makes mamba_n_heads * mamba_d_head), and
        // falcon_h1.py's (intermediate_size = mamba_d_ssm, else mamba_expand * hidden_size, which FalconH1Config's
        // validate_architecture makes mamba_n_heads * mamba_d_head; `config_json` checks it). Both classes
        // declare SupportsMambaPrefixCaching to 0.32.0; 0.33.0 has no such protocol (nothing refuses "all").
        VllmModel::GraniteMoeHybrid | VllmModel::FalconH1 => Some(HybridSpec {
            model: rule,
            architecture,
            kind: AttentionKind::Mamba,
            backend: Backend::Mamba2,
            state: State::Mamba2 {
                num_heads: field(name, raw, "mamba_n_heads", file)?,
                head_dim: field(name, raw, "mamba_d_head", file)?,
                n_groups: field(name, raw, "mamba_n_groups", file)?,
                state_size: field(name, raw, "mamba_d_state", file)?,
                conv_kernel: field(name, raw, "mamba_d_conv", file)?,
                ssm_cache_dtype: None,
                chunk_size: raw.get("mamba_chunk_size").and_then(Value::as_u64).map(|c| c as u32),
            },
            mtp_layers: None,
            supports_mamba_prefix_caching: true,
            layers_rule,
        }),
        // jamba.py's MambaMixer (MAMBA1): intermediate_size = mamba_expand * hidden_size.
        VllmModel::Jamba => Some(HybridSpec {
            model: rule,
            architecture,
            kind: AttentionKind::Mamba,
            backend: Backend::Mamba1,
            state: State::Mamba1 {
                intermediate_size: jamba_intermediate(name, cfg, file)?,
                state_size: field(name, raw, "mamba_d_state", file)?,
                conv_kernel: field(name, raw, "mamba_d_conv", file)?,
            },
            mtp_layers: None,
            supports_mamba_prefix_caching: true,
            layers_rule,
        }),
        _ => None,
    })
}
