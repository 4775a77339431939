//! The config classes of `falcon_h1.py` and `jamba.py`: transformers' `FalconH1Config` and `JambaConfig` (no vLLM
//! release registers its own class for `falcon_h1` or `jamba` in `_CONFIG_REGISTRY`), what their constructors
//! default and derive, written into [`TextConfig::raw`] under the names config.json uses, where `model::hybrid`
//! reads them.
//!
//! qpath restates transformers 5.16.1's classes (`models/falcon_h1/configuration_falcon_h1.py`,
//! `models/jamba/configuration_jamba.py`) for every release; 5.5.3 (the oldest 0.24.0-0.31.0 accept) has the same
//! fields, defaults and derivations (its `FalconH1Config` adds `time_step_min` / `time_step_max`, its `JambaConfig`
//! lacks `use_mambapy` / `use_associative_scan` and builds `layer_types` with the legacy names; vLLM reads neither).

use serde_json::{Map, Value};

use super::{cannot, Field, Fields};
use crate::model::config::TextConfig;
use crate::model::overrides::{MAX_HEADS, MAX_HEAD_DIM, MAX_HIDDEN_SIZE, MAX_LAYERS};
use crate::model::{err, show, ModelError, Provenance};

/// qpath's limits on the state sizes (far above any released model; the page arithmetic stays exact).
const MAX_STATE: u32 = 1 << 16;
const MAX_CONV_KERNEL: u32 = 64;
const MAX_CHUNK_SIZE: u32 = 1 << 20;

/// An int field the class declares with a default: absent → `default`; null → `on_null` (`Ok(None)`: the class keeps
/// None, or the reason vLLM cannot use it); else a positive integer up to `max`.
fn declared(f: &Fields, key: &str, max: u32, default: u32, on_null: Result<(), &str>) -> Result<Option<u32>, ModelError> {
    match f.get(key) {
        Field::Absent => Ok(Some(default)),
        Field::Null => match on_null {
            Ok(()) => Ok(None),
            Err(why) => cannot(f.file, format!("{} = null ({why})", f.path(key))),
        },
        Field::Set(_) => f.int(key, max),
    }
}

/// A non-negative int field (an offset may be 0): absent → `default`.
fn offset(f: &Fields, key: &str, default: u64) -> Result<u64, ModelError> {
    match f.get(key) {
        Field::Absent => Ok(default),
        Field::Set(v) if v.as_u64().is_some_and(|n| n <= u64::from(MAX_LAYERS)) => Ok(v.as_u64().unwrap_or(default)),
        Field::Null | Field::Set(_) => err(format!(
            "{}: {} = {}: must be an integer from 0 to {MAX_LAYERS}",
            f.file,
            f.path(key),
            f.map.get(key).map_or("null".to_string(), show)
        )),
    }
}

/// A `sliding_window` other than null: neither class declares one, and neither model file passes a per-layer window,
/// so vLLM's `cache_config.sliding_window` would window every attention layer; qpath does not restate that here.
fn no_window(f: &Fields, class: &str) -> Result<(), ModelError> {
    match f.get("sliding_window") {
        Field::Absent | Field::Null => Ok(()),
        Field::Set(v) => cannot(
            f.file,
            format!(
                "{} = {} on a {class} config (the class declares no sliding window; vLLM would apply it to every \
                 attention layer through cache_config.sliding_window, which qpath does not restate for this model)",
                f.path("sliding_window"),
                show(v)
            ),
        ),
    }
}

/// A key the class exposes as a read-only property (`layers_block_type`; FalconH1Config's `layer_types` alias):
/// setting it from config.json is not restated.
fn no_property(f: &Fields, keys: &[&str], class: &str) -> Result<(), ModelError> {
    for key in keys {
        if let Field::Set(v) = f.get(key) {
            return cannot(
                f.file,
                format!(
                    "{} = {}: {class} derives it as a read-only property, and qpath does not restate a config file \
                     that sets it",
                    f.path(key),
                    show(v)
                ),
            );
        }
    }
    Ok(())
}

const STRICT: &str = "transformers' config declares it an int and vLLM's model file uses it as a number";

