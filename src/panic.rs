//! A panic in the wasm must never leave a blank page: the hook writes a visible error box at the top of the document
//! (its message, where it happened, and what to do) before the release build aborts. The text is selectable, and the
//! box links to a new issue pre-filled with it ([`report_url`]).

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
    div.set_text_content(Some(&format!("Something went wrong inside qpath.\n\n{text}\n\n")));
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    match report_url(env!("CARGO_PKG_REPOSITORY"), &href, text) {
        Some(url) => {
            if let Ok(a) = doc.create_element("a") {
                let _ = a.set_attribute("href", &url);
                let _ = a.set_attribute("target", "_blank");
                let _ = a.set_attribute("rel", "noopener");
                let _ = a.set_attribute("style", "color:#0a3069;font-weight:600");
                a.set_text_content(Some("Report this crash (opens a new issue with the text above)"));
                let _ = div.append_child(&a);
            }
            append_text(&div, ", then reload the page to go on.");
        }
        None => append_text(
            &div,
            "Please report it to whoever hosts this page, with the text above, then reload the page to go on.",
        ),
    }
    let _ = body.insert_before(&div, body.first_child().as_ref());
}

fn append_text(parent: &web_sys::Element, text: &str) {
    let _ = parent.append_with_str_1(text);
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

/// Installs the hook (once is enough; later calls replace it with the same one). The default hook still logs to the
/// console.
pub fn install() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
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
