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

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::capability::ComputeCapability;
use crate::dtype::TorchDtype;
use crate::release::Release;

/// Whether a layer attends to every previous token or to a window of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionKind {
    Full,
    SlidingWindow,
}

/// One decoder layer's attention as vLLM builds it. Head counts are the model's totals (tensor parallel size 1).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayerSpec {
    pub index: u32,
    pub kind: AttentionKind,
    /// The window vLLM gives the layer (tokens); `Some` exactly when `kind` is `SlidingWindow`.
    pub sliding_window: Option<u32>,
    pub head_dim: u32,
    pub num_q_heads: u32,
    pub num_kv_heads: u32,
    pub has_sinks: bool,
}

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

/// Which vLLM model file builds the attention layers, and so which per-layer rule applies
/// (`vllm/model_executor/models/<file>`; the rules are the same in 0.24.0 and 0.33.0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VllmModel {
    /// `opt.py`: head_dim = hidden_size // heads (86-89@0.24.0, 85-88@0.33.0), as many KV heads as query heads, no
    /// per-layer window.
    Opt,
    /// `llama.py` (also `mistral.py`, a LlamaForCausalLM subclass): head_dim = `config.head_dim` or
    /// hidden_size // heads (158-159); per-layer window = `config.sliding_window` where `config.layer_types[i]` is
    /// `"sliding_attention"`, asserting `i < len(layer_types)` (185-204@0.24.0/0.33.0).
    Llama,
    /// `qwen2.py`: head_dim = hidden_size // heads (152@0.24.0, 150@0.33.0), ignoring `config.head_dim`; no per-layer
    /// window; asserts `max_window_layers == num_hidden_layers` when `layer_types` mixes types (341@0.24.0,
    /// 352@0.33.0).
    Qwen2,
    /// `qwen3.py`: head_dim = `config.head_dim` or hidden_size // heads (98@0.24.0, 100@0.33.0); no per-layer window.
    Qwen3,
    /// `gemma3.py`: head_dim = `config.head_dim`; window = `config.sliding_window` where `config.layer_types[i]` is
    /// `"sliding_attention"` (157-159@0.24.0, 153-155@0.33.0).
    Gemma3,
    /// `gpt_oss.py`: head_dim = `config.head_dim`; window = `config.sliding_window` iff `i % 2 == 0` (137@0.24.0,
    /// 175@0.33.0), whatever `layer_types` says; learned sinks on every layer (148@0.24.0, 186@0.33.0).
    GptOss,
}

impl VllmModel {
    pub fn file(self) -> &'static str {
        match self {
            VllmModel::Opt => "vllm/model_executor/models/opt.py",
            VllmModel::Llama => "vllm/model_executor/models/llama.py",
            VllmModel::Qwen2 => "vllm/model_executor/models/qwen2.py",
            VllmModel::Qwen3 => "vllm/model_executor/models/qwen3.py",
            VllmModel::Gemma3 => "vllm/model_executor/models/gemma3.py",
            VllmModel::GptOss => "vllm/model_executor/models/gpt_oss.py",
        }
    }
}

/// How a preset's constructed config object holds `layer_types`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerTypesRule {
    /// The config object has no `layer_types` attribute.
    Absent,
    AllFull,
    AllSliding,
    /// Layer i is `full_attention` iff `(i + 1) % N == 0`, else `sliding_attention` (gemma-3: 6, gpt-oss: 2).
    FullEvery(u32),
}

/// One entry of `data/models.toml` (generated into Rust by build.rs). See the file's header for each field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelPreset {
    pub id: &'static str,
    pub architecture: &'static str,
    pub model_type: &'static str,
    pub vllm_model: VllmModel,
    /// The language model's settings sit under `text_config` (gemma-3 multimodal).
    pub text_config: bool,
    pub torch_dtype: TorchDtype,
    pub num_hidden_layers: u32,
    pub num_attention_heads: u32,
    pub num_key_value_heads: Option<u32>,
    pub hidden_size: u32,
    pub head_dim: Option<u32>,
    pub sliding_window: Option<u32>,
    pub layer_types: LayerTypesRule,
    pub attention_sinks: bool,
    pub unconfirmed: &'static [&'static str],
    pub notes: Option<&'static str>,
    pub source: &'static [&'static str],
}

include!(concat!(env!("OUT_DIR"), "/models.rs"));

/// The preset with this HF id: an exact match first, else a case-insensitive one.
pub fn find_preset(id: &str) -> Option<&'static ModelPreset> {
    MODEL_PRESETS
        .iter()
        .find(|p| p.id == id)
        .or_else(|| MODEL_PRESETS.iter().find(|p| p.id.eq_ignore_ascii_case(id)))
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

/// Keys only transformers' config constructor reads; vLLM applies `--hf-overrides` after construction.
const CONSTRUCTOR_ONLY_KEYS: [&str; 3] = ["sliding_window_pattern", "use_sliding_window", "max_window_layers"];