/// transformers' `FalconH1Config` (5.16.1 lines): `hidden_size` 4096 (:62), `num_key_value_heads` 8, None → the
/// heads (:66, :105-106), no `head_dim` field (a config.json `head_dim` stays an attribute, which falcon_h1.py reads,
/// `source::FALCON_H1_HEAD_DIM`), `mamba_d_ssm` 1024 (None: `mamba_expand * hidden_size`, :77), `mamba_n_heads` 128,
/// `mamba_d_head` "auto" → that intermediate size // `mamba_n_heads` (:109-111), `mamba_n_groups` 1, `mamba_d_state`
/// 256, `mamba_d_conv` 4, `mamba_expand` 2, `mamba_chunk_size` 256 (:78-84). `validate_architecture` (:122-130)
/// raises ValueError unless `mamba_n_heads` divides the intermediate size and `mamba_d_head * mamba_n_heads` equals
/// it. `layers_block_type` is a property, `["hybrid"] * num_hidden_layers` (:132-134), which falcon_h1.py does not
/// read (every layer is a `FalconH1ParallelHybrid`).
pub(super) fn falcon_h1(f: &Fields, notes: &mut Provenance) -> Result<TextConfig, ModelError> {
    notes.push(|| {
        "config class: transformers' FalconH1Config (models/falcon_h1/configuration_falcon_h1.py, the same fields \
         from 5.5.3 to 5.16.1; vLLM registers none for falcon_h1)"
            .to_string()
    });
    let n = f.required("num_hidden_layers", MAX_LAYERS)?;
    let heads = f.required("num_attention_heads", MAX_HEADS)?;
    let hidden = declared(f, "hidden_size", MAX_HIDDEN_SIZE, 4096, Err(STRICT))?.unwrap_or(4096);
    let kv = declared(f, "num_key_value_heads", MAX_HEADS, 8, Ok(()))?.unwrap_or(heads);
    let head_dim = match f.get("head_dim") {
        Field::Absent | Field::Null => None,
        Field::Set(_) => f.int("head_dim", MAX_HEAD_DIM)?,
    };
    no_window(f, "FalconH1Config")?;
    no_property(f, &["layer_types", "layers_block_type"], "FalconH1Config")?;
    let mut raw: Map<String, Value> = f.map.clone();
    let mut int = |key: &str, max: u32, default: u32| -> Result<u32, ModelError> {
        let v = declared(f, key, max, default, Err(STRICT))?.unwrap_or(default);
        raw.insert(key.to_string(), Value::from(v));
        Ok(v)
    };
    let n_heads = int("mamba_n_heads", MAX_STATE, 128)?;
    int("mamba_n_groups", MAX_STATE, 1)?;
    int("mamba_d_state", MAX_STATE, 256)?;
    int("mamba_d_conv", MAX_CONV_KERNEL, 4)?;
    let expand = int("mamba_expand", MAX_STATE, 2)?;
    int("mamba_chunk_size", MAX_CHUNK_SIZE, 256)?;
    let d_ssm = declared(f, "mamba_d_ssm", u32::MAX, 1024, Ok(()))?;
    let intermediate = match d_ssm {
        Some(d) => u64::from(d),
        None => u64::from(expand) * u64::from(hidden),
    };
    let what = if d_ssm.is_some() {
        "mamba_d_ssm"
    } else {
        "mamba_expand * hidden_size (mamba_d_ssm is null)"
    };
    let d_head = match f.map.get("mamba_d_head") {
        None => intermediate / u64::from(n_heads),
        Some(Value::String(a)) if a == "auto" => intermediate / u64::from(n_heads),
        Some(v) if v.as_u64().is_some_and(|d| d > 0) => v.as_u64().unwrap_or(0),
        Some(_) => {
            return cannot(
                f.file,
                format!("{} (qpath reads \"auto\" or a positive integer)", f.path("mamba_d_head")),
            )
        }
    };
    if intermediate % u64::from(n_heads) != 0 {
        return err(format!(
            "{}: the Mamba intermediate size {intermediate} ({what}) does not divide by mamba_n_heads {n_heads}: \
             FalconH1Config's validate_architecture raises ValueError(\"mamba_n_heads must divide mamba_expand * \
             hidden_size\")",
            f.file
        ));
    }
    if d_head * u64::from(n_heads) != intermediate {
        return err(format!(
            "{}: mamba_d_head * mamba_n_heads = {d_head} * {n_heads} is not the Mamba intermediate size \
             {intermediate} ({what}): FalconH1Config's validate_architecture raises ValueError(\"The dimensions for \
             the Mamba head state do not match the model intermediate_size\")",
            f.file
        ));
    }
    if d_head > u64::from(MAX_STATE) {
        return cannot(
            f.file,
            format!("mamba_d_head {d_head} is beyond qpath's limit of {MAX_STATE}"),
        );
    }
    raw.insert("mamba_d_head".into(), Value::from(d_head));
    raw.insert("mamba_d_ssm".into(), d_ssm.map_or(Value::Null, Value::from));
    Ok(TextConfig {
        num_hidden_layers: Some(n),
        num_attention_heads: Some(heads),
        num_key_value_heads: Some(kv),
        hidden_size: Some(hidden),
        head_dim,
        sliding_window: None,
        layer_types: None,
        layer_types_origin: format!("{}layer_types of the config file", f.prefix),
        raw: raw.into(),
    })
}

