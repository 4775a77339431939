//! Golden cases for the recurrent groups of hybrid models: what Qwen3-Next's gated-delta-net layers (GDN_ATTN) and
//! Nemotron-H's Mamba2 layers (MAMBA2) run per phase, their input dtype, their init errors and log lines, each at the
//! rule's first release and at 0.33.0. Every expectation is read from the released sources (paths below are under
//! `vllm/`; `gdn.py` = `model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py`, `mixer2.py` =
//! `model_executor/layers/mamba/mamba_mixer2.py`, `ssu.py` = `model_executor/layers/mamba/ops/ssu_dispatch.py`);
//! `docs/source-notes/recurrent-kernels.md` restates them with their lines.
//!
//! Qwen3-Next-80B-A3B-Instruct: 48 layers, every fourth full attention, the other 36 GDN layers with
//! `linear_key_head_dim` 128 (the head dim `_resolve_gdn_prefill_backend` reads), bfloat16.
//! NVIDIA-Nemotron-Nano-9B-v2: 27 Mamba2 layers, bfloat16; NemotronH makes the ssm state float32.

use qpath_core::capability::CudaVersion;
use qpath_core::dtype::TorchDtype;
use qpath_core::release::Release::{self, *};
use qpath_core::report::{Backend, GroupErrorKind, GroupReport, Kernel, LogLevel, Report, Stage, Verdict};
use qpath_core::resolve::{resolve, Hardware, Scenario};

const QWEN3_NEXT: &str = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct";
const NEMOTRON: &str = "vllm serve nvidia/NVIDIA-Nemotron-Nano-9B-v2";
const GDN: &str = "vllm/model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py";
const MIXER2: &str = "vllm/model_executor/layers/mamba/mamba_mixer2.py";
const SSU: &str = "vllm/model_executor/layers/mamba/ops/ssu_dispatch.py";
const BF16: Option<TorchDtype> = Some(TorchDtype::BFloat16);

const JIT_WARNING: &str =
    "FlashInfer GDN prefill is JIT-compiled; first run may take a while. Set --gdn-prefill-backend triton to skip JIT.";
const REASON_0_28: &str = "the fused CUDA kernel requires a BF16 GDN model with K=V=128, SiLU gating, non-interleaved \
                           GQA layout, BF16 convolution cache, BF16 or FP32 recurrent state, and a GPU with compute \
                           capability 8.0+";
const REASON_0_29: &str = "the fused CUDA kernel requires a BF16 GDN model with K=V=128, SiLU or sigmoid gating, \
                           non-interleaved GQA layout, BF16 convolution cache, BF16 or FP32 recurrent state, and a GPU \
                           with compute capability 8.0+";

fn run_on(gpu: &str, release: Release, cuda: Option<(u8, u8)>, cmd: &str) -> Report {
    let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), release, cmd);
    if let Some((a, b)) = cuda {
        s.cuda = CudaVersion::new(a, b);
    }
    let r = resolve(&s);
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    r
}

fn run(gpu: &str, release: Release, cmd: &str) -> Report {
    run_on(gpu, release, None, cmd)
}

/// The recurrent group (layer 0 is GDN in Qwen3-Next and Mamba2 in Nemotron-H).
fn recurrent(r: &Report) -> &GroupReport {
    let g = r
        .groups
        .iter()
        .find(|g| g.layers.contains(&0))
        .expect("a group holds layer 0");
    assert!(g.backend.is_recurrent(), "{:?}", g.backend);
    g
}

/// The group's log records as (level, `file:line`, text).
fn records(g: &GroupReport) -> Vec<(LogLevel, String, String)> {
    assert_eq!(g.logs, g.log_records.iter().map(|l| l.text.clone()).collect::<Vec<_>>());
    g.log_records
        .iter()
        .map(|l| (l.level, format!("{}:{}", l.file, l.line), l.text.clone()))
        .collect()
}

fn rec(level: LogLevel, file: &str, line: u32, text: &str) -> (LogLevel, String, String) {
    (level, format!("{file}:{line}"), text.to_string())
}

fn using_prefill(chosen: &str, requested: &str) -> String {
    format!("Using {chosen} GDN prefill kernel (requested={requested}, head_k_dim=128).")
}

/// The cited source of the trace step named `rule`.
fn step_source<'a>(g: &'a GroupReport, rule: &str) -> &'a str {
    g.trace
        .iter()
        .find(|s| s.rule == rule)
        .unwrap_or_else(|| panic!("no step `{rule}` in {:#?}", g.trace))
        .source()
        .map_or("", |s| &*s.leak())
}

fn step<'a>(g: &'a GroupReport, rule: &str) -> &'a str {
    &g.trace
        .iter()
        .find(|s| s.rule == rule)
        .unwrap_or_else(|| panic!("no step `{rule}` in {:#?}", g.trace))
        .outcome
}

fn kernels(g: &GroupReport) -> (Option<Kernel>, Option<Kernel>) {
    (g.kernel.prefill, g.kernel.decode)
}

/// (kernel, when) of a phase's `kernels`.
fn choices(list: &[qpath_core::report::KernelChoice]) -> Vec<(Kernel, Option<&str>)> {
    list.iter().map(|c| (c.kernel, c.when.as_deref())).collect()
}

/// H100 (SM90 exactly, `is_device_capability(90)`: gdn.py:186@0.24.0, :249@0.33.0): FlashInfer's GDN prefill with no
/// other condition, its info line and the SM90 JIT warning (gdn.py:228/235@0.24.0, :300/307@0.33.0); decodes run
/// the packed Triton decode (decode-only batches) or the sigmoid-gating kernel (decodes beside prefills). q, k, v
/// are bfloat16; the state is bfloat16 (`--mamba-cache-dtype auto`). 0.33.0 has no decode-kernel log without a
/// speculative config (gdn.py:729 logs only with one).
#[test]
fn qwen3_next_h100_flashinfer_prefill_packed_decode() {
    for (r, sm90, log, jit) in [(V0_24_0, 186, 228, 235), (V0_33_0, 249, 300, 307)] {
        let rep = run("h100-sxm", r, QWEN3_NEXT);
        let g = recurrent(&rep);
        assert_eq!((g.backend, g.layers.len()), (Backend::GdnAttn, 36));
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (BF16, BF16), "{r}");
        assert_eq!(g.cache_dtype, "conv bfloat16 / ssm bfloat16");
        assert_eq!(
            kernels(g),
            (Some(Kernel::GdnChunkFlashInfer), Some(Kernel::GdnPackedDecode)),
            "{r}"
        );
        assert_eq!(choices(&g.kernels.prefill), [(Kernel::GdnChunkFlashInfer, None)]);
        assert_eq!(
            choices(&g.kernels.decode),
            [
                (Kernel::GdnPackedDecode, Some("decode-only batches without spec tokens")),
                (
                    Kernel::GdnSigmoidGating,
                    Some("the decodes of a batch that also has prefills")
                ),
            ]
        );
        assert_eq!(
            records(g),
            [
                rec(LogLevel::Info, GDN, log, &using_prefill("FlashInfer", "auto")),
                rec(LogLevel::Warning, GDN, jit, JIT_WARNING),
            ],
            "{r}"
        );
        assert_eq!(g.warnings, [JIT_WARNING]);
        assert_eq!(step_source(g, "GDN prefill kernels possible"), format!("{GDN}:{sm90}"));
        assert!(step(g, "GDN prefill kernels possible").contains("exactly 9.0"));
        assert!(step(g, "FlashInfer GDN JIT").contains("engine start"));
        assert!(g.error.is_none() && g.unmodelled.is_none());
        assert_eq!(rep.verdict, Verdict::Serves);
    }
}

