//! Golden cases for FLEX_ATTENTION and TURBOQUANT (`qpath_core::backends::{flex_attention, turboquant}`), each at the
//! first release with the behaviour and at 0.33.0: selection, the query dtype and kernel per phase, the errors (type,
//! text, stage, raising line), the log records and the trace's cited lines. Texts and lines are the released sources'
//! (`/work/vllm-src/vllm-<VER>/vllm/...`); `docs/source-notes/flex-turboquant-registry.md` restates them.

mod common;
use common::run;
use qpath_core::dtype::TorchDtype;
use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::release::Release;
use qpath_core::report::{
    Backend, CgSupport, GroupErrorKind, GroupReport, Kernel, KernelChoice, LogLevel, Phases, Report, ScenarioErrorKind, Stage,
    Verdict,
};
use qpath_core::resolve::resolve;
use qpath_core::source::{self, Cite};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const GPT_OSS: &str = "vllm serve openai/gpt-oss-20b";
const MISTRAL: &str = "vllm serve mistralai/Mistral-7B-Instruct-v0.1";
const QWEN3_NEXT: &str = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct";
const LLAMA_CONFIG: &str = include_str!("fixtures/llama-3.1-8b-instruct.config.json");

const FLEX: &str = "vllm/v1/attention/backends/flex_attention.py";
const TQ: &str = "vllm/v1/attention/backends/turboquant_attn.py";
const ARGS: &str = "vllm/engine/arg_utils.py";

fn release(vllm: &str) -> Release {
    Release::ALL.into_iter().find(|r| r.name() == vllm).unwrap()
}

/// `file:line` of a cite another module owns (selection's lines are pinned by their own goldens).
fn at(cite: &Cite, vllm: &str) -> String {
    cite.at(release(vllm)).unwrap().short()
}

fn group(r: &Report, backend: Backend) -> &GroupReport {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    r.groups
        .iter()
        .find(|g| g.backend == backend)
        .expect("a group on the backend")
}

/// The source of the trace step whose rule is `rule`.
fn step_source<'a>(g: &'a GroupReport, rule: &str) -> (&'a str, Option<&'a str>) {
    let s = g
        .trace
        .iter()
        .find(|s| s.rule == rule)
        .unwrap_or_else(|| panic!("no step {rule:?}"));
    // The source text is built on demand; a test may keep it for the whole run.
    (&*s.outcome, s.source().map(|x| &*x.leak()))
}

fn both<T: Clone>(v: T) -> Phases<T> {
    Phases {
        prefill: v.clone(),
        decode: v,
    }
}

// ---- FLEX_ATTENTION: one compiled flex_attention kernel for both phases, the query in the model dtype ----

