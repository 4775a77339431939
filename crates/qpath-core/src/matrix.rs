//! All GPUs × all FlashInfer cache dtypes for the rest of a scenario (the CLI's `qpath matrix`, the page's matrix).

use serde::Serialize;

use crate::gpu::GPUS;
use crate::release::Release;
use crate::report::{Backend, Kernel, NoteKind, Report, ScenarioErrorKind, Verdict, BARE_ASSERT, QPATH_LIMIT};
use crate::resolve::{resolve, Hardware, Scenario};
use crate::serve;

/// The `--kv-cache-dtype` values FlashInfer's backend lists at a release (`supported_kv_cache_dtypes`).
pub fn flashinfer_kv_dtypes(r: Release) -> Vec<&'static str> {
    let mut v = vec!["auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "nvfp4"];
    if r >= Release::V0_28_0 {
        v.push("nvfp4_4over6");
    }
    v
}

/// What a cell shows (the JSON's `status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellStatus {
    /// Every FlashInfer group runs: the summary lists their query dtypes and kernels.
    Ok,
    /// A group or the scenario fails: the summary is the first error.
    Error,
    /// No layer runs on FlashInfer: the summary lists the backends that run them.
    OtherBackend,
    /// qpath cannot model the scenario or part of it (the report's verdict): the summary says what.
    CannotModel,
}

impl CellStatus {
    /// The JSON string, also the cell's CSS class on the page.
    pub fn name(self) -> &'static str {
        match self {
            CellStatus::Ok => "ok",
            CellStatus::Error => "error",
            CellStatus::OtherBackend => "other-backend",
            CellStatus::CannotModel => "cannot-model",
        }
    }
}

/// One cell: the FlashInfer outcome of the scenario on one GPU with one cache dtype.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    pub gpu: &'static str,
    pub kv_cache_dtype: &'static str,
    /// The command line of this cell (the base one with `--kv-cache-dtype` replaced).
    pub command_line: String,
    pub status: CellStatus,
    /// A short summary: `bf16/bf16 fa2/fa2` per distinct FlashInfer group, or the error.
    pub summary: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Matrix {
    pub vllm: &'static str,
    pub kv_cache_dtypes: Vec<&'static str>,
    pub gpus: Vec<&'static str>,
    /// Row-major: for each GPU, one cell per cache dtype.
    pub cells: Vec<Cell>,
}

fn short_dtype(d: Option<crate::dtype::TorchDtype>) -> &'static str {
    use crate::dtype::TorchDtype::*;
    match d {
        Some(BFloat16) => "bf16",
        Some(Float16) => "fp16",
        Some(Float32) => "fp32",
        Some(Float8E4m3fn) => "e4m3",
        Some(Float8E5m2) => "e5m2",
        Some(Uint8) => "u8",
        None => "—",
    }
}

fn short_kernel(k: Option<Kernel>) -> &'static str {
    k.map_or("—", |k| k.name())
}

/// The cell's status and summary from a report.
pub fn summarize(r: &Report) -> (CellStatus, String) {
    if let Some(e) = &r.error {
        // The selection errors list every backend's reasons; the cell keeps the headline.
        let short = e.message.split(" for cuda with ").next().unwrap_or(&e.message);
        let short = short
            .split(" is not valid for this configuration. Reason: ")
            .collect::<Vec<_>>()
            .join(" is not valid: ");
        return match e.kind {
            ScenarioErrorKind::InputError => (CellStatus::CannotModel, format!("{QPATH_LIMIT}: {}", e.kind.body(&short))),
            _ => (CellStatus::Error, e.kind.body(&short)),
        };
    }
    if let Some(e) = r.groups.iter().find_map(|g| g.error.as_ref()) {
        return (
            CellStatus::Error,
            format!("{}: {}", e.kind, if e.message.is_empty() { BARE_ASSERT } else { &e.message }),
        );
    }
    if r.verdict == Verdict::CannotModel {
        let note = r.notes.iter().find(|n| n.kind == NoteKind::Limit).map(|n| n.text.as_str());
        let group = r.groups.iter().find_map(|g| g.unmodelled.as_deref());
        return (CellStatus::CannotModel, note.or(group).unwrap_or(QPATH_LIMIT).to_string());
    }
    let mut parts: Vec<String> = Vec::new();
    for g in r.groups.iter().filter(|g| g.backend == Backend::FlashInfer) {
        let s = format!(
            "{}/{} {}/{}",
            short_dtype(g.q_dtype.prefill),
            short_dtype(g.q_dtype.decode),
            short_kernel(g.kernel.prefill),
            short_kernel(g.kernel.decode)
        );
        if !parts.contains(&s) {
            parts.push(s);
        }
    }
    if parts.is_empty() {
        let mut others: Vec<&str> = r.groups.iter().map(|g| g.backend.name()).collect();
        others.dedup();
        return (CellStatus::OtherBackend, others.join(", "));
    }
    (CellStatus::Ok, parts.join("; "))
}

/// Resolves the base scenario on every GPU of the table with every FlashInfer cache dtype of its release.
/// Fails only when the base command line does not parse (the error names the input).
pub fn matrix(base: &Scenario) -> Result<Matrix, String> {
    let cmd = serve::parse(base.release, &base.command_line).map_err(|e| e.to_string())?;
    let dtypes = flashinfer_kv_dtypes(base.release);
    let mut cells = Vec::with_capacity(GPUS.len() * dtypes.len());
    for g in GPUS {
        for kv in &dtypes {
            let mut c = cmd.clone();
            c.kv_cache_dtype = kv.to_string();
            let line = serve::format(&c);
            let s = Scenario {
                hardware: Hardware::Gpu(g),
                command_line: line.clone(),
                ..base.clone()
            };
            let (status, summary) = summarize(&resolve(&s));
            cells.push(Cell {
                gpu: g.id,
                kv_cache_dtype: kv,
                command_line: line,
                status,
                summary,
            });
        }
    }
    Ok(Matrix {
        vllm: base.release.name(),
        kv_cache_dtypes: dtypes,
        gpus: GPUS.iter().map(|g| g.id).collect(),
        cells,
    })
}

/// The matrix as a Markdown table (rows: GPUs; columns: cache dtypes).
pub fn markdown(m: &Matrix) -> String {
    let mut out = format!(
        "| GPU | {} |\n|---|{}\n",
        m.kv_cache_dtypes.join(" | "),
        "---|".repeat(m.kv_cache_dtypes.len())
    );
    for (i, g) in m.gpus.iter().enumerate() {
        let row: Vec<String> = m.cells[i * m.kv_cache_dtypes.len()..(i + 1) * m.kv_cache_dtypes.len()]
            .iter()
            .map(|c| {
                let s = c.summary.replace('|', "\\|");
                if c.status == CellStatus::Error {
                    format!("**{s}**")
                } else {
                    s
                }
            })
            .collect();
        out.push_str(&format!("| {g} | {} |\n", row.join(" | ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::CellStatus;

    #[test]
    fn status_names_are_the_json_strings() {
        for s in [
            CellStatus::Ok,
            CellStatus::Error,
            CellStatus::OtherBackend,
            CellStatus::CannotModel,
        ] {
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{}\"", s.name()));
        }
    }
}
