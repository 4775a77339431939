//! What a resolution produces: serde DTOs whose JSON is the CLI's `--format json` and the JS API's return value.
//! Keys may be added, never renamed; `tests/json_stable.rs` pins the JSON of thousands of scenarios byte for byte.
//! Every value the page or a script matches on is an enum here, serialised as the exact string the JSON has always had.

use serde::Serialize;
use std::borrow::Cow;

pub use crate::attention::{Backend, CgSupport, GroupErrorKind, GroupRole, Kernel, Phases, Stage, BARE_ASSERT, QPATH_LIMIT};
use crate::dtype::TorchDtype;
pub use crate::model::AttentionKind;
use crate::release::{FlashInfer, Release};
use crate::source::{Cite, SourceRef};

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
    /// Things qpath noticed about the input that vLLM accepts silently (a skip token matching no layer, …), and what
    /// qpath cannot model (each a [`Note`]; the JSON is its text).
    pub notes: Vec<Note>,
    /// Flags vLLM accepts that do not affect this decision.
    pub unused_flags: Vec<String>,
    /// `logs` as vLLM's logger prints them: each with its level and the `file:line` of its `logger.` call.
    pub log_records: Vec<LogRecord>,
    /// Speculative decoding (`--speculative-config`): the method vLLM settles on, the model runner, the drafter's
    /// backend and cache dtype, and why; `null` without it. The drafter's layers are the groups with `role: drafter`.
    pub speculative: Option<SpeculativeReport>,
    /// CUDA graphs: the `cudagraph_mode` the command line asks for, what the runner resolves it to once the groups'
    /// backends are known (their minimum support, speculative decoding), and vLLM's downgrade warnings; `null` when
    /// the scenario stops before.
    pub cuda_graphs: Option<CudaGraphReport>,
    /// The answer in one word ([`Verdict::of`]).
    pub verdict: Verdict,
}

/// One of the report's notes: its text (the JSON) and whether it says qpath cannot model part of the scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub text: String,
    pub kind: NoteKind,
}

/// What a note is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoteKind {
    /// Something vLLM accepts silently, or a caveat beside a complete answer.
    Info,
    /// A part of the scenario qpath cannot model (the answer leaves it out): the verdict is `cannot_model`.
    Limit,
}

impl Note {
    pub fn info(text: impl Into<String>) -> Self {
        Note {
            text: text.into(),
            kind: NoteKind::Info,
        }
    }

    pub fn limit(text: impl Into<String>) -> Self {
        Note {
            text: text.into(),
            kind: NoteKind::Limit,
        }
    }
}

/// A note reads as its text.
impl std::ops::Deref for Note {
    type Target = str;

    fn deref(&self) -> &str {
        &self.text
    }
}

impl PartialEq<&str> for Note {
    fn eq(&self, other: &&str) -> bool {
        self.text == *other
    }
}

impl Serialize for Note {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

/// A scenario's answer in one word (`Report.verdict`): what the CLI's exit code, `--check` and the matrix cells say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// vLLM starts and serves: no scenario error, no group error, nothing qpath cannot model.
    #[default]
    Serves,
    /// vLLM fails: the scenario's error, or a group's.
    Fails,
    /// qpath cannot model (part of) the scenario: an `InputError`, a group's `unmodelled`, a limit note.
    CannotModel,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Serves, Verdict::Fails, Verdict::CannotModel];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Serves => "serves",
            Verdict::Fails => "fails",
            Verdict::CannotModel => "cannot_model",
        }
    }

    /// A report's verdict: vLLM's error (the scenario's, else a group's) fails it; an `InputError`, a group qpath
    /// cannot model or a limit note makes it `CannotModel`; else it serves.
    pub fn of(r: &Report) -> Verdict {
        match &r.error {
            Some(e) if e.kind == ScenarioErrorKind::InputError => return Verdict::CannotModel,
            Some(_) => return Verdict::Fails,
            None => {}
        }
        if r.groups.iter().any(|g| g.error.is_some()) {
            return Verdict::Fails;
        }
        let limited = r.notes.iter().any(|n| n.kind == NoteKind::Limit);
        if limited || r.groups.iter().any(|g| g.unmodelled.is_some()) {
            return Verdict::CannotModel;
        }
        Verdict::Serves
    }
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
    #[serde(rename = "ERROR")]
    Error,
}

