//! Models: the embedded presets (`data/models.toml`), `--hf-overrides`, and the per-layer attention layout vLLM builds
//! from them (which layers slide, their window, head size, head counts, sinks) — the input of the attention-group
//! resolver. Also vLLM's `--dtype` resolution ([`resolve_dtype`]).
//!
//! # How vLLM gets from a config to attention layers (restated here)
//!
//! 1. transformers constructs the config object from config.json; its constructor materialises derived attributes
//!    (`head_dim = hidden_size // heads` for Llama/Mistral, `layer_types` from `sliding_window_pattern` for gemma-3 or
//!    from `use_sliding_window`/`max_window_layers` for Qwen, `sliding_window = None` for Qwen without
//!    `use_sliding_window`). The presets hold these constructed values ([`ModelPreset`]).
//! 2. `--hf-overrides` (a JSON object) is applied afterwards: scalar and list values by `config.update(...)`
//!    (`vllm/transformers_utils/config.py:761@0.24.0, 991@0.33.0`), dict values by `ModelConfig._apply_dict_overrides`,
//!    which recurses into an existing nested config such as gemma-3's `text_config`
//!    (`vllm/config/model.py:441@0.24.0, 555@0.33.0`). Nothing is re-derived: overriding `num_hidden_layers` leaves
//!    `layer_types` and `head_dim` as the constructor built them, and keys that only act inside the constructor
//!    (`sliding_window_pattern`, `use_sliding_window`, `max_window_layers`) change nothing. A composite model's
//!    language model reads `text_config` only, so a top-level `num_hidden_layers` on gemma-3 is ignored.
//!    qpath reports an override vLLM would silently ignore as a [`ModelError`] that says so, rather than showing a
//!    layout that looks overridden but is not.
//! 3. `CacheConfig.sliding_window` (the window of every layer that has none of its own): the model's
//!    `sliding_window` when the model is not interleaved — 0.24–0.26: `not is_interleaved(text_config)`, i.e. no
//!    `layer_types` or a single distinct type (`vllm/engine/arg_utils.py:1826@0.24.0, 1860@0.25.0, 1889@0.26.0`);
//!    0.27+: `layer_types is None or all(lt == "sliding_attention")` (`arg_utils.py:1939@0.27.0, 1979@0.28.0,
//!    2063@0.29.0, 2083@0.30.0, 2193@0.31.0, 2250@0.32.0, 2290@0.33.0`); else None. A `sliding_window` of 0 is turned
//!    into None (`vllm/config/model.py:652@0.24.0 … 819@0.33.0`).
//! 4. Each model file builds `Attention(per_layer_sliding_window=…)`; the layer's window is that value, else
//!    `cache_config.sliding_window` (`vllm/model_executor/layers/attention/attention.py:231-234@0.24.0,
//!    268-271@0.33.0`). The per-layer rule is the model file's ([`VllmModel`]).
//!
//! # Where each step lives
//!
//! - `presets`: the preset table ([`ModelPreset`], [`MODEL_PRESETS`]), which vLLM model file builds the layers
//!   ([`VllmModel`]), [`find_preset`], [`validate_presets`].
//! - `config`: the constructed config object vLLM reads (step 1) and the config dtype it starts `--dtype auto` from.
//! - `overrides`: `--hf-overrides` (step 2): where the keys go, which keys are refused, their values and bounds.
//! - `layout`: the per-layer layout (steps 3 and 4): heads, head size, `cache_config.sliding_window`, per-layer
//!   windows, sinks ([`LayerSpec`]).
//! - `dtype`: `--dtype` ([`resolve_dtype_on`]).
//!
//! [`resolve_model_at`] runs the steps in vLLM's order.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::dtype::TorchDtype;
use crate::release::Release;

mod config;
mod dtype;
mod hybrid;
mod layout;
mod overrides;
mod presets;

#[cfg(test)]
mod tests;

pub use dtype::{float16_unsupported, resolve_dtype, resolve_dtype_on, DTYPE_CHOICES};
pub use hybrid::{HybridSpec, State as HybridState};
pub use layout::{AttentionKind, LayerSpec};
pub use overrides::{LAYOUT_KEYS, MAX_HEADS, MAX_HEAD_DIM, MAX_HIDDEN_SIZE, MAX_LAYERS};
pub use presets::{find_preset, validate_presets, LayerTypesRule, ModelPreset, VllmModel, MODEL_PRESETS};

