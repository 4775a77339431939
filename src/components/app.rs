use qpath_core::gpu::{GpuFilter, GPUS};
use yew::prelude::*;

use crate::components::filters::FilterBar;
use crate::components::gpu_detail::GpuDetail;
use crate::components::gpu_list::GpuList;
use crate::hash;
use crate::state::{Action, Explorer};

/// Reads the hash once at start; a bad hash becomes notices, never a failure.
fn initial_state() -> Explorer {
    let from_hash = hash::parse(&current_hash());
    Explorer {
        filter: GpuFilter::default(),
        selected: from_hash.gpu,
        notices: from_hash.problems,
    }
}

fn current_hash() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

/// Writes the hash without adding a history entry for every click.
fn replace_hash(value: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    if current_hash() == value {
        return;
    }
    if let Ok(history) = window.history() {
        let url = if value.is_empty() {
            " ".to_string()
        } else {
            value.to_string()
        };
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(initial_state);

    // Effect: the selected GPU goes into the URL hash, so the link reopens the same GPU.
    use_effect_with(state.selected, |selected| {
        if let Some(g) = selected {
            replace_hash(&hash::format(Some(g)));
        }
    });

    // Callbacks
    let ondispatch = {
        let state = state.clone();
        Callback::from(move |action: Action| state.dispatch(action))
    };
    let onselect = {
        let state = state.clone();
        Callback::from(move |g| state.dispatch(Action::Select(g)))
    };
    let ondismiss = {
        let state = state.clone();
        Callback::from(move |_| state.dispatch(Action::DismissNotices))
    };

    // Derived values
    let rows = state.filter.apply(GPUS);

    html! {
        <div class="qpath">
            <header class="site-header">
                <h1>{ "qpath" }</h1>
                <p class="tagline">
                    { "Which query dtype and which attention kernel vLLM's FlashInfer backend picks for your GPU, and why. " }
                    { "Start by finding your GPU: its compute capability decides the FlashInfer path." }
                </p>
            </header>
            if !state.notices.is_empty() {
                <div class="notices" role="status" id="notices">
                    <ul>{ for state.notices.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                    <button type="button" onclick={ondismiss}>{ "Dismiss" }</button>
                </div>
            }
            <main class="layout">
                <section class="browser" aria-labelledby="gpu-heading">
                    <h2 id="gpu-heading">{ "GPUs" }</h2>
                    <FilterBar filter={state.filter.clone()} {ondispatch} />
                    <GpuList rows={rows} selected={state.selected.map(|g| g.id)} {onselect} />
                </section>
                <GpuDetail gpu={state.selected} />
            </main>
            <footer class="site-footer">
                { format!("{} GPUs in the embedded table (data/gpus.toml). Everything runs in your browser; nothing is sent anywhere.", GPUS.len()) }
            </footer>
        </div>
    }
}
