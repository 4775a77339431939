//! Golden cases for FLASH_ATTN and TRITON_ATTN in the releases before 0.24.0 (0.20.x, 0.21.0, 0.22.x, 0.23.0): each
//! behaviour that differs from 0.24.0, at the old release and at the first release with the new behaviour. Texts and
//! lines are the released sources' (`/work/vllm-src/vllm-<VER>/vllm/v1/attention/backends/{flash_attn,fa_utils,
//! triton_attn}.py`, `v1/attention/ops/triton_unified_attention.py`).

mod common;
use common::run;
use qpath_core::dtype::TorchDtype::{BFloat16, Float16, Float8E4m3fn};
use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::report::{Backend, GroupErrorKind, GroupReport, Kernel, LogRecord, Report, Stage, Verdict};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const GEMMA3_4B: &str = "vllm serve google/gemma-3-4b-it";
const FA: &str = "vllm/v1/attention/backends/flash_attn.py";
const FA_UTILS: &str = "vllm/v1/attention/backends/fa_utils.py";
const TRITON: &str = "vllm/v1/attention/backends/triton_attn.py";
const UNIFIED: &str = "vllm/v1/attention/ops/triton_unified_attention.py";

/// A Llama-architecture config with head size 512 (FA3 cannot run it on SM90; FA4 can).
const HEAD_512: &str = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 8,
  "head_dim": 512, "num_hidden_layers": 2, "num_key_value_heads": 8, "torch_dtype": "bfloat16"}"#;
/// A Llama-architecture ModelOpt FP8 checkpoint with an FP8 KV cache (BaseKVCacheMethod loads its scales).
const MODELOPT_FP8: &str = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
  "num_hidden_layers": 32, "num_key_value_heads": 8, "torch_dtype": "bfloat16",
  "quantization_config": {"quant_method": "modelopt", "quant_algo": "FP8", "kv_cache_quant_algo": "FP8"}}"#;

fn run_config(gpu: &str, vllm: &str, command: &str, config: &str) -> Report {
    let mut o = ScenarioOptions::default();
    o.set(OptionKey::Gpu, gpu).unwrap();
    o.set(OptionKey::Vllm, vllm).unwrap();
    let mut s = o.scenario(command).unwrap();
    s.model_config = Some(config.to_string());
    qpath_core::resolve::resolve(&s)
}

/// The first group, which must run on `backend` (no scenario error).
fn group(r: &Report, backend: Backend) -> &GroupReport {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    let g = &r.groups[0];
    assert_eq!(g.backend, backend, "{:#?}", g.trace);
    g
}

/// The step whose rule is `rule`: its outcome and the file:line it cites.
fn step(g: &GroupReport, rule: &str) -> (String, Option<String>) {
    let s = g
        .trace
        .iter()
        .find(|s| s.rule == rule)
        .unwrap_or_else(|| panic!("no step {rule:?} in {:#?}", g.trace));
    (s.outcome.to_string(), s.source().map(|x| x.to_string()))
}

fn has_step(g: &GroupReport, rule: &str) -> bool {
    g.trace.iter().any(|s| s.rule == rule)
}

fn at(file: &str, line: u32) -> Option<String> {
    Some(format!("{file}:{line}"))
}

/// The group's log records as (file:line, text).
fn logs(records: &[LogRecord]) -> Vec<(String, String)> {
    records.iter().map(|l| (l.location(), l.text.clone())).collect()
}

fn both<T: Copy>(x: T) -> (Option<T>, Option<T>) {
    (Some(x), Some(x))
}

// ---- FLASH_ATTN: the FA version ----

