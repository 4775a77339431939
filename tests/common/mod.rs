//! Helpers shared by the browser tests (each `tests/*.rs` file is its own crate and includes this module).
#![allow(dead_code)]

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
