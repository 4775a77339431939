//! Helpers shared by the browser tests (each `tests/*.rs` file is its own crate and includes this module).
#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use gloo::events::EventListener;
use wasm_bindgen::JsCast;
use web_sys::{Element, MessageEvent};

/// Lets Yew finish what its scheduler holds: the renders and effects that an event handler or a mount scheduled.
/// Event handlers run synchronously when a test dispatches an event; the renders they cause wait for this.
pub use yew::scheduler::flush;

/// Waits (up to two seconds) for a condition that the browser brings about on its own time (history navigation, a
/// custom element's callbacks, a ResizeObserver), checking it after each poll; returns whether it came true.
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
    flush().await;
    // The folded GPU browser's contents and the selects' other options are built after the page's first frame
    // (use_after_first_frame, in the same render): a mounted page is the page once that has happened too.
    let browser_built = || {
        root.query_selector(".gpu-browser")
            .unwrap()
            .is_none_or(|b| b.query_selector("form").unwrap().is_some())
    };
    assert!(eventually(browser_built).await, "the GPU browser's contents never appeared");
    flush().await;
    root
}

/// The page's URL hash (with its `#`).
pub fn location_hash() -> String {
    web_sys::window().unwrap().location().hash().unwrap()
}

/// Waits until the tasks spawned so far (`spawn_local`, such as the explainer's deferred unmount) have run: they run in
/// order, so a marker task spawned now runs after them.
pub async fn spawned_tasks_ran() {
    let ran = Rc::new(Cell::new(false));
    let marker = ran.clone();
    yew::platform::spawn_local(async move { marker.set(true) });
    assert!(eventually(|| ran.get()).await, "a spawned task never ran");
}

/// Waits until the messages posted to this window so far have been delivered: messages arrive in order, so a marker
/// posted now arrives after them.
pub async fn posted_messages_delivered() {
    let window = web_sys::window().unwrap();
    let arrived = Rc::new(Cell::new(false));
    let seen = arrived.clone();
    let _listener = EventListener::new(&window, "message", move |ev| {
        let data = ev.unchecked_ref::<MessageEvent>().data();
        if data.as_string().as_deref() == Some("qpath-test:marker") {
            seen.set(true);
        }
    });
    window.post_message(&"qpath-test:marker".into(), "*").unwrap();
    assert!(eventually(|| arrived.get()).await, "the marker message never arrived");
}
