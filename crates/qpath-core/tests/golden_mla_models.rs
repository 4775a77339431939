//! DeepSeek-architecture (MLA) models as vLLM 0.24.0-0.33.0 loads them (issue 21, the models part;
//! `docs/source-notes/mla-models.md`): the presets' layouts (every layer MLA: `num_attention_heads` query heads, one
//! latent KV head, head size `kv_lora_rank + qk_rope_head_dim` = 576, sparse with an indexer for DeepSeek-V3.2 and
//! GLM-5), the file per release (`vllm/models/deepseek_v32` for the DSA architectures from 0.29.0), released
//! config.json files read into the same layouts, the MTP layers, `VLLM_MLA_DISABLE`, and the config-time errors
//! (tensor parallelism, nvfp4 caches) with vLLM's types, texts and lines.
//!
//! Backend selection for MLA layers is not part of this file: until it lands a resolve of these models ends after
//! the model is loaded, so the end-to-end checks here are the model side (`report.model`, the layers) and the
//! errors raised before any layer selects a backend.

mod common;

use qpath_core::model::{
    self, resolve_model_at, resolve_model_from_config, resolve_model_in, AttentionKind, MlaDims, MlaModel, ModelEnv, ModelSpec,
};
use qpath_core::release::Release::{self, *};
use qpath_core::report::{Report, ScenarioError, ScenarioErrorKind};
use qpath_core::resolve::{resolve, Hardware, Scenario};

const DEEPSEEK_V3: &str = include_str!("fixtures/deepseek-v3.config.json");
const DEEPSEEK_V32: &str = include_str!("fixtures/deepseek-v3.2.config.json");
const KIMI_K2: &str = include_str!("fixtures/kimi-k2-instruct.config.json");
const GLM_5: &str = include_str!("fixtures/glm-5.config.json");

fn preset(r: Release, id: &str) -> ModelSpec {
    resolve_model_at(r, id, None).unwrap_or_else(|e| panic!("{id} @{r}: {e}"))
}

fn from_config(r: Release, text: &str) -> ModelSpec {
    resolve_model_from_config(r, "m", "config.json", text, None).unwrap_or_else(|e| panic!("@{r}: {e}"))
}

fn config_error(r: Release, text: &str) -> String {
    match resolve_model_from_config(r, "m", "config.json", text, None) {
        Ok(_) => panic!("config.json read: {text}"),
        Err(e) => e.message,
    }
}

fn with(base: &str, extra: &str) -> String {
    let i = base.rfind('}').unwrap();
    format!("{},\n  {extra}\n}}", base[..i].trim_end())
}

fn run_config(gpu: &str, r: Release, line: &str, config: &str) -> Report {
    let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), r, format!("vllm serve {line}"));
    s.model_config = Some(config.to_string());
    resolve(&s)
}

fn error(r: &Report) -> &ScenarioError {
    r.error.as_ref().unwrap_or_else(|| panic!("no error: {r:#?}"))
}

/// Every layer of `spec` is the MLA layer `(heads, dims)`: full attention, no window, one KV head, head size
/// `kv_lora_rank + qk_rope_head_dim`, no sinks; indices 0..n.
fn assert_mla_layers(spec: &ModelSpec, n: u32, heads: u32, dims: MlaDims, what: &str) {
    assert_eq!(spec.layers.len(), n as usize, "{what}");
    assert_eq!(spec.decoder_layers, n, "{what}");
    for (i, l) in spec.layers.iter().enumerate() {
        assert_eq!(l.index, i as u32, "{what}");
        assert_eq!(l.kind, AttentionKind::Full, "{what}");
        assert_eq!(l.sliding_window, None, "{what}");
        assert_eq!((l.num_q_heads, l.num_kv_heads, l.head_dim), (heads, 1, 576), "{what}");
        assert_eq!(l.mla, Some(dims), "{what}");
        assert!(!l.has_sinks, "{what}");
    }
    assert!(spec.use_mla(), "{what}");
}

fn has_source(spec: &ModelSpec, needle: &str) -> bool {
    spec.source.iter().any(|s| s.contains(needle))
}

