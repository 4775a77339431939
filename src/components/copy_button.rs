//! A copy button that says what happened beside itself (role=status): "Copied", or why not (no clipboard API, not a
//! secure context, permission denied). The clipboard is reached through `Reflect` and its promise awaited, so a
//! missing API or a refusal is a message, never an uncaught error or rejected promise.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CopyButtonProps {
    /// The button's id; its status line is `{id}-status`.
    pub id: AttrValue,
    pub label: AttrValue,
    /// What a click copies.
    pub text: AttrValue,
}

/// The button and its status line.
#[function_component(CopyButton)]
pub fn copy_button(props: &CopyButtonProps) -> Html {
    let status = use_state(String::new);
    let onclick = {
        let (status, text) = (status.clone(), props.text.clone());
        Callback::from(move |_: MouseEvent| {
            let (status, text) = (status.clone(), text.clone());
            wasm_bindgen_futures::spawn_local(async move { status.set(copy(&text).await) });
        })
    };
    html! {
        <>
            <button type="button" id={props.id.clone()} {onclick}>{ props.label.clone() }</button>
            <span class="hint copy-status" role="status" id={format!("{}-status", props.id)}>{ (*status).clone() }</span>
        </>
    }
}

/// Copies `text`; "Copied" or why it was not.
pub async fn copy(text: &str) -> String {
    let Some(window) = web_sys::window() else {
        return "Not copied: no window".into();
    };
    let clipboard = Reflect::get(&window.navigator(), &"clipboard".into()).unwrap_or(JsValue::UNDEFINED);
    let write = Reflect::get(&clipboard, &"writeText".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok());
    let Some(write) = write.filter(|_| !clipboard.is_undefined() && !clipboard.is_null()) else {
        return if window.is_secure_context() {
            "Not copied: this browser has no clipboard API; select the text and copy it.".into()
        } else {
            "Not copied: browsers allow the clipboard only on https or localhost pages; select the text and copy it.".into()
        };
    };
    let result = match write.call1(&clipboard, &text.into()) {
        Ok(p) => match p.dyn_into::<Promise>() {
            Ok(p) => JsFuture::from(p).await.map(drop),
            Err(_) => Ok(()),
        },
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => "Copied".into(),
        Err(e) => {
            let field = |k: &str| {
                Reflect::get(&e, &k.into())
                    .ok()
                    .and_then(|v| v.as_string())
                    .unwrap_or_default()
            };
            match field("name").as_str() {
                "NotAllowedError" => {
                    "Not copied: the browser denied clipboard access (permission, or the page lost focus).".into()
                }
                name => format!(
                    "Not copied: the clipboard refused ({}).",
                    qpath_core::options::echo(&format!("{name}: {}", field("message")))
                ),
            }
        }
    }
}
