//! DEEPSEEK_V32_INDEXER: the lightning indexer's cache beside each sparse MLA layer (DeepSeek-V3.2, GLM-5), a fixed
//! backend `get_attn_backend` never selects (`v1/attention/backends/mla/indexer.py`; its op
//! `model_executor/layers/sparse_attn_indexer.py`). Its group runs the indexer's kernels: per prefill chunk DeepGEMM's
//! `fp8_fp4_mqa_logits` over the gathered FP8 keys and `top_k_per_row_prefill`; per decode batch DeepGEMM's
//! `fp8_fp4_paged_mqa_logits` over the paged cache and a top-k kernel. The query is the indexer's FP8 query (one
//! scale per 128 values), the cache uint8 (FP8 keys and one float32 scale per 128 values). `docs/source-notes/mla-path.md`
//! §4 and `mla-models.md` §3.4.

use crate::attention::{CgSupport, Kernel, Phases, QPATH_LIMIT};
use crate::backends::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery};
use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::release::Release::*;
use crate::report::{GroupReport, KernelChoice};
use crate::source;
use crate::trace::Trace;

/// The indexer cache's rules.
pub struct Indexer;

/// `--attention-config` keys that switch the indexer to its MXFP4 cache (qpath models the FP8 one).
const FP4_KEYS: [&str; 2] = ["use_fp4_indexer_cache", "indexer_kv_dtype"];

impl BackendRules for Indexer {
    fn class_name(&self) -> &'static str {
        "DeepseekV32IndexerBackend"
    }

    fn reasons(&self, _p: &Platform, _l: &LayerQuery) -> Vec<String> {
        vec!["DEEPSEEK_V32_INDEXER: a fixed backend, not selected per attention layer".to_string()]
    }

    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let r = p.release;
        let other = &cx.engine.attention_config.other;
        let fp4 = other
            .iter()
            .any(|(k, v)| FP4_KEYS.contains(&k.as_str()) && !matches!(v.as_str(), "false" | "null" | "\"fp8\"" | "0"));
        if fp4 {
            g.unmodelled = Some(format!("{QPATH_LIMIT}: the DeepSeek-V3.2 indexer's MXFP4 cache"));
            return;
        }
        let mut t = Trace::new(r);
        t.flashinfer = p.flashinfer;
        t.step(
            Some(&source::MLA_PATH_INDEXER_BLOCKS),
            "indexer cache",
            "DeepseekV32IndexerCache: one uint8 row per token, index_head_dim FP8 keys and one float32 scale per 128 \
             values (132 bytes for DeepSeek-V3.2), whatever --kv-cache-dtype says; kernel block size 64",
        );
        t.step(
            Some(&source::MLA_PATH_HAS_DEEP_GEMM),
            "has_deep_gemm()",
            "True: the wheel vendors DeepGEMM (vllm.third_party.deep_gemm), so the indexer op's DeepGEMM check passes",
        );
        // The speculative tokens are not in the group context: the builder is described without them.
        let n_spec = 0u32;
        let next_n = 1 + n_spec;
        let sm100 = p.is_family(100);
        // 0.24.0+ logs the decode path; before, the builder decides use_flattening without a log line (indexer.py
        // L275 in 0.23.0: flattened only for a next_n other than 1 or 2, which qpath's next_n = 1 is not).
        if r >= V0_24_0 {
            let log = if r < V0_28_0 {
                format!("DSA indexer decode path: use_flattening=False (next_n={next_n}, use_fp4_indexer_cache=False)")
            } else {
                format!(
                    "DSA indexer decode path: use_flattening=False supports_varlen={} (next_n={next_n}, \
                     use_fp4_cache=False)",
                    if sm100 { "True" } else { "False" }
                )
            };
            t.info(&source::MLA_PATH_INDEXER_LOG, log);
        }
        t.step(
            Some(&source::MLA_PATH_INDEXER_REORDER),
            "indexer decode split",
            if r < V0_26_0 {
                "reorder_batch_threshold = 1 + num_speculative_tokens (1 without speculative decoding): requests of one \
                 query token are decodes"
            } else {
                "reorder_batch_threshold = None (the indexer takes no part in the runner's reorder vote); its own split \
                 counts requests of ≤ next_n = 1 + num_speculative_tokens query tokens as decodes"
            },
        );
        let fp8 = TorchDtype::Float8E4m3fn;
        t.step(
            Some(&source::MLA_PATH_INDEXER_PREFILL_LOGITS),
            "indexer prefill",
            format!(
                "per chunk: cp_gather_indexer_k_quant_cache, then the {fp8} query against the gathered keys: {}",
                Kernel::IndexerMqaLogits.call()
            ),
        );
        t.step(
            Some(&source::MLA_PATH_INDEXER_DECODE_LOGITS),
            "indexer decode",
            format!(
                "the {fp8} query against the paged cache (next_n = {next_n} query rows per request): {}",
                Kernel::IndexerPagedMqaLogits.call()
            ),
        );
        g.q_dtype = Phases {
            prefill: Some(fp8),
            decode: Some(fp8),
        };
        g.kernel = Phases {
            prefill: Some(Kernel::IndexerMqaLogits),
            decode: Some(Kernel::IndexerPagedMqaLogits),
        };
        g.kernels = Phases {
            prefill: vec![KernelChoice::always(Kernel::IndexerMqaLogits)],
            decode: vec![KernelChoice::always(Kernel::IndexerPagedMqaLogits)],
        };
        crate::backends::take_trace(g, t);
    }

    /// `DeepseekV32IndexerMetadataBuilder.get_cudagraph_support`: UNIFORM_BATCH 0.24.0–0.27.0; 0.28.0+ ALWAYS when the
    /// varlen paged MQA-logits kernel is there (CUDA SM100 family with DeepGEMM, which the wheel vendors), 0.29.0+ also
    /// when the decode path flattens (a speculative query length the GPU's kernel does not take natively; not without
    /// speculative decoding); else UNIFORM_BATCH.
    fn cudagraph_support(&self, p: &Platform, _g: &GroupReport, _q: u32, _nc: bool) -> CgDecision {
        let r = p.release;
        let (support, why) = if r < V0_28_0 {
            (
                CgSupport::UniformBatch,
                "the indexer builder's get_cudagraph_support".to_string(),
            )
        } else if p.is_family(100) {
            (
                CgSupport::Always,
                "the varlen paged MQA-logits kernel is available (SM100 family, DeepGEMM vendored)".to_string(),
            )
        } else {
            (
                CgSupport::UniformBatch,
                format!(
                    "no varlen paged MQA-logits kernel on {}{}",
                    p.arch(),
                    if r >= V0_29_0 {
                        " and no flattened decode without speculative decoding"
                    } else {
                        ""
                    }
                ),
            )
        };
        CgDecision {
            support,
            cite: &source::MLA_PATH_INDEXER_CG,
            why,
        }
    }

    /// `get_supported_kernel_block_sizes()`: `[64]` on CUDA, every release.
    fn kernel_block_sizes(&self, _p: &Platform, _q: u32, _kv: u32, t: &mut Trace) -> Option<KernelSizes> {
        t.step(
            Some(&source::MLA_PATH_INDEXER_BLOCKS),
            "DEEPSEEK_V32_INDEXER kernel block sizes",
            "[64] on CUDA",
        );
        Some(KernelSizes::Exact(vec![64]))
    }
}