impl LogLevel {
    pub const ALL: [LogLevel; 4] = [LogLevel::Debug, LogLevel::Info, LogLevel::Warning, LogLevel::Error];

    /// The JSON string, as vLLM's log lines start with it.
    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Debug => "DEBUG",
            LogLevel::Info => "INFO",
            LogLevel::Warning => "WARNING",
            LogLevel::Error => "ERROR",
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

impl ScenarioError {
    /// vLLM's text as the views print it under the error's heading: the message, [`BARE_ASSERT`] for an `assert`
    /// without one, and for qpath's own limit the message without the "qpath cannot model this: " its heading says.
    pub fn text(&self) -> String {
        match self.kind {
            ScenarioErrorKind::InputError => self.kind.body(&self.message),
            _ if self.message.is_empty() => BARE_ASSERT.to_string(),
            _ => self.message.clone(),
        }
    }
}

/// The JSON name of an attention kind (`full`, `sliding_window`), for the renderers.
pub fn attention_name(k: AttentionKind) -> &'static str {
    match k {
        AttentionKind::Full => "full",
        AttentionKind::SlidingWindow => "sliding_window",
        AttentionKind::LinearAttention => "linear_attention",
        AttentionKind::Mamba => "mamba",
        AttentionKind::Indexer => "indexer",
        AttentionKind::ChunkedLocal => "chunked_local",
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
    /// pydantic's `ValidationError` (`pydantic_core._pydantic_core.ValidationError`): a `ValueError` raised inside a
    /// pydantic config dataclass (`VllmConfig.__post_init__`, e.g. heads not divisible by the tensor-parallel size, or
    /// one of its `model_validator`s, e.g. an nvfp4 cache on an MLA model), which pydantic re-raises; the message is
    /// pydantic's text ("1 validation error for VllmConfig\n  Value error, …").
    ValidationError,
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
            ScenarioErrorKind::ValidationError => "ValidationError",
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
            // Python prints the exception's qualified name.
            ScenarioErrorKind::ValidationError => format!("pydantic_core._pydantic_core.ValidationError: {message}"),
            _ => format!("{}: {message}", self.name()),
        }
    }
}

impl std::fmt::Display for ScenarioErrorKind {
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

impl GroupError {
    /// vLLM's text as every view prints it: the message, or [`BARE_ASSERT`] for an `assert` without one.
    pub fn text(&self) -> &str {
        if self.message.is_empty() {
            BARE_ASSERT
        } else {
            &self.message
        }
    }

    /// When and where it fires, for every backend: the stage's moment and the call that raises (`on the first decode,
    /// in BatchDecodeWithPagedKVCacheWrapper.plan → …`); FlashInfer's JIT stages say so (only FlashInfer compiles a
    /// JIT module at a phase's first batch).
    pub fn when(&self) -> String {
        let jit = matches!(self.stage, Stage::PrefillJit | Stage::DecodeJit);
        format!(
            "{}, in {}{}",
            self.stage.when(),
            self.raised_in,
            if jit { " (FlashInfer's JIT module)" } else { "" }
        )
    }

    /// The error in one line for a table cell: `AssertionError on the first decode: fp8 tensor core …`.
    pub fn brief(&self) -> String {
        format!("{} {}: {}", self.kind, self.stage.when(), self.text())
    }

