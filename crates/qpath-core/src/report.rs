//! What a resolution produces: serde DTOs whose JSON is the CLI's `--format json` and the JS API's return value.
//! Keys may be added, never renamed; `tests/json_stable.rs` pins the JSON of thousands of scenarios byte for byte.
//! Every value the page or a script matches on is an enum here, serialised as the exact string the JSON has always had.

use serde::Serialize;

use crate::dtype::TorchDtype;
pub use crate::model::AttentionKind;
use crate::release::{FlashInfer, Release};
pub use crate::selection::Backend;
use crate::source::Cite;

/// The answer for one scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub vllm: String,
    /// The FlashInfer in effect: the scenario's installed FlashInfer, else the release's pin.
    pub flashinfer: String,
    /// The FlashInfer the release pins (equal to `flashinfer` unless the scenario names another).
    pub flashinfer_pinned: String,
    pub gpu: GpuRef,
    pub cuda: String,
    pub trtllm_cubins: bool,
    /// A scenario vLLM rejects as a whole (bad flag, no valid backend): the rest is then empty.
    pub error: Option<ScenarioError>,
    pub model: Option<ModelSummary>,
    pub groups: Vec<GroupReport>,
    /// Log lines vLLM prints once for the whole engine (backend selection), in order.
    pub logs: Vec<String>,
    /// Things qpath noticed about the input that vLLM accepts silently (a skip token matching no layer, …).
    pub notes: Vec<String>,
    /// Flags vLLM accepts that do not affect this decision.
    pub unused_flags: Vec<String>,
    /// `logs` as vLLM's logger prints them: each with its level and the `file:line` of its `logger.` call.
    pub log_records: Vec<LogRecord>,
}

/// A Python logging level, serialised as logging names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LogLevel {
    #[serde(rename = "DEBUG")]
    Debug,
    #[serde(rename = "INFO")]
    Info,
    #[serde(rename = "WARNING")]
    Warning,
}

impl LogLevel {
    pub const ALL: [LogLevel; 3] = [LogLevel::Debug, LogLevel::Info, LogLevel::Warning];

    /// The JSON string, as vLLM's log lines start with it.
    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warning => "WARNING",
        }
    }
}

/// One log line as vLLM's logger records it: the level, the file and line of the `logger.xxx(` call in that release
/// (its `*_once` wrappers pass `stacklevel`, so the caller's line), and the message.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LogRecord {
    pub level: LogLevel,
    /// The file in its repository, e.g. `vllm/platforms/cuda.py`.
    pub file: &'static str,
    pub line: u32,
    pub text: String,
}

impl LogRecord {
    /// The record of `text` logged by the call `cite` names, in `release` with `flashinfer` installed.
    pub fn new(level: LogLevel, cite: &Cite, (release, flashinfer): (Release, FlashInfer), text: impl Into<String>) -> Self {
        LogRecord {
            level,
            file: cite.file,
            line: cite.at_with(release, flashinfer).map_or(0, |s| s.line),
            text: text.into(),
        }
    }

    /// `cuda.py:482`: the file's base name and the line, as vLLM's log format prints them.
    pub fn location(&self) -> String {
        let base = self.file.rsplit('/').next().unwrap_or(self.file);
        format!("{base}:{}", self.line)
    }

    /// The line as vLLM prints it after its timestamp: `INFO [cuda.py:482] Using …`.
    pub fn show(&self) -> String {
        format!("{} [{}] {}", self.level.name(), self.location(), self.text)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GpuRef {
    /// The GPU table id, or `null` for a raw compute capability.
    pub id: Option<String>,
    pub name: String,
    /// As reported under the scenario's CUDA version (Jetson Thor: 10.1 before CUDA 13).
    pub compute_capability: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScenarioError {
    #[serde(rename = "type")]
    pub kind: ScenarioErrorKind,
    pub message: String,
    /// Where vLLM raises it (`file:line` of that release), when it is vLLM's own error.
    pub source: Option<String>,
}

/// The JSON name of an attention kind (`full`, `sliding_window`), for the renderers.
pub fn attention_name(k: AttentionKind) -> &'static str {
    match k {
        AttentionKind::Full => "full",
        AttentionKind::SlidingWindow => "sliding_window",
        AttentionKind::LinearAttention => "linear_attention",
        AttentionKind::Mamba => "mamba",
    }
}

/// The exception a whole scenario fails with (`ScenarioError.type`); the JSON is the variant's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum ScenarioErrorKind {
    /// argparse rejects the command line (`vllm serve` exits with its usage error).
    ArgumentError,
    /// vLLM's own `ValueError` (an environment variable, `--dtype`, tensor parallelism, backend selection).
    ValueError,
    /// Input qpath cannot read (an unknown model without `--hf-overrides`, a backend qpath does not model).
    InputError,
    /// vLLM's `NotImplementedError` (a checkpoint's compressed-tensors `kv_cache_scheme` it does not support).
    NotImplementedError,
}

impl ScenarioErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            ScenarioErrorKind::ArgumentError => "ArgumentError",
            ScenarioErrorKind::ValueError => "ValueError",
            ScenarioErrorKind::InputError => "InputError",
            ScenarioErrorKind::NotImplementedError => "NotImplementedError",
        }
    }
}

impl std::fmt::Display for ScenarioErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The Python exception one attention group raises (`GroupError.type`); the JSON is the variant's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum GroupErrorKind {
    ValueError,
    AssertionError,
    NotImplementedError,
    RuntimeError,
}

impl GroupErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            GroupErrorKind::ValueError => "ValueError",
            GroupErrorKind::AssertionError => "AssertionError",
            GroupErrorKind::NotImplementedError => "NotImplementedError",
            GroupErrorKind::RuntimeError => "RuntimeError",
        }
    }
}

