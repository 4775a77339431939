//! The MLA backends' selection and paths in the old releases 0.20.0-0.23.0 against 0.24.0 (the sources are
//! `vllm-<X>/vllm/…`; `docs/source-notes/mla-selection.md`, `mla-path.md`):
//!
//! - Priority lists (platforms/cuda.py): TOKENSPEED_MLA joins the 10.x list in 0.21.0 (cuda.py:116@0.21.0); 12.x has
//!   its own list (TRITON_MLA, FLASHINFER_MLA_SPARSE_SM120) from 0.24.0 (cuda.py:130@0.24.0), before that 12.x takes
//!   the "other" list (cuda.py:120@0.20.x, :124@0.21.0-0.23.0), where no sparse backend takes 12.x.
//! - Backends that do not exist: TOKENSPEED_MLA before 0.21.0, FLASHINFER_MLA_SPARSE_SM120 before 0.24.0: the
//!   release's own `AttentionBackendEnum` rejects the name (registry.py:29).
//! - FLASHINFER_MLA_SPARSE's `supports_combination` names `fp8_ds_mla` from 0.24.0 only.
//! - FLASHMLA_SPARSE's head sizes: [512, 576] in 0.20.x-0.21.0 (flashmla_sparse.py:121@0.21.0), [576] from 0.22.0.
//! - The sparse cache-format rewrite: inline in `MLAAttention.__init__` before 0.24.0 (mla_attention.py:397/403/405
//!   @0.23.0) with DeepSeek's fixed hint; `_canonicalize_sparse_mla_kv_cache_dtype` and its own log line from 0.24.0.
//! - TRITON_MLA's builder: none before 0.22.0, so MLACommonMetadataBuilder's inherited NEVER (backend.py:519).
//! - The MLA prefill: no selector in 0.20.x (MLACommonImpl.__init__ picks from the attention config,
//!   mla_attention.py:2243@0.20.x; a sparse impl has none); 0.21.0 migrates the deprecated flags
//!   (config/attention.py:107-141@0.21.0); 0.21.0-0.23.0 check `requires_r1_mla_dimensions` (prefill/base.py:67
//!   @0.23.0) and print `is_r1_compatible`.
//! - The DSA indexer logs its decode path from 0.24.0 (indexer.py:276@0.24.0) only.

mod common;
use common::mla::{GLM, V3, V32};
use common::run;

use qpath_core::attention::{Backend, CgSupport, GroupErrorKind, Kernel, Phases, Stage};
use qpath_core::backends::{rules, Engine, GroupContext, LayerQuery};
use qpath_core::capability::{ComputeCapability, CudaVersion};
use qpath_core::dtype::TorchDtype;
use qpath_core::model::{AttentionKind, MlaDims};
use qpath_core::platform::Platform;
use qpath_core::release::Release::{self, *};
use qpath_core::report::{GroupReport, LogLevel, Report};
use qpath_core::serve::{AttentionConfig, CudaGraphs};

const DSV3: &str = "vllm serve deepseek-ai/DeepSeek-V3";
const DSV32: &str = "vllm serve deepseek-ai/DeepSeek-V3.2";

/// The scenario's MLA group (no scenario error).
fn mla_group(r: &Report) -> &GroupReport {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    r.groups.iter().find(|g| g.mla.is_some()).expect("an MLA group")
}

/// The scenario's DEEPSEEK_V32_INDEXER group.
fn indexer_group(r: &Report) -> &GroupReport {
    r.groups
        .iter()
        .find(|g| g.backend == Backend::DeepseekV32Indexer)
        .expect("an indexer group")
}

/// A trace step whose rule is `rule`, with its outcome and cited `file:line` (from `vllm/`).
fn step<'a>(g: &'a GroupReport, rule: &str) -> (&'a str, String) {
    let s = g
        .trace
        .iter()
        .find(|s| s.rule == rule)
        .unwrap_or_else(|| panic!("no step {rule:?} in {:#?}", g.trace));
    (s.outcome.as_ref(), s.source().unwrap_or_default())
}

/// Whether the scenario logged `text` at `file:line` (from `vllm/`), in the scenario's or the group's records.
fn logged_at(r: &Report, g: &GroupReport, at: &str, text: &str) -> bool {
    r.log_records
        .iter()
        .chain(&g.log_records)
        .any(|l| l.text == text && l.location() == at)
}

fn logged(r: &Report, g: &GroupReport, text: &str) -> bool {
    r.log_records.iter().chain(&g.log_records).any(|l| l.text == text)
}

