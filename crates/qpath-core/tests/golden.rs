//! Golden cases: the query-dtype and kernel truth tables of 0.33.0, the seed story (vLLM's XQA-decode change shipped
//! without its fix, as the reconstructed 0.25.0-prefix, against 0.25.0 with both), and for each release the case where
//! it differs from the release before it. Each case runs the whole
//! resolution (command-line parsing, model presets, selection, grouping, builder) and compares the answer.

use qpath_core::capability::CudaVersion;
use qpath_core::release::Release::{self, *};
use qpath_core::report::GroupErrorKind::{self, AssertionError, RuntimeError, ValueError};
use qpath_core::report::{AttentionKind, Backend, GroupReport, Kernel, Report, Stage};
use qpath_core::resolve::{resolve, Hardware, Scenario};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";

fn run_with(gpu: &str, release: Release, cubins: Option<bool>, cuda: Option<(u8, u8)>, args: &str) -> Report {
    let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), release, format!("{LLAMA} {args}"));
    s.trtllm_cubins = cubins;
    if let Some((a, b)) = cuda {
        s.cuda = CudaVersion::new(a, b);
    }
    resolve(&s)
}

/// Cubins available (the usual online deployment), forced FlashInfer unless the case is about selection.
fn run(gpu: &str, release: Release, args: &str) -> Report {
    run_with(gpu, release, Some(true), None, args)
}

fn group(r: &Report, layer: u32) -> &GroupReport {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    r.groups
        .iter()
        .find(|g| g.layers.contains(&layer))
        .unwrap_or_else(|| panic!("no group holds layer {layer}: {r:#?}"))
}

/// (prefill Q, decode Q, prefill kernel, decode kernel) of the group holding layer 0, as short names.
fn outcome(r: &Report) -> (String, String, String, String) {
    let g = group(r, 0);
    assert!(g.error.is_none(), "group error {:?}\ntrace: {:#?}", g.error, g.trace);
    let d = |d: Option<qpath_core::dtype::TorchDtype>| d.map_or("-".into(), |d| d.name().to_string());
    let k = |k: Option<Kernel>| k.map_or("-".into(), |k| k.name().to_string());
    (
        d(g.q_dtype.prefill),
        d(g.q_dtype.decode),
        k(g.kernel.prefill),
        k(g.kernel.decode),
    )
}

fn expect(r: &Report, qp: &str, qd: &str, kp: &str, kd: &str) {
    assert_eq!(
        outcome(r),
        (qp.into(), qd.into(), kp.into(), kd.into()),
        "trace: {:#?}",
        group(r, 0).trace
    );
}

fn expect_error(r: &Report, kind: GroupErrorKind, message: &str, stage: Stage) {
    let g = group(r, 0);
    let e = g
        .error
        .as_ref()
        .unwrap_or_else(|| panic!("expected {kind}, got none; trace {:#?}", g.trace));
    assert_eq!(
        (e.kind, e.message.as_str(), e.stage),
        (kind, message, stage),
        "trace {:#?}",
        g.trace
    );
}

/// Each phase's own first error of the group holding layer 0: `None` when the phase runs.
fn expect_phase(r: &Report, is_prefill: bool, want: Option<(GroupErrorKind, &str, Stage)>) {
    let g = group(r, 0);
    let e = if is_prefill {
        &g.phase_errors.prefill
    } else {
        &g.phase_errors.decode
    };
    assert_eq!(
        e.as_ref().map(|e| (e.kind, e.message.as_str(), e.stage)),
        want,
        "{} phase; trace {:#?}",
        if is_prefill { "prefill" } else { "decode" },
        g.trace
    );
}

const FI: &str = "--attention-backend FLASHINFER";

// ---- query dtypes (0.33.0, bf16 model) and kernels ----

