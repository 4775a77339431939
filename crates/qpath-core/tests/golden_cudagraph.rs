//! CUDA graphs once the attention backends are known (`qpath_core::cudagraph`): each group's support, the minimum,
//! and `resolve_cudagraph_mode_and_sizes`' downgrades with vLLM's warnings. Each case resolves a real scenario for its
//! groups, then asks the module; each behaviour at the first release that has it and at 0.33.0
//! (`docs/source-notes/cuda-graphs.md` has the statements).

use qpath_core::cudagraph;
use qpath_core::dtype::TorchDtype;
use qpath_core::platform::Platform;
use qpath_core::release::Release::{self, *};
use qpath_core::report::{Backend, GroupRole, Report};
use qpath_core::report::{CgSupport, CudaGraphReport};
use qpath_core::resolve::{resolve, Hardware, Scenario, DEFAULT_CUDA};
use qpath_core::serve;

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const QWEN3_NEXT: &str = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct";

/// The platform the rules read, from the public API (the fields the CUDA-graph rules read: release, capability,
/// cubins, `use_trtllm_attention`, DCP, the cudagraph_mode); resolve/mod.rs builds the same one for its groups.
fn platform(r: Release, report: &Report, command: &str) -> Platform {
    let cmd = serve::parse(r, command).unwrap();
    Platform {
        release: r,
        flashinfer: r.flashinfer_pin(),
        cc: report.gpu.compute_capability.parse().unwrap(),
        cuda: DEFAULT_CUDA,
        cubins: report.trtllm_cubins,
        batch_invariant: false,
        model_dtype: TorchDtype::BFloat16,
        force_trtllm: cmd.attention_config.use_trtllm_attention,
        disable_q_quant: cmd.attention_config.disable_flashinfer_q_quantization,
        flash_attn_version: None,
        dcp: cmd.decode_context_parallel_size.max(1),
        page_size: 16,
        global_kv: cmd.kv_cache_dtype.clone(),
        graphs: serve::cuda_graphs(&cmd),
        resolved_graphs: None,
        model_mla: None,
        attention_chunk_size: None,
    }
}

/// Resolves `command` on `gpu` at `r` with `spec_tokens` n-gram speculative tokens (a method without drafter layers,
/// so the groups are the target's) and returns the report and its CUDA-graph resolution (`Report::cuda_graphs`).
fn graphs(gpu: &str, r: Release, command: &str, spec_tokens: u32) -> (Report, CudaGraphReport) {
    let command = if spec_tokens > 0 {
        format!(r#"{command} --speculative-config '{{"method": "ngram", "num_speculative_tokens": {spec_tokens}}}'"#)
    } else {
        command.to_string()
    };
    let report = resolve(&Scenario::new(Hardware::parse(gpu).unwrap(), r, command.as_str()));
    assert!(report.error.is_none(), "{:?}", report.error);
    let cg = report.cuda_graphs.clone().expect("the report resolves CUDA graphs");
    (report, cg)
}

/// What a case compares: (resolved mode, min support, min backend, [(file:line, warning)]).
type Outcome = (String, Option<CgSupport>, Option<String>, Vec<(String, String)>);

fn outcome(cg: &CudaGraphReport) -> Outcome {
    assert!(cg.error.is_none(), "{:?}", cg.error);
    let logs = cg
        .log_records
        .iter()
        .map(|l| (format!("{}:{}", l.file, l.line), l.text.clone()))
        .collect();
    (cg.mode.clone(), cg.support, cg.min_backend.clone(), logs)
}

fn expect(cg: &CudaGraphReport, mode: &str, support: CgSupport, backend: Option<&str>, logs: &[(&str, &str)]) {
    let want: Outcome = (
        mode.to_string(),
        Some(support),
        backend.map(str::to_string),
        logs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect(),
    );
    assert_eq!(outcome(cg), want, "trace {:#?}", cg.trace);
}

const SPEC_SINGLE: &str = "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention backend \
     FlashInferBackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting cudagraph_mode=PIECEWISE";

fn compilation(line: u32) -> String {
    format!("vllm/config/compilation.py:{line}")
}

/// (a) H100, FlashInfer, 3 speculative tokens: single-token decode graphs only (0.24.0: no TRTLLM on SM90; 0.25.0 …
/// 0.29.0: SM90 returns it outright) → the spec-decode downgrade to PIECEWISE. From 0.30.0 SM90 passes the
/// per-spec test (XQA decode, head_dim 128): UNIFORM_BATCH, no downgrade.
#[test]
fn h100_flashinfer_spec_decode_goes_piecewise_until_0_30_0() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER");
    for (r, line) in [(V0_24_0, 1405), (V0_25_0, 1409), (V0_29_0, 1465)] {
        let (_, cg) = graphs("h100-sxm", r, &cmd, 3);
        let at = compilation(line);
        expect(
            &cg,
            "PIECEWISE",
            CgSupport::UniformSingleTokenDecode,
            Some("FlashInferBackend"),
            &[(&at, SPEC_SINGLE)],
        );
        assert_eq!(
            (cg.requested.as_str(), cg.group_support.len()),
            ("FULL_AND_PIECEWISE", 1),
            "{r}"
        );
    }
    for r in [V0_30_0, V0_33_0] {
        let (_, cg) = graphs("h100-sxm", r, &cmd, 3);
        expect(
            &cg,
            "FULL_AND_PIECEWISE",
            CgSupport::UniformBatch,
            Some("FlashInferBackend"),
            &[],
        );
    }
    // The deciding lines: 0.25.0's SM90 return, 0.33.0's final test.
    let step = |r| graphs("h100-sxm", r, &cmd, 3).1.trace[0].source().clone().unwrap();
    assert_eq!(step(V0_25_0), "vllm/v1/attention/backends/flashinfer.py:862");
    assert_eq!(step(V0_33_0), "vllm/v1/attention/backends/flashinfer.py:1223");
    // Without speculative tokens nothing is downgraded.
    let (_, cg) = graphs("h100-sxm", V0_25_0, &cmd, 0);
    expect(
        &cg,
        "FULL_AND_PIECEWISE",
        CgSupport::UniformSingleTokenDecode,
        Some("FlashInferBackend"),
        &[],
    );
}

