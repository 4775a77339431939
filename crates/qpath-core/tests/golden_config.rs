//! Golden cases for models read from their config.json (`Scenario.model_config`): a dense model's config.json gives
//! its preset's answer, and a checkpoint whose `quantization_config` sets an FP8 KV cache gives the answer of that
//! cache dtype under `--kv-cache-dtype auto`, at the first release that honours it (0.24.0, the first qpath models:
//! the readers are in every release, see data/source-lines.toml CHECKPOINT_KV_*) and at 0.33.0.
//!
//! The config.json texts are restated from the released files (their sources are given beside each).

use qpath_core::gpu;
use qpath_core::release::Release;
use qpath_core::report::{GroupReport, Report, ScenarioErrorKind};
use qpath_core::resolve::{resolve, Hardware, Scenario};

/// meta-llama/Llama-3.1-8B-Instruct's config.json (https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/blob/main/
/// config.json, as restated by the preset's sources in data/models.toml: 32 layers, 32 heads, 8 KV heads, hidden
/// 4096, no head_dim, torch_dtype bfloat16, transformers 4.42.3).
const LLAMA_31_8B: &str = include_str!("fixtures/llama-3.1-8b-instruct.config.json");

/// google/gemma-3-27b-it's config.json, language-model part (https://huggingface.co/google/gemma-3-27b-it/blob/main/
/// config.json; the preset's sources: text_config head_dim 128, 32 heads, 16 KV heads, 62 layers, hidden 5376,
/// sliding_window 1024, sliding_window_pattern 6, query_pre_attn_scalar 168; torch_dtype bfloat16 at the top level).
const GEMMA3_27B: &str = r#"{
  "architectures": ["Gemma3ForConditionalGeneration"],
  "boi_token_index": 255999,
  "eoi_token_index": 256000,
  "eos_token_id": [1, 106],
  "image_token_index": 262144,
  "initializer_range": 0.02,
  "mm_tokens_per_image": 256,
  "model_type": "gemma3",
  "text_config": {
    "head_dim": 128,
    "hidden_size": 5376,
    "intermediate_size": 21504,
    "model_type": "gemma3_text",
    "num_attention_heads": 32,
    "num_hidden_layers": 62,
    "num_key_value_heads": 16,
    "query_pre_attn_scalar": 168,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    "sliding_window": 1024,
    "sliding_window_pattern": 6
  },
  "torch_dtype": "bfloat16",
  "transformers_version": "4.50.0.dev0",
  "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304, "model_type": "siglip_vision_model",
                    "num_attention_heads": 16, "num_hidden_layers": 27, "patch_size": 14, "vision_use_head": false}
}"#;

/// Qwen/Qwen3-8B's config.json (https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json; the preset's sources: 36
/// layers, 32 heads, 8 KV heads, head_dim 128, hidden 4096, sliding_window null, use_sliding_window false,
/// max_window_layers 36, torch_dtype bfloat16).
const QWEN3_8B: &str = r#"{
  "architectures": ["Qwen3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 12288,
  "max_position_embeddings": 40960,
  "max_window_layers": 36,
  "model_type": "qwen3",
  "num_attention_heads": 32,
  "num_hidden_layers": 36,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}"#;

/// The `quantization_config` llm-compressor writes for an FP8 KV cache (compressed-tensors; the `kv_cache_scheme` of
/// vllm-project/llm-compressor's examples/quantization_kv_cache, e.g. its Meta-Llama-3-8B-Instruct-FP8-KV output:
/// num_bits 8, type float, strategy tensor, dynamic false, symmetric true).
const CT_FP8_KV: &str = r#""quantization_config": {
    "quant_method": "compressed-tensors",
    "format": "float-quantized",
    "quantization_status": "compressed",
    "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false, "symmetric": true},
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "dynamic": false, "symmetric": true}}},
    "ignore": ["lm_head"]
  }"#;

