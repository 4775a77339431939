//! Golden cases for the attention backends other than FlashInfer (`qpath_core::backends`): what raises when vLLM
//! selects or builds TRITON_ATTN, FLEX_ATTENTION or TURBOQUANT, per class at the first release with the behaviour
//! (0.24.0 for each: every release has it) and at 0.33.0, and a case per backend that still runs. Texts and lines are
//! the released sources' (`/work/vllm-src/vllm-<VER>/vllm/...`).

mod common;
use common::run;
use qpath_core::report::{Backend, GroupErrorKind, GroupReport, Report, ScenarioErrorKind, Stage, TraceStep};
use qpath_core::source::{self, Cite};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const GPT_OSS: &str = "vllm serve openai/gpt-oss-20b";

/// The scenario's only group, which ran on `backend`.
fn only_group(r: &Report, backend: Backend) -> &GroupReport {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    assert_eq!(r.groups.len(), 1);
    assert_eq!(r.groups[0].backend, backend);
    &r.groups[0]
}

/// The only group runs on `backend` without an error; its kernel-block-size step.
fn block_size_step(r: &Report, backend: Backend) -> &TraceStep {
    let g = only_group(r, backend);
    assert_eq!(g.error, None);
    g.trace
        .iter()
        .find(|s| s.rule.ends_with("kernel block size"))
        .expect("a kernel block size step")
}

/// The group raised `message` at init from `source`, and its last trace step says so.
fn assert_init_raise(g: &GroupReport, kind: GroupErrorKind, message: &str, source: &str) {
    let e = g.error.as_ref().expect("the group raises");
    assert_eq!((e.kind, e.stage), (kind, Stage::Init));
    assert_eq!(e.message, message);
    assert_eq!(e.source.as_deref(), Some(source));
    let last = g.trace.last().unwrap();
    assert_eq!(last.rule, format!("raises {kind}"));
    assert_eq!(last.outcome, message);
    assert_eq!(last.source().as_deref(), Some(source));
    // The device name is NVML's, which qpath does not know: a step says so, citing where vLLM reads it.
    assert!(g
        .trace
        .iter()
        .any(|s| s.outcome.starts_with("qpath cannot model this: vLLM names the device")));
}

/// Where selection's ValueError is cited in `vllm` (`vllm/platforms/cuda.py`; those lines belong to `selection`'s
/// rules, whose goldens pin them).
fn selection_source(cite: &Cite, vllm: &str) -> String {
    let r = qpath_core::release::Release::ALL
        .into_iter()
        .find(|r| r.name() == vllm)
        .unwrap();
    cite.at(r).unwrap().short()
}

/// The scenario fails at selection (a forced backend `validate_configuration` refuses) with `message`.
fn assert_forced_invalid(r: &Report, vllm: &str, message: &str) {
    let e = r.error.as_ref().expect("the scenario raises");
    assert_eq!(e.kind, ScenarioErrorKind::ValueError);
    assert_eq!(e.message, message);
    assert_eq!(e.source, Some(selection_source(&source::CUDA_FORCED_INVALID, vllm)));
    assert!(r.groups.is_empty());
}

// ---- TritonAttentionImpl.__init__: FP8 KV cache below SM89 ----

const TRITON: &str = "vllm/v1/attention/backends/triton_attn.py";

/// `LLAMA flags` on `gpu` runs on TRITON_ATTN, whose impl raises ValueError `message` at the `raise` line given for
/// 0.24.0 and for 0.33.0.
fn assert_triton_raises(gpu: &str, flags: &str, message: &str, lines: [u32; 2]) {
    for (vllm, line) in [("0.24.0", lines[0]), ("0.33.0", lines[1])] {
        let r = run(gpu, vllm, &format!("{LLAMA} {flags}"));
        let g = only_group(&r, Backend::TritonAttn);
        assert_init_raise(g, GroupErrorKind::ValueError, message, &format!("{TRITON}:{line}"));
    }
}

#[test]
fn triton_fp8_cache_below_sm89_raises_suggesting_float16_below_sm80() {
    // T4: FLASH_ATTN and FLASHINFER need SM80, so TRITON_ATTN is selected and its impl refuses the FP8 cache.
    let message = "FP8 KV cache is not supported by the Triton attention backend on NVIDIA T4 (compute capability \
                   7.5); native FP8 (fp8e4nv) requires SM89+. Re-run with --kv-cache-dtype float16.";
    assert_triton_raises("t4", "--kv-cache-dtype fp8", message, [477, 520]);
}

