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
    /// Speculative decoding (`--speculative-config`): the method vLLM settles on, the model runner, the drafter's
    /// backend and cache dtype, and why; `null` without it. The drafter's layers are the groups with `role: drafter`.
    pub speculative: Option<crate::drafter::SpeculativeReport>,
    /// CUDA graphs: the `cudagraph_mode` the command line asks for, what the runner resolves it to once the groups'
    /// backends are known (their minimum support, speculative decoding), and vLLM's downgrade warnings; `null` when
    /// the scenario stops before.
    pub cuda_graphs: Option<crate::cudagraph::CudaGraphReport>,
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
    /// vLLM's `AssertionError` while the model is built: query heads not divisible by KV heads (`Attention.__init__`),
    /// KV heads and tensor-parallel ranks that do not divide (the model file's bare asserts, which carry no message;
    /// `QKVParallelLinear`'s `divide`).
    AssertionError,
    /// Python's `ZeroDivisionError` while the model is built (`gpt_oss.py` passes 0 KV heads per rank to `Attention`
    /// when there are more ranks than KV heads).
    ZeroDivisionError,
}

impl ScenarioErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            ScenarioErrorKind::ArgumentError => "ArgumentError",
            ScenarioErrorKind::ValueError => "ValueError",
            ScenarioErrorKind::InputError => "InputError",
            ScenarioErrorKind::NotImplementedError => "NotImplementedError",
            ScenarioErrorKind::AssertionError => "AssertionError",
            ScenarioErrorKind::ZeroDivisionError => "ZeroDivisionError",
        }
    }
}

impl ScenarioErrorKind {
    /// What the renderings and the page head the error with: "qpath cannot model this" for an `InputError` (qpath's
    /// own limit), "vLLM rejects this scenario" for vLLM's (and argparse's) exceptions.
    pub fn heading(self) -> &'static str {
        match self {
            ScenarioErrorKind::InputError => QPATH_LIMIT,
            _ => "vLLM rejects this scenario",
        }
    }

    /// The message under [`ScenarioErrorKind::heading`]: vLLM's exception as `Type: message`; qpath's own limit without
    /// a type, and without the "qpath cannot model this: " the message may carry (the heading says it).
    pub fn body(self, message: &str) -> String {
        match self {
            ScenarioErrorKind::InputError => message.replacen(&format!("{QPATH_LIMIT}: "), "", 1),
            // A bare `assert` raises without a message; Python prints the type alone.
            _ if message.is_empty() => self.name().to_string(),
            _ => format!("{}: {message}", self.name()),
        }
    }
}

/// What qpath shows for the text of an `assert` that has no message (Python prints the type alone).
pub const BARE_ASSERT: &str = "(a bare assert, no message)";

/// The words of every limit that is qpath's, not vLLM's.
pub const QPATH_LIMIT: &str = "qpath cannot model this";

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
    /// torch's own, when FlashInfer looks a dtype given as a string up on `torch` (`getattr(torch, "nvfp4")`).
    AttributeError,
}

impl GroupErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            GroupErrorKind::ValueError => "ValueError",
            GroupErrorKind::AssertionError => "AssertionError",
            GroupErrorKind::NotImplementedError => "NotImplementedError",
            GroupErrorKind::RuntimeError => "RuntimeError",
            GroupErrorKind::AttributeError => "AttributeError",
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

/// Where in the engine's life an error fires: the statement's stage, in vLLM's order (`__init__` at engine start; a
/// batch's `build()`, then each phase's wrapper `plan()` (which generates and compiles the JIT module), then
/// `FlashInferImpl.forward()`, where the wrappers' `run()` and the TRTLLM / XQA calls execute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The memory profile's forward pass at engine start (`profile_run`): the attention layer runs, with no attention
    /// metadata yet, before any metadata builder exists.
    ProfileRun,
    /// `FlashInferMetadataBuilder.__init__` (or the attention layer's / another backend's init): engine start-up.
    Init,
    /// `FlashInferMetadataBuilder.build()`: the first batch, before any wrapper is planned.
    Build,
    /// The prefill wrapper's `plan()`.
    PrefillPlan,
    /// FlashInfer's JIT module generation or compilation for the prefill kernel (inside the prefill wrapper's `plan()`).
    PrefillJit,
    /// `FlashInferImpl.forward()` on the prefill tokens (the wrapper's `run()`, or the trtllm-gen context call).
    PrefillForward,
    /// The decode wrapper's `plan()` (the TRTLLM-API decode has none).
    DecodePlan,
    /// FlashInfer's JIT module generation or compilation for the decode kernel (in the decode wrapper's `plan()`; for
    /// XQA at its first call, in `forward()`).
    DecodeJit,
    /// `FlashInferImpl.forward()` on the decode tokens (the wrapper's `run()`, or the XQA / trtllm-gen decode call).
    DecodeForward,
}

