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
            let shown = shown_id(name);
            return err(format!(
                "{shown} is not a qpath preset{SEE_MODELS} and qpath has no config.json for it: {GIVE_FOLDER}; a dense \
                 model's attention can also be described with --hf-overrides, missing{place}: {}",
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

/// The CLI's ways to give a model's config.json (what qpath reads a model that is not a preset from), as a message
/// tells them; the page names its config.json box instead.
pub const GIVE_FOLDER: &str = "give the model's folder as MODEL (a directory holding config.json), --model-config FILE, \
     or the model in the local Hugging Face cache";
/// Where the CLI lists the presets, after "is not a qpath preset" (the page names its own list instead).
pub const SEE_MODELS: &str = " (see `qpath models`)";

/// A model id as a message shows it: hidden characters (a no-break or zero-width space pasted with it) escaped as
/// Python's repr writes them and named (`serve::escape`), so the id that is not a preset shows why.
fn shown_id(name: &str) -> String {
    format!(
        "{}{}",
        crate::serve::escape_for_message(name),
        crate::serve::hidden_characters(name)
    )
}

/// How a message tells the user to give a model's config.json, as [`GIVE_FOLDER`] (the CLI's ways).
pub const GIVE_CONFIG: &str = "give its config.json: the model's folder as MODEL (a directory holding config.json), \
     --model-config FILE, or the model in the local Hugging Face cache";

/// The families qpath knows as MLA or hybrid by their names, each as (the start of the name part, what it is). The
/// name part is the id after its last `/`, compared case-insensitively (so quantized or re-hosted copies such as
/// `RedHatAI/DeepSeek-R1-0528-quantized.w4a16` count); a name holding `distill` is a dense student
/// (`DeepSeek-R1-Distill-Qwen-7B`) and matches none. Besides these, a name that starts with the name part of an MLA or
/// hybrid preset (`qpath models`) is of that preset's kind; and a name holding `jamba`, `mamba`, `nemotron-h`,
/// `nemotron-3-nano`, or `nemotron-nano` with `-v2` is hybrid.
const NON_DENSE_FAMILIES: [(&str, &str); 11] = [
    ("deepseek-v2", MLA_KIND),
    ("deepseek-v3", MLA_KIND),
    ("deepseek-r1", MLA_KIND),
    ("deepseek-coder-v2", MLA_KIND),
    ("kimi-k2", MLA_KIND),
    ("glm-5", MLA_KIND),
    ("kimi-linear", HYBRID_KIND),
    ("qwen3-next", HYBRID_KIND),
    ("qwen3.5", HYBRID_KIND),
    ("granite-4.0-h", HYBRID_KIND),
    ("falcon-h1", HYBRID_KIND),
];

const MLA_KIND: &str = "an MLA (multi-head latent attention, DeepSeek-architecture) model";
const HYBRID_KIND: &str = "a hybrid model (linear attention or Mamba layers beside attention)";

/// What a model id that is not a preset names when qpath knows its family as MLA or hybrid ([`NON_DENSE_FAMILIES`]
/// states the rule); `None` for any other id.
pub fn non_dense_family(id: &str) -> Option<&'static str> {
    let name = id.rsplit('/').next().unwrap_or(id).trim().to_ascii_lowercase();
    if name.is_empty() || name.contains("distill") {
        return None;
    }
    let from_presets = super::presets::MODEL_PRESETS.iter().find_map(|p| {
        let kind = match p.vllm_model {
            VllmModel::DeepseekV2 => MLA_KIND,
            VllmModel::Qwen3Next
            | VllmModel::Qwen3_5
            | VllmModel::NemotronH
            | VllmModel::GraniteMoeHybrid
            | VllmModel::FalconH1
            | VllmModel::Jamba => HYBRID_KIND,
            _ => return None,
        };
        let preset_name = p.id.rsplit('/').next().unwrap_or(p.id).to_ascii_lowercase();
        name.starts_with(&preset_name).then_some(kind)
    });
    from_presets
        .or_else(|| {
            NON_DENSE_FAMILIES
                .iter()
                .find(|(start, _)| name.starts_with(start))
                .map(|(_, kind)| *kind)
        })
        .or_else(|| {
            let hybrid = ["jamba", "mamba", "nemotron-h", "nemotron-3-nano"]
                .iter()
                .any(|w| name.contains(w))
                || (name.contains("nemotron-nano") && name.contains("-v2"));
            hybrid.then_some(HYBRID_KIND)
        })
}

/// The MLA keys that say an override object describes an MLA model.
const MLA_SHAPE_KEYS: [&str; 5] = [
    "kv_lora_rank",
    "q_lora_rank",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
];

/// The key of an override object that says it describes a linear-attention / Mamba model: `linear_*`
/// (`linear_num_key_heads`, …), `mamba_*`, `ssm_*`, `hybrid_override_pattern`, `layers_block_type`,
/// `attn_layer_period`, or a `layer_types` entry naming linear attention or Mamba.
fn recurrent_key(m: &Map<String, Value>) -> Option<String> {
    for (k, v) in m {
        let named = k.starts_with("linear_")
            || k.starts_with("mamba_")
            || k.starts_with("ssm_")
            || matches!(
                k.as_str(),
                "hybrid_override_pattern" | "layers_block_type" | "attn_layer_period"
            );
        if named {
            return Some(k.clone());
        }
        if k == "layer_types" {
            if let Some(entry) = v.as_array().into_iter().flatten().filter_map(Value::as_str).find(|t| {
                let t = t.to_ascii_lowercase();
                t.contains("linear") || t.contains("mamba")
            }) {
                return Some(format!("layer_types entry {}", show(&Value::from(entry))));
            }
        }
    }
    None
}

impl Overrides<'_> {
    /// A model that is not a preset is built from `--hf-overrides` with vLLM's Llama rule: dense attention only. A
    /// name of a family qpath knows as MLA or hybrid ([`non_dense_family`]), or overrides holding MLA keys
    /// ([`MLA_SHAPE_KEYS`]) or linear-attention / Mamba keys, would be built as a dense model it is not: "qpath
    /// cannot model this", naming what to give instead.
    pub(super) fn reject_non_dense_unknown_model(&self, name: &str) -> Result<(), ModelError> {
        if let Some(kind) = non_dense_family(name) {
            let name = shown_id(name);
            return err(format!(
                "qpath cannot model this: {name} is not a qpath preset{SEE_MODELS} and its name is that of \
                 {kind}, which --hf-overrides cannot describe (they build a dense model with vLLM's Llama rule); \
                 {GIVE_CONFIG}"
            ));
        }
        for (prefix, m) in [("", Some(self.top)), ("text_config.", self.nested)] {
            let Some(m) = m else { continue };
            if let Some(key) = MLA_SHAPE_KEYS.iter().find(|k| m.contains_key(**k)) {
                return err(format!(
                    "qpath cannot model this: --hf-overrides {prefix}{key} describes an MLA model, but {name} is not a \
                     qpath preset and --hf-overrides alone build a dense model with vLLM's Llama rule; {GIVE_CONFIG}"
                ));
            }
            if let Some(key) = recurrent_key(m) {
                return err(format!(
                    "qpath cannot model this: --hf-overrides {prefix}{key} describes a hybrid (linear attention or \
                     Mamba) model, but {name} is not a qpath preset and --hf-overrides alone build a dense model with \
                     vLLM's Llama rule; {GIVE_CONFIG}"
                ));
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_dense_families_by_name() {
        for id in [
            "deepseek-ai/DeepSeek-R1-0528",
            "deepseek-ai/DeepSeek-V3.1",
            "unsloth/DeepSeek-V3-0324-GGUF",
            "moonshotai/Kimi-K2-Instruct-0905",
            "zai-org/GLM-5.1",
            "DeepSeek-V2.5",
        ] {
            assert_eq!(non_dense_family(id), Some(MLA_KIND), "{id}");
        }
        for id in [
            "Qwen/Qwen3-Next-80B-A3B-Thinking",
            "Qwen/Qwen3.5-397B-A17B",
            "nvidia/Nemotron-H-56B-Base-8K",
            "nvidia/NVIDIA-Nemotron-Nano-9B-v2-Base",
            "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
            "ibm-granite/granite-4.0-h-tiny",
            "tiiuae/Falcon-H1-34B-Instruct",
            "ai21labs/AI21-Jamba-Reasoning-3B",
            "state-spaces/mamba-2.8b-hf",
        ] {
            assert_eq!(non_dense_family(id), Some(HYBRID_KIND), "{id}");
        }
        for id in [
            "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
            "ibm-granite/granite-4.0-micro",
            "zai-org/GLM-4.7",
            "Qwen/Qwen3-8B",
            "nvidia/Llama-3.1-Nemotron-Nano-8B-v1",
            "",
            "/",
        ] {
            assert_eq!(non_dense_family(id), None, "{id}");
        }
    }
}
