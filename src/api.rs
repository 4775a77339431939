//! qpath's JavaScript API, exported by wasm-bindgen (on the trunk-built page: `window.wasmBindings`). It only
//! converts: JS options → a [`Scenario`] built like the CLI builds it, and core values → plain JS objects (via
//! `serde_json` and `JSON.parse`, so `JSON.stringify(resolve(...))` is the CLI's `--format json` for the same scenario).
//! Every decision stays in `qpath-core`. No JS input makes these functions panic: bad options throw an `Error` whose
//! message names the option and the value. The TypeScript declarations are `static/qpath.d.ts`, embedded below.

use qpath_core::capability::ComputeCapability;
use qpath_core::gpu::GPUS;
use qpath_core::model::{self, AttentionKind, MODEL_PRESETS};
use qpath_core::options::{OptionError, OptionKey, ScenarioOptions};
use qpath_core::release::Release;
use qpath_core::resolve::{default_cubins, resolve as resolve_scenario, Scenario};
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_DECLARATIONS: &str = include_str!("../static/qpath.d.ts");

#[wasm_bindgen]
extern "C" {
    /// `Object.keys`, catching what a Proxy's trap throws.
    #[wasm_bindgen(js_namespace = Object, js_name = keys, catch)]
    fn object_keys(object: &JsValue) -> Result<Vec<JsValue>, JsValue>;
}

/// Resolves one scenario: `commandLine` is `[ENV=VAL ...] vllm serve MODEL [FLAGS]`; `options` (optional) is
/// `{gpu?, vllm?, cuda?, trtllmCubins?, flashinfer?, computeCapability?, modelConfig?}` with the CLI's defaults
/// (`modelConfig`: the model's config.json, a string or an object). Returns the Report as a plain object.
#[wasm_bindgen(skip_typescript)]
pub fn resolve(command_line: JsValue, options: JsValue) -> Result<JsValue, JsError> {
    let scenario = scenario(&command_line, &options).map_err(|m| JsError::new(&m))?;
    to_js(&resolve_scenario(&scenario))
}

/// The GPU table: `[{id, name, arch, compute_capability, sm, memory_gb, fp8, fp4, segment, year}]`.
#[wasm_bindgen(skip_typescript)]
pub fn gpus() -> Result<JsValue, JsError> {
    #[derive(Serialize)]
    struct GpuInfo {
        id: &'static str,
        name: &'static str,
        arch: &'static str,
        compute_capability: ComputeCapability,
        sm: &'static str,
        memory_gb: u32,
        fp8: bool,
        fp4: bool,
        segment: &'static str,
        year: u16,
    }
    let rows: Vec<GpuInfo> = GPUS
        .iter()
        .map(|g| GpuInfo {
            id: g.id,
            name: g.name,
            arch: g.arch,
            compute_capability: g.capability,
            sm: g.sm,
            memory_gb: g.memory_gb,
            fp8: g.fp8,
            fp4: g.fp4,
            segment: g.segment,
            year: g.year,
        })
        .collect();
    to_js(&rows)
}

/// The vLLM releases, oldest first: `[{vllm, flashinfer, cubinsByDefault}]`.
#[wasm_bindgen(skip_typescript)]
pub fn releases() -> Result<JsValue, JsError> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct ReleaseInfo {
        vllm: &'static str,
        flashinfer: &'static str,
        cubins_by_default: bool,
    }
    let rows: Vec<ReleaseInfo> = Release::ALL
        .iter()
        .map(|&r| ReleaseInfo {
            vllm: r.name(),
            flashinfer: r.flashinfer(),
            cubins_by_default: default_cubins(r),
        })
        .collect();
    to_js(&rows)
}

/// The model presets as the newest release lays them out: `[{id, architecture, dtype, layers, sliding_window_layers,
/// sliding_window, num_q_heads, num_kv_heads, head_dim, has_sinks}]`.
#[wasm_bindgen(skip_typescript)]
pub fn presets() -> Result<JsValue, JsError> {
    #[derive(Serialize)]
    struct PresetInfo {
        id: &'static str,
        architecture: &'static str,
        dtype: qpath_core::dtype::TorchDtype,
        layers: usize,
        sliding_window_layers: usize,
        sliding_window: Option<u32>,
        num_q_heads: u32,
        num_kv_heads: u32,
        head_dim: u32,
        has_sinks: bool,
    }
    let mut rows = Vec::with_capacity(MODEL_PRESETS.len());
    for p in MODEL_PRESETS {
        let spec = model::resolve_model(p.id, None).map_err(|e| JsError::new(&format!("preset `{}`: {e}", p.id)))?;
        let first = spec.layers.first();
        let sliding = spec.layers.iter().filter(|l| l.kind == AttentionKind::SlidingWindow);
        rows.push(PresetInfo {
            id: p.id,
            architecture: p.architecture,
            dtype: spec.config_dtype,
            layers: spec.layers.len(),
            sliding_window_layers: sliding.clone().count(),
            sliding_window: sliding.filter_map(|l| l.sliding_window).next(),
            num_q_heads: first.map_or(0, |l| l.num_q_heads),
            num_kv_heads: first.map_or(0, |l| l.num_kv_heads),
            head_dim: first.map_or(0, |l| l.head_dim),
            has_sinks: spec.layers.iter().any(|l| l.has_sinks),
        });
    }
    to_js(&rows)
}

