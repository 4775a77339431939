//! What each MLA backend's impl and metadata builder decide, per release (`v1/attention/backends/mla/*.py`;
//! `docs/source-notes/mla-path.md` §3–§5): whether the impl takes the layer's FP8 query (`supports_quant_query_input`),
//! its `__init__` raises, whether it returns the decode LSE (DCP), the builder's decode/prefill split
//! (`reorder_batch_threshold`) and its `__init__` raises, and the kernels of the absorbed (MQA) path — the decode
//! kernel, and for a sparse backend the kernel its top-k MQA path runs for prefill rows — with their forward-time
//! errors and log lines.

use crate::attention::{Backend, GroupErrorKind, Kernel, Phases, Stage, BARE_ASSERT, QPATH_LIMIT};
use crate::backends::Raise;
use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::release::FlashInfer;
use crate::release::Release::{self, *};
use crate::report::{GroupError, KernelChoice};
use crate::source::{self, Cite};
use crate::trace::Trace;

/// The MLA backends as this module and [`super::path`] match on them (one `match` on [`Backend`] maps them, so a new
/// MLA backend is named there and, through the exhaustive matches on `Kind`, everywhere its rules differ).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    FlashMla,
    FlashMlaSparse,
    CutlassMla,
    FlashInferMla,
    FlashInferMlaSparse,
    FlashInferMlaSparseSm120,
    FlashInferMlaSparseSm90,
    TritonMla,
    FlashAttnMla,
    FlashAttnMlaSparse,
    FlashAttnMlaSparseFa4,
    TokenspeedMla,
}

/// The MLA backend `b` is (`None`: not an MLA backend).
pub(super) fn kind(b: Backend) -> Option<Kind> {
    Some(match b {
        Backend::FlashMla => Kind::FlashMla,
        Backend::FlashMlaSparse => Kind::FlashMlaSparse,
        Backend::CutlassMla => Kind::CutlassMla,
        Backend::FlashInferMla => Kind::FlashInferMla,
        Backend::FlashInferMlaSparse => Kind::FlashInferMlaSparse,
        Backend::FlashInferMlaSparseSm120 => Kind::FlashInferMlaSparseSm120,
        Backend::FlashInferMlaSparseSm90 => Kind::FlashInferMlaSparseSm90,
        Backend::TritonMla => Kind::TritonMla,
        Backend::FlashAttnMla => Kind::FlashAttnMla,
        Backend::FlashAttnMlaSparse => Kind::FlashAttnMlaSparse,
        Backend::FlashAttnMlaSparseFa4 => Kind::FlashAttnMlaSparseFa4,
        Backend::TokenspeedMla => Kind::TokenspeedMla,
        Backend::FlashAttn
        | Backend::FlashInfer
        | Backend::TritonAttn
        | Backend::FlexAttention
        | Backend::TurboQuant
        | Backend::TritonFlashAttn
        | Backend::TritonFlashInfer
        | Backend::DeepseekV32Indexer
        | Backend::GdnAttn
        | Backend::Mamba2
        | Backend::Mamba1
        | Backend::Linear
        | Backend::ShortConv => return None,
    })
}

/// The impl class's `__name__`, as vLLM's messages name it.
pub(super) fn impl_class(b: Kind) -> &'static str {
    match b {
        Kind::FlashMla => "FlashMLAImpl",
        Kind::FlashMlaSparse => "FlashMLASparseImpl",
        Kind::CutlassMla => "CutlassMLAImpl",
        Kind::FlashInferMla => "FlashInferMLAImpl",
        Kind::FlashInferMlaSparse => "FlashInferMLASparseImpl",
        Kind::FlashInferMlaSparseSm120 => "FlashInferMLASparseSM120Impl",
        Kind::FlashInferMlaSparseSm90 => "FlashInferMLASparseSM90Impl",
        Kind::TritonMla => "TritonMLAImpl",
        Kind::FlashAttnMla => "FlashAttnMLAImpl",
        Kind::FlashAttnMlaSparse => "FlashAttnMLASparseImpl",
        Kind::FlashAttnMlaSparseFa4 => "FlashAttnMLASparseFA4Impl",
        Kind::TokenspeedMla => "TokenspeedMLAImpl",
    }
}

