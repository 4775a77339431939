//! A model's `config.json`, read into the constructed config object vLLM reads (step 1 of the module docs, the step
//! the presets restate by hand): which vLLM model file builds its layers (from `architectures[0]`, as vLLM's model
//! registry maps it), the fields transformers' config constructor reads and what it materialises from them, the text
//! config of a multimodal model, the config dtype, and the checkpoint's `quantization_config` (which can set the KV
//! cache dtype, [`super::CheckpointKv`]).
//!
//! What qpath reads, and nothing else:
//! - `architectures[0]`: one of [`ARCHITECTURES`]; any other is "qpath cannot model this".
//! - `model_type` (vLLM bans float16 for some model types).
//! - `text_config` (an object): the language model's fields, as vLLM's `get_hf_text_config` picks
//!   (`vllm/transformers_utils/config.py:1020@0.24.0, 1258@0.33.0`); other nested language configs (`llm_config`,
//!   `language_config`, `thinker_config`, `text_config` of another type) are refused by name.
//! - in the text config: `num_hidden_layers`, `num_attention_heads`, `num_key_value_heads`, `hidden_size`,
//!   `head_dim`, `layer_types`, `sliding_window`, `sliding_window_pattern` (gemma-3), `use_sliding_window` and
//!   `max_window_layers` (Qwen2/Qwen3), `use_bidirectional_attention` (gemma-3, refused when set).
//! - for the hybrid model files (`Qwen3NextForCausalLM`, `NemotronHForCausalLM`; config classes in `hybrid`): the
//!   fields `model::hybrid` reads, with their constructors' defaults and aliases — `linear_num_key_heads`,
//!   `linear_num_value_heads`, `linear_key_head_dim`, `linear_value_head_dim`, `linear_conv_kernel_dim`,
//!   `layer_types`, `full_attention_interval` (Qwen3-Next); `hybrid_override_pattern` / `layers_block_type` /
//!   `layer_types`, `mamba_num_heads`, `mamba_head_dim`, `ssm_state_size`, `n_groups` (`mamba_n_groups`),
//!   `conv_kernel` (`mamba_d_conv`), `chunk_size` (`mamba_chunk_size`), `mamba_ssm_cache_dtype` (Nemotron-H).
//! - for `FalconH1ForCausalLM` / `JambaForCausalLM` (config classes in `falcon_jamba`): `mamba_d_ssm`,
//!   `mamba_n_heads`, `mamba_d_head`, `mamba_n_groups`, `mamba_d_state`, `mamba_d_conv`, `mamba_expand`,
//!   `mamba_chunk_size` (Falcon-H1); `attn_layer_period` / `_offset`, `expert_layer_period` / `_offset`, `mamba_d_state`,
//!   `mamba_d_conv`, `mamba_expand` (Jamba).
//! - for the DeepSeek-architecture model files (`DeepseekV2ForCausalLM`, `DeepseekV3ForCausalLM`,
//!   `DeepseekV32ForCausalLM`, `GlmMoeDsaForCausalLM`; config classes by `model_type` in `deepseek`): `kv_lora_rank`,
//!   `q_lora_rank`, `qk_nope_head_dim`, `qk_rope_head_dim`, `v_head_dim`, `first_k_dense_replace`,
//!   `num_nextn_predict_layers` (`num_mtp_layers`), `index_topk`, `index_n_heads`, `index_head_dim`,
//!   `index_topk_freq`, `index_topk_pattern`, `index_skip_topk_offset`, `is_causal`, `compress_ratios` (refused).
//! - `torch_dtype` / `dtype` at the top level, else in the text config.
//! - `quantization_config` (top level): `quant_method`, `kv_cache_scheme`, `kv_cache_quant_algo`, `quantization`.
//!
//! Every error names the file and the field. Nothing here panics on any JSON text.

use serde_json::{Map, Value};

use super::config::{Config, HfLayerType, TextConfig};
use super::overrides::{MAX_HEADS, MAX_HEAD_DIM, MAX_HIDDEN_SIZE, MAX_LAYERS};
use super::presets::{LayerTypesRule, VllmModel};
use super::{err, show, CheckpointKv, KvScheme, ModelError, Provenance};
use crate::dtype::TorchDtype;
use crate::release::Release;

mod deepseek;
mod dense;
mod falcon_jamba;
mod hybrid;

/// The config class transformers builds for an architecture, as far as its constructor derives attention fields
/// (transformers 5.16.1, the oldest vLLM 0.33.0 accepts: `transformers<5.21.0,>=5.16.1`; vLLM 0.24.0 needs >=5.5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ConfigClass {
    /// `OPTConfig`: derives nothing qpath reads.
    Opt,
    /// `LlamaConfig.__post_init__` (configuration_llama.py:86-90): `head_dim = hidden_size // num_attention_heads`
    /// and `num_key_value_heads = num_attention_heads` when None (both default None).
    Llama,
    /// `MistralConfig.__post_init__` (configuration_mistral.py:83-86): as Llama; `num_key_value_heads` defaults to 8
    /// and `sliding_window` to 4096 when absent.
    Mistral,
    /// `Qwen2Config.__post_init__` (configuration_qwen2.py:83-94): `sliding_window = sliding_window if
    /// use_sliding_window else None`; `layer_types[i] = "sliding_attention" if sliding_window is not None and i >=
    /// max_window_layers else "full_attention"`; defaults `use_sliding_window` False, `sliding_window` 4096,
    /// `max_window_layers` 28, `num_key_value_heads` 32.
    Qwen2,
    /// `Qwen3Config.__post_init__` (configuration_qwen3.py:86-97): as Qwen2, and `head_dim` defaults to 128.
    Qwen3,
    /// `Gemma3TextConfig.__post_init__` (configuration_gemma3.py:104-115): `layer_types[i] = "sliding_attention" if
    /// (i + 1) % sliding_window_pattern else "full_attention"` (pattern default 6); defaults `head_dim` 256,
    /// `num_key_value_heads` 4, `sliding_window` 4096.
    Gemma3Text,
    /// `GptOssConfig.__post_init__` (configuration_gpt_oss.py:70-78): `num_key_value_heads = num_attention_heads` and
    /// `head_dim = hidden_size // num_attention_heads` when None; `layer_types[i] = "sliding_attention" if (i + 1) %
    /// 2 else "full_attention"`; defaults `head_dim` 64, `num_key_value_heads` 8, `sliding_window` 128.
    GptOss,
    /// `Gemma4TextConfig.__post_init__` (configuration_gemma4.py:185-201): `layer_types[i] = "sliding_attention" if
    /// (i + 1) % 6 else "full_attention"` when None, then the last layer forced to `"full_attention"`; defaults
    /// `head_dim` 256, `num_key_value_heads` 4, `sliding_window` 512; `global_head_dim` /
    /// `num_global_key_value_heads` become `per_layer_config` of the full layers (read by the layout from `raw`).
    Gemma4Text,
    /// `Qwen3NextConfig`: vLLM's (0.24.0-0.31.0) or transformers' (0.32.0+), restated in `hybrid::qwen3_next`.
    Qwen3Next,
    /// The Qwen3.5 text configs (`Qwen3_5TextConfig`, `Qwen3_5MoeTextConfig`): vLLM's (0.24.0-0.31.0) or
    /// transformers' (0.32.0+), restated in `hybrid::qwen3_5`.
    Qwen3_5,
    Qwen3_5Moe,
    /// transformers' `NemotronHConfig` (every release), restated in `hybrid::nemotron_h`.
    NemotronH,
    /// transformers' `GraniteMoeHybridConfig` (every release), restated in `hybrid::granite`.
    GraniteMoeHybrid,
    /// transformers' `FalconH1Config` (every release), restated in `falcon_jamba::falcon_h1`.
    FalconH1,
    /// transformers' `JambaConfig` (every release), restated in `falcon_jamba::jamba`.
    Jamba,
    /// transformers' `Llama4TextConfig` (configuration_llama4.py, 5.5.3 to 5.16.1: the same fields and defaults):
    /// `num_key_value_heads` 8 (None: the heads), `head_dim` 128 (None: hidden_size // heads), `attention_chunk_size`
    /// 8192, `no_rope_layers` None or empty → `[int((i + 1) % no_rope_layer_interval != 0) for i in range(n)]`
    /// (interval default 4): layers 3, 7, ... are NoPE (`:180-183` in 5.16.1). `layer_types` is derived from it, and
    /// llama4.py never reads it.
    Llama4Text,
    /// The DeepSeek-architecture configs, by `model_type`: `DeepseekV2Config`, `DeepseekV3Config` (also
    /// `deepseek_v32`, `kimi_k2`), `GlmMoeDsaConfig`, restated in `deepseek`.
    Deepseek,
    /// transformers' `Glm4MoeConfig` (GLM-4.5 / 4.6 / 4.7), restated in `dense::glm4_moe`.
    Glm4Moe,
    /// `Mistral3Config`'s text config: `MistralConfig` or `Ministral3Config` by its `model_type`, `dense::mistral3_text`.
    Mistral3Text,
    /// transformers' `Ministral3Config` (a top-level `Ministral3ForCausalLM`), restated in `dense::ministral3`.
    Ministral3,
    /// `Phi3Config` (configuration_phi3.py:36-61 in 5.16.1): `num_key_value_heads` None → the heads, no `head_dim`
    /// field (llama.py derives hidden_size // heads), `sliding_window` None: Llama's derivation.
    Phi3,
}