    /// The error in full: type, when and where ([`GroupError::when`]), vLLM's text and the raising line
    /// (`… [flashinfer/jit/attention/modules.py:1040]`).
    pub fn full(&self) -> String {
        let at = self.source.as_ref().map_or(String::new(), |s| format!(" [{s}]"));
        format!("{} {}: {}{at}", self.kind, self.when(), self.text())
    }
}

/// One decision step: what the code looked at, what it decided, and the line it restates. Its JSON is `rule`,
/// `outcome`, `source` (`file:line`; `null` for qpath's own bookkeeping: grouping, inputs) and `url` (the link),
/// the last two built from `at` only when serialised or asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceStep {
    /// What the step looked at; [`UNVERIFIED_RULE`] for an unverified prediction. Borrowed when the rule is a fixed
    /// text (most are), so a step allocates only for what it formats.
    pub rule: Cow<'static, str>,
    pub outcome: Cow<'static, str>,
    /// The cited line in this release ([`TraceStep::source`], [`TraceStep::url`]); `None` for qpath's own bookkeeping.
    pub at: Option<SourceRef>,
    /// The step predicts beyond what the Python source decides (derived, not run). Not in the JSON: there such a step
    /// is the one whose `rule` is [`UNVERIFIED_RULE`].
    pub unverified: bool,
}

impl TraceStep {
    /// A step that restates `at` (or qpath's own bookkeeping when `None`).
    pub fn new(rule: impl Into<Cow<'static, str>>, outcome: impl Into<Cow<'static, str>>, at: Option<SourceRef>) -> Self {
        TraceStep {
            rule: rule.into(),
            outcome: outcome.into(),
            at,
            unverified: false,
        }
    }

    /// `file:line` of the cited line in this release (the JSON's `source`).
    pub fn source(&self) -> Option<String> {
        self.at.map(|s| s.short())
    }

    /// The link to the cited line at its release's tag (the JSON's `url`).
    pub fn url(&self) -> Option<String> {
        self.at.map(|s| s.url())
    }
}

impl Serialize for TraceStep {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("TraceStep", 4)?;
        st.serialize_field("rule", &self.rule)?;
        st.serialize_field("outcome", &self.outcome)?;
        st.serialize_field("source", &self.source())?;
        st.serialize_field("url", &self.at)?;
        st.end()
    }
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
    /// The query's dtype as each phase's kernel receives it (after the attention layer's quantization); `null` where
    /// the code raised before computing it, or where qpath cannot model it (`unmodelled` says why).
    pub q_dtype: Phases<Option<TorchDtype>>,
    /// The kernel each phase runs for the first batch qpath models (a decode: one token per request; a prefill of 512
    /// tokens); `kernels` lists every kernel a phase can run and when.
    pub kernel: Phases<Option<Kernel>>,
    /// Every kernel each phase can run, in the order the code tries them, each with its condition where the backend
    /// decides per batch (Triton's 2D / 3D grids, a composite's routing); the first is `kernel`'s.
    pub kernels: Phases<Vec<KernelChoice>>,
    /// How the attention layer quantizes the query (`query_quant`), when `q_dtype` is an FP8 dtype: its scale and
    /// where the scale comes from.
    pub query_quant: Option<QueryQuant>,
    /// What qpath cannot model about this group ("qpath cannot model this: …"): the fields it leaves `null`. Every
    /// group that runs has a query dtype and a kernel per phase unless this says why not.
    pub unmodelled: Option<String>,
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
    pub cudagraph_support: Option<CgSupport>,
    /// An MLA group's dims (`kv_lora_rank`, `qk_rope_head_dim` …; `head_dim` is their head size); `null` otherwise.
    pub mla: Option<crate::model::MlaDims>,
}

impl GroupReport {
    /// A target group before its backend's rules run: layers, kind, backend, cache dtype and the steps so far; no
    /// heads, no outcome. Each builder sets the rest it knows with struct-update syntax (of `Copy` fields only, so
    /// nothing is built to be dropped).
    pub fn unresolved(
        layers: Vec<u32>,
        attention: AttentionKind,
        backend: Backend,
        cache_dtype: String,
        trace: Vec<TraceStep>,
    ) -> Self {
        GroupReport {
            layers,
            attention,
            sliding_window: None,
            head_dim: 0,
            num_q_heads: 0,
            num_kv_heads: 0,
            has_sinks: false,
            backend,
            cache_dtype,
            q_dtype: Phases::default(),
            kernel: Phases::default(),
            error: None,
            phase_errors: Phases::default(),
            warnings: vec![],
            logs: vec![],
            log_records: vec![],
            trace,
            role: GroupRole::Target,
            cudagraph_support: None,
            kernels: Phases::default(),
            query_quant: None,
            unmodelled: None,
            mla: None,
        }
    }
}

