//! Golden cases for FLEX_ATTENTION and TURBOQUANT in the old releases 0.20.0 – 0.23.0: each behaviour that differs
//! from 0.24.0, at the old release and at the first release with the new behaviour. Texts and lines are the released
//! sources' (`/work/vllm-src/vllm-<VER>/vllm/...`).

mod common;
use common::run;
use qpath_core::report::{Backend, GroupErrorKind, GroupReport, LogLevel, Report, ScenarioErrorKind, Stage};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const MISTRAL: &str = "vllm serve mistralai/Mistral-7B-Instruct-v0.1";
const QWEN3_NEXT: &str = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct";

const FLEX: &str = "vllm/v1/attention/backends/flex_attention.py";
const TQ: &str = "vllm/v1/attention/backends/turboquant_attn.py";
const TQ_DECODE: &str = "vllm/v1/attention/ops/triton_turboquant_decode.py";
const TQ_CONFIG: &str = "vllm/model_executor/layers/quantization/turboquant/config.py";
const ARGS: &str = "vllm/engine/arg_utils.py";

fn group(r: &Report, backend: Backend) -> &GroupReport {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    r.groups
        .iter()
        .find(|g| g.backend == backend)
        .expect("a group on the backend")
}

/// The outcome and source of the trace step whose rule is `rule`, if any.
fn step(g: &GroupReport, rule: &str) -> Option<(String, Option<String>)> {
    g.trace
        .iter()
        .find(|s| s.rule == rule)
        .map(|s| (s.outcome.to_string(), s.source().map(|x| x.to_string())))
}

fn flex(extra: &str) -> String {
    format!("{LLAMA} --attention-backend FLEX_ATTENTION{extra}")
}

// ---- 0.20.x: FlexAttentionBackend declares neither kernel block sizes nor batch invariance (both 0.21.0) ----

#[test]
fn flex_takes_block_size_8_before_0_21_0_and_refuses_it_from_it() {
    for vllm in ["0.20.0", "0.20.2"] {
        let r = run("h100-sxm", vllm, &flex(" --block-size 8"));
        let g = group(&r, Backend::FlexAttention);
        assert_eq!(g.error, None, "{vllm}");
        let (outcome, src) = step(g, "FLEX_ATTENTION kernel block size").unwrap();
        assert_eq!(
            outcome,
            "--block-size 8: FlexAttentionBackend declares no kernel block sizes before 0.21.0; the base class's \
             [MultipleOf(1)] accepts it"
        );
        assert_eq!(src.as_deref(), Some("vllm/v1/attention/backend.py:70"));
        // BLOCK_N 8 reaches torch's Triton template: qpath does not answer for it.
        let why = g.unmodelled.as_deref().unwrap();
        assert_eq!(
            why,
            format!(
                "qpath cannot model this: vLLM {vllm} builds FLEX_ATTENTION's block mask with the cache block 8 as its \
                 KV block and passes it to the kernel as BLOCK_N unchecked (0.21.0 refuses a block size below 16 at \
                 selection); what torch's flex-attention Triton template does with that BLOCK_N at the first forward \
                 is torch's and Triton's code, which qpath does not restate"
            )
        );
        let (_, src) = step(g, "KV block").unwrap();
        assert_eq!(src, Some(format!("{FLEX}:759")));
        assert!(step(g, "FlexAttentionImpl.forward").is_none());
        // --block-size 32: the direct build's 16 x 32 blocks are the kernel's.
        let r = run("h100-sxm", vllm, &flex(" --block-size 32"));
        let g = group(&r, Backend::FlexAttention);
        assert_eq!(g.unmodelled, None);
        let (outcome, src) = step(g, "get_kernel_options").unwrap();
        assert_eq!(
            outcome,
            "FORCE_USE_FLEX_ATTENTION True; direct build: BLOCK_M 16, BLOCK_N 32 (the block mask's block sizes)"
        );
        assert_eq!(src, Some(format!("{FLEX}:1163")));
    }
    for vllm in ["0.21.0", "0.24.0"] {
        let e = run("h100-sxm", vllm, &flex(" --block-size 8")).error.unwrap();
        assert_eq!(
            e.message,
            "Selected backend AttentionBackendEnum.FLEX_ATTENTION is not valid for this configuration. Reason: \
             ['block_size not supported']",
            "{vllm}"
        );
    }
}

