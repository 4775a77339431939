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
    /// The composite of TRITON_ATTN (batches that need the multimodal prefix mask) and FLASH_ATTN (the rest),
    /// 0.30.0+ (`vllm/v1/attention/backends/triton_flash_attn.py`).
    #[serde(rename = "TRITON_FLASH_ATTN")]
    TritonFlashAttn,
    /// The composite of TRITON_ATTN and FLASHINFER, 0.30.0+ (`vllm/v1/attention/backends/triton_flashinfer.py`).
    #[serde(rename = "TRITON_FLASHINFER")]
    TritonFlashInfer,
    /// MLA: `mla/flashmla.py` FlashMLABackend (dense, SM90 / SM100).
    #[serde(rename = "FLASHMLA")]
    FlashMla,
    /// MLA: `mla/flashmla_sparse.py` FlashMLASparseBackend.
    #[serde(rename = "FLASHMLA_SPARSE")]
    FlashMlaSparse,
    /// MLA: `mla/cutlass_mla.py` CutlassMLABackend (SM100).
    #[serde(rename = "CUTLASS_MLA")]
    CutlassMla,
    /// MLA: `mla/flashinfer_mla.py` FlashInferMLABackend (SM100).
    #[serde(rename = "FLASHINFER_MLA")]
    FlashInferMla,
    /// MLA: `mla/flashinfer_mla_sparse.py` FlashInferMLASparseTRTLLMBackend (SM100).
    #[serde(rename = "FLASHINFER_MLA_SPARSE")]
    FlashInferMlaSparse,
    /// MLA: `mla/flashinfer_mla_sparse.py` FlashInferMLASparseSM120Backend.
    #[serde(rename = "FLASHINFER_MLA_SPARSE_SM120")]
    FlashInferMlaSparseSm120,
    /// MLA: `mla/flashinfer_mla_sparse_sm90.py` (0.30.0+).
    #[serde(rename = "FLASHINFER_MLA_SPARSE_SM90")]
    FlashInferMlaSparseSm90,
    /// MLA: `mla/triton_mla.py` TritonMLABackend.
    #[serde(rename = "TRITON_MLA")]
    TritonMla,
    /// MLA: `mla/flashattn_mla.py` FlashAttnMLABackend (SM90).
    #[serde(rename = "FLASH_ATTN_MLA")]
    FlashAttnMla,
    /// MLA: `mla/flashattn_mla_sparse.py` FlashAttnMLASparseBackend (0.25.0+).
    #[serde(rename = "FLASH_ATTN_MLA_SPARSE")]
    FlashAttnMlaSparse,
    /// MLA: `mla/flashattn_mla_sparse.py` FlashAttnMLASparseFA4Backend (0.33.0).
    #[serde(rename = "FLASH_ATTN_MLA_SPARSE_FA4")]
    FlashAttnMlaSparseFa4,
    /// MLA: `mla/tokenspeed_mla.py` TokenspeedMLABackend (SM100, FP8 caches).
    #[serde(rename = "TOKENSPEED_MLA")]
    TokenspeedMla,
    /// The lightning indexer's cache of DeepSeek Sparse Attention (`DEEPSEEK_V32_INDEXER`): a fixed backend beside each
    /// sparse MLA layer, never selected by `get_attn_backend`.
    #[serde(rename = "DEEPSEEK_V32_INDEXER")]
    DeepseekV32Indexer,
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
            Backend::TritonFlashAttn => "TRITON_FLASH_ATTN",
            Backend::TritonFlashInfer => "TRITON_FLASHINFER",
            Backend::FlashMla => "FLASHMLA",
            Backend::FlashMlaSparse => "FLASHMLA_SPARSE",
            Backend::CutlassMla => "CUTLASS_MLA",
            Backend::FlashInferMla => "FLASHINFER_MLA",
            Backend::FlashInferMlaSparse => "FLASHINFER_MLA_SPARSE",
            Backend::FlashInferMlaSparseSm120 => "FLASHINFER_MLA_SPARSE_SM120",
            Backend::FlashInferMlaSparseSm90 => "FLASHINFER_MLA_SPARSE_SM90",
            Backend::TritonMla => "TRITON_MLA",
            Backend::FlashAttnMla => "FLASH_ATTN_MLA",
            Backend::FlashAttnMlaSparse => "FLASH_ATTN_MLA_SPARSE",
            Backend::FlashAttnMlaSparseFa4 => "FLASH_ATTN_MLA_SPARSE_FA4",
            Backend::TokenspeedMla => "TOKENSPEED_MLA",
            Backend::DeepseekV32Indexer => "DEEPSEEK_V32_INDEXER",
            Backend::GdnAttn => "GDN_ATTN",
            Backend::Mamba2 => "MAMBA2",
            Backend::Mamba1 => "MAMBA1",
            Backend::Linear => "LINEAR",
            Backend::ShortConv => "SHORT_CONV",
        }
    }

    /// Every backend qpath names: the attention backends ([`Backend::ATTENTION`]), then the recurrent-state ones.
    pub const ALL: [Backend; 25] = [
        Backend::FlashAttn,
        Backend::FlashInfer,
        Backend::TritonAttn,
        Backend::FlexAttention,
        Backend::TurboQuant,
        Backend::TritonFlashAttn,
        Backend::TritonFlashInfer,
        Backend::FlashMla,
        Backend::FlashMlaSparse,
        Backend::CutlassMla,
        Backend::FlashInferMla,
        Backend::FlashInferMlaSparse,
        Backend::FlashInferMlaSparseSm120,
        Backend::FlashInferMlaSparseSm90,
        Backend::TritonMla,
        Backend::FlashAttnMla,
        Backend::FlashAttnMlaSparse,
        Backend::FlashAttnMlaSparseFa4,
        Backend::TokenspeedMla,
        Backend::DeepseekV32Indexer,
        Backend::GdnAttn,
        Backend::Mamba2,
        Backend::Mamba1,
        Backend::Linear,
        Backend::ShortConv,
    ];

    /// The attention backends qpath models (`AttentionBackendEnum` names; what `--attention-backend` may name, in
    /// the releases whose enum has them: the composites from 0.30.0).
    pub const ATTENTION: [Backend; 19] = {
        // `ALL` lists the attention backends first; the indexer and the recurrent ones follow.
        let mut a = [Backend::FlashAttn; 19];
        let mut i = 0;
        while i < a.len() {
            a[i] = Backend::ALL[i];
            i += 1;
        }
        a
    };
    /// The MLA backends (the ones an MLA layer's priority list names; `is_mla`).
    pub const MLA: [Backend; 12] = [
        Backend::FlashMla,
        Backend::FlashMlaSparse,
        Backend::CutlassMla,
        Backend::FlashInferMla,
        Backend::FlashInferMlaSparse,
        Backend::FlashInferMlaSparseSm120,
        Backend::FlashInferMlaSparseSm90,
        Backend::TritonMla,
        Backend::FlashAttnMla,
        Backend::FlashAttnMlaSparse,
        Backend::FlashAttnMlaSparseFa4,
        Backend::TokenspeedMla,
    ];

    /// "FLASH_ATTN, FLASHINFER, …": the attention backends qpath models, for messages (derived from
    /// [`Backend::ATTENTION`], so every list of them in the core's texts is this one).
    pub fn modelled_list() -> String {
        let names: Vec<&str> = Backend::ATTENTION.iter().map(|b| b.name()).collect();
        names.join(", ")
    }

    /// A `MambaAttentionBackendEnum` member: the backend of a recurrent (linear-attention / Mamba) layer.
    pub fn is_recurrent(self) -> bool {
        matches!(
            self,
            Backend::GdnAttn | Backend::Mamba2 | Backend::Mamba1 | Backend::Linear | Backend::ShortConv
        )
    }

    /// An MLA backend (`is_mla()` in vLLM).
    pub fn is_mla(self) -> bool {
        Backend::MLA.contains(&self)
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

/// A kernel a phase runs, named for the backend that runs it; [`Kernel::call`] names it as vLLM's code does. The JSON
/// is [`Kernel::name`]. The first four are FlashInfer's (its wrappers' `backend`, TRTLLM, XQA), as they always were.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Kernel {
    /// FLASHINFER: `trtllm_batch_context_with_kv_cache / trtllm_batch_decode_with_kv_cache (trtllm-gen)`.
    #[serde(rename = "trtllm-gen")]
    TrtllmGen,
    /// FLASHINFER: `xqa_batch_decode_with_kv_cache (XQA)`.
    #[serde(rename = "xqa")]
    Xqa,
    /// FLASHINFER: `a FlashInfer wrapper with backend fa3`.
    #[serde(rename = "fa3")]
    Fa3,
    /// FLASHINFER: `a FlashInfer wrapper with backend fa2`.
    #[serde(rename = "fa2")]
    Fa2,
    /// FLASH_ATTN: `flash_attn_varlen_func(fa_version=2) → torch.ops._vllm_fa2_C.varlen_fwd`.
    #[serde(rename = "fa2-varlen")]
    FaVarlen2,
    /// FLASH_ATTN: `flash_attn_varlen_func(fa_version=3) → torch.ops._vllm_fa3_C.fwd`.
    #[serde(rename = "fa3-varlen")]
    FaVarlen3,
    /// FLASH_ATTN: `flash_attn_varlen_func(fa_version=3, scheduler_metadata=get_scheduler_metadata(…)) → torch.ops._vllm_fa3_C.fwd`.
    #[serde(rename = "fa3-varlen-aot")]
    FaVarlen3Aot,
    /// FLASH_ATTN: `flash_attn_varlen_func(fa_version=4) → vllm_flash_attn.cute.interface._flash_attn_fwd`.
    #[serde(rename = "fa4-varlen")]
    FaVarlen4,
    /// FLASH_ATTN: `cascade_attention: flash_attn_varlen_func over the common prefix, then over the suffixes, merged`.
    #[serde(rename = "fa-cascade")]
    FaCascade,
    /// TRITON_ATTN: `unified_attention → kernel_unified_attention (2D grid, IS_3D=False)`.
    #[serde(rename = "triton-unified-2d")]
    TritonUnified2d,
    /// TRITON_ATTN: `unified_attention → kernel_unified_attention (3D split-KV grid, IS_3D=True) + reduce_segments`.
    #[serde(rename = "triton-unified-3d")]
    TritonUnified3d,
    /// TRITON_ATTN: `unified_attention → unified_attention_int4 → _attn_packed`.
    #[serde(rename = "triton-int4-packed")]
    TritonInt4Packed,
    /// FLEX_ATTENTION: `flex_attention (torch.compile, direct block mask)`.
    #[serde(rename = "flex-attention")]
    FlexAttention,
    /// TURBOQUANT: `triton_turboquant_decode_attention`.
    #[serde(rename = "turboquant-decode")]
    TurboquantDecode,
    /// TURBOQUANT: `the cache dequantized to float16, then flash_attn_varlen_func(fa_version=2)`.
    #[serde(rename = "turboquant-dequant-fa2")]
    TurboquantDequantFa2,
    /// FLASHMLA's 16-bit decode: `flash_mla_with_kvcache(is_fp8_kvcache=False) → torch.ops._flashmla_C.dense_decode_fwd`.
    #[serde(rename = "flashmla-decode")]
    FlashMlaDecode,
    /// FLASHMLA's FP8 decode (FP8 query and cache): `flash_mla_with_kvcache_fp8(descale_q, descale_k) → torch.ops._flashmla_extension_C.fwd_kvcache_mla_fp8`.
    #[serde(rename = "flashmla-decode-fp8")]
    FlashMlaDecodeFp8,
    /// FLASHMLA_SPARSE's FP8 sparse decode over an fp8_ds_mla cache: `flash_mla_with_kvcache(is_fp8_kvcache=True, indices=top-k) → torch.ops._flashmla_C.sparse_decode_fwd`.
    #[serde(rename = "flashmla-sparse-decode-fp8")]
    FlashMlaSparseDecodeFp8,
    /// FLASHMLA_SPARSE's bf16 sparse kernel (a bf16 cache, or prefill rows upconverted from fp8_ds_mla): `flash_mla_sparse_fwd(q, kv, top-k indices) → torch.ops._flashmla_C.sparse_prefill_fwd`.
    #[serde(rename = "flashmla-sparse-fwd")]
    FlashMlaSparseFwd,
    /// CUTLASS_MLA's SM100 decode: `ops.sm100_cutlass_mla_decode → torch.ops._C.sm100_cutlass_mla_decode (128 padded heads)`.
    #[serde(rename = "cutlass-mla-decode")]
    CutlassMlaDecode,
    /// FLASHINFER_MLA's decode on trtllm-gen (FlashInfer's backend="auto" on SM100): `flashinfer.decode.trtllm_batch_decode_with_kv_cache_mla (trtllm-gen)`.
    #[serde(rename = "trtllm-gen-mla")]
    TrtllmGenMla,
    /// FLASHINFER_MLA's decode on CuTe DSL (head counts trtllm-gen cannot tile, 0.27.0+; DCP, 0.29.0+): `flashinfer.decode.trtllm_batch_decode_with_kv_cache_mla(backend="cute-dsl")`.
    #[serde(rename = "cute-dsl-mla")]
    CuteDslMla,
    /// FLASHINFER_MLA_SPARSE's sparse decode: `flashinfer.decode.trtllm_batch_decode_with_kv_cache_mla(sparse_mla_top_k=top-k) (trtllm-gen sparse)`.
    #[serde(rename = "trtllm-gen-mla-sparse")]
    TrtllmGenMlaSparse,
    /// FLASHINFER_MLA_SPARSE_SM120's sparse kernel: `flashinfer_trtllm_batch_decode_with_kv_cache_mla(sparse_mla_top_k=top-k, kv_scale_format=…) (FlashInfer's SM120 packed fp8_ds_mla sparse kernel)`.
    #[serde(rename = "flashinfer-mla-sparse-sm120")]
    FlashInferMlaSparseSm120,
    /// FLASHINFER_MLA_SPARSE_SM90's sparse kernel (0.30.0+): `BatchMLAPagedAttentionWrapper.run (page size 1, the top-k slots as the page table)`.
    #[serde(rename = "flashinfer-mla-paged-sm90")]
    FlashInferMlaPagedSm90,
    /// TRITON_MLA's decode: `decode_attention_fwd (Triton split-KV MLA decode)`.
    #[serde(rename = "triton-mla-decode")]
    TritonMlaDecode,
    /// FLASH_ATTN_MLA's FA3 absorbed decode: `flash_attn_varlen_func(q=q_pe, k=k_pe_cache, v=kv_c_cache, q_v=ql_nope, fa_version=3) → torch.ops._vllm_fa3_C.fwd`.
    #[serde(rename = "fa3-mla-qv")]
    Fa3MlaQv,
    /// FLASH_ATTN_MLA_SPARSE's FA3 sparse kernel (0.25.0+): `flash_attn_varlen_func(q_v=ql_nope, top-k indices as the page table, fa_version=3) → torch.ops._vllm_fa3_C.fwd`.
    #[serde(rename = "fa3-mla-sparse-qv")]
    Fa3MlaSparseQv,
    /// FLASH_ATTN_MLA_SPARSE_FA4's FA4 sparse decode (0.33.0): `flash_attn_varlen_func(q_v=ql_nope, gather_kv_indices=top-k, fa_version=4)`.
    #[serde(rename = "fa4-mla-sparse-qv")]
    Fa4MlaSparseQv,
    /// sparse MLA's masked-MHA prefill on FA4 (0.27.0+): `flash_attn_varlen_func(fa_version=4, mask_mod=the top-k mask) (sparse MLA's masked MHA)`.
    #[serde(rename = "fa4-masked-mha")]
    Fa4MaskedMha,
    /// TOKENSPEED_MLA's decode: `tokenspeed_mla_decode (tokenspeed_mla package, FP8 query)`.
    #[serde(rename = "tokenspeed-mla-decode")]
    TokenspeedMlaDecode,
    /// the TRTLLM_RAGGED MLA prefill backend's kernel (FlashInfer's): `flashinfer.prefill.trtllm_ragged_attention_deepseek`.
    #[serde(rename = "trtllm-ragged-deepseek")]
    TrtllmRaggedDeepseek,
    /// the FLASHINFER MLA prefill backend's kernel: `BatchPrefillWithRaggedKVCacheWrapper(workspace, "NHD", backend="cutlass").run`.
    #[serde(rename = "flashinfer-ragged-cutlass")]
    FlashInferRaggedCutlass,
    /// the TOKENSPEED_MLA MLA prefill backend's kernel: `tokenspeed_mla_prefill (tokenspeed_mla package)`.
    #[serde(rename = "tokenspeed-mla-prefill")]
    TokenspeedMlaPrefill,
    /// DEEPSEEK_V32_INDEXER's prefill: the lightning indexer's FP8 MQA logits and top-k: `fp8_fp4_mqa_logits (DeepGEMM) → top_k_per_row_prefill`.
    #[serde(rename = "indexer-mqa-logits")]
    IndexerMqaLogits,
    /// DEEPSEEK_V32_INDEXER's decode: the paged FP8 MQA logits and top-k: `fp8_fp4_paged_mqa_logits (DeepGEMM) → the decode top-k`.
    #[serde(rename = "indexer-paged-mqa-logits")]
    IndexerPagedMqaLogits,
    /// GDN_ATTN: `chunk_gated_delta_rule (FLA, Triton)`.
    #[serde(rename = "fla-chunk-gdr")]
    GdnChunkFla,
    /// GDN_ATTN: `flashinfer.gdn_prefill.chunk_gated_delta_rule`.
    #[serde(rename = "flashinfer-chunk-gdr")]
    GdnChunkFlashInfer,
    /// GDN_ATTN: `chunk_gated_delta_rule_cutedsl (CuTe DSL)`.
    #[serde(rename = "cutedsl-chunk-gdr")]
    GdnChunkCuteDsl,
    /// GDN_ATTN: `fused_recurrent_gated_delta_rule_packed_decode (Triton)`.
    #[serde(rename = "fla-packed-decode-gdr")]
    GdnPackedDecode,
    /// GDN_ATTN: `fused_sigmoid_gating_delta_rule_update (Triton)`.
    #[serde(rename = "fla-sigmoid-gating-gdr")]
    GdnSigmoidGating,
    /// GDN_ATTN (0.28.0+, non-interleaved layers such as Qwen3.5's): the speculative decodes' fused CUDA kernel,
    /// `fused_gdn_decode_post_conv_mtp (CUDA, torch.ops._C)`.
    #[serde(rename = "cuda-fused-mtp-decode-gdr")]
    GdnFusedMtpDecode,
    /// MAMBA2: `mamba_chunk_scan_combined_varlen (Triton SSD)`.
    #[serde(rename = "mamba-chunk-scan")]
    MambaChunkScan,
    /// MAMBA2: `selective_state_update (Triton)`.
    #[serde(rename = "selective-state-update")]
    SelectiveStateUpdate,
    /// MAMBA2: `flashinfer.mamba.selective_state_update`.
    #[serde(rename = "flashinfer-selective-state-update")]
    FlashInferSelectiveStateUpdate,
    /// MAMBA1: `selective_scan_fn`.
    #[serde(rename = "selective-scan")]
    SelectiveScan,
    /// LINEAR: `lightning_attention`.
    #[serde(rename = "lightning-attention")]
    LightningAttention,
    /// LINEAR: `linear_decode_forward_triton`.
    #[serde(rename = "linear-decode")]
    LinearDecode,
    /// SHORT_CONV: `causal_conv1d_fn`.
    #[serde(rename = "causal-conv1d")]
    CausalConv1d,
    /// SHORT_CONV: `causal_conv1d_update`.
    #[serde(rename = "causal-conv1d-update")]
    CausalConv1dUpdate,
}

