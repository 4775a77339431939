//! Golden cases for TRITON_ATTN and the composite backends TRITON_FLASH_ATTN / TRITON_FLASHINFER
//! (`qpath_core::backends::triton_attn`, `::composite`): selection, the layer's query dtype, the builder's 3D threshold,
//! the kernel of each batch with its condition, the errors, log lines and cited steps; each rule at the first release
//! that has it and at 0.33.0. Texts and lines are the released sources' (`/work/vllm-src/vllm-<VER>/vllm/...`);
//! `docs/source-notes/triton-attn.md` has the statements.

use qpath_core::attention::BARE_ASSERT;
use qpath_core::dtype::TorchDtype;
use qpath_core::model::resolve_model_at;
use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::release::Release;
use qpath_core::report::{
    Backend, CgSupport, GroupErrorKind, GroupReport, Kernel, KernelChoice, Report, ScenarioErrorKind, Stage, Verdict,
};
use qpath_core::resolve::resolve;
use qpath_core::source::{self, Cite};

const QWEN3_4B: &str = "vllm serve Qwen/Qwen3-4B";
const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const GPT_OSS: &str = "vllm serve openai/gpt-oss-20b";
const GEMMA3_4B: &str = "vllm serve google/gemma-3-4b-it";
const GEMMA3_27B: &str = "vllm serve google/gemma-3-27b-it";
const TRITON: &str = "vllm/v1/attention/backends/triton_attn.py";
const UNIFIED: &str = "vllm/v1/attention/ops/triton_unified_attention.py";
const COMPOSITE: &str = "vllm/v1/attention/backends/composite.py";

fn run(gpu: &str, vllm: &str, command: &str) -> Report {
    run_with(gpu, vllm, command, None)
}

fn run_with(gpu: &str, vllm: &str, command: &str, config: Option<String>) -> Report {
    let mut o = ScenarioOptions::default();
    o.set(OptionKey::Gpu, gpu).unwrap();
    o.set(OptionKey::Vllm, vllm).unwrap();
    let mut s = o.scenario(command).unwrap();
    s.model_config = config;
    resolve(&s)
}

fn release(vllm: &str) -> Release {
    Release::ALL.into_iter().find(|r| r.name() == vllm).unwrap()
}

/// The scenario's groups, all on `backend`, none failing.
fn groups(r: &Report, backend: Backend) -> &[GroupReport] {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    assert!(!r.groups.is_empty());
    for g in &r.groups {
        assert_eq!(g.backend, backend, "layers {:?}", g.layers);
    }
    &r.groups
}

/// The step whose rule is `rule`: its outcome and source.
fn step<'a>(g: &'a GroupReport, rule: &str) -> (&'a str, Option<&'a str>) {
    let s = g
        .trace
        .iter()
        .find(|s| s.rule == rule)
        .unwrap_or_else(|| panic!("no step {rule:?} in {:#?}", g.trace));
    // The source text is built on demand; a test may keep it for the whole run.
    (&*s.outcome, s.source().map(|x| &*x.leak()))
}

fn has_step(g: &GroupReport, rule: &str) -> bool {
    g.trace.iter().any(|s| s.rule == rule)
}

/// Where `cite` (a statement other modules' goldens pin, e.g. selection's in `vllm/platforms/cuda.py`) is in `vllm`.
fn cited(cite: &Cite, vllm: &str) -> String {
    cite.at(release(vllm)).unwrap().short()
}

fn at(file: &str, line: u32) -> Option<String> {
    Some(format!("{file}:{line}"))
}

/// The log records as (file:line, text).
fn logs(r: &Report) -> Vec<(String, String)> {
    r.log_records
        .iter()
        .map(|l| (format!("{}:{}", l.file, l.line), l.text.clone()))
        .collect()
}

fn when(k: Kernel, w: &str) -> KernelChoice {
    KernelChoice::when(k, w)
}

/// A decode batch's choices on TRITON_ATTN with `t` the threshold, `kv` KV heads, the 3D decode tile and 2D tile.
fn decode_choices(t: u32, kv: u32, tile_3d: u32, tile_2d: u32) -> Vec<KernelChoice> {
    vec![
        when(
            Kernel::TritonUnified3d,
            &format!(
                "a decode batch of at most {t} requests (seq_threshold_3D): the 3D split-KV grid (q blocks × {kv} KV \
                 heads × 16 segments), tile {tile_3d}, then reduce_segments"
            ),
        ),
        when(
            Kernel::TritonUnified2d,
            &format!("a decode batch of more than {t} requests: the 2D grid (q blocks × {kv} KV heads), tile {tile_2d}"),
        ),
    ]
}

// ---- Qwen3-4B on pre-Ampere GPUs: TRITON_ATTN, float16 (every release) ----

