//! Helpers shared by the browser tests (each `tests/*.rs` file is its own crate and includes this module).
#![allow(dead_code)]

use std::cell::RefCell;
use std::time::Duration;

use web_sys::Element;

/// Lets Yew run its scheduled renders.
pub async fn tick() {
    yew::platform::time::sleep(Duration::from_millis(30)).await;
}

/// Waits (up to two seconds) for a condition that a render or an effect brings about, such as the URL being written;
/// returns whether it came true. Browsers differ in when effects run relative to a fixed tick.
pub async fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    for _ in 0..100 {
        if cond() {
            return true;
        }
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    cond()
}

/// The element matching `selector` under `root`; a test failure naming the selector when there is none.
pub fn q(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {selector}"))
}

pub fn exists(root: &Element, selector: &str) -> bool {
    root.query_selector(selector).unwrap().is_some()
}

thread_local! {
    /// The apps earlier tests mounted: unmounted before the next mounts, so their URL listeners stay out of its way.
    static MOUNTED: RefCell<Vec<(yew::AppHandle<qpath_web::App>, Element)>> = const { RefCell::new(Vec::new()) };
}

/// A fresh page: the URL hash it starts from, a new container holding a new App (earlier apps are unmounted).
pub async fn mount_with_hash(hash: &str) -> Element {
    MOUNTED.with(|m| {
        for (app, root) in m.borrow_mut().drain(..) {
            app.destroy();
            root.remove();
        }
    });
    let window = web_sys::window().unwrap();
    let url = if hash.is_empty() {
        window.location().pathname().unwrap()
    } else {
        hash.to_string()
    };
    window
        .history()
        .unwrap()
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        .unwrap();
    let doc = window.document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    let app = yew::Renderer::<qpath_web::App>::with_root(root.clone()).render();
    MOUNTED.with(|m| m.borrow_mut().push((app, root.clone())));
    tick().await;
    root
}

/// The page's URL hash (with its `#`).
pub fn location_hash() -> String {
    web_sys::window().unwrap().location().hash().unwrap()
}
