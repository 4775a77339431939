//! Browser tests of the page: each test mounts the real `App` into its own container, uses the real controls
//! (typing, choosing options, clicking), lets Yew re-render, and reads the DOM. They run in headless Chromium and
//! headless Firefox (`scripts/test.sh`); natively this file compiles to nothing.
#![cfg(target_arch = "wasm32")]

use std::time::Duration;

use qpath_core::gpu::{GpuFilter, GPUS};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlInputElement, HtmlSelectElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Lets Yew run its scheduled renders.
async fn tick() {
    yew::platform::time::sleep(Duration::from_millis(20)).await;
}

/// A fresh page state: no hash (the app reads it at start), a new container holding a new App.
async fn mount_with_hash(hash: &str) -> Element {
    let window = web_sys::window().unwrap();
    let url = if hash.is_empty() { " ".to_string() } else { hash.to_string() };
    window
        .history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        .unwrap();
    let doc = window.document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<qpath_web::App>::with_root(root.clone()).render();
    tick().await;
    root
}

async fn mount() -> Element {
    mount_with_hash("").await
}

fn q(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {selector}"))
}

fn text(root: &Element, selector: &str) -> String {
    q(root, selector).text_content().unwrap_or_default()
}

/// The ids of the GPU rows shown, in order.
fn shown_ids(root: &Element) -> Vec<String> {
    let rows = root.query_selector_all("#gpu-table tbody tr").unwrap();
    (0..rows.length())
        .map(|i| {
            rows.item(i)
                .unwrap()
                .unchecked_into::<Element>()
                .get_attribute("data-gpu-id")
                .unwrap()
        })
        .collect()
}

fn ids_matching(filter: &GpuFilter) -> Vec<String> {
    filter.apply(GPUS).iter().map(|g| g.id.to_string()).collect()
}

async fn choose(root: &Element, selector: &str, value: &str) {
    let select: HtmlSelectElement = q(root, selector).unchecked_into();
    select.set_value(value);
    assert_eq!(select.value(), value, "{selector} has no option {value}");
    let init = EventInit::new();
    init.set_bubbles(true);
    select
        .dispatch_event(&Event::new_with_event_init_dict("change", &init).unwrap())
        .unwrap();
    tick().await;
}

async fn type_into(root: &Element, selector: &str, value: &str) {
    let input: HtmlInputElement = q(root, selector).unchecked_into();
    input.set_value(value);
    let init = EventInit::new();
    init.set_bubbles(true);
    input
        .dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
    tick().await;
}

#[wasm_bindgen_test]
async fn lists_every_gpu_of_the_table_at_first() {
    let root = mount().await;
    assert_eq!(shown_ids(&root).len(), GPUS.len());
    assert_eq!(text(&root, "#gpu-count"), format!("{} GPUs match", GPUS.len()));
    assert!(text(&root, "#gpu-detail").contains("Pick a GPU"));
}

#[wasm_bindgen_test]
async fn architecture_filter_narrows_the_list() {
    let root = mount().await;
    choose(&root, "#filter-arch", "Hopper").await;
    let expected = ids_matching(&GpuFilter {
        arch: Some("Hopper".into()),
        ..Default::default()
    });
    assert_eq!(shown_ids(&root), expected);
    assert!(expected.contains(&"h100-sxm".to_string()) && !expected.contains(&"l4".to_string()));
    assert_eq!(text(&root, "#gpu-count"), format!("{} GPUs match", expected.len()));
}

#[wasm_bindgen_test]
async fn typing_6000_shows_the_ada_and_the_blackwell_card_with_their_capabilities() {
    let root = mount().await;
    type_into(&root, "#gpu-search", "6000").await;
    let ids = shown_ids(&root);
    assert!(ids.contains(&"rtx-6000-ada".to_string()), "{ids:?}");
    assert!(ids.contains(&"rtx-pro-6000-blackwell".to_string()), "{ids:?}");
    assert_eq!(text(&root, "tr[data-gpu-id='rtx-6000-ada'] .cc"), "8.9");
    assert_eq!(text(&root, "tr[data-gpu-id='rtx-pro-6000-blackwell'] .cc"), "12.0");
}

#[wasm_bindgen_test]
async fn filters_combine_and_clear() {
    let root = mount().await;
    choose(&root, "#filter-fp4", "true").await;
    choose(&root, "#filter-memory", "180").await;
    let expected = ids_matching(&GpuFilter {
        fp4: Some(true),
        min_memory_gb: Some(180),
        ..Default::default()
    });
    assert_eq!(shown_ids(&root), expected);
    assert!(expected.contains(&"b300".to_string()) && !expected.contains(&"rtx-5090".to_string()));
    choose(&root, "#filter-cc", "8.9").await;
    assert!(shown_ids(&root).is_empty());
    assert!(text(&root, ".gpu-list").contains("No GPU matches"));
    q(&root, "button.clear").unchecked_into::<HtmlElement>().click();
    tick().await;
    assert_eq!(shown_ids(&root).len(), GPUS.len());
    assert_eq!(q(&root, "#filter-fp4").unchecked_into::<HtmlSelectElement>().value(), "");
}

#[wasm_bindgen_test]
async fn clicking_a_gpu_selects_it_and_puts_it_in_the_link() {
    let root = mount().await;
    q(&root, "tr[data-gpu-id='jetson-agx-thor'] button.pick")
        .unchecked_into::<HtmlElement>()
        .click();
    tick().await;
    assert_eq!(text(&root, "#detail-name"), "NVIDIA Jetson AGX Thor (Jetson T5000)");
    let cc = text(&root, "#detail-cc");
    assert!(cc.starts_with("11.0"), "{cc}");
    assert!(cc.contains("10.1 (sm_101)") && cc.contains("CUDA 12.8/12.9"), "{cc}");
    assert_eq!(
        q(&root, "tr[data-gpu-id='jetson-agx-thor'] button.pick")
            .get_attribute("aria-pressed")
            .as_deref(),
        Some("true")
    );
    assert_eq!(web_sys::window().unwrap().location().hash().unwrap(), "#gpu=jetson-agx-thor");
}

#[wasm_bindgen_test]
async fn a_link_selects_its_gpu_and_a_bad_link_says_what_was_wrong() {
    let root = mount_with_hash("#gpu=l4").await;
    assert_eq!(text(&root, "#detail-name"), "NVIDIA L4");
    assert!(root.query_selector("#notices").unwrap().is_none());

    let root = mount_with_hash("#gpu=h900&oops").await;
    let notices = text(&root, "#notices");
    assert!(notices.contains("`h900`") && notices.contains("`oops`"), "{notices}");
    assert_eq!(shown_ids(&root).len(), GPUS.len(), "the page stays usable");
    q(&root, "#notices button").unchecked_into::<HtmlElement>().click();
    tick().await;
    assert!(root.query_selector("#notices").unwrap().is_none());
}