#[test]
fn forced_flex_on_h100_runs_one_flex_kernel_on_a_bf16_query_in_both_phases() {
    for (vllm, forward, options, qqi) in [("0.24.0", 1234, 1273, 769), ("0.33.0", 1376, 1420, 842)] {
        let r = run("h100-sxm", vllm, &format!("{LLAMA} --attention-backend FLEX_ATTENTION"));
        assert_eq!(r.verdict, Verdict::Serves, "{vllm}");
        assert_eq!(r.groups.len(), 1);
        let g = group(&r, Backend::FlexAttention);
        assert_eq!(g.layers, (0..32).collect::<Vec<_>>());
        assert_eq!(g.error, None);
        assert_eq!(g.unmodelled, None);
        assert_eq!(g.q_dtype, both(Some(TorchDtype::BFloat16)));
        assert_eq!(g.kernel, both(Some(Kernel::FlexAttention)));
        assert_eq!(g.kernels, both(vec![KernelChoice::always(Kernel::FlexAttention)]));
        assert_eq!(g.query_quant, None);
        assert_eq!(g.cudagraph_support, Some(CgSupport::Always));
        // The forced backend's info line.
        let log = r.log_records.last().unwrap();
        assert_eq!(
            (log.level, log.text.as_str()),
            (LogLevel::Info, "Using AttentionBackendEnum.FLEX_ATTENTION backend.")
        );
        assert_eq!(format!("{}:{}", log.file, log.line), at(&source::CUDA_FORCED_LOG, vllm));
        // Why: the impl keeps AttentionImpl's supports_quant_query_input = False; the direct block mask's 16 x 16
        // blocks are the kernel's BLOCK_M / BLOCK_N; one call, no prefill / decode split.
        let (outcome, src) = step_source(g, "supports_quant_query_input");
        assert_eq!(outcome, "FlexAttentionImpl does not set it: AttentionImpl's False");
        assert_eq!(src, Some(format!("vllm/v1/attention/backend.py:{qqi}").as_str()));
        let (outcome, src) = step_source(g, "get_kernel_options");
        assert_eq!(
            outcome,
            "FORCE_USE_FLEX_ATTENTION True; direct build: BLOCK_M 16, BLOCK_N 16 (the block mask's block sizes)"
        );
        assert_eq!(src, Some(format!("{FLEX}:{options}").as_str()));
        let (outcome, src) = step_source(g, "FlexAttentionImpl.forward");
        assert!(outcome.starts_with("no prefill / decode split: the batch's whole query [1, 32, tokens, 128] in bfloat16"));
        assert!(outcome.ends_with("with enable_gqa=True; prefill and decode run the same kernel"));
        assert_eq!(src, Some(format!("{FLEX}:{forward}").as_str()));
    }
}

#[test]
fn flex_builder_refuses_block_size_48_at_engine_start() {
    let message = "flex_attn_kv_block_size must be a power of 2 and divisible by flex_attn_block_n, got 48, None";
    for (vllm, line) in [("0.24.0", 847), ("0.33.0", 963)] {
        let r = run(
            "h100-sxm",
            vllm,
            &format!("{LLAMA} --attention-backend FLEX_ATTENTION --block-size 48"),
        );
        assert_eq!(r.verdict, Verdict::Fails);
        let g = group(&r, Backend::FlexAttention);
        let e = g.error.as_ref().unwrap();
        assert_eq!((e.kind, e.stage), (GroupErrorKind::ValueError, Stage::Init));
        assert_eq!(e.message, message);
        assert_eq!(e.source.as_deref(), Some(format!("{FLEX}:{line}").as_str()));
        assert_eq!(e.raised_in, "FlexAttentionMetadataBuilder.__init__");
        // No batch runs: no query dtype, no kernel.
        assert_eq!(g.q_dtype, both(None));
        assert_eq!(g.kernel, both(None));
        assert!(g.kernels.prefill.is_empty() && g.kernels.decode.is_empty());
        // Selection took 48 (a multiple of 16).
        assert!(r
            .log_records
            .iter()
            .any(|l| l.text == "Using AttentionBackendEnum.FLEX_ATTENTION backend."));
    }
}

#[test]
fn forced_flex_refuses_gpt_oss_sinks() {
    let message = "Selected backend AttentionBackendEnum.FLEX_ATTENTION is not valid for this configuration. Reason: \
                   ['attention sinks not supported']";
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("h100-sxm", vllm, &format!("{GPT_OSS} --attention-backend FLEX_ATTENTION"));
        let e = r.error.as_ref().unwrap();
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(e.message, message);
        assert_eq!(e.source, Some(at(&source::CUDA_FORCED_INVALID, vllm)));
        assert!(r.groups.is_empty());
    }
}