/// ModelOpt's `quantization_config` in config.json (ModelOpt 0.31.0 and later, `vllm/transformers_utils/config.py:951
/// @0.33.0`): `quant_method` "modelopt", `quant_algo` FP8, `kv_cache_quant_algo` FP8 (as nvidia/*-FP8 checkpoints).
const MODELOPT_FP8_KV: &str = r#""quantization_config": {
    "quant_method": "modelopt",
    "quant_algo": "FP8",
    "kv_cache_quant_algo": "FP8",
    "exclude_modules": ["lm_head"]
  }"#;

/// `base` with `extra` (a `"key": value` member) added at the top level.
fn with(base: &str, extra: &str) -> String {
    let i = base.rfind('}').expect("an object");
    format!("{},\n  {extra}\n}}", base[..i].trim_end())
}

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

const GPUS: [&str; 4] = ["l4", "a100-80gb", "h100-sxm", "b200"];
const RELEASES: [Release; 2] = [Release::V0_24_0, Release::V0_33_0];

#[test]
fn a_dense_models_config_json_gives_its_presets_answer() {
    for (id, config) in [
        ("meta-llama/Llama-3.1-8B-Instruct", LLAMA_31_8B),
        ("google/gemma-3-27b-it", GEMMA3_27B),
        ("Qwen/Qwen3-8B", QWEN3_8B),
    ] {
        for g in GPUS {
            for r in RELEASES {
                for flags in [
                    "",
                    " --kv-cache-dtype fp8",
                    " --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers sliding_window",
                ] {
                    let line = format!("vllm serve {id}{flags}");
                    let preset = resolve(&scenario(g, r, &line, None));
                    let from_file = resolve(&scenario(g, r, &line, Some(config)));
                    assert_eq!(answer(&from_file), answer(&preset), "{id} on {g} @{}{flags}", r.name());
                    let m = from_file.model.as_ref().expect("a model");
                    assert!(
                        !m.preset && m.config.as_deref() == Some(&*format!("config.json of {id}")),
                        "{m:?}"
                    );
                    assert_eq!(
                        preset.model.as_ref().map(|p| (p.dtype, p.num_layers)),
                        Some((m.dtype, m.num_layers))
                    );
                }
            }
        }
    }
}

#[test]
fn hf_overrides_apply_on_top_of_the_config_json() {
    let line = r#"vllm serve meta-llama/Llama-3.1-8B-Instruct --hf-overrides '{"num_hidden_layers": 4}'"#;
    let r = resolve(&scenario("h100-sxm", Release::V0_33_0, line, Some(LLAMA_31_8B)));
    assert_eq!(r.model.as_ref().map(|m| m.num_layers), Some(4), "{r:?}");
    // A composite config takes its language-model overrides under text_config, as vLLM's _apply_dict_overrides.
    let line = r#"vllm serve google/gemma-3-27b-it --hf-overrides '{"num_hidden_layers": 4}'"#;
    let r = resolve(&scenario("h100-sxm", Release::V0_33_0, line, Some(GEMMA3_27B)));
    assert!(r.error.as_ref().is_some_and(|e| e.message.contains("text_config")), "{r:?}");
}

