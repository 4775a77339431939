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
//! - `config_json`: a model's own config.json read into the same constructed config (step 1 from the file instead of
//!   a preset: [`resolve_model_from_config`]), including the checkpoint's `quantization_config` ([`CheckpointKv`]).
//!
//! [`resolve_model_at`] runs the steps in vLLM's order; [`resolve_model_from_config`] does the same from config.json.

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::dtype::TorchDtype;
use crate::release::Release;

mod config;
mod config_json;
mod dtype;
mod hybrid;
mod layout;
mod mla;
mod overrides;
mod parsed;
mod presets;

#[cfg(test)]
mod tests;

pub use config_json::{Architecture, ARCHITECTURES};
pub use dtype::{float16_unsupported, resolve_dtype, resolve_dtype_on, DTYPE_CHOICES};
pub use hybrid::{HybridSpec, State as HybridState};
pub use layout::{AttentionKind, LayerSpec, MlaDims};
pub use mla::{in_deepseek_mla_list, use_mla, IndexerSpec, InitAssert, MlaModel, ModelEnv, MtpLayers};
pub use overrides::{
    DTYPE_KEYS, GIVE_CONFIG, GIVE_FOLDER, LAYOUT_KEYS, MAX_HEADS, MAX_HEAD_DIM, MAX_HIDDEN_SIZE, MAX_LAYERS, MLA_KEYS, SEE_MODELS,
};
pub use parsed::{config_json_reads_on_this_thread, ParsedConfig};
pub use presets::{find_preset, validate_presets, LayerTypesRule, ModelPreset, VllmModel, MODEL_PRESETS};

/// Where each number of a [`ModelSpec`] comes from, one line each: the preset's sources, the vLLM rules applied, each
/// override. The tests and goldens read it natively; the page never shows it, so in wasm32 it holds nothing and its
/// lines are never built (each is a closure that is not called): their texts and formatting, and the presets' sources,
/// stay out of the page.
#[derive(Clone, Default, PartialEq)]
pub struct Provenance {
    #[cfg(not(target_arch = "wasm32"))]
    lines: Vec<String>,
}

impl Provenance {
    /// Adds the line `line` builds (natively; in wasm32 `line` is not called).
    #[inline]
    pub fn push(&mut self, line: impl FnOnce() -> String) {
        #[cfg(not(target_arch = "wasm32"))]
        self.lines.push(line());
        #[cfg(target_arch = "wasm32")]
        let _ = line;
    }

    /// Adds the lines `lines` builds (natively; in wasm32 `lines` is not called).
    #[inline]
    pub fn extend<I: IntoIterator<Item = String>>(&mut self, lines: impl FnOnce() -> I) {
        #[cfg(not(target_arch = "wasm32"))]
        self.lines.extend(lines());
        #[cfg(target_arch = "wasm32")]
        let _ = lines;
    }

    /// Adds `other`'s lines after these.
    #[inline]
    pub fn append(&mut self, other: Provenance) {
        #[cfg(not(target_arch = "wasm32"))]
        self.lines.extend(other.lines);
        #[cfg(target_arch = "wasm32")]
        let _ = other;
    }

    /// The lines, in the order they were added (none in wasm32).
    pub fn iter(&self) -> std::slice::Iter<'_, String> {
        #[cfg(not(target_arch = "wasm32"))]
        return self.lines.iter();
        #[cfg(target_arch = "wasm32")]
        return [].iter();
    }

    pub fn is_empty(&self) -> bool {
        self.iter().len() == 0
    }
}