#[test]
fn flex_refuses_batch_invariance_before_0_21_0() {
    let cmd = format!("VLLM_BATCH_INVARIANT=1 {}", flex(""));
    for vllm in ["0.20.0", "0.20.2"] {
        let e = run("h100-sxm", vllm, &cmd).error.unwrap();
        assert_eq!(e.kind, ScenarioErrorKind::ValueError, "{vllm}");
        assert_eq!(
            e.message,
            "Selected backend AttentionBackendEnum.FLEX_ATTENTION is not valid for this configuration. Reason: \
             ['batch invariance not supported']",
            "{vllm}"
        );
    }
    // 0.21.0: FLEX_ATTENTION supports it; get_kernel_options sets 16 x 16 itself and returns first.
    let r = run("h100-sxm", "0.21.0", &cmd);
    let g = group(&r, Backend::FlexAttention);
    assert_eq!(g.error, None);
    let (outcome, src) = step(g, "get_kernel_options").unwrap();
    assert_eq!(
        outcome,
        "FORCE_USE_FLEX_ATTENTION True; VLLM_BATCH_INVARIANT: BLOCK_M 16, BLOCK_N 16, IS_DIVISIBLE False, returned \
         before the direct-build choice"
    );
    assert_eq!(src, Some(format!("{FLEX}:1173")));
    assert!(step(g, "the impl's block_m / block_n").is_none());
    assert!(step(g, "FlexAttentionImpl block_m / block_n").is_none());
    // 0.22.0: the impl's block_m / block_n (16 under VLLM_BATCH_INVARIANT) override the direct build's.
    let r = run("h100-sxm", "0.22.0", &cmd);
    let g = group(&r, Backend::FlexAttention);
    let (outcome, src) = step(g, "the impl's block_m / block_n").unwrap();
    assert_eq!(outcome, "BLOCK_M 16, BLOCK_N 16; VLLM_BATCH_INVARIANT: IS_DIVISIBLE False");
    assert_eq!(src, Some(format!("{FLEX}:1185")));
    let (_, src) = step(g, "get_kernel_options").unwrap();
    assert_eq!(src, Some(format!("{FLEX}:1230")));
}

// ---- 0.21.0: no flex_attn_* config, fixed builder blocks, no power-of-2 check (all 0.22.0) ----

#[test]
fn flex_block_size_48_cannot_be_modelled_before_0_22_0_and_raises_from_it() {
    let r = run("h100-sxm", "0.21.0", &flex(" --block-size 48"));
    let g = group(&r, Backend::FlexAttention);
    assert_eq!(g.error, None);
    let why = g.unmodelled.as_deref().unwrap();
    assert!(
        why.starts_with("qpath cannot model this: vLLM 0.21.0 builds FLEX_ATTENTION's block mask with the cache block 48"),
        "{why}"
    );
    let (outcome, src) = step(g, "FlexAttentionMetadataBuilder block sizes").unwrap();
    assert!(outcome.starts_with("torch >= 2.9 (supports_small_blocks): query block 16, KV block = the cache block size 48"));
    assert_eq!(src, Some(format!("{FLEX}:772")));
    for (vllm, line) in [("0.22.0", 827), ("0.23.0", 835)] {
        let r = run("h100-sxm", vllm, &flex(" --block-size 48"));
        let e = group(&r, Backend::FlexAttention).error.as_ref().unwrap();
        assert_eq!((e.kind, e.stage), (GroupErrorKind::ValueError, Stage::Init));
        assert_eq!(
            e.message,
            "flex_attn_kv_block_size must be a power of 2 and divisible by flex_attn_block_n, got 48, None"
        );
        assert_eq!(e.source, Some(format!("{FLEX}:{line}")));
    }
}

#[test]
fn flex_attn_config_fields_exist_from_0_22_0() {
    let cmd = flex(" -ac '{\"flex_attn_block_m\": 8}'");
    let e = run("h100-sxm", "0.21.0", &cmd).error.unwrap();
    assert!(e.message.contains("flex_attn_block_m"), "{}", e.message);
    assert!(e.message.contains("Unexpected keyword argument"), "{}", e.message);
    let r = run("h100-sxm", "0.22.0", &cmd);
    let g = group(&r, Backend::FlexAttention);
    assert_eq!(step(g, "the impl's block_m / block_n").unwrap().0, "BLOCK_M 8, BLOCK_N 16");
}

// ---- 0.22.x: the FLEX cache puts K / V first (num_blocks first from 0.23.0) ----

#[test]
fn flex_kv_cache_splits_k_and_v_on_the_first_axis_before_0_23_0() {
    for (vllm, line) in [("0.20.0", 119), ("0.21.0", 128), ("0.22.1", 128)] {
        let r = run("h100-sxm", vllm, &flex(""));
        let g = group(&r, Backend::FlexAttention);
        let (outcome, src) = step(g, "KV cache shape").unwrap();
        assert_eq!(
            outcome,
            "get_kv_cache_shape: (2, num_blocks, 16, 8, 128), key and value caches kv_cache.unbind(0) (num_blocks \
             first from 0.23.0)"
        );
        assert_eq!(src, Some(format!("{FLEX}:{line}")));
    }
    for vllm in ["0.23.0", "0.24.0"] {
        let r = run("h100-sxm", vllm, &flex(""));
        assert!(step(group(&r, Backend::FlexAttention), "KV cache shape").is_none(), "{vllm}");
    }
}