/// A100 (SM80): no FlashInfer or CuTe DSL GDN prefill on any release: FLA's Triton `chunk_gated_delta_rule`, no
/// warning; `--gdn-prefill-backend flashinfer` asks for it anyway and gets the fallback warning first
/// (gdn.py:299@0.24.0, :382@0.33.0).
#[test]
fn qwen3_next_a100_fla_prefill() {
    for (r, log, fallback) in [(V0_24_0, 228, 299), (V0_33_0, 300, 382)] {
        let rep = run("a100-80gb", r, QWEN3_NEXT);
        let g = recurrent(&rep);
        assert_eq!(kernels(g), (Some(Kernel::GdnChunkFla), Some(Kernel::GdnPackedDecode)), "{r}");
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (BF16, BF16));
        assert_eq!(
            records(g)[0],
            rec(LogLevel::Info, GDN, log, &using_prefill("Triton/FLA", "auto"))
        );
        assert!(g.warnings.is_empty(), "{:?}", g.warnings);
        assert!(step(g, "GDN prefill forward").contains("forward_native"));

        let rep = run("a100-80gb", r, &format!("{QWEN3_NEXT} --gdn-prefill-backend flashinfer"));
        let g = recurrent(&rep);
        assert_eq!(g.kernel.prefill, Some(Kernel::GdnChunkFla));
        assert_eq!(
            records(g)[..2],
            [
                rec(
                    LogLevel::Warning,
                    GDN,
                    fallback,
                    "GDN prefill backend 'flashinfer' is selected but cannot use this kernel on the current platform. \
                     Falling back to Triton/FLA."
                ),
                rec(LogLevel::Info, GDN, log, &using_prefill("Triton/FLA", "flashinfer")),
            ]
        );
        assert!(rep.unused_flags.is_empty(), "the flag is read: {:?}", rep.unused_flags);
    }
}

/// B200 (the SM10x family): FlashInfer's GDN prefill needs `linear_key_head_dim` 128 and CUDA >= 13
/// (`get_cuda_runtime_major()`, gdn.py:188@0.24.0, :251@0.33.0). Under qpath's default CUDA 12.9: FLA; under 13.0:
/// FlashInfer, without the JIT warning (SM90 only). 0.24.0-0.25.x also need an intact nvidia-cutlass-dsl-libs-cu13
/// install, which qpath assumes (a trace step says so; 0.26.0 dropped the condition).
#[test]
fn qwen3_next_b200_needs_cuda_13() {
    for (r, sm100, log) in [(V0_24_0, 188, 228), (V0_33_0, 251, 300)] {
        let rep = run_on("b200", r, Some((12, 9)), QWEN3_NEXT);
        let g = recurrent(&rep);
        assert_eq!(g.kernel.prefill, Some(Kernel::GdnChunkFla), "{r} CUDA 12.9");
        assert_eq!(
            records(g)[0],
            rec(LogLevel::Info, GDN, log, &using_prefill("Triton/FLA", "auto"))
        );
        assert_eq!(step_source(g, "GDN prefill kernels possible"), format!("{GDN}:{sm100}"));
        assert!(step(g, "GDN prefill kernels possible").contains("CUDA 12.9"));

        let rep = run_on("b200", r, Some((13, 0)), QWEN3_NEXT);
        let g = recurrent(&rep);
        assert_eq!(g.kernel.prefill, Some(Kernel::GdnChunkFlashInfer), "{r} CUDA 13.0");
        assert_eq!(
            records(g),
            [rec(LogLevel::Info, GDN, log, &using_prefill("FlashInfer", "auto"))]
        );
        assert!(step(g, "FlashInfer GDN state").contains("float32"));
        let libs = g.trace.iter().any(|s| s.rule == "nvidia-cutlass-dsl-libs-cu13");
        assert_eq!(libs, r < V0_26_0, "{r}");
    }
}

/// `--gdn-prefill-backend` (every release; choices flashinfer, triton, cutedsl; engine/arg_utils.py puts it into
/// `additional_config`): `triton` on H100 keeps FLA without the JIT warning; `cutedsl` runs the in-tree CuTe DSL
/// kernel on SM10x under CUDA 13 (gdn.py:209@0.24.0, :268@0.33.0) and falls back with the warning elsewhere (SM90).
#[test]
fn gdn_prefill_backend_flag() {
    for (r, log, fallback) in [(V0_24_0, 228, 299), (V0_33_0, 300, 382)] {
        let rep = run("h100-sxm", r, &format!("{QWEN3_NEXT} --gdn-prefill-backend triton"));
        let g = recurrent(&rep);
        assert_eq!(g.kernel.prefill, Some(Kernel::GdnChunkFla));
        assert_eq!(
            records(g)[0],
            rec(LogLevel::Info, GDN, log, &using_prefill("Triton/FLA", "triton"))
        );
        assert!(g.warnings.is_empty(), "no JIT warning for Triton: {:?}", g.warnings);

        let rep = run_on(
            "b200",
            r,
            Some((13, 0)),
            &format!("{QWEN3_NEXT} --gdn-prefill-backend cutedsl"),
        );
        let g = recurrent(&rep);
        assert_eq!(g.kernel.prefill, Some(Kernel::GdnChunkCuteDsl), "{r}");
        assert_eq!(
            records(g),
            [rec(LogLevel::Info, GDN, log, &using_prefill("CuteDSL", "cutedsl"))]
        );
        assert!(step(g, "GDN prefill forward").contains("forward_cutedsl"));

        let rep = run("h100-sxm", r, &format!("{QWEN3_NEXT} --gdn_prefill_backend=cutedsl"));
        let g = recurrent(&rep);
        assert_eq!(
            g.kernel.prefill,
            Some(Kernel::GdnChunkFla),
            "cutedsl on SM90: Triton, not FlashInfer"
        );
        assert_eq!(records(g)[0].1, format!("{GDN}:{fallback}"));
        assert!(records(g)[0].2.starts_with("GDN prefill backend 'cutedsl' is selected"));
    }
    // Nemotron-H has no GDN layer: the flag is accepted and unused.
    let rep = run("h100-sxm", V0_33_0, &format!("{NEMOTRON} --gdn-prefill-backend triton"));
    assert_eq!(rep.unused_flags, ["--gdn-prefill-backend triton"]);
}