impl std::fmt::Debug for Provenance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for Provenance {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
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
    /// Where each number comes from: the preset's sources, the vLLM rules applied, and each override (native only).
    pub source: Provenance,
    /// The top-level config's `model_type` (a preset's, or config.json's).
    pub model_type: Option<String>,
    /// The vLLM model file that builds the layers.
    pub vllm_model: VllmModel,
    /// Where the config came from when it was a config.json (a path, "--model-config FILE", "modelConfig"); None for a
    /// preset or `--hf-overrides` only.
    pub config_file: Option<String>,
    /// The checkpoint's `quantization_config`, as far as it sets the KV cache (config.json only).
    pub checkpoint_kv: Option<CheckpointKv>,
    /// The decoder layers (`num_hidden_layers`): `layers.len()` unless some have no token mixer (NemotronH's MLP / MoE
    /// blocks, which `layers` leaves out).
    #[serde(skip)]
    pub decoder_layers: u32,
    /// A hybrid model's recurrent layers and their state sizes (None: attention only).
    #[serde(skip)]
    pub hybrid: Option<HybridSpec>,
    /// `architectures[0]` (a preset's, or config.json's); `None` for a model described by `--hf-overrides` only.
    #[serde(skip)]
    pub architecture: Option<&'static str>,
    /// The language model's config has `use_bidirectional_attention == "vision"` (gemma-4's prefix-LM switch, read
    /// by its own convertor: [`ModelSpec::layers_use_mm_prefix`]).
    #[serde(skip)]
    pub vision_bidirectional: bool,
    /// A DeepSeek-architecture model's MLA facts (`use_mla`, the file, the sparse indexer, the MTP layers, an assert
    /// of layer initialisation); `None` for every other model file.
    #[serde(skip)]
    pub mla: Option<MlaModel>,
    /// `attention_chunk_size` of a model with chunked local attention layers (Llama 4); `None` for every other.
    #[serde(skip)]
    pub attention_chunk_size: Option<u32>,
    /// GLM-4.5 / 4.6 / 4.7's `num_nextn_predict_layers` (`glm4_moe_mtp.py`'s MTP layers, read by
    /// `crate::drafter`); `None` for every other model file.
    #[serde(skip)]
    pub glm_nextn_layers: Option<u32>,
}

impl ModelSpec {
    /// The top-level config's `model_type` (vLLM's float16 ban is keyed on it).
    pub fn model_type(&self) -> Option<&str> {
        self.model_type.as_deref()
    }

    /// The model runner's `model_config.is_mm_prefix_lm` (`ModelArchConfigConvertorBase.is_mm_prefix_lm`, every
    /// release; `docs/source-notes/triton-attn.md` §7): the top-level config's `model_type` in the release's
    /// `MM_PREFIX_LM_MODELS` (`umm` only before 0.29.0, `moondream3` from 0.21.0), or gemma-4's own convertor
    /// (`use_bidirectional_attention == "vision"`). It is what the runner reads (the batches' mm ranges,
    /// `--disable-chunked-mm-input`); the attention layers select with [`ModelSpec::layers_use_mm_prefix`]. Not
    /// modelled: a config's own `is_mm_prefix_lm` attribute, and serving with multimodal inputs disabled (0.27.0+:
    /// `--limit-mm-per-prompt` all 0, `--language-model-only`), which turns it off.
    pub fn is_mm_prefix_lm(&self, release: Release) -> bool {
        if self.vllm_model == VllmModel::Gemma4 {
            return self.vision_bidirectional;
        }
        let mut models = vec!["bagel", "gemma3", "molmo2", "paligemma"];
        // moondream3 joined the list in 0.21.0 (model_arch_config_convertor.py:270@0.21.0; 0.20.x's :266 has none).
        if release >= Release::V0_21_0 {
            models.push("moondream3");
        }
        if release < Release::V0_29_0 {
            models.push("umm");
        }
        self.model_type().is_some_and(|t| models.contains(&t))
    }

    /// `AttentionSelectorConfig.use_mm_prefix` of the model's attention layers: `Attention.__init__` reads
    /// `is_mm_prefix_lm` of the config current while the layer is built (`attention.py`
    /// `self.use_mm_prefix = model_config is not None and model_config.is_mm_prefix_lm`, every release). A multimodal
    /// model that builds its language model on a sub-config (`init_vllm_registered_model(hf_config=text_config)` →
    /// `VllmConfig.with_hf_config`, which regenerates `model_arch_config` from the sub-config) asks with the sub-config:
    ///
    /// - gemma-3 multimodal (`Gemma3ForConditionalGeneration`, text config `gemma3_text`, not in the list): False in
    ///   0.24.0 – 0.32.0; from 0.33.0 `gemma3_mm.py` sets `config.text_config.is_mm_prefix_lm = True` first: True.
    /// - paligemma, bagel (language model on `text_config` / `llm_config`): False in every release.
    /// - molmo2, moondream3 (language model on the top-level config): the runner's flag, True.
    /// - gemma-4 (its convertor reads the text config's `use_bidirectional_attention == "vision"` either way).
    ///
    /// qpath reads gemma-3 multimodal and gemma-4 from presets and config.json; the other prefix-LM models only as a
    /// `model_type`.
    pub fn layers_use_mm_prefix(&self, release: Release) -> bool {
        if self.vllm_model == VllmModel::Gemma4 {
            return self.vision_bidirectional;
        }
        match self.architecture {
            Some("Gemma3ForConditionalGeneration") => release >= Release::V0_33_0,
            _ if matches!(self.model_type(), Some("paligemma" | "bagel")) => false,
            _ => self.is_mm_prefix_lm(release),
        }
    }

