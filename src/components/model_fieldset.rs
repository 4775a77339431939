//! The fieldset "Model": the model (a preset or the command line's), the `--hf-overrides` keys qpath reads, and a
//! model's own config.json (pasted or dropped), read instead of the preset.

use std::rc::Rc;

use qpath_core::choices::{self, HfOverride};
use qpath_core::model::{self, MODEL_PRESETS};
use qpath_core::release::Release;
use qpath_core::serve::ServeCommand;
use serde_json::Value;
use wasm_bindgen_futures::JsFuture;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::components::attention_fieldset::{options, text};
use crate::components::choice::{choice_select, labeled_select, ChoiceOption};
use crate::state::{Action, Edit};

/// [`crate::components::inputs::FlagsProps`] with the page's pasted config.json (`config`), what qpath made of it
/// (`status`) and where its control sends its actions (`ondispatch`); see [`config_input`].
pub struct ModelProps {
    pub release: Release,
    pub command: Rc<ServeCommand>,
    /// The model builds MLA layers: the override inputs are its latent dims.
    pub mla: bool,
    pub onedit: Callback<Edit>,
    pub config: Option<AttrValue>,
    pub status: Option<ConfigStatus>,
    pub ondispatch: Callback<Action>,
}

/// The fieldset (a plain function, as [`crate::components::attention_fieldset::attention_fieldset`]).
pub fn model_fieldset(props: &ModelProps) -> Html {
    let (model, hf_overrides) = (&props.command.model, &props.command.hf_overrides);
    let preset = model::find_preset(model);
    let mut models: Vec<ChoiceOption> = MODEL_PRESETS.iter().map(|m| ChoiceOption::new(m.id, m.id)).collect();
    if preset.is_none() {
        models.insert(0, ChoiceOption::new(model.as_str(), format!("{model} (not a preset)")));
    }
    let overrides = choices::hf_overrides(preset, props.mla).map(|o| {
        let value = hf_overrides.as_ref().and_then(|m| m.get(o.key)).map(|v| v.to_string());
        override_input(o, value, &props.onedit)
    });
    html! {
        <fieldset class="row">
            <legend>{ "Model" }</legend>
            <label class="wide"><span>{ "Model" }</span>
                { choice_select("model", models, AttrValue::from(model.clone()), props.onedit.reform(Edit::Model)) }</label>
            { for overrides }
            <p class="hint">{ "Blank keeps the preset; a number becomes a --hf-overrides key." }</p>
            { config_input(props.config.as_deref(), props.status.clone(), &props.ondispatch) }
            { drafter_section(props.release, &props.command, mtp_unavailable(props), &props.onedit) }
        </fieldset>
    }
}

/// The select value of a speculative config that names no method (vLLM infers it from the model).
const INFERRED_METHOD: &str = "(inferred)";

/// The drafter section: the speculative method (off, [`choices::speculative_methods`], or the command line's own),
/// the number of speculative tokens (`#spec-tokens`) and, for a method that takes one, the drafter model. Each edits
/// `--speculative-config` through an [`Edit`]; each shows the last parsed command line's speculative config.
fn drafter_section(release: Release, cmd: &ServeCommand, no_mtp: Option<String>, onedit: &Callback<Edit>) -> Html {
    let sc = cmd.speculative_config.as_ref();
    let method = match sc {
        None => String::new(),
        Some(s) => s.method.clone().unwrap_or_else(|| INFERRED_METHOD.to_string()),
    };
    // MTP only for a model with MTP layers (the command line's own `mtp` stays shown, and its error says why).
    let mut methods = choices::speculative_methods(release);
    if no_mtp.is_some() {
        methods.retain(|m| m.method != "mtp");
    }
    let mut method_options = options(Some("off"), methods.iter().map(|m| (m.method, m.label.to_string())), &method);
    if let Some(o) = method_options.iter_mut().find(|o| o.value == INFERRED_METHOD) {
        o.label = "not set (vLLM infers it from the model)".to_string();
    }
    let tokens = text(sc.and_then(|s| s.num_speculative_tokens));
    let unset = if sc.is_some() && tokens.is_empty() { "unset" } else { "off" };
    let token_options = options(
        Some(unset),
        choices::speculative_tokens().map(|n| (n, tokens_label(n))),
        &tokens,
    );
    let listed = methods.iter().find(|m| m.method == method);
    let model = sc.and_then(|s| s.model.clone());
    // A listed method shows the model select when it takes a model; the command line's own method when it names one.
    let show_model = listed.map_or(model.is_some(), |m| m.needs_model);
    let model_text = model.clone().unwrap_or_default();
    // A method the page lists offers its drafter models; the command line's own (or none) every preset.
    let models: Vec<&str> = match listed {
        Some(m) => choices::drafter_models(m.method),
        None => MODEL_PRESETS.iter().map(|p| p.id).collect(),
    };
    let on_method = onedit.reform(|v: String| Edit::SpeculativeMethod((!v.is_empty()).then_some(v)));
    let on_tokens = onedit.reform(|v: String| Edit::SpeculativeTokens(v.parse().ok()));
    let on_model = onedit.reform(|v: String| Edit::SpeculativeModel((!v.is_empty()).then_some(v)));
    html! {
        <fieldset class="row drafter" aria-describedby="drafter-hint">
            <legend>{ "Speculative decoding" }</legend>
            { labeled_select("method", "spec-method", method_options, AttrValue::from(method.clone()), on_method) }
            { labeled_select("speculative tokens", "spec-tokens", token_options, AttrValue::from(tokens), on_tokens) }
            if show_model {
                <label class="wide"><span>{ "drafter model" }</span>
                    { choice_select("spec-model", options(Some("none (type one in the command line)"),
                            models.into_iter().map(|m| (m, m.to_string())), &model_text), AttrValue::from(model_text.clone()), on_model) }</label>
            }
            <p id="drafter-hint" class="hint">{ "Writes --speculative-config; the drafter's layers are their own groups in the results." }</p>
            if let Some(why) = no_mtp {
                <p id="spec-mtp-note" class="hint">{ why }</p>
            }
        </fieldset>
    }
}

