//! The config classes of the hybrid model files (`qwen3_next.py`, `nemotron_h.py`): what their constructors default
//! and derive, written into [`TextConfig::raw`] under the names config.json uses, where `model::hybrid` reads them.
//!
//! Which class vLLM builds, per release (`_CONFIG_REGISTRY`, `vllm/transformers_utils/config.py`):
//! - `qwen3_next`: vLLM's own `Qwen3NextConfig` (`vllm/transformers_utils/configs/qwen3_next.py`) from 0.24.0 to
//!   0.31.0 (`config.py:121@0.24.0, 147@0.31.0`); from 0.32.0 the registry has no `qwen3_next` and transformers'
//!   `Qwen3NextConfig` is built (`models/qwen3_next/configuration_qwen3_next.py`, transformers 5.16.1, the oldest
//!   that vLLM 0.32.0 / 0.33.0 accept).
//! - `nemotron_h`: transformers' `NemotronHConfig` in every release (`models/nemotron_h/configuration_nemotron_h.py`):
//!   no release registers `nemotron_h`; vLLM's own `configs/nemotron_h.py` (0.24.0-0.31.0) is imported by
//!   `nemotron_h.py` for type hints only. With `--trust-remote-code`, the checkpoint's `auto_map` makes transformers
//!   build the checkpoint's own `configuration_nemotron_h.py` instead, which qpath does not read.

use serde_json::{Map, Value};

use super::{cannot, Field, Fields};
use crate::model::config::{HfLayerType, TextConfig};
use crate::model::overrides::{MAX_HEADS, MAX_HEAD_DIM, MAX_HIDDEN_SIZE, MAX_LAYERS};
use crate::model::{err, show, ModelError, Provenance};
use crate::release::Release;

/// qpath's limits on the recurrent-state sizes (head counts, head / state dims, the conv kernel, the chunk size),
/// far above any released model, so that the state page arithmetic stays exact.
const MAX_STATE_HEADS: u32 = 4096;
const MAX_STATE_DIM: u32 = 4096;
const MAX_CONV_KERNEL: u32 = 64;
const MAX_CHUNK_SIZE: u32 = 1 << 20;

/// transformers 5.16.1's `remap_legacy_layer_types` (configuration_utils.py:92-101).
fn remap_legacy(t: &str) -> &str {
    match t {
        "conv" | "mamba" => "linear_attention",
        "attention" => "full_attention",
        other => other,
    }
}

/// transformers 5.16.1's `ALLOWED_ATTN_LAYER_TYPES` (configuration_utils.py:63-78).
const ALLOWED_ATTN_LAYER_TYPES: [&str; 14] = [
    "full_attention",
    "sliding_attention",
    "chunked_attention",
    "window_attention",
    "compressed_sparse_attention",
    "heavily_compressed_attention",
    "minimax_m3_sparse",
    "conv",
    "moe",
    "hybrid",
    "hybrid_sliding",
    "deepseek_sparse_attention",
    "qwen_sparse_attention",
    "linear_attention",
];

impl Fields<'_> {
    /// A field the config class declares as an int with a default: absent → `default`; null → `on_null` (the class's
    /// handling of None, or an error naming the field); else a positive integer up to `max`.
    fn declared(
        &self,
        key: &str,
        max: u32,
        default: u32,
        on_null: Result<Option<u32>, String>,
    ) -> Result<Option<u32>, ModelError> {
        match self.get(key) {
            Field::Absent => Ok(Some(default)),
            Field::Null => on_null.or_else(|why| cannot(self.file, format!("{} = null ({why})", self.path(key)))),
            Field::Set(_) => self.int(key, max),
        }
    }

    /// A non-null `sliding_window` on a hybrid config: vLLM would window the attention layers by
    /// `cache_config.sliding_window`, whose rule qpath restates for full / sliding `layer_types` only.
    fn no_window(&self, class: &str) -> Result<(), ModelError> {
        match self.get("sliding_window") {
            Field::Absent | Field::Null => Ok(()),
            Field::Set(v) => cannot(
                self.file,
                format!(
                    "{} = {} on a {class} config (vLLM's cache_config.sliding_window then depends on the distinct \
                     layer_types, which qpath restates for full and sliding layers only)",
                    self.path("sliding_window"),
                    show(v)
                ),
            ),
        }
    }
}

/// The None a class keeps for a null field, or the error transformers' `@strict` dataclass raises.
fn strict_null(class: &str, key: &str) -> Result<Option<u32>, String> {
    Err(format!(
        "transformers' {class} declares {key} an int and refuses None (StrictDataclassFieldValidationError)"
    ))
}

