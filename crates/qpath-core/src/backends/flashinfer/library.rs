//! The FlashInfer library (the flashinfer-python installed: the release's pin, or the version the scenario names): how
//! a wrapper's `backend="auto"` resolves to fa2 or fa3, and what its JIT generators and XQA reject. Every rule here is
//! keyed on [`Platform::flashinfer`] (compared with `<` / `>=` only), not on the vLLM release; lines in
//! [`crate::source`] (`FLASHINFER_*`), resolved at the installed FlashInfer.

use crate::attention::GroupErrorKind::{self, RuntimeError, ValueError};
use crate::attention::{Kernel, Phases, Stage};
use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::release::FlashInfer::*;
use crate::source::{self, Cite};

/// `determine_attention_backend` (with vLLM's arguments: no custom mask, no RoPE, no fp16 QK reduction):
/// fa3 iff `is_sm90a_supported` (major 9, torch CUDA >= 12.3) and `is_fa3_backend_supported` (not an FP8 KV cache under
/// a 16-bit query; from FlashInfer 0.6.11.post2 not a uint8/NVFP4 cache) and, from FlashInfer 0.6.16.post3 (pinned by
/// vLLM 0.27.0+), head dims in {64, 128, 256} ([`crate::source::FLASHINFER_FA3_HEAD_DIMS`]).
/// Returns the kernel and the reason.
pub fn determine(p: &Platform, q: TorchDtype, kv: TorchDtype, head_dim: u32) -> (Kernel, String) {
    if !p.sm90a() {
        let why = if p.major() == 9 {
            "torch CUDA below 12.3".to_string()
        } else {
            format!("{} is not SM90 (FA3 needs sm90a)", p.arch())
        };
        return (Kernel::Fa2, format!("fa2: {why}"));
    }
    if kv.is_fp8() && !q.is_fp8() {
        return (
            Kernel::Fa2,
            format!("fa2: FA3 needs an FP8 query over an FP8 KV cache, the query is {q}"),
        );
    }
    // `if dtype_kv == torch.uint8: return False` arrived in FlashInfer 0.6.11.post2 (utils.py:430); 0.6.8.post1 lets
    // FA3 take a uint8 cache (vLLM 0.21.0's NVFP4 wrappers name `backend="trtllm-gen"`, so it never asks "auto").
    if kv == TorchDtype::Uint8 && p.flashinfer >= F0_6_11Post2 {
        return (Kernel::Fa2, "fa2: FA3 does not read an NVFP4 (uint8) KV cache".into());
    }
    if p.fi_has_fa3_head_dim_rule() && !matches!(head_dim, 64 | 128 | 256) {
        return (
            Kernel::Fa2,
            format!(
                "fa2: FlashInfer {} runs FA3 only for head dims 64, 128, 256 (this group: {head_dim})",
                p.flashinfer
            ),
        );
    }
    (
        Kernel::Fa3,
        format!("fa3: sm90a with CUDA {}, {q} query over {kv} KV, head_dim {head_dim}", p.cuda),
    )
}

/// The text of FlashInfer's FA2 FP8-query assertion (`gen_batch_prefill_module`, reused by tensor-core decode).
pub const FA2_FP8_ASSERT: &str = "fp8 tensor core is not supported in fa2 backend";

/// FA2 modules with head_dim > 256 are compiled only for some architectures: the allowed majors, or `None` when every
/// architecture that reaches FlashInfer (vLLM's floor is SM80) is allowed. vLLM builds FlashInfer's batch-*prefill*
/// module for both phases (its tensor-core decode wrapper plans that module too), so the prefill module's flags rule
/// both (`_fa2_head_dim_nvcc_flags`, from 0.6.16.post3 `_fa2_prefill_head_dim_nvcc_flags`):
/// - FlashInfer 0.6.12 / 0.6.13 (pinned by vLLM 0.24.0–0.25.x): no restriction;
/// - 0.6.14 (vLLM 0.26.0): any head_dim > 256 → majors 10, 11, 12;
/// - 0.6.16.post3 – 0.7.0.post1 (vLLM 0.27.0–0.32.0): an FP8 KV cache → 10, 11, 12 (16-bit and NVFP4 from SM80);
/// - 0.7.2.post1 (vLLM 0.33.0): from SM80 for every cache.
///
/// Keyed on the installed FlashInfer.
pub fn fa2_large_head_majors(p: &Platform, kv: TorchDtype, head_dim: u32) -> Option<&'static [u8]> {
    const BLACKWELL: &[u8] = &[10, 11, 12];
    if head_dim <= 256 {
        return None;
    }
    let f = p.flashinfer;
    let restricted = if f < F0_6_14 {
        false
    } else if f < F0_6_16Post3 {
        true
    } else if f < F0_7_2Post1 {
        kv.is_fp8()
    } else {
        false
    };
    restricted.then_some(BLACKWELL)
}

/// XQA's checks at the first decode call, in their order, as (exception type, message, the line that raises, stage):
/// `xqa()` checks the architecture before it asks for its module ([`crate::source::FLASHINFER_XQA_ARCH`], in
/// `forward()`), then `gen_xqa_module` generates the JIT module and checks the query dtype, page size and head dim.
/// `head_group_ratio` is query heads per KV head; vLLM's decodes are one token (`q_seq_len` 1).
pub fn xqa_rejects(
    p: &Platform,
    q: TorchDtype,
    head_dim: u32,
    head_group_ratio: u32,
) -> Option<(GroupErrorKind, String, Cite, Stage)> {
    if !matches!(p.major(), 9 | 10 | 12) {
        return Some((
            RuntimeError,
            "XQA is only supported on SM90, SM100, SM120/SM121 GPUs".into(),
            source::FLASHINFER_XQA_ARCH,
            Stage::DecodeForward,
        ));
    }
    xqa_module_rejects(p, q, head_dim, head_group_ratio).map(|(k, m, c)| (k, m, c, Stage::DecodeJit))
}

