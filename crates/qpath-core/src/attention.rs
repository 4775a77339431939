//! The shared vocabulary of the core, at the bottom of its imports: the attention backends vLLM names, the two phases
//! of a batch, the stages where an error fires, the kernels a phase runs, the exception types, CUDA-graph support,
//! whose layers a group holds, and the words of qpath's own limits. Every other module may import this one; it
//! imports nothing of the crate.

use serde::Serialize;

/// An attention backend as `AttentionBackendEnum` names it (the JSON's `backend`, e.g. `"FLASHINFER"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Backend {
    #[serde(rename = "FLASH_ATTN")]
    FlashAttn,
    #[serde(rename = "FLASHINFER")]
    FlashInfer,
    #[serde(rename = "TRITON_ATTN")]
    TritonAttn,
    #[serde(rename = "FLEX_ATTENTION")]
    FlexAttention,
    #[serde(rename = "TURBOQUANT")]
    TurboQuant,
    /// The recurrent-state backends of hybrid models' linear-attention / Mamba layers, as
    /// `MambaAttentionBackendEnum` (`vllm/v1/attention/backends/registry.py`) names them. A layer's `mamba_type`
    /// property picks one; `--attention-backend` never applies to them.
    #[serde(rename = "GDN_ATTN")]
    GdnAttn,
    #[serde(rename = "MAMBA2")]
    Mamba2,
    #[serde(rename = "MAMBA1")]
    Mamba1,
    #[serde(rename = "LINEAR")]
    Linear,
    #[serde(rename = "SHORT_CONV")]
    ShortConv,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::FlashAttn => "FLASH_ATTN",
            Backend::FlashInfer => "FLASHINFER",
            Backend::TritonAttn => "TRITON_ATTN",
            Backend::FlexAttention => "FLEX_ATTENTION",
            Backend::TurboQuant => "TURBOQUANT",
            Backend::GdnAttn => "GDN_ATTN",
            Backend::Mamba2 => "MAMBA2",
            Backend::Mamba1 => "MAMBA1",
            Backend::Linear => "LINEAR",
            Backend::ShortConv => "SHORT_CONV",
        }
    }

    /// Every backend qpath names: the attention backends ([`Backend::ATTENTION`]), then the recurrent-state ones.
    pub const ALL: [Backend; 10] = [
        Backend::FlashAttn,
        Backend::FlashInfer,
        Backend::TritonAttn,
        Backend::FlexAttention,
        Backend::TurboQuant,
        Backend::GdnAttn,
        Backend::Mamba2,
        Backend::Mamba1,
        Backend::Linear,
        Backend::ShortConv,
    ];

    /// The attention backends qpath models (`AttentionBackendEnum` names; what `--attention-backend` may name).
    pub const ATTENTION: [Backend; 5] = [
        Backend::FlashAttn,
        Backend::FlashInfer,
        Backend::TritonAttn,
        Backend::FlexAttention,
        Backend::TurboQuant,
    ];

    /// A `MambaAttentionBackendEnum` member: the backend of a recurrent (linear-attention / Mamba) layer.
    pub fn is_recurrent(self) -> bool {
        !Backend::ATTENTION.contains(&self)
    }

    /// An attention backend by its `AttentionBackendEnum` name (the recurrent ones are not: vLLM's
    /// `--attention-backend` does not name them).
    pub fn parse(s: &str) -> Option<Backend> {
        Backend::ATTENTION
            .into_iter()
            .find(|b| b.name().eq_ignore_ascii_case(s.trim()))
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What qpath shows for the text of an `assert` that has no message (Python prints the type alone).
pub const BARE_ASSERT: &str = "(a bare assert, no message)";

/// The words of every limit that is qpath's, not vLLM's.
pub const QPATH_LIMIT: &str = "qpath cannot model this";

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

/// `AttentionCGSupport` (`vllm/v1/attention/backend.py`, a plain `Enum`): the widest batches a backend's attention
/// may be captured in a full CUDA graph for. Ordered as its values (`NEVER` = 0 … `ALWAYS` = 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum CgSupport {
    #[serde(rename = "NEVER")]
    Never,
    /// Batches of single-token decodes only.
    #[serde(rename = "UNIFORM_SINGLE_TOKEN_DECODE")]
    UniformSingleTokenDecode,
    /// Batches whose queries all have the same length (spec-decode verification: 1 + num_speculative_tokens).
    #[serde(rename = "UNIFORM_BATCH")]
    UniformBatch,
    /// Any batch, mixed prefills and decodes too.
    #[serde(rename = "ALWAYS")]
    Always,
}

impl CgSupport {
    pub const ALL: [CgSupport; 4] = [
        CgSupport::Never,
        CgSupport::UniformSingleTokenDecode,
        CgSupport::UniformBatch,
        CgSupport::Always,
    ];

    /// The member's name, the JSON string.
    pub fn name(self) -> &'static str {
        match self {
            CgSupport::Never => "NEVER",
            CgSupport::UniformSingleTokenDecode => "UNIFORM_SINGLE_TOKEN_DECODE",
            CgSupport::UniformBatch => "UNIFORM_BATCH",
            CgSupport::Always => "ALWAYS",
        }
    }
}

/// As Python's `str()` of the member prints it (`AttentionCGSupport.UNIFORM_BATCH`), which vLLM's messages embed.
impl std::fmt::Display for CgSupport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AttentionCGSupport.{}", self.name())
    }
}