#[test]
fn a_checkpoint_fp8_kv_scheme_is_the_cache_dtype_under_auto() {
    let ct = with(LLAMA_31_8B, CT_FP8_KV);
    let mo = with(LLAMA_31_8B, MODELOPT_FP8_KV);
    for g in GPUS {
        for r in RELEASES {
            // compressed-tensors: Attention.__init__ turns "auto" into "fp8".
            let auto = resolve(&scenario(g, r, "vllm serve meta-llama/Llama-3.1-8B-Instruct", Some(&ct)));
            let fp8 = resolve(&scenario(
                g,
                r,
                "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
                None,
            ));
            same_decisions(&auto, &fp8, &format!("compressed-tensors on {g} @{}", r.name()));
            assert_eq!(
                auto.model
                    .as_ref()
                    .and_then(|m| m.checkpoint_kv_cache_dtype.clone())
                    .as_deref(),
                Some("fp8, from the checkpoint's quantization_config.kv_cache_scheme")
            );
            if let Some(g0) = auto.groups.first() {
                assert!(
                    g0.trace[0]
                        .outcome
                        .contains("from the checkpoint's quantization_config.kv_cache_scheme"),
                    "{:?}",
                    g0.trace[0]
                );
            }
            // ModelOpt: resolve_kv_cache_dtype_string maps "FP8" to "fp8_e4m3".
            let auto = resolve(&scenario(g, r, "vllm serve meta-llama/Llama-3.1-8B-Instruct", Some(&mo)));
            let e4m3 = resolve(&scenario(
                g,
                r,
                "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8_e4m3",
                None,
            ));
            same_decisions(&auto, &e4m3, &format!("modelopt on {g} @{}", r.name()));
            // An explicit dtype wins over the checkpoint's.
            let explicit = resolve(&scenario(g, r, "vllm serve m --kv-cache-dtype bfloat16", Some(&ct)));
            let plain = resolve(&scenario(g, r, "vllm serve m --kv-cache-dtype bfloat16", Some(LLAMA_31_8B)));
            same_decisions(&explicit, &plain, "explicit bfloat16");
        }
    }
    // L4 (sm89) with the checkpoint's FP8 KV cache: FlashInfer, cache fp8, Q bfloat16 (not SM90 / SM100).
    let l4 = resolve(&scenario("l4", Release::V0_33_0, "vllm serve m", Some(&ct)));
    let g0 = &l4.groups[0];
    assert_eq!((g0.cache_dtype.as_str(), g0.backend.name()), ("fp8", "FLASHINFER"), "{g0:?}");
}

fn same_decisions(a: &Report, b: &Report, what: &str) {
    assert_eq!(
        a.error.as_ref().map(|e| &e.message),
        b.error.as_ref().map(|e| &e.message),
        "{what}"
    );
    assert_eq!(a.groups.len(), b.groups.len(), "{what}");
    for (x, y) in a.groups.iter().zip(&b.groups) {
        assert_eq!(
            (&x.layers, x.backend, &x.cache_dtype, x.q_dtype, x.kernel, &x.error),
            (&y.layers, y.backend, &y.cache_dtype, y.q_dtype, y.kernel, &y.error),
            "{what}"
        );
    }
}

#[test]
fn fp8_e5m2_with_a_kv_scale_checkpoint_is_vllms_value_error() {
    let ct = with(LLAMA_31_8B, CT_FP8_KV);
    for r in RELEASES {
        let rep = resolve(&scenario("a100-80gb", r, "vllm serve m --kv-cache-dtype fp8_e5m2", Some(&ct)));
        let e = rep.error.expect("an error");
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ScenarioErrorKind::ValueError,
                "fp8_e5m2 kv-cache is not supported with fp8 checkpoints."
            )
        );
        assert!(e
            .source
            .is_some_and(|s| s.starts_with("vllm/model_executor/layers/attention/attention.py:")));
    }
    // A weight-only compressed-tensors checkpoint (kv_cache_scheme null) keeps fp8_e5m2.
    let weight_only = with(
        LLAMA_31_8B,
        r#""quantization_config": {"quant_method": "compressed-tensors", "kv_cache_scheme": null}"#,
    );
    let rep = resolve(&scenario(
        "a100-80gb",
        Release::V0_33_0,
        "vllm serve m --kv-cache-dtype fp8_e5m2",
        Some(&weight_only),
    ));
    assert!(rep.error.is_none(), "{:?}", rep.error);
}

#[test]
fn an_unsupported_kv_scheme_is_vllms_not_implemented_error() {
    let int8 = with(
        LLAMA_31_8B,
        r#""quantization_config": {"quant_method": "compressed-tensors", "kv_cache_scheme": {"num_bits": 8, "type": "int", "strategy": "tensor", "symmetric": true}}"#,
    );
    let rep = resolve(&scenario("h100-sxm", Release::V0_33_0, "vllm serve m", Some(&int8)));
    let e = rep.error.expect("an error");
    assert_eq!(e.kind, ScenarioErrorKind::NotImplementedError);
    assert_eq!(
        e.message,
        "Currently supported kv cache quantization is num_bits=8, type=float, however received num_bits=8, type=int"
    );
}