/// SM12x (RTX 5090) with head dim 128 and CUDA 13 gets FlashInfer's GDN prefill from 0.30.0 (gdn.py:138@0.30.0,
/// :258@0.33.0); 0.29.0 keeps FLA. CuTe DSL stays SM100-only.
#[test]
fn qwen3_next_sm120_flashinfer_from_0_30_0() {
    let g_of = |r| run_on("rtx-5090", r, Some((13, 0)), QWEN3_NEXT);
    let rep = g_of(V0_29_0);
    assert_eq!(recurrent(&rep).kernel.prefill, Some(Kernel::GdnChunkFla));
    for (r, line) in [(V0_30_0, 138), (V0_33_0, 258)] {
        let rep = g_of(r);
        let g = recurrent(&rep);
        assert_eq!(g.kernel.prefill, Some(Kernel::GdnChunkFlashInfer), "{r}");
        assert_eq!(step_source(g, "GDN prefill kernels possible"), format!("{GDN}:{line}"));
        assert!(g.warnings.is_empty(), "the JIT warning is SM90's: {:?}", g.warnings);
    }
    let rep = run_on(
        "rtx-5090",
        V0_33_0,
        Some((13, 0)),
        &format!("{QWEN3_NEXT} --gdn-prefill-backend cutedsl"),
    );
    assert_eq!(recurrent(&rep).kernel.prefill, Some(Kernel::GdnChunkFla));
}

/// The ROCm / XPU prefill backends raise at the first GDN layer's init on CUDA: `aiter_flydsl` from 0.32.0 (a
/// RuntimeError naming `current_platform.device_name`, gdn.py:160@0.32.0, :238@0.33.0; before 0.32.0 argparse's
/// choices reject it), `sycl` in 0.33.0 (gdn.py:184). No query dtype or kernel: the layer never runs.
#[test]
fn rocm_and_xpu_prefill_backends_raise_on_cuda() {
    for (r, line) in [(V0_32_0, 160), (V0_33_0, 238)] {
        let rep = run("h100-sxm", r, &format!("{QWEN3_NEXT} --gdn-prefill-backend aiter_flydsl"));
        let g = recurrent(&rep);
        let e = g.error.as_ref().expect("an init error");
        assert_eq!(e.kind, GroupErrorKind::RuntimeError);
        assert_eq!(
            e.message,
            "GDN prefill backend 'aiter_flydsl' was requested but it is a ROCm AITER backend and the current platform \
             is cuda."
        );
        assert_eq!((e.stage, e.source.as_deref()), (Stage::Init, Some(&*format!("{GDN}:{line}"))));
        assert_eq!(kernels(g), (None, None));
        assert!(g.logs.is_empty(), "the raise comes before the logs: {:?}", g.logs);
        assert_eq!(rep.verdict, Verdict::Fails);
    }
    let s = Scenario::new(
        Hardware::parse("h100-sxm").unwrap(),
        V0_31_0,
        format!("{QWEN3_NEXT} --gdn-prefill-backend aiter_flydsl"),
    );
    assert!(resolve(&s).error.unwrap().message.contains("invalid choice: 'aiter_flydsl'"));
    let rep = run("h100-sxm", V0_33_0, &format!("{QWEN3_NEXT} --gdn-prefill-backend sycl"));
    let e = recurrent(&rep).error.clone().unwrap();
    assert_eq!(
        (e.kind, e.message.as_str(), e.stage, e.source.unwrap()),
        (
            GroupErrorKind::ValueError,
            "GDN prefill backend 'sycl' is only supported on XPU.",
            Stage::Init,
            format!("{GDN}:184")
        )
    );
}

/// `VLLM_GDN_DECODE_KERNEL` (0.28.0+, default `cuda`): Qwen3-Next's interleaved GQA layout rules the fused CUDA decode
/// out, so unset it falls back to Triton with two info lines (gdn.py:500, :505@0.28.0); set to `cuda` explicitly it
/// raises at layer init (gdn.py:497@0.28.0, :711@0.33.0, with 0.29.0's "SiLU or sigmoid" text); an invalid value
/// fails `env_with_choices` (envs.py:414@0.28.0, :436@0.33.0); `triton` logs only the kernel. 0.27.0 does not read
/// it; 0.32.0+ logs only with a speculative config.
#[test]
fn gdn_decode_kernel_env() {
    let rep = run("h100-sxm", V0_28_0, QWEN3_NEXT);
    let g = recurrent(&rep);
    assert_eq!(
        records(g)[2..],
        [
            rec(
                LogLevel::Info,
                GDN,
                500,
                &format!("Falling back to the Triton GDN decode path: {REASON_0_28}")
            ),
            rec(LogLevel::Info, GDN, 505, "GDN decode kernel: triton"),
        ]
    );
    assert_eq!(g.kernel.decode, Some(Kernel::GdnPackedDecode));
    let rep = run("h100-sxm", V0_28_0, &format!("VLLM_GDN_DECODE_KERNEL=TRITON {QWEN3_NEXT}"));
    assert_eq!(
        records(recurrent(&rep))[2..],
        [rec(LogLevel::Info, GDN, 505, "GDN decode kernel: triton")]
    );
    let rep = run("h100-sxm", V0_33_0, QWEN3_NEXT);
    assert_eq!(
        recurrent(&rep).logs.len(),
        2,
        "0.33.0 without spec decode: the prefill lines only"
    );

    for (r, reason, line) in [
        (V0_28_0, REASON_0_28, 497),
        (V0_29_0, REASON_0_29, 508),
        (V0_33_0, REASON_0_29, 711),
    ] {
        let rep = run("h100-sxm", r, &format!("VLLM_GDN_DECODE_KERNEL=cuda {QWEN3_NEXT}"));
        let g = recurrent(&rep);
        let e = g.error.as_ref().unwrap();
        assert_eq!(e.kind, GroupErrorKind::ValueError);
        assert_eq!(e.message, format!("VLLM_GDN_DECODE_KERNEL=cuda is not supported: {reason}"));
        assert_eq!(
            (e.stage, e.source.clone()),
            (Stage::Init, Some(format!("{GDN}:{line}"))),
            "{r}"
        );
        assert_eq!(g.logs.len(), 2, "the prefill lines come first: {:?}", g.logs);
        assert_eq!(kernels(g), (None, None));
    }
    for (r, line) in [(V0_28_0, 414), (V0_33_0, 436)] {
        let rep = run("h100-sxm", r, &format!("VLLM_GDN_DECODE_KERNEL=fused {QWEN3_NEXT}"));
        let e = recurrent(&rep).error.clone().unwrap();
        assert_eq!(
            e.message,
            "Invalid value 'fused' for VLLM_GDN_DECODE_KERNEL. Valid options: ['cuda', 'triton']."
        );
        assert_eq!(e.source, Some(format!("vllm/envs.py:{line}")));
    }
    let rep = run("h100-sxm", V0_27_0, &format!("VLLM_GDN_DECODE_KERNEL=cuda {QWEN3_NEXT}"));
    assert!(recurrent(&rep).error.is_none(), "0.27.0 does not read it");
}

/// `VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE` (every release, `bool(int(os.getenv(…, "1")))`, read in the layer's
/// `__init__`, gdn.py:557@0.24.0): 0 sends every decode to `fused_sigmoid_gating_delta_rule_update`; a value `int()`
/// cannot read raises its ValueError at layer init.
#[test]
fn packed_decode_env() {
    for r in [V0_24_0, V0_33_0] {
        let rep = run(
            "h100-sxm",
            r,
            &format!("VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE=0 {QWEN3_NEXT}"),
        );
        let g = recurrent(&rep);
        assert_eq!(g.kernel.decode, Some(Kernel::GdnSigmoidGating));
        assert_eq!(choices(&g.kernels.decode), [(Kernel::GdnSigmoidGating, None)]);
        let rep = run(
            "h100-sxm",
            r,
            &format!("VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE=true {QWEN3_NEXT}"),
        );
        let e = recurrent(&rep).error.clone().unwrap();
        assert_eq!(
            (e.kind, e.message.as_str(), e.stage),
            (
                GroupErrorKind::ValueError,
                "invalid literal for int() with base 10: 'true'",
                Stage::Init
            )
        );
    }
    let rep = run("h100-sxm", V0_24_0, QWEN3_NEXT);
    assert_eq!(step_source(recurrent(&rep), "packed recurrent decode"), format!("{GDN}:557"));
}