/// One architecture qpath restates: vLLM's registry entry (`vllm/model_executor/models/registry.py`, line at 0.24.0
/// and 0.33.0), the model file's per-layer rule, the config class, and whether the text config is nested.
pub struct Architecture {
    pub name: &'static str,
    pub registry_lines: (u32, u32),
    pub vllm_model: VllmModel,
    config_class: ConfigClass,
    /// The language model's fields sit under `text_config` (its config class builds a nested text config).
    pub nested: bool,
}

/// The architectures whose attention layout qpath restates (the model files of [`VllmModel`]).
pub const ARCHITECTURES: &[Architecture] = &[
    Architecture {
        name: "OPTForCausalLM",
        registry_lines: (185, 191),
        vllm_model: VllmModel::Opt,
        config_class: ConfigClass::Opt,
        nested: false,
    },
    Architecture {
        name: "LlamaForCausalLM",
        registry_lines: (152, 155),
        vllm_model: VllmModel::Llama,
        config_class: ConfigClass::Llama,
        nested: false,
    },
    Architecture {
        name: "MistralForCausalLM",
        registry_lines: (168, 179),
        vllm_model: VllmModel::Llama,
        config_class: ConfigClass::Mistral,
        nested: false,
    },
    Architecture {
        name: "Qwen2ForCausalLM",
        registry_lines: (198, 200),
        vllm_model: VllmModel::Qwen2,
        config_class: ConfigClass::Qwen2,
        nested: false,
    },
    Architecture {
        name: "Qwen3ForCausalLM",
        registry_lines: (200, 202),
        vllm_model: VllmModel::Qwen3,
        config_class: ConfigClass::Qwen3,
        nested: false,
    },
    Architecture {
        name: "Gemma3ForCausalLM",
        registry_lines: (113, 114),
        vllm_model: VllmModel::Gemma3,
        config_class: ConfigClass::Gemma3Text,
        nested: false,
    },
    Architecture {
        name: "Gemma3ForConditionalGeneration",
        registry_lines: (396, 418),
        vllm_model: VllmModel::Gemma3,
        config_class: ConfigClass::Gemma3Text,
        nested: true,
    },
    Architecture {
        name: "GptOssForCausalLM",
        registry_lines: (123, 128),
        vllm_model: VllmModel::GptOss,
        config_class: ConfigClass::GptOss,
        nested: false,
    },
    Architecture {
        name: "Gemma4ForCausalLM",
        registry_lines: (116, 117),
        vllm_model: VllmModel::Gemma4,
        config_class: ConfigClass::Gemma4Text,
        nested: false,
    },
    Architecture {
        name: "Gemma4ForConditionalGeneration",
        registry_lines: (405, 427),
        vllm_model: VllmModel::Gemma4,
        config_class: ConfigClass::Gemma4Text,
        nested: true,
    },
    // Registered in every release 0.24.0-0.33.0 (registry.py:117@0.24.0 … 112@0.31.0, 112@0.32.0, 118@0.33.0).
    Architecture {
        name: "Qwen3NextForCausalLM",
        registry_lines: (117, 118),
        vllm_model: VllmModel::Qwen3Next,
        config_class: ConfigClass::Qwen3Next,
        nested: false,
    },
    // Qwen3.5 / 3.6: the multimodal wrappers in every release (registry.py:566-567@0.24.0, 617-618@0.33.0), their
    // language model under text_config; the text-only classes from 0.27.0 (registry.py:201-202@0.27.0, 204-205@0.33.0;
    // `registered_since`).
    Architecture {
        name: "Qwen3_5ForConditionalGeneration",
        registry_lines: (566, 617),
        vllm_model: VllmModel::Qwen3_5,
        config_class: ConfigClass::Qwen3_5,
        nested: true,
    },
    Architecture {
        name: "Qwen3_5MoeForConditionalGeneration",
        registry_lines: (567, 618),
        vllm_model: VllmModel::Qwen3_5,
        config_class: ConfigClass::Qwen3_5Moe,
        nested: true,
    },
    Architecture {
        name: "Qwen3_5ForCausalLM",
        registry_lines: (201, 204),
        vllm_model: VllmModel::Qwen3_5,
        config_class: ConfigClass::Qwen3_5,
        nested: false,
    },
    Architecture {
        name: "Qwen3_5MoeForCausalLM",
        registry_lines: (202, 205),
        vllm_model: VllmModel::Qwen3_5,
        config_class: ConfigClass::Qwen3_5Moe,
        nested: false,
    },
    // Registered in every release 0.24.0-0.33.0 (registry.py:178@0.24.0 … 184@0.31.0, 180@0.32.0, 186@0.33.0).
    Architecture {
        name: "NemotronHForCausalLM",
        registry_lines: (178, 186),
        vllm_model: VllmModel::NemotronH,
        config_class: ConfigClass::NemotronH,
        nested: false,
    },
    // Granite-4.0-H, every release (registry.py:130@0.24.0, 133@0.33.0).
    Architecture {
        name: "GraniteMoeHybridForCausalLM",
        registry_lines: (130, 133),
        vllm_model: VllmModel::GraniteMoeHybrid,
        config_class: ConfigClass::GraniteMoeHybrid,
        nested: false,
    },
    // Falcon-H1 and Jamba, every release 0.20.0-0.33.0 (registry.py:109@0.24.0, 110@0.33.0; 147@0.24.0, 146@0.33.0).
    Architecture {
        name: "FalconH1ForCausalLM",
        registry_lines: (109, 110),
        vllm_model: VllmModel::FalconH1,
        config_class: ConfigClass::FalconH1,
        nested: false,
    },
    Architecture {
        name: "JambaForCausalLM",
        registry_lines: (147, 146),
        vllm_model: VllmModel::Jamba,
        config_class: ConfigClass::Jamba,
        nested: false,
    },
    // Llama 4: the text model in every release (registry.py:153@0.24.0, 156@0.33.0) and the multimodal wrapper, which
    // builds llama4.py's Llama4ForCausalLM from text_config (mllama4.py; registry.py:468@0.24.0, 502@0.33.0).
    Architecture {
        name: "Llama4ForCausalLM",
        registry_lines: (153, 156),
        vllm_model: VllmModel::Llama4,
        config_class: ConfigClass::Llama4Text,
        nested: false,
    },
    Architecture {
        name: "Llama4ForConditionalGeneration",
        registry_lines: (468, 502),
        vllm_model: VllmModel::Llama4,
        config_class: ConfigClass::Llama4Text,
        nested: true,
    },
    // The DeepSeek-architecture (MLA) entries, every release (source::MLA_MODEL_REG_DEEPSEEK_V2 … _GLM_MOE_DSA);
    // DeepseekV32ForCausalLM and GlmMoeDsaForCausalLM map to vllm.models.deepseek_v32 from 0.29.0 (model::mla).
    Architecture {
        name: "DeepseekV2ForCausalLM",
        registry_lines: (97, 93),
        vllm_model: VllmModel::DeepseekV2,
        config_class: ConfigClass::Deepseek,
        nested: false,
    },
    Architecture {
        name: "DeepseekV3ForCausalLM",
        registry_lines: (98, 94),
        vllm_model: VllmModel::DeepseekV2,
        config_class: ConfigClass::Deepseek,
        nested: false,
    },
    Architecture {
        name: "DeepseekV32ForCausalLM",
        registry_lines: (99, 95),
        vllm_model: VllmModel::DeepseekV2,
        config_class: ConfigClass::Deepseek,
        nested: false,
    },
    Architecture {
        name: "GlmMoeDsaForCausalLM",
        registry_lines: (122, 126),
        vllm_model: VllmModel::DeepseekV2,
        config_class: ConfigClass::Deepseek,
        nested: false,
    },
    // The dense families (config_json/dense.rs), registered in every release 0.20.0-0.33.0
    // (source::GLM4_MOE_REGISTRY, MISTRAL3_REGISTRY, MINISTRAL3_REGISTRY, PHI3_REGISTRY).
    Architecture {
        name: "Glm4MoeForCausalLM",
        registry_lines: (120, 124),
        vllm_model: VllmModel::Glm4Moe,
        config_class: ConfigClass::Glm4Moe,
        nested: false,
    },
    // mistral3.py builds mistral.py's MistralForCausalLM (llama.py's layers) from text_config.
    Architecture {
        name: "Mistral3ForConditionalGeneration",
        registry_lines: (496, 541),
        vllm_model: VllmModel::Llama,
        config_class: ConfigClass::Mistral3Text,
        nested: true,
    },
    Architecture {
        name: "Ministral3ForCausalLM",
        registry_lines: (167, 178),
        vllm_model: VllmModel::Llama,
        config_class: ConfigClass::Ministral3,
        nested: false,
    },
    // phi3.py: `class Phi3ForCausalLM(LlamaForCausalLM)` (source::PHI3_LLAMA_SUBCLASS), llama.py's layers.
    Architecture {
        name: "Phi3ForCausalLM",
        registry_lines: (194, 197),
        vllm_model: VllmModel::Llama,
        config_class: ConfigClass::Phi3,
        nested: false,
    },
];