/// `Qwen3NextConfig`: vLLM's (0.24.0-0.31.0, configs/qwen3_next.py:186-262@0.24.0) or transformers' (0.32.0+,
/// configuration_qwen3_next.py:93-140 in 5.16.1). Both default `hidden_size` 2048, `num_key_value_heads` 2,
/// `head_dim` 256, `linear_conv_kernel_dim` 4, `linear_key_head_dim` / `linear_value_head_dim` 128,
/// `linear_num_key_heads` 16, `linear_num_value_heads` 32. `layer_types` when given: legacy names remapped
/// (`mamba`/`conv` → `linear_attention`, `attention` → `full_attention`: vLLM's class in `validate_layer_type`,
/// configuration_utils.py:534-539, as custom code; transformers' in `__post_init__`, :138), every entry one of
/// `ALLOWED_ATTN_LAYER_TYPES` and one per layer, else `ValueError` (configuration_utils.py:540-546). Without
/// `layer_types` the list is built per release by `model::hybrid` (vLLM's class: `(i + 1) % 4`, configs/qwen3_next.py:250-254;
/// transformers': `(i + 1) % full_attention_interval`, default 4, configuration_qwen3_next.py:131-136).
/// `qwen3_next.py` then builds only `linear_attention` and `full_attention` layers (`ValueError("Invalid layer_type
/// …")`, qwen3_next.py:414@0.24.0, 518@0.33.0).
pub(super) fn qwen3_next(release: Release, f: &Fields, notes: &mut Provenance) -> Result<TextConfig, ModelError> {
    let vllm_class = release < Release::V0_32_0;
    let class = if vllm_class {
        "vLLM's Qwen3NextConfig"
    } else {
        "transformers' Qwen3NextConfig"
    };
    notes.push(|| {
        format!(
            "config class: {class} ({})",
            if vllm_class {
                "vllm/transformers_utils/configs/qwen3_next.py, registered for qwen3_next until 0.31.0"
            } else {
                "transformers 5.16.1 models/qwen3_next/configuration_qwen3_next.py; vLLM registers none from 0.32.0"
            }
        )
    });
    let n = f.required("num_hidden_layers", MAX_LAYERS)?;
    let heads = f.required("num_attention_heads", MAX_HEADS)?;
    // vLLM's class keeps a None; qwen3_next.py then uses it as a number (all but head_dim, which it derives).
    let null = |key: &str| -> Result<Option<u32>, String> {
        if vllm_class {
            Err(format!("{class} keeps None and qwen3_next.py then uses it as a number"))
        } else {
            strict_null(class, key)
        }
    };
    let hidden = f.declared("hidden_size", MAX_HIDDEN_SIZE, 2048, null("hidden_size"))?;
    let kv = f.declared("num_key_value_heads", MAX_HEADS, 2, null("num_key_value_heads"))?;
    // `config.head_dim or hidden_size // num_heads` (qwen3_next.py:237@0.24.0, 308@0.33.0): None derives it.
    let head_dim = f.declared(
        "head_dim",
        MAX_HEAD_DIM,
        256,
        if vllm_class {
            Ok(None)
        } else {
            strict_null(class, "head_dim")
        },
    )?;
    f.no_window("Qwen3Next")?;
    let mut raw = f.map.clone();
    gdn_state_fields(f, &null, &mut raw)?;
    if !vllm_class {
        qwen3_next_full_attention_interval(f)?;
    }
    let types = qwen3_next_layer_types(f, n, class, &mut raw)?;
    Ok(TextConfig {
        num_hidden_layers: Some(n),
        num_attention_heads: Some(heads),
        num_key_value_heads: kv,
        hidden_size: hidden,
        head_dim,
        sliding_window: None,
        layer_types: types,
        layer_types_origin: format!("{}layer_types of the config file", f.prefix),
        raw: raw.into(),
    })
}

/// The gated-delta-net state sizes the Qwen3-Next and Qwen3.5 text configs both declare, with the same defaults
/// (`linear_num_key_heads` 16, `linear_num_value_heads` 32, `linear_key_head_dim` / `linear_value_head_dim` 128,
/// `linear_conv_kernel_dim` 4), written into `raw`; `null` is the class's handling of None.
fn gdn_state_fields(
    f: &Fields,
    null: &dyn Fn(&str) -> Result<Option<u32>, String>,
    raw: &mut Map<String, Value>,
) -> Result<(), ModelError> {
    for (key, max, default) in [
        ("linear_num_key_heads", MAX_STATE_HEADS, 16),
        ("linear_num_value_heads", MAX_STATE_HEADS, 32),
        ("linear_key_head_dim", MAX_STATE_DIM, 128),
        ("linear_value_head_dim", MAX_STATE_DIM, 128),
        ("linear_conv_kernel_dim", MAX_CONV_KERNEL, 4),
    ] {
        let v = f.declared(key, max, default, null(key))?;
        raw.insert(key.to_string(), v.map_or(Value::Null, Value::from));
    }
    Ok(())
}

