//! Embedding qpath in another page, two ways.
//!
//! **The `<qpath-explainer>` element.** `static/qpath-embed.js` (the host's one include line) defines a light element
//! class that loads nothing until an element nears the viewport (or has `loading="eager"`), then starts the wasm once
//! for the page; [`define_explainer`] (JS: `defineExplainer()`; `src/main.rs` calls it at start) hands that class the
//! Rust side's hooks, or defines the class itself on a page without the loader. Its attributes mirror the page's state:
//! `gpu` (an id of qpath's GPU table, e.g. `l4`), `vllm` (a release, e.g. `0.25.0-prefix`, or a nightly it runs as),
//! `cuda` (e.g. `12.9`), `cubins` (`yes`, `no` or `default`), `flashinfer` (an installed FlashInfer other than the pin,
//! e.g. `0.7.2.post1`), `cmd` (the whole `vllm serve` command line), plus `compact` (present: the results only, without
//! the command line) and `theme` (`light` / `dark` force one; `auto` or absent: the host site's scheme, followed as it
//! changes: see `hostScheme` below). Each element gets its own Yew app ([`Explainer`]) rendered into its own open
//! shadow root, which adopts [`STYLESHEET`]: the element needs no page-level CSS and its styles reach nothing outside
//! it; the host themes it through the `--qp-*` custom properties set on the element. Apps are tracked by the element
//! object (a JS `WeakMap`), so a copy of an element (`cloneNode`, an `innerHTML` round trip, pre-rendered markup) is a
//! new element with its own app. Changing an attribute re-renders that element; removing the element destroys its app;
//! moving it keeps it. An attribute qpath cannot use is named in a message and its default is shown instead.
//!
//! **The page in an `<iframe>`.** With `embed=1` in its hash (`#embed=1&gpu=l4&vllm=0.25.0&cmd=…`) the page drops its
//! header, footer and share section, keeps `embed=1` in the hash it writes, and, when it has a parent window, posts:
//!
//! - `{type: "qpath:resize", height}`: the app's height in CSS pixels (rounded up), on every change of it, with target
//!   origin `*` (a height carries nothing of what the user typed);
//! - `{type: "qpath:state", hash}`: the page's hash (`#embed=1&gpu=…`), whenever the state changes it, and only to the
//!   origin the embedder names with `origin=` in the frame's hash (`#embed=1&origin=https://docs.example.com&…`);
//!   without one no state message is posted at all, never to `*`.
//!
//! The protocol is one-way: the page listens to no `message` event, so whatever a parent (or anyone) posts to it has
//! no effect. A parent should check `event.source === iframe.contentWindow` before using a message.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::resolve::resolve;
use wasm_bindgen::prelude::*;
use web_sys::Element;
use yew::prelude::*;

use crate::components::results::Results;
use crate::hash::Link;
use crate::state::Page;

/// The custom element's tag.
pub const TAG: &str = "qpath-explainer";
/// The attributes the element observes.
pub const ATTRIBUTES: [&str; 8] = ["gpu", "vllm", "cuda", "cubins", "flashinfer", "cmd", "compact", "theme"];

/// The `type` of the height message.
pub const RESIZE: &str = "qpath:resize";
/// The `type` of the state message.
pub const STATE: &str = "qpath:state";

// The element's JS side (kept small: it ships with every page load, comments are here rather than in the snippet).
// `boxes` maps each element object to {id, box}: by identity, so a copy of an element (cloneNode, innerHTML, pre-rendered
// markup) has no entry and gets its own app. `live` holds the connected elements, repainted when the host's theme
// changes. `mount` gives the element a fresh open shadow root (whatever an earlier render or declarative shadow DOM
// left is cleared) that adopts the stylesheet (a constructable stylesheet, shared by all elements; a <style> element
// where adoptedStyleSheets is missing), and one box for the app. `hostScheme` reads the host site's scheme: a
// color-scheme that names only one of light/dark on the element's parent, then Material (body data-md-color-scheme:
// slate is dark), Furo (body data-theme) and pydata-sphinx-theme (html data-theme), mdBook's html classes (light, rust /
// coal, navy, ayu), sphinx_rtd_theme (body.wy-body-for-nav: light only), and last the OS preference. `watch` observes
// html's and body's attributes and the OS preference once, for all elements. `define` either defines the element class
// or, when static/qpath-embed.js has already defined its lazy one (which renders nothing until an element nears the
// viewport), hands that class the same hooks through its static `attach` (which connects the elements already waiting
// and returns true; it accepts hooks once).
#[wasm_bindgen(inline_js = r#"
const boxes = new WeakMap();
const live = new Set();
let sheet = null;
let watching = false;