/// (a') 0.30.0+ on SM90: a head_dim XQA refuses (512: above 256) keeps single-token graphs, so the spec-decode
/// downgrade stays.
#[test]
fn h100_flashinfer_head_dim_xqa_refuses_keeps_the_downgrade_at_0_33_0() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER --hf-overrides '{{\"head_dim\": 512}}'");
    for (r, line) in [(V0_30_0, 1473), (V0_33_0, 1466)] {
        let (report, cg) = graphs("h100-sxm", r, &cmd, 3);
        assert_eq!(report.groups[0].head_dim, 512);
        expect(
            &cg,
            "PIECEWISE",
            CgSupport::UniformSingleTokenDecode,
            Some("FlashInferBackend"),
            &[(&compilation(line), SPEC_SINGLE)],
        );
        assert!(cg.trace[0].outcome.contains("_is_xqa_head_dim_supported"), "{:#?}", cg.trace);
    }
}

/// (b) B200: trtllm-gen decodes take uniform spec-decode batches in every release.
#[test]
fn b200_flashinfer_spec_decode_keeps_full_graphs() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER");
    for r in [V0_24_0, V0_33_0] {
        let (_, cg) = graphs("b200", r, &cmd, 3);
        expect(
            &cg,
            "FULL_AND_PIECEWISE",
            CgSupport::UniformBatch,
            Some("FlashInferBackend"),
            &[],
        );
    }
}

/// (c) `-cc.cudagraph_mode=FULL`: FlashInfer is never ALWAYS, so mixed batches go piecewise (attention is a splitting
/// op); with speculative tokens on H100 before 0.30.0 the spec-decode downgrade follows, naming the mode the first set.
#[test]
fn explicit_full_mode_with_flashinfer_goes_full_and_piecewise() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER -cc.cudagraph_mode=FULL");
    let mixed = |s: &str| {
        format!("CUDAGraphMode.FULL is not supported with FlashInferBackend backend (support: {s}); setting cudagraph_mode=FULL_AND_PIECEWISE")
    };
    let (_, cg) = graphs("h100-sxm", V0_24_0, &cmd, 0);
    let single = mixed("AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE");
    expect(
        &cg,
        "FULL_AND_PIECEWISE",
        CgSupport::UniformSingleTokenDecode,
        Some("FlashInferBackend"),
        &[(&compilation(1358), &single)],
    );
    assert_eq!(
        (cg.requested.as_str(), cg.set_by.as_str()),
        ("FULL", "--compilation-config's cudagraph_mode")
    );
    let (_, cg) = graphs("h100-sxm", V0_24_0, &cmd, 3);
    expect(
        &cg,
        "PIECEWISE",
        CgSupport::UniformSingleTokenDecode,
        Some("FlashInferBackend"),
        &[(&compilation(1358), &single), (&compilation(1405), SPEC_SINGLE)],
    );
    let (_, cg) = graphs("h100-sxm", V0_33_0, &cmd, 3);
    let batch = mixed("AttentionCGSupport.UNIFORM_BATCH");
    expect(
        &cg,
        "FULL_AND_PIECEWISE",
        CgSupport::UniformBatch,
        Some("FlashInferBackend"),
        &[(&compilation(1419), &batch)],
    );
}

