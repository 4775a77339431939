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

    /// `Array.isArray`, catching the TypeError a revoked Proxy throws (js_sys's does not catch: the exception would
    /// leave `resolve` mid-call).
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    fn array_is_array(value: &JsValue) -> Result<bool, JsValue>;
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
/// This reads the JS values ([`value_of`]); every decision on them is [`read_scenario`]'s, which the native tests fuzz.
fn scenario(command_line: &JsValue, options: &JsValue) -> Result<Scenario, String> {
    let command_line = value_of(command_line);
    if options.is_undefined() || options.is_null() {
        return read_scenario(command_line, Options::<NoEntries>::Unset);
    }
    let Ok(array) = array_is_array(options) else {
        return read_scenario(command_line, Options::<NoEntries>::KeysUnreadable);
    };
    if !options.is_object() || array {
        return read_scenario(command_line, Options::<NoEntries>::Other(value_of(options)));
    }
    let model_config = value_read(js_sys::Reflect::get(options, &JsValue::from_str(MODEL_CONFIG)));
    let Ok(keys) = object_keys(options) else {
        return read_scenario(command_line, Options::<NoEntries>::KeysUnreadable);
    };
    let entries = keys.into_iter().map(|key| {
        let name = key.as_string().unwrap_or_default();
        (name, move || value_read(js_sys::Reflect::get(options, &key)))
    });
    read_scenario(command_line, Options::Object { model_config, entries })
}

/// A JS value as the options reader needs to know it.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionValue {
    /// `undefined`: not given.
    Unset,
    /// `null`: not given either.
    Null,
    Bool(bool),
    Text(String),
    /// Any other value: its kind (`number`, `object`, `array`, `function`, `bigint`, `symbol`) and its JSON when
    /// `JSON.stringify` gives one.
    Other {
        kind: String,
        json: Option<String>,
    },
    /// Reading it threw (a getter, a Proxy's trap, a revoked Proxy).
    Unreadable,
}

/// The `options` argument as [`read_scenario`] sees it.
pub enum Options<E> {
    /// `undefined` or `null`: every default.
    Unset,
    /// Not an object (an array, a string, a number, …): an error.
    Other(OptionValue),
    /// `Object.keys` threw (a Proxy's `ownKeys` trap).
    KeysUnreadable,
    /// An object: its `modelConfig` and its own keys in order, each with a reader of its value (called only for a
    /// key the API knows, as the JS object's getters run only then).
    Object { model_config: OptionValue, entries: E },
}

/// The entries of an [`Options`] that has none.
pub type NoEntries = std::iter::Empty<(String, fn() -> OptionValue)>;

/// The value of a JS value.
fn value_of(v: &JsValue) -> OptionValue {
    if v.is_undefined() {
        return OptionValue::Unset;
    }
    if v.is_null() {
        return OptionValue::Null;
    }
    if let Some(b) = v.as_bool() {
        return OptionValue::Bool(b);
    }
    if let Some(s) = v.as_string() {
        return OptionValue::Text(s);
    }
    let Ok(array) = array_is_array(v) else {
        return OptionValue::Unreadable;
    };
    let kind = if array {
        "array".to_string()
    } else {
        v.js_typeof().as_string().unwrap_or_default()
    };
    let json = js_sys::JSON::stringify(v).ok().and_then(|s| s.as_string());
    OptionValue::Other { kind, json }
}

/// The value a `Reflect.get` read, or [`OptionValue::Unreadable`] when it threw.
fn value_read(read: Result<JsValue, JsValue>) -> OptionValue {
    read.map_or(OptionValue::Unreadable, |v| value_of(&v))
}

