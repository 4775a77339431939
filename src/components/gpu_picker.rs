//! The GPU section: the selected GPU, and (folded) the filters, the list and the selected GPU's details.

use qpath_core::gpu::{Gpu, GpuFilter, GPUS};
use yew::prelude::*;

use crate::components::filters::FilterBar;
use crate::components::gpu_detail::GpuDetail;
use crate::components::gpu_list::GpuList;
use crate::state::Action;

#[derive(PartialEq, Properties)]
pub struct GpuPickerProps {
    pub gpu: &'static Gpu,
    pub filter: GpuFilter,
    /// The filters' changes (the filter bar reports them as actions).
    pub ondispatch: Callback<Action>,
    pub onselect: Callback<&'static Gpu>,
}

#[function_component(GpuPicker)]
pub fn gpu_picker(props: &GpuPickerProps) -> Html {
    let gpu = props.gpu;
    let rows = props.filter.apply(GPUS);
    html! {
        <section class="gpu-picker" aria-labelledby="gpu-heading">
            <h2 id="gpu-heading">{ "GPU" }</h2>
            <p id="selected-gpu" class="selected-gpu">
                { format!("{} · compute capability {} · {}", gpu.name, gpu.capability, gpu.arch) }
            </p>
            <details class="gpu-browser">
                <summary>{ "Choose another GPU" }</summary>
                <FilterBar filter={props.filter.clone()} ondispatch={props.ondispatch.clone()} />
                <GpuList {rows} selected={Some(gpu.id)} onselect={props.onselect.clone()} />
                <GpuDetail gpu={Some(gpu)} />
            </details>
        </section>
    }
}
