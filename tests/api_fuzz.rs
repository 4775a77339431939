//! The JS API fuzzed in a real browser: the exported `resolve(commandLine, options)` called with generated arguments
//! built as JS values (js_sys::Object / Reflect, JSON.parse, small JS functions): odd strings, numbers (NaN, Infinity,
//! -0, 1e308), booleans, null, undefined, arrays, nested and cyclic objects, functions, symbols, BigInts, unknown keys,
//! getters and Proxies that throw. Every call must return (a wasm panic aborts the test): a report whose
//! `JSON.stringify` parses as JSON with the Report's keys, or a thrown `Error` whose message names the argument or an
//! option the call gave. The native twin (src/api.rs's tests) fuzzes the same reading without a browser.
//!
//! Cases: `QPATH_API_FUZZ_CASES` at compile time (and `QPATH_FUZZ_SEED` for another sequence), else 10,000 (what `make test` runs, in Chromium and in Firefox: about
//! 7 s each, BENCHMARKS.md):
//! `CHROMEDRIVER=$(command -v chromedriver) cargo test --target wasm32-unknown-unknown -p qpath-web --test api_fuzz -- --nocapture`.
//! A run over 20 s needs `WASM_BINDGEN_TEST_TIMEOUT` (seconds) set for the test runner.
#![cfg(target_arch = "wasm32")]

use qpath_web::api;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

#[path = "../crates/qpath-core/src/test_rng.rs"]
mod test_rng;

use test_rng::Rng;

wasm_bindgen_test_configure!(run_in_browser);