/// `impl.supports_quant_query_input` once the impl's `__init__` ran, the statement that sets it, and why.
pub(super) fn takes_quant_query(b: Kind, r: Release, kv: &str) -> (bool, &'static Cite, &'static str) {
    let quantized = crate::backends::is_quantized_kv_cache(r, kv);
    match b {
        Kind::FlashMla | Kind::CutlassMla | Kind::FlashInferMla | Kind::FlashAttnMla | Kind::TokenspeedMla => (
            true,
            &source::MLA_PATH_IMPL_QQ_TRUE,
            "MLACommonImpl.__init__ sets supports_quant_query_input = True",
        ),
        Kind::TritonMla if quantized => (
            false,
            &source::MLA_PATH_TRITON_NO_QQ,
            "TritonMLAImpl turns supports_quant_query_input off for a quantized cache (it dequantizes the cache to \
             BF16 on load inside the kernel)",
        ),
        Kind::TritonMla => (
            true,
            &source::MLA_PATH_IMPL_QQ_TRUE,
            "MLACommonImpl.__init__ sets supports_quant_query_input = True (TritonMLAImpl turns it off only for a \
             quantized cache)",
        ),
        Kind::FlashInferMlaSparse | Kind::FlashAttnMlaSparseFa4 => (
            true,
            &source::MLA_PATH_FIMS_QQ,
            "FlashInferMLASparseImpl sets supports_quant_query_input = True (the TRTLLM-GEN sparse kernel wants the \
             query in the cache's dtype)",
        ),
        Kind::FlashInferMlaSparseSm120 => (
            false,
            &source::MLA_PATH_SM120_QQ_OFF,
            "FlashInferMLASparseSM120Impl sets supports_quant_query_input = False (its kernel takes a BF16 query)",
        ),
        Kind::FlashInferMlaSparseSm90 => (
            false,
            &source::MLA_PATH_SM90_QQ_OFF,
            "FlashInferMLASparseSM90Impl sets supports_quant_query_input = False (the cache is dequantized in the \
             kernel)",
        ),
        Kind::FlashAttnMlaSparse => (
            false,
            &source::MLA_PATH_FAMS_QQ_OFF,
            "FlashAttnMLASparseImpl sets supports_quant_query_input = False",
        ),
        Kind::FlashMlaSparse => (
            false,
            &source::MLA_PATH_FWD_Q_QUANT_IF,
            "FlashMLASparseImpl never sets supports_quant_query_input: the base class's False (the query is \
             concatenated into a BF16 buffer)",
        ),
    }
}

/// Whether the impl can return the decode LSE (`can_return_lse_for_decode`), which decode context parallelism needs.
pub(super) fn can_return_lse(b: Kind, r: Release) -> bool {
    match b {
        Kind::FlashMla | Kind::CutlassMla | Kind::TritonMla | Kind::FlashAttnMla => true,
        Kind::FlashInferMla | Kind::FlashInferMlaSparse | Kind::FlashAttnMlaSparseFa4 => r >= V0_25_0,
        Kind::TokenspeedMla => r >= V0_26_0,
        Kind::FlashMlaSparse => r >= V0_29_0,
        Kind::FlashInferMlaSparseSm120 | Kind::FlashInferMlaSparseSm90 | Kind::FlashAttnMlaSparse => false,
    }
}