/// Speculative decoding (Qwen3-Next MTP): the drafted requests run `fused_sigmoid_gating_delta_rule_update` with
/// `num_accepted_tokens` (gdn.py:1759@0.33.0), the first decode batch qpath models; 0.32.0+ logs the spec fallback and
/// kernel (gdn.py:715, :729@0.33.0).
#[test]
fn speculative_decode_runs_sigmoid_gating() {
    let cmd = format!("{QWEN3_NEXT} --speculative-config '{{\"method\": \"mtp\", \"num_speculative_tokens\": 2}}'");
    let rep = run("h100-sxm", V0_33_0, &cmd);
    let g = recurrent(&rep);
    assert_eq!(g.kernel.decode, Some(Kernel::GdnSigmoidGating));
    assert_eq!(
        choices(&g.kernels.decode),
        [
            (
                Kernel::GdnSigmoidGating,
                Some("speculative decodes (with num_accepted_tokens), and the decodes of a batch that also has prefills")
            ),
            (Kernel::GdnPackedDecode, Some("decode-only batches without spec tokens")),
        ]
    );
    assert_eq!(
        records(g)[2..],
        [
            rec(
                LogLevel::Info,
                GDN,
                715,
                &format!("Falling back to the Triton GDN spec decode path: {REASON_0_29}")
            ),
            rec(LogLevel::Info, GDN, 729, "GDN spec decode kernel: triton"),
        ]
    );
    let rep = run("h100-sxm", V0_32_0, &cmd);
    assert_eq!(
        records(recurrent(&rep))[3],
        rec(LogLevel::Info, GDN, 620, "GDN spec decode kernel: triton")
    );
}

/// `--dtype float32` (accepted for Qwen3-Next): FLA's `chunk_gated_delta_rule` asserts `q.dtype != torch.float32`
/// (layers/fla/ops/chunk.py:213@0.24.0, third_party/flash_linear_attention/ops/chunk.py:213@0.33.0). The memory
/// profile's warm-up runs it per GDN layer, catches the AssertionError and warns (gdn.py:1165@0.24.0, :1417@0.33.0),
/// 36 times; the decode kernels check no dtype (FULL decode graphs capture fine); the first prefill raises. q is
/// float32. On H100 FlashInfer runs the prefill, whose float32 failure qpath does not restate.
#[test]
fn float32_fails_fla_prefill_at_the_first_prefill() {
    for (r, file, warn) in [
        (V0_24_0, "vllm/model_executor/layers/fla/ops/chunk.py", 1165),
        (V0_33_0, "vllm/third_party/flash_linear_attention/ops/chunk.py", 1417),
    ] {
        let rep = run("a100-80gb", r, &format!("{QWEN3_NEXT} --dtype float32"));
        let g = recurrent(&rep);
        let f32 = Some(TorchDtype::Float32);
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (f32, f32));
        assert_eq!(g.cache_dtype, "conv float32 / ssm float32");
        assert_eq!(kernels(g), (Some(Kernel::GdnChunkFla), Some(Kernel::GdnPackedDecode)));
        let e = g.error.as_ref().unwrap();
        assert_eq!(e.kind, GroupErrorKind::AssertionError);
        assert_eq!(
            e.message,
            "ChunkGatedDeltaRuleFunction does not support float32. Please use bfloat16."
        );
        assert_eq!(
            (e.stage, e.source.clone()),
            (Stage::PrefillForward, Some(format!("{file}:213")))
        );
        assert_eq!(g.phase_errors.prefill.as_ref(), Some(e));
        assert!(g.phase_errors.decode.is_none());
        let warnings = records(g);
        assert_eq!(warnings.len(), 1 + 36, "the info line, then one warning per GDN layer");
        assert_eq!(
            warnings[1],
            rec(
                LogLevel::Warning,
                GDN,
                warn,
                "GDN prefill kernel warmup (T=64) failed for layer model.layers.0.linear_attn. First inference may OOM \
                 due to autotuner."
            )
        );
        assert!(warnings[36].2.contains("model.layers.46.linear_attn"));
        assert_eq!(rep.verdict, Verdict::Fails);
    }
    let rep = run("h100-sxm", V0_33_0, &format!("{QWEN3_NEXT} --dtype float32"));
    let g = recurrent(&rep);
    assert!(g.error.is_none());
    assert_eq!(g.kernel.prefill, Some(Kernel::GdnChunkFlashInfer));
    assert!(g
        .unmodelled
        .as_deref()
        .unwrap()
        .starts_with("qpath cannot model this: the FlashInfer GDN prefill"));
    assert_eq!(rep.verdict, Verdict::CannotModel);
}

// ---------------------------------------------------------------------------------------------------------------
// Qwen3.5-27B: the same GDN layers built with gqa_interleaved_layout=False (qwen3_5.py:144@0.28.0, :150@0.33.0),
// K = V = 128, 16 key heads and 48 value heads (ratio 3), no output_gate_type in the text config (so
// `getattr(config, "output_gate_type", "silu")` = silu, gdn.py:460@0.28.0), bfloat16, and the text config's
// mamba_ssm_dtype float32 (conv state bfloat16, recurrent state float32). `_fused_gdn_decode_unsupported_reason`
// (gdn.py:512@0.28.0, :779@0.33.0) then finds every condition met on a GPU of capability 8.0+, and the op is built
// (the 0.28.0 and 0.33.0 PyPI wheels' vllm/_C_stable_libtorch.abi3.so register `fused_gdn_decode_post_conv_mtp`).
// ---------------------------------------------------------------------------------------------------------------

const QWEN3_5: &str = "vllm serve Qwen/Qwen3.5-27B";
const MTP2: &str = " --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 2}'";
const SPEC_SIGMOID: &str = "speculative decodes (with num_accepted_tokens), and the decodes of a batch that also has prefills";
const MTP_ONLY: &str =
    "speculative decodes of a batch without prefills (1 + num_speculative_tokens <= MAX_FUSED_GDN_MTP_TOKENS 8)";
const MTP_SIGMOID: &str =
    "speculative decodes of a batch that also has prefills, and the decodes of a batch that also has prefills";
const PACKED_ONLY: &str = "decode-only batches without spec tokens";

