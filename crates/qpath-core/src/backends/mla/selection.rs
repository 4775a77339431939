//! MLA selection (`docs/source-notes/mla-selection.md`): the MLA priority lists (`_get_backend_priorities`' MLA branch,
//! `vllm/platforms/cuda.py`), every MLA backend's `validate_configuration` as an MLA layer (or a non-MLA layer forced
//! onto it) meets it — the generic reasons of `vllm/v1/attention/backend.py` in their order, then the backend's
//! `supports_combination` text —, the kernel block sizes and the block size `update_block_size_for_backend` picks
//! without `--block-size`, and the cache dtype `MLAAttention.__init__` writes back after selection
//! (`_canonicalize_sparse_mla_kv_cache_dtype`).
//!
//! The install is the official CUDA wheel's: vLLM's FlashMLA extensions (`vllm._flashmla_C`,
//! `vllm._flashmla_extension_C`), FA3 (and, 0.33.0, FA4's CuTe-DSL entry point), flashinfer-python at the pin (or the
//! scenario's FlashInfer) and `tokenspeed-mla` (a Linux dependency of every wheel) import. Where vLLM checks one of
//! them at selection the trace says so ([`selection_steps`]).

use super::Mla;
use crate::attention::{Backend, QPATH_LIMIT};
use crate::backends::{is_quantized_kv_cache, KernelSizes, LayerQuery, BLOCK_SIZE_REASON, SINK_REASON};
use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::release::{FlashInfer as FiRelease, Release, Release::*};
use crate::source::{self, Cite};
use crate::trace::Trace;

/// `_get_backend_priorities(use_mla=True, device_capability, num_heads, kv_cache_dtype[, head_size])`
/// ([`source::MLA_SEL_PRIO_MLA_BRANCH`]): compute capability 10.x ([`source::MLA_SEL_PRIO_SM100_LIST`]; TOKENSPEED_MLA
/// from 0.21.0) puts the dense backends first and the sparse pair last — FLASHINFER_MLA_SPARSE first for a quantized
/// cache ([`source::MLA_SEL_PRIO_SPARSE_QUANT`]) or at most 16 heads per rank ([`source::MLA_SEL_PRIO_SPARSE_FEW_HEADS`];
/// 0.33.0 FLASH_ATTN_MLA_SPARSE_FA4 before it), FLASHMLA_SPARSE first otherwise; 12.x has TRITON_MLA and
/// FLASHINFER_MLA_SPARSE_SM120 ([`source::MLA_SEL_PRIO_SM12X`], 0.24.0+; before, 12.x takes the other list); every
/// other capability ([`source::MLA_SEL_PRIO_OTHER_LIST`]) FLASH_ATTN_MLA, FLASHMLA, FLASHINFER_MLA, TRITON_MLA, then the
/// sparse tail: FLASHMLA_SPARSE (0.20.0 – 0.24.0), FLASH_ATTN_MLA_SPARSE before it (0.25.0+),
/// FLASHINFER_MLA_SPARSE_SM90 first for head size 512, else last (0.30.0+, [`source::MLA_SEL_PRIO_SM90_SPARSE_HEAD512`]).
pub fn priorities(p: &Platform, l: &LayerQuery) -> Vec<Backend> {
    use Backend::*;
    let r = p.release;
    match p.major() {
        10 => {
            let mut list = vec![FlashInferMla];
            // 0.21.0+ lists TOKENSPEED_MLA second (vllm/platforms/cuda.py L116 in 0.21.0); 0.20.x has no such backend.
            if r >= V0_21_0 {
                list.push(TokenspeedMla);
            }
            list.extend([CutlassMla, FlashAttnMla, FlashMla, TritonMla]);
            match sparse_order(r, l) {
                SparsePair::Quantized => list.extend([FlashInferMlaSparse, FlashMlaSparse]),
                SparsePair::FewHeads => {
                    if r >= V0_33_0 {
                        list.push(FlashAttnMlaSparseFa4);
                    }
                    list.extend([FlashInferMlaSparse, FlashMlaSparse]);
                }
                SparsePair::ManyHeads => list.extend([FlashMlaSparse, FlashInferMlaSparse]),
            }
            list
        }
        // 0.24.0+ has a 12.x list ([`source::MLA_SEL_PRIO_SM12X`]); before, 12.x takes the `else` list below
        // (vllm/platforms/cuda.py L123 in 0.23.0), without the sparse tail's later members.
        12 if r >= V0_24_0 => vec![TritonMla, FlashInferMlaSparseSm120],
        _ => {
            let mut list = vec![FlashAttnMla, FlashMla, FlashInferMla, TritonMla];
            let sm90 = r >= V0_30_0;
            if sm90 && l.head_size == 512 {
                list.push(FlashInferMlaSparseSm90);
            }
            if r >= V0_25_0Prefix {
                list.push(FlashAttnMlaSparse);
            }
            list.push(FlashMlaSparse);
            if sm90 && l.head_size != 512 {
                list.push(FlashInferMlaSparseSm90);
            }
            list
        }
    }
}

/// The order of the 10.x sparse pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SparsePair {
    /// A quantized `kv_cache_dtype` (`is_quantized_kv_cache`): FLASHINFER_MLA_SPARSE, FLASHMLA_SPARSE.
    Quantized,
    /// At most 16 heads per rank: FLASHINFER_MLA_SPARSE, FLASHMLA_SPARSE (0.33.0: FLASH_ATTN_MLA_SPARSE_FA4 first).
    FewHeads,
    /// Otherwise FLASHMLA_SPARSE, FLASHINFER_MLA_SPARSE.
    ManyHeads,
}

fn sparse_order(r: Release, l: &LayerQuery) -> SparsePair {
    if is_quantized_kv_cache(r, &l.kv_cache_dtype) {
        SparsePair::Quantized
    } else if l.q_heads <= 16 {
        SparsePair::FewHeads
    } else {
        SparsePair::ManyHeads
    }
}