/// `resolve`'s arguments read into a Scenario, or the message the API throws (naming the argument or option).
pub fn read_scenario<E, F>(command_line: OptionValue, options: Options<E>) -> Result<Scenario, String>
where
    E: IntoIterator<Item = (String, F)>,
    F: FnOnce() -> OptionValue,
{
    let OptionValue::Text(command_line) = command_line else {
        return Err(format!("commandLine must be a string, got {}", describe(&command_line)));
    };
    let (model_config, entries) = match options {
        Options::Unset => return scenario_of(command_line, &ScenarioOptions::default(), None),
        Options::Other(v) => {
            return Err(format!(
                "options must be an object like {{gpu: \"l4\", vllm: \"0.25.0\"}}, got {}",
                describe(&v)
            ))
        }
        Options::KeysUnreadable => return Err("options: its keys could not be read".to_string()),
        Options::Object { model_config, entries } => (model_config, entries),
    };
    let model_config = read_model_config(model_config)?;
    let mut o = ScenarioOptions::default();
    for (name, value) in entries {
        read_option(&mut o, &name, value)?;
    }
    scenario_of(command_line, &o, model_config)
}

/// The scenario of read options (`gpu` and `computeCapability` exclude each other).
fn scenario_of(command_line: String, o: &ScenarioOptions, model_config: Option<String>) -> Result<Scenario, String> {
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

/// `options.modelConfig`: config.json as a string, or an object (its JSON text); absent / null: none.
fn read_model_config(value: OptionValue) -> Result<Option<String>, String> {
    match value {
        OptionValue::Unset | OptionValue::Null => Ok(None),
        OptionValue::Text(text) => Ok(Some(text)),
        OptionValue::Unreadable => Err("option modelConfig: its value could not be read".to_string()),
        OptionValue::Other { kind, json } if kind == "object" => json
            .map(Some)
            .ok_or_else(|| "option modelConfig: the object could not be turned into JSON".to_string()),
        v => Err(format!(
            "option modelConfig must be config.json as a string or an object, got {}",
            describe(&v)
        )),
    }
}

/// The option key of a model's config.json (not a [`ScenarioOptions`] key: only the API and the CLI read files).
const MODEL_CONFIG: &str = "modelConfig";

/// An option error as the API says it: `option gpu: "h900" is not in qpath's GPU table (see gpus())`.
fn option_message(e: &OptionError) -> String {
    let hint = if e.key == OptionKey::Gpu { " (see gpus())" } else { "" };
    format!("option {}: {} {}{hint}", e.key.js_name(), quote(&e.value), e.reason)
}

/// Reads one key of `{gpu?, vllm?, cuda?, trtllmCubins?, flashinfer?, computeCapability?}` into `o`;
/// `undefined` / `null` mean "not given" (`modelConfig` is read apart). Unknown keys and values of the wrong type are
/// errors naming the key.
fn read_option(o: &mut ScenarioOptions, name: &str, value: impl FnOnce() -> OptionValue) -> Result<(), String> {
    if name == MODEL_CONFIG {
        return Ok(());
    }
    let Some(option) = OptionKey::ALL.into_iter().find(|k| k.js_name() == name) else {
        let mut names: Vec<&str> = OptionKey::ALL.iter().map(|k| k.js_name()).collect();
        names.push(MODEL_CONFIG);
        return Err(format!(
            "unknown option {}; the options are {}",
            quote(name),
            names.join(", ")
        ));
    };
    // trtllmCubins is a boolean; the others are strings.
    let text = match (value(), option) {
        (OptionValue::Unset | OptionValue::Null, _) => return Ok(()),
        (OptionValue::Unreadable, _) => return Err(format!("option {name}: its value could not be read")),
        (OptionValue::Bool(b), OptionKey::Cubins) => if b { "yes" } else { "no" }.to_string(),
        (v, OptionKey::Cubins) => return Err(format!("option trtllmCubins must be a boolean, got {}", describe(&v))),
        (OptionValue::Text(text), _) => text,
        (v, _) => return Err(format!("option {name} must be a string, got {}", describe(&v))),
    };
    o.set(option, &text).map_err(|e| option_message(&e))
}

/// A string as JSON quotes it, cut to a readable length.
fn quote(s: &str) -> String {
    const MAX: usize = 80;
    match s.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", serde_json::Value::from(&s[..cut])),
        None => serde_json::Value::from(s).to_string(),
    }
}

