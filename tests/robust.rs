//! Browser tests of a page that never goes blank: storage that throws, a clipboard that is missing or refuses, the
//! hash decoded as the browser's own URLSearchParams decodes it, a command line with a Markdown fence or a token in
//! it, and the embedder's `theme=`. Each stubs the browser API it is about (restored after) and mounts the real App.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlTextAreaElement};

mod common;
use common::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
const saved = {};
export function stub(target, name, how) {
  const obj = target === "window" ? window : target === "navigator" ? navigator : Storage.prototype;
  const key = target + "." + name;
  if (!(key in saved)) saved[key] = [obj, Object.getOwnPropertyDescriptor(obj, name)];
  const thrower = () => { throw new DOMException("The operation is insecure.", "SecurityError"); };
  const values = {
    "throws": { get: thrower, configurable: true },
    "set-throws": { value: () => { throw new DOMException("quota", "QuotaExceededError"); }, configurable: true, writable: true },
    "undefined": { value: undefined, configurable: true, writable: true },
    "rejects": { value: { writeText: () => Promise.reject(new DOMException("Write permission denied.", "NotAllowedError")) }, configurable: true, writable: true },
    "write-throws": { value: { writeText: () => { throw new TypeError("Illegal invocation"); } }, configurable: true, writable: true },
    "records": { value: { writeText: (t) => { window.__qpathCopied = t; return Promise.resolve(); } }, configurable: true, writable: true },
  };
  Object.defineProperty(obj, name, values[how]);
}
export function restore_all() {
  for (const key of Object.keys(saved)) {
    const [obj, desc] = saved[key];
    const name = key.slice(key.indexOf(".") + 1);
    if (desc) Object.defineProperty(obj, name, desc); else delete obj[name];
    delete saved[key];
  }
}
let errors = [];
window.addEventListener("error", (e) => errors.push("error: " + e.message));
window.addEventListener("unhandledrejection", (e) => errors.push("unhandled rejection: " + e.reason));
export function take_errors() { const e = errors.join("\n"); errors = []; return e; }
export function copied() { return window.__qpathCopied ?? ""; }
export function url_search_params_value(encoded) { return new URLSearchParams("x=" + encoded).get("x"); }
"#)]
extern "C" {
    fn stub(target: &str, name: &str, how: &str);
    fn restore_all();
    fn take_errors() -> String;
    fn copied() -> String;
    fn url_search_params_value(encoded: &str) -> String;
}

fn text(root: &Element, selector: &str) -> String {
    q(root, selector).text_content().unwrap_or_default()
}

fn click(root: &Element, selector: &str) {
    q(root, selector).unchecked_into::<HtmlElement>().click();
}

fn notices(root: &Element) -> Vec<String> {
    let items = root.query_selector_all("#notices li").unwrap();
    (0..items.length())
        .map(|i| items.item(i).unwrap().text_content().unwrap_or_default())
        .collect()
}

fn blocked_notices(root: &Element) -> usize {
    notices(root)
        .iter()
        .filter(|n| *n == qpath_web::theme::STORAGE_BLOCKED)
        .count()
}

/// Storage that throws on access (site data blocked, a sandboxed frame) or on writing: the page renders, the theme
/// works for the visit, and the page says once that it is not remembered.
#[wasm_bindgen_test]
async fn storage_that_throws_leaves_a_working_page_that_says_so_once() {
    for (target, how) in [("window", "throws"), ("storage", "set-throws")] {
        let name = if target == "window" { "localStorage" } else { "setItem" };
        stub(target, name, how);
        let root = mount_with_hash("").await;
        let html = gloo::utils::document().document_element().unwrap();
        assert!(
            exists(&root, "#theme-toggle") && exists(&root, "article.group"),
            "{how}: the page rendered"
        );
        if how == "throws" {
            // Storage cannot even be read: said at once.
            assert!(
                eventually(|| blocked_notices(&root) == 1).await,
                "{how}: {:?}",
                notices(&root)
            );
        }
        click(&root, "#theme-toggle");
        assert!(
            eventually(|| html.class_list().contains("light")).await,
            "{how}: the theme works"
        );
        // Storing the choice failed (or could not be tried): said.
        assert!(
            eventually(|| blocked_notices(&root) == 1).await,
            "{how}: {:?}",
            notices(&root)
        );
        click(&root, "#theme-toggle");
        assert!(eventually(|| html.class_list().contains("dark")).await);
        flush().await;
        assert_eq!(blocked_notices(&root), 1, "{how}: said once, {:?}", notices(&root));
        restore_all();
        let _ = html.class_list().remove_2("light", "dark");
        assert_eq!(take_errors(), "", "{how}");
    }
}