export function define(tag, observed, onConnect, onChange, onDisconnect) {
  if (typeof customElements === "undefined") return false;
  const hooks = {
    connect(el) { live.add(el); watch(); onConnect(el); },
    change(el, name, before, after) {
      if (before === after) return;
      if (name === "theme") paint(el);
      onChange(el);
    },
    disconnect(el) { live.delete(el); onDisconnect(el); },
  };
  const known = customElements.get(tag);
  if (known) return typeof known.attach === "function" && known.attach(hooks) === true;
  const attributes = observed.split(" ");
  customElements.define(tag, class extends HTMLElement {
    static get observedAttributes() { return attributes; }
    connectedCallback() { hooks.connect(this); }
    attributeChangedCallback(name, before, after) { hooks.change(this, name, before, after); }
    disconnectedCallback() { hooks.disconnect(this); }
  });
  return true;
}

export function instance(el) { return boxes.get(el)?.id ?? 0; }

export function mount(el, id, css) {
  const root = el.shadowRoot ?? el.attachShadow({ mode: "open" });
  root.replaceChildren();
  if ("adoptedStyleSheets" in root && typeof CSSStyleSheet === "function" && "replaceSync" in CSSStyleSheet.prototype) {
    if (!sheet) { sheet = new CSSStyleSheet(); sheet.replaceSync(css); }
    root.adoptedStyleSheets = [sheet];
  } else {
    const style = document.createElement("style");
    style.textContent = css;
    root.append(style);
  }
  const box = document.createElement("div");
  box.className = "qp-root";
  root.append(box);
  boxes.set(el, { id, box });
  paint(el);
  return box;
}

export function unmount(el) {
  boxes.delete(el);
  el.shadowRoot?.replaceChildren();
}