/// T4 (7.5) and V100 (7.0): FLASH_ATTN and FLASHINFER need SM80, so TRITON_ATTN; bf16 falls back to float16; the query
/// is float16 in both phases; 8 KV heads → seq_threshold_3D 128 // 8 = 16, a capture size of the default FULL decode
/// graphs: decode batches of ≤ 16 requests run the 3D grid, the rest 2D.
#[test]
fn qwen3_4b_on_t4_and_v100_runs_triton_3d_for_small_decode_batches() {
    for gpu in ["t4", "v100"] {
        for (vllm, threshold, snapped, qqi, use_3d) in [("0.24.0", 135, 145, 510, 969), ("0.33.0", 136, 146, 553, 1070)] {
            let r = run(gpu, vllm, QWEN3_4B);
            let ctx = format!("{gpu} {vllm}");
            assert_eq!(r.model.as_ref().unwrap().dtype, TorchDtype::Float16, "{ctx}");
            let g = &groups(&r, Backend::TritonAttn)[0];
            assert_eq!(g.error, None, "{ctx}");
            assert_eq!(g.unmodelled, None, "{ctx}");
            assert_eq!(
                (g.q_dtype.prefill, g.q_dtype.decode),
                (Some(TorchDtype::Float16), Some(TorchDtype::Float16))
            );
            assert_eq!(g.query_quant, None);
            assert_eq!(
                (g.kernel.prefill, g.kernel.decode),
                (Some(Kernel::TritonUnified2d), Some(Kernel::TritonUnified3d)),
                "{ctx}"
            );
            assert_eq!(g.kernels.decode, decode_choices(16, 8, 16, 32), "{ctx}");
            assert_eq!(g.cudagraph_support, Some(CgSupport::Always));
            assert_eq!(r.cuda_graphs.as_ref().unwrap().mode, "FULL_AND_PIECEWISE");
            assert_eq!(
                logs(&r),
                [(
                    cited(&source::CUDA_CHOSEN_LOG, vllm),
                    "Using TRITON_ATTN attention backend out of potential backends: ['TRITON_ATTN', 'FLEX_ATTENTION']."
                        .to_string()
                )],
                "{ctx}"
            );
            assert_eq!(
                step(g, "seq_threshold_3D"),
                (
                    "MIN_LAUNCH_GRID_SIZE_2D // num_heads_kv = 128 // 8 = 16",
                    at(TRITON, threshold).as_deref()
                )
            );
            let (snap, src) = step(g, "seq_threshold_3D snapped to a capture size");
            assert!(snap.starts_with("the capture size nearest 16 among the default cudagraph_capture_sizes"));
            assert_eq!(src, at(TRITON, snapped).as_deref());
            assert_eq!(
                step(g, "TritonAttentionImpl.supports_quant_query_input"),
                ("current_platform.is_cuda(): True", at(TRITON, qqi).as_deref())
            );
            assert_eq!(step(g, "2D or 3D").1, at(UNIFIED, use_3d).as_deref());
            let (q, _) = step(g, "query quantization by the attention layer");
            assert!(q.ends_with("the query stays float16"), "{q}");
            // Volta: vLLM has no check; whether Triton still compiles for sm_70 is outside the Python source.
            let volta = g.trace.iter().find(|s| s.rule == "Triton on this GPU");
            assert_eq!(volta.is_some(), gpu == "v100", "{ctx}");
            if let Some(s) = volta {
                assert!(s.outcome.contains("qpath cannot model this: whether the installed Triton"));
                assert_eq!(s.source(), None);
            }
            assert_eq!(r.verdict, Verdict::Serves);
        }
    }
}

/// Before 0.33.0 every batch with a prefill runs the 2D grid; 0.33.0 also runs the 3D grid for short queries (at most
/// MAX_3D_QUERY_LEN = 8 tokens) when requests × ⌈query / BLOCK_Q⌉ fit the threshold (BLOCK_Q = 16 // 4 query heads per
/// KV head = 4).
#[test]
fn short_prefills_run_3d_from_0_33_0() {
    let report = run("t4", "0.32.0", QWEN3_4B);
    let g = &groups(&report, Backend::TritonAttn)[0];
    assert_eq!(
        g.kernels.prefill,
        [when(
            Kernel::TritonUnified2d,
            "every batch with a prefill (a query longer than 1 token): the 2D grid (q blocks × 8 KV heads), tile 32"
        )]
    );
    assert!(!has_step(g, "split-KV scratch rows"));
    let report = run("t4", "0.33.0", QWEN3_4B);
    let g = &groups(&report, Backend::TritonAttn)[0];
    assert_eq!(
        g.kernels.prefill,
        [
            when(
                Kernel::TritonUnified2d,
                "a batch whose longest query is over 8 tokens (MAX_3D_QUERY_LEN), or with requests × ⌈longest query / \
                 4⌉ over 16, or more query tokens than the scratch's rows, or mm-prefix ranges / non-causal masking: \
                 the 2D grid (q blocks × 8 KV heads), tile 32"
            ),
            when(
                Kernel::TritonUnified3d,
                "a causal batch without mm-prefix ranges whose longest query is at most 8 tokens (short prompts, \
                 speculative-decoding verification), with requests × ⌈longest query / 4⌉ ≤ 16 and its query tokens \
                 within the scratch's rows: the 3D split-KV grid (q blocks × 8 KV heads × 16 segments), tile 16, then \
                 reduce_segments"
            ),
        ]
    );
    assert_eq!(step(g, "split-KV scratch rows").1, at(TRITON, 175).as_deref());
}

