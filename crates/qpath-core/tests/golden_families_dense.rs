//! Golden cases for the dense attention-only families read from config.json (model/config_json/dense.rs): GLM-4.5 /
//! 4.6 / 4.7 (`Glm4MoeForCausalLM`, glm4_moe.py), Mistral 3 / Ministral 3 (`Mistral3ForConditionalGeneration`,
//! mistral3.py building mistral.py's `MistralForCausalLM` from text_config) and Phi-4 (`Phi3ForCausalLM`, phi3.py, a
//! `LlamaForCausalLM` subclass). All are registered in every release 0.20.0-0.33.0, so each is pinned at the first
//! release qpath covers and the latest, on H100 (FLASH_ATTN, FA3) and B200 (FLASHINFER, TRTLLM-gen).
//!
//! Fixtures (tests/fixtures/), with their sources:
//! - glm-4.7-fp8.aiconfigurator.config.json: ai-dynamo/aiconfigurator
//!   src/aiconfigurator/model_configs/zai-org--GLM-4.7-FP8_config.json @ a0ba9ec6d14e3d4ecd5d8d5468142c290634391d,
//!   copied unchanged (a reduced copy of zai-org/GLM-4.7-FP8's config.json: GLM-4.7 is GLM-4.5's architecture).
//! - glm-4.5-air.restated.config.json: zai-org/GLM-4.5-Air's config.json as a public ms-swift log prints it
//!   (`Glm4MoeConfig {...}`, transformers 4.54.1; the code index does not name the repository).
//! - ministral-3-8b-instruct-2512.minimal.config.json: no public copy of the file was found; a minimal config with
//!   the fields pufanyi/Megatron-Bridge docs/models/vlm/ministral3.md documents for Ministral 3 8B (34 layers, hidden
//!   4096, 32 heads, 8 KV heads) and `Ministral3Config`'s head_dim 128 (its defaults are the 8B's).
//! - phi-4.restated.config.json: microsoft/phi-4's config.json as a public transformers tutorial quotes it (repository
//!   not named by the code index), comments removed.
//! - phi-4-mini-instruct.restated.config.json: the fields of microsoft/Phi-4-mini-instruct's config.json a public
//!   planner restates (repository not named by the code index); rope_scaling (longrope factors) left out, qpath does
//!   not read it.

mod common;
use qpath_core::release::Release;
use qpath_core::report::{AttentionKind, Backend, GroupRole, Kernel, Phases, Report, ScenarioErrorKind, Verdict};

const GLM47: &str = include_str!("fixtures/glm-4.7-fp8.aiconfigurator.config.json");
const GLM45_AIR: &str = include_str!("fixtures/glm-4.5-air.restated.config.json");
const MINISTRAL3_8B: &str = include_str!("fixtures/ministral-3-8b-instruct-2512.minimal.config.json");
const PHI4: &str = include_str!("fixtures/phi-4.restated.config.json");
const PHI4_MINI: &str = include_str!("fixtures/phi-4-mini-instruct.restated.config.json");

fn with_config(gpu: &str, vllm: Release, command: &str, config: &str) -> Report {
    let mut o = qpath_core::options::ScenarioOptions::default();
    o.set(qpath_core::options::OptionKey::Gpu, gpu).unwrap();
    o.set(qpath_core::options::OptionKey::Vllm, vllm.name()).unwrap();
    let mut s = o.scenario(command).unwrap();
    s.model_config = Some(config.to_string());
    qpath_core::resolve::resolve(&s)
}

/// The expected single group of a dense model: kind, window, heads (q, kv), head size.
struct Shape {
    layers: u32,
    kind: AttentionKind,
    window: Option<u32>,
    heads: (u32, u32),
    head_dim: u32,
}