/// Without speculative decoding, H100:
/// - 0.27.0: no VLLM_GDN_DECODE_KERNEL (envs.py has it from 0.28.0): the prefill log lines only (gdn.py:150, :157);
///   packed decode for decode-only batches, sigmoid gating beside prefills.
/// - 0.28.0: the variable defaults to "cuda"; the reason is None, so `gdn_decode_kernel` stays "cuda",
///   `enable_fused_gdn_decode` = True (gdn.py:504) and `logger.info_once("GDN decode kernel: %s", …)` (gdn.py:505)
///   prints "GDN decode kernel: cuda". forward_cuda (gdn.py:892) then calls
///   `qwen_gdn_attention_core_fused_norm_packed` (:903), whose `_forward_core_fused_norm` finds no spec decodes
///   (`_can_use_fused_gdn_mtp_decode` needs `spec_sequence_masks`) and runs `_forward_core` (the same packed /
///   sigmoid Triton kernels) then `_rms_norm_gated_cuda` (:1885). The kernels do not change.
/// - 0.33.0: `enable_fused_gdn_spec_decode` = cuda and a speculative config (gdn.py:725): False, and the kernel log
///   needs a speculative config (gdn.py:728): no decode line, the plain Triton path (no fused-norm op).
#[test]
fn qwen3_5_h100_fused_decode_without_spec() {
    for (r, prefill_log, jit) in [(V0_27_0, 150, 157), (V0_28_0, 158, 165), (V0_33_0, 300, 307)] {
        let rep = run("h100-sxm", r, QWEN3_5);
        let g = recurrent(&rep);
        assert_eq!((g.backend, g.layers.len()), (Backend::GdnAttn, 48));
        assert_eq!(g.cache_dtype, "conv bfloat16 / ssm float32");
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (BF16, BF16));
        assert_eq!(
            kernels(g),
            (Some(Kernel::GdnChunkFlashInfer), Some(Kernel::GdnPackedDecode)),
            "{r}"
        );
        assert_eq!(
            choices(&g.kernels.decode),
            [
                (Kernel::GdnPackedDecode, Some(PACKED_ONLY)),
                (
                    Kernel::GdnSigmoidGating,
                    Some("the decodes of a batch that also has prefills")
                ),
            ],
            "{r}"
        );
        let mut expected = vec![
            rec(LogLevel::Info, GDN, prefill_log, &using_prefill("FlashInfer", "auto")),
            rec(LogLevel::Warning, GDN, jit, JIT_WARNING),
        ];
        if r == V0_28_0 {
            expected.push(rec(LogLevel::Info, GDN, 505, "GDN decode kernel: cuda"));
        }
        assert_eq!(records(g), expected, "{r}");
        assert!(g.error.is_none() && g.unmodelled.is_none());
        assert_eq!(rep.verdict, Verdict::Serves);
        let fused_op = g.trace.iter().any(|s| s.rule == "GDN fused-norm op");
        assert_eq!(
            fused_op,
            r == V0_28_0,
            "{r}: the fused-norm op carries the forward only in 0.28.0-0.31.x"
        );
    }
    let g_of = |r| run("h100-sxm", r, QWEN3_5);
    let rep = g_of(V0_28_0);
    let g = recurrent(&rep);
    assert_eq!(step_source(g, "fused CUDA GDN decode"), format!("{GDN}:516"));
    assert!(step(g, "fused CUDA GDN decode").starts_with("every condition holds"));
    assert!(step(g, "GDN gate activation").contains("\"silu\""));
    assert_eq!(step_source(g, "GDN gate activation"), format!("{GDN}:460"));
    assert_eq!(
        step_source(g, "GDN layer layout"),
        "vllm/model_executor/models/qwen3_5.py:144"
    );
    assert_eq!(step_source(g, "fused CUDA GDN decode op"), format!("{GDN}:532"));
    assert_eq!(step_source(g, "GDN fused-norm op"), format!("{GDN}:903"));
    assert!(step(g, "GDN decode kernel").starts_with("cuda: enable_fused_gdn_decode = True"));
    let rep = g_of(V0_33_0);
    let g = recurrent(&rep);
    assert_eq!(step_source(g, "fused CUDA GDN decode"), format!("{GDN}:783"));
    assert!(step(g, "fused CUDA GDN decode op").starts_with("supports_fused_mtp_decode()"));
    assert_eq!(step_source(g, "fused CUDA GDN decode op"), format!("{GDN}:115"));
    assert!(step(g, "GDN decode kernel").starts_with("cuda: enable_fused_gdn_spec_decode = False"));
    let rep = g_of(V0_27_0);
    assert!(!recurrent(&rep).trace.iter().any(|s| s.rule == "fused CUDA GDN decode"));
}

/// MTP with 2 speculative tokens (1 + 2 = 3 state slots <= MAX_FUSED_GDN_MTP_TOKENS 8), H100:
/// - 0.27.0: every speculative decode runs `fused_sigmoid_gating_delta_rule_update` (no fused kernel exists).
/// - 0.28.0: "GDN decode kernel: cuda" (gdn.py:505), but `_can_use_fused_gdn_mtp_decode` (gdn.py:1798) needs
///   `num_v_heads == 8 * num_k_heads`: 48 != 128, so speculative decodes still take the Triton kernels (through
///   the fused-norm op): the same kernel list as Qwen3-Next's.
/// - 0.29.0: the ratio may be 1, 2, 3, 4 or 8 (gdn.py:1827): 48 / 16 = 3: a batch of speculative decodes only runs
///   `ops.fused_gdn_decode_post_conv_mtp` (gdn.py:1766); speculative decodes beside prefills and plain decodes
///   beside prefills run sigmoid gating; decode-only batches without spec tokens the packed decode. Log
///   "GDN decode kernel: cuda" (gdn.py:519).
/// - 0.33.0: the same through `fused_mtp_decode_impl()` (gdn.py:2097); the log is "GDN spec decode kernel: cuda"
///   (gdn.py:729).
#[test]
fn qwen3_5_h100_mtp_runs_the_fused_cuda_kernel_from_0_29_0() {
    let cmd = format!("{QWEN3_5}{MTP2}");
    for (r, prefill_log, decode_log, text) in [
        (V0_27_0, 150, None, ""),
        (V0_28_0, 158, Some(505), "GDN decode kernel: cuda"),
        (V0_29_0, 167, Some(519), "GDN decode kernel: cuda"),
        (V0_33_0, 300, Some(729), "GDN spec decode kernel: cuda"),
    ] {
        let rep = run("h100-sxm", r, &cmd);
        let g = recurrent(&rep);
        let recs = records(g);
        assert_eq!(
            recs[0],
            rec(LogLevel::Info, GDN, prefill_log, &using_prefill("FlashInfer", "auto"))
        );
        match decode_log {
            None => assert_eq!(recs.len(), 2, "{r}: {recs:?}"),
            Some(line) => assert_eq!(recs[2..], [rec(LogLevel::Info, GDN, line, text)], "{r}"),
        }
        let fused = r >= V0_29_0;
        if fused {
            assert_eq!(g.kernel.decode, Some(Kernel::GdnFusedMtpDecode), "{r}");
            assert_eq!(
                choices(&g.kernels.decode),
                [
                    (Kernel::GdnFusedMtpDecode, Some(MTP_ONLY)),
                    (Kernel::GdnSigmoidGating, Some(MTP_SIGMOID)),
                    (Kernel::GdnPackedDecode, Some(PACKED_ONLY)),
                ],
                "{r}"
            );
        } else {
            assert_eq!(g.kernel.decode, Some(Kernel::GdnSigmoidGating), "{r}");
            assert_eq!(
                choices(&g.kernels.decode),
                [
                    (Kernel::GdnSigmoidGating, Some(SPEC_SIGMOID)),
                    (Kernel::GdnPackedDecode, Some(PACKED_ONLY)),
                ],
                "{r}"
            );
        }
        assert!(g.error.is_none() && g.unmodelled.is_none());
    }
    let rep = run("h100-sxm", V0_28_0, &cmd);
    let g = recurrent(&rep);
    assert_eq!(step_source(g, "fused MTP decode"), format!("{GDN}:1802"));
    assert!(step(g, "fused MTP decode").contains("num_v_heads 48 == 8 * num_k_heads 16: false"));
    for (r, can_use, call) in [(V0_29_0, 1820, 1766), (V0_33_0, 2151, 2097)] {
        let rep = run("h100-sxm", r, &cmd);
        let g = recurrent(&rep);
        assert_eq!(step_source(g, "fused MTP decode"), format!("{GDN}:{can_use}"));
        assert!(step(g, "fused MTP decode").contains("num_v_heads 48 / num_k_heads 16 = 3 in (1, 2, 3, 4, 8): true"));
        assert_eq!(step_source(g, "GDN fused MTP decode call"), format!("{GDN}:{call}"));
    }
    assert_eq!(
        Kernel::GdnFusedMtpDecode.call(),
        "fused_gdn_decode_post_conv_mtp (CUDA, torch.ops._C)"
    );
}