export function hostScheme(el) {
  const html = document.documentElement;
  const body = document.body;
  const cs = getComputedStyle(el.parentElement ?? html).colorScheme.split(" ");
  if (cs.includes("dark") !== cs.includes("light")) return cs.includes("dark") ? "dark" : "light";
  const md = body?.getAttribute("data-md-color-scheme");
  if (md) return md === "slate" ? "dark" : "light";
  for (const v of [body?.dataset.theme, html.dataset.theme]) {
    if (v === "dark" || v === "light") return v;
  }
  const cl = html.classList;
  if (["coal", "navy", "ayu", "dark"].some((c) => cl.contains(c))) return "dark";
  if (["light", "rust"].some((c) => cl.contains(c))) return "light";
  if (body?.classList.contains("wy-body-for-nav")) return "light";
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function paint(el) {
  const b = boxes.get(el);
  if (!b) return;
  const forced = (el.getAttribute("theme") ?? "").trim();
  const scheme = forced === "light" || forced === "dark" ? forced : hostScheme(el);
  b.box.classList.toggle("dark", scheme === "dark");
  b.box.classList.toggle("light", scheme === "light");
}

function watch() {
  if (watching) return;
  watching = true;
  const repaint = () => live.forEach(paint);
  const observer = new MutationObserver(repaint);
  observer.observe(document.documentElement, { attributes: true });
  if (document.body) observer.observe(document.body, { attributes: true });
  matchMedia("(prefers-color-scheme: dark)").addEventListener("change", repaint);
}
"#)]
extern "C" {
    /// Defines the element class whose callbacks hand it to Rust, or hands the hooks to the lazy class of
    /// static/qpath-embed.js (its static `attach`); false when the tag is taken by anything else or already attached.
    #[wasm_bindgen(js_name = define)]
    fn define_element(
        tag: &str,
        observed: &str,
        on_connect: &Closure<dyn FnMut(Element)>,
        on_change: &Closure<dyn FnMut(Element)>,
        on_disconnect: &Closure<dyn FnMut(Element)>,
    ) -> bool;
    /// The element's instance number, 0 when it has no app (looked up by the element object itself).
    #[wasm_bindgen(js_name = instance)]
    fn instance_number(e: &Element) -> u32;
    /// Gives the element a fresh open shadow root with [`STYLESHEET`] and returns the box the app renders into.
    #[wasm_bindgen(js_name = mount)]
    fn mount_box(e: &Element, id: u32, css: &str) -> Element;
    /// Forgets the element's instance and empties its shadow root.
    #[wasm_bindgen(js_name = unmount)]
    fn unmount_box(e: &Element);
    /// `"light"` or `"dark"`: the host page's scheme as `theme="auto"` follows it.
    #[wasm_bindgen(js_name = hostScheme)]
    pub fn host_scheme(e: &Element) -> String;
}

/// The element's attributes as the [`Explainer`]'s properties (`None` = the attribute is absent).
#[derive(Clone, Debug, Default, PartialEq, Properties)]
pub struct ExplainerProps {
    #[prop_or_default]
    pub gpu: Option<AttrValue>,
    #[prop_or_default]
    pub vllm: Option<AttrValue>,
    #[prop_or_default]
    pub cuda: Option<AttrValue>,
    #[prop_or_default]
    pub cubins: Option<AttrValue>,
    pub flashinfer: Option<AttrValue>,
    #[prop_or_default]
    pub cmd: Option<AttrValue>,
    #[prop_or_default]
    pub compact: bool,
    #[prop_or_default]
    pub theme: Option<AttrValue>,
}

impl ExplainerProps {
    /// Reads an element's attributes.
    pub fn from_element(e: &Element) -> ExplainerProps {
        let get = |name: &str| e.get_attribute(name).map(AttrValue::from);
        ExplainerProps {
            gpu: get("gpu"),
            vllm: get("vllm"),
            cuda: get("cuda"),
            cubins: get("cubins"),
            flashinfer: get("flashinfer"),
            cmd: get("cmd"),
            compact: e.has_attribute("compact"),
            theme: get("theme"),
        }
    }

    /// The page state the attributes describe, with a message naming each attribute that could not be used (in
    /// [`Page::notices`]; its default is used instead). The scheme is applied in JS (`theme` forces light or dark;
    /// absent, `auto` or anything else: the host site's scheme).
    pub fn read(&self) -> Page {
        let mut options = ScenarioOptions::default();
        let mut problems = vec![];
        let attributes = [
            (OptionKey::Gpu, &self.gpu),
            (OptionKey::Vllm, &self.vllm),
            (OptionKey::Cuda, &self.cuda),
            (OptionKey::Cubins, &self.cubins),
            (OptionKey::FlashInfer, &self.flashinfer),
        ];
        for (key, value) in attributes {
            let Some(v) = value.as_deref() else { continue };
            if let Err(e) = options.set(key, v) {
                let instead = match key {
                    OptionKey::Gpu => options.gpu_or_default().name.to_string(),
                    OptionKey::Vllm => options.release_or_default().name().to_string(),
                    OptionKey::Cuda => format!("CUDA {}", options.cuda_or_default()),
                    OptionKey::FlashInfer => format!("the pinned FlashInfer {}", options.flashinfer_or_pin()),
                    _ => "the default".to_string(),
                };
                problems.push(format!(
                    "{}=\"{}\" {}; showing {instead} instead.",
                    key.name(),
                    v.trim(),
                    e.reason
                ));
            }
        }
        // Absent attributes take the core's defaults (as the JS API and the CLI do), not the page's first-visit story.
        let mut link = Link {
            gpu: Some(options.gpu_or_default()),
            release: Some(options.release_or_default()),
            cuda: Some(options.cuda_or_default()),
            cubins: options.cubins,
            flashinfer: options.flashinfer,
            flashinfer_version: options.flashinfer_version.clone(),
            vllm_version: options.vllm_version.clone(),
            ..Link::default()
        };
        link.cmd = self.cmd.as_ref().map(|c| c.trim().to_string());
        if let Some(v) = self.theme.as_deref().map(str::trim) {
            if !matches!(v, "" | "auto" | "light" | "dark") {
                problems.push(format!(
                    "theme=\"{v}\" is not light, dark or auto; following the site's scheme."
                ));
            }
        }
        let mut page = Page::from_link(link);
        page.notices = problems;
        page
    }
}

/// One `<qpath-explainer>`: the answer for the scenario its attributes describe.
#[function_component(Explainer)]
pub fn explainer(props: &ExplainerProps) -> Html {
    let derived = use_memo(props.clone(), |p| {
        let page = p.read();
        let report = Rc::new(resolve(&page.scenario()));
        (page, report)
    });
    let (page, report) = &*derived;
    html! {
        <div class={classes!("qpath-explainer", props.compact.then_some("compact"))}>
            if !page.notices.is_empty() {
                <ul class="explainer-notices" role="status">
                    { for page.notices.iter().map(|n| html! { <li>{ n }</li> }) }
                </ul>
            }
            if !props.compact {
                <p class="explainer-command">
                    <span class="explainer-label">{ "Command line" }</span>
                    <code>{ page.command.clone() }</code>
                </p>
            }
            <Results report={report.clone()} />
        </div>
    }
}

/// The shadow root's stylesheet (built by build.rs from static/style.css's `--qp-*` defaults, static/explainer.css and
/// static/results.css), adopted by every element's shadow root.
pub const STYLESHEET: &str = include_str!(concat!(env!("OUT_DIR"), "/explainer.css"));

thread_local! {
    /// The mounted elements' apps, by instance number (which the JS side keeps per element object).
    static INSTANCES: RefCell<HashMap<u32, yew::AppHandle<Explainer>>> = RefCell::new(HashMap::new());
    static NEXT_INSTANCE: Cell<u32> = const { Cell::new(1) };
}

/// The element's instance number while it has a mounted app. Keyed by the element object, never by anything a copy of
/// the element carries: a clone, an innerHTML round trip or pre-rendered markup is a new element with its own app.
pub fn instance_of(e: &Element) -> Option<u32> {
    let id = instance_number(e);
    (id != 0 && INSTANCES.with(|m| m.borrow().contains_key(&id))).then_some(id)
}

/// How many elements have a mounted app.
pub fn mounted_count() -> usize {
    INSTANCES.with(|m| m.borrow().len())
}

fn connect(e: Element) {
    let props = ExplainerProps::from_element(&e);
    if let Some(id) = instance_of(&e) {
        // Moved within the document: the app is still there.
        INSTANCES.with(|m| m.borrow_mut().get_mut(&id).map(|app| app.update(props)));
        return;
    }
    let id = NEXT_INSTANCE.with(|n| n.replace(n.get() + 1));
    let root = mount_box(&e, id, STYLESHEET);
    let app = yew::Renderer::<Explainer>::with_root_and_props(root, props).render();
    INSTANCES.with(|m| m.borrow_mut().insert(id, app));
}

fn change(e: Element) {
    // Before the element is connected there is no app; connecting reads all attributes.
    if let Some(id) = instance_of(&e) {
        let props = ExplainerProps::from_element(&e);
        INSTANCES.with(|m| m.borrow_mut().get_mut(&id).map(|app| app.update(props)));
    }
}

fn disconnect(e: Element) {
    // A move disconnects and reconnects in one go: destroy only if the element is still out of the document once the
    // current task's DOM work is done.
    yew::platform::spawn_local(async move {
        if e.is_connected() {
            return;
        }
        if let Some(id) = instance_of(&e) {
            if let Some(app) = INSTANCES.with(|m| m.borrow_mut().remove(&id)) {
                app.destroy();
            }
            unmount_box(&e);
        }
    });
}

/// Defines `<qpath-explainer>` (once; later calls do nothing). Elements already in the document are upgraded.
#[wasm_bindgen(js_name = defineExplainer)]
pub fn define_explainer() {
    thread_local! {
        static DEFINED: Cell<bool> = const { Cell::new(false) };
    }
    if DEFINED.with(|d| d.replace(true)) {
        return;
    }
    let on_connect = Closure::<dyn FnMut(Element)>::new(connect);
    let on_change = Closure::<dyn FnMut(Element)>::new(change);
    let on_disconnect = Closure::<dyn FnMut(Element)>::new(disconnect);
    if define_element(TAG, &ATTRIBUTES.join(" "), &on_connect, &on_change, &on_disconnect) {
        // The element class holds them for the page's lifetime.
        on_connect.forget();
        on_change.forget();
        on_disconnect.forget();
    }
}

/// One message of the iframe protocol.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// `{type: "qpath:resize", height}`, posted with target origin `*` (a height says nothing of the user's input).
    Resize { height: u32 },
    /// `{type: "qpath:state", hash}`, posted only to `origin`: the one the embedder named in the frame's URL.
    State { hash: String, origin: String },
}

