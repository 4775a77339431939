//! Browser tests of the page's input caps and the small things of issue 27: a command line or config.json over its
//! cap is refused with the cap named in its box and the last valid state kept; an unknown model's error names the
//! config.json box; a pasted config.json is called so; hidden characters in a model id are shown; MTP is offered only
//! for models with MTP layers; the token counts are pluralised.
#![cfg(target_arch = "wasm32")]

mod common;

use common::{flush, mount_with_hash, q};
use qpath_core::serve::limits::{MAX_COMMAND_LINE_BYTES, MAX_CONFIG_JSON_BYTES};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, Event, EventInit, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

fn text(root: &Element, selector: &str) -> String {
    q(root, selector).text_content().unwrap_or_default()
}

fn exists(root: &Element, selector: &str) -> bool {
    root.query_selector(selector).unwrap().is_some()
}

/// What a paste does: the textarea's whole text replaced, one input event.
async fn paste(root: &Element, selector: &str, value: &str) {
    let area: HtmlTextAreaElement = q(root, selector).unchecked_into();
    area.set_value(value);
    let init = EventInit::new();
    init.set_bubbles(true);
    area.dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
    flush().await;
}

fn value(root: &Element, selector: &str) -> String {
    q(root, selector).unchecked_into::<HtmlTextAreaElement>().value()
}

/// The (value, label) of each option of the select `selector`.
fn option_pairs(root: &Element, selector: &str) -> Vec<(String, String)> {
    let list = q(root, selector).query_selector_all("option").unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|o| o.unchecked_into::<Element>())
        .map(|o| {
            (
                o.get_attribute("value").unwrap_or_default(),
                o.text_content().unwrap_or_default(),
            )
        })
        .collect()
}

fn options(root: &Element, selector: &str) -> Vec<String> {
    option_pairs(root, selector).into_iter().map(|(v, _)| v).collect()
}

fn option_labels(root: &Element, selector: &str) -> Vec<String> {
    option_pairs(root, selector).into_iter().map(|(_, l)| l).collect()
}

const LLAMA: &str = "#gpu=h100-sxm&vllm=0.33.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8";

#[wasm_bindgen_test]
async fn a_command_line_over_the_cap_is_refused_in_its_box_and_the_page_goes_on() {
    let root = mount_with_hash(LLAMA).await;
    let before = value(&root, "#command-line");
    let hash_before = common::location_hash();
    // 2 MiB: a flag value no shell would pass, far over the page's cap.
    let huge = format!(
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --served-model-name {}",
        "x".repeat(2 << 20)
    );
    paste(&root, "#command-line", &huge).await;
    let e = text(&root, "#command-error");
    assert!(
        e.starts_with("The command line has 2,097,2") && e.contains("more than the page reads: at most 262,144 (256 KiB"),
        "{e}"
    );
    assert!(
        e.contains("MAX_COMMAND_LINE_BYTES") && e.ends_with("the previous one is kept."),
        "{e}"
    );
    assert_eq!(
        value(&root, "#command-line"),
        before,
        "the box shows the command line still in use"
    );
    assert_eq!(common::location_hash(), hash_before);
    assert!(text(&root, "#verdict").contains("vLLM 0.33.0 on NVIDIA H100"));
    // The page still answers a normal command, and the message goes.
    paste(&root, "#command-line", "vllm serve Qwen/Qwen3-8B").await;
    assert!(!exists(&root, "#command-error"));
    assert!(text(&root, "#result-model").contains("Qwen/Qwen3-8B"));
    // Exactly the cap is read (the parse error of a long but allowed line is the parser's, not the cap's).
    let at_cap = format!("vllm serve Qwen/Qwen3-8B --served-model-name {}", "y".repeat(1000));
    let at_cap = format!("{at_cap}{}", " ".repeat(MAX_COMMAND_LINE_BYTES - at_cap.len()));
    assert_eq!(at_cap.len(), MAX_COMMAND_LINE_BYTES);
    paste(&root, "#command-line", &at_cap).await;
    assert!(!exists(&root, "#command-error"), "{}", text(&root, "#command-error"));
}

