//! The fieldset "KV cache": `--kv-cache-dtype` and `--kv-cache-dtype-skip-layers`.

use qpath_core::choices::{self, SKIP_SLIDING_WINDOW};
use qpath_core::model;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::choice::{labeled_select, ChoiceOption};
use crate::components::inputs::FlagsProps;
use crate::state::Edit;

/// The fieldset (a plain function, as [`crate::components::attention_fieldset::attention_fieldset`]).
pub fn cache_fieldset(props: &FlagsProps) -> Html {
    let c = &props.command;
    let kv = &c.kv_cache_dtype;
    // The model's number of layers, when it is a preset.
    let layers = model::find_preset(&c.model).map(|p| p.num_hidden_layers);
    let mut kvs: Vec<ChoiceOption> = choices::kv_cache_dtypes(props.release, props.mla)
        .into_iter()
        .map(|k| ChoiceOption::new(k, k))
        .collect();
    if !kvs.iter().any(|o| o.value == kv.as_str()) {
        kvs.push(ChoiceOption::new(kv.as_str(), format!("{kv} (from the command line)")));
    }
    html! {
        <fieldset class="row">
            <legend>{ "KV cache" }</legend>
            { labeled_select("--kv-cache-dtype", "kv-cache-dtype", kvs, AttrValue::from(kv.clone()), props.onedit.reform(Edit::KvCacheDtype)) }
            { skip_layers(&c.kv_cache_dtype_skip_layers, layers, &props.onedit) }
        </fieldset>
    }
}

/// The skip list `skip` (for a model of `layers` layers, when known): a chip per token (with a remove button), an input
/// that adds indices on Enter, and a toggle for the sliding-window keyword. Each change sends `onedit` the new list.
fn skip_layers(skip: &[String], layers: Option<u32>, onedit: &Callback<Edit>) -> Html {
    let chips = skip.iter().enumerate().map(|(i, tok)| {
        let mut rest = skip.to_vec();
        rest.remove(i);
        let onclick = onedit.reform(move |_: MouseEvent| Edit::SkipLayers(rest.clone()));
        html! {
            <li class="chip">
                <span>{ tok.clone() }</span>
                <button type="button" aria-label={format!("remove {tok} from the skip list")} {onclick}>{ "×" }</button>
            </li>
        }
    });
    let onadd = {
        let skip = skip.to_vec();
        let onedit = onedit.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() != "Enter" {
                return;
            }
            e.prevent_default();
            let input = e.target_unchecked_into::<HtmlInputElement>();
            let typed = input.value();
            input.set_value("");
            let mut next = skip.clone();
            next.extend(typed.split_whitespace().map(str::to_string));
            if next != skip {
                onedit.emit(Edit::SkipLayers(next));
            }
        })
    };
    let has_sw = skip.iter().any(|t| t == SKIP_SLIDING_WINDOW);
    let ontoggle_sw = {
        let skip = skip.to_vec();
        onedit.reform(move |_: Event| {
            let mut next: Vec<String> = skip.iter().filter(|t| *t != SKIP_SLIDING_WINDOW).cloned().collect();
            if !has_sw {
                next.push(SKIP_SLIDING_WINDOW.into());
            }
            Edit::SkipLayers(next)
        })
    };
    let range = layers.map(|n| format!(" 0–{}", n.saturating_sub(1))).unwrap_or_default();
    html! {
        <div class="skip">
            <span id="skip-label">{ "--kv-cache-dtype-skip-layers" }</span>
            <ul class="chips" id="skip-layers" aria-labelledby="skip-label">{ for chips }</ul>
            <input id="skip-add" type="text" inputmode="numeric" aria-label="add a layer index to skip, then Enter"
                placeholder={format!("layer index{range}, Enter")} onkeydown={onadd} />
            <label class="check"><input id="skip-sliding" type="checkbox" checked={has_sw} onchange={ontoggle_sw} />
                <span>{ format!("{SKIP_SLIDING_WINDOW} layers") }</span></label>
            <p class="hint">{ "Layers are numbered from 0 in model order; vLLM compares each index as text, exactly. Skipped layers keep a 16-bit cache (\"auto\")." }</p>
        </div>
    }
}
