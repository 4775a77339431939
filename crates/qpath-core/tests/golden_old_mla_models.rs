//! The DeepSeek-architecture (MLA) models in the old releases 0.20.0-0.23.0 against 0.24.0
//! (`docs/source-notes/mla-models.md`; the sources are `vllm-<X>/vllm/…`):
//!
//! - 0.20.x-0.23.0: a sparse model (`index_topk`) builds its `Indexer` (and its cache layer) on every layer
//!   (deepseek_v2.py:985@0.20.x, :996@0.21.0/0.22.x, :1009@0.23.0, under `if self.is_v32:`); `index_topk_freq` /
//!   `index_topk_pattern` only set `skip_topk` (0.21.0-0.23.0), which skips the top-k at run time. From 0.24.0 a layer
//!   that skips the top-k builds no indexer (deepseek_v2.py:1029@0.24.0).
//! - 0.20.x: `VllmConfig` has no `validate_nvfp4_kv_cache_with_mla` (added in 0.21.0, config/vllm.py:1999@0.21.0).
//! - Unchanged from 0.20.0 to 0.24.0 (pinned here with the lines): `is_deepseek_mla`'s model-type list
//!   (model_arch_config_convertor.py:220@0.20.0-0.22.1, :252@0.23.0), `use_mla` (config/model.py), the registry
//!   (DeepseekV32ForCausalLM -> deepseek_v2's DeepseekV3ForCausalLM; no `vllm/models/deepseek_v32` before 0.25.0, so
//!   DeepSeek-V3.2's sparse attention lives in deepseek_v2.py), the MoE-layer rule (deepseek_v2.py:1102@0.20.x).

mod common;

use qpath_core::attention::Backend;
use qpath_core::model::{in_deepseek_mla_list, resolve_model_at, resolve_model_from_config, ModelSpec};
use qpath_core::release::Release::{self, *};
use qpath_core::report::{AttentionKind, ScenarioErrorKind};

const OLD: [Release; 7] = [V0_20_0, V0_20_1, V0_20_2, V0_21_0, V0_22_0, V0_22_1, V0_23_0];

fn preset(r: Release, id: &str) -> ModelSpec {
    resolve_model_at(r, id, None).unwrap_or_else(|e| panic!("{id} @{r}: {e}"))
}

fn from_config(r: Release, text: &str) -> ModelSpec {
    resolve_model_from_config(r, "m", "config.json", text, None).unwrap_or_else(|e| panic!("@{r}: {e}"))
}

fn has_source(spec: &ModelSpec, needle: &str) -> bool {
    spec.source.iter().any(|s| s.contains(needle))
}

/// A four-layer sparse DeepSeek-V3 config with `extra` fields.
fn sparse(extra: &str) -> String {
    format!(
        r#"{{"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "num_hidden_layers": 4,
        "num_attention_heads": 16, "index_topk": 8, "index_n_heads": 4, "index_head_dim": 256{extra}}}"#
    )
}