/// RTX 4090 (SM89, capability 8.9 >= 8.0): no FlashInfer GDN prefill (FLA's Triton chunk kernel), but the fused
/// CUDA decode is supported like on H100: 0.33.0 with MTP runs it for spec-decode-only batches
/// ("GDN spec decode kernel: cuda", gdn.py:729); 0.30.0 logs "GDN decode kernel: cuda" (gdn.py:528).
#[test]
fn qwen3_5_rtx4090_fused_mtp_decode() {
    for (r, prefill_log, line, text) in [
        (V0_30_0, 176, 528, "GDN decode kernel: cuda"),
        (V0_33_0, 300, 729, "GDN spec decode kernel: cuda"),
    ] {
        let rep = run("rtx-4090", r, &format!("{QWEN3_5}{MTP2}"));
        let g = recurrent(&rep);
        assert_eq!(
            kernels(g),
            (Some(Kernel::GdnChunkFla), Some(Kernel::GdnFusedMtpDecode)),
            "{r}"
        );
        assert_eq!(
            records(g),
            [
                rec(LogLevel::Info, GDN, prefill_log, &using_prefill("Triton/FLA", "auto")),
                rec(LogLevel::Info, GDN, line, text),
            ],
            "{r}"
        );
        assert!(step(g, "fused CUDA GDN decode").ends_with("compute capability 8.9 >= 8.0"));
    }
}

/// T4 (SM75): `--dtype auto` resolves bfloat16 to float16 below 8.0, so the model dtype, the conv state (auto: the
/// model dtype) and the capability all fail the reason's condition (gdn.py:516@0.28.0, :783@0.33.0). The default
/// (unset) kernel falls back: 0.28.0 logs "Falling back to the Triton GDN decode path: <reason>" (gdn.py:500) and
/// "GDN decode kernel: triton" (:505); 0.33.0 logs only with a speculative config, "… spec decode path …" (:715)
/// and "GDN spec decode kernel: triton" (:729). An explicit VLLM_GDN_DECODE_KERNEL=cuda raises the reason as a
/// ValueError at layer init (gdn.py:497@0.28.0, :711@0.33.0).
#[test]
fn qwen3_5_t4_falls_back_to_triton() {
    let rep = run("t4", V0_28_0, QWEN3_5);
    let g = recurrent(&rep);
    assert_eq!(g.cache_dtype, "conv float16 / ssm float32");
    assert_eq!(kernels(g), (Some(Kernel::GdnChunkFla), Some(Kernel::GdnPackedDecode)));
    assert_eq!(
        records(g)[1..],
        [
            rec(
                LogLevel::Info,
                GDN,
                500,
                &format!("Falling back to the Triton GDN decode path: {REASON_0_28}")
            ),
            rec(LogLevel::Info, GDN, 505, "GDN decode kernel: triton"),
        ]
    );
    assert!(step(g, "fused CUDA GDN decode")
        .starts_with("unsupported: model dtype float16, conv state float16, compute capability 7.5"));

    let rep = run("t4", V0_33_0, &format!("{QWEN3_5}{MTP2}"));
    let g = recurrent(&rep);
    assert_eq!(g.kernel.decode, Some(Kernel::GdnSigmoidGating));
    assert_eq!(
        records(g)[1..],
        [
            rec(
                LogLevel::Info,
                GDN,
                715,
                &format!("Falling back to the Triton GDN spec decode path: {REASON_0_29}")
            ),
            rec(LogLevel::Info, GDN, 729, "GDN spec decode kernel: triton"),
        ]
    );
    let rep = run("t4", V0_33_0, QWEN3_5);
    assert_eq!(recurrent(&rep).logs.len(), 1, "0.33.0 without spec: the prefill line only");

    for (r, reason, line) in [(V0_28_0, REASON_0_28, 497), (V0_33_0, REASON_0_29, 711)] {
        let rep = run("t4", r, &format!("VLLM_GDN_DECODE_KERNEL=cuda {QWEN3_5}"));
        let e = recurrent(&rep).error.clone().unwrap();
        assert_eq!(e.kind, GroupErrorKind::ValueError);
        assert_eq!(e.message, format!("VLLM_GDN_DECODE_KERNEL=cuda is not supported: {reason}"));
        assert_eq!((e.stage, e.source), (Stage::Init, Some(format!("{GDN}:{line}"))));
        assert_eq!(rep.verdict, Verdict::Fails);
    }
}

/// An explicit VLLM_GDN_DECODE_KERNEL (0.28.0+, `env_with_choices`, case-insensitive):
/// - `cuda` where the reason is None: nothing raises (the raise needs a reason); the same logs as unset
///   (0.28.0 "GDN decode kernel: cuda", gdn.py:505; 0.33.0 with MTP "GDN spec decode kernel: cuda", :729).
/// - `triton`: the reason is not asked; 0.28.0 logs "GDN decode kernel: triton" (:505), 0.33.0 with MTP
///   "GDN spec decode kernel: triton" (:729); speculative decodes run sigmoid gating.
/// - 0.27.0 does not read it: no error, no log.
#[test]
fn qwen3_5_gdn_decode_kernel_env() {
    let rep = run("h100-sxm", V0_28_0, &format!("VLLM_GDN_DECODE_KERNEL=CUDA {QWEN3_5}"));
    let g = recurrent(&rep);
    assert!(g.error.is_none());
    assert_eq!(records(g)[2], rec(LogLevel::Info, GDN, 505, "GDN decode kernel: cuda"));
    let rep = run("h100-sxm", V0_33_0, &format!("VLLM_GDN_DECODE_KERNEL=cuda {QWEN3_5}{MTP2}"));
    let g = recurrent(&rep);
    assert!(g.error.is_none());
    assert_eq!(g.kernel.decode, Some(Kernel::GdnFusedMtpDecode));
    assert_eq!(records(g)[2], rec(LogLevel::Info, GDN, 729, "GDN spec decode kernel: cuda"));

    for (r, line, text) in [
        (V0_28_0, 505, "GDN decode kernel: triton"),
        (V0_33_0, 729, "GDN spec decode kernel: triton"),
    ] {
        let rep = run("h100-sxm", r, &format!("VLLM_GDN_DECODE_KERNEL=triton {QWEN3_5}{MTP2}"));
        let g = recurrent(&rep);
        assert_eq!(records(g)[2..], [rec(LogLevel::Info, GDN, line, text)], "{r}");
        assert_eq!(g.kernel.decode, Some(Kernel::GdnSigmoidGating), "{r}");
        assert!(!g.trace.iter().any(|s| s.rule == "fused CUDA GDN decode"), "{r}");
        assert!(step(g, "GDN decode kernel").starts_with("triton:"), "{r}");
    }
    let rep = run("h100-sxm", V0_27_0, &format!("VLLM_GDN_DECODE_KERNEL=cuda {QWEN3_5}{MTP2}"));
    let g = recurrent(&rep);
    assert!(g.error.is_none());
    assert_eq!(g.logs.len(), 2, "{:?}", g.logs);
    assert_eq!(g.kernel.decode, Some(Kernel::GdnSigmoidGating));
}

