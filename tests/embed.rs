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

/// The box the element's app renders into, inside its shadow root (None before it is mounted or after it is removed).
fn view(e: &Element) -> Option<Element> {
    e.shadow_root()?.query_selector(".qp-root").unwrap()
}

/// Waits until the element's app has rendered its results and returns its box.
async fn rendered(e: &Element) -> Element {
    assert!(
        eventually(|| view(e).is_some_and(|v| exists(&v, "article.group, .scenario-error"))).await,
        "never rendered: {:?}",
        e.outer_html()
    );
    view(e).unwrap()
}

#[wasm_bindgen_test]
async fn the_element_answers_from_its_attributes_and_follows_changes() {
    let e = explainer(&[("gpu", "l4"), ("vllm", "0.25.0-prefix"), ("cmd", L4_FP8), ("compact", "")]);
    let v = rendered(&e).await;
    assert!(
        text_of(&v, ".group-error").is_some_and(|t| t.contains(FA2_ASSERT)),
        "{:?}",
        v.inner_html()
    );
    assert!(exists(&v, ".qpath-explainer.compact"));
    assert!(!exists(&v, ".explainer-command"), "compact shows the results only");
    assert!(!exists(&v, "#command-line"), "no inputs in the element");
    assert_eq!(e.child_element_count(), 0, "nothing in the host's light DOM");
    assert!(
        e.get_attribute("data-qpath-instance").is_none(),
        "no attribute a copy would carry"
    );

    e.set_attribute("vllm", "0.25.0").unwrap();
    assert!(eventually(|| !exists(&v, ".group-error")).await);
    assert_eq!(field(&v, "q-prefill").as_deref(), Some("bfloat16"));
    assert!(text_of(&v, "#result-stamp").unwrap().contains("vLLM 0.25.0"));

    e.remove_attribute("compact").unwrap();
    assert!(eventually(|| text_of(&v, ".explainer-command code").as_deref() == Some(L4_FP8)).await);
    e.remove();
}

#[wasm_bindgen_test]
async fn two_elements_answer_independently() {
    let crash = explainer(&[("gpu", "l4"), ("vllm", "0.25.0-prefix"), ("cmd", L4_FP8)]);
    let fixed = explainer(&[("gpu", "l4"), ("vllm", "0.25.0"), ("cmd", L4_FP8)]);
    let (c, f) = (rendered(&crash).await, rendered(&fixed).await);
    assert!(exists(&c, ".group-error") && !exists(&f, ".group-error"));
    assert_eq!(field(&c, "q-prefill").as_deref(), Some("float8_e4m3fn"));
    assert_eq!(field(&f, "q-prefill").as_deref(), Some("bfloat16"));

    // Changing one leaves the other as it was.
    crash.set_attribute("gpu", "h100-sxm").unwrap();
    assert!(eventually(|| text_of(&c, "#result-stamp").is_some_and(|t| t.contains("H100"))).await);
    assert!(text_of(&f, "#result-stamp").unwrap().contains("L4"));
    crash.remove();
    fixed.remove();
}

#[wasm_bindgen_test]
async fn a_bad_attribute_is_named_and_the_results_still_show() {
    let e = explainer(&[("gpu", "h900"), ("vllm", "0.25.0"), ("theme", "dark")]);
    let v = rendered(&e).await;
    assert!(eventually(|| exists(&v, ".explainer-notices")).await);
    let notice = text_of(&v, ".explainer-notices").unwrap();
    assert!(notice.contains("gpu=\"h900\" is not in qpath's GPU table"), "{notice}");
    assert!(exists(&v, "article.group"), "results for the default GPU");
    // The core's default GPU, as for the JS API and the CLI.
    assert!(text_of(&v, "#result-stamp").unwrap().contains("H100 SXM"));

    e.set_attribute("gpu", "l4").unwrap();
    assert!(eventually(|| !exists(&v, ".explainer-notices")).await);
    e.set_attribute("theme", "sepia").unwrap();
    assert!(eventually(|| text_of(&v, ".explainer-notices").is_some_and(|t| t.contains("theme=\"sepia\""))).await);
    e.remove();
}

