//! The selected GPU's details, in the GPU section.

use qpath_core::gpu::Gpu;
use yew::prelude::*;

fn yes_no(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => "not recorded",
    }
}

fn source(s: &'static str) -> Html {
    // A source is a URL, possibly followed by a remark, or a "repo:path@commit" reference.
    let (url, rest) = s.split_once(' ').unwrap_or((s, ""));
    if url.starts_with("https://") {
        html! { <li><a href={url} rel="noopener noreferrer">{ url }</a>{ " " }{ rest }</li> }
    } else {
        html! { <li>{ s }</li> }
    }
}

/// The selected GPU's facts and where each comes from. It holds no state, so it is a plain function.
pub fn gpu_detail(g: &'static Gpu) -> Html {
    let memory = if g.memory_gb_variants.len() > 1 {
        let sizes: Vec<String> = g.memory_gb_variants.iter().map(|m| format!("{m} GB")).collect();
        format!("{} {}", sizes.join(" or "), g.memory_type)
    } else {
        format!("{} GB {}", g.memory_gb, g.memory_type)
    };
    html! {
        <aside id="gpu-detail" class="detail" aria-live="polite">
            <h2>{ "Selected GPU" }</h2>
            <h3 id="detail-name">{ g.name }</h3>
            <dl>
                <dt>{ "id" }</dt><dd><code>{ g.id }</code></dd>
                <dt>{ "Architecture" }</dt><dd>{ g.arch }</dd>
                <dt>{ "Compute capability" }</dt>
                <dd id="detail-cc">
                    { g.capability.to_string() }
                    if !g.capability_by_cuda.is_empty() {
                        <ul class="by-cuda">
                            { for g.capability_by_cuda.iter().map(|r| html! {
                                <li>{ format!("{} ({}): {}", r.capability, r.sm, r.when) }</li>
                            }) }
                        </ul>
                    }
                </dd>
                <dt>{ "SM targets" }</dt>
                <dd>{ if g.sm_variants.is_empty() { g.sm.to_string() } else { g.sm_variants.join(", ") } }</dd>
                <dt>{ "Memory" }</dt><dd>{ memory }</dd>
                <dt>{ "Tensor-core dtypes" }</dt>
                <dd>{ format!("FP8 {} · FP4 {} · BF16 {} · FP16 {} · TF32 {}",
                    yes_no(Some(g.fp8)), yes_no(Some(g.fp4)), yes_no(Some(g.bf16)), yes_no(g.fp16), yes_no(g.tf32)) }</dd>
                <dt>{ "Segment, year" }</dt><dd>{ format!("{}, {}", g.segment, g.year) }</dd>
                if !g.unconfirmed.is_empty() {
                    <dt>{ "Not confirmed by a source" }</dt><dd>{ g.unconfirmed.join(", ") }</dd>
                }
            </dl>
            if let Some(notes) = g.notes {
                <p class="notes">{ notes }</p>
            }
            <details>
                <summary>{ format!("Sources ({})", g.sources.len()) }</summary>
                <ul class="sources">{ for g.sources.iter().copied().map(source) }</ul>
            </details>
        </aside>
    }
}