#[wasm_bindgen_test]
async fn a_config_json_over_the_cap_is_refused_in_its_box() {
    let root = mount_with_hash(LLAMA).await;
    let small = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
        "num_key_value_heads": 8, "num_hidden_layers": 4, "torch_dtype": "bfloat16"}"#;
    paste(&root, "#model-config", small).await;
    assert!(exists(&root, "#config-read"), "{}", text(&root, ".model-config"));
    assert_eq!(text(&root, "#config-read"), "read: LlamaForCausalLM, 4 layers");
    let huge = format!(
        r#"{{"architectures": ["LlamaForCausalLM"], "pad": "{}"}}"#,
        "p".repeat(MAX_CONFIG_JSON_BYTES)
    );
    paste(&root, "#model-config", &huge).await;
    let e = text(&root, "#config-error");
    assert!(e.starts_with("The config.json has 16,777,2"), "{e}");
    assert!(
        e.contains("at most 16,777,216 (16384 KiB, qpath_core::serve::limits::MAX_CONFIG_JSON_BYTES)"),
        "{e}"
    );
    assert_eq!(
        value(&root, "#model-config"),
        small,
        "the config.json in use stays in its box"
    );
    assert!(text(&root, "#result-model").contains(": 4 layers"));
    // The next config.json that fits is read again.
    paste(
        &root,
        "#model-config",
        &small.replace("\"num_hidden_layers\": 4", "\"num_hidden_layers\": 6"),
    )
    .await;
    assert!(!exists(&root, "#config-error"), "{}", text(&root, ".model-config"));
    assert_eq!(text(&root, "#config-read"), "read: LlamaForCausalLM, 6 layers");
}

#[wasm_bindgen_test]
async fn an_unknown_model_is_told_of_the_config_json_box_and_hidden_characters_are_shown() {
    let root = mount_with_hash("#gpu=h100-sxm&vllm=0.33.0&cmd=vllm+serve+acme%2Ftiny").await;
    let e = text(&root, "section.results");
    assert!(e.contains("paste or drop its config.json into the config.json box"), "{e}");
    assert!(!e.contains("--model-config") && !e.contains("qpath models"), "{e}");
    // A no-break space and a zero-width space pasted with the id are escaped and named.
    let root =
        mount_with_hash("#gpu=h100-sxm&vllm=0.33.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct%C2%A0%E2%80%8B").await;
    let e = text(&root, "section.results");
    assert!(
        e.contains(
            "meta-llama/Llama-3.1-8B-Instruct\\xa0\\u200b (contains U+00A0 NO-BREAK SPACE, U+200B ZERO WIDTH SPACE) is \
             not a qpath preset"
        ),
        "{e}"
    );
}

#[wasm_bindgen_test]
async fn mtp_is_offered_only_for_a_model_with_mtp_layers() {
    let root = mount_with_hash(LLAMA).await;
    assert!(!options(&root, "#spec-method").contains(&"mtp".to_string()));
    let why = text(&root, "#spec-mtp-note");
    assert!(
        why.starts_with("MTP is not offered: meta-llama/Llama-3.1-8B-Instruct has no MTP layers"),
        "{why}"
    );
    let root = mount_with_hash("#gpu=b200&vllm=0.33.0&cmd=vllm+serve+Qwen%2FQwen3-Next-80B-A3B-Instruct").await;
    assert!(options(&root, "#spec-method").contains(&"mtp".to_string()));
    assert!(!exists(&root, "#spec-mtp-note"));
}

#[wasm_bindgen_test]
async fn one_token_is_singular() {
    let root = mount_with_hash(
        "#gpu=b200&vllm=0.33.0&cmd=vllm+serve+Qwen%2FQwen3-Next-80B-A3B-Instruct+--speculative-config+%27%7B%22method%22%3A%22mtp%22%2C%22num_speculative_tokens%22%3A1%7D%27",
    )
    .await;
    let labels = option_labels(&root, "#spec-tokens");
    assert!(labels.contains(&"1 speculative token".to_string()), "{labels:?}");
    assert!(labels.contains(&"2 speculative tokens".to_string()), "{labels:?}");
    let line = text(&root, "#result-speculative");
    assert!(line.contains("method mtp, 1 token,"), "{line}");
}

/// A pasted config.json the core cannot read is "the pasted config.json" in every view that shows the core's texts,
/// not the CLI's "config.json of MODEL" (compare's other side, the timeline's rows and the matrix's cells each resolve
/// on their own).
#[wasm_bindgen_test]
async fn every_view_calls_a_pasted_config_json_so() {
    let root = mount_with_hash(LLAMA).await;
    paste(
        &root,
        "#model-config",
        r#"{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": "#,
    )
    .await;
    for (tab, view) in [
        ("#tab-explain", "section.results"),
        ("#tab-compare", ".compare-view"),
        ("#tab-timeline", ".timeline-view"),
        ("#tab-matrix", "section.matrix"),
    ] {
        q(&root, tab).unchecked_into::<web_sys::HtmlElement>().click();
        flush().await;
        let shown = text(&root, view);
        assert!(shown.contains("the pasted config.json is not valid JSON"), "{tab}: {shown}");
        let all = root.text_content().unwrap_or_default();
        assert!(!all.contains("config.json of meta-llama"), "{tab}: {all}");
    }
}