/// An `__init__`-time raise of the impl (layer init, at model construction).
pub(super) fn impl_init(b: Kind, p: &Platform, device: &str, kv: &str, t: &mut Trace) -> Option<Raise> {
    let r = p.release;
    let quantized = crate::backends::is_quantized_kv_cache(r, kv);
    match b {
        Kind::TritonMla if r >= V0_26_0 => {
            let cap = format!("{}.{}", p.cc.major, p.cc.minor);
            if kv.starts_with("fp8") && p.cc.to_int() < 89 {
                let suggested = if p.cc.to_int() < 80 { "float16" } else { "bfloat16" };
                return Some(raise(
                    GroupErrorKind::ValueError,
                    format!(
                        "FP8 KV cache is not supported by the Triton MLA backend on {device} (compute capability \
                         {cap}); native FP8 (fp8e4nv) requires SM89+. Re-run with --kv-cache-dtype {suggested}."
                    ),
                    &source::MLA_PATH_TRITON_FP8_SM89_RAISE,
                    "TritonMLAImpl.__init__",
                ));
            }
            if kv == "bfloat16" && p.cc.to_int() < 80 {
                return Some(raise(
                    GroupErrorKind::ValueError,
                    format!(
                        "bfloat16 KV cache is not supported by the Triton MLA backend on {device} (compute capability \
                         {cap}); bfloat16 requires SM80+. Re-run with --kv-cache-dtype float16."
                    ),
                    &source::MLA_PATH_TRITON_BF16_SM80_RAISE,
                    "TritonMLAImpl.__init__",
                ));
            }
            t.step(
                Some(&source::MLA_PATH_TRITON_FP8_SM89_RAISE),
                "TritonMLAImpl.__init__",
                format!("cache {kv:?} on compute capability {cap}: no FP8-below-SM89 / BF16-below-SM80 refusal"),
            );
            None
        }
        Kind::TokenspeedMla if !quantized => Some(raise(
            GroupErrorKind::NotImplementedError,
            format!(
                "TokenspeedMLAImpl requires an FP8 KV cache (--kv-cache-dtype fp8 or fp8_e4m3); got \
                 kv_cache_dtype='{kv}'."
            ),
            &source::MLA_PATH_TS_FP8_CACHE_RAISE,
            "TokenspeedMLAImpl.__init__",
        )),
        Kind::FlashAttnMla if quantized => Some(raise(
            GroupErrorKind::NotImplementedError,
            "FlashAttnMLA V1 with FP8 KV cache not yet supported".into(),
            &source::MLA_PATH_FAMLA_FP8_RAISE,
            "FlashAttnMLAImpl.__init__",
        )),
        Kind::FlashInferMlaSparseSm120 if kv != "fp8_ds_mla" => Some(raise(
            GroupErrorKind::NotImplementedError,
            format!(
                "FLASHINFER_MLA_SPARSE_SM120 requires the packed fp8_ds_mla KV cache layout; got \
                 kv_cache_dtype='{kv}'."
            ),
            &source::MLA_PATH_SM120_DSMLA_RAISE,
            "FlashInferMLASparseSM120Impl.__init__",
        )),
        Kind::FlashMlaSparse if r >= V0_29_0 && p.dcp > 1 && !quantized => Some(raise(
            GroupErrorKind::NotImplementedError,
            "DCP for FlashMLA sparse requires an fp8_ds_mla kv-cache; the bf16 sparse path is not supported under DCP.".into(),
            &source::MLA_PATH_FMS_DCP_BF16_RAISE,
            "FlashMLASparseImpl.__init__",
        )),
        Kind::TritonMla
        | Kind::TokenspeedMla
        | Kind::FlashAttnMla
        | Kind::FlashInferMlaSparseSm120
        | Kind::FlashMlaSparse
        | Kind::FlashMla
        | Kind::CutlassMla
        | Kind::FlashInferMla
        | Kind::FlashInferMlaSparse
        | Kind::FlashInferMlaSparseSm90
        | Kind::FlashAttnMlaSparse
        | Kind::FlashAttnMlaSparseFa4 => None,
    }
}

fn raise(kind: GroupErrorKind, message: String, cite: &'static Cite, raised_in: &'static str) -> Raise {
    Raise {
        kind,
        message,
        cite,
        raised_in,
    }
}

/// The builder's decode/prefill split: `reorder_batch_threshold` before speculative decoding, and what
/// `_init_reorder_batch_threshold` is told.
pub(super) struct Split {
    /// Requests of at most this many query tokens are decodes (`None`: FLASHINFER_MLA_SPARSE 0.24.0–0.25.0, no split:
    /// every token takes the top-k MQA path anyway).
    pub threshold: Option<u32>,
    /// `supports_spec_as_decode` (`query_len_support != SINGLE_ONLY`).
    pub spec_as_decode: bool,
    /// `supports_dcp_with_varlen`: under DCP the threshold stays (else it drops to 1).
    pub dcp_varlen: bool,
    pub cite: &'static Cite,
    pub why: String,
}

/// The sparse backends' head-count tables (0.26.0+).
fn sparse_table(heads: u32, sm100: bool) -> u32 {
    if sm100 {
        match heads {
            8 | 16 | 32 => 128,
            64 => 256,
            _ => 1024,
        }
    } else {
        match heads {
            16 | 32 => 128,
            64 => 256,
            _ => 256,
        }
    }
}