/// Head size 512 on H100: every release runs FA4 (FA3 cannot). 0.21.0+ upgrades inside `get_flash_attn_version` with
/// an info line naming the reason; 0.20.x upgrades in `FlashAttentionImpl.__init__`, silently.
#[test]
fn head_512_on_h100_upgrades_fa3_to_fa4_silently_in_the_impl_before_0_21_0() {
    for (vllm, impl_line, info_line) in [("0.20.0", 639, 646), ("0.20.2", 639, 646)] {
        let r = run_config("h100-sxm", vllm, "vllm serve m", HEAD_512);
        let g = group(&r, Backend::FlashAttn);
        assert_eq!((g.error.as_ref(), g.unmodelled.as_ref()), (None, None));
        assert_eq!((g.kernel.prefill, g.kernel.decode), both(Kernel::FaVarlen4), "{vllm}");
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), both(BFloat16));
        let (outcome, src) = step(g, "FA3 → FA4 on SM90");
        assert_eq!(
            outcome,
            "FlashAttentionImpl.__init__: head_size 512 > 256 with FA3 on sm90: self.vllm_flash_attn_version = 4, \
             silently"
        );
        assert_eq!(src, at(FA, impl_line));
        assert_eq!(
            logs(&g.log_records),
            [(
                format!("flash_attn.py:{info_line}"),
                "Using FlashAttention version 4".to_string()
            )],
            "{vllm}: no upgrade line"
        );
        assert_eq!(r.verdict, Verdict::Serves);
    }
    for (vllm, reason_line, log_line, info_line) in [("0.21.0", 126, 135, 641), ("0.24.0", 126, 141, 670)] {
        let r = run_config("h100-sxm", vllm, "vllm serve m", HEAD_512);
        let g = group(&r, Backend::FlashAttn);
        assert_eq!((g.kernel.prefill, g.kernel.decode), both(Kernel::FaVarlen4), "{vllm}");
        let (outcome, src) = step(g, "FA3 → FA4 on SM90");
        assert_eq!(outcome, "FA3 does not support head_size=512 on SM90: FA4");
        assert_eq!(src, at(FA_UTILS, reason_line));
        assert_eq!(
            logs(&g.log_records),
            [
                (
                    format!("fa_utils.py:{log_line}"),
                    "FA3 does not support head_size=512 on SM90: upgrading FlashAttention 3 -> 4".to_string()
                ),
                (
                    format!("flash_attn.py:{info_line}"),
                    "Using FlashAttention version 4".to_string()
                )
            ],
            "{vllm}"
        );
    }
}

/// Llama on H100 / A100 / B200: FA3 (AOT), FA2, FA4 in every old release, as in 0.24.0; the kernel call is cited at
/// each release's `flash_attn_varlen_func(` line.
#[test]
fn the_default_fa_version_per_gpu_is_unchanged_before_0_24_0() {
    for (vllm, line) in [
        ("0.20.0", 797),
        ("0.21.0", 809),
        ("0.22.1", 796),
        ("0.23.0", 796),
        ("0.24.0", 870),
    ] {
        for (gpu, kernel) in [
            ("h100-sxm", Kernel::FaVarlen3Aot),
            ("a100-80gb", Kernel::FaVarlen2),
            ("b200", Kernel::FaVarlen4),
        ] {
            let r = run(gpu, vllm, &format!("{LLAMA} --attention-backend FLASH_ATTN"));
            let g = group(&r, Backend::FlashAttn);
            assert_eq!((g.error.as_ref(), g.unmodelled.as_ref()), (None, None), "{gpu} {vllm}");
            assert_eq!((g.kernel.prefill, g.kernel.decode), both(kernel), "{gpu} {vllm}");
            assert_eq!(step(g, "FlashAttentionImpl.forward").1, at(FA, line), "{gpu} {vllm}");
        }
    }
}

// ---- FLASH_ATTN: FP8 and other quantized caches ----

