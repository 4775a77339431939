//! `--check`'s one line with what it assumed: the verdict ([`Verdict`]), then the GPU, the vLLM release and the
//! FlashInfer qpath modelled, and (for a run that serves) what qpath does not check. The page's text
//! ([`qpath_core::render::verdict_message`]) is unchanged: the assumptions are the CLI's.

use qpath_core::report::Report;
use qpath_core::resolve::Scenario;

use crate::Verdict;

/// What a "serves" verdict covers and does not: the attention path, the pydantic range checks of the flags
/// (serve/bounds.rs) and `--quantization` against the checkpoint (resolve/quantization.rs).
pub const NOT_CHECKED: &str = "qpath checks the attention path, the flags' range checks and --quantization against \
                               the checkpoint, not memory, weight loading or the rest of the config validation";

/// The GPU, release and FlashInfer a verdict assumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assumed {
    /// `NVIDIA H100 SXM5 (compute capability 9.0)`; `None` for a matrix (every GPU of its grid).
    pub gpu: Option<String>,
    pub vllm: String,
    /// `0.7.2.post1`, or `0.7.2.post1 (release pins 0.6.18)` when the scenario installs another.
    pub flashinfer: String,
}

impl Assumed {
    /// What one scenario's report assumed.
    pub fn of_report(r: &Report) -> Assumed {
        let flashinfer = if r.flashinfer == r.flashinfer_pinned {
            r.flashinfer.clone()
        } else {
            format!("{} (release pins {})", r.flashinfer, r.flashinfer_pinned)
        };
        Assumed {
            gpu: Some(format!("{} (compute capability {})", r.gpu.name, r.gpu.compute_capability)),
            vllm: r.vllm.clone(),
            flashinfer,
        }
    }

    /// What a matrix of `scenario` assumed: its release and FlashInfer, on every GPU of the grid.
    pub fn of_matrix(scenario: &Scenario) -> Assumed {
        let pin = scenario.release.flashinfer_pin();
        let fi = scenario.flashinfer.unwrap_or(pin);
        let flashinfer = if fi == pin {
            fi.name().to_string()
        } else {
            format!("{} (release pins {})", fi.name(), pin.name())
        };
        Assumed {
            gpu: None,
            vllm: scenario.release.name().to_string(),
            flashinfer,
        }
    }

    /// `NVIDIA L4 (compute capability 8.9), vLLM 0.25.0, FlashInfer 0.2.14.post1`.
    fn text(&self) -> String {
        let gpu = self.gpu.as_deref().unwrap_or("every GPU of the grid");
        format!("{gpu}, vLLM {}, FlashInfer {}", self.vllm, self.flashinfer)
    }
}

/// `--check`'s line, with its newline: the verdict's line and `; assumed: GPU, vLLM, FlashInfer`, the serves verdict also saying what
/// qpath did not check; with `json`, the verdict's object plus `assumed` (`gpu`, `vllm`, `flashinfer`) and, for
/// `serves`, `not_checked`.
pub fn line(v: &Verdict, assumed: &Assumed, json: bool) -> String {
    let serves = matches!(v, Verdict::Serves(_));
    if json {
        let mut object = v.check_object();
        if let Some(o) = object.as_object_mut() {
            let a = serde_json::json!({"gpu": assumed.gpu, "vllm": assumed.vllm, "flashinfer": assumed.flashinfer});
            o.insert("assumed".into(), a);
            if serves {
                o.insert("not_checked".into(), NOT_CHECKED.into());
            }
        }
        return format!("{object}\n");
    }
    let not_checked = if serves { format!("; {NOT_CHECKED}") } else { String::new() };
    format!("{}; assumed: {}{not_checked}\n", v.line(), assumed.text())
}