impl std::fmt::Display for GroupErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelSummary {
    pub id: String,
    pub dtype: TorchDtype,
    pub num_layers: u32,
    pub preset: bool,
    /// Where the model's config.json came from (a path, `--model-config FILE`, the JS API's `modelConfig`); absent
    /// when the model is a preset or described by `--hf-overrides` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// The KV cache dtype the checkpoint's `quantization_config` sets under `--kv-cache-dtype auto`, and the field
    /// that sets it (e.g. `fp8, from the checkpoint's quantization_config.kv_cache_scheme`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_kv_cache_dtype: Option<String>,
}

/// The two phases of a mixed batch of prefills and single-token decodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Phases<T> {
    pub prefill: T,
    pub decode: T,
}

/// The attention kernel a phase runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Kernel {
    #[serde(rename = "trtllm-gen")]
    TrtllmGen,
    #[serde(rename = "xqa")]
    Xqa,
    #[serde(rename = "fa3")]
    Fa3,
    #[serde(rename = "fa2")]
    Fa2,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::TrtllmGen => "trtllm-gen",
            Kernel::Xqa => "xqa",
            Kernel::Fa3 => "fa3",
            Kernel::Fa2 => "fa2",
        }
    }
}

/// Where in the engine's life an error fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// `FlashInferMetadataBuilder.__init__` (or the attention layer's init): engine start-up.
    Init,
    /// `FlashInferMetadataBuilder.build()`: the first batch.
    Build,
    /// The FlashInfer prefill wrapper's `plan()` (JIT module generation): the first batch with a prefill.
    PrefillPlan,
    /// The decode wrapper's `plan()`, or the first XQA / trtllm-gen decode call: the first batch with a decode.
    DecodePlan,
}

impl Stage {
    /// When in the engine's life the error fires, as the page says it ("on the first prefill").
    pub fn when(self) -> &'static str {
        match self {
            Stage::Init => "at engine start",
            Stage::Build => "on the first batch",
            Stage::PrefillPlan => "on the first prefill",
            Stage::DecodePlan => "on the first decode",
        }
    }

    /// The code that raises at that stage ("FlashInfer plan").
    pub fn call(self) -> &'static str {
        match self {
            Stage::Init => "FlashInferMetadataBuilder.__init__",
            Stage::Build => "build",
            Stage::PrefillPlan => "FlashInfer plan",
            Stage::DecodePlan => "plan or first XQA/trtllm-gen call",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupError {
    #[serde(rename = "type")]
    pub kind: GroupErrorKind,
    pub message: String,
    pub stage: Stage,
    /// `file:line` of the raise in that release (vLLM or the pinned FlashInfer).
    pub source: Option<String>,
}

/// One decision step: what the code looked at, what it decided, and the line it restates.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceStep {
    /// What the step looked at; [`UNVERIFIED_RULE`] for an unverified prediction.
    pub rule: String,
    pub outcome: String,
    /// `file:line` in this release; `null` for qpath's own bookkeeping (grouping, inputs).
    pub source: Option<String>,
    pub url: Option<String>,
    /// The step predicts beyond what the Python source decides (derived, not run). Not in the JSON: there such a step
    /// is the one whose `rule` is [`UNVERIFIED_RULE`].
    #[serde(skip)]
    pub unverified: bool,
}

/// The `rule` text of an unverified prediction (see [`TraceStep::unverified`]).
pub const UNVERIFIED_RULE: &str = "unverified prediction";

/// One attention group: layers that share a backend and a KV-cache spec (one metadata builder in vLLM).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupReport {
    pub layers: Vec<u32>,
    /// `full` or `sliding_window`.
    pub attention: AttentionKind,
    pub sliding_window: Option<u32>,
    pub head_dim: u32,
    pub num_q_heads: u32,
    pub num_kv_heads: u32,
    pub has_sinks: bool,
    pub backend: Backend,
    /// The builder's `cache_dtype`: the global `--kv-cache-dtype` string for quantized groups, `auto` otherwise.
    pub cache_dtype: String,
    /// `null` where the code raised before computing it, and for groups on another backend.
    pub q_dtype: Phases<Option<TorchDtype>>,
    pub kernel: Phases<Option<Kernel>>,
    pub error: Option<GroupError>,
    pub warnings: Vec<String>,
    pub logs: Vec<String>,
    pub trace: Vec<TraceStep>,
    /// `logs` as vLLM's logger prints them (see [`Report::log_records`]).
    pub log_records: Vec<LogRecord>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each enum's `name()` (what the renderers print) is its JSON string.
    #[test]
    fn names_are_the_json_strings() {
        for b in Backend::ALL {
            assert_eq!(json(&b), format!("\"{b}\""));
        }
        for k in AttentionKind::ALL {
            assert_eq!(json(&k), format!("\"{}\"", attention_name(k)));
        }
        for k in [
            ScenarioErrorKind::ArgumentError,
            ScenarioErrorKind::ValueError,
            ScenarioErrorKind::InputError,
        ] {
            assert_eq!(json(&k), format!("\"{k}\""));
        }
        for k in [
            GroupErrorKind::ValueError,
            GroupErrorKind::AssertionError,
            GroupErrorKind::NotImplementedError,
            GroupErrorKind::RuntimeError,
        ] {
            assert_eq!(json(&k), format!("\"{k}\""));
        }
        for k in [Kernel::TrtllmGen, Kernel::Xqa, Kernel::Fa3, Kernel::Fa2] {
            assert_eq!(json(&k), format!("\"{}\"", k.name()));
        }
    }

    fn json<T: Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap()
    }
}
