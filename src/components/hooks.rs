//! The App's effects as hooks: the URL hash, the messages an embedded page sends its parent, the theme.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use yew::prelude::*;

use crate::embed::{self, Outbox, SizeWatch};
use crate::state::{Action, History, Page};
use crate::theme::Theme;

/// The address bar's hash (with its `#`), or "" without one.
pub fn current_hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Writes the state into the address bar: a new history entry for a discrete change, a replacement while typing.
fn write_hash(value: &str, mode: History) {
    let Some(window) = web_sys::window() else { return };
    if current_hash() == value {
        return;
    }
    if let Ok(history) = window.history() {
        let null = wasm_bindgen::JsValue::NULL;
        let _ = match mode {
            History::Push => history.push_state_with_url(&null, "", Some(value)),
            History::Replace => history.replace_state_with_url(&null, "", Some(value)),
        };
    }
}

/// Keeps the state and the URL hash in step. The state goes into the hash, so the link reopens the same scenario (an
/// embedded page also tells its parent); back/forward (popstate) and a hash edited in the address bar (hashchange)
/// load the hash they land on.
#[hook]
pub fn use_hash_sync(state: &UseReducerHandle<Page>, outbox: Rc<RefCell<Outbox>>) {
    {
        let mode = state.history;
        let embedded = state.embed;
        use_effect_with(state.hash(), move |h| {
            write_hash(h, mode);
            if embedded {
                let message = outbox.borrow_mut().state(h);
                if let Some(m) = message {
                    embed::post(&m);
                }
            }
        });
    }
    let dispatch = state.dispatcher();
    use_effect_with((), move |_| {
        let listeners: Vec<EventListener> = web_sys::window()
            .map(|w| {
                ["popstate", "hashchange"]
                    .into_iter()
                    .map(|event| {
                        let dispatch = dispatch.clone();
                        EventListener::new(&w, event, move |_| dispatch.dispatch(Action::LoadHash(current_hash())))
                    })
                    .collect()
            })
            .unwrap_or_default();
        move || drop(listeners)
    });
}

/// An embedded page posts the height of `root` to its parent on every change of it (see [`crate::embed`]).
#[hook]
pub fn use_size_messages(embedded: bool, root: NodeRef, outbox: Rc<RefCell<Outbox>>) {
    use_effect_with(embedded, move |embedded| {
        let watch = if *embedded {
            root.cast::<web_sys::Element>().and_then(|e| SizeWatch::new(&e, outbox))
        } else {
            None
        };
        move || drop(watch)
    });
}

/// The theme and the toggle's callback. `forced`: a link's `theme=`, applied over the remembered theme and not
/// remembered; otherwise the remembered theme (the system's unless chosen), and a choice is remembered. When the
/// browser refuses storage, `onblocked` gets [`crate::theme::STORAGE_BLOCKED`] once.
#[hook]
pub fn use_theme(forced: Option<Theme>, onblocked: Callback<String>) -> (Theme, Callback<MouseEvent>) {
    let loaded = use_memo((), |_| Theme::load());
    let (remembered, readable) = *loaded;
    let theme = use_state(move || forced.unwrap_or(remembered));
    let said = use_mut_ref(|| false);
    // A theme= that changes later (a new hash) is applied too.
    {
        let theme = theme.clone();
        use_effect_with(forced, move |f| {
            if let Some(f) = *f {
                theme.set(f);
            }
        });
    }
    use_effect_with((*theme, forced.is_some()), move |(t, forced)| {
        t.apply();
        let stored = *forced || t.remember() && readable;
        if !stored && !std::mem::replace(&mut *said.borrow_mut(), true) {
            onblocked.emit(crate::theme::STORAGE_BLOCKED.to_string());
        }
    });
    let ontheme = {
        let theme = theme.clone();
        Callback::from(move |_: MouseEvent| theme.set(theme.next()))
    };
    (*theme, ontheme)
}

/// `false` until the page has had a frame after its first render, then `true` (one more render): for parts that are
/// hidden on a first visit, so that the first frame (the first result card) does not wait for them. The frame is
/// `requestAnimationFrame`'s, then a task after it (the frame is painted by then); a page that gets no frames (a
/// hidden tab) waits 100 ms instead (copy_button.rs's snippet: `after_first_frame`).
#[hook]
pub fn use_after_first_frame() -> bool {
    let ready = use_state_eq(|| false);
    {
        let ready = ready.clone();
        use_effect_with((), move |_| {
            yew::platform::spawn_local(async move {
                let _ = wasm_bindgen_futures::JsFuture::from(crate::components::copy_button::after_first_frame()).await;
                ready.set(true);
            });
        });
    }
    *ready
}