    /// Some attention layer has a sliding window that the model does not clamp for multimodal prefixes
    /// (`mm_prefix_clamp_sliding_window`, which only gemma-4's sliding layers set, from 0.25.0): the composite
    /// backends' routing (`_has_unclamped_window` over the whole `static_forward_context`, 0.30.0+) then refuses
    /// CUDA graphs.
    pub fn has_unclamped_window(&self, release: Release) -> bool {
        let clamps = self.vllm_model == VllmModel::Gemma4 && release >= Release::V0_25_0Prefix;
        !clamps
            && self
                .layers
                .iter()
                .any(|l| l.kind.is_attention() && l.sliding_window.is_some())
    }

    /// `ModelConfig.use_mla`: a DeepSeek-architecture model whose layers are MLA.
    pub fn use_mla(&self) -> bool {
        self.mla.as_ref().is_some_and(|m| m.use_mla)
    }

    /// The MTP drafter's layers (`--speculative-config` method `mtp` on a DeepSeek-architecture model): the target's
    /// decoder layer at indices `num_hidden_layers + k` ([`MtpLayers`]); empty when the config has none.
    pub fn mtp_layer_specs(&self) -> Vec<LayerSpec> {
        let (Some(t), Some(first)) = (self.mla.as_ref().and_then(|m| m.mtp), self.layers.first()) else {
            return Vec::new();
        };
        t.indices().map(|index| LayerSpec { index, ..first.clone() }).collect()
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
    resolve_model_in(release, ModelEnv::default(), id, hf_overrides)
}

/// [`resolve_model_at`] under the environment variables the model config reads ([`ModelEnv`]: `VLLM_MLA_DISABLE`).
pub fn resolve_model_in(
    release: Release,
    env: ModelEnv,
    id: &str,
    hf_overrides: Option<&Map<String, Value>>,
) -> Result<ModelSpec, ModelError> {
    let empty = Map::new();
    let preset = find_preset(id);
    let name = preset.map_or(id, |p| p.id);
    if name.trim().is_empty() {
        return err("the model id is empty".into());
    }
    let rule = preset.map_or(VllmModel::Llama, |p| p.vllm_model);
    let overrides = overrides::Overrides::locate(name, preset, hf_overrides.unwrap_or(&empty))?;
    if preset.is_none() {
        overrides.reject_non_dense_unknown_model(name)?;
    }
    overrides.reject_constructor_only_keys(name)?;

    let mut source = Provenance::default();
    // Step 1: the constructed config object.
    let mut cfg = config::Config::constructed(preset, &mut source);
    // Step 2: --hf-overrides, applied to the constructed config.
    overrides.apply(name, &mut cfg, &mut source)?;
    if preset.is_none() {
        overrides.require_unknown_model_layout(name, &cfg.text, &mut source)?;
    }
    if rule == VllmModel::DeepseekV2 {
        overrides.reject_unread_mla_keys(name)?;
    }
    let config_dtype = cfg.config_dtype(&mut source);
    // Steps 3 and 4: cache_config.sliding_window and the model file's layers.
    let model = mla::Model {
        name,
        architecture: preset.map(|p| p.architecture),
        model_type: preset.map(|p| p.model_type),
    };
    let (layers, hybrid, mla) = build_layers(release, env, model, rule, &cfg.text, &mut source)?;
    let chunk = chunk_size(&layers, &cfg.text);
    Ok(ModelSpec {
        id: name.to_string(),
        preset: preset.is_some(),
        config_dtype,
        decoder_layers: cfg
            .text
            .num_hidden_layers
            .unwrap_or(layers.len() as u32)
            .max(layers.len() as u32 / hybrid::mixers_per_decoder_layer(rule)),
        layers,
        source,
        model_type: preset.map(|p| p.model_type.to_string()),
        vllm_model: rule,
        config_file: None,
        checkpoint_kv: None,
        hybrid,
        architecture: preset.map(|p| p.architecture),
        vision_bidirectional: vision_bidirectional(&cfg.text),
        attention_chunk_size: chunk,
        glm_nextn_layers: glm_nextn_layers(rule, &cfg.text),
        mla,
    })
}

/// A GLM-4.5 / 4.6 / 4.7 config's `num_nextn_predict_layers` (`Glm4MoeConfig`'s 1 when a preset does not give it).
fn glm_nextn_layers(rule: VllmModel, cfg: &config::TextConfig) -> Option<u32> {
    (rule == VllmModel::Glm4Moe).then(|| {
        cfg.raw
            .get("num_nextn_predict_layers")
            .and_then(Value::as_u64)
            .map_or(1, |n| n.min(u64::from(MAX_LAYERS)) as u32)
    })
}

/// `attention_chunk_size` when some layer is chunked local attention (the model file read it from the config).
fn chunk_size(layers: &[LayerSpec], cfg: &config::TextConfig) -> Option<u32> {
    layers.iter().any(|l| l.kind == AttentionKind::ChunkedLocal).then(|| {
        cfg.raw
            .get("attention_chunk_size")
            .and_then(Value::as_u64)
            .map_or(0, |c| c.min(u32::MAX as u64) as u32)
    })
}

/// The layers, a hybrid model's recurrent layers, a DeepSeek-architecture model's MLA facts.
type Built = (Vec<LayerSpec>, Option<HybridSpec>, Option<MlaModel>);

/// Steps 3 and 4 by the model file's rule: the DeepSeek-architecture files ([`mla`]) or every other ([`layout`]).
fn build_layers(
    release: Release,
    env: ModelEnv,
    model: mla::Model,
    rule: VllmModel,
    cfg: &config::TextConfig,
    source: &mut Provenance,
) -> Result<Built, ModelError> {
    if rule == VllmModel::DeepseekV2 {
        let (layers, mla) = mla::build(release, env, model, cfg, source)?;
        return Ok((layers, None, Some(mla)));
    }
    let (layers, hybrid) = layout::build_layers(release, model.name, rule, cfg, model.architecture, source)?;
    Ok((layers, hybrid, None))
}

/// The layout vLLM `release` builds from a model's own config.json text (`file` names it in messages and in
/// [`ModelSpec::config_file`]; `id` is the model as the command line names it), then `--hf-overrides` on top, as in
/// [`resolve_model_at`]. The model file's rule comes from `architectures[0]` ([`ARCHITECTURES`]); an architecture
/// qpath does not restate is "qpath cannot model this". Errors name the file and the field.
pub fn resolve_model_from_config(
    release: Release,
    id: &str,
    file: &str,
    text: &str,
    hf_overrides: Option<&Map<String, Value>>,
) -> Result<ModelSpec, ModelError> {
    resolve_model_from_config_in(release, ModelEnv::default(), id, file, text, hf_overrides)
}

/// [`resolve_model_from_config`] under the environment variables the model config reads ([`ModelEnv`]).
pub fn resolve_model_from_config_in(
    release: Release,
    env: ModelEnv,
    id: &str,
    file: &str,
    text: &str,
    hf_overrides: Option<&Map<String, Value>>,
) -> Result<ModelSpec, ModelError> {
    from_config(release, env, (id, file, text), hf_overrides, None)
}

/// A speculative drafter's config.json (`"model"` of `--speculative-config` as a folder, an HF-cache id or a file):
/// under method `eagle` / `eagle3` an EAGLE head, whose architecture `EAGLEConfig` renames
/// ([`config_json::eagle_architecture`]) before the registry picks its model file; otherwise (a draft model) read as
/// a target's config.json. The target's `--hf-overrides` do not reach it (vLLM builds the draft `ModelConfig` without
/// them).
pub fn resolve_drafter_from_config(
    release: Release,
    eagle_method: Option<&str>,
    id: &str,
    file: &str,
    text: &str,
) -> Result<ModelSpec, ModelError> {
    from_config(release, ModelEnv::default(), (id, file, text), None, eagle_method)
}

fn from_config(
    release: Release,
    env: ModelEnv,
    (id, file, text): (&str, &str, &str),
    hf_overrides: Option<&Map<String, Value>>,
    eagle_method: Option<&str>,
) -> Result<ModelSpec, ModelError> {
    let read = config_json::read_as(release, file, text, eagle_method)?;
    from_read(release, env, (id, file), read, hf_overrides, eagle_method)
}

/// [`from_config`] after the config.json was read (parsed text or a shared [`ParsedConfig`]).
fn from_read(
    release: Release,
    env: ModelEnv,
    (id, file): (&str, &str),
    read: config_json::ConfigJson,
    hf_overrides: Option<&Map<String, Value>>,
    eagle_method: Option<&str>,
) -> Result<ModelSpec, ModelError> {
    parsed::count_build();
    let empty = Map::new();
    // Messages name the file (which names the model); the spec keeps the model's id.
    let name = file;
    let arch = read.architecture;
    let rule = arch.vllm_model;
    let overrides = overrides::Overrides::locate_in(name, Some(arch.nested), hf_overrides.unwrap_or(&empty))?;
    overrides.reject_constructor_only_keys(name)?;
    let mut source = Provenance::default();
    source.push(|| format!("config: {file} (read by qpath as transformers' constructor would build it)"));
    // The MLA rule names the file per release itself (DeepseekV32ForCausalLM moves to vllm/models/deepseek_v32).
    if rule != VllmModel::DeepseekV2 {
        let model_file = match (eagle_method, arch.name) {
            (None, _) => rule.file(),
            (Some(_), "EagleLlamaForCausalLM") => "vllm/model_executor/models/llama_eagle.py",
            (Some(_), _) => "vllm/model_executor/models/llama_eagle3.py",
        };
        source.push(|| {
            format!(
                "architectures[0] = \"{}\"{}: {} (vllm/model_executor/models/registry.py:{}@0.24.0, {}@0.33.0)",
                arch.name,
                if eagle_method.is_some() {
                    " after EAGLEConfig's renaming"
                } else {
                    ""
                },
                model_file,
                arch.registry_lines.0,
                arch.registry_lines.1
            )
        });
    }
    source.append(read.notes);
    if !read.cfg.text.layer_types_origin.is_empty() && read.cfg.text.layer_types.is_some() {
        source.push(|| format!("layer_types: {}", read.cfg.text.layer_types_origin));
    }
    let mut cfg = read.cfg;
    overrides.apply(name, &mut cfg, &mut source)?;
    if rule == VllmModel::DeepseekV2 {
        overrides.reject_unread_mla_keys(name)?;
    }
    let config_dtype = cfg.config_dtype(&mut source);
    let model = mla::Model {
        name,
        architecture: Some(arch.name),
        model_type: read.model_type.as_deref(),
    };
    let (layers, hybrid, mla) = build_layers(release, env, model, rule, &cfg.text, &mut source)?;
    let chunk = chunk_size(&layers, &cfg.text);
    Ok(ModelSpec {
        decoder_layers: cfg
            .text
            .num_hidden_layers
            .unwrap_or(layers.len() as u32)
            .max(layers.len() as u32 / hybrid::mixers_per_decoder_layer(rule)),
        hybrid,
        id: if id.trim().is_empty() {
            file.to_string()
        } else {
            id.to_string()
        },
        preset: false,
        config_dtype,
        layers,
        source,
        model_type: read.model_type,
        vllm_model: rule,
        config_file: Some(file.to_string()),
        checkpoint_kv: read.checkpoint_kv,
        architecture: Some(arch.name),
        vision_bidirectional: vision_bidirectional(&cfg.text),
        attention_chunk_size: chunk,
        glm_nextn_layers: glm_nextn_layers(rule, &cfg.text),
        mla,
    })
}

/// What the checkpoint's `quantization_config` says about the KV cache.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckpointKv {
    /// `quantization_config.quant_method` ("" when absent).
    pub method: String,
    /// The cache dtype the checkpoint makes vLLM use under `--kv-cache-dtype auto` (None: it leaves `auto`).
    pub cache_dtype: Option<String>,
    pub scheme: KvScheme,
    /// vLLM's warning when it does not recognise the ModelOpt algorithm (and falls back to `auto`).
    pub warning: Option<String>,
}

