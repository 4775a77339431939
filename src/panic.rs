//! A panic in the wasm must never leave a blank page: the hook writes a visible error box at the top of the document
//! (its message, where it happened, and what to do) before the release build aborts. The text is selectable, the box
//! links to a new issue pre-filled with it ([`report_url`]) and offers a way back: reload, or start over from the page
//! without its link's state (a link whose state crashes the page would crash it again).
//!
//! The box is plain DOM built by a small JavaScript function ([`crash_box`]), outside Yew's tree: a Yew wedged by the
//! panic (its scheduler's `RefCell` still borrowed after the abort) cannot hide it, and nothing in it calls back into
//! the wasm. The first panic's reason stays: the panics that follow it (a wedged Yew's `RefCell already borrowed`) are
//! counted under it, not put in its place. A trap that is no panic (the wasm out of memory: Rust's allocation-failure
//! handler aborts without the hook) reaches the window as an uncaught `WebAssembly.RuntimeError`; the listener
//! [`install`] adds shows the box for it too, from JavaScript alone.

use std::panic::PanicHookInfo;

use wasm_bindgen::prelude::*;

/// The id of the box, so a second panic adds to it instead of stacking.
pub const PANIC_BOX_ID: &str = "qpath-panic";

#[wasm_bindgen(inline_js = r##"
const STYLE = "margin:12px;padding:12px 14px;border:2px solid #cf222e;border-radius:6px;background:#ffebe9;" +
  "color:#1b1f24;font:14px/1.45 system-ui,sans-serif;white-space:pre-wrap;overflow-wrap:anywhere";
export function crash_box(id, text, report) {
  const doc = document;
  const old = doc.getElementById(id);
  if (old) {
    // The first crash's reason stays; what followed it is counted under it.
    const n = Number(old.dataset.more || 0) + 1;
    old.dataset.more = String(n);
    let more = old.querySelector(".qpath-panic-more");
    if (!more) {
      more = doc.createElement("p");
      more.className = "qpath-panic-more";
      more.style.cssText = "margin:8px 0 0";
      old.append(more);
    }
    more.textContent = (n == 1 ? "It was followed by another error: " : `It was followed by ${n} more errors, the last: `)
      + String(text).split("\n")[0].slice(0, 300);
    return;
  }
  if (!doc.body) return;
  const box = doc.createElement("div");
  box.id = id;
  box.setAttribute("role", "alert");
  box.style.cssText = STYLE;
  box.append("Something went wrong inside qpath.\n\n" + text + "\n\n");
  if (report) {
    const a = doc.createElement("a");
    a.href = report;
    a.target = "_blank";
    a.rel = "noopener";
    a.style.cssText = "color:#0a3069;font-weight:600";
    a.textContent = "Report this crash (opens a new issue with the text above)";
    box.append(a, ". ");
  } else {
    box.append("Please report it to whoever hosts this page, with the text above. ");
  }
  box.append("To go on: ");
  const reload = doc.createElement("button");
  reload.type = "button";
  reload.className = "qpath-panic-reload";
  reload.textContent = "Reload this page";
  reload.addEventListener("click", () => location.reload());
  const fresh = doc.createElement("a");
  fresh.className = "qpath-panic-start-over";
  fresh.href = location.href.split("#")[0];
  fresh.style.cssText = "color:#0a3069;font-weight:600";
  fresh.textContent = "start over without this link's settings";
  box.append(reload, " or ", fresh, ".");
  doc.body.insertBefore(box, doc.body.firstChild);
}
export function watch_traps(id, version) {
  const trap = (e) => e && typeof WebAssembly == "object" && e instanceof WebAssembly.RuntimeError;
  const shown = (e) => crash_box(id, `qpath ${version} stopped: ${e.name}: ${e.message} (the WebAssembly module ` +
    "trapped: most often it ran out of memory)\nPage: " + location.href, null);
  addEventListener("error", (ev) => { if (trap(ev.error)) shown(ev.error); });
  addEventListener("unhandledrejection", (ev) => { if (trap(ev.reason)) shown(ev.reason); });
}
"##)]
extern "C" {
    /// Shows `text` in the box with the id `id` at the top of the body (or, when there is one already, counts it under
    /// the first crash's text), with `report`'s link (or where to take the report) and the way back.
    fn crash_box(id: &str, text: &str, report: Option<String>);
    /// Listens for uncaught `WebAssembly.RuntimeError`s (window `error`, `unhandledrejection`) and shows the box.
    fn watch_traps(id: &str, version: &str);
}

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