impl Stage {
    pub const ALL: [Stage; 9] = [
        Stage::ProfileRun,
        Stage::Init,
        Stage::Build,
        Stage::PrefillPlan,
        Stage::PrefillJit,
        Stage::PrefillForward,
        Stage::DecodePlan,
        Stage::DecodeJit,
        Stage::DecodeForward,
    ];

    /// When in the engine's life the error fires, as the page says it ("on the first prefill").
    pub fn when(self) -> &'static str {
        match self {
            Stage::ProfileRun | Stage::Init => "at engine start",
            Stage::Build => "on the first batch",
            Stage::PrefillPlan | Stage::PrefillJit | Stage::PrefillForward => "on the first prefill",
            Stage::DecodePlan | Stage::DecodeJit | Stage::DecodeForward => "on the first decode",
        }
    }

    /// The step that raises at that stage ("plan", "JIT", "forward").
    pub fn call(self) -> &'static str {
        match self {
            Stage::ProfileRun => "the memory profile's forward",
            Stage::Init => "__init__",
            Stage::Build => "FlashInferMetadataBuilder.build",
            Stage::PrefillPlan | Stage::DecodePlan => "the wrapper's plan()",
            Stage::PrefillJit | Stage::DecodeJit => "FlashInfer JIT module",
            Stage::PrefillForward | Stage::DecodeForward => "FlashInferImpl.forward",
        }
    }

    /// The JSON string (`prefill_plan`), for the renderers.
    pub fn name(self) -> &'static str {
        match self {
            Stage::ProfileRun => "profile_run",
            Stage::Init => "init",
            Stage::Build => "build",
            Stage::PrefillPlan => "prefill_plan",
            Stage::PrefillJit => "prefill_jit",
            Stage::PrefillForward => "prefill_forward",
            Stage::DecodePlan => "decode_plan",
            Stage::DecodeJit => "decode_jit",
            Stage::DecodeForward => "decode_forward",
        }
    }

    /// The phase whose path raises (`None` for init and build, which stop both).
    pub fn is_prefill(self) -> Option<bool> {
        match self {
            Stage::ProfileRun | Stage::Init | Stage::Build => None,
            Stage::PrefillPlan | Stage::PrefillJit | Stage::PrefillForward => Some(true),
            Stage::DecodePlan | Stage::DecodeJit | Stage::DecodeForward => Some(false),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupError {
    #[serde(rename = "type")]
    pub kind: GroupErrorKind,
    pub message: String,
    pub stage: Stage,
    /// `file:line` of the raising statement (`raise` / `assert`) in that release (vLLM or the installed FlashInfer).
    pub source: Option<String>,
    /// The call that reaches the raising statement, as a traceback shows it (e.g. `BatchPrefillWithPagedKVCacheWrapper.plan
    /// → gen_batch_prefill_module`).
    pub raised_in: String,
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
    /// The error that fires first in vLLM's real order (see the trace's "first error" step): an `__init__` / `build()`
    /// error, else the first of `phase_errors` in the order the engine reaches them.
    pub error: Option<GroupError>,
    /// Each phase's own first error (its wrapper's plan, JIT module, forward), as if the other phase did not raise;
    /// `null` for a phase that runs, and for both when `__init__` or `build()` raises first.
    pub phase_errors: Phases<Option<GroupError>>,
    pub warnings: Vec<String>,
    pub logs: Vec<String>,
    pub trace: Vec<TraceStep>,
    /// `logs` as vLLM's logger prints them (see [`Report::log_records`]).
    pub log_records: Vec<LogRecord>,
    /// Whose layers these are: the served model's (`target`) or the speculative-decoding drafter's (`drafter`).
    pub role: GroupRole,
    /// The CUDA-graph support this group's builder declares in the release (`AttentionCGSupport`); the runner takes
    /// the minimum over all groups ([`Report::cuda_graphs`]).
    pub cudagraph_support: Option<crate::cudagraph::CgSupport>,
}

/// Whose layers a group holds, serialised `target` / `drafter`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupRole {
    /// The served model's layers.
    #[default]
    Target,
    /// The speculative-decoding drafter's layers (an MTP layer, an EAGLE head, a draft model), which vLLM builds with
    /// the drafter's own `VllmConfig` (`docs/source-notes/spec-decode.md`).
    Drafter,
}

impl GroupRole {
    pub fn name(self) -> &'static str {
        match self {
            GroupRole::Target => "target",
            GroupRole::Drafter => "drafter",
        }
    }
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
            GroupErrorKind::AttributeError,
        ] {
            assert_eq!(json(&k), format!("\"{k}\""));
        }
        for s in Stage::ALL {
            assert_eq!(json(&s), format!("\"{}\"", s.name()));
        }
        for k in [GroupRole::Target, GroupRole::Drafter] {
            assert_eq!(json(&k), format!("\"{}\"", k.name()));
        }
        for k in [Kernel::TrtllmGen, Kernel::Xqa, Kernel::Fa3, Kernel::Fa2] {
            assert_eq!(json(&k), format!("\"{}\"", k.name()));
        }
    }

    fn json<T: Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap()
    }
}