/// `reorder_batch_threshold` per backend and release (`heads`: query heads per rank).
pub(super) fn split(b: Kind, p: &Platform, heads: u32) -> Split {
    let r = p.release;
    let s = |threshold: u32, spec: bool, dcp: bool, cite: &'static Cite, why: String| Split {
        threshold: Some(threshold),
        spec_as_decode: spec,
        dcp_varlen: dcp,
        cite,
        why,
    };
    match b {
        Kind::FlashMla => s(
            128,
            true,
            false,
            &source::MLA_PATH_FLASHMLA_REORDER,
            "FlashMLAMetadataBuilder.reorder_batch_threshold = 128 (small prefills take the decode path)".into(),
        ),
        Kind::FlashAttnMla => s(
            512,
            true,
            true,
            &source::MLA_PATH_FAMLA_REORDER,
            "FlashAttnMLAMetadataBuilder.reorder_batch_threshold = 512 (small prefills take the decode path); DCP \
             keeps it (cp_kv_cache_interleave_size 1)"
                .into(),
        ),
        Kind::FlashInferMla => s(
            1,
            true,
            r >= V0_29_0,
            &source::MLA_PATH_BUILDER_REORDER,
            "the common builder's threshold 1".into(),
        ),
        Kind::CutlassMla => s(
            1,
            false,
            false,
            &source::MLA_PATH_BUILDER_REORDER,
            "the common builder's threshold 1; query_len_support SINGLE_ONLY (a speculative verification is a prefill)".into(),
        ),
        Kind::TritonMla => s(
            1,
            r >= V0_31_0,
            false,
            &source::MLA_PATH_BUILDER_REORDER,
            if r >= V0_31_0 {
                "the common builder's threshold 1; query_len_support UNIFORM".into()
            } else {
                "the common builder's threshold 1; query_len_support SINGLE_ONLY (a speculative verification is a \
                 prefill)"
                    .into()
            },
        ),
        Kind::TokenspeedMla => s(
            1,
            true,
            r >= V0_26_0,
            &source::MLA_PATH_BUILDER_REORDER,
            "the common builder's threshold 1".into(),
        ),
        Kind::FlashMlaSparse if r < V0_26_0 => s(
            1,
            true,
            false,
            &source::MLA_PATH_FMS_REORDER,
            "FlashMLASparseMetadataBuilder: threshold 1".into(),
        ),
        Kind::FlashMlaSparse => {
            let sm100 = p.is_family(100);
            let t = sparse_table(heads, sm100);
            s(
                t,
                true,
                r >= V0_29_0,
                &source::MLA_PATH_FMS_REORDER,
                format!(
                    "FlashMLASparseMetadataBuilder's {} table at {heads} heads per rank: {t}",
                    if sm100 { "SM100-family" } else { "non-SM100" }
                ),
            )
        }
        Kind::FlashInferMlaSparse
        | Kind::FlashInferMlaSparseSm120
        | Kind::FlashInferMlaSparseSm90
        | Kind::FlashAttnMlaSparseFa4
            if r >= V0_26_0 =>
        {
            let t = sparse_table(heads, true);
            s(
                t,
                true,
                true,
                &source::MLA_PATH_FIMS_REORDER,
                format!("FlashInferMLASparseMetadataBuilder's table at {heads} heads per rank: {t}"),
            )
        }
        Kind::FlashAttnMlaSparse if r >= V0_26_0 => {
            let t = sparse_table(heads, false);
            s(
                t,
                true,
                false,
                &source::MLA_PATH_FAMS_REORDER,
                format!("FlashAttnMLASparseMetadataBuilder's table at {heads} heads per rank: {t}"),
            )
        }
        Kind::FlashAttnMlaSparse => s(
            1,
            true,
            false,
            &source::MLA_PATH_FAMS_REORDER,
            "FlashAttnMLASparseMetadataBuilder: threshold 1".into(),
        ),
        Kind::FlashInferMlaSparse
        | Kind::FlashInferMlaSparseSm120
        | Kind::FlashInferMlaSparseSm90
        | Kind::FlashAttnMlaSparseFa4 => Split {
            threshold: None,
            spec_as_decode: false,
            dcp_varlen: false,
            cite: &source::MLA_PATH_FIMS_CG,
            why: "FlashInferMLASparseMetadataBuilder sets no reorder_batch_threshold: no decode/prefill split (every \
                  token takes the top-k MQA path)"
                .into(),
        },
    }
}

/// A metadata builder's `__init__` raise (engine start, after the KV cache is allocated).
pub(super) fn builder_init(b: Kind, p: &Platform, heads: u32) -> Option<Raise> {
    if b != Kind::FlashMlaSparse || p.release < V0_29_0 || p.dcp <= 1 {
        return None;
    }
    if heads >= 32 {
        return Some(raise(
            GroupErrorKind::NotImplementedError,
            "DCP for FlashMLA sparse is only supported on the mixed-batch fp8 path (num_heads < 32); the separate \
             prefill/decode path returns the LSE for decode tokens only, while the DCP merge needs it for every token"
                .into(),
            &source::MLA_PATH_FMS_DCP_MIXED_RAISE,
            "FlashMLASparseMetadataBuilder.__init__",
        ));
    }
    let pad = |n: u32| if n <= 64 { 64 } else { 128 };
    let gathered = heads * p.dcp;
    if pad(heads) != pad(gathered) {
        return Some(raise(
            GroupErrorKind::NotImplementedError,
            format!(
                "DCP for FlashMLA sparse requires the local and DCP-gathered head counts to pad to the same fp8 \
                 decode kernel envelope; got {heads} local heads (pad to {}) vs {gathered} gathered heads (pad to {})",
                pad(heads),
                pad(gathered)
            ),
            &source::MLA_PATH_FMS_DCP_PAD_RAISE,
            "FlashMLASparseMetadataBuilder.__init__",
        ));
    }
    None
}