/// A backend's `get_supported_kernel_block_sizes()` without a KV spec (what selection and the block-size choice ask).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sizes {
    Exact(&'static [u32]),
    /// `[MultipleOf(n)]`, held as `&[n]`.
    MultipleOf(&'static [u32; 1]),
}

impl Sizes {
    /// `supports_block_size` (the base class's, every release): a multiple of one of the sizes (TRITON_MLA's own
    /// override, `block_size % 16 == 0`, is the same test on its `[MultipleOf(16)]`).
    pub fn supports(self, block: u32) -> bool {
        match self {
            Sizes::Exact(v) => v.iter().any(|s| block % s == 0),
            Sizes::MultipleOf([b]) => block % b == 0,
        }
    }

    /// The sizes as `get_preferred_block_size` and `_preferred_block_size_for_backends` read them (`MultipleOf(n)`:
    /// n).
    pub fn bases(self) -> &'static [u32] {
        match self {
            Sizes::Exact(v) => v,
            Sizes::MultipleOf(b) => b,
        }
    }

    /// `get_preferred_block_size(16)` ([`source::MLA_SEL_PREFERRED_BLOCK_SIZE`], every release): 16 when the backend
    /// takes it, else the smallest kernel size.
    pub fn preferred(self) -> u32 {
        if self.supports(DEFAULT_BLOCK_SIZE) {
            DEFAULT_BLOCK_SIZE
        } else {
            self.bases().iter().copied().min().unwrap_or(DEFAULT_BLOCK_SIZE)
        }
    }

    pub fn kernel_sizes(self) -> KernelSizes {
        match self {
            Sizes::Exact(v) => KernelSizes::Exact(v.to_vec()),
            Sizes::MultipleOf([b]) => KernelSizes::MultipleOf(*b),
        }
    }

    /// As vLLM prints the list (`[32, 64]`, `[MultipleOf(64)]`).
    pub fn show(self) -> String {
        match self {
            Sizes::Exact(v) => format!("{v:?}"),
            Sizes::MultipleOf([b]) => format!("[MultipleOf({b})]"),
        }
    }
}

/// `CacheConfig.DEFAULT_BLOCK_SIZE` (every release).
pub const DEFAULT_BLOCK_SIZE: u32 = 16;

/// What `validate_configuration` reads of one MLA backend class in a release.
struct Facts {
    /// `get_supported_head_sizes()`; empty: any.
    head_sizes: &'static [u32],
    /// `supported_dtypes` is `[torch.bfloat16]` (else float16 and bfloat16).
    bf16_only: bool,
    /// `supported_kv_cache_dtypes`.
    kv: &'static [&'static str],
    kv_cite: &'static Cite,
    sizes: Sizes,
    sizes_cite: &'static Cite,
    /// `is_sparse()`.
    sparse: bool,
    /// `supports_compute_capability`: the majors it takes (empty: any).
    majors: &'static [u8],
    cc_cite: &'static Cite,
    /// `supports_batch_invariance()`.
    batch_invariance: bool,
    /// `supports_non_causal()`.
    non_causal: bool,
    /// The builder's `supports_non_causal_multi_token_dcp` (0.29.0+).
    non_causal_dcp: bool,
    /// The impl's `supports_dcp` (read from 0.30.0).
    dcp: bool,
}

const COMMON_KV: &[&str] = &["auto", "float16", "bfloat16", "fp8", "fp8_e4m3"];
const HALF_KV: &[&str] = &["auto", "float16", "bfloat16"];

/// `MLACommonBackend.get_supported_head_sizes()` ([`source::MLA_SEL_COMMON_HEAD_SIZES`]): 0.30.0 adds 512.
fn common_heads(r: Release) -> &'static [u32] {
    if r >= V0_30_0 {
        &[320, 512, 576]
    } else {
        &[320, 576]
    }
}

/// `_FlashInferMLASparseBackendBase.get_supported_head_sizes()` ([`source::MLA_SEL_FI_SPARSE_BASE_HEAD_SIZES`]).
fn fi_sparse_heads(r: Release) -> &'static [u32] {
    if r >= V0_30_0 {
        &[512, 576]
    } else {
        &[576]
    }
}

