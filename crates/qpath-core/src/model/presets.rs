//! The model presets (`data/models.toml`, generated into Rust by build.rs), which vLLM model file builds each
//! preset's attention layers, the preset lookup, and the check of every preset's meaning.

use serde::Serialize;

use super::resolve_model;
use crate::dtype::TorchDtype;

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
    /// `gemma4.py`: window = `config.sliding_window` where `config.layer_types[i]` is `"sliding_attention"`
    /// (`source::GEMMA4_LAYER_WINDOW`); full-attention layers have their own head size (`global_head_dim`) and, with
    /// `attention_k_eq_v`, their own KV heads (`num_global_key_value_heads`) (`source::GEMMA4_LAYER_SHAPE`).
    Gemma4,
    /// `llama4.py` (Llama 4 Scout / Maverick; `mllama4.py` builds it from `text_config`): head size `config.head_dim`,
    /// no per-layer window; layer i is chunked local attention or full attention by `config.no_rope_layers[i]` and
    /// `config.attention_chunk_size` ([`super::layout::llama4_chunked`]).
    Llama4,
    /// `qwen3_next.py` (hybrid): layer i is gated-delta-net linear attention or full attention by
    /// `config.layer_types[i]`; attention head_dim = `config.head_dim` or hidden_size // heads (see `hybrid`).
    Qwen3Next,
    /// `qwen3_5.py` (hybrid; Qwen3.5 / 3.6, dense and MoE, text and multimodal wrappers): the Qwen3-Next layers
    /// (`Qwen3_5DecoderLayer` subclasses `Qwen3NextDecoderLayer`: gated delta net or `Qwen3NextAttention` by
    /// `config.layer_types[i]`, `source::QWEN3_5_LAYER_TYPE`) over the text config; `layer_types` is always set by the
    /// config class (`full_attention_interval`, default 4), and `mamba_ssm_dtype` of the text config sets the SSM state
    /// dtype (`crate::hybrid`).
    Qwen3_5,
    /// `granitemoehybrid.py` (hybrid; Granite-4.0-H): layer i is Mamba2 or attention by `config.layer_types[i]`
    /// (`mamba` / `attention`, or transformers >= 5.13's `linear_attention` / `full_attention`, per release);
    /// attention head size `hidden_size // num_attention_heads` (config.json's `head_dim` is not read).
    GraniteMoeHybrid,
    /// `nemotron_h.py` (hybrid): layer i is Mamba2 (`M`), attention (`*`), MLP (`-`) or MoE (`E`) by
    /// `config.hybrid_override_pattern[i]`; attention head_dim = `config.head_dim` or hidden_size // heads.
    NemotronH,
    /// `falcon_h1.py` (hybrid; Falcon-H1): every decoder layer i is a `FalconH1ParallelHybrid`, an attention branch
    /// (layer i) beside a Mamba2 mixer named as layer `num_hidden_layers + i`; attention head size `config.head_dim`
    /// or hidden_size // heads (`source::FALCON_H1_HEAD_DIM`).
    FalconH1,
    /// `jamba.py` (hybrid; Jamba): layer i is attention or Mamba1 by `config.layers_block_type[i]`, which JambaConfig
    /// derives from `attn_layer_period` / `attn_layer_offset`; attention head size hidden_size // heads
    /// (`source::JAMBA_HEAD_DIM`; config.json's `head_dim` is not read).
    Jamba,
    /// `deepseek_v2.py` (DeepSeek-V2 / V3 / R1 / V3.2, Kimi-K2, GLM-5), and from 0.29.0 on CUDA
    /// `vllm/models/deepseek_v32/nvidia/model.py` for `DeepseekV32ForCausalLM` / `GlmMoeDsaForCausalLM`: one rule with a
    /// release switch ([`super::mla`]). Under `use_mla` every layer is an MLA layer: `num_attention_heads` query heads,
    /// one latent KV head, head size `kv_lora_rank + qk_rope_head_dim` (never `config.head_dim`, which transformers'
    /// DeepSeek configs set to `qk_rope_head_dim`), sparse iff the config has `index_topk`.
    DeepseekV2,
    /// `glm4_moe.py` (GLM-4.5 / 4.6 / 4.7): every layer a plain `Attention` (`source::GLM4_MOE_ATTN`), no per-layer
    /// window; head size `head_dim or hidden_size // heads` from `config.head_dim` (`source::GLM4_MOE_HEAD_DIM`).
    Glm4Moe,
}