/// The threshold is snapped to the nearest capture size only when decode graphs are FULL: 6 KV heads → 128 // 6 = 21
/// → 24 with the default graphs, 21 under --enforce-eager.
#[test]
fn the_threshold_follows_the_decode_graph_mode() {
    let six = format!(r#"{QWEN3_4B} --hf-overrides '{{"num_attention_heads": 24, "num_key_value_heads": 6}}'"#);
    for vllm in ["0.24.0", "0.33.0"] {
        let report = run("t4", vllm, &six);
        let g = &groups(&report, Backend::TritonAttn)[0];
        assert_eq!(g.kernels.decode, decode_choices(24, 6, 16, 32), "{vllm}");
        let eager = run("t4", vllm, &format!("{six} --enforce-eager"));
        let g = &groups(&eager, Backend::TritonAttn)[0];
        assert_eq!(g.kernels.decode, decode_choices(21, 6, 16, 32), "{vllm}");
        assert!(!has_step(g, "seq_threshold_3D snapped to a capture size"));
        assert!(step(g, "TritonAttentionMetadataBuilder decode CUDA graphs")
            .0
            .ends_with("decode_cudagraph_enabled = False"));
    }
}

/// VLLM_BATCH_INVARIANT: every batch runs the 2D grid.
#[test]
fn batch_invariance_runs_only_the_2d_grid() {
    for (vllm, line) in [("0.24.0", 34), ("0.33.0", 34)] {
        let r = run(
            "h100-sxm",
            vllm,
            &format!("VLLM_BATCH_INVARIANT=1 {LLAMA} --attention-backend TRITON_ATTN"),
        );
        let g = &groups(&r, Backend::TritonAttn)[0];
        assert_eq!(
            g.kernels.decode,
            [when(
                Kernel::TritonUnified2d,
                "every decode batch (VLLM_BATCH_INVARIANT): the 2D grid (q blocks × 8 KV heads), tile 32"
            )]
        );
        assert_eq!(g.kernels.prefill.len(), 1, "{vllm}");
        assert_eq!(step(g, "VLLM_BATCH_INVARIANT").1, at(UNIFIED, line).as_deref());
    }
}

// ---- The layer's query: FP8 for an fp8 cache (supports_quant_query_input = is_cuda(), every release) ----

/// L4 (8.9), Llama-3.1-8B, `--kv-cache-dtype fp8` forced on TRITON_ATTN: the impl takes the FP8 cache, the layer
/// quantizes the query to float8_e4m3fn for prefill and decode alike (scale 1.0: no quantization_config), the FP8 dots
/// take a 32-token decode tile, and CacheConfig logs its info line before the selection line.
#[test]
fn llama_fp8_on_l4_quantizes_the_query_for_both_phases() {
    for (vllm, cache, descale) in [("0.24.0", 279, 279), ("0.33.0", 484, 299)] {
        let r = run(
            "l4",
            vllm,
            &format!("{LLAMA} --kv-cache-dtype fp8 --attention-backend TRITON_ATTN"),
        );
        let g = &groups(&r, Backend::TritonAttn)[0];
        assert_eq!(g.error, None);
        assert_eq!(g.cache_dtype, "fp8");
        let fp8 = Some(TorchDtype::Float8E4m3fn);
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (fp8, fp8), "{vllm}");
        let qq = g.query_quant.as_ref().unwrap();
        assert_eq!((qq.granularity.as_str(), qq.q_scale.as_str()), ("per_tensor", "1.0"));
        assert_eq!(g.kernels.decode, decode_choices(16, 8, 32, 32), "{vllm}");
        assert_eq!(
            logs(&r),
            [
                (
                    format!("vllm/config/cache.py:{cache}"),
                    "Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts the \
                     performance. Meanwhile, it may cause accuracy drop without a proper scaling factor"
                        .to_string()
                ),
                (
                    cited(&source::CUDA_FORCED_LOG, vllm),
                    "Using AttentionBackendEnum.TRITON_ATTN backend.".to_string()
                ),
            ],
            "{vllm}"
        );
        let (out, src) = step(g, "FP8 query and cache");
        assert!(out.starts_with("Q float8_e4m3fn and a per-tensor \"fp8\" cache"), "{out}");
        assert_eq!(src, at(UNIFIED, descale).as_deref());
        assert_eq!(
            step(g, "TritonAttentionImpl cache dtype").0,
            "kv_cache_dtype \"fp8\" on compute capability 8.9: SM89+, no raise"
        );
    }
}