#[test]
fn spec_1_5_and_2_9_ampere_and_ada() {
    for gpu in ["a100-80gb", "a10", "l4", "rtx-4090"] {
        expect(&run(gpu, V0_33_0, FI), "bfloat16", "bfloat16", "fa2", "fa2");
        expect(
            &run(gpu, V0_33_0, &format!("{FI} --kv-cache-dtype fp8")),
            "bfloat16",
            "bfloat16",
            "fa2",
            "fa2",
        );
        expect(
            &run(gpu, V0_33_0, &format!("{FI} --kv-cache-dtype fp8_e5m2")),
            "bfloat16",
            "bfloat16",
            "fa2",
            "fa2",
        );
        expect(
            &run(gpu, V0_33_0, &format!("{FI} --kv-cache-dtype nvfp4")),
            "bfloat16",
            "bfloat16",
            "fa2",
            "fa2",
        );
    }
}

#[test]
fn spec_1_5_and_2_9_hopper() {
    expect(&run("h100-sxm", V0_33_0, FI), "bfloat16", "bfloat16", "fa3", "xqa");
    expect(
        &run("h100-sxm", V0_33_0, &format!("{FI} --kv-cache-dtype fp8")),
        "float8_e4m3fn",
        "bfloat16",
        "fa3",
        "xqa",
    );
    expect(
        &run(
            "h200",
            V0_33_0,
            &format!("{FI} --kv-cache-dtype fp8 -ac.use_trtllm_attention true"),
        ),
        "float8_e4m3fn",
        "bfloat16",
        "fa3",
        "xqa",
    );
    expect(
        &run(
            "h100-sxm",
            V0_33_0,
            &format!("{FI} --kv-cache-dtype fp8 -ac.use_trtllm_attention false"),
        ),
        "float8_e4m3fn",
        "float8_e4m3fn",
        "fa3",
        "fa3",
    );
    expect(
        &run(
            "h100-sxm",
            V0_33_0,
            &format!("{FI} --kv-cache-dtype fp8 --attention-config.disable_flashinfer_q_quantization true"),
        ),
        "bfloat16",
        "bfloat16",
        "fa2",
        "xqa",
    );
    expect(
        &run("h100-sxm", V0_33_0, &format!("{FI} --kv-cache-dtype nvfp4")),
        "bfloat16",
        "bfloat16",
        "fa2",
        "fa2",
    );
}

#[test]
fn spec_1_5_and_2_9_blackwell() {
    for gpu in ["b200", "b300"] {
        expect(&run(gpu, V0_33_0, ""), "bfloat16", "bfloat16", "trtllm-gen", "trtllm-gen");
        expect(
            &run(gpu, V0_33_0, "--kv-cache-dtype fp8"),
            "float8_e4m3fn",
            "float8_e4m3fn",
            "trtllm-gen",
            "trtllm-gen",
        );
        expect(
            &run(
                gpu,
                V0_33_0,
                "--kv-cache-dtype fp8 -ac.disable_flashinfer_q_quantization true",
            ),
            "bfloat16",
            "bfloat16",
            "fa2",
            "trtllm-gen",
        );
        expect(
            &run(gpu, V0_33_0, "--kv-cache-dtype nvfp4"),
            "float8_e4m3fn",
            "float8_e4m3fn",
            "trtllm-gen",
            "trtllm-gen",
        );
        expect(
            &run(gpu, V0_33_0, "--kv-cache-dtype nvfp4_4over6"),
            "float8_e4m3fn",
            "float8_e4m3fn",
            "trtllm-gen",
            "trtllm-gen",
        );
    }
}

#[test]
fn spec_1_5_and_2_9_thor_and_consumer_blackwell() {
    // Jetson Thor under CUDA 13 reports 11.0: no TRTLLM, FA2 with 16-bit queries.
    let thor = run_with(
        "jetson-agx-thor",
        V0_33_0,
        Some(true),
        Some((13, 0)),
        &format!("{FI} --kv-cache-dtype fp8"),
    );
    assert_eq!(thor.gpu.compute_capability, "11.0");
    expect(&thor, "bfloat16", "bfloat16", "fa2", "fa2");
    for gpu in ["rtx-5090", "rtx-pro-6000-blackwell", "dgx-spark"] {
        expect(&run(gpu, V0_33_0, FI), "bfloat16", "bfloat16", "fa2", "xqa");
        expect(
            &run(gpu, V0_33_0, &format!("{FI} --kv-cache-dtype fp8")),
            "bfloat16",
            "bfloat16",
            "fa2",
            "xqa",
        );
        expect(
            &run(
                gpu,
                V0_33_0,
                &format!("{FI} --kv-cache-dtype fp8 -ac.use_trtllm_attention false"),
            ),
            "bfloat16",
            "bfloat16",
            "fa2",
            "fa2",
        );
        expect(
            &run(gpu, V0_33_0, &format!("{FI} --kv-cache-dtype nvfp4")),
            "bfloat16",
            "bfloat16",
            "fa2",
            "xqa",
        );
        // 0.25–0.27: no SM12x XQA yet.
        expect(
            &run(gpu, V0_27_0, &format!("{FI} --kv-cache-dtype fp8")),
            "bfloat16",
            "bfloat16",
            "fa2",
            "fa2",
        );
    }
}

