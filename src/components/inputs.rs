//! The scenario's inputs besides the GPU and the command line: the release (shown beside the command line), the
//! fieldsets of the flags that matter (model, KV cache, attention), and the one advanced section "Machine and advanced
//! settings" (CUDA, cubins, FlashInfer; the attention-config switches, DCP, batch invariance), folded, whose summary
//! says which of its values differ from their defaults.
//! Every flag control edits the command line (through [`Edit`]); its value always comes from the last command line
//! that parsed. The choices each offers come from [`qpath_core::choices`].

use std::rc::Rc;

use qpath_core::release::Release;
use qpath_core::report::Report;
use qpath_core::serve::ServeCommand;
use yew::prelude::*;

use crate::components::attention_fieldset::{attention_fieldset, attention_switches};
use crate::components::cache_fieldset::cache_fieldset;
use crate::components::model_fieldset::{config_status, model_fieldset, ModelProps};
use crate::components::release_fieldset::{machine_fieldset, release_select, ReleaseFieldsetProps};
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

/// The inputs' three places on the page: the release select (beside the command line, with the GPU), the fieldsets
/// that edit the command line's flags, and the folded advanced section.
pub struct Inputs {
    pub release: Html,
    pub flags: Html,
    pub advanced: Html,
}

/// The inputs, for the page's `state` (and its `report`, which the config.json control summarises); each reports its
/// changes to `ondispatch` as actions. None holds state, so each is a plain function (as components they re-rendered
/// with every page render anyway: their callbacks are new each time).
pub fn inputs(state: &Page, report: &Report, ondispatch: &Callback<Action>) -> Inputs {
    let d = ondispatch;
    let (release, command) = (state.release, &state.last_valid);
    let onedit = d.reform(Action::Edit);
    let status = state
        .model_config
        .as_deref()
        .map(|c| config_status(c, release, command, report));
    // A config.json refused as too large: its box says so (the previous one, still in use, stays).
    let status = state.config_refused.clone().map(Err).or(status);
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
    let changed = advanced_changes(state);
    Inputs {
        release: release_select(&release_props),
        flags: html! {
            <div class="inputs">
                { model_fieldset(&model_props) }
                { cache_fieldset(&flags) }
                { attention_fieldset(&flags) }
            </div>
        },
        advanced: html! {
            <details class="advanced" id="advanced">
                <summary>
                    <span class="advanced-title">{ "Machine and advanced settings" }</span>
                    <span class="advanced-state" id="advanced-state">{ advanced_summary(&changed) }</span>
                </summary>
                <div class="inputs">
                    { machine_fieldset(&release_props) }
                    { attention_switches(&flags) }
                </div>
            </details>
        },
    }
}

/// What the folded section's summary says: all defaults, or which values differ.
fn advanced_summary(changed: &[String]) -> String {
    if changed.is_empty() {
        format!(
            "all defaults: CUDA {}, TRTLLM cubins available, the release's FlashInfer, no DCP, vLLM's own attention \
             choices",
            qpath_core::resolve::DEFAULT_CUDA
        )
    } else {
        format!("changed: {}", changed.join(", "))
    }
}

/// The advanced section's values that differ from their defaults, in words (`CUDA 12.8`, `-dcp 2`, …).
pub fn advanced_changes(state: &Page) -> Vec<String> {
    let c = &state.last_valid;
    let mut v = Vec::new();
    if state.cuda != qpath_core::resolve::DEFAULT_CUDA {
        v.push(format!("CUDA {}", state.cuda));
    }
    match state.cubins {
        Some(true) => v.push("TRTLLM cubins: yes".to_string()),
        Some(false) => v.push("TRTLLM cubins: no".to_string()),
        None => {}
    }
    if let Some(f) = state.flashinfer.filter(|f| *f != state.release.flashinfer_pin()) {
        v.push(format!("FlashInfer {}", f.name()));
    }
    if let Some(b) = c.attention_config.use_trtllm_attention {
        v.push(format!("use_trtllm_attention={b}"));
    }
    if c.attention_config.disable_flashinfer_q_quantization {
        v.push("disable_flashinfer_q_quantization".to_string());
    }
    if c.decode_context_parallel_size != 1 {
        v.push(format!("-dcp {}", c.decode_context_parallel_size));
    }
    let batch = qpath_core::choices::batch_invariant(c);
    if batch.is_checked() || batch.error().is_some() {
        v.push(qpath_core::choices::BATCH_INVARIANT.to_string());
    }
    v
}
