//! A panic in the wasm must never leave a blank page: the hook writes a visible error box at the top of the document
//! (its message, where it happened, and what to do) before the release build aborts. The text is selectable, so it can
//! be pasted into an issue.

use std::panic::PanicHookInfo;

/// The id of the box, so a second panic replaces it instead of stacking.
pub const PANIC_BOX_ID: &str = "qpath-panic";

/// The text the box shows for a panic.
pub fn describe(info: &PanicHookInfo<'_>) -> String {
    let message = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string());
    let place = info
        .location()
        .map(|l| format!(" at {}:{}", l.file(), l.line()))
        .unwrap_or_default();
    let link = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    format!("qpath {} crashed{place}: {message}\nPage: {link}", env!("CARGO_PKG_VERSION"))
}

/// Shows `text` in the error box at the top of the body.
pub fn show(text: &str) {
    let doc = gloo::utils::document();
    let Some(body) = doc.body() else { return };
    if let Some(old) = doc.get_element_by_id(PANIC_BOX_ID) {
        old.remove();
    }
    let Ok(div) = doc.create_element("div") else { return };
    div.set_id(PANIC_BOX_ID);
    let _ = div.set_attribute("role", "alert");
    let _ = div.set_attribute(
        "style",
        "margin:12px;padding:12px 14px;border:2px solid #cf222e;border-radius:6px;background:#ffebe9;color:#1b1f24;\
         font:14px/1.45 system-ui,sans-serif;white-space:pre-wrap;overflow-wrap:anywhere",
    );
    let repository = env!("CARGO_PKG_REPOSITORY");
    let report = if repository.is_empty() {
        "Please report it to the qpath maintainers with the text above (and reload the page to go on).".to_string()
    } else {
        format!("Please report it at {repository}/issues with the text above (and reload the page to go on).")
    };
    div.set_text_content(Some(&format!("Something went wrong inside qpath.\n\n{text}\n\n{report}")));
    let _ = body.insert_before(&div, body.first_child().as_ref());
}

/// Installs the hook (once is enough; later calls replace it with the same one). The default hook still logs to the
/// console.
pub fn install() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        show(&describe(info));
        default(info);
    }));
}
