//! The config classes of the DeepSeek-architecture model files (`deepseek_v2.py`, `vllm/models/deepseek_v32`): what
//! transformers 5.16.1's constructors default and derive, written into [`TextConfig::raw`] under the names config.json
//! uses, where `model::mla` reads them. The class follows `model_type`, not the architecture:
//!
//! - `deepseek_v2`: `DeepseekV2Config` (`models/deepseek_v2/configuration_deepseek_v2.py`): defaults hidden 4096,
//!   `kv_lora_rank` 512, `q_lora_rank` 1536 (`int | None`: config.json's null stays None), `qk_nope_head_dim` 128,
//!   `qk_rope_head_dim` 64, `v_head_dim` 128, `first_k_dense_replace` 0; no `num_nextn_predict_layers` field;
//!   `num_key_value_heads` None → heads; `validate_architecture`: hidden_size a multiple of the heads.
//! - `deepseek_v3`, and `deepseek_v32` / `kimi_k2`, which vLLM's `_CONFIG_REGISTRY` builds with the same class keeping
//!   their model_type ([`source::MLA_MODEL_CONFIG_V32_CLASS`], [`source::MLA_MODEL_CONFIG_KIMI_CLASS`]):
//!   `DeepseekV3Config` (`models/deepseek_v3/configuration_deepseek_v3.py`): defaults hidden 7168, `kv_lora_rank` 512,
//!   `q_lora_rank` 1536 (`int | None`), `qk_rope_head_dim` 64, `v_head_dim` 128 (`int | None`), `qk_nope_head_dim` 128,
//!   `first_k_dense_replace` 3, `num_key_value_heads` 128 (None → heads), `num_mtp_layers` 1, an alias of
//!   `num_nextn_predict_layers` (`attribute_map`).
//! - `glm_moe_dsa`: `GlmMoeDsaConfig` (`models/glm_moe_dsa/configuration_glm_moe_dsa.py`): defaults GLM-5's numbers
//!   (hidden 6144, `kv_lora_rank` 512, `q_lora_rank` 2048, `qk_rope_head_dim` 64, `v_head_dim` 256,
//!   `qk_nope_head_dim` 192, `num_key_value_heads` 64, `index_topk` 2048, `index_head_dim` 128, `index_n_heads` 32,
//!   `first_k_dense_replace` 3), every field a plain `int`; no `num_nextn_predict_layers` field.
//!
//! All three set `head_dim = qk_rope_head_dim` in `__post_init__` (the MLA rule does not read it). They are `@strict`:
//! a null for a plain `int` field, or a float, is transformers' `StrictDataclassFieldValidationError`. Keys the class
//! does not declare (`index_topk` on DeepseekV3Config, `is_causal`, `index_topk_pattern`, …) stay attributes as given.

use serde_json::Value;

use super::{cannot, Field, Fields};
use crate::model::config::TextConfig;
use crate::model::overrides::{MAX_HEADS, MAX_HEAD_DIM, MAX_HIDDEN_SIZE, MAX_LAYERS};
use crate::model::{err, show, ModelError, Provenance};
use crate::release::Release;
use crate::source;

/// The model types whose config class qpath restates for the DeepSeek architectures.
pub(super) const MODEL_TYPES: [&str; 5] = ["deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm_moe_dsa"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    V2,
    V3,
    Glm,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::V2 => "DeepseekV2Config",
            Class::V3 => "DeepseekV3Config",
            Class::Glm => "GlmMoeDsaConfig",
        }
    }
}

/// One declared field: its default and whether the class accepts None (`int | None`).
struct Declared {
    key: &'static str,
    default: Option<u32>,
    nullable: bool,
}

const fn d(key: &'static str, default: u32, nullable: bool) -> Declared {
    Declared {
        key,
        default: Some(default),
        nullable,
    }
}