#[test]
fn deepseek_v3_r1_kimi_and_v2_lite_are_mla_in_every_release() {
    let v2_lite = MlaDims {
        q_lora_rank: None,
        ..common::mla::V3
    };
    for r in [V0_24_0, V0_28_0, V0_29_0, V0_33_0] {
        for (id, n, heads, dims) in [
            ("deepseek-ai/DeepSeek-V3", 61, 128, common::mla::V3),
            ("deepseek-ai/DeepSeek-R1", 61, 128, common::mla::V3),
            ("moonshotai/Kimi-K2-Instruct", 61, 64, common::mla::V3),
            ("deepseek-ai/DeepSeek-V2-Lite", 27, 16, v2_lite),
            ("deepseek-ai/DeepSeek-V2-Lite-Chat", 27, 16, v2_lite),
        ] {
            let spec = preset(r, id);
            assert_mla_layers(&spec, n, heads, dims, &format!("{id} @{r}"));
            let mla = spec.mla.as_ref().unwrap();
            assert_eq!(mla.file, "vllm/model_executor/models/deepseek_v2.py", "{id} @{r}");
            assert!(mla.indexer.is_none() && mla.init_assert.is_none(), "{id} @{r}");
            assert_eq!(spec.vllm_model, model::VllmModel::DeepseekV2);
            assert_eq!(spec.config_dtype, qpath_core::dtype::TorchDtype::BFloat16);
        }
    }
    // The trace cites each rule at the release's line: DeepseekV2MLAAttention iff use_mla (deepseek_v2.py), the MLA
    // head size (mla_attention.py), use_mla itself (config/model.py).
    for (r, attn_cls, head_size, use_mla) in [(V0_24_0, 1134, 381, 1627), (V0_33_0, 1289, 480, 2068)] {
        let spec = preset(r, "deepseek-ai/DeepSeek-V3");
        for cite in [
            format!("vllm/model_executor/models/deepseek_v2.py:{attn_cls}"),
            format!("vllm/model_executor/layers/attention/mla_attention.py:{head_size}"),
            format!("use_mla = True (vllm/config/model.py:{use_mla};"),
        ] {
            assert!(has_source(&spec, &cite), "{cite} @{r}: {:#?}", spec.source);
        }
        // transformers' DeepseekV3Config sets head_dim = qk_rope_head_dim (64): the preset holds it, the rule does
        // not read it.
        assert!(has_source(&spec, "config.head_dim = 64 and num_key_value_heads are not read"));
    }
}