/// transformers' `Qwen3NextConfig.__init__`: `full_attention_interval`, a positive integer (`(i + 1) % k`).
fn qwen3_next_full_attention_interval(f: &Fields) -> Result<(), ModelError> {
    match f.get("full_attention_interval") {
        Field::Absent => {}
        Field::Set(v) if v.as_u64().is_some_and(|k| (1..=u64::from(MAX_LAYERS)).contains(&k)) => {}
        Field::Set(v) if v.as_u64() == Some(0) => {
            return err(format!(
                "{}: {} = 0: transformers' Qwen3NextConfig computes (i + 1) % full_attention_interval and raises \
                 ZeroDivisionError",
                f.file,
                f.path("full_attention_interval")
            ))
        }
        Field::Null | Field::Set(_) => {
            return cannot(
                f.file,
                format!(
                    "{} = {} (transformers' Qwen3NextConfig computes (i + 1) % full_attention_interval; qpath reads a \
                     positive integer)",
                    f.path("full_attention_interval"),
                    show(f.map.get("full_attention_interval").unwrap_or(&Value::Null))
                ),
            )
        }
    }
    Ok(())
}

/// The given `layer_types`: `validate_layer_type`, then the layers `qwen3_next.py` builds; written back into `raw`.
fn qwen3_next_layer_types(
    f: &Fields,
    n: u32,
    class: &str,
    raw: &mut Map<String, Value>,
) -> Result<Option<Vec<HfLayerType>>, ModelError> {
    layer_types_of(f, (n, class), raw, ("qwen3_next.py", "qwen3_next.py:414@0.24.0, 518@0.33.0"))
}

/// [`qwen3_next_layer_types`] for the model file `raise_at` names.
fn layer_types_of(
    f: &Fields,
    (n, class): (u32, &str),
    raw: &mut Map<String, Value>,
    raise_at: (&str, &str),
) -> Result<Option<Vec<HfLayerType>>, ModelError> {
    match f.get("layer_types") {
        Field::Absent | Field::Null => {
            raw.remove("layer_types");
            Ok(None)
        }
        Field::Set(Value::Array(items)) => {
            let names = qwen3_next_validate_layer_type(f, items, n, class)?;
            let kinds = qwen3_next_layer_kinds(f, &names, raise_at)?;
            let names = names.into_iter().map(Value::from).collect();
            raw.insert("layer_types".into(), Value::Array(names));
            Ok(Some(kinds))
        }
        Field::Set(v) => err(format!(
            "{}: {} = {}: must be a list of strings",
            f.file,
            f.path("layer_types"),
            show(v)
        )),
    }
}

/// `validate_layer_type` (configuration_utils.py:534-546): legacy names remapped, each one allowed, one per layer.
fn qwen3_next_validate_layer_type<'a>(f: &Fields, items: &'a [Value], n: u32, class: &str) -> Result<Vec<&'a str>, ModelError> {
    let mut names = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some(given) = item.as_str() else {
            return err(format!(
                "{}: {}[{i}] = {}: must be a string",
                f.file,
                f.path("layer_types"),
                show(item)
            ));
        };
        let t = remap_legacy(given);
        if !ALLOWED_ATTN_LAYER_TYPES.contains(&t) {
            return err(format!(
                "{}: {}[{i}] = \"{given}\": not a layer type transformers accepts; {class}'s \
                 validate_layer_type raises ValueError (configuration_utils.py:540-541, transformers 5.16.1)",
                f.file,
                f.path("layer_types")
            ));
        }
        names.push(t);
    }
    if items.len() != n as usize {
        return err(format!(
            "{}: {} has {} entries but num_hidden_layers is {n}; {class}'s validate_layer_type raises \
             ValueError (configuration_utils.py:542-546, transformers 5.16.1)",
            f.file,
            f.path("layer_types"),
            items.len()
        ));
    }
    Ok(names)
}

/// `qwen3_next.py`'s (and `qwen3_5.py`'s) decoder layers: only `linear_attention` and `full_attention` are built;
/// `raise_at` names the file and lines of the `ValueError`.
fn qwen3_next_layer_kinds(f: &Fields, names: &[&str], raise_at: (&str, &str)) -> Result<Vec<HfLayerType>, ModelError> {
    let mut kinds = Vec::with_capacity(names.len());
    for (i, t) in names.iter().enumerate() {
        kinds.push(match *t {
            "linear_attention" => HfLayerType::Linear,
            "full_attention" => HfLayerType::Full,
            _ => {
                return err(format!(
                    "{}: {}[{i}] = \"{t}\": vLLM's vllm/model_executor/models/{} builds only \
                     \"linear_attention\" and \"full_attention\" layers and raises ValueError(\"Invalid \
                     layer_type {t}\") ({})",
                    f.file,
                    f.path("layer_types"),
                    raise_at.0,
                    raise_at.1
                ))
            }
        });
    }
    Ok(kinds)
}