/// The default MLA backend and kernels of DeepSeek-V3 (dense) and DeepSeek-V3.2 (sparse) on H100, B200 and an SM120
/// GPU with a bf16 and an fp8 cache: every old release answers as 0.24.0 except where a rule changed (12.x sparse).
#[test]
fn default_backends_per_release() {
    use Backend::*;
    use Kernel as K;
    // (gpu, model, kv) -> (backend, cache dtype, prefill kernel, decode kernel)
    let cases: [(&str, &str, &str, Backend, &str, Kernel, Kernel); 10] = [
        ("h100-sxm", DSV3, "auto", FlashAttnMla, "auto", K::Fa3MlaQv, K::Fa3MlaQv),
        ("h100-sxm", DSV3, "fp8", FlashMla, "fp8", K::FaVarlen3, K::FlashMlaDecodeFp8),
        (
            "h100-sxm",
            DSV32,
            "auto",
            FlashMlaSparse,
            "auto",
            K::FlashMlaSparseFwd,
            K::FlashMlaSparseFwd,
        ),
        (
            "h100-sxm",
            DSV32,
            "fp8",
            FlashMlaSparse,
            "fp8_ds_mla",
            K::FlashMlaSparseFwd,
            K::FlashMlaSparseDecodeFp8,
        ),
        ("b200", DSV3, "auto", FlashInferMla, "auto", K::FaVarlen4, K::TrtllmGenMla),
        ("b200", DSV3, "fp8", FlashInferMla, "fp8", K::FaVarlen4, K::TrtllmGenMla),
        (
            "b200",
            DSV32,
            "auto",
            FlashMlaSparse,
            "auto",
            K::FlashMlaSparseFwd,
            K::FlashMlaSparseFwd,
        ),
        (
            "b200",
            DSV32,
            "fp8",
            FlashInferMlaSparse,
            "fp8",
            K::TrtllmGenMlaSparse,
            K::TrtllmGenMlaSparse,
        ),
        (
            "rtx-pro-6000-blackwell",
            DSV3,
            "auto",
            TritonMla,
            "auto",
            K::FaVarlen2,
            K::TritonMlaDecode,
        ),
        (
            "rtx-pro-6000-blackwell",
            DSV3,
            "fp8",
            TritonMla,
            "fp8",
            K::FaVarlen2,
            K::TritonMlaDecode,
        ),
    ];
    for vllm in ["0.20.0", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0", "0.24.0"] {
        for (gpu, model, kv, backend, cache, prefill, decode) in cases {
            let r = run(gpu, vllm, &format!("{model} --kv-cache-dtype {kv}"));
            let g = mla_group(&r);
            let what = format!("{gpu} {vllm} {model} {kv}");
            assert_eq!(g.backend, backend, "{what}");
            assert_eq!((g.error.as_ref(), g.unmodelled.as_ref()), (None, None), "{what}");
            assert_eq!(g.cache_dtype, cache, "{what}");
            assert_eq!((g.kernel.prefill, g.kernel.decode), (Some(prefill), Some(decode)), "{what}");
        }
    }
}

/// 10.x: TOKENSPEED_MLA is second in 0.21.0+ and absent before (cuda.py:111 is the list's `return [` in both).
#[test]
fn tokenspeed_joins_the_sm100_list_in_0_21_0() {
    let r = run("b200", "0.20.0", DSV3);
    let (outcome, at) = step(mla_group(&r), "MLA priority list");
    assert_eq!(
        outcome,
        "use_mla=True, compute capability 10.0 (10.x): [FLASHINFER_MLA, CUTLASS_MLA, FLASH_ATTN_MLA, FLASHMLA, \
         TRITON_MLA, FLASHMLA_SPARSE, FLASHINFER_MLA_SPARSE]"
    );
    assert_eq!(at, "vllm/platforms/cuda.py:111");
    assert!(logged(
        &r,
        mla_group(&r),
        "Using FLASHINFER_MLA attention backend out of potential backends: ['FLASHINFER_MLA', 'CUTLASS_MLA', \
         'TRITON_MLA']."
    ));
    for vllm in ["0.21.0", "0.23.0"] {
        let r = run("b200", vllm, DSV3);
        let (outcome, at) = step(mla_group(&r), "MLA priority list");
        assert_eq!(
            outcome,
            "use_mla=True, compute capability 10.0 (10.x): [FLASHINFER_MLA, TOKENSPEED_MLA, CUTLASS_MLA, \
             FLASH_ATTN_MLA, FLASHMLA, TRITON_MLA, FLASHMLA_SPARSE, FLASHINFER_MLA_SPARSE]"
        );
        assert_eq!(at, "vllm/platforms/cuda.py:111");
    }
    // DeepSeek-V3 with an fp8 cache: TOKENSPEED_MLA is valid (R1 dims, fp8) but behind FLASHINFER_MLA.
    let r = run("b200", "0.21.0", &format!("{DSV3} --kv-cache-dtype fp8"));
    assert!(logged(
        &r,
        mla_group(&r),
        "Using FLASHINFER_MLA attention backend out of potential backends: ['FLASHINFER_MLA', 'TOKENSPEED_MLA', \
         'CUTLASS_MLA', 'TRITON_MLA']."
    ));
    let r = run("b200", "0.20.0", &format!("{DSV3} --kv-cache-dtype fp8"));
    assert!(logged(
        &r,
        mla_group(&r),
        "Using FLASHINFER_MLA attention backend out of potential backends: ['FLASHINFER_MLA', 'CUTLASS_MLA', \
         'TRITON_MLA']."
    ));
}