#[test]
fn before_0_24_0_every_sparse_layer_builds_an_indexer() {
    let freq = sparse(r#", "index_topk_freq": 2"#);
    let pattern = sparse(r#", "index_topk_freq": 2, "index_topk_pattern": ["F", "S", "S"]"#);
    for (r, line) in [
        (V0_20_0, 985),
        (V0_20_1, 985),
        (V0_20_2, 985),
        (V0_21_0, 996),
        (V0_22_0, 996),
        (V0_22_1, 996),
        (V0_23_0, 1009),
    ] {
        for config in [&freq, &pattern] {
            let spec = from_config(r, config);
            let ix = spec.mla.as_ref().unwrap().indexer.as_ref().unwrap();
            assert_eq!(ix.layers, vec![0, 1, 2, 3], "@{r}: {config}");
            assert_eq!(ix.cache_head_size, 256 + 8);
            let cite = format!("an indexer (vllm/model_executor/models/deepseek_v2.py:{line}) on all 4 layers");
            assert!(has_source(&spec, &cite), "@{r}: {:#?}", spec.source);
            assert!(has_source(
                &spec,
                &format!("vLLM {} builds the indexer on every sparse layer", r.name())
            ));
        }
    }
    // 0.24.0: only the layers that do not skip the top-k (max(i - 1, 0) % 2 == 0; the pattern's "S" layers skip).
    let spec = from_config(V0_24_0, &freq);
    assert_eq!(spec.mla.as_ref().unwrap().indexer.as_ref().unwrap().layers, vec![0, 1, 3]);
    assert!(
        has_source(
            &spec,
            "an indexer (vllm/model_executor/models/deepseek_v2.py:1029) on 3 of 4 layers"
        ),
        "{:#?}",
        spec.source
    );
    let spec = from_config(V0_24_0, &pattern);
    assert_eq!(spec.mla.as_ref().unwrap().indexer.as_ref().unwrap().layers, vec![0, 3]);
    // Without freq / pattern both sides build it everywhere, and the old release says no more than 0.24.0 does.
    for r in [V0_20_0, V0_23_0, V0_24_0] {
        let spec = from_config(r, &sparse(""));
        assert_eq!(spec.mla.as_ref().unwrap().indexer.as_ref().unwrap().layers, vec![0, 1, 2, 3]);
        assert!(!has_source(&spec, "builds the indexer on every sparse layer"), "@{r}");
    }
}

#[test]
fn deepseek_v32_and_glm5_are_sparse_in_deepseek_v2_py_in_the_old_releases() {
    // No vllm/models/deepseek_v32 before 0.25.0: the registry maps DeepseekV32ForCausalLM to deepseek_v2's
    // DeepseekV3ForCausalLM and GlmMoeDsaForCausalLM to deepseek_v2 (registry.py:98/122@0.20.0, :100/124@0.23.0).
    for (r, reg, cache) in [(V0_20_0, 98, 659), (V0_21_0, 99, 654), (V0_23_0, 100, 654)] {
        let spec = preset(r, "deepseek-ai/DeepSeek-V3.2");
        let mla = spec.mla.as_ref().unwrap();
        assert_eq!(mla.file, "vllm/model_executor/models/deepseek_v2.py", "@{r}");
        assert!(spec.use_mla());
        assert!(spec
            .layers
            .iter()
            .all(|l| l.mla.is_some_and(|m| m.sparse()) && l.head_dim == 576));
        let ix = mla.indexer.as_ref().unwrap();
        assert_eq!((ix.index_n_heads, ix.index_head_dim, ix.cache_head_size), (64, 128, 132));
        assert_eq!(ix.layers, (0..61).collect::<Vec<_>>());
        assert!(
            has_source(
                &spec,
                &format!(
                    "DeepseekV32ForCausalLM -> vllm/model_executor/models/deepseek_v2.py (registry \
                     vllm/model_executor/models/registry.py:{reg})"
                )
            ),
            "@{r}: {:#?}",
            spec.source
        );
        assert!(has_source(
            &spec,
            &format!("vllm/model_executor/models/deepseek_v2.py:{cache}")
        ));
        let glm = preset(r, "zai-org/GLM-5");
        assert_eq!(glm.mla.as_ref().unwrap().file, "vllm/model_executor/models/deepseek_v2.py");
        assert_eq!(glm.mla.as_ref().unwrap().indexer.as_ref().unwrap().layers.len(), 78);
    }
}

#[test]
fn the_mla_model_types_and_use_mla_are_0_24_0s_in_the_old_releases() {
    // model_arch_config_convertor.py:220@0.20.0-0.22.1 and :252@0.23.0 hold 0.24.0's list (AXK1 … bailing_hybrid).
    for r in OLD {
        for t in [
            "AXK1",
            "deepseek_v2",
            "deepseek_v3",
            "deepseek_v32",
            "glm_moe_dsa",
            "kimi_k2",
            "bailing_hybrid",
        ] {
            assert!(in_deepseek_mla_list(r, t), "{t} @{r}");
        }
        for t in [
            "axk1",
            "bailing_hybrid_mtp",
            "longcat_flash_ngram",
            "k3_dspark",
            "deepseek",
            "llama",
        ] {
            assert!(!in_deepseek_mla_list(r, t), "{t} @{r}");
        }
    }
    for (r, line, use_mla) in [
        (V0_20_0, 220, 1582),
        (V0_21_0, 220, 1599),
        (V0_22_1, 220, 1654),
        (V0_23_0, 252, 1647),
    ] {
        for id in ["deepseek-ai/DeepSeek-V3", "moonshotai/Kimi-K2-Instruct"] {
            let spec = preset(r, id);
            assert!(spec.use_mla(), "{id} @{r}");
            assert!(spec.layers.iter().all(|l| l.num_kv_heads == 1 && l.head_dim == 576));
            assert!(spec.mla.as_ref().unwrap().indexer.is_none());
            assert!(
                has_source(
                    &spec,
                    &format!(
                        "use_mla = True (vllm/config/model.py:{use_mla}; is_deepseek_mla = True: model_type \
                         \"{}\" is in the release's list (vllm/transformers_utils/model_arch_config_convertor.py:{line})",
                        if id.contains("Kimi") { "kimi_k2" } else { "deepseek_v3" }
                    )
                ),
                "{id} @{r}: {:#?}",
                spec.source
            );
        }
    }
    // The MoE rule (first_k_dense_replace chooses the MLP only) is cited at its `if (` in every old release.
    for (r, line) in [
        (V0_20_0, 1102),
        (V0_21_0, 1129),
        (V0_22_1, 1129),
        (V0_23_0, 1144),
        (V0_24_0, 1155),
    ] {
        let spec = preset(r, "deepseek-ai/DeepSeek-V3");
        assert!(
            has_source(
                &spec,
                &format!("first_k_dense_replace = 3: it chooses each layer's MLP (dense or MoE, vllm/model_executor/models/deepseek_v2.py:{line})")
            ),
            "@{r}: {:#?}",
            spec.source
        );
    }
}

#[test]
fn nvfp4_on_an_mla_model_is_refused_from_0_21_0_only() {
    let text = "1 validation error for VllmConfig\n  Value error, nvfp4 KV cache is not supported with MLA (Multi-head \
                Latent Attention) backends. Please use a different --kv-cache-dtype (e.g., 'fp8' or 'auto') for MLA \
                models such as DeepSeek. [type=value_error, input_value=ArgsKwargs((), {'model_co... \
                'shutdown_timeout': 0}), input_type=ArgsKwargs]";
    for (vllm, line) in [
        ("0.21.0", 1999),
        ("0.22.0", 2125),
        ("0.22.1", 2125),
        ("0.23.0", 2135),
        ("0.24.0", 2165),
    ] {
        let rep = common::run("b200", vllm, "vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype nvfp4");
        let e = rep.error.as_ref().unwrap_or_else(|| panic!("{vllm}: no error"));
        assert_eq!(e.kind, ScenarioErrorKind::ValidationError, "{vllm}");
        assert_eq!(e.message, text, "{vllm}");
        assert_eq!(
            e.source.as_deref(),
            Some(format!("vllm/config/vllm.py:{line}").as_str()),
            "{vllm}"
        );
    }
    // 0.20.x: no such validator; the scenario goes on to the MLA layers' backend selection, where no MLA backend of
    // 0.20.x lists nvfp4 among its cache dtypes (vllm/platforms/cuda.py:332@0.20.0).
    for vllm in ["0.20.0", "0.20.1", "0.20.2"] {
        let rep = common::run("b200", vllm, "vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype nvfp4");
        let e = rep.error.as_ref().unwrap_or_else(|| panic!("{vllm}: no error"));
        assert_eq!(e.kind, ScenarioErrorKind::ValueError, "{vllm}");
        assert!(
            e.message.starts_with(
                "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=576, \
                 dtype=torch.bfloat16, kv_cache_dtype=nvfp4, block_size=None, use_mla=True,"
            ),
            "{vllm}: {}",
            e.message
        );
        assert!(!e.message.contains("nvfp4 KV cache is not supported with MLA"));
        assert_eq!(e.source.as_deref(), Some("vllm/platforms/cuda.py:332"), "{vllm}");
        assert!(rep.groups.is_empty());
    }
}

#[test]
fn the_indexer_group_of_a_sparse_model_with_index_topk_freq() {
    // DeepSeek-V3.2 with index_topk_freq 2 (--hf-overrides): 0.23.0's indexer group has all 61 layers, 0.24.0's the 31
    // that do not skip the top-k (0 and the odd ones).
    let line = r#"vllm serve deepseek-ai/DeepSeek-V3.2 --kv-cache-dtype fp8_ds_mla --hf-overrides '{"index_topk_freq": 2}'"#;
    for (vllm, want) in [
        ("0.22.1", (0..61).collect::<Vec<u32>>()),
        ("0.23.0", (0..61).collect()),
        ("0.24.0", (0..61).filter(|i| i % 2 == 1 || *i == 0).collect()),
    ] {
        let rep = common::run("b200", vllm, line);
        assert!(rep.error.is_none(), "{vllm}: {:?}", rep.error);
        let ix = rep
            .groups
            .iter()
            .find(|g| g.attention == AttentionKind::Indexer)
            .unwrap_or_else(|| panic!("{vllm}: no indexer group"));
        assert_eq!(ix.backend, Backend::DeepseekV32Indexer);
        assert_eq!(ix.layers, want, "{vllm}");
        let mla: Vec<u32> = rep
            .groups
            .iter()
            .filter(|g| g.attention != AttentionKind::Indexer)
            .flat_map(|g| g.layers.clone())
            .collect();
        assert_eq!(mla.len(), 61, "{vllm}: every layer is a sparse MLA layer");
    }
}

#[test]
fn a_deepseek_v4_config_names_its_model_file_per_release() {
    // registry.py:99@0.20.0 maps DeepseekV4ForCausalLM to model_executor/models/deepseek_v4.py; :101@0.22.0 to
    // vllm.models.deepseek_v4.
    let v4 = r#"{"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "num_hidden_layers": 4,
        "num_attention_heads": 16, "compress_ratios": [4]}"#;
    for (r, file) in [
        (V0_20_0, "vllm/model_executor/models/deepseek_v4.py"),
        (V0_21_0, "vllm/model_executor/models/deepseek_v4.py"),
        (V0_22_0, "vllm/models/deepseek_v4"),
        (V0_24_0, "vllm/models/deepseek_v4"),
    ] {
        let e = resolve_model_from_config(r, "m", "config.json", v4, None)
            .unwrap_err()
            .message;
        assert_eq!(
            e,
            format!(
                "config.json: qpath cannot model this: compress_ratios (a DeepSeek-V4 config: its MLA head size is \
                 head_dim, and vLLM builds it with {file}, which qpath does not restate)"
            ),
            "@{r}"
        );
    }
}
