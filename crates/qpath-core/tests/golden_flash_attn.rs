//! Golden cases for FLASH_ATTN (`qpath_core::backends::flash_attn`, `docs/source-notes/flash-attn.md`): the FA
//! version each layer runs, the query dtype of prefill and decode (the attention layer's FP8 quantization and its
//! scale), the kernel, the refusals and raises, each at the rule's first release and at 0.33.0. Texts and lines are
//! the released wheels' (`vllm-<VER>/vllm/v1/attention/backends/{flash_attn,fa_utils}.py`,
//! `model_executor/layers/attention/attention.py`, `config/cache.py`).

mod common;
use common::run;
use qpath_core::dtype::TorchDtype::{BFloat16, Float8E4m3fn};
use qpath_core::report::{
    Backend, CgSupport, GroupErrorKind, GroupReport, Kernel, LogLevel, LogRecord, Report, ScenarioErrorKind, Stage, Verdict,
};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const GPT_OSS: &str = "vllm serve openai/gpt-oss-20b";

/// Every group runs on FLASH_ATTN without an error; they are returned.
fn fa_groups(r: &Report) -> &[GroupReport] {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    assert!(!r.groups.is_empty());
    for g in &r.groups {
        assert_eq!(g.backend, Backend::FlashAttn, "{g:?}");
        assert_eq!(g.error, None, "{:?}", g.error);
        assert_eq!(g.unmodelled, None);
    }
    &r.groups
}

/// One kernel for both phases (no prefill/decode split), with no condition, and the query dtype of both phases.
fn assert_one_kernel(g: &GroupReport, kernel: Kernel, q: qpath_core::dtype::TorchDtype) {
    assert_eq!((g.kernel.prefill, g.kernel.decode), (Some(kernel), Some(kernel)));
    for choices in [&g.kernels.prefill, &g.kernels.decode] {
        assert_eq!(choices.len(), 1);
        assert_eq!((choices[0].kernel, choices[0].when.as_deref()), (kernel, None));
    }
    assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (Some(q), Some(q)));
}

fn record<'a>(records: &'a [LogRecord], text: &str) -> &'a LogRecord {
    records
        .iter()
        .find(|l| l.text == text)
        .unwrap_or_else(|| panic!("no log record {text:?} in {records:#?}"))
}

fn assert_record(records: &[LogRecord], level: LogLevel, location: &str, text: &str) {
    let l = record(records, text);
    assert_eq!((l.level, l.location().as_str()), (level, location), "{text}");
}

/// A trace step with this rule exists and cites `source`.
fn assert_step(g: &GroupReport, rule: &str, source: &str) {
    assert!(
        g.trace
            .iter()
            .any(|s| s.rule == rule && s.source().as_deref() == Some(source)),
        "no step {rule:?} citing {source} in {:#?}",
        g.trace
    );
}

#[test]
fn llama_on_h100_runs_fa3_with_aot_metadata_and_a_bf16_query_in_every_release() {
    for (vllm, info_line, aot_line) in [("0.24.0", 670, 428), ("0.33.0", 1122, 835)] {
        let r = run("h100-sxm", vllm, LLAMA);
        let g = &fa_groups(&r)[0];
        assert_one_kernel(g, Kernel::FaVarlen3Aot, BFloat16);
        assert_eq!(g.query_quant, None);
        assert_eq!(g.cudagraph_support, Some(CgSupport::Always));
        assert_record(
            &g.log_records,
            LogLevel::Info,
            &format!("flash_attn.py:{info_line}"),
            "Using FlashAttention version 3",
        );
        assert_step(
            g,
            "AOT scheduling",
            &format!("vllm/v1/attention/backends/flash_attn.py:{aot_line}"),
        );
        assert_eq!(r.verdict, Verdict::Serves);
        assert_eq!(r.cuda_graphs.as_ref().unwrap().mode, "FULL_AND_PIECEWISE");
    }
}

#[test]
fn an_fp8_cache_on_h100_gives_fa3_an_fp8_query_with_scale_one_and_only_the_cache_config_line() {
    for (vllm, cache_line) in [("0.24.0", 279), ("0.33.0", 484)] {
        let r = run("h100-sxm", vllm, &format!("{LLAMA} --kv-cache-dtype fp8"));
        let g = &fa_groups(&r)[0];
        assert_eq!(g.cache_dtype, "fp8");
        assert_one_kernel(g, Kernel::FaVarlen3Aot, Float8E4m3fn);
        let q = g.query_quant.as_ref().expect("the layer quantizes the query");
        assert_eq!((q.granularity.as_str(), q.q_scale.as_str()), ("per_tensor", "1.0"));
        assert!(q.why.starts_with("no quantization_config"), "{}", q.why);
        // vLLM's only line about the scale: CacheConfig's validator, at engine-config time.
        assert_record(
            &r.log_records,
            LogLevel::Info,
            &format!("cache.py:{cache_line}"),
            "Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. \
             Meanwhile, it may cause accuracy drop without a proper scaling factor",
        );
        // No kv_cache.py warning: the bf16 checkpoint has no quant method.
        assert!(!r
            .log_records
            .iter()
            .chain(&g.log_records)
            .any(|l| l.text.contains("q scaling factor")));
    }
}

