//! The scenario's inputs besides the GPU: release, CUDA, cubins, model and the flags that matter. Every control edits
//! the command line (through [`Edit`]); its value always comes from the last command line that parsed.

use qpath_core::capability::CudaVersion;
use qpath_core::matrix::flashinfer_kv_dtypes;
use qpath_core::model::{self, MODEL_PRESETS};
use qpath_core::release::Release;
use qpath_core::resolve::default_cubins;
use qpath_core::serve::ServeCommand;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::choice::{Choice, ChoiceOption};
use crate::state::{Action, Edit};

#[derive(PartialEq, Properties)]
pub struct InputsProps {
    pub release: Release,
    pub cuda: CudaVersion,
    pub cubins: Option<bool>,
    pub command: ServeCommand,
    pub ondispatch: Callback<Action>,
}

const CUDAS: &[(u8, u8)] = &[(12, 4), (12, 6), (12, 8), (12, 9), (13, 0)];

fn edit(d: &Callback<Action>, f: impl Fn(String) -> Edit + 'static) -> Callback<String> {
    d.reform(move |v: String| Action::Edit(f(v)))
}

fn opt_bool(v: Option<bool>) -> AttrValue {
    match v {
        None => "".into(),
        Some(true) => "true".into(),
        Some(false) => "false".into(),
    }
}