#[test]
fn forced_flex_lists_per_head_quant_scales_after_the_cache_dtype() {
    // A compressed-tensors checkpoint with per-head (attn_head) KV scales: its fp8 cache and its scales, in order.
    let i = LLAMA_CONFIG.rfind('}').unwrap();
    let config = format!(
        "{},\n \"quantization_config\": {{\"quant_method\": \"compressed-tensors\", \"kv_cache_scheme\": {{\"num_bits\": 8, \
         \"type\": \"float\", \"strategy\": \"attn_head\", \"dynamic\": false, \"symmetric\": true}}}}\n}}",
        LLAMA_CONFIG[..i].trim_end()
    );
    for vllm in ["0.24.0", "0.33.0"] {
        let mut o = ScenarioOptions::default();
        o.set(OptionKey::Gpu, "h100-sxm").unwrap();
        o.set(OptionKey::Vllm, vllm).unwrap();
        let mut s = o.scenario("vllm serve m --attention-backend FLEX_ATTENTION").unwrap();
        s.model_config = Some(config.clone());
        let r = resolve(&s);
        let e = r.error.as_ref().unwrap();
        assert_eq!(
            e.message,
            "Selected backend AttentionBackendEnum.FLEX_ATTENTION is not valid for this configuration. Reason: \
             ['kv_cache_dtype not supported', 'per-head quant scales not supported']"
        );
    }
}

#[test]
fn flex_with_dcp_asserts_in_the_runner_before_0_30_0_and_is_refused_at_selection_from_it() {
    let cmd = format!("{LLAMA} --attention-backend FLEX_ATTENTION -tp 16 -dcp 2");
    let message = "Decode Context Parallelism (DCP) requires attention implementations to return the softmax LSE \
                   during decode, but FlexAttentionImpl does not. Try a different backend by setting \
                   --attention-backend or disable DCP.";
    for (vllm, line) in [("0.24.0", 31), ("0.29.0", 46)] {
        let r = run("h100-sxm", vllm, &cmd);
        let e = group(&r, Backend::FlexAttention).error.as_ref().unwrap();
        assert_eq!((e.kind, e.stage), (GroupErrorKind::AssertionError, Stage::Init));
        assert_eq!(e.message, message);
        assert_eq!(
            e.source.as_deref(),
            Some(format!("vllm/v1/worker/cp_utils.py:{line}").as_str())
        );
    }
    for vllm in ["0.30.0", "0.33.0"] {
        let e = run("h100-sxm", vllm, &cmd).error.unwrap();
        assert_eq!(
            e.message,
            "Selected backend AttentionBackendEnum.FLEX_ATTENTION is not valid for this configuration. Reason: \
             ['DCP not supported']"
        );
    }
}

#[test]
fn flex_block_m_larger_than_the_cache_block_raises_at_layer_init_under_batch_invariance() {
    let cmd = format!("VLLM_BATCH_INVARIANT=1 {LLAMA} --attention-backend FLEX_ATTENTION -ac '{{\"flex_attn_block_m\": 32}}'");
    for (vllm, line) in [("0.24.0", 370), ("0.33.0", 402)] {
        let r = run("h100-sxm", vllm, &cmd);
        let e = group(&r, Backend::FlexAttention).error.as_ref().unwrap();
        assert_eq!((e.kind, e.stage), (GroupErrorKind::ValueError, Stage::Init));
        assert_eq!(
            e.message,
            "flex_attn_block_m (32) must be <= cache block size (16) for batch invariance"
        );
        let src = format!("vllm/model_executor/layers/attention/attention.py:{line}");
        assert_eq!(e.source.as_deref(), Some(src.as_str()));
        // Without batch invariance the layer passes block_m to the impl; the builder's query block 16 is not
        // divisible by 32.
        let r = run("h100-sxm", vllm, cmd.trim_start_matches("VLLM_BATCH_INVARIANT=1 "));
        let e = group(&r, Backend::FlexAttention).error.as_ref().unwrap();
        assert_eq!(
            e.message,
            "flex_attn_q_block_size must be a power of 2 and divisible by flex_attn_block_m, got 16, 32"
        );
        let q_line = if vllm == "0.24.0" { 836 } else { 952 };
        assert_eq!(e.source.as_deref(), Some(format!("{FLEX}:{q_line}").as_str()));
        // block_m 8 divides it: the impl's BLOCK_M replaces the mask's 16 in the kernel options.
        let r = run(
            "h100-sxm",
            vllm,
            &format!("{LLAMA} --attention-backend FLEX_ATTENTION -ac '{{\"flex_attn_block_m\": 8}}'"),
        );
        let g = group(&r, Backend::FlexAttention);
        assert_eq!(g.error, None);
        assert_eq!(step_source(g, "the impl's block_m / block_n").0, "BLOCK_M 8, BLOCK_N 16");
    }
}