/// The kernels of the absorbed (MQA) path.
pub(super) struct Mqa {
    /// The decode kernels, the first batch's first.
    pub decode: Vec<KernelChoice>,
    /// What a sparse backend's top-k MQA path runs for prefill rows (`None` for a dense backend, whose short prefills
    /// run the decode kernel).
    pub prefill_rows: Option<Kernel>,
    /// Errors of the MQA path at the first decode / the first prefill that takes it.
    pub errors: Phases<Option<GroupError>>,
    pub unmodelled: Option<String>,
}

/// What the layer and the impl know when they pick the MQA kernel.
pub(super) struct MqaInputs<'a> {
    pub kv: &'a str,
    /// Query heads per rank.
    pub heads: u32,
    /// The impl's query dtype on the MQA path (FP8 when the layer quantizes it).
    pub q_dtype: TorchDtype,
    /// The layer's `_k_scale` comes from the checkpoint (a ModelOpt KV-cache method with calibrated scales).
    pub checkpoint_scales: bool,
}

fn forward_error(kind: GroupErrorKind, message: String, cite: &Cite, r: Release, stage: Stage, raised_in: String) -> GroupError {
    GroupError {
        kind,
        message,
        stage,
        source: cite.at(r).map(|s| s.short()),
        raised_in,
    }
}