fn parse_opt_bool(v: &str) -> Option<bool> {
    match v {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// A number input for one `--hf-overrides` key; blank removes the override.
fn override_input(
    id: &'static str,
    label: &'static str,
    key: &'static str,
    cmd: &ServeCommand,
    preset: Option<u32>,
    d: &Callback<Action>,
) -> Html {
    let value = cmd
        .hf_overrides
        .as_ref()
        .and_then(|m| m.get(key))
        .map(|v| v.to_string())
        .unwrap_or_default();
    let onchange = d.reform(move |e: Event| {
        let raw = e.target_unchecked_into::<HtmlInputElement>().value();
        let v = raw.trim().parse::<u64>().ok().map(serde_json::Value::from);
        Action::Edit(Edit::HfOverride(key.to_string(), v))
    });
    html! {
        <label>
            <span>{ label }</span>
            <input {id} type="number" min="1" inputmode="numeric" value={value}
                placeholder={preset.map(|p| p.to_string()).unwrap_or_default()} {onchange} />
        </label>
    }
}

#[function_component(Inputs)]
pub fn inputs(props: &InputsProps) -> Html {
    let d = &props.ondispatch;
    let c = &props.command;
    let r = props.release;

    let releases: Vec<ChoiceOption> = Release::ALL
        .iter()
        .map(|r| ChoiceOption::new(r.name(), format!("{} (FlashInfer {})", r.name(), r.flashinfer())))
        .collect();
    let cudas: Vec<ChoiceOption> = CUDAS
        .iter()
        .map(|&(a, b)| ChoiceOption::new(format!("{a}.{b}"), format!("CUDA {a}.{b}")))
        .collect();
    let cubin_default = if default_cubins(r) { "yes" } else { "no" };
    let cubins = vec![
        ChoiceOption::new("", format!("release default ({cubin_default})")),
        ChoiceOption::new("true", "yes: flashinfer-cubin or artifactory reachable"),
        ChoiceOption::new("false", "no: offline, no flashinfer-cubin"),
    ];
    let preset = model::find_preset(&c.model);
    let mut models: Vec<ChoiceOption> = MODEL_PRESETS.iter().map(|m| ChoiceOption::new(m.id, m.id)).collect();
    if preset.is_none() {
        models.insert(0, ChoiceOption::new(c.model.clone(), format!("{} (not a preset)", c.model)));
    }
    let mut kvs: Vec<ChoiceOption> = flashinfer_kv_dtypes(r).into_iter().map(|k| ChoiceOption::new(k, k)).collect();
    if !kvs.iter().any(|o| o.value == c.kv_cache_dtype) {
        kvs.push(ChoiceOption::new(
            c.kv_cache_dtype.clone(),
            format!("{} (from the command line)", c.kv_cache_dtype),
        ));
    }
    let trtllm = vec![
        ChoiceOption::new("", "unset (auto)"),
        ChoiceOption::new("true", "true"),
        ChoiceOption::new("false", "false"),
    ];
    let backends: Vec<ChoiceOption> = std::iter::once(ChoiceOption::new("", "auto (priority order)"))
        .chain(
            ["FLASHINFER", "FLASH_ATTN", "TRITON_ATTN", "FLEX_ATTENTION"]
                .into_iter()
                .map(|b| ChoiceOption::new(b, b)),
        )
        .collect();
    let dcps: Vec<ChoiceOption> = [1, 2, 4, 8]
        .iter()
        .map(|n| ChoiceOption::new(n.to_string(), n.to_string()))
        .collect();
    let blocks: Vec<ChoiceOption> = std::iter::once(ChoiceOption::new("", "default"))
        .chain(
            [16, 32, 64, 128, 256]
                .iter()
                .map(|n| ChoiceOption::new(n.to_string(), n.to_string())),
        )
        .collect();
    let specs: Vec<ChoiceOption> = std::iter::once(ChoiceOption::new("", "off"))
        .chain((1..=5).map(|n| ChoiceOption::new(n.to_string(), format!("{n} speculative tokens"))))
        .collect();
    let batch_invariant = c.env.iter().any(|(k, v)| k == "VLLM_BATCH_INVARIANT" && v.trim() != "0");

    // Skip layers: chips, an input to add an index, a toggle for the sliding_window keyword.
    let skip = c.kv_cache_dtype_skip_layers.clone();
    let chips = skip.iter().enumerate().map(|(i, tok)| {
        let mut rest = skip.clone();
        rest.remove(i);
        let onclick = d.reform(move |_: MouseEvent| Action::Edit(Edit::SkipLayers(rest.clone())));
        html! {
            <li class="chip">
                <span>{ tok.clone() }</span>
                <button type="button" aria-label={format!("remove {tok} from the skip list")} {onclick}>{ "×" }</button>
            </li>
        }
    });
    let onadd = {
        let skip = skip.clone();
        let d = d.clone();
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
                d.emit(Action::Edit(Edit::SkipLayers(next)));
            }
        })
    };
    let has_sw = skip.iter().any(|t| t == "sliding_window");
    let ontoggle_sw = {
        let skip = skip.clone();
        d.reform(move |_: Event| {
            let mut next: Vec<String> = skip.iter().filter(|t| *t != "sliding_window").cloned().collect();
            if !has_sw {
                next.push("sliding_window".into());
            }
            Action::Edit(Edit::SkipLayers(next))
        })
    };
    let layers = preset.map(|p| p.num_hidden_layers);

    html! {
        <div class="inputs">
            <fieldset class="row">
                <legend>{ "vLLM and the machine" }</legend>
                <label><span>{ "vLLM release" }</span>
                    <Choice id="release" options={releases} value={AttrValue::from(r.name())}
                        onchange={d.reform(|v: String| Action::SetRelease(v.parse().unwrap_or(Release::LATEST)))} /></label>
                <label><span>{ "CUDA of the torch build" }</span>
                    <Choice id="cuda" options={cudas} value={AttrValue::from(props.cuda.to_string())}
                        onchange={d.reform(|v: String| Action::SetCuda(v.parse().unwrap_or(qpath_core::resolve::DEFAULT_CUDA)))} /></label>
                <label><span>{ "TRTLLM cubins available" }</span>
                    <Choice id="cubins" options={cubins} value={opt_bool(props.cubins)}
                        onchange={d.reform(|v: String| Action::SetCubins(parse_opt_bool(&v)))} /></label>
            </fieldset>
            <fieldset class="row">
                <legend>{ "Model" }</legend>
                <label class="wide"><span>{ "Model" }</span>
                    <Choice id="model" options={models} value={AttrValue::from(c.model.clone())} onchange={edit(d, Edit::Model)} /></label>
                { override_input("ov-layers", "layers", "num_hidden_layers", c, preset.map(|p| p.num_hidden_layers), d) }
                { override_input("ov-heads", "query heads", "num_attention_heads", c, preset.map(|p| p.num_attention_heads), d) }
                { override_input("ov-kv-heads", "KV heads", "num_key_value_heads", c, preset.and_then(|p| p.num_key_value_heads), d) }
                { override_input("ov-head-dim", "head dim", "head_dim", c, preset.and_then(|p| p.head_dim), d) }
                <p class="hint">{ "Blank keeps the preset; a number becomes a --hf-overrides key." }</p>
            </fieldset>
            <fieldset class="row">
                <legend>{ "KV cache" }</legend>
                <label><span>{ "--kv-cache-dtype" }</span>
                    <Choice id="kv-cache-dtype" options={kvs} value={AttrValue::from(c.kv_cache_dtype.clone())} onchange={edit(d, Edit::KvCacheDtype)} /></label>
                <div class="skip">
                    <span id="skip-label">{ "--kv-cache-dtype-skip-layers" }</span>
                    <ul class="chips" id="skip-layers" aria-labelledby="skip-label">{ for chips }</ul>
                    <input id="skip-add" type="text" inputmode="numeric" aria-label="add a layer index to skip, then Enter"
                        placeholder={format!("layer index{}, Enter", layers.map(|n| format!(" 0–{}", n.saturating_sub(1))).unwrap_or_default())}
                        onkeydown={onadd} />
                    <label class="check"><input id="skip-sliding" type="checkbox" checked={has_sw} onchange={ontoggle_sw} />
                        <span>{ "sliding_window layers" }</span></label>
                    <p class="hint">{ "Layers are numbered from 0 in model order; vLLM compares each index as text, exactly. Skipped layers keep a 16-bit cache (\"auto\")." }</p>
                </div>
            </fieldset>
            <fieldset class="row">
                <legend>{ "Attention" }</legend>
                <label><span>{ "--attention-backend" }</span>
                    <Choice id="attention-backend" options={backends} value={AttrValue::from(c.attention_backend.clone().unwrap_or_default())}
                        onchange={d.reform(|v: String| Action::Edit(Edit::AttentionBackend((!v.is_empty()).then_some(v))))} /></label>
                <label><span>{ "use_trtllm_attention" }</span>
                    <Choice id="use-trtllm" options={trtllm} value={opt_bool(c.attention_config.use_trtllm_attention)}
                        onchange={d.reform(|v: String| Action::Edit(Edit::UseTrtllm(parse_opt_bool(&v))))} /></label>
                <label class="check"><input id="disable-q-quant" type="checkbox" checked={c.attention_config.disable_flashinfer_q_quantization}
                    onchange={d.reform(|e: Event| Action::Edit(Edit::DisableQQuant(e.target_unchecked_into::<HtmlInputElement>().checked())))} />
                    <span>{ "disable_flashinfer_q_quantization" }</span></label>
                <label><span>{ "DCP size (-dcp)" }</span>
                    <Choice id="dcp" options={dcps} value={AttrValue::from(c.decode_context_parallel_size.to_string())}
                        onchange={d.reform(|v: String| Action::Edit(Edit::Dcp(v.parse().unwrap_or(1))))} /></label>
                <label><span>{ "--block-size" }</span>
                    <Choice id="block-size" options={blocks} value={AttrValue::from(c.block_size.map(|b| b.to_string()).unwrap_or_default())}
                        onchange={d.reform(|v: String| Action::Edit(Edit::BlockSize(v.parse().ok())))} /></label>
                <label><span>{ "speculative decoding" }</span>
                    <Choice id="spec-tokens" options={specs}
                        value={AttrValue::from(c.speculative_config.as_ref().and_then(|s| s.num_speculative_tokens).map(|n| n.to_string()).unwrap_or_default())}
                        onchange={d.reform(|v: String| Action::Edit(Edit::SpeculativeTokens(v.parse().ok())))} /></label>
                <label class="check"><input id="batch-invariant" type="checkbox" checked={batch_invariant}
                    onchange={d.reform(|e: Event| Action::Edit(Edit::BatchInvariant(e.target_unchecked_into::<HtmlInputElement>().checked())))} />
                    <span>{ "VLLM_BATCH_INVARIANT=1" }</span></label>
            </fieldset>
        </div>
    }
}
