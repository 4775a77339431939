//! Issue 21's end-to-end cases: DeepSeek-architecture (MLA) models through the whole resolve — the model, the MLA
//! backend selection, the prefill backend and the decode kernel, the query dtype of each phase, the errors — at the
//! first release of each rule and at 0.33.0. The rules' own goldens are `golden_mla_models.rs`,
//! `golden_mla_selection.rs` and `golden_mla_path.rs`; the statements are in `docs/source-notes/mla-*.md`.

mod common;
use common::run;

use qpath_core::dtype::TorchDtype::{self, BFloat16, Float8E4m3fn};
use qpath_core::report::{AttentionKind, Backend, GroupReport, Kernel, Report, ScenarioErrorKind, Verdict};

const V3: &str = "vllm serve deepseek-ai/DeepSeek-V3";
const V32: &str = "vllm serve deepseek-ai/DeepSeek-V3.2";

/// The scenario's MLA group (all its layers), which runs on `backend` without an error.
fn mla_group(r: &Report, backend: Backend) -> &GroupReport {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    let g = r.groups.iter().find(|g| g.mla.is_some()).expect("an MLA group");
    assert_eq!(g.backend, backend, "{:#?}", g.trace);
    assert_eq!((g.error.as_ref(), g.unmodelled.as_ref()), (None, None));
    assert_eq!((g.head_dim, g.num_kv_heads), (576, 1));
    g
}

/// Q dtype and kernel of the first modelled batch of each phase: (prefill, decode).
fn assert_phases(g: &GroupReport, q: (TorchDtype, TorchDtype), k: (Kernel, Kernel)) {
    assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (Some(q.0), Some(q.1)));
    assert_eq!((g.kernel.prefill, g.kernel.decode), (Some(k.0), Some(k.1)));
}

fn logged(r: &Report, g: &GroupReport, text: &str) -> bool {
    r.log_records.iter().chain(&g.log_records).any(|l| l.text == text)
}

#[test]
fn deepseek_v3_on_h200_runs_flash_attn_mla_then_flashmla_for_an_fp8_cache() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("h200", vllm, V3);
        let g = mla_group(&r, Backend::FlashAttnMla);
        assert_eq!(r.groups.len(), 1);
        assert_eq!(g.num_q_heads, 128);
        // FA3 with the latent as q_v for decodes and for prefills within the builder's 512-token split; longer prefills
        // go to the MLA prefill backend (FLASH_ATTN: FA3 on SM90).
        assert_phases(g, (BFloat16, BFloat16), (Kernel::Fa3MlaQv, Kernel::Fa3MlaQv));
        assert!(g.kernels.prefill.iter().any(|c| c.kernel == Kernel::FaVarlen3));
        let r = run("h200", vllm, &format!("{V3} --kv-cache-dtype fp8"));
        let g = mla_group(&r, Backend::FlashMla);
        assert_eq!(g.cache_dtype, "fp8");
        // FlashMLA takes the decode query quantized to FP8; prefill runs up-projected in bfloat16 on FA3.
        assert_phases(g, (BFloat16, Float8E4m3fn), (Kernel::FaVarlen3, Kernel::FlashMlaDecodeFp8));
        assert!(g.query_quant.is_some());
    }
}

#[test]
fn deepseek_v3_on_b200_runs_flashinfer_mla_with_an_fp8_decode_query_for_an_fp8_cache() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("b200", vllm, V3);
        let g = mla_group(&r, Backend::FlashInferMla);
        assert_phases(g, (BFloat16, BFloat16), (Kernel::FaVarlen4, Kernel::TrtllmGenMla));
        let r = run("b200", vllm, &format!("{V3} --kv-cache-dtype fp8"));
        let g = mla_group(&r, Backend::FlashInferMla);
        assert_phases(g, (BFloat16, Float8E4m3fn), (Kernel::FaVarlen4, Kernel::TrtllmGenMla));
    }
    // 0.24.0–0.28.0 log the HND layout FLASHINFER_MLA asks for; 0.29.0 does not.
    let r = run("b200", "0.24.0", V3);
    assert!(r
        .logs
        .iter()
        .any(|l| l == "Using HND KV cache layout for FLASHINFER_MLA backend."));
    let r = run("b200", "0.29.0", V3);
    assert!(!r.logs.iter().any(|l| l.contains("HND")));
}

#[test]
fn deepseek_v3_on_an_rtx_pro_6000_runs_triton_mla_with_a_bf16_query_even_for_an_fp8_cache() {
    for vllm in ["0.24.0", "0.33.0"] {
        for kv in ["auto", "fp8"] {
            let r = run("rtx-pro-6000-blackwell", vllm, &format!("{V3} --kv-cache-dtype {kv}"));
            let g = mla_group(&r, Backend::TritonMla);
            // TRITON_MLA dequantizes an FP8 cache in its kernel and takes the query in bfloat16.
            assert_phases(g, (BFloat16, BFloat16), (Kernel::FaVarlen2, Kernel::TritonMlaDecode));
            assert_eq!(g.query_quant, None);
            assert_eq!(r.verdict, Verdict::Serves);
        }
    }
}