/// Each copy button says "Copied" or why not, beside itself (role=status), and nothing is left uncaught.
#[wasm_bindgen_test]
async fn copy_buttons_say_copied_or_why_not() {
    let root = mount_with_hash("#gpu=l4&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct").await;
    for (how, said) in [
        ("undefined", "Not copied: this browser has no clipboard API"),
        ("rejects", "Not copied: the browser denied clipboard access"),
        (
            "write-throws",
            "Not copied: the clipboard refused (TypeError: Illegal invocation)",
        ),
        ("records", "Copied"),
    ] {
        stub("navigator", "clipboard", how);
        for button in ["#copy-link", "#copy-markdown", "#copy-command"] {
            let status = format!("{button}-status");
            assert_eq!(q(&root, &status).get_attribute("role").as_deref(), Some("status"));
            click(&root, button);
            assert!(
                eventually(|| text(&root, &status).starts_with(said)).await,
                "{how} {button}: {:?}",
                text(&root, &status)
            );
            if how == "records" {
                let want = match button {
                    "#copy-link" => text(&root, "#markdown-preview")
                        .split("[Open in qpath](")
                        .nth(1)
                        .unwrap()
                        .trim_end()
                        .trim_end_matches(')')
                        .to_string(),
                    "#copy-markdown" => text(&root, "#markdown-preview"),
                    _ => q(&root, "#command-line").unchecked_into::<HtmlTextAreaElement>().value(),
                };
                assert_eq!(copied(), want, "{button}");
            }
            // Let a rejection that nobody caught surface before reading the errors.
            posted_messages_delivered().await;
        }
        restore_all();
        assert_eq!(take_errors(), "", "{how}");
    }
}

/// The hash is decoded exactly as the browser's URLSearchParams decodes it: `+` a space, `%XX` a byte, any other `%`
/// as written (`%+a` is `% a`).
#[wasm_bindgen_test]
async fn the_hash_decodes_as_url_search_params() {
    let mut cases: Vec<String> = [
        "%+a",
        "%2",
        "%zz",
        "%E2%82",
        "%C3%A9",
        "+%2B",
        "%%41",
        "%4%41",
        "%-1",
        "%+F",
        "%2+",
        "a=b",
        "%F0%9F%98",
        "%FF%FE",
        "%0a",
        "%0A%0d",
        "é%20",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let alphabet: Vec<char> = "%+aF09é=z2".chars().collect();
    let mut x: u32 = 0x1234_5678;
    for _ in 0..2_000 {
        let len = (x % 9) as usize;
        cases.push(
            (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    alphabet[(x % alphabet.len() as u32) as usize]
                })
                .collect(),
        );
        x = x.wrapping_mul(2_654_435_761).wrapping_add(1);
    }
    for c in &cases {
        assert_eq!(qpath_web::hash::form_decode(c), url_search_params_value(c), "{c:?}");
    }
    let root = mount_with_hash("#gpu=l4&cmd=vllm+serve+m%+a").await;
    assert_eq!(
        q(&root, "#command-line").unchecked_into::<HtmlTextAreaElement>().value(),
        "vllm serve m% a"
    );
}

async fn paste_command(root: &Element, line: &str) {
    let area: HtmlTextAreaElement = q(root, "#command-line").unchecked_into();
    area.set_value(line);
    let init = EventInit::new();
    init.set_bubbles(true);
    area.dispatch_event(&Event::new_with_event_init_dict("input", &init).unwrap())
        .unwrap();
    flush().await;
}

/// A command line holding a ``` fence stays inside the Markdown's code block, whose fence is longer.
#[wasm_bindgen_test]
async fn a_fence_in_the_command_stays_inside_the_markdown() {
    let root = mount_with_hash("#gpu=l4").await;
    let cmd = "vllm serve meta-llama/Llama-3.1-8B-Instruct --served-model-name 'x\n```\n# Injected'";
    paste_command(&root, cmd).await;
    let md = text(&root, "#markdown-preview");
    assert!(md.contains(&format!("\n````sh\n{cmd}\n````\n")), "{md}");
}

