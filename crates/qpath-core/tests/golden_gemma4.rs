//! Golden cases for the Gemma 4 preset (data/models.toml `google/gemma-4-26B-A4B-it`; the 31B's attention shapes
//! were found only in restatements whose repository the code index does not name, so it is not a preset):
//! each preset gives the answer of its config.json fixture, and the groups vLLM builds: sliding layers (window 1024,
//! head_dim 256) and full layers with their own head size (global_head_dim 512) and KV heads
//! (num_global_key_value_heads, attention_k_eq_v), on H100 and B200.
//!
//! Releases: every release qpath models registers `Gemma4ForConditionalGeneration` (registry.py, 0.20.0-0.33.0), but
//! before 0.28.0 vLLM reads the full layers' head size as `getattr(config, "global_head_dim", config.head_dim)`, which
//! depends on the installed transformers (model/layout.rs `gemma4_full_layer`): qpath answers "cannot model" there.
//! 0.28.0 is the first release whose layer shapes qpath models. With head sizes 256 and 512,
//! `Gemma4Config.verify_and_update_config` (vllm/model_executor/models/config.py, source::GEMMA4_VERIFY_BACKEND) picks
//! FA4 for all layers when FA4 is installed and the backend is unset or FLASH_ATTN, else TRITON_ATTN when unset: which
//! one depends on what is installed, so qpath names it (resolve/mod.rs `gemma4_backend`) and the tests force a
//! backend. Both checkpoints set `use_bidirectional_attention: "vision"`, so their layers ask with `use_mm_prefix` and
//! FLASHINFER refuses them; TRITON_ATTN runs both groups.

use qpath_core::dtype::TorchDtype;
use qpath_core::gpu;
use qpath_core::release::Release;
use qpath_core::report::{AttentionKind, Backend, GroupReport, Report};
use qpath_core::resolve::{resolve, Hardware, Scenario};

/// google/gemma-4-26B-A4B-it: Layr-Labs/mlxfast-gemma4-26b-a4b-engine:fixtures/gemma4_26b_a4b_config.json
/// @0afae954ea2bac516e0b7bfaef8d491feaa2d7e4, byte for byte (27911 bytes): the complete config.json of an MLX affine
/// 4-bit conversion of the checkpoint (its `quantization` / `quantization_config` blocks are the conversion's; the
/// text and vision configs, dtype bfloat16, are the checkpoint's). The hub file itself was not reachable.
const GEMMA4_26B_A4B_MLX: &str = include_str!("fixtures/gemma-4-26b-a4b-it.mlx-4bit.config.json");

const ID_26B: &str = "google/gemma-4-26B-A4B-it";
const GPUS: [&str; 2] = ["h100-sxm", "b200"];

fn scenario(gpu_id: &str, release: Release, line: &str, config: Option<&str>) -> Scenario {
    let g = gpu::find(gpu_id).unwrap_or_else(|| panic!("GPU {gpu_id}"));
    let mut s = Scenario::new(Hardware::Gpu(g), release, line);
    s.model_config = config.map(str::to_string);
    s
}

/// What the answer is: groups (layers, kinds, heads, cache dtype, kernels, errors, traces), logs, error.
fn answer(r: &Report) -> (Option<String>, Vec<GroupReport>, Vec<String>) {
    (r.error.as_ref().map(|e| format!("{e:?}")), r.groups.clone(), r.logs.clone())
}

/// The MLX conversion's config.json without its quantization blocks: the bf16 checkpoint the preset describes.
fn without_mlx_quantization(text: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).expect("valid JSON");
    let m = v.as_object_mut().expect("an object");
    assert!(m.remove("quantization").is_some() && m.remove("quantization_config").is_some());
    serde_json::to_string(&v).expect("JSON")
}

fn message(r: &Report) -> String {
    r.error.as_ref().map(|e| e.message.clone()).unwrap_or_default()
}

/// (layers, kind, window, head size, query heads, KV heads, backend) of each group.
type Shape = (Vec<u32>, AttentionKind, Option<u32>, u32, u32, u32, Backend);

fn shapes(r: &Report) -> Vec<Shape> {
    r.groups
        .iter()
        .map(|g| {
            (
                g.layers.clone(),
                g.attention,
                g.sliding_window,
                g.head_dim,
                g.num_q_heads,
                g.num_kv_heads,
                g.backend,
            )
        })
        .collect()
}

#[test]
fn the_fixture_is_the_vendored_file_byte_for_byte() {
    assert_eq!(GEMMA4_26B_A4B_MLX.len(), 27911);
    assert!(GEMMA4_26B_A4B_MLX.starts_with("{\n  \"architectures\": [\n    \"Gemma4ForConditionalGeneration\"\n  ],"));
    assert!(GEMMA4_26B_A4B_MLX.ends_with("  \"vision_soft_tokens_per_image\": 280\n}\n"));
}