impl Kernel {
    /// Every kernel, in the order above.
    pub const ALL: [Kernel; 50] = [
        Kernel::TrtllmGen,
        Kernel::Xqa,
        Kernel::Fa3,
        Kernel::Fa2,
        Kernel::FaVarlen2,
        Kernel::FaVarlen3,
        Kernel::FaVarlen3Aot,
        Kernel::FaVarlen4,
        Kernel::FaCascade,
        Kernel::TritonUnified2d,
        Kernel::TritonUnified3d,
        Kernel::TritonInt4Packed,
        Kernel::FlexAttention,
        Kernel::TurboquantDecode,
        Kernel::TurboquantDequantFa2,
        Kernel::FlashMlaDecode,
        Kernel::FlashMlaDecodeFp8,
        Kernel::FlashMlaSparseDecodeFp8,
        Kernel::FlashMlaSparseFwd,
        Kernel::CutlassMlaDecode,
        Kernel::TrtllmGenMla,
        Kernel::CuteDslMla,
        Kernel::TrtllmGenMlaSparse,
        Kernel::FlashInferMlaSparseSm120,
        Kernel::FlashInferMlaPagedSm90,
        Kernel::TritonMlaDecode,
        Kernel::Fa3MlaQv,
        Kernel::Fa3MlaSparseQv,
        Kernel::Fa4MlaSparseQv,
        Kernel::Fa4MaskedMha,
        Kernel::TokenspeedMlaDecode,
        Kernel::TrtllmRaggedDeepseek,
        Kernel::FlashInferRaggedCutlass,
        Kernel::TokenspeedMlaPrefill,
        Kernel::IndexerMqaLogits,
        Kernel::IndexerPagedMqaLogits,
        Kernel::GdnChunkFla,
        Kernel::GdnChunkFlashInfer,
        Kernel::GdnChunkCuteDsl,
        Kernel::GdnPackedDecode,
        Kernel::GdnSigmoidGating,
        Kernel::GdnFusedMtpDecode,
        Kernel::MambaChunkScan,
        Kernel::SelectiveStateUpdate,
        Kernel::FlashInferSelectiveStateUpdate,
        Kernel::SelectiveScan,
        Kernel::LightningAttention,
        Kernel::LinearDecode,
        Kernel::CausalConv1d,
        Kernel::CausalConv1dUpdate,
    ];