/// Nested language-model configs of architectures qpath does not restate; named in the refusal.
const OTHER_NESTED: [&str; 4] = ["llm_config", "language_config", "thinker_config", "text_model"];

/// What [`read`] makes of a config.json.
pub(super) struct ConfigJson {
    pub(super) cfg: Config,
    pub(super) architecture: &'static Architecture,
    pub(super) model_type: Option<String>,
    pub(super) checkpoint_kv: Option<CheckpointKv>,
    /// What the config class did that the trace should say (which class, ignored fields).
    pub(super) notes: Provenance,
}

fn cannot<T>(file: &str, what: String) -> Result<T, ModelError> {
    err(format!("{file}: qpath cannot model this: {what}"))
}

/// The EAGLE heads whose layers qpath restates: the model files `EAGLEConfig`'s renamed architecture selects
/// (`_SPECULATIVE_DECODING_MODELS`, registry.py; lines of `Eagle3LlamaForCausalLM`, `LlamaForCausalLMEagle3` and
/// `EagleLlamaForCausalLM` at 0.24.0 and 0.33.0). Both files build `num_hidden_layers` `LlamaDecoderLayer`s from the
/// head's own (Llama) config (llama_eagle3.py:197-206@0.33.0, llama_eagle.py:99-107@0.33.0).
pub const EAGLE_HEADS: &[Architecture] = &[
    Architecture {
        name: "Eagle3LlamaForCausalLM",
        registry_lines: (609, 700),
        vllm_model: VllmModel::Llama,
        config_class: ConfigClass::Llama,
        nested: false,
    },
    Architecture {
        name: "LlamaForCausalLMEagle3",
        registry_lines: (611, 702),
        vllm_model: VllmModel::Llama,
        config_class: ConfigClass::Llama,
        nested: false,
    },
    Architecture {
        name: "EagleLlamaForCausalLM",
        registry_lines: (603, 661),
        vllm_model: VllmModel::Llama,
        config_class: ConfigClass::Llama,
        nested: false,
    },
];

/// `EAGLEConfig.__init__`'s renaming of the head's architectures (vllm/transformers_utils/configs/eagle.py:46-64 in
/// every release 0.24.0-0.33.0, `source::EAGLE_CONFIG_ARCHITECTURES`): for `eagle`, `Eagle{arch}` unless it starts with
/// `Eagle`; for `eagle3`, `Eagle3{arch}` unless it starts or ends with `Eagle3`.
pub fn eagle_architecture(method: &str, arch: &str) -> String {
    match method {
        "eagle" if !arch.starts_with("Eagle") => format!("Eagle{arch}"),
        "eagle3" if !(arch.starts_with("Eagle3") || arch.ends_with("Eagle3")) => format!("Eagle3{arch}"),
        _ => arch.to_string(),
    }
}