/// Each preset gives its config.json's answer, error or groups, at 0.20.0 (the first release qpath models, which
/// registers gemma-4), 0.27.0 (the last before the per-layer config), 0.28.0 and 0.33.0, with the backend unset,
/// TRITON_ATTN, FLASHINFER and FLASH_ATTN, and an FP8 cache.
#[test]
fn gemma4_presets_give_their_config_jsons_answer() {
    let mlx = without_mlx_quantization(GEMMA4_26B_A4B_MLX);
    for (id, config) in [(ID_26B, mlx.as_str())] {
        for g in GPUS {
            for r in [Release::V0_20_0, Release::V0_27_0, Release::V0_28_0, Release::V0_33_0] {
                for flags in [
                    "",
                    " --attention-backend TRITON_ATTN",
                    " --attention-backend TRITON_ATTN --kv-cache-dtype fp8",
                    " --attention-backend FLASHINFER",
                    " --attention-backend FLASH_ATTN",
                ] {
                    let line = format!("vllm serve {id}{flags}");
                    let preset = resolve(&scenario(g, r, &line, None));
                    let from_file = resolve(&scenario(g, r, &line, Some(config)));
                    // A "cannot model" answer names where the model came from; the rest is the same.
                    let mut file_answer = answer(&from_file);
                    file_answer.0 = file_answer
                        .0
                        .map(|e| e.replace(&format!("config.json of {id}: "), &format!("{id}: ")));
                    assert_eq!(file_answer, answer(&preset), "{id} on {g} @{}{flags}", r.name());
                    if let (Some(p), Some(f)) = (&preset.model, &from_file.model) {
                        assert!(p.preset && !f.preset);
                        assert_eq!((p.dtype, p.num_layers), (f.dtype, f.num_layers));
                        assert_eq!(p.dtype, TorchDtype::BFloat16);
                    }
                }
            }
        }
    }
}

/// The groups from 0.28.0 on (vLLM reads the full layers' shape from the per-layer config): 26B-A4B has 25 sliding
/// layers (window 1024, head 256, 8 KV heads) and 5 full layers (head 512, 2 KV heads). TRITON_ATTN forced: one backend for both head sizes, and vLLM's selection log line.
#[test]
fn gemma4_groups_from_0_28_0_on_h100_and_b200() {
    let sliding = |n: u32| (0..n).filter(|i| (i + 1) % 6 != 0).collect::<Vec<u32>>();
    let full = |n: u32| (0..n).filter(|i| (i + 1) % 6 == 0).collect::<Vec<u32>>();
    for (id, n, heads, kv, global_kv) in [(ID_26B, 30, 16, 8, 2)] {
        for g in GPUS {
            for r in [Release::V0_28_0, Release::V0_33_0] {
                let rep = resolve(&scenario(
                    g,
                    r,
                    &format!("vllm serve {id} --attention-backend TRITON_ATTN"),
                    None,
                ));
                assert!(rep.error.is_none(), "{id} on {g} @{}: {:?}", r.name(), rep.error);
                assert_eq!(
                    shapes(&rep),
                    vec![
                        (
                            sliding(n),
                            AttentionKind::SlidingWindow,
                            Some(1024),
                            256,
                            heads,
                            kv,
                            Backend::TritonAttn
                        ),
                        (full(n), AttentionKind::Full, None, 512, heads, global_kv, Backend::TritonAttn),
                    ],
                    "{id} on {g} @{}",
                    r.name()
                );
                assert!(rep.groups.iter().all(|g| g.error.is_none()));
                assert_eq!(rep.logs, ["Using AttentionBackendEnum.TRITON_ATTN backend."]);
                let m = rep.model.as_ref().expect("a model");
                assert_eq!((m.dtype, m.num_layers, m.preset), (TorchDtype::BFloat16, n, true));
            }
        }
    }
}

/// The backend vLLM forces for heterogeneous head sizes depends on whether FA4 is installed: unset and FLASH_ATTN are
/// named, not guessed (0.28.0 and 0.33.0); FLASHINFER refuses the vision prefix-LM layers.
#[test]
fn gemma4_backend_choice_for_heterogeneous_head_sizes() {
    for id in [ID_26B] {
        for g in GPUS {
            for r in [Release::V0_28_0, Release::V0_33_0] {
                let run = |flags: &str| resolve(&scenario(g, r, &format!("vllm serve {id}{flags}"), None));
                for (flags, backend) in [("", "unset"), (" --attention-backend FLASH_ATTN", "FLASH_ATTN")] {
                    let m = message(&run(flags));
                    assert!(
                        m.starts_with(&format!(
                            "qpath cannot model this: --attention-backend {backend} on a gemma-4 model with head sizes \
                             256 and 512"
                        )),
                        "{id} on {g} @{}: {m}",
                        r.name()
                    );
                }
                let rep = run(" --attention-backend FLASHINFER");
                assert!(rep.groups.is_empty());
                assert_eq!(
                    message(&rep),
                    "Selected backend AttentionBackendEnum.FLASHINFER is not valid for this configuration. Reason: \
                     ['partial multimodal token full attention not supported']"
                );
            }
        }
    }
}

/// Before 0.28.0 (0.20.0, the first release qpath models, which registers the architecture, through 0.27.0) the full
/// layers' head size depends on the installed transformers: "cannot model", naming the global shape.
#[test]
fn gemma4_before_0_28_0_cannot_be_modelled() {
    for (id, global_kv) in [(ID_26B, 2)] {
        for g in GPUS {
            for r in [Release::V0_20_0, Release::V0_24_0, Release::V0_27_0] {
                let rep = resolve(&scenario(
                    g,
                    r,
                    &format!("vllm serve {id} --attention-backend TRITON_ATTN"),
                    None,
                ));
                assert!(rep.groups.is_empty());
                assert!(
                    message(&rep).starts_with(&format!(
                        "{id}: qpath cannot model this: global_head_dim = 512 (num_global_key_value_heads: \
                         {global_kv} KV heads) on the full-attention layers: vLLM {} reads",
                        r.name()
                    )),
                    "{}",
                    message(&rep)
                );
            }
        }
    }
}
