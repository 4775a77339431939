//! The page's frame around the inputs and the answer: the header (with the theme toggle), the notices and the footer.
//! An embedded page shows only the notices. They hold no state, so they are plain functions that [`App`] calls in its
//! render, not components.
//!
//! [`App`]: crate::components::app::App

use qpath_core::gpu::GPUS;
use qpath_core::release::Release;
use yew::prelude::*;

use crate::theme::Theme;

/// `repository` of Cargo.toml, set at build time.
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// The header: the title, the theme toggle (showing `theme`; a click calls `ontheme`) and the tagline.
pub fn site_header(theme: Theme, ontheme: Callback<MouseEvent>) -> Html {
    let name = theme.name();
    html! {
        <header class="site-header">
            <div class="title-row">
                <h1>{ "qpath" }</h1>
                <button type="button" id="theme-toggle" onclick={ontheme} aria-label={format!("theme: {name}; change")}>
                    { format!("Theme: {name}") }
                </button>
            </div>
            <p class="tagline">
                { "Which attention backend vLLM picks for each group of layers on your GPU, release and flags (FlashInfer, \
                   FlashAttention, Triton, DeepSeek's MLA backends, …), the query dtype and kernel it runs in prefill and decode, whether it crashes, \
                   and why: restated from each release's source, computed in your browser." }
            </p>
            <details id="help" class="help">
                <summary>{ "What you can ask here" }</summary>
                <ul>
                    <li><strong>{ "What should I run instead? " }</strong>{ "Above a scenario vLLM fails with (or runs with \
                        fewer CUDA graphs than asked), \"How to make it run\" lists the command lines one or two changes \
                        away that run, best first; Apply sets one. Example: an NVIDIA L4, vLLM 0.25.0-prefix, \
                        `--kv-cache-dtype fp8`: the first fix keeps FlashInfer and the FP8 cache with \
                        `--attention-config '{\"disable_flashinfer_q_quantization\": true}'`." }</li>
                    <li><strong>{ "Did this change between releases? " }</strong>{ "The \"Release timeline\" tab runs the \
                        scenario at every release and marks where the answer changes, with the rule that decides it. \
                        Example: the same L4 scenario fails at 0.25.0-prefix and runs again at 0.25.0." }</li>
                    <li><strong>{ "What does my log say? " }</strong>{ "The \"Explain a log\" tab reads a pasted vLLM \
                        start-up log or traceback (its version, GPU, non-default args, model), sets the page to that \
                        scenario, and puts qpath's log lines beside the log's, line by line. Example: a 0.26.0 log from \
                        an RTX 5090 with `kv_cache_dtype: fp8` gives FlashInfer's selection line, the same as the log's." }</li>
                </ul>
            </details>
        </header>
    }
}

/// Messages about input the page could not use, with a button that calls `ondismiss`; nothing when there are none.
pub fn notices(notices: &[String], ondismiss: Callback<MouseEvent>) -> Html {
    if notices.is_empty() {
        return html! {};
    }
    html! {
        <div class="notices" role="status" id="notices">
            <ul>{ for notices.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
            <button type="button" onclick={ondismiss}>{ "Dismiss" }</button>
        </div>
    }
}

/// The footer: what the page covers, that it runs locally, and the repository link.
pub fn site_footer() -> Html {
    let first = Release::ALL.first().map_or("", |r| r.name());
    html! {
        <footer class="site-footer">
            { format!("{} GPUs, vLLM {first} to {}. Everything runs in your browser; nothing is sent anywhere. ", GPUS.len(), Release::LATEST.name()) }
            // The repository link comes from Cargo.toml's `repository` (empty until the project has a public address).
            if !REPOSITORY.is_empty() {
                <a id="repository-link" href={REPOSITORY} rel="noopener noreferrer">{ "Source and issues" }</a>
            }
        </footer>
    }
}
