//! The config classes of the dense attention-only families (every layer a standard attention layer): GLM-4.5 / 4.6
//! (`Glm4MoeConfig`), Mistral 3 / Ministral 3 (`Mistral3Config`'s text config: `MistralConfig` or `Ministral3Config`)
//! and Phi-4 (`Phi3Config`), restated from transformers 5.16.1 (the same fields and defaults in 5.5.3 for the three
//! classes qpath reads: `configuration_glm4_moe.py` adds only `num_mtp_layers` in 5.16.1, `configuration_phi3.py` and
//! `configuration_mistral3.py` are byte-identical, `configuration_ministral3.py` differs by a blank line). No vLLM
//! release registers its own config class for `glm4_moe`, `mistral3`, `ministral3` or `phi3` (`_CONFIG_REGISTRY`).

use serde_json::Value;

use super::{cannot, llama_mistral, show, Common, ConfigClass, Field, TextConfig};
use crate::model::config::HfLayerType;
use crate::model::overrides::{MAX_HEADS, MAX_HEAD_DIM};
use crate::model::ModelError;

/// `Glm4MoeConfig` (configuration_glm4_moe.py:91-120 in 5.16.1): `num_key_value_heads` 8; the class has no
/// `head_dim` and no `sliding_window` field, so both are the file's (extra keys become attributes). glm4_moe.py reads
/// `config.head_dim` (`source::GLM4_MOE_LAYER_HEAD_DIM`) and takes `head_dim or hidden_size // heads`
/// (`source::GLM4_MOE_HEAD_DIM`): a null `head_dim` is derived, an absent one is an AttributeError qpath does not
/// restate. `layer_types` is not read by glm4_moe.py (every layer is a plain `Attention`, `source::GLM4_MOE_ATTN`);
/// as given it only decides `cache_config.sliding_window` (model::layout).
pub(super) fn glm4_moe(c: &Common, given_types: Option<Vec<HfLayerType>>, t: &mut TextConfig) -> Result<(), ModelError> {
    let f = c.f;
    t.num_key_value_heads = match f.get("num_key_value_heads") {
        Field::Absent => Some(8),
        Field::Null => {
            return cannot(
                f.file,
                format!(
                    "{} = null (Glm4MoeConfig keeps None and glm4_moe.py compares it with the TP size)",
                    f.path("num_key_value_heads")
                ),
            )
        }
        Field::Set(_) => f.int("num_key_value_heads", MAX_HEADS)?,
    };
    t.head_dim = match f.get("head_dim") {
        Field::Absent => {
            return cannot(
                f.file,
                format!(
                    "{} is missing: Glm4MoeConfig has no head_dim field and glm4_moe.py reads config.head_dim \
                     (an AttributeError qpath does not restate)",
                    f.path("head_dim")
                ),
            )
        }
        // `head_dim or hidden_size // heads` in glm4_moe.py: model::layout derives it.
        Field::Null => None,
        Field::Set(_) => f.int("head_dim", MAX_HEAD_DIM)?,
    };
    if t.head_dim.is_none() {
        c.derived_from_hidden("head_dim")?;
    }
    t.sliding_window = f.window(None)?;
    t.layer_types = given_types;
    let mtp = glm4_moe_nextn(f)?;
    std::sync::Arc::make_mut(&mut t.raw).insert("num_nextn_predict_layers".into(), Value::from(mtp));
    Ok(())
}

/// `num_nextn_predict_layers` as `Glm4MoeConfig` holds it (5.16.1: the field `num_mtp_layers`, default 1, with the
/// `attribute_map` alias `num_nextn_predict_layers`; config.json's own key wins, as in `DeepseekV3Config`). vLLM's
/// `glm4_moe_mtp.py` builds that many MTP layers (`source::GLM_MTP_COUNT`); 0 is kept (the drafter then meets
/// vLLM's `n_predict` modulo). transformers 5.5.3's class has no such field (a config.json without either key would
/// meet an AttributeError in `glm4_moe_mtp.py` there): qpath restates 5.16.1, as for every GLM field.
fn glm4_moe_nextn(f: &super::Fields<'_>) -> Result<u32, ModelError> {
    let key = match (f.get("num_nextn_predict_layers"), f.get("num_mtp_layers")) {
        (Field::Absent, Field::Absent) => return Ok(1),
        (Field::Set(_), _) => "num_nextn_predict_layers",
        (Field::Absent, Field::Set(_)) => "num_mtp_layers",
        (Field::Null, _) | (Field::Absent, Field::Null) => {
            return cannot(
                f.file,
                format!(
                    "{} = null (transformers' Glm4MoeConfig declares num_mtp_layers an int and refuses None)",
                    f.path("num_nextn_predict_layers")
                ),
            )
        }
    };
    match f.map.get(key).and_then(Value::as_u64) {
        Some(n) if n <= u64::from(crate::model::MAX_LAYERS) => Ok(n as u32),
        _ => cannot(
            f.file,
            format!(
                "{} = {} (qpath reads a non-negative integer up to {})",
                f.path(key),
                show(f.map.get(key).unwrap_or(&Value::Null)),
                crate::model::MAX_LAYERS
            ),
        ),
    }
}