/// A backend the release does not have is no `AttentionBackendEnum` member: `--attention-backend` naming it meets the
/// release's own "Unknown attention backend" (registry.py:29, every release); in the release that has it, it runs.
#[test]
fn backends_that_do_not_exist_yet_are_unknown_names() {
    for (vllm, name) in [
        ("0.20.0", "TOKENSPEED_MLA"),
        ("0.20.2", "TOKENSPEED_MLA"),
        ("0.20.0", "FLASHINFER_MLA_SPARSE_SM120"),
        ("0.23.0", "FLASHINFER_MLA_SPARSE_SM120"),
        ("0.23.0", "FLASHINFER_MLA_SPARSE_SM90"),
        ("0.23.0", "FLASH_ATTN_MLA_SPARSE"),
    ] {
        let r = run("b200", vllm, &format!("{DSV3} --attention-backend {name}"));
        let e = r.error.as_ref().unwrap_or_else(|| panic!("{vllm} {name}: no error"));
        // vLLM's ValueError (the kind; the message is its text).
        assert_eq!(e.kind, qpath_core::report::ScenarioErrorKind::ValueError, "{vllm} {name}");
        assert!(
            e.message
                .starts_with(&format!("Unknown attention backend: '{name}'. Valid options are: ")),
            "{vllm} {name}: {}",
            e.message
        );
        let valid = e.message.split("Valid options are: ").nth(1).unwrap();
        assert!(!valid.split(", ").any(|v| v == name), "{vllm}: {valid}");
    }
    let r = run(
        "b200",
        "0.21.0",
        &format!("{DSV3} --kv-cache-dtype fp8 --attention-backend TOKENSPEED_MLA"),
    );
    let g = mla_group(&r);
    assert_eq!(g.backend, Backend::TokenspeedMla);
    assert_eq!(g.kernel.decode, Some(Kernel::TokenspeedMlaDecode));
    let r = run(
        "rtx-pro-6000-blackwell",
        "0.24.0",
        &format!("{DSV32} --attention-backend FLASHINFER_MLA_SPARSE_SM120"),
    );
    assert_eq!(mla_group(&r).backend, Backend::FlashInferMlaSparseSm120);
}

/// 12.x before 0.24.0 takes the "other" list; no sparse backend takes 12.x, so DeepSeek-V3.2 has no valid backend
/// (0.24.0 runs FLASHINFER_MLA_SPARSE_SM120). DeepSeek-V3 runs TRITON_MLA in both, from a different list.
#[test]
fn sm120_before_0_24_0_has_no_sparse_backend() {
    for (vllm, line, kv_connector) in [
        ("0.20.0", 120, ""),
        ("0.21.0", 124, ""),
        ("0.22.1", 124, ""),
        ("0.23.0", 124, ", use_kv_connector=False"),
    ] {
        let r = run("rtx-pro-6000-blackwell", vllm, DSV3);
        let g = mla_group(&r);
        assert_eq!(g.backend, Backend::TritonMla);
        let (outcome, at) = step(g, "MLA priority list");
        assert_eq!(
            outcome,
            "use_mla=True, compute capability 12.0 (not 10.x): [FLASH_ATTN_MLA, FLASHMLA, FLASHINFER_MLA, TRITON_MLA, \
             FLASHMLA_SPARSE]"
        );
        assert_eq!(at, format!("vllm/platforms/cuda.py:{line}"));
        for kv in ["auto", "fp8"] {
            let r = run("rtx-pro-6000-blackwell", vllm, &format!("{DSV32} --kv-cache-dtype {kv}"));
            let e = r.error.as_ref().expect("no valid backend");
            assert_eq!(
                e.message,
                format!(
                    "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, \
                     dtype=torch.bfloat16, kv_cache_dtype={kv}, block_size=None, use_mla=True, has_sink=False, \
                     use_sparse=True, use_mm_prefix=False, use_per_head_quant_scales=False, \
                     attn_type=AttentionType.DECODER, use_non_causal=False, use_batch_invariant=False{kv_connector}). \
                     Reasons: {{FLASH_ATTN_MLA: [{}sparse not supported, compute capability not supported, \
                     FlashAttention MLA not supported on this device], FLASHMLA: [sparse not supported, compute \
                     capability not supported, FlashMLA Sparse is only supported on Hopper and Blackwell DC devices.], \
                     FLASHINFER_MLA: [sparse not supported, compute capability not supported], TRITON_MLA: [sparse not \
                     supported], FLASHMLA_SPARSE: [compute capability not supported]}}.",
                    if kv == "fp8" { "kv_cache_dtype not supported, " } else { "" }
                ),
                "{vllm} {kv}"
            );
        }
    }
    let r = run("rtx-pro-6000-blackwell", "0.24.0", DSV3);
    let (outcome, at) = step(mla_group(&r), "MLA priority list");
    assert_eq!(
        outcome,
        "use_mla=True, compute capability 12.0 (12.x): [TRITON_MLA, FLASHINFER_MLA_SPARSE_SM120]"
    );
    assert_eq!(at, "vllm/platforms/cuda.py:130");
    let r = run("rtx-pro-6000-blackwell", "0.24.0", DSV32);
    let g = mla_group(&r);
    assert_eq!(g.backend, Backend::FlashInferMlaSparseSm120);
    assert_eq!(g.cache_dtype, "fp8_ds_mla");
}

