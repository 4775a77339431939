//! Golden tests of what a selected MLA group runs (`backends::mla::path`, `prefill`, `indexer`), from the released
//! sources (`docs/source-notes/mla-path.md`, `mla-selection.md` §6), at each rule's first release and at 0.33.0. Until
//! the MLA models and their selection land, each group is built by hand — its layers' `LayerQuery` with MLA dims, as
//! selection hands it over (the cache dtype already rewritten) — and resolved through `backends::rules(b)`.

mod common;

use common::mla::{GLM, V2_LITE, V3, V32};
use qpath_core::attention::{Backend, CgSupport, GroupErrorKind, Kernel, Phases, Stage};
use qpath_core::backends::{rules, Engine, GroupContext, LayerQuery};
use qpath_core::capability::{ComputeCapability, CudaVersion};
use qpath_core::dtype::TorchDtype;
use qpath_core::model::{AttentionKind, CheckpointKv, KvScheme, MlaDims};
use qpath_core::platform::Platform;
use qpath_core::release::Release::{self, *};
use qpath_core::report::{GroupReport, LogLevel};
use qpath_core::serve::{AttentionConfig, CudaGraphs};

/// A scenario: GPU, release, the group's backend, heads per rank, cache dtype (as selection hands it over).
struct Case {
    release: Release,
    cc: (u8, u8),
    device: &'static str,
    backend: Backend,
    heads: u32,
    kv: &'static str,
    dims: MlaDims,
    dcp: u32,
    graphs: &'static str,
    attention_config: AttentionConfig,
    checkpoint: Option<CheckpointKv>,
}

fn case(release: Release, gpu: &str, backend: Backend, heads: u32, kv: &'static str, dims: MlaDims) -> Case {
    let (cc, device) = match gpu {
        "h200" => ((9, 0), "NVIDIA H200"),
        "b200" => ((10, 0), "NVIDIA B200"),
        "rtx-pro-6000" => ((12, 0), "NVIDIA RTX PRO 6000 Blackwell Server Edition"),
        "l4" => ((8, 9), "NVIDIA L4"),
        "a100" => ((8, 0), "NVIDIA A100-SXM4-80GB"),
        other => panic!("no GPU {other} in these tests"),
    };
    Case {
        release,
        cc,
        device,
        backend,
        heads,
        kv,
        dims,
        dcp: 1,
        graphs: "FULL_AND_PIECEWISE",
        attention_config: AttentionConfig::default(),
        checkpoint: None,
    }
}

impl Case {
    fn config(mut self, key: &str, json: &str) -> Case {
        self.attention_config.other.push((key.to_string(), json.to_string()));
        self
    }

    fn platform(&self) -> Platform {
        Platform {
            release: self.release,
            flashinfer: self.release.flashinfer_pin(),
            cc: ComputeCapability {
                major: self.cc.0,
                minor: self.cc.1,
            },
            cuda: CudaVersion { major: 12, minor: 9 },
            cubins: true,
            batch_invariant: false,
            model_dtype: TorchDtype::BFloat16,
            force_trtllm: None,
            disable_q_quant: false,
            flash_attn_version: None,
            dcp: self.dcp,
            page_size: 64,
            global_kv: self.kv.to_string(),
            graphs: CudaGraphs {
                mode: self.graphs.to_string(),
                set_by: "the test".into(),
            },
            resolved_graphs: None,
            model_mla: None,
            attention_chunk_size: None,
        }
    }

    fn run(&self) -> GroupReport {
        let p = self.platform();
        let engine = Engine {
            attention_config: &self.attention_config,
            device: self.device,
            hybrid: false,
            checkpoint: self.checkpoint.as_ref(),
            fa_window_configs: 1,
            drafter: false,
            unclamped_window: false,
        };
        let query = LayerQuery {
            head_size: self.dims.head_size(),
            kv_cache_dtype: self.kv.to_string(),
            has_sinks: false,
            sliding_window: false,
            q_heads: self.heads,
            kv_heads: 1,
            block_size: None,
            use_mm_prefix: false,
            use_per_head_quant_scales: false,
            use_non_causal: false,
            use_dcp: self.dcp > 1,
            mla: Some(self.dims),
        };
        let quantized = !matches!(self.kv, "auto" | "float16" | "bfloat16");
        let mut g = GroupReport {
            head_dim: self.dims.head_size(),
            num_q_heads: self.heads,
            num_kv_heads: 1,
            mla: Some(self.dims),
            ..GroupReport::unresolved(
                vec![0, 1, 2],
                AttentionKind::Full,
                self.backend,
                if quantized { self.kv.into() } else { "auto".into() },
                vec![],
            )
        };
        let cx = GroupContext {
            engine: &engine,
            query: Some(&query),
            recurrent: None,
        };
        let r = rules(self.backend);
        r.resolve_group(&p, &cx, &mut g);
        g.cudagraph_support = Some(r.cudagraph_support(&p, &g, self.heads, false).support);
        g
    }
}

/// The group's trace cites `file:line` (the file's path from `vllm/`).
fn cites(g: &GroupReport, at: &str) -> bool {
    g.trace
        .iter()
        .any(|s| s.source().as_deref() == Some(&format!("vllm/{at}")[..]))
}

fn record(g: &GroupReport, level: LogLevel, at: &str, text: &str) -> bool {
    g.log_records
        .iter()
        .any(|l| l.level == level && l.location() == at && l.text == text)
}

fn choices(g: &GroupReport, prefill: bool) -> Vec<Kernel> {
    let c = if prefill { &g.kernels.prefill } else { &g.kernels.decode };
    c.iter().map(|c| c.kernel).collect()
}

const BF16: Option<TorchDtype> = Some(TorchDtype::BFloat16);
const FP8: Option<TorchDtype> = Some(TorchDtype::Float8E4m3fn);