/// `--hf-overrides` keys naming the config dtype (transformers 5 calls it `dtype`; `torch_dtype` is its alias).
const DTYPE_KEYS: [&str; 2] = ["torch_dtype", "dtype"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HfLayerType {
    Full,
    Sliding,
}

impl LayerTypesRule {
    fn materialise(self, n: u32) -> Option<Vec<HfLayerType>> {
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
struct TextConfig {
    num_hidden_layers: Option<u32>,
    num_attention_heads: Option<u32>,
    num_key_value_heads: Option<u32>,
    hidden_size: Option<u32>,
    head_dim: Option<u32>,
    /// None: no attribute, null, or 0 (vLLM turns 0 into None).
    sliding_window: Option<u32>,
    layer_types: Option<Vec<HfLayerType>>,
    /// Where `layer_types` came from, for messages.
    layer_types_origin: String,
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
    let overrides = hf_overrides.unwrap_or(&empty);
    let preset = find_preset(id);
    let name = preset.map_or(id, |p| p.id);
    if name.trim().is_empty() {
        return err("the model id is empty".into());
    }
    let mut source: Vec<String> = Vec::new();
    let rule = preset.map_or(VllmModel::Llama, |p| p.vllm_model);

    // Where the attention keys live: a composite model (preset with text_config, or an unknown model whose
    // overrides carry a `text_config` object) reads them from text_config only.
    let nested = match overrides.get("text_config") {
        None => None,
        Some(Value::Object(m)) => Some(m),
        Some(other) => {
            return err(format!(
                "{name}: --hf-overrides text_config = {}: must be a JSON object of config keys",
                show(other)
            ))
        }
    };
    let composite = preset.map_or(nested.is_some(), |p| p.text_config);
    if let (Some(p), Some(_)) = (preset, nested) {
        if !p.text_config {
            return err(format!(
                "{name}: --hf-overrides has a `text_config` object, but {name} keeps its attention settings at the top \
                 level of its config (it has no nested text_config); write the keys at the top level"
            ));
        }
    }
    for key in CONSTRUCTOR_ONLY_KEYS {
        let place = if overrides.contains_key(key) {
            Some(key.to_string())
        } else if nested.is_some_and(|m| m.contains_key(key)) {
            Some(format!("text_config.{key}"))
        } else {
            None
        };
        if let Some(place) = place {
            return err(format!(
                "{name}: --hf-overrides {place}: only transformers' config constructor reads `{key}`, and vLLM applies \
                 --hf-overrides after the config is built (config.update), so it would change nothing; describe the \
                 layout with `layer_types` (and `sliding_window`) instead"
            ));
        }
    }

    // The constructed config.
    let mut cfg = TextConfig::default();
    let mut root_dtype: Option<TorchDtype> = None;
    let mut text_dtype: Option<TorchDtype> = None;
    if let Some(p) = preset {
        cfg = TextConfig {
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
        };
        root_dtype = Some(p.torch_dtype);
        source.extend(p.source.iter().map(|s| s.to_string()));
        if !p.unconfirmed.is_empty() {
            source.push(format!("unconfirmed preset fields: {}", p.unconfirmed.join(", ")));
        }
    }

    // Top-level keys.
    let (flat_prefix, text_prefix) = ("", "text_config.");
    for key in LAYOUT_KEYS {
        if let Some(v) = overrides.get(key) {
            if composite {
                return err(format!(
                    "{name}: --hf-overrides {key}: {name} keeps its language-model settings under text_config; vLLM \
                     would set a top-level `{key}` on the outer config, which the language model never reads, so the \
                     override would be silently ignored; write {{\"text_config\": {{\"{key}\": {}}}}}",
                    show(v)
                ));
            }
            apply_layout_key(name, flat_prefix, key, v, &mut cfg, &mut source)?;
        }
    }
    if let Some(v) = dtype_override(name, flat_prefix, overrides)? {
        root_dtype = Some(v.0);
        source.push(v.1);
    }
    // text_config keys.
    if let Some(m) = nested {
        for key in LAYOUT_KEYS {
            if let Some(v) = m.get(key) {
                apply_layout_key(name, text_prefix, key, v, &mut cfg, &mut source)?;
            }
        }
        if let Some(v) = dtype_override(name, text_prefix, m)? {
            if let Some(root) = root_dtype {
                return err(format!(
                    "{name}: --hf-overrides text_config.torch_dtype: vLLM reads the top-level config dtype first \
                     ({root} here) and only falls back to text_config's when there is none, so this would change \
                     nothing; put torch_dtype at the top level"
                ));
            }
            text_dtype = Some(v.0);
            source.push(v.1);
        }
    }

    // An unknown model must be described completely enough.
    if preset.is_none() {
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
            let place = if composite { " under text_config" } else { "" };
            return err(format!(
                "{name} is not a qpath preset, so --hf-overrides must describe its attention; missing{place}: {}",
                missing.join(", ")
            ));
        }
        source.push(format!(
            "{name} is not a qpath preset: the layout comes from --hf-overrides only, with vLLM's Llama rule ({})",
            VllmModel::Llama.file()
        ));
    }

    let config_dtype = match root_dtype.or(text_dtype) {
        Some(d) => d,
        None => {
            source.push(
                "config dtype: none given; vLLM would read the checkpoint's safetensors dtypes and, failing that, \
                 use float32 (vllm/transformers_utils/model_arch_config_convertor.py:186-202@0.24.0, \
                 221-237@0.33.0); qpath assumes float32"
                    .into(),
            );
            TorchDtype::Float32
        }
    };

    let layers = build_layers(release, name, rule, &cfg, &mut source)?;
    Ok(ModelSpec {
        id: name.to_string(),
        preset: preset.is_some(),
        config_dtype,
        layers,
        source,
    })
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

fn positive_int(name: &str, path: &str, v: &Value, max: u32) -> Result<u32, ModelError> {
    match v.as_u64() {
        Some(0) => err(format!("{name}: --hf-overrides {path} = 0: must be a positive integer")),
        Some(n) if n <= u64::from(max) => Ok(n as u32),
        Some(n) => err(format!(
            "{name}: --hf-overrides {path} = {n}: larger than qpath's limit of {max}"
        )),
        None => err(format!(
            "{name}: --hf-overrides {path} = {}: must be a positive integer",
            show(v)
        )),
    }
}

fn apply_layout_key(
    name: &str,
    prefix: &str,
    key: &str,
    v: &Value,
    cfg: &mut TextConfig,
    source: &mut Vec<String>,
) -> Result<(), ModelError> {
    let path = format!("{prefix}{key}");
    let before = |x: Option<u32>| x.map_or("unset".to_string(), |x| x.to_string());
    match key {
        "num_hidden_layers" => {
            let n = positive_int(name, &path, v, MAX_LAYERS)?;
            source.push(format!("--hf-overrides {path} = {n} (was {})", before(cfg.num_hidden_layers)));
            cfg.num_hidden_layers = Some(n);
        }
        "num_attention_heads" => {
            let n = positive_int(name, &path, v, MAX_HEADS)?;
            source.push(format!(
                "--hf-overrides {path} = {n} (was {})",
                before(cfg.num_attention_heads)
            ));
            cfg.num_attention_heads = Some(n);
        }
        "num_key_value_heads" => {
            let n = positive_int(name, &path, v, MAX_HEADS)?;
            source.push(format!(
                "--hf-overrides {path} = {n} (was {})",
                before(cfg.num_key_value_heads)
            ));
            cfg.num_key_value_heads = Some(n);
        }
        "head_dim" => {
            let n = positive_int(name, &path, v, MAX_HEAD_DIM)?;
            source.push(format!("--hf-overrides {path} = {n} (was {})", before(cfg.head_dim)));
            cfg.head_dim = Some(n);
        }
        "hidden_size" => {
            let n = positive_int(name, &path, v, MAX_HIDDEN_SIZE)?;
            source.push(format!("--hf-overrides {path} = {n} (was {})", before(cfg.hidden_size)));
            cfg.hidden_size = Some(n);
        }
        "sliding_window" => {
            let was = before(cfg.sliding_window);
            cfg.sliding_window = match v {
                Value::Null => None,
                _ if v.as_u64() == Some(0) => {
                    source.push(format!(
                        "--hf-overrides {path} = 0: vLLM treats a window of 0 as no window \
                         (vllm/config/model.py:652@0.24.0, 819@0.33.0: sliding_window = None)"
                    ));
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
            source.push(format!("--hf-overrides {path} = {} (was {was})", show(v)));
        }
        "layer_types" => {
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
            source.push(format!("--hf-overrides {path}: {} entries", types.len()));
            cfg.layer_types = Some(types);
            cfg.layer_types_origin = format!("--hf-overrides {path}");
        }
        _ => unreachable!("apply_layout_key called with a key outside LAYOUT_KEYS"),
    }
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

fn build_layers(
    release: Release,
    name: &str,
    rule: VllmModel,
    cfg: &TextConfig,
    source: &mut Vec<String>,
) -> Result<Vec<LayerSpec>, ModelError> {
    let (Some(n), Some(heads)) = (cfg.num_hidden_layers, cfg.num_attention_heads) else {
        // resolve_model_at checks this for unknown models; presets always carry both.
        return err(format!("{name}: num_hidden_layers and num_attention_heads are required"));
    };
    let file = rule.file();

    // Heads.
    let kv = match rule {
        VllmModel::Opt => {
            if let Some(k) = cfg.num_key_value_heads.filter(|k| *k != heads) {
                return err(format!(
                    "{name}: --hf-overrides num_key_value_heads = {k}: vLLM's {file} gives every query head its own KV \
                     head and never reads num_key_value_heads, so this would change nothing"
                ));
            }
            heads
        }
        _ => cfg.num_key_value_heads.unwrap_or(heads),
    };
    if kv > heads || heads % kv != 0 {
        return err(format!(
            "{name}: num_attention_heads = {heads} is not a multiple of num_key_value_heads = {kv}"
        ));
    }

    // Head size.
    let derived = |what: &str| -> Result<u32, ModelError> {
        let Some(hidden) = cfg.hidden_size else {
            return err(format!(
                "{name}: {what} needs hidden_size / num_attention_heads, and hidden_size is not set"
            ));
        };
        if hidden % heads != 0 {
            return err(format!(
                "{name}: hidden_size = {hidden} is not a multiple of num_attention_heads = {heads}, so head_dim = \
                 hidden_size / num_attention_heads is not whole"
            ));
        }
        Ok(hidden / heads)
    };
    let head_dim = match rule {
        VllmModel::Opt | VllmModel::Qwen2 => {
            let d = derived("the head size")?;
            if let Some(h) = cfg.head_dim.filter(|h| *h != d) {
                return err(format!(
                    "{name}: --hf-overrides head_dim = {h}: vLLM's {file} ignores head_dim and uses hidden_size / \
                     num_attention_heads = {d}, so this would change nothing"
                ));
            }
            source.push(format!("head_dim = hidden_size / num_attention_heads = {d} ({file})"));
            d
        }
        VllmModel::Llama | VllmModel::Qwen3 => match cfg.head_dim {
            Some(h) => h,
            None => {
                let d = derived("head_dim")?;
                source.push(format!("head_dim = hidden_size / num_attention_heads = {d} ({file})"));
                d
            }
        },
        VllmModel::Gemma3 | VllmModel::GptOss => match cfg.head_dim {
            Some(h) => h,
            None => return err(format!("{name}: vLLM's {file} reads config.head_dim, which is not set")),
        },
    };

    // layer_types must describe every layer when given by the user.
    if let Some(lt) = &cfg.layer_types {
        if cfg.layer_types_origin.starts_with("--hf-overrides") && lt.len() != n as usize {
            return err(format!(
                "{name}: {} has {} entries but the model has {n} layers (num_hidden_layers); they must match",
                cfg.layer_types_origin,
                lt.len()
            ));
        }
        if rule == VllmModel::Qwen2 && lt.contains(&HfLayerType::Full) && lt.contains(&HfLayerType::Sliding) {
            return err(format!(
                "{name}: layer_types mixes full and sliding layers; vLLM's {file} then asserts \
                 max_window_layers == num_hidden_layers (\"Sliding window for some but all layers is not \
                 supported...\"), which qpath does not model"
            ));
        }
    }

    // CacheConfig.sliding_window: the window of layers without their own.
    let model_window = cfg.sliding_window;
    let lt = cfg.layer_types.as_deref();
    let cache_window = if release <= Release::V0_26_0 {
        let interleaved = lt.is_some_and(|l| l.contains(&HfLayerType::Full) && l.contains(&HfLayerType::Sliding));
        if interleaved {
            None
        } else {
            model_window
        }
    } else if lt.is_none_or(|l| l.iter().all(|t| *t == HfLayerType::Sliding)) {
        model_window
    } else {
        None
    };
    let cache_rule = if release <= Release::V0_26_0 {
        "`not is_interleaved(text_config)`"
    } else {
        "`layer_types is None or all sliding_attention`"
    };
    source.push(format!(
        "cache_config.sliding_window = {} (vllm/engine/arg_utils.py @{}: the model's sliding_window iff {cache_rule})",
        cache_window.map_or("None".to_string(), |w| w.to_string()),
        release.name()
    ));

    let mut layers = Vec::with_capacity(n as usize);
    for i in 0..n {
        let per_layer = match rule {
            VllmModel::Opt | VllmModel::Qwen2 | VllmModel::Qwen3 => None,
            VllmModel::GptOss => model_window.filter(|_| i % 2 == 0),
            VllmModel::Llama | VllmModel::Gemma3 => match lt {
                None if rule == VllmModel::Llama => None,
                Some([]) if rule == VllmModel::Llama => None,
                None => {
                    return err(format!(
                        "{name}: vLLM's {file} reads config.layer_types[{i}], which is not set"
                    ))
                }
                Some(l) => match l.get(i as usize) {
                    Some(HfLayerType::Sliding) => model_window,
                    Some(HfLayerType::Full) => None,
                    None => {
                        return err(format!(
                            "{name}: vLLM's {file} reads config.layer_types[{i}] but {} has only {} entries (it fails \
                             there); pass a layer_types override with {n} entries as well",
                            cfg.layer_types_origin,
                            l.len()
                        ))
                    }
                },
            },
        };
        let window = per_layer.or(cache_window);
        layers.push(LayerSpec {
            index: i,
            kind: if window.is_some() {
                AttentionKind::SlidingWindow
            } else {
                AttentionKind::Full
            },
            sliding_window: window,
            head_dim,
            num_q_heads: heads,
            num_kv_heads: kv,
            has_sinks: rule == VllmModel::GptOss,
        });
    }
    source.push(format!(
        "per-layer windows, head size and sinks: {file} (vLLM @{})",
        release.name()
    ));
    Ok(layers)
}

/// Checks the meaning of every preset (build.rs checks only the shape); a failure names every bad row at once.
pub fn validate_presets(presets: &[ModelPreset]) -> Result<(), Vec<String>> {
    const FIELDS: [&str; 12] = [
        "torch_dtype",
        "num_hidden_layers",
        "num_attention_heads",
        "num_key_value_heads",
        "hidden_size",
        "head_dim",
        "sliding_window",
        "layer_types",
        "attention_sinks",
        "architecture",
        "model_type",
        "text_config",
    ];
    let mut problems = Vec::new();
    for (i, p) in presets.iter().enumerate() {
        let mut bad = |what: String| problems.push(format!("model `{}`: {what}", p.id));
        if presets[..i].iter().any(|q| q.id.eq_ignore_ascii_case(p.id)) {
            bad("duplicate id (ids are matched case-insensitively)".into());
        }
        if !p.id.contains('/') {
            bad("id is not an owner/name Hugging Face id".into());
        }
        if p.source.is_empty() {
            bad("no source".into());
        }
        if p.num_hidden_layers == 0 || p.num_attention_heads == 0 || p.hidden_size == 0 {
            bad("num_hidden_layers, num_attention_heads and hidden_size must be positive".into());
        }
        if p.head_dim.is_none() && p.num_attention_heads > 0 && p.hidden_size % p.num_attention_heads != 0 {
            bad("no head_dim, and hidden_size is not a multiple of num_attention_heads".into());
        }
        if let Some(kv) = p.num_key_value_heads {
            if kv == 0 || p.num_attention_heads % kv != 0 {
                bad(format!("num_key_value_heads = {kv} does not divide num_attention_heads"));
            }
        }
        if p.attention_sinks != (p.vllm_model == VllmModel::GptOss) {
            bad("attention_sinks must be true exactly for vllm_model gpt_oss (vLLM decides sinks by model file)".into());
        }
        let slides = matches!(p.layer_types, LayerTypesRule::AllSliding | LayerTypesRule::FullEvery(_));
        if slides && p.sliding_window.is_none() {
            bad("layer_types has sliding layers but sliding_window is not set".into());
        }
        if let Some(u) = p.unconfirmed.iter().find(|u| !FIELDS.contains(u)) {
            bad(format!("unconfirmed names `{u}`, which is not a field"));
        }
        if let Err(e) = resolve_model(p.id, None) {
            bad(format!("does not resolve: {e}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

// ------------------------------------------------------------------------------------------------------------------
// --dtype

/// Per release, the lines of `vllm/config/model.py` (and `vllm/platforms/cuda.py`) [`resolve_dtype`] restates:
/// `_STR_DTYPE_TO_TORCH_DTYPE`, `_FLOAT16_NOT_SUPPORTED_MODELS`, `_check_valid_dtype`, `_resolve_auto_dtype`, its
/// float32 downcast, `_get_and_verify_dtype`, its `dtype.lower()`, its `Unknown dtype` raise, and
/// `CudaPlatform.supported_dtypes`.
pub fn dtype_rule_sources(release: Release) -> Vec<String> {
    use Release::*;
    let (map, ban, check, auto, down, verify, lower, unknown, cuda) = match release.source_release() {
        V0_24_0 => (1936, 1950, 1966, 1976, 1994, 2020, 2035, 2045, 233),
        V0_25_0Prefix | V0_25_0 | V0_25_1 => (1987, 2001, 2017, 2027, 2045, 2071, 2086, 2096, 229),
        V0_26_0 => (1996, 2010, 2026, 2036, 2054, 2080, 2095, 2105, 233),
        V0_27_0 | V0_27_1 => (2091, 2105, 2120, 2130, 2148, 2174, 2189, 2199, 233),
        V0_28_0 => (2173, 2187, 2202, 2212, 2230, 2256, 2271, 2281, 237),
        V0_29_0 => (2229, 2243, 2258, 2268, 2286, 2312, 2327, 2337, 237),
        V0_30_0 => (2238, 2252, 2267, 2277, 2295, 2321, 2336, 2346, 255),
        V0_31_0 => (2316, 2330, 2345, 2355, 2373, 2399, 2414, 2424, 255),
        V0_32_0 => (2366, 2380, 2395, 2405, 2423, 2449, 2464, 2480, 255),
        V0_33_0 => (2384, 2398, 2413, 2423, 2441, 2467, 2482, 2498, 257),
    };
    let r = release.name();
    vec![
        format!("vllm/config/model.py:{map}@{r} _STR_DTYPE_TO_TORCH_DTYPE (half, float16, float, float32, bfloat16)"),
        format!("vllm/config/model.py:{ban}@{r} _FLOAT16_NOT_SUPPORTED_MODELS; :{check} _check_valid_dtype"),
        format!("vllm/config/model.py:{auto}@{r} _resolve_auto_dtype; :{down} float32 configs take the preferred dtype"),
        format!("vllm/config/model.py:{verify}@{r} _get_and_verify_dtype; :{lower} dtype.lower(); :{unknown} Unknown dtype"),
        format!("vllm/platforms/cuda.py:{cuda}@{r} CudaPlatform.supported_dtypes"),
        format!("vllm/engine/arg_utils.py@{r} --dtype: argparse choices from ModelDType (sorted)"),
    ]
}

/// `--dtype` choices as argparse lists them (vLLM sorts the `ModelDType` literal: `literal_to_kwargs`,
/// `vllm/engine/arg_utils.py:186-199@0.24.0, 221-234@0.33.0`).
pub const DTYPE_CHOICES: [&str; 6] = ["auto", "bfloat16", "float", "float16", "float32", "half"];

/// The `model_type`s vLLM refuses float16 for (`_FLOAT16_NOT_SUPPORTED_MODELS`): gemma2, gemma3, gemma3_text, glm4,
/// plus plamo2 up to 0.26.0 (removed in 0.27.0). Reason text: "Numerical instability. Please use bfloat16 or float32
/// instead."
pub fn float16_unsupported(release: Release, model_type: &str) -> bool {
    matches!(model_type, "gemma2" | "gemma3" | "gemma3_text" | "glm4") || (model_type == "plamo2" && release <= Release::V0_26_0)
}

/// vLLM's `--dtype` resolution for a generative model on a CUDA GPU of capability 8.0 or newer (every GPU vLLM's
/// FlashInfer backend accepts from 0.24.0), without the model_type check: see [`resolve_dtype_on`].
pub fn resolve_dtype(release: Release, dtype_flag: &str, config_dtype: TorchDtype) -> Result<TorchDtype, String> {
    resolve_dtype_on(release, dtype_flag, config_dtype, None, ComputeCapability::new(8, 0))
}

/// vLLM's `--dtype` resolution (`_get_and_verify_dtype`; lines per release in [`dtype_rule_sources`]; identical in
/// 0.24.0–0.33.0 for CUDA except where noted):
///
/// 1. The CLI accepts only `auto, bfloat16, float, float16, float32, half` (argparse choices, case-sensitive); else
///    argparse exits with `argument --dtype: invalid choice: 'x' (choose from auto, bfloat16, float, float16,
///    float32, half)` (Python 3.12+ wording; older Pythons quote each choice). The Python API lower-cases the value
///    and raises `ValueError: Unknown dtype: 'x'` instead.
/// 2. `half`/`float16` → float16, `bfloat16` → bfloat16, `float`/`float32` → float32 (`_STR_DTYPE_TO_TORCH_DTYPE`).
/// 3. `auto` (`_resolve_auto_dtype`): the platform's supported dtypes — `[bfloat16, float16, float32]` at capability
///    ≥ 8.0, `[float16, float32]` at ≥ 6.0, else `[float32]` (`CudaPlatform.supported_dtypes`) — minus float16 for a
///    banned model_type ([`float16_unsupported`]); the preferred dtype is the first of them (a pooling model prefers
///    float16; qpath models generative runners only). A float32 config takes the preferred dtype (so bfloat16 on
///    SM80+: "Downcast for float32 models"); a config dtype in the list is kept; any other falls back to the
///    preferred dtype with the warning `Your device … doesn't support …`. (0.32+: a POWERPC CPU turns float16/float32
///    into bfloat16 — not CUDA.)
/// 4. `_check_valid_dtype`: float16 for a banned model_type raises `The model type 'gemma3' does not support float16.
///    Reason: Numerical instability. Please use bfloat16 or float32 instead.`
pub fn resolve_dtype_on(
    release: Release,
    dtype_flag: &str,
    config_dtype: TorchDtype,
    model_type: Option<&str>,
    device: ComputeCapability,
) -> Result<TorchDtype, String> {
    let banned = model_type.is_some_and(|m| float16_unsupported(release, m));
    let resolved = match dtype_flag {
        "auto" => {
            let platform: &[TorchDtype] = if device.to_int() >= 80 {
                &[TorchDtype::BFloat16, TorchDtype::Float16, TorchDtype::Float32]
            } else if device.to_int() >= 60 {
                &[TorchDtype::Float16, TorchDtype::Float32]
            } else {
                &[TorchDtype::Float32]
            };
            let supported: Vec<TorchDtype> = platform
                .iter()
                .copied()
                .filter(|d| !(banned && *d == TorchDtype::Float16))
                .collect();
            let preferred = supported[0];
            let config = if config_dtype == TorchDtype::Float32 {
                preferred
            } else {
                config_dtype
            };
            if supported.contains(&config) {
                config
            } else {
                preferred
            }
        }
        "half" | "float16" => TorchDtype::Float16,
        "bfloat16" => TorchDtype::BFloat16,
        "float" | "float32" => TorchDtype::Float32,
        other => {
            return Err(format!(
                "argument --dtype: invalid choice: '{other}' (choose from {})",
                DTYPE_CHOICES.join(", ")
            ))
        }
    };
    if banned && resolved == TorchDtype::Float16 {
        return Err(format!(
            "The model type '{}' does not support float16. Reason: Numerical instability. Please use bfloat16 or \
             float32 instead.",
            model_type.unwrap_or_default()
        ));
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    fn sliding_indices(spec: &ModelSpec) -> Vec<u32> {
        spec.sliding_layers().map(|l| l.index).collect()
    }

    fn full_indices(spec: &ModelSpec) -> Vec<u32> {
        spec.full_layers().map(|l| l.index).collect()
    }

    #[test]
    fn presets_are_valid() {
        if let Err(problems) = validate_presets(MODEL_PRESETS) {
            panic!("data/models.toml:\n{}", problems.join("\n"));
        }
    }

    #[test]
    fn the_required_presets_exist() {
        for id in [
            "facebook/opt-125m",
            "meta-llama/Llama-3.1-8B-Instruct",
            "meta-llama/Llama-3.3-70B-Instruct",
            "Qwen/Qwen2.5-0.5B-Instruct",
            "Qwen/Qwen3-8B",
            "openai/gpt-oss-20b",
            "openai/gpt-oss-120b",
            "google/gemma-3-27b-it",
            "mistralai/Mistral-7B-Instruct-v0.1",
            "Qwen/Qwen3-0.6B",
            "meta-llama/Meta-Llama-3-8B",
        ] {
            assert!(find_preset(id).is_some(), "{id}");
        }
    }

    #[test]
    fn every_preset_resolves_in_every_release() {
        for p in MODEL_PRESETS {
            for r in Release::ALL {
                let spec = resolve_model_at(r, p.id, None).unwrap_or_else(|e| panic!("{}: {e}", p.id));
                assert!(spec.preset);
                assert_eq!(spec.id, p.id);
                assert_eq!(spec.config_dtype, p.torch_dtype);
                assert_eq!(spec.layers.len(), p.num_hidden_layers as usize);
                assert!(!spec.source.is_empty());
                for (i, l) in spec.layers.iter().enumerate() {
                    assert_eq!(l.index as usize, i);
                    assert_eq!(l.kind == AttentionKind::SlidingWindow, l.sliding_window.is_some());
                    assert_eq!(l.num_q_heads % l.num_kv_heads, 0);
                }
            }
        }
    }

    #[test]
    fn find_preset_is_exact_then_case_insensitive() {
        assert_eq!(find_preset("qwen/qwen3-8b").unwrap().id, "Qwen/Qwen3-8B");
        assert_eq!(find_preset("OPENAI/GPT-OSS-20B").unwrap().id, "openai/gpt-oss-20b");
        assert!(find_preset("Qwen/Qwen3-8").is_none());
        let spec = resolve_model("GOOGLE/gemma-3-27B-IT", None).unwrap();
        assert_eq!(spec.id, "google/gemma-3-27b-it");
    }

    #[test]
    fn opt_125m_is_float16_mha() {
        let spec = resolve_model("facebook/opt-125m", None).unwrap();
        assert_eq!(spec.config_dtype, TorchDtype::Float16);
        assert_eq!(spec.layers.len(), 12);
        for l in &spec.layers {
            assert_eq!(
                (l.kind, l.head_dim, l.num_q_heads, l.num_kv_heads),
                (AttentionKind::Full, 64, 12, 12)
            );
            assert!(!l.has_sinks);
        }
    }

    #[test]
    fn llama_and_qwen_presets_are_all_full() {
        for (id, n, q, kv, d) in [
            ("meta-llama/Llama-3.1-8B-Instruct", 32, 32, 8, 128),
            ("meta-llama/Llama-3.3-70B-Instruct", 80, 64, 8, 128),
            ("meta-llama/Meta-Llama-3-8B", 32, 32, 8, 128),
            ("Qwen/Qwen2.5-0.5B-Instruct", 24, 14, 2, 64),
            ("Qwen/Qwen3-8B", 36, 32, 8, 128),
            ("Qwen/Qwen3-0.6B", 28, 16, 8, 128),
        ] {
            let spec = resolve_model(id, None).unwrap();
            assert_eq!(spec.config_dtype, TorchDtype::BFloat16, "{id}");
            assert_eq!(spec.layers.len(), n, "{id}");
            assert!(spec.layers.iter().all(|l| l.kind == AttentionKind::Full
                && (l.num_q_heads, l.num_kv_heads, l.head_dim) == (q, kv, d)
                && !l.has_sinks));
        }
    }

    #[test]
    fn gemma3_27b_has_full_layers_every_sixth() {
        let spec = resolve_model("google/gemma-3-27b-it", None).unwrap();
        assert_eq!(spec.layers.len(), 62);
        assert_eq!(full_indices(&spec), vec![5, 11, 17, 23, 29, 35, 41, 47, 53, 59]);
        assert_eq!(spec.sliding_layers().count(), 52);
        assert!(spec.sliding_layers().all(|l| l.sliding_window == Some(1024)));
        assert!(spec.full_layers().all(|l| l.sliding_window.is_none()));
        assert!(spec
            .layers
            .iter()
            .all(|l| (l.head_dim, l.num_q_heads, l.num_kv_heads) == (128, 32, 16)));
        assert_eq!(spec.model_type(), Some("gemma3"));
    }

    #[test]
    fn gpt_oss_alternates_and_has_sinks() {
        for (id, n) in [("openai/gpt-oss-20b", 24), ("openai/gpt-oss-120b", 36)] {
            let spec = resolve_model(id, None).unwrap();
            assert_eq!(spec.layers.len(), n);
            for l in &spec.layers {
                assert!(l.has_sinks);
                assert_eq!((l.head_dim, l.num_q_heads, l.num_kv_heads), (64, 64, 8));
                if l.index % 2 == 0 {
                    assert_eq!((l.kind, l.sliding_window), (AttentionKind::SlidingWindow, Some(128)));
                } else {
                    assert_eq!((l.kind, l.sliding_window), (AttentionKind::Full, None));
                }
            }
        }
    }

    #[test]
    fn mistral_v01_slides_on_every_layer_in_every_release() {
        for r in Release::ALL {
            let spec = resolve_model_at(r, "mistralai/Mistral-7B-Instruct-v0.1", None).unwrap();
            assert_eq!(spec.layers.len(), 32);
            assert!(spec
                .layers
                .iter()
                .all(|l| l.kind == AttentionKind::SlidingWindow && l.sliding_window == Some(4096)));
            assert!(spec
                .layers
                .iter()
                .all(|l| (l.head_dim, l.num_q_heads, l.num_kv_heads) == (128, 32, 8)));
        }
    }

    #[test]
    fn overrides_change_layers_and_heads() {
        let o = obj(json!({"num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64}));
        let spec = resolve_model("meta-llama/Llama-3.1-8B-Instruct", Some(&o)).unwrap();
        assert!(spec.preset);
        assert_eq!(spec.layers.len(), 4);
        assert!(spec
            .layers
            .iter()
            .all(|l| (l.num_q_heads, l.num_kv_heads, l.head_dim) == (16, 4, 64)));
        assert!(spec.source.iter().any(|s| s.contains("num_hidden_layers = 4 (was 32)")));

        // head_dim was materialised by LlamaConfig: changing the heads alone keeps 128.
        let o = obj(json!({"num_attention_heads": 16, "num_key_value_heads": 8}));
        let spec = resolve_model("meta-llama/Llama-3.1-8B-Instruct", Some(&o)).unwrap();
        assert!(spec.layers.iter().all(|l| l.head_dim == 128 && l.num_q_heads == 16));

        // OPT derives head_dim from hidden_size / heads: 768 / 24 = 32.
        let o = obj(json!({"num_attention_heads": 24}));
        let spec = resolve_model("facebook/opt-125m", Some(&o)).unwrap();
        assert!(spec
            .layers
            .iter()
            .all(|l| (l.head_dim, l.num_q_heads, l.num_kv_heads) == (32, 24, 24)));

        let o = obj(json!({"torch_dtype": "float16"}));
        let spec = resolve_model("Qwen/Qwen3-8B", Some(&o)).unwrap();
        assert_eq!(spec.config_dtype, TorchDtype::Float16);
    }

    #[test]
    fn layer_types_override_makes_a_llama_hybrid() {
        let types: Vec<&str> = (0..32)
            .map(|i| if i % 4 == 3 { "full_attention" } else { "sliding_attention" })
            .collect();
        let o = obj(json!({"layer_types": types, "sliding_window": 512}));
        let spec = resolve_model("meta-llama/Llama-3.1-8B-Instruct", Some(&o)).unwrap();
        assert_eq!(full_indices(&spec), (0..32).filter(|i| i % 4 == 3).collect::<Vec<_>>());
        assert!(spec.sliding_layers().all(|l| l.sliding_window == Some(512)));
    }

    #[test]
    fn gemma3_overrides_go_under_text_config() {
        let o = obj(json!({"text_config": {"num_hidden_layers": 12, "sliding_window": 512}}));
        let spec = resolve_model("google/gemma-3-27b-it", Some(&o)).unwrap();
        assert_eq!(spec.layers.len(), 12);
        assert_eq!(full_indices(&spec), vec![5, 11]);
        assert!(spec.sliding_layers().all(|l| l.sliding_window == Some(512)));

        // A top-level layout key would be ignored by vLLM: an error that says so.
        let o = obj(json!({"num_hidden_layers": 12}));
        let e = resolve_model("google/gemma-3-27b-it", Some(&o)).unwrap_err();
        assert!(
            e.message.contains("text_config") && e.message.contains("num_hidden_layers"),
            "{e}"
        );

        // More layers than transformers built layer_types for: vLLM's gemma3.py fails at layer 62.
        let o = obj(json!({"text_config": {"num_hidden_layers": 64}}));
        let e = resolve_model("google/gemma-3-27b-it", Some(&o)).unwrap_err();
        assert!(e.message.contains("layer_types[62]"), "{e}");

        // Top-level torch_dtype works; under text_config it would be shadowed by the top-level one.
        let o = obj(json!({"torch_dtype": "float32"}));
        assert_eq!(
            resolve_model("google/gemma-3-27b-it", Some(&o)).unwrap().config_dtype,
            TorchDtype::Float32
        );
        let o = obj(json!({"text_config": {"torch_dtype": "float32"}}));
        assert!(resolve_model("google/gemma-3-27b-it", Some(&o)).is_err());
    }

    #[test]
    fn text_config_on_a_flat_model_is_an_error() {
        let o = obj(json!({"text_config": {"num_hidden_layers": 2}}));
        let e = resolve_model("Qwen/Qwen3-8B", Some(&o)).unwrap_err();
        assert!(e.message.starts_with("Qwen/Qwen3-8B"), "{e}");
    }

    #[test]
    fn sliding_window_override_on_an_all_full_qwen_differs_by_release() {
        // layer_types all full_attention (materialised by Qwen3Config): 0.24-0.26 call the model not interleaved and
        // give every layer the window; 0.27+ require all-sliding layer_types, so no layer slides.
        let o = obj(json!({"sliding_window": 4096}));
        let old = resolve_model_at(Release::V0_26_0, "Qwen/Qwen3-8B", Some(&o)).unwrap();
        assert!(old.layers.iter().all(|l| l.sliding_window == Some(4096)));
        let new = resolve_model_at(Release::V0_27_0, "Qwen/Qwen3-8B", Some(&o)).unwrap();
        assert!(new.layers.iter().all(|l| l.kind == AttentionKind::Full));
    }

    #[test]
    fn sliding_window_zero_or_null_removes_the_window() {
        for v in [json!(0), Value::Null] {
            let o = obj(json!({"sliding_window": v}));
            let spec = resolve_model("mistralai/Mistral-7B-Instruct-v0.1", Some(&o)).unwrap();
            assert!(spec.layers.iter().all(|l| l.kind == AttentionKind::Full));
        }
    }

    #[test]
    fn unknown_model_without_overrides_lists_the_missing_keys() {
        let e = resolve_model("acme/unknown-7b", None).unwrap_err();
        assert!(e.message.contains("acme/unknown-7b"), "{e}");
        assert!(
            e.message
                .contains("missing: num_hidden_layers, num_attention_heads, head_dim (or hidden_size)"),
            "{e}"
        );

        let o = obj(json!({"num_hidden_layers": 8}));
        let e = resolve_model("acme/unknown-7b", Some(&o)).unwrap_err();
        assert!(
            e.message.ends_with("missing: num_attention_heads, head_dim (or hidden_size)"),
            "{e}"
        );

        let o = obj(json!({"text_config": {"num_attention_heads": 8}}));
        let e = resolve_model("acme/unknown-vl", Some(&o)).unwrap_err();
        assert!(
            e.message
                .ends_with("missing under text_config: num_hidden_layers, head_dim (or hidden_size)"),
            "{e}"
        );
    }

    #[test]
    fn unknown_model_from_overrides() {
        let o = obj(json!({"num_hidden_layers": 4, "num_attention_heads": 8, "hidden_size": 1024}));
        let spec = resolve_model("acme/tiny", Some(&o)).unwrap();
        assert!(!spec.preset);
        assert_eq!(spec.config_dtype, TorchDtype::Float32);
        assert!(spec
            .layers
            .iter()
            .all(|l| (l.head_dim, l.num_q_heads, l.num_kv_heads) == (128, 8, 8)));

        // Every layer slides when a window is given without layer_types (cache_config.sliding_window).
        let o = obj(
            json!({"num_hidden_layers": 2, "num_attention_heads": 4, "head_dim": 64, "num_key_value_heads": 2,
                          "sliding_window": 256, "torch_dtype": "bfloat16"}),
        );
        let spec = resolve_model("acme/swa", Some(&o)).unwrap();
        assert_eq!(spec.config_dtype, TorchDtype::BFloat16);
        assert_eq!(sliding_indices(&spec), vec![0, 1]);
    }

    #[test]
    fn bad_values_name_the_key_and_value() {
        let cases = [
            (json!({"num_hidden_layers": -1}), "num_hidden_layers = -1"),
            (json!({"num_hidden_layers": 0}), "num_hidden_layers = 0"),
            (json!({"num_hidden_layers": 2.5}), "num_hidden_layers = 2.5"),
            (json!({"num_hidden_layers": "12"}), "num_hidden_layers = \"12\""),
            (json!({"num_hidden_layers": 1_000_000}), "num_hidden_layers = 1000000"),
            (
                json!({"num_attention_heads": 32, "num_key_value_heads": 7}),
                "num_key_value_heads = 7",
            ),
            (json!({"num_key_value_heads": 64}), "num_key_value_heads = 64"),
            (
                json!({"layer_types": ["full_attention"]}),
                "has 1 entries but the model has 32 layers",
            ),
            (
                json!({"layer_types": "sliding_attention"}),
                "layer_types = \"sliding_attention\"",
            ),
            (json!({"layer_types": [1, 2]}), "layer_types[0] = 1"),
            (json!({"sliding_window": -5}), "sliding_window = -5"),
            (json!({"sliding_window": true}), "sliding_window = true"),
            (json!({"torch_dtype": "fp8"}), "torch_dtype = \"fp8\""),
            (json!({"torch_dtype": "float16", "dtype": "bfloat16"}), "disagree"),
            (json!({"text_config": 3}), "text_config = 3"),
            (json!({"use_sliding_window": true}), "use_sliding_window"),
            (json!({"sliding_window_pattern": 4}), "sliding_window_pattern"),
        ];
        for (o, needle) in cases {
            let o = obj(o);
            let e = resolve_model("meta-llama/Llama-3.1-8B-Instruct", Some(&o)).unwrap_err();
            assert!(e.message.starts_with("meta-llama/Llama-3.1-8B-Instruct"), "{e}");
            assert!(e.message.contains(needle), "{needle:?} not in {e}");
        }
        let o = obj(json!({"hidden_size": 1000, "num_attention_heads": 3}));
        let e = resolve_model("facebook/opt-125m", Some(&o)).unwrap_err();
        assert!(
            e.message
                .contains("hidden_size = 1000 is not a multiple of num_attention_heads = 3"),
            "{e}"
        );
        let o = obj(json!({"head_dim": 128}));
        assert!(resolve_model("Qwen/Qwen2.5-0.5B-Instruct", Some(&o))
            .unwrap_err()
            .message
            .contains("ignores head_dim"));
        let o = obj(json!({"layer_types": ["sliding_attention", "full_attention"], "num_hidden_layers": 2}));
        assert!(resolve_model("Qwen/Qwen2.5-0.5B-Instruct", Some(&o)).is_err());
        assert!(resolve_model("", None).is_err());
    }

    #[test]
    fn unrelated_keys_are_accepted() {
        let o = obj(json!({"rope_theta": 1.0e6, "architectures": ["X"], "max_position_embeddings": 4096}));
        assert_eq!(
            resolve_model("Qwen/Qwen3-8B", Some(&o)).unwrap().layers,
            resolve_model("Qwen/Qwen3-8B", None).unwrap().layers
        );
    }

    /// JSON values for the hf-overrides property run.
    impl Rng {
        fn value(&mut self, depth: u32) -> Value {
            match self.below(if depth > 1 { 9 } else { 11 }) {
                0 => Value::Null,
                1 => json!(self.below(2) == 0),
                2 => json!(self.below(130)),
                3 => json!(-(self.below(1000) as i64)),
                4 => json!(self.next()),
                5 => json!((self.below(1000) as f64) / 7.0),
                6 => json!(["float16", "bfloat16", "float32", "half", "", "auto"][self.below(6)]),
                7 => json!([0u64, 1, 2, 4, 8, 16, 32, 62, 64, 128, 4096, 4097][self.below(12)]),
                8 => {
                    let len = [0u64, 1, 2, 12, 24, 32, 62][self.below(7)];
                    let items: Vec<Value> = (0..len)
                        .map(|_| match self.below(5) {
                            0 => json!("full_attention"),
                            1 | 2 => json!("sliding_attention"),
                            3 => json!("chunked_attention"),
                            _ => json!(self.below(3)),
                        })
                        .collect();
                    Value::Array(items)
                }
                _ => Value::Object(self.map(depth + 1)),
            }
        }
        fn map(&mut self, depth: u32) -> Map<String, Value> {
            const KEYS: [&str; 15] = [
                "num_hidden_layers",
                "num_attention_heads",
                "num_key_value_heads",
                "head_dim",
                "hidden_size",
                "layer_types",
                "sliding_window",
                "torch_dtype",
                "dtype",
                "text_config",
                "use_sliding_window",
                "rope_theta",
                "model_type",
                "max_window_layers",
                "",
            ];
            let mut m = Map::new();
            for _ in 0..self.below(6) {
                let key = KEYS[self.below(KEYS.len())];
                let v = self.value(depth);
                m.insert(key.to_string(), v);
            }
            m
        }
    }

    #[test]
    fn random_overrides_never_panic() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let ids: Vec<&str> = MODEL_PRESETS.iter().map(|p| p.id).chain(["acme/unknown", "x"]).collect();
        let mut ok = 0;
        for _ in 0..600 {
            let id = ids[rng.below(ids.len())];
            let release = Release::ALL[rng.below(Release::ALL.len())];
            let m = rng.map(0);
            match resolve_model_at(release, id, Some(&m)) {
                Ok(spec) => {
                    ok += 1;
                    assert!(!spec.layers.is_empty() && spec.layers.len() <= MAX_LAYERS as usize);
                    for l in &spec.layers {
                        assert!(l.num_kv_heads > 0 && l.num_q_heads % l.num_kv_heads == 0, "{id} {m:?}");
                        assert!(l.head_dim > 0);
                        assert_eq!(l.kind == AttentionKind::SlidingWindow, l.sliding_window.is_some());
                    }
                }
                Err(e) => assert!(!e.message.is_empty()),
            }
        }
        assert!(ok > 0, "no random map resolved at all");
    }

    #[test]
    fn dtype_auto_keeps_16_bit_configs_and_downcasts_float32() {
        for r in Release::ALL {
            assert_eq!(resolve_dtype(r, "auto", TorchDtype::BFloat16), Ok(TorchDtype::BFloat16));
            assert_eq!(resolve_dtype(r, "auto", TorchDtype::Float16), Ok(TorchDtype::Float16));
            assert_eq!(resolve_dtype(r, "auto", TorchDtype::Float32), Ok(TorchDtype::BFloat16));
        }
    }

    #[test]
    fn dtype_explicit_values() {
        let r = Release::LATEST;
        for (flag, want) in [
            ("half", TorchDtype::Float16),
            ("float16", TorchDtype::Float16),
            ("bfloat16", TorchDtype::BFloat16),
            ("float", TorchDtype::Float32),
            ("float32", TorchDtype::Float32),
        ] {
            assert_eq!(resolve_dtype(r, flag, TorchDtype::BFloat16), Ok(want), "{flag}");
        }
        assert_eq!(
            resolve_dtype(r, "fp16", TorchDtype::BFloat16).unwrap_err(),
            "argument --dtype: invalid choice: 'fp16' (choose from auto, bfloat16, float, float16, float32, half)"
        );
        assert!(resolve_dtype(r, "FLOAT16", TorchDtype::BFloat16).is_err());
    }

    #[test]
    fn dtype_on_older_gpus_and_banned_models() {
        let t4 = ComputeCapability::new(7, 5);
        let r = Release::LATEST;
        assert_eq!(
            resolve_dtype_on(r, "auto", TorchDtype::BFloat16, None, t4),
            Ok(TorchDtype::Float16)
        );
        assert_eq!(
            resolve_dtype_on(r, "auto", TorchDtype::Float32, None, t4),
            Ok(TorchDtype::Float16)
        );
        // gemma3: float16 is filtered out of auto's candidates and refused when asked for.
        assert_eq!(
            resolve_dtype_on(r, "auto", TorchDtype::Float16, Some("gemma3"), ComputeCapability::new(9, 0)),
            Ok(TorchDtype::BFloat16)
        );
        assert_eq!(
            resolve_dtype_on(r, "auto", TorchDtype::BFloat16, Some("gemma3"), t4),
            Ok(TorchDtype::Float32)
        );
        assert!(
            resolve_dtype_on(r, "half", TorchDtype::BFloat16, Some("gemma3"), ComputeCapability::new(9, 0))
                .unwrap_err()
                .starts_with("The model type 'gemma3' does not support float16.")
        );
        // plamo2 left the list in 0.27.0.
        assert!(float16_unsupported(Release::V0_26_0, "plamo2"));
        assert!(!float16_unsupported(Release::V0_27_0, "plamo2"));
        assert_eq!(
            dtype_rule_sources(Release::V0_33_0)[0].split(' ').next(),
            Some("vllm/config/model.py:2384@0.33.0")
        );
    }
}