/// Which reader of the checkpoint's config sets the KV cache dtype.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KvScheme {
    /// No KV setting (or a quantization method that sets none).
    None,
    /// ModelOpt's `kv_cache_quant_algo` / `kv_cache_scheme`, read by `resolve_kv_cache_dtype_string` when the engine
    /// config is built.
    ModelOpt,
    /// compressed-tensors' `kv_cache_scheme` (the dict), read by `Attention.__init__`.
    CompressedTensors(Map<String, Value>),
}

impl CheckpointKv {
    /// The field that set the cache dtype, for messages.
    pub fn field(&self) -> &'static str {
        match self.scheme {
            KvScheme::CompressedTensors(_) => "quantization_config.kv_cache_scheme",
            _ => "quantization_config.kv_cache_quant_algo",
        }
    }

    /// Whether the attention layers load k/v scales from the checkpoint (a KV-cache quant method), which makes
    /// `--kv-cache-dtype fp8_e5m2` an error: compressed-tensors with a `kv_cache_scheme`, ModelOpt with a KV
    /// algorithm (`modelopt.py:2469-2472@0.24.0, 1849-1852@0.33.0`), and `fp8` checkpoints (`fp8.py:219@0.24.0,
    /// 206@0.33.0`: every Attention layer gets `Fp8KVCacheMethod`).
    pub fn loads_kv_scales(&self) -> bool {
        match &self.scheme {
            KvScheme::CompressedTensors(_) => true,
            KvScheme::ModelOpt => self.cache_dtype.is_some(),
            KvScheme::None => self.method == "fp8",
        }
    }

    /// `strategy == "attn_head"`: one k/v scale per KV head (`attention.py:263@0.24.0, 296@0.33.0`).
    pub fn per_head_scales(&self) -> bool {
        matches!(&self.scheme, KvScheme::CompressedTensors(s) if s.get("strategy").and_then(Value::as_str) == Some("attn_head"))
    }

    /// `CompressedTensorsKVCacheMethod.validate_kv_cache_scheme`'s `NotImplementedError` for this scheme, as the
    /// release words it (`compressed_tensors.py:983-1009@0.24.0, 1114-1140@0.33.0`), or "qpath cannot model this" for a
    /// value whose Python rendering qpath does not reproduce. Before 0.24.0 the type/bits check raises only when both
    /// are wrong (`if type_ != "float" and num_bits != 8:`, compressed_tensors.py:986@0.23.0): an int8 or a 4-bit float
    /// scheme passes it (and the layer's cache is "fp8" all the same); 0.24.0 raises when either is (`or`, :986@0.24.0).
    pub fn scheme_error(&self, r: Release) -> Option<String> {
        let KvScheme::CompressedTensors(s) = &self.scheme else {
            return None;
        };
        let type_ = s.get("type").unwrap_or(&Value::Null);
        let num_bits = s.get("num_bits").unwrap_or(&Value::Null);
        let is_float = type_.as_str() == Some("float");
        let is_8 = num_bits.as_u64() == Some(8) && !num_bits.is_f64();
        let refused = if r >= Release::V0_24_0 {
            !is_float || !is_8
        } else {
            // Python's `num_bits != 8` is False for 8.0 too.
            !is_float && !is_8 && num_bits.as_f64() != Some(8.0)
        };
        if refused {
            let (Some(t), Some(b)) = (py_str(type_), py_str(num_bits)) else {
                return Some(
                    "qpath cannot model this: quantization_config.kv_cache_scheme type/num_bits are not a plain string/number (vLLM raises NotImplementedError naming them)"
                        .into(),
                );
            };
            return Some(format!(
                "Currently supported kv cache quantization is num_bits=8, type=float, however received num_bits={b}, type={t}"
            ));
        }
        match s.get("strategy").and_then(Value::as_str) {
            Some("tensor" | "attn_head") => {}
            _ => {
                return Some(format!(
                    "qpath cannot model this: quantization_config.kv_cache_scheme.strategy = {} (vLLM accepts \"tensor\" and \"attn_head\" and raises otherwise)",
                    show(s.get("strategy").unwrap_or(&Value::Null))
                ))
            }
        }
        let symmetric = s.get("symmetric").unwrap_or(&Value::Null);
        let truthy = match symmetric {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => n.as_f64() != Some(0.0),
            Value::String(x) => !x.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
        };
        if !truthy {
            let shown = py_str(symmetric).unwrap_or_else(|| show(symmetric));
            return Some(format!(
                "Only support symmetric scaling factor for compressed-tensors KV cache. However found symmetric: {shown}"
            ));
        }
        None
    }
}

/// gemma-4's prefix-LM switch: the language model's `use_bidirectional_attention == "vision"`.
fn vision_bidirectional(text: &config::TextConfig) -> bool {
    text.raw.get("use_bidirectional_attention").and_then(Value::as_str) == Some("vision")
}

/// A JSON scalar as Python's `str()` prints the value `json.loads` gives (None, True, 8, text); None for the rest.
fn py_str(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some("None".into()),
        Value::Bool(true) => Some("True".into()),
        Value::Bool(false) => Some("False".into()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}
