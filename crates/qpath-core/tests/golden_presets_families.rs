//! Golden cases for the presets of the families qpath reads from config.json since the dense / Falcon-H1 / Jamba
//! readers (data/models.toml, section "families read from config.json"): each preset gives exactly the answer of its
//! config.json fixture (groups, logs, error) on H100 and B200 at 0.20.0 (the first release qpath models; all four
//! architectures are registered in every release 0.20.0-0.33.0) and 0.33.0, and the groups vLLM builds.
//!
//! Fixtures (tests/fixtures/), with their sources:
//! - glm-4.7-fp8.aiconfigurator.config.json: ai-dynamo/aiconfigurator
//!   src/aiconfigurator/model_configs/zai-org--GLM-4.7-FP8_config.json @ a0ba9ec6d14e3d4ecd5d8d5468142c290634391d
//!   (the same bytes as added at 19d098add98ab8ba2366c94795e9e886cdcc915c), byte for byte: a reduced copy of
//!   zai-org/GLM-4.7-FP8's config.json.
//! - glm-4.5-air.restated.config.json: zai-org/GLM-4.5-Air's config.json as a public ms-swift log prints it (the code
//!   index does not name the repository); every field the preset sets is also in NVIDIA-NeMo/Megatron-Bridge
//!   tests/unit_tests/models/glm/test_glm45_bridge.py @ 067f987df03b8355b03192d88d70f1709fedf51a
//!   (`glm45_air_106b_config`).
//! - ai21-jamba-1.5-mini.restated.config.json: sdpython/experimental-experiment
//!   experimental_experiment/torch_models/llm_model_helper.py @ 04097e3040047505e7cac0c2c9040ff294fdd980
//!   (`get_ai21_jamba_15_mini`, the hub config.json as a Python dict, converted literal by literal).
//! - ministral-3-8b-instruct-2512.minimal.config.json: no copy of a Ministral 3 8B config.json was found; a minimal
//!   config with the 8B's text fields as transformers' `Ministral3Config` documents them for
//!   mistralai/Ministral-3-8B-Base-2512 (its `auto_docstring` checkpoint; 34 layers, hidden 4096, 32 heads, 8 KV
//!   heads, head_dim 128) and NVIDIA-NeMo/Megatron-Bridge docs/models/mistral/ministral3.md @ 067f987d (34 layers,
//!   4096 hidden, 32 heads, 8 query groups). The preset is the Base checkpoint, whose shape that is; its dtype
//!   bfloat16 is `unconfirmed` in the preset.
//!
//! Not presets (no config.json of the checkpoint found in a named public source, see the report): GLM-4.6, Falcon-H1
//! (7B / 34B), Jamba-Mini-1.7, Mistral-Small-3.x, phi-4.

use qpath_core::dtype::TorchDtype;
use qpath_core::gpu;
use qpath_core::release::Release;
use qpath_core::report::{AttentionKind, Backend, GroupReport, GroupRole, Report};
use qpath_core::resolve::{resolve, Hardware, Scenario};

const GLM47_FP8: &str = include_str!("fixtures/glm-4.7-fp8.aiconfigurator.config.json");
const GLM45_AIR: &str = include_str!("fixtures/glm-4.5-air.restated.config.json");
const JAMBA_15_MINI: &str = include_str!("fixtures/ai21-jamba-1.5-mini.restated.config.json");
const MINISTRAL3_8B: &str = include_str!("fixtures/ministral-3-8b-instruct-2512.minimal.config.json");

const ID_GLM47_FP8: &str = "zai-org/GLM-4.7-FP8";
const ID_GLM45_AIR: &str = "zai-org/GLM-4.5-Air";
const ID_JAMBA: &str = "ai21labs/AI21-Jamba-1.5-Mini";
const ID_MINISTRAL3_8B: &str = "mistralai/Ministral-3-8B-Base-2512";