impl Message {
    /// The object posted to the parent.
    pub fn to_js(&self) -> JsValue {
        let o = js_sys::Object::new();
        let set = |k: &str, v: JsValue| {
            let _ = js_sys::Reflect::set(&o, &JsValue::from_str(k), &v);
        };
        match self {
            Message::Resize { height } => {
                set("type", RESIZE.into());
                set("height", (*height).into());
            }
            Message::State { hash, .. } => {
                set("type", STATE.into());
                set("hash", hash.as_str().into());
            }
        }
        o.into()
    }

    /// The target origin it is posted with.
    pub fn target_origin(&self) -> &str {
        match self {
            Message::Resize { .. } => "*",
            Message::State { origin, .. } => origin,
        }
    }
}

/// What the page has told its parent: a message goes out only when its value differs from the last one sent. State
/// messages go only to the origin the embedder named (`origin=` in the frame's hash); without one, none is sent.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    height: Option<u32>,
    hash: Option<String>,
    origin: Option<String>,
}

impl Outbox {
    /// An outbox whose state messages go to `origin` (`None`: no state messages).
    pub fn new(origin: Option<String>) -> Outbox {
        Outbox {
            origin,
            ..Outbox::default()
        }
    }

    /// The resize message for a measured height (CSS pixels, rounded up), unless the parent already has it.
    pub fn resize(&mut self, height: f64) -> Option<Message> {
        let height = height.max(0.0).ceil() as u32;
        (self.height.replace(height) != Some(height)).then_some(Message::Resize { height })
    }

