//! The scenario's inputs besides the GPU: release, CUDA, cubins, FlashInfer, model and the flags that matter, one fieldset each.
//! Every flag control edits the command line (through [`Edit`]); its value always comes from the last command line
//! that parsed. The choices each offers come from [`qpath_core::choices`].

use qpath_core::capability::CudaVersion;
use qpath_core::model;
use qpath_core::release::{FlashInfer, Release};
use qpath_core::serve::ServeCommand;
use yew::prelude::*;

use crate::components::attention_fieldset::AttentionFieldset;
use crate::components::cache_fieldset::CacheFieldset;
use crate::components::model_fieldset::ModelFieldset;
use crate::components::release_fieldset::ReleaseFieldset;
use crate::state::Action;

#[derive(PartialEq, Properties)]
pub struct InputsProps {
    pub release: Release,
    pub cuda: CudaVersion,
    pub cubins: Option<bool>,
    pub flashinfer: Option<FlashInfer>,
    pub command: ServeCommand,
    pub ondispatch: Callback<Action>,
}

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

#[function_component(Inputs)]
pub fn inputs(props: &InputsProps) -> Html {
    let d = &props.ondispatch;
    let c = &props.command;
    let onedit = d.reform(Action::Edit);
    let layers = model::find_preset(&c.model).map(|p| p.num_hidden_layers);
    html! {
        <div class="inputs">
            <ReleaseFieldset release={props.release} cuda={props.cuda} cubins={props.cubins}
                onrelease={d.reform(|v: String| Action::parsed("vLLM release", &v, Action::SetRelease))}
                oncuda={d.reform(|v: String| Action::parsed("CUDA version", &v, Action::SetCuda))}
                oncubins={d.reform(Action::SetCubins)} flashinfer={props.flashinfer}
                onflashinfer={d.reform(|v: String| if v.is_empty() {
                    Action::SetFlashInfer(None)
                } else {
                    Action::parsed("FlashInfer", &v, |f| Action::SetFlashInfer(Some(f)))
                })} />
            <ModelFieldset model={AttrValue::from(c.model.clone())} hf_overrides={c.hf_overrides.clone()} onedit={onedit.clone()} />
            <CacheFieldset release={props.release} kv_cache_dtype={AttrValue::from(c.kv_cache_dtype.clone())}
                skip_layers={c.kv_cache_dtype_skip_layers.clone()} {layers} onedit={onedit.clone()} />
            <AttentionFieldset release={props.release} command={c.clone()} {onedit} />
        </div>
    }
}