/// The MQA path's kernels, their log lines and their errors.
pub(super) fn mqa(b: Kind, p: &Platform, i: &MqaInputs, t: &mut Trace) -> Mqa {
    let r = p.release;
    let mut out = Mqa {
        decode: Vec::new(),
        prefill_rows: None,
        errors: Phases::default(),
        unmodelled: None,
    };
    let quantized = crate::backends::is_quantized_kv_cache(r, i.kv);
    match b {
        Kind::FlashMla => {
            let (k, cite) = if quantized {
                (Kernel::FlashMlaDecodeFp8, &source::MLA_PATH_FLASHMLA_FP8_CALL)
            } else {
                (Kernel::FlashMlaDecode, &source::MLA_PATH_FLASHMLA_BF16_CALL)
            };
            let how = if quantized {
                "an FP8 cache: the FP8 kernel with descale_q = layer._q_scale, descale_k = layer._k_scale"
            } else {
                "a 16-bit cache"
            };
            t.step(Some(cite), "FlashMLAImpl.forward_mqa", format!("{how}: {}", k.call()));
            out.decode.push(KernelChoice::always(k));
        }
        Kind::FlashAttnMla => {
            t.step(
                Some(&source::MLA_PATH_FAMLA_CALL),
                "FlashAttnMLAImpl.forward_mqa",
                format!(
                    "the BF16 query tuple split into q_pe and q_v = ql_nope against the cache's k_pe and kv_c: {}",
                    Kernel::Fa3MlaQv.call()
                ),
            );
            out.decode.push(KernelChoice::always(Kernel::Fa3MlaQv));
        }
        Kind::FlashInferMla => flashinfer_mla(p, i, quantized, t, &mut out),
        Kind::CutlassMla => {
            t.step(
                Some(&source::MLA_PATH_CUTLASS_CALL),
                "CutlassMLAImpl.forward_mqa",
                format!(
                    "q_nope, q_pe and the cache in one dtype ({}), {} heads padded to 128 (q_pad_num_heads): {}",
                    i.q_dtype,
                    i.heads,
                    Kernel::CutlassMlaDecode.call()
                ),
            );
            out.decode.push(KernelChoice::always(Kernel::CutlassMlaDecode));
            if i.checkpoint_scales {
                let message = "CutlassMLAImpl does not support scaling for q and kv_latent yet".to_string();
                t.unverified(
                    "the ModelOpt checkpoint's calibrated k_scale is taken to differ from 1.0 (qpath cannot read the \
                     weights), so forward_mqa's scale check raises",
                );
                t.step(
                    Some(&source::MLA_PATH_CUTLASS_SCALE_RAISE),
                    "raises NotImplementedError",
                    message.clone(),
                );
                out.errors.decode = Some(forward_error(
                    GroupErrorKind::NotImplementedError,
                    message,
                    &source::MLA_PATH_CUTLASS_SCALE_RAISE,
                    r,
                    Stage::DecodeForward,
                    "CutlassMLAImpl.forward_mqa".into(),
                ));
            } else {
                t.step(
                    Some(&source::MLA_PATH_CUTLASS_SCALE_RAISE),
                    "CutlassMLAImpl scale check",
                    "layer._q_scale_float and layer._k_scale_float are 1.0: no NotImplementedError",
                );
            }
        }
        Kind::TritonMla => {
            let fp8 = if quantized {
                "; the FP8 cache is dequantized on load with k_scale = v_scale = layer._k_scale"
            } else {
                ""
            };
            t.step(
                Some(&source::MLA_PATH_TRITON_CALL),
                "TritonMLAImpl.forward_mqa",
                format!(
                    "the {} query tuple concatenated, split-KV over next_pow2(max_seq_len / 512) splits (capped at 2 × \
                     SMs; 1 under batch invariance){fp8}: {}",
                    i.q_dtype,
                    Kernel::TritonMlaDecode.call()
                ),
            );
            out.decode.push(KernelChoice::always(Kernel::TritonMlaDecode));
        }
        Kind::TokenspeedMla => {
            t.step(
                Some(&source::MLA_PATH_TS_FP8_Q_ASSERT),
                "TokenspeedMLAImpl.forward_mqa",
                format!(
                    "asserts the query is float8_e4m3fn: it is {} (the cache is FP8 and the impl takes the layer's \
                     FP8 query)",
                    i.q_dtype
                ),
            );
            t.step(
                Some(&source::MLA_PATH_TS_CALL),
                "TokenspeedMLAImpl.forward_mqa",
                format!(
                    "softmax_scale = scale · q_scale · k_scale, output_scale = k_scale: {}",
                    Kernel::TokenspeedMlaDecode.call()
                ),
            );
            out.decode.push(KernelChoice::always(Kernel::TokenspeedMlaDecode));
        }
        Kind::FlashMlaSparse => flashmla_sparse(p, i, t, &mut out),
        Kind::FlashInferMlaSparse => {
            t.step(
                Some(&source::MLA_PATH_FIMS_CALL),
                "FlashInferMLASparseImpl.forward_mqa",
                format!(
                    "every MQA row ({} query; bmm1_scale = scale · q_scale · k_scale for an FP8 cache) against the \
                     physical top-k indices: {}",
                    i.q_dtype,
                    Kernel::TrtllmGenMlaSparse.call()
                ),
            );
            out.decode.push(KernelChoice::always(Kernel::TrtllmGenMlaSparse));
            out.prefill_rows = Some(Kernel::TrtllmGenMlaSparse);
        }
        Kind::FlashAttnMlaSparseFa4 => {
            t.step(
                Some(&source::MLA_PATH_FA4S_CALL),
                "FlashAttnMLASparseFA4Impl._forward_mqa_kernel",
                format!(
                    "decode rows: {}; prefill rows on the MQA path: the FlashInfer sparse kernel ({})",
                    Kernel::Fa4MlaSparseQv.call(),
                    Kernel::TrtllmGenMlaSparse.call()
                ),
            );
            out.decode.push(KernelChoice::always(Kernel::Fa4MlaSparseQv));
            out.prefill_rows = Some(Kernel::TrtllmGenMlaSparse);
        }
        Kind::FlashInferMlaSparseSm120 => {
            t.step(
                Some(&source::MLA_PATH_SM120_CALL),
                "FlashInferMLASparseSM120Impl.forward_mqa",
                format!(
                    "every token, BF16 query, the fp8_ds_mla cache viewed as uint8, kv_scale_format passed: {}",
                    Kernel::FlashInferMlaSparseSm120.call()
                ),
            );
            out.decode.push(KernelChoice::always(Kernel::FlashInferMlaSparseSm120));
            out.prefill_rows = Some(Kernel::FlashInferMlaSparseSm120);
            if p.flashinfer < FlashInfer::F0_6_14 {
                t.unverified(format!(
                    "FlashInfer {}'s trtllm_batch_decode_with_kv_cache_mla has no kv_scale_format parameter (added in \
                     0.6.14): the call raises TypeError: trtllm_batch_decode_with_kv_cache_mla() got an unexpected \
                     keyword argument 'kv_scale_format' at the first sparse forward",
                    p.flashinfer.name()
                ));
                out.unmodelled = Some(format!(
                    "{QPATH_LIMIT}: FLASHINFER_MLA_SPARSE_SM120 passes kv_scale_format, which FlashInfer {} lacks; the \
                     TypeError it meets at the first sparse forward is derived from the sources, not run",
                    p.flashinfer.name()
                ));
            }
        }
        Kind::FlashInferMlaSparseSm90 => {
            t.step(
                Some(&source::MLA_PATH_SM90_CALL),
                "FlashInferMLASparseSM90Impl.forward_mqa",
                format!(
                    "every MQA row, BF16 query, an FP8 cache dequantized in the kernel: {}",
                    Kernel::FlashInferMlaPagedSm90.call()
                ),
            );
            out.decode.push(KernelChoice::always(Kernel::FlashInferMlaPagedSm90));
            out.prefill_rows = Some(Kernel::FlashInferMlaPagedSm90);
        }
        Kind::FlashAttnMlaSparse => {
            t.step(
                Some(&source::MLA_PATH_FAMS_CALL),
                "FlashAttnMLASparseImpl.forward_mqa",
                format!("every MQA row, BF16 query: {}", Kernel::Fa3MlaSparseQv.call()),
            );
            out.decode.push(KernelChoice::always(Kernel::Fa3MlaSparseQv));
            out.prefill_rows = Some(Kernel::Fa3MlaSparseQv);
        }
    }
    out
}

