//! The fieldset "Model": the model (a preset or the command line's) and the `--hf-overrides` keys qpath reads.

use qpath_core::choices::{self, HfOverride};
use qpath_core::model::{self, MODEL_PRESETS};
use serde_json::{Map, Value};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::choice::{Choice, ChoiceOption};
use crate::state::Edit;

#[derive(PartialEq, Properties)]
pub struct ModelFieldsetProps {
    pub model: AttrValue,
    pub hf_overrides: Option<Map<String, Value>>,
    pub onedit: Callback<Edit>,
}

#[function_component(ModelFieldset)]
pub fn model_fieldset(props: &ModelFieldsetProps) -> Html {
    let preset = model::find_preset(&props.model);
    let mut models: Vec<ChoiceOption> = MODEL_PRESETS.iter().map(|m| ChoiceOption::new(m.id, m.id)).collect();
    if preset.is_none() {
        models.insert(
            0,
            ChoiceOption::new(props.model.as_str(), format!("{} (not a preset)", props.model)),
        );
    }
    let overrides = choices::hf_overrides(preset).map(|o| {
        let value = props.hf_overrides.as_ref().and_then(|m| m.get(o.key)).map(|v| v.to_string());
        html! { <OverrideInput field={o} value={value.map(AttrValue::from)} onedit={props.onedit.clone()} /> }
    });
    html! {
        <fieldset class="row">
            <legend>{ "Model" }</legend>
            <label class="wide"><span>{ "Model" }</span>
                <Choice id="model" options={models} value={props.model.clone()} onchange={props.onedit.reform(Edit::Model)} /></label>
            { for overrides }
            <p class="hint">{ "Blank keeps the preset; a number becomes a --hf-overrides key." }</p>
        </fieldset>
    }
}

#[derive(PartialEq, Properties)]
pub struct OverrideInputProps {
    pub field: HfOverride,
    /// The command line's value for the key, as JSON text.
    pub value: Option<AttrValue>,
    pub onedit: Callback<Edit>,
}

/// A number input for one `--hf-overrides` key; blank removes the override.
#[function_component(OverrideInput)]
pub fn override_input(props: &OverrideInputProps) -> Html {
    let HfOverride {
        key,
        slug,
        label,
        preset,
    } = props.field;
    let onchange = props.onedit.reform(move |e: Event| {
        let raw = e.target_unchecked_into::<HtmlInputElement>().value();
        Edit::HfOverride(key.to_string(), raw.trim().parse::<u64>().ok().map(Value::from))
    });
    html! {
        <label>
            <span>{ label }</span>
            <input id={format!("ov-{slug}")} type="number" min="1" inputmode="numeric" value={props.value.clone().unwrap_or_default()}
                placeholder={preset.map(|p| p.to_string()).unwrap_or_default()} {onchange} />
        </label>
    }
}