#[test]
fn triton_fp8_cache_on_sm80_raises_suggesting_bfloat16() {
    // A100 (8.0) with the backend forced; every fp8* name counts (`startswith("fp8")`): fp8_e5m2 here.
    let message = "FP8 KV cache is not supported by the Triton attention backend on NVIDIA A100 80GB (compute \
                   capability 8.0); native FP8 (fp8e4nv) requires SM89+. Re-run with --kv-cache-dtype bfloat16.";
    let flags = "--attention-backend TRITON_ATTN --kv-cache-dtype fp8_e5m2";
    assert_triton_raises("a100-80gb", flags, message, [477, 520]);
}

#[test]
fn triton_fp8_cache_on_sm89_runs() {
    let cmd = format!("{LLAMA} --attention-backend TRITON_ATTN --kv-cache-dtype fp8");
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("l4", vllm, &cmd);
        let g = only_group(&r, Backend::TritonAttn);
        assert_eq!(g.error, None);
        let step = g.trace.iter().find(|s| s.rule == "TritonAttentionImpl cache dtype").unwrap();
        assert_eq!(
            step.outcome,
            "kv_cache_dtype \"fp8\" on compute capability 8.9: SM89+, no raise"
        );
    }
}

// ---- TritonAttentionImpl.__init__: bfloat16 KV cache below SM80 ----

#[test]
fn triton_bfloat16_cache_below_sm80_raises() {
    let message = "bfloat16 KV cache is not supported on NVIDIA T4 (compute capability 7.5); bfloat16 requires \
                   SM80+. Re-run with --kv-cache-dtype float16.";
    assert_triton_raises("t4", "--kv-cache-dtype bfloat16", message, [485, 528]);
}

#[test]
fn triton_on_t4_with_a_16_bit_cache_runs() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("t4", vllm, &format!("{LLAMA} --kv-cache-dtype float16"));
        assert_eq!(only_group(&r, Backend::TritonAttn).error, None);
    }
}

// ---- validate_configuration: the user's --block-size against each backend's kernel block sizes ----

fn forced_invalid(backend: &str, reason: &str) -> String {
    format!("Selected backend AttentionBackendEnum.{backend} is not valid for this configuration. Reason: ['{reason}']")
}

#[test]
fn forced_triton_flex_and_turboquant_refuse_a_block_size_not_a_multiple_of_16() {
    for vllm in ["0.24.0", "0.33.0"] {
        for backend in ["TRITON_ATTN", "FLEX_ATTENTION"] {
            let r = run(
                "a100-80gb",
                vllm,
                &format!("{LLAMA} --attention-backend {backend} --block-size 8"),
            );
            assert_forced_invalid(&r, vllm, &forced_invalid(backend, "block_size not supported"));
        }
        // A forced TURBOQUANT fails at layer 0 first: a boundary layer, whose cache TurboQuant keeps at "auto".
        let cmd = format!("{LLAMA} --attention-backend TURBOQUANT --kv-cache-dtype turboquant_k8v4 --block-size 24");
        let r = run("a100-80gb", vllm, &cmd);
        let message = "Selected backend AttentionBackendEnum.TURBOQUANT is not valid for this configuration. Reason: \
                       ['kv_cache_dtype not supported', 'block_size not supported']";
        assert_forced_invalid(&r, vllm, message);
    }
}

#[test]
fn unforced_block_size_8_on_t4_leaves_no_backend() {
    // Each backend lists "block_size not supported" after its kv-cache reason, as validate_configuration appends them.
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("t4", vllm, &format!("{LLAMA} --block-size 8"));
        let e = r.error.as_ref().expect("no valid backend");
        assert_eq!(e.source, Some(selection_source(&source::CUDA_NONE_VALID, vllm)));
        assert!(
            e.message.ends_with(
                "TRITON_ATTN: [block_size not supported], FLEX_ATTENTION: [block_size not supported], \
                 TURBOQUANT: [kv_cache_dtype not supported, block_size not supported]}."
            ),
            "{vllm}: {}",
            e.message
        );
    }
}

