//! The GPU list, in the GPU section.

use qpath_core::gpu::Gpu;
use yew::prelude::*;

fn mark(v: bool) -> &'static str {
    if v {
        "✓"
    } else {
        "✗"
    }
}

/// The GPUs in `rows`, with `selected` (an id) marked; a pick calls `onselect`. It holds no state, so it is a plain
/// function.
pub fn gpu_list(rows: &[&'static Gpu], selected: &str, onselect: &Callback<&'static Gpu>) -> Html {
    let count = rows.len();
    html! {
        <div class="gpu-list">
            <p id="gpu-count" class="count" aria-live="polite">
                { match count { 1 => "1 GPU matches".to_string(), n => format!("{n} GPUs match") } }
            </p>
            if count == 0 {
                <p class="empty">{ "No GPU matches these filters. Clear a filter to see more." }</p>
            } else {
                <div class="table-wrap">
                    <table id="gpu-table">
                        <thead>
                            <tr>
                                <th scope="col">{ "GPU" }</th>
                                <th scope="col">{ "Architecture" }</th>
                                <th scope="col">{ "CC" }</th>
                                <th scope="col">{ "Memory" }</th>
                                <th scope="col">{ "FP8" }</th>
                                <th scope="col">{ "FP4" }</th>
                                <th scope="col" class="wide">{ "Segment" }</th>
                            </tr>
                        </thead>
                        <tbody>
                            { for rows.iter().map(|&g| {
                                let selected = selected == g.id;
                                let onclick = onselect.reform(move |_: MouseEvent| g);
                                html! {
                                    <tr key={g.id} data-gpu-id={g.id} class={classes!(selected.then_some("selected"))}>
                                        <th scope="row">
                                            <button type="button" class="pick" aria-pressed={selected.to_string()} {onclick}>{ g.name }</button>
                                        </th>
                                        <td class="arch">{ g.arch }</td>
                                        <td class="cc">{ g.capability.to_string() }</td>
                                        <td>{ format!("{} GB", g.memory_gb) }</td>
                                        <td class={classes!("flag", g.fp8.then_some("yes"))}>{ mark(g.fp8) }</td>
                                        <td class={classes!("flag", g.fp4.then_some("yes"))}>{ mark(g.fp4) }</td>
                                        <td class="wide">{ g.segment }</td>
                                    </tr>
                                }
                            }) }
                        </tbody>
                    </table>
                </div>
            }
        </div>
    }
}
