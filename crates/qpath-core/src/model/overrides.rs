//! `--hf-overrides` (step 2 of the module docs): vLLM applies the JSON object to the config transformers already
//! constructed — scalar and list values by `config.update(...)` (`vllm/transformers_utils/config.py:761@0.24.0,
//! 991@0.33.0`), dict values by `ModelConfig._apply_dict_overrides` (`vllm/config/model.py:441@0.24.0, 555@0.33.0`).
//! Nothing is re-derived. An override vLLM would silently ignore is a [`ModelError`] that says so.

use serde_json::{Map, Value};

use super::config::{Config, HfLayerType, TextConfig};
use super::presets::{ModelPreset, VllmModel};
use super::Provenance;
use super::{err, show, ModelError};
use crate::dtype::TorchDtype;

/// qpath's bounds on override values, so that no JSON can make it allocate without limit. Real models are far below.
pub const MAX_LAYERS: u32 = 4096;
pub const MAX_HEADS: u32 = 65_536;
pub const MAX_HEAD_DIM: u32 = 65_536;
pub const MAX_HIDDEN_SIZE: u32 = 1 << 24;

/// The keys of `--hf-overrides` that shape the attention layout (at the top level, or under `text_config` for a
/// composite model). Any other key (rope settings, `architectures`, …) is accepted and does not change the layout.
pub const LAYOUT_KEYS: [&str; 7] = [
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "hidden_size",
    "layer_types",
    "sliding_window",
];

/// The keys of `--hf-overrides` the DeepSeek-architecture model files read by name (`model::mla`): `config.update` sets
/// them on the constructed config, where the MLA rule reads them (a null value is the attribute None). On any other
/// model they are attributes nothing reads.
pub const MLA_KEYS: [&str; 13] = [
    "kv_lora_rank",
    "q_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
    "index_topk",
    "index_n_heads",
    "index_head_dim",
    "index_topk_freq",
    "index_topk_pattern",
    "index_skip_topk_offset",
    "num_nextn_predict_layers",
    "is_causal",
];

/// Layout keys the DeepSeek-architecture model files never read for their attention layers.
const MLA_UNREAD_KEYS: [&str; 3] = ["head_dim", "num_key_value_heads", "layer_types"];

/// Keys only transformers' config constructor reads; vLLM applies `--hf-overrides` after construction.
const CONSTRUCTOR_ONLY_KEYS: [&str; 3] = ["sliding_window_pattern", "use_sliding_window", "max_window_layers"];

/// `--hf-overrides` keys naming the config dtype (transformers 5 calls it `dtype`; `torch_dtype` is its alias).
pub const DTYPE_KEYS: [&str; 2] = ["torch_dtype", "dtype"];

/// The override object split by where vLLM applies its keys.
pub(super) struct Overrides<'a> {
    /// The whole object: its keys go onto the top-level config.
    top: &'a Map<String, Value>,
    /// Its `text_config` object, which `_apply_dict_overrides` recurses into.
    nested: Option<&'a Map<String, Value>>,
    /// The language model reads `text_config` only (a preset with `text_config`, or an unknown model whose
    /// overrides carry a `text_config` object).
    composite: bool,
}