/// fp8 on H100: FA3 with an FP8 query in every old release; 0.20.x / 0.21.0 view the cache through
/// `get_fp8_dtype_for_flashattn`, 0.22.0+ through `current_platform.fp8_dtype()`.
#[test]
fn an_fp8_cache_on_h100_gives_fa3_an_fp8_query_in_every_old_release() {
    for (vllm, view) in [
        ("0.20.0", 756),
        ("0.21.0", 768),
        ("0.22.0", 755),
        ("0.23.0", 755),
        ("0.24.0", 789),
    ] {
        let r = run("h100-sxm", vllm, &format!("{LLAMA} --kv-cache-dtype fp8"));
        let g = group(&r, Backend::FlashAttn);
        assert_eq!((g.error.as_ref(), g.unmodelled.as_ref()), (None, None), "{vllm}");
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), both(Float8E4m3fn), "{vllm}");
        assert_eq!((g.kernel.prefill, g.kernel.decode), both(Kernel::FaVarlen3Aot), "{vllm}");
        assert_eq!(g.query_quant.as_ref().unwrap().q_scale, "1.0");
        assert_eq!(step(g, "FP8 cache in the kernel").1, at(FA, view), "{vllm}");
        assert_eq!(r.verdict, Verdict::Serves);
    }
}

/// fp8 on A100 (FA2) and B200 (FA4): FLASH_ATTN refuses the cache in every old release (0.20.x / 0.21.0:
/// `flash_attn_supports_fp8()` is FA3 on 9.x; 0.22.0+: fp8 / fp8_e4m3 with FA3 on 9.x), as in 0.24.0.
#[test]
fn an_fp8_cache_on_a100_and_b200_refuses_flash_attn_in_every_old_release() {
    for vllm in ["0.20.0", "0.21.0", "0.22.0", "0.23.0", "0.24.0"] {
        for gpu in ["a100-80gb", "b200"] {
            let r = run(
                gpu,
                vllm,
                &format!("{LLAMA} --kv-cache-dtype fp8 --attention-backend FLASH_ATTN"),
            );
            let e = r.error.as_ref().expect("forced FLASH_ATTN is refused");
            assert!(
                e.message.ends_with("Reason: ['kv_cache_dtype not supported']"),
                "{gpu} {vllm}: {}",
                e.message
            );
            assert_eq!(r.verdict, Verdict::Fails);
        }
    }
}

/// 0.20.x / 0.21.0 accept any quantized cache dtype on H100 (`is_quantized_kv_cache` → `flash_attn_supports_fp8()`):
/// int8_per_token_head keeps a bf16 query and every build() raises in `get_fp8_dtype_for_flashattn` (decode first:
/// FULL decode graphs capture at start-up), nvfp4 too after quantizing the query; fp8_e5m2 gets an FP8 query whose layer forward asserts in the memory
/// profile. 0.22.0 refuses both at selection.
#[test]
fn other_quantized_caches_pass_selection_on_h100_before_0_22_0_and_fail_later() {
    for (vllm, raise, build, assert_line) in [("0.20.1", 175, 450, 487), ("0.21.0", 178, 453, 439)] {
        let r = run("h100-sxm", vllm, &format!("{LLAMA} --kv-cache-dtype int8_per_token_head"));
        let g = group(&r, Backend::FlashAttn);
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), both(BFloat16), "{vllm}");
        let e = g.error.as_ref().expect("the builder's raise");
        assert_eq!(
            (e.kind, e.message.as_str(), e.stage),
            (
                GroupErrorKind::ValueError,
                "Unrecognized FP8 dtype: int8_per_token_head",
                Stage::DecodeForward
            )
        );
        assert_eq!(e.source, at(FA, raise), "{vllm}");
        assert_eq!(
            e.raised_in,
            "FlashAttentionMetadataBuilder.build → get_fp8_dtype_for_flashattn"
        );
        let p = g.phase_errors.prefill.as_ref().expect("prefill batches raise too");
        assert_eq!((p.stage, p.message.as_str()), (Stage::PrefillForward, e.message.as_str()));
        assert_eq!(step(g, "FlashAttentionMetadataBuilder.build").1, at(FA, build));
        assert!(!has_step(g, "FP8 cache in the kernel"));
        assert_eq!(r.verdict, Verdict::Fails);

        // nvfp4: the layer quantizes the query to FP8 (its forward takes nvfp4), then the builder raises alike.
        let r = run("h100-sxm", vllm, &format!("{LLAMA} --kv-cache-dtype nvfp4"));
        let g = group(&r, Backend::FlashAttn);
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), both(Float8E4m3fn), "{vllm}");
        let e = g.error.as_ref().expect("the builder's raise");
        assert_eq!(
            (e.message.as_str(), e.source.clone()),
            ("Unrecognized FP8 dtype: nvfp4", at(FA, raise))
        );

        let r = run("h100-sxm", vllm, &format!("{LLAMA} --kv-cache-dtype fp8_e5m2"));
        let g = group(&r, Backend::FlashAttn);
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), both(Float8E4m3fn), "{vllm}");
        let e = g.error.as_ref().expect("the layer's assert");
        assert_eq!(
            (e.kind, e.message.as_str(), e.stage),
            (GroupErrorKind::AssertionError, "", Stage::ProfileRun)
        );
        assert_eq!(
            e.source.as_deref(),
            Some(&*format!("vllm/model_executor/layers/attention/attention.py:{assert_line}")),
            "{vllm}"
        );
    }
    for vllm in ["0.22.0", "0.24.0"] {
        for kv in ["int8_per_token_head", "fp8_e5m2"] {
            let r = run(
                "h100-sxm",
                vllm,
                &format!("{LLAMA} --kv-cache-dtype {kv} --attention-backend FLASH_ATTN"),
            );
            let e = r.error.as_ref().expect("refused at selection");
            assert!(
                e.message.ends_with("Reason: ['kv_cache_dtype not supported']"),
                "{vllm} {kv}: {}",
                e.message
            );
        }
    }
}

