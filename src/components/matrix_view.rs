//! MatrixView: the base scenario on every GPU of the table × every cache dtype of the chosen mode
//! ([`qpath_core::matrix::matrix_in`]): FlashInfer's groups over the `--kv-cache-dtype` values FlashInfer's backend
//! lists, or the backend vLLM picks (its query dtypes and kernels) over every backend's cache dtypes. The mode select
//! (`#matrix-mode`) is above the table. Rows are grouped by architecture in table order; each cell is a button that
//! reports its GPU and cache dtype through `onpick`, and names the backends its groups run on (`data-backends`).
//! An architecture select (`#matrix-arch`) keeps the rows of one architecture. The table scrolls in its own box with
//! the header row and the GPU column sticky, and the current scenario's cell is scrolled into view when the matrix
//! opens or its cell changes. A cell's text is clamped to a few lines; hovering or focusing it shows it whole (and its
//! title holds the sentence), as the footnote under the table says.

use qpath_core::gpu::{self, Gpu, GPUS};
use qpath_core::matrix::{matrix_in, Cell, CellStatus, Matrix, MatrixMode};
use qpath_core::resolve::{Hardware, Scenario};
use qpath_core::serve;
use wasm_bindgen::JsValue;
use yew::prelude::*;

use crate::components::choice::{choice_select, ChoiceOption};
use crate::components::results::in_page_text;

#[derive(PartialEq, Properties)]
pub struct MatrixViewProps {
    pub base: Scenario,
    /// What the matrix shows (the page keeps it while the view changes).
    #[prop_or_default]
    pub mode: MatrixMode,
    /// The mode select's value, as it reports it.
    #[prop_or_default]
    pub onmode: Callback<String>,
    pub onpick: Callback<(&'static Gpu, String)>,
    /// The architecture whose GPUs the matrix shows (`None`: every GPU).
    #[prop_or_default]
    pub arch: Option<String>,
    /// The architecture select's value, as it reports it (`""`: every GPU).
    #[prop_or_default]
    pub onarch: Callback<String>,
}

/// Scrolls `cell` into view (`block` and `inline` "nearest": the least movement of the table's box and the page; the
/// cell's scroll margins keep it clear of the sticky header row and GPU column). In another page's frame (embedded),
/// only the table's box `wrap` scrolls: the host page's scroll position is not the frame's to move.
fn scroll_into_view(wrap: &web_sys::Element, cell: &web_sys::Element) {
    let framed = web_sys::window().is_none_or(|w| {
        w.top()
            .ok()
            .flatten()
            .is_none_or(|top| JsValue::from(top) != JsValue::from(w))
    });
    if framed {
        if let Some(cell) = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlElement>(cell) {
            // The td's offsets are within the table, which starts the box's content; leave room for the sticky parts.
            wrap.set_scroll_left((cell.offset_left() - 120).max(0));
            wrap.set_scroll_top((cell.offset_top() - 60).max(0));
        }
        return;
    }
    let options = js_sys::Object::new();
    for key in ["block", "inline"] {
        let _ = js_sys::Reflect::set(&options, &JsValue::from_str(key), &JsValue::from_str("nearest"));
    }
    if let Ok(f) = js_sys::Reflect::get(cell, &JsValue::from_str("scrollIntoView")) {
        if let Some(f) = wasm_bindgen::JsCast::dyn_ref::<js_sys::Function>(&f) {
            let _ = f.call1(cell, &options);
        }
    }
}

/// The architecture select: every GPU, or one architecture of qpath's table.
fn arch_select(arch: Option<&str>, onarch: Callback<String>) -> Html {
    let options: Vec<ChoiceOption> = std::iter::once(ChoiceOption::new("", "every architecture"))
        .chain(gpu::architectures().into_iter().map(|a| ChoiceOption::new(a, a)))
        .collect();
    html! {
        <label class="matrix-mode"><span>{ "GPUs" }</span>
            { choice_select("matrix-arch", options, AttrValue::from(arch.unwrap_or_default().to_string()), onarch) }
        </label>
    }
}

/// The matrix and the base command line's own cache dtype (to mark the base cell).
struct Computed {
    matrix: Result<Matrix, String>,
    base_kv: Option<String>,
}

/// The matrix with the core's texts in the page's words.
fn compute((base, mode): &(Scenario, MatrixMode)) -> Computed {
    let cmd = serve::parse(base.release, &base.command_line).ok();
    let mut matrix = matrix_in(base, *mode);
    if let Some(cmd) = &cmd {
        match matrix.as_mut() {
            Ok(m) => m.cells.iter_mut().for_each(|c| in_page_text(&mut c.summary, &cmd.model)),
            Err(e) => in_page_text(e, &cmd.model),
        }
    }
    Computed {
        matrix,
        base_kv: cmd.map(|c| c.kv_cache_dtype),
    }
}

fn label(cell: &Cell) -> String {
    match cell.status {
        CellStatus::Error => format!("error: {}", cell.summary),
        CellStatus::OtherBackend => format!("not on FlashInfer: {}", cell.summary),
        CellStatus::Ok | CellStatus::CannotModel => cell.summary.clone(),
    }
}

fn cell_button(gpu: &'static Gpu, cell: &Cell, current: bool, onpick: &Callback<(&'static Gpu, String)>) -> Html {
    let kv = cell.kv_cache_dtype;
    let sentence = format!("{}, {}: {}", gpu.name, kv, label(cell));
    let onclick = onpick.reform(move |_: MouseEvent| (gpu, kv.to_string()));
    html! {
        <td class={classes!("matrix-cell", current.then_some("current"), (cell.status == CellStatus::Error).then_some("error-cell"))}>
            <button type="button" class={classes!("cell", cell.status.name())} data-gpu={gpu.id} data-kv={kv}
                data-backends={cell.backends.iter().map(|b| b.name()).collect::<Vec<_>>().join(",")}
                title={sentence.clone()} aria-label={sentence} aria-current={current.then_some("true")} {onclick}>
                <span class="cell-text">
                    if cell.status == CellStatus::Error {
                        <strong class="error-label">{ "error:" }</strong>{ " " }
                        <strong class="summary">{ cell.summary.clone() }</strong>
                    } else {
                        <span class="summary">{ cell.summary.clone() }</span>
                    }
                </span>
            </button>
        </td>
    }
}

