use qpath_core::gpu::Gpu;
use yew::prelude::*;

#[derive(PartialEq, Properties)]
pub struct GpuListProps {
    pub rows: Vec<&'static Gpu>,
    pub selected: Option<&'static str>,
    pub onselect: Callback<&'static Gpu>,
}

fn mark(v: bool) -> &'static str {
    if v {
        "✓"
    } else {
        "✗"
    }
}

#[function_component(GpuList)]
pub fn gpu_list(props: &GpuListProps) -> Html {
    let count = props.rows.len();
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
                            { for props.rows.iter().map(|g| {
                                let g: &'static Gpu = g;
                                let selected = props.selected == Some(g.id);
                                let onclick = props.onselect.reform(move |_: MouseEvent| g);
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
