//! Golden cases for hybrid models at the releases before 0.24.0 (0.20.x, 0.21.0, 0.22.x, 0.23.0), each pinned beside
//! the first release with the newer behaviour. Paths are under `vllm/`; `gdn.py` =
//! `model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py` (0.22.0+), `old_gdn.py` =
//! `model_executor/layers/mamba/gdn_linear_attn.py` (0.20.0-0.21.0), `mixer2.py` =
//! `model_executor/layers/mamba/mamba_mixer2.py`.
//!
//! - 0.20.0-0.21.0: the GDN layer is old_gdn.py's (`mamba_type` old_gdn.py:218@0.20.0 returns "gdn_attention",
//!   :242@0.21.0 the enum); its `ChunkGatedDeltaRule.__init__` (old_gdn.py:128@0.20.0, :144@0.21.0) offers FlashInfer on
//!   SM90 only and logs other lines; the prefill kernel is answered, the decode path is "cannot model".
//! - 0.22.x: gdn.py's `_forward_core` runs the decodes of a batch with prefills through the chunk kernel
//!   (`if attn_metadata.num_prefills > 0:`, gdn.py:1463@0.22.0); 0.23.0 splits them off to the sigmoid-gating kernel
//!   (gdn.py:1484@0.23.0). 0.22.x reads `linear_key_head_dim` from `hf_config` (gdn.py:180/221@0.22.0), which
//!   Qwen3.5's multimodal config lacks: `head_k_dim=None`, so no FlashInfer GDN prefill on Blackwell.
//! - 0.20.0-0.21.0: no Mamba2 SSD warm-up (mixer2.py's `_warmup_ssd_kernels` is new in 0.22.0, :578); with prefix
//!   caching and a speculative config the default mamba cache mode is "align" for a model with
//!   SupportsMambaPrefixCaching (models/config.py:352-357@0.21.0), "all" from 0.22.0.

use qpath_core::capability::CudaVersion;
use qpath_core::release::Release::{self, *};
use qpath_core::report::{AttentionKind, Backend, GroupReport, Kernel, LogLevel, Report};
use qpath_core::resolve::{resolve, Hardware, Scenario};

const QWEN3_NEXT: &str = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct";
const QWEN3_5_27B: &str = "vllm serve Qwen/Qwen3.5-27B";
const NEMOTRON: &str = "vllm serve nvidia/NVIDIA-Nemotron-Nano-9B-v2";
const SCOUT: &str = "vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct";
const GDN: &str = "vllm/model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py";
const OLD_GDN: &str = "vllm/model_executor/layers/mamba/gdn_linear_attn.py";
const MIXER2: &str = "vllm/model_executor/layers/mamba/mamba_mixer2.py";
const SSU: &str = "vllm/model_executor/layers/mamba/ops/ssu_dispatch.py";
const NGRAM: &str = r#"--speculative-config '{"method":"ngram","num_speculative_tokens":2,"prompt_lookup_max":3}'"#;

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

fn recurrent(r: &Report) -> &GroupReport {
    let g = r
        .groups
        .iter()
        .find(|g| g.layers.contains(&0))
        .expect("a group holds layer 0");
    assert!(g.backend.is_recurrent(), "{:?}", g.backend);
    g
}

fn records(g: &GroupReport) -> Vec<(LogLevel, String, String)> {
    g.log_records
        .iter()
        .map(|l| (l.level, format!("{}:{}", l.file, l.line), l.text.clone()))
        .collect()
}

fn rec(level: LogLevel, file: &str, line: u32, text: &str) -> (LogLevel, String, String) {
    (level, format!("{file}:{line}"), text.to_string())
}

fn step_source(g: &GroupReport, rule: &str) -> String {
    g.trace
        .iter()
        .find(|s| s.rule == rule)
        .unwrap_or_else(|| panic!("no step `{rule}` in {:#?}", g.trace))
        .source()
        .map_or(String::new(), |s| s.leak().to_string())
}

fn step<'a>(g: &'a GroupReport, rule: &str) -> &'a str {
    &g.trace
        .iter()
        .find(|s| s.rule == rule)
        .unwrap_or_else(|| panic!("no step `{rule}` in {:#?}", g.trace))
        .outcome
}

fn choices(list: &[qpath_core::report::KernelChoice]) -> Vec<(Kernel, Option<&str>)> {
    list.iter().map(|c| (c.kernel, c.when.as_deref())).collect()
}

fn block_logs(r: &Report) -> Vec<&str> {
    r.logs
        .iter()
        .filter(|l| l.starts_with("Setting attention block size") || l.starts_with("Padding mamba page size"))
        .map(String::as_str)
        .collect()
}