#[test]
fn block_sizes_that_are_multiples_of_16_run_on_each_backend() {
    for vllm in ["0.24.0", "0.33.0"] {
        // 48 for Triton and TurboQuant; FLEX_ATTENTION's builder also wants a power of 2 (below), so 64 there.
        for (backend, b, kv, size, file) in [
            ("TRITON_ATTN", Backend::TritonAttn, "auto", 48, TRITON),
            (
                "FLEX_ATTENTION",
                Backend::FlexAttention,
                "auto",
                64,
                "vllm/v1/attention/backends/flex_attention.py",
            ),
            (
                "TURBOQUANT",
                Backend::TurboQuant,
                "turboquant_k8v4",
                48,
                "vllm/v1/attention/backends/turboquant_attn.py",
            ),
        ] {
            // TURBOQUANT is selected unforced: forced, its boundary layers (cache "auto") would refuse it.
            let forced = if b == Backend::TurboQuant {
                String::new()
            } else {
                format!(" --attention-backend {backend}")
            };
            let cmd = format!("{LLAMA}{forced} --kv-cache-dtype {kv} --block-size {size}");
            let r = run("a100-80gb", vllm, &cmd);
            assert!(r.error.is_none(), "{vllm} {backend}: {:?}", r.error);
            let g = r.groups.iter().find(|g| g.backend == b).unwrap();
            assert_eq!(g.error, None, "{vllm} {backend}");
            let step = g
                .trace
                .iter()
                .find(|s| s.rule == format!("{backend} kernel block size"))
                .unwrap();
            assert_eq!(step.outcome, format!("--block-size {size} is a multiple of 16: accepted"));
            assert!(
                step.source().as_deref().unwrap().starts_with(file),
                "{vllm} {backend}: {:?}",
                step.source()
            );
        }
    }
}

// ---- FlexAttentionMetadataBuilder.__init__: the KV block (the cache block size) must be a power of 2 ----

#[test]
fn flex_attention_builder_refuses_a_block_size_that_is_not_a_power_of_2() {
    let message = "flex_attn_kv_block_size must be a power of 2 and divisible by flex_attn_block_n, got 48, None";
    for (vllm, line) in [("0.24.0", 847), ("0.33.0", 963)] {
        let cmd = format!("{LLAMA} --attention-backend FLEX_ATTENTION --block-size 48");
        let r = run("a100-80gb", vllm, &cmd);
        let g = only_group(&r, Backend::FlexAttention);
        let e = g.error.as_ref().expect("the builder raises");
        assert_eq!((e.kind, e.stage), (GroupErrorKind::ValueError, Stage::Init));
        assert_eq!(e.message, message);
        let source = format!("vllm/v1/attention/backends/flex_attention.py:{line}");
        assert_eq!(e.source.as_deref(), Some(source.as_str()));
        assert_eq!(g.trace.last().unwrap().outcome, message);
        // flex_attn_kv_block_size 64 replaces the cache block: a power of 2, but not the cache block, so the block
        // mask is no longer built directly.
        let r = run("a100-80gb", vllm, &format!("{cmd} -ac '{{\"flex_attn_kv_block_size\": 64}}'"));
        let g = only_group(&r, Backend::FlexAttention);
        assert_eq!(g.error, None);
        let step = g.trace.iter().find(|s| s.rule == "direct block-mask build").unwrap();
        assert_eq!(
            step.outcome,
            "off: the KV block 64 is not the cache block 48 (create_block_mask_compiled instead)"
        );
    }
    // A hybrid model's block size follows its recurrent state page, which qpath does not align for FLEX_ATTENTION.
    let cmd = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --attention-backend FLEX_ATTENTION";
    let r = run("h100-sxm", "0.33.0", cmd);
    let g = r.groups.iter().find(|g| g.backend == Backend::FlexAttention).unwrap();
    assert_eq!(g.error, None);
    let step = g.trace.iter().find(|s| s.rule == "FlexAttention block sizes").unwrap();
    assert!(step
        .outcome
        .starts_with("qpath cannot model this: a hybrid model's block size"));
}

// ---- validate_configuration: sinks and dtypes of FLEX_ATTENTION and TURBOQUANT ----

#[test]
fn forced_flex_attention_refuses_sinks() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("h100-sxm", vllm, &format!("{GPT_OSS} --attention-backend FLEX_ATTENTION"));
        assert_forced_invalid(&r, vllm, &forced_invalid("FLEX_ATTENTION", "attention sinks not supported"));
    }
}

#[test]
fn forced_turboquant_refuses_a_float32_model_first() {
    let cmd = format!("{LLAMA} --dtype float32 --attention-backend TURBOQUANT --kv-cache-dtype turboquant_k8v4");
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("a100-80gb", vllm, &cmd);
        // Layer 0 is a boundary layer (cache "auto"): its reasons are the model dtype's and the cache's.
        let message = "Selected backend AttentionBackendEnum.TURBOQUANT is not valid for this configuration. Reason: \
                       ['dtype not supported', 'kv_cache_dtype not supported']";
        assert_forced_invalid(&r, vllm, message);
    }
}

// ---- still runs: FLASH_ATTN and FLEX_ATTENTION have no init-time raise qpath's scenarios reach ----

