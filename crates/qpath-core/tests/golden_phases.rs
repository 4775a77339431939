//! Golden cases for issue 12's classes, each at the first release with the behaviour and at 0.33.0, re-derived from
//! the released vLLM and FlashInfer sources (docs/source-notes/phases-and-stages.md has the statements and lines):
//! both phases' own errors and which one the engine meets first; the stage where each error really fires (the
//! memory profile, `__init__`, a wrapper's `plan()`, FlashInfer's JIT module, `forward()`); NVFP4 on the SM100 family;
//! decode-context parallelism with quantized caches; an FP8 query over an `fp8_e5m2` cache on SM90; FlashInfer's
//! JIT architecture lists for head_dim 512.

use qpath_core::release::Release::{self, *};
use qpath_core::report::GroupErrorKind::{self, AssertionError, AttributeError, RuntimeError, ValueError};
use qpath_core::report::{GroupReport, Kernel, Report, Stage};
use qpath_core::resolve::{resolve, Hardware, Scenario};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const FI: &str = "--attention-backend FLASHINFER";

fn run(gpu: &str, release: Release, args: &str) -> Report {
    let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), release, format!("{LLAMA} {args}"));
    s.trtllm_cubins = Some(true);
    resolve(&s)
}

fn group0(r: &Report) -> &GroupReport {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    r.groups
        .iter()
        .find(|g| g.layers.contains(&0))
        .expect("a group holds layer 0")
}

type Want<'a> = Option<(GroupErrorKind, &'a str, Stage)>;

/// The group of layer 0: (prefill's own error, decode's own error, the first error), as (type, text, stage).
fn phases(r: &Report) -> (Want<'_>, Want<'_>, Want<'_>) {
    let g = group0(r);
    (want(&g.phase_errors.prefill), want(&g.phase_errors.decode), want(&g.error))
}

fn want(e: &Option<qpath_core::report::GroupError>) -> Want<'_> {
    e.as_ref().map(|e| (e.kind, e.message.as_str(), e.stage))
}

fn kernels(r: &Report) -> (Option<Kernel>, Option<Kernel>) {
    let g = group0(r);
    (g.kernel.prefill, g.kernel.decode)
}

const FA2_FP8: &str = "fp8 tensor core is not supported in fa2 backend";
const NO_NVFP4: &str = "module 'torch' has no attribute 'nvfp4'";
const OUT_DTYPE: &str = "Unsupported out_dtype: torch.float8_e4m3fn";
const NVFP4_Q: &str =
    "NVFP4 KV cache requires FP8 quantized queries for trtllm-gen prefill. Set disable_flashinfer_q_quantization=False.";
const FP8_OUT: &str = "FP8 output is not supported in fa2/fa3 backends yet";
const ARCHES: &str = "No supported CUDA architectures found for major versions [10, 11, 12].";

// ---- both phases, and which fires first ----

#[test]
fn each_phase_reports_its_own_error_and_cuda_graphs_put_the_decode_first() {
    // B200 with TRTLLM off still quantizes the query (SM100 family, 0.25.0+); both FA2 modules refuse it.
    for r in [V0_25_0, V0_33_0] {
        let args = "--kv-cache-dtype fp8 -ac.use_trtllm_attention false";
        let rep = run("b200", r, args);
        let (p, d, first) = phases(&rep);
        assert_eq!(p, Some((AssertionError, FA2_FP8, Stage::PrefillJit)), "{r}");
        assert_eq!(d, Some((AssertionError, FA2_FP8, Stage::DecodeJit)), "{r}");
        assert_eq!(kernels(&rep), (Some(Kernel::Fa2), Some(Kernel::Fa2)), "{r}");
        // CUDA graphs (the default): the engine captures decode-only batches at start-up.
        assert_eq!(first, d, "{r}");
        let g = group0(&rep);
        assert!(
            g.trace
                .iter()
                .any(|s| s.rule == "first error" && s.outcome.contains("CUDA graphs")),
            "{r}"
        );
        assert_eq!(
            g.phase_errors.decode.as_ref().unwrap().raised_in,
            "BatchDecodeWithPagedKVCacheWrapper.plan (tensor cores) → get_batch_prefill_module"
        );
        let step = g.trace.iter().find(|s| s.rule == "first error").unwrap();
        assert!(
            step.source()
                .as_deref()
                .unwrap()
                .starts_with("vllm/v1/worker/gpu_model_runner.py:"),
            "{step:?}"
        );
        assert!(step
            .outcome
            .starts_with("cudagraph_mode FULL_AND_PIECEWISE (the default optimization level -O2)"));
        // No decode graphs (--enforce-eager, -O0, a piecewise mode): the first batch with a prefill comes first.
        for flags in ["--enforce-eager", "-O0", "-O1", "-cc.cudagraph_mode=PIECEWISE"] {
            let eager = run("b200", r, &format!("{args} {flags}"));
            let (p, _, first) = phases(&eager);
            assert_eq!(first, p, "{r} {flags}");
        }
        // A full decode mode keeps the decode first.
        let rep = run("b200", r, &format!("{args} -O1 -cc.cudagraph_mode=FULL_DECODE_ONLY"));
        let (_, d, first) = phases(&rep);
        assert_eq!(first, d, "{r}");
    }
    // 0.24.0 cites its own lines.
    let rep = run("b200", V0_24_0, "--kv-cache-dtype fp8 -tp 2 -dcp 2 --enforce-eager");
    let step = group0(&rep).trace.iter().find(|s| s.rule == "first error").unwrap().clone();
    assert_eq!(step.source().as_deref(), Some("vllm/config/vllm.py:1061"));
}