/// transformers' `GraniteMoeHybridConfig` (models/granitemoehybrid/configuration_granitemoehybrid.py, the same
/// fields from 5.5.3 to 5.16.1): `layers_block_type` is stored as `layer_types` (attribute_map); `hidden_size` 4096,
/// `num_attention_heads` 32, `num_key_value_heads` None → the heads; `mamba_n_heads` 128, `mamba_n_groups` 1,
/// `mamba_d_state` 256, `mamba_d_conv` 4, `mamba_expand` 2, `mamba_chunk_size` 256, `mamba_d_head` "auto" →
/// `mamba_expand * hidden_size // mamba_n_heads`, and `validate_architecture` requires `mamba_d_head * mamba_n_heads ==
/// mamba_expand * hidden_size`. `layer_types` None → all Mamba; from transformers 5.13 the names are
/// `linear_attention` / `full_attention` and given legacy names (`mamba`, `attention`) are remapped. qpath reads the
/// config with the oldest transformers each release accepts (its METADATA): 5.5.3 / 5.10.4 for 0.24.0-0.31.0 (legacy
/// names kept), 5.16.1 for 0.32.0+ (remapped).
pub(super) fn granite(release: Release, f: &Fields, notes: &mut Provenance) -> Result<TextConfig, ModelError> {
    let new_names = release >= Release::V0_32_0;
    notes.push(|| {
        format!(
            "config class: transformers' GraniteMoeHybridConfig ({}; layer names {})",
            if new_names {
                "transformers 5.16.1"
            } else {
                "transformers 5.5.3 / 5.10.4"
            },
            if new_names {
                "remapped to linear_attention / full_attention"
            } else {
                "kept as mamba / attention"
            }
        )
    });
    let n = f.required("num_hidden_layers", MAX_LAYERS)?;
    let heads = f.required("num_attention_heads", MAX_HEADS)?;
    let strict = |key: &str| strict_null("GraniteMoeHybridConfig", key);
    let hidden = f
        .declared("hidden_size", MAX_HIDDEN_SIZE, 4096, strict("hidden_size"))?
        .unwrap_or(4096);
    let kv = match f.get("num_key_value_heads") {
        Field::Absent | Field::Null => heads,
        Field::Set(_) => f.int("num_key_value_heads", MAX_HEADS)?.unwrap_or(heads),
    };
    f.no_window("GraniteMoeHybrid")?;
    let mut raw = f.map.clone();
    let mut ints = std::collections::HashMap::new();
    for (key, max, default) in [
        ("mamba_n_heads", MAX_STATE_HEADS, 128),
        ("mamba_n_groups", MAX_STATE_HEADS, 1),
        ("mamba_d_state", MAX_STATE_DIM, 256),
        ("mamba_d_conv", MAX_CONV_KERNEL, 4),
        ("mamba_expand", MAX_STATE_HEADS, 2),
        ("mamba_chunk_size", MAX_CHUNK_SIZE, 256),
    ] {
        let v = f.declared(key, max, default, strict(key))?.unwrap_or(default);
        ints.insert(key, v);
        raw.insert(key.to_string(), Value::from(v));
    }
    let intermediate = u64::from(ints["mamba_expand"]) * u64::from(hidden);
    let mamba_heads = u64::from(ints["mamba_n_heads"]);
    let d_head = match f.map.get("mamba_d_head") {
        None => intermediate / mamba_heads,
        Some(Value::String(a)) if a == "auto" => intermediate / mamba_heads,
        Some(v) if v.as_u64().is_some() => v.as_u64().unwrap_or(0),
        Some(_) => {
            return cannot(
                f.file,
                format!("{} (qpath reads \"auto\" or a positive integer)", f.path("mamba_d_head")),
            )
        }
    };
    if d_head * mamba_heads != intermediate {
        return err(format!(
            "{}: mamba_d_head * mamba_n_heads = {d_head} * {mamba_heads} is not mamba_expand * hidden_size = \
             {intermediate}: GraniteMoeHybridConfig's validate_architecture raises ValueError",
            f.file
        ));
    }
    raw.insert("mamba_d_head".into(), Value::from(d_head));
    let given = match (f.get("layer_types"), f.get("layers_block_type")) {
        (Field::Set(v), _) | (Field::Absent | Field::Null, Field::Set(v)) => Some(v),
        _ => None,
    };
    let names: Vec<Value> = match given {
        None => (0..n)
            .map(|_| Value::from(if new_names { "linear_attention" } else { "mamba" }))
            .collect(),
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let Some(t) = item.as_str() else {
                    return err(format!(
                        "{}: {}[{i}] = {}: must be a string",
                        f.file,
                        f.path("layer_types"),
                        show(item)
                    ));
                };
                out.push(Value::from(if new_names { remap_legacy(t) } else { t }));
            }
            out
        }
        Some(v) => {
            return err(format!(
                "{}: {} = {}: must be a list of strings",
                f.file,
                f.path("layer_types"),
                show(v)
            ))
        }
    };
    if names.len() != n as usize {
        notes.push(|| format!("layer_types has {} entries for {n} layers", names.len()));
    }
    raw.insert("layer_types".into(), Value::Array(names));
    Ok(TextConfig {
        num_hidden_layers: Some(n),
        num_attention_heads: Some(heads),
        num_key_value_heads: Some(kv),
        hidden_size: Some(hidden),
        head_dim: None,
        sliding_window: None,
        layer_types: None,
        layer_types_origin: format!("{}layer_types of the config file", f.prefix),
        raw: raw.into(),
    })
}