/// DeepSeek-V3 at TP 8 on H200 with a 16-bit cache: FLASH_ATTN_MLA's FA3 `q_v` decode; the MLA prefill backend is
/// FLASH_ATTN on FA3 without V padding; a 512-token prompt is within the builder's 512-token threshold, so it too runs
/// the decode kernel; prompts beyond it run `flash_attn_varlen_func` on FA3.
#[test]
fn deepseek_v3_h200_auto_runs_flash_attn_mla() {
    for (r, selector_log, call, reorder) in [
        (
            V0_24_0,
            "selector.py:166",
            "v1/attention/backends/mla/flashattn_mla.py:346",
            "v1/attention/backends/mla/flashattn_mla.py:118",
        ),
        (
            V0_33_0,
            "selector.py:131",
            "v1/attention/backends/mla/flashattn_mla.py:382",
            "v1/attention/backends/mla/flashattn_mla.py:129",
        ),
    ] {
        let g = case(r, "h200", Backend::FlashAttnMla, 16, "auto", V3).run();
        assert_eq!(
            g.q_dtype,
            Phases {
                prefill: BF16,
                decode: BF16
            },
            "{r}"
        );
        assert_eq!(g.kernel.decode, Some(Kernel::Fa3MlaQv));
        assert_eq!(g.kernel.prefill, Some(Kernel::Fa3MlaQv));
        assert_eq!(choices(&g, true), [Kernel::Fa3MlaQv, Kernel::FaVarlen3]);
        assert_eq!(
            g.kernels.prefill[1].when.as_deref(),
            Some("prefills of more than 512 query tokens")
        );
        assert_eq!(g.query_quant, None);
        assert_eq!((g.error.is_none(), g.unmodelled.is_none()), (true, true));
        assert!(
            record(&g, LogLevel::Info, selector_log, "Using FLASH_ATTN MLA prefill backend."),
            "{r}"
        );
        assert!(cites(&g, call) && cites(&g, reorder), "{r}");
        assert_eq!(g.cudagraph_support, Some(CgSupport::UniformBatch));
    }
}

/// DeepSeek-V3 on H200 with an fp8 cache: FLASHMLA. The layer quantizes the absorbed decode query to FP8
/// (`_decode_concat_quant_fp8_op`, q_scale 1.0 without a quantization_config) for `flash_mla_with_kvcache_fp8`;
/// prompts over 128 tokens run FLASH_ATTN's FA3 prefill in bf16.
#[test]
fn deepseek_v3_h200_fp8_runs_flashmla_with_an_fp8_query() {
    for (r, call) in [
        (V0_24_0, "v1/attention/backends/mla/flashmla.py:315"),
        (V0_33_0, "v1/attention/backends/mla/flashmla.py:311"),
    ] {
        let g = case(r, "h200", Backend::FlashMla, 16, "fp8", V3).run();
        assert_eq!(
            g.q_dtype,
            Phases {
                prefill: BF16,
                decode: FP8
            },
            "{r}"
        );
        assert_eq!(
            g.kernel,
            Phases {
                prefill: Some(Kernel::FaVarlen3),
                decode: Some(Kernel::FlashMlaDecodeFp8)
            }
        );
        assert_eq!(choices(&g, true), [Kernel::FaVarlen3, Kernel::FlashMlaDecodeFp8]);
        let q = g.query_quant.as_ref().expect("an FP8 decode query");
        assert_eq!((q.granularity.as_str(), q.q_scale.as_str()), ("per_tensor", "1.0"));
        assert!(cites(&g, call), "{r}");
        assert_eq!(g.cache_dtype, "fp8");
        assert_eq!(g.error, None);
    }
    // Only a ModelOpt checkpoint gives an MLA layer a KV-cache method; DeepSeek's own fp8 checkpoint does not.
    let mut c = case(V0_33_0, "h200", Backend::FlashMla, 16, "fp8", V3);
    c.checkpoint = Some(CheckpointKv {
        method: "fp8".into(),
        cache_dtype: None,
        scheme: KvScheme::None,
        warning: None,
    });
    let g = c.run();
    assert_eq!(g.query_quant.as_ref().map(|q| q.q_scale.as_str()), Some("1.0"));
    assert!(cites(&g, "model_executor/layers/quantization/fp8.py:206"));
}

/// DeepSeek-V3 on B200: FLASHINFER_MLA's trtllm-gen decode (FP8 query with an fp8 cache), FLASH_ATTN's FA4 prefill in
/// bf16 (FP8 prefill needs a FlashInfer / TRT-LLM / TokenSpeed prefill backend, so neither it nor its hint happens);
/// UNIFORM_BATCH until 0.31.0, then ALWAYS.
#[test]
fn deepseek_v3_b200_runs_flashinfer_mla() {
    for (r, cg) in [
        (V0_24_0, CgSupport::UniformBatch),
        (V0_30_0, CgSupport::UniformBatch),
        (V0_31_0, CgSupport::Always),
        (V0_33_0, CgSupport::Always),
    ] {
        for (kv, q) in [("auto", BF16), ("fp8", FP8)] {
            let g = case(r, "b200", Backend::FlashInferMla, 16, kv, V3).run();
            assert_eq!(
                g.q_dtype,
                Phases {
                    prefill: BF16,
                    decode: q
                },
                "{r} {kv}"
            );
            assert_eq!(
                g.kernel,
                Phases {
                    prefill: Some(Kernel::FaVarlen4),
                    decode: Some(Kernel::TrtllmGenMla)
                },
                "{r} {kv}"
            );
            assert_eq!(g.cudagraph_support, Some(cg), "{r}");
            assert!(g.warnings.is_empty(), "{r} {kv}: {:?}", g.warnings);
            let version = match r {
                V0_24_0 => "v1/attention/backends/mla/prefill/flash_attn.py:70",
                _ => "v1/attention/backends/mla/prefill/flash_attn.py:367",
            };
            assert!(cites(&g, version), "{r}");
            assert!(!g.logs.iter().any(|l| l.starts_with("FP8 KV cache is enabled")), "{r} {kv}");
        }
    }
}

/// FLASHINFER_MLA with a head count trtllm-gen cannot tile (96 per rank): 0.27.0 falls back to CuTe DSL with its
/// warning; 0.26.0 has no fallback (the kernel refuses at run time, outside the Python sources).
#[test]
fn flashinfer_mla_96_heads_falls_back_to_cute_dsl_from_0_27() {
    let g = case(V0_27_0, "b200", Backend::FlashInferMla, 96, "auto", V3).run();
    assert_eq!(g.kernel.decode, Some(Kernel::CuteDslMla));
    assert!(record(
        &g,
        LogLevel::Warning,
        "flashinfer_mla.py:57",
        "trtllm-gen MLA decode does not support num_heads=96 (query/kv head ratio); falling back to the cute-dsl backend."
    ));
    let g = case(V0_26_0, "b200", Backend::FlashInferMla, 96, "auto", V3).run();
    assert_eq!(g.kernel.decode, Some(Kernel::TrtllmGenMla));
    assert!(g.trace.iter().any(|s| s.unverified));
    let g = case(V0_33_0, "b200", Backend::FlashInferMla, 128, "auto", V3).run();
    assert_eq!(g.kernel.decode, Some(Kernel::TrtllmGenMla));
}