/// A value for an error message: its type and (when JSON can show it) its value, e.g. `number 12.9`.
fn describe(v: &OptionValue) -> String {
    let (kind, json) = match v {
        OptionValue::Unset => return "undefined".to_string(),
        OptionValue::Null => return "null".to_string(),
        OptionValue::Unreadable => return "a value that could not be read".to_string(),
        OptionValue::Text(s) => return format!("string {}", quote(s)),
        OptionValue::Bool(b) => return format!("boolean {b}"),
        OptionValue::Other { kind, json } => (kind, json),
    };
    match json {
        Some(json) => {
            let cut: String = json.chars().take(80).collect();
            let more = if cut.len() < json.len() { "…" } else { "" };
            format!("{kind} {cut}{more}")
        }
        None => kind.clone(),
    }
}

#[cfg(test)]
#[path = "../crates/qpath-core/src/test_rng.rs"]
mod test_rng;

/// The API's reading of its arguments, natively: the messages, and generated arguments (`QPATH_FUZZ_CASES`, default
/// 20,000; `QPATH_FUZZ_SEED`) that never panic the reader or the resolve after it and whose errors name the input.
/// The browser fuzz (tests/api_fuzz.rs) passes real JS values through `resolve` itself.
#[cfg(test)]
mod tests {
    use super::test_rng::Rng;
    use super::*;

    fn text(s: &str) -> OptionValue {
        OptionValue::Text(s.to_string())
    }

    fn other(kind: &str, json: Option<&str>) -> OptionValue {
        OptionValue::Other {
            kind: kind.to_string(),
            json: json.map(str::to_string),
        }
    }

    /// `read_scenario` of a command line and an options object given as (key, value) pairs.
    fn read(cmd: OptionValue, pairs: &[(&str, OptionValue)]) -> Result<Scenario, String> {
        let model_config = pairs
            .iter()
            .find(|(k, _)| *k == MODEL_CONFIG)
            .map_or(OptionValue::Unset, |(_, v)| v.clone());
        let entries = pairs.iter().map(|(k, v)| (k.to_string(), move || v.clone()));
        read_scenario(cmd, Options::Object { model_config, entries })
    }

    #[test]
    fn messages_name_the_argument_and_option() {
        let cmd = || text("vllm serve m");
        for (pairs, must_name) in [
            (vec![("gpu", text("h900"))], &["option gpu: \"h900\"", "(see gpus())"][..]),
            (
                vec![("trtllmCubins", text("yes"))],
                &["trtllmCubins must be a boolean, got string \"yes\""],
            ),
            (
                vec![("cuda", other("number", Some("12.9")))],
                &["option cuda must be a string, got number 12.9"],
            ),
            (
                vec![("vllm", OptionValue::Bool(true))],
                &["option vllm must be a string, got boolean true"],
            ),
            (
                vec![("gpu", other("array", Some("[\"l4\"]")))],
                &["option gpu must be a string, got array"],
            ),
            (
                vec![("flashinfer", other("bigint", None))],
                &["option flashinfer must be a string, got bigint"],
            ),
            (
                vec![("gpu", OptionValue::Unreadable)],
                &["option gpu: its value could not be read"],
            ),
            (
                vec![("bogus", OptionValue::Unset)],
                &["unknown option \"bogus\"", "modelConfig"],
            ),
            (
                vec![("modelConfig", other("number", Some("42")))],
                &["option modelConfig", "number 42"],
            ),
            (
                vec![("modelConfig", other("object", None))],
                &["modelConfig: the object could not"],
            ),
            (
                vec![("gpu", text("l4")), ("computeCapability", text("9.0"))],
                &["gpu (\"l4\") and computeCapability (\"9.0\")"],
            ),
        ] {
            let m = read(cmd(), &pairs).unwrap_err();
            for part in must_name {
                assert!(m.contains(part), "{pairs:?}: `{m}` does not name {part}");
            }
        }
        let m = read(other("number", Some("42")), &[]).unwrap_err();
        assert_eq!(m, "commandLine must be a string, got number 42");
        assert_eq!(
            read(OptionValue::Null, &[]).unwrap_err(),
            "commandLine must be a string, got null"
        );
        let none: Options<NoEntries> = Options::Other(text("l4"));
        assert!(read_scenario(cmd(), none).unwrap_err().contains("got string \"l4\""));
        let none: Options<NoEntries> = Options::KeysUnreadable;
        assert!(read_scenario(cmd(), none).unwrap_err().starts_with("options: "));
        // Unset and null keys are defaults; an object modelConfig is its JSON.
        let s = read(
            cmd(),
            &[
                ("gpu", OptionValue::Null),
                ("vllm", OptionValue::Unset),
                ("modelConfig", other("object", Some("{}"))),
            ],
        )
        .unwrap();
        assert_eq!(s.model_config.as_deref(), Some("{}"));
        assert_eq!(s, {
            let mut d = ScenarioOptions::default().scenario("vllm serve m").unwrap();
            d.model_config = Some("{}".into());
            d
        });
        // A long value is echoed shortened.
        let long = "x".repeat(100_000);
        assert!(read(cmd(), &[("gpu", text(&long))]).unwrap_err().len() < 300);
        assert!(read(cmd(), &[(long.as_str(), text("l4"))]).unwrap_err().len() < 300);
    }