/// The Qwen3.5 text configs: vLLM's own `Qwen3_5TextConfig` / `Qwen3_5MoeTextConfig` (0.24.0-0.31.0, registered for
/// `qwen3_5` / `qwen3_5_moe` in `_CONFIG_REGISTRY`, transformers_utils/config.py:122-123@0.24.0; configs/qwen3_5.py:
/// 42-117, configs/qwen3_5_moe.py) or transformers' (0.32.0+, which register none: transformers 5.16.1
/// models/qwen3_5/configuration_qwen3_5.py:82-118, models/qwen3_5_moe/configuration_qwen3_5_moe.py:62-91). Same
/// defaults in both: dense `hidden_size` 4096, `num_key_value_heads` 4; MoE `hidden_size` 2048, `num_key_value_heads`
/// 2; both `num_hidden_layers` 32 / 40, `num_attention_heads` 16, `head_dim` 256, `linear_conv_kernel_dim` 4,
/// `linear_key_head_dim` / `linear_value_head_dim` 128, `linear_num_key_heads` 16, `linear_num_value_heads` 32.
/// `layer_types` when absent: `"linear_attention" if (i + 1) % full_attention_interval else "full_attention"`
/// (interval from the kwargs, default 4), then `validate_layer_type`. `mamba_ssm_dtype` and
/// `mtp_num_hidden_layers` are kept as the config file gives them (extra attributes both classes store).
pub(super) fn qwen3_5(release: Release, f: &Fields, moe: bool, notes: &mut Provenance) -> Result<TextConfig, ModelError> {
    let vllm_class = release < Release::V0_32_0;
    let name = if moe { "Qwen3_5MoeTextConfig" } else { "Qwen3_5TextConfig" };
    let class = format!("{} {name}", if vllm_class { "vLLM's" } else { "transformers'" });
    notes.push(|| {
        format!(
            "config class: {class} ({})",
            if vllm_class {
                "vllm/transformers_utils/configs/qwen3_5.py / qwen3_5_moe.py, registered until 0.31.0"
            } else {
                "transformers 5.16.1 models/qwen3_5*/configuration_qwen3_5*.py; vLLM registers none from 0.32.0"
            }
        )
    });
    let null = |key: &str| -> Result<Option<u32>, String> {
        if vllm_class {
            Err(format!("{class} keeps None and qwen3_5.py then uses it as a number"))
        } else {
            strict_null(&class, key)
        }
    };
    let (hidden_default, kv_default, layers_default) = if moe { (2048, 2, 40) } else { (4096, 4, 32) };
    let n = f
        .declared("num_hidden_layers", MAX_LAYERS, layers_default, null("num_hidden_layers"))?
        .unwrap_or(layers_default);
    let heads = f.declared("num_attention_heads", MAX_HEADS, 16, null("num_attention_heads"))?;
    let hidden = f.declared("hidden_size", MAX_HIDDEN_SIZE, hidden_default, null("hidden_size"))?;
    let kv = f.declared("num_key_value_heads", MAX_HEADS, kv_default, null("num_key_value_heads"))?;
    let head_dim = f.declared("head_dim", MAX_HEAD_DIM, 256, null("head_dim"))?;
    f.no_window("Qwen3.5")?;
    let mut raw = f.map.clone();
    gdn_state_fields(f, &null, &mut raw)?;
    match f.get("mamba_ssm_dtype") {
        Field::Absent | Field::Null | Field::Set(Value::String(_)) => {}
        Field::Set(v) => {
            return err(format!(
                "{}: {} = {}: must be a dtype name",
                f.file,
                f.path("mamba_ssm_dtype"),
                show(v)
            ))
        }
    }
    qwen3_next_full_attention_interval(f)?;
    let raise_at = ("qwen3_5.py", "qwen3_5.py:156@0.24.0, 168@0.33.0");
    let types = layer_types_of(f, (n, &class), &mut raw, raise_at)?;
    Ok(TextConfig {
        num_hidden_layers: Some(n),
        num_attention_heads: heads,
        num_key_value_heads: kv,
        hidden_size: hidden,
        head_dim,
        sliding_window: None,
        layer_types: types,
        layer_types_origin: format!("{}layer_types of the config file", f.prefix),
        raw: raw.into(),
    })
}