    /// The state message for the page's hash, unless the parent already has it or no origin was named.
    pub fn state(&mut self, hash: &str) -> Option<Message> {
        let origin = self.origin.clone()?;
        (self.hash.as_deref() != Some(hash)).then(|| {
            self.hash = Some(hash.to_string());
            Message::State {
                hash: hash.to_string(),
                origin,
            }
        })
    }
}

/// The objects the page posts for a state hash and then a height, starting from nothing sent (the protocol as data).
pub fn messages_for(origin: Option<String>, hash: &str, height: f64) -> Vec<Message> {
    let mut outbox = Outbox::new(origin);
    [outbox.state(hash), outbox.resize(height)].into_iter().flatten().collect()
}

/// The parent window, if the page is inside a frame (`window.parent != window`).
pub fn parent_window() -> Option<web_sys::Window> {
    let window = web_sys::window()?;
    let parent = window.parent().ok().flatten()?;
    (parent != window).then_some(parent)
}

/// Posts a message to the parent window; false (nothing posted) when there is none.
pub fn post(message: &Message) -> bool {
    parent_window().is_some_and(|parent| post_to(&parent, message))
}

/// Posts a message to a window with the message's target origin (the browser drops it if the window's origin differs).
pub fn post_to(window: &web_sys::Window, message: &Message) -> bool {
    window.post_message(&message.to_js(), message.target_origin()).is_ok()
}

/// Watches the app root's size and posts each new height to the parent. Dropping it stops the watching.
pub struct SizeWatch {
    observer: web_sys::ResizeObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl SizeWatch {
    pub fn new(root: &Element, outbox: Rc<RefCell<Outbox>>) -> Option<SizeWatch> {
        let target: web_sys::HtmlElement = root.clone().dyn_into().ok()?;
        let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let measured = entries
                .get(0)
                .dyn_into::<web_sys::ResizeObserverEntry>()
                .ok()
                .and_then(|e| e.border_box_size().get(0).dyn_into::<web_sys::ResizeObserverSize>().ok())
                .map(|s| s.block_size());
            let height = measured.unwrap_or_else(|| f64::from(target.offset_height()));
            let message = outbox.borrow_mut().resize(height);
            if let Some(m) = message {
                post(&m);
            }
        });
        let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
        observer.observe(root);
        Some(SizeWatch {
            observer,
            _callback: callback,
        })
    }
}