/// A model's attention layout, from a preset and/or `--hf-overrides`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelSpec {
    pub id: String,
    /// False when the model is not a preset and was built from `--hf-overrides` only.
    pub preset: bool,
    /// The config dtype vLLM's `--dtype auto` starts from (see [`resolve_dtype`]).
    pub config_dtype: TorchDtype,
    pub layers: Vec<LayerSpec>,
    /// Where each number comes from: the preset's sources, the vLLM rules applied, and each override.
    pub source: Vec<String>,
    /// The decoder layers (`num_hidden_layers`): `layers.len()` unless some have no token mixer (NemotronH's MLP / MoE
    /// blocks, which `layers` leaves out).
    #[serde(skip)]
    pub decoder_layers: u32,
    /// A hybrid model's recurrent layers and their state sizes (None: attention only).
    #[serde(skip)]
    pub hybrid: Option<HybridSpec>,
}

impl ModelSpec {
    /// The top-level config's `model_type` when the model is a preset (vLLM's float16 ban is keyed on it).
    pub fn model_type(&self) -> Option<&'static str> {
        find_preset(&self.id).map(|p| p.model_type)
    }

    pub fn full_layers(&self) -> impl Iterator<Item = &LayerSpec> {
        self.layers.iter().filter(|l| l.kind == AttentionKind::Full)
    }

    pub fn sliding_layers(&self) -> impl Iterator<Item = &LayerSpec> {
        self.layers.iter().filter(|l| l.kind == AttentionKind::SlidingWindow)
    }
}

/// Why a model could not be resolved. The message names the model (and, for a bad override, the key and value).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelError {
    pub message: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ModelError {}

fn err<T>(message: String) -> Result<T, ModelError> {
    Err(ModelError { message })
}

/// A JSON value as the user wrote it (shortened), for messages.
fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        let head: String = s.chars().take(57).collect();
        format!("{head}...")
    } else {
        s
    }
}

/// [`resolve_model_at`] for the newest release.
pub fn resolve_model(id: &str, hf_overrides: Option<&Map<String, Value>>) -> Result<ModelSpec, ModelError> {
    resolve_model_at(Release::LATEST, id, hf_overrides)
}

/// The per-layer attention layout vLLM `release` builds for `id` with `--hf-overrides` (a JSON object). A preset is
/// found by [`find_preset`]; any other id must be described by the overrides (at least `num_hidden_layers`,
/// `num_attention_heads`, and `head_dim` or `hidden_size`; `num_key_value_heads` defaults to the query heads as in
/// transformers; without `torch_dtype` the config dtype is vLLM's last fallback, float32) and is built with the
/// Llama rule ([`VllmModel::Llama`]). Only the sliding-window default differs by release (module docs, step 3).
pub fn resolve_model_at(release: Release, id: &str, hf_overrides: Option<&Map<String, Value>>) -> Result<ModelSpec, ModelError> {
    let empty = Map::new();
    let preset = find_preset(id);
    let name = preset.map_or(id, |p| p.id);
    if name.trim().is_empty() {
        return err("the model id is empty".into());
    }
    let rule = preset.map_or(VllmModel::Llama, |p| p.vllm_model);
    let overrides = overrides::Overrides::locate(name, preset, hf_overrides.unwrap_or(&empty))?;
    overrides.reject_constructor_only_keys(name)?;

    let mut source: Vec<String> = Vec::new();
    // Step 1: the constructed config object.
    let mut cfg = config::Config::constructed(preset, &mut source);
    // Step 2: --hf-overrides, applied to the constructed config.
    overrides.apply(name, &mut cfg, &mut source)?;
    if preset.is_none() {
        overrides.require_unknown_model_layout(name, &cfg.text, &mut source)?;
    }
    let config_dtype = cfg.config_dtype(&mut source);
    // Steps 3 and 4: cache_config.sliding_window and the model file's layers.
    let (layers, hybrid) = layout::build_layers(release, name, rule, &cfg.text, preset.map(|p| p.architecture), &mut source)?;
    Ok(ModelSpec {
        id: name.to_string(),
        preset: preset.is_some(),
        config_dtype,
        decoder_layers: cfg
            .text
            .num_hidden_layers
            .unwrap_or(layers.len() as u32)
            .max(layers.len() as u32),
        layers,
        source,
        hybrid,
    })
}
