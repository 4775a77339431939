//! The config object vLLM reads (step 1 of the module docs): what transformers' constructor built, before and after
//! `--hf-overrides`, and the config dtype `--dtype auto` starts from.

use super::presets::{LayerTypesRule, ModelPreset};
use super::Provenance;
use crate::dtype::TorchDtype;

/// One entry of a config's `layer_types`, as far as qpath models them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HfLayerType {
    Full,
    Sliding,
    /// `"linear_attention"` (transformers' name for gated-delta-net and, since 5.x, Mamba layers): no KV cache.
    Linear,
    /// `"mamba"` (the legacy name transformers remaps to `linear_attention`; kept apart for hybrid models' grouping).
    Mamba,
}

impl LayerTypesRule {
    /// The `layer_types` list transformers' constructor materialises for `n` layers (None: no attribute).
    pub(super) fn materialise(self, n: u32) -> Option<Vec<HfLayerType>> {
        let kind = |i: u32| match self {
            LayerTypesRule::AllSliding => HfLayerType::Sliding,
            LayerTypesRule::FullEvery(k) if (i + 1) % k.max(1) != 0 => HfLayerType::Sliding,
            _ => HfLayerType::Full,
        };
        match self {
            LayerTypesRule::Absent => None,
            _ => Some((0..n).map(kind).collect()),
        }
    }
}

/// The language model's config as vLLM reads it (after construction and overrides).
#[derive(Clone, Debug, Default)]
pub(super) struct TextConfig {
    pub(super) num_hidden_layers: Option<u32>,
    pub(super) num_attention_heads: Option<u32>,
    pub(super) num_key_value_heads: Option<u32>,
    pub(super) hidden_size: Option<u32>,
    pub(super) head_dim: Option<u32>,
    /// None: no attribute, null, or 0 (vLLM turns 0 into None).
    pub(super) sliding_window: Option<u32>,
    pub(super) layer_types: Option<Vec<HfLayerType>>,
    /// Where `layer_types` came from, for messages.
    pub(super) layer_types_origin: String,
    /// The language model's config fields as config.json (or a preset) gives them, for the fields other steps read by
    /// name (e.g. a hybrid model's linear-attention or Mamba state sizes). Empty when nothing gave them.
    #[allow(dead_code)] // read by the hybrid layouts (linear-attention / Mamba state sizes)
    /// Shared: a preset's fields are parsed once per process ([`super::presets::raw_config`]); `--hf-overrides`
    /// copies them on write (`Arc::make_mut`).
    pub(super) raw: std::sync::Arc<serde_json::Map<String, serde_json::Value>>,
}

/// The whole config: the language model's attention settings and the two places a config dtype can sit.
#[derive(Clone, Debug, Default)]
pub(super) struct Config {
    pub(super) text: TextConfig,
    /// The top-level config's `torch_dtype`.
    pub(super) root_dtype: Option<TorchDtype>,
    /// `text_config.torch_dtype` (read only when the top level has none).
    pub(super) text_dtype: Option<TorchDtype>,
}

impl Config {
    /// Step 1: the config object transformers constructs — a preset's constructed values (with its sources), or an
    /// empty config for a model that is not a preset (the overrides must then describe it).
    pub(super) fn constructed(preset: Option<&'static ModelPreset>, source: &mut Provenance) -> Config {
        let Some(p) = preset else {
            return Config::default();
        };
        // The presets' sources and unconfirmed fields are not in the page's build (build.rs, Provenance).
        #[cfg(not(target_arch = "wasm32"))]
        {
            source.extend(|| p.source.iter().map(|s| s.to_string()));
            if !p.unconfirmed.is_empty() {
                source.push(|| format!("unconfirmed preset fields: {}", p.unconfirmed.join(", ")));
            }
        }
        #[cfg(target_arch = "wasm32")]
        let _ = source;
        Config {
            text: TextConfig {
                num_hidden_layers: Some(p.num_hidden_layers),
                num_attention_heads: Some(p.num_attention_heads),
                num_key_value_heads: p.num_key_value_heads,
                hidden_size: Some(p.hidden_size),
                head_dim: p.head_dim,
                sliding_window: p.sliding_window,
                layer_types: p.layer_types.materialise(p.num_hidden_layers),
                layer_types_origin: format!(
                    "the preset's layer_types ({} entries, built by transformers before --hf-overrides applies)",
                    p.num_hidden_layers
                ),
                raw: super::presets::raw_config(p),
            },
            root_dtype: Some(p.torch_dtype),
            text_dtype: None,
        }
    }

    /// The config dtype `--dtype auto` starts from: the top-level `torch_dtype`, else `text_config`'s, else vLLM reads
    /// the checkpoint's safetensors dtypes and, failing that, uses float32
    /// (`vllm/transformers_utils/model_arch_config_convertor.py:186-202@0.24.0, 221-237@0.33.0`); qpath has no
    /// checkpoint, so it assumes float32.
    pub(super) fn config_dtype(&self, source: &mut Provenance) -> TorchDtype {
        match self.root_dtype.or(self.text_dtype) {
            Some(d) => d,
            None => {
                source.push(|| {
                    "config dtype: none given; vLLM would read the checkpoint's safetensors dtypes and, failing that, \
                     use float32 (vllm/transformers_utils/model_arch_config_convertor.py:186-202@0.24.0, \
                     221-237@0.33.0); qpath assumes float32"
                        .into()
                });
                TorchDtype::Float32
            }
        }
    }
}