impl<'a> Overrides<'a> {
    /// Where the attention keys live: a composite model reads them from `text_config` only. A `text_config` that is
    /// not an object, or one given for a preset whose config has none, is an error.
    pub(super) fn locate(
        name: &str,
        preset: Option<&ModelPreset>,
        top: &'a Map<String, Value>,
    ) -> Result<Overrides<'a>, ModelError> {
        Self::locate_in(name, preset.map(|p| p.text_config), top)
    }

    /// [`Overrides::locate`] for a config whose nesting is known (`Some(true)`: it has a `text_config`), or not
    /// (`None`: a model described by the overrides only).
    pub(super) fn locate_in(
        name: &str,
        nested_config: Option<bool>,
        top: &'a Map<String, Value>,
    ) -> Result<Overrides<'a>, ModelError> {
        let nested = match top.get("text_config") {
            None => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                return err(format!(
                    "{name}: --hf-overrides text_config = {}: must be a JSON object of config keys",
                    show(other)
                ))
            }
        };
        let composite = nested_config.unwrap_or(nested.is_some());
        if let (Some(has_text_config), Some(_)) = (nested_config, nested) {
            if !has_text_config {
                return err(format!(
                    "{name}: --hf-overrides has a `text_config` object, but {name} keeps its attention settings at the \
                     top level of its config (it has no nested text_config); write the keys at the top level"
                ));
            }
        }
        Ok(Overrides { top, nested, composite })
    }

    /// Keys only transformers' constructor reads ([`CONSTRUCTOR_ONLY_KEYS`]) would change nothing after
    /// construction: an error, at either level.
    pub(super) fn reject_constructor_only_keys(&self, name: &str) -> Result<(), ModelError> {
        for key in CONSTRUCTOR_ONLY_KEYS {
            let place = if self.top.contains_key(key) {
                Some(key.to_string())
            } else if self.nested.is_some_and(|m| m.contains_key(key)) {
                Some(format!("text_config.{key}"))
            } else {
                None
            };
            if let Some(place) = place {
                return err(format!(
                    "{name}: --hf-overrides {place}: only transformers' config constructor reads `{key}`, and vLLM \
                     applies --hf-overrides after the config is built (config.update), so it would change nothing; \
                     describe the layout with `layer_types` (and `sliding_window`) instead"
                ));
            }
        }
        Ok(())
    }

    /// `config.update(...)` for the top-level keys, then `_apply_dict_overrides` for `text_config`'s. A top-level
    /// layout key on a composite model, or a `text_config` dtype shadowed by the top-level one, would be ignored by
    /// vLLM: an error.
    pub(super) fn apply(&self, name: &str, cfg: &mut Config, source: &mut Provenance) -> Result<(), ModelError> {
        let (flat_prefix, text_prefix) = ("", "text_config.");
        for key in LAYOUT_KEYS {
            if let Some(v) = self.top.get(key) {
                if self.composite {
                    return err(format!(
                        "{name}: --hf-overrides {key}: {name} keeps its language-model settings under text_config; \
                         vLLM would set a top-level `{key}` on the outer config, which the language model never \
                         reads, so the override would be silently ignored; write {{\"text_config\": {{\"{key}\": {}}}}}",
                        show(v)
                    ));
                }
                apply_layout_key(name, flat_prefix, key, v, &mut cfg.text, source)?;
            }
        }
        if !self.composite {
            for key in MLA_KEYS {
                if let Some(v) = self.top.get(key) {
                    source.push(|| format!("--hf-overrides {key} = {} (config.update)", show(v)));
                    std::sync::Arc::make_mut(&mut cfg.text.raw).insert(key.to_string(), v.clone());
                }
            }
        }
        if let Some(v) = dtype_override(name, flat_prefix, self.top)? {
            cfg.root_dtype = Some(v.0);
            source.push(|| v.1);
        }
        let Some(m) = self.nested else {
            return Ok(());
        };
        for key in LAYOUT_KEYS {
            if let Some(v) = m.get(key) {
                apply_layout_key(name, text_prefix, key, v, &mut cfg.text, source)?;
            }
        }
        if let Some(v) = dtype_override(name, text_prefix, m)? {
            if let Some(root) = cfg.root_dtype {
                return err(format!(
                    "{name}: --hf-overrides text_config.torch_dtype: vLLM reads the top-level config dtype first \
                     ({root} here) and only falls back to text_config's when there is none, so this would change \
                     nothing; put torch_dtype at the top level"
                ));
            }
            cfg.text_dtype = Some(v.0);
            source.push(|| v.1);
        }
        Ok(())
    }

    /// A DeepSeek-architecture model's attention layers never read `head_dim` (the MLA head size is `kv_lora_rank +
    /// qk_rope_head_dim`, the non-MLA one `qk_nope_head_dim + qk_rope_head_dim`), `num_key_value_heads` (one latent KV
    /// head, or as many as query heads) or `layer_types`: overriding them would change nothing. A `sliding_window`
    /// reaches only the non-MLA layers (through `cache_config.sliding_window`), which qpath does not restate.
    pub(super) fn reject_unread_mla_keys(&self, name: &str) -> Result<(), ModelError> {
        for key in MLA_UNREAD_KEYS {
            if self.top.contains_key(key) {
                return err(format!(
                    "{name}: --hf-overrides {key}: vLLM's deepseek model files build each attention layer from \
                     kv_lora_rank, qk_nope_head_dim and qk_rope_head_dim and never read {key}, so this would change \
                     nothing"
                ));
            }
        }
        if let Some(v) = self.top.get("sliding_window") {
            return err(format!(
                "{name}: qpath cannot model this: --hf-overrides sliding_window = {} on a DeepSeek-architecture model \
                 (MLA layers take no window; without MLA the Attention layers would take cache_config.sliding_window)",
                show(v)
            ));
        }
        Ok(())
    }

    /// A model that is not a preset has no constructed config: the overrides must give `num_hidden_layers`,
    /// `num_attention_heads` and `head_dim` or `hidden_size`. It is then built with vLLM's Llama rule.
    pub(super) fn require_unknown_model_layout(
        &self,
        name: &str,
        cfg: &TextConfig,
        source: &mut Provenance,
    ) -> Result<(), ModelError> {
        let mut missing = Vec::new();
        if cfg.num_hidden_layers.is_none() {
            missing.push("num_hidden_layers");
        }
        if cfg.num_attention_heads.is_none() {
            missing.push("num_attention_heads");
        }
        if cfg.head_dim.is_none() && cfg.hidden_size.is_none() {
            missing.push("head_dim (or hidden_size)");
        }
        if !missing.is_empty() {
            let place = if self.composite { " under text_config" } else { "" };
            return err(format!(
                "{name} is not a qpath preset, so --hf-overrides must describe its attention; missing{place}: {}",
                missing.join(", ")
            ));
        }
        source.push(|| {
            format!(
                "{name} is not a qpath preset: the layout comes from --hf-overrides only, with vLLM's Llama rule ({})",
                VllmModel::Llama.file()
            )
        });
        Ok(())
    }
}