#[test]
fn deepseek_v32_and_glm5_are_sparse_and_change_file_at_0_29_0() {
    let v32 = MlaDims {
        index_topk: Some(2048),
        ..common::mla::V3
    };
    let glm = MlaDims {
        kv_lora_rank: 512,
        q_lora_rank: Some(2048),
        qk_nope_head_dim: 192,
        qk_rope_head_dim: 64,
        v_head_dim: 256,
        index_topk: Some(2048),
    };
    for (id, n, heads, dims, index_heads) in [
        ("deepseek-ai/DeepSeek-V3.2", 61, 128, v32, 64),
        ("zai-org/GLM-5", 78, 64, glm, 32),
    ] {
        for (r, file, cache_cite) in [
            (
                V0_24_0,
                "vllm/model_executor/models/deepseek_v2.py",
                "vllm/model_executor/models/deepseek_v2.py:654",
            ),
            (
                V0_28_0,
                "vllm/model_executor/models/deepseek_v2.py",
                "vllm/model_executor/models/deepseek_v2.py:685",
            ),
            (
                V0_29_0,
                "vllm/models/deepseek_v32/nvidia/model.py",
                "vllm/models/deepseek_v32/attention.py:92",
            ),
            (
                V0_33_0,
                "vllm/models/deepseek_v32/nvidia/model.py",
                "vllm/models/deepseek_v32/attention.py:95",
            ),
        ] {
            let spec = preset(r, id);
            assert_mla_layers(&spec, n, heads, dims, &format!("{id} @{r}"));
            assert!(spec.layers.iter().all(|l| l.mla.is_some_and(|m| m.sparse())));
            let mla = spec.mla.as_ref().unwrap();
            assert_eq!(mla.file, file, "{id} @{r}");
            let ix = mla.indexer.as_ref().unwrap();
            assert_eq!(
                (ix.index_topk, ix.index_n_heads, ix.index_head_dim, ix.cache_head_size),
                (2048, index_heads, 128, 132),
                "{id} @{r}"
            );
            assert_eq!(
                ix.layers,
                (0..n).collect::<Vec<_>>(),
                "no freq / pattern: every layer has an indexer"
            );
            assert!(has_source(&spec, cache_cite), "{id} @{r}: {:#?}", spec.source);
        }
    }
    // The registry line per release: DeepseekV32ForCausalLM -> deepseek_v2's DeepseekV3ForCausalLM until 0.28.0, then
    // vllm.models.deepseek_v32 (CUDA: nvidia/model.py).
    let before = preset(V0_28_0, "deepseek-ai/DeepSeek-V3.2");
    assert!(has_source(
        &before,
        "DeepseekV32ForCausalLM -> vllm/model_executor/models/deepseek_v2.py (registry vllm/model_executor/models/registry.py:95)"
    ));
    let after = preset(V0_29_0, "deepseek-ai/DeepSeek-V3.2");
    assert!(has_source(
        &after,
        "DeepseekV32ForCausalLM -> vllm/models/deepseek_v32/nvidia/model.py (registry vllm/model_executor/models/registry.py:94, vllm.models.deepseek_v32 on CUDA (vllm/models/deepseek_v32/__init__.py:20))"
    ));
    assert_eq!(
        model::IndexerSpec::cache_layer_name(5),
        "model.layers.5.self_attn.indexer.k_cache"
    );
    assert_eq!(MlaModel::attention_layer_name(60), "model.layers.60.self_attn.attn");
}

#[test]
fn the_mtp_layers_are_counted_and_named() {
    for r in [V0_24_0, V0_33_0] {
        let v3 = preset(r, "deepseek-ai/DeepSeek-V3");
        let mtp = v3.mla.as_ref().unwrap().mtp.unwrap();
        assert_eq!((mtp.count, mtp.first), (1, 61));
        assert_eq!(mtp.prefix(0), "model.layers.61");
        let layers = v3.mtp_layer_specs();
        assert_eq!(layers.len(), 1);
        assert_eq!((layers[0].index, layers[0].head_dim, layers[0].num_kv_heads), (61, 576, 1));
        assert_eq!(layers[0].mla, Some(common::mla::V3));
        assert!(has_source(&v3, "from index num_hidden_layers = 61"));
        // Kimi-K2 has num_nextn_predict_layers 0; DeepSeek-V2-Lite's config has no such attribute.
        let kimi = preset(r, "moonshotai/Kimi-K2-Instruct");
        assert_eq!(kimi.mla.as_ref().unwrap().mtp.map(|t| t.count), Some(0));
        assert!(kimi.mtp_layer_specs().is_empty());
        assert_eq!(preset(r, "deepseek-ai/DeepSeek-V2-Lite").mla.unwrap().mtp, None);
        // GLM-5's MTP layer is index 78, sparse like the target.
        let glm = preset(r, "zai-org/GLM-5");
        let m = glm.mtp_layer_specs();
        assert_eq!(m.iter().map(|l| l.index).collect::<Vec<_>>(), vec![78]);
        assert!(m[0].mla.is_some_and(|d| d.sparse()));
    }
}