#[test]
fn a_phase_that_runs_keeps_its_kernel_beside_the_other_phases_error() {
    // 0.28.0 on H100 sends head_dim 512 to XQA, whose module generator refuses it; the prefill runs fa2.
    let rep = run("h100-sxm", V0_28_0, &format!("{FI} --hf-overrides '{{\"head_dim\": 512}}'"));
    let (p, d, first) = phases(&rep);
    assert_eq!(p, None);
    assert_eq!(
        d,
        Some((
            ValueError,
            "Invalid head_dim: 512, must be divisible by 16 and in range [16, 256]",
            Stage::DecodeJit
        ))
    );
    assert_eq!(first, d);
    assert_eq!(kernels(&rep), (Some(Kernel::Fa2), Some(Kernel::Xqa)));
    assert_eq!(
        group0(&rep).error.as_ref().unwrap().raised_in,
        "FlashInferImpl.forward → xqa → get_xqa_module → gen_xqa_module"
    );
}

// ---- NVFP4 on the SM100 family ----

#[test]
fn nvfp4_with_q_quantization_disabled_reaches_a_native_wrapper_with_the_string_nvfp4() {
    for gpu in ["b200", "b300"] {
        for r in [V0_24_0, V0_25_0, V0_33_0] {
            // TRTLLM auto: the prefill goes native (a 16-bit query over a quantized cache), planned with "nvfp4".
            let rep = run(gpu, r, "--kv-cache-dtype nvfp4 -ac.disable_flashinfer_q_quantization true");
            let (p, d, first) = phases(&rep);
            assert_eq!(p, Some((AttributeError, NO_NVFP4, Stage::PrefillPlan)), "{gpu} {r}");
            assert_eq!(d, Some((ValueError, OUT_DTYPE, Stage::DecodeForward)), "{gpu} {r}");
            assert_eq!(first, d, "{gpu} {r}: decode graphs first");
            let src = group0(&rep).phase_errors.prefill.as_ref().unwrap().source.clone().unwrap();
            assert!(src.starts_with("flashinfer/utils.py:"), "{src}");
            // TRTLLM forced: the trtllm-gen prefill's forward asserts an FP8 query.
            let rep = run(
                gpu,
                r,
                "--kv-cache-dtype nvfp4 -ac.disable_flashinfer_q_quantization true -ac.use_trtllm_attention true",
            );
            let (p, d, _) = phases(&rep);
            assert_eq!(p, Some((AssertionError, NVFP4_Q, Stage::PrefillForward)), "{gpu} {r}");
            assert_eq!(d, Some((ValueError, OUT_DTYPE, Stage::DecodeForward)), "{gpu} {r}");
            // The default (FP8 queries) runs trtllm-gen in both phases.
            let rep = run(gpu, r, "--kv-cache-dtype nvfp4");
            assert_eq!(phases(&rep), (None, None, None), "{gpu} {r}");
            assert_eq!(kernels(&rep), (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen)), "{gpu} {r}");
        }
    }
    let line = |r: Release| match r {
        V0_24_0 => 1706,
        _ => 2499,
    };
    for r in [V0_24_0, V0_33_0] {
        let rep = run(
            "b200",
            r,
            "--kv-cache-dtype nvfp4 -ac.disable_flashinfer_q_quantization true -ac.use_trtllm_attention true",
        );
        assert_eq!(
            group0(&rep).phase_errors.prefill.as_ref().unwrap().source.as_deref(),
            Some(format!("vllm/v1/attention/backends/flashinfer.py:{}", line(r)).as_str())
        );
    }
}