/// Qwen3-Next-80B on H100 at every release before 0.24.0: the same two groups and block size as 0.24.0; the GDN
/// kernels are "cannot model" until 0.21.0 (old_gdn.py), FlashInfer prefill + packed decode from 0.22.0.
#[test]
fn qwen3_next_groups_and_gdn_kernels_per_codebase() {
    let reference = run("h100-sxm", V0_24_0, QWEN3_NEXT);
    let want_blocks: Vec<String> = block_logs(&reference).iter().map(|s| s.to_string()).collect();
    assert_eq!(want_blocks.len(), 2);
    for r in Release::ALL.iter().copied().filter(|r| *r < V0_24_0) {
        let rep = run("h100-sxm", r, QWEN3_NEXT);
        assert_eq!(rep.groups.len(), 2, "{r}");
        let g = recurrent(&rep);
        assert_eq!((g.backend, g.layers.len()), (Backend::GdnAttn, 36), "{r}");
        assert_eq!(block_logs(&rep), want_blocks, "{r}");
        if r < V0_22_0 {
            let line = if r < V0_21_0 { 218 } else { 242 };
            assert_eq!(step_source(g, "mamba_type"), format!("{OLD_GDN}:{line}"), "{r}");
            let why = g.unmodelled.as_deref().expect("cannot model");
            assert!(why.starts_with("qpath cannot model this: "), "{why}");
            assert!(why.contains("GDN decode path") && why.contains("gdn_linear_attn.py"), "{why}");
            // SM90: FlashInfer's prefill, with the old file's two info lines; the decode is not restated.
            assert_eq!(
                (g.kernel.prefill, g.kernel.decode),
                (Some(Kernel::GdnChunkFlashInfer), None),
                "{r}"
            );
            let (sm90, log) = if r < V0_21_0 { (128, 146) } else { (144, 162) };
            assert_eq!(
                records(g),
                [
                    rec(LogLevel::Info, OLD_GDN, log, "Using FlashInfer GDN prefill kernel"),
                    rec(
                        LogLevel::Info,
                        OLD_GDN,
                        log + 1,
                        "FlashInfer GDN prefill kernel is JIT-compiled; first run may take a while to compile. Set \
                         `--gdn-prefill-backend triton` to avoid JIT compile time."
                    ),
                ],
                "{r}"
            );
            assert!(g.warnings.is_empty(), "{r}");
            assert_eq!(step_source(g, "GDN prefill kernels possible"), format!("{OLD_GDN}:{sm90}"));
        } else {
            assert_eq!(
                step_source(g, "mamba_type"),
                "vllm/model_executor/layers/mamba/gdn/base.py:51"
            );
            assert!(g.unmodelled.is_none() && g.error.is_none(), "{r}");
            assert_eq!(
                (g.kernel.prefill, g.kernel.decode),
                (Some(Kernel::GdnChunkFlashInfer), Some(Kernel::GdnPackedDecode)),
                "{r}"
            );
            assert_eq!(
                records(g)[0],
                rec(
                    LogLevel::Info,
                    GDN,
                    228,
                    "Using FlashInfer GDN prefill kernel (requested=auto, head_k_dim=128)."
                )
            );
        }
    }
}

/// 0.22.x: a mixed batch's decodes run the chunk kernel with the prefills; 0.23.0 splits them off to
/// `fused_sigmoid_gating_delta_rule_update` (as 0.24.0 does).
#[test]
fn qwen3_next_mixed_batch_decodes_0_22_vs_0_23() {
    for (r, mixed, line) in [
        (V0_22_0, Kernel::GdnChunkFlashInfer, 1463),
        (V0_22_1, Kernel::GdnChunkFlashInfer, 1463),
        (V0_23_0, Kernel::GdnSigmoidGating, 1484),
    ] {
        let rep = run("h100-sxm", r, QWEN3_NEXT);
        let g = recurrent(&rep);
        assert_eq!(
            choices(&g.kernels.decode),
            [
                (Kernel::GdnPackedDecode, Some("decode-only batches without spec tokens")),
                (mixed, Some("the decodes of a batch that also has prefills")),
            ],
            "{r}"
        );
        assert_eq!(step_source(g, "GDN decodes beside prefills"), format!("{GDN}:{line}"), "{r}");
        let state = if r < V0_23_0 { 1465 } else { 1513 };
        assert_eq!(step_source(g, "GDN prefill state"), format!("{GDN}:{state}"), "{r}");
    }
    // A100: FLA's chunk kernel takes the mixed decodes at 0.22.0; packed decode disabled keeps the split too.
    let rep = run(
        "a100-80gb",
        V0_22_0,
        &format!("VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE=0 {QWEN3_NEXT}"),
    );
    let g = recurrent(&rep);
    assert_eq!(
        choices(&g.kernels.decode),
        [
            (Kernel::GdnSigmoidGating, Some("batches without prefills")),
            (Kernel::GdnChunkFla, Some("the decodes of a batch that also has prefills")),
        ]
    );
    let rep = run(
        "a100-80gb",
        V0_23_0,
        &format!("VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE=0 {QWEN3_NEXT}"),
    );
    assert_eq!(choices(&recurrent(&rep).kernels.decode), [(Kernel::GdnSigmoidGating, None)]);
}