// ---- TRITON_ATTN: fp8 / bf16 caches below their SM ----

/// fp8 on T4 (forced), V100 (selected) and A100 (forced): 0.24.0 raises in TritonAttentionImpl.__init__; before it
/// vLLM checks nothing, the layer quantizes the query to FP8 and Triton's compiler meets the FP8 cache at the first
/// forward: qpath answers "cannot model" with the query dtype and kernels it does know.
#[test]
fn triton_fp8_below_sm89_is_unmodelled_before_0_24_0() {
    let cases = [
        ("t4", "--attention-backend TRITON_ATTN", "NVIDIA T4", "7.5"),
        ("v100", "", "NVIDIA V100", "7.0"),
        ("a100-80gb", "--attention-backend TRITON_ATTN", "NVIDIA A100 80GB", "8.0"),
    ];
    for (gpu, flags, device, cc) in cases {
        for vllm in ["0.20.0", "0.21.0", "0.22.1", "0.23.0"] {
            let r = run(gpu, vllm, &format!("{LLAMA} --kv-cache-dtype fp8 {flags}"));
            let g = group(&r, Backend::TritonAttn);
            let ctx = format!("{gpu} {vllm}");
            assert_eq!(g.error, None, "{ctx}");
            assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), both(Float8E4m3fn), "{ctx}");
            assert_eq!(
                (g.kernel.prefill, g.kernel.decode),
                (Some(Kernel::TritonUnified2d), Some(Kernel::TritonUnified3d)),
                "{ctx}"
            );
            let text = format!(
                "qpath cannot model this: vLLM {vllm} has no capability check in TritonAttentionImpl for a \"fp8\" \
                 cache on {device} (compute capability {cc}; 0.24.0 added one that raises ValueError below SM89); \
                 whether Triton compiles kernel_unified_attention (and the cache write) for its float8_e4m3fn cache, \
                 which Triton supports natively only from SM89, and the error its compiler raises at the first \
                 forward, are not in vLLM's Python source"
            );
            assert_eq!(g.unmodelled.as_deref(), Some(&*text), "{ctx}");
            assert_eq!(step(g, "TritonAttentionImpl cache dtype"), (text, None));
            assert!(!has_step(g, "device name"), "{ctx}");
            assert_eq!(r.verdict, Verdict::CannotModel, "{ctx}");
        }
        let r = run(gpu, "0.24.0", &format!("{LLAMA} --kv-cache-dtype fp8 {flags}"));
        let g = group(&r, Backend::TritonAttn);
        let e = g.error.as_ref().expect("0.24.0 raises");
        assert_eq!((e.kind, e.stage), (GroupErrorKind::ValueError, Stage::Init));
        assert!(e.message.starts_with(&format!(
            "FP8 KV cache is not supported by the Triton attention backend on {device} (compute capability {cc})"
        )));
        assert_eq!(e.source, at(TRITON, 477));
        assert_eq!(g.unmodelled, None);
    }
}

