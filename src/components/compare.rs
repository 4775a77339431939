//! Compare: two reports side by side (typically one scenario under two releases), one row per attention group.
//!
//! Groups are matched by role and identical layer lists (a drafter's layers, which vLLM numbers apart, are rows of
//! their own after the target's, labelled "drafter"); a group one side lacks shows "—" there, and a scenario-level error
//! spans its side of every row. Each field that differs gets class `diff` on both cells and a visible "≠" marker
//! (announced as "differs"), so colour is never the only signal.

use std::rc::Rc;

use qpath_core::dtype::TorchDtype;
use qpath_core::report::{GroupReport, GroupRole, Report, ScenarioError};
use qpath_core::resolve::short_list;
use yew::prelude::*;

use crate::components::results::sep;

#[derive(PartialEq, Properties)]
pub struct CompareProps {
    pub left: Rc<Report>,
    pub right: Rc<Report>,
}

/// The per-group fields of one side, in column order: (class suffix, column heading).
const FIELDS: [(&str, &str); 9] = [
    ("backend", "Backend"),
    ("cache-dtype", "Cache dtype"),
    ("q-prefill", "Q prefill"),
    ("q-decode", "Q decode"),
    ("query-quant", "Query quantization"),
    ("kernel-prefill", "Prefill kernel"),
    ("kernel-decode", "Decode kernel"),
    ("prefill-outcome", "Prefill outcome"),
    ("decode-outcome", "Decode outcome"),
];

/// One side's group with the row's layers.
#[derive(Clone, PartialEq)]
struct GroupSide {
    /// One text per field of [`FIELDS`].
    values: [String; 9],
    /// Each phase raises (prefill, decode): its outcome cell is marked `failing`.
    failing: (bool, bool),
}

/// What one side shows in a row.
#[derive(Clone, PartialEq)]
enum Side {
    /// The side's group with these layers.
    Group(GroupSide),
    /// The side has no group with these layers.
    Missing,
    /// The side's scenario failed as a whole.
    ScenarioError(String),
}

fn dtype(d: Option<TorchDtype>) -> String {
    d.map_or("—".to_string(), |d| d.name().to_string())
}

/// One side's texts for a group, as every view says them (the core's words): the kernels with their conditions (an
/// MLA group's with who runs them: the MLA prefill backend or the decode backend), the query's quantization, each
/// phase's outcome.
fn group_side(g: &GroupReport) -> GroupSide {
    let values = [
        g.backend.name().to_string(),
        g.cache_dtype.clone(),
        dtype(g.q_dtype.prefill),
        dtype(g.q_dtype.decode),
        g.query_quant.as_ref().map_or("—".to_string(), |q| q.brief()),
        g.kernels_runners_text(true),
        g.kernels_runners_text(false),
        g.phase_outcome(true),
        g.phase_outcome(false),
    ];
    GroupSide {
        values,
        failing: (g.phase_error(true).is_some(), g.phase_error(false).is_some()),
    }
}

/// "vLLM rejects this scenario: Type: message", or "qpath cannot model this: …" for qpath's own limit.
fn scenario_error_text(e: &ScenarioError) -> String {
    format!("{}: {}", e.kind.heading(), e.kind.body(&e.message))
}

/// One row: the layers (empty when neither side has groups) and both sides.
struct Row {
    role: GroupRole,
    layers: Vec<u32>,
    left: Side,
    right: Side,
}

impl Row {
    /// Whether field `i` differs (for a missing group or a scenario error, the whole side differs unless both sides
    /// show the same thing).
    fn differs(&self, i: usize) -> bool {
        match (&self.left, &self.right) {
            (Side::Group(a), Side::Group(b)) => a.values[i] != b.values[i],
            (a, b) => a != b,
        }
    }

    fn any_differs(&self) -> bool {
        (0..FIELDS.len()).any(|i| self.differs(i))
    }
}

fn side_for(r: &Report, role: GroupRole, layers: &[u32]) -> Side {
    if let Some(e) = &r.error {
        return Side::ScenarioError(scenario_error_text(e));
    }
    r.groups
        .iter()
        .find(|g| g.role == role && g.layers == layers)
        .map_or(Side::Missing, |g| Side::Group(group_side(g)))
}

fn rows(left: &Report, right: &Report) -> Vec<Row> {
    let mut layer_sets: Vec<(GroupRole, &Vec<u32>)> = Vec::new();
    for g in left.groups.iter().chain(right.groups.iter()) {
        if !layer_sets.contains(&(g.role, &g.layers)) {
            layer_sets.push((g.role, &g.layers));
        }
    }
    // The target's rows first, then the drafter's; each by first layer.
    let key = |(role, l): &(GroupRole, &Vec<u32>)| (*role == GroupRole::Drafter, l.first().copied(), l.len());
    qpath_core::order::sort_by(&mut layer_sets, |a, b| key(a).cmp(&key(b)));
    if layer_sets.is_empty() {
        // Neither side has groups (scenario errors, or a model without attention layers): one row for the scenario.
        return vec![Row {
            role: GroupRole::Target,
            layers: vec![],
            left: side_for(left, GroupRole::Target, &[]),
            right: side_for(right, GroupRole::Target, &[]),
        }];
    }
    layer_sets
        .into_iter()
        .map(|(role, l)| Row {
            role,
            layers: l.clone(),
            left: side_for(left, role, l),
            right: side_for(right, role, l),
        })
        .collect()
}