/// The texts every view prints for a group (the CLI's table, Markdown, the page's cards and compare view).
impl GroupReport {
    /// The kernels a phase can run: `kernels`, or the first batch's `kernel` alone where `kernels` is empty.
    pub fn kernel_choices(&self, is_prefill: bool) -> Vec<KernelChoice> {
        let (all, first) = if is_prefill {
            (&self.kernels.prefill, self.kernel.prefill)
        } else {
            (&self.kernels.decode, self.kernel.decode)
        };
        if all.is_empty() {
            first.map(KernelChoice::always).into_iter().collect()
        } else {
            all.clone()
        }
    }

    /// The distinct kernel names of a phase, in the order the code tries them (a kernel listed under two conditions,
    /// e.g. a sparse MLA backend's top-k kernel for short and for long prefills, once).
    pub fn distinct_kernel_names(&self, is_prefill: bool) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = Vec::new();
        for c in self.kernel_choices(is_prefill) {
            if !names.contains(&c.kernel.name()) {
                names.push(c.kernel.name());
            }
        }
        names
    }

    /// The kernel names of a phase for a table cell (`triton-unified-3d or triton-unified-2d`), `—` when none.
    pub fn kernel_names(&self, is_prefill: bool) -> String {
        let names = self.distinct_kernel_names(is_prefill);
        if names.is_empty() {
            "—".to_string()
        } else {
            names.join(" or ")
        }
    }

    /// A phase's kernels with their conditions (`triton-unified-3d (decode-only batches of ≤ 16 requests), else
    /// triton-unified-2d`), `—` when none. A kernel listed under several conditions in a row is named once, with
    /// its conditions joined by "or" (a sparse MLA backend's top-k kernel for short and for long prefills).
    pub fn kernels_text(&self, is_prefill: bool) -> String {
        let choices = self.kernel_choices(is_prefill);
        if choices.is_empty() {
            return "—".to_string();
        }
        // Consecutive conditional choices of one kernel share its name: "k (a, or b)".
        let joins = |a: &KernelChoice, b: &KernelChoice| a.kernel == b.kernel && a.when.is_some() && b.when.is_some();
        let mut out = String::new();
        for (i, c) in choices.iter().enumerate() {
            if i > 0 && joins(&choices[i - 1], c) {
                out.push_str(", or ");
            } else {
                if i > 0 {
                    out.push_str(", else ");
                }
                out.push_str(c.kernel.name());
                if c.when.is_some() {
                    out.push_str(" (");
                }
            }
            if let Some(w) = &c.when {
                out.push_str(w);
                if !choices.get(i + 1).is_some_and(|n| joins(c, n)) {
                    out.push(')');
                }
            }
        }
        out
    }

    /// Whether a phase's kernel depends on the batch (several kernels, or one with a condition).
    pub fn kernel_varies(&self, is_prefill: bool) -> bool {
        let choices = self.kernel_choices(is_prefill);
        choices.len() > 1 || choices.iter().any(|c| c.when.is_some())
    }

    /// The error a phase meets: the group's profile-run / `__init__` / `build()` error (which stops both phases), else
    /// the phase's own first error.
    pub fn phase_error(&self, is_prefill: bool) -> Option<&GroupError> {
        let shared = self.error.as_ref().filter(|e| e.stage.is_prefill().is_none());
        let own = if is_prefill {
            &self.phase_errors.prefill
        } else {
            &self.phase_errors.decode
        };
        shared.or(own.as_ref())
    }

    /// A phase's outcome in one line: the error it meets ([`GroupError::brief`]), else the kernels it runs (`runs
    /// fa3-varlen-aot`), else what qpath cannot model.
    pub fn phase_outcome(&self, is_prefill: bool) -> String {
        if let Some(e) = self.phase_error(is_prefill) {
            return e.brief();
        }
        if !self.kernel_choices(is_prefill).is_empty() {
            return format!("runs {}", self.kernel_names(is_prefill));
        }
        match &self.unmodelled {
            Some(why) => why.clone(),
            None => self.no_kernel_words(),
        }
    }

    /// The group's outcome in one line: the first error ([`GroupError::brief`]), what qpath cannot model, or `ok`.
    pub fn outcome(&self) -> String {
        if let Some(e) = &self.error {
            return e.brief();
        }
        if let Some(why) = &self.unmodelled {
            return why.clone();
        }
        if self.kernel_choices(true).is_empty() && self.kernel_choices(false).is_empty() {
            return self.no_kernel_words();
        }
        "ok".to_string()
    }

    /// The attention column of the renderings: `full`, `sliding_window`, …; an MLA group's `MLA` or `sparse MLA`
    /// (its JSON `attention` stays `full`).
    pub fn attention_text(&self) -> &'static str {
        match &self.mla {
            Some(m) if m.index_topk.is_some() => "sparse MLA",
            Some(_) => "MLA",
            None => attention_name(self.attention),
        }
    }

    /// An MLA group's dims in one line: the latent cache (`kv_lora_rank 512 + qk_rope_head_dim 64 = head size 576`,
    /// one latent KV head), the query / value head dims, `q_lora_rank`, and a sparse model's `index_topk`; `None` for
    /// standard attention.
    pub fn mla_text(&self) -> Option<String> {
        let m = self.mla.as_ref()?;
        let q_lora = m
            .q_lora_rank
            .map_or("no q_lora_rank (full-rank query projection)".to_string(), |q| {
                format!("q_lora_rank {q}")
            });
        let sparse = m
            .index_topk
            .map_or(String::new(), |k| format!("; sparse: index_topk {k} tokens per query"));
        Some(format!(
            "latent cache kv_lora_rank {} + qk_rope_head_dim {} = head size {} (one latent KV head, kv_c ‖ k_pe); \
             qk_nope_head_dim {}, v_head_dim {}, {q_lora}{sparse}",
            m.kv_lora_rank,
            m.qk_rope_head_dim,
            m.kv_lora_rank + m.qk_rope_head_dim,
            m.qk_nope_head_dim,
            m.v_head_dim
        ))
    }

    /// Who runs kernel `k` of this group: for an MLA group, the MLA prefill backend a prefill kernel belongs to
    /// (`MLA prefill backend FLASH_ATTN`: the one `MLAAttention.__init__` selects apart from the decode backend, for
    /// the rows `forward_mha` takes), else the group's backend.
    pub fn kernel_runner(&self, k: Kernel) -> String {
        match (self.mla.is_some(), mla_prefill_backend(k)) {
            (true, Some(b)) => format!("MLA prefill backend {b}"),
            _ => self.backend.name().to_string(),
        }
    }

    /// A phase's kernels with their conditions ([`GroupReport::kernels_text`]) and, for an MLA group, who runs them
    /// (`fa4-varlen on MLA prefill backend FLASH_ATTN`; several runners joined by `or`), as compare's cells say it.
    pub fn kernels_runners_text(&self, is_prefill: bool) -> String {
        let text = self.kernels_text(is_prefill);
        if self.mla.is_none() || self.kernel_choices(is_prefill).is_empty() {
            return text;
        }
        let mut runners: Vec<String> = Vec::new();
        for c in self.kernel_choices(is_prefill) {
            let who = self.kernel_runner(c.kernel);
            if !runners.contains(&who) {
                runners.push(who);
            }
        }
        format!("{text} on {}", runners.join(" or "))
    }

    /// An MLA group's phases by who runs them: `prefill on MLA prefill backend FLASH_ATTN (fa4-varlen); decode on
    /// FLASHINFER_MLA (trtllm-gen-mla)` (a phase whose kernels several run lists each with its kernels, in the order
    /// the code tries them); `None` for standard attention or an MLA group without kernels.
    pub fn mla_phases_text(&self) -> Option<String> {
        self.mla.as_ref()?;
        let phase = |is_prefill: bool| -> Option<String> {
            let mut runners: Vec<(String, Vec<&'static str>)> = Vec::new();
            for c in self.kernel_choices(is_prefill) {
                let who = self.kernel_runner(c.kernel);
                match runners.iter_mut().find(|(w, _)| *w == who) {
                    Some((_, ks)) if ks.contains(&c.kernel.name()) => {}
                    Some((_, ks)) => ks.push(c.kernel.name()),
                    None => runners.push((who, vec![c.kernel.name()])),
                }
            }
            let parts: Vec<String> = runners.iter().map(|(who, ks)| format!("{who} ({})", ks.join(", "))).collect();
            (!parts.is_empty()).then(|| format!("{} on {}", if is_prefill { "prefill" } else { "decode" }, parts.join(" or ")))
        };
        let parts: Vec<String> = [phase(true), phase(false)].into_iter().flatten().collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// A group without a kernel, an error or a limit: a recurrent group's state, or a dash.
    fn no_kernel_words(&self) -> String {
        if self.backend.is_recurrent() {
            format!("recurrent state on {}, no KV cache", self.backend)
        } else {
            "—".to_string()
        }
    }
}

/// The MLA prefill backend (`MLAPrefillBackendEnum`) whose kernel `k` is: FLASH_ATTN's `flash_attn_varlen_func`,
/// TRTLLM_RAGGED's, FLASHINFER's ragged wrapper, TOKENSPEED_MLA's prefill; `None` for a kernel the group's own backend
/// runs (its decode kernels, a sparse backend's prefill rows and FA4 masked MHA).
pub fn mla_prefill_backend(k: Kernel) -> Option<&'static str> {
    match k {
        Kernel::FaVarlen2 | Kernel::FaVarlen3 | Kernel::FaVarlen3Aot | Kernel::FaVarlen4 => Some("FLASH_ATTN"),
        Kernel::TrtllmRaggedDeepseek => Some("TRTLLM_RAGGED"),
        Kernel::FlashInferRaggedCutlass => Some("FLASHINFER"),
        Kernel::TokenspeedMlaPrefill => Some("TOKENSPEED_MLA"),
        _ => None,
    }
}