/// A bfloat16 cache on T4: 0.24.0 raises (SM80+); 0.23.0 checks nothing and qpath cannot model Triton's answer.
#[test]
fn triton_bf16_cache_below_sm80_is_unmodelled_before_0_24_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype bfloat16 --attention-backend TRITON_ATTN");
    let r = run("t4", "0.23.0", &cmd);
    let g = group(&r, Backend::TritonAttn);
    assert_eq!(g.error, None);
    assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), both(Float16));
    let u = g.unmodelled.as_deref().unwrap();
    assert!(
        u.starts_with(
            "qpath cannot model this: vLLM 0.23.0 has no capability check in TritonAttentionImpl for a \"bfloat16\" \
             cache on NVIDIA T4 (compute capability 7.5; 0.24.0 added one that raises ValueError below SM80)"
        ),
        "{u}"
    );
    let r = run("t4", "0.24.0", &cmd);
    let e = group(&r, Backend::TritonAttn).error.as_ref().expect("0.24.0 raises");
    assert_eq!(e.source, at(TRITON, 485));
    assert!(e.message.starts_with("bfloat16 KV cache is not supported on NVIDIA T4"));
}

// ---- TRITON_ATTN: the FP8 query's scales ----

/// L4 (8.9), fp8: every release quantizes the query. 0.20.x / 0.21.0 pass no q_descale (the kernel's FP8-query path
/// applies no scale) and assert a 1.0 q_scale; 0.22.0 folds q_scale × k_scale into the softmax scale.
#[test]
fn triton_fp8_query_scales_from_0_22_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype fp8 --attention-backend TRITON_ATTN");
    for (vllm, assert_line) in [("0.20.0", 584), ("0.21.0", 583)] {
        let r = run("l4", vllm, &cmd);
        let g = group(&r, Backend::TritonAttn);
        assert_eq!((g.error.as_ref(), g.unmodelled.as_ref()), (None, None), "{vllm}");
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), both(Float8E4m3fn));
        let (outcome, src) = step(g, "FP8 query and cache");
        assert_eq!(
            outcome,
            "Q float8_e4m3fn and a per-tensor \"fp8\" cache (read as float8_e4m3fn): K and V go unconverted into FP8 \
             dots and no scale is applied (q_descale=None; _cast_kv_tile skips k_scale / v_scale for an FP8 query)"
        );
        assert_eq!(src, at(UNIFIED, 51));
        assert_eq!(step(g, "q_scale").1, at(TRITON, assert_line));
        assert_eq!(r.verdict, Verdict::Serves);
    }
    for (vllm, line) in [("0.22.0", 276), ("0.23.0", 276), ("0.24.0", 279)] {
        let r = run("l4", vllm, &cmd);
        let g = group(&r, Backend::TritonAttn);
        let (outcome, src) = step(g, "FP8 query and cache");
        assert!(outcome.ends_with("q_scale × k_scale folded into the softmax scale, v_scale into the output"));
        assert_eq!(src, at(UNIFIED, line), "{vllm}");
        assert!(!has_step(g, "q_scale"));
    }
}

