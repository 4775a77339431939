//! Browser tests of the embeds (src/embed.rs): the `<qpath-explainer>` element built with the DOM API as a host page
//! would, and the page in embed mode (`#embed=1`): its chrome, its hash and its messages to a parent window.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use qpath_web::embed::{self, Message};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, MessageEvent};

mod common;
use common::*;

wasm_bindgen_test_configure!(run_in_browser);

const L4_FP8: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8";
const FA2_ASSERT: &str = "fp8 tensor core is not supported in fa2 backend";

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A `<qpath-explainer>` with these attributes (a value of "" makes a boolean attribute), appended to the body.
fn explainer(attributes: &[(&str, &str)]) -> Element {
    embed::define_explainer();
    let e = document().create_element("qpath-explainer").unwrap();
    for (k, v) in attributes {
        e.set_attribute(k, v).unwrap();
    }
    document().body().unwrap().append_child(&e).unwrap();
    e
}

fn text_of(root: &Element, selector: &str) -> Option<String> {
    root.query_selector(selector)
        .unwrap()
        .map(|e| e.text_content().unwrap_or_default())
}

/// The first value of a results field (`q-prefill`, `kernel-decode`, …) in the element.
fn field(root: &Element, class: &str) -> Option<String> {
    text_of(root, &format!("article.group .{class}")).map(|t| t.trim().to_string())
}

#[wasm_bindgen_test]
async fn the_element_answers_from_its_attributes_and_follows_changes() {
    let e = explainer(&[("gpu", "l4"), ("vllm", "0.25.0-prefix"), ("cmd", L4_FP8), ("compact", "")]);
    assert!(
        eventually(|| text_of(&e, ".group-error").is_some_and(|t| t.contains(FA2_ASSERT))).await,
        "{:?}",
        e.inner_html()
    );
    assert!(exists(&e, ".qpath-explainer.compact"));
    assert!(!exists(&e, ".explainer-command"), "compact shows the results only");
    assert!(!exists(&e, "#command-line"), "no inputs in the element");

    e.set_attribute("vllm", "0.25.0").unwrap();
    assert!(eventually(|| !exists(&e, ".group-error")).await);
    assert_eq!(field(&e, "q-prefill").as_deref(), Some("bfloat16"));
    assert!(text_of(&e, "#result-stamp").unwrap().contains("vLLM 0.25.0"));

    e.remove_attribute("compact").unwrap();
    assert!(eventually(|| text_of(&e, ".explainer-command code").as_deref() == Some(L4_FP8)).await);
    e.remove();
}

#[wasm_bindgen_test]
async fn two_elements_answer_independently() {
    let crash = explainer(&[("gpu", "l4"), ("vllm", "0.25.0-prefix"), ("cmd", L4_FP8)]);
    let fixed = explainer(&[("gpu", "l4"), ("vllm", "0.25.0"), ("cmd", L4_FP8)]);
    assert!(eventually(|| exists(&crash, ".group-error") && field(&fixed, "q-prefill").is_some()).await);
    assert!(!exists(&fixed, ".group-error"));
    assert_eq!(field(&crash, "q-prefill").as_deref(), Some("float8_e4m3fn"));
    assert_eq!(field(&fixed, "q-prefill").as_deref(), Some("bfloat16"));

    // Changing one leaves the other as it was.
    crash.set_attribute("gpu", "h100-sxm").unwrap();
    assert!(eventually(|| text_of(&crash, "#result-stamp").is_some_and(|t| t.contains("H100"))).await);
    assert!(text_of(&fixed, "#result-stamp").unwrap().contains("L4"));
    crash.remove();
    fixed.remove();
}

