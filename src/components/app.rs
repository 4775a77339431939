use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use qpath_core::gpu::GPUS;
use qpath_core::resolve::resolve;
use qpath_core::serve;
use yew::prelude::*;

use crate::components::choice::{Choice, ChoiceOption};
use crate::components::command_line::CommandLine;
use crate::components::compare::Compare;
use crate::components::filters::FilterBar;
use crate::components::gpu_detail::GpuDetail;
use crate::components::gpu_list::GpuList;
use crate::components::inputs::Inputs;
use crate::components::matrix_view::MatrixView;
use crate::components::results::Results;
use crate::embed::{self, Outbox, SizeWatch};
use crate::state::{Action, History, Page, View};
use crate::theme::Theme;

/// `repository` of Cargo.toml, set at build time.
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

fn current_hash() -> String {
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

/// The page's address (without its hash) followed by `hash`.
fn page_link(hash: &str) -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    let base = href.split('#').next().unwrap_or_default();
    format!("{base}{hash}")
}

fn copy_to_clipboard(text: &str) {
    if let Some(w) = web_sys::window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| Page::from_hash(&current_hash()));

    // In an iframe (`embed=1`): what the parent has been told (see crate::embed).
    let outbox = use_mut_ref(Outbox::default);
    let root = use_node_ref();

    // Effect: the state goes into the URL hash, so the link reopens the same scenario; an embedded page tells its parent.
    {
        let hash = state.hash();
        let mode = state.history;
        let embedded = state.embed;
        let outbox = outbox.clone();
        use_effect_with(hash, move |h| {
            write_hash(h, mode);
            if embedded {
                let message = outbox.borrow_mut().state(h);
                if let Some(m) = message {
                    embed::post(&m);
                }
            }
        });
    }
    // Effect: an embedded page posts its height to the parent on every change of it.
    {
        let root = root.clone();
        let outbox: Rc<RefCell<Outbox>> = outbox.clone();
        use_effect_with(state.embed, move |embedded| {
            let watch = if *embedded {
                root.cast::<web_sys::Element>().and_then(|e| SizeWatch::new(&e, outbox))
            } else {
                None
            };
            move || drop(watch)
        });
    }
    // Effect: back/forward (popstate) and a hash edited in the address bar (hashchange) load the hash they land on.
    {
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

    // Theme: the system's unless chosen; remembered.
    let theme = use_state(Theme::load);
    use_effect_with(*theme, |t| t.apply());
    let ontheme = {
        let theme = theme.clone();
        Callback::from(move |_: MouseEvent| theme.set(theme.next()))
    };

    // Callbacks
    let ondispatch = {
        let state = state.clone();
        Callback::from(move |action: Action| state.dispatch(action))
    };
    let onselect = ondispatch.reform(Action::SelectGpu);
    let ondismiss = ondispatch.reform(|_: MouseEvent| Action::DismissNotices);
    let oncopy = Callback::from(|text: String| copy_to_clipboard(&text));
    let onpick = ondispatch.reform(|(g, kv)| Action::PickCell(g, kv));
    let tab = |view: View, id: &'static str, label: &'static str| {
        let onclick = ondispatch.reform(move |_: MouseEvent| Action::SetView(view));
        let selected = state.view == view;
        html! { <button type="button" role="tab" {id} aria-selected={selected.to_string()} class={classes!("tab", selected.then_some("active"))} {onclick}>{ label }</button> }
    };

    // Derived values
    let rows = state.filter.apply(GPUS);
    let report = Rc::new(resolve(&state.scenario()));
    // The link to this state: the page's address with the state's hash, not the address bar's, which the hash effect
    // updates only after this render (on a first load without a hash the bar has none yet).
    let link = page_link(&state.hash());
    let markdown = qpath_core::render::markdown(&report, &state.command, Some(&link));
    let oncopy_link = {
        let link = link.clone();
        Callback::from(move |_: MouseEvent| copy_to_clipboard(&link))
    };
    let oncopy_markdown = {
        let markdown = markdown.clone();
        Callback::from(move |_: MouseEvent| copy_to_clipboard(&markdown))
    };
    let results = match state.view {
        View::Explain => html! { <Results report={report.clone()} /> },
        View::Compare => {
            let releases: Vec<ChoiceOption> = qpath_core::release::Release::ALL
                .iter()
                .map(|r| ChoiceOption::new(r.name(), r.name()))
                .collect();
            let other = Rc::new(resolve(&state.compare_scenario()));
            html! {
                <div class="compare-view">
                    <label class="compare-pick"><span>{ "Compare with vLLM" }</span>
                        <Choice id="compare-release" options={releases} value={AttrValue::from(state.compare_release.name())}
                            onchange={ondispatch.reform(|v: String| Action::SetCompareRelease(v.parse().unwrap_or(qpath_core::release::Release::V0_25_0)))} />
                    </label>
                    <Compare left={other} right={report.clone()} />
                </div>
            }
        }
        View::Matrix => html! { <MatrixView base={state.scenario()} {onpick} /> },
    };
    // One parse of the command line serves the error line and the unused-flags line.
    let (command_error, unused) = match serve::parse(state.release, &state.command) {
        Ok(cmd) => (None, cmd.unused),
        Err(e) => (Some(AttrValue::from(e.to_string())), Vec::new()),
    };

    let embedded = state.embed;
    html! {
        <div class={classes!("qpath", embedded.then_some("embed"))} ref={root}>
            if !embedded {
                <header class="site-header">
                    <div class="title-row">
                        <h1>{ "qpath" }</h1>
                        <button type="button" id="theme-toggle" onclick={ontheme} aria-label={format!("theme: {}; change", theme.name())}>
                            { format!("Theme: {}", theme.name()) }
                        </button>
                    </div>
                    <p class="tagline">
                        { "Which query dtype and attention kernel vLLM's FlashInfer backend picks for each group of layers on your GPU, \
                           release and flags, whether it crashes, and why: restated from each release's source, computed in your browser." }
                    </p>
                </header>
            }
            if !state.notices.is_empty() {
                <div class="notices" role="status" id="notices">
                    <ul>{ for state.notices.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                    <button type="button" onclick={ondismiss}>{ "Dismiss" }</button>
                </div>
            }
            // Embedded, the page has no header: its h1 is in main (visually hidden), and names main, which must stand apart
            // from the host page's own main.
            <main class="layout" aria-labelledby={embedded.then_some("embed-title")}>
                if embedded {
                    <h1 id="embed-title" class="visually-hidden">{ "qpath" }</h1>
                }
                <div class="setup">
                    <section class="gpu-picker" aria-labelledby="gpu-heading">
                        <h2 id="gpu-heading">{ "GPU" }</h2>
                        <p id="selected-gpu" class="selected-gpu">
                            { format!("{} · compute capability {} · {}", state.gpu.name, state.gpu.capability, state.gpu.arch) }
                        </p>
                        <details class="gpu-browser">
                            <summary>{ "Choose another GPU" }</summary>
                            <FilterBar filter={state.filter.clone()} ondispatch={ondispatch.clone()} />
                            <GpuList rows={rows} selected={Some(state.gpu.id)} {onselect} />
                            <GpuDetail gpu={Some(state.gpu)} />
                        </details>
                    </section>
                    <Inputs release={state.release} cuda={state.cuda} cubins={state.cubins} command={state.last_valid.clone()}
                        ondispatch={ondispatch.clone()} />
                    <CommandLine command={AttrValue::from(state.command.clone())} error={command_error} {unused}
                        ondispatch={ondispatch.clone()} {oncopy} />
                </div>
                <div class="answer">
                    <div class="tabs" role="tablist" aria-label="Views">
                        { tab(View::Explain, "tab-explain", "Explain") }
                        { tab(View::Compare, "tab-compare", "Compare releases") }
                        { tab(View::Matrix, "tab-matrix", "All GPUs × cache dtypes") }
                    </div>
                    { results }
                    if !embedded {
                        <section class="share" aria-label="Share">
                            <button type="button" id="copy-link" onclick={oncopy_link}>{ "Copy link" }</button>
                            <button type="button" id="copy-markdown" onclick={oncopy_markdown}>{ "Copy as Markdown" }</button>
                            <details>
                                <summary>{ "Markdown for a GitHub issue" }</summary>
                                <pre id="markdown-preview" tabindex="0" role="region" aria-label="Markdown preview">{ markdown }</pre>
                            </details>
                        </section>
                    }
                </div>
            </main>
            if !embedded {
                <footer class="site-footer">
                    { format!("{} GPUs, vLLM 0.24.0 to 0.33.0. Everything runs in your browser; nothing is sent anywhere. ", GPUS.len()) }
                    // The repository link comes from Cargo.toml's `repository` (empty until the project has a public address).
                    if !REPOSITORY.is_empty() {
                        <a id="repository-link" href={REPOSITORY} rel="noopener noreferrer">{ "Source and issues" }</a>
                    }
                </footer>
            }
        </div>
    }
}