// ---- TURBOQUANT: boundary layers, the FA2 override, kernels per phase ----

#[test]
fn turboquant_k8v4_on_a100_keeps_boundary_layers_on_flash_attn_and_runs_the_rest_on_turboquant() {
    let warning = "TurboQuant is not yet compatible with FlashAttention >= 3. Overriding flash_attn_version to 2. To \
                   silence this warning, pass --attention-config.flash_attn_version=2";
    for (vllm, warn, fa, fast, decode) in [("0.24.0", 2201, 328, 618, 925), ("0.33.0", 2759, 352, 740, 1206)] {
        let r = run("a100-80gb", vllm, &format!("{LLAMA} --kv-cache-dtype turboquant_k8v4"));
        assert!(r.error.is_none(), "{vllm}: {:?}", r.error);
        assert_eq!(r.groups.len(), 2);
        // Layers 0, 1, 30, 31: kept at "auto", selected like any unquantized layer (FLASH_ATTN on SM80).
        let fa_group = &r.groups[0];
        assert_eq!(fa_group.backend, Backend::FlashAttn);
        assert_eq!(fa_group.layers, vec![0, 1, 30, 31]);
        assert_eq!(fa_group.cache_dtype, "auto");
        // The rest: TURBOQUANT, the only backend that takes the cache.
        let g = &r.groups[1];
        assert_eq!(g.backend, Backend::TurboQuant);
        assert_eq!(g.layers, (2..30).collect::<Vec<_>>());
        assert_eq!(g.cache_dtype, "turboquant_k8v4");
        assert_eq!(g.error, None);
        assert_eq!(g.unmodelled, None);
        assert_eq!(g.q_dtype, both(Some(TorchDtype::BFloat16)));
        assert_eq!(
            g.kernel,
            Phases {
                prefill: Some(Kernel::FaVarlen2),
                decode: Some(Kernel::TurboquantDecode),
            }
        );
        let prefill: Vec<Kernel> = g.kernels.prefill.iter().map(|k| k.kernel).collect();
        assert_eq!(
            prefill,
            vec![Kernel::FaVarlen2, Kernel::TurboquantDecode, Kernel::TurboquantDequantFa2]
        );
        assert!(g.kernels.prefill[0].when.as_deref().unwrap().starts_with("first chunks"));
        assert!(g.kernels.prefill[1]
            .when
            .as_deref()
            .unwrap()
            .starts_with("a continuation chunk of at most 128 tokens"));
        assert!(g.kernels.prefill[2]
            .when
            .as_deref()
            .unwrap()
            .starts_with("a continuation chunk of more than 128 tokens"));
        assert_eq!(g.kernels.decode, vec![KernelChoice::always(Kernel::TurboquantDecode)]);
        assert_eq!(g.cudagraph_support, Some(CgSupport::UniformBatch));
        // The engine config's warning, once, between the cache line (0.33.0 calls turboquant_* quantized) and the
        // selection lines.
        let texts: Vec<&str> = r.log_records.iter().map(|l| l.text.as_str()).collect();
        let mut expected = vec![
            warning,
            "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', \
             'TRITON_ATTN', 'FLEX_ATTENTION'].",
            "Using TURBOQUANT attention backend out of potential backends: ['TURBOQUANT'].",
        ];
        if vllm == "0.33.0" {
            expected.insert(
                0,
                "Using turboquant_k8v4 data type to store kv cache. It reduces the GPU memory footprint and boosts \
                 the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor",
            );
        }
        assert_eq!(texts, expected, "{vllm}");
        assert_eq!(r.logs, expected);
        let w = r.log_records.iter().find(|l| l.text == warning).unwrap();
        assert_eq!((w.level, w.file, w.line), (LogLevel::Warning, ARGS, warn));
        // The notes name the boundary layers and the override, with their lines.
        let boundary = if vllm == "0.24.0" { (1867, 207) } else { (2345, 208) };
        assert!(r.notes.iter().any(|n| n.text
            == format!(
                "--kv-cache-dtype turboquant_k8v4: vLLM keeps layers 0, 1, 30, 31 (the first and last 2 of 32) at the \
                 model dtype: TurboQuantConfig.get_boundary_skip_layers adds them to kv_cache_dtype_skip_layers \
                 ({ARGS}:{}, vllm/model_executor/layers/quantization/turboquant/config.py:{}), so they select their \
                 backend as unquantized layers do.",
                boundary.0, boundary.1
            )));
        // Why: FA2 (the override), FP8 keys read as fp8e4b15 below SM89, the prefill fast path, the decode kernel.
        let (outcome, src) = step_source(g, "get_flash_attn_version");
        assert_eq!(
            outcome,
            "attention_config.flash_attn_version = 2 (the engine config's TurboQuant override): fa_version 2"
        );
        assert_eq!(src, Some(format!("{TQ}:{fa}").as_str()));
        let (outcome, _) = step_source(g, "FP8 key format");
        assert_eq!(
            outcome,
            "compute capability 8.0 < 8.9: the kernel reads the FP8 keys as fp8e4b15"
        );
        assert_eq!(
            step_source(g, "prefill, first chunks").1,
            Some(format!("{TQ}:{fast}").as_str())
        );
        assert_eq!(step_source(g, "decode").1, Some(format!("{TQ}:{decode}").as_str()));
        let (outcome, src) = step_source(g, "decode query");
        assert_eq!(outcome, "FP8 keys: the bfloat16 query goes to the kernel as it is");
        assert_eq!(src, Some("vllm/v1/attention/ops/triton_turboquant_decode.py:522"));
    }
}