/// Why MTP is not offered for the fieldset's model ([`choices::mtp_unavailable`]), or `None`.
fn mtp_unavailable(props: &ModelProps) -> Option<String> {
    choices::mtp_unavailable(props.release, &props.command, props.config.as_deref())
}

/// "1 speculative token", "2 speculative tokens".
pub fn tokens_label(n: u32) -> String {
    if n == 1 {
        "1 speculative token".to_string()
    } else {
        format!("{n} speculative tokens")
    }
}

/// A number input for the `--hf-overrides` key `field`, showing `value` (the command line's value for the key, as JSON
/// text); a change sends `onedit` the new override, and blank removes it.
fn override_input(field: HfOverride, value: Option<String>, onedit: &Callback<Edit>) -> Html {
    let HfOverride {
        key,
        slug,
        label,
        preset,
    } = field;
    let onchange = onedit.reform(move |e: Event| {
        let raw = e.target_unchecked_into::<HtmlInputElement>().value();
        Edit::HfOverride(key.to_string(), raw.trim().parse::<u64>().ok().map(Value::from))
    });
    html! {
        <label>
            <span>{ label }</span>
            <input id={format!("ov-{slug}")} type="number" min="1" inputmode="numeric" value={value.unwrap_or_default()}
                placeholder={preset.map(|p| p.to_string()).unwrap_or_default()} {onchange} />
        </label>
    }
}

/// How the page names the config.json it reads: the one pasted or dropped into its box.
pub const PASTED_CONFIG: &str = "the pasted config.json";

/// What qpath made of a pasted config.json: `Ok("read: ARCH, N layers")`, or the reader's error (naming the file and
/// the field).
pub type ConfigStatus = Result<String, String>;

/// The config.json control: a textarea showing `text` (the page's pasted config.json) that takes a paste, typing or a
/// dropped `.json` file, a Clear button, and `status`. Everything goes to `ondispatch` as
/// [`Action::SetModelConfig`]. It holds no state, so it is a plain function.
pub fn config_input(text: Option<&str>, status: Option<ConfigStatus>, ondispatch: &Callback<Action>) -> Html {
    let oninput =
        ondispatch.reform(|e: InputEvent| Action::SetModelConfig(Some(e.target_unchecked_into::<HtmlTextAreaElement>().value())));
    // A file dragged over the textarea may be dropped (the browser would otherwise open it).
    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
    let ondrop = {
        let d = ondispatch.clone();
        Callback::from(move |e: DragEvent| {
            let Some(file) = e.data_transfer().and_then(|t| t.files()).and_then(|f| f.get(0)) else {
                return; // dropped text: the browser inserts it, and the textarea reports an input
            };
            e.prevent_default();
            // A file over the cap is refused unread (reading 2 GB into a string would end the page).
            let size = file.size();
            if size > qpath_core::serve::limits::MAX_CONFIG_JSON_BYTES as f64 {
                d.emit(Action::ConfigFileTooLarge(file.name(), size as u64));
                return;
            }
            let d = d.clone();
            yew::platform::spawn_local(async move {
                let text = JsFuture::from(file.text()).await.ok().and_then(|t| t.as_string());
                d.emit(match text {
                    Some(t) => Action::SetModelConfig(Some(t)),
                    None => Action::Notice(format!("The dropped file `{}` could not be read as text.", file.name())),
                });
            });
        })
    };
    let onclear = ondispatch.reform(|_: MouseEvent| Action::SetModelConfig(None));
    let shown = text.is_some();
    // Open while it holds a config.json or says why one was not taken.
    let open = shown || matches!(status, Some(Err(_)));
    let status = match status {
        None => html! {},
        Some(Ok(read)) => html! { <p id="config-read" class="hint">{ read }</p> },
        Some(Err(e)) => html! { <p id="config-error" class="command-error" role="alert">{ e }</p> },
    };
    html! {
        <details class="model-config" {open}>
            <summary>{ if shown { "config.json (in use)" } else { "config.json" } }</summary>
            <label for="model-config">{ "Model config.json (pasted or dropped; read instead of the preset)" }</label>
            <textarea id="model-config" rows="6" spellcheck="false" autocomplete="off" value={text.unwrap_or_default().to_string()}
                placeholder="{\"architectures\": [\"LlamaForCausalLM\"], …}" {oninput} {ondragover} {ondrop} />
            <button type="button" id="config-clear" onclick={onclear} disabled={!shown}>{ "Clear" }</button>
            { status }
        </details>
    }
}

/// The status [`config_input`] shows for the page's config.json `text`: the report's model summary when the report
/// read it ("read: ARCH, N layers", the architecture as config.json names it), else the core's reader run on it
/// alone (the report may have stopped before the model, at the command line), whose error names the file and field.
pub fn config_status(text: &str, release: Release, cmd: &ServeCommand, report: &qpath_core::report::Report) -> ConfigStatus {
    let arch = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| Some(v.get("architectures")?.get(0)?.as_str()?.to_string()))
        .unwrap_or_default();
    let layers = match report.model.as_ref().filter(|m| m.config.is_some()) {
        Some(m) => m.num_layers,
        None => {
            model::resolve_model_from_config(release, &cmd.model, PASTED_CONFIG, text, cmd.hf_overrides.as_ref())
                .map_err(|e| e.to_string())?
                .decoder_layers
        }
    };
    Ok(format!("read: {arch}, {layers} layers"))
}
