//! Golden cases for FLASHINFER in the releases before 0.24.0 (0.20.x and 0.21.0 pin FlashInfer 0.6.8.post1, 0.22.x
//! 0.6.11.post2, 0.23.0 0.6.12): each behaviour that differs from 0.24.0, at the old release and at the first release
//! with the new behaviour, and what stays as in 0.24.0 (the FP8 story on L4, H100 and B200, PR #47485's bug). Texts
//! and lines are the released sources' (`/work/vllm-src/vllm-<VER>/vllm/v1/attention/backends/flashinfer.py`,
//! `vllm/utils/flashinfer.py`, `flashinfer-<VER>/flashinfer/{prefill,decode}.py`).

mod common;
use common::run;
use qpath_core::dtype::TorchDtype::{self, BFloat16, Float16, Float8E4m3fn};
use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::report::{Backend, GroupErrorKind, GroupReport, Kernel, Report, Stage, Verdict};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const FI: &str = "vllm/v1/attention/backends/flashinfer.py";
/// The old releases with files of their own, and 0.24.0.
const OLD: [&str; 6] = ["0.20.0", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0"];

/// A Llama-architecture config with head size 512 (FlashInfer lists 512 from 0.22.0).
const HEAD_512: &str = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 8,
  "head_dim": 512, "num_hidden_layers": 2, "num_key_value_heads": 8, "torch_dtype": "bfloat16"}"#;

fn run_config(gpu: &str, vllm: &str, command: &str, config: &str) -> Report {
    let mut o = ScenarioOptions::default();
    o.set(OptionKey::Gpu, gpu).unwrap();
    o.set(OptionKey::Vllm, vllm).unwrap();
    let mut s = o.scenario(command).unwrap();
    s.model_config = Some(config.to_string());
    qpath_core::resolve::resolve(&s)
}

/// The one FLASHINFER group (no scenario error).
fn fi_group(r: &Report) -> &GroupReport {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    assert_eq!(r.groups.len(), 1, "{:#?}", r.groups);
    let g = &r.groups[0];
    assert_eq!(g.backend, Backend::FlashInfer, "{:#?}", g.trace);
    g
}

/// The step whose rule is `rule`: its outcome and the file:line it cites.
fn step(g: &GroupReport, rule: &str) -> (String, Option<String>) {
    let s = g
        .trace
        .iter()
        .find(|s| s.rule == rule)
        .unwrap_or_else(|| panic!("no step {rule:?} in {:#?}", g.trace));
    (s.outcome.to_string(), s.source())
}

/// Both phases' query dtype and kernel, and no error.
fn assert_runs(g: &GroupReport, q: TorchDtype, prefill: Kernel, decode: Kernel) {
    assert_eq!((g.error.as_ref(), g.unmodelled.as_ref()), (None, None), "{:#?}", g.trace);
    assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (Some(q), Some(q)), "{:#?}", g.trace);
    assert_eq!(
        (g.kernel.prefill, g.kernel.decode),
        (Some(prefill), Some(decode)),
        "{:#?}",
        g.trace
    );
}

/// The FP8-KV-cache story is 0.24.0's in every old release: L4 auto-selects FlashInfer with a bf16 query on fa2 (no
/// TRTLLM off the SM100 family, so `q_data_type` is the model dtype); H100 (FlashInfer forced) the same on fa2 (FA3
/// needs an FP8 query over an FP8 cache); B200 quantizes the query to e4m3 for trtllm-gen in both phases. The query
/// dtype is `__init__`'s one `q_data_type`, cited at each release's `if (` line.
#[test]
fn an_fp8_cache_gives_each_old_release_0_24_0s_query_and_kernels_on_l4_h100_b200() {
    let q_line = [
        ("0.20.0", 642),
        ("0.20.2", 642),
        ("0.21.0", 645),
        ("0.22.0", 645),
        ("0.22.1", 645),
        ("0.23.0", 650),
        ("0.24.0", 684),
    ];
    for (v, line) in q_line {
        let l4 = run("l4", v, &format!("{LLAMA} --kv-cache-dtype fp8"));
        let g = fi_group(&l4);
        assert_runs(g, BFloat16, Kernel::Fa2, Kernel::Fa2);
        let (outcome, at) = step(g, "q_data_type (one for both phases)");
        assert_eq!(outcome, "bfloat16: can_use_trtllm_attention is false: the model dtype", "{v}");
        assert_eq!(at.as_deref(), Some(format!("{FI}:{line}").as_str()), "{v}");

        let h100 = run(
            "h100-sxm",
            v,
            &format!("{LLAMA} --kv-cache-dtype fp8 --attention-backend FLASHINFER"),
        );
        let g = fi_group(&h100);
        assert_runs(g, BFloat16, Kernel::Fa2, Kernel::Fa2);
        assert!(
            step(g, "prefill plan: backend \"auto\"").0.contains("FA3 needs an FP8 query"),
            "{v}"
        );

        let b200 = run("b200", v, &format!("{LLAMA} --kv-cache-dtype fp8"));
        let g = fi_group(&b200);
        assert_runs(g, Float8E4m3fn, Kernel::TrtllmGen, Kernel::TrtllmGen);
        let (outcome, _) = step(g, "can_use_trtllm_attention(decode)");
        assert_eq!(
            outcome,
            format!("yes: supported on sm100 for decode: {v} supports TRTLLM on the SM100 family only")
        );
    }
}

