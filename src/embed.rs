//! Embedding qpath in another page, two ways.
//!
//! **The `<qpath-explainer>` element.** [`define_explainer`] (JS: `defineExplainer()`; `src/main.rs` calls it) defines
//! the custom element. Its attributes mirror the page's state: `gpu` (an id of qpath's GPU table, e.g. `l4`), `vllm`
//! (a release, e.g. `0.25.0-prefix`, or a nightly it runs as), `cuda` (e.g. `12.9`), `cubins` (`yes`, `no` or `default`),
//! `flashinfer` (an installed FlashInfer other than the pin, e.g. `0.7.2.post1`), `cmd` (the whole
//! `vllm serve` command line), plus `compact` (present: the results only, without the command line) and `theme`
//! (`light` / `dark`; absent: the host's `color-scheme`). Each element gets its own Yew app ([`Explainer`]) rendered
//! into the element itself (light DOM, so the page's stylesheets and its `--qp-*` custom properties apply: a host
//! themes an element by setting them on it). Changing an attribute re-renders that element; removing the element
//! destroys its app. An attribute qpath cannot use is named in a message and its default is shown instead.
//!
//! **The page in an `<iframe>`.** With `embed=1` in its hash (`#embed=1&gpu=l4&vllm=0.25.0&cmd=…`) the page drops its
//! header, footer and share section, keeps `embed=1` in the hash it writes, and, when it has a parent window, posts
//! to it (target origin `*`: the messages carry nothing the parent did not put in the iframe's URL):
//!
//! - `{type: "qpath:resize", height}`: the app's height in CSS pixels (rounded up), on every change of it;
//! - `{type: "qpath:state", hash}`: the page's hash (`#embed=1&gpu=…`), whenever the state changes it.
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
/// The data attribute holding an element's instance number (its key in the table of mounted apps).
pub const INSTANCE_ATTRIBUTE: &str = "data-qpath-instance";

/// The `type` of the height message.
pub const RESIZE: &str = "qpath:resize";
/// The `type` of the state message.
pub const STATE: &str = "qpath:state";

#[wasm_bindgen(inline_js = r#"
export function define(tag, observed, onConnect, onChange, onDisconnect) {
  if (typeof customElements === "undefined" || customElements.get(tag)) return false;
  const attributes = observed.split(" ");
  customElements.define(tag, class extends HTMLElement {
    static get observedAttributes() { return attributes; }
    connectedCallback() { onConnect(this); }
    attributeChangedCallback(name, before, after) { if (before !== after) onChange(this); }
    disconnectedCallback() { onDisconnect(this); }
  });
  return true;
}
"#)]
extern "C" {
    /// Defines the element class (once: false when the tag is already defined) whose callbacks hand it to Rust.
    #[wasm_bindgen(js_name = define)]
    fn define_element(
        tag: &str,
        observed: &str,
        on_connect: &Closure<dyn FnMut(Element)>,
        on_change: &Closure<dyn FnMut(Element)>,
        on_disconnect: &Closure<dyn FnMut(Element)>,
    ) -> bool;
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

/// The scheme an element forces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Light,
    Dark,
}

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Light => "light",
            Scheme::Dark => "dark",
        }
    }
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

    /// The page state the attributes describe, its forced scheme, and a message naming each attribute that could not
    /// be used (in [`Page::notices`]; its default is used instead).
    pub fn read(&self) -> (Page, Option<Scheme>) {
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
            vllm_version: options.vllm_version.clone(),
            ..Link::default()
        };
        link.cmd = self.cmd.as_ref().map(|c| c.trim().to_string());
        let scheme = match self.theme.as_deref().map(str::trim) {
            None | Some("") => None,
            Some("light") => Some(Scheme::Light),
            Some("dark") => Some(Scheme::Dark),
            Some(v) => {
                problems.push(format!("theme=\"{v}\" is not light or dark; following the page's scheme."));
                None
            }
        };
        let mut page = Page::from_link(link);
        page.notices = problems;
        (page, scheme)
    }
}