/// DeepSeek-V3.2 with an fp8 cache on H100: FLASHMLA_SPARSE serves it as `fp8_ds_mla` in every release; before 0.24.0
/// the rewrite is inline with DeepSeek's hint, from 0.24.0 `_canonicalize_sparse_mla_kv_cache_dtype` logs the format.
#[test]
fn sparse_cache_format_rewrite_and_its_log_line() {
    let old = "Using DeepSeek's fp8_ds_mla KV cache format. To use standard fp8 kv-cache format, please set \
               `--attention-backend FLASHINFER_MLA_SPARSE`";
    let new = "Using fp8_ds_mla KV cache format for FLASHMLA_SPARSE backend.";
    for (vllm, fn_line, wb_line, log_line) in [
        ("0.20.0", 390, 396, 398),
        ("0.21.0", 388, 394, 396),
        ("0.22.0", 397, 403, 405),
        ("0.23.0", 397, 403, 405),
        ("0.24.0", 323, 418, 420),
    ] {
        let r = run("h100-sxm", vllm, &format!("{DSV32} --kv-cache-dtype fp8"));
        let g = mla_group(&r);
        assert_eq!((g.backend, g.cache_dtype.as_str()), (Backend::FlashMlaSparse, "fp8_ds_mla"));
        let f = "vllm/model_executor/layers/attention/mla_attention.py";
        let (_, at) = step(g, "sparse MLA cache format");
        assert_eq!(at, format!("{f}:{fn_line}"), "{vllm}");
        let (outcome, at) = step(g, "cache_config.cache_dtype");
        assert_eq!(
            outcome,
            "cache_config.cache_dtype = fp8_ds_mla: every later layer asks the selector with fp8_ds_mla"
        );
        assert_eq!(at, format!("{f}:{wb_line}"), "{vllm}");
        let text = if vllm == "0.24.0" { new } else { old };
        let at = format!("mla_attention.py:{log_line}");
        assert!(logged_at(&r, g, &at, text), "{vllm}: {:#?}", r.log_records);
        assert!(!logged(&r, g, if vllm == "0.24.0" { old } else { new }), "{vllm}");
    }
}

/// FLASHINFER_MLA_SPARSE forced with `fp8_ds_mla` on B200: 0.23.0's class does not list the dtype and its
/// `supports_combination` does not name it; 0.24.0 adds the SM10 text.
#[test]
fn flashinfer_mla_sparse_names_fp8_ds_mla_from_0_24_0() {
    let cmd = format!("{DSV32} --kv-cache-dtype fp8_ds_mla --attention-backend FLASHINFER_MLA_SPARSE");
    let e = run("b200", "0.23.0", &cmd).error.expect("invalid");
    assert!(
        e.message.ends_with("Reason: ['kv_cache_dtype not supported']"),
        "{}",
        e.message
    );
    let e = run("b200", "0.24.0", &cmd).error.expect("invalid");
    assert!(
        e.message.ends_with(
            "Reason: ['kv_cache_dtype not supported', 'FLASHINFER_MLA_SPARSE SM10 does not support fp8_ds_mla \
             kv-cache dtype']"
        ),
        "{}",
        e.message
    );
}