/// FLASHINFER_MLA: trtllm-gen (FlashInfer's `backend="auto"` on SM100), or CuTe DSL for a head count trtllm-gen cannot
/// tile (0.27.0+, with its warning) and under DCP (0.29.0+).
fn flashinfer_mla(p: &Platform, i: &MqaInputs, quantized: bool, t: &mut Trace, out: &mut Mqa) {
    let r = p.release;
    let scales = if quantized {
        "bmm1_scale = scale · q_scale · k_scale, bmm2_scale = k_scale"
    } else {
        "bmm1_scale = scale, bmm2_scale = 1.0"
    };
    t.step(Some(&source::MLA_PATH_FIMLA_BMM1), "FlashInferMLAImpl scales", scales);
    let n = i.heads;
    let tile = if n <= 8 {
        8
    } else if n <= 32 {
        16
    } else {
        64
    };
    let tileable = n % n.min(tile) == 0;
    let kernel = if r >= V0_29_0 && p.dcp > 1 {
        t.step(
            Some(&source::MLA_PATH_FIMLA_DCP_CUTE),
            "FlashInferMLAImpl decode backend",
            format!("decode context parallelism ({}): backend=\"cute-dsl\" with enable_dcp", p.dcp),
        );
        Kernel::CuteDslMla
    } else if r >= V0_27_0 && !tileable {
        t.warn(
            &source::MLA_PATH_FIMLA_CUTE_FALLBACK_LOG,
            format!(
                "trtllm-gen MLA decode does not support num_heads={n} (query/kv head ratio); falling back to the \
                 cute-dsl backend."
            ),
        );
        t.step(
            Some(&source::MLA_PATH_FIMLA_CUTE_FALLBACK_LOG),
            "FlashInferMLAImpl decode backend",
            format!("{n} heads do not divide into trtllm-gen's {tile}-head tiles: backend=\"cute-dsl\""),
        );
        Kernel::CuteDslMla
    } else {
        if !tileable {
            t.unverified(format!(
                "{n} heads do not divide into trtllm-gen's {tile}-head tiles and this release has no CuTe DSL fallback: \
                 FlashInfer's trtllm-gen kernel refuses the head count at the first decode (\"The numHeadsQ/numHeadsKv \
                 is not supported\", per vLLM 0.27.0's comment; not in the Python sources)"
            ));
        }
        Kernel::TrtllmGenMla
    };
    t.step(
        Some(&source::MLA_PATH_FIMLA_CALL),
        "FlashInferMLAImpl.forward_mqa",
        format!(
            "the {} query reshaped to (decodes, q_len, {n}, 576): {}",
            i.q_dtype,
            kernel.call()
        ),
    );
    out.decode.push(KernelChoice::always(kernel));
}