/// Reads config.json text (`file` names it in messages) into the config `release` constructs (the config class can
/// differ by release: [`ConfigClass::Qwen3Next`]), for the model file `architectures[0]` selects (`eagle_method: None`), or for an EAGLE head's config.json
/// under speculative method `eagle` / `eagle3`: its architecture renamed as [`eagle_architecture`] and looked up in
/// [`EAGLE_HEADS`].
pub(super) fn read_as(release: Release, file: &str, text: &str, eagle_method: Option<&str>) -> Result<ConfigJson, ModelError> {
    super::parsed::count_parse();
    let root: Value = serde_json::from_str(text).map_err(|e| ModelError {
        message: format!("{file} is not valid JSON: {e}"),
    })?;
    read_value_as(release, file, &root, eagle_method)
}

/// [`read_as`] on config.json text already parsed (the parse is release-independent: a matrix or timeline parses
/// once, [`super::ParsedConfig`]).
pub(super) fn read_value_as(
    release: Release,
    file: &str,
    root: &Value,
    eagle_method: Option<&str>,
) -> Result<ConfigJson, ModelError> {
    let Value::Object(root) = root else {
        return err(format!("{file}: the top level must be a JSON object, got {}", show(root)));
    };
    let architecture = match eagle_method {
        None => architecture(file, root)?,
        Some(method) => eagle_head(file, root, method)?,
    };
    if let Some(first) = registered_since(architecture.name).filter(|&first| release < first) {
        return cannot(
            file,
            format!(
                "architectures[0] = \"{}\" is registered from vLLM {first} on; vLLM {release} has no such model class \
                 (its registry refuses it with a list of every supported architecture, which qpath does not restate)",
                architecture.name
            ),
        );
    }
    let model_type = match root.get("model_type") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(v) => return err(format!("{file}: model_type = {}: must be a string", show(v))),
    };
    for key in OTHER_NESTED {
        if root.contains_key(key) {
            return cannot(
                file,
                format!(
                    "`{key}` (a nested language-model config qpath does not read); architectures[0] = \"{}\"",
                    architecture.name
                ),
            );
        }
    }
    let (text_map, prefix) = match (root.get("text_config"), architecture.nested) {
        (Some(Value::Object(m)), true) => (m, "text_config."),
        (None | Some(Value::Null), true) => {
            return cannot(
                file,
                format!(
                    "text_config is missing; {} builds its language model from text_config and qpath does not \
                     restate its default text config",
                    architecture.name
                ),
            )
        }
        (Some(v), true) => return err(format!("{file}: text_config = {}: must be a JSON object", show(v))),
        (Some(Value::Object(_)), false) => {
            return cannot(
                file,
                format!(
                    "text_config: {} keeps its attention settings at the top level; a nested text_config is a \
                     config qpath does not know for this architecture",
                    architecture.name
                ),
            )
        }
        (_, false) => (root, ""),
    };
    let f = Fields {
        file,
        prefix,
        map: text_map,
    };
    let mut notes = Provenance::default();
    let text = match architecture.config_class {
        ConfigClass::Qwen3Next => hybrid::qwen3_next(release, &f, &mut notes)?,
        ConfigClass::NemotronH => hybrid::nemotron_h(&f, &mut notes)?,
        ConfigClass::GraniteMoeHybrid => hybrid::granite(release, &f, &mut notes)?,
        ConfigClass::FalconH1 => falcon_jamba::falcon_h1(&f, &mut notes)?,
        ConfigClass::Jamba => falcon_jamba::jamba(&f, &mut notes)?,
        ConfigClass::Qwen3_5 => hybrid::qwen3_5(release, &f, false, &mut notes)?,
        ConfigClass::Qwen3_5Moe => hybrid::qwen3_5(release, &f, true, &mut notes)?,
        ConfigClass::Deepseek => deepseek::deepseek(release, &f, architecture.name, model_type.as_deref(), &mut notes)?,
        class => constructed_text(&f, class)?,
    };
    let root_dtype = dtype(file, "", root)?;
    let text_dtype = if prefix.is_empty() {
        None
    } else {
        dtype(file, prefix, text_map)?
    };
    let checkpoint_kv = quantization(file, root)?;
    Ok(ConfigJson {
        cfg: Config {
            text,
            root_dtype,
            text_dtype,
        },
        architecture,
        model_type,
        checkpoint_kv,
        notes,
    })
}

/// The first release whose registry has `name`, for the architectures qpath restates that not every release has
/// (the text-only Qwen3.5 classes: registry.py:201-202@0.27.0).
fn registered_since(name: &str) -> Option<Release> {
    match name {
        "Qwen3_5ForCausalLM" | "Qwen3_5MoeForCausalLM" => Some(Release::V0_27_0),
        _ => None,
    }
}

/// An EAGLE head's `architectures[0]` after [`eagle_architecture`], one of [`EAGLE_HEADS`]; any other head is "qpath
/// cannot model this".
fn eagle_head(file: &str, root: &Map<String, Value>, method: &str) -> Result<&'static Architecture, ModelError> {
    let first = first_architecture(file, root)?;
    let renamed = eagle_architecture(method, first);
    EAGLE_HEADS.iter().find(|a| a.name == renamed).map_or_else(
        || {
            let known: Vec<&str> = EAGLE_HEADS.iter().map(|a| a.name).collect();
            cannot(
                file,
                format!(
                    "architectures[0] = \"{first}\", which EAGLEConfig names \"{renamed}\" for method {method}: not an \
                     EAGLE head whose layers qpath restates ({})",
                    known.join(", ")
                ),
            )
        },
        Ok,
    )
}

/// `architectures[0]` as written.
fn first_architecture<'a>(file: &str, root: &'a Map<String, Value>) -> Result<&'a str, ModelError> {
    match root.get("architectures") {
        None | Some(Value::Null) => cannot(
            file,
            "architectures is missing: vLLM picks the model file from architectures[0] (or maps model_type), \
             and qpath reads architectures[0] only"
                .into(),
        ),
        Some(Value::Array(a)) => match a.first() {
            Some(Value::String(s)) => Ok(s),
            Some(v) => err(format!("{file}: architectures[0] = {}: must be a string", show(v))),
            None => cannot(file, "architectures is empty".into()),
        },
        Some(v) => err(format!("{file}: architectures = {}: must be a list of strings", show(v))),
    }
}

/// `architectures[0]`, mapped like vLLM's registry; anything else is "qpath cannot model this".
fn architecture(file: &str, root: &Map<String, Value>) -> Result<&'static Architecture, ModelError> {
    let first = first_architecture(file, root)?;
    ARCHITECTURES.iter().find(|a| a.name == first).map_or_else(
        || {
            let known: Vec<&str> = ARCHITECTURES.iter().map(|a| a.name).collect();
            cannot(
                file,
                format!(
                    "architectures[0] = \"{first}\" is not an architecture whose attention layout qpath restates ({})",
                    known.join(", ")
                ),
            )
        },
        Ok,
    )
}

/// The text config's fields, with the file and the prefix (`text_config.`) for messages.
struct Fields<'a> {
    file: &'a str,
    prefix: &'a str,
    map: &'a Map<String, Value>,
}