#[test]
fn nvfp4_with_trtllm_off_fails_in_both_plans_in_0_24_0_and_at_init_from_0_25_0() {
    let rep = run("b200", V0_24_0, "--kv-cache-dtype nvfp4 -ac.use_trtllm_attention false");
    let (p, d, _) = phases(&rep);
    assert_eq!(p, Some((AttributeError, NO_NVFP4, Stage::PrefillPlan)));
    assert_eq!(d, Some((AttributeError, NO_NVFP4, Stage::DecodePlan)));
    for r in [V0_25_0, V0_33_0] {
        let rep = run("b200", r, "--kv-cache-dtype nvfp4 -ac.use_trtllm_attention false");
        let (p, d, first) = phases(&rep);
        assert_eq!((p, d), (None, None), "{r}");
        assert_eq!(
            first,
            Some((
                ValueError,
                "--kv-cache-dtype nvfp4 requires the SM100 trtllm-gen FlashInfer path.",
                Stage::Init
            )),
            "{r}"
        );
    }
}

#[test]
fn a_group_skipped_from_nvfp4_runs_16_bit_on_trtllm_gen() {
    for r in [V0_25_0, V0_33_0] {
        let rep = run(
            "b200",
            r,
            "--kv-cache-dtype nvfp4 -ac.disable_flashinfer_q_quantization true --kv-cache-dtype-skip-layers 0",
        );
        let g = group0(&rep);
        assert_eq!(g.cache_dtype, "auto", "{r}");
        assert!(g.error.is_none() && g.phase_errors.prefill.is_none(), "{r}: {:?}", g.error);
        assert_eq!(
            (g.kernel.prefill, g.kernel.decode),
            (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen)),
            "{r}"
        );
        let nvfp4 = rep.groups.iter().find(|g| g.layers.contains(&1)).unwrap();
        assert_eq!(
            nvfp4.phase_errors.prefill.as_ref().map(|e| e.kind),
            Some(AttributeError),
            "{r}"
        );
    }
}

// ---- decode-context parallelism with quantized caches ----

#[test]
fn dcp_prefill_wrapper_plans_its_context_pass_with_an_fp8_output() {
    let dcp = "--kv-cache-dtype fp8 -tp 2 -dcp 2";
    // 0.24.0: build() resets the query dtype to bf16, but the layer still quantizes the query: forward asserts.
    let rep = run("b200", V0_24_0, dcp);
    let mismatch = "Query dtype mismatch: expected torch.bfloat16, got torch.float8_e4m3fn";
    let (p, d, _) = phases(&rep);
    assert_eq!(p, Some((AssertionError, mismatch, Stage::PrefillForward)));
    assert_eq!(d, Some((AssertionError, mismatch, Stage::DecodeForward)));
    assert_eq!(
        group0(&rep).phase_errors.prefill.as_ref().unwrap().source.as_deref(),
        Some("vllm/v1/attention/backends/flashinfer.py:1471")
    );
    // 0.25.0: the DCP context plan has no o_data_type (FP8 output); the native decode (DCP) hits FA2's assertion.
    let rep = run("b200", V0_25_0, dcp);
    let (p, d, _) = phases(&rep);
    assert_eq!(p, Some((AssertionError, FP8_OUT, Stage::PrefillJit)));
    assert_eq!(d, Some((AssertionError, FA2_FP8, Stage::DecodeJit)));
    // 0.26.0+: trtllm-gen keeps the decode under DCP.
    for r in [V0_26_0, V0_33_0] {
        let rep = run("b200", r, dcp);
        let (p, d, first) = phases(&rep);
        assert_eq!(p, Some((AssertionError, FP8_OUT, Stage::PrefillJit)), "{r}");
        assert_eq!((d, first), (None, p), "{r}");
        assert_eq!(kernels(&rep), (Some(Kernel::Fa2), Some(Kernel::TrtllmGen)), "{r}");
    }
    // SM90: the context pass resolves fa3 and is refused the same way; the 16-bit decode runs.
    for r in [V0_25_0, V0_33_0] {
        let rep = run("h100-sxm", r, &format!("{FI} {dcp}"));
        let (p, d, _) = phases(&rep);
        assert_eq!((p, d), (Some((AssertionError, FP8_OUT, Stage::PrefillJit)), None), "{r}");
        assert_eq!(kernels(&rep).0, Some(Kernel::Fa3), "{r}");
    }
    // NVFP4: the context plan gets the string "nvfp4".
    for r in [V0_24_0, V0_33_0] {
        let rep = run("b200", r, "--kv-cache-dtype nvfp4 -tp 2 -dcp 2");
        let (p, _, _) = phases(&rep);
        assert_eq!(p, Some((AttributeError, NO_NVFP4, Stage::PrefillPlan)), "{r}");
    }
    // Q quantization disabled: a 16-bit query everywhere, nothing raises.
    let rep = run("b200", V0_33_0, &format!("{dcp} -ac.disable_flashinfer_q_quantization true"));
    assert_eq!(phases(&rep), (None, None, None));
}