fn declared(class: Class) -> Vec<Declared> {
    match class {
        Class::V2 => vec![
            d("kv_lora_rank", 512, false),
            d("q_lora_rank", 1536, true),
            d("qk_nope_head_dim", 128, false),
            d("qk_rope_head_dim", 64, false),
            d("v_head_dim", 128, false),
            d("first_k_dense_replace", 0, false),
        ],
        Class::V3 => vec![
            d("kv_lora_rank", 512, false),
            d("q_lora_rank", 1536, true),
            d("qk_rope_head_dim", 64, false),
            d("v_head_dim", 128, true),
            d("qk_nope_head_dim", 128, false),
            d("first_k_dense_replace", 3, true),
        ],
        Class::Glm => vec![
            d("kv_lora_rank", 512, false),
            d("q_lora_rank", 2048, false),
            d("qk_rope_head_dim", 64, false),
            d("v_head_dim", 256, false),
            d("qk_nope_head_dim", 192, false),
            d("index_topk", 2048, false),
            d("index_head_dim", 128, false),
            d("index_n_heads", 32, false),
            d("first_k_dense_replace", 3, false),
        ],
    }
}

fn at(c: &source::Cite, r: Release) -> String {
    c.at(r).map_or_else(|| "-".to_string(), |s| s.short())
}

/// A non-negative integer field value as the strict class takes it.
fn int_value(f: &Fields, class: Class, key: &str, v: &Value, max: u32) -> Result<u32, ModelError> {
    match v.as_u64() {
        Some(n) if n <= u64::from(max) => Ok(n as u32),
        Some(n) => cannot(f.file, format!("{} = {n}: larger than qpath's limit of {max}", f.path(key))),
        None => err(format!(
            "{}: {} = {}: transformers' {} declares it an int (a non-negative integer here)",
            f.file,
            f.path(key),
            show(v),
            class.name()
        )),
    }
}