/// A field: absent, explicitly null, or a value.
enum Field<'a> {
    Absent,
    Null,
    Set(&'a Value),
}

impl Fields<'_> {
    fn get(&self, key: &str) -> Field<'_> {
        match self.map.get(key) {
            None => Field::Absent,
            Some(Value::Null) => Field::Null,
            Some(v) => Field::Set(v),
        }
    }

    fn path(&self, key: &str) -> String {
        format!("{}{key}", self.prefix)
    }

    /// A positive integer no larger than `max`, or None when absent/null.
    fn int(&self, key: &str, max: u32) -> Result<Option<u32>, ModelError> {
        let Field::Set(v) = self.get(key) else { return Ok(None) };
        match v.as_u64() {
            Some(0) => err(format!("{}: {} = 0: must be a positive integer", self.file, self.path(key))),
            Some(n) if n <= u64::from(max) => Ok(Some(n as u32)),
            Some(n) => err(format!(
                "{}: qpath cannot model this: {} = {n}: larger than qpath's limit of {max}",
                self.file,
                self.path(key)
            )),
            None => err(format!(
                "{}: {} = {}: must be a positive integer",
                self.file,
                self.path(key),
                show(v)
            )),
        }
    }

    /// A required integer: qpath does not fill in a config class's default for the layer count or the heads.
    fn required(&self, key: &str, max: u32) -> Result<u32, ModelError> {
        match self.int(key, max)? {
            Some(n) => Ok(n),
            None => err(format!(
                "{}: {} is missing or null (transformers would take the config class's default; qpath reads it \
                 from the file only)",
                self.file,
                self.path(key)
            )),
        }
    }

    /// An integer defaulting to `default` when absent (a config class's field default); null stays None.
    fn int_or(&self, key: &str, max: u32, default: Option<u32>) -> Result<Option<u32>, ModelError> {
        match self.get(key) {
            Field::Absent => Ok(default),
            _ => self.int(key, max),
        }
    }

    fn boolean(&self, key: &str, default: bool) -> Result<bool, ModelError> {
        match self.get(key) {
            Field::Absent | Field::Null => Ok(default),
            Field::Set(Value::Bool(b)) => Ok(*b),
            Field::Set(v) => err(format!(
                "{}: {} = {}: must be true or false",
                self.file,
                self.path(key),
                show(v)
            )),
        }
    }

    /// `sliding_window`: a window in tokens, None for null (0 is turned into None later, as vLLM does).
    fn window(&self, default: Option<u32>) -> Result<Option<u32>, ModelError> {
        let key = "sliding_window";
        match self.get(key) {
            Field::Absent => Ok(default),
            Field::Null => Ok(None),
            Field::Set(v) => match v.as_u64() {
                Some(0) => Ok(None),
                Some(n) if n <= u64::from(u32::MAX) => Ok(Some(n as u32)),
                _ => err(format!(
                    "{}: {} = {}: must be a non-negative integer or null",
                    self.file,
                    self.path(key),
                    show(v)
                )),
            },
        }
    }

    /// `layer_types` as given (None: absent or null).
    fn layer_types(&self, n: u32) -> Result<Option<Vec<HfLayerType>>, ModelError> {
        let key = "layer_types";
        let items = match self.get(key) {
            Field::Absent | Field::Null => return Ok(None),
            Field::Set(Value::Array(items)) => items,
            Field::Set(v) => {
                return err(format!(
                    "{}: {} = {}: must be a list of strings",
                    self.file,
                    self.path(key),
                    show(v)
                ))
            }
        };
        // transformers' validate_layer_type: one entry per layer.
        if items.len() != n as usize {
            return err(format!(
                "{}: {} has {} entries but num_hidden_layers is {n}; transformers requires them equal",
                self.file,
                self.path(key),
                items.len()
            ));
        }
        let mut types = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            types.push(match item.as_str() {
                Some("full_attention") => HfLayerType::Full,
                Some("sliding_attention") => HfLayerType::Sliding,
                Some("linear_attention") => HfLayerType::Linear,
                Some("mamba") => HfLayerType::Mamba,
                Some(other) => {
                    return cannot(
                        self.file,
                        format!(
                            "{}[{i}] = \"{other}\" (qpath reads full_attention, sliding_attention, linear_attention, mamba)",
                            self.path(key)
                        ),
                    )
                }
                None => {
                    return err(format!(
                        "{}: {}[{i}] = {}: must be a string",
                        self.file,
                        self.path(key),
                        show(item)
                    ))
                }
            });
        }
        Ok(Some(types))
    }
}

/// What the config class's constructor builds from the text config's fields.
fn constructed_text(f: &Fields, class: ConfigClass) -> Result<TextConfig, ModelError> {
    let n = f.required("num_hidden_layers", MAX_LAYERS)?;
    let heads = f.required("num_attention_heads", MAX_HEADS)?;
    let hidden = f.int("hidden_size", MAX_HIDDEN_SIZE)?;
    let given_types = f.layer_types(n)?;
    let c = Common { f, n, heads, hidden };
    let mut t = TextConfig {
        num_hidden_layers: Some(n),
        num_attention_heads: Some(heads),
        hidden_size: hidden,
        layer_types_origin: format!("{}layer_types of the config file", f.prefix),
        raw: std::sync::Arc::new(f.map.clone()),
        ..TextConfig::default()
    };
    match class {
        ConfigClass::Opt => opt(&c, given_types, &mut t)?,
        ConfigClass::Llama | ConfigClass::Mistral => llama_mistral(&c, class, given_types, &mut t)?,
        ConfigClass::Phi3 => llama_mistral(&c, ConfigClass::Llama, given_types, &mut t)?,
        ConfigClass::Glm4Moe => dense::glm4_moe(&c, given_types, &mut t)?,
        ConfigClass::Mistral3Text => dense::mistral3_text(&c, given_types, &mut t)?,
        ConfigClass::Ministral3 => dense::ministral3(&c, given_types, &mut t)?,
        ConfigClass::Qwen2 | ConfigClass::Qwen3 => qwen2_qwen3(&c, class, given_types, &mut t)?,
        ConfigClass::Gemma3Text => gemma3_text(&c, given_types, &mut t)?,
        // Read by `hybrid` and `deepseek` (see `read`); never reached here.
        ConfigClass::Qwen3Next
        | ConfigClass::Qwen3_5
        | ConfigClass::Qwen3_5Moe
        | ConfigClass::NemotronH
        | ConfigClass::GraniteMoeHybrid
        | ConfigClass::FalconH1
        | ConfigClass::Jamba
        | ConfigClass::Deepseek => {}
        ConfigClass::Gemma4Text => gemma4_text(&c, given_types, &mut t)?,
        ConfigClass::GptOss => gpt_oss(&c, given_types, &mut t)?,
        ConfigClass::Llama4Text => llama4_text(&c, &mut t)?,
    }
    Ok(t)
}

/// The fields every config class reads first, shared by the per-class steps below.
struct Common<'f, 'a> {
    f: &'f Fields<'a>,
    n: u32,
    heads: u32,
    hidden: Option<u32>,
}