/// `Ministral3Config` (configuration_ministral3.py:74-119 in 5.16.1): `head_dim` 128 (None: `hidden_size // heads`),
/// `num_key_value_heads` 8 (None: the heads), `sliding_window` None; a `layer_types` key is kept as given (the class
/// only warns about it). mistral.py's layers are llama.py's: the window where `layer_types[i]` is
/// `"sliding_attention"`.
pub(super) fn ministral3(c: &Common, given_types: Option<Vec<HfLayerType>>, t: &mut TextConfig) -> Result<(), ModelError> {
    let f = c.f;
    t.num_key_value_heads = c.kv_or_heads(Some(8))?;
    t.head_dim = match f.get("head_dim") {
        Field::Absent => Some(128),
        Field::Null => c.derived_from_hidden("head_dim")?,
        Field::Set(_) => f.int("head_dim", MAX_HEAD_DIM)?,
    };
    t.sliding_window = f.window(None)?;
    t.layer_types = given_types;
    Ok(())
}

/// `Mistral3Config.__post_init__` (configuration_mistral3.py:82-84 in 5.16.1): the text config's class is
/// `CONFIG_MAPPING[text_config.get("model_type", "mistral")]`: `MistralConfig` ([`ConfigClass::Mistral`]) or
/// `Ministral3Config` ([`ministral3`]). vLLM's mistral3.py builds the language model from `config.text_config`
/// (`source::MISTRAL3_LANGUAGE_MODEL`); `with_hf_config` names its architecture from the text config's model type
/// (`source::WITH_HF_CONFIG_CAUSAL_LM`: `MistralForCausalLM` / `Ministral3ForCausalLM`), both `mistral.py`'s
/// `MistralForCausalLM` in the registry (`source::MINISTRAL3_REGISTRY`), i.e. llama.py's layers.
pub(super) fn mistral3_text(c: &Common, given_types: Option<Vec<HfLayerType>>, t: &mut TextConfig) -> Result<(), ModelError> {
    let f = c.f;
    if let Field::Set(v) = f.get("architectures") {
        return cannot(
            f.file,
            format!(
                "{} = {} (vLLM then builds that architecture for the language model; qpath reads a text config \
                 without architectures, named from its model_type)",
                f.path("architectures"),
                show(v)
            ),
        );
    }
    match f.get("model_type") {
        Field::Absent => llama_mistral(c, ConfigClass::Mistral, given_types, t),
        Field::Set(Value::String(s)) if s == "mistral" => llama_mistral(c, ConfigClass::Mistral, given_types, t),
        Field::Set(Value::String(s)) if s == "ministral3" => ministral3(c, given_types, t),
        Field::Null | Field::Set(_) => cannot(
            f.file,
            format!(
                "{} = {} (qpath restates Mistral 3's text configs of type \"mistral\" and \"ministral3\")",
                f.path("model_type"),
                show(f.map.get("model_type").unwrap_or(&Value::Null))
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{error, layers};
    use crate::model::AttentionKind;

    #[test]
    fn glm4_moe_reads_head_dim_from_the_file() {
        use AttentionKind::Full;
        let glm = r#"{"architectures": ["Glm4MoeForCausalLM"], "hidden_size": 4096, "num_attention_heads": 96,
            "num_hidden_layers": 2, "head_dim": 128}"#;
        // num_key_value_heads absent: Glm4MoeConfig's 8.
        assert_eq!(layers(glm), vec![(Full, None, 128, 8); 2]);
        // head_dim null: `head_dim or hidden_size // heads`.
        let null = glm.replace("\"head_dim\": 128", "\"head_dim\": null");
        assert_eq!(layers(&null), vec![(Full, None, 42, 8); 2]);
        let absent = glm.replace(", \"head_dim\": 128", "");
        assert!(
            error(&absent).contains("qpath cannot model this: head_dim is missing"),
            "{}",
            error(&absent)
        );
    }

    #[test]
    fn mistral3_text_config_class_by_model_type() {
        use AttentionKind::{Full, SlidingWindow};
        // model_type absent: MistralConfig, whose sliding_window defaults to 4096 (every layer).
        let m = r#"{"architectures": ["Mistral3ForConditionalGeneration"], "text_config": {"hidden_size": 5120,
            "num_attention_heads": 32, "num_hidden_layers": 2, "head_dim": 128}}"#;
        assert_eq!(layers(m), vec![(SlidingWindow, Some(4096), 128, 8); 2]);
        // ministral3: no window by default, head_dim 128.
        let m3 = m.replace("\"head_dim\": 128", "\"model_type\": \"ministral3\"");
        assert_eq!(layers(&m3), vec![(Full, None, 128, 8); 2]);
        let other = m.replace("\"head_dim\": 128", "\"model_type\": \"ministral\"");
        assert!(
            error(&other).contains("text_config.model_type = \"ministral\""),
            "{}",
            error(&other)
        );
    }
}