#[test]
fn disabling_query_quantization_gives_model_dtype_everywhere() {
    for gpu in ["l4", "h100-sxm", "b200", "rtx-5090"] {
        let r = run(
            gpu,
            V0_33_0,
            &format!("{FI} --kv-cache-dtype fp8 -ac.disable_flashinfer_q_quantization true"),
        );
        let (qp, qd, _, _) = outcome(&r);
        assert_eq!((qp.as_str(), qd.as_str()), ("bfloat16", "bfloat16"), "{gpu}");
    }
}

// ---- NVFP4 caches raise before any query dtype exists ----

#[test]
fn nvfp4_errors_by_release() {
    // 0.24.0: NVFP4 off the SM100 family (FlashInfer is selected: FLASH_ATTN refuses nvfp4, FlashInfer lists it).
    let r = run("h100-sxm", V0_24_0, &format!("{FI} --kv-cache-dtype nvfp4"));
    expect_error(
        &r,
        ValueError,
        "--kv-cache-dtype nvfp4 requires sm100f, please try a different dtype or remove",
        Stage::Init,
    );
    assert_eq!(group(&r, 0).q_dtype.prefill, None, "raised before any Q dtype");
    // 0.25.0–0.31.0: SM100 with TRTLLM forced off passes selection and raises in the builder.
    let r = run("b200", V0_25_0, "--kv-cache-dtype nvfp4 -ac.use_trtllm_attention false");
    expect_error(
        &r,
        ValueError,
        "--kv-cache-dtype nvfp4 requires the SM100 trtllm-gen FlashInfer path.",
        Stage::Init,
    );
    let r = run(
        "b200",
        V0_28_0,
        "--kv-cache-dtype nvfp4_4over6 -ac.use_trtllm_attention false",
    );
    expect_error(
        &r,
        ValueError,
        "--kv-cache-dtype nvfp4_4over6 requires the SM100 trtllm-gen FlashInfer path.",
        Stage::Init,
    );
    let r = run("b200", V0_33_0, "--kv-cache-dtype nvfp4 -ac.use_trtllm_attention false");
    expect_error(
        &r,
        ValueError,
        "--kv-cache-dtype nvfp4 requires the SM100 trtllm-gen FlashInfer path.",
        Stage::Init,
    );
    // 0.25.0–0.31.0 off SM100: FlashInfer's own selection gate refuses NVFP4.
    let r = run("h100-sxm", V0_31_0, &format!("{FI} --kv-cache-dtype nvfp4"));
    let e = r.error.expect("selection error");
    assert_eq!(e.message, "Selected backend AttentionBackendEnum.FLASHINFER is not valid for this configuration. Reason: ['kv_cache_dtype not supported']");
    // 0.32.0+: SM110 is neither an FA2 family nor SM100.
    let r = run_with(
        "jetson-agx-thor",
        V0_32_0,
        Some(true),
        Some((13, 0)),
        &format!("{FI} --kv-cache-dtype nvfp4"),
    );
    assert!(r.error.unwrap().message.contains("kv_cache_dtype not supported"));
}

// ---- SM90 head_dim 512 prefill is fa3 with FlashInfer 0.6.12–0.6.14, fa2 from 0.6.16.post3 ----