#[wasm_bindgen_test]
async fn a_bad_attribute_is_named_and_the_results_still_show() {
    let e = explainer(&[("gpu", "h900"), ("vllm", "0.25.0"), ("theme", "dark")]);
    assert!(eventually(|| exists(&e, ".explainer-notices")).await);
    let notice = text_of(&e, ".explainer-notices").unwrap();
    assert!(notice.contains("gpu=\"h900\" is not in qpath's GPU table"), "{notice}");
    assert!(exists(&e, "article.group"), "results for the default GPU");
    // The core's default GPU, as for the JS API and the CLI.
    assert!(text_of(&e, "#result-stamp").unwrap().contains("H100 SXM"));

    let wrapper = e.query_selector(".qpath-explainer").unwrap().unwrap();
    assert!(wrapper.class_list().contains("dark"));
    assert_eq!(wrapper.get_attribute("style").as_deref(), Some("color-scheme: dark"));
    e.set_attribute("theme", "light").unwrap();
    assert!(eventually(|| e.query_selector(".qpath-explainer.light").unwrap().is_some()).await);
    e.remove_attribute("theme").unwrap();
    assert!(
        eventually(|| {
            let w = e.query_selector(".qpath-explainer").unwrap().unwrap();
            w.get_attribute("style").is_none() && !w.class_list().contains("light")
        })
        .await
    );

    e.set_attribute("gpu", "l4").unwrap();
    assert!(eventually(|| !exists(&e, ".explainer-notices")).await);
    e.remove();
}

#[wasm_bindgen_test]
async fn removing_the_element_unmounts_it_and_moving_it_does_not() {
    let e = explainer(&[("gpu", "l4"), ("vllm", "0.25.0-prefix")]);
    assert!(eventually(|| exists(&e, ".group-error")).await);
    let id = e.get_attribute(embed::INSTANCE_ATTRIBUTE).expect("an instance number");

    // A move (append elsewhere) keeps the app.
    let holder = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&holder).unwrap();
    holder.append_child(&e).unwrap();
    spawned_tasks_ran().await;
    assert_eq!(e.get_attribute(embed::INSTANCE_ATTRIBUTE), Some(id));
    e.set_attribute("vllm", "0.25.0").unwrap();
    assert!(eventually(|| !exists(&e, ".group-error") && exists(&e, "article.group")).await);

    let before = embed::mounted_count();
    holder.remove();
    assert!(eventually(|| e.child_element_count() == 0).await, "{}", e.inner_html());
    assert_eq!(embed::mounted_count(), before - 1);
    assert!(e.get_attribute(embed::INSTANCE_ATTRIBUTE).is_none());
    // Attribute changes on a removed element do nothing.
    e.set_attribute("vllm", "0.25.0-prefix").unwrap();
    flush().await;
    assert_eq!(e.child_element_count(), 0);
    // Put back, it renders again.
    document().body().unwrap().append_child(&e).unwrap();
    assert!(eventually(|| exists(&e, ".group-error")).await);
    e.remove();
}

// --- The page in an iframe ---

/// Records the `qpath:*` messages this window receives.
fn qpath_messages() -> (Rc<RefCell<Vec<String>>>, EventListener) {
    let got = Rc::new(RefCell::new(vec![]));
    let sink = got.clone();
    let listener = EventListener::new(&web_sys::window().unwrap(), "message", move |ev| {
        let data = ev.unchecked_ref::<MessageEvent>().data();
        let kind = js_sys::Reflect::get(&data, &"type".into())
            .ok()
            .and_then(|t| t.as_string())
            .unwrap_or_default();
        if kind.starts_with("qpath:") {
            sink.borrow_mut().push(kind);
        }
    });
    (got, listener)
}

#[wasm_bindgen_test]
async fn embed_mode_drops_the_chrome_and_keeps_embed_in_the_hash() {
    let root = mount_with_hash("#gpu=l4&vllm=0.25.0-prefix").await;
    assert!(exists(&root, ".site-header") && exists(&root, ".site-footer") && exists(&root, ".share"));
    assert!(!exists(&root, ".qpath.embed"));

    let cmd = "vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8";
    let root = mount_with_hash(&format!("#embed=1&gpu=l4&vllm=0.25.0-prefix&cmd={cmd}")).await;
    assert!(exists(&root, ".qpath.embed"));
    assert!(!exists(&root, ".site-header"));
    assert!(!exists(&root, ".site-footer"));
    assert!(!exists(&root, ".share"));
    assert!(!exists(&root, "#notices"), "embed is a key qpath reads");
    assert!(text_of(&root, ".group-error").unwrap().contains(FA2_ASSERT));
    assert!(exists(&root, "#command-line"), "the inputs stay");
    assert!(
        eventually(|| location_hash().starts_with("#embed=1&gpu=l4&vllm=0.25.0-prefix&cuda=12.9&cubins=default&cmd=")).await,
        "{}",
        location_hash()
    );

    // Incoming messages have no effect: the protocol is one-way.
    let before = location_hash();
    let window = web_sys::window().unwrap();
    let set = js_sys::Object::new();
    js_sys::Reflect::set(&set, &"type".into(), &"qpath:setState".into()).unwrap();
    js_sys::Reflect::set(&set, &"hash".into(), &"#embed=1&gpu=h100-sxm".into()).unwrap();
    window.post_message(&set, "*").unwrap();
    posted_messages_delivered().await;
    flush().await;
    assert_eq!(location_hash(), before);
    assert!(text_of(&root, "#selected-gpu").unwrap().contains("L4"));
}