/// Consecutive rows of the table with the same architecture.
fn arch_runs(gpus: &[&'static Gpu]) -> Vec<(usize, usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (i, g) in gpus.iter().enumerate() {
        match runs.last_mut() {
            Some((start, end)) if gpus[*start].arch == g.arch => *end = i + 1,
            _ => runs.push((i, i + 1)),
        }
    }
    runs
}

fn legend(mode: MatrixMode, mla: bool) -> Html {
    let picked = mode == MatrixMode::Picked;
    let sample = if mla {
        "FLASHINFER_MLA bf16/e4m3 fa4-varlen/trtllm-gen-mla"
    } else {
        "FLASH_ATTN bf16/bf16 fa3-varlen-aot/fa3-varlen-aot"
    };
    html! {
        <ul class="matrix-legend" aria-label="Legend">
            <li>
                if picked {
                    <span class="cell ok sample">{ sample }</span>
                    { " the backend vLLM picks, then query dtype at prefill/decode, then kernel at prefill/decode (one \
                       such part per distinct group)" }
                    if mla {
                        { "; an MLA group's prefill kernel is its MLA prefill backend's (fa4-varlen: FLASH_ATTN), its \
                           decode kernel the MLA backend's" }
                    }
                } else {
                    <span class="cell ok sample">{ "bf16/e4m3 fa2/xqa" }</span>
                    { " FlashInfer runs: query dtype at prefill/decode, then kernel at prefill/decode (one such part per \
                       distinct FlashInfer group)" }
                }
                { "; bf16 = bfloat16, fp16 = float16, e4m3 = float8_e4m3fn, e5m2 = float8_e5m2, a|b = kernel a or b \
                   as the batch decides, — = not decided" }
            </li>
            <li>
                <span class="cell error sample"><strong class="error-label">{ "error:" }</strong>{ " ValueError: …" }</span>
                { " vLLM or its backend raises (the first error, as vLLM would report it)" }
            </li>
            if !picked {
                <li>
                    <span class="cell other-backend sample">{ "FLASH_ATTN bf16/bf16 …" }</span>
                    { " no layer runs on FlashInfer: what the backend(s) vLLM picks instead run" }
                </li>
            }
            <li>
                <span class="cell cannot-model sample">{ "qpath cannot model this: …" }</span>
                { " a part qpath cannot model, and why" }
            </li>
            <li>
                <span class="sample current-sample" aria-hidden="true">{ "▣" }</span>
                { " the cell of the current scenario (outlined)" }
            </li>
        </ul>
    }
}

