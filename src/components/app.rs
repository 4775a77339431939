//! The page: owns the state ([`Page`], changed by [`Action`]s), keeps it in the URL hash (see
//! [`crate::components::hooks`]) and lays out the components, which get what they show as props.

use std::rc::Rc;

use qpath_core::resolve::resolve;
use qpath_core::serve;
use yew::prelude::*;

use crate::components::chrome::{Notices, SiteFooter, SiteHeader};
use crate::components::command_line::CommandLine;
use crate::components::gpu_picker::GpuPicker;
use crate::components::hooks::{current_hash, use_hash_sync, use_size_messages, use_theme};
use crate::components::inputs::Inputs;
use crate::components::matrix_view::MatrixView;
use crate::components::results::Results;
use crate::components::views::{copy_to_clipboard, CompareView, Share, ViewTabs};
use crate::embed::Outbox;
use crate::state::{Action, Page, View};

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(|| Page::from_hash(&current_hash()));
    // In an iframe (`embed=1`): what the parent has been told (see crate::embed).
    let outbox = use_mut_ref(Outbox::default);
    let root = use_node_ref();
    use_hash_sync(&state, outbox.clone());
    use_size_messages(state.embed, root.clone(), outbox);
    let (theme, ontheme) = use_theme();

    let ondispatch = {
        let state = state.clone();
        Callback::from(move |action: Action| state.dispatch(action))
    };
    let report = Rc::new(resolve(&state.scenario()));
    let results = match state.view {
        View::Explain => html! { <Results report={report.clone()} /> },
        View::Compare => html! {
            <CompareView report={report.clone()} other={state.compare_scenario()}
                onrelease={ondispatch.reform(|v: String| Action::parsed("release to compare with", &v, Action::SetCompareRelease))} />
        },
        View::Matrix => html! {
            <MatrixView base={state.scenario()} onpick={ondispatch.reform(|(g, kv)| Action::PickCell(g, kv))} />
        },
    };
    // One parse of the command line serves the error line and the unused-flags line.
    let (command_error, unused) = match serve::parse(state.release, &state.command) {
        Ok(cmd) => (None, cmd.unused),
        Err(e) => (Some(AttrValue::from(e.to_string())), Vec::new()),
    };
    let command = AttrValue::from(state.command.clone());

    let embedded = state.embed;
    html! {
        <div class={classes!("qpath", embedded.then_some("embed"))} ref={root}>
            if !embedded {
                <SiteHeader {theme} {ontheme} />
            }
            <Notices notices={state.notices.clone()} ondismiss={ondispatch.reform(|_: MouseEvent| Action::DismissNotices)} />
            // Embedded, the page has no header: its h1 is in main (visually hidden), and names main, which must stand apart
            // from the host page's own main.
            <main class="layout" aria-labelledby={embedded.then_some("embed-title")}>
                if embedded {
                    <h1 id="embed-title" class="visually-hidden">{ "qpath" }</h1>
                }
                <div class="setup">
                    <GpuPicker gpu={state.gpu} filter={state.filter.clone()} ondispatch={ondispatch.clone()}
                        onselect={ondispatch.reform(Action::SelectGpu)} />
                    <Inputs release={state.release} cuda={state.cuda} cubins={state.cubins} flashinfer={state.flashinfer} command={state.last_valid.clone()}
                        ondispatch={ondispatch.clone()} />
                    <CommandLine command={command.clone()} error={command_error} {unused}
                        oninput={ondispatch.reform(Action::SetCommand)} oncopy={Callback::from(|text: String| copy_to_clipboard(&text))} />
                </div>
                <div class="answer">
                    <ViewTabs view={state.view} onview={ondispatch.reform(Action::SetView)} />
                    { results }
                    if !embedded {
                        <Share {report} {command} hash={AttrValue::from(state.hash())} />
                    }
                </div>
            </main>
            if !embedded {
                <SiteFooter />
            }
        </div>
    }
}