fn positive_int(name: &str, path: &str, v: &Value, max: u32) -> Result<u32, ModelError> {
    match v.as_u64() {
        Some(0) => err(format!("{name}: --hf-overrides {path} = 0: must be a positive integer")),
        Some(n) if n <= u64::from(max) => Ok(n as u32),
        Some(n) => err(format!(
            "{name}: qpath cannot model this: --hf-overrides {path} = {n}: larger than qpath's limit of {max} \
             (model::MAX_LAYERS, MAX_HEADS, MAX_HEAD_DIM, MAX_HIDDEN_SIZE)"
        )),
        None => err(format!(
            "{name}: --hf-overrides {path} = {}: must be a positive integer",
            show(v)
        )),
    }
}

/// One key of [`LAYOUT_KEYS`] set on the config as `config.update` would (`path` is the key as the user wrote it,
/// e.g. `text_config.head_dim`).
fn apply_layout_key(
    name: &str,
    prefix: &str,
    key: &str,
    v: &Value,
    cfg: &mut TextConfig,
    source: &mut Provenance,
) -> Result<(), ModelError> {
    let path = format!("{prefix}{key}");
    let (field, max) = match key {
        "num_hidden_layers" => (&mut cfg.num_hidden_layers, MAX_LAYERS),
        "num_attention_heads" => (&mut cfg.num_attention_heads, MAX_HEADS),
        "num_key_value_heads" => (&mut cfg.num_key_value_heads, MAX_HEADS),
        "head_dim" => (&mut cfg.head_dim, MAX_HEAD_DIM),
        "hidden_size" => (&mut cfg.hidden_size, MAX_HIDDEN_SIZE),
        "sliding_window" => return apply_sliding_window(name, &path, v, cfg, source),
        "layer_types" => return apply_layer_types(name, &path, v, cfg, source),
        _ => unreachable!("apply_layout_key called with a key outside LAYOUT_KEYS"),
    };
    let n = positive_int(name, &path, v, max)?;
    source.push(|| format!("--hf-overrides {path} = {n} (was {})", unset_or(*field)));
    *field = Some(n);
    Ok(())
}

