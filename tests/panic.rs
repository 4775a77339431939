//! Browser test of the panic box (src/panic.rs): what a crash leaves on the page instead of a blank one.
#![cfg(target_arch = "wasm32")]

use qpath_web::panic::{show, PANIC_BOX_ID};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn a_crash_leaves_a_visible_alert_with_its_text_and_what_to_do() {
    let doc = web_sys::window().unwrap().document().unwrap();
    show("qpath 0.1.0 crashed at src/x.rs:1: first");
    show("qpath 0.1.0 crashed at src/x.rs:2: second");
    let boxes = doc.query_selector_all(&format!("#{PANIC_BOX_ID}")).unwrap();
    assert_eq!(boxes.length(), 1, "a second crash replaces the box");
    let alert = doc.get_element_by_id(PANIC_BOX_ID).unwrap();
    assert_eq!(alert.get_attribute("role").as_deref(), Some("alert"));
    let text = alert.text_content().unwrap_or_default();
    assert!(text.starts_with("Something went wrong inside qpath."), "{text}");
    assert!(text.contains("src/x.rs:2: second") && !text.contains("first"), "{text}");
    // The test page is served from 127.0.0.1, not GitHub Pages, and Cargo.toml names no repository: no issue link,
    // but the box says where to take the report.
    assert!(alert.query_selector("a").unwrap().is_none());
    assert!(text.contains("report it to whoever hosts this page"), "{text}");
    assert_eq!(
        doc.body().unwrap().first_element_child().map(|e| e.id()).as_deref(),
        Some(PANIC_BOX_ID)
    );
    alert.remove();
}