#[test]
fn flash_attn_and_flex_attention_still_run() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("a100-80gb", vllm, LLAMA);
        let g = only_group(&r, Backend::FlashAttn);
        assert_eq!(g.error, None);
        let r = run("a100-80gb", vllm, &format!("{LLAMA} --attention-backend FLEX_ATTENTION"));
        assert_eq!(only_group(&r, Backend::FlexAttention).error, None);
    }
}

#[test]
fn triton_fp8_raise_line_in_every_release() {
    // The `raise` line of each release's wheel (a byte-identical release reads its source release's line).
    let lines = [
        ("0.24.0", 477),
        ("0.25.0", 507),
        ("0.25.1", 507),
        ("0.26.0", 527),
        ("0.27.0", 527),
        ("0.27.1", 527),
        ("0.28.0", 546),
        ("0.29.0", 488),
        ("0.30.0", 492),
        ("0.31.0", 492),
        ("0.32.0", 496),
        ("0.33.0", 520),
    ];
    for (vllm, line) in lines {
        let r = run("v100", vllm, &format!("{LLAMA} --kv-cache-dtype fp8_e4m3"));
        let e = only_group(&r, Backend::TritonAttn).error.as_ref().unwrap();
        assert_eq!(e.source, Some(format!("{TRITON}:{line}")), "{vllm}");
        assert!(e.message.starts_with(
            "FP8 KV cache is not supported by the Triton attention backend on NVIDIA V100 (compute capability 7.0);"
        ));
    }
}

// ---- FLASH_ATTN's fixed kernel block sizes (FA4 pages) against the user's --block-size ----

const HEAD_256: &str = r#"--hf-overrides '{"head_dim": 256}'"#;
const HEAD_512: &str = r#"--hf-overrides '{"head_dim": 512}'"#;

#[test]
fn forced_flash_attn_on_sm100_at_head_256_takes_only_multiples_of_128_from_0_29_0() {
    let refused = forced_invalid("FLASH_ATTN", "block_size not supported");
    for vllm in ["0.29.0", "0.33.0"] {
        let r = run(
            "b200",
            vllm,
            &format!("{LLAMA} --attention-backend FLASH_ATTN --block-size 16 {HEAD_256}"),
        );
        assert_forced_invalid(&r, vllm, &refused);
        let r = run(
            "b200",
            vllm,
            &format!("{LLAMA} --attention-backend FLASH_ATTN --block-size 256 {HEAD_256}"),
        );
        let step = block_size_step(&r, Backend::FlashAttn);
        assert_eq!(
            step.outcome,
            "--block-size 256 is a multiple of FA4's 128-token page: accepted"
        );
        let line = if vllm == "0.29.0" { 108 } else { 353 };
        assert_eq!(
            step.source(),
            Some(format!("vllm/v1/attention/backends/flash_attn.py:{line}"))
        );
    }
    // 0.28.0 has no FA4 head-256 page: 16 is a multiple of 16.
    let r = run(
        "b200",
        "0.28.0",
        &format!("{LLAMA} --attention-backend FLASH_ATTN --block-size 16 {HEAD_256}"),
    );
    assert_eq!(only_group(&r, Backend::FlashAttn).error, None);
    // A quantized cache sends FA4's head-256 kernel to FA2 (a fallback reason), so no 128 page; but FA2 cannot read
    // an fp8 cache, and `supports_combination` (with the head size) refuses it.
    let cmd = format!("{LLAMA} --attention-backend FLASH_ATTN --block-size 16 --kv-cache-dtype fp8 {HEAD_256}");
    let refused = forced_invalid(
        "FLASH_ATTN",
        "FP8 KV cache requires FA3 on SM90, FA4 with head_size=512 on SM90, or FA4 on SM100",
    );
    assert_forced_invalid(&run("b200", "0.33.0", &cmd), "0.33.0", &refused);
}

#[test]
fn forced_flash_attn_on_sm90_with_fp8_at_head_512_takes_only_multiples_of_64_from_0_31_0() {
    let refused = forced_invalid("FLASH_ATTN", "block_size not supported");
    for vllm in ["0.31.0", "0.33.0"] {
        let cmd = format!("{LLAMA} --attention-backend FLASH_ATTN --kv-cache-dtype fp8 --block-size 32 {HEAD_512}");
        assert_forced_invalid(&run("h100-sxm", vllm, &cmd), vllm, &refused);
        let cmd = format!("{LLAMA} --attention-backend FLASH_ATTN --kv-cache-dtype fp8 --block-size 64 {HEAD_512}");
        assert_eq!(only_group(&run("h100-sxm", vllm, &cmd), Backend::FlashAttn).error, None);
    }
}