/// Qwen3.5-27B: 0.22.x reads `linear_key_head_dim` from the multimodal hf_config (None); 0.23.0 from hf_text_config
/// (128). On B200 with CUDA 13 that is Triton/FLA at 0.22.0 and FlashInfer at 0.23.0; on H100 FlashInfer both, the log
/// printing None at 0.22.0. The groups and block size (784 tokens, float32 ssm state) match 0.24.0's.
#[test]
fn qwen3_5_head_k_dim_is_none_at_0_22() {
    for (r, kernel, chosen, hk) in [
        (V0_22_0, Kernel::GdnChunkFla, "Triton/FLA", "None"),
        (V0_23_0, Kernel::GdnChunkFlashInfer, "FlashInfer", "128"),
    ] {
        let rep = run_on("b200", r, Some((13, 0)), QWEN3_5_27B);
        let g = recurrent(&rep);
        assert_eq!((g.backend, g.layers.len()), (Backend::GdnAttn, 48), "{r}");
        assert_eq!(g.kernel.prefill, Some(kernel), "{r}");
        assert_eq!(
            records(g)[0],
            rec(
                LogLevel::Info,
                GDN,
                228,
                &format!("Using {chosen} GDN prefill kernel (requested=auto, head_k_dim={hk}).")
            ),
            "{r}"
        );
        assert!(step(g, "GDN prefill kernels possible").contains(&format!("linear_key_head_dim {hk} (needs 128)")));
    }
    for r in [V0_20_0, V0_21_0, V0_22_0, V0_23_0] {
        let rep = run("h100-sxm", r, QWEN3_5_27B);
        assert_eq!(rep.groups.len(), 2, "{r}");
        assert_eq!(
            block_logs(&rep),
            [
                "Setting attention block size to 784 tokens to ensure that attention page size is >= mamba page size.",
                "Padding mamba page size by 0.13% to ensure that mamba page size and attention page size are exactly \
                 equal."
            ],
            "{r}"
        );
        let g = recurrent(&rep);
        assert_eq!(g.cache_dtype, "conv bfloat16 / ssm float32", "{r}");
        if r == V0_22_0 {
            assert_eq!(g.kernel.prefill, Some(Kernel::GdnChunkFlashInfer));
            assert!(g.logs[0].ends_with("(requested=auto, head_k_dim=None)."), "{:?}", g.logs);
        } else if r < V0_22_0 {
            assert!(g.unmodelled.is_some(), "{r}");
        }
    }
}

/// Nemotron-H (Mamba2): no SSD warm-up until 0.21.0 (its log line first appears at mixer2.py:578@0.22.0); the
/// `mamba_type` statement returns "mamba2" until 0.20.2 (mixer2.py:939) and the layer pattern is read at
/// nemotron_h.py:565@0.20.0 / :568@0.22.0.
#[test]
fn nemotron_h_mamba2_warmup_and_lines_per_codebase() {
    for (r, m2type, layer, ssu, warm) in [
        (V0_20_0, 939, 565, 222, None),
        (V0_21_0, 940, 565, 224, None),
        (V0_22_0, 1071, 568, 224, Some(578)),
        (V0_23_0, 1071, 568, 224, Some(578)),
    ] {
        let rep = run("h100-sxm", r, NEMOTRON);
        let g = recurrent(&rep);
        assert_eq!((g.backend, g.layers.len()), (Backend::Mamba2, 27), "{r}");
        assert_eq!(g.cache_dtype, "conv bfloat16 / ssm float32", "{r}");
        assert_eq!(
            (g.kernel.prefill, g.kernel.decode),
            (Some(Kernel::MambaChunkScan), Some(Kernel::SelectiveStateUpdate))
        );
        assert_eq!(step_source(g, "mamba_type"), format!("{MIXER2}:{m2type}"), "{r}");
        assert_eq!(
            step_source(g, "recurrent layers"),
            format!("vllm/model_executor/models/nemotron_h.py:{layer}"),
            "{r}"
        );
        let mut want = Vec::new();
        if let Some(w) = warm {
            want.push(rec(LogLevel::Info, MIXER2, w, "Warming up Mamba2 SSD Triton kernels..."));
        } else {
            assert!(
                step(g, "Mamba2 SSD warm-up").contains("no _warmup_ssd_kernels (0.22.0+)"),
                "{r}"
            );
        }
        want.push(rec(LogLevel::Info, SSU, ssu, "Using triton Mamba SSU backend."));
        assert_eq!(records(g), want, "{r}");
        assert!(g.unmodelled.is_none() && g.error.is_none(), "{r}");
        let tuned = g.trace.iter().any(|s| s.rule == "selective_state_update launch config");
        assert_eq!(tuned, r >= V0_22_0, "{r}");
    }
}