/// transformers 5.16.1's `NemotronHConfig` (configuration_nemotron_h.py): `hybrid_override_pattern` is popped and
/// turned into `layers_block_type` (M → linear_attention, E → moe, * → full_attention, - → mlp; another character
/// raises KeyError) unless `layers_block_type` is given (then used as given); with neither, the default
/// `["linear_attention", "moe", "full_attention", "mlp"]`; a given `layers_block_type` alone has its legacy names
/// remapped (:157-168). A `layer_types` key (attribute_map, :84) is set last, as given (configuration_utils.py:339-346).
/// `validate_layer_type` requires full_attention / linear_attention / moe / mlp (:199-209). `num_hidden_layers` is
/// `len(layers_block_type)`; config.json's value is ignored (:170-178, :230-245), and `hybrid_override_pattern` is
/// the list written back as a pattern (:247-267), which nemotron_h.py reads. Aliases: `mamba_n_groups` → `n_groups`,
/// `mamba_d_conv` → `conv_kernel`, `mamba_chunk_size` → `chunk_size` (:145-155). Defaults (:87-140):
/// `hidden_size` 4096, `num_key_value_heads` 8, `head_dim` 128, `ssm_state_size` 128, `mamba_num_heads` 128,
/// `mamba_head_dim` 64, `n_groups` 8, `conv_kernel` 4, `chunk_size` 128, `mamba_ssm_cache_dtype` "float32" (the
/// same as vLLM's fallback, so qpath leaves it unset when config.json does). Every declared int refuses None.
pub(super) fn nemotron_h(f: &Fields, notes: &mut Provenance) -> Result<TextConfig, ModelError> {
    notes.push(|| {
        "config class: transformers' NemotronHConfig (transformers 5.16.1 models/nemotron_h/configuration_nemotron_h.py; \
         no vLLM release registers one for nemotron_h; with --trust-remote-code the checkpoint's own \
         configuration_nemotron_h.py would be built instead, which qpath does not read)"
            .into()
    });
    let strict = |key: &str| strict_null(NEMOTRON_H_CLASS, key);
    let (mut list, how) = nemotron_h_block_types(f)?;
    let mut origin = how;
    if let Some(l) = nemotron_h_list_of(f, "layer_types", false)? {
        list = l;
        origin = "layer_types of the config file (NemotronHConfig's attribute_map sets it as layers_block_type, \
                  after its constructor)"
            .into();
    }
    let pattern = nemotron_h_pattern(f, &list, &origin)?;
    let n = list.len() as u32;
    if n == 0 || n > MAX_LAYERS {
        return err(format!("{}: {origin} has {n} layers; qpath reads 1 to {MAX_LAYERS}", f.file));
    }
    match f.int("num_hidden_layers", u32::MAX) {
        Ok(Some(given)) if given != n => notes.push(|| {
            format!(
                "num_hidden_layers = {given} is ignored: NemotronHConfig.num_hidden_layers is len(layers_block_type) = {n} \
             (transformers warns)"
            )
        }),
        _ => {}
    }
    let heads = f.required("num_attention_heads", MAX_HEADS)?;
    let hidden = f.declared("hidden_size", MAX_HIDDEN_SIZE, 4096, strict("hidden_size"))?;
    let kv = f.declared("num_key_value_heads", MAX_HEADS, 8, strict("num_key_value_heads"))?;
    let head_dim = f.declared("head_dim", MAX_HEAD_DIM, 128, strict("head_dim"))?;
    f.no_window("NemotronH")?;
    let mut raw: Map<String, Value> = f.map.clone();
    nemotron_h_mamba_fields(f, &mut raw, notes)?;
    raw.remove("layer_types");
    raw.remove("layers_block_type");
    raw.insert("hybrid_override_pattern".into(), Value::from(pattern));
    Ok(TextConfig {
        num_hidden_layers: Some(n),
        num_attention_heads: Some(heads),
        num_key_value_heads: kv,
        hidden_size: hidden,
        head_dim,
        sliding_window: None,
        layer_types: None,
        layer_types_origin: origin,
        raw: raw.into(),
    })
}

/// The class name in `NemotronHConfig`'s errors.
const NEMOTRON_H_CLASS: &str = "NemotronHConfig";