#[test]
fn turboquant_mse_presets_decode_on_a_float32_rotated_query() {
    for vllm in ["0.24.0", "0.33.0"] {
        for kv in ["turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_3bit_nc"] {
            let r = run("h100-sxm", vllm, &format!("{LLAMA} --kv-cache-dtype {kv}"));
            let g = group(&r, Backend::TurboQuant);
            assert_eq!(
                g.q_dtype,
                Phases {
                    prefill: Some(TorchDtype::BFloat16),
                    decode: Some(TorchDtype::Float32),
                },
                "{vllm} {kv}"
            );
            assert_eq!(
                step_source(g, "decode query").0,
                "MSE keys: q_rot = query.float() @ Pi.T, a float32 query (the Hadamard-rotated bfloat16 query)"
            );
        }
    }
}

#[test]
fn a_user_flash_attn_version_2_silences_the_warning_and_3_does_not() {
    for vllm in ["0.24.0", "0.33.0"] {
        let quiet = run(
            "h100-sxm",
            vllm,
            &format!("{LLAMA} --kv-cache-dtype turboquant_k8v4 -ac.flash_attn_version 2"),
        );
        assert!(!quiet.log_records.iter().any(|l| l.level == LogLevel::Warning));
        assert_eq!(group(&quiet, Backend::TurboQuant).kernel.prefill, Some(Kernel::FaVarlen2));
        let loud = run(
            "h100-sxm",
            vllm,
            &format!("{LLAMA} --kv-cache-dtype turboquant_k8v4 -ac.flash_attn_version 3"),
        );
        assert!(loud
            .log_records
            .iter()
            .any(|l| l.text.starts_with("TurboQuant is not yet compatible")));
        assert!(loud.notes.iter().any(|n| n.text.contains("flash_attn_version = 2 (was 3;")));
    }
}