/// (d) `--enforce-eager`: cudagraph_mode NONE, nothing to resolve, no warning, even where FlashInfer's support is low.
#[test]
fn enforce_eager_resolves_to_none_without_warnings() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER --enforce-eager");
    for r in [V0_24_0, V0_33_0] {
        let (_, cg) = graphs("h100-sxm", r, &cmd, 3);
        assert_eq!((cg.requested.as_str(), cg.set_by.as_str()), ("NONE", "--enforce-eager"));
        let support = if r < V0_30_0 {
            CgSupport::UniformSingleTokenDecode
        } else {
            CgSupport::UniformBatch
        };
        expect(&cg, "NONE", support, Some("FlashInferBackend"), &[]);
    }
}

/// (e) TRITON_ATTN is ALWAYS: no downgrade, even for `FULL` with speculative tokens, and no backend named.
#[test]
fn triton_attn_is_always_supported() {
    for (args, mode) in [("", "FULL_AND_PIECEWISE"), ("-cc.cudagraph_mode=FULL", "FULL")] {
        for r in [V0_24_0, V0_33_0] {
            let (report, cg) = graphs("h100-sxm", r, &format!("{LLAMA} --attention-backend TRITON_ATTN {args}"), 3);
            assert_eq!(report.groups[0].backend, Backend::TritonAttn);
            expect(&cg, mode, CgSupport::Always, None, &[]);
            assert_eq!(
                cg.trace[0]
                    .source()
                    .as_deref()
                    .map(|s| s.starts_with("vllm/v1/attention/backends/triton_attn.py:")),
                Some(true)
            );
        }
    }
}

/// (e) Qwen3-Next on H100: FLASH_ATTN (FA3, ALWAYS) and the GDN group (UNIFORM_BATCH): the GDN backend is the
/// minimum; `FULL` goes FULL_AND_PIECEWISE naming it; spec decode keeps full decode graphs.
#[test]
fn qwen3_next_gdn_group_is_the_minimum() {
    for (r, line) in [(V0_24_0, 1358), (V0_33_0, 1419)] {
        let (report, cg) = graphs("h100-sxm", r, QWEN3_NEXT, 2);
        let backends: Vec<Backend> = report.groups.iter().map(|g| g.backend).collect();
        assert!(
            backends.contains(&Backend::GdnAttn) && backends.contains(&Backend::FlashAttn),
            "{backends:?}"
        );
        expect(
            &cg,
            "FULL_AND_PIECEWISE",
            CgSupport::UniformBatch,
            Some("GDNAttentionBackend"),
            &[],
        );
        let (_, cg) = graphs("h100-sxm", r, &format!("{QWEN3_NEXT} -cc.cudagraph_mode=FULL"), 2);
        let text = "CUDAGraphMode.FULL is not supported with GDNAttentionBackend backend (support: \
                    AttentionCGSupport.UNIFORM_BATCH); setting cudagraph_mode=FULL_AND_PIECEWISE";
        expect(
            &cg,
            "FULL_AND_PIECEWISE",
            CgSupport::UniformBatch,
            Some("GDNAttentionBackend"),
            &[(&compilation(line), text)],
        );
    }
}

/// (e) Qwen3-Next with FlashInfer on H100 at 0.24.0: FlashInfer's single-token support is below GDN's, so it is the
/// minimum and the spec-decode downgrade names it.
#[test]
fn qwen3_next_flashinfer_below_gdn_at_0_24_0() {
    let (_, cg) = graphs(
        "h100-sxm",
        V0_24_0,
        &format!("{QWEN3_NEXT} --attention-backend FLASHINFER"),
        2,
    );
    assert!(
        cg.group_support.contains(&Some(CgSupport::UniformBatch)),
        "{:?}",
        cg.group_support
    );
    let text = "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention backend \
                FlashInferBackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting cudagraph_mode=PIECEWISE";
    expect(
        &cg,
        "PIECEWISE",
        CgSupport::UniformSingleTokenDecode,
        Some("FlashInferBackend"),
        &[(&compilation(1405), text)],
    );
}

/// FlashInfer below SM90: no TRTLLM, single-token graphs, until 0.33.0 graphs fa2's uniform causal decodes
/// (`_use_fa2_native_decode`).
#[test]
fn a100_flashinfer_takes_uniform_batches_from_0_33_0() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER");
    let (_, cg) = graphs("a100-80gb", V0_32_0, &cmd, 3);
    expect(
        &cg,
        "PIECEWISE",
        CgSupport::UniformSingleTokenDecode,
        Some("FlashInferBackend"),
        &[(&compilation(1459), SPEC_SINGLE)],
    );
    let (_, cg) = graphs("a100-80gb", V0_33_0, &cmd, 3);
    expect(
        &cg,
        "FULL_AND_PIECEWISE",
        CgSupport::UniformBatch,
        Some("FlashInferBackend"),
        &[],
    );
    assert_eq!(
        cg.trace[0].source().as_deref(),
        Some("vllm/v1/attention/backends/flashinfer.py:1187")
    );
}