#[wasm_bindgen_test]
async fn removing_the_element_unmounts_it_and_moving_it_does_not() {
    let e = explainer(&[("gpu", "l4"), ("vllm", "0.25.0-prefix")]);
    let v = rendered(&e).await;
    let id = embed::instance_of(&e).expect("an instance");

    // A move (append elsewhere) keeps the app and its box.
    let holder = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&holder).unwrap();
    holder.append_child(&e).unwrap();
    spawned_tasks_ran().await;
    assert_eq!(embed::instance_of(&e), Some(id));
    assert!(view(&e).is_some_and(|now| now == v), "the same box");
    e.set_attribute("vllm", "0.25.0").unwrap();
    assert!(eventually(|| !exists(&v, ".group-error") && exists(&v, "article.group")).await);

    let before = embed::mounted_count();
    holder.remove();
    assert!(eventually(|| view(&e).is_none()).await, "the shadow root is emptied");
    assert_eq!(embed::mounted_count(), before - 1);
    assert!(embed::instance_of(&e).is_none());
    // Attribute changes on a removed element do nothing.
    e.set_attribute("vllm", "0.25.0-prefix").unwrap();
    flush().await;
    assert!(view(&e).is_none());
    // Put back, it renders again.
    document().body().unwrap().append_child(&e).unwrap();
    let v = rendered(&e).await;
    assert!(exists(&v, ".group-error"));
    e.remove();
}

/// A copy of an element (cloneNode) is a new element with its own app: changing or removing the copy leaves the
/// original as it was.
#[wasm_bindgen_test]
async fn a_cloned_element_is_independent_and_removing_it_keeps_the_original() {
    let original = explainer(&[("gpu", "l4"), ("vllm", "0.25.0-prefix"), ("cmd", L4_FP8)]);
    let v = rendered(&original).await;
    let id = embed::instance_of(&original).unwrap();
    let before = embed::mounted_count();

    let copy: Element = original.clone_node_with_deep(true).unwrap().unchecked_into();
    document().body().unwrap().append_child(&copy).unwrap();
    let c = rendered(&copy).await;
    assert_ne!(embed::instance_of(&copy), Some(id), "the copy has its own app");
    assert_eq!(embed::mounted_count(), before + 1);
    assert!(exists(&c, ".group-error"));

    copy.set_attribute("vllm", "0.25.0").unwrap();
    assert!(eventually(|| !exists(&c, ".group-error")).await);
    assert!(exists(&v, ".group-error"), "the original did not follow its copy");

    copy.remove();
    assert!(eventually(|| embed::mounted_count() == before).await);
    assert_eq!(embed::instance_of(&original), Some(id));
    assert!(
        exists(&v, ".group-error") && exists(&v, "article.group"),
        "the original still shows its results"
    );
    original.set_attribute("vllm", "0.25.0").unwrap();
    assert!(
        eventually(|| !exists(&v, ".group-error")).await,
        "and still follows its attributes"
    );
    original.remove();
}

/// An innerHTML round trip and markup from an earlier render (stale children and the old `data-qpath-instance`
/// attribute naming a live app) make new, independent elements.
#[wasm_bindgen_test]
async fn innerhtml_round_trips_and_pre_rendered_markup_make_independent_elements() {
    let live = explainer(&[("gpu", "l4"), ("vllm", "0.25.0-prefix")]);
    let lv = rendered(&live).await;
    let id = embed::instance_of(&live).unwrap();

    let holder = document().create_element("div").unwrap();
    holder.set_inner_html(&format!(
        "<qpath-explainer gpu=\"t4\" vllm=\"0.25.0\" data-qpath-instance=\"{id}\">\
         <div class=\"qpath-explainer\"><p>stale render</p></div></qpath-explainer>"
    ));
    document().body().unwrap().append_child(&holder).unwrap();
    let old = holder.first_element_child().unwrap();
    let ov = rendered(&old).await;
    assert!(text_of(&ov, "#result-stamp").unwrap().contains("T4"));
    assert_ne!(embed::instance_of(&old), Some(id));

    // The round trip: the old element goes (its app with it), a new one comes.
    let before = embed::mounted_count();
    holder.set_inner_html(&holder.inner_html());
    let new = holder.first_element_child().unwrap();
    assert!(new != old);
    let nv = rendered(&new).await;
    assert!(text_of(&nv, "#result-stamp").unwrap().contains("T4"));
    assert!(eventually(|| embed::instance_of(&old).is_none()).await);
    assert_eq!(embed::mounted_count(), before);

    holder.remove();
    assert!(eventually(|| embed::instance_of(&new).is_none()).await);
    assert_eq!(
        embed::instance_of(&live),
        Some(id),
        "the live element whose number the markup carried is untouched"
    );
    assert!(exists(&lv, ".group-error"));
    live.remove();
}