/// One `<qpath-explainer>`: the answer for the scenario its attributes describe.
#[function_component(Explainer)]
pub fn explainer(props: &ExplainerProps) -> Html {
    let derived = use_memo(props.clone(), |p| {
        let (page, scheme) = p.read();
        let report = Rc::new(resolve(&page.scenario()));
        (page, scheme, report)
    });
    let (page, scheme, report) = &*derived;
    let style = scheme.map(|s| format!("color-scheme: {}", s.name()));
    html! {
        <div class={classes!("qpath-explainer", scheme.map(Scheme::name), props.compact.then_some("compact"))} {style}>
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

thread_local! {
    /// The mounted elements' apps, by instance number ([`INSTANCE_ATTRIBUTE`]).
    static INSTANCES: RefCell<HashMap<u32, yew::AppHandle<Explainer>>> = RefCell::new(HashMap::new());
    static NEXT_INSTANCE: Cell<u32> = const { Cell::new(1) };
}

fn instance_of(e: &Element) -> Option<u32> {
    let id = e.get_attribute(INSTANCE_ATTRIBUTE)?.parse().ok()?;
    INSTANCES.with(|m| m.borrow().contains_key(&id)).then_some(id)
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
    let _ = e.set_attribute(INSTANCE_ATTRIBUTE, &id.to_string());
    let app = yew::Renderer::<Explainer>::with_root_and_props(e, props).render();
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
            let _ = e.remove_attribute(INSTANCE_ATTRIBUTE);
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
    /// `{type: "qpath:resize", height}`
    Resize { height: u32 },
    /// `{type: "qpath:state", hash}`
    State { hash: String },
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
            Message::State { hash } => {
                set("type", STATE.into());
                set("hash", hash.as_str().into());
            }
        }
        o.into()
    }
}

/// What the page has told its parent: a message goes out only when its value differs from the last one sent.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    height: Option<u32>,
    hash: Option<String>,
}

impl Outbox {
    /// The resize message for a measured height (CSS pixels, rounded up), unless the parent already has it.
    pub fn resize(&mut self, height: f64) -> Option<Message> {
        let height = height.max(0.0).ceil() as u32;
        (self.height.replace(height) != Some(height)).then_some(Message::Resize { height })
    }

    /// The state message for the page's hash, unless the parent already has it.
    pub fn state(&mut self, hash: &str) -> Option<Message> {
        (self.hash.as_deref() != Some(hash)).then(|| {
            self.hash = Some(hash.to_string());
            Message::State { hash: hash.to_string() }
        })
    }
}

/// The objects the page posts for a state hash and then a height, starting from nothing sent (the protocol as data).
pub fn messages_for(hash: &str, height: f64) -> Vec<JsValue> {
    let mut outbox = Outbox::default();
    [outbox.state(hash), outbox.resize(height)]
        .into_iter()
        .flatten()
        .map(|m| m.to_js())
        .collect()
}

/// The parent window, if the page is inside a frame (`window.parent != window`).
pub fn parent_window() -> Option<web_sys::Window> {
    let window = web_sys::window()?;
    let parent = window.parent().ok().flatten()?;
    (parent != window).then_some(parent)
}

/// Posts a message to the parent window; false (nothing posted) when there is none.
pub fn post(message: &Message) -> bool {
    match parent_window() {
        Some(parent) => parent.post_message(&message.to_js(), "*").is_ok(),
        None => false,
    }
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
            theme: Some("dark".into()),
            cmd: Some("vllm serve Qwen/Qwen3-8B".into()),
            ..Default::default()
        };
        let (page, scheme) = p.read();
        // The bad gpu falls back to the core's default GPU, as the JS API's and the CLI's do.
        assert_eq!((page.gpu.id, page.release, page.cubins), ("h100-sxm", Release::V0_25_0, None));
        assert_eq!(page.command, "vllm serve Qwen/Qwen3-8B");
        assert_eq!(scheme, Some(Scheme::Dark));
        let all = page.notices.join("\n");
        assert!(
            all.contains("gpu=\"h900\" is not in qpath's GPU table; showing NVIDIA H100 SXM"),
            "{all}"
        );
        assert!(all.contains("cubins=\"maybe\""), "{all}");
        assert_eq!(page.notices.len(), 2);
        assert!(!page.embed);
    }

    #[test]
    fn no_attributes_take_the_core_defaults() {
        let (page, scheme) = ExplainerProps::default().read();
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
        assert_eq!(scheme, None);
    }

    #[test]
    fn the_outbox_sends_only_changes() {
        let mut o = Outbox::default();
        assert_eq!(o.resize(100.2), Some(Message::Resize { height: 101 }));
        assert_eq!(o.resize(100.9), None);
        assert_eq!(o.resize(90.0), Some(Message::Resize { height: 90 }));
        assert_eq!(
            o.state("#embed=1&gpu=l4"),
            Some(Message::State {
                hash: "#embed=1&gpu=l4".into()
            })
        );
        assert_eq!(o.state("#embed=1&gpu=l4"), None);
        assert!(o.state("#embed=1&gpu=t4").is_some());
    }
}