#[test]
fn what_qpath_cannot_model_is_named() {
    let other = LLAMA_31_8B.replace("LlamaForCausalLM", "DeepseekV4ForCausalLM");
    let rep = resolve(&scenario("h100-sxm", Release::V0_33_0, "vllm serve m", Some(&other)));
    let e = rep.error.expect("an error");
    assert!(
        e.message
            .contains("qpath cannot model this: architectures[0] = \"DeepseekV4ForCausalLM\""),
        "{}",
        e.message
    );
    for (text, field) in [
        ("{", "not valid JSON"),
        ("[]", "top level must be a JSON object"),
        (
            r#"{"architectures": ["LlamaForCausalLM"], "num_attention_heads": 32, "hidden_size": 4096}"#,
            "num_hidden_layers",
        ),
        (
            r#"{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": "32", "num_attention_heads": 32, "hidden_size": 4096}"#,
            "num_hidden_layers = \"32\"",
        ),
        (
            r#"{"architectures": ["Gemma3ForConditionalGeneration"], "llm_config": {}}"#,
            "llm_config",
        ),
    ] {
        let rep = resolve(&scenario("h100-sxm", Release::V0_33_0, "vllm serve m", Some(text)));
        let e = rep.error.expect("an error");
        assert!(
            e.message.contains("config.json of m") && e.message.contains(field),
            "{text}: {}",
            e.message
        );
    }
}

/// google/gemma-4-26B-A4B-it's text config, attention part: 30 layers, 16 heads; sliding layers head_dim 256 with 8 KV
/// heads and window 1024, full layers (5, 11, 17, 23, 29) global_head_dim 512 with num_global_key_value_heads 2
/// (attention_k_eq_v true), hidden 2816. Restated from public restatements of the hub config.json (the code index:
/// a GEMMA4_26B_CONFIG table of the 26B-A4B text config, and a vllm-metal test of its per-layer KV layout,
/// `([sliding] * 5 + [full]) * 5`); the hub file itself was not reachable. No dtype is given here: the tests pass
/// `--dtype bfloat16`.
const GEMMA4_26B_A4B: &str = r#"{
  "architectures": ["Gemma4ForConditionalGeneration"],
  "model_type": "gemma4",
  "text_config": {
    "model_type": "gemma4_text",
    "hidden_size": 2816,
    "num_hidden_layers": 30,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "num_global_key_value_heads": 2,
    "head_dim": 256,
    "global_head_dim": 512,
    "sliding_window": 1024,
    "attention_k_eq_v": true,
    "num_experts": 128,
    "top_k_experts": 8,
    "moe_intermediate_size": 704,
    "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
                    "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
                    "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
                    "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
                    "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]
  }
}"#;