/// DeepSeek-V3 on an RTX PRO 6000 (SM120): TRITON_MLA's `decode_attention_fwd`, never an FP8 query (it dequantizes an
/// fp8 cache in the kernel); FLASH_ATTN's FA2 prefill with V zero-padded to 192; CUDA graphs UNIFORM_BATCH in
/// 0.24.0–0.25.0 and from 0.31.0, single-token decodes in between.
#[test]
fn deepseek_v3_rtx_pro_6000_runs_triton_mla() {
    for (r, cg, vpad) in [
        (
            V0_24_0,
            CgSupport::UniformBatch,
            "v1/attention/backends/mla/prefill/flash_attn.py:82",
        ),
        (
            V0_26_0,
            CgSupport::UniformSingleTokenDecode,
            "v1/attention/backends/mla/prefill/flash_attn.py:119",
        ),
        (
            V0_31_0,
            CgSupport::UniformBatch,
            "v1/attention/backends/mla/prefill/flash_attn.py:387",
        ),
        (
            V0_33_0,
            CgSupport::UniformBatch,
            "v1/attention/backends/mla/prefill/flash_attn.py:387",
        ),
    ] {
        for kv in ["auto", "fp8"] {
            let g = case(r, "rtx-pro-6000", Backend::TritonMla, 16, kv, V3).run();
            assert_eq!(
                g.q_dtype,
                Phases {
                    prefill: BF16,
                    decode: BF16
                },
                "{r} {kv}"
            );
            assert_eq!(
                g.kernel,
                Phases {
                    prefill: Some(Kernel::FaVarlen2),
                    decode: Some(Kernel::TritonMlaDecode)
                }
            );
            assert_eq!(g.query_quant, None);
            assert_eq!(g.cudagraph_support, Some(cg), "{r}");
            let pad = g
                .trace
                .iter()
                .find(|s| s.source().as_deref() == Some(&format!("vllm/{vpad}")[..]));
            assert!(pad.is_some_and(|s| s.outcome.contains("zero-padded")), "{r}");
        }
    }
    let g = case(V0_33_0, "rtx-pro-6000", Backend::TritonMla, 16, "fp8", V3).run();
    assert!(
        cites(&g, "v1/attention/backends/mla/triton_mla.py:229"),
        "TritonMLAImpl turns the FP8 query off"
    );
}

/// DeepSeek-V2-Lite (16 heads) on an L4 (8.9): TRITON_MLA, FA2 prefill; an fp8 cache passes the 0.26.0 SM89 check.
/// The same on an A100 (8.0) is refused at impl init from 0.26.0.
#[test]
fn deepseek_v2_lite_l4_and_the_sm89_fp8_check() {
    for r in [V0_24_0, V0_26_0, V0_33_0] {
        for kv in ["auto", "fp8"] {
            let g = case(r, "l4", Backend::TritonMla, 16, kv, V2_LITE).run();
            assert_eq!(g.error, None, "{r} {kv}");
            assert_eq!(
                g.kernel,
                Phases {
                    prefill: Some(Kernel::FaVarlen2),
                    decode: Some(Kernel::TritonMlaDecode)
                }
            );
            assert_eq!(
                g.q_dtype,
                Phases {
                    prefill: BF16,
                    decode: BF16
                }
            );
        }
    }
    let g = case(V0_25_0, "a100", Backend::TritonMla, 16, "fp8", V2_LITE).run();
    assert_eq!(g.error, None);
    for (r, line) in [(V0_26_0, 193), (V0_33_0, 209)] {
        let g = case(r, "a100", Backend::TritonMla, 16, "fp8", V2_LITE).run();
        let e = g.error.expect("the SM89 refusal");
        assert_eq!(e.kind, GroupErrorKind::ValueError);
        assert_eq!(e.stage, Stage::Init);
        assert_eq!(
            e.message,
            "FP8 KV cache is not supported by the Triton MLA backend on NVIDIA A100-SXM4-80GB (compute capability \
             8.0); native FP8 (fp8e4nv) requires SM89+. Re-run with --kv-cache-dtype bfloat16."
        );
        assert_eq!(
            e.source.as_deref(),
            Some(&format!("vllm/v1/attention/backends/mla/triton_mla.py:{line}")[..])
        );
        assert_eq!((g.kernel.decode, g.q_dtype.decode), (None, None));
    }
}

/// DeepSeek-V3.2 on H200 with `fp8_ds_mla` (16 heads per rank): FLASHMLA_SPARSE's FP8 sparse decode over the 656-byte
/// rows with a bf16 query padded to 64 heads, every token on it ("mixed batch") in 0.24.0–0.25.0; from 0.26.0 prompts
/// over the SM90 table's 128 tokens within `index_topk` run dense MHA on FLASH_ATTN's FA3. `--kv-cache-dtype fp8`
/// reaches the impl as `fp8_ds_mla`.
#[test]
fn deepseek_v32_h200_fp8_ds_mla_runs_flashmla_sparse() {
    for (r, pad_log) in [(V0_24_0, "flashmla_sparse.py:795"), (V0_33_0, "flashmla_sparse.py:1296")] {
        for kv in ["fp8_ds_mla", "fp8"] {
            let g = case(r, "h200", Backend::FlashMlaSparse, 16, kv, V32).run();
            assert_eq!(g.cache_dtype, "fp8_ds_mla", "{r} {kv}");
            assert_eq!(g.kernel.decode, Some(Kernel::FlashMlaSparseDecodeFp8));
            assert_eq!(g.q_dtype.decode, BF16, "FlashMLASparseImpl never takes an FP8 query");
            assert_eq!(g.query_quant, None);
            assert!(record(
                &g,
                LogLevel::Warning,
                pad_log,
                "Padding num_heads from 16 to 64 for FP8 sparse decode kernel"
            ));
            assert_eq!(g.cudagraph_support, Some(CgSupport::UniformBatch));
            assert_eq!(
                kv != "fp8",
                !cites(
                    &g,
                    &format!(
                        "model_executor/layers/attention/mla_attention.py:{}",
                        if r == V0_24_0 { 323 } else { 359 }
                    )
                )
            );
            // Handed over as "fp8" (not yet rewritten by the selection), the layer's rewrite logs its line.
            let logged = record(
                &g,
                LogLevel::Info,
                if r == V0_24_0 {
                    "mla_attention.py:420"
                } else {
                    "mla_attention.py:530"
                },
                "Using fp8_ds_mla KV cache format for FLASHMLA_SPARSE backend.",
            );
            assert_eq!(logged, kv == "fp8", "{r} {kv}");
        }
    }
    let g = case(V0_24_0, "h200", Backend::FlashMlaSparse, 16, "fp8_ds_mla", V32).run();
    assert_eq!(g.kernel.prefill, Some(Kernel::FlashMlaSparseDecodeFp8));
    assert_eq!(choices(&g, true), [Kernel::FlashMlaSparseDecodeFp8]);
    assert_eq!(g.q_dtype.prefill, BF16);
    for r in [V0_26_0, V0_33_0] {
        let g = case(r, "h200", Backend::FlashMlaSparse, 16, "fp8_ds_mla", V32).run();
        assert_eq!(g.kernel.prefill, Some(Kernel::FaVarlen3), "{r}");
        assert_eq!(
            choices(&g, true),
            [
                Kernel::FaVarlen3,
                Kernel::FlashMlaSparseDecodeFp8,
                Kernel::FlashMlaSparseDecodeFp8
            ]
        );
        assert_eq!(
            g.kernels.prefill[0].when.as_deref(),
            Some("prefills of more than 128 query tokens whose longest sequence is ≤ index_topk (2048)")
        );
    }
}