/// Shows `text` in the error box at the top of the body; a box already there keeps its text and counts this one.
pub fn show(text: &str) {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    crash_box(PANIC_BOX_ID, text, report_url(env!("CARGO_PKG_REPOSITORY"), &href, text));
}

/// Where to report a crash: a new issue pre-filled with `text`, in the package's repository when Cargo.toml names one,
/// else in the GitHub repository a GitHub Pages address belongs to (`https://OWNER.github.io/REPO/…` →
/// `github.com/OWNER/REPO`, a user site `https://OWNER.github.io/` → `github.com/OWNER/OWNER.github.io`), the way
/// `.github/workflows/pages.yml` publishes the page. `None` elsewhere (a local build, another host).
pub fn report_url(repository: &str, page_href: &str, text: &str) -> Option<String> {
    let repository = repository.trim_end_matches('/');
    let base = if !repository.is_empty() {
        repository.to_string()
    } else {
        let rest = page_href.strip_prefix("https://")?;
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        let owner = host.to_ascii_lowercase().strip_suffix(".github.io")?.to_string();
        if owner.is_empty() || owner.contains('.') {
            return None;
        }
        let first = path.split(['/', '?', '#']).next().unwrap_or("");
        let repo = if first.is_empty() || first.contains('.') {
            format!("{owner}.github.io")
        } else {
            first.to_string()
        };
        format!("https://github.com/{owner}/{repo}")
    };
    let title = text.lines().next().unwrap_or("qpath crashed");
    Some(format!(
        "{base}/issues/new?title={}&body={}",
        crate::hash::form_encode(title),
        crate::hash::form_encode(&format!("```\n{text}\n```\n"))
    ))
}

/// Installs the hook and the trap listener (once: each call adds a listener). The default hook still logs to the
/// console. The hook is set through `yew::set_custom_panic_hook`: Yew's `Renderer::render` replaces any other hook
/// with its own console logger, so a hook set with `std::panic::set_hook` before the first render (as `main` does)
/// would never run.
pub fn install() {
    watch_traps(PANIC_BOX_ID, env!("CARGO_PKG_VERSION"));
    let default = std::panic::take_hook();
    yew::set_custom_panic_hook(Box::new(move |info| {
        show(&describe(info));
        default(info);
    }));
}

#[cfg(test)]
mod tests {
    use super::report_url;

    #[test]
    fn report_links() {
        let text = "qpath 0.1.0 crashed at src/x.rs:1: boom\nPage: https://a.github.io/qpath/#gpu=l4";
        let from_pages = report_url("", "https://a.github.io/qpath/index.html#gpu=l4", text).unwrap_or_default();
        assert!(
            from_pages.starts_with("https://github.com/a/qpath/issues/new?title=qpath+0.1.0+crashed"),
            "{from_pages}"
        );
        assert!(from_pages.contains("&body=%60%60%60%0Aqpath"), "{from_pages}");
        assert!(report_url("", "https://Owner.github.io/", text)
            .unwrap_or_default()
            .starts_with("https://github.com/owner/owner.github.io/issues/new?"));
        assert!(report_url("", "https://owner.github.io/index.html", text)
            .unwrap_or_default()
            .starts_with("https://github.com/owner/owner.github.io/"));
        assert!(report_url("https://git.example/q/", "http://127.0.0.1:8080/", text)
            .unwrap_or_default()
            .starts_with("https://git.example/q/issues/new?"));
        assert_eq!(report_url("", "http://127.0.0.1:8080/", text), None);
        assert_eq!(report_url("", "https://docs.vllm.ai/qpath/", text), None);
        assert_eq!(report_url("", "https://evil.com/x.github.io/", text), None);
    }
}