const PRESETS: [(&str, &str); 4] = [
    (ID_GLM47_FP8, GLM47_FP8),
    (ID_GLM45_AIR, GLM45_AIR),
    (ID_JAMBA, JAMBA_15_MINI),
    (ID_MINISTRAL3_8B, MINISTRAL3_8B),
];
const GPUS: [&str; 2] = ["h100-sxm", "b200"];
const RELEASES: [Release; 2] = [Release::V0_20_0, Release::V0_33_0];

fn scenario(gpu_id: &str, release: Release, line: &str, config: Option<&str>) -> Scenario {
    let g = gpu::find(gpu_id).unwrap_or_else(|| panic!("GPU {gpu_id}"));
    let mut s = Scenario::new(Hardware::Gpu(g), release, line);
    s.model_config = config.map(str::to_string);
    s
}

/// What the answer is: groups (layers, kinds, heads, cache dtype, Q dtypes, kernels, errors, traces), logs, error.
fn answer(r: &Report) -> (Option<String>, Vec<GroupReport>, Vec<String>) {
    (r.error.as_ref().map(|e| format!("{e:?}")), r.groups.clone(), r.logs.clone())
}

/// (layers, kind, head size, query heads, KV heads, backend) of each target group.
type Shape = (Vec<u32>, AttentionKind, u32, u32, u32, Backend);

fn shapes(r: &Report) -> Vec<Shape> {
    r.groups
        .iter()
        .filter(|g| g.role == GroupRole::Target)
        .map(|g| {
            (
                g.layers.clone(),
                g.attention,
                g.head_dim,
                g.num_q_heads,
                g.num_kv_heads,
                g.backend,
            )
        })
        .collect()
}

#[test]
fn the_fixtures_are_the_files_their_sources_give() {
    // The aiconfigurator copy, byte for byte (548 bytes, 19 keys).
    assert_eq!(GLM47_FP8.len(), 548);
    assert!(GLM47_FP8.starts_with("{\n  \"architectures\": [\"Glm4MoeForCausalLM\"],\n  \"model_type\": \"glm4_moe\","));
    assert!(GLM47_FP8.ends_with("  \"tie_word_embeddings\": false\n}\n"));
    for (id, text) in PRESETS {
        let v: serde_json::Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(v["torch_dtype"], "bfloat16", "{id}");
    }
}

/// Each preset gives its config.json's answer, error or groups, on H100 and B200 at 0.20.0 and 0.33.0, with the
/// backend unset, an FP8 cache, tensor parallelism 8, FLASHINFER / TRITON_ATTN forced and an MTP drafter (GLM's
/// `num_nextn_predict_layers` from the preset's `config` or Glm4MoeConfig's default, as from the file).
#[test]
fn each_preset_gives_its_config_jsons_answer() {
    for (id, config) in PRESETS {
        for g in GPUS {
            for r in RELEASES {
                for flags in [
                    "",
                    " --kv-cache-dtype fp8",
                    " -tp 8",
                    " --attention-backend FLASHINFER",
                    " --attention-backend TRITON_ATTN",
                    r#" --speculative-config '{"method": "mtp", "num_speculative_tokens": 1}'"#,
                ] {
                    let line = format!("vllm serve {id}{flags}");
                    let preset = resolve(&scenario(g, r, &line, None));
                    let from_file = resolve(&scenario(g, r, &line, Some(config)));
                    assert_eq!(answer(&from_file), answer(&preset), "{id} on {g} @{}{flags}", r.name());
                    let (p, f) = (
                        preset.model.as_ref().expect("a model"),
                        from_file.model.as_ref().expect("a model"),
                    );
                    assert!(p.preset && !f.preset, "{id}");
                    assert_eq!(f.config.as_deref(), Some(&*format!("config.json of {id}")));
                    assert_eq!((p.dtype, p.num_layers), (f.dtype, f.num_layers), "{id}");
                    assert_eq!(p.dtype, TorchDtype::BFloat16, "{id}");
                }
            }
        }
    }
}

fn flash_log(g: &str) -> String {
    match g {
        "h100-sxm" => "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', \
                       'TRITON_ATTN', 'FLEX_ATTENTION']."
            .to_string(),
        _ => "Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'FLASH_ATTN', 'TRITON_ATTN', \
              'FLEX_ATTENTION']."
            .to_string(),
    }
}