/// `gen_xqa_module`'s checks, in their order.
fn xqa_module_rejects(
    p: &Platform,
    q: TorchDtype,
    head_dim: u32,
    head_group_ratio: u32,
) -> Option<(GroupErrorKind, String, Cite)> {
    if !q.is_16bit() {
        return Some((
            ValueError,
            format!(
                "Invalid dtype: {} for XQA, only float16 and bfloat16 input are supported",
                q.torch_repr()
            ),
            source::FLASHINFER_XQA_Q_DTYPE,
        ));
    }
    if ![16, 32, 64, 128].contains(&p.page_size) {
        return Some((
            ValueError,
            format!("Invalid page_size: {}, only 16, 32, 64, 128 are supported", p.page_size),
            source::FLASHINFER_XQA_PAGE_SIZE,
        ));
    }
    // `gen_xqa_module`'s head_dim bound ([`crate::source::FLASHINFER_XQA_HEAD_DIM`]): 512 from FlashInfer 0.6.18.
    let max = if p.flashinfer >= F0_6_18 { 512 } else { 256 };
    if !(16..=max).contains(&head_dim) || head_dim % 16 != 0 {
        return Some((
            ValueError,
            format!("Invalid head_dim: {head_dim}, must be divisible by 16 and in range [16, {max}]"),
            source::FLASHINFER_XQA_HEAD_DIM,
        ));
    }
    // From FlashInfer 0.6.18, a head_dim above 256 needs at most 16 query heads per KV head
    // ([`crate::source::FLASHINFER_XQA_LARGE_HEAD_GROUP`]; its `q_seq_len > 1` check never fires for one-token decodes).
    if p.flashinfer >= F0_6_18 && head_dim > 256 && head_group_ratio > 16 {
        return Some((
            ValueError,
            format!("head_dim {head_dim} > 256 requires head_group_ratio <= 16, got {head_group_ratio}"),
            source::FLASHINFER_XQA_LARGE_HEAD_GROUP,
        ));
    }
    None
}

/// FlashInfer's native paged prefill on SM75 (Turing), which only vLLM 0.20.0–0.23.0 select (0.24.0 raised
/// FlashInfer's floor to SM80): from FlashInfer 0.6.11.post2 (vLLM 0.22.0's pin) users report
/// `BatchPrefillWithPagedKVCache failed with error invalid argument` on T4 (vLLM issue #44379, PR #44403; FlashInfer
/// issue #3620, fix #3621), and an FP8 KV cache's paged prefill crashing on SM75 (vLLM PR #47949). Not a Python check:
/// a CUDA launch failure qpath cannot predict per build, so the group answers "qpath cannot model this". A 16-bit cache
/// under 0.6.8.post1 (vLLM 0.20.x, 0.21.0) is what the reports have running.
pub fn sm75_paged_prefill_unknown(p: &Platform, fp8_cache: bool) -> Option<String> {
    if p.major() != 7 {
        return None;
    }
    if p.flashinfer >= F0_6_11Post2 {
        return Some(format!(
            "qpath cannot model this: FlashInfer {}'s paged prefill on {}: from FlashInfer 0.6.11.post2 users report \
             \"BatchPrefillWithPagedKVCache failed with error invalid argument\" on Turing (vLLM issue #44379, \
             FlashInfer issue #3620), which no Python check raises",
            p.flashinfer,
            p.arch()
        ));
    }
    fp8_cache.then(|| {
        format!(
            "qpath cannot model this: FlashInfer {}'s paged prefill over an FP8 KV cache on {}: users report it \
             crashing on Turing (vLLM PR #47949), which no Python check raises",
            p.flashinfer,
            p.arch()
        )
    })
}

/// An NVFP4 (uint8) cache planned into an FA2 / FA3 module (vLLM 0.32.0+'s `nvfp4_fa2` path on SM80/SM90/SM120) under a
/// FlashInfer before 0.6.11.post2 (a `--flashinfer` older than the pin): those modules map `torch.uint8` to `uint8_t`
/// and take no block-scale tensors (0.6.11.post2 added `dtype_map_kv`'s `__nv_fp4x2_e2m1` and `maybe_k_cache_sf`,
/// jit/attention/modules.py), so what the kernel does is a compile or run failure no Python check raises.
pub fn nvfp4_fa_module_unknown(p: &Platform, nvfp4: bool, kernel: Phases<Option<Kernel>>) -> Option<String> {
    let fa = |k: Option<Kernel>| matches!(k, Some(Kernel::Fa2 | Kernel::Fa3));
    (nvfp4 && p.flashinfer < F0_6_11Post2 && (fa(kernel.prefill) || fa(kernel.decode))).then(|| {
        format!(
            "qpath cannot model this: an NVFP4 KV cache in FlashInfer {}'s fa2/fa3 modules, which read no NVFP4 \
             (0.6.11.post2 added it)",
            p.flashinfer
        )
    })
}