#[wasm_bindgen_test]
async fn the_messages_have_the_protocols_shape() {
    let hash = "#embed=1&gpu=l4&vllm=0.25.0";
    let msgs = embed::messages_for(hash, 812.3);
    assert_eq!(msgs.len(), 2);
    let get = |v: &JsValue, k: &str| js_sys::Reflect::get(v, &k.into()).unwrap();
    assert_eq!(get(&msgs[0], "type").as_string().as_deref(), Some("qpath:state"));
    assert_eq!(get(&msgs[0], "hash").as_string().as_deref(), Some(hash));
    assert_eq!(get(&msgs[1], "type").as_string().as_deref(), Some("qpath:resize"));
    assert_eq!(get(&msgs[1], "height").as_f64(), Some(813.0));
    // Plain data: it survives structured cloning as JSON does.
    let json = js_sys::JSON::stringify(&msgs[1]).unwrap().as_string().unwrap();
    assert_eq!(json, r#"{"type":"qpath:resize","height":813}"#);
}

#[wasm_bindgen_test]
async fn a_top_level_page_posts_nothing() {
    // The test page is the top window: window.parent == window, so there is no parent to tell.
    assert!(embed::parent_window().is_none());
    let (got, _listener) = qpath_messages();
    assert!(!embed::post(&Message::Resize { height: 10 }));
    assert!(!embed::post(&Message::State { hash: "#embed=1".into() }));
    // An embedded App (its effects would post state and height) also posts nothing to itself.
    let root = mount_with_hash("#embed=1&gpu=t4").await;
    assert!(exists(&root, ".qpath.embed"));
    grow(&root).await;
    posted_messages_delivered().await;
    assert!(got.borrow().is_empty(), "{:?}", got.borrow());
}

/// Changes the embedded app's size and waits until its ResizeObserver has fired: one observing the same element,
/// created after the app's, is called after it.
async fn grow(root: &Element) {
    let app = root.first_element_child().unwrap();
    let seen = Rc::new(RefCell::new(false));
    let sink = seen.clone();
    let callback = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || *sink.borrow_mut() = true);
    let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).unwrap();
    observer.observe(&app);
    // The first observation reports the current size; the one that matters is the change.
    assert!(eventually(|| *seen.borrow()).await, "no first observation");
    *seen.borrow_mut() = false;
    let pad = document().create_element("div").unwrap();
    pad.set_attribute("style", "height: 300px").unwrap();
    app.append_child(&pad).unwrap();
    assert!(eventually(|| *seen.borrow()).await, "the app's size never changed");
    observer.disconnect();
}

/// A panic never leaves a blank page: the hook shows a visible, reportable error box.
#[wasm_bindgen_test]
async fn a_panic_shows_a_visible_error() {
    qpath_web::panic::show("qpath 0.1.0 crashed at src/x.rs:1: test panic\nPage: http://example/");
    let doc = document();
    let boxed = doc.get_element_by_id(qpath_web::panic::PANIC_BOX_ID).expect("the error box");
    let text = boxed.text_content().unwrap_or_default();
    assert!(
        text.contains("Something went wrong inside qpath") && text.contains("test panic") && text.contains("report"),
        "{text}"
    );
    assert_eq!(boxed.get_attribute("role").as_deref(), Some("alert"));
    // A second panic replaces the box.
    qpath_web::panic::show("second");
    assert_eq!(
        doc.query_selector_all(&format!("#{}", qpath_web::panic::PANIC_BOX_ID))
            .unwrap()
            .length(),
        1
    );
    boxed.remove();
    if let Some(b) = doc.get_element_by_id(qpath_web::panic::PANIC_BOX_ID) {
        b.remove();
    }
}
