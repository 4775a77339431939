//! The fieldset "Model": the model (a preset or the command line's) and the `--hf-overrides` keys qpath reads.

use qpath_core::choices::{self, HfOverride};
use qpath_core::model::{self, MODEL_PRESETS};
use serde_json::Value;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::choice::{Choice, ChoiceOption};
use crate::components::inputs::FlagsProps;
use crate::state::Edit;

#[function_component(ModelFieldset)]
pub fn model_fieldset(props: &FlagsProps) -> Html {
    let (model, hf_overrides) = (&props.command.model, &props.command.hf_overrides);
    let preset = model::find_preset(model);
    let mut models: Vec<ChoiceOption> = MODEL_PRESETS.iter().map(|m| ChoiceOption::new(m.id, m.id)).collect();
    if preset.is_none() {
        models.insert(0, ChoiceOption::new(model.as_str(), format!("{model} (not a preset)")));
    }
    let overrides = choices::hf_overrides(preset).map(|o| {
        let value = hf_overrides.as_ref().and_then(|m| m.get(o.key)).map(|v| v.to_string());
        override_input(o, value, &props.onedit)
    });
    html! {
        <fieldset class="row">
            <legend>{ "Model" }</legend>
            <label class="wide"><span>{ "Model" }</span>
                <Choice id="model" options={models} value={model.clone()} onchange={props.onedit.reform(Edit::Model)} /></label>
            { for overrides }
            <p class="hint">{ "Blank keeps the preset; a number becomes a --hf-overrides key." }</p>
        </fieldset>
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