/// One attention group of every layer, on the backend vLLM picks for head size 128 on each GPU, with its log lines.
fn one_group(id: &str, config: &str, s: &Shape) {
    for vllm in [Release::ALL[0], Release::LATEST] {
        for (gpu, backend, kernel, list) in [
            (
                "h100-sxm",
                Backend::FlashAttn,
                Kernel::FaVarlen3Aot,
                "['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']",
            ),
            (
                "b200",
                Backend::FlashInfer,
                Kernel::TrtllmGen,
                "['FLASHINFER', 'FLASH_ATTN', 'TRITON_ATTN', 'FLEX_ATTENTION']",
            ),
        ] {
            let r = with_config(gpu, vllm, &format!("vllm serve {id}"), config);
            let at = format!("{id} {gpu} {vllm}");
            assert_eq!(r.verdict, Verdict::Serves, "{at}: {:?} {:?}", r.error, r.notes);
            assert_eq!(r.model.as_ref().map(|m| m.num_layers), Some(s.layers), "{at}");
            assert_eq!(r.groups.len(), 1, "{at}");
            let g = &r.groups[0];
            assert_eq!(g.layers, (0..s.layers).collect::<Vec<u32>>(), "{at}");
            assert_eq!((g.attention, g.sliding_window), (s.kind, s.window), "{at}");
            assert_eq!(
                (g.num_q_heads, g.num_kv_heads, g.head_dim),
                (s.heads.0, s.heads.1, s.head_dim),
                "{at}"
            );
            assert_eq!(
                (g.role, g.backend, g.cache_dtype.as_str()),
                (GroupRole::Target, backend, "auto"),
                "{at}"
            );
            assert_eq!(
                g.kernel,
                Phases {
                    prefill: Some(kernel),
                    decode: Some(kernel)
                },
                "{at}"
            );
            assert_eq!(
                r.logs,
                vec![format!(
                    "Using {} attention backend out of potential backends: {list}.",
                    backend.name()
                )],
                "{at}"
            );
            let group_logs: Vec<&str> = g.logs.iter().map(String::as_str).collect();
            let want: Vec<&str> = match (backend, vllm >= Release::LATEST) {
                (Backend::FlashAttn, _) => vec!["Using FlashAttention version 3"],
                (_, false) => vec!["Using TRTLLM prefill attention (auto-detected)."],
                (_, true) => vec![
                    "FlashInfer resolved query dtypes: prefill=torch.bfloat16, decode=torch.bfloat16, \
                     decode_backend=trtllm-gen, kv_cache_dtype=torch.bfloat16, arch=sm100",
                    "Using TRTLLM prefill attention (auto-detected).",
                ],
            };
            assert_eq!(group_logs, want, "{at}");
            assert_eq!(
                r.cuda_graphs.as_ref().map(|c| c.mode.as_str()),
                Some("FULL_AND_PIECEWISE"),
                "{at}"
            );
        }
    }
}

const GLM_SHAPE: fn(u32) -> Shape = |layers| Shape {
    layers,
    kind: AttentionKind::Full,
    window: None,
    heads: (96, 8),
    head_dim: 128,
};

#[test]
fn glm_4_7_and_4_5_air_are_one_full_attention_group() {
    one_group("zai-org/GLM-4.7-FP8", GLM47, &GLM_SHAPE(92));
    one_group("zai-org/GLM-4.5-Air", GLM45_AIR, &GLM_SHAPE(46));
}

#[test]
fn glm_kv_heads_and_tp_hit_glm4_moe_py_own_assert() {
    // 8 KV heads over 3 ranks: glm4_moe.py's bare `assert self.total_num_kv_heads % tp_size == 0` (96 query heads
    // divide by 3, so ModelConfig's own check passes first).
    for (vllm, line) in [
        (Release::V0_20_0, 244),
        (Release::V0_25_0, 258),
        (Release::V0_28_0, 248),
        (Release::LATEST, 249),
    ] {
        let r = with_config("h100-sxm", vllm, "vllm serve zai-org/GLM-4.5-Air -tp 3", GLM45_AIR);
        let e = r.error.as_ref().expect("the model file's assert");
        assert_eq!(e.kind, ScenarioErrorKind::AssertionError, "{vllm}");
        assert_eq!(e.message, "", "{vllm}: a bare assert");
        assert_eq!(
            e.source.as_deref(),
            Some(format!("vllm/model_executor/models/glm4_moe.py:{line}").as_str())
        );
    }
    // 16 ranks: more ranks than KV heads, `tp_size % total_num_kv_heads == 0` holds; every rank keeps one KV head.
    let r = with_config(
        "h100-sxm",
        Release::LATEST,
        "vllm serve zai-org/GLM-4.5-Air -tp 16",
        GLM45_AIR,
    );
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!((r.groups[0].num_q_heads, r.groups[0].num_kv_heads), (6, 1));
}

