//! Browser test of the panic box (src/panic.rs): what a crash leaves on the page instead of a blank one.
#![cfg(target_arch = "wasm32")]

use std::future::Future;
use std::task::{Context, Waker};

use qpath_web::panic::{show, PANIC_BOX_ID};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn a_crash_leaves_a_visible_alert_with_its_text_and_what_to_do() {
    let doc = web_sys::window().unwrap().document().unwrap();
    show("qpath 0.1.0 crashed at src/x.rs:1: first");
    show("qpath 0.1.0 crashed at src/x.rs:2: second");
    show("qpath 0.1.0 crashed at src/x.rs:3: third");
    let boxes = doc.query_selector_all(&format!("#{PANIC_BOX_ID}")).unwrap();
    assert_eq!(boxes.length(), 1, "a second crash does not stack a box");
    let alert = doc.get_element_by_id(PANIC_BOX_ID).unwrap();
    assert_eq!(alert.get_attribute("role").as_deref(), Some("alert"));
    let text = alert.text_content().unwrap_or_default();
    assert!(text.starts_with("Something went wrong inside qpath."), "{text}");
    // The first crash is the reason; what followed it is counted under it.
    assert!(text.contains("src/x.rs:1: first"), "{text}");
    assert!(
        text.contains("It was followed by 2 more errors, the last: qpath 0.1.0 crashed at src/x.rs:3: third"),
        "{text}"
    );
    // The test page is served from 127.0.0.1, not GitHub Pages, and Cargo.toml names no repository: no issue link,
    // but the box says where to take the report.
    assert!(alert.query_selector("a[target=_blank]").unwrap().is_none());
    assert!(text.contains("report it to whoever hosts this page"), "{text}");
    assert!(
        text.contains("To go on: Reload this page or start over without this link's settings."),
        "{text}"
    );
    assert_eq!(
        doc.body().unwrap().first_element_child().map(|e| e.id()).as_deref(),
        Some(PANIC_BOX_ID)
    );
    alert.remove();
}

/// A waker for one poll that nothing wakes again.
struct NoWake;

impl std::task::Wake for NoWake {
    fn wake(self: std::sync::Arc<Self>) {}
}

/// A component whose hook borrows a `RefCell` twice while it renders: the panic a wedged Yew used to end in.
#[yew::function_component(DoubleBorrow)]
fn double_borrow() -> yew::Html {
    use_double_borrow();
    yew::html! { <p>{ "not reached" }</p> }
}

#[yew::hook]
fn use_double_borrow() {
    let cell = yew::use_mut_ref(|| 0u32);
    let _first = cell.borrow_mut();
    let _second = cell.borrow_mut();
}

#[wasm_bindgen_test]
fn a_panic_in_a_hook_while_rendering_shows_the_crash_box_with_its_reason_and_a_way_back() {
    let doc = web_sys::window().unwrap().document().unwrap();
    qpath_web::panic::install();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    let _app = yew::Renderer::<DoubleBorrow>::with_root(root.clone()).render();
    // Yew renders in its scheduler; run it now, from JavaScript, so that the abort after the panic ends that call (a
    // JS exception caught here) and not the futures queue the test runs in, as it ends an event handler on the page.
    let run = Closure::<dyn FnMut()>::new(|| {
        let mut flush = Box::pin(yew::scheduler::flush());
        let waker = Waker::from(std::sync::Arc::new(NoWake));
        let _ = flush.as_mut().poll(&mut Context::from_waker(&waker));
    });
    let outcome = run.as_ref().unchecked_ref::<js_sys::Function>().call0(&JsValue::NULL);
    assert!(outcome.is_err(), "the render did not abort");
    std::mem::forget(run);
    assert!(
        doc.get_element_by_id(PANIC_BOX_ID).is_some(),
        "no crash box after a panic in a hook"
    );
    let alert = doc.get_element_by_id(PANIC_BOX_ID).unwrap();
    let text = alert.text_content().unwrap_or_default();
    assert!(text.starts_with("Something went wrong inside qpath."), "{text}");
    assert!(
        text.contains("already borrowed") || text.contains("already mutably borrowed"),
        "{text}"
    );
    assert!(text.contains("tests/panic.rs"), "where it happened: {text}");
    assert!(!root.inner_html().contains("not reached"));
    // The way back: reload, or the page without the link's state.
    assert!(alert.query_selector("button.qpath-panic-reload").unwrap().is_some(), "{text}");
    let fresh = alert.query_selector("a.qpath-panic-start-over").unwrap().unwrap();
    assert!(!fresh.get_attribute("href").unwrap_or_default().contains('#'));
    // A later error (the wedged page's next panic) is counted under the first reason, not put in its place.
    show("qpath 0.1.0 crashed at src/x.rs:9: already mutably borrowed: BorrowError");
    let again = alert.text_content().unwrap_or_default();
    assert!(
        again.contains("tests/panic.rs") && again.contains("followed by another error"),
        "{again}"
    );
    alert.remove();
    root.remove();
}