fn release_line(r: &Report) -> String {
    format!("vLLM {} / {}", r.vllm, qpath_core::render::flashinfer_text(r))
}

fn side_header(r: &Report, which: &'static str) -> Html {
    let cubins = if r.trtllm_cubins {
        "TRTLLM cubins: yes"
    } else {
        "TRTLLM cubins: no"
    };
    html! {
        <div class={classes!("compare-side", which)} id={format!("compare-{which}")}>
            <p class="side-name">{ if which == "left" { "Left" } else { "Right" } }</p>
            <p class="side-release">{ release_line(r) }</p>
            <p class="side-platform">
                <span class="side-gpu">{ format!("{} (compute capability {})", r.gpu.name, r.gpu.compute_capability) }</span>
                { sep() }
                <span class="side-cuda">{ format!("CUDA {}", r.cuda) }</span>
                { sep() }
                <span class="side-cubins">{ cubins }</span>
            </p>
        </div>
    }
}

fn marker() -> Html {
    html! { <span class="diff-mark" role="img" aria-label="differs" title="differs between the two sides">{ "≠" }</span> }
}

fn side_cells(row: &Row, which: &'static str) -> Html {
    let side = if which == "left" { &row.left } else { &row.right };
    match side {
        Side::Group(group) => html! {
            { for group.values.iter().enumerate().map(|(i, v)| {
                let diff = row.differs(i);
                let (suffix, _) = FIELDS[i];
                let failing = match suffix {
                    "prefill-outcome" => group.failing.0,
                    "decode-outcome" => group.failing.1,
                    _ => false,
                };
                html! {
                    <td class={classes!(format!("{which}-{suffix}"), which, diff.then_some("diff"), failing.then_some("failing"), (i == 0).then_some("side-start"))}>
                        if diff { { marker() } }
                        <span class="value">{ v.clone() }</span>
                    </td>
                }
            }) }
        },
        Side::Missing => html! {
            <td colspan={FIELDS.len().to_string()}
                class={classes!(format!("{which}-outcome"), which, "missing", "side-start", row.any_differs().then_some("diff"))}>
                if row.any_differs() { { marker() } }
                <span class="value">{ "— no group with these layers" }</span>
            </td>
        },
        Side::ScenarioError(text) => html! {
            <td colspan={FIELDS.len().to_string()}
                class={classes!(format!("{which}-outcome"), which, "scenario-error", "failing", "side-start", row.any_differs().then_some("diff"))}>
                if row.any_differs() { { marker() } }
                <span class="value">{ text.clone() }</span>
            </td>
        },
    }
}

#[function_component(Compare)]
pub fn compare(props: &CompareProps) -> Html {
    let (left, right) = (&*props.left, &*props.right);
    let rows = rows(left, right);
    let total = rows.len();
    let differing = rows.iter().filter(|r| r.any_differs()).count();
    let summary = if differing == 0 {
        "Both releases decide the same for every group".to_string()
    } else {
        let noun = if total == 1 { "group" } else { "groups" };
        let verb = if differing == 1 { "differs" } else { "differ" };
        format!("{differing} of {total} {noun} {verb}")
    };
    let head = |r: &Report, which: &'static str| {
        html! {
            <th scope="colgroup" colspan={FIELDS.len().to_string()} class={classes!(which, "side-start")}>
                { format!("{} · vLLM {}", if which == "left" { "Left" } else { "Right" }, r.vllm) }
            </th>
        }
    };
    let field_heads = |which: &'static str| {
        html! {
            { for FIELDS.iter().enumerate().map(|(i, (_, label))| html! {
                <th scope="col" class={classes!(which, (i == 0).then_some("side-start"))}>{ *label }</th>
            }) }
        }
    };
    html! {
        <section class="compare" aria-label="Compare">
            <div class="compare-head">
                { side_header(left, "left") }
                { side_header(right, "right") }
            </div>
            <p id="compare-summary" class={classes!("compare-summary", (differing > 0).then_some("differs"))} aria-live="polite">
                { summary }
            </p>
            <div class="table-wrap compare-wrap" tabindex="0" role="region" aria-label="Comparison by group">
                <table id="compare-table">
                    <thead>
                        <tr>
                            <th scope="col" rowspan="2" class="layers">{ "Layers" }</th>
                            { head(left, "left") }
                            { head(right, "right") }
                        </tr>
                        <tr>
                            { field_heads("left") }
                            { field_heads("right") }
                        </tr>
                    </thead>
                    <tbody>
                        { for rows.iter().map(|row| {
                            let layers = match (row.layers.is_empty(), row.role) {
                                (true, _) => "whole scenario".to_string(),
                                (false, GroupRole::Target) => short_list(&row.layers),
                                (false, GroupRole::Drafter) => format!("drafter {}", short_list(&row.layers)),
                            };
                            html! {
                                <tr key={layers.clone()} class={classes!("compare-row", row.any_differs().then_some("differs"))}
                                    data-role={row.role.name()}>
                                    <th scope="row" class="layers">{ layers }</th>
                                    { side_cells(row, "left") }
                                    { side_cells(row, "right") }
                                </tr>
                            }
                        }) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