/// A token in the command line stays in the text box and out of the link, the address bar and the Markdown; the page
/// says where it was dropped.
#[wasm_bindgen_test]
async fn a_token_stays_out_of_links_and_markdown() {
    let root = mount_with_hash("#gpu=l4").await;
    paste_command(
        &root,
        "HF_TOKEN=hf_SECRET123 VLLM_BATCH_INVARIANT=1 vllm serve meta-llama/Llama-3.1-8B-Instruct",
    )
    .await;
    assert!(
        eventually(|| location_hash().contains("HF_TOKEN%3D%E2%80%A6+VLLM_BATCH_INVARIANT%3D1+vllm")).await,
        "{}",
        location_hash()
    );
    let md = text(&root, "#markdown-preview");
    assert!(md.contains("HF_TOKEN=… VLLM_BATCH_INVARIANT=1 vllm serve"), "{md}");
    for shared in [location_hash(), md] {
        assert!(!shared.contains("SECRET"), "{shared}");
    }
    assert!(q(&root, "#command-line")
        .unchecked_into::<HtmlTextAreaElement>()
        .value()
        .contains("hf_SECRET123"));
    assert!(text(&root, "#command-env-note").starts_with("HF_TOKEN's value is not put in links, Markdown"));
}

/// `theme=` in the link sets the theme over the remembered one and is not remembered; a bad value is named and the
/// rest of the link is kept.
#[wasm_bindgen_test]
async fn the_links_theme_is_applied_not_remembered() {
    use gloo::storage::{LocalStorage, Storage};
    LocalStorage::clear();
    let html = gloo::utils::document().document_element().unwrap();
    let root = mount_with_hash("#theme=dark&gpu=l4&vllm=0.26.0").await;
    assert!(
        eventually(|| html.class_list().contains("dark")).await,
        "{}",
        html.class_name()
    );
    assert!(text(&root, "#theme-toggle").contains("dark"));
    assert_eq!(LocalStorage::get::<String>("qpath-theme").ok(), None, "not remembered");
    let root = mount_with_hash("#theme=purple&gpu=l4&vllm=0.26.0").await;
    assert!(
        notices(&root).iter().any(|n| n.contains("theme `purple`")),
        "{:?}",
        notices(&root)
    );
    assert!(eventually(|| !html.class_list().contains("dark")).await, "the system's theme");
    assert!(location_hash().contains("gpu=l4&vllm=0.26.0&"), "{}", location_hash());
    LocalStorage::clear();
}

/// A long input is echoed shortened everywhere the page repeats it: the link's notice, the command line's error and
/// vLLM's error text in the results (30,000 characters in each part of the link, which stays under the 64 KiB a
/// link may carry; a 200,000-character pasted command, under the command line's cap; the core's and the CLI's tests
/// use 1 MB).
#[wasm_bindgen_test]
async fn long_inputs_are_echoed_shortened() {
    let long = "q".repeat(30_000);
    let root = mount_with_hash(&format!("#gpu={long}&cmd=vllm+serve+m+--{long}")).await;
    let notice = notices(&root).join("\n");
    assert!(
        notice.len() < 600 && notice.contains("… (30000 characters)"),
        "{} {}",
        notice.len(),
        notice.chars().take(600).collect::<String>()
    );
    let results = text(&root, ".results");
    assert!(
        results.len() < 20_000 && results.contains("(30002 characters) …"),
        "{}",
        results.len()
    );
    let big = "q".repeat(200_000);
    paste_command(&root, &format!("vllm serve m --kv-cache-dtype fp8 --{big}")).await;
    let error = text(&root, "#command-error");
    assert!(error.len() < 1_000 && error.contains(" characters) …"), "{}", error.len());
    // A long value of a flag the decision does not read: its two echoes (under the box and in the results) are short;
    // whole, each was laid out again on every key (typing.mjs: 55 → 28 ms a key at 100 KB). A quoted value with
    // blanks is shortened as a whole.
    let spaced = format!("'{}'", "q ".repeat(50_000).trim_end());
    for (value, n) in [(&big, 200_020), (&spaced, 100_021)] {
        let line = format!("vllm serve meta-llama/Llama-3.1-8B-Instruct --served-model-name {value}");
        paste_command(&root, &line).await;
        for selector in ["#command-unused", ".unused-flags"] {
            let echoed = text(&root, selector);
            let head = format!("--served-model-name {}", &value[..20]);
            assert!(echoed.len() < 1_000 && echoed.contains(&head), "{selector}: {}", echoed.len());
            let count = format!("… ({n} characters)");
            assert!(
                echoed.contains(&count),
                "{selector}: {}",
                echoed.chars().take(300).collect::<String>()
            );
        }
    }
}