/// One kernel a phase can run, and when (`null`: every batch of the phase).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelChoice {
    pub kernel: Kernel,
    pub when: Option<String>,
}

impl KernelChoice {
    /// The kernel every batch of the phase runs.
    pub fn always(kernel: Kernel) -> Self {
        KernelChoice { kernel, when: None }
    }

    /// The kernel the batches that meet `when` run.
    pub fn when(kernel: Kernel, when: impl Into<String>) -> Self {
        KernelChoice {
            kernel,
            when: Some(when.into()),
        }
    }
}

/// The attention layer's query quantization (`Attention.__init__` builds `QuantFP8(static=True, …)` when the backend's
/// impl takes a quantized query and the layer's cache is FP8): static, per tensor or per KV head, with the layer's
/// `_q_scale`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryQuant {
    /// `per_tensor`, or `per_kv_head` (a compressed-tensors `attn_head` checkpoint).
    pub granularity: String,
    /// The value of `_q_scale` the kernel's `q_descale` receives, as far as qpath knows it (`1.0`, or `checkpoint`).
    pub q_scale: String,
    /// Why: which weight-loading path sets it (and vLLM's warning, when it logs one).
    pub why: String,
}

impl QueryQuant {
    /// `per tensor` / `per KV head` (`granularity` as words).
    pub fn granularity_words(&self) -> &str {
        match self.granularity.as_str() {
            "per_tensor" => "per tensor",
            "per_kv_head" => "per KV head",
            other => other,
        }
    }