/// fp8_e5m2 on SM89+: no impl-init raise, but the layer's forward asserts the cache is fp8 / fp8_e4m3 before it
/// quantizes the query: a bare AssertionError in the memory profile's forward, every release.
#[test]
fn fp8_e5m2_on_l4_fails_the_profile_runs_bare_assert() {
    for (vllm, line) in [("0.24.0", 482), ("0.33.0", 517)] {
        let r = run(
            "l4",
            vllm,
            &format!("{LLAMA} --kv-cache-dtype fp8_e5m2 --attention-backend TRITON_ATTN"),
        );
        let g = &r.groups[0];
        assert_eq!(g.backend, Backend::TritonAttn);
        let e = g.error.as_ref().expect("the profile run asserts");
        assert_eq!(
            (e.kind, e.message.as_str(), e.stage),
            (GroupErrorKind::AssertionError, "", Stage::ProfileRun)
        );
        assert_eq!(
            e.source,
            at("vllm/model_executor/layers/attention/attention.py", line),
            "{vllm}"
        );
        assert_eq!((g.q_dtype.prefill, g.kernel.decode), (None, None));
        let last = g.trace.last().unwrap();
        assert_eq!((&*last.rule, &*last.outcome), ("raises AssertionError", BARE_ASSERT));
        assert_eq!(r.verdict, Verdict::Fails);
    }
}

/// INT4 per-token-head (0.25.0+): every batch goes to `unified_attention_int4` (`_attn_packed`); the query keeps the
/// model dtype. 0.24.0's argparse does not know the dtype.
#[test]
fn int4_cache_runs_the_packed_kernel_from_0_25_0() {
    let cmd = format!("{LLAMA} --kv-cache-dtype int4_per_token_head --attention-backend TRITON_ATTN");
    for (vllm, line) in [("0.25.0", 858), ("0.33.0", 884)] {
        let r = run("l4", vllm, &cmd);
        let g = &groups(&r, Backend::TritonAttn)[0];
        let bf16 = Some(TorchDtype::BFloat16);
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (bf16, bf16));
        assert_eq!(
            (g.kernel.prefill, g.kernel.decode),
            (Some(Kernel::TritonInt4Packed), Some(Kernel::TritonInt4Packed))
        );
        assert_eq!(
            g.kernels.decode[0].when.as_deref(),
            Some("every decode batch: its 3D split-KV grid for at most 16 requests, else its 2D grid")
        );
        assert_eq!(step(g, "INT4 per-token-head cache").1, at(UNIFIED, line).as_deref(), "{vllm}");
    }
    let r = run("l4", "0.24.0", &cmd);
    assert_eq!(r.error.as_ref().unwrap().kind, ScenarioErrorKind::ArgumentError);
}

// ---- Selection: per-head quant scales (every release), DCP (0.30.0+; before it, the runner's assert) ----

/// A compressed-tensors checkpoint with `kv_cache_scheme.strategy: attn_head`: TRITON_ATTN does not override
/// `supports_per_head_quant_scales`.
#[test]
fn per_head_quant_scales_refuse_triton() {
    let base = include_str!("fixtures/llama-3.1-8b-instruct.config.json").trim_end();
    let scheme = r#""quantization_config": {"quant_method": "compressed-tensors", "format": "float-quantized",
        "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "attn_head", "dynamic": false,
        "symmetric": true}, "config_groups": {}, "ignore": ["lm_head"]}"#;
    let config = format!("{},\n{scheme}\n}}", base.strip_suffix('}').unwrap().trim_end());
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run_with(
            "h100-sxm",
            vllm,
            "vllm serve m --attention-backend TRITON_ATTN",
            Some(config.clone()),
        );
        let e = r.error.as_ref().expect("selection refuses");
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(
            e.message,
            "Selected backend AttentionBackendEnum.TRITON_ATTN is not valid for this configuration. Reason: \
             ['per-head quant scales not supported']"
        );
        assert_eq!(e.source, Some(cited(&source::CUDA_FORCED_INVALID, vllm)), "{vllm}");
    }
}

/// Decode context parallelism: 0.24.0 – 0.29.0 select TRITON_ATTN and the runner's check_attention_cp_compatibility
/// asserts at engine start (TritonAttentionImpl cannot return the LSE); from 0.30.0 the selector refuses it.
#[test]
fn dcp_asserts_before_0_30_0_and_is_refused_from_it() {
    let cmd = format!("{LLAMA} -tp 2 -dcp 2 --attention-backend TRITON_ATTN");
    for (vllm, line) in [("0.24.0", 31), ("0.29.0", 46)] {
        let r = run("h100-sxm", vllm, &cmd);
        let g = &r.groups[0];
        let e = g.error.as_ref().expect("the runner asserts");
        assert_eq!((e.kind, e.stage), (GroupErrorKind::AssertionError, Stage::Init));
        assert_eq!(
            e.message,
            "Decode Context Parallelism (DCP) requires attention implementations to return the softmax LSE during \
             decode, but TritonAttentionImpl does not. Try a different backend by setting --attention-backend or \
             disable DCP."
        );
        assert_eq!(e.source, at("vllm/v1/worker/cp_utils.py", line), "{vllm}");
        assert_eq!(g.kernel.prefill, None);
    }
    for vllm in ["0.30.0", "0.33.0"] {
        let e = run("h100-sxm", vllm, &cmd).error.expect("selection refuses");
        assert_eq!(
            e.message,
            "Selected backend AttentionBackendEnum.TRITON_ATTN is not valid for this configuration. Reason: \
             ['DCP not supported']"
        );
        assert_eq!(e.source, Some(cited(&source::CUDA_FORCED_INVALID, vllm)), "{vllm}");
    }
}