impl Drop for SizeWatch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

#[cfg(test)]
mod tests {
    use qpath_core::release::Release;

    use super::*;

    #[test]
    fn attributes_make_the_scenario_and_bad_ones_are_named() {
        let p = ExplainerProps {
            gpu: Some("h900".into()),
            vllm: Some("0.25.0".into()),
            cubins: Some("maybe".into()),
            theme: Some("sepia".into()),
            cmd: Some("vllm serve Qwen/Qwen3-8B".into()),
            ..Default::default()
        };
        let page = p.read();
        // The bad gpu falls back to the core's default GPU, as the JS API's and the CLI's do.
        assert_eq!((page.gpu.id, page.release, page.cubins), ("h100-sxm", Release::V0_25_0, None));
        assert_eq!(page.command, "vllm serve Qwen/Qwen3-8B");
        let all = page.notices.join("\n");
        assert!(
            all.contains("gpu=\"h900\" is not in qpath's GPU table; showing NVIDIA H100 SXM"),
            "{all}"
        );
        assert!(all.contains("cubins=\"maybe\""), "{all}");
        assert!(all.contains("theme=\"sepia\" is not light, dark or auto"), "{all}");
        assert_eq!(page.notices.len(), 3);
        assert!(!page.embed);
        for theme in ["light", "dark", "auto", " dark "] {
            let p = ExplainerProps {
                theme: Some(theme.into()),
                ..Default::default()
            };
            assert!(p.read().notices.is_empty(), "{theme}");
        }
    }

    #[test]
    fn no_attributes_take_the_core_defaults() {
        let page = ExplainerProps::default().read();
        let core = ScenarioOptions::default();
        assert_eq!(
            (page.gpu.id, page.release, page.cuda, page.cubins),
            (
                core.gpu_or_default().id,
                core.release_or_default(),
                core.cuda_or_default(),
                None
            )
        );
        assert_eq!(page.command, Page::default().command);
        assert!(page.notices.is_empty());
    }

    #[test]
    fn the_lazy_loaders_class_observes_the_same_attributes() {
        // static/qpath-embed.js defines the element before the wasm loads, so its observedAttributes (fixed when the
        // class is defined) must be this list, else a change to a missing attribute would not re-render.
        let loader = include_str!("../static/qpath-embed.js");
        let observed = format!("static observedAttributes = \"{}\".split(\" \");", ATTRIBUTES.join(" "));
        assert!(loader.contains(&observed), "qpath-embed.js lacks {observed}");
        assert!(loader.contains(&format!("customElements.get(\"{TAG}\")")));
        assert!(loader.contains(&format!("customElements.define(\"{TAG}\"")));
    }

    #[test]
    fn the_outbox_sends_only_changes() {
        let mut o = Outbox::new(Some("https://docs.example.com".into()));
        assert_eq!(o.resize(100.2), Some(Message::Resize { height: 101 }));
        assert_eq!(o.resize(100.9), None);
        assert_eq!(o.resize(90.0), Some(Message::Resize { height: 90 }));
        let state = o.state("#embed=1&gpu=l4").expect("a state message");
        assert_eq!(
            state,
            Message::State {
                hash: "#embed=1&gpu=l4".into(),
                origin: "https://docs.example.com".into()
            }
        );
        assert_eq!(state.target_origin(), "https://docs.example.com");
        assert_eq!(Message::Resize { height: 1 }.target_origin(), "*");
        assert_eq!(o.state("#embed=1&gpu=l4"), None);
        assert!(o.state("#embed=1&gpu=t4").is_some());
    }

    #[test]
    fn without_a_named_origin_no_state_message_is_sent() {
        let mut o = Outbox::new(None);
        assert_eq!(o.state("#embed=1&gpu=l4"), None);
        assert_eq!(o.resize(10.0), Some(Message::Resize { height: 10 }));
        assert_eq!(messages_for(None, "#embed=1", 5.0), vec![Message::Resize { height: 5 }]);
    }
}
