//! MLA backend selection (issue 21), from the released sources (`docs/source-notes/mla-selection.md`): the MLA
//! priority lists per release and compute capability, every MLA backend's `validate_configuration` as an MLA layer
//! meets it (the generic reasons in order, then each backend's `supports_combination` text), the non-MLA backends
//! meeting an MLA layer and the MLA backends meeting a non-MLA one, vLLM's "No valid attention backend found" and
//! "Selected backend … is not valid" texts, the cache format the sparse backends write back, and the block size vLLM
//! picks for the MLA backends. Each rule at its first release and at 0.33.0.
//!
//! Until the DeepSeek presets land, the layers are built here (`LayerQuery { mla: Some(…) }`); the non-MLA model
//! cases run end to end.

mod common;

use common::mla::{V2_LITE, V3, V32};
use qpath_core::attention::Backend;
use qpath_core::backends::mla::selection as mla;
use qpath_core::backends::LayerQuery;
use qpath_core::capability::CudaVersion;
use qpath_core::dtype::TorchDtype;
use qpath_core::model::MlaDims;
use qpath_core::platform::Platform;
use qpath_core::release::Release;
use qpath_core::report::ScenarioErrorKind;
use qpath_core::selection::{self, Selection};
use qpath_core::trace::Trace;

const RELEASES: [&str; 10] = [
    "0.24.0", "0.25.0", "0.26.0", "0.27.0", "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0",
];

fn release(name: &str) -> Release {
    name.parse().unwrap()
}

/// The platform of a GPU of the table at a release, as a scenario without flags builds it.
fn platform(gpu: &str, vllm: &str) -> Platform {
    let r = release(vllm);
    let cuda = CudaVersion::new(12, 9);
    Platform {
        release: r,
        flashinfer: r.flashinfer_pin(),
        cc: qpath_core::gpu::find(gpu).unwrap().capability_under(cuda),
        cuda,
        cubins: true,
        batch_invariant: false,
        model_dtype: TorchDtype::BFloat16,
        force_trtllm: None,
        disable_q_quant: false,
        flash_attn_version: None,
        dcp: 1,
        page_size: 16,
        global_kv: "auto".into(),
        graphs: qpath_core::serve::CudaGraphs {
            mode: "FULL_AND_PIECEWISE".into(),
            set_by: "the default -O2".into(),
        },
        resolved_graphs: None,
        model_mla: None,
        attention_chunk_size: None,
    }
}

/// An MLA layer as `MLAAttention.__init__` asks: head size kv_lora_rank + qk_rope_head_dim, one latent KV head,
/// `heads` per rank, no sinks / window / multimodal prefix.
fn mla_layer(dims: MlaDims, heads: u32, kv: &str) -> LayerQuery {
    LayerQuery {
        head_size: dims.kv_lora_rank + dims.qk_rope_head_dim,
        kv_cache_dtype: kv.into(),
        has_sinks: false,
        sliding_window: false,
        q_heads: heads,
        kv_heads: 1,
        block_size: None,
        use_mm_prefix: false,
        use_per_head_quant_scales: false,
        use_non_causal: false,
        use_dcp: false,
        mla: Some(dims),
    }
}

fn names(list: &[Backend]) -> Vec<&'static str> {
    list.iter().map(|b| b.name()).collect()
}

fn chosen(p: &Platform, l: &LayerQuery) -> Selection {
    selection::select(p, None, l).unwrap_or_else(|e| panic!("{}: {}", p.release, e.message))
}