/// DeepSeek-V3.2 at 128 heads per rank on B200 with `fp8_ds_mla` (FLASHINFER_MLA_SPARSE refuses that dtype):
/// FLASHMLA_SPARSE's separate path — decodes on the FP8 kernel, prefill rows upconverted to bf16 for
/// `flash_mla_sparse_fwd`; from 0.26.0 the SM100 table counts prompts up to 1024 tokens as decodes.
#[test]
fn deepseek_v32_b200_128_heads_fp8_ds_mla() {
    let g = case(V0_24_0, "b200", Backend::FlashMlaSparse, 128, "fp8_ds_mla", V32).run();
    assert_eq!(
        g.kernel,
        Phases {
            prefill: Some(Kernel::FlashMlaSparseFwd),
            decode: Some(Kernel::FlashMlaSparseDecodeFp8)
        }
    );
    assert!(g.warnings.is_empty(), "128 heads need no padding: {:?}", g.warnings);
    let g = case(V0_33_0, "b200", Backend::FlashMlaSparse, 128, "fp8_ds_mla", V32).run();
    assert_eq!(g.kernel.prefill, Some(Kernel::FlashMlaSparseDecodeFp8));
    assert_eq!(
        g.kernels.prefill[0].when.as_deref(),
        Some("prefills of ≤ 1024 query tokens, which the builder counts as decodes")
    );
    assert_eq!(
        choices(&g, true),
        [Kernel::FlashMlaSparseDecodeFp8, Kernel::FaVarlen4, Kernel::FlashMlaSparseFwd]
    );
}

/// DeepSeek-V3.2 on B200 with `fp8_e4m3`: FLASHINFER_MLA_SPARSE (the standard fp8 layout, with its info line), its
/// trtllm-gen sparse decode on an FP8 query; 0.24.0–0.25.0 send prefills through the same kernel, 0.26.0+ dense MHA on
/// FA4 in bf16 for prompts within index_topk. CUDA graphs: ALWAYS under 0.29.0–0.31.0's TRT-LLM builder.
#[test]
fn deepseek_v32_b200_fp8_e4m3_runs_flashinfer_mla_sparse() {
    for (r, std_log, cg) in [
        (V0_24_0, "mla_attention.py:431", CgSupport::UniformBatch),
        (V0_29_0, "mla_attention.py:499", CgSupport::Always),
        (V0_32_0, "mla_attention.py:540", CgSupport::UniformBatch),
        (V0_33_0, "mla_attention.py:541", CgSupport::UniformBatch),
    ] {
        let g = case(r, "b200", Backend::FlashInferMlaSparse, 16, "fp8_e4m3", V32).run();
        assert_eq!(g.kernel.decode, Some(Kernel::TrtllmGenMlaSparse), "{r}");
        assert_eq!(g.q_dtype.decode, FP8);
        assert!(g.query_quant.is_some());
        assert!(
            record(
                &g,
                LogLevel::Info,
                std_log,
                "Using standard fp8 KV cache format. To use DeepSeek's fp8_ds_mla KV cache format, please set \
             `--attention-backend FLASHMLA_SPARSE`"
            ),
            "{r}"
        );
        assert_eq!(g.cudagraph_support, Some(cg), "{r}");
        if r < V0_26_0 {
            assert_eq!(g.kernel.prefill, Some(Kernel::TrtllmGenMlaSparse));
            assert_eq!(g.q_dtype.prefill, FP8);
        } else {
            assert_eq!(g.kernel.prefill, Some(Kernel::FaVarlen4));
            assert_eq!(g.q_dtype.prefill, BF16);
        }
    }
}

/// A bf16 cache on B200 at 0.27.0+: FA4 masked MHA is a prefill choice for sequences beyond index_topk.
#[test]
fn deepseek_v32_b200_bf16_lists_masked_mha_from_0_27() {
    let g = case(V0_27_0, "b200", Backend::FlashMlaSparse, 16, "auto", V32).run();
    assert_eq!(
        choices(&g, true),
        [
            Kernel::FaVarlen4,
            Kernel::FlashMlaSparseFwd,
            Kernel::Fa4MaskedMha,
            Kernel::FlashMlaSparseFwd
        ]
    );
    let g = case(V0_26_0, "b200", Backend::FlashMlaSparse, 16, "auto", V32).run();
    assert!(!choices(&g, true).contains(&Kernel::Fa4MaskedMha));
    let g = case(V0_27_0, "b200", Backend::FlashMlaSparse, 16, "fp8_ds_mla", V32).run();
    assert!(
        !choices(&g, true).contains(&Kernel::Fa4MaskedMha),
        "masked MHA needs a 16-bit cache"
    );
}

