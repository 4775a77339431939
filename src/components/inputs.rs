//! The scenario's inputs besides the GPU: release, CUDA, cubins, FlashInfer, model and the flags that matter, one fieldset each.
//! Every flag control edits the command line (through [`Edit`]); its value always comes from the last command line
//! that parsed. The choices each offers come from [`qpath_core::choices`].

use std::rc::Rc;

use qpath_core::release::Release;
use qpath_core::report::Report;
use qpath_core::serve::ServeCommand;
use yew::prelude::*;

use crate::components::attention_fieldset::attention_fieldset;
use crate::components::cache_fieldset::cache_fieldset;
use crate::components::model_fieldset::{config_status, model_fieldset, ModelProps};
use crate::components::release_fieldset::{release_fieldset, ReleaseFieldsetProps};
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

/// What the fieldsets that edit the command line's flags show (KV cache, attention; the model fieldset's `ModelProps`
/// adds the pasted config.json).
pub struct FlagsProps {
    pub release: Release,
    /// The last command line that parsed ([`Page::last_valid`]).
    pub command: Rc<ServeCommand>,
    /// The command line's model builds MLA layers ([`qpath_core::choices::model_uses_mla`]): the controls offer the MLA
    /// backends and cache dtypes.
    pub mla: bool,
    pub onedit: Callback<Edit>,
}

/// The four fieldsets, for the page's `state` (and its `report`, which the config.json control summarises); each
/// reports its changes to `ondispatch` as actions. None holds state, so each is a plain function (as components they
/// re-rendered with every page render anyway: their callbacks are new each time).
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
    let release_props = ReleaseFieldsetProps {
        release,
        cuda: state.cuda,
        cubins: state.cubins,
        onrelease: d.reform(|v: String| Action::parsed("vLLM release", &v, Action::SetRelease)),
        oncuda: d.reform(|v: String| Action::parsed("CUDA version", &v, Action::SetCuda)),
        oncubins: d.reform(Action::SetCubins),
        flashinfer: state.flashinfer,
        onflashinfer: d.reform(|v: String| {
            if v.is_empty() {
                Action::SetFlashInfer(None)
            } else {
                Action::parsed("FlashInfer", &v, |f| Action::SetFlashInfer(Some(f)))
            }
        }),
    };
    let model_props = ModelProps {
        release,
        command: command.clone(),
        mla,
        onedit: onedit.clone(),
        config,
        status,
        ondispatch: d.clone(),
    };
    let flags = FlagsProps {
        release,
        command: command.clone(),
        mla,
        onedit,
    };
    html! {
        <div class="inputs">
            { release_fieldset(&release_props) }
            { model_fieldset(&model_props) }
            { cache_fieldset(&flags) }
            { attention_fieldset(&flags) }
        </div>
    }
}