fn computed(e: &Element, property: &str) -> String {
    web_sys::window()
        .unwrap()
        .get_computed_style(e)
        .unwrap()
        .unwrap()
        .get_property_value(property)
        .unwrap()
}

/// The element's styles live in its shadow root: the host's own elements look the same with and without it, and
/// the host's root font size (mdBook: 10 px) does not change the element's text.
#[wasm_bindgen_test]
async fn the_styles_stay_inside_and_ignore_the_hosts_root_font_size() {
    let doc = document();
    let probe = doc.create_element("div").unwrap();
    probe.set_inner_html("<h2>Host</h2><table><tr><td>a cell</td></tr></table><code>x</code><a href=\"#\">link</a>");
    doc.body().unwrap().append_child(&probe).unwrap();
    let props = [
        "font-size",
        "color",
        "background-color",
        "white-space",
        "font-family",
        "margin-top",
    ];
    let snapshot = || {
        ["h2", "td", "code", "a"]
            .iter()
            .flat_map(|s| props.iter().map(move |p| (s, p)))
            .map(|(s, p)| computed(&q(&probe, s), p))
            .collect::<Vec<_>>()
    };
    let html: web_sys::HtmlElement = doc.document_element().unwrap().unchecked_into();
    html.style().set_property("font-size", "10px").unwrap();
    let body_before = (
        computed(&doc.body().unwrap(), "background-color"),
        computed(&doc.body().unwrap(), "font-size"),
    );
    let without = snapshot();

    let e = explainer(&[("gpu", "l4"), ("vllm", "0.25.0-prefix"), ("cmd", L4_FP8)]);
    let v = rendered(&e).await;
    assert_eq!(snapshot(), without, "the host's elements look the same");
    assert_eq!(
        (
            computed(&doc.body().unwrap(), "background-color"),
            computed(&doc.body().unwrap(), "font-size")
        ),
        body_before
    );
    assert_eq!(computed(&q(&v, ".qpath-explainer"), "font-size"), "15px");
    assert_eq!(
        computed(&q(&v, "article.group h3"), "font-size"),
        "16px",
        "1rem of results.css is 16 px"
    );
    assert_eq!(computed(&q(&v, ".stamp"), "font-size"), "13.6px");
    // Styled at all: the box has its border and the error its colour.
    assert_eq!(computed(&q(&v, ".qpath-explainer"), "border-top-style"), "solid");
    assert_eq!(computed(&q(&v, ".group-error"), "border-left-width"), "5px");
    html.style().remove_property("font-size").unwrap();
    probe.remove();
    e.remove();
}

/// The scheme `theme="auto"` (or no theme) takes: the box's class, "light" or "dark".
fn scheme_of(e: &Element) -> &'static str {
    let v = view(e).unwrap();
    match (v.class_list().contains("dark"), v.class_list().contains("light")) {
        (true, false) => "dark",
        (false, true) => "light",
        other => panic!("the box has no single scheme: {other:?}"),
    }
}