/// FLASHMLA_SPARSE with a bf16 cache at 96 heads per rank on B200: 0.24.0–0.28.0 assert the BF16 kernel's 128-head
/// padding divides by the heads (a bare AssertionError in both phases); 0.29.0 rounds up instead.
#[test]
fn flashmla_sparse_bf16_head_padding_assert() {
    let g = case(V0_24_0, "b200", Backend::FlashMlaSparse, 96, "auto", V32).run();
    let e = g.error.expect("the padding assert");
    assert_eq!(
        (e.kind, e.message.as_str(), e.stage),
        (GroupErrorKind::AssertionError, "", Stage::DecodeForward)
    );
    assert_eq!(
        e.source.as_deref(),
        Some("vllm/v1/attention/backends/mla/flashmla_sparse.py:836")
    );
    assert!(g.phase_errors.prefill.is_some());
    let g = case(V0_29_0, "b200", Backend::FlashMlaSparse, 96, "auto", V32).run();
    assert_eq!(g.error, None);
    assert!(g
        .warnings
        .iter()
        .any(|w| w == "Padding num_heads from 96 to 128 for BF16 sparse prefill kernel"));
}

/// CUTLASS_MLA with an fp8 cache: an FP8 query on 128 padded heads; a ModelOpt checkpoint that quantizes the KV cache
/// loads calibrated scales into the MLA layer, and forward_mqa refuses them at the first decode (at CUDA-graph capture
/// under FULL decode graphs).
#[test]
fn cutlass_mla_fp8_and_the_scale_error() {
    for (r, line) in [(V0_24_0, 267), (V0_33_0, 260)] {
        let g = case(r, "b200", Backend::CutlassMla, 16, "fp8", V3).run();
        assert_eq!(g.error, None);
        assert_eq!(g.kernel.decode, Some(Kernel::CutlassMlaDecode));
        assert_eq!(
            g.q_dtype,
            Phases {
                prefill: BF16,
                decode: FP8
            }
        );
        assert_eq!(g.cudagraph_support, Some(CgSupport::UniformSingleTokenDecode));
        let mut c = case(r, "b200", Backend::CutlassMla, 16, "fp8", V3);
        c.checkpoint = Some(CheckpointKv {
            method: "modelopt_fp4".into(),
            cache_dtype: Some("fp8".into()),
            scheme: KvScheme::ModelOpt,
            warning: None,
        });
        let g = c.run();
        let e = g.error.clone().expect("the scale error");
        assert_eq!(e.kind, GroupErrorKind::NotImplementedError);
        assert_eq!(e.message, "CutlassMLAImpl does not support scaling for q and kv_latent yet");
        assert_eq!(e.stage, Stage::DecodeForward);
        assert_eq!(
            e.source.as_deref(),
            Some(&format!("vllm/v1/attention/backends/mla/cutlass_mla.py:{line}")[..])
        );
        assert_eq!(g.phase_errors.decode, Some(e));
        assert_eq!(g.phase_errors.prefill, None);
        assert_eq!(
            g.query_quant.as_ref().map(|q| q.q_scale.as_str()),
            Some("checkpoint, else 1.0")
        );
    }
}

/// Decode context parallelism: 0.24.0's FLASHINFER_MLA returns no LSE (the engine-start assert); 0.24.0 refuses a
/// quantized cache under DCP at the first decode ("DCP not support fp8 kvcache now."), 0.25.0 does not.
#[test]
fn dcp_errors_of_0_24() {
    let mut c = case(V0_24_0, "b200", Backend::FlashInferMla, 16, "auto", V3);
    c.dcp = 2;
    let e = c.run().error.expect("the LSE assert");
    assert_eq!((e.kind, e.stage), (GroupErrorKind::AssertionError, Stage::Init));
    assert_eq!(
        e.message,
        "Decode Context Parallelism (DCP) requires attention implementations to return the softmax LSE during decode, \
         but FlashInferMLAImpl does not. Try a different backend by setting --attention-backend or disable DCP."
    );
    assert_eq!(e.source.as_deref(), Some("vllm/v1/worker/cp_utils.py:31"));
    let mut c = case(V0_25_0, "b200", Backend::FlashInferMla, 16, "auto", V3);
    c.dcp = 2;
    assert_eq!(c.run().error, None);

    let mut c = case(V0_24_0, "h200", Backend::FlashMla, 16, "fp8", V3);
    c.dcp = 2;
    let g = c.run();
    let e = g.error.expect("the fp8 DCP assert");
    assert_eq!(
        (e.kind, e.message.as_str(), e.stage),
        (
            GroupErrorKind::AssertionError,
            "DCP not support fp8 kvcache now.",
            Stage::DecodeForward
        )
    );
    assert_eq!(
        e.source.as_deref(),
        Some("vllm/model_executor/layers/attention/mla_attention.py:803")
    );
    let mut c = case(V0_25_0, "h200", Backend::FlashMla, 16, "fp8", V3);
    c.dcp = 2;
    assert_eq!(c.run().error, None);
}

/// FLASHMLA_SPARSE under DCP (0.29.0+): the builder refuses the separate prefill/decode path (≥ 32 heads) and head counts
/// whose DCP-gathered padding differs.
#[test]
fn flashmla_sparse_dcp_builder_errors() {
    let mut c = case(V0_29_0, "b200", Backend::FlashMlaSparse, 128, "fp8_ds_mla", V32);
    c.dcp = 2;
    let e = c.run().error.expect("the mixed-batch refusal");
    assert_eq!((e.kind, e.stage), (GroupErrorKind::NotImplementedError, Stage::Init));
    assert!(e
        .message
        .starts_with("DCP for FlashMLA sparse is only supported on the mixed-batch fp8 path (num_heads < 32)"));
    assert_eq!(
        e.source.as_deref(),
        Some("vllm/v1/attention/backends/mla/flashmla_sparse.py:317")
    );
    let mut c = case(V0_33_0, "b200", Backend::FlashMlaSparse, 16, "fp8_ds_mla", V32);
    c.dcp = 8;
    let e = c.run().error.expect("the padding envelope");
    assert_eq!(
        e.message,
        "DCP for FlashMLA sparse requires the local and DCP-gathered head counts to pad to the same fp8 decode kernel \
         envelope; got 16 local heads (pad to 64) vs 128 gathered heads (pad to 128)"
    );
    let mut c = case(V0_33_0, "b200", Backend::FlashMlaSparse, 16, "fp8_ds_mla", V32);
    c.dcp = 2;
    assert_eq!(c.run().error, None);
    let mut c = case(V0_29_0, "b200", Backend::FlashMlaSparse, 16, "auto", V32);
    c.dcp = 2;
    let e = c.run().error.expect("bf16 under DCP");
    assert_eq!(
        e.message,
        "DCP for FlashMLA sparse requires an fp8_ds_mla kv-cache; the bf16 sparse path is not supported under DCP."
    );
}