impl VllmModel {
    /// The model file's own asserts on KV heads and tensor parallelism, in its attention `__init__` before the
    /// projections and `Attention` are built: `total_num_kv_heads % tp_size == 0` when there are at least as many KV
    /// heads as ranks, else `tp_size % total_num_kv_heads == 0`, both bare (`AssertionError` without a message).
    /// `opt.py` and `gpt_oss.py` have none.
    pub fn kv_tp_asserts(self) -> Option<(&'static crate::source::Cite, &'static crate::source::Cite)> {
        use crate::source::*;
        Some(match self {
            // deepseek_v2.py's only TP assert is the MLA / non-MLA attention's bare `num_heads % tp_size == 0`, which
            // `ModelConfig.verify_with_parallel_config` makes unreachable (it rejects the same TP first).
            VllmModel::Opt | VllmModel::GptOss | VllmModel::DeepseekV2 => return None,
            VllmModel::Llama => (&LLAMA_KV_SPLIT_ASSERT, &LLAMA_TP_SPLIT_ASSERT),
            VllmModel::Llama4 => (&LLAMA4_KV_SPLIT_ASSERT, &LLAMA4_TP_SPLIT_ASSERT),
            VllmModel::Qwen2 => (&QWEN2_KV_SPLIT_ASSERT, &QWEN2_TP_SPLIT_ASSERT),
            VllmModel::Qwen3 => (&QWEN3_KV_SPLIT_ASSERT, &QWEN3_TP_SPLIT_ASSERT),
            VllmModel::Gemma3 => (&GEMMA3_KV_SPLIT_ASSERT, &GEMMA3_TP_SPLIT_ASSERT),
            VllmModel::Gemma4 => (&GEMMA4_KV_SPLIT_ASSERT, &GEMMA4_TP_SPLIT_ASSERT),
            // qwen3_5.py builds qwen3_next.py's Qwen3NextAttention.
            VllmModel::Qwen3Next | VllmModel::Qwen3_5 => (&QWEN3_NEXT_KV_SPLIT_ASSERT, &QWEN3_NEXT_TP_SPLIT_ASSERT),
            VllmModel::NemotronH => (&NEMOTRON_H_KV_SPLIT_ASSERT, &NEMOTRON_H_TP_SPLIT_ASSERT),
            VllmModel::GraniteMoeHybrid => (&GRANITE_KV_SPLIT_ASSERT, &GRANITE_TP_SPLIT_ASSERT),
            VllmModel::FalconH1 => (&FALCON_H1_KV_SPLIT_ASSERT, &FALCON_H1_TP_SPLIT_ASSERT),
            VllmModel::Jamba => (&JAMBA_KV_SPLIT_ASSERT, &JAMBA_TP_SPLIT_ASSERT),
            VllmModel::Glm4Moe => (&GLM4_MOE_KV_SPLIT_ASSERT, &GLM4_MOE_TP_SPLIT_ASSERT),
        })
    }

    /// Whether the model file builds linear-attention / Mamba layers where `layer_types` says so (hybrid models);
    /// none of the files above does.
    pub fn builds_recurrent_layers(self) -> bool {
        false
    }