// ---- gpt-oss-20b on the RTX PRO 6000 (SM 12.0): TRITON_ATTN is the sink fallback while FlashInfer refuses sinks ----

#[test]
fn gpt_oss_on_rtx_pro_6000_falls_back_to_triton_while_flashinfer_refuses_sinks() {
    for (vllm, window_line) in [("0.24.0", 465), ("0.27.0", 515)] {
        let r = run("rtx-pro-6000-blackwell", vllm, GPT_OSS);
        let gs = groups(&r, Backend::TritonAttn);
        assert_eq!(gs.len(), 2);
        assert_eq!(
            logs(&r),
            [(
                cited(&source::CUDA_CHOSEN_LOG, vllm),
                "Using TRITON_ATTN attention backend out of potential backends: ['TRITON_ATTN'].".to_string()
            )],
            "{vllm}"
        );
        for g in gs {
            let rejected = step(g, "backend FLASHINFER (priority order)").0;
            assert!(rejected.contains("attention sinks not supported"), "{rejected}");
            let bf16 = Some(TorchDtype::BFloat16);
            assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (bf16, bf16));
            assert_eq!(g.kernels.decode, decode_choices(16, 8, 16, 32), "{vllm}");
            let (window, src) = step(g, "TritonAttentionImpl window");
            let tuple = if g.sliding_window == Some(128) {
                "(127, 0)"
            } else {
                "(-1, -1)"
            };
            assert_eq!(
                window,
                format!("sliding_window {tuple} (left, right); sinks of 64 heads passed to the kernel (USE_SINKS)")
            );
            assert_eq!(src, at(TRITON, window_line).as_deref());
            assert!(!has_step(g, "SM 12.0 split-KV segments"));
        }
    }
    for vllm in ["0.28.0", "0.33.0"] {
        groups(&run("rtx-pro-6000-blackwell", vllm, GPT_OSS), Backend::FlashInfer);
    }
}

/// 0.32.0+: on exactly SM 12.0 the builder may give the split-KV scratch 64 segments, by the GPU's SM count (which
/// qpath's table does not hold): the 3D choice says so. 0.31.0 has 16 segments.
#[test]
fn sm120_split_kv_takes_64_segments_by_the_sm_count_from_0_32_0() {
    let cmd = format!("{GPT_OSS} --attention-backend TRITON_ATTN");
    let report = run("rtx-pro-6000-blackwell", "0.31.0", &cmd);
    let g = &groups(&report, Backend::TritonAttn)[0];
    assert!(!has_step(g, "SM 12.0 split-KV segments"));
    for (vllm, line) in [("0.32.0", 152), ("0.33.0", 160)] {
        let report = run("rtx-pro-6000-blackwell", vllm, &cmd);
        let g = &groups(&report, Backend::TritonAttn)[0];
        let (out, src) = step(g, "SM 12.0 split-KV segments");
        assert!(
            out.starts_with("max_seqs_64_segments = (num_compute_units() - 1) // (16 × 8)"),
            "{out}"
        );
        assert!(out.ends_with("qpath cannot model this: the GPU's SM count"));
        assert_eq!(src, at(TRITON, line).as_deref());
        assert_eq!(
            g.kernels.decode[0],
            when(
                Kernel::TritonUnified3d,
                "a decode batch of at most 16 requests (seq_threshold_3D): the 3D split-KV grid (q blocks × 8 KV heads \
                 × 64 segments while the batch has at most max_seqs_64_segments requests and fits the 64-segment rows, \
                 else 16 (qpath cannot model this: the SM count it reads)), tile 16, then reduce_segments"
            )
        );
    }
}

// ---- mm-prefix layers and the composites (0.30.0+) ----

/// The language model of gemma-3 multimodal is built on its text config (`gemma3_text`, not a prefix-LM type) until
/// 0.33.0 sets `text_config.is_mm_prefix_lm = True`; the runner's flag (top-level `gemma3`) is True in every release.
#[test]
fn gemma3_layers_select_with_use_mm_prefix_from_0_33_0() {
    for (vllm, layers) in [("0.24.0", false), ("0.32.0", false), ("0.33.0", true)] {
        let r = release(vllm);
        let spec = resolve_model_at(r, "google/gemma-3-4b-it", None).unwrap();
        assert!(spec.is_mm_prefix_lm(r));
        assert_eq!(spec.layers_use_mm_prefix(r), layers, "{vllm}");
        let text = resolve_model_at(r, "Qwen/Qwen3-4B", None).unwrap();
        assert!(!text.is_mm_prefix_lm(r) && !text.layers_use_mm_prefix(r));
    }
    // FLASHINFER never supports mm-prefix layers: forced on gemma-3 it runs in 0.32.0 and is refused in 0.33.0.
    let forced = format!("{GEMMA3_4B} --attention-backend FLASHINFER");
    groups(&run("h100-sxm", "0.32.0", &forced), Backend::FlashInfer);
    let e = run("h100-sxm", "0.33.0", &forced).error.expect("selection refuses");
    assert_eq!(
        e.message,
        "Selected backend AttentionBackendEnum.FLASHINFER is not valid for this configuration. Reason: ['partial \
         multimodal token full attention not supported']"
    );
    // 0.32.0 on H100: no composite is tried (the layers ask without mm-prefix).
    let r = run("h100-sxm", "0.32.0", GEMMA3_4B);
    assert!(r
        .groups
        .iter()
        .all(|g| g.backend != Backend::TritonFlashAttn && !has_step(g, "backend TRITON_FLASH_ATTN (priority order)")));
    assert!(!r.logs.iter().any(|l| l.contains("TRITON_FLASH_ATTN")));
}