/// PR #47485's bug (0.25.0-prefix: a global FP8 cache string quantizes the query for FlashInfer's FA2 on L4) is not in
/// the old releases: like 0.24.0 they quantize only where TRTLLM can be used, so L4 runs.
#[test]
fn the_seed_storys_fa2_fp8_assertion_is_not_in_the_old_releases() {
    for v in OLD.iter().chain(&["0.24.0"]) {
        let r = run("l4", v, &format!("{LLAMA} --kv-cache-dtype fp8"));
        assert_eq!(Verdict::of(&r), Verdict::Serves, "{v}");
    }
    let r = run("l4", "0.25.0-prefix", &format!("{LLAMA} --kv-cache-dtype fp8"));
    let e = r.groups[0].error.as_ref().expect("0.25.0-prefix fails");
    assert_eq!(e.message, "fp8 tensor core is not supported in fa2 backend");
}

/// The FlashInfer pin changes no answer of the FP8 story (its `backend="auto"` rule is the same in 0.6.8.post1,
/// 0.6.11.post2 and 0.6.12); the plans cite the pinned FlashInfer's lines.
#[test]
fn the_flashinfer_pin_moves_the_cited_lines_only() {
    for (v, prefill, decode) in [
        ("0.21.0", "flashinfer/prefill.py:1977", "flashinfer/decode.py:1062"),
        ("0.22.0", "flashinfer/prefill.py:2005", "flashinfer/decode.py:1068"),
        ("0.23.0", "flashinfer/prefill.py:2018", "flashinfer/decode.py:1069"),
    ] {
        let r = run(
            "h100-sxm",
            v,
            &format!("{LLAMA} --kv-cache-dtype fp8 --attention-backend FLASHINFER"),
        );
        let g = fi_group(&r);
        assert_runs(g, BFloat16, Kernel::Fa2, Kernel::Fa2);
        assert_eq!(step(g, "prefill plan: backend \"auto\"").1.as_deref(), Some(prefill), "{v}");
        assert_eq!(
            step(g, "decode plan: backend \"auto\" with FP8").1.as_deref(),
            Some(decode),
            "{v}"
        );
    }
}

/// 0.20.x constructs both native wrappers without `backend=` (FlashInfer's default "auto"); 0.21.0 names it.
#[test]
fn the_0_20_wrappers_leave_the_backend_at_its_default() {
    let cmd = format!("{LLAMA} --kv-cache-dtype fp8 --attention-backend FLASHINFER");
    let g = fi_group(&run("h100-sxm", "0.20.0", &cmd)).clone();
    assert_eq!(
        step(&g, "prefill wrapper"),
        (
            "BatchPrefillWithPagedKVCacheWrapper(workspace, layout): backend defaults to \"auto\"".to_string(),
            Some(format!("{FI}:768"))
        )
    );
    assert_eq!(step(&g, "decode wrapper").1, Some(format!("{FI}:789")));
    let g = fi_group(&run("h100-sxm", "0.21.0", &cmd)).clone();
    assert_eq!(
        step(&g, "prefill wrapper").0,
        "BatchPrefillWithPagedKVCacheWrapper(backend=\"auto\")"
    );
    assert_eq!(step(&g, "decode route").1, Some(format!("{FI}:928")));
}