/// FLASHMLA_SPARSE's MQA path: a BF16 cache runs the BF16 sparse kernel for every token; an `fp8_ds_mla` cache the FP8
/// sparse decode kernel, over every token ("mixed batch") below 32 heads per rank, else for decode rows only, its
/// prefill rows upconverted to BF16 for the BF16 kernel. Heads are padded for each kernel.
fn flashmla_sparse(p: &Platform, i: &MqaInputs, t: &mut Trace, out: &mut Mqa) {
    let r = p.release;
    let n = i.heads;
    if i.kv == "nvfp4_ds_mla" {
        out.unmodelled = Some(format!("{QPATH_LIMIT}: FLASHMLA_SPARSE's nvfp4_ds_mla kernels"));
        return;
    }
    let fp8 = i.kv == "fp8_ds_mla";
    let bf16_padding = if r < V0_32_0 && p.is_family(100) { 128 } else { 64 };
    let bf16_kernel = |t: &mut Trace, rows: &str| -> Option<GroupError> {
        if r < V0_29_0 {
            if n % bf16_padding == 0 {
                return None;
            }
            if bf16_padding % n != 0 {
                t.step(
                    Some(&source::MLA_PATH_FMS_PAD_ASSERT),
                    "raises AssertionError",
                    format!(
                        "the BF16 sparse kernel pads heads to {bf16_padding}; {n} heads per rank do not divide it: {BARE_ASSERT}"
                    ),
                );
                return Some(forward_error(
                    GroupErrorKind::AssertionError,
                    String::new(),
                    &source::MLA_PATH_FMS_PAD_ASSERT,
                    r,
                    Stage::DecodeForward,
                    format!("FlashMLASparseImpl._forward_bf16_kv ({rows})"),
                ));
            }
        }
        let padded = n.div_ceil(bf16_padding) * bf16_padding;
        if padded > n {
            t.warn(
                &source::MLA_PATH_FMS_PAD_PREFILL_LOG,
                format!("Padding num_heads from {n} to {padded} for BF16 sparse prefill kernel"),
            );
        }
        None
    };
    t.step(
        Some(&source::MLA_PATH_FMS_PREFILL_PADDING),
        "FlashMLASparseImpl BF16 head padding",
        format!(
            "prefill_padding = {bf16_padding} ({})",
            if r < V0_32_0 {
                "128 on the SM100 family, 64 elsewhere"
            } else {
                "64 on every GPU"
            }
        ),
    );
    if !fp8 {
        let e = bf16_kernel(t, "every token");
        t.step(
            Some(&source::MLA_PATH_FMS_BF16_KERNEL),
            "FlashMLASparseImpl.forward_mqa",
            format!(
                "a BF16 cache: the query concatenated into a BF16 buffer, every token through {}",
                Kernel::FlashMlaSparseFwd.call()
            ),
        );
        out.decode.push(KernelChoice::always(Kernel::FlashMlaSparseFwd));
        out.prefill_rows = Some(Kernel::FlashMlaSparseFwd);
        if let Some(e) = e {
            out.errors.prefill = Some(GroupError {
                stage: Stage::PrefillForward,
                ..e.clone()
            });
            out.errors.decode = Some(e);
        }
        return;
    }
    let padded = if n <= 64 { 64 } else { 128 };
    if padded > n {
        t.warn(
            &source::MLA_PATH_FMS_PAD_DECODE_LOG,
            format!("Padding num_heads from {n} to {padded} for FP8 sparse decode kernel"),
        );
    }
    let mixed = n < 32;
    t.step(
        Some(&source::MLA_PATH_FMS_MIXED_BATCH),
        "FlashMLASparseMetadataBuilder fp8_use_mixed_batch",
        if mixed {
            format!("{n} heads per rank < 32: one FP8 sparse decode call over every token, prefill rows included")
        } else {
            format!("{n} heads per rank ≥ 32: decode rows on the FP8 decode kernel, prefill rows upconverted to BF16")
        },
    );
    t.step(
        Some(&source::MLA_PATH_FMS_FP8_KERNEL),
        "FlashMLASparseImpl.forward_mqa",
        format!(
            "an fp8_ds_mla cache (uint8 view), the BF16 query padded to {padded} heads: {}",
            Kernel::FlashMlaSparseDecodeFp8.call()
        ),
    );
    out.decode.push(KernelChoice::always(Kernel::FlashMlaSparseDecodeFp8));
    if mixed {
        out.prefill_rows = Some(Kernel::FlashMlaSparseDecodeFp8);
        return;
    }
    let e = bf16_kernel(t, "prefill rows");
    t.step(
        Some(&source::MLA_PATH_FMS_BF16_KERNEL),
        "FlashMLASparseImpl prefill rows",
        format!(
            "ops.cp_gather_and_upconvert_fp8_kv_cache into the BF16 workspace, then {}",
            Kernel::FlashMlaSparseFwd.call()
        ),
    );
    out.prefill_rows = Some(Kernel::FlashMlaSparseFwd);
    out.errors.prefill = e.map(|e| GroupError {
        stage: Stage::PrefillForward,
        ..e
    });
}

/// A sparse MLA impl (`is_sparse`; 0.24.0–0.25.0 a `SparseMLAAttentionImpl`): its layer routes prefills per `path`.
pub(super) fn is_sparse(b: Kind) -> bool {
    matches!(
        b,
        Kind::FlashMlaSparse
            | Kind::FlashInferMlaSparse
            | Kind::FlashInferMlaSparseSm120
            | Kind::FlashInferMlaSparseSm90
            | Kind::FlashAttnMlaSparse
            | Kind::FlashAttnMlaSparseFa4
    )
}

/// `impl.supports_dense_mha_prefill` (0.27.0+): False for FLASHINFER_MLA_SPARSE_SM120 from 0.29.0 (and FLASHMLA_SPARSE
/// for a rope-free model on `fp8_ds_mla` in 0.33.0).
pub(super) fn dense_mha_prefill(b: Kind, r: Release, rope: u32, kv: &str) -> bool {
    match b {
        Kind::FlashInferMlaSparseSm120 => r < V0_29_0,
        Kind::FlashMlaSparse => !(r >= V0_33_0 && rope == 0 && kv == "fp8_ds_mla"),
        Kind::FlashMla
        | Kind::CutlassMla
        | Kind::FlashInferMla
        | Kind::FlashInferMlaSparse
        | Kind::FlashInferMlaSparseSm90
        | Kind::TritonMla
        | Kind::FlashAttnMla
        | Kind::FlashAttnMlaSparse
        | Kind::FlashAttnMlaSparseFa4
        | Kind::TokenspeedMla => true,
    }
}