#[test]
fn released_config_jsons_give_their_presets() {
    for r in [V0_24_0, V0_29_0, V0_33_0] {
        for (text, id) in [
            (DEEPSEEK_V3, "deepseek-ai/DeepSeek-V3"),
            (DEEPSEEK_V32, "deepseek-ai/DeepSeek-V3.2"),
            (KIMI_K2, "moonshotai/Kimi-K2-Instruct"),
            (GLM_5, "zai-org/GLM-5"),
        ] {
            let a = from_config(r, text);
            let b = preset(r, id);
            assert_eq!(a.layers, b.layers, "{id} @{r}");
            assert_eq!(a.model_type, b.model_type, "{id} @{r}");
            assert_eq!(a.config_dtype, b.config_dtype, "{id} @{r}");
            assert_eq!(a.decoder_layers, b.decoder_layers, "{id} @{r}");
            assert_eq!(a.mla, b.mla, "{id} @{r}");
            assert_eq!(a.vllm_model, b.vllm_model, "{id} @{r}");
        }
    }
    // The DeepSeek-V3 config.json's FP8 block quantization sets no KV-cache dtype.
    let v3 = from_config(V0_33_0, DEEPSEEK_V3);
    let kv = v3.checkpoint_kv.as_ref().unwrap();
    assert_eq!((kv.method.as_str(), kv.cache_dtype.as_deref()), ("fp8", None));
    assert!(has_source(
        &v3,
        "config class: transformers' DeepseekV3Config (transformers 5.16.1)"
    ));
    // kimi_k2 and deepseek_v32 are built with DeepseekV3Config by vLLM's _CONFIG_REGISTRY, cited per release.
    assert!(has_source(
        &from_config(V0_24_0, KIMI_K2),
        "registered by vLLM for model_type kimi_k2 (vllm/transformers_utils/config.py:96)"
    ));
    assert!(has_source(
        &from_config(V0_33_0, DEEPSEEK_V32),
        "registered by vLLM for model_type deepseek_v32 (vllm/transformers_utils/config.py:133)"
    ));

    // A pasted DeepSeek-V3 config.json through the whole resolve: the model is the preset's.
    let pasted = run_config("h200", V0_33_0, "deepseek-ai/DeepSeek-V3", DEEPSEEK_V3);
    let named = common::run("h200", "0.33.0", "vllm serve deepseek-ai/DeepSeek-V3");
    let (a, b) = (pasted.model.unwrap(), named.model.unwrap());
    assert_eq!(
        (a.num_layers, a.dtype, a.preset),
        (61, qpath_core::dtype::TorchDtype::BFloat16, false)
    );
    assert_eq!((b.num_layers, b.dtype, b.preset), (61, a.dtype, true));
    assert_eq!(a.config.as_deref(), Some("config.json of deepseek-ai/DeepSeek-V3"));
}