/// What the matrix shows, with how many of its cells raise.
fn caption(m: &Matrix, base: &Scenario) -> String {
    let errors = m.cells.iter().filter(|c| c.status == CellStatus::Error).count();
    let what = match m.mode {
        MatrixMode::FlashInfer => "every --kv-cache-dtype FlashInfer's backend accepts at this release, FlashInfer's groups",
        MatrixMode::Picked if m.mla => {
            "every --kv-cache-dtype some MLA backend accepts at this release (the model's layers are MLA: fp8_ds_mla \
             is DeepSeek's cache layout), the MLA backend vLLM picks (or the command line's --attention-backend \
             forces) with its query dtypes and kernels"
        }
        MatrixMode::Picked => {
            "every --kv-cache-dtype some attention backend accepts at this release, the backend vLLM picks (or the \
             command line's --attention-backend forces) with its query dtypes and kernels"
        }
    };
    format!(
        "vLLM {} on every GPU of qpath's table × {what}. Rows: GPUs grouped by architecture, in table order, with the \
         compute capability each reports under CUDA {}. Columns: cache dtypes. {} of {} combinations raise an error. \
         Choose a cell to explain it.",
        m.vllm,
        base.cuda,
        errors,
        m.cells.len()
    )
}

/// The mode select: FlashInfer's grid or the backend vLLM picks.
fn mode_select(mode: MatrixMode, onmode: Callback<String>) -> Html {
    let options: Vec<ChoiceOption> = MatrixMode::ALL
        .iter()
        .map(|m| ChoiceOption::new(m.name(), m.label()))
        .collect();
    html! {
        <label class="matrix-mode"><span>{ "Show" }</span>
            { choice_select("matrix-mode", options, AttrValue::from(mode.name()), onmode) }
        </label>
    }
}