/// The default backend: FLASH_ATTN on H100 (sm90), FLASHINFER on B200 (sm100), in both releases.
fn default_backend(g: &str) -> Backend {
    if g == "h100-sxm" {
        Backend::FlashAttn
    } else {
        Backend::FlashInfer
    }
}

/// GLM-4.7-FP8 and GLM-4.5-Air: one group of plain full-attention layers (glm4_moe.py's `Attention` on every layer,
/// no window), head_dim 128 from config.json, 96 query heads and 8 KV heads; Ministral 3 8B: llama.py's layers from
/// text_config, no window, head_dim 128, 32 query heads and 8 KV heads. The default backend, the model dtype's cache
/// under `auto`, and vLLM's one selection line.
#[test]
fn dense_presets_groups() {
    for (id, layers, q) in [(ID_GLM47_FP8, 92, 96), (ID_GLM45_AIR, 46, 96), (ID_MINISTRAL3_8B, 34, 32)] {
        for g in GPUS {
            for r in RELEASES {
                let rep = resolve(&scenario(g, r, &format!("vllm serve {id}"), None));
                assert!(rep.error.is_none(), "{id} on {g} @{}: {:?}", r.name(), rep.error);
                assert_eq!(
                    shapes(&rep),
                    vec![((0..layers).collect(), AttentionKind::Full, 128, q, 8, default_backend(g))],
                    "{id} on {g} @{}",
                    r.name()
                );
                assert_eq!(rep.groups[0].cache_dtype, "auto");
                assert_eq!(rep.logs, vec![flash_log(g)], "{id} on {g} @{}", r.name());
                let m = rep.model.as_ref().expect("a model");
                assert_eq!((m.num_layers, m.dtype), (layers, TorchDtype::BFloat16));
            }
        }
    }
}

/// AI21-Jamba-1.5-Mini: JambaConfig's layers_block_type gives attention at i % 8 == 4 (layers 4, 12, 20, 28; head
/// 4096 // 32 = 128, 8 KV heads) and Mamba1 elsewhere (28 layers). By hand: the Mamba1 state is conv (3, 8192) + ssm
/// (8192, 16) = 155,648 bfloat16 elements = 311,296 bytes per layer; an attention token is 2 * 8 * 128 * 2 = 4,096
/// bytes, so vLLM sets the block size to 76 tokens rounded up to a multiple of 16 = 80 (327,680 bytes) and pads the
/// Mamba page by 16,384 / 311,296 = 5.26%.
#[test]
fn jamba_preset_groups() {
    let attention: Vec<u32> = vec![4, 12, 20, 28];
    let mamba: Vec<u32> = (0..32).filter(|i| i % 8 != 4).collect();
    for g in GPUS {
        for r in RELEASES {
            let rep = resolve(&scenario(g, r, &format!("vllm serve {ID_JAMBA}"), None));
            assert!(rep.error.is_none(), "on {g} @{}: {:?}", r.name(), rep.error);
            assert_eq!(
                shapes(&rep),
                vec![
                    (mamba.clone(), AttentionKind::Mamba, 0, 0, 0, Backend::Mamba1),
                    (attention.clone(), AttentionKind::Full, 128, 32, 8, default_backend(g)),
                ],
                "on {g} @{}",
                r.name()
            );
            assert_eq!(rep.groups[0].cache_dtype, "conv bfloat16 / ssm bfloat16");
            assert_eq!(rep.groups[1].cache_dtype, "auto");
            assert_eq!(
                rep.logs,
                vec![
                    flash_log(g),
                    "Setting attention block size to 80 tokens to ensure that attention page size is >= mamba page size."
                        .to_string(),
                    "Padding mamba page size by 5.26% to ensure that mamba page size and attention page size are exactly \
                     equal."
                        .to_string(),
                ],
                "on {g} @{}",
                r.name()
            );
            assert_eq!(rep.model.as_ref().map(|m| m.num_layers), Some(32));
        }
    }
}