    /// `static FP8 per tensor, q_scale 1.0`: how the attention layer quantizes the query, and its scale.
    pub fn brief(&self) -> String {
        format!("static FP8 {}, q_scale {}", self.granularity_words(), self.q_scale)
    }

    /// [`QueryQuant::brief`] and why (`…: no quantization_config: …`).
    pub fn text(&self) -> String {
        format!("{}: {}", self.brief(), self.why)
    }
}

/// The model runner that serves the scenario, serialised `v1` / `v2`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelRunner {
    V1,
    V2,
}

/// What the report says about speculative decoding (`Report::speculative`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpeculativeReport {
    /// The method after vLLM's inference (`draft_model` for a model without a method, `mtp` for a deprecated MTP
    /// name, `eagle3` for a model id containing "eagle3", …).
    pub method: String,
    pub num_speculative_tokens: Option<u32>,
    /// The drafter's model id (the target's own for MTP); `null` for methods without a model.
    pub model: Option<String>,
    pub runner: ModelRunner,
    /// The drafter has attention layers (an MTP layer, an EAGLE head, a draft model). False for n-gram, suffix,
    /// Medusa, MLP speculators and hidden-state extraction, which add no attention group.
    pub attention_layers: bool,
    /// The backend the drafter's layers are built under: a name, or `auto` (selected by priority, like an unforced
    /// target).
    pub backend: String,
    /// The drafter's cache dtype (`--kv-cache-dtype`, or the speculative config's `kv_cache_dtype`).
    pub kv_cache_dtype: String,
    pub trace: Vec<TraceStep>,
    pub log_records: Vec<LogRecord>,
}

