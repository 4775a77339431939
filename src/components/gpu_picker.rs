//! The GPU section, under the command line: the selected GPU with the release select beside it, and (folded) the
//! filters, the list and the selected GPU's details. It holds no
//! state, so it is a plain function that the page calls in its render, as are the filters, the list and the details.
//! The folded part is built from the page's render after its first frame: it is half of the page's elements, hidden
//! in a closed `<details>` on a first visit, and the first result card does not wait for it.

use qpath_core::gpu::{Gpu, GpuFilter, GPUS};
use yew::prelude::*;

use crate::components::filters::filter_bar;
use crate::components::gpu_detail::gpu_detail;
use crate::components::gpu_list::gpu_list;
use crate::state::Action;

/// The GPU section for the selected `gpu` and the list's `filter`; the filters and the list report their changes to
/// `ondispatch` as actions; `release` is the release select, shown beside the GPU. Until `ready` (the page's first frame, [`use_after_first_frame`]), the folded part is only
/// its summary.
///
/// [`use_after_first_frame`]: crate::components::hooks::use_after_first_frame
pub fn gpu_picker(gpu: &'static Gpu, filter: &GpuFilter, ondispatch: &Callback<Action>, ready: bool, release: Html) -> Html {
    html! {
        <section class="gpu-picker" aria-labelledby="gpu-heading">
            <h2 id="gpu-heading" class="visually-hidden">{ "GPU and vLLM release" }</h2>
            <div class="target-row">
                <div class="gpu-now">
                    <span class="target-label">{ "GPU" }</span>
                    <p id="selected-gpu" class="selected-gpu">
                        { format!("{} · compute capability {} · {}", gpu.name, gpu.capability, gpu.arch) }
                    </p>
                </div>
                { release }
            </div>
            <details class="gpu-browser">
                <summary>{ "Choose another GPU" }</summary>
                if ready {
                    { filter_bar(filter, ondispatch) }
                    { gpu_list(&filter.apply(GPUS), gpu.id, &ondispatch.reform(Action::SelectGpu)) }
                    { gpu_detail(gpu) }
                }
            </details>
        </section>
    }
}