/// A platform and an MLA layer query for `validate_configuration` directly.
fn platform(release: Release, cc: (u8, u8), kv: &str) -> Platform {
    Platform {
        release,
        flashinfer: release.flashinfer_pin(),
        cc: ComputeCapability {
            major: cc.0,
            minor: cc.1,
        },
        cuda: CudaVersion { major: 12, minor: 9 },
        cubins: true,
        batch_invariant: false,
        model_dtype: TorchDtype::BFloat16,
        force_trtllm: None,
        disable_q_quant: false,
        flash_attn_version: None,
        dcp: 1,
        page_size: 64,
        global_kv: kv.to_string(),
        graphs: CudaGraphs {
            mode: "FULL_AND_PIECEWISE".to_string(),
            set_by: "the test".into(),
        },
        resolved_graphs: None,
        model_mla: None,
        attention_chunk_size: None,
    }
}

fn query(dims: MlaDims, heads: u32, kv: &str) -> LayerQuery {
    LayerQuery {
        head_size: dims.head_size(),
        kv_cache_dtype: kv.to_string(),
        has_sinks: false,
        sliding_window: false,
        q_heads: heads,
        kv_heads: 1,
        block_size: None,
        use_mm_prefix: false,
        use_per_head_quant_scales: false,
        use_non_causal: false,
        use_dcp: false,
        mla: Some(dims),
    }
}

/// FLASHMLA_SPARSE's `get_supported_head_sizes`: [512, 576] in 0.20.x-0.21.0 (DeepSeek-V4's 448 + 64 beside V3.2's),
/// [576] from 0.22.0 (flashmla_sparse.py:121@0.21.0, :124@0.22.0).
#[test]
fn flashmla_sparse_takes_head_512_before_0_22_0() {
    let d512 = MlaDims {
        kv_lora_rank: 448,
        ..V32
    };
    for (r, ok) in [
        (V0_20_0, true),
        (V0_21_0, true),
        (V0_22_0, false),
        (V0_23_0, false),
        (V0_24_0, false),
    ] {
        let reasons = qpath_core::selection::reasons(
            &platform(r, (9, 0), "auto"),
            Backend::FlashMlaSparse,
            &query(d512, 128, "auto"),
        );
        assert_eq!(reasons.is_empty(), ok, "{r}: {reasons:?}");
        if !ok {
            assert_eq!(reasons, vec!["head_size not supported".to_string()], "{r}");
        }
        let reasons = qpath_core::selection::reasons(
            &platform(r, (9, 0), "auto"),
            Backend::FlashMlaSparse,
            &query(V32, 128, "auto"),
        );
        assert!(reasons.is_empty(), "{r}: {reasons:?}");
    }
}

/// TRITON_MLA's CUDA-graph support: NEVER before 0.22.0 (no builder of its own: MLACommonMetadataBuilder inherits
/// backend.py:519), so the default FULL_AND_PIECEWISE falls back to PIECEWISE; UNIFORM_BATCH from 0.22.0
/// (triton_mla.py:33).
#[test]
fn triton_mla_cuda_graphs_before_0_22_0() {
    for vllm in ["0.20.0", "0.21.0"] {
        let r = run("rtx-pro-6000-blackwell", vllm, DSV3);
        let cg = r.cuda_graphs.as_ref().expect("a CUDA-graph report");
        assert_eq!(cg.support, Some(CgSupport::Never), "{vllm}");
        assert_eq!(cg.mode, "PIECEWISE", "{vllm}");
        assert_eq!(
            cg.trace[0].source().as_deref(),
            Some("vllm/v1/attention/backend.py:519"),
            "{vllm}"
        );
        assert!(r.logs.iter().any(|l| l
            == "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with TritonMLABackend backend (support: \
                AttentionCGSupport.NEVER); setting cudagraph_mode=PIECEWISE because attention is compiled piecewise"));
    }
    for vllm in ["0.22.0", "0.23.0", "0.24.0"] {
        let r = run("rtx-pro-6000-blackwell", vllm, DSV3);
        let cg = r.cuda_graphs.as_ref().expect("a CUDA-graph report");
        assert_eq!(cg.support, Some(CgSupport::UniformBatch), "{vllm}");
        assert_eq!(
            cg.trace[0].source().as_deref(),
            Some("vllm/v1/attention/backends/mla/triton_mla.py:33"),
            "{vllm}"
        );
    }
}