/// gemma-3-4b on H100, 0.33.0: head 256 mm-prefix layers try TRITON_FLASH_ATTN first and take it (FA3 resolves for
/// the causal route); the sliding layers' unclamped windows make the routing refuse CUDA graphs: FULL_AND_PIECEWISE
/// becomes PIECEWISE with vLLM's warning naming the composite class.
#[test]
fn gemma3_4b_on_h100_takes_triton_flash_attn_from_0_33_0() {
    let r = run("h100-sxm", "0.33.0", GEMMA3_4B);
    let gs = groups(&r, Backend::TritonFlashAttn);
    assert_eq!(gs.len(), 2);
    assert!(r.logs[0].starts_with("Using TRITON_FLASH_ATTN attention backend out of potential backends: ['TRITON_FLASH_ATTN', "));
    let cg = r.cuda_graphs.as_ref().unwrap();
    assert_eq!((cg.mode.as_str(), cg.support), ("PIECEWISE", Some(CgSupport::Never)));
    assert_eq!(cg.min_backend.as_deref(), Some("TritonFlashAttentionBackend"));
    assert_eq!(
        logs(&r).last().unwrap(),
        &(
            cited(&source::CG_DECODE_FULL_NEVER_WARNING, "0.33.0"),
            "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with TritonFlashAttentionBackend backend (support: \
             AttentionCGSupport.NEVER); setting cudagraph_mode=PIECEWISE because attention is compiled piecewise"
                .to_string()
        )
    );
    let step0 = &cg.trace[0];
    assert_eq!(step0.source(), at(COMPOSITE, 301));
    assert!(step0
        .outcome
        .contains("routing AttentionCGSupport.NEVER (a layer of the model has a sliding window"));
    for g in gs {
        assert_eq!(g.cudagraph_support, Some(CgSupport::Never));
        assert_eq!(
            step(g, "TRITON_FLASH_ATTN (composite)").1,
            at("vllm/v1/attention/backends/triton_flash_attn.py", 66).as_deref()
        );
        assert_eq!(
            step(g, "causal route's FlashAttention"),
            (
                "get_flash_attn_version(head_size=256, has_sinks=False, kv_cache_block_size=None, supports_fa4_hd256=True) = 3",
                at("vllm/v1/attention/backends/triton_flash_attn.py", 62).as_deref()
            )
        );
        assert_eq!(
            step(g, "use_mm_prefix").0,
            "True: the layer's model_config.is_mm_prefix_lm; only TRITON_ATTN must support it"
        );
        assert_eq!(step(g, "MMPrefixAttentionRouting.select").1, at(COMPOSITE, 23).as_deref());
        // The general route's builder: 4 KV heads → 32; decode graphs are off after the downgrade, so not snapped.
        assert_eq!(
            step(g, "seq_threshold_3D").0,
            "MIN_LAUNCH_GRID_SIZE_2D // num_heads_kv = 128 // 4 = 32"
        );
        assert!(!has_step(g, "seq_threshold_3D snapped to a capture size"));
        // The causal route is FLASH_ATTN's (backends/flash_attn.rs); the image prefills' TRITON_ATTN route follows it.
        match g.kernels.prefill.last() {
            Some(image) => assert_eq!(
                image,
                &when(
                    Kernel::TritonUnified2d,
                    "a batch with a multi-token query that overlaps an image span (start < seq_len - 1 and stop > the \
                     query's first position): routed to TRITON_ATTN, the 2D grid (q blocks × 4 KV heads), tile 32"
                )
            ),
            None => assert_eq!(
                g.unmodelled.as_deref(),
                Some("qpath cannot model this: what FLASH_ATTN runs as TRITON_FLASH_ATTN's causal route")
            ),
        }
    }
}