#[test]
fn sm90_head_dim_512_prefill() {
    let args = format!("{FI} --hf-overrides '{{\"head_dim\": 512}}'");
    for rel in [V0_24_0, V0_25_0, V0_26_0] {
        assert_eq!(
            group(&run("h100-sxm", rel, &args), 0).kernel.prefill,
            Some(Kernel::Fa3),
            "{rel}"
        );
    }
    for rel in [V0_27_0, V0_30_0, V0_33_0] {
        assert_eq!(
            group(&run("h100-sxm", rel, &args), 0).kernel.prefill,
            Some(Kernel::Fa2),
            "{rel}"
        );
    }
}

// ---- the seed story: the XQA-decode change before (0.25.0-prefix) and after (0.25.0) its fix ----

#[test]
fn seed_story_l4_fp8() {
    let args = "--kv-cache-dtype fp8";
    // FLASH_ATTN refuses fp8 on SM89, so FlashInfer is selected without being asked for.
    let prefix = run_with("l4", V0_25_0Prefix, None, None, args);
    assert_eq!(group(&prefix, 0).backend, Backend::FlashInfer);
    // Each phase raises FA2's assertion in its own JIT module: the prefill wrapper's, and the tensor-core decode's.
    let fa2 = "fp8 tensor core is not supported in fa2 backend";
    expect_phase(&prefix, true, Some((AssertionError, fa2, Stage::PrefillJit)));
    expect_phase(&prefix, false, Some((AssertionError, fa2, Stage::DecodeJit)));
    // With CUDA graphs (the default) the engine captures decode batches at start-up: the decode's fires first; under
    // --enforce-eager the first prefill's does.
    expect_error(&prefix, AssertionError, fa2, Stage::DecodeJit);
    let eager = run_with("l4", V0_25_0Prefix, None, None, &format!("{args} --enforce-eager"));
    expect_error(&eager, AssertionError, fa2, Stage::PrefillJit);
    assert_eq!(group(&prefix, 0).kernel.decode, Some(Kernel::Fa2));
    assert_eq!(group(&prefix, 0).q_dtype.prefill.map(|d| d.name()), Some("float8_e4m3fn"));
    let fixed = run_with("l4", V0_25_0, None, None, args);
    expect(&fixed, "bfloat16", "bfloat16", "fa2", "fa2");
    assert!(group(&fixed, 0).logs.iter().any(|l| l
        == "FlashInfer resolved query dtypes: prefill=torch.bfloat16, decode=torch.bfloat16, decode_backend=flashinfer-native, kv_cache_dtype=torch.float8_e4m3fn, arch=sm89"));
    // Before the XQA-decode change (0.24.0) there was no FP8 query off SM100 at all.
    expect(
        &run_with("l4", V0_24_0, None, None, args),
        "bfloat16",
        "bfloat16",
        "fa2",
        "fa2",
    );
}

#[test]
fn seed_story_skipped_layers_keep_16_bit_queries_after_the_fix() {
    let args = format!("{FI} --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 0 2");
    let prefix = run("h100-sxm", V0_25_0Prefix, &args);
    let skipped = group(&prefix, 0);
    assert_eq!(skipped.cache_dtype, "auto");
    assert_eq!(skipped.layers[..2], [0, 2]);
    assert_eq!(
        skipped.q_dtype.prefill.map(|d| d.name()),
        Some("float8_e4m3fn"),
        "the pre-fix builder read the global fp8"
    );
    let fixed = run("h100-sxm", V0_25_0, &args);
    let skipped = group(&fixed, 0);
    assert_eq!(
        (skipped.q_dtype.prefill, skipped.q_dtype.decode),
        (
            Some(qpath_core::dtype::TorchDtype::BFloat16),
            Some(qpath_core::dtype::TorchDtype::BFloat16)
        )
    );
    let quantized = group(&fixed, 1);
    assert_eq!(quantized.cache_dtype, "fp8");
    assert_eq!(quantized.q_dtype.prefill.map(|d| d.name()), Some("float8_e4m3fn"));
    // On L4 the same skip list under automatic selection puts the skipped layers on FLASH_ATTN.
    let l4 = run_with(
        "l4",
        V0_25_0,
        None,
        None,
        "--kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 0 2",
    );
    assert_eq!(group(&l4, 0).backend, Backend::FlashAttn);
    assert_eq!(group(&l4, 1).backend, Backend::FlashInfer);
}