// ---- 0.23.0 and older: build() passes no sliding window (0.24.0 passes the spec's under full CUDA graphs) ----

#[test]
fn flex_sliding_window_layers_rebuild_the_mask_in_the_forward_before_0_24_0() {
    let cmd = format!("{MISTRAL} --attention-backend FLEX_ATTENTION");
    for (vllm, line) in [("0.20.2", 1045), ("0.22.0", 1110), ("0.23.0", 1118)] {
        let r = run("h100-sxm", vllm, &cmd);
        let g = group(&r, Backend::FlexAttention);
        assert_eq!(g.error, None);
        assert_eq!(g.sliding_window, Some(4096));
        let (outcome, src) = step(g, "sliding window").unwrap();
        assert!(
            outcome.starts_with(
                "build() passes no sliding window before 0.24.0, so the mask it builds is not windowed: in each batch \
                 the group's first layer to run finds attn_metadata.sliding_window None != 4096"
            ),
            "{outcome}"
        );
        assert_eq!(src, Some(format!("{FLEX}:{line}")));
    }
    let r = run("h100-sxm", "0.24.0", &cmd);
    assert!(step(group(&r, Backend::FlexAttention), "sliding window").is_none());
}

// ---- TURBOQUANT 0.20.x: hybrid models refused, the skip-list info line, the float32 decode output ----

#[test]
fn turboquant_refuses_hybrid_models_before_0_21_0() {
    let cmd = format!("{QWEN3_NEXT} --kv-cache-dtype turboquant_k8v4");
    for vllm in ["0.20.0", "0.20.2"] {
        let e = run("h100-sxm", vllm, &cmd).error.unwrap();
        assert_eq!(e.kind, ScenarioErrorKind::NotImplementedError, "{vllm}");
        assert_eq!(
            e.message,
            "TurboQuant KV cache is not supported for hybrid (attention + Mamba) models. Boundary layer protection \
             requires uniform attention layers."
        );
        assert_eq!(e.source, Some(format!("{ARGS}:1677")));
    }
    // 0.21.0: no boundary layers for a hybrid model, its full-attention layers logged.
    let r = run("h100-sxm", "0.21.0", &cmd);
    let g = group(&r, Backend::TurboQuant);
    assert_eq!(g.layers, (0..12).map(|i| 4 * i + 3).collect::<Vec<u32>>());
    let log = r.log_records.iter().find(|l| l.text.starts_with("TQ hybrid")).unwrap();
    assert_eq!((log.level, log.file, log.line), (LogLevel::Info, TQ_CONFIG, 195));
}

#[test]
fn turboquant_logs_the_merged_skip_list_before_0_21_0() {
    let warning = "TurboQuant is not yet compatible with FlashAttention >= 3. Overriding flash_attn_version to 2. To \
                   silence this warning, pass --attention-config.flash_attn_version=2";
    let cmd = format!("{LLAMA} --kv-cache-dtype turboquant_k8v4 --kv-cache-dtype-skip-layers 10");
    for vllm in ["0.20.0", "0.20.2"] {
        let r = run("a100-80gb", vllm, &cmd);
        assert!(r.error.is_none(), "{vllm}: {:?}", r.error);
        assert_eq!(r.groups[0].backend, Backend::FlashAttn);
        assert_eq!(r.groups[0].layers, vec![0, 1, 10, 30, 31]);
        let info = r.log_records.iter().position(|l| l.text.starts_with("TQ: skipping")).unwrap();
        let l = &r.log_records[info];
        assert_eq!(
            l.text,
            "TQ: skipping layers ['0', '1', '10', '30', '31'] for boundary protection (num_layers=32)"
        );
        assert_eq!((l.level, l.file, l.line), (LogLevel::Info, ARGS, 1691));
        // Logged with CacheConfig, before the FA2 override's warning.
        let warn = r.log_records.iter().position(|l| l.text == warning).unwrap();
        assert!(info < warn);
        assert_eq!(r.log_records[warn].line, 2009);
    }
    for vllm in ["0.21.0", "0.24.0"] {
        let r = run("a100-80gb", vllm, &cmd);
        assert_eq!(r.groups[0].layers, vec![0, 1, 10, 30, 31]);
        assert!(!r.log_records.iter().any(|l| l.text.starts_with("TQ: skipping")), "{vllm}");
    }
}

