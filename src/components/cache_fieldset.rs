//! The fieldset "KV cache": `--kv-cache-dtype` and `--kv-cache-dtype-skip-layers`.

use qpath_core::choices::{self, SKIP_SLIDING_WINDOW};
use qpath_core::release::Release;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::choice::{Choice, ChoiceOption};
use crate::state::Edit;

#[derive(PartialEq, Properties)]
pub struct CacheFieldsetProps {
    pub release: Release,
    pub kv_cache_dtype: AttrValue,
    pub skip_layers: Vec<String>,
    /// The model's number of layers, when it is a preset.
    pub layers: Option<u32>,
    pub onedit: Callback<Edit>,
}

#[function_component(CacheFieldset)]
pub fn cache_fieldset(props: &CacheFieldsetProps) -> Html {
    let kv = &props.kv_cache_dtype;
    let mut kvs: Vec<ChoiceOption> = choices::kv_cache_dtypes(props.release)
        .into_iter()
        .map(|k| ChoiceOption::new(k, k))
        .collect();
    if !kvs.iter().any(|o| o.value == kv.as_str()) {
        kvs.push(ChoiceOption::new(kv.as_str(), format!("{kv} (from the command line)")));
    }
    html! {
        <fieldset class="row">
            <legend>{ "KV cache" }</legend>
            <label><span>{ "--kv-cache-dtype" }</span>
                <Choice id="kv-cache-dtype" options={kvs} value={kv.clone()} onchange={props.onedit.reform(Edit::KvCacheDtype)} /></label>
            <SkipLayers skip={props.skip_layers.clone()} layers={props.layers}
                onchange={props.onedit.reform(Edit::SkipLayers)} />
        </fieldset>
    }
}

#[derive(PartialEq, Properties)]
pub struct SkipLayersProps {
    pub skip: Vec<String>,
    pub layers: Option<u32>,
    /// The new list of tokens.
    pub onchange: Callback<Vec<String>>,
}

/// The skip list: a chip per token (with a remove button), an input that adds indices on Enter, and a toggle for the
/// sliding-window keyword.
#[function_component(SkipLayers)]
pub fn skip_layers(props: &SkipLayersProps) -> Html {
    let skip = &props.skip;
    let chips = skip.iter().enumerate().map(|(i, tok)| {
        let mut rest = skip.clone();
        rest.remove(i);
        let onclick = props.onchange.reform(move |_: MouseEvent| rest.clone());
        html! {
            <li class="chip">
                <span>{ tok.clone() }</span>
                <button type="button" aria-label={format!("remove {tok} from the skip list")} {onclick}>{ "×" }</button>
            </li>
        }
    });
    let onadd = {
        let skip = skip.clone();
        let onchange = props.onchange.clone();
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
                onchange.emit(next);
            }
        })
    };
    let has_sw = skip.iter().any(|t| t == SKIP_SLIDING_WINDOW);
    let ontoggle_sw = {
        let skip = skip.clone();
        props.onchange.reform(move |_: Event| {
            let mut next: Vec<String> = skip.iter().filter(|t| *t != SKIP_SLIDING_WINDOW).cloned().collect();
            if !has_sw {
                next.push(SKIP_SLIDING_WINDOW.into());
            }
            next
        })
    };
    let range = props
        .layers
        .map(|n| format!(" 0–{}", n.saturating_sub(1)))
        .unwrap_or_default();
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