/// transformers' `JambaConfig` (5.16.1 lines): `hidden_size` 4096 (:61), `num_key_value_heads` 8 (:65; None → the
/// heads, :94-95), `attn_layer_period` 8, `attn_layer_offset` 4, `expert_layer_period` 2, `expert_layer_offset` 1
/// (:79-82), `mamba_d_state` 16, `mamba_d_conv` 4, `mamba_expand` 2 (:84-86); no `head_dim` and no chunk size.
/// `layers_block_type` is the property `"attention" if i % attn_layer_period == attn_layer_offset else "mamba"`
/// (:100-105, the same names in every transformers version), which jamba.py reads; `validate_architecture`
/// (:119-130) raises ValueError when an offset is not smaller than its period.
pub(super) fn jamba(f: &Fields, notes: &mut Provenance) -> Result<TextConfig, ModelError> {
    notes.push(|| {
        "config class: transformers' JambaConfig (models/jamba/configuration_jamba.py, the same fields from 5.5.3 to \
         5.16.1; vLLM registers none for jamba)"
            .to_string()
    });
    let n = f.required("num_hidden_layers", MAX_LAYERS)?;
    let heads = f.required("num_attention_heads", MAX_HEADS)?;
    let hidden = declared(f, "hidden_size", MAX_HIDDEN_SIZE, 4096, Err(STRICT))?.unwrap_or(4096);
    let kv = declared(f, "num_key_value_heads", MAX_HEADS, 8, Ok(()))?.unwrap_or(heads);
    no_window(f, "JambaConfig")?;
    no_property(f, &["layers_block_type", "layer_types"], "JambaConfig")?;
    let mut raw: Map<String, Value> = f.map.clone();
    let mut periods = Vec::new();
    for (what, (pk, pd), (ok, od)) in [
        ("attention", ("attn_layer_period", 8), ("attn_layer_offset", 4)),
        ("expert", ("expert_layer_period", 2), ("expert_layer_offset", 1)),
    ] {
        let period = declared(f, pk, MAX_LAYERS, pd, Err(STRICT))?.unwrap_or(pd);
        let off = offset(f, ok, od)?;
        if off >= u64::from(period) {
            return err(format!(
                "{}: JambaConfig's validate_architecture raises ValueError(\"{what} layer offset ({off}) must be \
                 smaller than {what} layer period ({period})\")",
                f.file
            ));
        }
        raw.insert(pk.into(), Value::from(period));
        raw.insert(ok.into(), Value::from(off));
        periods.push((period, off));
    }
    for (key, max, default) in [
        ("mamba_d_state", MAX_STATE, 16),
        ("mamba_d_conv", MAX_CONV_KERNEL, 4),
        ("mamba_expand", MAX_STATE, 2),
    ] {
        let v = declared(f, key, max, default, Err(STRICT))?.unwrap_or(default);
        raw.insert(key.into(), Value::from(v));
    }
    let (period, off) = periods[0];
    let types: Vec<Value> = (0..n)
        .map(|i| Value::from(if u64::from(i % period) == off { "attention" } else { "mamba" }))
        .collect();
    raw.insert("layers_block_type".into(), Value::Array(types));
    Ok(TextConfig {
        num_hidden_layers: Some(n),
        num_attention_heads: Some(heads),
        num_key_value_heads: Some(kv),
        hidden_size: Some(hidden),
        // jamba.py derives hidden_size // heads and never reads a head_dim.
        head_dim: None,
        sliding_window: None,
        layer_types: None,
        layer_types_origin: format!("{}layer_types of the config file", f.prefix),
        raw: raw.into(),
    })
}