#[test]
fn an_fp8_cache_on_fa2_gpus_refuses_flash_attn_with_each_releases_reasons() {
    let cases = [
        ("0.24.0", "['kv_cache_dtype not supported']"),
        ("0.26.0", "['kv_cache_dtype not supported']"),
        (
            "0.27.0",
            "['kv_cache_dtype not supported', 'FP8 KV cache requires FA3 on SM90 or FA4 on SM100']",
        ),
        (
            "0.33.0",
            "['kv_cache_dtype not supported', 'FP8 KV cache requires FA3 on SM90, FA4 with head_size=512 on SM90, \
             or FA4 on SM100']",
        ),
    ];
    for gpu in ["a100-80gb", "l4"] {
        for (vllm, reasons) in cases {
            let forced = run(
                gpu,
                vllm,
                &format!("{LLAMA} --kv-cache-dtype fp8 --attention-backend FLASH_ATTN"),
            );
            let e = forced.error.as_ref().expect("forced FLASH_ATTN is refused");
            assert_eq!(e.kind, ScenarioErrorKind::ValueError);
            assert_eq!(
                e.message,
                format!(
                    "Selected backend AttentionBackendEnum.FLASH_ATTN is not valid for this configuration. Reason: \
                     {reasons}"
                )
            );
            assert_eq!(forced.verdict, Verdict::Fails);
            // Unforced, selection moves on to FLASHINFER, and the trace names FLASH_ATTN's reasons.
            let auto = run(gpu, vllm, &format!("{LLAMA} --kv-cache-dtype fp8"));
            let g = &auto.groups[0];
            assert_eq!(g.backend, Backend::FlashInfer);
            let refused = g
                .trace
                .iter()
                .find(|s| s.rule == "backend FLASH_ATTN (priority order)")
                .unwrap();
            let listed = reasons.trim_start_matches('[').trim_end_matches(']').replace('\'', "");
            assert_eq!(refused.outcome, format!("rejected: {listed}"));
        }
    }
}

#[test]
fn rtx_5090_runs_fa2_whose_builder_keeps_cuda_graphs_to_uniform_batches() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("rtx-5090", vllm, LLAMA);
        let g = &fa_groups(&r)[0];
        assert_one_kernel(g, Kernel::FaVarlen2, BFloat16);
        assert_record(
            &g.log_records,
            LogLevel::Info,
            &g.log_records
                .iter()
                .find(|l| l.text.starts_with("Using FlashAttention"))
                .unwrap()
                .location(),
            "Using FlashAttention version 2",
        );
        assert_eq!(g.cudagraph_support, Some(CgSupport::UniformBatch));
        assert_eq!(r.cuda_graphs.as_ref().unwrap().mode, "FULL_AND_PIECEWISE");
    }
}

#[test]
fn fa3_forced_on_b200_falls_back_to_fa4_with_vllms_warning() {
    let cmd = format!("{LLAMA} --attention-backend FLASH_ATTN -ac.flash_attn_version=3");
    for (vllm, line, support) in [("0.24.0", 100, CgSupport::UniformBatch), ("0.33.0", 121, CgSupport::Always)] {
        let r = run("b200", vllm, &cmd);
        let g = &fa_groups(&r)[0];
        assert_one_kernel(g, Kernel::FaVarlen4, BFloat16);
        let warning = "Cannot use FA version 3 on Blackwell platform, defaulting to FA version 4 if supported, otherwise FA2.";
        assert_record(&g.log_records, LogLevel::Warning, &format!("fa_utils.py:{line}"), warning);
        assert_eq!(g.warnings, vec![warning.to_string()]);
        assert_eq!(g.cudagraph_support, Some(support));
    }
    // On SM120 the same override ends in FA2 (FA4 is not supported there).
    let r = run("rtx-5090", "0.33.0", &cmd);
    assert_one_kernel(&fa_groups(&r)[0], Kernel::FaVarlen2, BFloat16);
}