#[test]
fn forced_turboquant_fails_at_the_boundary_layer_0() {
    let message = "Selected backend AttentionBackendEnum.TURBOQUANT is not valid for this configuration. Reason: \
                   ['kv_cache_dtype not supported']";
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run(
            "h100-sxm",
            vllm,
            &format!("{LLAMA} --attention-backend TURBOQUANT --kv-cache-dtype turboquant_k8v4"),
        );
        let e = r.error.unwrap();
        assert_eq!(e.message, message);
        assert!(e.source.unwrap().starts_with("vllm/platforms/cuda.py:"));
    }
}

#[test]
fn the_skip_list_sort_with_key_int_refuses_sliding_window_before_0_32_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype turboquant_k8v4 --kv-cache-dtype-skip-layers sliding_window");
    for (vllm, line) in [("0.24.0", 1869), ("0.31.0", 2243)] {
        let e = run("h100-sxm", vllm, &cmd).error.unwrap();
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(e.message, "invalid literal for int() with base 10: 'sliding_window'");
        assert_eq!(e.source, Some(format!("{ARGS}:{line}")));
    }
    for vllm in ["0.32.0", "0.33.0"] {
        let r = run("h100-sxm", vllm, &cmd);
        assert!(r.error.is_none(), "{vllm}: {:?}", r.error);
        assert_eq!(group(&r, Backend::TurboQuant).layers, (2..30).collect::<Vec<_>>());
    }
}

#[test]
fn a_hybrid_model_keeps_no_boundary_layers_and_logs_its_full_attention_layers() {
    for (vllm, line) in [("0.24.0", 201), ("0.33.0", 202)] {
        let r = run("h100-sxm", vllm, &format!("{QWEN3_NEXT} --kv-cache-dtype turboquant_k8v4"));
        let g = group(&r, Backend::TurboQuant);
        let full: Vec<u32> = (0..12).map(|i| 4 * i + 3).collect();
        assert_eq!(g.layers, full);
        let log = r.log_records.iter().find(|l| l.text.starts_with("TQ hybrid")).unwrap();
        assert_eq!(
            log.text,
            "TQ hybrid: full-attention layers [3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47]"
        );
        assert_eq!(
            (log.level, log.file, log.line),
            (
                LogLevel::Info,
                "vllm/model_executor/layers/quantization/turboquant/config.py",
                line
            )
        );
        assert!(!r.groups.iter().any(|g| g.backend == Backend::FlashAttn));
    }
}

#[test]
fn turboquant_refuses_sliding_windows_from_0_26_0_and_ignores_them_before() {
    let cmd = format!("{MISTRAL} --kv-cache-dtype turboquant_k8v4");
    for vllm in ["0.24.0", "0.25.0"] {
        let r = run("a100-80gb", vllm, &cmd);
        let g = group(&r, Backend::TurboQuant);
        let (outcome, src) = step_source(g, "sliding window");
        assert!(outcome.starts_with("the impl takes sliding_window=4096 and never reads it"));
        assert_eq!(src, Some(format!("{TQ}:297").as_str()));
    }
    for vllm in ["0.26.0", "0.33.0"] {
        let e = run("a100-80gb", vllm, &cmd).error.unwrap();
        assert_eq!(e.source, Some(at(&source::CUDA_NONE_VALID, vllm)));
        assert!(
            e.message.ends_with("TURBOQUANT: [sliding window not supported]}."),
            "{vllm}: {}",
            e.message
        );
    }
}

#[test]
fn turboquant_refuses_batch_invariance() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run(
            "h100-sxm",
            vllm,
            &format!("VLLM_BATCH_INVARIANT=1 {LLAMA} --kv-cache-dtype turboquant_k8v4"),
        );
        let e = r.error.unwrap();
        assert!(
            e.message.ends_with("TURBOQUANT: [batch invariance not supported]}."),
            "{vllm}: {}",
            e.message
        );
    }
}