/// The constructed text config of a DeepSeek-architecture config.json (`model_type` picks the class).
pub(super) fn deepseek(
    release: Release,
    f: &Fields,
    architecture: &str,
    model_type: Option<&str>,
    notes: &mut Provenance,
) -> Result<TextConfig, ModelError> {
    let class = match model_type {
        Some("deepseek_v2") => Class::V2,
        Some("deepseek_v3" | "deepseek_v32" | "kimi_k2") => Class::V3,
        Some("glm_moe_dsa") => Class::Glm,
        Some("deepseek") => {
            return cannot(
                f.file,
                format!(
                    "model_type = \"deepseek\" (DeepSeek-MoE v1) with architectures[0] = \"{architecture}\": \
                     deepseek_v2.py builds DeepseekAttention, plain multi-head attention qpath does not restate"
                ),
            )
        }
        None => {
            return cannot(
                f.file,
                format!(
                    "model_type is missing; vLLM and transformers build the config class of {architecture} from it \
                     (qpath reads {})",
                    MODEL_TYPES.join(", ")
                ),
            )
        }
        Some(other) => {
            return cannot(
                f.file,
                format!(
                    "model_type = \"{other}\" with architectures[0] = \"{architecture}\" (qpath reads the config \
                     classes of {})",
                    MODEL_TYPES.join(", ")
                ),
            )
        }
    };
    if f.map.contains_key("compress_ratios") {
        // The DeepSeek-V4 model file: registry.py:99@0.20.0 ("deepseek_v4"), :101@0.22.0 ("vllm.models.deepseek_v4").
        let v4 = if release < Release::V0_22_0 {
            "vllm/model_executor/models/deepseek_v4.py"
        } else {
            "vllm/models/deepseek_v4"
        };
        return cannot(
            f.file,
            format!(
                "compress_ratios (a DeepSeek-V4 config: its MLA head size is head_dim, and vLLM builds it with {v4}, \
                 which qpath does not restate)"
            ),
        );
    }
    let model_type = model_type.unwrap_or_default();
    notes.push(|| match model_type {
        "deepseek_v32" => format!(
            "config class: transformers' DeepseekV3Config, registered by vLLM for model_type deepseek_v32 ({})",
            at(&source::MLA_MODEL_CONFIG_V32_CLASS, release)
        ),
        "kimi_k2" => format!(
            "config class: transformers' DeepseekV3Config, registered by vLLM for model_type kimi_k2 ({})",
            at(&source::MLA_MODEL_CONFIG_KIMI_CLASS, release)
        ),
        _ => format!("config class: transformers' {} (transformers 5.16.1)", class.name()),
    });
    let n = f.required("num_hidden_layers", MAX_LAYERS)?;
    let heads = f.required("num_attention_heads", MAX_HEADS)?;
    let hidden_default = match class {
        Class::V2 => 4096,
        Class::V3 => 7168,
        Class::Glm => 6144,
    };
    let hidden = match f.get("hidden_size") {
        Field::Absent => hidden_default,
        Field::Null => {
            return cannot(
                f.file,
                format!(
                    "{} = null (transformers' {} declares it an int and refuses None)",
                    f.path("hidden_size"),
                    class.name()
                ),
            )
        }
        Field::Set(_) => f.int("hidden_size", MAX_HIDDEN_SIZE)?.unwrap_or(hidden_default),
    };
    if class == Class::V2 && hidden % heads != 0 {
        return err(format!(
            "{}: transformers' DeepseekV2Config.validate_architecture raises ValueError: The hidden size ({hidden}) is \
             not a multiple of the number of attention heads ({heads}).",
            f.file
        ));
    }
    let kv_default = match class {
        Class::V2 => None,
        Class::V3 => Some(128),
        Class::Glm => Some(64),
    };
    let num_key_value_heads = match f.get("num_key_value_heads") {
        Field::Absent => kv_default.unwrap_or(heads),
        Field::Null if class != Class::Glm => heads,
        Field::Null => {
            return cannot(
                f.file,
                format!(
                    "{} = null (transformers' GlmMoeDsaConfig declares it an int and refuses None)",
                    f.path("num_key_value_heads")
                ),
            )
        }
        Field::Set(_) => f.int("num_key_value_heads", MAX_HEADS)?.unwrap_or(heads),
    };
    let mut raw = f.map.clone();
    for field in declared(class) {
        let value = match f.get(field.key) {
            Field::Absent => field.default.map_or(Value::Null, Value::from),
            Field::Null if field.nullable => Value::Null,
            Field::Null => {
                return cannot(
                    f.file,
                    format!(
                        "{} = null (transformers' {} declares {} an int and refuses None: \
                         StrictDataclassFieldValidationError)",
                        f.path(field.key),
                        class.name(),
                        field.key
                    ),
                )
            }
            Field::Set(v) => Value::from(int_value(f, class, field.key, v, MAX_HEAD_DIM.max(MAX_LAYERS))?),
        };
        raw.insert(field.key.to_string(), value);
    }
    if class == Class::V3 {
        // num_mtp_layers (default 1) is an alias of num_nextn_predict_layers: config.json's own key wins.
        let mtp = match (f.get("num_nextn_predict_layers"), f.get("num_mtp_layers")) {
            (Field::Set(v), _) | (Field::Absent, Field::Set(v)) => {
                Value::from(int_value(f, class, "num_nextn_predict_layers", v, MAX_LAYERS)?)
            }
            (Field::Absent, Field::Absent) => Value::from(1),
            _ => {
                return cannot(
                    f.file,
                    format!(
                        "{} = null (transformers' DeepseekV3Config declares num_mtp_layers an int and refuses None)",
                        f.path("num_nextn_predict_layers")
                    ),
                )
            }
        };
        raw.insert("num_nextn_predict_layers".into(), mtp);
    }
    let qk_rope = raw.get("qk_rope_head_dim").and_then(Value::as_u64).map(|v| v as u32);
    notes.push(|| {
        format!(
            "{}: head_dim = qk_rope_head_dim = {} (not the attention head size), num_key_value_heads = \
         {num_key_value_heads} (not read by the MLA layers)",
            class.name(),
            qk_rope.map_or("None".to_string(), |h| h.to_string())
        )
    });
    Ok(TextConfig {
        num_hidden_layers: Some(n),
        num_attention_heads: Some(heads),
        num_key_value_heads: Some(num_key_value_heads),
        hidden_size: Some(hidden),
        head_dim: qk_rope,
        sliding_window: f.window(None)?,
        layer_types: None,
        layer_types_origin: String::new(),
        raw: raw.into(),
    })
}