    /// A getter runs only for a key the API knows, and only until the first error.
    #[test]
    fn values_are_read_only_for_known_keys() {
        let calls = std::cell::Cell::new(0);
        let entries = ["bogus", "gpu"].map(|k| {
            let calls = &calls;
            (k.to_string(), move || {
                calls.set(calls.get() + 1);
                text("l4")
            })
        });
        let options = Options::Object {
            model_config: OptionValue::Unset,
            entries,
        };
        assert!(read_scenario(text("vllm serve m"), options).is_err());
        assert_eq!(calls.get(), 0);
    }

    const NAMES: &[&str] = &[
        "gpu",
        "computeCapability",
        "vllm",
        "cuda",
        "trtllmCubins",
        "flashinfer",
        "modelConfig",
        "compute-capability",
        "trtllm_cubins",
        "GPU",
        "",
        "__proto__",
        "toString",
        "\u{0}",
        "gpu\u{200b}",
        "\u{1F600}",
    ];

    const TEXTS: &[&str] = &[
        "l4",
        "b200",
        "h100-sxm",
        "jetson-agx-thor",
        "9.0",
        "12.1",
        "8.10",
        "0.25.0",
        "0.25.0-prefix",
        "v0.33.0",
        "0.27.2rc1.dev77+g1234abc",
        "0.20.0",
        "12.9",
        "13.0",
        "0.6.18",
        "0.7.2.post1",
        "yes",
        "default",
        "",
        " ",
        "NaN",
        "Infinity",
        "1e309",
        "-0",
        "null",
        "undefined",
        "[object Object]",
        "\u{1b}[2J",
        "\u{200b}",
        "é\u{301}",
        "\u{1F600}",
        "{\"architectures\": [\"Qwen3ForCausalLM\"], \"num_hidden_layers\": 2}",
        "{\"architectures\": ",
    ];

    const LINES: &[&str] = &[
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
        "vllm serve openai/gpt-oss-20b",
        "vllm serve acme/tiny --attention-backend FLASHINFER --kv-cache-dtype nvfp4",
        "vllm serve",
        "",
        "vllm serve m --bogus",
    ];