/// A list-of-strings field of `NemotronHConfig` (`layers_block_type`, `layer_types`), legacy names remapped if asked.
fn nemotron_h_list_of(f: &Fields, key: &str, remap: bool) -> Result<Option<Vec<String>>, ModelError> {
    match f.get(key) {
        Field::Absent => Ok(None),
        Field::Set(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item.as_str() {
                Some(s) => Ok(if remap { remap_legacy(s) } else { s }.to_string()),
                None => err(format!("{}: {}[{i}] = {}: must be a string", f.file, f.path(key), show(item))),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Field::Null if key == "layer_types" => Ok(None),
        Field::Null | Field::Set(_) => err(format!(
            "{}: {} = {}: must be a list of strings",
            f.file,
            f.path(key),
            show(f.map.get(key).unwrap_or(&Value::Null))
        )),
    }
}

/// `NemotronHConfig.__init__` (:157-168): `layers_block_type`, from `hybrid_override_pattern` unless given, and its
/// origin.
fn nemotron_h_block_types(f: &Fields) -> Result<(Vec<String>, String), ModelError> {
    let block_type = nemotron_h_list_of(f, "layers_block_type", false)?;
    Ok(match (f.get("hybrid_override_pattern"), block_type) {
        (Field::Absent, Some(l)) => (
            l.iter().map(|s| remap_legacy(s).to_string()).collect(),
            "layers_block_type of the config file".to_string(),
        ),
        (Field::Absent, None) => (
            ["linear_attention", "moe", "full_attention", "mlp"]
                .map(String::from)
                .to_vec(),
            "NemotronHConfig's default layers_block_type (neither hybrid_override_pattern nor layers_block_type given)"
                .to_string(),
        ),
        (_, Some(l)) => (
            l,
            "layers_block_type of the config file (NemotronHConfig pops hybrid_override_pattern unread when \
             layers_block_type is given)"
                .to_string(),
        ),
        (Field::Set(Value::String(p)), None) => (
            nemotron_h_pattern_to_list(f, p)?,
            "hybrid_override_pattern of the config file".to_string(),
        ),
        (_, None) => {
            return cannot(
                f.file,
                format!(
                    "{} = {} (NemotronHConfig reads a pattern string)",
                    f.path("hybrid_override_pattern"),
                    show(f.map.get("hybrid_override_pattern").unwrap_or(&Value::Null))
                ),
            )
        }
    })
}

/// `NemotronHConfig._pattern_to_list`: M, E, * and - to layer types.
fn nemotron_h_pattern_to_list(f: &Fields, p: &str) -> Result<Vec<String>, ModelError> {
    let mut l = Vec::with_capacity(p.len());
    for (i, c) in p.chars().enumerate() {
        l.push(
            match c {
                'M' => "linear_attention",
                'E' => "moe",
                '*' => "full_attention",
                '-' => "mlp",
                other => {
                    return err(format!(
                        "{}: {}[{i}] = {other:?}: NemotronHConfig._pattern_to_list knows M, E, * and - only \
                         and raises KeyError",
                        f.file,
                        f.path("hybrid_override_pattern")
                    ))
                }
            }
            .to_string(),
        );
    }
    Ok(l)
}

/// `NemotronHConfig.validate_layer_type` (:199-209) and the list written back as `hybrid_override_pattern`
/// (:247-267).
fn nemotron_h_pattern(f: &Fields, list: &[String], origin: &str) -> Result<String, ModelError> {
    let mut pattern = String::with_capacity(list.len());
    for (i, t) in list.iter().enumerate() {
        pattern.push(match t.as_str() {
            "linear_attention" => 'M',
            "moe" => 'E',
            "full_attention" => '*',
            "mlp" => '-',
            _ => {
                return err(format!(
                    "{}: layer {i} is \"{t}\" ({origin}): NemotronHConfig.validate_layer_type accepts full_attention, \
                     linear_attention, moe and mlp only and raises ValueError",
                    f.file
                ))
            }
        });
    }
    Ok(pattern)
}

/// `NemotronHConfig`'s mamba fields (:87-155): defaults and aliases into `raw`, and `mamba_ssm_cache_dtype`.
fn nemotron_h_mamba_fields(f: &Fields, raw: &mut Map<String, Value>, notes: &mut Provenance) -> Result<(), ModelError> {
    for (key, alias, max, default) in [
        ("mamba_num_heads", None, MAX_STATE_HEADS, 128),
        ("mamba_head_dim", None, MAX_STATE_DIM, 64),
        ("ssm_state_size", None, MAX_STATE_DIM, 128),
        ("n_groups", Some("mamba_n_groups"), MAX_STATE_HEADS, 8),
        ("conv_kernel", Some("mamba_d_conv"), MAX_CONV_KERNEL, 4),
        ("chunk_size", Some("mamba_chunk_size"), MAX_CHUNK_SIZE, 128),
    ] {
        let from = match alias {
            Some(a) if f.map.contains_key(a) => a,
            _ => key,
        };
        let v = f.declared(from, max, default, strict_null(NEMOTRON_H_CLASS, key))?;
        if let Some(a) = alias {
            raw.remove(a);
        }
        raw.insert(key.to_string(), v.map_or(Value::Null, Value::from));
    }
    if let Some(v) = f.map.get("mamba_num_groups") {
        notes.push(|| {
            format!(
                "mamba_num_groups = {} is not a NemotronHConfig field (n_groups, or its alias mamba_n_groups, is): \
             n_groups = {}",
                show(v),
                raw.get("n_groups").map_or("?".into(), Value::to_string)
            )
        });
    }
    match f.get("mamba_ssm_cache_dtype") {
        Field::Absent => {}
        Field::Set(Value::String(s)) if ["auto", "float32", "float16", "bfloat16"].contains(&s.as_str()) => {}
        Field::Null | Field::Set(_) => {
            return cannot(
                f.file,
                format!(
                    "{} = {} (qpath reads auto, float32, float16, bfloat16)",
                    f.path("mamba_ssm_cache_dtype"),
                    show(f.map.get("mamba_ssm_cache_dtype").unwrap_or(&Value::Null))
                ),
            )
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::model::{resolve_model_from_config, HybridState, ModelSpec};
    use crate::release::Release;

    fn spec(release: Release, text: &str) -> Result<ModelSpec, String> {
        resolve_model_from_config(release, "m", "config.json", text, None).map_err(|e| e.message)
    }

    /// NemotronHConfig's aliases and defaults (configuration_nemotron_h.py:87-155): mamba_n_groups / mamba_d_conv /
    /// mamba_chunk_size win over the field; mamba_head_dim defaults to 64; num_hidden_layers is the pattern's length.
    #[test]
    fn nemotron_h_aliases_defaults_and_layer_count() {
        let text = r#"{"architectures": ["NemotronHForCausalLM"], "num_attention_heads": 8, "num_hidden_layers": 9,
            "hybrid_override_pattern": "M*-E", "mamba_n_groups": 2, "n_groups": 4, "mamba_d_conv": 3,
            "mamba_chunk_size": 256, "mamba_num_groups": 5}"#;
        let s = spec(Release::V0_33_0, text).unwrap();
        assert_eq!(s.decoder_layers, 4);
        assert_eq!(s.layers.len(), 2, "M and *; - and E have no token mixer");
        assert_eq!((s.layers[1].head_dim, s.layers[1].num_kv_heads), (128, 8));
        let h = s.hybrid.expect("hybrid");
        assert_eq!(
            h.state,
            HybridState::Mamba2 {
                num_heads: 128,
                head_dim: 64,
                n_groups: 2,
                state_size: 128,
                conv_kernel: 3,
                ssm_cache_dtype: None,
                chunk_size: Some(256),
            }
        );
        assert!(
            s.source.iter().any(|l| l.contains("num_hidden_layers = 9 is ignored")),
            "{:?}",
            s.source
        );
        assert!(s
            .source
            .iter()
            .any(|l| l.contains("mamba_num_groups = 5 is not a NemotronHConfig field")));
        // layers_block_type (legacy names remapped when it comes alone) and a later layer_types key.
        let lbt = r#"{"architectures": ["NemotronHForCausalLM"], "num_attention_heads": 8,
            "layers_block_type": ["mamba", "attention", "mlp"]}"#;
        assert_eq!(spec(Release::V0_24_0, lbt).unwrap().layers.len(), 2);
        let e = spec(
            Release::V0_24_0,
            &lbt.replace("\"mlp\"]", "\"mlp\"], \"layer_types\": [\"mamba\"]"),
        )
        .unwrap_err();
        assert!(e.contains("layer 0 is \"mamba\""), "{e}");
        // Declared ints refuse None.
        let e = spec(
            Release::V0_24_0,
            &lbt.replace("\"num_attention_heads\": 8", "\"num_attention_heads\": 8, \"head_dim\": null"),
        )
        .unwrap_err();
        assert!(e.contains("qpath cannot model this: head_dim = null"), "{e}");
    }

    /// Qwen3NextConfig per release: vLLM's class keeps a null head_dim (qwen3_next.py then derives it), transformers'
    /// refuses it; full_attention_interval 0 divides by zero in transformers' class only.
    #[test]
    fn qwen3_next_null_head_dim_and_interval_zero_by_release() {
        let base = r#"{"architectures": ["Qwen3NextForCausalLM"], "num_attention_heads": 16, "num_hidden_layers": 8,
            "hidden_size": 2048, "head_dim": null, "full_attention_interval": 0}"#;
        let s = spec(Release::V0_31_0, base).unwrap();
        assert_eq!(
            s.layers
                .iter()
                .filter(|l| l.kind.is_attention())
                .map(|l| l.head_dim)
                .collect::<Vec<_>>(),
            [128, 128]
        );
        let e = spec(Release::V0_32_0, base).unwrap_err();
        assert!(e.contains("head_dim = null"), "{e}");
        let e = spec(Release::V0_32_0, &base.replace("null", "256")).unwrap_err();
        assert!(e.contains("ZeroDivisionError"), "{e}");
    }
}