#[test]
fn turboquant_skip_list_int_sort_cites_0_20_x_merged_line() {
    let cmd = format!("{LLAMA} --kv-cache-dtype turboquant_k8v4 --kv-cache-dtype-skip-layers sliding_window");
    for (vllm, line) in [("0.20.1", 1689), ("0.21.0", 1721), ("0.23.0", 1787)] {
        let e = run("h100-sxm", vllm, &cmd).error.unwrap();
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(e.message, "invalid literal for int() with base 10: 'sliding_window'");
        assert_eq!(e.source, Some(format!("{ARGS}:{line}")));
    }
}

#[test]
fn turboquant_decode_casts_a_float32_output_before_0_21_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype turboquant_4bit_nc");
    let r = run("h100-sxm", "0.20.2", &cmd);
    let g = group(&r, Backend::TurboQuant);
    let (outcome, src) = step(g, "decode output").unwrap();
    assert_eq!(
        outcome,
        "stage 2 writes a float32 output; the launcher returns output.to(query.dtype), a bfloat16 copy"
    );
    assert_eq!(src, Some(format!("{TQ_DECODE}:623")));
    let (outcome, src) = step(g, "prefill, long continuations").unwrap();
    assert!(outcome.contains("into per-layer float16 buffers"), "{outcome}");
    assert_eq!(src, Some(format!("{TQ}:766")));
    for vllm in ["0.21.0", "0.24.0"] {
        let r = run("h100-sxm", vllm, &cmd);
        let g = group(&r, Backend::TurboQuant);
        assert!(step(g, "decode output").is_none(), "{vllm}");
        assert!(step(g, "prefill, long continuations")
            .unwrap()
            .0
            .contains("into float16 workspace buffers"));
    }
}

// ---- every step of these groups cites a line of its own release (no statement of a later release) ----

#[test]
fn every_flex_and_turboquant_step_cites_a_line_of_its_release() {
    let commands = [
        flex(""),
        flex(" --block-size 32"),
        format!("VLLM_BATCH_INVARIANT=1 {}", flex("")),
        format!("{MISTRAL} --attention-backend FLEX_ATTENTION"),
        format!("{LLAMA} --kv-cache-dtype turboquant_k8v4"),
        format!("{LLAMA} --kv-cache-dtype turboquant_3bit_nc"),
        format!("{QWEN3_NEXT} --kv-cache-dtype turboquant_k8v4"),
    ];
    for vllm in ["0.20.0", "0.20.1", "0.20.2", "0.21.0", "0.22.0", "0.22.1", "0.23.0"] {
        for cmd in &commands {
            let r = run("h100-sxm", vllm, cmd);
            for g in r
                .groups
                .iter()
                .filter(|g| matches!(g.backend, Backend::FlexAttention | Backend::TurboQuant))
            {
                // Selection's steps ("backend X") are its own module's, checked by its goldens.
                for s in g.trace.iter().filter(|s| !s.unverified && !s.rule.starts_with("backend ")) {
                    assert!(s.source().is_some(), "{vllm} {cmd}: step {:?} has no line", s.rule);
                }
            }
        }
    }
}

// ---- TURBOQUANT 0.21.0 – 0.23.0: continuation buffers from the workspace at the chunk (0.24.0 reserves them) ----

#[test]
fn turboquant_continuation_buffers_come_from_the_locked_workspace_before_0_24_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype turboquant_k8v4");
    for vllm in ["0.21.0", "0.22.1", "0.23.0"] {
        let r = run("h100-sxm", vllm, &cmd);
        let g = group(&r, Backend::TurboQuant);
        let (outcome, src) = step(g, "continuation workspace").unwrap();
        assert!(
            outcome.starts_with(
                "before 0.24.0 TurboQuantMetadataBuilder reserves no workspace: a long continuation takes its two \
                 float16 (1, 8, cached tokens rounded up to the block, 128) buffers from the WorkspaceManager at that \
                 chunk, after capture_model locked it (cudagraph_mode FULL_AND_PIECEWISE)"
            ),
            "{vllm}: {outcome}"
        );
        assert_eq!(src, Some(format!("{TQ}:747")));
        // --enforce-eager: capture_model returns before lock_workspace.
        let r = run("h100-sxm", vllm, &format!("{cmd} --enforce-eager"));
        let (outcome, _) = step(group(&r, Backend::TurboQuant), "continuation workspace").unwrap();
        assert!(
            outcome.ends_with("returns before lock_workspace, so the workspace grows"),
            "{outcome}"
        );
    }
    for vllm in ["0.20.2", "0.24.0"] {
        let r = run("h100-sxm", vllm, &cmd);
        assert!(
            step(group(&r, Backend::TurboQuant), "continuation workspace").is_none(),
            "{vllm}"
        );
    }
}