#[function_component(MatrixView)]
pub fn matrix_view(props: &MatrixViewProps) -> Html {
    let computed = use_memo((props.base.clone(), props.mode), compute);
    let wrap = use_node_ref();
    {
        // When the matrix opens, or its current cell, mode or rows change: the current cell into view.
        let gpu = match props.base.hardware {
            Hardware::Gpu(g) => Some(g.id),
            Hardware::Capability(_) => None,
        };
        let key = (
            gpu,
            computed.base_kv.clone(),
            props.mode,
            props.arch.clone(),
            props.base.release,
        );
        let wrap = wrap.clone();
        use_effect_with(key, move |_| {
            if let Some(w) = wrap.cast::<web_sys::Element>() {
                if let Some(cell) = w.query_selector("td.current").ok().flatten() {
                    scroll_into_view(&w, &cell);
                }
            }
        });
    }
    let onmode = props.onmode.clone();
    let base = &props.base;
    let m = match &computed.matrix {
        Ok(m) => m,
        Err(e) => {
            return html! {
                <section class="matrix" aria-label="Matrix">
                    { mode_select(props.mode, onmode) }
                    <p class="matrix-error" role="alert">
                        <strong class="error-label">{ "The command line does not parse: " }</strong>{ e.clone() }
                    </p>
                </section>
            };
        }
    };
    let base_gpu = match base.hardware {
        Hardware::Gpu(g) => Some(g.id),
        Hardware::Capability(_) => None,
    };
    let n = m.kv_cache_dtypes.len();
    // The matrix is built from GPUS in table order; look each id up so a mismatch cannot pair a row with the wrong GPU.
    let gpus: Vec<&'static Gpu> = m
        .gpus
        .iter()
        .filter_map(|id| GPUS.iter().find(|g| g.id == *id))
        .collect::<Vec<&'static Gpu>>();
    let caption = caption(m, base);
    let arch = props.arch.as_deref();
    // The rows the architecture select keeps (an architecture the table lacks keeps none: the link reader rejects it).
    let shown: Vec<usize> = (0..gpus.len()).filter(|&i| arch.is_none_or(|a| gpus[i].arch == a)).collect();
    let shown_gpus: Vec<&'static Gpu> = shown.iter().map(|&i| gpus[i]).collect();
    html! {
        <section class="matrix" aria-label="Matrix">
            <div class="matrix-controls">
                { mode_select(m.mode, onmode) }
                { arch_select(arch, props.onarch.clone()) }
            </div>
            <p id="matrix-caption" class="matrix-caption">{ caption }</p>
            { legend(m.mode, m.mla) }
            if let Some(a) = arch {
                <p id="matrix-shown" class="matrix-caption">
                    { format!("Showing the {} {a} GPUs of {}.", shown.len(), gpus.len()) }
                </p>
            }
            <div class="matrix-wrap" ref={wrap.clone()}>
                <table id="matrix-table" class={m.mode.name()} aria-describedby="matrix-caption">
                    <caption>{ match m.mode {
                        MatrixMode::FlashInfer => format!("vLLM {}: FlashInfer's outcome per GPU and --kv-cache-dtype", m.vllm),
                        MatrixMode::Picked => format!("vLLM {}: the backend vLLM picks per GPU and --kv-cache-dtype", m.vllm),
                    } }</caption>
                    <thead>
                        <tr>
                            <th scope="col" class="gpu-col">{ "GPU (capability)" }</th>
                            { for m.kv_cache_dtypes.iter().map(|kv| html! {
                                <th scope="col" class={classes!("kv-col", (base_kv_is(&computed.base_kv, kv)).then_some("current"))}>
                                    <code>{ *kv }</code>
                                </th>
                            }) }
                        </tr>
                    </thead>
                    { for arch_runs(&shown_gpus).into_iter().map(|(start, end)| {
                        let arch = shown_gpus[start].arch;
                        html! {
                            <tbody key={format!("{start}-{arch}")} class="arch-group">
                                <tr class="arch-row">
                                    <th scope="rowgroup" colspan={(n + 1).to_string()}><span class="arch-name">{ arch }</span></th>
                                </tr>
                                { for (start..end).map(|j| {
                                    let (i, g) = (shown[j], shown_gpus[j]);
                                    let cells = &m.cells[i * n..(i + 1) * n];
                                    let row_current = base_gpu == Some(g.id);
                                    html! {
                                        <tr key={g.id} class={classes!("gpu-row", row_current.then_some("current"))} data-gpu={g.id}>
                                            <th scope="row" class="gpu-name">
                                                { g.name }
                                                <span class="cc">{ g.capability_under(base.cuda).to_string() }</span>
                                            </th>
                                            { for cells.iter().map(|c| {
                                                let current = row_current && base_kv_is(&computed.base_kv, c.kv_cache_dtype);
                                                cell_button(g, c, current, &props.onpick)
                                            }) }
                                        </tr>
                                    }
                                }) }
                            </tbody>
                        }
                    }) }
                </table>
            </div>
            <p id="matrix-footnote" class="matrix-caption">
                { "Cells show the start of long answers: hover over a cell or focus it (Tab) to read it whole; choose it \
                   to explain it (the page then says what the choice changed; Back returns here)." }
            </p>
        </section>
    }
}

fn base_kv_is(base_kv: &Option<String>, kv: &str) -> bool {
    base_kv.as_deref() == Some(kv)
}