#[test]
fn gemma4_full_layers_have_their_own_head_size_and_kv_heads() {
    let line = "vllm serve google/gemma-4-26B-A4B-it --dtype bfloat16 --attention-backend FLASHINFER --kv-cache-dtype fp8";
    // 0.28.0 (gemma4_layer_config) and 0.33.0 (per_layer_config): two groups, one per layer shape.
    for r in [Release::V0_28_0, Release::V0_33_0] {
        let rep = resolve(&scenario("h100-sxm", r, line, Some(GEMMA4_26B_A4B)));
        assert!(rep.error.is_none(), "{:?}", rep.error);
        let shapes: Vec<(Vec<u32>, u32, u32, Option<u32>)> = rep
            .groups
            .iter()
            .map(|g| (g.layers.clone(), g.head_dim, g.num_kv_heads, g.sliding_window))
            .collect();
        let sliding: Vec<u32> = (0..30).filter(|i| i % 6 != 5).collect();
        assert_eq!(
            shapes,
            vec![(sliding, 256, 8, Some(1024)), (vec![5, 11, 17, 23, 29], 512, 2, None)],
            "@{}",
            r.name()
        );
        // Each group's own checks. 0.33.0 on H100 with an FP8 cache: the 256-wide sliding group prefills with FA3,
        // the 512-wide full group falls back to FA2, which refuses an FP8 query. 0.28.0: FlashInfer on SM90 refuses
        // the sliding-window group at init; the full group is checked on its own.
        let (s, f) = (&rep.groups[0], &rep.groups[1]);
        if r >= Release::V0_33_0 {
            assert!(s.error.is_none(), "{:?}", s.error);
        } else {
            let e = s.error.as_ref().expect("sliding windows on SM90");
            assert!(
                e.message.contains("currently crashes with sliding-window attention layers"),
                "{}",
                e.message
            );
        }
        assert!(f.error.is_some(), "the 512 group fails");
        let e = f.phase_errors.prefill.as_ref().expect("the 512 group's prefill fails");
        assert!(
            e.message.contains("fp8 tensor core is not supported in fa2 backend"),
            "{}",
            e.message
        );
    }
    // Before 0.28.0 vLLM reads getattr(config, "global_head_dim", config.head_dim), which depends on transformers.
    let rep = resolve(&scenario("h100-sxm", Release::V0_27_0, line, Some(GEMMA4_26B_A4B)));
    assert!(rep
        .error
        .is_some_and(|e| e.message.contains("qpath cannot model this: global_head_dim = 512")));
    // Without a forced backend vLLM picks FA4 or TRITON_ATTN by what is installed: named, not guessed.
    let rep = resolve(&scenario(
        "h100-sxm",
        Release::V0_33_0,
        "vllm serve g --dtype bfloat16",
        Some(GEMMA4_26B_A4B),
    ));
    let e = rep.error.expect("cannot model");
    assert!(
        e.message
            .starts_with("qpath cannot model this: --attention-backend unset on a gemma-4 model"),
        "{}",
        e.message
    );
}

/// Qwen/Qwen3-Next-80B-A3B-Instruct's config.json, as far as the preset restates it
/// (https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json; data/models.toml's sources: public
/// restatements of Qwen3-Next configs give hidden_size 2048, num_hidden_layers 48, num_attention_heads 16,
/// num_key_value_heads 2, head_dim 256, linear_num_key_heads 16, linear_num_value_heads 32, linear_key_head_dim 128,
/// linear_value_head_dim 128, linear_conv_kernel_dim 4, full_attention_interval 4; no layer_types; torch_dtype
/// bfloat16 is the Qwen release default, unconfirmed for this checkpoint). Fields qpath does not read are left out.
const QWEN3_NEXT_80B: &str = include_str!("fixtures/qwen3-next-80b-a3b-instruct.config.json");

/// nvidia/NVIDIA-Nemotron-Nano-9B-v2's config.json, as far as the preset restates it
/// (https://huggingface.co/nvidia/NVIDIA-Nemotron-Nano-9B-v2/blob/main/config.json; data/models.toml's sources:
/// public restatements give num_hidden_layers 56, hidden_size 4480, num_attention_heads 40, num_key_value_heads 8,
/// head_dim 128, the hybrid_override_pattern below, mamba_num_heads 128, mamba_head_dim 80, ssm_state_size 128,
/// conv_kernel 4; n_groups 8 (restated as mamba_num_groups by some copies) and chunk_size 128 unconfirmed; no
/// mamba_ssm_cache_dtype). Fields qpath does not read are left out.
const NEMOTRON_NANO_9B_V2: &str = r#"{
  "architectures": ["NemotronHForCausalLM"],
  "model_type": "nemotron_h",
  "chunk_size": 128,
  "conv_kernel": 4,
  "head_dim": 128,
  "hidden_size": 4480,
  "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
  "mamba_head_dim": 80,
  "mamba_num_heads": 128,
  "n_groups": 8,
  "num_attention_heads": 40,
  "num_hidden_layers": 56,
  "num_key_value_heads": 8,
  "sliding_window": null,
  "ssm_state_size": 128,
  "torch_dtype": "bfloat16"
}"#;

