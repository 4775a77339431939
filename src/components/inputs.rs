//! The scenario's inputs besides the GPU: release, CUDA, cubins, FlashInfer, model and the flags that matter, one fieldset each.
//! Every flag control edits the command line (through [`Edit`]); its value always comes from the last command line
//! that parsed. The choices each offers come from [`qpath_core::choices`].

use std::rc::Rc;

use qpath_core::release::Release;
use qpath_core::report::Report;
use qpath_core::serve::ServeCommand;
use yew::prelude::*;

use crate::components::attention_fieldset::AttentionFieldset;
use crate::components::cache_fieldset::CacheFieldset;
use crate::components::model_fieldset::{config_status, ModelFieldset};
use crate::components::release_fieldset::ReleaseFieldset;
use crate::state::{Action, Edit, Page};

/// The select value of an optional boolean: `""` for unset.
pub fn opt_bool(v: Option<bool>) -> AttrValue {
    match v {
        None => "".into(),
        Some(true) => "true".into(),
        Some(false) => "false".into(),
    }
}

pub fn parse_opt_bool(v: &str) -> Option<bool> {
    match v {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// The props of the fieldsets that edit the command line's flags (KV cache, attention; the model fieldset's `ModelProps`
/// adds the pasted config.json).
#[derive(Properties)]
pub struct FlagsProps {
    pub release: Release,
    /// The last command line that parsed ([`Page::last_valid`]).
    pub command: Rc<ServeCommand>,
    /// The command line's model builds MLA layers ([`qpath_core::choices::model_uses_mla`]): the controls offer the MLA
    /// backends and cache dtypes.
    pub mla: bool,
    pub onedit: Callback<Edit>,
}

/// Nothing changes a command line while two `Rc`s share it, so the same `Rc` holds the same flags: a pointer comparison
/// stands for a comparison of the whole command line (an equal command line in a new `Rc` only costs a render).
impl PartialEq for FlagsProps {
    fn eq(&self, other: &Self) -> bool {
        self.onedit == other.onedit
            && self.release == other.release
            && self.mla == other.mla
            && Rc::ptr_eq(&self.command, &other.command)
    }
}

/// The four fieldsets, for the page's `state` (and its `report`, which the config.json control summarises); each
/// reports its changes to `ondispatch` as actions. The container holds no state, so it is a plain function; each
/// fieldset is a component.
pub fn inputs(state: &Page, report: &Report, ondispatch: &Callback<Action>) -> Html {
    let d = ondispatch;
    let (release, command) = (state.release, &state.last_valid);
    let onedit = d.reform(Action::Edit);
    let status = state
        .model_config
        .as_deref()
        .map(|c| config_status(c, release, command, report));
    let config = state.model_config.clone().map(AttrValue::from);
    // One model read (no resolve): what the controls offer depends on whether its layers are MLA.
    let mla = qpath_core::choices::model_uses_mla(release, command, state.model_config.as_deref());
    html! {
        <div class="inputs">
            <ReleaseFieldset {release} cuda={state.cuda} cubins={state.cubins}
                onrelease={d.reform(|v: String| Action::parsed("vLLM release", &v, Action::SetRelease))}
                oncuda={d.reform(|v: String| Action::parsed("CUDA version", &v, Action::SetCuda))}
                oncubins={d.reform(Action::SetCubins)} flashinfer={state.flashinfer}
                onflashinfer={d.reform(|v: String| if v.is_empty() {
                    Action::SetFlashInfer(None)
                } else {
                    Action::parsed("FlashInfer", &v, |f| Action::SetFlashInfer(Some(f)))
                })} />
            <ModelFieldset {release} command={command.clone()} {mla} onedit={onedit.clone()} {config} {status} ondispatch={d.clone()} />
            <CacheFieldset {release} command={command.clone()} {mla} onedit={onedit.clone()} />
            <AttentionFieldset {release} command={command.clone()} {mla} {onedit} />
        </div>
    }
}