/// TRITON_FLASH_ATTN's causal route must resolve FlashAttention 4 in 0.30.0 (SM90's FA3 for head 256 is refused; a
/// head of 512 upgrades FA3 to FA4) and 3 or 4 from 0.31.0; forced on gemma-3-4b (whose layers ask without mm-prefix
/// there).
#[test]
fn triton_flash_attn_needs_fa4_in_0_30_0_and_fa3_or_fa4_from_0_31_0() {
    let forced = format!("{GEMMA3_4B} --attention-backend TRITON_FLASH_ATTN");
    let e = run("h100-sxm", "0.30.0", &forced).error.expect("selection refuses");
    assert_eq!(
        e.message,
        "Selected backend AttentionBackendEnum.TRITON_FLASH_ATTN is not valid for this configuration. Reason: \
         ['FLASH_ATTN: causal route requires FlashAttention v4']"
    );
    let head512 = format!(r#"{forced} --hf-overrides '{{"text_config": {{"head_dim": 512}}}}'"#);
    let r = run("h100-sxm", "0.30.0", &head512);
    for g in groups(&r, Backend::TritonFlashAttn) {
        assert!(step(g, "causal route's FlashAttention").0.ends_with("= 4"));
        assert_eq!(
            step(g, "TRITON_FLASH_ATTN (composite)").1,
            at("vllm/v1/attention/backends/triton_flash_attn.py", 58).as_deref()
        );
    }
    groups(&run("h100-sxm", "0.31.0", &forced), Backend::TritonFlashAttn);
    // Only on 9.x.
    let e = run("b200", "0.33.0", &forced).error.expect("selection refuses");
    assert!(
        e.message.contains("Reason: ['compute capability not supported', "),
        "{}",
        e.message
    );
}

/// gemma-3-4b on B200, 0.33.0: TRITON_FLASHINFER first in the 10.x list. Text batches run on FLASHINFER as it runs
/// alone (trtllm-gen both phases, over 64-token pages); image prefills on TRITON_ATTN's 2D grid; with the unclamped
/// sliding windows a decode right after an image can be routed to TRITON_ATTN too. CUDA graphs: NEVER → PIECEWISE.
#[test]
fn gemma3_4b_on_b200_takes_triton_flashinfer_from_0_33_0() {
    let r = run("b200", "0.33.0", GEMMA3_4B);
    let gs = groups(&r, Backend::TritonFlashInfer);
    assert!(r.logs[0].starts_with("Using TRITON_FLASHINFER attention backend out of potential backends: ['TRITON_FLASHINFER', "));
    assert!(!r.logs[0].contains("'FLASHINFER'"), "{}", r.logs[0]);
    let cg = r.cuda_graphs.as_ref().unwrap();
    assert_eq!(
        (cg.mode.as_str(), cg.min_backend.as_deref()),
        ("PIECEWISE", Some("TritonFlashInferBackend"))
    );
    for g in gs {
        let bf16 = Some(TorchDtype::BFloat16);
        assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (bf16, bf16));
        assert_eq!(
            (g.kernel.prefill, g.kernel.decode),
            (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen))
        );
        let routed = "routed to FLASHINFER (no query overlaps an image span)";
        let tile_3d = if g.sliding_window.is_some() { 32 } else { 16 };
        let unclamped = "a decode batch with a request whose image span ends where its new token starts (an unclamped \
                         sliding window): routed to TRITON_ATTN, ";
        assert_eq!(
            g.kernels.prefill,
            [
                when(Kernel::TrtllmGen, routed),
                when(
                    Kernel::TritonUnified2d,
                    // tuned_large_head: head 256 on the SM100 family takes a 128-token prefill tile.
                    "a batch with a multi-token query that overlaps an image span (start < seq_len - 1 and stop > the \
                     query's first position): routed to TRITON_ATTN, the 2D grid (q blocks × 4 KV heads), tile 128"
                ),
            ]
        );
        assert_eq!(
            g.kernels.decode,
            [
                when(Kernel::TrtllmGen, routed),
                when(
                    Kernel::TritonUnified3d,
                    &format!(
                        "{unclamped}a decode batch of at most 32 requests (seq_threshold_3D): the 3D split-KV grid (q \
                         blocks × 4 KV heads × 16 segments), tile {tile_3d}, then reduce_segments"
                    )
                ),
                when(
                    Kernel::TritonUnified2d,
                    &format!("{unclamped}a decode batch of more than 32 requests: the 2D grid (q blocks × 4 KV heads), tile 32")
                ),
            ]
        );
        assert_eq!(step(g, "kernel block size").1, at(COMPOSITE, 378).as_deref());
        assert_eq!(step(g, "CUDA-graph capture").1, at(COMPOSITE, 331).as_deref());
        assert_eq!(g.cudagraph_support, Some(CgSupport::Never));
        assert_eq!(g.error, None);
    }
}

/// TRITON_FLASHINFER from its first release (0.30.0), forced (gemma-3's layers ask without mm-prefix there): it runs;
/// its kernel block is 64, so a --block-size that is not a multiple of 64 is refused.
#[test]
fn triton_flashinfer_from_0_30_0_takes_only_multiples_of_64() {
    let forced = format!("{GEMMA3_4B} --attention-backend TRITON_FLASHINFER");
    for (vllm, block_line) in [("0.30.0", 381), ("0.33.0", 378)] {
        let r = run("b200", vllm, &forced);
        for g in groups(&r, Backend::TritonFlashInfer) {
            assert_eq!(g.kernel.prefill, Some(Kernel::TrtllmGen), "{vllm}");
            assert_eq!(g.kernels.prefill.last().unwrap().kernel, Kernel::TritonUnified2d);
            assert_eq!(step(g, "kernel block size").1, at(COMPOSITE, block_line).as_deref());
        }
        let e = run("b200", vllm, &format!("{forced} --block-size 32"))
            .error
            .expect("selection refuses");
        assert!(e.message.ends_with("Reason: ['block_size not supported']"), "{}", e.message);
        groups(
            &run("b200", vllm, &format!("{forced} --block-size 128")),
            Backend::TritonFlashInfer,
        );
        // Sinks: the composite class does not override supports_sink.
        let e = run("b200", vllm, &format!("{GPT_OSS} --attention-backend TRITON_FLASHINFER"))
            .error
            .unwrap();
        assert!(e.message.contains("'attention sinks not supported'"), "{}", e.message);
    }
}

