//! Exhaustive grids: every combination of the inputs the FlashInfer decision reads, checked for invariants that must
//! hold whatever the release. `builder_grid` drives the builder directly (over 100,000 groups); `scenario_grid` runs
//! whole scenarios (command line, model, selection, grouping).

use qpath_core::backends::flashinfer::{resolve_group, GroupSpec};
use qpath_core::capability::{ComputeCapability, CudaVersion};
use qpath_core::dtype::TorchDtype;
use qpath_core::platform::Platform;
use qpath_core::release::Release;
use qpath_core::report::{Backend, GroupReport, Kernel, Stage};
use qpath_core::resolve::{resolve, Hardware, Scenario};

const CAPS: &[(u8, u8)] = &[(8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (10, 3), (11, 0), (12, 0), (12, 1)];
const KVS: &[&str] = &[
    "auto",
    "float16",
    "bfloat16",
    "fp8",
    "fp8_e4m3",
    "fp8_e5m2",
    "nvfp4",
    "nvfp4_4over6",
];

struct Checked<'a> {
    release: Release,
    cc: ComputeCapability,
    quantized: bool,
    q: [Option<TorchDtype>; 2],
    kernel: [Option<Kernel>; 2],
    error: Option<(&'a str, Stage)>,
    /// Each phase's own first error (prefill, decode).
    phase: [Option<(&'a str, Stage)>; 2],
    steps: usize,
    /// The trace flags a prediction the Python source does not decide (FlashInfer's sink wrapper with an FP8 query).
    unverified: bool,
}

fn check(c: &Checked, ctx: &dyn Fn() -> String) {
    // `__init__`, `build()` and the memory profile stop both phases.
    let shared = c.error.filter(|(_, s)| s.is_prefill().is_none());
    let fa2_assert = [c.error, c.phase[0], c.phase[1]]
        .iter()
        .flatten()
        .any(|(m, _)| *m == "fp8 tensor core is not supported in fa2 backend");
    for phase in 0..2 {
        let raised = c.phase[phase].is_some() || shared.is_some();
        // An FP8 query never reaches FA2 without that phase raising (FA2's assertion, or an earlier check).
        if c.kernel[phase] == Some(Kernel::Fa2) && c.q[phase].is_some_and(|q| q.is_fp8()) && !c.unverified && !raised {
            panic!("FP8 query routed to fa2 without error: {}", ctx());
        }
        // XQA never takes an FP8 query without its dtype check failing.
        let xqa_rejects =
            c.phase[phase].is_some_and(|(m, _)| m.ends_with("for XQA, only float16 and bfloat16 input are supported"));
        if c.kernel[phase] == Some(Kernel::Xqa) && c.q[phase].is_some_and(|q| !q.is_16bit()) && !xqa_rejects && !raised {
            panic!("non-16-bit query on XQA: {}", ctx());
        }
        // A phase's own error is raised on that phase's path.
        if let Some((_, stage)) = c.phase[phase] {
            assert_eq!(
                stage.is_prefill(),
                Some(phase == 0),
                "phase error on the wrong phase: {}",
                ctx()
            );
        }
        // Without a shared error each phase decides its kernel, even when the other phase raises.
        if shared.is_none() && c.error.is_some() {
            assert!(c.q[phase].is_some(), "phase {phase} undecided: {}", ctx());
        }
    }
    // After the fix, a skipped or unquantized group never gets an FP8 query.
    if !c.quantized && c.release != Release::V0_25_0Prefix && c.q.iter().flatten().any(|q| q.is_fp8()) {
        panic!("FP8 query on an unquantized group: {}", ctx());
    }
    // After the fix, FP8 queries exist only on SM90 (prefill or forced-off decode) and the SM100 family.
    if c.release > Release::V0_25_0Prefix && c.q.iter().flatten().any(|q| q.is_fp8()) && !(c.cc.major == 9 || c.cc.major == 10) {
        panic!("FP8 query off SM90/SM100: {}", ctx());
    }
    match c.error {
        None => assert!(
            c.q.iter().all(Option::is_some) && c.kernel.iter().all(Option::is_some) && c.phase.iter().all(Option::is_none),
            "missing outcome, or a phase error without a first error: {}",
            ctx()
        ),
        Some((_, Stage::Init | Stage::ProfileRun)) => {
            assert!(c.kernel.iter().all(Option::is_none), "kernel after an init error: {}", ctx())
        }
        Some((_, Stage::Build)) => {}
        // The first error is one of the phases' own.
        Some(e) => assert!(c.phase.contains(&Some(e)), "first error not a phase's: {}", ctx()),
    }
    if fa2_assert {
        assert!(
            c.q.iter().flatten().any(|q| q.is_fp8()),
            "FA2 assertion without an FP8 query: {}",
            ctx()
        );
    }
    let min_steps = if c.error.is_some() { 2 } else { 6 };
    assert!(c.steps >= min_steps, "thin trace: {}", ctx());
}

#[test]
fn builder_grid() {
    let mut count = 0usize;
    let mut errors = 0usize;
    for release in Release::ALL {
        for &(ma, mi) in CAPS {
            let cc = ComputeCapability::new(ma, mi);
            for kv in KVS {
                for quantized in [false, true] {
                    let quantized_kv = !matches!(*kv, "auto" | "float16" | "bfloat16");
                    if quantized && !quantized_kv {
                        continue;
                    }
                    for force in [None, Some(true), Some(false)] {
                        for disable in [false, true] {
                            for (qh, kh) in [(32, 8), (40, 6)] {
                                for head_dim in [64, 128, 256, 512] {
                                    for dcp in [1, 2] {
                                        for sinks in [false, true] {
                                            for window in [None, Some(1024)] {
                                                for cubins in [true, false] {
                                                    let p = Platform {
                                                        release,
                                                        flashinfer: release.flashinfer_pin(),
                                                        cc,
                                                        cuda: CudaVersion::new(12, 9),
                                                        cubins,
                                                        batch_invariant: false,
                                                        model_dtype: TorchDtype::BFloat16,
                                                        force_trtllm: force,
                                                        disable_q_quant: disable,
                                                        flash_attn_version: None,
                                                        dcp,
                                                        page_size: 16,
                                                        global_kv: kv.to_string(),
                                                        graphs: qpath_core::serve::CudaGraphs {
                                                            mode: "FULL_AND_PIECEWISE".into(),
                                                            set_by: "the default".into(),
                                                        },
                                                        resolved_graphs: None,
                                                        model_mla: None,
                                                        attention_chunk_size: None,
                                                    };
                                                    let spec_dtype = match *kv {
                                                        "float16" => TorchDtype::Float16,
                                                        _ => TorchDtype::BFloat16,
                                                    };
                                                    let g = GroupSpec {
                                                        quantized,
                                                        spec_dtype,
                                                        head_dim,
                                                        q_heads: qh,
                                                        kv_heads: kh,
                                                        sliding_window: window,
                                                        has_sinks: sinks,
                                                    };
                                                    let out = resolve_group(&p, &g);
                                                    count += 1;
                                                    errors += out.error.is_some() as usize;
                                                    let c = Checked {
                                                        release,
                                                        cc,
                                                        quantized,
                                                        q: [out.q_dtype.prefill, out.q_dtype.decode],
                                                        kernel: [out.kernel.prefill, out.kernel.decode],
                                                        error: out.error.as_ref().map(|e| (e.message.as_str(), e.stage)),
                                                        phase: [&out.phase_errors.prefill, &out.phase_errors.decode]
                                                            .map(|e| e.as_ref().map(|e| (e.message.as_str(), e.stage))),
                                                        steps: out.trace.steps.len(),
                                                        unverified: out.trace.steps.iter().any(|s| s.unverified),
                                                    };
                                                    check(&c, &|| {
                                                        format!("{release} {cc} kv={kv} q={quantized} force={force:?} disable={disable} heads={qh}/{kh} hd={head_dim} dcp={dcp} sinks={sinks} window={window:?} cubins={cubins}: {out:?}")
                                                    });
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(count >= 100_000, "only {count} scenarios");
    // The grid covers both working and failing configurations.
    assert!(errors > count / 20 && errors < count, "{errors} errors in {count}");
}

fn scenario_ctx(r: &qpath_core::report::Report) -> String {
    format!(
        "{} {} {:?}",
        r.vllm,
        r.gpu.compute_capability,
        r.groups.iter().map(|g| (&g.layers, &g.backend, &g.error)).collect::<Vec<_>>()
    )
}

#[test]
fn scenario_grid() {
    let models = [
        "meta-llama/Llama-3.1-8B-Instruct",
        "openai/gpt-oss-20b",
        "google/gemma-3-27b-it",
        "facebook/opt-125m",
        "Qwen/Qwen2.5-0.5B-Instruct",
    ];
    let skips = [
        "",
        "--kv-cache-dtype-skip-layers 0 2",
        "--kv-cache-dtype-skip-layers sliding_window",
    ];
    let flags = [
        "",
        "--attention-backend FLASHINFER",
        "-ac.use_trtllm_attention false",
        "-ac.disable_flashinfer_q_quantization true -dcp 2",
    ];
    let mut count = 0;
    let mut tally = Tally::default();
    for release in Release::ALL {
        for gpu in ["l4", "a100-80gb", "h100-sxm", "b200", "jetson-agx-thor", "rtx-5090", "t4"] {
            for model in models {
                for kv in ["auto", "fp8", "fp8_e5m2", "nvfp4"] {
                    for skip in skips {
                        for flag in flags {
                            let cmd = format!("vllm serve {model} --kv-cache-dtype {kv} {skip} {flag}");
                            let r = resolve(&Scenario::new(Hardware::parse(gpu).unwrap(), release, cmd));
                            count += 1;
                            if r.error.is_some() {
                                assert!(r.groups.is_empty());
                                continue;
                            }
                            let layers: usize = r.groups.iter().map(|g| g.layers.len()).sum();
                            assert_eq!(
                                Some(layers as u32),
                                r.model.as_ref().map(|m| m.num_layers),
                                "every layer in one group: {}",
                                scenario_ctx(&r)
                            );
                            for g in &r.groups {
                                check_group(g, release, &r, &mut tally);
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(count > 10_000);
    // The counts (`cargo test --test grid -- --nocapture` prints them).
    println!(
        "scenario grid: {count} scenarios; groups that run, per backend: {:?}; groups that fail: {}; groups qpath \
         cannot model, per backend: {:?}",
        tally.runs, tally.fails, tally.unmodelled
    );
}

/// What the grid counts: groups that run, groups that fail, groups qpath cannot model (the only ones that may run
/// without a query dtype or kernel), per backend.
#[derive(Default)]
struct Tally {
    runs: std::collections::BTreeMap<&'static str, usize>,
    fails: usize,
    unmodelled: std::collections::BTreeMap<&'static str, usize>,
}

/// Every group that runs (no error) has a query dtype and a kernel in both phases, and its `kernels` start with
/// `kernel`, unless it says why qpath cannot model it.
fn runs_with_dtypes_and_kernels(g: &GroupReport, tally: &mut Tally, ctx: &dyn Fn() -> String) {
    if g.error.is_some() {
        tally.fails += 1;
        return;
    }
    if let Some(why) = &g.unmodelled {
        assert!(why.starts_with("qpath cannot model this: "), "{why}");
        *tally.unmodelled.entry(g.backend.name()).or_default() += 1;
        return;
    }
    *tally.runs.entry(g.backend.name()).or_default() += 1;
    for (q, k, ks) in [
        (g.q_dtype.prefill, g.kernel.prefill, &g.kernels.prefill),
        (g.q_dtype.decode, g.kernel.decode, &g.kernels.decode),
    ] {
        assert!(
            q.is_some() && k.is_some(),
            "a group that runs without a query dtype or kernel: {g:#?} {}",
            ctx()
        );
        assert_eq!(ks.first().map(|c| c.kernel), k, "{}", ctx());
    }
}

fn check_group(g: &GroupReport, release: Release, r: &qpath_core::report::Report, tally: &mut Tally) {
    runs_with_dtypes_and_kernels(g, tally, &|| scenario_ctx(r));
    if g.backend != Backend::FlashInfer {
        return;
    }
    let cc: ComputeCapability = r.gpu.compute_capability.parse().unwrap();
    let c = Checked {
        release,
        cc,
        quantized: g.cache_dtype != "auto",
        q: [g.q_dtype.prefill, g.q_dtype.decode],
        kernel: [g.kernel.prefill, g.kernel.decode],
        error: g.error.as_ref().map(|e| (e.message.as_str(), e.stage)),
        phase: [&g.phase_errors.prefill, &g.phase_errors.decode].map(|e| e.as_ref().map(|e| (e.message.as_str(), e.stage))),
        steps: g.trace.len(),
        unverified: g.trace.iter().any(|s| s.unverified),
    };
    check(&c, &|| scenario_ctx(r));
}

/// The words random command lines are made of: the flags and values that matter, and junk.
const VOCAB: &[&str] = &[
    "--kv-cache-dtype",
    "fp8",
    "fp8_e5m2",
    "nvfp4",
    "auto",
    "bogus",
    "--kv-cache-dtype-skip-layers",
    "0",
    "1",
    "-1",
    "99",
    "sliding_window",
    "--attention-backend",
    "FLASHINFER",
    "FLASH_ATTN",
    "-ac.use_trtllm_attention",
    "true",
    "false",
    "--attention-config",
    "{\"use_trtllm_attention\": null}",
    "{",
    "-dcp",
    "2",
    "0",
    "--block-size",
    "128",
    "64",
    "7",
    "--hf-overrides",
    "{\"head_dim\": 512}",
    "{\"num_hidden_layers\": 0}",
    "-tp",
    "3",
    "8",
    "--dtype",
    "float16",
    "half",
    "VLLM_BATCH_INVARIANT=1",
    "VLLM_HAS_FLASHINFER_CUBIN=x",
    "--speculative-config",
    "{\"num_speculative_tokens\": 3}",
    "'",
    "\"",
    "\\",
    "--",
    "=",
    "--no-enable-prefix-caching",
    "--max-model-len",
    "4k",
];

/// Random command lines built from the flags and values that matter (and junk): `resolve` never panics, and a
/// rejected scenario carries a message.
#[test]
fn random_command_lines_never_panic() {
    let vocab = VOCAB;
    let models = [
        "meta-llama/Llama-3.1-8B-Instruct",
        "openai/gpt-oss-20b",
        "google/gemma-3-27b-it",
        "unknown/model",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for i in 0..3000 {
        let n = (next() % 8) as usize;
        let mut words: Vec<&str> = Vec::new();
        for _ in 0..n {
            words.push(vocab[(next() % vocab.len() as u64) as usize]);
        }
        let model = models[i % models.len()];
        let line = format!("vllm serve {model} {}", words.join(" "));
        let release = Release::ALL[(next() % Release::ALL.len() as u64) as usize];
        let gpu = ["l4", "h100-sxm", "b200", "rtx-5090", "jetson-agx-thor", "9.0", "10.7"][(next() % 7) as usize];
        let r = resolve(&Scenario::new(Hardware::parse(gpu).unwrap(), release, line.clone()));
        if let Some(e) = &r.error {
            assert!(!e.message.is_empty(), "empty message for {line}");
        }
    }
}

/// Issue 20's property over every backend a scenario can land on (auto-selected and forced; FLASHINFER, FLASH_ATTN,
/// TRITON_ATTN, FLEX_ATTENTION, TURBOQUANT, the composites, the recurrent groups, the MLA backends and the indexer): no group that runs lacks a query
/// dtype or kernel per phase unless it says why qpath cannot model it. The counts print with `--nocapture`.
#[test]
fn every_backend_grid() {
    let models = [
        "meta-llama/Llama-3.1-8B-Instruct",
        "openai/gpt-oss-20b",
        "google/gemma-3-4b-it",
        "google/gemma-3-27b-it",
        "Qwen/Qwen3-4B",
        "Qwen/Qwen3-Next-80B-A3B-Instruct",
        "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
        "deepseek-ai/DeepSeek-V3",
        "deepseek-ai/DeepSeek-V3.2",
        "deepseek-ai/DeepSeek-V2-Lite",
    ];
    let gpus = [
        "t4",
        "v100",
        "a100-80gb",
        "l4",
        "h100-sxm",
        "b200",
        "rtx-5090",
        "rtx-pro-6000-blackwell",
        "jetson-agx-thor",
    ];
    let kvs = [
        "auto",
        "fp8",
        "fp8_e5m2",
        "turboquant_k8v4",
        "int8_per_token_head",
        "fp8_ds_mla",
    ];
    let backends = [
        "",
        "--attention-backend FLASH_ATTN",
        "--attention-backend TRITON_ATTN",
        "--attention-backend FLEX_ATTENTION",
        "--attention-backend TURBOQUANT",
        "--attention-backend TRITON_FLASH_ATTN",
        "--attention-backend TRITON_FLASHINFER",
        "--attention-backend FLASHMLA",
        "--attention-backend TRITON_MLA",
    ];
    let (mut count, mut tally) = (0, Tally::default());
    for release in Release::ALL {
        for gpu in gpus {
            for model in models {
                for kv in kvs {
                    for backend in backends {
                        let cmd = format!("vllm serve {model} --kv-cache-dtype {kv} {backend}");
                        let r = resolve(&Scenario::new(Hardware::parse(gpu).unwrap(), release, cmd));
                        count += 1;
                        for g in &r.groups {
                            runs_with_dtypes_and_kernels(g, &mut tally, &|| scenario_ctx(&r));
                        }
                    }
                }
            }
        }
    }
    println!(
        "every-backend grid: {count} scenarios; groups that run, per backend: {:?}; groups that fail: {}; groups \
         qpath cannot model, per backend: {:?}",
        tally.runs, tally.fails, tally.unmodelled
    );
    for b in [
        "FLASHINFER",
        "FLASH_ATTN",
        "TRITON_ATTN",
        "FLEX_ATTENTION",
        "TURBOQUANT",
        "GDN_ATTN",
        "MAMBA2",
    ] {
        assert!(
            tally.runs.get(b).is_some_and(|n| *n > 0),
            "no {b} group ran: {:?}",
            tally.runs
        );
    }
}