// ---- an FP8 query over an fp8_e5m2 cache on SM90 ----

#[test]
fn fp8_e5m2_on_sm90_plans_fa3_then_fails_each_phases_run() {
    let args = format!("{FI} --kv-cache-dtype fp8_e5m2 -ac.use_trtllm_attention false");
    let text = "The dtype of q torch.float8_e4m3fn does not match the q_data_type torch.float8_e5m2 specified in plan function.";
    for r in [V0_25_0, V0_33_0] {
        let rep = run("h100-sxm", r, &args);
        let (p, d, _) = phases(&rep);
        assert_eq!(p, Some((ValueError, text, Stage::PrefillForward)), "{r}");
        assert_eq!(d, Some((ValueError, text, Stage::DecodeForward)), "{r}");
        assert_eq!(
            kernels(&rep),
            (Some(Kernel::Fa3), Some(Kernel::Fa3)),
            "{r}: plan resolved fa3 first"
        );
        let g = group0(&rep);
        assert_eq!(g.q_dtype.prefill.map(|q| q.name()), Some("float8_e5m2"), "{r}");
    }
    // 0.24.0 and a disabled Q quantization keep a 16-bit query: nothing raises.
    assert_eq!(phases(&run("h100-sxm", V0_24_0, &args)), (None, None, None));
    let off = run(
        "h100-sxm",
        V0_33_0,
        &format!("{args} -ac.disable_flashinfer_q_quantization true"),
    );
    assert_eq!(phases(&off), (None, None, None));
}

#[test]
fn fp8_e5m2_on_the_sm100_family_fails_the_layers_query_quantization_in_the_memory_profile() {
    for (r, line) in [(V0_24_0, 482), (V0_33_0, 517)] {
        let rep = run("b200", r, "--kv-cache-dtype fp8_e5m2");
        let g = group0(&rep);
        let e = g.error.as_ref().expect("the layer's bare assert");
        assert_eq!(
            (e.kind, e.message.as_str(), e.stage),
            (AssertionError, "", Stage::ProfileRun),
            "{r}"
        );
        assert_eq!(
            e.source.as_deref(),
            Some(format!("vllm/model_executor/layers/attention/attention.py:{line}").as_str())
        );
        assert_eq!(kernels(&rep), (None, None), "{r}: before any builder");
        // Without query quantization the layer never asserts.
        let off = run(
            "b200",
            r,
            "--kv-cache-dtype fp8_e5m2 -ac.disable_flashinfer_q_quantization true",
        );
        assert!(group0(&off).error.is_none(), "{r}");
    }
}

// ---- FlashInfer's JIT architecture lists ----

#[test]
fn head_dim_512_on_jetson_orin_follows_the_prefill_modules_arch_lists() {
    let line = |kv: &str| format!("{FI} --kv-cache-dtype {kv} --hf-overrides '{{\"head_dim\": 512}}'");
    let both = |rep: &Report| {
        let (p, d, _) = phases(rep);
        (p.map(|e| e.2), d.map(|e| e.2))
    };
    let jit = (Some(Stage::PrefillJit), Some(Stage::DecodeJit));
    // FlashInfer 0.6.13 (vLLM 0.25.x): no restriction.
    assert_eq!(both(&run("jetson-agx-orin", V0_25_0, &line("fp8"))), (None, None));
    // 0.6.14 (vLLM 0.26.0): any head_dim > 256 is built for majors 10, 11, 12 only.
    let rep = run("jetson-agx-orin", V0_26_0, &line("auto"));
    assert_eq!(both(&rep), jit);
    assert_eq!(phases(&rep).0.unwrap().1, ARCHES);
    // 0.6.16.post3 – 0.7.0.post1 (vLLM 0.27.0–0.32.0): only an FP8 cache; 16-bit runs.
    assert_eq!(both(&run("jetson-agx-orin", V0_27_0, &line("auto"))), (None, None));
    assert_eq!(both(&run("jetson-agx-orin", V0_32_0, &line("fp8"))), jit);
    // NVFP4's tensor-core decode builds the prefill module too, whose flags allow SM80+ (0.32.0's FA2 NVFP4 path).
    assert_eq!(both(&run("jetson-agx-orin", V0_32_0, &line("nvfp4"))), (None, None));
    // 0.7.2.post1 (vLLM 0.33.0): SM80+ for every cache.
    for kv in ["auto", "fp8", "nvfp4"] {
        assert_eq!(both(&run("jetson-agx-orin", V0_33_0, &line(kv))), (None, None), "{kv}");
    }
    let err = run("jetson-agx-orin", V0_32_0, &line("fp8"));
    assert_eq!(group0(&err).error.as_ref().unwrap().kind, RuntimeError);
}