/// Every invalid backend of the priority list with its reasons, as vLLM's debug line and its "No valid attention
/// backend found" error print them: `{NAME: [r1, r2], …}`.
fn invalid_map(p: &Platform, l: &LayerQuery) -> String {
    let parts: Vec<String> = selection::priorities(p, l)
        .into_iter()
        .filter_map(|b| {
            let why = selection::reasons(p, b, l);
            (!why.is_empty()).then(|| format!("{}: [{}]", b.name(), why.join(", ")))
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

// ---- the priority lists ----

#[test]
fn priority_lists_per_capability_and_release() {
    let dense = mla_layer(V3, 128, "auto");
    // 10.x: the dense backends, then the sparse pair (128 heads, unquantized: FLASHMLA_SPARSE first).
    for v in RELEASES {
        assert_eq!(
            names(&selection::priorities(&platform("b200", v), &dense)),
            [
                "FLASHINFER_MLA",
                "TOKENSPEED_MLA",
                "CUTLASS_MLA",
                "FLASH_ATTN_MLA",
                "FLASHMLA",
                "TRITON_MLA",
                "FLASHMLA_SPARSE",
                "FLASHINFER_MLA_SPARSE"
            ],
            "{v}"
        );
        assert_eq!(
            names(&selection::priorities(&platform("rtx-pro-6000-blackwell", v), &dense)),
            ["TRITON_MLA", "FLASHINFER_MLA_SPARSE_SM120"],
            "{v}"
        );
    }
    // Quantized cache or at most 16 heads per rank: FLASHINFER_MLA_SPARSE first; 0.33.0 FA4 first for few heads.
    let fp8 = mla_layer(V32, 128, "fp8");
    let few = mla_layer(V32, 16, "auto");
    for v in ["0.24.0", "0.32.0", "0.33.0"] {
        let tail = |l: &LayerQuery| names(&selection::priorities(&platform("b200", v), l)[6..]);
        assert_eq!(tail(&fp8), ["FLASHINFER_MLA_SPARSE", "FLASHMLA_SPARSE"], "{v}");
        if v == "0.33.0" {
            assert_eq!(
                tail(&few),
                ["FLASH_ATTN_MLA_SPARSE_FA4", "FLASHINFER_MLA_SPARSE", "FLASHMLA_SPARSE"]
            );
        } else {
            assert_eq!(tail(&few), ["FLASHINFER_MLA_SPARSE", "FLASHMLA_SPARSE"], "{v}");
        }
        // 17 heads: FLASHMLA_SPARSE first again.
        assert_eq!(
            tail(&mla_layer(V32, 17, "auto")),
            ["FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE"],
            "{v}"
        );
    }
    // Everything else (9.x here): 0.24.0 one sparse backend, 0.25.0 FLASH_ATTN_MLA_SPARSE before it, 0.30.0 the
    // SM90 FlashInfer variant last for head size 576 and first for 512.
    let other = |v: &str, l: &LayerQuery| names(&selection::priorities(&platform("h200", v), l));
    let head = ["FLASH_ATTN_MLA", "FLASHMLA", "FLASHINFER_MLA", "TRITON_MLA"];
    assert_eq!(other("0.24.0", &dense), [&head[..], &["FLASHMLA_SPARSE"]].concat());
    for v in ["0.25.0", "0.29.0"] {
        assert_eq!(
            other(v, &dense),
            [&head[..], &["FLASH_ATTN_MLA_SPARSE", "FLASHMLA_SPARSE"]].concat(),
            "{v}"
        );
    }
    for v in ["0.30.0", "0.33.0"] {
        assert_eq!(
            other(v, &dense),
            [
                &head[..],
                &["FLASH_ATTN_MLA_SPARSE", "FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM90"]
            ]
            .concat(),
            "{v}"
        );
        let nope = MlaDims {
            qk_rope_head_dim: 0,
            ..V32
        };
        assert_eq!(
            other(v, &mla_layer(nope, 128, "auto")),
            [
                &head[..],
                &["FLASHINFER_MLA_SPARSE_SM90", "FLASH_ATTN_MLA_SPARSE", "FLASHMLA_SPARSE"]
            ]
            .concat(),
            "{v}"
        );
    }
    // An L4 (8.9) and an A100 (8.0) take the same list.
    assert_eq!(
        names(&selection::priorities(&platform("l4", "0.33.0"), &dense)),
        other("0.33.0", &dense)
    );
}

// ---- DeepSeek-V3 (dense) ----

#[test]
fn deepseek_v3_on_h200() {
    for v in RELEASES {
        let p = platform("h200", v);
        let s = chosen(&p, &mla_layer(V3, 128, "auto"));
        assert_eq!(s.backend, Backend::FlashAttnMla, "{v}");
        assert_eq!(names(&s.valid), ["FLASH_ATTN_MLA", "FLASHMLA", "TRITON_MLA"], "{v}");
        let s = chosen(&p, &mla_layer(V3, 128, "fp8"));
        assert_eq!(s.backend, Backend::FlashMla, "{v}");
        assert_eq!(names(&s.valid), ["FLASHMLA", "TRITON_MLA"], "{v}");
        assert_eq!(
            s.rejected,
            [(Backend::FlashAttnMla, vec!["kv_cache_dtype not supported".to_string()])]
        );
    }
    // The debug line's reasons (every invalid backend), auto.
    let auto = mla_layer(V3, 128, "auto");
    assert_eq!(
        invalid_map(&platform("h200", "0.24.0"), &auto),
        "{FLASHINFER_MLA: [compute capability not supported], FLASHMLA_SPARSE: [non-sparse not supported]}"
    );
    assert_eq!(
        invalid_map(&platform("h200", "0.25.0"), &auto),
        "{FLASHINFER_MLA: [compute capability not supported], FLASH_ATTN_MLA_SPARSE: [non-sparse not supported, \
         FlashAttention MLA Sparse requires model with index_topk], FLASHMLA_SPARSE: [non-sparse not supported]}"
    );
    assert_eq!(
        invalid_map(&platform("h200", "0.33.0"), &auto),
        "{FLASHINFER_MLA: [compute capability not supported], FLASH_ATTN_MLA_SPARSE: [non-sparse not supported, \
         FlashAttention MLA Sparse requires model with index_topk], FLASHMLA_SPARSE: [non-sparse not supported], \
         FLASHINFER_MLA_SPARSE_SM90: [non-sparse not supported, FLASHINFER_MLA_SPARSE_SM90 requires sparse MLA]}"
    );
}

#[test]
fn deepseek_v3_on_b200() {
    for v in RELEASES {
        let p = platform("b200", v);
        let s = chosen(&p, &mla_layer(V3, 128, "auto"));
        assert_eq!(s.backend, Backend::FlashInferMla, "{v}");
        assert_eq!(names(&s.valid), ["FLASHINFER_MLA", "CUTLASS_MLA", "TRITON_MLA"], "{v}");
        let s = chosen(&p, &mla_layer(V3, 128, "fp8"));
        assert_eq!(s.backend, Backend::FlashInferMla, "{v}");
        assert_eq!(
            names(&s.valid),
            ["FLASHINFER_MLA", "TOKENSPEED_MLA", "CUTLASS_MLA", "TRITON_MLA"],
            "{v}"
        );
    }
    for v in ["0.24.0", "0.33.0"] {
        assert_eq!(
            invalid_map(&platform("b200", v), &mla_layer(V3, 128, "auto")),
            "{TOKENSPEED_MLA: [kv_cache_dtype not supported], FLASH_ATTN_MLA: [compute capability not supported, \
             FlashAttention MLA not supported on this device], FLASHMLA: [FlashMLA Dense is only supported on Hopper \
             devices.], FLASHMLA_SPARSE: [non-sparse not supported], FLASHINFER_MLA_SPARSE: [non-sparse not \
             supported, FlashInfer MLA Sparse requires model with index_topk config]}",
            "{v}"
        );
    }
}

#[test]
fn deepseek_v3_on_sm120() {
    for v in RELEASES {
        let p = platform("rtx-pro-6000-blackwell", v);
        for kv in ["auto", "fp8"] {
            let l = mla_layer(V3, 128, kv);
            let s = chosen(&p, &l);
            assert_eq!(s.backend, Backend::TritonMla, "{v} {kv}");
            assert_eq!(names(&s.valid), ["TRITON_MLA"], "{v} {kv}");
            assert_eq!(
                invalid_map(&p, &l),
                "{FLASHINFER_MLA_SPARSE_SM120: [non-sparse not supported, FLASHINFER_MLA_SPARSE_SM120 requires a \
                 model with index_topk config]}",
                "{v} {kv}"
            );
        }
    }
}

#[test]
fn kimi_k2_eight_heads_per_rank() {
    // Kimi-K2 (64 heads) at TP 8: as DeepSeek-V3 on the same GPU; the few-heads order only moves the sparse pair.
    for v in ["0.24.0", "0.33.0"] {
        let l = mla_layer(V3, 8, "auto");
        assert_eq!(chosen(&platform("h200", v), &l).backend, Backend::FlashAttnMla);
        assert_eq!(chosen(&platform("b200", v), &l).backend, Backend::FlashInferMla);
        assert_eq!(chosen(&platform("rtx-pro-6000-blackwell", v), &l).backend, Backend::TritonMla);
    }
    let p = platform("b200", "0.33.0");
    let l = mla_layer(V3, 8, "auto");
    assert_eq!(
        selection::reasons(&p, Backend::FlashAttnMlaSparseFa4, &l),
        [
            "non-sparse not supported",
            "FA4 sparse MLA requires index_topk % 128 == 0, got None"
        ]
    );
}

#[test]
fn deepseek_v2_lite_on_l4() {
    let l = mla_layer(V2_LITE, 16, "auto");
    for v in RELEASES {
        let p = platform("l4", v);
        let s = chosen(&p, &l);
        assert_eq!(s.backend, Backend::TritonMla, "{v}");
        assert_eq!(names(&s.valid), ["TRITON_MLA"], "{v}");
    }
    let head = "{FLASH_ATTN_MLA: [compute capability not supported, FlashAttention MLA not supported on this device], \
                FLASHMLA: [compute capability not supported, FlashMLA Dense is only supported on Hopper devices.], \
                FLASHINFER_MLA: [compute capability not supported]";
    assert_eq!(
        invalid_map(&platform("l4", "0.24.0"), &l),
        format!("{head}, FLASHMLA_SPARSE: [non-sparse not supported, compute capability not supported]}}")
    );
    assert_eq!(
        invalid_map(&platform("l4", "0.33.0"), &l),
        format!(
            "{head}, FLASH_ATTN_MLA_SPARSE: [non-sparse not supported, compute capability not supported, \
             FlashAttention MLA not supported on this device], FLASHMLA_SPARSE: [non-sparse not supported, compute \
             capability not supported], FLASHINFER_MLA_SPARSE_SM90: [non-sparse not supported, compute capability \
             not supported, FLASHINFER_MLA_SPARSE_SM90 requires sparse MLA]}}"
        )
    );
}

// ---- DeepSeek-V3.2 (sparse) ----

#[test]
fn deepseek_v32_on_h200_fp8_ds_mla() {
    for v in RELEASES {
        let s = chosen(&platform("h200", v), &mla_layer(V32, 128, "fp8_ds_mla"));
        assert_eq!(s.backend, Backend::FlashMlaSparse, "{v}");
        assert_eq!(names(&s.valid), ["FLASHMLA_SPARSE"], "{v}");
        assert_eq!(mla::canonical_kv(release(v), s.backend, "fp8_ds_mla"), None, "{v}");
    }
}

#[test]
fn deepseek_v32_on_h200_fp8_e4m3_refused_until_the_sm90_variant() {
    let l = mla_layer(V32, 128, "fp8_e4m3");
    let err = selection::select(&platform("h200", "0.24.0"), None, &l).unwrap_err();
    assert!(!err.forced);
    assert_eq!(
        err.message,
        "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, dtype=torch.bfloat16, \
         kv_cache_dtype=fp8_e4m3, block_size=None, use_mla=True, has_sink=False, use_sparse=True, \
         use_mm_prefix=False, use_per_head_quant_scales=False, attn_type=AttentionType.DECODER, \
         use_non_causal=False, use_batch_invariant=False, use_kv_connector=False). Reasons: {FLASH_ATTN_MLA: \
         [kv_cache_dtype not supported, sparse not supported], FLASHMLA: [sparse not supported], FLASHINFER_MLA: \
         [sparse not supported, compute capability not supported], TRITON_MLA: [sparse not supported], \
         FLASHMLA_SPARSE: [kv_cache_dtype not supported]}."
    );
    let err = selection::select(&platform("h200", "0.29.0"), None, &l).unwrap_err();
    assert_eq!(
        err.message,
        "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, dtype=torch.bfloat16, \
         kv_cache_dtype=fp8_e4m3, block_size=None, use_mla=True, has_sink=False, use_sparse=True, \
         use_mm_prefix=False, use_per_head_quant_scales=False, attn_type=AttentionType.DECODER, \
         has_sliding_window=False, use_non_causal=False, use_batch_invariant=False, use_kv_connector=False, \
         use_adaptive_verification=False, use_pcp=False, use_dcp=False). Reasons: {FLASH_ATTN_MLA: \
         [kv_cache_dtype not supported, sparse not supported], FLASHMLA: [sparse not supported], FLASHINFER_MLA: \
         [sparse not supported, compute capability not supported], TRITON_MLA: [sparse not supported], \
         FLASH_ATTN_MLA_SPARSE: [kv_cache_dtype not supported, FlashAttention MLA Sparse currently supports only \
         FP16/BF16 KV cache], FLASHMLA_SPARSE: [kv_cache_dtype not supported]}."
    );
    for v in ["0.30.0", "0.33.0"] {
        let s = chosen(&platform("h200", v), &l);
        assert_eq!(s.backend, Backend::FlashInferMlaSparseSm90, "{v}");
        assert_eq!(names(&s.valid), ["FLASHINFER_MLA_SPARSE_SM90"], "{v}");
        // It keeps fp8_e4m3 (no cache-format rewrite).
        assert_eq!(mla::canonical_kv(release(v), s.backend, "fp8_e4m3"), None);
    }
}

#[test]
fn deepseek_v32_on_h200_auto_and_fp8() {
    let auto = mla_layer(V32, 128, "auto");
    assert_eq!(names(&chosen(&platform("h200", "0.24.0"), &auto).valid), ["FLASHMLA_SPARSE"]);
    assert_eq!(
        names(&chosen(&platform("h200", "0.25.0"), &auto).valid),
        ["FLASH_ATTN_MLA_SPARSE", "FLASHMLA_SPARSE"]
    );
    assert_eq!(
        names(&chosen(&platform("h200", "0.33.0"), &auto).valid),
        ["FLASH_ATTN_MLA_SPARSE", "FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM90"]
    );
    // fp8: FLASHMLA_SPARSE takes the alias and serves it as fp8_ds_mla.
    for v in ["0.24.0", "0.30.0", "0.33.0"] {
        let s = chosen(&platform("h200", v), &mla_layer(V32, 128, "fp8"));
        assert_eq!(s.backend, Backend::FlashMlaSparse, "{v}");
        assert_eq!(mla::canonical_kv(release(v), s.backend, "fp8"), Some("fp8_ds_mla"), "{v}");
    }
    assert_eq!(
        names(&chosen(&platform("h200", "0.30.0"), &mla_layer(V32, 128, "fp8")).valid),
        ["FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM90"]
    );
}

#[test]
fn deepseek_v32_on_b200() {
    for v in ["0.24.0", "0.33.0"] {
        let p = platform("b200", v);
        let s = chosen(&p, &mla_layer(V32, 128, "fp8_ds_mla"));
        assert_eq!(s.backend, Backend::FlashMlaSparse, "{v}");
        assert_eq!(names(&s.valid), ["FLASHMLA_SPARSE"], "{v}");
        assert_eq!(
            s.rejected.last().unwrap(),
            &(
                Backend::FlashInferMlaSparse,
                vec![
                    "kv_cache_dtype not supported".to_string(),
                    "FLASHINFER_MLA_SPARSE SM10 does not support fp8_ds_mla kv-cache dtype".to_string()
                ]
            ),
            "{v}"
        );
        let s = chosen(&p, &mla_layer(V32, 128, "fp8_e4m3"));
        assert_eq!(s.backend, Backend::FlashInferMlaSparse, "{v}");
        assert_eq!(names(&s.valid), ["FLASHINFER_MLA_SPARSE"], "{v}");
        let s = chosen(&p, &mla_layer(V32, 128, "auto"));
        assert_eq!(names(&s.valid), ["FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE"], "{v}");
    }
    // TP 8 (16 heads per rank), auto: FLASHINFER_MLA_SPARSE; 0.33.0 FA4's sparse decode first.
    let l = mla_layer(V32, 16, "auto");
    assert_eq!(
        names(&chosen(&platform("b200", "0.32.0"), &l).valid),
        ["FLASHINFER_MLA_SPARSE", "FLASHMLA_SPARSE"]
    );
    let s = chosen(&platform("b200", "0.33.0"), &l);
    assert_eq!(s.backend, Backend::FlashAttnMlaSparseFa4);
    assert_eq!(
        names(&s.valid),
        ["FLASH_ATTN_MLA_SPARSE_FA4", "FLASHINFER_MLA_SPARSE", "FLASHMLA_SPARSE"]
    );
    // With an fp8 cache FA4 is not on the list, and with 32 heads per rank it is not either.
    assert_eq!(
        chosen(&platform("b200", "0.33.0"), &mla_layer(V32, 16, "fp8")).backend,
        Backend::FlashInferMlaSparse
    );
}

#[test]
fn deepseek_v32_on_sm120_is_served_as_fp8_ds_mla() {
    for v in ["0.24.0", "0.33.0"] {
        let p = platform("rtx-pro-6000-blackwell", v);
        for kv in ["auto", "fp8", "fp8_e4m3", "fp8_ds_mla"] {
            let s = chosen(&p, &mla_layer(V32, 128, kv));
            assert_eq!(s.backend, Backend::FlashInferMlaSparseSm120, "{v} {kv}");
            let expect = (kv != "fp8_ds_mla").then_some("fp8_ds_mla");
            assert_eq!(mla::canonical_kv(release(v), s.backend, kv), expect, "{v} {kv}");
        }
        // index_topk must be 2048.
        let other = MlaDims {
            index_topk: Some(1024),
            ..V32
        };
        assert_eq!(
            selection::reasons(&p, Backend::FlashInferMlaSparseSm120, &mla_layer(other, 128, "auto")),
            ["FLASHINFER_MLA_SPARSE_SM120 requires index_topk=2048; got 1024"]
        );
    }
}

#[test]
fn flashmla_sparse_cache_formats() {
    // Any quantized dtype it accepts becomes fp8_ds_mla; 0.30.0+ nvfp4_ds_mla is kept, and only on 10.x.
    assert_eq!(
        mla::canonical_kv(release("0.24.0"), Backend::FlashMlaSparse, "fp8"),
        Some("fp8_ds_mla")
    );
    assert_eq!(mla::canonical_kv(release("0.24.0"), Backend::FlashMlaSparse, "auto"), None);
    assert_eq!(
        mla::canonical_kv(release("0.24.0"), Backend::FlashMlaSparse, "bfloat16"),
        None
    );
    assert_eq!(
        mla::canonical_kv(release("0.30.0"), Backend::FlashMlaSparse, "nvfp4_ds_mla"),
        None
    );
    assert_eq!(
        mla::canonical_kv(release("0.24.0"), Backend::FlashInferMlaSparse, "fp8"),
        None
    );
    let nvfp4 = mla_layer(V32, 128, "nvfp4_ds_mla");
    assert_eq!(
        selection::reasons(&platform("h200", "0.30.0"), Backend::FlashMlaSparse, &nvfp4),
        ["FLASHMLA_SPARSE only supports the nvfp4_ds_mla kv-cache dtype on SM100 (Blackwell)"]
    );
    assert!(selection::reasons(&platform("b200", "0.30.0"), Backend::FlashMlaSparse, &nvfp4).is_empty());
    assert_eq!(
        selection::reasons(&platform("b200", "0.29.0"), Backend::FlashMlaSparse, &nvfp4),
        ["kv_cache_dtype not supported"]
    );
}

// ---- forced backends ----

#[test]
fn cutlass_mla_forced_on_h100() {
    for v in ["0.24.0", "0.33.0"] {
        let p = platform("h100-sxm", v);
        let err = selection::select(&p, Some(Backend::CutlassMla), &mla_layer(V3, 128, "auto")).unwrap_err();
        assert!(err.forced);
        assert_eq!(
            err.message,
            "Selected backend AttentionBackendEnum.CUTLASS_MLA is not valid for this configuration. Reason: \
             ['compute capability not supported']"
        );
        let err = selection::select(&p, Some(Backend::CutlassMla), &mla_layer(V32, 128, "auto")).unwrap_err();
        assert_eq!(
            err.message,
            "Selected backend AttentionBackendEnum.CUTLASS_MLA is not valid for this configuration. Reason: \
             ['sparse not supported', 'compute capability not supported']"
        );
    }
    // On a B200 it is valid.
    let s = selection::select(
        &platform("b200", "0.24.0"),
        Some(Backend::CutlassMla),
        &mla_layer(V3, 128, "auto"),
    );
    assert_eq!(s.unwrap().backend, Backend::CutlassMla);
}

#[test]
fn non_mla_backends_meet_an_mla_layer() {
    // The generic "MLA not supported" after the head-size / dtype / cache-dtype / block-size reasons, and "sparse not
    // supported" right after it for a sparse layer.
    for v in ["0.24.0", "0.33.0"] {
        let p = platform("h100-sxm", v);
        let dense = mla_layer(V3, 128, "auto");
        let sparse = mla_layer(V32, 128, "fp8_ds_mla");
        for b in [
            Backend::FlashAttn,
            Backend::FlashInfer,
            Backend::TritonAttn,
            Backend::FlexAttention,
        ] {
            let why = selection::reasons(&p, b, &dense);
            let at = why
                .iter()
                .position(|r| r == "MLA not supported")
                .unwrap_or_else(|| panic!("{v} {b} {why:?}"));
            assert!(
                why[..at].iter().all(|r| r.ends_with("not supported") && !r.contains("MLA")),
                "{v} {b} {why:?}"
            );
            assert!(!why.iter().any(|r| r == "sparse not supported"), "{v} {b}");
            let why = selection::reasons(&p, b, &sparse);
            let at = why.iter().position(|r| r == "MLA not supported").unwrap();
            assert_eq!(why[at + 1], "sparse not supported", "{v} {b} {why:?}");
            assert!(
                why[..at].contains(&"kv_cache_dtype not supported".to_string()),
                "{v} {b} {why:?}"
            );
        }
        // TRITON_ATTN takes head size 576 and bfloat16: its only reason is the MLA one.
        assert_eq!(
            selection::reasons(&p, Backend::TritonAttn, &dense),
            ["MLA not supported"],
            "{v}"
        );
        let err = selection::select(&p, Some(Backend::TritonAttn), &sparse).unwrap_err();
        assert_eq!(
            err.message,
            "Selected backend AttentionBackendEnum.TRITON_ATTN is not valid for this configuration. Reason: \
             ['kv_cache_dtype not supported', 'MLA not supported', 'sparse not supported']",
            "{v}"
        );
    }
}

#[test]
fn mla_backends_meet_a_non_mla_model_end_to_end() {
    // Llama forced onto FLASHMLA on an H100: head size 128 and "non-MLA not supported".
    for v in ["0.24.0", "0.33.0"] {
        let rep = common::run(
            "h100-sxm",
            v,
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHMLA",
        );
        let e = rep.error.unwrap();
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(
            e.message,
            "Selected backend AttentionBackendEnum.FLASHMLA is not valid for this configuration. Reason: \
             ['head_size not supported', 'non-MLA not supported']",
            "{v}"
        );
        assert_eq!(
            e.source.as_deref(),
            Some(if v == "0.24.0" {
                "vllm/platforms/cuda.py:415"
            } else {
                "vllm/platforms/cuda.py:443"
            })
        );
    }
    // On a B200 FlashMLA's dense check adds its text; FLASHINFER_MLA reads qk_nope_head_dim with default 1,
    // TOKENSPEED_MLA the three dims with default 0.
    let reason = |gpu: &str, v: &str, backend: &str| {
        let cmd = format!("vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend {backend}");
        common::run(gpu, v, &cmd).error.unwrap().message
    };
    assert!(reason("b200", "0.24.0", "FLASHMLA").ends_with(
        "Reason: ['head_size not supported', 'non-MLA not supported', 'FlashMLA Dense is only supported on Hopper \
         devices.']"
    ));
    assert!(reason("b200", "0.33.0", "FLASHINFER_MLA").ends_with(
        "Reason: ['head_size not supported', 'non-MLA not supported', 'FlashInfer MLA kernel requires \
         qk_nope_head_dim in [64, 128, 192], but got 1']"
    ));
    assert!(reason("b200", "0.33.0", "TOKENSPEED_MLA").ends_with(
        "Reason: ['head_size not supported', 'kv_cache_dtype not supported', 'non-MLA not supported', \
         'tokenspeed_mla requires DeepSeek R1 MLA dimensions (qk_nope_head_dim=128, qk_rope_head_dim=64, \
         v_head_dim=128), got (0, 0, 0)']"
    ));
    assert!(reason("h100-sxm", "0.33.0", "FLASHMLA_SPARSE")
        .ends_with("Reason: ['head_size not supported', 'non-MLA not supported', 'non-sparse not supported']"));
    // 0.24.0 – 0.29.0 FLASHINFER_MLA_SPARSE reads qk_nope_head_dim with default 1; 0.30.0+ without a default, which
    // raises AttributeError for a non-MLA config: qpath says it cannot spell that.
    assert!(reason("b200", "0.29.0", "FLASHINFER_MLA_SPARSE").ends_with(
        "Reason: ['head_size not supported', 'non-MLA not supported', 'non-sparse not supported', 'FlashInfer MLA \
         Sparse kernel requires qk_nope_head_dim in [128, 192], but got 1']"
    ));
    let rep = common::run(
        "b200",
        "0.30.0",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER_MLA_SPARSE",
    );
    let e = rep.error.unwrap();
    assert_eq!(e.kind, ScenarioErrorKind::InputError);
    assert!(e.message.starts_with("qpath cannot model this: "), "{}", e.message);
    assert!(e.message.contains("AttributeError"));
    assert_eq!(
        e.source.as_deref(),
        Some("vllm/v1/attention/backends/mla/flashinfer_mla_sparse.py:134")
    );
}

#[test]
fn fp8_ds_mla_on_a_non_mla_model() {
    for (v, line, backends) in [
        (
            "0.24.0",
            444,
            "FLASH_ATTN: [kv_cache_dtype not supported], FLASHINFER: [kv_cache_dtype not supported], TRITON_ATTN: \
             [kv_cache_dtype not supported], FLEX_ATTENTION: [kv_cache_dtype not supported], TURBOQUANT: \
             [kv_cache_dtype not supported]",
        ),
        (
            "0.33.0",
            472,
            "FLASH_ATTN: [kv_cache_dtype not supported], FLASHINFER: [kv_cache_dtype not supported], TRITON_ATTN: \
             [kv_cache_dtype not supported], FLEX_ATTENTION: [kv_cache_dtype not supported], TURBOQUANT: \
             [kv_cache_dtype not supported]",
        ),
    ] {
        let rep = common::run(
            "h100-sxm",
            v,
            "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8_ds_mla",
        );
        let e = rep.error.unwrap();
        assert_eq!(e.kind, ScenarioErrorKind::ValueError, "{v}");
        assert!(
            e.message.starts_with(
                "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=128, \
                 dtype=torch.bfloat16, kv_cache_dtype=fp8_ds_mla, block_size=None, use_mla=False, has_sink=False, \
                 use_sparse=False,"
            ),
            "{v}: {}",
            e.message
        );
        assert!(
            e.message.ends_with(&format!("Reasons: {{{backends}}}.")),
            "{v}: {}",
            e.message
        );
        assert_eq!(e.source, Some(format!("vllm/platforms/cuda.py:{line}")), "{v}");
    }
}

// ---- other generic reasons ----

#[test]
fn dcp_batch_invariance_and_non_causal() {
    // 0.30.0+: "DCP not supported" for the impls without supports_dcp (FLASH_ATTN_MLA_SPARSE, the SM90 and SM120
    // FlashInfer variants); FLASH_ATTN_MLA_SPARSE's own text too. 0.29.0 had neither generic reason.
    let mut l = mla_layer(V32, 128, "auto");
    l.use_dcp = true;
    let mut p = platform("h200", "0.30.0");
    p.dcp = 2;
    assert_eq!(
        selection::reasons(&p, Backend::FlashAttnMlaSparse, &l),
        ["DCP not supported", "FlashAttention MLA Sparse does not support DCP for now"]
    );
    assert_eq!(
        selection::reasons(&p, Backend::FlashInferMlaSparseSm90, &l),
        ["DCP not supported"]
    );
    assert!(selection::reasons(&p, Backend::FlashMlaSparse, &l).is_empty());
    assert_eq!(chosen(&p, &l).backend, Backend::FlashMlaSparse);
    let mut p29 = platform("h200", "0.29.0");
    p29.dcp = 2;
    assert_eq!(
        selection::reasons(&p29, Backend::FlashAttnMlaSparse, &l),
        ["FlashAttention MLA Sparse does not support DCP for now"]
    );
    // Batch invariance: only TRITON_MLA and FLASH_ATTN_MLA support it, so a B200 falls to TRITON_MLA.
    let mut b = platform("b200", "0.24.0");
    b.batch_invariant = true;
    let s = chosen(&b, &mla_layer(V3, 128, "auto"));
    assert_eq!(s.backend, Backend::TritonMla);
    assert_eq!(
        s.rejected[0],
        (Backend::FlashInferMla, vec!["batch invariance not supported".to_string()])
    );
    // Non-causal: FLASHINFER_MLA from 0.27.0 (TRITON_MLA too); 0.29.0+ with DCP also the builder's flag.
    let mut nc = mla_layer(V3, 128, "auto");
    nc.use_non_causal = true;
    assert_eq!(
        selection::reasons(&platform("b200", "0.26.0"), Backend::FlashInferMla, &nc),
        ["non-causal attention not supported"]
    );
    assert!(selection::reasons(&platform("b200", "0.27.0"), Backend::FlashInferMla, &nc).is_empty());
    nc.use_dcp = true;
    assert_eq!(
        selection::reasons(&platform("b200", "0.29.0"), Backend::CutlassMla, &nc),
        [
            "non-causal attention not supported",
            "non-causal MLA attention with DCP not supported"
        ]
    );
    assert!(selection::reasons(&platform("b200", "0.29.0"), Backend::FlashInferMla, &nc).is_empty());
}

// ---- block sizes ----

#[test]
fn kernel_block_sizes_and_the_preferred_block_size() {
    let pref = |b: Backend, v: &str| mla::sizes(b, release(v)).unwrap().0.preferred();
    for v in ["0.24.0", "0.33.0"] {
        for (b, want) in [
            (Backend::FlashMla, 64),
            (Backend::FlashMlaSparse, 64),
            (Backend::CutlassMla, 128),
            (Backend::FlashInferMla, 32),
            (Backend::FlashInferMlaSparse, 32),
            (Backend::FlashInferMlaSparseSm120, 64),
            (Backend::TritonMla, 16),
            (Backend::FlashAttnMla, 16),
            (Backend::TokenspeedMla, 32),
            (Backend::DeepseekV32Indexer, 64),
        ] {
            assert_eq!(pref(b, v), want, "{v} {b}");
        }
    }
    assert_eq!(pref(Backend::FlashAttnMlaSparse, "0.25.0"), 64);
    assert_eq!(pref(Backend::FlashInferMlaSparseSm90, "0.30.0"), 64);
    assert_eq!(pref(Backend::FlashAttnMlaSparseFa4, "0.33.0"), 64);
    let show = |b: Backend, v: &str| mla::sizes(b, release(v)).unwrap().0.show();
    assert_eq!(show(Backend::FlashInferMlaSparse, "0.31.0"), "[32, 64]");
    assert_eq!(show(Backend::FlashInferMlaSparse, "0.32.0"), "[MultipleOf(32)]");
    assert_eq!(show(Backend::FlashInferMlaSparseSm120, "0.24.0"), "[64, 256]");
    assert_eq!(show(Backend::FlashMlaSparse, "0.32.0"), "[MultipleOf(64)]");
    // A user's --block-size that is not a multiple of a kernel size: "block_size not supported".
    let mut l = mla_layer(V3, 128, "auto");
    l.block_size = Some(16);
    let p = platform("b200", "0.33.0");
    let s = chosen(&p, &l);
    assert_eq!(s.backend, Backend::TritonMla);
    assert_eq!(names(&s.precluded), ["FLASHINFER_MLA", "CUTLASS_MLA"]);
    assert_eq!(
        s.precluded_warning(Some(16)).unwrap(),
        "--block-size 16 precluded higher-priority backend(s) FLASHINFER_MLA, CUTLASS_MLA. Using TRITON_MLA instead, \
         which may result in reduced performance. Consider removing --block-size to auto-select the optimal block \
         size."
    );
    l.block_size = Some(64);
    let s = chosen(&p, &l);
    assert_eq!(s.backend, Backend::FlashInferMla);
    assert!(s.precluded_warning(Some(64)).is_none());
}

#[test]
fn block_size_from_the_first_backend_then_from_all() {
    let sizes_of = |v: &'static str| move |b: Backend| mla::sizes(b, release(v)).map(|(s, _)| s);
    let pick = |v: &'static str, backends: &[Backend]| {
        let mut t = Trace::new(release(v));
        mla::preferred_block_size(release(v), backends, &sizes_of(v), &mut t).unwrap()
    };
    let sparse = [Backend::DeepseekV32Indexer, Backend::FlashMlaSparse];
    assert_eq!(
        pick("0.24.0", &sparse),
        (
            64,
            Some("Setting kv cache block size to 64 for DEEPSEEK_V32_INDEXER backend.".into())
        )
    );
    assert_eq!(
        pick("0.30.0", &[Backend::DeepseekV32Indexer, Backend::FlashInferMlaSparseSm90]),
        (
            64,
            Some("Setting kv cache block size to 64 for DEEPSEEK_V32_INDEXER backend.".into())
        )
    );
    assert_eq!(
        pick("0.31.0", &sparse),
        (
            64,
            Some("Setting kv cache block size to 64 for DEEPSEEK_V32_INDEXER/FLASHMLA_SPARSE backend(s).".into())
        )
    );
    assert_eq!(
        pick("0.33.0", &[Backend::DeepseekV32Indexer, Backend::FlashInferMlaSparse]),
        (
            64,
            Some("Setting kv cache block size to 64 for DEEPSEEK_V32_INDEXER/FLASHINFER_MLA_SPARSE backend(s).".into())
        )
    );
    assert_eq!(
        pick("0.24.0", &[Backend::FlashInferMla]),
        (
            32,
            Some("Setting kv cache block size to 32 for FLASHINFER_MLA backend.".into())
        )
    );
    assert_eq!(
        pick("0.33.0", &[Backend::FlashInferMla]),
        (
            32,
            Some("Setting kv cache block size to 32 for FLASHINFER_MLA backend(s).".into())
        )
    );
    assert_eq!(pick("0.33.0", &[Backend::CutlassMla]).0, 128);
    assert_eq!(pick("0.33.0", &[Backend::FlashAttnMla]), (16, None));
    assert_eq!(pick("0.24.0", &[Backend::TritonMla]), (16, None));
    // 0.31.0+ two backends that do not both take 16: the smallest LCM both take.
    assert_eq!(
        pick("0.31.0", &[Backend::FlashMla, Backend::CutlassMla]),
        (
            128,
            Some("Setting kv cache block size to 128 for FLASHMLA/CUTLASS_MLA backend(s).".into())
        )
    );
    // 0.24.0 – 0.30.0 read only the first.
    assert_eq!(pick("0.30.0", &[Backend::FlashMla, Backend::CutlassMla]).0, 64);
    assert_eq!(pick("0.31.0", &[Backend::TritonMla, Backend::FlashAttnMla]), (16, None));
}

// ---- the other supports_combination texts, at their first release ----

#[test]
fn combination_texts_at_their_first_release() {
    let nope = MlaDims {
        qk_rope_head_dim: 0,
        ..V32
    };
    // FLASHMLA_SPARSE, head size 512 (a rope-free GLM5Next-style model): 0.31.0 bf16 on 9.x only; 0.32.0 also
    // fp8_ds_mla; a config with rope is refused on 9.x.
    let l = |dims: MlaDims, kv: &str| mla_layer(dims, 64, kv);
    assert!(selection::reasons(&platform("h200", "0.31.0"), Backend::FlashMlaSparse, &l(nope, "auto")).is_empty());
    assert_eq!(
        selection::reasons(&platform("h200", "0.30.0"), Backend::FlashMlaSparse, &l(nope, "auto")),
        ["head_size not supported"]
    );
    assert_eq!(
        selection::reasons(&platform("h200", "0.31.0"), Backend::FlashMlaSparse, &l(nope, "fp8_ds_mla")),
        [
            "FLASHMLA_SPARSE supports head_size 512 only with bf16 kv-cache on SM90 (NoPE), got \
             kv_cache_dtype=fp8_ds_mla, capability=DeviceCapability(major=9, minor=0)"
        ]
    );
    assert!(selection::reasons(&platform("h200", "0.32.0"), Backend::FlashMlaSparse, &l(nope, "fp8_ds_mla")).is_empty());
    assert_eq!(
        selection::reasons(&platform("b200", "0.33.0"), Backend::FlashMlaSparse, &l(nope, "auto")),
        [
            "FLASHMLA_SPARSE supports head_size 512 only with bf16 or fp8_ds_mla kv-cache on SM90 (NoPE), got \
             kv_cache_dtype=auto, capability=DeviceCapability(major=10, minor=0)"
        ]
    );
    let roped_512 = MlaDims {
        kv_lora_rank: 448,
        ..V32
    };
    assert_eq!(
        selection::reasons(&platform("h200", "0.31.0"), Backend::FlashMlaSparse, &l(roped_512, "auto")),
        ["FLASHMLA_SPARSE supports head_size 512 only for rope-free (NoPE) models"]
    );
    // FLASHINFER_MLA_SPARSE: 0.30.0 the native no-rope shape; qk_nope_head_dim in [128, 192].
    assert_eq!(
        selection::reasons(&platform("b200", "0.30.0"), Backend::FlashInferMlaSparse, &l(nope, "auto")),
        [
            "FlashInfer native no-rope MLA requires qk_nope_head_dim=256 and kv_lora_rank=512, but got \
             qk_nope_head_dim=128, kv_lora_rank=512"
        ]
    );
    assert_eq!(
        selection::reasons(&platform("b200", "0.29.0"), Backend::FlashInferMlaSparse, &l(nope, "auto")),
        ["head_size not supported"]
    );
    let nope64 = MlaDims {
        qk_nope_head_dim: 64,
        ..V32
    };
    assert_eq!(
        selection::reasons(&platform("b200", "0.24.0"), Backend::FlashInferMlaSparse, &l(nope64, "auto")),
        ["FlashInfer MLA Sparse kernel requires qk_nope_head_dim in [128, 192], but got 64"]
    );
    // FLASHINFER_MLA: qk_nope_head_dim in [64, 128, 192].
    let nope96 = MlaDims {
        qk_nope_head_dim: 96,
        ..V3
    };
    assert_eq!(
        selection::reasons(&platform("b200", "0.24.0"), Backend::FlashInferMla, &l(nope96, "auto")),
        ["FlashInfer MLA kernel requires qk_nope_head_dim in [64, 128, 192], but got 96"]
    );
    // SM90 (0.30.0): kv_lora_rank 512, qk_rope_head_dim 0 or 64; an older FlashInfer lacks the API.
    let small = MlaDims {
        kv_lora_rank: 256,
        qk_rope_head_dim: 64,
        ..V32
    };
    let p30 = platform("h200", "0.30.0");
    assert_eq!(
        selection::reasons(&p30, Backend::FlashInferMlaSparseSm90, &l(small, "auto")),
        [
            "head_size not supported",
            "FLASHINFER_MLA_SPARSE_SM90 requires kv_lora_rank=512"
        ]
    );
    let mut old_fi = platform("h200", "0.30.0");
    old_fi.flashinfer = release("0.28.0").flashinfer_pin();
    assert_eq!(
        selection::reasons(&old_fi, Backend::FlashInferMlaSparseSm90, &l(V32, "auto")),
        [
            "FLASHINFER_MLA_SPARSE_SM90 requires FlashInfer with SM90 MLA support (ckv_scale_arr in \
             BatchMLAPagedAttentionWrapper.run, FlashInfer >= 0.6.18)"
        ]
    );
    // TOKENSPEED_MLA: DeepSeek R1's dims only.
    let glm = MlaDims {
        qk_nope_head_dim: 192,
        v_head_dim: 256,
        ..V3
    };
    assert_eq!(
        selection::reasons(&platform("b200", "0.24.0"), Backend::TokenspeedMla, &l(glm, "fp8")),
        [
            "tokenspeed_mla requires DeepSeek R1 MLA dimensions (qk_nope_head_dim=128, qk_rope_head_dim=64, \
             v_head_dim=128), got (192, 64, 256)"
        ]
    );
    // FLASH_ATTN_MLA_SPARSE_FA4 (0.33.0): heads per rank x DCP, index_topk, then FLASHINFER_MLA_SPARSE's under its name.
    let p33 = platform("b200", "0.33.0");
    assert_eq!(
        selection::reasons(&p33, Backend::FlashAttnMlaSparseFa4, &mla_layer(V32, 12, "auto")),
        ["FA4 sparse MLA requires (8, 16, 32, 64, 128) gathered query heads, got num_heads=12 * dcp_size=1"]
    );
    let topk = MlaDims {
        index_topk: Some(2000),
        ..V32
    };
    assert_eq!(
        selection::reasons(&p33, Backend::FlashAttnMlaSparseFa4, &mla_layer(topk, 16, "auto")),
        ["FA4 sparse MLA requires index_topk % 128 == 0, got 2000"]
    );
    assert_eq!(
        selection::reasons(&p33, Backend::FlashAttnMlaSparseFa4, &mla_layer(V32, 16, "fp8_ds_mla")),
        [
            "kv_cache_dtype not supported",
            "FLASH_ATTN_MLA_SPARSE_FA4 SM10 does not support fp8_ds_mla kv-cache dtype"
        ]
    );
    assert_eq!(
        selection::reasons(
            &platform("h200", "0.33.0"),
            Backend::FlashAttnMlaSparseFa4,
            &mla_layer(V32, 16, "auto")
        ),
        ["compute capability not supported"]
    );
    // FLASHMLA on a sparse layer off 9.x / 10.x.
    assert_eq!(
        selection::reasons(&platform("l4", "0.24.0"), Backend::FlashMla, &mla_layer(V32, 16, "auto")),
        [
            "sparse not supported",
            "compute capability not supported",
            "FlashMLA Sparse is only supported on Hopper and Blackwell DC devices."
        ]
    );
    // A float16 model: the bfloat16-only sparse backends refuse it.
    let mut f16 = platform("h200", "0.24.0");
    f16.model_dtype = TorchDtype::Float16;
    assert_eq!(
        selection::reasons(&f16, Backend::FlashMlaSparse, &mla_layer(V32, 128, "auto")),
        ["dtype not supported"]
    );
    assert!(selection::reasons(&f16, Backend::FlashMla, &mla_layer(V3, 128, "auto")).is_empty());
}