/// Large pages arrived in 0.24.0: before it `get_supported_kernel_block_sizes` is `[16, 32, 64]` on every GPU and
/// `__init__` has no page-size assert, so `--block-size 128` on H100 serves (0.24.0 asserts), and on B200 it is not
/// one of the kernel block sizes.
#[test]
fn large_pages_and_their_assert_start_at_0_24_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype fp8 --attention-backend FLASHINFER --block-size 128");
    for v in OLD {
        let g = fi_group(&run("h100-sxm", v, &cmd)).clone();
        assert_runs(&g, BFloat16, Kernel::Fa2, Kernel::Fa2);
    }
    let r = run("h100-sxm", "0.24.0", &cmd);
    let e = r.groups[0].error.as_ref().expect("0.24.0 asserts");
    assert_eq!(
        (e.kind, e.message.as_str(), e.stage, e.source.as_deref()),
        (
            GroupErrorKind::AssertionError,
            "Unexpected FlashInfer page size 128 without trtllm-gen GQA",
            Stage::Init,
            Some(format!("{FI}:680").as_str())
        )
    );
    // A hybrid model shows the sizes: Qwen3-Next's 640-token block splits into 64-token pages before 0.24.0, 128-token
    // pages (which force trtllm-gen prefill) from it.
    let cmd = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --block-size 128";
    for (v, line, kernel_block) in [
        ("0.23.0", 341, "the largest that divides it, 64"),
        ("0.24.0", 349, "the largest that divides it, 128"),
    ] {
        let r = run("b200", v, cmd);
        let g = r
            .groups
            .iter()
            .find(|g| g.backend == Backend::FlashInfer)
            .expect("a FlashInfer group");
        let (sizes, at) = step(g, "FlashInfer kernel block sizes");
        assert_eq!(at, Some(format!("{FI}:{line}")), "{v}");
        assert_eq!(sizes.starts_with("[16, 32, 64, 128,"), v == "0.24.0", "{v}: {sizes}");
        assert!(step(g, "kernel block size").0.contains(kernel_block), "{v}");
        assert_eq!(g.trace.iter().any(|s| s.rule == "page size >= 128"), v == "0.24.0", "{v}");
        assert_eq!(
            (g.kernel.prefill, g.kernel.decode),
            (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen))
        );
    }
}

/// NVFP4: not in the class list in 0.20.x (selection refuses it); 0.21.0–0.22.x accept it with no `__init__` gate, so
/// on H100 the native wrappers plan `kv_data_type="nvfp4"` and torch has no such dtype; 0.23.0 raises at `__init__`.
#[test]
fn nvfp4_is_refused_then_unguarded_then_refused_at_init() {
    let cmd = format!("{LLAMA} --kv-cache-dtype nvfp4 --attention-backend FLASHINFER");
    for v in ["0.20.0", "0.20.2"] {
        let r = run("b200", v, &cmd);
        let e = r.error.as_ref().expect("selection refuses nvfp4");
        assert!(
            e.message.ends_with("Reason: ['kv_cache_dtype not supported']"),
            "{v}: {}",
            e.message
        );
    }
    for v in ["0.21.0", "0.22.0", "0.22.1"] {
        let r = run("h100-sxm", v, &cmd);
        let g = &r.groups[0];
        let e = g.error.as_ref().expect("the plan fails");
        assert_eq!(
            (e.kind, e.message.as_str(), e.stage),
            (
                GroupErrorKind::AttributeError,
                "module 'torch' has no attribute 'nvfp4'",
                Stage::DecodePlan
            ),
            "{v}"
        );
        assert_runs(
            fi_group(&run("b200", v, &cmd)),
            Float8E4m3fn,
            Kernel::TrtllmGen,
            Kernel::TrtllmGen,
        );
    }
    let r = run("h100-sxm", "0.23.0", &cmd);
    let e = r.groups[0].error.as_ref().expect("0.23.0 raises at __init__");
    assert_eq!(
        (e.kind, e.message.as_str(), e.stage, e.source.as_deref()),
        (
            GroupErrorKind::ValueError,
            "--kv-cache-dtype nvfp4 requires sm100f, please try a different dtype or remove",
            Stage::Init,
            Some(format!("{FI}:627").as_str())
        )
    );
}