fn unset_or(x: Option<u32>) -> String {
    x.map_or("unset".to_string(), |x| x.to_string())
}

/// `sliding_window`: a window in tokens; null or 0 is no window (vLLM turns 0 into None,
/// `vllm/config/model.py:652@0.24.0, 819@0.33.0`).
fn apply_sliding_window(
    name: &str,
    path: &str,
    v: &Value,
    cfg: &mut TextConfig,
    source: &mut Provenance,
) -> Result<(), ModelError> {
    let was = unset_or(cfg.sliding_window);
    cfg.sliding_window = match v {
        Value::Null => None,
        _ if v.as_u64() == Some(0) => {
            source.push(|| {
                format!(
                    "--hf-overrides {path} = 0: vLLM treats a window of 0 as no window \
                 (vllm/config/model.py:652@0.24.0, 819@0.33.0: sliding_window = None)"
                )
            });
            None
        }
        _ => Some(match v.as_u64() {
            Some(n) if n <= u64::from(u32::MAX) => n as u32,
            _ => {
                return err(format!(
                    "{name}: --hf-overrides {path} = {}: must be a positive integer (or null / 0 for none)",
                    show(v)
                ))
            }
        }),
    };
    source.push(|| format!("--hf-overrides {path} = {} (was {was})", show(v)));
    Ok(())
}

/// `layer_types`: a list of `"full_attention"` / `"sliding_attention"` (the only types qpath models), at most
/// [`MAX_LAYERS`] long. Its length is checked against the layer count when the layers are built.
fn apply_layer_types(name: &str, path: &str, v: &Value, cfg: &mut TextConfig, source: &mut Provenance) -> Result<(), ModelError> {
    let Value::Array(items) = v else {
        return err(format!(
            "{name}: --hf-overrides {path} = {}: must be a list of \"full_attention\" / \"sliding_attention\"",
            show(v)
        ));
    };
    if items.len() > MAX_LAYERS as usize {
        return err(format!(
            "{name}: --hf-overrides {path} has {} entries, more than qpath's limit of {MAX_LAYERS}",
            items.len()
        ));
    }
    let mut types = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        types.push(match item.as_str() {
            Some("full_attention") => HfLayerType::Full,
            Some("sliding_attention") => HfLayerType::Sliding,
            _ => {
                return err(format!(
                    "{name}: --hf-overrides {path}[{i}] = {}: qpath models only \"full_attention\" and \
                     \"sliding_attention\"",
                    show(item)
                ))
            }
        });
    }
    source.push(|| format!("--hf-overrides {path}: {} entries", types.len()));
    cfg.layer_types = Some(types);
    cfg.layer_types_origin = format!("--hf-overrides {path}");
    Ok(())
}

/// `torch_dtype` / `dtype` in an override object: the dtype and a source line.
fn dtype_override(name: &str, prefix: &str, m: &Map<String, Value>) -> Result<Option<(TorchDtype, String)>, ModelError> {
    let mut found = None;
    for key in DTYPE_KEYS {
        let Some(v) = m.get(key) else { continue };
        let path = format!("{prefix}{key}");
        let d = match v.as_str() {
            Some("float16") => TorchDtype::Float16,
            Some("bfloat16") => TorchDtype::BFloat16,
            Some("float32") => TorchDtype::Float32,
            _ => {
                return err(format!(
                    "{name}: --hf-overrides {path} = {}: must be \"float16\", \"bfloat16\" or \"float32\"",
                    show(v)
                ))
            }
        };
        if let Some((other, _)) = found {
            if other != d {
                return err(format!(
                    "{name}: --hf-overrides {prefix}torch_dtype and {prefix}dtype disagree ({other} vs {d})"
                ));
            }
        }
        found = Some((
            d,
            format!(
                "--hf-overrides {path} = \"{d}\". Caveat (from reading the code, not observed): config.update stores \
                 the string as given, and vLLM's _resolve_auto_dtype compares the config dtype with torch dtypes, so \
                 with --dtype auto vLLM may not recognise it and fall back to the platform's first supported dtype; \
                 qpath uses {d}"
            ),
        ));
    }
    Ok(found)
}