/// theme="auto" follows the host site's theme switch (each generator's convention, set and changed at run time), a
/// forced theme ignores it, and without any sign from the site the OS preference decides.
#[wasm_bindgen_test]
async fn auto_follows_the_host_sites_theme_and_its_changes() {
    let doc = document();
    let html = doc.document_element().unwrap();
    let body: Element = doc.body().unwrap().into();
    let os = if web_sys::window()
        .unwrap()
        .match_media("(prefers-color-scheme: dark)")
        .unwrap()
        .is_some_and(|m| m.matches())
    {
        "dark"
    } else {
        "light"
    };
    let auto = explainer(&[("gpu", "l4"), ("theme", "auto")]);
    let absent = explainer(&[("gpu", "l4")]);
    let forced = explainer(&[("gpu", "l4"), ("theme", "light")]);
    for e in [&auto, &absent, &forced] {
        rendered(e).await;
    }
    assert_eq!((scheme_of(&auto), scheme_of(&absent), scheme_of(&forced)), (os, os, "light"));

    // (element, attribute or class, value, scheme): set, checked, then removed again.
    let cases: [(&Element, &str, &str, &str); 10] = [
        (&body, "data-md-color-scheme", "slate", "dark"), // Material
        (&body, "data-md-color-scheme", "default", "light"),
        (&body, "data-theme", "dark", "dark"), // Furo
        (&body, "data-theme", "light", "light"),
        (&html, "data-theme", "dark", "dark"), // pydata-sphinx-theme
        (&html, "class", "coal", "dark"),      // mdBook
        (&html, "class", "navy", "dark"),
        (&html, "class", "rust", "light"),
        (&body, "class", "wy-body-for-nav", "light"), // sphinx_rtd_theme
        (&html, "style", "color-scheme: dark", "dark"),
    ];
    for (target, name, value, want) in cases {
        target.set_attribute(name, value).unwrap();
        let ok = eventually(|| scheme_of(&auto) == want && scheme_of(&absent) == want).await;
        assert!(ok, "{name}={value}: got {}", scheme_of(&auto));
        assert_eq!(scheme_of(&forced), "light", "a forced theme stays");
        target.remove_attribute(name).unwrap();
        assert!(eventually(|| scheme_of(&auto) == os).await, "{name}={value} removed");
    }
    // Furo's "auto" is the OS preference; a switch to the other scheme at run time is followed.
    body.set_attribute("data-theme", "auto").unwrap();
    flush().await;
    assert_eq!(scheme_of(&auto), os);
    let other = if os == "dark" { "light" } else { "dark" };
    body.set_attribute("data-theme", other).unwrap();
    assert!(eventually(|| scheme_of(&auto) == other).await);
    forced.set_attribute("theme", "dark").unwrap();
    assert!(eventually(|| scheme_of(&forced) == "dark").await);
    forced.remove_attribute("theme").unwrap();
    assert!(
        eventually(|| scheme_of(&forced) == other).await,
        "no theme attribute: the site's"
    );
    body.remove_attribute("data-theme").unwrap();
    assert!(eventually(|| scheme_of(&auto) == os).await);
    for e in [auto, absent, forced] {
        e.remove();
    }
}

// --- The page in an iframe ---

/// Records the `qpath:*` messages this window receives.
fn qpath_messages() -> (Rc<RefCell<Vec<String>>>, EventListener) {
    qpath_messages_in(&web_sys::window().unwrap())
}