#[test]
fn turboquant_with_dcp_asserts_in_the_runner_before_0_30_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype turboquant_k8v4 -tp 16 -dcp 2");
    let r = run("h100-sxm", "0.24.0", &cmd);
    let e = group(&r, Backend::TurboQuant).error.as_ref().unwrap();
    assert_eq!(e.kind, GroupErrorKind::AssertionError);
    assert!(e.message.contains("but TurboQuantAttentionImpl does not."));
    let e = run("h100-sxm", "0.33.0", &cmd).error.unwrap();
    assert!(e.message.ends_with("TURBOQUANT: [DCP not supported]}."), "{}", e.message);
}

#[test]
fn turboquant_on_sm100_has_no_layout_every_backend_supports_from_0_29_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype turboquant_4bit_nc");
    // 0.28.0: no layout negotiation; the boundary layers run on FLASHINFER, the rest on TURBOQUANT.
    let r = run("b200", "0.28.0", &cmd);
    assert!(r.groups.iter().all(|g| g.error.is_none()));
    assert_eq!(r.groups[0].backend, Backend::FlashInfer);
    let message = "No KV cache layout satisfies every supported set: [['LBHNC', 'BLHNC'], ['LBNHC']].";
    for (vllm, line) in [("0.29.0", 221), ("0.33.0", 274)] {
        let r = run("b200", vllm, &cmd);
        assert_eq!(r.verdict, Verdict::Fails);
        assert_eq!(r.groups.len(), 2);
        for g in &r.groups {
            let e = g.error.as_ref().unwrap();
            assert_eq!((e.kind, e.stage), (GroupErrorKind::ValueError, Stage::Init));
            assert_eq!(e.message, message);
            assert_eq!(
                e.source.as_deref(),
                Some(format!("vllm/v1/attention/backends/utils.py:{line}").as_str())
            );
            assert_eq!(g.kernel, both(None));
        }
    }
    // H100: FLASH_ATTN declares no layout, so TurboQuant's LBNHC stands.
    assert!(run("h100-sxm", "0.33.0", &cmd).groups.iter().all(|g| g.error.is_none()));
}

#[test]
fn turboquant_below_sm80_cannot_model_the_prefill() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run("t4", vllm, &format!("{LLAMA} --kv-cache-dtype turboquant_k8v4"));
        assert_eq!(r.verdict, Verdict::CannotModel);
        let g = group(&r, Backend::TurboQuant);
        assert!(g
            .unmodelled
            .as_deref()
            .unwrap()
            .starts_with("qpath cannot model this: on compute capability 7.5"));
        assert_eq!(g.kernel.prefill, None);
        assert_eq!(g.kernel.decode, Some(Kernel::TurboquantDecode));
    }
}

#[test]
fn ultraquant_keeps_boundary_layers_and_warns_as_ultraquant_from_0_32_0() {
    // No backend on CUDA takes ultraquant_4bit: the first non-boundary layer (2) finds none.
    let r = run("h100-sxm", "0.32.0", &format!("{LLAMA} --kv-cache-dtype ultraquant_4bit"));
    let e = r.error.as_ref().unwrap();
    assert!(e.message.contains("kv_cache_dtype=ultraquant_4bit"));
    assert!(e.message.ends_with("TURBOQUANT: [kv_cache_dtype not supported]}."));
    assert!(r.notes.iter().any(|n| n.text.starts_with(
        "--kv-cache-dtype ultraquant_4bit: vLLM keeps layers 0, 1, 30, 31 (the first and last 2 of 32) at the model dtype"
    )));
    // Before 0.32.0 ultraquant_4bit is no cache dtype of vLLM's.
    assert_eq!(
        run("h100-sxm", "0.31.0", &format!("{LLAMA} --kv-cache-dtype ultraquant_4bit"))
            .error
            .unwrap()
            .kind,
        ScenarioErrorKind::ArgumentError
    );
}