/// `--mamba-ssm-cache-dtype float16` (kept over the text config's float32 with the config's warning): a float16
/// recurrent state is not in FUSED_GDN_STATE_DTYPES (float32, bfloat16; gdn.py:90@0.28.0, :110@0.33.0), so the
/// reason is returned: 0.28.0 falls back with its log (gdn.py:500, :505); 0.33.0 logs nothing without a speculative
/// config and, with MTP, the spec fallback (:715, :729); speculative decodes run sigmoid gating. Explicit `cuda`
/// raises (gdn.py:497@0.28.0, :711@0.33.0).
#[test]
fn qwen3_5_float16_ssm_state_has_no_fused_decode() {
    let fp16 = format!("{QWEN3_5} --mamba-ssm-cache-dtype float16");
    let rep = run("h100-sxm", V0_28_0, &fp16);
    let g = recurrent(&rep);
    assert_eq!(g.cache_dtype, "conv bfloat16 / ssm float16");
    assert_eq!(
        records(g)[2..],
        [
            rec(
                LogLevel::Info,
                GDN,
                500,
                &format!("Falling back to the Triton GDN decode path: {REASON_0_28}")
            ),
            rec(LogLevel::Info, GDN, 505, "GDN decode kernel: triton"),
        ]
    );
    assert_eq!(
        step(g, "fused CUDA GDN decode").split(" (").next(),
        Some("unsupported: recurrent state float16")
    );
    let rep = run("h100-sxm", V0_33_0, &fp16);
    assert_eq!(recurrent(&rep).logs.len(), 2);
    let rep = run("h100-sxm", V0_33_0, &format!("{fp16}{MTP2}"));
    let g = recurrent(&rep);
    assert_eq!(g.kernel.decode, Some(Kernel::GdnSigmoidGating));
    assert_eq!(
        choices(&g.kernels.decode),
        [
            (Kernel::GdnSigmoidGating, Some(SPEC_SIGMOID)),
            (Kernel::GdnPackedDecode, Some(PACKED_ONLY)),
        ]
    );
    assert_eq!(
        records(g)[2..],
        [
            rec(
                LogLevel::Info,
                GDN,
                715,
                &format!("Falling back to the Triton GDN spec decode path: {REASON_0_29}")
            ),
            rec(LogLevel::Info, GDN, 729, "GDN spec decode kernel: triton"),
        ]
    );
    for (r, reason, line) in [(V0_28_0, REASON_0_28, 497), (V0_33_0, REASON_0_29, 711)] {
        let rep = run("h100-sxm", r, &format!("VLLM_GDN_DECODE_KERNEL=cuda {fp16}"));
        let e = recurrent(&rep).error.clone().unwrap();
        assert_eq!(e.message, format!("VLLM_GDN_DECODE_KERNEL=cuda is not supported: {reason}"));
        assert_eq!(e.source, Some(format!("{GDN}:{line}")));
    }
    // bfloat16 is in FUSED_GDN_STATE_DTYPES: the fused kernel stays.
    let rep = run(
        "h100-sxm",
        V0_33_0,
        &format!("{QWEN3_5} --mamba-ssm-cache-dtype bfloat16{MTP2}"),
    );
    assert_eq!(recurrent(&rep).kernel.decode, Some(Kernel::GdnFusedMtpDecode));
}

/// VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE=0 with MTP on 0.33.0: the fused check in `_forward_core_fused_norm`
/// comes before `_forward_core`, so spec-decode-only batches still run the fused kernel; every other decode runs
/// sigmoid gating.
#[test]
fn qwen3_5_mtp_without_packed_decode() {
    let rep = run(
        "h100-sxm",
        V0_33_0,
        &format!("VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE=0 {QWEN3_5}{MTP2}"),
    );
    let g = recurrent(&rep);
    assert_eq!(
        choices(&g.kernels.decode),
        [
            (Kernel::GdnFusedMtpDecode, Some(MTP_ONLY)),
            (Kernel::GdnSigmoidGating, Some("every other decode")),
        ]
    );
}

/// MTP with 8 speculative tokens: 1 + 8 state slots exceed MAX_FUSED_GDN_MTP_TOKENS (8,
/// qwen_gdn_linear_attn.py:109@0.33.0), so `_can_use_fused_gdn_mtp_decode` is false for every batch and the speculative
/// decodes run the Triton kernels; 7 tokens (8 slots) still take the fused kernel.
#[test]
fn qwen3_5_mtp_beyond_eight_slots_has_no_fused_decode() {
    let mtp = |n: u32| format!(" --speculative-config '{{\"method\":\"mtp\",\"num_speculative_tokens\":{n}}}'");
    let seven = run("h100-sxm", V0_33_0, &format!("{QWEN3_5}{}", mtp(7)));
    assert_eq!(recurrent(&seven).kernel.decode, Some(Kernel::GdnFusedMtpDecode));
    let eight = run("h100-sxm", V0_33_0, &format!("{QWEN3_5}{}", mtp(8)));
    let g = recurrent(&eight);
    assert!(
        g.kernels.decode.iter().all(|k| k.kernel != Kernel::GdnFusedMtpDecode),
        "{:?}",
        g.kernels.decode
    );
    assert!(g
        .trace
        .iter()
        .any(|s| s.rule == "fused MTP decode tokens" && s.outcome.contains("= 9 > 8")));
}