const QWEN3_NEXT_ID: &str = "Qwen/Qwen3-Next-80B-A3B-Instruct";
/// Qwen/Qwen3.5-27B's and Qwen/Qwen3.5-35B-A3B's config.json, byte for byte (data/models.toml's sources).
const QWEN3_5_27B: &str = include_str!("fixtures/qwen3.5-27b.config.json");
const QWEN3_5_35B: &str = include_str!("fixtures/qwen3.5-35b-a3b.config.json");
const NEMOTRON_ID: &str = "nvidia/NVIDIA-Nemotron-Nano-9B-v2";

/// A hybrid model's config.json (Qwen3NextConfig / NemotronHConfig restated, `architectures[0]` mapped by vLLM's
/// registry to qwen3_next.py / nemotron_h.py) gives exactly its preset's answer: the recurrent and attention groups,
/// the block-size log lines (e.g. "Setting attention block size to 544 tokens" for Qwen3-Next at 0.24.0 on B200,
/// tests/golden_hybrid.rs) and the kernels, at 0.24.0 (vLLM's own Qwen3NextConfig) and 0.33.0 (transformers').
#[test]
fn a_hybrid_models_config_json_gives_its_presets_answer() {
    // n_groups spelled as some public copies do: NemotronHConfig has no mamba_num_groups, so n_groups keeps its
    // default 8, the same answer.
    let nemotron_other_spelling = NEMOTRON_NANO_9B_V2.replace("\"n_groups\"", "\"mamba_num_groups\"");
    for (id, config) in [
        (QWEN3_NEXT_ID, QWEN3_NEXT_80B),
        ("Qwen/Qwen3.5-27B", QWEN3_5_27B),
        ("Qwen/Qwen3.5-35B-A3B", QWEN3_5_35B),
        (NEMOTRON_ID, NEMOTRON_NANO_9B_V2),
        (NEMOTRON_ID, nemotron_other_spelling.as_str()),
    ] {
        for g in ["b200", "h100-sxm"] {
            for r in RELEASES {
                for flags in ["", " --block-size 128", " --kv-cache-dtype fp8"] {
                    let line = format!("vllm serve {id}{flags}");
                    let preset = resolve(&scenario(g, r, &line, None));
                    let from_file = resolve(&scenario(g, r, &line, Some(config)));
                    assert!(preset.error.is_none(), "{:?}", preset.error);
                    assert_eq!(answer(&from_file), answer(&preset), "{id} on {g} @{}{flags}", r.name());
                    assert_eq!(preset.groups.len(), 2, "a recurrent and an attention group");
                    assert!(
                        preset.logs.iter().any(|l| l.starts_with("Setting attention block size to ")),
                        "{:?}",
                        preset.logs
                    );
                    let m = from_file.model.as_ref().expect("a model");
                    assert_eq!(
                        preset.model.as_ref().map(|p| (p.dtype, p.num_layers)),
                        Some((m.dtype, m.num_layers))
                    );
                }
            }
        }
    }
    // The logs themselves, once: Qwen3-Next at 0.24.0 on B200 (tests/golden_hybrid.rs qwen3_next_0_24_0_b200).
    let r = resolve(&scenario(
        "b200",
        Release::V0_24_0,
        &format!("vllm serve {QWEN3_NEXT_ID}"),
        Some(QWEN3_NEXT_80B),
    ));
    assert_eq!(
        r.logs[1..],
        [
            "Setting attention block size to 544 tokens to ensure that attention page size is >= mamba page size.",
            "Padding mamba page size by 1.49% to ensure that mamba page size and attention page size are exactly equal.",
        ]
    );
}