/// `--attention-config.mla_prefill_backend`: TRTLLM_RAGGED forced on B200 (its kernel, the forced log line; with an
/// fp8 cache the FP8-prefill hint, and with use_prefill_query_quantization an FP8 prefill query); on H200 vLLM's
/// ValueError at layer init.
#[test]
fn forced_mla_prefill_backend() {
    for (r, forced_log, hint_log) in [
        (V0_24_0, "selector.py:129", "mla_attention.py:1484"),
        (V0_33_0, "selector.py:106", "mla_attention.py:2387"),
    ] {
        let g = case(r, "b200", Backend::FlashInferMla, 16, "auto", V3)
            .config("mla_prefill_backend", "\"TRTLLM_RAGGED\"")
            .run();
        assert_eq!(g.kernel.prefill, Some(Kernel::TrtllmRaggedDeepseek), "{r}");
        assert!(
            record(&g, LogLevel::Info, forced_log, "Using TRTLLM_RAGGED MLA prefill backend."),
            "{r}"
        );
        let g = case(r, "b200", Backend::FlashInferMla, 16, "fp8", V3)
            .config("mla_prefill_backend", "\"TRTLLM_RAGGED\"")
            .run();
        assert_eq!(
            g.q_dtype,
            Phases {
                prefill: BF16,
                decode: FP8
            }
        );
        assert!(
            record(
                &g,
                LogLevel::Warning,
                hint_log,
                "FP8 KV cache is enabled but prefill queries are not quantized to FP8. For long-context workloads (ISL >= \
             4K), enabling FP8 prefill attention can significantly optimize prefill latency. To enable, add: \
             --attention-config '{\"use_prefill_query_quantization\": true}'"
            ),
            "{r}"
        );
        let g = case(r, "b200", Backend::FlashInferMla, 16, "fp8", V3)
            .config("mla_prefill_backend", "\"TRTLLM_RAGGED\"")
            .config("use_prefill_query_quantization", "true")
            .run();
        assert_eq!(
            g.q_dtype,
            Phases {
                prefill: FP8,
                decode: FP8
            }
        );
        assert!(g
            .logs
            .iter()
            .any(|l| l == "FP8 prefill attention enabled: query data type is FP8"));
    }
    for (r, line) in [(V0_24_0, "prefill/selector.py:123"), (V0_33_0, "prefill/selector.py:100")] {
        let g = case(r, "h200", Backend::FlashAttnMla, 16, "auto", V3)
            .config("mla_prefill_backend", "\"TRTLLM_RAGGED\"")
            .run();
        let e = g.error.expect("the forced prefill backend's refusal");
        assert_eq!((e.kind, e.stage), (GroupErrorKind::ValueError, Stage::Init));
        assert_eq!(
            e.message,
            "Selected MLA prefill backend TRTLLM_RAGGED is not valid for this configuration. Reason: ['compute \
             capability 9.0 not supported']"
        );
        assert_eq!(
            e.source.as_deref(),
            Some(&format!("vllm/v1/attention/backends/mla/{line}")[..])
        );
        assert_eq!(
            g.kernel,
            Phases {
                prefill: None,
                decode: None
            }
        );
    }
}

/// GLM-5's dims (192, 64, 256) on B200: 0.24.0–0.25.0 FLASH_ATTN (FA4 refuses head 256 for TMEM, FA2); 0.26.0's
/// FLASH_ATTN refuses the dims under FA4 so TRTLLM_RAGGED is chosen; 0.27.0+ lists TRTLLM_RAGGED first for them.
#[test]
fn glm_dims_prefill_backend_on_b200() {
    let g = case(V0_24_0, "b200", Backend::FlashInferMla, 8, "auto", GLM).run();
    assert_eq!(g.kernel.prefill, Some(Kernel::FaVarlen2));
    let g = case(V0_26_0, "b200", Backend::FlashInferMla, 8, "auto", GLM).run();
    assert_eq!(g.kernel.prefill, Some(Kernel::TrtllmRaggedDeepseek));
    assert!(g.trace.iter().any(|s| s.outcome.contains(
        "after FLASH_ATTN: Model does not have supported MLA dimensions (got (qk_nope_head_dim=192, qk_rope_head_dim=64, \
         v_head_dim=256))"
    )));
    for (r, prio) in [(V0_27_0, "prefill/selector.py:70"), (V0_33_0, "platforms/interface.py:463")] {
        let g = case(r, "b200", Backend::FlashInferMla, 8, "auto", GLM).run();
        assert_eq!(g.kernel.prefill, Some(Kernel::TrtllmRaggedDeepseek), "{r}");
        let at = if r < V0_32_0 {
            format!("v1/attention/backends/mla/{prio}")
        } else {
            prio.to_string()
        };
        assert!(cites(&g, &at), "{r}");
    }
}

/// MLA dims no prefill backend takes: a dense layer fails at layer init with vLLM's ValueError; a sparse one
/// (0.26.0+) logs the warning and stays on the top-k MQA path.
#[test]
fn no_valid_mla_prefill_backend() {
    let odd = MlaDims {
        qk_nope_head_dim: 96,
        qk_rope_head_dim: 32,
        v_head_dim: 96,
        ..V3
    };
    let g = case(V0_26_0, "h200", Backend::FlashAttnMla, 16, "auto", odd).run();
    let e = g.error.expect("no prefill backend");
    assert_eq!(
        e.message,
        "No valid MLA prefill backend found with MLAPrefillSelectorConfig(dtype=torch.bfloat16, \
         mla_dimensions=(qk_nope_head_dim=96, qk_rope_head_dim=32, v_head_dim=96)). Reasons: {FLASH_ATTN: [Model does \
         not have supported MLA dimensions (got (qk_nope_head_dim=96, qk_rope_head_dim=32, v_head_dim=96))]}."
    );
    assert_eq!(
        e.source.as_deref(),
        Some("vllm/v1/attention/backends/mla/prefill/selector.py:193")
    );
    let sparse = MlaDims {
        index_topk: Some(2048),
        ..odd
    };
    let g = case(V0_26_0, "h200", Backend::FlashMlaSparse, 16, "fp8_ds_mla", sparse).run();
    assert_eq!(g.error, None);
    assert!(g.warnings.iter().any(|w| w
        == "No MLA prefill backend supports this model; sparse MLA will use the top-k MQA path only (no dense-MHA \
            prefill)."));
    assert_eq!(g.kernel.prefill, Some(Kernel::FlashMlaSparseDecodeFp8));
    // 0.24.0–0.25.0 have no dims restriction for FLASH_ATTN: the same dims select it.
    let g = case(V0_25_0, "h200", Backend::FlashAttnMla, 16, "auto", odd).run();
    assert_eq!(g.error, None);
}