/// Records the `qpath:*` messages a window receives (by type).
fn qpath_messages_in(window: &web_sys::Window) -> (Rc<RefCell<Vec<String>>>, EventListener) {
    let got = Rc::new(RefCell::new(vec![]));
    let sink = got.clone();
    let listener = EventListener::new(window, "message", move |ev| {
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
    let msgs = embed::messages_for(Some("https://docs.example.com".into()), hash, 812.3);
    assert_eq!(msgs.len(), 2);
    let msgs: Vec<JsValue> = msgs.iter().map(Message::to_js).collect();
    let get = |v: &JsValue, k: &str| js_sys::Reflect::get(v, &k.into()).unwrap();
    assert_eq!(get(&msgs[0], "type").as_string().as_deref(), Some("qpath:state"));
    assert_eq!(get(&msgs[0], "hash").as_string().as_deref(), Some(hash));
    assert_eq!(get(&msgs[1], "type").as_string().as_deref(), Some("qpath:resize"));
    assert_eq!(get(&msgs[1], "height").as_f64(), Some(813.0));
    // Plain data (the target origin is not part of it): it survives structured cloning as JSON does.
    let json = |v: &JsValue| js_sys::JSON::stringify(v).unwrap().as_string().unwrap();
    assert_eq!(
        json(&msgs[0]),
        r##"{"type":"qpath:state","hash":"#embed=1&gpu=l4&vllm=0.25.0"}"##
    );
    assert_eq!(json(&msgs[1]), r#"{"type":"qpath:resize","height":813}"#);
}

/// The iframe's target origins, as the browser applies them: a window (here a same-origin frame standing for the
/// embedder) receives the state message only when it is the origin the frame's URL named; the height goes to any
/// parent; with no origin named there is no state message at all.
#[wasm_bindgen_test]
async fn the_state_message_goes_only_to_the_named_origin() {
    let doc = document();
    let frame: web_sys::HtmlIFrameElement = doc.create_element("iframe").unwrap().unchecked_into();
    doc.body().unwrap().append_child(&frame).unwrap();
    let embedder = frame.content_window().expect("the frame's window");
    let (got, _listener) = qpath_messages_in(&embedder);
    let own = web_sys::window().unwrap().location().origin().unwrap();
    let delivered = || async {
        // Messages to one window arrive in order: a marker posted last arrives after the others.
        let (seen, _l) = qpath_messages_in(&embedder);
        let marker = js_sys::Object::new();
        js_sys::Reflect::set(&marker, &"type".into(), &"qpath:marker".into()).unwrap();
        embedder.post_message(&marker, "*").unwrap();
        assert!(eventually(|| !seen.borrow().is_empty()).await, "the marker never arrived");
    };

    let hash = format!("#embed=1&origin={}&gpu=l4", qpath_web::hash::form_encode(&own));
    let named = qpath_web::state::Page::from_hash(&hash).origin;
    assert_eq!(named.as_deref(), Some(own.as_str()));
    for m in embed::messages_for(named, "#embed=1&gpu=l4", 300.0) {
        assert!(embed::post_to(&embedder, &m));
    }
    delivered().await;
    assert_eq!(
        got.borrow().as_slice(),
        ["qpath:state", "qpath:resize", "qpath:marker"],
        "the named origin gets the state and the height"
    );

    got.borrow_mut().clear();
    let other = qpath_web::state::Page::from_hash("#embed=1&origin=https%3A%2F%2Fdocs.example.com").origin;
    for m in embed::messages_for(other, "#embed=1&gpu=l4", 300.0) {
        assert!(embed::post_to(&embedder, &m));
    }
    delivered().await;
    assert_eq!(
        got.borrow().as_slice(),
        ["qpath:resize", "qpath:marker"],
        "another origin's window gets the height only"
    );

    got.borrow_mut().clear();
    let none = embed::messages_for(
        qpath_web::state::Page::from_hash("#embed=1&gpu=l4").origin,
        "#embed=1&gpu=l4",
        300.0,
    );
    assert_eq!(
        none,
        vec![Message::Resize { height: 300 }],
        "no origin named: no state message"
    );
    frame.remove();
}

#[wasm_bindgen_test]
async fn a_top_level_page_posts_nothing() {
    // The test page is the top window: window.parent == window, so there is no parent to tell.
    assert!(embed::parent_window().is_none());
    let (got, _listener) = qpath_messages();
    assert!(!embed::post(&Message::Resize { height: 10 }));
    let own = web_sys::window().unwrap().location().origin().unwrap();
    assert!(!embed::post(&Message::State {
        hash: "#embed=1".into(),
        origin: own.clone()
    }));
    // An embedded App (its effects would post state and height) also posts nothing to itself.
    let root = mount_with_hash(&format!("#embed=1&origin={own}&gpu=t4")).await;
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