/// The config class differs by release for Qwen3-Next: vLLM's own Qwen3NextConfig (0.24.0-0.31.0) ignores
/// full_attention_interval and builds every 4th layer full (configs/qwen3_next.py:250-254@0.24.0); transformers'
/// (0.32.0+) builds "full_attention" iff (i + 1) % full_attention_interval == 0.
#[test]
fn qwen3_next_full_attention_interval_is_read_from_0_32_0() {
    let config = QWEN3_NEXT_80B.replace("\"full_attention_interval\": 4", "\"full_attention_interval\": 2");
    let full = |r: Release| -> Vec<u32> {
        let rep = resolve(&scenario("h100-sxm", r, "vllm serve m", Some(&config)));
        assert!(rep.error.is_none(), "{:?}", rep.error);
        rep.groups
            .iter()
            .find(|g| g.layers.contains(&3))
            .map(|g| g.layers.clone())
            .unwrap_or_default()
    };
    assert_eq!(full(Release::V0_24_0), (0..12).map(|i| 4 * i + 3).collect::<Vec<_>>());
    assert_eq!(full(Release::V0_31_0), (0..12).map(|i| 4 * i + 3).collect::<Vec<_>>());
    assert_eq!(full(Release::V0_33_0), (0..24).map(|i| 2 * i + 1).collect::<Vec<_>>());
}

/// A layer type the model file does not build, a legacy name the config class remaps, and a NemotronH pattern
/// character the config class does not know: each named with its field.
#[test]
fn a_hybrid_layer_type_qpath_does_not_know_is_named() {
    let layer_types = |third: &str| {
        let mut types: Vec<String> = (0..48)
            .map(|i| {
                if (i + 1) % 4 == 0 {
                    "\"full_attention\""
                } else {
                    "\"linear_attention\""
                }
                .to_string()
            })
            .collect();
        types[3] = format!("\"{third}\"");
        with(QWEN3_NEXT_80B, &format!("\"layer_types\": [{}]", types.join(", ")))
    };
    for r in RELEASES {
        let error = |text: &str| {
            resolve(&scenario("b200", r, "vllm serve m", Some(text)))
                .error
                .map(|e| e.message)
                .unwrap_or_default()
        };
        // transformers accepts "sliding_attention"; qwen3_next.py raises.
        let e = error(&layer_types("sliding_attention"));
        assert!(
            e.contains("layer_types[3] = \"sliding_attention\"")
                && e.contains("Invalid layer_type sliding_attention")
                && e.contains("qwen3_next.py"),
            "{e}"
        );
        // Not a transformers layer type at all.
        let e = error(&layer_types("gated_attention"));
        assert!(
            e.contains("layer_types[3] = \"gated_attention\"") && e.contains("validate_layer_type"),
            "{e}"
        );
        // The legacy name "attention" is remapped to "full_attention": the preset's answer.
        let legacy = resolve(&scenario("b200", r, "vllm serve m", Some(&layer_types("attention"))));
        let preset = resolve(&scenario("b200", r, &format!("vllm serve {QWEN3_NEXT_ID}"), None));
        assert_eq!(
            legacy.groups.iter().map(|g| g.layers.clone()).collect::<Vec<_>>(),
            preset.groups.iter().map(|g| g.layers.clone()).collect::<Vec<_>>()
        );
        // NemotronH: a pattern character NemotronHConfig._pattern_to_list does not know.
        let e = error(&NEMOTRON_NANO_9B_V2.replace("\"M-M-M-MM", "\"M-X-M-MM"));
        assert!(e.contains("hybrid_override_pattern[2] = 'X'"), "{e}");
        // NemotronH: a layers_block_type entry its validate_layer_type refuses.
        let e = error(&with(
            NEMOTRON_NANO_9B_V2,
            r#""layers_block_type": ["linear_attention", "sliding_attention"]"#,
        ));
        assert!(
            e.contains("\"sliding_attention\"") && e.contains("validate_layer_type"),
            "{e}"
        );
        // A sliding window on a hybrid config: qpath cannot model it, naming the field.
        let e = error(&QWEN3_NEXT_80B.replace("\"head_dim\": 256", "\"head_dim\": 256, \"sliding_window\": 4096"));
        assert!(e.contains("qpath cannot model this: sliding_window = 4096"), "{e}");
    }
}