/// 0.20.x has no MLA prefill selector: a dense layer's impl logs its FlashAttention prefill (FA4 on B200, FA3 on H100)
/// at mla_attention.py:2267, where 0.21.0+ logs the selected prefill backend; a sparse layer selects none.
#[test]
fn prefill_in_0_20_x_defaults_to_flash_attention() {
    for vllm in ["0.20.0", "0.20.1", "0.20.2"] {
        for (gpu, kernel) in [("b200", Kernel::FaVarlen4), ("h100-sxm", Kernel::FaVarlen3)] {
            let r = run(gpu, vllm, &format!("{DSV3} --kv-cache-dtype fp8"));
            let g = mla_group(&r);
            assert!(g.kernels.prefill.iter().any(|c| c.kernel == kernel), "{vllm} {gpu}");
            assert!(logged_at(
                &r,
                g,
                "mla_attention.py:2267",
                "Using FlashAttention prefill for MLA"
            ));
            assert!(!r.logs.iter().chain(&g.logs).any(|l| l.contains("MLA prefill backend")));
            let (outcome, at) = step(g, "MLA prefill (MLACommonImpl.__init__, no prefill selector before 0.21.0)");
            assert!(outcome.starts_with(
                "use_trtllm_ragged_deepseek_prefill=False, disable_flashinfer_prefill=True, use_cudnn_prefill=False; "
            ));
            assert_eq!(at, "vllm/model_executor/layers/attention/mla_attention.py:2243");
            let (_, at) = step(g, "FLASH_ATTN MLA prefill");
            assert_eq!(at, "vllm/model_executor/layers/attention/mla_attention.py:2276");
            // The FP8-prefill hint needs a FlashInfer / TRT-LLM prefill: not with FlashAttention.
            assert_eq!(g.q_dtype.prefill, Some(TorchDtype::BFloat16));
        }
        let r = run("h100-sxm", vllm, DSV32);
        let g = mla_group(&r);
        assert_eq!(g.kernel.prefill, Some(Kernel::FlashMlaSparseFwd));
        assert!(!r.logs.iter().chain(&g.logs).any(|l| l.contains("prefill")), "{:?}", g.logs);
    }
    for vllm in ["0.21.0", "0.24.0"] {
        let r = run("b200", vllm, DSV3);
        let g = mla_group(&r);
        assert!(logged(&r, g, "Using FLASH_ATTN MLA prefill backend."), "{vllm}");
        assert!(!logged(&r, g, "Using FlashAttention prefill for MLA"), "{vllm}");
    }
    let r = run("h100-sxm", "0.21.0", DSV32);
    assert!(logged(&r, mla_group(&r), "Using FLASH_ATTN MLA prefill backend."));
}

/// A group resolved directly (its rules), with `--attention-config` entries.
fn group(
    release: Release,
    cc: (u8, u8),
    device: &str,
    backend: Backend,
    dims: MlaDims,
    kv: &str,
    config: &[(&str, &str)],
) -> GroupReport {
    let p = platform(release, cc, kv);
    let mut ac = AttentionConfig::default();
    for (k, v) in config {
        ac.other.push((k.to_string(), v.to_string()));
    }
    let engine = Engine {
        attention_config: &ac,
        device,
        hybrid: false,
        checkpoint: None,
        fa_window_configs: 1,
        drafter: false,
        unclamped_window: false,
    };
    let q = query(dims, 128, kv);
    let quantized = !matches!(kv, "auto" | "float16" | "bfloat16");
    let mut g = GroupReport {
        head_dim: dims.head_size(),
        num_q_heads: 128,
        num_kv_heads: 1,
        mla: Some(dims),
        ..GroupReport::unresolved(
            vec![0, 1, 2],
            AttentionKind::Full,
            backend,
            if quantized { kv.into() } else { "auto".into() },
            vec![],
        )
    };
    let cx = GroupContext {
        engine: &engine,
        query: Some(&q),
        recurrent: None,
    };
    let rules = rules(backend);
    rules.resolve_group(&p, &cx, &mut g);
    g
}

fn record(g: &GroupReport, level: LogLevel, at: &str, text: &str) -> bool {
    g.log_records
        .iter()
        .any(|l| l.level == level && l.location() == at && l.text == text)
}