impl Facts {
    /// An `MLACommonBackend` subclass (dense; the common head sizes, float16 and bfloat16, `supports_dcp`).
    fn dense(
        r: Release,
        (kv, kv_cite): (&'static [&'static str], &'static Cite),
        (sizes, sizes_cite): (Sizes, &'static Cite),
        (majors, cc_cite): (&'static [u8], &'static Cite),
    ) -> Facts {
        Facts {
            head_sizes: common_heads(r),
            bf16_only: false,
            kv,
            kv_cite,
            sizes,
            sizes_cite,
            sparse: false,
            majors,
            cc_cite,
            batch_invariance: false,
            non_causal: false,
            non_causal_dcp: false,
            dcp: true,
        }
    }

    /// A sparse backend (`is_sparse()`), with its own head sizes and model dtypes.
    fn sparse(
        head_sizes: &'static [u32],
        bf16_only: bool,
        (kv, kv_cite): (&'static [&'static str], &'static Cite),
        (sizes, sizes_cite): (Sizes, &'static Cite),
        (majors, cc_cite): (&'static [u8], &'static Cite),
        dcp: bool,
    ) -> Facts {
        Facts {
            head_sizes,
            bf16_only,
            kv,
            kv_cite,
            sizes,
            sizes_cite,
            sparse: true,
            majors,
            cc_cite,
            batch_invariance: false,
            non_causal: false,
            non_causal_dcp: false,
            dcp,
        }
    }
}

/// The class attributes of MLA backend `b` in release `r` (`docs/source-notes/mla-selection.md` §3.2). `None` for a
/// backend that is not MLA.
fn facts(b: Backend, r: Release) -> Option<Facts> {
    use Backend::*;
    let since_32 = |new: Sizes, old: Sizes| if r >= V0_32_0 { new } else { old };
    Some(match b {
        FlashMla => Facts::dense(
            r,
            (COMMON_KV, &source::MLA_SEL_FLASHMLA_KV_DTYPES),
            (Sizes::Exact(&[64]), &source::MLA_SEL_FLASHMLA_KERNEL_BLOCK_SIZES),
            (&[9, 10], &source::MLA_SEL_FLASHMLA_CC),
        ),
        CutlassMla => Facts::dense(
            r,
            (COMMON_KV, &source::MLA_SEL_CUTLASS_KV_DTYPES),
            (Sizes::Exact(&[128]), &source::MLA_SEL_CUTLASS_KERNEL_BLOCK_SIZES),
            (&[10], &source::MLA_SEL_CUTLASS_CC),
        ),
        FlashInferMla => Facts {
            non_causal: r >= V0_27_0,
            non_causal_dcp: true,
            ..Facts::dense(
                r,
                (COMMON_KV, &source::MLA_SEL_FI_MLA_KV_DTYPES),
                (Sizes::Exact(&[32, 64]), &source::MLA_SEL_FI_MLA_KERNEL_BLOCK_SIZES),
                (&[10], &source::MLA_SEL_FI_MLA_CC),
            )
        },
        TritonMla => Facts {
            head_sizes: &[],
            batch_invariance: true,
            non_causal: r >= V0_27_0,
            ..Facts::dense(
                r,
                (COMMON_KV, &source::MLA_SEL_TRITON_MLA_KV_DTYPES),
                (Sizes::MultipleOf(&[16]), &source::MLA_SEL_TRITON_MLA_KERNEL_BLOCK_SIZES),
                (&[], &source::MLA_SEL_TRITON_MLA_CC),
            )
        },
        FlashAttnMla => Facts {
            batch_invariance: true,
            ..Facts::dense(
                r,
                (HALF_KV, &source::MLA_SEL_FA_MLA_KV_DTYPES),
                (Sizes::MultipleOf(&[16]), &source::MLA_SEL_FA_MLA_KERNEL_BLOCK_SIZES),
                (&[9], &source::MLA_SEL_FA_MLA_CC),
            )
        },
        TokenspeedMla => Facts {
            non_causal: r >= V0_28_0,
            non_causal_dcp: true,
            ..Facts::dense(
                r,
                (&["fp8", "fp8_e4m3"], &source::MLA_SEL_TOKENSPEED_KV_DTYPES),
                (Sizes::Exact(&[32, 64]), &source::MLA_SEL_TOKENSPEED_KERNEL_BLOCK_SIZES),
                (&[10], &source::MLA_SEL_TOKENSPEED_CC),
            )
        },
        // get_supported_head_sizes: 0.20.0–0.21.0 [512, 576] (flashmla_sparse.py L121 in 0.21.0, DeepSeek-V4's 512
        // beside V3.2's 576), 0.22.0 [576] (V4 moved to its own backend), 0.31.0+ [576, 512] (GLM5Next NoPE).
        FlashMlaSparse => Facts::sparse(
            if r >= V0_31_0 {
                &[576, 512]
            } else if r >= V0_22_0 {
                &[576]
            } else {
                &[512, 576]
            },
            true,
            (
                if r >= V0_30_0 {
                    &["auto", "bfloat16", "fp8_ds_mla", "fp8", "nvfp4_ds_mla"]
                } else {
                    &["auto", "bfloat16", "fp8_ds_mla", "fp8"]
                },
                &source::MLA_SEL_FLASHMLA_SPARSE_KV_DTYPES,
            ),
            (
                since_32(Sizes::MultipleOf(&[64]), Sizes::Exact(&[64])),
                &source::MLA_SEL_FLASHMLA_SPARSE_KERNEL_BLOCK_SIZES,
            ),
            (&[9, 10], &source::MLA_SEL_FLASHMLA_SPARSE_CC),
            true,
        ),
        FlashInferMlaSparse => Facts::sparse(
            fi_sparse_heads(r),
            false,
            (COMMON_KV, &source::MLA_SEL_FI_SPARSE_KV_DTYPES),
            (
                since_32(Sizes::MultipleOf(&[32]), Sizes::Exact(&[32, 64])),
                &source::MLA_SEL_FI_SPARSE_KERNEL_BLOCK_SIZES,
            ),
            (&[10], &source::MLA_SEL_FI_SPARSE_CC),
            true,
        ),
        FlashInferMlaSparseSm120 => Facts::sparse(
            fi_sparse_heads(r),
            true,
            (
                &["auto", "fp8", "fp8_e4m3", "fp8_ds_mla"],
                &source::MLA_SEL_FI_SPARSE_SM120_KV_DTYPES,
            ),
            (
                since_32(Sizes::MultipleOf(&[64]), Sizes::Exact(&[64, 256])),
                &source::MLA_SEL_FI_SPARSE_SM120_KERNEL_BLOCK_SIZES,
            ),
            (&[12], &source::MLA_SEL_FI_SPARSE_SM120_CC),
            false,
        ),
        FlashInferMlaSparseSm90 => Facts::sparse(
            &[512, 576],
            true,
            (
                &["auto", "bfloat16", "fp8", "fp8_e4m3"],
                &source::MLA_SEL_FI_SPARSE_SM90_KV_DTYPES,
            ),
            (Sizes::MultipleOf(&[64]), &source::MLA_SEL_FI_SPARSE_SM90_KERNEL_BLOCK_SIZES),
            (&[9], &source::MLA_SEL_FI_SPARSE_SM90_CC),
            false,
        ),
        FlashAttnMlaSparse => Facts::sparse(
            &[],
            false,
            (HALF_KV, &source::MLA_SEL_FA_SPARSE_KV_DTYPES),
            (
                since_32(Sizes::MultipleOf(&[64]), Sizes::Exact(&[64])),
                &source::MLA_SEL_FA_SPARSE_KERNEL_BLOCK_SIZES,
            ),
            (&[9], &source::MLA_SEL_FA_SPARSE_CC),
            false,
        ),
        // A FLASHINFER_MLA_SPARSE subclass: its compute capability (10.x) and impl (supports_dcp) are inherited.
        FlashAttnMlaSparseFa4 => Facts::sparse(
            &[576],
            true,
            (&["auto", "bfloat16"], &source::MLA_SEL_FA4_SPARSE_KV_DTYPES),
            (Sizes::MultipleOf(&[64]), &source::MLA_SEL_FA4_SPARSE_KERNEL_BLOCK_SIZES),
            (&[10], &source::MLA_SEL_FI_SPARSE_CC),
            true,
        ),
        FlashAttn | FlashInfer | TritonAttn | FlexAttention | TurboQuant | TritonFlashAttn | TritonFlashInfer
        | DeepseekV32Indexer | GdnAttn | Mamba2 | Mamba1 | Linear | ShortConv => return None,
    })
}

/// The kernel block sizes `update_block_size_for_backend` and selection read (no KV spec) for an MLA backend or the
/// sparse layers' indexer cache (DEEPSEEK_V32_INDEXER: `[64]` on CUDA, [`source::MLA_SEL_V32_INDEXER_KERNEL_BLOCK_SIZES`]).
pub fn sizes(b: Backend, r: Release) -> Option<(Sizes, &'static Cite)> {
    if b == Backend::DeepseekV32Indexer {
        return Some((Sizes::Exact(&[64]), &source::MLA_SEL_V32_INDEXER_KERNEL_BLOCK_SIZES));
    }
    facts(b, r).map(|f| (f.sizes, f.sizes_cite))
}

/// `validate_configuration` for an MLA backend (and for a non-MLA layer forced onto it), in the order of
/// `vllm/v1/attention/backend.py`: head size, model dtype, `kv_cache_dtype`, block size (with `--block-size`), the
/// multimodal prefix, `non-MLA not supported` ([`source::MLA_SEL_REASON_NON_MLA`]), sinks, `sparse not supported` /
/// `non-sparse not supported` ([`source::MLA_SEL_REASON_SPARSE`], [`source::MLA_SEL_REASON_NON_SPARSE`]), per-head
/// scales, compute capability, 0.26.0+ sliding window, non-causal, 0.29.0+ non-causal MLA with DCP
/// ([`source::MLA_SEL_REASON_NONCAUSAL_DCP`]), batch invariance, 0.30.0+ DCP ([`source::MLA_SEL_REASON_DCP`]), then
/// the backend's `supports_combination` text ([`combination`]). Not modelled (qpath never sets them): attention types
/// other than decoder, R-SWA, KV connectors, prefill context parallelism, adaptive verification.
pub fn reasons(b: &Mla, p: &Platform, l: &LayerQuery) -> Vec<String> {
    let r = p.release;
    let Some(f) = facts(b.backend, r) else {
        return Vec::new();
    };
    let mut v: Vec<String> = Vec::new();
    let mut push = |s: &str| v.push(s.to_string());
    if !f.head_sizes.is_empty() && !f.head_sizes.contains(&l.head_size) {
        push("head_size not supported");
    }
    let dtype_ok = match p.model_dtype {
        TorchDtype::BFloat16 => true,
        TorchDtype::Float16 => !f.bf16_only,
        _ => false,
    };
    if !dtype_ok {
        push("dtype not supported");
    }
    if !f.kv.contains(&l.kv_cache_dtype.as_str()) {
        push("kv_cache_dtype not supported");
    }
    if l.block_size.is_some_and(|bs| !f.sizes.supports(bs)) {
        push(BLOCK_SIZE_REASON);
    }
    if l.use_mm_prefix {
        push("partial multimodal token full attention not supported");
    }
    if l.mla.is_none() {
        push("non-MLA not supported");
    }
    if l.has_sinks {
        push(SINK_REASON);
    }
    let use_sparse = l.mla.is_some_and(|m| m.sparse());
    if use_sparse && !f.sparse {
        push("sparse not supported");
    } else if !use_sparse && f.sparse {
        push("non-sparse not supported");
    }
    if l.use_per_head_quant_scales {
        push("per-head quant scales not supported");
    }
    if !f.majors.is_empty() && !f.majors.contains(&p.major()) {
        push("compute capability not supported");
    }
    if r >= V0_26_0 && l.sliding_window {
        push("sliding window not supported");
    }
    if l.use_non_causal && !f.non_causal {
        push("non-causal attention not supported");
    }
    if r >= V0_29_0 && l.mla.is_some() && l.use_non_causal && l.use_dcp && !f.non_causal_dcp {
        push("non-causal MLA attention with DCP not supported");
    }
    if p.batch_invariant && !f.batch_invariance {
        push("batch invariance not supported");
    }
    if r >= V0_30_0 && l.use_dcp && !f.dcp {
        push("DCP not supported");
    }
    v.extend(combination(b.backend, p, l));
    v
}

/// The model config's dims `supports_combination` reads (`vllm_config.model_config.hf_text_config`): those of the
/// model config the layer is built under when it is another model's ([`Platform::model_mla`]: an EAGLE or MTP
/// drafter's layers are built under the target's), else an MLA layer's own (the model's), `None` for a non-MLA model's
/// layer (its config has none of these attributes; each backend reads them with its own `getattr` default).
fn dims(p: &Platform, l: &LayerQuery) -> Option<crate::model::MlaDims> {
    p.model_mla.or(l.mla)
}

/// `is_device_capability_family(90)` and `is_fa_version_supported(3)`: `flash_attn_supports_mla()`
/// ([`source::MLA_SEL_FA_SUPPORTS_MLA`]; the wheel's FA3 is built for 9.x only).
fn fa_supports_mla(p: &Platform) -> bool {
    p.major() == 9
}

/// Each backend's `supports_combination` (appended last): its text, per release, or `None`.
pub fn combination(b: Backend, p: &Platform, l: &LayerQuery) -> Option<String> {
    use Backend::*;
    let kv = l.kv_cache_dtype.as_str();
    let sparse = l.mla.is_some_and(|m| m.sparse());
    match b {
        // `is_flashmla_sparse_supported()` / `is_flashmla_dense_supported()` (v1/attention/ops/flashmla.py): the
        // extensions import; then the device family.
        FlashMla => {
            if sparse {
                (!(p.is_family(90) || p.is_family(100)))
                    .then(|| "FlashMLA Sparse is only supported on Hopper and Blackwell DC devices.".to_string())
            } else {
                (!p.is_family(90)).then(|| "FlashMLA Dense is only supported on Hopper devices.".to_string())
            }
        }
        FlashMlaSparse => flashmla_sparse_combination(p, l),
        CutlassMla | TritonMla => None,
        FlashInferMla => {
            let nope = dims(p, l).map_or(1, |d| d.qk_nope_head_dim);
            (![64, 128, 192].contains(&nope))
                .then(|| format!("FlashInfer MLA kernel requires qk_nope_head_dim in [64, 128, 192], but got {nope}"))
        }
        FlashInferMlaSparse => fi_sparse_combination("FLASHINFER_MLA_SPARSE", p, l),
        FlashInferMlaSparseSm120 => {
            if p.model_dtype != TorchDtype::BFloat16 {
                return Some("dtype not supported".into());
            }
            if !["auto", "fp8", "fp8_e4m3", "fp8_ds_mla"].contains(&kv) {
                return Some("kv_cache_dtype not supported".into());
            }
            match dims(p, l).and_then(|d| d.index_topk) {
                None => Some("FLASHINFER_MLA_SPARSE_SM120 requires a model with index_topk config".into()),
                Some(k) if k != 2048 => Some(format!("FLASHINFER_MLA_SPARSE_SM120 requires index_topk=2048; got {k}")),
                Some(_) => None,
            }
        }
        FlashInferMlaSparseSm90 => {
            if p.flashinfer < FiRelease::F0_6_18 {
                return Some(
                    "FLASHINFER_MLA_SPARSE_SM90 requires FlashInfer with SM90 MLA support (ckv_scale_arr in \
                     BatchMLAPagedAttentionWrapper.run, FlashInfer >= 0.6.18)"
                        .into(),
                );
            }
            if !sparse {
                return Some("FLASHINFER_MLA_SPARSE_SM90 requires sparse MLA".into());
            }
            let d = dims(p, l)?;
            if d.kv_lora_rank != 512 {
                return Some("FLASHINFER_MLA_SPARSE_SM90 requires kv_lora_rank=512".into());
            }
            (![0, 64].contains(&d.qk_rope_head_dim))
                .then(|| "FLASHINFER_MLA_SPARSE_SM90 requires qk_rope_head_dim in (0, 64)".to_string())
        }
        FlashAttnMla => (!fa_supports_mla(p)).then(|| "FlashAttention MLA not supported on this device".to_string()),
        FlashAttnMlaSparse => {
            if !HALF_KV.contains(&kv) {
                return Some("FlashAttention MLA Sparse currently supports only FP16/BF16 KV cache".into());
            }
            if !fa_supports_mla(p) {
                return Some("FlashAttention MLA not supported on this device".into());
            }
            if p.dcp > 1 {
                return Some("FlashAttention MLA Sparse does not support DCP for now".into());
            }
            dims(p, l)
                .and_then(|d| d.index_topk)
                .is_none()
                .then(|| "FlashAttention MLA Sparse requires model with index_topk".to_string())
        }
        FlashAttnMlaSparseFa4 => fa4_combination(p, l),
        TokenspeedMla => {
            let (nope, rope, v) = dims(p, l).map_or((0, 0, 0), |d| (d.qk_nope_head_dim, d.qk_rope_head_dim, d.v_head_dim));
            ((nope, rope, v) != (128, 64, 128)).then(|| {
                format!(
                    "tokenspeed_mla requires DeepSeek R1 MLA dimensions (qk_nope_head_dim=128, qk_rope_head_dim=64, \
                     v_head_dim=128), got ({nope}, {rope}, {v})"
                )
            })
        }
        FlashAttn | FlashInfer | TritonAttn | FlexAttention | TurboQuant | TritonFlashAttn | TritonFlashInfer
        | DeepseekV32Indexer | GdnAttn | Mamba2 | Mamba1 | Linear | ShortConv => None,
    }
}

/// FLASHMLA_SPARSE's `supports_combination` (0.30.0+; none before): 0.31.0+ head size 512 (GLM5Next NoPE) only with a
/// 16-bit cache (0.32.0+: or `fp8_ds_mla`) on 9.x and a rope-free config
/// ([`source::MLA_SEL_FLASHMLA_SPARSE_HEAD512_REASON`]); `nvfp4_ds_mla` only on 10.x
/// ([`source::MLA_SEL_FLASHMLA_SPARSE_NVFP4_SM100_REASON`]).
fn flashmla_sparse_combination(p: &Platform, l: &LayerQuery) -> Option<String> {
    let r = p.release;
    let kv = l.kv_cache_dtype.as_str();
    if r >= V0_31_0 && l.head_size == 512 {
        let mut bf16: Vec<&str> = vec!["auto", "bfloat16", "float16"];
        if r >= V0_32_0 {
            bf16.push("fp8_ds_mla");
        }
        if bf16.contains(&kv) && p.major() == 9 {
            if dims(p, l).map_or(64, |d| d.qk_rope_head_dim) != 0 {
                return Some("FLASHMLA_SPARSE supports head_size 512 only for rope-free (NoPE) models".into());
            }
        } else {
            let what = if r >= V0_32_0 { "bf16 or fp8_ds_mla" } else { "bf16" };
            return Some(format!(
                "FLASHMLA_SPARSE supports head_size 512 only with {what} kv-cache on SM90 (NoPE), got \
                 kv_cache_dtype={kv}, capability=DeviceCapability(major={}, minor={})",
                p.cc.major, p.cc.minor
            ));
        }
    }
    (r >= V0_30_0 && kv == "nvfp4_ds_mla" && p.major() != 10)
        .then(|| format!("FLASHMLA_SPARSE only supports the {kv} kv-cache dtype on SM100 (Blackwell)"))
}

/// FLASHINFER_MLA_SPARSE's `supports_combination` (FLASH_ATTN_MLA_SPARSE_FA4 ends with it under its own name, 0.33.0
/// `cls.get_name()`): 0.30.0+ combined PCP+DCP (qpath models no PCP); `fp8_ds_mla`
/// ([`source::MLA_SEL_FI_SPARSE_DS_MLA_REASON`]); then the model config: 0.30.0+ a rope-free config needs
/// (qk_nope 256, kv_lora 512), else `qk_nope_head_dim` in [128, 192] ([`source::MLA_SEL_FI_SPARSE_QK_NOPE_REASON`],
/// read with default 1 before 0.30.0); `index_topk` present ([`source::MLA_SEL_FI_SPARSE_INDEX_TOPK_REASON`]).
fn fi_sparse_combination(name: &str, p: &Platform, l: &LayerQuery) -> Option<String> {
    let r = p.release;
    // 0.24.0+ (the SM120 split): before, `fp8_ds_mla` is not in the class's supported_kv_cache_dtypes and
    // supports_combination does not name it (flashinfer_mla_sparse.py L104–130 in 0.23.0).
    if r >= V0_24_0 && l.kv_cache_dtype == "fp8_ds_mla" {
        return Some(format!("{name} SM10 does not support fp8_ds_mla kv-cache dtype"));
    }
    let d = dims(p, l);
    if r >= V0_30_0 {
        // A non-MLA config has no qk_nope_head_dim: vLLM raises AttributeError here ([`raises`]).
        let d = d?;
        if d.qk_rope_head_dim == 0 {
            if d.qk_nope_head_dim != 256 || d.kv_lora_rank != 512 {
                return Some(format!(
                    "FlashInfer native no-rope MLA requires qk_nope_head_dim=256 and kv_lora_rank=512, but got \
                     qk_nope_head_dim={}, kv_lora_rank={}",
                    d.qk_nope_head_dim, d.kv_lora_rank
                ));
            }
        } else if ![128, 192].contains(&d.qk_nope_head_dim) {
            return Some(format!(
                "FlashInfer MLA Sparse kernel requires qk_nope_head_dim in [128, 192], but got {}",
                d.qk_nope_head_dim
            ));
        }
    } else {
        let nope = d.map_or(1, |d| d.qk_nope_head_dim);
        if ![128, 192].contains(&nope) {
            return Some(format!(
                "FlashInfer MLA Sparse kernel requires qk_nope_head_dim in [128, 192], but got {nope}"
            ));
        }
    }
    d.and_then(|d| d.index_topk)
        .is_none()
        .then(|| "FlashInfer MLA Sparse requires model with index_topk config".to_string())
}

/// FLASH_ATTN_MLA_SPARSE_FA4's `supports_combination` (0.33.0), first hit: flashinfer importable (it is); FA4 usable
/// (`is_fa_version_supported(4)`: 9.x – 11.x; the CuTe-DSL entry point imports); `index_topk` a multiple of 128
/// ([`source::MLA_SEL_FA4_SPARSE_TOPK_REASON`]); (kv_lora_rank, qk_rope_head_dim) = (512, 64)
/// ([`source::MLA_SEL_FA4_SPARSE_DIMS_REASON`]); heads per rank × DCP in (8, 16, 32, 64, 128) ((8, 16, 32, 64) under
/// DCP, [`source::MLA_SEL_FA4_SPARSE_HEADS_REASON`]); then FLASHINFER_MLA_SPARSE's.
fn fa4_combination(p: &Platform, l: &LayerQuery) -> Option<String> {
    if !matches!(p.major(), 9..=11) {
        return Some("FA4 unavailable: FA4 is only supported on devices with compute capability 9.x, 10.x, or 11.x".into());
    }
    let d = dims(p, l);
    let topk = d.and_then(|d| d.index_topk);
    if topk.is_none_or(|k| k % 128 != 0) {
        let shown = topk.map_or("None".to_string(), |k| k.to_string());
        return Some(format!("FA4 sparse MLA requires index_topk % 128 == 0, got {shown}"));
    }
    let pair = d.map(|d| (d.kv_lora_rank, d.qk_rope_head_dim));
    if pair != Some((512, 64)) {
        let shown = pair.map_or("(None, None)".to_string(), |(a, b)| format!("({a}, {b})"));
        return Some(format!(
            "FA4 sparse MLA requires (kv_lora_rank, qk_rope_head_dim) == (512, 64), got {shown}"
        ));
    }
    let counts: &[u32] = if p.dcp > 1 { &[8, 16, 32, 64] } else { &[8, 16, 32, 64, 128] };
    if !counts.contains(&(l.q_heads * p.dcp)) {
        let shown: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
        return Some(format!(
            "FA4 sparse MLA requires ({}) gathered query heads, got num_heads={} * dcp_size={}",
            shown.join(", "),
            l.q_heads,
            p.dcp
        ));
    }
    fi_sparse_combination("FLASH_ATTN_MLA_SPARSE_FA4", p, l)
}

/// What `validate_configuration` raises instead of returning reasons: 0.30.0+ FLASHINFER_MLA_SPARSE (and, 0.33.0,
/// FLASH_ATTN_MLA_SPARSE_FA4 after its own checks) reads `hf_text_config.qk_nope_head_dim` without a default, which
/// a non-MLA model's config does not have (an `AttributeError` out of layer init, which the forced-backend path does
/// not catch). qpath does not know the config class's name vLLM's message prints, so it says so.
pub fn raises(b: Backend, p: &Platform, l: &LayerQuery) -> Option<(String, &'static Cite)> {
    let r = p.release;
    // FLASH_ATTN_MLA_SPARSE_FA4's own index_topk check returns first for a non-MLA config.
    (b == Backend::FlashInferMlaSparse && r >= V0_30_0 && dims(p, l).is_none() && l.kv_cache_dtype != "fp8_ds_mla").then(|| {
        (
            format!(
                "{QPATH_LIMIT}: --attention-backend {b} on a non-MLA model: vLLM {r}'s supports_combination reads \
                 hf_text_config.qk_nope_head_dim, which this model's config does not have, so layer init raises \
                 AttributeError ('<ConfigClass>' object has no attribute 'qk_nope_head_dim'); qpath does not know \
                 the config class's name"
            ),
            &source::MLA_SEL_FI_SPARSE_QK_NOPE_READ,
        )
    })
}

/// `get_supported_kernel_block_sizes()` of an MLA backend, as select_common_block_size sees it with the layer's KV
/// spec: FLASHMLA_SPARSE 0.32.0+ returns `[64]` for a quantized spec on 10.x, else `[MultipleOf(64)]`
/// ([`source::MLA_SEL_FLASHMLA_SPARSE_KERNEL_BLOCK_SIZES`]); the spec's cache dtype is the global one after the
/// rewrite (`Platform::global_kv`).
pub fn kernel_block_sizes(b: &Mla, p: &Platform, _q: u32, _kv: u32, t: &mut Trace) -> Option<KernelSizes> {
    let r = p.release;
    let (s, cite) = sizes(b.backend, r)?;
    let s = if b.backend == Backend::FlashMlaSparse && r >= V0_32_0 && is_quantized_kv_cache(r, &p.global_kv) && p.is_family(100)
    {
        Sizes::Exact(&[64])
    } else {
        s
    };
    t.step(
        Some(cite),
        format!("{} kernel block sizes", b.backend),
        format!("get_supported_kernel_block_sizes() = {}", s.show()),
    );
    Some(s.kernel_sizes())
}

/// 0.24.0 – 0.28.0: the selector's line for a backend whose `get_required_kv_cache_layout()` is `"HND"`
/// (FLASHINFER_MLA [`source::MLA_SEL_FI_MLA_HND_LAYOUT`], FLASHINFER_MLA_SPARSE [`source::MLA_SEL_FI_SPARSE_HND_LAYOUT`],
/// TOKENSPEED_MLA [`source::MLA_SEL_TOKENSPEED_HND_LAYOUT`]); 0.29.0 removed the method. (FLASHINFER's own, on 10.x,
/// is not restated here.)
pub fn kv_layout_log(r: Release, b: Backend) -> Option<String> {
    let hnd = matches!(
        b,
        Backend::FlashInferMla | Backend::FlashInferMlaSparse | Backend::TokenspeedMla
    );
    (r < V0_29_0 && hnd).then(|| format!("Using HND KV cache layout for {b} backend."))
}

/// `_canonicalize_sparse_mla_kv_cache_dtype` ([`source::MLA_SEL_CANON_FN`]), after the layer's backend is selected:
/// FLASHMLA_SPARSE serves any quantized cache dtype as `fp8_ds_mla` (0.30.0+ keeps `nvfp4_ds_mla`,
/// [`source::MLA_SEL_CANON_NVFP4_KEEP`]); FLASHINFER_MLA_SPARSE_SM120 serves auto / fp8 / fp8_e4m3 as `fp8_ds_mla`.
/// `Some(new)` when the dtype changes (vLLM then writes it to `cache_config.cache_dtype` and logs it).
///
/// Before 0.24.0 there is no such function: `MLAAttention.__init__` rewrites inline, FLASHMLA_SPARSE only (the SM120
/// backend does not exist), with the same outcome ([`source::MLA_SEL_CANON_FN`] cites its `if (`, L397 in 0.23.0);
/// the log line differs ([`canon_log`]).
pub fn canonical_kv(r: Release, b: Backend, kv: &str) -> Option<&'static str> {
    let quantized_on_flashmla =
        b == Backend::FlashMlaSparse && is_quantized_kv_cache(r, kv) && !(r >= V0_30_0 && kv == "nvfp4_ds_mla");
    let sm120 = b == Backend::FlashInferMlaSparseSm120 && matches!(kv, "auto" | "fp8" | "fp8_e4m3");
    (kv != "fp8_ds_mla" && (quantized_on_flashmla || sm120)).then_some("fp8_ds_mla")
}

/// The `info_once` line of the cache-format rewrite ([`source::MLA_SEL_CANON_LOG`]): 0.24.0+ names the dtype and the
/// backend; before, FLASHMLA_SPARSE's inline rewrite logs a fixed hint (mla_attention.py L404 in 0.23.0).
pub fn canon_log(r: Release, b: Backend, c: &str) -> String {
    if r >= V0_24_0 {
        format!("Using {c} KV cache format for {} backend.", b.name())
    } else {
        "Using DeepSeek's fp8_ds_mla KV cache format. To use standard fp8 kv-cache format, please set \
         `--attention-backend FLASHINFER_MLA_SPARSE`"
            .to_string()
    }
}

/// The MLA steps of a group's selection trace: the priority list and why, what vLLM checks of the install on the
/// way, and the winner's facts.
pub fn selection_steps(p: &Platform, l: &LayerQuery, (chosen, forced): (Backend, bool), t: &mut Trace) {
    let r = p.release;
    if !forced {
        let list = priorities(p, l);
        let names: Vec<&str> = list.iter().map(|b| b.name()).collect();
        let (cite, why): (&Cite, String) = match p.major() {
            10 => {
                let (cite, why) = match sparse_order(r, l) {
                    SparsePair::Quantized => (
                        &source::MLA_SEL_PRIO_SPARSE_QUANT,
                        format!(
                            "kv_cache_dtype {} is quantized: FLASHINFER_MLA_SPARSE before FLASHMLA_SPARSE",
                            l.kv_cache_dtype
                        ),
                    ),
                    SparsePair::FewHeads => (
                        &source::MLA_SEL_PRIO_SPARSE_FEW_HEADS,
                        format!(
                            "kv_cache_dtype {} is not quantized and {} heads per rank <= 16: {}FLASHINFER_MLA_SPARSE \
                             before FLASHMLA_SPARSE",
                            l.kv_cache_dtype,
                            l.q_heads,
                            if r >= V0_33_0 { "FLASH_ATTN_MLA_SPARSE_FA4, " } else { "" }
                        ),
                    ),
                    SparsePair::ManyHeads => (
                        &source::MLA_SEL_PRIO_SM100,
                        format!(
                            "kv_cache_dtype {} is not quantized and {} heads per rank > 16: FLASHMLA_SPARSE before \
                             FLASHINFER_MLA_SPARSE",
                            l.kv_cache_dtype, l.q_heads
                        ),
                    ),
                };
                t.step(Some(cite), "MLA sparse backends (10.x)", why);
                (
                    &source::MLA_SEL_PRIO_SM100_LIST,
                    format!("compute capability {} (10.x)", p.cc),
                )
            }
            12 if r >= V0_24_0 => (&source::MLA_SEL_PRIO_SM12X, format!("compute capability {} (12.x)", p.cc)),
            _ => {
                if r >= V0_30_0 {
                    t.step(
                        Some(&source::MLA_SEL_PRIO_SM90_SPARSE_HEAD512),
                        "FLASHINFER_MLA_SPARSE_SM90's place",
                        if l.head_size == 512 {
                            "head_size 512: first of the sparse backends".to_string()
                        } else {
                            format!("head_size {} is not 512: last", l.head_size)
                        },
                    );
                }
                let not = if r >= V0_24_0 { "not 10.x or 12.x" } else { "not 10.x" };
                (
                    &source::MLA_SEL_PRIO_OTHER_LIST,
                    format!("compute capability {} ({not})", p.cc),
                )
            }
        };
        t.step(
            Some(cite),
            "MLA priority list",
            format!("use_mla=True, {why}: [{}]", names.join(", ")),
        );
        for b in &list {
            install_step(*b, p, t);
        }
    } else {
        install_step(chosen, p, t);
    }
    if let Some(f) = facts(chosen, r) {
        t.step(
            Some(f.kv_cite),
            format!("{chosen} kv-cache dtypes"),
            format!(
                "kv_cache_dtype {} is in supported_kv_cache_dtypes {:?}",
                l.kv_cache_dtype, f.kv
            ),
        );
        t.step(
            Some(f.cc_cite),
            format!("{chosen} compute capability"),
            if f.majors.is_empty() {
                "supports_compute_capability: any".to_string()
            } else {
                format!("supports_compute_capability: major in {:?}; {} is", f.majors, p.cc)
            },
        );
        if let Some(bs) = l.block_size {
            t.step(
                Some(f.sizes_cite),
                format!("{chosen} kernel block size"),
                format!("--block-size {bs} is a multiple of one of {}: accepted", f.sizes.show()),
            );
        }
    }
}

/// What vLLM checks of the install while it validates `b`, and what qpath assumes of it.
fn install_step(b: Backend, p: &Platform, t: &mut Trace) {
    use Backend::*;
    let (cite, text): (&Cite, String) = match b {
        FlashMla => (
            &source::MLA_SEL_FLASHMLA_NOT_COMPILED,
            "FLASHMLA's supports_combination first checks that vllm._flashmla_C and vllm._flashmla_extension_C \
             import: the CUDA wheel ships both (assumed installed)"
                .into(),
        ),
        TokenspeedMla => (
            &source::MLA_SEL_TOKENSPEED_INSTALL_REASON,
            "TOKENSPEED_MLA's supports_combination imports tokenspeed_mla: a dependency of the Linux wheel (assumed \
             installed)"
                .into(),
        ),
        FlashInferMlaSparseSm120 => (
            &source::MLA_SEL_FI_SPARSE_SM120_API_REASON,
            format!(
                "FLASHINFER_MLA_SPARSE_SM120 checks FlashInfer's sparse MLA decode API: flashinfer {} has it",
                p.flashinfer.name()
            ),
        ),
        FlashInferMlaSparseSm90 => (
            &source::MLA_SEL_FI_SPARSE_SM90_FI_VERSION_REASON,
            format!(
                "FLASHINFER_MLA_SPARSE_SM90 checks BatchMLAPagedAttentionWrapper.run for ckv_scale_arr: flashinfer {} \
                 {}",
                p.flashinfer.name(),
                if p.flashinfer >= FiRelease::F0_6_18 {
                    "has it (0.6.18+)"
                } else {
                    "does not (before 0.6.18)"
                }
            ),
        ),
        FlashAttnMla | FlashAttnMlaSparse => (
            &source::MLA_SEL_FA_SUPPORTS_MLA,
            format!(
                "{b}: flash_attn_supports_mla() = FA3 supported and device family 9.x: {}",
                if fa_supports_mla(p) { "True" } else { "False" }
            ),
        ),
        FlashAttnMlaSparseFa4 => (
            &source::MLA_SEL_FA4_SPARSE_COMBINATION,
            "FLASH_ATTN_MLA_SPARSE_FA4 checks that flashinfer and FA4's CuTe-DSL entry point import: the CUDA wheel \
             ships both (assumed)"
                .into(),
        ),
        FlashMlaSparse | CutlassMla | FlashInferMla | FlashInferMlaSparse | TritonMla | FlashAttn | FlashInfer | TritonAttn
        | FlexAttention | TurboQuant | TritonFlashAttn | TritonFlashInfer | DeepseekV32Indexer | GdnAttn | Mamba2 | Mamba1
        | Linear | ShortConv => return,
    };
    t.step(Some(cite), format!("{b} install check"), text);
}

/// The block size `update_block_size_for_backend` picks without `--block-size` (phase 1): 0.24.0 – 0.30.0 the first
/// attention layer's backend alone ([`source::MLA_SEL_FIRST_BACKEND`]) and its `get_preferred_block_size(16)`;
/// 0.31.0+ every distinct backend in layer order ([`source::MLA_SEL_ALL_BACKENDS`]): one → its preference; all take
/// 16 → 16; else the smallest LCM of one kernel size per backend that every backend takes
/// ([`source::MLA_SEL_SHARED_BLOCK_SIZE`]), none → `ValueError` ([`source::MLA_SEL_NO_SHARED_BLOCK_SIZE_RAISE`]).
/// `backends` are in layer order (a sparse layer's indexer cache, DEEPSEEK_V32_INDEXER, before its MLA layer);
/// `sizes_of` gives each backend's kernel sizes. Returns the block size and vLLM's log line when it is not 16
/// ([`source::MLA_SEL_BLOCK_SIZE_LOG`]), or the raise's text.
pub fn preferred_block_size(
    r: Release,
    backends: &[Backend],
    sizes_of: &dyn Fn(Backend) -> Option<Sizes>,
    t: &mut Trace,
) -> Result<(u32, Option<String>), String> {
    let asked: &[Backend] = if r >= V0_31_0 {
        backends
    } else {
        &backends[..backends.len().min(1)]
    };
    let Some(&first) = asked.first() else {
        return Ok((DEFAULT_BLOCK_SIZE, None));
    };
    let mut all = Vec::with_capacity(asked.len());
    for &b in asked {
        match sizes_of(b) {
            Some(s) => all.push((b, s)),
            None => return Err(format!("{QPATH_LIMIT}: {b}'s kernel block sizes")),
        }
    }
    let names: Vec<&str> = asked.iter().map(|b| b.name()).collect();
    let shown: Vec<String> = all.iter().map(|(b, s)| format!("{b} {}", s.show())).collect();
    let block = if r < V0_31_0 {
        t.step(
            Some(&source::MLA_SEL_FIRST_BACKEND),
            "block size backend",
            format!(
                "no --block-size: _find_non_ssm_backend takes the first attention layer's backend, {first} (kernel \
                 block sizes {})",
                all[0].1.show()
            ),
        );
        all[0].1.preferred()
    } else if all.len() == 1 {
        t.step(
            Some(&source::MLA_SEL_ALL_BACKENDS),
            "block size backends",
            format!("no --block-size: the model's attention backends: {}", shown.join(", ")),
        );
        all[0].1.preferred()
    } else {
        t.step(
            Some(&source::MLA_SEL_ALL_BACKENDS),
            "block size backends",
            format!("no --block-size: the model's attention backends: {}", shown.join(", ")),
        );
        if all.iter().all(|(_, s)| s.supports(DEFAULT_BLOCK_SIZE)) {
            DEFAULT_BLOCK_SIZE
        } else {
            let mut candidates: Vec<u32> = vec![1];
            for (_, s) in &all {
                let mut next = Vec::new();
                for c in &candidates {
                    for b in s.bases() {
                        let l = lcm(*c, *b);
                        if !next.contains(&l) {
                            next.push(l);
                        }
                    }
                }
                candidates = next;
            }
            crate::order::sort_dedup(&mut candidates);
            match candidates.into_iter().find(|c| all.iter().all(|(_, s)| s.supports(*c))) {
                Some(c) => {
                    t.step(
                        Some(&source::MLA_SEL_SHARED_BLOCK_SIZE),
                        "shared block size",
                        format!("the smallest LCM of one kernel size per backend that every backend takes: {c}"),
                    );
                    c
                }
                None => {
                    let parts: Vec<String> = all.iter().map(|(b, s)| format!("{b}: {}", s.show())).collect();
                    return Err(format!(
                        "The attention backends share no supported KV cache block size ({}).",
                        parts.join("; ")
                    ));
                }
            }
        }
    };
    t.step(
        Some(&source::MLA_SEL_PREFERRED_BLOCK_SIZE),
        "preferred block size",
        if block == DEFAULT_BLOCK_SIZE {
            "16 (the default) is supported: cache_config.block_size stays 16".to_string()
        } else {
            format!("16 is not a multiple of a kernel block size: the smallest, {block}; cache_config.block_size = {block}")
        },
    );
    let log = (block != DEFAULT_BLOCK_SIZE).then(|| {
        if r >= V0_31_0 {
            format!("Setting kv cache block size to {block} for {} backend(s).", names.join("/"))
        } else {
            format!("Setting kv cache block size to {block} for {first} backend.")
        }
    });
    Ok((block, log))
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: u32, b: u32) -> u32 {
    a / gcd(a, b) * b
}