/// A ModelOpt FP8 checkpoint loads its own q_scale: 0.21.0's forward asserts it is 1.0, which qpath cannot know;
/// 0.22.0 takes any q_scale.
#[test]
fn triton_checkpoint_q_scale_is_unmodelled_before_0_22_0() {
    let cmd = "vllm serve m --kv-cache-dtype fp8 --attention-backend TRITON_ATTN";
    let r = run_config("l4", "0.21.0", cmd, MODELOPT_FP8);
    let g = group(&r, Backend::TritonAttn);
    assert_eq!(g.error, None);
    assert_eq!(g.query_quant.as_ref().unwrap().q_scale, "checkpoint, else 1.0");
    assert_eq!(
        g.unmodelled.as_deref(),
        Some(
            "qpath cannot model this: vLLM 0.21.0 asserts layer._q_scale_float == 1.0 in TritonAttentionImpl.forward \
             (AssertionError \"A non 1.0 q_scale is not currently supported.\" at the first forward), and the \
             layer's q_scale comes from the checkpoint (checkpoint, else 1.0), whose value qpath does not read"
        )
    );
    assert_eq!(r.verdict, Verdict::CannotModel);
    let r = run_config("l4", "0.22.0", cmd, MODELOPT_FP8);
    let g = group(&r, Backend::TritonAttn);
    assert_eq!((g.error.as_ref(), g.unmodelled.as_ref()), (None, None));
}

// ---- TRITON_ATTN: the launch ----

/// gemma-3 (head 256) on B200: 0.24.0 adds `tuned_large_head` (a wider prefill tile on the SM100 family); 0.23.0 has
/// the plain tiles.
#[test]
fn tuned_large_head_starts_in_0_24_0() {
    let cmd = format!("{GEMMA3_4B} --attention-backend TRITON_ATTN");
    for (vllm, line, tuned) in [("0.23.0", 745, false), ("0.24.0", 762, true)] {
        let r = run("b200", vllm, &cmd);
        let g = group(&r, Backend::TritonAttn);
        let (outcome, src) = step(g, "tile sizes");
        assert_eq!(outcome.contains("tuned_large_head"), tuned, "{vllm}: {outcome}");
        assert!(outcome.starts_with("BLOCK_Q 8, prefill tile 32, decode tile 32"), "{outcome}");
        assert_eq!(src, at(UNIFIED, line));
        let tile = if tuned { 128 } else { 32 };
        assert_eq!(
            g.kernels.prefill[0].when.as_deref(),
            Some(&*format!(
                "every batch with a prefill (a query longer than 1 token): the 2D grid (q blocks × 4 KV heads), tile \
                 {tile}"
            )),
            "{vllm}"
        );
    }
}

/// fp8_e5m2 on T4 before 0.24.0: the layer's memory-profile assert (the cache dtype it cannot quantize the query for)
/// fires before any Triton kernel compiles, so the answer is that error, not "cannot model".
#[test]
fn triton_fp8_e5m2_below_sm89_fails_the_profile_assert_before_0_24_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype fp8_e5m2 --attention-backend TRITON_ATTN");
    let r = run("t4", "0.23.0", &cmd);
    let g = group(&r, Backend::TritonAttn);
    let e = g.error.as_ref().expect("the layer's assert");
    assert_eq!(
        (e.kind, e.message.as_str(), e.stage),
        (GroupErrorKind::AssertionError, "", Stage::ProfileRun)
    );
    assert_eq!(g.unmodelled, None);
    assert!(!has_step(g, "TritonAttentionImpl cache dtype"));
    assert_eq!(r.verdict, Verdict::Fails);
    let r = run("t4", "0.24.0", &cmd);
    let e = group(&r, Backend::TritonAttn).error.as_ref().expect("0.24.0 raises at init");
    assert_eq!(
        (e.kind, e.stage, e.source.clone()),
        (GroupErrorKind::ValueError, Stage::Init, at(TRITON, 477))
    );
}