#[test]
fn the_config_classes_fill_their_defaults() {
    let r = V0_33_0;
    // DeepseekV3Config defaults num_mtp_layers (num_nextn_predict_layers) to 1 and the MLA dims to DeepSeek-V3's.
    let bare = r#"{"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "num_hidden_layers": 4,
        "num_attention_heads": 16}"#;
    let spec = from_config(r, bare);
    assert_eq!(spec.layers[0].mla, Some(common::mla::V3));
    assert_eq!(spec.mla.as_ref().unwrap().mtp.map(|t| (t.count, t.first)), Some((1, 4)));
    // DeepseekV2Config: q_lora_rank null stays None (V2-Lite), no MTP attribute; its default is 1536.
    let v2 = r#"{"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2", "num_hidden_layers": 2,
        "num_attention_heads": 16, "hidden_size": 2048, "q_lora_rank": null}"#;
    let spec = from_config(r, v2);
    assert_eq!(spec.layers[0].mla.unwrap().q_lora_rank, None);
    assert_eq!(spec.mla.as_ref().unwrap().mtp, None);
    let spec = from_config(r, &v2.replace(r#", "q_lora_rank": null"#, ""));
    assert_eq!(spec.layers[0].mla.unwrap().q_lora_rank, Some(1536));
    // GlmMoeDsaConfig defaults the indexer: a glm_moe_dsa config without index_topk is sparse.
    let glm = r#"{"architectures": ["GlmMoeDsaForCausalLM"], "model_type": "glm_moe_dsa", "num_hidden_layers": 3,
        "num_attention_heads": 64}"#;
    let spec = from_config(r, glm);
    assert_eq!(spec.layers[0].mla.unwrap().index_topk, Some(2048));
    assert_eq!(spec.layers[0].mla.unwrap().v_head_dim, 256);
    // index_topk_freq / offset: an indexer only where max(i - offset + 1, 0) % freq == 0.
    let sparse = with(
        bare,
        r#""index_topk": 8, "index_n_heads": 4, "index_head_dim": 256, "index_topk_freq": 2"#,
    );
    let ix = from_config(r, &sparse).mla.unwrap().indexer.unwrap();
    assert_eq!((ix.layers, ix.cache_head_size), (vec![0, 1, 3], 256 + 8));
    // index_topk_pattern wins ("S": skip); layers past its end build an indexer.
    let pattern = with(&sparse, r#""index_topk_pattern": ["F", "S"]"#);
    assert_eq!(from_config(r, &pattern).mla.unwrap().indexer.unwrap().layers, vec![0, 2, 3]);
    // DeepseekV32ForCausalLM without index_topk: dense MLA in deepseek_v2.py until 0.28.0; from 0.29.0 the DSA file
    // reads config.index_topk unconditionally.
    let v32 = bare
        .replace("DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM")
        .replace("deepseek_v3\"", "deepseek_v32\"");
    let dense = from_config(V0_28_0, &v32);
    assert_eq!(dense.layers[0].mla, Some(common::mla::V3));
    let e = config_error(V0_29_0, &v32);
    assert!(e.contains("DeepseekV32ForCausalLM has no index_topk"), "{e}");
}

#[test]
fn config_json_errors_name_the_field() {
    let r = V0_33_0;
    let base = r#"{"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "num_hidden_layers": 4,
        "num_attention_heads": 16"#;
    let e = config_error(r, &format!("{base}, \"kv_lora_rank\": null}}"));
    assert_eq!(
        e,
        "config.json: qpath cannot model this: kv_lora_rank = null (transformers' DeepseekV3Config declares \
         kv_lora_rank an int and refuses None: StrictDataclassFieldValidationError)"
    );
    let e = config_error(r, &format!("{base}, \"qk_rope_head_dim\": 64.5}}"));
    assert_eq!(
        e,
        "config.json: qk_rope_head_dim = 64.5: transformers' DeepseekV3Config declares it an int (a non-negative \
         integer here)"
    );
    let e = config_error(r, &format!("{base}, \"compress_ratios\": [4]}}"));
    assert!(
        e.starts_with("config.json: qpath cannot model this: compress_ratios (a DeepSeek-V4 config"),
        "{e}"
    );
    let e = config_error(
        r,
        &base
            .replace("deepseek_v3\"", "deepseek\"")
            .replace("4,", "4}")
            .replace("\n        \"num_attention_heads\": 16", ""),
    );
    assert!(e.contains("model_type = \"deepseek\" (DeepSeek-MoE v1)"), "{e}");
    let e = config_error(
        r,
        r#"{"architectures": ["DeepseekV2ForCausalLM"], "model_type": "deepseek_v2", "num_hidden_layers": 2,
        "num_attention_heads": 15, "hidden_size": 2048}"#,
    );
    assert_eq!(
        e,
        "config.json: transformers' DeepseekV2Config.validate_architecture raises ValueError: The hidden size (2048) \
         is not a multiple of the number of attention heads (15)."
    );
    let e = config_error(r, &format!("{base}}}").replace(r#""model_type": "deepseek_v3", "#, ""));
    assert!(
        e.starts_with("config.json: qpath cannot model this: model_type is missing"),
        "{e}"
    );
    // The nested Kimi-K2.5 architecture is not one qpath restates.
    let e = config_error(
        r,
        r#"{"architectures": ["KimiK25ForConditionalGeneration"], "text_config": {}}"#,
    );
    assert!(e.contains("KimiK25ForConditionalGeneration\" is not an architecture"), "{e}");
}

#[test]
fn hf_overrides_on_an_mla_model() {
    let r = V0_33_0;
    let ov = |json: &str| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(json).unwrap();
    // config.update sets the MLA attributes the model file reads: index_topk makes DeepSeek-V3 sparse.
    let spec = resolve_model_at(
        r,
        "deepseek-ai/DeepSeek-V3",
        Some(&ov(
            r#"{"index_topk": 1024, "index_n_heads": 64, "index_head_dim": 128, "kv_lora_rank": 256}"#,
        )),
    )
    .unwrap();
    assert_eq!(spec.layers[0].head_dim, 256 + 64);
    assert_eq!(spec.layers[0].mla.unwrap().index_topk, Some(1024));
    // head_dim is never read by the MLA layers: overriding it would change nothing.
    let e = resolve_model_at(r, "deepseek-ai/DeepSeek-V3", Some(&ov(r#"{"head_dim": 192}"#))).unwrap_err();
    assert_eq!(
        e.message,
        "deepseek-ai/DeepSeek-V3: --hf-overrides head_dim: vLLM's deepseek model files build each attention layer \
         from kv_lora_rank, qk_nope_head_dim and qk_rope_head_dim and never read head_dim, so this would change nothing"
    );
    // Layers and heads do change the layout.
    let spec = resolve_model_at(
        r,
        "deepseek-ai/DeepSeek-V3",
        Some(&ov(r#"{"num_hidden_layers": 2, "num_attention_heads": 64}"#)),
    )
    .unwrap();
    assert_eq!(spec.layers.len(), 2);
    assert_eq!(spec.layers[1].num_q_heads, 64);
}

#[test]
fn kimi_k2_at_tp_8_and_a_tp_that_does_not_divide_the_heads() {
    for r in ["0.24.0", "0.33.0"] {
        let ok = common::run("h200", r, "vllm serve moonshotai/Kimi-K2-Instruct -tp 8");
        assert!(
            ok.error.as_ref().is_none_or(|e| e.kind != ScenarioErrorKind::ValidationError),
            "{:?}",
            ok.error
        );
        assert_eq!(ok.model.as_ref().unwrap().num_layers, 61);
        let release = Release::ALL.into_iter().find(|x| x.name() == r).unwrap();
        let spec = preset(release, "moonshotai/Kimi-K2-Instruct");
        assert!(spec.layers.iter().all(|l| l.num_q_heads / 8 == 8 && l.num_q_heads % 8 == 0));
    }
    // 64 heads do not divide by 3: VllmConfig.__post_init__ raises in verify_with_parallel_config, which pydantic
    // re-raises as ValidationError.
    for (r, line) in [("0.24.0", 1166), ("0.29.0", 1414), ("0.33.0", 1560)] {
        let rep = common::run("h200", r, "vllm serve moonshotai/Kimi-K2-Instruct -tp 3");
        let e = error(&rep);
        assert_eq!(e.kind, ScenarioErrorKind::ValidationError);
        assert_eq!(
            e.message,
            "1 validation error for VllmConfig\n  Value error, Total number of attention heads (64) must be divisible \
             by tensor parallel size (3). [type=value_error, input_value=ArgsKwargs((), {'model_co... \
             'shutdown_timeout': 0}), input_type=ArgsKwargs]"
        );
        assert_eq!(e.source.as_deref(), Some(format!("vllm/config/model.py:{line}").as_str()));
        assert_eq!(serde_json::to_value(&rep).unwrap()["error"]["type"], "ValidationError");
        assert!(qpath_core::render::text(&rep).contains(
            "\nvLLM rejects this scenario: pydantic_core._pydantic_core.ValidationError: 1 validation error for \
             VllmConfig\n  Value error, Total number of attention heads (64)"
        ));
    }
}

#[test]
fn the_tensor_parallel_check_is_pydantics_for_every_model() {
    // Not only MLA models: Llama-3.1-8B's 32 heads at -tp 3; the input's repr ends with --shutdown-timeout's value.
    for (flags, tail) in [
        ("", " 'shutdown_timeout': 0})"),
        (" --shutdown-timeout 17", "'shutdown_timeout': 17})"),
        (" --shutdown-timeout 123456", "tdown_timeout': 123456})"),
    ] {
        let rep = common::run(
            "h100-sxm",
            "0.33.0",
            &format!("vllm serve meta-llama/Llama-3.1-8B-Instruct -tp 3{flags}"),
        );
        let e = error(&rep);
        assert_eq!(e.kind, ScenarioErrorKind::ValidationError);
        assert_eq!(
            e.message,
            format!(
                "1 validation error for VllmConfig\n  Value error, Total number of attention heads (32) must be \
                 divisible by tensor parallel size (3). [type=value_error, input_value=ArgsKwargs((), \
                 {{'model_co...{tail}, input_type=ArgsKwargs]"
            )
        );
        assert_eq!(e.source.as_deref(), Some("vllm/config/model.py:1560"));
    }
    // DeepSeek-V3's 128 heads at -tp 3 (notes §9).
    let rep = common::run("b200", "0.28.0", "vllm serve deepseek-ai/DeepSeek-V3 -tp 3");
    assert!(error(&rep)
        .message
        .contains("Total number of attention heads (128) must be divisible by tensor parallel size (3)."));
    assert_eq!(error(&rep).source.as_deref(), Some("vllm/config/model.py:1368"));
}

#[test]
fn vllm_mla_disable_builds_standard_attention() {
    let off = ModelEnv { mla_disable: true };
    for r in [V0_24_0, V0_33_0] {
        // DeepseekV2Attention: an Attention of qk_nope + qk_rope = 192 with as many KV heads as query heads.
        let spec = resolve_model_in(r, off, "deepseek-ai/DeepSeek-V3", None).unwrap();
        assert!(!spec.use_mla());
        assert_eq!(spec.layers.len(), 61);
        assert!(spec
            .layers
            .iter()
            .all(|l| (l.head_dim, l.num_q_heads, l.num_kv_heads, l.mla, l.kind) == (192, 128, 128, None, AttentionKind::Full)));
        assert!(has_source(&spec, "use_mla = False ("));
        assert!(has_source(&spec, "VLLM_MLA_DISABLE=1"));
        // The MTP layers (the drafter's) are the same standard attention.
        assert_eq!(spec.mtp_layer_specs()[0].head_dim, 192);
    }
    // A sparse model without MLA: deepseek_v2.py (DeepSeek-V3.2 until 0.28.0) asserts there is no top-k buffer while it
    // builds layer 0 — an AssertionError whose message keeps the indentation after the string's backslash.
    for (r, line) in [("0.24.0", 441), ("0.28.0", 470)] {
        let rep = common::run("h200", r, "VLLM_MLA_DISABLE=1 vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8");
        let e = error(&rep);
        assert_eq!(e.kind, ScenarioErrorKind::AssertionError);
        assert_eq!(
            e.message,
            "topk_indices_buffer is not         supported for DeepseekV2Attention"
        );
        assert_eq!(
            e.source.as_deref(),
            Some(format!("vllm/model_executor/models/deepseek_v2.py:{line}").as_str())
        );
        assert_eq!(rep.model.as_ref().unwrap().num_layers, 61);
    }
    // From 0.29.0 the DSA file builds MLA whatever use_mla says, while the engine's head size follows use_mla.
    let rep = common::run(
        "h200",
        "0.29.0",
        "VLLM_MLA_DISABLE=1 vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8",
    );
    let e = error(&rep);
    assert_eq!(e.kind, ScenarioErrorKind::InputError);
    assert!(
        e.message
            .contains("qpath cannot model this: use_mla is False, but vLLM 0.29.0 builds DeepseekV32ForCausalLM"),
        "{}",
        e.message
    );
    // VLLM_MLA_DISABLE=0 is MLA; a value int() refuses is vLLM's ValueError.
    let spec = resolve_model_in(V0_33_0, ModelEnv::default(), "deepseek-ai/DeepSeek-V3", None).unwrap();
    assert!(spec.use_mla());
    let rep = common::run("h200", "0.33.0", "VLLM_MLA_DISABLE=yes vllm serve deepseek-ai/DeepSeek-V3");
    assert_eq!(error(&rep).kind, ScenarioErrorKind::ValueError);
    assert!(error(&rep).message.contains("invalid literal for int() with base 10: 'yes'"));
    // is_causal False (bidirectional DeepSeek variants): MLA until 0.28.0, then EncoderOnlyAttention, which qpath
    // does not restate.
    let noncausal = with(DEEPSEEK_V3, r#""is_causal": false"#);
    assert!(from_config(V0_28_0, &noncausal).use_mla());
    let e = config_error(V0_29_0, &noncausal);
    assert!(e.contains("qpath cannot model this: is_causal = False"), "{e}");
}

#[test]
fn nvfp4_caches_on_an_mla_model() {
    let old = "1 validation error for VllmConfig\n  Value error, nvfp4 KV cache is not supported with MLA (Multi-head \
               Latent Attention) backends. Please use a different --kv-cache-dtype (e.g., 'fp8' or 'auto') for MLA \
               models such as DeepSeek. [type=value_error, input_value=ArgsKwargs((), {'model_co... \
               'shutdown_timeout': 0}), input_type=ArgsKwargs]";
    let new = "1 validation error for VllmConfig\n  Value error, nvfp4 KV cache is not supported with MLA (Multi-head \
               Latent Attention) backends. Please use a different --kv-cache-dtype (e.g., 'fp8', 'auto', or \
               'nvfp4_ds_mla' with a sparse MLA backend) for MLA models such as DeepSeek. [type=value_error, \
               input_value=ArgsKwargs((), {'model_co... 'shutdown_timeout': 0}), input_type=ArgsKwargs]";
    for (r, kv, want) in [
        ("0.24.0", "nvfp4", Some((old, 2165))),
        ("0.28.0", "nvfp4", Some((old, 2536))),
        // 0.28.0 refuses every nvfp4* dtype (nvfp4_4over6 is new there).
        ("0.28.0", "nvfp4_4over6", Some((old, 2536))),
        ("0.30.0", "nvfp4", Some((new, 3188))),
        ("0.33.0", "nvfp4", Some((new, 3432))),
        // 0.30.0+: the *_ds_mla layouts pass this check.
        ("0.30.0", "nvfp4_ds_mla", None),
        ("0.33.0", "fp8", None),
    ] {
        let rep = common::run(
            "b200",
            r,
            &format!("vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype {kv}"),
        );
        match want {
            Some((text, line)) => {
                let e = error(&rep);
                assert_eq!(e.kind, ScenarioErrorKind::ValidationError, "{r} {kv}");
                assert_eq!(e.message, text, "{r} {kv}");
                assert_eq!(e.source.as_deref(), Some(format!("vllm/config/vllm.py:{line}").as_str()));
            }
            None => assert!(
                rep.error
                    .as_ref()
                    .is_none_or(|e| !e.message.contains("nvfp4 KV cache is not supported with MLA")),
                "{r} {kv}: {:?}",
                rep.error
            ),
        }
    }
    // A model without MLA passes it: Llama, and DeepSeek-V3 under VLLM_MLA_DISABLE=1.
    for line in [
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype nvfp4",
        "VLLM_MLA_DISABLE=1 vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype nvfp4",
    ] {
        let rep = common::run("b200", "0.33.0", line);
        assert!(
            rep.error
                .as_ref()
                .is_none_or(|e| !e.message.contains("not supported with MLA")),
            "{line}: {:?}",
            rep.error
        );
    }
    // A ModelOpt checkpoint whose KV algorithm is NVFP4 makes the cache nvfp4 under auto: the same error.
    let ckpt = with(
        DEEPSEEK_V3,
        r#""quantization_config": {"quant_method": "modelopt", "kv_cache_quant_algo": "NVFP4"}"#,
    )
    .replacen(
        r#""quantization_config": {
    "activation_scheme": "dynamic",
    "fmt": "e4m3",
    "quant_method": "fp8",
    "weight_block_size": [
      128,
      128
    ]
  },"#,
        "",
        1,
    );
    assert!(!ckpt.contains("weight_block_size"), "the fp8 quantization_config is replaced");
    let rep = run_config("b200", V0_33_0, "deepseek-ai/DeepSeek-V3", &ckpt);
    assert_eq!(error(&rep).message, new);
    // The TP check (VllmConfig.__post_init__) comes before the nvfp4 validator (model_validator(mode="after")).
    let rep = common::run(
        "b200",
        "0.33.0",
        "vllm serve deepseek-ai/DeepSeek-V3 -tp 3 --kv-cache-dtype nvfp4",
    );
    assert!(error(&rep).message.contains("tensor parallel size (3)"));
}
