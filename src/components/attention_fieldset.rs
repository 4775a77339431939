//! The fieldset "Attention" (the backend and block size) and the advanced section's fieldset "Attention switches" (the
//! `AttentionConfig` switches, DCP and batch invariance); speculative decoding is the model fieldset's drafter section.

use qpath_core::choices::{self, Flag, BATCH_INVARIANT};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::components::choice::{labeled_select, ChoiceOption};
use crate::components::inputs::{opt_bool, parse_opt_bool, FlagsProps};
use crate::state::Edit;

/// Options: `first` (the unset value ""), then `values`, then the command line's `current` when it is none of them.
pub(crate) fn options<T: ToString>(
    first: Option<&str>,
    values: impl IntoIterator<Item = (T, String)>,
    current: &str,
) -> Vec<ChoiceOption> {
    let mut v: Vec<ChoiceOption> = first.map(|label| ChoiceOption::new("", label)).into_iter().collect();
    v.extend(
        values
            .into_iter()
            .map(|(value, label)| ChoiceOption::new(value.to_string(), label)),
    );
    if !v.iter().any(|o| o.value == current) {
        v.push(ChoiceOption::new(current, format!("{current} (from the command line)")));
    }
    v
}

pub(crate) fn text<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// The fieldset (a plain function: a component costs code of its own and would re-render with every page render
/// anyway, its callbacks being new each time).
pub fn attention_fieldset(props: &FlagsProps) -> Html {
    let (c, r, e, mla) = (&props.command, props.release, &props.onedit, props.mla);
    let backend = text(c.attention_backend.as_ref());
    let block = text(c.block_size);
    let backends = options(
        Some("auto (priority order)"),
        choices::attention_backends(r, mla).into_iter().map(|b| (b, b.into())),
        &backend,
    );
    let blocks = options(
        Some("default"),
        choices::block_sizes(r).iter().map(|n| (n, n.to_string())),
        &block,
    );
    html! {
        <fieldset class="row">
            <legend>{ "Attention" }</legend>
            { labeled_select("--attention-backend", "attention-backend", backends, AttrValue::from(backend), e.reform(|v: String| Edit::AttentionBackend((!v.is_empty()).then_some(v)))) }
            { labeled_select("--block-size", "block-size", blocks, AttrValue::from(block), e.reform(|v: String| Edit::BlockSize(v.parse().ok()))) }
        </fieldset>
    }
}

/// The advanced section's fieldset "Attention switches": `use_trtllm_attention`, `disable_flashinfer_q_quantization`,
/// DCP and batch invariance, each with its default in words (a plain function, as [`attention_fieldset`]).
pub fn attention_switches(props: &FlagsProps) -> Html {
    let (c, e) = (&props.command, &props.onedit);
    let dcp = c.decode_context_parallel_size.to_string();
    let dcps = options(None, choices::dcp_sizes().iter().map(|n| (n, n.to_string())), &dcp);
    let trtllm = vec![
        ChoiceOption::new("", "unset (auto)"),
        ChoiceOption::new("true", "true"),
        ChoiceOption::new("false", "false"),
    ];
    let checked = |f: fn(bool) -> Edit| e.reform(move |ev: Event| f(ev.target_unchecked_into::<HtmlInputElement>().checked()));
    // A select offers only numbers; anything else changes nothing.
    let number = |f: fn(u32) -> Edit| {
        let e = e.clone();
        Callback::from(move |v: String| {
            if let Ok(n) = v.parse() {
                e.emit(f(n));
            }
        })
    };
    html! {
        <fieldset class="row">
            <legend>{ "Attention switches" }</legend>
            { labeled_select("use_trtllm_attention", "use-trtllm", trtllm, AttrValue::from(opt_bool(c.attention_config.use_trtllm_attention)), e.reform(|v: String| Edit::UseTrtllm(parse_opt_bool(&v)))) }
            <label class="check"><input id="disable-q-quant" type="checkbox" checked={c.attention_config.disable_flashinfer_q_quantization}
                onchange={checked(Edit::DisableQQuant)} />
                <span>{ "disable_flashinfer_q_quantization" }</span></label>
            { labeled_select("DCP size (-dcp)", "dcp", dcps, AttrValue::from(dcp), number(Edit::Dcp)) }
            { batch_invariant_check(choices::batch_invariant(c), checked(Edit::BatchInvariant)) }
            <p class="hint">{ "Defaults: vLLM decides whether to use TRTLLM attention; FlashInfer may quantize the query \
                to an FP8 cache's dtype; no decode context parallelism (1); batch invariance off. The first two write \
                --attention-config, DCP writes -dcp, the last the VLLM_BATCH_INVARIANT variable in front of the command." }</p>
        </fieldset>
    }
}

/// The batch-invariance checkbox for `flag`, vLLM's reading of the command line's `VLLM_BATCH_INVARIANT`, and vLLM's
/// error beside it when it cannot read the variable's value; `onchange` is the checkbox's.
fn batch_invariant_check(flag: Flag, onchange: Callback<Event>) -> Html {
    let error = flag.error();
    html! {
        <>
            <label class="check"><input id="batch-invariant" type="checkbox" checked={flag.is_checked()} {onchange}
                aria-invalid={error.is_some().to_string()} aria-describedby={error.map(|_| "batch-invariant-error")} />
                <span>{ format!("{BATCH_INVARIANT}=1") }</span></label>
            if let Some(e) = error {
                <p id="batch-invariant-error" class="command-error" role="alert">{ format!("invalid value: {e}") }</p>
            }
        </>
    }
}