#[test]
fn glm_head_dim_null_is_derived_and_absent_cannot_be_modelled() {
    // `head_dim or hidden_size // heads` (glm4_moe.py): 4096 // 96 = 42.
    let null = GLM45_AIR.replace("\"head_dim\": 128", "\"head_dim\": null");
    let r = with_config("h100-sxm", Release::LATEST, "vllm serve zai-org/GLM-4.5-Air", &null);
    assert_eq!(r.groups[0].head_dim, 42);
    // Glm4MoeConfig has no head_dim field: an absent one is an AttributeError in glm4_moe.py, not restated.
    let absent = GLM45_AIR.replace("\"head_dim\": 128,", "");
    let r = with_config("h100-sxm", Release::LATEST, "vllm serve zai-org/GLM-4.5-Air", &absent);
    assert_eq!(r.verdict, Verdict::CannotModel);
    let e = r.error.as_ref().expect("a limit");
    assert!(
        e.message
            .contains("qpath cannot model this: head_dim is missing: Glm4MoeConfig has no head_dim field"),
        "{}",
        e.message
    );
}

#[test]
fn ministral_3_text_config_is_one_full_group() {
    one_group(
        "mistralai/Ministral-3-8B-Instruct-2512",
        MINISTRAL3_8B,
        &Shape {
            layers: 34,
            kind: AttentionKind::Full,
            window: None,
            heads: (32, 8),
            head_dim: 128,
        },
    );
}

#[test]
fn mistral_3_text_config_class_follows_its_model_type() {
    let id = "vllm serve mistralai/Mistral-Small-3.1-24B-Instruct-2503";
    // text_config without model_type: Mistral3Config builds a MistralConfig, whose sliding_window defaults to 4096;
    // without layer_types, cache_config.sliding_window = 4096 on every layer.
    let mistral = MINISTRAL3_8B
        .replace("\"model_type\": \"ministral3\",", "")
        .replace("\"sliding_window\": null", "\"rms_norm_eps\": 1e-05");
    for vllm in [Release::ALL[0], Release::LATEST] {
        let r = with_config("h100-sxm", vllm, id, &mistral);
        assert_eq!(r.groups.len(), 1, "{vllm}");
        let g = &r.groups[0];
        assert_eq!(
            (g.attention, g.sliding_window, g.layers.len()),
            (AttentionKind::SlidingWindow, Some(4096), 34)
        );
    }
    // ...and with sliding_window null (as Mistral Small 3.1 writes it), full attention.
    let r = with_config(
        "h100-sxm",
        Release::LATEST,
        id,
        &MINISTRAL3_8B.replace("\"model_type\": \"ministral3\",", ""),
    );
    assert_eq!(
        (r.groups[0].attention, r.groups[0].sliding_window),
        (AttentionKind::Full, None)
    );
    // A text config of another type is not restated.
    let other = MINISTRAL3_8B.replace("\"ministral3\"", "\"ministral\"");
    let r = with_config("h100-sxm", Release::LATEST, id, &other);
    assert_eq!(r.verdict, Verdict::CannotModel);
    // A top-level Ministral3ForCausalLM (registry: mistral.py's MistralForCausalLM) reads Ministral3Config itself.
    let text = r#"{"architectures": ["Ministral3ForCausalLM"], "model_type": "ministral3", "hidden_size": 4096,
        "num_hidden_layers": 34, "num_attention_heads": 32}"#;
    let r = with_config("h100-sxm", Release::ALL[0], id, text);
    let g = &r.groups[0];
    assert_eq!(
        (g.attention, g.num_kv_heads, g.head_dim, g.layers.len()),
        (AttentionKind::Full, 8, 128, 34)
    );
}

#[test]
fn phi_4_is_one_full_group_and_phi_4_mini_one_sliding_window_group() {
    one_group(
        "microsoft/phi-4",
        PHI4,
        &Shape {
            layers: 40,
            kind: AttentionKind::Full,
            window: None,
            heads: (40, 10),
            head_dim: 128,
        },
    );
    // Phi-4-mini: sliding_window 262144 and no layer_types, so cache_config.sliding_window is the model's window on
    // every layer (llama.py passes no per-layer window); head size 3072 // 24 = 128 (partial rotary changes nothing).
    one_group(
        "microsoft/Phi-4-mini-instruct",
        PHI4_MINI,
        &Shape {
            layers: 32,
            kind: AttentionKind::SlidingWindow,
            window: Some(262144),
            heads: (24, 8),
            head_dim: 128,
        },
    );
}