/// Nemotron-Nano-9B-v2 on H100: the memory profile warms the SSD kernels up (mixer2.py:578@0.24.0, :623@0.33.0), the
/// KV-cache init builds the Triton SSU backend and logs it (ssu.py:224@0.24.0, :635@0.33.0); prefills run
/// `mamba_chunk_scan_combined_varlen`, decodes Triton's `selective_state_update`. x, B, C are bfloat16; the state is
/// conv bfloat16 / ssm float32 (NemotronH's default).
#[test]
fn nemotron_h100_ssd_prefill_triton_ssu() {
    for (r, warm, ssu, scan) in [(V0_24_0, 578, 224, 848), (V0_33_0, 623, 635, 864)] {
        let rep = run("h100-sxm", r, NEMOTRON);
        let g = recurrent(&rep);
        assert_eq!((g.backend, g.layers.len()), (Backend::Mamba2, 27));
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (BF16, BF16));
        assert_eq!(g.cache_dtype, "conv bfloat16 / ssm float32");
        assert_eq!(kernels(g), (Some(Kernel::MambaChunkScan), Some(Kernel::SelectiveStateUpdate)));
        assert_eq!(
            records(g),
            [
                rec(LogLevel::Info, MIXER2, warm, "Warming up Mamba2 SSD Triton kernels..."),
                rec(LogLevel::Info, SSU, ssu, "Using triton Mamba SSU backend."),
            ],
            "{r}"
        );
        assert_eq!(step_source(g, "Mamba2 prefill kernel"), format!("{MIXER2}:{scan}"));
        assert!(step(g, "Mamba2 input dtype").contains("x, B, C"));
        assert!(step(g, "Mamba2 prefill kernel").contains("state_dtype float32"));
        assert!(g.error.is_none() && g.unmodelled.is_none());
    }
}

/// `--mamba-backend flashinfer` (every release): decodes run `flashinfer.mamba.selective_state_update`; 0.27.0+
/// first logs the SSU algorithm (ssu.py:129@0.27.0, :346@0.33.0; `auto` unless `--mamba-ssu-algorithm`), then the
/// backend (ssu.py:310@0.27.0, :635@0.33.0). `create_engine_config` rejects an unknown name (`MambaBackendEnum`'s
/// metaclass, upper-cased) and, 0.27.0+, `--mamba-ssu-algorithm` without FlashInfer (config/mamba.py:77).
#[test]
fn nemotron_mamba_backend_flashinfer() {
    let rep = run("h100-sxm", V0_24_0, &format!("{NEMOTRON} --mamba-backend flashinfer"));
    let g = recurrent(&rep);
    assert_eq!(g.kernel.decode, Some(Kernel::FlashInferSelectiveStateUpdate));
    assert_eq!(
        records(g)[1],
        rec(LogLevel::Info, SSU, 224, "Using flashinfer Mamba SSU backend.")
    );
    assert!(rep.unused_flags.is_empty(), "{:?}", rep.unused_flags);
    for (r, algo, ssu) in [(V0_27_0, 129, 310), (V0_33_0, 346, 635)] {
        let rep = run("h100-sxm", r, &format!("{NEMOTRON} --mamba-backend FlashInfer"));
        let g = recurrent(&rep);
        assert_eq!(
            g.kernel,
            qpath_core::report::Phases {
                prefill: Some(Kernel::MambaChunkScan),
                decode: Some(Kernel::FlashInferSelectiveStateUpdate),
            }
        );
        assert_eq!(
            records(g)[1..],
            [
                rec(LogLevel::Info, SSU, algo, "Using FlashInfer Mamba SSU algorithm: auto"),
                rec(LogLevel::Info, SSU, ssu, "Using flashinfer Mamba SSU backend."),
            ]
        );
        let rep = run(
            "h100-sxm",
            r,
            &format!("{NEMOTRON} --mamba-backend flashinfer --mamba-ssu-algorithm simple"),
        );
        assert_eq!(recurrent(&rep).logs[1], "Using FlashInfer Mamba SSU algorithm: simple");
    }
    let err = |r, extra: &str| {
        let s = Scenario::new(Hardware::parse("h100-sxm").unwrap(), r, format!("{NEMOTRON} {extra}"));
        // As Python prints it: the exception's type, then its message.
        let e = resolve(&s).error.expect("vLLM rejects it");
        e.kind.body(&e.message)
    };
    assert_eq!(
        err(V0_24_0, "--mamba-backend cuda"),
        "ValueError: Unknown Mamba SSU backend: 'CUDA'. Valid options are: TRITON, FLASHINFER"
    );
    assert_eq!(
        err(V0_33_0, "--mamba-backend cuda"),
        "ValueError: Unknown Mamba SSU backend: 'CUDA'. Valid options are: TRITON, FLASHINFER, CPU"
    );
    assert_eq!(
        err(V0_27_0, "--mamba-ssu-algorithm simple"),
        "ValueError: Mamba SSU algorithm selection is only supported with the FlashInfer backend. Please set \
         `--mamba-backend flashinfer`, or omit `--mamba-ssu-algorithm`."
    );
    // --mamba-ssu-algorithm None is argparse's "unset".
    assert!(run("h100-sxm", V0_33_0, &format!("{NEMOTRON} --mamba-ssu-algorithm None"))
        .error
        .is_none());
}

/// What qpath cannot model: ReplaySSM's decode kernels (`--use-replayssm`, 0.27.0+) and the CPU SSU backend on a GPU
/// (`--mamba-backend cpu`, 0.27.0+): the prefill is still the SSD scan, the decode kernel is left out with the reason.
#[test]
fn replayssm_and_cpu_ssu_are_qpath_limits() {
    for extra in ["--use-replayssm", "--mamba-backend cpu"] {
        let rep = run("h100-sxm", V0_33_0, &format!("{NEMOTRON} {extra}"));
        let g = recurrent(&rep);
        assert_eq!(kernels(g), (Some(Kernel::MambaChunkScan), None), "{extra}");
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (BF16, BF16));
        assert!(
            g.unmodelled.as_deref().unwrap().starts_with("qpath cannot model this: --"),
            "{extra}"
        );
        assert_eq!(rep.verdict, Verdict::CannotModel);
    }
}

/// Every recurrent group that runs has a query (input) dtype and a kernel per phase, or says why not, across GPUs,
/// releases and the flags above.
#[test]
fn no_running_recurrent_group_without_dtype_or_kernel() {
    let gpus = ["t4", "a100-80gb", "l4", "h100-sxm", "b200", "rtx-5090"];
    let extras = [
        "",
        " --gdn-prefill-backend triton",
        " --gdn-prefill-backend cutedsl",
        " --mamba-backend flashinfer",
        " --dtype float16",
        " --speculative-config '{\"method\": \"ngram\", \"num_speculative_tokens\": 3, \"prompt_lookup_max\": 4}'",
    ];
    let mut checked = 0;
    for r in Release::ALL {
        for gpu in gpus {
            for cuda in [(12, 9), (13, 0)] {
                for model in [QWEN3_NEXT, QWEN3_5, NEMOTRON] {
                    for extra in extras {
                        let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), r, format!("{model}{extra}"));
                        s.cuda = CudaVersion::new(cuda.0, cuda.1);
                        let rep = resolve(&s);
                        for g in rep.groups.iter().filter(|g| g.backend.is_recurrent()) {
                            checked += 1;
                            if g.error.is_some() || g.unmodelled.is_some() {
                                continue;
                            }
                            let what = format!("{r} {gpu} {model}{extra}");
                            assert!(g.q_dtype.prefill.is_some() && g.q_dtype.decode.is_some(), "{what}");
                            assert!(g.kernel.prefill.is_some() && g.kernel.decode.is_some(), "{what}");
                            assert_eq!(g.kernels.prefill.first().map(|c| c.kernel), g.kernel.prefill, "{what}");
                            assert_eq!(g.kernels.decode.first().map(|c| c.kernel), g.kernel.decode, "{what}");
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}