/// FLASH_ATTN's support follows the FA version: FA3 (SM90) ALWAYS; FA4 (SM100) UNIFORM_BATCH until 0.33.0 counts it;
/// FA2 (SM80) UNIFORM_BATCH.
#[test]
fn flash_attn_support_follows_the_fa_version() {
    let cmd = format!("{LLAMA} --attention-backend FLASH_ATTN");
    for (gpu, r, want) in [
        ("h100-sxm", V0_24_0, CgSupport::Always),
        ("b200", V0_32_0, CgSupport::UniformBatch),
        ("b200", V0_33_0, CgSupport::Always),
        ("a100-80gb", V0_33_0, CgSupport::UniformBatch),
    ] {
        let (_, cg) = graphs(gpu, r, &cmd, 0);
        assert_eq!(cg.group_support, [Some(want)], "{gpu} {r}: {:#?}", cg.trace);
    }
}

/// DCP > 1: from 0.30.0 FlashInfer graphs single-token decodes only on every arch (0.28.0 and 0.29.0: only SM12x), so
/// B200's spec-decode graphs go piecewise; on an RTX 5090 (SM120) from 0.28.0.
#[test]
fn dcp_keeps_flashinfer_single_token() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER -dcp 2");
    let (_, cg) = graphs("b200", V0_29_0, &cmd, 3);
    expect(
        &cg,
        "FULL_AND_PIECEWISE",
        CgSupport::UniformBatch,
        Some("FlashInferBackend"),
        &[],
    );
    for (r, line) in [(V0_30_0, 1473), (V0_33_0, 1466)] {
        let (_, cg) = graphs("b200", r, &cmd, 3);
        expect(
            &cg,
            "PIECEWISE",
            CgSupport::UniformSingleTokenDecode,
            Some("FlashInferBackend"),
            &[(&compilation(line), SPEC_SINGLE)],
        );
    }
    let (_, cg) = graphs("rtx-5090", V0_28_0, &cmd, 3);
    expect(
        &cg,
        "PIECEWISE",
        CgSupport::UniformSingleTokenDecode,
        Some("FlashInferBackend"),
        &[(&compilation(1459), SPEC_SINGLE)],
    );
    assert_eq!(
        cg.trace[0].source().as_deref(),
        Some("vllm/v1/attention/backends/flashinfer.py:994")
    );
    // Without DCP the RTX 5090 takes XQA's uniform batches from 0.28.0 (SM12x XQA), and not before (no TRTLLM).
    let plain = format!("{LLAMA} --attention-backend FLASHINFER");
    let support = |r| graphs("rtx-5090", r, &plain, 3).1.support;
    assert_eq!(
        (support(V0_27_0), support(V0_28_0)),
        (Some(CgSupport::UniformSingleTokenDecode), Some(CgSupport::UniformBatch))
    );
}

/// A non-causal drafter (DFlash-like; drafters are not yet resolved by qpath, so the target's group stands in as
/// one): trtllm-gen is causal only from 0.26.0, so B200 drops to single-token decode graphs; an XQA arch keeps
/// UNIFORM_BATCH from 0.30.0 (SM90 exact before returned single-token anyway).
#[test]
fn a_non_causal_drafter_group_is_single_token_on_trtllm_gen() {
    let cmd = format!("{LLAMA} --attention-backend FLASHINFER");
    let drafter_support = |gpu: &str, r: Release| {
        let report = resolve(&Scenario::new(Hardware::parse(gpu).unwrap(), r, cmd.as_str()));
        let mut groups = report.groups.clone();
        let mut drafter = groups[0].clone();
        drafter.role = GroupRole::Drafter;
        groups.push(drafter);
        let cg = cudagraph::resolve(&platform(r, &report, &cmd), &groups, 32, 3, true);
        (cg.group_support, cg.mode)
    };
    let (batch, single) = (Some(CgSupport::UniformBatch), Some(CgSupport::UniformSingleTokenDecode));
    assert_eq!(
        drafter_support("b200", V0_25_0),
        (vec![batch, batch], "FULL_AND_PIECEWISE".to_string())
    );
    for r in [V0_26_0, V0_33_0] {
        assert_eq!(
            drafter_support("b200", r),
            (vec![batch, single], "PIECEWISE".to_string()),
            "{r}"
        );
    }
    assert_eq!(
        drafter_support("h100-sxm", V0_30_0),
        (vec![batch, batch], "FULL_AND_PIECEWISE".to_string())
    );
}