/// How many calls: `QPATH_API_FUZZ_CASES` when the test was compiled, else 10,000.
fn cases() -> u64 {
    option_env!("QPATH_API_FUZZ_CASES")
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// The keys the API reads, spellings it does not, and names JS treats specially.
const KEYS: &[&str] = &[
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
    "toString",
    "constructor",
    "length",
    "0",
    "\u{0}",
    "gpu\u{200b}",
    "\u{1F600}",
];

const STRINGS: &[&str] = &[
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
    "0.19.1",
    "12.9",
    "13.0",
    "0.6.18",
    "0.7.2.post1",
    "yes",
    "pinned",
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
    "\u{fffd}",
    "e\u{301}",
    "\u{1F600}",
    "{\"architectures\": [\"Qwen3ForCausalLM\"], \"num_hidden_layers\": 2, \"num_attention_heads\": 2, \"head_dim\": 64}",
    "{\"architectures\": ",
];

const LINES: &[&str] = &[
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
    "vllm serve openai/gpt-oss-20b",
    "vllm serve acme/tiny --attention-backend FLASHINFER --kv-cache-dtype nvfp4",
    "vllm serve google/gemma-3-27b-it -tp 2",
    "VLLM_HAS_FLASHINFER_CUBIN=0 vllm serve m --kv-cache-dtype fp8",
    "vllm serve m --bogus",
    "vllm serve",
    "",
    "vllm serve m --hf-overrides '{\"num_hidden_layers\": 4}' --kv-cache-dtype-skip-layers 0",
];

/// Values that take a small JS function to make: throwing getters, Proxies, cycles, `toJSON` that throws.
const MADE: &[&str] = &[
    "return {get gpu() { throw new Error('boom'); }};",
    "return {get modelConfig() { throw new Error('boom'); }};",
    "return new Proxy({}, {ownKeys() { throw new Error('no keys'); }});",
    "return new Proxy({gpu: 'l4'}, {get() { throw new Error('no get'); }});",
    "return new Proxy({}, {ownKeys() { return ['gpu', 'vllm']; }, getOwnPropertyDescriptor() { return {value: 'l4', enumerable: true, configurable: true}; }});",
    "const o = {}; o.self = o; return {modelConfig: o};",
    "return {modelConfig: {toJSON() { throw new Error('no JSON'); }}};",
    "return {modelConfig: {toJSON() { return undefined; }}};",
    "return {modelConfig: {a: 1n}};",
    "return Object.create(null);",
    "return Object.assign(Object.create({gpu: 'h900'}), {vllm: '0.25.0'});",
    "return function gpu() {};",
    "return Symbol('gpu');",
    "return 10n ** 30n;",
    "return new Date(0);",
    "return /l4/;",
    "return new Map([['gpu', 'l4']]);",
    "return new String('l4');",
    "return new Boolean(false);",
    "return [1, [2, [3]]];",
    "const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy;",
    "const p = Proxy.revocable([], {}); p.revoke(); return {modelConfig: p.proxy};",
    "const p = Proxy.revocable({}, {}); p.revoke(); return {gpu: p.proxy};",
    "return {gpu: 'l4', __proto__: {vllm: 1}};",
];

fn made(r: &mut Rng) -> JsValue {
    js_sys::Function::new_no_args(r.pick(MADE))
        .call0(&JsValue::NULL)
        .unwrap_or(JsValue::UNDEFINED)
}

/// One JS value of any type; `depth` bounds nested objects.
fn value(r: &mut Rng, depth: u32) -> JsValue {
    match r.below(16) {
        0 => JsValue::UNDEFINED,
        1 => JsValue::NULL,
        2 => JsValue::from_bool(r.below(2) == 0),
        3 => {
            let numbers = [f64::NAN, f64::INFINITY, -0.0, 1e308, 12.9, 0.0, -1.0, 9.0];
            JsValue::from_f64(numbers[r.below(numbers.len())])
        }
        4 if depth > 0 => {
            let a = js_sys::Array::new();
            for _ in 0..r.below(4) {
                a.push(&value(r, depth - 1));
            }
            a.into()
        }
        5 if depth > 0 => object(r, depth - 1),
        6 => made(r),
        7 => JsValue::from_str(&"9".repeat(r.below(20_000))),
        8 => JsValue::from_str(
            &(0..r.below(30))
                .map(|_| char::from_u32(r.below(0x800) as u32).unwrap_or('?'))
                .collect::<String>(),
        ),
        _ => JsValue::from_str(r.pick(STRINGS)),
    }
}

/// An object with random keys (the API's and others) set with `Reflect.set`.
fn object(r: &mut Rng, depth: u32) -> JsValue {
    let o = js_sys::Object::new();
    for _ in 0..r.below(5) {
        let v = value(r, depth);
        js_sys::Reflect::set(&o, &JsValue::from_str(r.pick(KEYS)), &v).unwrap();
    }
    o.into()
}

/// Options that read: each key the API knows, with a value of its type.
fn good_options(r: &mut Rng) -> JsValue {
    let o = js_sys::Object::new();
    let set = |k: &str, v: JsValue| js_sys::Reflect::set(&o, &JsValue::from_str(k), &v).unwrap();
    if r.below(2) == 0 {
        set(
            "gpu",
            r.pick(&["l4", "b200", "h100-sxm", "jetson-agx-thor", "rtx-5090"]).into(),
        );
    }
    if r.below(2) == 0 {
        set(
            "vllm",
            r.pick(&["0.25.0", "0.25.0-prefix", "0.33.0", "0.27.2rc1.dev77+g1234abc"])
                .into(),
        );
    }
    if r.below(3) == 0 {
        set("cuda", r.pick(&["12.8", "12.9", "13.0"]).into());
    }
    if r.below(3) == 0 {
        set("trtllmCubins", JsValue::from_bool(r.below(2) == 0));
    }
    if r.below(3) == 0 {
        set("flashinfer", r.pick(&["0.6.18", "0.7.2.post1", "pinned"]).into());
    }
    if r.below(4) == 0 {
        set("modelConfig", r.pick(&STRINGS[STRINGS.len() - 2..]).into());
    }
    o.into()
}

/// The words an error may name: the arguments, and every key of the options object (own or inherited).
fn nameable(options: &JsValue) -> Vec<String> {
    let mut names = vec![
        "commandLine".to_string(),
        "options".to_string(),
        "option computeCapability".to_string(),
    ];
    if options.is_object() {
        if let Ok(keys) = js_sys::Reflect::own_keys(options) {
            for k in keys.iter().filter_map(|k| k.as_string()) {
                names.push(format!("option {k}"));
                names.push(format!(
                    "unknown option {}",
                    serde_json::Value::from(k.chars().take(80).collect::<String>())
                ));
            }
        }
    }
    names.push("option modelConfig".to_string());
    names
}

/// A JS value for a failure message, without running its traps more than JSON.stringify does (a Proxy's `Debug`
/// throws). JSON.stringify gives `undefined` (typed as a JsString) for a function or a symbol: read with as_string.
fn show(v: &JsValue) -> String {
    let json = js_sys::JSON::stringify(v).ok().and_then(|t| t.as_string());
    let kind = v.js_typeof().as_string().unwrap_or_default();
    format!("{kind} {}", json.unwrap_or_default())
}

/// One call; `Ok(true)` for a report, `Ok(false)` for a thrown Error that names its input.
fn call(r: &mut Rng) -> Result<bool, String> {
    let command_line = match r.below(20) {
        0 => value(r, 1),
        1 => JsValue::from_str(&format!("{} {}", r.pick(LINES), r.pick(STRINGS))),
        _ => JsValue::from_str(r.pick(LINES)),
    };
    let options = match r.below(12) {
        0..=3 => good_options(r),
        4..=8 => object(r, 2),
        _ => value(r, 2),
    };
    let shown = format!("{} {}", show(&command_line), show(&options));
    match api::resolve(command_line, options.clone()) {
        Ok(report) => {
            let text = js_sys::JSON::stringify(&report)
                .ok()
                .and_then(|t| t.as_string())
                .ok_or_else(|| format!("a report JSON.stringify cannot show, for {shown}"))?;
            let json: Value = serde_json::from_str(&text).map_err(|e| format!("report is not JSON ({e}) for {shown}"))?;
            let keys = ["vllm", "gpu", "groups", "error"];
            if !keys.iter().all(|k| json.get(k).is_some()) {
                return Err(format!("a report without {keys:?}: {text:.200} for {shown}"));
            }
            Ok(true)
        }
        Err(e) => {
            let e: JsValue = e.into();
            let message = e
                .dyn_into::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .map_err(|v| format!("threw a non-Error {v:?} for {shown}"))?;
            if !nameable(&options).iter().any(|n| message.contains(n.as_str())) || message.len() > 1_000 {
                return Err(format!("`{message}` names no input of {shown}"));
            }
            Ok(false)
        }
    }
}

/// Runs in slices of 500 calls with a macrotask between them: the test runner's driver polls the page, and a page that
/// stays busy for 20 s fails the run (100,000 calls in one loop did).
#[wasm_bindgen_test]
async fn generated_arguments_never_panic_and_errors_name_the_input() {
    let n = cases();
    let seed = option_env!("QPATH_FUZZ_SEED")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x0a91_b0f5);
    let mut r = Rng(seed);
    let (mut reports, mut errors) = (0u64, 0u64);
    let start = js_sys::Date::now();
    for i in 0..n {
        if i % 500 == 499 {
            yew::platform::time::sleep(std::time::Duration::ZERO).await;
        }
        match call(&mut r) {
            Ok(true) => reports += 1,
            Ok(false) => errors += 1,
            Err(m) => panic!("case {i} (seed {seed}): {m}"),
        }
    }
    let seconds = (js_sys::Date::now() - start) / 1000.0;
    console_log!("JS API fuzz: {n} calls ({reports} reports, {errors} errors) in {seconds:.1} s");
    assert!(reports > n / 5 && errors > n / 5, "{reports} reports, {errors} errors of {n}");
}