    fn value(r: &mut Rng) -> OptionValue {
        match r.below(14) {
            0 => OptionValue::Unset,
            1 => OptionValue::Null,
            2 => OptionValue::Bool(r.below(2) == 0),
            3 => other("number", Some(r.pick(&["12.9", "0", "-1", "1e+308", "null"]))),
            4 => other(
                "object",
                Some(r.pick(&["{}", "{\"gpu\":\"l4\"}", "{\"architectures\":[\"LlamaForCausalLM\"]}"])),
            ),
            5 => other(r.pick(&["object", "function", "bigint", "symbol"]), None),
            6 => other("array", Some(r.pick(&["[]", "[\"l4\"]", "[null,[[]]]"]))),
            7 => OptionValue::Unreadable,
            8 => text(&"9".repeat(r.below(50_000))),
            9 => text(
                &(0..r.below(30))
                    .map(|_| char::from_u32(r.below(0x800) as u32).unwrap_or('?'))
                    .collect::<String>(),
            ),
            _ => text(r.pick(TEXTS)),
        }
    }

    /// A key with a value it reads.
    fn good_pair(r: &mut Rng) -> (&'static str, OptionValue) {
        match r.below(6) {
            0 => (
                "gpu",
                text(r.pick(&["l4", "b200", "h100-sxm", "jetson-agx-thor", "rtx-5090"])),
            ),
            1 => (
                "vllm",
                text(r.pick(&["0.25.0", "0.25.0-prefix", "v0.33.0", "0.27.2rc1.dev77+g1234abc"])),
            ),
            2 => ("cuda", text(r.pick(&["12.8", "12.9", "13.0"]))),
            3 => ("trtllmCubins", OptionValue::Bool(r.below(2) == 0)),
            4 => ("flashinfer", text(r.pick(&["0.6.18", "0.7.2.post1", "pinned"]))),
            _ => ("modelConfig", text(r.pick(&TEXTS[TEXTS.len() - 2..]))),
        }
    }

    /// The names an error may give for these arguments: the argument, the keys (quoted as an unknown key is).
    fn names(pairs: &[(&str, OptionValue)]) -> Vec<String> {
        let mut n = vec!["commandLine".to_string(), "options".to_string()];
        for (k, _) in pairs {
            n.push(format!("option {k}"));
            n.push(format!("unknown option {}", quote(k)));
        }
        n.push("option computeCapability".into());
        n
    }

    #[test]
    fn generated_arguments_never_panic_and_errors_name_the_input() {
        let n: u64 = std::env::var("QPATH_FUZZ_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(20_000);
        let seed = std::env::var("QPATH_FUZZ_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0xa91_f022);
        let mut r = Rng(seed);
        let (mut resolved, mut errors) = (0u64, 0u64);
        let start = std::time::Instant::now();
        for i in 0..n {
            let cmd = if r.below(20) == 0 {
                value(&mut r)
            } else {
                text(r.pick(LINES))
            };
            let pairs: Vec<(&str, OptionValue)> = if r.below(3) == 0 {
                (0..r.below(4)).map(|_| good_pair(&mut r)).collect()
            } else {
                (0..r.below(5)).map(|_| (r.pick(NAMES), value(&mut r))).collect()
            };
            let outcome = std::panic::catch_unwind(|| read(cmd.clone(), &pairs));
            match outcome {
                Err(_) => panic!("case {i} (seed {seed}): the reader panicked on {cmd:?} {pairs:?}"),
                Ok(Err(m)) => {
                    errors += 1;
                    let named = names(&pairs);
                    assert!(
                        named.iter().any(|name| m.contains(name.as_str())) && m.len() < 1_000,
                        "case {i} (seed {seed}): `{m}` names no input of {cmd:?} {pairs:?}"
                    );
                }
                Ok(Ok(s)) if i % 4 == 0 => {
                    let report = std::panic::catch_unwind(|| serde_json::to_string(&resolve_scenario(&s)));
                    assert!(matches!(report, Ok(Ok(_))), "case {i} (seed {seed}): resolve failed on {s:?}");
                    resolved += 1;
                }
                Ok(Ok(_)) => {}
            }
        }
        println!(
            "JS API arguments: {n} cases ({errors} errors, {resolved} whole resolves) in {:.1} s",
            start.elapsed().as_secs_f64()
        );
        assert!(
            resolved > n / 50 && errors > n / 10,
            "{resolved} resolves, {errors} errors of {n}"
        );
    }
}