impl Common<'_, '_> {
    /// `hidden_size // num_attention_heads`: how the config class derives `what` when it is not given.
    fn derived_from_hidden(&self, what: &str) -> Result<Option<u32>, ModelError> {
        let (f, heads) = (self.f, self.heads);
        match self.hidden {
            Some(h) if h >= heads => Ok(Some(h / heads)),
            Some(h) => err(format!(
                "{}: {what} = hidden_size // num_attention_heads = {h} // {heads} = 0",
                f.file
            )),
            None => err(format!(
                "{}: {} and {} are both missing; the config class derives {what} from hidden_size",
                f.file,
                f.path("head_dim"),
                f.path("hidden_size")
            )),
        }
    }

    /// `num_key_value_heads`, else (when absent and without `default_absent`) `num_attention_heads`.
    fn kv_or_heads(&self, default_absent: Option<u32>) -> Result<Option<u32>, ModelError> {
        Ok(Some(
            self.f
                .int_or("num_key_value_heads", MAX_HEADS, default_absent)?
                .unwrap_or(self.heads),
        ))
    }
}

/// `Llama4TextConfig` ([`ConfigClass::Llama4Text`]): the heads, the head size, and the two fields llama4.py's layers
/// read, written into `raw` as the constructed object holds them.
fn llama4_text(c: &Common, t: &mut TextConfig) -> Result<(), ModelError> {
    let f = c.f;
    t.num_key_value_heads = c.kv_or_heads(Some(8))?;
    t.head_dim = match f.get("head_dim") {
        Field::Absent => Some(128),
        Field::Null => c.derived_from_hidden("head_dim")?,
        Field::Set(_) => f.int("head_dim", MAX_HEAD_DIM)?,
    };
    let mut raw = f.map.clone();
    let chunk = match f.get("attention_chunk_size") {
        Field::Absent => Value::from(8192),
        Field::Null => Value::Null,
        Field::Set(v) if v.as_u64().is_some() => v.clone(),
        Field::Set(v) => {
            return err(format!(
                "{}: {} = {}: must be an integer or null",
                f.file,
                f.path("attention_chunk_size"),
                show(v)
            ))
        }
    };
    raw.insert("attention_chunk_size".into(), chunk);
    let given = match f.get("no_rope_layers") {
        Field::Set(Value::Array(a)) if !a.is_empty() => Some(a.clone()),
        Field::Absent | Field::Null | Field::Set(Value::Array(_)) => None,
        Field::Set(v) => {
            return err(format!(
                "{}: {} = {}: must be a list",
                f.file,
                f.path("no_rope_layers"),
                show(v)
            ))
        }
    };
    let no_rope = match given {
        Some(list) => list,
        None => {
            let interval = match f.get("no_rope_layer_interval") {
                Field::Absent => 4,
                Field::Set(v) if v.as_u64().is_some_and(|k| k >= 1 && k <= u64::from(MAX_LAYERS)) => v.as_u64().unwrap_or(4),
                Field::Set(v) if v.as_u64() == Some(0) => {
                    return err(format!(
                        "{}: {} = 0: Llama4TextConfig computes (i + 1) % no_rope_layer_interval and raises \
                         ZeroDivisionError",
                        f.file,
                        f.path("no_rope_layer_interval")
                    ))
                }
                Field::Null | Field::Set(_) => {
                    return cannot(
                        f.file,
                        format!("{} (qpath reads a positive integer)", f.path("no_rope_layer_interval")),
                    )
                }
            };
            (0..u64::from(c.n))
                .map(|i| Value::from(u64::from((i + 1) % interval != 0)))
                .collect()
        }
    };
    raw.insert("no_rope_layers".into(), Value::Array(no_rope));
    t.raw = std::sync::Arc::new(raw);
    t.sliding_window = None;
    t.layer_types = None;
    Ok(())
}

/// `OPTConfig` (opt.py): the head size from `hidden_size`, `num_key_value_heads` and `head_dim` as given.
fn opt(c: &Common, given_types: Option<Vec<HfLayerType>>, t: &mut TextConfig) -> Result<(), ModelError> {
    let f = c.f;
    let hidden = c.hidden;
    t.num_key_value_heads = f.int("num_key_value_heads", MAX_HEADS)?;
    t.head_dim = f.int("head_dim", MAX_HEAD_DIM)?;
    if hidden.is_none() {
        return err(format!(
            "{}: {} is missing; opt.py derives the head size from it",
            f.file,
            f.path("hidden_size")
        ));
    }
    t.sliding_window = f.window(None)?;
    t.layer_types = given_types;
    Ok(())
}

/// `LlamaConfig` / `MistralConfig`: KV heads default to the heads (Mistral: 8), `head_dim` from `hidden_size`,
/// Mistral's window 4096.
fn llama_mistral(
    c: &Common,
    class: ConfigClass,
    given_types: Option<Vec<HfLayerType>>,
    t: &mut TextConfig,
) -> Result<(), ModelError> {
    let f = c.f;
    let mistral = class == ConfigClass::Mistral;
    t.num_key_value_heads = c.kv_or_heads(if mistral { Some(8) } else { None })?;
    t.head_dim = match f.int("head_dim", MAX_HEAD_DIM)? {
        Some(h) => Some(h),
        None => c.derived_from_hidden("head_dim")?,
    };
    t.sliding_window = f.window(if mistral { Some(4096) } else { None })?;
    t.layer_types = given_types;
    Ok(())
}

/// `Qwen2Config` / `Qwen3Config`: `use_sliding_window`, `max_window_layers` and the `layer_types` transformers builds from them.
fn qwen2_qwen3(
    c: &Common,
    class: ConfigClass,
    given_types: Option<Vec<HfLayerType>>,
    t: &mut TextConfig,
) -> Result<(), ModelError> {
    let f = c.f;
    let n = c.n;
    let hidden = c.hidden;
    t.num_key_value_heads = c.kv_or_heads(Some(32))?;
    t.head_dim = if class == ConfigClass::Qwen3 {
        f.int_or("head_dim", MAX_HEAD_DIM, Some(128))?
    } else {
        f.int("head_dim", MAX_HEAD_DIM)?
    };
    if hidden.is_none() && t.head_dim.is_none() {
        c.derived_from_hidden("head_dim")?;
    }
    let use_sw = f.boolean("use_sliding_window", false)?;
    let window = f.window(Some(4096))?;
    t.sliding_window = window.filter(|_| use_sw);
    let max_window_layers = match f.get("max_window_layers") {
        Field::Absent => 28,
        Field::Set(v) if v.as_u64().is_some_and(|m| m <= u64::from(u32::MAX)) => v.as_u64().unwrap_or(0) as u32,
        _ => {
            return err(format!(
                "{}: {} = {}: must be a non-negative integer",
                f.file,
                f.path("max_window_layers"),
                show(f.map.get("max_window_layers").unwrap_or(&Value::Null))
            ))
        }
    };
    t.layer_types = Some(match given_types {
        Some(l) => l,
        None => {
            t.layer_types_origin = format!(
                "layer_types built by transformers from {}use_sliding_window and max_window_layers",
                f.prefix
            );
            (0..n)
                .map(|i| {
                    if t.sliding_window.is_some() && i >= max_window_layers {
                        HfLayerType::Sliding
                    } else {
                        HfLayerType::Full
                    }
                })
                .collect()
        }
    });
    Ok(())
}