/// FLASHINFER_MLA_SPARSE_SM120 (V3.2 on an RTX PRO 6000): `auto` reaches the impl as `fp8_ds_mla`; a bf16 query; 0.24.0
/// pins a FlashInfer without `kv_scale_format` (qpath says it cannot model the TypeError); 0.26.0–0.28.0 send short
/// prefills to the base class's bare `forward_mha` raise; 0.29.0+ have no dense-MHA prefill path (the warning).
#[test]
fn flashinfer_mla_sparse_sm120() {
    let g = case(V0_24_0, "rtx-pro-6000", Backend::FlashInferMlaSparseSm120, 16, "auto", V32).run();
    assert!(g.unmodelled.as_deref().is_some_and(|u| u.contains("kv_scale_format")));
    assert_eq!(g.cache_dtype, "fp8_ds_mla");
    let g = case(V0_26_0, "rtx-pro-6000", Backend::FlashInferMlaSparseSm120, 16, "auto", V32).run();
    assert_eq!(g.unmodelled, None);
    assert_eq!(g.kernel.decode, Some(Kernel::FlashInferMlaSparseSm120));
    assert_eq!(g.q_dtype.decode, BF16);
    let e = g.phase_errors.prefill.clone().expect("the bare forward_mha raise");
    assert_eq!(
        (e.kind, e.message.as_str(), e.stage),
        (GroupErrorKind::NotImplementedError, "", Stage::PrefillForward)
    );
    assert_eq!(e.source.as_deref(), Some("vllm/v1/attention/backend.py:1040"));
    assert_eq!(g.phase_errors.decode, None);
    assert_eq!(
        g.kernels.prefill.last().and_then(|c| c.when.as_deref()),
        Some("prefills of more than 128 query tokens whose longest sequence exceeds 2048")
    );
    for (r, at) in [(V0_29_0, "mla_attention.py:571"), (V0_33_0, "mla_attention.py:626")] {
        let g = case(r, "rtx-pro-6000", Backend::FlashInferMlaSparseSm120, 16, "fp8", V32).run();
        assert_eq!(g.error, None, "{r}");
        assert!(
            record(
                &g,
                LogLevel::Warning,
                at,
                "Sparse MLA layer has no dense-MHA prefill path; using the top-k MQA path only."
            ),
            "{r}"
        );
        assert_eq!(
            choices(&g, true),
            [Kernel::FlashInferMlaSparseSm120, Kernel::FlashInferMlaSparseSm120]
        );
    }
}

/// FLASH_ATTN_MLA_SPARSE (0.25.0+, H200 with a bf16 cache) and FLASHINFER_MLA_SPARSE_SM90 (0.30.0+, H200 with
/// `fp8_e4m3`): bf16 queries on their own kernels.
#[test]
fn hopper_sparse_variants() {
    let g = case(V0_25_0, "h200", Backend::FlashAttnMlaSparse, 16, "auto", V32).run();
    assert_eq!(
        g.kernel,
        Phases {
            prefill: Some(Kernel::Fa3MlaSparseQv),
            decode: Some(Kernel::Fa3MlaSparseQv)
        }
    );
    let g = case(V0_33_0, "h200", Backend::FlashAttnMlaSparse, 16, "auto", V32).run();
    assert_eq!(
        g.kernel,
        Phases {
            prefill: Some(Kernel::FaVarlen3),
            decode: Some(Kernel::Fa3MlaSparseQv)
        }
    );
    assert_eq!(g.cudagraph_support, Some(CgSupport::UniformBatch));
    let g = case(V0_30_0, "h200", Backend::FlashInferMlaSparseSm90, 16, "fp8_e4m3", V32).run();
    assert_eq!(g.kernel.decode, Some(Kernel::FlashInferMlaPagedSm90));
    assert_eq!(g.q_dtype.decode, BF16);
    assert_eq!(g.query_quant, None);
    assert_eq!(g.cache_dtype, "fp8_e4m3");
}

/// TOKENSPEED_MLA (the tokenspeed-mla package is a dependency of every wheel): its FP8-query decode; a layer left at
/// "auto" (by --kv-cache-dtype-skip-layers) is refused at impl init.
#[test]
fn tokenspeed_mla() {
    let g = case(V0_24_0, "b200", Backend::TokenspeedMla, 16, "fp8", V3).run();
    assert_eq!(
        g.kernel,
        Phases {
            prefill: Some(Kernel::FaVarlen4),
            decode: Some(Kernel::TokenspeedMlaDecode)
        }
    );
    assert_eq!(g.q_dtype.decode, FP8);
    let g = case(V0_33_0, "b200", Backend::TokenspeedMla, 16, "auto", V3).run();
    let e = g.error.expect("the FP8-cache refusal");
    assert_eq!(
        e.message,
        "TokenspeedMLAImpl requires an FP8 KV cache (--kv-cache-dtype fp8 or fp8_e4m3); got kv_cache_dtype='auto'."
    );
    assert_eq!(
        e.source.as_deref(),
        Some("vllm/v1/attention/backends/mla/tokenspeed_mla.py:227")
    );
}

/// DEEPSEEK_V32_INDEXER: its FP8 MQA-logits kernels per phase, an FP8 query, block size 64; CUDA graphs ALWAYS on the
/// SM100 family from 0.28.0, else UNIFORM_BATCH.
#[test]
fn deepseek_v32_indexer_group() {
    for (r, gpu, cg, log) in [
        (
            V0_24_0,
            "b200",
            CgSupport::UniformBatch,
            "DSA indexer decode path: use_flattening=False (next_n=1, use_fp4_indexer_cache=False)",
        ),
        (
            V0_28_0,
            "b200",
            CgSupport::Always,
            "DSA indexer decode path: use_flattening=False supports_varlen=True (next_n=1, use_fp4_cache=False)",
        ),
        (
            V0_33_0,
            "b200",
            CgSupport::Always,
            "DSA indexer decode path: use_flattening=False supports_varlen=True (next_n=1, use_fp4_cache=False)",
        ),
        (
            V0_33_0,
            "h200",
            CgSupport::UniformBatch,
            "DSA indexer decode path: use_flattening=False supports_varlen=False (next_n=1, use_fp4_cache=False)",
        ),
    ] {
        let mut c = case(r, gpu, Backend::DeepseekV32Indexer, 16, "fp8_ds_mla", V32);
        c.dims = V32;
        let g = c.run();
        assert_eq!(
            g.kernel,
            Phases {
                prefill: Some(Kernel::IndexerMqaLogits),
                decode: Some(Kernel::IndexerPagedMqaLogits)
            }
        );
        assert_eq!(
            g.q_dtype,
            Phases {
                prefill: FP8,
                decode: FP8
            }
        );
        assert_eq!(g.cudagraph_support, Some(cg), "{r} {gpu}");
        assert!(g.logs.iter().any(|l| l == log), "{r}: {:?}", g.logs);
        assert_eq!(g.unmodelled, None);
    }
    let p = case(V0_33_0, "b200", Backend::DeepseekV32Indexer, 16, "auto", V32).platform();
    let mut t = qpath_core::trace::Trace::new(V0_33_0);
    let sizes = rules(Backend::DeepseekV32Indexer).kernel_block_sizes(&p, 16, 1, &mut t);
    assert_eq!(sizes, Some(qpath_core::backends::KernelSizes::Exact(vec![64])));
}