/// Head size 512 joined FlashInfer's list in 0.22.0.
#[test]
fn head_size_512_is_flashinfers_from_0_22_0() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER");
    let r = run_config("b200", "0.21.0", &cmd, HEAD_512);
    let e = r.error.as_ref().expect("0.21.0 refuses head size 512");
    assert!(e.message.ends_with("Reason: ['head_size not supported']"), "{}", e.message);
    let r = run_config("b200", "0.22.0", &cmd, HEAD_512);
    assert_eq!(fi_group(&r).head_dim, 512);
}

/// `supports_non_causal` is the base class's False before 0.24.0: a forced FlashInfer with `use_non_causal` is refused.
#[test]
fn non_causal_attention_is_flashinfers_from_0_24_0() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER --attention-config.use_non_causal 1");
    for v in ["0.21.0", "0.23.0"] {
        let r = run("l4", v, &cmd);
        let e = r.error.as_ref().expect("refused");
        assert!(
            e.message.ends_with("Reason: ['non-causal attention not supported']"),
            "{v}: {}",
            e.message
        );
    }
    assert_runs(fi_group(&run("l4", "0.24.0", &cmd)), BFloat16, Kernel::Fa2, Kernel::Fa2);
}

/// SM75: FlashInfer's floor is 7.5 before 0.24.0, so T4 auto-selects it. With FlashInfer 0.6.8.post1 and a 16-bit
/// cache it runs fa2; an FP8 cache on SM75, or FlashInfer 0.6.11.post2 / 0.6.12 (vLLM 0.22.x, 0.23.0), whose paged
/// prefill users report failing on Turing, is "qpath cannot model this". 0.24.0 refuses SM75.
#[test]
fn t4_selects_flashinfer_before_0_24_0() {
    for v in ["0.20.0", "0.21.0"] {
        assert_runs(fi_group(&run("t4", v, LLAMA)), Float16, Kernel::Fa2, Kernel::Fa2);
        let r = run("t4", v, &format!("{LLAMA} --kv-cache-dtype fp8"));
        assert_eq!(Verdict::of(&r), Verdict::CannotModel, "{v}");
        let why = fi_group(&r).unmodelled.clone().unwrap();
        assert!(
            why.starts_with("qpath cannot model this: FlashInfer 0.6.8.post1's paged prefill over an FP8 KV cache on sm75"),
            "{why}"
        );
    }
    for v in ["0.22.0", "0.22.1", "0.23.0"] {
        let r = run("t4", v, LLAMA);
        assert_eq!(Verdict::of(&r), Verdict::CannotModel, "{v}");
        let why = fi_group(&r).unmodelled.clone().unwrap();
        assert!(
            why.contains("BatchPrefillWithPagedKVCache failed with error invalid argument"),
            "{why}"
        );
    }
    let r = run("t4", "0.24.0", &format!("{LLAMA} --attention-backend FLASHINFER"));
    let e = r.error.as_ref().expect("0.24.0 refuses SM75");
    assert!(
        e.message.ends_with("Reason: ['compute capability not supported']"),
        "{}",
        e.message
    );
}

/// A FlashInfer before 0.6.11.post2 reads no NVFP4 cache in its fa2/fa3 modules (no `uint8` rule in
/// `is_fa3_backend_supported`, no block-scale tensors): vLLM 0.32.0's NVFP4-on-FA2 path on H100 under
/// `--flashinfer 0.6.8.post1` is "qpath cannot model this"; under its pin it runs fa2.
#[test]
fn an_nvfp4_cache_on_fa2_needs_flashinfer_0_6_11_post2() {
    let cmd = format!("{LLAMA} --kv-cache-dtype nvfp4 --attention-backend FLASHINFER");
    let mut o = ScenarioOptions::default();
    o.set(OptionKey::Gpu, "h100-sxm").unwrap();
    o.set(OptionKey::Vllm, "0.32.0").unwrap();
    assert_runs(
        fi_group(&qpath_core::resolve::resolve(&o.scenario(&cmd).unwrap())),
        BFloat16,
        Kernel::Fa2,
        Kernel::Fa2,
    );
    o.set(OptionKey::FlashInfer, "0.6.8.post1").unwrap();
    let r = qpath_core::resolve::resolve(&o.scenario(&cmd).unwrap());
    assert_eq!(Verdict::of(&r), Verdict::CannotModel);
    assert_eq!(
        fi_group(&r).unmodelled.as_deref(),
        Some(
            "qpath cannot model this: an NVFP4 KV cache in FlashInfer 0.6.8.post1's fa2/fa3 modules, which read no NVFP4 \
             (0.6.11.post2 added it)"
        )
    );
}