/// `Gemma3TextConfig`: window 4096, and `layer_types` built from `sliding_window_pattern`.
fn gemma3_text(c: &Common, given_types: Option<Vec<HfLayerType>>, t: &mut TextConfig) -> Result<(), ModelError> {
    let f = c.f;
    let n = c.n;
    if f.boolean("use_bidirectional_attention", false)? {
        return cannot(
            f.file,
            format!(
                "{} = true (Gemma3TextConfig then halves sliding_window)",
                f.path("use_bidirectional_attention")
            ),
        );
    }
    t.num_key_value_heads = f.int_or("num_key_value_heads", MAX_HEADS, Some(4))?;
    t.head_dim = f.int_or("head_dim", MAX_HEAD_DIM, Some(256))?;
    t.sliding_window = f.window(Some(4096))?;
    let pattern = match f.get("sliding_window_pattern") {
        Field::Absent => 6,
        Field::Set(v) if v.as_u64().is_some_and(|p| (1..=u64::from(MAX_LAYERS)).contains(&p)) => v.as_u64().unwrap_or(6) as u32,
        Field::Null | Field::Set(_) => {
            return cannot(
                f.file,
                format!(
                    "{} = {} (qpath reads a positive integer)",
                    f.path("sliding_window_pattern"),
                    show(f.map.get("sliding_window_pattern").unwrap_or(&Value::Null))
                ),
            )
        }
    };
    t.layer_types = Some(match given_types {
        Some(l) => l,
        None => {
            t.layer_types_origin = format!(
                "layer_types built by transformers from {}sliding_window_pattern = {pattern}",
                f.prefix
            );
            LayerTypesRule::FullEvery(pattern).materialise(n).unwrap_or_default()
        }
    });
    Ok(())
}

/// `Gemma4TextConfig`: window 512, every 6th layer full and the last layer full.
fn gemma4_text(c: &Common, given_types: Option<Vec<HfLayerType>>, t: &mut TextConfig) -> Result<(), ModelError> {
    let f = c.f;
    let n = c.n;
    match f.get("use_bidirectional_attention") {
        Field::Absent | Field::Null => {}
        Field::Set(Value::String(s)) if s == "vision" => {}
        Field::Set(v) => {
            return cannot(
                f.file,
                format!(
                    "{} = {} (Gemma4TextConfig then changes sliding_window)",
                    f.path("use_bidirectional_attention"),
                    show(v)
                ),
            )
        }
    }
    t.num_key_value_heads = f.int_or("num_key_value_heads", MAX_HEADS, Some(4))?;
    t.head_dim = f.int_or("head_dim", MAX_HEAD_DIM, Some(256))?;
    t.sliding_window = f.window(Some(512))?;
    let mut types = match given_types {
        Some(l) => l,
        None => {
            t.layer_types_origin = "layer_types built by transformers (Gemma4TextConfig: every 6th layer full)".to_string();
            LayerTypesRule::FullEvery(6).materialise(n).unwrap_or_default()
        }
    };
    if let Some(last) = types.last_mut() {
        *last = HfLayerType::Full;
    }
    t.layer_types = Some(types);
    Ok(())
}

/// `GptOssConfig`: `head_dim` 64, window 128, sliding and full layers alternating.
fn gpt_oss(c: &Common, given_types: Option<Vec<HfLayerType>>, t: &mut TextConfig) -> Result<(), ModelError> {
    let f = c.f;
    let n = c.n;
    t.num_key_value_heads = c.kv_or_heads(Some(8))?;
    t.head_dim = match f.get("head_dim") {
        Field::Absent => Some(64),
        _ => match f.int("head_dim", MAX_HEAD_DIM)? {
            Some(h) => Some(h),
            None => c.derived_from_hidden("head_dim")?,
        },
    };
    t.sliding_window = f.window(Some(128))?;
    t.layer_types = Some(match given_types {
        Some(l) => l,
        None => LayerTypesRule::FullEvery(2).materialise(n).unwrap_or_default(),
    });
    Ok(())
}

/// `torch_dtype` / `dtype` (transformers 5 writes `dtype`; `torch_dtype` is the older name) in `m`.
fn dtype(file: &str, prefix: &str, m: &Map<String, Value>) -> Result<Option<TorchDtype>, ModelError> {
    let mut found: Option<TorchDtype> = None;
    for key in ["dtype", "torch_dtype"] {
        let d = match m.get(key) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => match s.as_str() {
                "float16" => TorchDtype::Float16,
                "bfloat16" => TorchDtype::BFloat16,
                "float32" => TorchDtype::Float32,
                other => {
                    return cannot(
                        file,
                        format!("{prefix}{key} = \"{other}\" (qpath reads float16, bfloat16, float32)"),
                    )
                }
            },
            Some(v) => return err(format!("{file}: {prefix}{key} = {}: must be a string", show(v))),
        };
        if found.is_none() {
            found = Some(d);
        }
    }
    Ok(found)
}

/// `quantization_config` (top level; vLLM sets it on the config as given, `vllm/transformers_utils/config.py:723@0.24.0,
/// 953@0.33.0`): the KV cache dtype the checkpoint asks for ([`CheckpointKv`]).
fn quantization(file: &str, root: &Map<String, Value>) -> Result<Option<CheckpointKv>, ModelError> {
    let q = match root.get("quantization_config") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(q)) => q,
        Some(v) => return cannot(file, format!("quantization_config = {} (vLLM reads it as a dict)", show(v))),
    };
    let method = match q.get("quant_method") {
        None => "",
        Some(Value::String(s)) => s.as_str(),
        Some(v) => {
            return cannot(
                file,
                format!(
                    "quantization_config.quant_method = {} (vLLM calls .startswith on it)",
                    show(v)
                ),
            )
        }
    };
    if method.starts_with("modelopt") {
        return modelopt(file, q).map(Some);
    }
    if method == "compressed-tensors" {
        return match q.get("kv_cache_scheme") {
            None | Some(Value::Null) => Ok(Some(CheckpointKv {
                method: method.to_string(),
                cache_dtype: None,
                scheme: KvScheme::None,
                warning: None,
            })),
            Some(Value::Object(s)) => compressed_tensors_scheme(file, s).map(Some),
            Some(v) => cannot(
                file,
                format!("quantization_config.kv_cache_scheme = {} (vLLM reads it as a dict)", show(v)),
            ),
        };
    }
    Ok(Some(CheckpointKv {
        method: method.to_string(),
        cache_dtype: None,
        scheme: KvScheme::None,
        warning: None,
    }))
}

