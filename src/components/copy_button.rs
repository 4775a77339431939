//! Copy buttons that say what happened beside themselves (role=status): "Copied", or why not (no clipboard API, not a
//! secure context, permission denied). The clipboard call is a small JS function that catches the missing API, a
//! throw and a rejection, so nothing is left uncaught; it writes the outcome into the status element after the button.
//! A plain function, not a component (a component and its futures cost ~2 KB of gzip wasm).

use wasm_bindgen::prelude::*;
use yew::prelude::*;

#[wasm_bindgen(inline_js = r#"
export function copy_text(text, button) {
  const say = (m) => { const s = button.nextElementSibling; if (s) s.textContent = m; };
  const c = navigator.clipboard;
  if (!c || typeof c.writeText != "function") {
    return say(isSecureContext
      ? "Not copied: this browser has no clipboard API; select the text and copy it."
      : "Not copied: browsers allow the clipboard only on https or localhost pages; select the text and copy it.");
  }
  new Promise((ok) => ok(c.writeText(text))).then(() => say("Copied"), (e) => say(e && e.name == "NotAllowedError"
    ? "Not copied: the browser denied clipboard access (permission, or the page lost focus)."
    : "Not copied: the clipboard refused (" + String(e && e.name + ": " + e.message).slice(0, 80) + ")."));
}
// For hooks.rs's use_after_first_frame (here to share this snippet's request): settles in a task after the next
// animation frame, which is painted by then, or after 100 ms in a page that gets no frames (a hidden tab).
export function after_first_frame() {
  return new Promise((done) => { requestAnimationFrame(() => setTimeout(done, 0)); setTimeout(done, 100); });
}
"#)]
extern "C" {
    fn copy_text(text: &str, button: &web_sys::Element);
    pub(crate) fn after_first_frame() -> js_sys::Promise;
}

/// A button `id` labelled `label` that copies `text`, and its status line `{id}-status`.
pub fn copy_button(id: &'static str, label: &'static str, text: String) -> Html {
    // Yew delegates events to its root, so the button is the event's target, not its current target.
    let onclick = Callback::from(move |e: MouseEvent| {
        if let Some(button) = e.target_dyn_into::<web_sys::Element>() {
            copy_text(&text, &button);
        }
    });
    html! {
        <>
            <button type="button" {id} {onclick}>{ label }</button>
            <span class="hint copy-status" role="status" id={format!("{id}-status")}></span>
        </>
    }
}