    pub fn file(self) -> &'static str {
        match self {
            VllmModel::Opt => "vllm/model_executor/models/opt.py",
            VllmModel::Llama => "vllm/model_executor/models/llama.py",
            VllmModel::Llama4 => "vllm/model_executor/models/llama4.py",
            VllmModel::Qwen2 => "vllm/model_executor/models/qwen2.py",
            VllmModel::Qwen3 => "vllm/model_executor/models/qwen3.py",
            VllmModel::Gemma3 => "vllm/model_executor/models/gemma3.py",
            VllmModel::GptOss => "vllm/model_executor/models/gpt_oss.py",
            VllmModel::Gemma4 => "vllm/model_executor/models/gemma4.py",
            VllmModel::Qwen3Next => "vllm/model_executor/models/qwen3_next.py",
            VllmModel::Qwen3_5 => "vllm/model_executor/models/qwen3_5.py",
            VllmModel::NemotronH => "vllm/model_executor/models/nemotron_h.py",
            VllmModel::GraniteMoeHybrid => "vllm/model_executor/models/granitemoehybrid.py",
            VllmModel::FalconH1 => "vllm/model_executor/models/falcon_h1.py",
            VllmModel::Jamba => "vllm/model_executor/models/jamba.py",
            VllmModel::DeepseekV2 => "vllm/model_executor/models/deepseek_v2.py",
            VllmModel::Glm4Moe => "vllm/model_executor/models/glm4_moe.py",
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
    /// Not in the page's build (wasm32): only [`super::Provenance`] and [`validate_presets`] read them, natively.
    #[cfg(not(target_arch = "wasm32"))]
    pub unconfirmed: &'static [&'static str],
    #[cfg(not(target_arch = "wasm32"))]
    pub source: &'static [&'static str],
    /// The raw config fields other steps read by name (`config` table of the row), as a JSON object text (`{}`
    /// when the row has none); they become `TextConfig.raw`.
    pub config: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/models.rs"));

/// A preset's raw config fields ([`ModelPreset::config`]), parsed the first time the preset is used and shared after.
pub(super) fn raw_config(p: &'static ModelPreset) -> std::sync::Arc<serde_json::Map<String, serde_json::Value>> {
    use std::sync::{Arc, OnceLock};
    type Raw = Arc<serde_json::Map<String, serde_json::Value>>;
    static RAW: OnceLock<Vec<OnceLock<Raw>>> = OnceLock::new();
    let all = RAW.get_or_init(|| MODEL_PRESETS.iter().map(|_| OnceLock::new()).collect());
    match MODEL_PRESETS.iter().position(|q| std::ptr::eq(q, p)) {
        Some(i) => Arc::clone(all[i].get_or_init(|| Arc::new(serde_json::from_str(p.config).unwrap_or_default()))),
        None => Arc::new(serde_json::from_str(p.config).unwrap_or_default()),
    }
}

/// The preset with this HF id: an exact match first, else a case-insensitive one.
pub fn find_preset(id: &str) -> Option<&'static ModelPreset> {
    MODEL_PRESETS
        .iter()
        .find(|p| p.id == id)
        .or_else(|| MODEL_PRESETS.iter().find(|p| p.id.eq_ignore_ascii_case(id)))
}

/// Checks the meaning of every preset (build.rs checks only the shape); a failure names every bad row at once.
pub fn validate_presets(presets: &[ModelPreset]) -> Result<(), Vec<String>> {
    #[cfg(not(target_arch = "wasm32"))]
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
        #[cfg(not(target_arch = "wasm32"))]
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
        let raw: serde_json::Map<String, serde_json::Value> = serde_json::from_str(p.config).unwrap_or_default();
        if p.vllm_model == VllmModel::DeepseekV2 {
            // transformers' DeepSeek configs set head_dim = qk_rope_head_dim (the MLA rule never reads it).
            let rope = raw.get("qk_rope_head_dim").and_then(serde_json::Value::as_u64);
            if p.head_dim.map(u64::from) != rope {
                bad("head_dim must be config.qk_rope_head_dim (what DeepseekV2/V3Config and GlmMoeDsaConfig build)".into());
            }
            if p.text_config {
                bad("a DeepSeek-architecture config keeps its attention settings at the top level".into());
            }
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let is_field = |u: &str| FIELDS.contains(&u) || u.strip_prefix("config.").is_some_and(|k| raw.contains_key(k));
            if let Some(u) = p.unconfirmed.iter().find(|u| !is_field(u)) {
                bad(format!("unconfirmed names `{u}`, which is not a field"));
            }
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn find_preset_is_exact_then_case_insensitive() {
        assert_eq!(find_preset("qwen/qwen3-8b").unwrap().id, "Qwen/Qwen3-8B");
        assert_eq!(find_preset("OPENAI/GPT-OSS-20B").unwrap().id, "openai/gpt-oss-20b");
        assert!(find_preset("Qwen/Qwen3-8").is_none());
        let spec = resolve_model("GOOGLE/gemma-3-27B-IT", None).unwrap();
        assert_eq!(spec.id, "google/gemma-3-27b-it");
    }
}