/// `get_kv_cache_quant_algo_string` (`vllm/utils/torch_utils.py:309-357@0.24.0, 443-491@0.33.0`): the first truthy
/// of `quantization.kv_cache_scheme`, `kv_cache_scheme`, `quantization.kv_cache_quant_algo`, `kv_cache_quant_algo`;
/// a dict is `"fp8"` when `dynamic is False`, `num_bits == 8`, `type == "float"`, `"nvfp4"` when `num_bits == 4` and
/// `type == "float"`, else `"auto"` with a warning; a string is lower-cased and mapped `fp8 → fp8_e4m3`,
/// `nvfp4 → nvfp4`, else `"auto"` with a warning; nothing: None (the dtype stays as given).
fn modelopt(file: &str, q: &Map<String, Value>) -> Result<CheckpointKv, ModelError> {
    let method = q.get("quant_method").and_then(Value::as_str).unwrap_or_default().to_string();
    let inner = match q.get("quantization") {
        None => q,
        Some(Value::Object(m)) => m,
        Some(v) => {
            return cannot(
                file,
                format!("quantization_config.quantization = {} (vLLM calls .get on it)", show(v)),
            )
        }
    };
    let truthy = |v: &&Value| match v {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::Bool(true) => true,
    };
    let algo = [
        inner.get("kv_cache_scheme"),
        q.get("kv_cache_scheme"),
        inner.get("kv_cache_quant_algo"),
        q.get("kv_cache_quant_algo"),
    ]
    .into_iter()
    .flatten()
    .find(truthy);
    let kv = |cache_dtype: Option<&str>, warning: Option<String>| CheckpointKv {
        method: method.clone(),
        cache_dtype: cache_dtype.map(str::to_string),
        scheme: KvScheme::ModelOpt,
        warning,
    };
    let warn = |shown: String| {
        format!(
            "WARNING: Unknown kv_cache_quant_algo '{shown}' in model config. Supported values: ['fp8', 'nvfp4']. \
             Falling back to 'auto'."
        )
    };
    Ok(match algo {
        None => kv(None, None),
        Some(Value::Object(d)) => {
            let num_bits = d.get("num_bits").and_then(Value::as_f64);
            let float = d.get("type").and_then(Value::as_str) == Some("float");
            if d.get("dynamic") == Some(&Value::Bool(false)) && num_bits == Some(8.0) && float {
                kv(Some("fp8_e4m3"), None)
            } else if num_bits == Some(4.0) && float {
                kv(Some("nvfp4"), None)
            } else {
                return cannot(
                    file,
                    format!(
                        "the ModelOpt KV scheme {} (vLLM falls back to 'auto' and logs the dict's Python repr, which \
                         qpath does not reproduce)",
                        show(&Value::Object(d.clone()))
                    ),
                );
            }
        }
        Some(Value::String(s)) => match crate::serve::python::py_lower(s).as_str() {
            "fp8" => kv(Some("fp8_e4m3"), None),
            "nvfp4" => kv(Some("nvfp4"), None),
            _ => kv(Some("auto"), Some(warn(s.clone()))),
        },
        Some(v) => {
            return cannot(
                file,
                format!("the ModelOpt kv_cache_quant_algo {} (neither a string nor a dict)", show(v)),
            )
        }
    })
}

/// A compressed-tensors `kv_cache_scheme`: `Attention.__init__` makes the cache dtype `"fp8"` under `auto`
/// (`vllm/model_executor/layers/attention/attention.py:253@0.24.0, 288@0.33.0`), with per-head scales when
/// `strategy == "attn_head"`. `CompressedTensorsKVCacheMethod.validate_kv_cache_scheme` then requires `type` float and
/// `num_bits` 8, strategy tensor or attn_head, and `symmetric` (its messages are in [`super::kv_scheme_error`]).
fn compressed_tensors_scheme(_file: &str, s: &Map<String, Value>) -> Result<CheckpointKv, ModelError> {
    Ok(CheckpointKv {
        method: "compressed-tensors".into(),
        cache_dtype: Some("fp8".into()),
        scheme: KvScheme::CompressedTensors(s.clone()),
        warning: None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::{resolve_model_from_config, AttentionKind};
    use crate::release::Release;

    /// The layers (kind, window, head size, KV heads) of a config.json at the newest release (also used by the
    /// tests of `dense`).
    pub(super) fn layers(text: &str) -> Vec<(AttentionKind, Option<u32>, u32, u32)> {
        resolve_model_from_config(Release::V0_33_0, "m", "config.json", text, None)
            .unwrap_or_else(|e| panic!("{e}"))
            .layers
            .iter()
            .map(|l| (l.kind, l.sliding_window, l.head_dim, l.num_kv_heads))
            .collect()
    }

    /// The error a config.json gets at the newest release ("" when it reads).
    pub(super) fn error(text: &str) -> String {
        resolve_model_from_config(Release::V0_33_0, "m", "config.json", text, None)
            .err()
            .map(|e| e.message)
            .unwrap_or_default()
    }

    #[test]
    fn the_constructors_are_restated() {
        use AttentionKind::{Full, SlidingWindow};
        // Qwen2: the window only with use_sliding_window, on layers >= max_window_layers; head size from hidden.
        let q = r#"{"architectures": ["Qwen2ForCausalLM"], "hidden_size": 896, "num_attention_heads": 14,
            "num_hidden_layers": 4, "num_key_value_heads": 2, "sliding_window": 32768, "max_window_layers": 21}"#;
        assert!(layers(q).iter().all(|l| *l == (Full, None, 64, 2)));
        // Mistral without sliding_window: MistralConfig's default 4096 on every layer (no layer_types).
        let m = r#"{"architectures": ["MistralForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
            "num_hidden_layers": 2}"#;
        assert_eq!(layers(m), vec![(SlidingWindow, Some(4096), 128, 8); 2]);
        // gemma-3 text: sliding_window_pattern 2 -> every 2nd layer full.
        let g = r#"{"architectures": ["Gemma3ForCausalLM"], "num_attention_heads": 4, "num_hidden_layers": 4,
            "num_key_value_heads": 1, "head_dim": 256, "sliding_window": 512, "sliding_window_pattern": 2}"#;
        let kinds: Vec<AttentionKind> = layers(g).iter().map(|l| l.0).collect();
        assert_eq!(kinds, vec![SlidingWindow, Full, SlidingWindow, Full]);
        // A Llama config's linear_attention entry is a full-attention layer for llama.py.
        let l = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 256, "num_attention_heads": 2,
            "num_hidden_layers": 2, "layer_types": ["linear_attention", "full_attention"]}"#;
        assert_eq!(layers(l), vec![(Full, None, 128, 2); 2]);
    }

    #[test]
    fn errors_name_the_file_and_the_field() {
        let e = error(r#"{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "num_attention_heads": 2}"#);
        assert!(
            e.starts_with("config.json: ") && e.contains("head_dim") && e.contains("hidden_size"),
            "{e}"
        );
        let e = error(r#"{"architectures": ["Gemma3ForConditionalGeneration"], "text_config": 3}"#);
        assert_eq!(e, "config.json: text_config = 3: must be a JSON object");
        let e = error(
            r#"{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "num_attention_heads": 2,
            "hidden_size": 256, "layer_types": ["full_attention"]}"#,
        );
        assert!(e.contains("layer_types has 1 entries but num_hidden_layers is 2"), "{e}");
        let e = error(
            r#"{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "num_attention_heads": 2,
            "hidden_size": 256, "quantization_config": {"quant_method": 7}}"#,
        );
        assert!(
            e.contains("qpath cannot model this: quantization_config.quant_method = 7"),
            "{e}"
        );
    }
}