/// Speculative decoding's threshold step for the scenario's speculative pass.
#[test]
fn speculative_threshold_step() {
    let p = case(V0_33_0, "b200", Backend::CutlassMla, 16, "fp8", V3).platform();
    let s = qpath_core::backends::mla::path::spec_as_decode_step(Backend::CutlassMla, &p, 16, 1).unwrap();
    assert!(s.outcome.contains("a verification request of 2 tokens is a prefill"));
    let s = qpath_core::backends::mla::path::spec_as_decode_step(Backend::FlashInferMla, &p, 16, 3).unwrap();
    assert!(s.outcome.contains("max(1, 1 + 3) = 4"));
    let s = qpath_core::backends::mla::path::spec_as_decode_step(Backend::FlashAttnMla, &p, 16, 3).unwrap();
    assert!(s.outcome.contains("max(512, 1 + 3) = 512"));
}

/// FLASHMLA_SPARSE's BF16 kernel pads heads to 128 on the SM100 family until 0.31.0 and to 64 on every GPU from 0.32.0.
#[test]
fn flashmla_sparse_bf16_padding_per_release() {
    for (r, padded, line) in [
        (V0_31_0, 128, "flashmla_sparse.py:1316"),
        (V0_32_0, 64, "flashmla_sparse.py:1368"),
    ] {
        let g = case(r, "b200", Backend::FlashMlaSparse, 16, "auto", V32).run();
        assert!(
            record(
                &g,
                LogLevel::Warning,
                line,
                &format!("Padding num_heads from 16 to {padded} for BF16 sparse prefill kernel")
            ),
            "{r}: {:?}",
            g.log_records
        );
        assert_eq!(g.kernel.decode, Some(Kernel::FlashMlaSparseFwd));
    }
}

/// The decode LSE under DCP: TOKENSPEED_MLA returns it from 0.26.0, FLASHMLA_SPARSE from 0.29.0 (then its builder's
/// own DCP rules apply).
#[test]
fn dcp_lse_per_backend_and_release() {
    for (r, b, kv, dims, fails) in [
        (V0_25_0, Backend::TokenspeedMla, "fp8", V3, true),
        (V0_26_0, Backend::TokenspeedMla, "fp8", V3, false),
        (V0_28_0, Backend::FlashMlaSparse, "fp8_ds_mla", V32, true),
        (V0_29_0, Backend::FlashMlaSparse, "fp8_ds_mla", V32, false),
    ] {
        let mut c = case(r, "b200", b, 16, kv, dims);
        c.dcp = 2;
        let g = c.run();
        let lse = g
            .error
            .as_ref()
            .is_some_and(|e| e.source.as_deref().is_some_and(|s| s.contains("cp_utils.py")));
        assert_eq!(lse, fails, "{r} {b}: {:?}", g.error);
    }
}

/// FLASH_ATTN's MLA prefill takes the rope-free (256, 0, 256) dims from 0.30.0.
#[test]
fn flash_attn_prefill_nope_dims_from_0_30() {
    let nope = MlaDims {
        qk_nope_head_dim: 256,
        qk_rope_head_dim: 0,
        v_head_dim: 256,
        ..V3
    };
    let g = case(V0_29_0, "h200", Backend::FlashAttnMla, 16, "auto", nope).run();
    assert!(g
        .error
        .is_some_and(|e| e.message.starts_with("No valid MLA prefill backend found with")));
    let g = case(V0_30_0, "h200", Backend::FlashAttnMla, 16, "auto", nope).run();
    assert_eq!(g.error, None);
    assert_eq!(
        g.kernel.prefill,
        Some(Kernel::Fa3MlaQv),
        "a 512-token prompt is within the 512 threshold"
    );
    assert_eq!(choices(&g, true)[1], Kernel::FaVarlen3);
}

/// TRITON_MLA's CUDA graphs for a non-causal multi-token (DSpark) group: UNIFORM_BATCH through 0.29.0–0.30.0's
/// `get_cudagraph_support`, single-token decodes for a causal one.
#[test]
fn triton_mla_non_causal_cuda_graphs() {
    for (r, causal, non_causal) in [
        (
            V0_28_0,
            CgSupport::UniformSingleTokenDecode,
            CgSupport::UniformSingleTokenDecode,
        ),
        (V0_29_0, CgSupport::UniformSingleTokenDecode, CgSupport::UniformBatch),
        (V0_31_0, CgSupport::UniformBatch, CgSupport::UniformBatch),
    ] {
        let c = case(r, "rtx-pro-6000", Backend::TritonMla, 16, "auto", V3);
        let (p, g) = (c.platform(), c.run());
        let rules = rules(Backend::TritonMla);
        assert_eq!(rules.cudagraph_support(&p, &g, 16, false).support, causal, "{r}");
        assert_eq!(rules.cudagraph_support(&p, &g, 16, true).support, non_causal, "{r}");
    }
}

/// Without FULL decode graphs the first error is the first batch's: a prefill's before a decode's.
#[test]
fn first_error_follows_the_decode_graph_mode() {
    let mut c = case(V0_26_0, "b200", Backend::FlashMlaSparse, 96, "auto", V32);
    c.release = V0_24_0;
    let g = c.run();
    assert_eq!(g.error.map(|e| e.stage), Some(Stage::DecodeForward));
    let mut c = case(V0_24_0, "b200", Backend::FlashMlaSparse, 96, "auto", V32);
    c.graphs = "PIECEWISE";
    let g = c.run();
    assert_eq!(g.error.map(|e| e.stage), Some(Stage::PrefillForward));
}
