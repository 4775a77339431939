//! MatrixView: the base scenario on every GPU of the table × every `--kv-cache-dtype` FlashInfer's backend lists at
//! its release ([`qpath_core::matrix::matrix`]). Rows are grouped by architecture in table order; each cell is a
//! button that reports its GPU and cache dtype through `onpick`.

use qpath_core::gpu::{Gpu, GPUS};
use qpath_core::matrix::{matrix, Cell, CellStatus, Matrix};
use qpath_core::resolve::{Hardware, Scenario};
use qpath_core::serve;
use yew::prelude::*;

#[derive(PartialEq, Properties)]
pub struct MatrixViewProps {
    pub base: Scenario,
    pub onpick: Callback<(&'static Gpu, String)>,
}

/// The matrix and the base command line's own cache dtype (to mark the base cell).
struct Computed {
    matrix: Result<Matrix, String>,
    base_kv: Option<String>,
}

fn compute(base: &Scenario) -> Computed {
    Computed {
        matrix: matrix(base),
        base_kv: serve::parse(base.release, &base.command_line).ok().map(|c| c.kv_cache_dtype),
    }
}

fn label(cell: &Cell) -> String {
    match cell.status {
        CellStatus::Error => format!("error: {}", cell.summary),
        CellStatus::OtherBackend => format!("not FlashInfer: {}", cell.summary),
        CellStatus::Ok | CellStatus::CannotModel => cell.summary.clone(),
    }
}

fn cell_button(gpu: &'static Gpu, cell: &Cell, current: bool, onpick: &Callback<(&'static Gpu, String)>) -> Html {
    let kv = cell.kv_cache_dtype;
    let sentence = format!("{}, {}: {}", gpu.name, kv, label(cell));
    let onclick = onpick.reform(move |_: MouseEvent| (gpu, kv.to_string()));
    html! {
        <td class={classes!("matrix-cell", current.then_some("current"))}>
            <button type="button" class={classes!("cell", cell.status.name())} data-gpu={gpu.id} data-kv={kv}
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

fn legend() -> Html {
    html! {
        <ul class="matrix-legend" aria-label="Legend">
            <li>
                <span class="cell ok sample">{ "bf16/e4m3 fa2/xqa" }</span>
                { " FlashInfer runs: query dtype at prefill/decode, then kernel at prefill/decode (one such part per \
                   distinct FlashInfer group; bf16 = bfloat16, fp16 = float16, e4m3 = float8_e4m3fn, \
                   e5m2 = float8_e5m2, — = not decided)" }
            </li>
            <li>
                <span class="cell error sample"><strong class="error-label">{ "error:" }</strong>{ " ValueError: …" }</span>
                { " vLLM or FlashInfer raises (the first error, as vLLM would report it)" }
            </li>
            <li>
                <span class="cell other-backend sample">{ "FLASH_ATTN" }</span>
                { " no layer runs on FlashInfer: the backend(s) vLLM picks instead" }
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
    format!(
        "vLLM {} on every GPU of qpath's table × every --kv-cache-dtype FlashInfer's backend accepts at this release. \
         Rows: GPUs grouped by architecture, in table order, with the compute capability each reports under CUDA {}. \
         Columns: cache dtypes. {} of {} combinations raise an error. Choose a cell to explain it.",
        m.vllm,
        base.cuda,
        errors,
        m.cells.len()
    )
}

#[function_component(MatrixView)]
pub fn matrix_view(props: &MatrixViewProps) -> Html {
    let computed = use_memo(props.base.clone(), compute);
    let base = &props.base;
    let m = match &computed.matrix {
        Ok(m) => m,
        Err(e) => {
            return html! {
                <section class="matrix" aria-label="Matrix">
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
    html! {
        <section class="matrix" aria-label="Matrix">
            <p id="matrix-caption" class="matrix-caption">{ caption }</p>
            { legend() }
            <div class="matrix-wrap">
                <table id="matrix-table" aria-describedby="matrix-caption">
                    <caption>{ format!("vLLM {}: FlashInfer's outcome per GPU and --kv-cache-dtype", m.vllm) }</caption>
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
                    { for arch_runs(&gpus).into_iter().map(|(start, end)| {
                        let arch = gpus[start].arch;
                        html! {
                            <tbody key={format!("{start}-{arch}")} class="arch-group">
                                <tr class="arch-row">
                                    <th scope="rowgroup" colspan={(n + 1).to_string()}><span class="arch-name">{ arch }</span></th>
                                </tr>
                                { for (start..end).map(|i| {
                                    let g = gpus[i];
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
        </section>
    }
}

fn base_kv_is(base_kv: &Option<String>, kv: &str) -> bool {
    base_kv.as_deref() == Some(kv)
}