/// What the runner resolves `cudagraph_mode` to once the attention backends are known.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CudaGraphReport {
    /// The mode before the backend downgrades (`p.graphs.mode`).
    pub requested: String,
    /// What set it (`p.graphs.set_by`).
    pub set_by: String,
    /// The resolved `cudagraph_mode` (the requested one when `error` is set: vLLM stops there).
    pub mode: String,
    /// The minimum over the groups; `None` without groups (vLLM then keeps `ALWAYS`).
    pub support: Option<CgSupport>,
    /// The class of the first group with that minimum; `None` when the minimum is `ALWAYS` (vLLM's
    /// `min_cg_attn_backend` stays `None`: it takes a backend only below `ALWAYS`).
    pub min_backend: Option<String>,
    /// Each group's support, in the order of the groups given (vLLM asks every group's builder class).
    pub group_support: Vec<Option<CgSupport>>,
    /// The `ValueError` vLLM raises at engine start (in `initialize_kv_cache`, before any forward), or `None`.
    pub error: Option<ScenarioError>,
    /// The downgrade warnings, each with the line of its `logger.warning(` call.
    pub log_records: Vec<LogRecord>,
    pub trace: Vec<TraceStep>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel listed under conditions in a row is named once with them joined; a kernel that returns after another
    /// is named again (the order of the "else" chain is kept), and an unconditional one has no parentheses.
    #[test]
    fn kernels_text_names_a_kernel_once_per_run_of_conditions() {
        let choice = |kernel, when: Option<&str>| KernelChoice {
            kernel,
            when: when.map(str::to_string),
        };
        let mut g = GroupReport::unresolved(
            vec![0],
            AttentionKind::Full,
            Backend::FlashInferMlaSparseSm120,
            "auto".into(),
            vec![],
        );
        g.kernels.prefill = vec![
            choice(Kernel::FlashInferMlaSparseSm120, Some("short prefills")),
            choice(Kernel::FlashInferMlaSparseSm120, Some("long prefills")),
        ];
        assert_eq!(
            g.kernels_text(true),
            "flashinfer-mla-sparse-sm120 (short prefills, or long prefills)"
        );
        g.kernels.decode = vec![
            choice(Kernel::TritonUnified3d, Some("small decode batches")),
            choice(Kernel::TritonUnified2d, Some("mixed batches")),
            choice(Kernel::TritonUnified3d, None),
        ];
        assert_eq!(
            g.kernels_text(false),
            "triton-unified-3d (small decode batches), else triton-unified-2d (mixed batches), else triton-unified-3d"
        );
    }

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