    /// The JSON string.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::TrtllmGen => "trtllm-gen",
            Kernel::Xqa => "xqa",
            Kernel::Fa3 => "fa3",
            Kernel::Fa2 => "fa2",
            Kernel::FaVarlen2 => "fa2-varlen",
            Kernel::FaVarlen3 => "fa3-varlen",
            Kernel::FaVarlen3Aot => "fa3-varlen-aot",
            Kernel::FaVarlen4 => "fa4-varlen",
            Kernel::FaCascade => "fa-cascade",
            Kernel::TritonUnified2d => "triton-unified-2d",
            Kernel::TritonUnified3d => "triton-unified-3d",
            Kernel::TritonInt4Packed => "triton-int4-packed",
            Kernel::FlexAttention => "flex-attention",
            Kernel::TurboquantDecode => "turboquant-decode",
            Kernel::TurboquantDequantFa2 => "turboquant-dequant-fa2",
            Kernel::FlashMlaDecode => "flashmla-decode",
            Kernel::FlashMlaDecodeFp8 => "flashmla-decode-fp8",
            Kernel::FlashMlaSparseDecodeFp8 => "flashmla-sparse-decode-fp8",
            Kernel::FlashMlaSparseFwd => "flashmla-sparse-fwd",
            Kernel::CutlassMlaDecode => "cutlass-mla-decode",
            Kernel::TrtllmGenMla => "trtllm-gen-mla",
            Kernel::CuteDslMla => "cute-dsl-mla",
            Kernel::TrtllmGenMlaSparse => "trtllm-gen-mla-sparse",
            Kernel::FlashInferMlaSparseSm120 => "flashinfer-mla-sparse-sm120",
            Kernel::FlashInferMlaPagedSm90 => "flashinfer-mla-paged-sm90",
            Kernel::TritonMlaDecode => "triton-mla-decode",
            Kernel::Fa3MlaQv => "fa3-mla-qv",
            Kernel::Fa3MlaSparseQv => "fa3-mla-sparse-qv",
            Kernel::Fa4MlaSparseQv => "fa4-mla-sparse-qv",
            Kernel::Fa4MaskedMha => "fa4-masked-mha",
            Kernel::TokenspeedMlaDecode => "tokenspeed-mla-decode",
            Kernel::TrtllmRaggedDeepseek => "trtllm-ragged-deepseek",
            Kernel::FlashInferRaggedCutlass => "flashinfer-ragged-cutlass",
            Kernel::TokenspeedMlaPrefill => "tokenspeed-mla-prefill",
            Kernel::IndexerMqaLogits => "indexer-mqa-logits",
            Kernel::IndexerPagedMqaLogits => "indexer-paged-mqa-logits",
            Kernel::GdnChunkFla => "fla-chunk-gdr",
            Kernel::GdnChunkFlashInfer => "flashinfer-chunk-gdr",
            Kernel::GdnChunkCuteDsl => "cutedsl-chunk-gdr",
            Kernel::GdnPackedDecode => "fla-packed-decode-gdr",
            Kernel::GdnSigmoidGating => "fla-sigmoid-gating-gdr",
            Kernel::GdnFusedMtpDecode => "cuda-fused-mtp-decode-gdr",
            Kernel::MambaChunkScan => "mamba-chunk-scan",
            Kernel::SelectiveStateUpdate => "selective-state-update",
            Kernel::FlashInferSelectiveStateUpdate => "flashinfer-selective-state-update",
            Kernel::SelectiveScan => "selective-scan",
            Kernel::LightningAttention => "lightning-attention",
            Kernel::LinearDecode => "linear-decode",
            Kernel::CausalConv1d => "causal-conv1d",
            Kernel::CausalConv1dUpdate => "causal-conv1d-update",
        }
    }

    /// The call as vLLM's (or FlashInfer's) code names it.
    pub fn call(self) -> &'static str {
        match self {
            Kernel::TrtllmGen => "trtllm_batch_context_with_kv_cache / trtllm_batch_decode_with_kv_cache (trtllm-gen)",
            Kernel::Xqa => "xqa_batch_decode_with_kv_cache (XQA)",
            Kernel::Fa3 => "a FlashInfer wrapper with backend fa3",
            Kernel::Fa2 => "a FlashInfer wrapper with backend fa2",
            Kernel::FaVarlen2 => "flash_attn_varlen_func(fa_version=2) → torch.ops._vllm_fa2_C.varlen_fwd",
            Kernel::FaVarlen3 => "flash_attn_varlen_func(fa_version=3) → torch.ops._vllm_fa3_C.fwd",
            Kernel::FaVarlen3Aot => {
                "flash_attn_varlen_func(fa_version=3, scheduler_metadata=get_scheduler_metadata(…)) → torch.ops._vllm_fa3_C.fwd"
            }
            Kernel::FaVarlen4 => "flash_attn_varlen_func(fa_version=4) → vllm_flash_attn.cute.interface._flash_attn_fwd",
            Kernel::FaCascade => {
                "cascade_attention: flash_attn_varlen_func over the common prefix, then over the suffixes, merged"
            }
            Kernel::TritonUnified2d => "unified_attention → kernel_unified_attention (2D grid, IS_3D=False)",
            Kernel::TritonUnified3d => {
                "unified_attention → kernel_unified_attention (3D split-KV grid, IS_3D=True) + reduce_segments"
            }
            Kernel::TritonInt4Packed => "unified_attention → unified_attention_int4 → _attn_packed",
            Kernel::FlexAttention => "flex_attention (torch.compile, direct block mask)",
            Kernel::TurboquantDecode => "triton_turboquant_decode_attention",
            Kernel::TurboquantDequantFa2 => "the cache dequantized to float16, then flash_attn_varlen_func(fa_version=2)",
            Kernel::FlashMlaDecode => "flash_mla_with_kvcache(is_fp8_kvcache=False) → torch.ops._flashmla_C.dense_decode_fwd",
            Kernel::FlashMlaDecodeFp8 => "flash_mla_with_kvcache_fp8(descale_q, descale_k) → torch.ops._flashmla_extension_C.fwd_kvcache_mla_fp8",
            Kernel::FlashMlaSparseDecodeFp8 => "flash_mla_with_kvcache(is_fp8_kvcache=True, indices=top-k) → torch.ops._flashmla_C.sparse_decode_fwd",
            Kernel::FlashMlaSparseFwd => "flash_mla_sparse_fwd(q, kv, top-k indices) → torch.ops._flashmla_C.sparse_prefill_fwd",
            Kernel::CutlassMlaDecode => "ops.sm100_cutlass_mla_decode → torch.ops._C.sm100_cutlass_mla_decode (128 padded heads)",
            Kernel::TrtllmGenMla => "flashinfer.decode.trtllm_batch_decode_with_kv_cache_mla (trtllm-gen)",
            Kernel::CuteDslMla => "flashinfer.decode.trtllm_batch_decode_with_kv_cache_mla(backend=\"cute-dsl\")",
            Kernel::TrtllmGenMlaSparse => "flashinfer.decode.trtllm_batch_decode_with_kv_cache_mla(sparse_mla_top_k=top-k) (trtllm-gen sparse)",
            Kernel::FlashInferMlaSparseSm120 => "flashinfer_trtllm_batch_decode_with_kv_cache_mla(sparse_mla_top_k=top-k, kv_scale_format=…) (FlashInfer's SM120 packed fp8_ds_mla sparse kernel)",
            Kernel::FlashInferMlaPagedSm90 => "BatchMLAPagedAttentionWrapper.run (page size 1, the top-k slots as the page table)",
            Kernel::TritonMlaDecode => "decode_attention_fwd (Triton split-KV MLA decode)",
            Kernel::Fa3MlaQv => "flash_attn_varlen_func(q=q_pe, k=k_pe_cache, v=kv_c_cache, q_v=ql_nope, fa_version=3) → torch.ops._vllm_fa3_C.fwd",
            Kernel::Fa3MlaSparseQv => "flash_attn_varlen_func(q_v=ql_nope, top-k indices as the page table, fa_version=3) → torch.ops._vllm_fa3_C.fwd",
            Kernel::Fa4MlaSparseQv => "flash_attn_varlen_func(q_v=ql_nope, gather_kv_indices=top-k, fa_version=4)",
            Kernel::Fa4MaskedMha => "flash_attn_varlen_func(fa_version=4, mask_mod=the top-k mask) (sparse MLA's masked MHA)",
            Kernel::TokenspeedMlaDecode => "tokenspeed_mla_decode (tokenspeed_mla package, FP8 query)",
            Kernel::TrtllmRaggedDeepseek => "flashinfer.prefill.trtllm_ragged_attention_deepseek",
            Kernel::FlashInferRaggedCutlass => "BatchPrefillWithRaggedKVCacheWrapper(workspace, \"NHD\", backend=\"cutlass\").run",
            Kernel::TokenspeedMlaPrefill => "tokenspeed_mla_prefill (tokenspeed_mla package)",
            Kernel::IndexerMqaLogits => "fp8_fp4_mqa_logits (DeepGEMM) → top_k_per_row_prefill",
            Kernel::IndexerPagedMqaLogits => "fp8_fp4_paged_mqa_logits (DeepGEMM) → the decode top-k",
            Kernel::GdnChunkFla => "chunk_gated_delta_rule (FLA, Triton)",
            Kernel::GdnChunkFlashInfer => "flashinfer.gdn_prefill.chunk_gated_delta_rule",
            Kernel::GdnChunkCuteDsl => "chunk_gated_delta_rule_cutedsl (CuTe DSL)",
            Kernel::GdnPackedDecode => "fused_recurrent_gated_delta_rule_packed_decode (Triton)",
            Kernel::GdnSigmoidGating => "fused_sigmoid_gating_delta_rule_update (Triton)",
            Kernel::GdnFusedMtpDecode => "fused_gdn_decode_post_conv_mtp (CUDA, torch.ops._C)",
            Kernel::MambaChunkScan => "mamba_chunk_scan_combined_varlen (Triton SSD)",
            Kernel::SelectiveStateUpdate => "selective_state_update (Triton)",
            Kernel::FlashInferSelectiveStateUpdate => "flashinfer.mamba.selective_state_update",
            Kernel::SelectiveScan => "selective_scan_fn",
            Kernel::LightningAttention => "lightning_attention",
            Kernel::LinearDecode => "linear_decode_forward_triton",
            Kernel::CausalConv1d => "causal_conv1d_fn",
            Kernel::CausalConv1dUpdate => "causal_conv1d_update",
        }
    }

    /// The backend whose code runs it (a recurrent kernel: the backend of its layer type; an MLA prefill backend's
    /// kernel: the backend of its library, FLASH_ATTN / FLASHINFER / TOKENSPEED_MLA).
    pub fn backend(self) -> Backend {
        match self {
            Kernel::TrtllmGen => Backend::FlashInfer,
            Kernel::Xqa => Backend::FlashInfer,
            Kernel::Fa3 => Backend::FlashInfer,
            Kernel::Fa2 => Backend::FlashInfer,
            Kernel::FaVarlen2 => Backend::FlashAttn,
            Kernel::FaVarlen3 => Backend::FlashAttn,
            Kernel::FaVarlen3Aot => Backend::FlashAttn,
            Kernel::FaVarlen4 => Backend::FlashAttn,
            Kernel::FaCascade => Backend::FlashAttn,
            Kernel::TritonUnified2d => Backend::TritonAttn,
            Kernel::TritonUnified3d => Backend::TritonAttn,
            Kernel::TritonInt4Packed => Backend::TritonAttn,
            Kernel::FlexAttention => Backend::FlexAttention,
            Kernel::TurboquantDecode => Backend::TurboQuant,
            Kernel::TurboquantDequantFa2 => Backend::TurboQuant,
            Kernel::FlashMlaDecode => Backend::FlashMla,
            Kernel::FlashMlaDecodeFp8 => Backend::FlashMla,
            Kernel::FlashMlaSparseDecodeFp8 => Backend::FlashMlaSparse,
            Kernel::FlashMlaSparseFwd => Backend::FlashMlaSparse,
            Kernel::CutlassMlaDecode => Backend::CutlassMla,
            Kernel::TrtllmGenMla => Backend::FlashInferMla,
            Kernel::CuteDslMla => Backend::FlashInferMla,
            Kernel::TrtllmGenMlaSparse => Backend::FlashInferMlaSparse,
            Kernel::FlashInferMlaSparseSm120 => Backend::FlashInferMlaSparseSm120,
            Kernel::FlashInferMlaPagedSm90 => Backend::FlashInferMlaSparseSm90,
            Kernel::TritonMlaDecode => Backend::TritonMla,
            Kernel::Fa3MlaQv => Backend::FlashAttnMla,
            Kernel::Fa3MlaSparseQv => Backend::FlashAttnMlaSparse,
            Kernel::Fa4MlaSparseQv => Backend::FlashAttnMlaSparseFa4,
            Kernel::Fa4MaskedMha => Backend::FlashAttn,
            Kernel::TokenspeedMlaDecode => Backend::TokenspeedMla,
            Kernel::TrtllmRaggedDeepseek => Backend::FlashInfer,
            Kernel::FlashInferRaggedCutlass => Backend::FlashInfer,
            Kernel::TokenspeedMlaPrefill => Backend::TokenspeedMla,
            Kernel::IndexerMqaLogits => Backend::DeepseekV32Indexer,
            Kernel::IndexerPagedMqaLogits => Backend::DeepseekV32Indexer,
            Kernel::GdnChunkFla => Backend::GdnAttn,
            Kernel::GdnChunkFlashInfer => Backend::GdnAttn,
            Kernel::GdnChunkCuteDsl => Backend::GdnAttn,
            Kernel::GdnPackedDecode => Backend::GdnAttn,
            Kernel::GdnSigmoidGating => Backend::GdnAttn,
            Kernel::GdnFusedMtpDecode => Backend::GdnAttn,
            Kernel::MambaChunkScan => Backend::Mamba2,
            Kernel::SelectiveStateUpdate => Backend::Mamba2,
            Kernel::FlashInferSelectiveStateUpdate => Backend::Mamba2,
            Kernel::SelectiveScan => Backend::Mamba1,
            Kernel::LightningAttention => Backend::Linear,
            Kernel::LinearDecode => Backend::Linear,
            Kernel::CausalConv1d => Backend::ShortConv,
            Kernel::CausalConv1dUpdate => Backend::ShortConv,
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

#[cfg(test)]
mod tests {
    use super::Backend;

    /// `ATTENTION` is `ALL`'s head: exactly the backends that are neither recurrent nor the indexer, in `ALL`'s order.
    #[test]
    fn attention_is_every_backend_but_the_recurrent_ones_and_the_indexer() {
        let expected: Vec<Backend> = Backend::ALL
            .into_iter()
            .filter(|b| !b.is_recurrent() && *b != Backend::DeepseekV32Indexer)
            .collect();
        assert_eq!(Backend::ATTENTION.to_vec(), expected);
        assert!(Backend::MLA.iter().all(|b| Backend::ATTENTION.contains(b)));
    }
}