// ---- each release against the one before it ----

#[test]
fn release_0_25_1_equals_0_25_0() {
    for gpu in ["l4", "h100-sxm", "b200", "rtx-5090"] {
        for args in [
            "",
            "--kv-cache-dtype fp8",
            "--kv-cache-dtype fp8 -dcp 2",
            "--kv-cache-dtype nvfp4",
        ] {
            // Only the links differ (they point at each release's tag).
            let strip = |r: Report| -> Vec<GroupReport> {
                let mut groups = r.groups;
                groups.iter_mut().flat_map(|g| g.trace.iter_mut()).for_each(|s| s.at = None);
                groups
            };
            let a = strip(run(gpu, V0_25_0, &format!("{FI} {args}")));
            let b = strip(run(gpu, V0_25_1, &format!("{FI} {args}")));
            assert_eq!(a, b, "{gpu} {args}");
        }
    }
}

/// 0.27.1 changes only `_version.py` and `model_executor/models/qwen3_dspark.py` against 0.27.0 (`diff -rq` of the
/// wheels), so qpath answers as 0.27.0 does, under its own name, links at its own tag and 0.27.0's line numbers.
#[test]
fn release_0_27_1_equals_0_27_0_under_its_own_name() {
    for gpu in ["l4", "h100-sxm", "b200", "rtx-5090", "dgx-spark"] {
        for args in [
            "",
            "--kv-cache-dtype fp8",
            "--kv-cache-dtype fp8 -dcp 2",
            "--kv-cache-dtype nvfp4",
            "--kv-cache-dtype fp8_e5m2",
        ] {
            let a = run(gpu, V0_27_0, &format!("{FI} {args}"));
            let b = run(gpu, V0_27_1, &format!("{FI} {args}"));
            assert_eq!((a.vllm.as_str(), b.vllm.as_str()), ("0.27.0", "0.27.1"));
            assert_eq!(
                (a.flashinfer.as_str(), b.flashinfer.as_str()),
                ("0.6.16.post3", "0.6.16.post3")
            );
            for (ga, gb) in a.groups.iter().zip(&b.groups) {
                for (sa, sb) in ga.trace.iter().zip(&gb.trace) {
                    assert_eq!(
                        (&sa.rule, &sa.outcome, &sa.source()),
                        (&sb.rule, &sb.outcome, &sb.source()),
                        "{gpu} {args}"
                    );
                    if let (Some(ua), Some(ub)) = (&sa.url(), &sb.url()) {
                        assert_eq!(ua.replace("/v0.27.0/", "/v0.27.1/"), *ub, "{gpu} {args}");
                    }
                }
            }
            let strip = |r: Report| -> Vec<GroupReport> {
                let mut groups = r.groups;
                groups.iter_mut().flat_map(|g| g.trace.iter_mut()).for_each(|s| s.at = None);
                groups
            };
            assert_eq!(strip(a), strip(b), "{gpu} {args}");
        }
    }
    // The seed story on an L4 at 0.27.1: FlashInfer chosen for the FP8 cache, 16-bit queries on FA2.
    expect(
        &run("l4", V0_27_1, "--kv-cache-dtype fp8"),
        "bfloat16",
        "bfloat16",
        "fa2",
        "fa2",
    );
}

#[test]
fn release_0_26_0_drops_xqa_under_dcp_at_init_and_rewords_the_dcp_warning() {
    let args = format!("{FI} --kv-cache-dtype fp8 -dcp 2");
    let old = run("h100-sxm", V0_25_0, &args);
    let new = run("h100-sxm", V0_26_0, &args);
    assert!(group(&old, 0)
        .warnings
        .iter()
        .any(|w| w.starts_with("Trtllm does not support returning LSE")));
    assert!(group(&new, 0)
        .warnings
        .iter()
        .any(|w| w == "TRTLLM prefill does not support DCP, reverting to FlashInfer"));
    assert!(group(&new, 0)
        .warnings
        .iter()
        .any(|w| w.starts_with("FlashInfer XQA decode does not support returning LSE")));
    assert_eq!(
        group(&new, 0).kernel.decode,
        Some(Kernel::Fa2),
        "bf16 decode query over fp8 KV: fa2"
    );
    // and the TRTLLM cubins no longer come with vLLM, though qpath assumes them by default in every release (a
    // networked machine reaches NVIDIA's artifactory); `Some(false)` is the offline machine.
    assert!(run_with("b200", V0_25_1, None, None, "").trtllm_cubins);
    assert!(run_with("b200", V0_26_0, None, None, "").trtllm_cubins);
    assert!(!run_with("b200", V0_26_0, Some(false), None, "").trtllm_cubins);
}