/// Prefix caching with a speculative config on a model with SupportsMambaPrefixCaching (Nemotron-H): "align" by
/// default until 0.21.0 (models/config.py:352@0.21.0), "all" at 0.22.0-0.27.x.
#[test]
fn mamba_cache_mode_with_speculative_decoding() {
    for (r, mode) in [
        (V0_20_0, "\"align\""),
        (V0_21_0, "\"align\""),
        (V0_22_0, "\"all\""),
        (V0_23_0, "\"all\""),
    ] {
        let rep = run("h100-sxm", r, &format!("{NEMOTRON} --enable-prefix-caching {NGRAM}"));
        let g = recurrent(&rep);
        let outcome = step(g, "mamba cache mode");
        assert!(outcome.contains(&format!("prefix caching on: {mode}")), "{r}: {outcome}");
        assert_eq!(
            step_source(g, "mamba cache mode"),
            format!("vllm/model_executor/models/config.py:{}", if r < V0_22_0 { 352 } else { 351 })
        );
    }
    // Without a speculative config 0.21.0 takes "all" too.
    let rep = run("h100-sxm", V0_21_0, &format!("{NEMOTRON} --enable-prefix-caching"));
    assert!(step(recurrent(&rep), "mamba cache mode").contains("prefix caching on: \"all\""));
}

/// Llama 4 Scout at every old release: the chunked-local group beside the full group and the CUDA-graph mode, as at
/// 0.24.0 (llama4.py's `use_chunked_local_attn` and config/vllm.py's hybrid KV-cache manager rule read the same).
#[test]
fn llama4_scout_chunked_layers_per_codebase() {
    let reference = run("h100-sxm", V0_24_0, SCOUT);
    for r in [V0_20_0, V0_21_0, V0_22_0, V0_23_0, V0_24_0] {
        let rep = run("h100-sxm", r, SCOUT);
        assert_eq!(rep.groups.len(), reference.groups.len(), "{r}");
        for (a, b) in rep.groups.iter().zip(&reference.groups) {
            assert_eq!((a.attention, &a.layers), (b.attention, &b.layers), "{r}");
        }
        assert_eq!(
            rep.cuda_graphs.as_ref().unwrap().mode,
            reference.cuda_graphs.as_ref().unwrap().mode,
            "{r}"
        );
        assert!(rep.groups.iter().any(|g| g.attention == AttentionKind::ChunkedLocal), "{r}");
    }
}

/// 0.20.0-0.21.0 offer FlashInfer's GDN prefill on SM90 only: B200 with CUDA 13 runs FLA until 0.21.0 and FlashInfer
/// from 0.22.0 (gdn.py:188@0.22.0); `--gdn-prefill-backend flashinfer` on A100 warns with the old file's text
/// (gdn_linear_attn.py:135@0.20.0, :151@0.21.0) and runs FLA.
#[test]
fn old_gdn_prefill_choice() {
    for (r, kernel) in [
        (V0_20_0, Kernel::GdnChunkFla),
        (V0_21_0, Kernel::GdnChunkFla),
        (V0_22_0, Kernel::GdnChunkFlashInfer),
    ] {
        let rep = run_on("b200", r, Some((13, 0)), QWEN3_NEXT);
        assert_eq!(recurrent(&rep).kernel.prefill, Some(kernel), "{r}");
    }
    for (r, warn, log) in [(V0_20_0, 135, 153), (V0_21_0, 151, 169)] {
        let rep = run("a100-80gb", r, &format!("{QWEN3_NEXT} --gdn-prefill-backend flashinfer"));
        let g = recurrent(&rep);
        assert_eq!(g.kernel.prefill, Some(Kernel::GdnChunkFla), "{r}");
        let fallback = "GDN prefill backend 'flashinfer' is selected but cannot use this kernel on the current \
                        platform. Falling back to Triton/FLA.";
        assert_eq!(
            records(g),
            [
                rec(LogLevel::Warning, OLD_GDN, warn, fallback),
                rec(LogLevel::Info, OLD_GDN, log, "Using Triton/FLA GDN prefill kernel"),
            ],
            "{r}"
        );
        assert_eq!(g.warnings, [fallback]);
        // --gdn-prefill-backend triton on H100: FLA, no JIT line.
        let rep = run("h100-sxm", r, &format!("{QWEN3_NEXT} --gdn-prefill-backend triton"));
        let g = recurrent(&rep);
        assert_eq!(g.kernel.prefill, Some(Kernel::GdnChunkFla), "{r}");
        assert_eq!(g.logs, ["Using Triton/FLA GDN prefill kernel"]);
    }
}