/// gemma-3-27b (head 128) on H100, 0.33.0: the composite refuses the head size and FLASHINFER the mm-prefix layer.
/// (Which backend then wins depends on FLASH_ATTN's mm-prefix reasons, backends/flash_attn.rs: the notes expect
/// TRITON_ATTN; forced here.) On TRITON_ATTN the layers keep their image ranges, and the sliding layers (window 1024,
/// head 128: the "gemma3 signature") take 32-token tiles; 16 KV heads → threshold 8.
#[test]
fn gemma3_27b_on_h100_refuses_the_composite_and_runs_mm_prefix_on_triton() {
    let r = run("h100-sxm", "0.33.0", GEMMA3_27B);
    for g in &r.groups {
        assert_eq!(
            step(g, "backend TRITON_FLASH_ATTN (priority order)").0,
            "rejected: head_size not supported"
        );
    }
    assert!(!r.logs[0].contains("'FLASHINFER'"), "{}", r.logs[0]);
    let r = run("h100-sxm", "0.33.0", &format!("{GEMMA3_27B} --attention-backend TRITON_ATTN"));
    for g in groups(&r, Backend::TritonAttn) {
        assert!(step(g, "mm-prefix layer").0.starts_with("use_mm_prefix=True"));
        let tile_3d = if g.sliding_window == Some(1024) { 32 } else { 16 };
        assert_eq!(g.kernels.decode, decode_choices(8, 16, tile_3d, 32));
        assert_eq!(g.cudagraph_support, Some(CgSupport::Always));
    }
    // 0.32.0: the layers ask without mm-prefix, so no composite is tried.
    let r = run("h100-sxm", "0.32.0", GEMMA3_27B);
    assert!(!has_step(&r.groups[0], "backend TRITON_FLASH_ATTN (priority order)"));
}

/// google/gemma-4-26B-A4B-it's text config as `tests/golden_config.rs` restates it, with the prefix-LM switch
/// `use_bidirectional_attention: "vision"` that gemma-4's own convertor reads (every release).
const GEMMA4_VISION: &str = r#"{
  "architectures": ["Gemma4ForConditionalGeneration"],
  "model_type": "gemma4",
  "text_config": {
    "model_type": "gemma4_text",
    "use_bidirectional_attention": "vision",
    "hidden_size": 2816,
    "num_hidden_layers": 30,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "num_global_key_value_heads": 2,
    "head_dim": 256,
    "global_head_dim": 512,
    "sliding_window": 1024,
    "attention_k_eq_v": true
  }
}"#;

/// gemma-4 with vision bidirectional attention: its layers ask with use_mm_prefix, so a forced FLASHINFER is refused;
/// forced TRITON_FLASHINFER (0.30.0+) runs, and since gemma-4 clamps its sliding windows for images
/// (`mm_prefix_clamp_sliding_window`) the routing allows single-token decode graphs: no downgrade.
#[test]
fn gemma4_vision_layers_are_mm_prefix_and_clamp_their_windows() {
    let run4 = |vllm: &str, backend: &str| {
        let cmd = format!("vllm serve g --dtype bfloat16 --attention-backend {backend}");
        run_with("b200", vllm, &cmd, Some(GEMMA4_VISION.to_string()))
    };
    for vllm in ["0.28.0", "0.33.0"] {
        let e = run4(vllm, "FLASHINFER").error.expect("selection refuses");
        assert!(
            e.message
                .ends_with("Reason: ['partial multimodal token full attention not supported']"),
            "{vllm}"
        );
        let r = run4(vllm, "TRITON_ATTN");
        for g in groups(&r, Backend::TritonAttn) {
            assert!(step(g, "mm-prefix layer").0.starts_with("use_mm_prefix=True"));
        }
    }
    for vllm in ["0.30.0", "0.33.0"] {
        let r = run4(vllm, "TRITON_FLASHINFER");
        let gs = groups(&r, Backend::TritonFlashInfer);
        assert_eq!(gs.iter().map(|g| g.head_dim).collect::<Vec<_>>(), [256, 512]);
        let cg = r.cuda_graphs.as_ref().unwrap();
        assert_eq!(
            (cg.mode.as_str(), cg.support),
            ("FULL_AND_PIECEWISE", Some(CgSupport::UniformSingleTokenDecode)),
            "{vllm}"
        );
        assert!(cg.trace[0]
            .outcome
            .contains("routing AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE (no unclamped"));
        for g in gs {
            // No unclamped window: decodes never need the image mask, so only image prefills go to TRITON_ATTN.
            assert_eq!(g.kernels.decode.len(), 1, "{vllm}");
            assert_eq!(g.kernels.prefill.last().unwrap().kernel, Kernel::TritonUnified2d);
        }
    }
}