#[test]
fn release_0_26_0_without_cubins_b200_fp8_hits_the_fa2_assert() {
    // SM100 without TRTLLM still gets FP8 queries (`get_q_data_type` quantizes on the SM100 family whatever the
    // decode kernel), and FlashInfer's FA2 prefill module asserts on them.
    let r = run_with("b200", V0_26_0, Some(false), None, "--kv-cache-dtype fp8");
    expect_phase(
        &r,
        true,
        Some((
            AssertionError,
            "fp8 tensor core is not supported in fa2 backend",
            Stage::PrefillJit,
        )),
    );
    expect_phase(
        &r,
        false,
        Some((
            AssertionError,
            "fp8 tensor core is not supported in fa2 backend",
            Stage::DecodeJit,
        )),
    );
    // 0.24.0 gave the model dtype in the same case.
    expect(
        &run_with("b200", V0_24_0, Some(false), None, "--kv-cache-dtype fp8"),
        "bfloat16",
        "bfloat16",
        "fa2",
        "fa2",
    );
}

#[test]
fn release_0_28_0_adds_sm12x_xqa() {
    assert_eq!(group(&run("rtx-5090", V0_27_0, FI), 0).kernel.decode, Some(Kernel::Fa2));
    assert_eq!(group(&run("rtx-5090", V0_28_0, FI), 0).kernel.decode, Some(Kernel::Xqa));
}

#[test]
fn release_0_29_0_reverts_xqa_for_head_dim_512() {
    let args = format!("{FI} --hf-overrides '{{\"head_dim\": 512}}'");
    let old = run("h100-sxm", V0_28_0, &args);
    expect_error(
        &old,
        ValueError,
        "Invalid head_dim: 512, must be divisible by 16 and in range [16, 256]",
        Stage::DecodeJit,
    );
    // The prefill runs (fa2: FA3 takes head dims 64, 128, 256 only); the error is the first decode's.
    expect_phase(&old, true, None);
    assert_eq!(group(&old, 0).kernel.prefill, Some(Kernel::Fa2));
    let new = run("h100-sxm", V0_29_0, &args);
    assert!(group(&new, 0).warnings.iter().any(|w| w
        == "FlashInfer XQA decode does not support head_dim=512; reverting this KV-cache group to native FlashInfer decode."));
    assert_eq!(group(&new, 0).kernel.decode, Some(Kernel::Fa2));
}

#[test]
fn release_0_30_0_lifts_the_sm90_sliding_window_error() {
    let cmd = "vllm serve google/gemma-3-27b-it --attention-backend FLASHINFER";
    let mk = |rel| {
        resolve(&Scenario {
            trtllm_cubins: Some(true),
            ..Scenario::new(Hardware::parse("h100-sxm").unwrap(), rel, cmd)
        })
    };
    let old = mk(V0_29_0);
    let sliding = old
        .groups
        .iter()
        .find(|g| g.attention == AttentionKind::SlidingWindow)
        .unwrap();
    assert_eq!(
        sliding.error.as_ref().map(|e| e.message.as_str()),
        Some("FlashInfer backend on SM90 currently crashes with sliding-window attention layers. Use the default attention backend.")
    );
    let new = mk(V0_30_0);
    assert!(new.groups.iter().all(|g| g.error.is_none()), "{:#?}", new.groups);
}