/// 0.20.x's attention-config flags: TRT-LLM ragged or FlashInfer prefill on the SM100 family with R1 dims (FlashInfer
/// only with `disable_flashinfer_prefill` false), FlashAttention otherwise; cuDNN is not modelled.
#[test]
fn prefill_flags_in_0_20_x() {
    let b200 = (V0_20_0, (10, 0), "NVIDIA B200");
    let g = group(
        b200.0,
        b200.1,
        b200.2,
        Backend::FlashInferMla,
        V3,
        "fp8",
        &[("use_trtllm_ragged_deepseek_prefill", "true")],
    );
    assert_eq!(g.kernel.prefill, Some(Kernel::TrtllmRaggedDeepseek));
    assert!(record(
        &g,
        LogLevel::Info,
        "mla_attention.py:2244",
        "Using TRT-LLM ragged DeepSeek prefill for MLA"
    ));
    assert!(g
        .trace
        .iter()
        .any(|s| s.source().as_deref() == Some("vllm/model_executor/layers/attention/mla_attention.py:2477")));
    // With an fp8 cache and a TRT-LLM prefill, 0.20.x's builder hints at FP8 prefill queries.
    assert_eq!(g.q_dtype.prefill, Some(TorchDtype::BFloat16));
    assert!(g.log_records.iter().any(|l| l.level == LogLevel::Warning
        && l.location() == "mla_attention.py:1553"
        && l.text
            .starts_with("FP8 KV cache is enabled but prefill queries are not quantized to FP8.")));

    let g = group(
        b200.0,
        b200.1,
        b200.2,
        Backend::FlashInferMla,
        V3,
        "auto",
        &[("disable_flashinfer_prefill", "false")],
    );
    assert_eq!(g.kernel.prefill, Some(Kernel::FlashInferRaggedCutlass));
    assert!(record(
        &g,
        LogLevel::Info,
        "mla_attention.py:2251",
        "Using FlashInfer prefill for MLA"
    ));
    // ... not with GLM's dims (not R1): FlashAttention.
    let g = group(
        b200.0,
        b200.1,
        b200.2,
        Backend::FlashInferMla,
        GLM,
        "auto",
        &[("disable_flashinfer_prefill", "false")],
    );
    assert!(
        matches!(g.kernel.prefill, Some(Kernel::FaVarlen2 | Kernel::FaVarlen4)),
        "{:?}",
        g.kernel
    );
    // ... nor on H100.
    let g = group(
        V0_20_0,
        (9, 0),
        "NVIDIA H100 80GB HBM3",
        Backend::FlashAttnMla,
        V3,
        "auto",
        &[("use_trtllm_ragged_deepseek_prefill", "true")],
    );
    assert!(g.kernels.prefill.iter().any(|c| c.kernel == Kernel::FaVarlen3));
    assert!(record(
        &g,
        LogLevel::Info,
        "mla_attention.py:2267",
        "Using FlashAttention prefill for MLA"
    ));
    // cuDNN prefill: not modelled.
    let g = group(
        b200.0,
        b200.1,
        b200.2,
        Backend::FlashInferMla,
        V3,
        "auto",
        &[("use_cudnn_prefill", "true")],
    );
    assert!(g
        .unmodelled
        .as_deref()
        .is_some_and(|u| u.starts_with("qpath cannot model this: vLLM 0.20.x's cuDNN MLA prefill")));
}

/// 0.21.0 migrates the deprecated flags to `mla_prefill_backend` with a warning each (config/attention.py:127, :137);
/// `use_cudnn_prefill` is a config error qpath does not model.
#[test]
fn deprecated_prefill_flags_in_0_21_0() {
    let g = group(
        V0_21_0,
        (10, 0),
        "NVIDIA B200",
        Backend::FlashInferMla,
        V3,
        "auto",
        &[
            ("use_trtllm_ragged_deepseek_prefill", "true"),
            ("disable_flashinfer_prefill", "true"),
        ],
    );
    assert_eq!(g.kernel.prefill, Some(Kernel::TrtllmRaggedDeepseek));
    assert!(record(
        &g,
        LogLevel::Warning,
        "attention.py:127",
        "use_trtllm_ragged_deepseek_prefill is deprecated and will be removed in v0.22. Use \
         --attention-config.mla_prefill_backend=TRTLLM_RAGGED instead."
    ));
    assert!(record(
        &g,
        LogLevel::Warning,
        "attention.py:137",
        "disable_flashinfer_prefill is deprecated and will be removed in v0.22. Use \
         --attention-config.mla_prefill_backend=FLASH_ATTN instead."
    ));
    assert!(record(
        &g,
        LogLevel::Info,
        "selector.py:126",
        "Using TRTLLM_RAGGED MLA prefill backend."
    ));
    // An explicit mla_prefill_backend wins without the warnings.
    let g = group(
        V0_21_0,
        (10, 0),
        "NVIDIA B200",
        Backend::FlashInferMla,
        V3,
        "auto",
        &[
            ("mla_prefill_backend", "\"FLASHINFER\""),
            ("use_trtllm_ragged_deepseek_prefill", "true"),
        ],
    );
    assert_eq!(g.kernel.prefill, Some(Kernel::FlashInferRaggedCutlass));
    assert!(!g
        .log_records
        .iter()
        .any(|l| l.level == LogLevel::Warning && l.text.contains("deprecated")));
    let g = group(
        V0_21_0,
        (10, 0),
        "NVIDIA B200",
        Backend::FlashInferMla,
        V3,
        "auto",
        &[("use_cudnn_prefill", "true")],
    );
    assert!(g.unmodelled.as_deref().is_some_and(|u| u.contains("use_cudnn_prefill")));
}

