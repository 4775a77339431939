//! Browser tests of the JavaScript API (`src/api.rs`): the exported functions are called directly with JS values,
//! and `JSON.stringify` of what `resolve` returns must be the CLI's JSON (`serde_json` of `qpath_core::resolve`) for
//! the scenario the CLI builds from the same options. Bad options must throw an `Error` naming the option and value.
//! They run in headless Chromium and headless Firefox (`scripts/test.sh`); natively this file compiles to nothing.
#![cfg(target_arch = "wasm32")]

use qpath_core::gpu;
use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::release::Release;
use qpath_core::resolve::resolve as resolve_scenario;
use qpath_web::api;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";

/// A JS object from JSON text (`undefined` for an empty text).
fn js(json: &str) -> JsValue {
    if json.is_empty() {
        JsValue::UNDEFINED
    } else {
        js_sys::JSON::parse(json).unwrap_or_else(|_| panic!("bad test JSON {json}"))
    }
}

/// A JS value as serde_json sees it, through `JSON.stringify`.
fn json_of(v: &JsValue) -> Value {
    let text = js_sys::JSON::stringify(v).unwrap().as_string().unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The arguments of `qpath [--gpu G | --compute-capability C] [--vllm V] [--cuda X] [--trtllm-cubins B] --format json
/// -- cmd` (the test commands are plain words, so splitting at spaces is how a shell would pass them).
fn cli_scenario(hardware: &str, vllm: Option<&str>, cuda: Option<&str>, cubins: Option<bool>, cmd: &str) -> Vec<String> {
    let mut argv = vec![];
    let mut opt = |flag: &str, value: &str| argv.extend([flag.to_string(), value.to_string()]);
    match gpu::find(hardware) {
        Some(_) => opt("--gpu", hardware),
        None => opt("--compute-capability", hardware),
    }
    if let Some(v) = vllm {
        opt("--vllm", v);
    }
    if let Some(c) = cuda {
        opt("--cuda", c);
    }
    if let Some(b) = cubins {
        opt("--trtllm-cubins", if b { "yes" } else { "no" });
    }
    opt("--format", "json");
    argv.push("--".into());
    argv.extend(cmd.split_whitespace().map(String::from));
    argv
}

/// `JSON.stringify(resolve(cmd, options))`, parsed.
fn api_json(cmd: &str, options: &str) -> Value {
    let report = api::resolve(cmd.into(), js(options)).unwrap_or_else(|e| panic!("resolve threw: {}", message(e.into())));
    json_of(&report)
}

/// What the real CLI (`qpath_cli::run`, the binary's whole logic) prints for these arguments, parsed.
fn cli_json(argv: &[String]) -> Value {
    let out = qpath_cli::run(argv);
    assert!(out.stderr.is_empty(), "qpath {argv:?} failed: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// The message of a thrown JS `Error`.
fn message(e: JsValue) -> String {
    e.dyn_into::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|v| panic!("not an Error: {v:?}"))
}

/// Calls `resolve` with options that must throw; returns the Error's message.
fn thrown(cmd: JsValue, options: &str) -> String {
    match api::resolve(cmd, js(options)) {
        Ok(v) => panic!("resolve did not throw for {options}: {}", json_of(&v)),
        Err(e) => message(e.into()),
    }
}

#[wasm_bindgen_test]
fn seed_story_l4_prefix_equals_the_cli() {
    let cmd = format!("{LLAMA} --kv-cache-dtype fp8");
    let got = api_json(&cmd, r#"{"gpu": "l4", "vllm": "0.25.0-prefix"}"#);
    assert_eq!(got, cli_json(&cli_scenario("l4", Some("0.25.0-prefix"), None, None, &cmd)));
    // The story: FlashInfer selected on its own, FP8 queries, FA2's assertion in each phase's JIT module (the decode's
    // through the tensor-core decode plan); with CUDA graphs the decode batches are captured first, so its error fires
    // first.
    let g = &got["groups"][0];
    assert_eq!(g["backend"], "FLASHINFER");
    assert_eq!(g["q_dtype"]["prefill"], "float8_e4m3fn");
    assert_eq!(g["error"]["type"], "AssertionError");
    assert_eq!(g["error"]["stage"], "decode_jit");
    assert_eq!(g["phase_errors"]["decode"], g["error"]);
    assert_eq!(g["phase_errors"]["prefill"]["stage"], "prefill_jit");
    assert_eq!(g["kernel"]["decode"], "fa2");
    assert_eq!(got["error"], Value::Null);
    assert_eq!(got["gpu"]["compute_capability"], "8.9");
    assert_eq!(got["flashinfer"], "0.6.13");
}

#[wasm_bindgen_test]
fn seed_story_l4_fixed_equals_the_cli() {
    let cmd = format!("{LLAMA} --kv-cache-dtype fp8");
    let got = api_json(&cmd, r#"{"gpu": "l4", "vllm": "0.25.0"}"#);
    assert_eq!(got, cli_json(&cli_scenario("l4", Some("0.25.0"), None, None, &cmd)));
    let g = &got["groups"][0];
    assert_eq!(g["q_dtype"]["prefill"], "bfloat16");
    assert_eq!(g["kernel"], serde_json::json!({"prefill": "fa2", "decode": "fa2"}));
    assert_eq!(g["error"], Value::Null);
}

#[wasm_bindgen_test]
fn defaults_are_the_clis() {
    // No options: h100-sxm, the newest release, CUDA 12.9, the release's cubins.
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER --kv-cache-dtype fp8");
    let cli = cli_json(&cli_scenario("h100-sxm", None, None, None, &cmd));
    assert_eq!(api_json(&cmd, ""), cli);
    assert_eq!(api_json(&cmd, "null"), cli);
    assert_eq!(api_json(&cmd, "{}"), cli);
    assert_eq!(api_json(&cmd, r#"{"gpu": null, "vllm": null, "trtllmCubins": null}"#), cli);
    assert_eq!(cli["gpu"]["id"], "h100-sxm");
    assert_eq!(cli["vllm"], Release::LATEST.name());
    assert_eq!(cli["cuda"], "12.9");
}

#[wasm_bindgen_test]
fn every_option_reaches_the_scenario() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER --kv-cache-dtype fp8");
    for (options, scenario) in [
        (
            r#"{"gpu": "h100-sxm", "vllm": "0.26.0", "cuda": "12.8", "trtllmCubins": true}"#,
            cli_scenario("h100-sxm", Some("0.26.0"), Some("12.8"), Some(true), &cmd),
        ),
        (
            r#"{"gpu": "jetson-agx-thor", "cuda": "13.0", "trtllmCubins": false}"#,
            cli_scenario("jetson-agx-thor", None, Some("13.0"), Some(false), &cmd),
        ),
        (
            r#"{"vllm": "v0.24.0"}"#,
            cli_scenario("h100-sxm", Some("0.24.0"), None, None, &cmd),
        ),
    ] {
        assert_eq!(api_json(&cmd, options), cli_json(&scenario), "{options}");
    }
    // An installed FlashInfer and a nightly vLLM version, as `--flashinfer` and `--vllm` read them.
    let got = api_json(&cmd, r#"{"vllm": "0.27.2rc1.dev77+g1234abc", "flashinfer": "0.7.2.post1"}"#);
    let mut argv = cli_scenario("h100-sxm", Some("0.27.2rc1.dev77+g1234abc"), None, None, &cmd);
    argv.splice(0..0, ["--flashinfer".to_string(), "0.7.2.post1".to_string()]);
    assert_eq!(got, cli_json(&argv));
    assert_eq!(
        (&got["vllm"], &got["flashinfer"], &got["flashinfer_pinned"]),
        (
            &Value::from("0.27.1"),
            &Value::from("0.7.2.post1"),
            &Value::from("0.6.16.post3")
        )
    );
    assert!(got["notes"][0]
        .as_str()
        .unwrap()
        .starts_with("vLLM 0.27.2rc1.dev77+g1234abc is a development build, not a release qpath knows"));
}

#[wasm_bindgen_test]
fn b200_nvfp4_equals_the_cli() {
    let cmd = format!("{LLAMA} --kv-cache-dtype nvfp4");
    for options in [r#"{"gpu": "b200"}"#, r#"{"gpu": "b200", "trtllmCubins": true}"#] {
        let cubins = options.contains("true").then_some(true);
        let got = api_json(&cmd, options);
        assert_eq!(got, cli_json(&cli_scenario("b200", None, None, cubins, &cmd)), "{options}");
        assert_eq!(got["gpu"]["compute_capability"], "10.0");
    }
}

#[wasm_bindgen_test]
fn gpt_oss_20b_on_b200_equals_the_cli() {
    let cmd = "vllm serve openai/gpt-oss-20b";
    let got = api_json(cmd, r#"{"gpu": "b200", "vllm": "0.33.0"}"#);
    assert_eq!(got, cli_json(&cli_scenario("b200", Some("0.33.0"), None, None, cmd)));
    assert_eq!(got["model"]["id"], "openai/gpt-oss-20b");
    assert!(got["groups"].as_array().unwrap().iter().any(|g| g["has_sinks"] == true));
    assert!(got["groups"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["attention"] == "sliding_window"));
}

/// Speculative decoding: Qwen3-Next's MTP layer is a drafter group (`role: "drafter"`, after the target's), on
/// FlashInfer on B200 at 0.33.0, with `speculative` filled in, exactly as the CLI answers. The CLI gets the JSON as one
/// argument (as a shell passes the quoted word); the API's command line quotes it.
#[wasm_bindgen_test]
fn a_qwen3_next_mtp_drafter_equals_the_cli() {
    let model = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct";
    let config = r#"{"method":"mtp","num_speculative_tokens":2}"#;
    let got = api_json(
        &format!("{model} --speculative-config '{config}'"),
        r#"{"gpu": "b200", "vllm": "0.33.0"}"#,
    );
    let mut argv = cli_scenario("b200", Some("0.33.0"), None, None, model);
    argv.extend(["--speculative-config".to_string(), config.to_string()]);
    assert_eq!(got, cli_json(&argv));
    let groups = got["groups"].as_array().unwrap();
    let roles: Vec<&str> = groups.iter().map(|g| g["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["target", "target", "drafter"]);
    assert_eq!(groups[2]["backend"], "FLASHINFER");
    assert_eq!(groups[2]["layers"], serde_json::json!([0]));
    let s = &got["speculative"];
    assert_eq!(
        (
            &s["method"],
            &s["num_speculative_tokens"],
            &s["runner"],
            &s["attention_layers"]
        ),
        (&"mtp".into(), &2.into(), &"v2".into(), &true.into())
    );
    // Without a speculative config the key is there, null.
    assert_eq!(
        api_json(model, r#"{"gpu": "b200", "vllm": "0.33.0"}"#)["speculative"],
        Value::Null
    );
}

#[wasm_bindgen_test]
fn a_rejected_scenario_is_a_report_not_a_throw() {
    // An unknown flag: argparse rejects it; the report carries the error like the CLI's.
    let cmd = format!("{LLAMA} --no-such-flag 1");
    let got = api_json(&cmd, r#"{"gpu": "l4"}"#);
    assert_eq!(got, cli_json(&cli_scenario("l4", None, None, None, &cmd)));
    assert_eq!(got["error"]["type"], "ArgumentError");
    assert!(
        got["error"]["message"].as_str().unwrap().contains("--no-such-flag"),
        "{}",
        got["error"]
    );
    assert_eq!(got["groups"], serde_json::json!([]));
    assert_eq!(got["model"], Value::Null);
    // An empty command line too.
    // The CLI refuses an empty command line before resolving; the API resolves it with the same default options.
    let empty = ScenarioOptions::default().scenario("").unwrap();
    assert_eq!(api_json("", "{}"), serde_json::to_value(resolve_scenario(&empty)).unwrap());
}

#[wasm_bindgen_test]
fn a_raw_compute_capability_equals_the_cli() {
    let cmd = format!("{LLAMA} --kv-cache-dtype fp8");
    let got = api_json(&cmd, r#"{"computeCapability": "9.0", "vllm": "0.25.0"}"#);
    assert_eq!(got, cli_json(&cli_scenario("9.0", Some("0.25.0"), None, None, &cmd)));
    assert_eq!(got["gpu"]["id"], Value::Null);
    assert_eq!(got["gpu"]["compute_capability"], "9.0");
    // An object built with js_sys::Object and Reflect, not JSON.
    let o = js_sys::Object::new();
    js_sys::Reflect::set(&o, &"computeCapability".into(), &"9.0".into()).unwrap();
    js_sys::Reflect::set(&o, &"vllm".into(), &"0.25.0".into()).unwrap();
    assert_eq!(json_of(&api::resolve(cmd.as_str().into(), o.into()).unwrap()), got);
}

#[wasm_bindgen_test]
fn bad_options_throw_errors_naming_option_and_value() {
    let cmd: JsValue = LLAMA.into();
    for (options, must_name) in [
        (r#"{"gpu": "h900"}"#, &["gpu", "\"h900\""][..]),
        (
            r#"{"vllm": "0.19.1"}"#,
            &["vllm", "0.19.1", "before the first vLLM release qpath knows"],
        ),
        (r#"{"vllm": "newest"}"#, &["vllm", "newest", "is not a vLLM version"]),
        (r#"{"flashinfer": "0.6.1"}"#, &["flashinfer", "0.6.1", "0.7.2.post1"]),
        (r#"{"cuda": "twelve"}"#, &["cuda", "twelve"]),
        (r#"{"computeCapability": "8.10"}"#, &["computeCapability", "8.10"]),
        (
            r#"{"gpu": "l4", "computeCapability": "9.0"}"#,
            &["gpu", "computeCapability", "\"l4\"", "\"9.0\""],
        ),
        (r#"{"gpu": "l4", "bogus": 1}"#, &["\"bogus\""]),
        (r#"{"trtllmCubins": "yes"}"#, &["trtllmCubins", "boolean", "\"yes\""]),
        (r#"{"cuda": 12.9}"#, &["cuda", "string", "12.9"]),
        (r#"{"gpu": ["l4"]}"#, &["gpu", "array"]),
        (r#"["l4"]"#, &["options", "array"]),
        (r#""l4""#, &["options", "\"l4\""]),
        ("true", &["options", "boolean"]),
    ] {
        let m = thrown(cmd.clone(), options);
        for part in must_name {
            assert!(m.contains(part), "{options}: `{m}` does not name {part}");
        }
    }
    // A command line that is not a string.
    let m = thrown(JsValue::from_f64(42.0), "{}");
    assert!(m.contains("commandLine") && m.contains("42"), "{m}");
    assert!(thrown(JsValue::UNDEFINED, "").contains("commandLine"));
    // A getter that throws, a Proxy whose keys throw: errors, not panics.
    let getter = js_sys::Function::new_no_args("return {get gpu() { throw new Error('boom'); }};")
        .call0(&JsValue::NULL)
        .unwrap();
    let m = message(api::resolve(cmd.clone(), getter).unwrap_err().into());
    assert!(m.contains("gpu"), "{m}");
    let proxy = js_sys::Function::new_no_args("return new Proxy({}, {ownKeys() { throw new Error('no keys'); }});")
        .call0(&JsValue::NULL)
        .unwrap();
    assert!(message(api::resolve(cmd.clone(), proxy).unwrap_err().into()).contains("options"));
    // A revoked Proxy (Array.isArray throws on it) as the options, an option or modelConfig: a thrown qpath Error
    // naming it, not a TypeError escaping the wasm mid-call (found by tests/api_fuzz.rs).
    for (make, must_name) in [
        ("return p.proxy;", "options"),
        ("return {gpu: p.proxy};", "option gpu"),
        ("return {modelConfig: p.proxy};", "option modelConfig"),
    ] {
        let options = js_sys::Function::new_no_args(&format!("const p = Proxy.revocable({{}}, {{}}); p.revoke(); {make}"))
            .call0(&JsValue::NULL)
            .unwrap();
        let m = message(api::resolve(cmd.clone(), options).unwrap_err().into());
        assert!(m.contains(must_name), "{make}: {m}");
    }
}

#[wasm_bindgen_test]
fn gpus_releases_presets_and_version() {
    let gpus = json_of(&api::gpus().unwrap());
    let gpus = gpus.as_array().unwrap();
    assert_eq!(gpus.len(), gpu::GPUS.len());
    let l4 = gpus.iter().find(|g| g["id"] == "l4").unwrap();
    assert_eq!(l4["compute_capability"], "8.9");
    let keys: Vec<&str> = l4.as_object().unwrap().keys().map(String::as_str).collect();
    for k in [
        "id",
        "name",
        "arch",
        "compute_capability",
        "sm",
        "memory_gb",
        "fp8",
        "fp4",
        "segment",
        "year",
    ] {
        assert!(keys.contains(&k), "gpus() rows lack {k}");
    }
    assert_eq!(l4["sm"], "sm_89");
    assert_eq!(l4["fp8"], true);

    let releases = json_of(&api::releases().unwrap());
    let releases = releases.as_array().unwrap();
    assert_eq!(releases.len(), Release::ALL.len());
    let prefix = releases.iter().find(|r| r["vllm"] == "0.25.0-prefix").unwrap();
    assert_eq!(prefix["flashinfer"], "0.6.13");
    assert_eq!(prefix["cubinsByDefault"], true);
    let newest = releases.last().unwrap();
    assert_eq!(newest["vllm"], Release::LATEST.name());
    assert_eq!(newest["cubinsByDefault"], true, "cubins are assumed in every release");

    let presets = json_of(&api::presets().unwrap());
    let presets = presets.as_array().unwrap();
    assert_eq!(presets.len(), qpath_core::model::MODEL_PRESETS.len());
    let llama = presets
        .iter()
        .find(|p| p["id"] == "meta-llama/Llama-3.1-8B-Instruct")
        .unwrap();
    assert_eq!(llama["layers"], 32);
    assert_eq!(llama["dtype"], "bfloat16");
    assert_eq!(llama["head_dim"], 128);
    assert_eq!(llama["sliding_window"], Value::Null);
    let oss = presets.iter().find(|p| p["id"] == "openai/gpt-oss-20b").unwrap();
    assert_eq!(oss["has_sinks"], true);
    assert!(oss["sliding_window_layers"].as_u64().unwrap() > 0);

    assert_eq!(api::version(), env!("CARGO_PKG_VERSION"));
}

/// Qwen/Qwen3-0.6B's config.json, attention part (as the preset's sources restate it).
const QWEN3_06B: &str = r#"{"architectures": ["Qwen3ForCausalLM"], "head_dim": 128, "hidden_size": 1024,
    "max_window_layers": 28, "model_type": "qwen3", "num_attention_heads": 16, "num_hidden_layers": 28,
    "num_key_value_heads": 8, "sliding_window": null, "torch_dtype": "bfloat16", "use_sliding_window": false}"#;

#[wasm_bindgen_test]
fn model_config_as_text_or_object_is_the_cores_answer() {
    let cmd = "vllm serve acme/tiny-qwen3 --kv-cache-dtype fp8";
    let as_text = serde_json::json!({"gpu": "l4", "modelConfig": QWEN3_06B}).to_string();
    let as_object = format!(r#"{{"gpu": "l4", "modelConfig": {QWEN3_06B}}}"#);
    let (a, b) = (api_json(cmd, &as_text), api_json(cmd, &as_object));
    assert_eq!(a, b);
    let mut o = ScenarioOptions::default();
    o.set(OptionKey::Gpu, "l4").unwrap();
    let mut s = o.scenario(cmd).unwrap();
    s.model_config = Some(QWEN3_06B.to_string());
    assert_eq!(a, serde_json::to_value(resolve_scenario(&s)).unwrap());
    assert_eq!(a["model"]["config"], "config.json of acme/tiny-qwen3");
    assert_eq!(a["model"]["num_layers"], 28);
    // Not a string or an object: thrown, naming the option.
    let m = thrown(cmd.into(), r#"{"modelConfig": 42}"#);
    assert!(m.contains("modelConfig") && m.contains("42"), "{m}");
    // A malformed config is the report's error, naming the file.
    let r = api_json(cmd, r#"{"modelConfig": "{\"architectures\": "}"#);
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("config.json of acme/tiny-qwen3 is not valid JSON"));
}