#[test]
fn deepseek_v32_takes_fp8_ds_mla_on_flashmla_sparse_with_its_indexer_group() {
    for gpu in ["h200", "b200"] {
        for vllm in ["0.24.0", "0.33.0"] {
            let r = run(gpu, vllm, &format!("{V32} --kv-cache-dtype fp8_ds_mla"));
            let g = mla_group(&r, Backend::FlashMlaSparse);
            assert_eq!(g.mla.unwrap().index_topk, Some(2048));
            assert_eq!(g.cache_dtype, "fp8_ds_mla");
            assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (Some(BFloat16), Some(BFloat16)));
            assert_eq!(g.kernel.decode, Some(Kernel::FlashMlaSparseDecodeFp8));
            let ix = r
                .groups
                .iter()
                .find(|g| g.attention == AttentionKind::Indexer)
                .expect("the indexer group");
            assert_eq!(ix.backend, Backend::DeepseekV32Indexer);
            assert_eq!(ix.layers, g.layers);
            assert_eq!(
                (ix.kernel.prefill, ix.kernel.decode),
                (Some(Kernel::IndexerMqaLogits), Some(Kernel::IndexerPagedMqaLogits))
            );
        }
    }
}

#[test]
fn deepseek_v32_with_fp8_e4m3_has_no_valid_backend_on_sm90_until_0_30_0() {
    for (vllm, line) in [("0.24.0", 444), ("0.29.0", 456)] {
        let r = run("h200", vllm, &format!("{V32} --kv-cache-dtype fp8_e4m3"));
        let e = r.error.as_ref().expect("no valid backend");
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert!(e.message.starts_with(
            "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, dtype=torch.bfloat16, \
             kv_cache_dtype=fp8_e4m3, block_size=None, use_mla=True, has_sink=False, use_sparse=True,"
        ));
        assert!(
            e.message.contains("FLASHMLA_SPARSE: [kv_cache_dtype not supported]"),
            "{}",
            e.message
        );
        assert_eq!(e.source.as_deref(), Some(format!("vllm/platforms/cuda.py:{line}").as_str()));
    }
    // 0.30.0 adds FLASHINFER_MLA_SPARSE_SM90, which takes it (a bfloat16 query).
    for vllm in ["0.30.0", "0.33.0"] {
        let r = run("h200", vllm, &format!("{V32} --kv-cache-dtype fp8_e4m3"));
        let g = mla_group(&r, Backend::FlashInferMlaSparseSm90);
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (Some(BFloat16), Some(BFloat16)));
    }
    // On B200 FLASHINFER_MLA_SPARSE takes a standard fp8 cache in every release, with an FP8 query and vLLM's hint.
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("b200", vllm, &format!("{V32} --kv-cache-dtype fp8_e4m3"));
        let g = mla_group(&r, Backend::FlashInferMlaSparse);
        assert_eq!(
            (g.q_dtype.prefill, g.q_dtype.decode),
            (Some(Float8E4m3fn), Some(Float8E4m3fn))
        );
        assert!(r.logs.iter().any(|l| l.starts_with("Using standard fp8 KV cache format.")));
    }
}

#[test]
fn kimi_k2_at_tp_8_runs_eight_heads_per_rank_on_flashinfer_mla() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("b200", vllm, "vllm serve moonshotai/Kimi-K2-Instruct -tp 8");
        let g = mla_group(&r, Backend::FlashInferMla);
        assert_eq!(g.num_q_heads, 8);
        assert_phases(g, (BFloat16, BFloat16), (Kernel::FaVarlen4, Kernel::TrtllmGenMla));
        assert!(
            logged(&r, g, "Setting kv cache block size to 32 for FLASHINFER_MLA backend.")
                || logged(&r, g, "Setting kv cache block size to 32 for FLASHINFER_MLA backend(s).")
        );
    }
}

#[test]
fn deepseek_v2_lite_on_an_l4_runs_triton_mla_and_fa2_prefill() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("l4", vllm, "vllm serve deepseek-ai/DeepSeek-V2-Lite");
        let g = mla_group(&r, Backend::TritonMla);
        assert_eq!(g.num_q_heads, 16);
        assert_eq!(g.mla.unwrap().q_lora_rank, None);
        assert_phases(g, (BFloat16, BFloat16), (Kernel::FaVarlen2, Kernel::TritonMlaDecode));
        assert_eq!(
            r.logs,
            vec!["Using TRITON_MLA attention backend out of potential backends: ['TRITON_MLA']."]
        );
    }
}

#[test]
fn an_mla_backend_the_gpu_cannot_run_is_refused_with_vllms_text() {
    for (vllm, line) in [("0.24.0", 415), ("0.33.0", 443)] {
        let r = run("h100-sxm", vllm, &format!("{V3} --attention-backend CUTLASS_MLA"));
        let e = r.error.as_ref().unwrap();
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(
            e.message,
            "Selected backend AttentionBackendEnum.CUTLASS_MLA is not valid for this configuration. Reason: \
             ['compute capability not supported']"
        );
        assert_eq!(e.source.as_deref(), Some(format!("vllm/platforms/cuda.py:{line}").as_str()));
        assert_eq!(r.verdict, Verdict::Fails);
    }
    // A non-MLA model on an MLA cache dtype: no backend takes fp8_ds_mla for a standard layer.
    let r = run(
        "h100-sxm",
        "0.33.0",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8_ds_mla",
    );
    assert!(r
        .error
        .as_ref()
        .unwrap()
        .message
        .starts_with("No valid attention backend found"));
}
