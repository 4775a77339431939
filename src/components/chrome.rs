//! The page's frame around the inputs and the answer: the header (with the theme toggle), the notices and the footer.
//! An embedded page shows only the notices.

use qpath_core::gpu::GPUS;
use qpath_core::release::Release;
use yew::prelude::*;

use crate::theme::Theme;

/// `repository` of Cargo.toml, set at build time.
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

#[derive(PartialEq, Properties)]
pub struct SiteHeaderProps {
    pub theme: Theme,
    pub ontheme: Callback<MouseEvent>,
}

#[function_component(SiteHeader)]
pub fn site_header(props: &SiteHeaderProps) -> Html {
    let name = props.theme.name();
    html! {
        <header class="site-header">
            <div class="title-row">
                <h1>{ "qpath" }</h1>
                <button type="button" id="theme-toggle" onclick={props.ontheme.clone()} aria-label={format!("theme: {name}; change")}>
                    { format!("Theme: {name}") }
                </button>
            </div>
            <p class="tagline">
                { "Which query dtype and attention kernel vLLM's FlashInfer backend picks for each group of layers on your GPU, \
                   release and flags, whether it crashes, and why: restated from each release's source, computed in your browser." }
            </p>
        </header>
    }
}

#[derive(PartialEq, Properties)]
pub struct NoticesProps {
    pub notices: Vec<String>,
    pub ondismiss: Callback<MouseEvent>,
}

/// Messages about input the page could not use; nothing when there are none.
#[function_component(Notices)]
pub fn notices(props: &NoticesProps) -> Html {
    if props.notices.is_empty() {
        return html! {};
    }
    html! {
        <div class="notices" role="status" id="notices">
            <ul>{ for props.notices.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
            <button type="button" onclick={props.ondismiss.clone()}>{ "Dismiss" }</button>
        </div>
    }
}

#[function_component(SiteFooter)]
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