/// 0.21.0-0.23.0's prefill backends other than FLASH_ATTN need DeepSeek R1's dims (`requires_r1_mla_dimensions`):
/// TRTLLM_RAGGED forced for GLM's dims raises at layer init; 0.24.0 lists GLM's dims for it.
#[test]
fn prefill_backends_need_r1_dims_before_0_24_0() {
    for r in [V0_21_0, V0_22_0, V0_23_0] {
        let g = group(
            r,
            (10, 0),
            "NVIDIA B200",
            Backend::FlashInferMla,
            GLM,
            "auto",
            &[("mla_prefill_backend", "\"TRTLLM_RAGGED\"")],
        );
        let e = g.error.as_ref().expect("refused");
        assert_eq!((e.kind, e.stage), (GroupErrorKind::ValueError, Stage::Init));
        assert_eq!(
            e.message,
            "Selected MLA prefill backend TRTLLM_RAGGED is not valid for this configuration. Reason: ['model does not \
             have DeepSeek R1 MLA dimensions (qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128)']",
            "{r}"
        );
        assert_eq!(
            e.source.as_deref(),
            Some("vllm/v1/attention/backends/mla/prefill/selector.py:120"),
            "{r}"
        );
        // The automatic choice prints the old selector config.
        let g = group(r, (10, 0), "NVIDIA B200", Backend::FlashInferMla, V3, "auto", &[]);
        assert!(g.trace.iter().any(|s| s.outcome
            == "FLASH_ATTN: the first valid for MLAPrefillSelectorConfig(dtype=torch.bfloat16, is_r1_compatible=True)"));
    }
    let g = group(
        V0_24_0,
        (10, 0),
        "NVIDIA B200",
        Backend::FlashInferMla,
        GLM,
        "auto",
        &[("mla_prefill_backend", "\"TRTLLM_RAGGED\"")],
    );
    assert!(g.error.is_none());
    assert_eq!(g.kernel.prefill, Some(Kernel::TrtllmRaggedDeepseek));
}

/// The DSA indexer logs its decode path from 0.24.0 only; its kernels and cites are the same.
#[test]
fn indexer_decode_path_log_from_0_24_0() {
    for (vllm, blocks_line) in [("0.20.0", 125), ("0.22.0", 125), ("0.23.0", 125), ("0.24.0", 125)] {
        let r = run("h100-sxm", vllm, DSV32);
        let g = indexer_group(&r);
        assert_eq!(
            g.kernel,
            Phases {
                prefill: Some(Kernel::IndexerMqaLogits),
                decode: Some(Kernel::IndexerPagedMqaLogits)
            }
        );
        let (_, at) = step(g, "indexer cache");
        assert_eq!(at, format!("vllm/v1/attention/backends/mla/indexer.py:{blocks_line}"));
        let logs = r.logs.iter().chain(&g.logs).any(|l| l.starts_with("DSA indexer decode path"));
        assert_eq!(logs, vllm == "0.24.0", "{vllm}");
        let (_, at) = step(g, "indexer decode split");
        assert_eq!(
            at,
            format!(
                "vllm/v1/attention/backends/mla/indexer.py:{}",
                if vllm == "0.24.0" { 267 } else { 269 }
            )
        );
    }
}

/// FLASHINFER_MLA_SPARSE's class is `FlashInferMLASparseBackend` before 0.24.0 (flashinfer_mla_sparse.py:55
/// @0.20.0-0.23.0), `FlashInferMLASparseTRTLLMBackend` from 0.24.0: the name the CUDA-graph resolution carries.
#[test]
fn flashinfer_mla_sparse_class_name_before_0_24_0() {
    for (vllm, class) in [
        ("0.20.0", "FlashInferMLASparseBackend"),
        ("0.23.0", "FlashInferMLASparseBackend"),
        ("0.24.0", "FlashInferMLASparseTRTLLMBackend"),
    ] {
        let r = run("b200", vllm, &format!("{DSV32} --kv-cache-dtype fp8"));
        assert_eq!(mla_group(&r).backend, Backend::FlashInferMlaSparse);
        let cg = r.cuda_graphs.as_ref().expect("a CUDA-graph report");
        assert_eq!(cg.min_backend.as_deref(), Some(class), "{vllm}");
        assert_eq!(cg.trace[0].rule, format!("{class} CUDA-graph support"), "{vllm}");
    }
}