#[test]
fn an_fa_version_the_gpu_cannot_run_is_logged_and_the_first_forward_asserts() {
    for (vllm, error_line, assert_line) in [("0.24.0", 177, 728), ("0.33.0", 212, 1217)] {
        let r = run("a100-80gb", vllm, &format!("{LLAMA} -ac.flash_attn_version=3"));
        let g = &r.groups[0];
        assert_eq!(g.backend, Backend::FlashAttn);
        assert_record(
            &g.log_records,
            LogLevel::Error,
            &format!("fa_utils.py:{error_line}"),
            "Cannot use FA version 3 is not supported due to FA3 is only supported on devices with compute capability 9.x",
        );
        assert_record(
            &g.log_records,
            LogLevel::Info,
            &g.log_records
                .iter()
                .find(|l| l.text.starts_with("Using FlashAttention"))
                .unwrap()
                .location(),
            "Using FlashAttention version None",
        );
        let e = g.error.as_ref().expect("the memory profile's forward asserts");
        assert_eq!((e.kind, e.stage), (GroupErrorKind::AssertionError, Stage::ProfileRun));
        assert_eq!(e.message, "FlashAttention version not detected.");
        assert_eq!(
            e.source.as_deref(),
            Some(format!("vllm/v1/attention/backends/flash_attn.py:{assert_line}").as_str())
        );
        assert_eq!((g.kernel.prefill, g.kernel.decode), (None, None));
        assert_eq!(r.verdict, Verdict::Fails);
    }
}

#[test]
fn gpt_oss_on_h100_runs_fa3_with_sinks_and_no_aot_metadata_for_its_two_windows() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("h100-sxm", vllm, GPT_OSS);
        let groups = fa_groups(&r);
        assert_eq!(groups.len(), 2);
        for g in groups {
            assert!(g.has_sinks);
            assert_one_kernel(g, Kernel::FaVarlen3, BFloat16);
            assert!(g.trace.iter().any(|s| s.rule == "AOT scheduling"
                && s.outcome
                    .contains("2 sliding-window configs: the first build() turns aot_schedule off")));
        }
    }
}

#[test]
fn gpt_oss_on_sm120_refuses_flash_attn_for_its_sinks() {
    for vllm in ["0.24.0", "0.33.0"] {
        let forced = run(
            "rtx-pro-6000-blackwell",
            vllm,
            &format!("{GPT_OSS} --attention-backend FLASH_ATTN"),
        );
        let e = forced.error.as_ref().unwrap();
        assert_eq!(
            e.message,
            "Selected backend AttentionBackendEnum.FLASH_ATTN is not valid for this configuration. Reason: \
             ['attention sinks not supported']"
        );
        let auto = run("rtx-pro-6000-blackwell", vllm, GPT_OSS);
        for g in &auto.groups {
            assert_ne!(g.backend, Backend::FlashAttn);
            let refused = g
                .trace
                .iter()
                .find(|s| s.rule == "backend FLASH_ATTN (priority order)")
                .unwrap();
            assert_eq!(refused.outcome, "rejected: attention sinks not supported");
        }
    }
    // Below SM90 the combination reason joins it.
    let forced = run("a100-80gb", "0.33.0", &format!("{GPT_OSS} --attention-backend FLASH_ATTN"));
    assert!(forced
        .error
        .as_ref()
        .unwrap()
        .message
        .ends_with("Reason: ['attention sinks not supported', 'sink not supported on compute capability < 9.0']"));
}

#[test]
fn an_fp8_cache_on_b200_reaches_fa4_from_0_27_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype fp8 --attention-backend FLASH_ATTN");
    let refused = run("b200", "0.26.0", &cmd);
    assert!(refused
        .error
        .as_ref()
        .unwrap()
        .message
        .ends_with("Reason: ['kv_cache_dtype not supported']"));
    for vllm in ["0.27.0", "0.33.0"] {
        let r = run("b200", vllm, &cmd);
        let g = &fa_groups(&r)[0];
        assert_one_kernel(g, Kernel::FaVarlen4, Float8E4m3fn);
    }
}

#[test]
fn batch_invariance_turns_fa4_into_fa2_with_vllms_warning() {
    let r = run(
        "b200",
        "0.33.0",
        &format!("VLLM_BATCH_INVARIANT=1 {LLAMA} --attention-backend FLASH_ATTN"),
    );
    let g = &fa_groups(&r)[0];
    assert_one_kernel(g, Kernel::FaVarlen2, BFloat16);
    assert_record(
        &g.log_records,
        LogLevel::Warning,
        "fa_utils.py:172",
        "Cannot use FA version 4 with batch invariance, defaulting to FA version 2.",
    );
}

#[test]
fn a_composites_flash_attn_child_counts_for_the_aot_window_check_from_0_31_0() {
    // gemma-3-4b's language-model layers ask with mm-prefix from 0.33.0 and land on TRITON_FLASH_ATTN on H100; its
    // FA child sees two window configs (sliding and full layers), so the first build() turns AOT scheduling off.
    let r = run("h100-sxm", "0.33.0", "vllm serve google/gemma-3-4b-it");
    for g in &r.groups {
        assert_eq!(g.backend, Backend::TritonFlashAttn);
        assert_eq!(g.kernel.decode, Some(Kernel::FaVarlen3));
        assert_step(g, "AOT scheduling", "vllm/v1/attention/backends/flash_attn.py:852");
        assert!(g
            .kernels
            .prefill
            .iter()
            .any(|c| c.kernel == Kernel::TritonUnified2d && c.when.is_some()));
    }
}