#[test]
fn release_0_31_0_flash_attn_takes_fp8_head_dim_512_on_sm90() {
    let args = "--kv-cache-dtype fp8 --hf-overrides '{\"head_dim\": 512}'";
    assert_eq!(group(&run("h100-sxm", V0_30_0, args), 0).backend, Backend::FlashInfer);
    assert_eq!(group(&run("h100-sxm", V0_31_0, args), 0).backend, Backend::FlashAttn);
}

#[test]
fn release_0_32_0_runs_nvfp4_on_fa2() {
    let r = run("l4", V0_31_0, "--kv-cache-dtype nvfp4");
    assert!(
        r.error
            .as_ref()
            .unwrap()
            .message
            .starts_with("No valid attention backend found"),
        "{:?}",
        r.error
    );
    expect(
        &run("l4", V0_32_0, "--kv-cache-dtype nvfp4"),
        "bfloat16",
        "bfloat16",
        "fa2",
        "fa2",
    );
}

#[test]
fn release_0_33_0_relaxes_flashinfers_large_head_fa2_rule_for_fp8() {
    let args =
        format!("{FI} --kv-cache-dtype fp8 -ac.disable_flashinfer_q_quantization true --hf-overrides '{{\"head_dim\": 512}}'");
    let old = run("h100-sxm", V0_32_0, &args);
    let arches = "No supported CUDA architectures found for major versions [10, 11, 12].";
    expect_phase(&old, true, Some((RuntimeError, arches, Stage::PrefillJit)));
    expect_phase(&old, false, Some((RuntimeError, arches, Stage::DecodeJit)));
    let new = run("h100-sxm", V0_33_0, &args);
    expect(&new, "bfloat16", "bfloat16", "fa2", "fa2");
}

// ---- more behaviour worth pinning ----

#[test]
fn gpt_oss_sinks() {
    let cmd = "vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER";
    let mk = |gpu, rel| {
        resolve(&Scenario {
            trtllm_cubins: Some(true),
            ..Scenario::new(Hardware::parse(gpu).unwrap(), rel, cmd)
        })
    };
    // Hopper before 0.30.0: FlashInfer does not support sinks there, selection rejects the forced backend.
    let r = mk("h100-sxm", V0_29_0);
    assert_eq!(
        r.error.unwrap().message,
        "Selected backend AttentionBackendEnum.FLASHINFER is not valid for this configuration. Reason: ['attention sinks not supported']"
    );
    // B200: trtllm-gen prefill (sinks) and decode.
    let r = mk("b200", V0_33_0);
    for g in &r.groups {
        assert_eq!(
            (g.kernel.prefill, g.kernel.decode),
            (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen)),
            "{g:#?}"
        );
    }
}

#[test]
fn auto_selection_traces_the_rejections() {
    let r = run_with("l4", V0_33_0, None, None, "--kv-cache-dtype fp8");
    let g = group(&r, 0);
    assert_eq!(g.backend, Backend::FlashInfer);
    assert!(
        g.trace
            .iter()
            .any(|s| s.rule.contains("FLASH_ATTN") && s.outcome.contains("kv_cache_dtype not supported")),
        "{:#?}",
        g.trace
    );
    assert_eq!(
        r.logs,
        vec![
            "Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. \
             Meanwhile, it may cause accuracy drop without a proper scaling factor",
            "Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN'].",
        ]
    );
    // Every step of a FlashInfer group cites a line of this release.
    assert!(g
        .trace
        .iter()
        .filter(|s| s.rule.starts_with("get_q_data_type"))
        .all(|s| s.source().as_deref().is_some_and(|s| s.contains(".py:"))));
}

#[test]
fn bad_inputs_are_named() {
    let r = run("l4", V0_33_0, "--kv-cache-dtype fp8 --no-such-flag 3");
    assert!(r.error.unwrap().message.contains("--no-such-flag"));
    let r = run("l4", V0_33_0, "--kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 99");
    assert!(r.notes.iter().any(|n| n.contains("`99`")), "{:?}", r.notes);
    let r = resolve(&Scenario::new(
        Hardware::parse("l4").unwrap(),
        V0_33_0,
        "vllm serve my-org/unknown-model",
    ));
    assert!(r.error.unwrap().message.contains("num_hidden_layers"));
}