/// The version of this crate.
#[wasm_bindgen(skip_typescript)]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// A core value as a plain JS object: its JSON, parsed by the browser.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let json = serde_json::to_string(value).map_err(|e| JsError::new(&e.to_string()))?;
    js_sys::JSON::parse(&json).map_err(|_| JsError::new("qpath could not hand its JSON to JavaScript"))
}

/// The Scenario the CLI builds for the same command line and options: both read the options with the core's
/// [`ScenarioOptions`] (same rules, same defaults); only the key names and the messages' wording are the API's.
fn scenario(command_line: &JsValue, options: &JsValue) -> Result<Scenario, String> {
    let command_line = command_line
        .as_string()
        .ok_or_else(|| format!("commandLine must be a string, got {}", describe(command_line)))?;
    let model_config = read_model_config(options)?;
    let o = read_options(options)?;
    if let (Some(g), Some(cc)) = (o.gpu, o.compute_capability) {
        return Err(format!(
            "options gpu ({}) and computeCapability ({}) exclude each other: give one",
            quote(g.id),
            quote(&cc.to_string())
        ));
    }
    let mut s = o.scenario(command_line).map_err(|e| option_message(&e))?;
    s.model_config = model_config;
    Ok(s)
}

/// `options.modelConfig`: config.json as a string, or an object (turned back into JSON text); absent / null: none.
fn read_model_config(options: &JsValue) -> Result<Option<String>, String> {
    if !options.is_object() || js_sys::Array::is_array(options) {
        return Ok(None);
    }
    let value = js_sys::Reflect::get(options, &JsValue::from_str(MODEL_CONFIG))
        .map_err(|_| "option modelConfig: its value could not be read".to_string())?;
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    if let Some(text) = value.as_string() {
        return Ok(Some(text));
    }
    if value.is_object() && !js_sys::Array::is_array(&value) {
        return js_sys::JSON::stringify(&value)
            .ok()
            .and_then(|s| s.as_string())
            .map(Some)
            .ok_or_else(|| "option modelConfig: the object could not be turned into JSON".to_string());
    }
    Err(format!(
        "option modelConfig must be config.json as a string or an object, got {}",
        describe(&value)
    ))
}

/// The option key of a model's config.json (not a [`ScenarioOptions`] key: only the API and the CLI read files).
const MODEL_CONFIG: &str = "modelConfig";

/// An option error as the API says it: `option gpu: "h900" is not in qpath's GPU table (see gpus())`.
fn option_message(e: &OptionError) -> String {
    let hint = if e.key == OptionKey::Gpu { " (see gpus())" } else { "" };
    format!("option {}: {} {}{hint}", e.key.js_name(), quote(&e.value), e.reason)
}

/// Reads `{gpu?, vllm?, cuda?, trtllmCubins?, flashinfer?, computeCapability?}`; `undefined` / `null` (the whole object or a key)
/// mean "not given". Unknown keys and values of the wrong type are errors naming the key.
fn read_options(options: &JsValue) -> Result<ScenarioOptions, String> {
    let mut o = ScenarioOptions::default();
    if options.is_undefined() || options.is_null() {
        return Ok(o);
    }
    if !options.is_object() || js_sys::Array::is_array(options) {
        return Err(format!(
            "options must be an object like {{gpu: \"l4\", vllm: \"0.25.0\"}}, got {}",
            describe(options)
        ));
    }
    let keys = object_keys(options).map_err(|_| "options: its keys could not be read".to_string())?;
    for key in keys {
        let name = key.as_string().unwrap_or_default();
        if name == MODEL_CONFIG {
            continue;
        }
        let Some(option) = OptionKey::ALL.into_iter().find(|k| k.js_name() == name) else {
            let mut names: Vec<&str> = OptionKey::ALL.iter().map(|k| k.js_name()).collect();
            names.push(MODEL_CONFIG);
            return Err(format!(
                "unknown option {}; the options are {}",
                quote(&name),
                names.join(", ")
            ));
        };
        let value = js_sys::Reflect::get(options, &key).map_err(|_| format!("option {name}: its value could not be read"))?;
        if value.is_undefined() || value.is_null() {
            continue;
        }
        // trtllmCubins is a boolean; the others are strings.
        let text = if option == OptionKey::Cubins {
            let b = value
                .as_bool()
                .ok_or_else(|| format!("option trtllmCubins must be a boolean, got {}", describe(&value)))?;
            if b { "yes" } else { "no" }.to_string()
        } else {
            value
                .as_string()
                .ok_or_else(|| format!("option {name} must be a string, got {}", describe(&value)))?
        };
        o.set(option, &text).map_err(|e| option_message(&e))?;
    }
    Ok(o)
}

/// A string as JSON quotes it, cut to a readable length.
fn quote(s: &str) -> String {
    const MAX: usize = 80;
    match s.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", serde_json::Value::from(&s[..cut])),
        None => serde_json::Value::from(s).to_string(),
    }
}

/// A JS value for an error message: its type and (when JSON can show it) its value, e.g. `number 12.9`.
fn describe(v: &JsValue) -> String {
    if let Some(s) = v.as_string() {
        return format!("string {}", quote(&s));
    }
    let kind = if v.is_null() {
        "null".to_string()
    } else if js_sys::Array::is_array(v) {
        "array".to_string()
    } else {
        v.js_typeof().as_string().unwrap_or_default()
    };
    match js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string()) {
        Some(json) if kind != "null" => {
            let cut: String = json.chars().take(80).collect();
            let more = if cut.len() < json.len() { "…" } else { "" };
            format!("{kind} {cut}{more}")
        }
        _ => kind,
    }
}
