//! Resolution of presets and `--hf-overrides` into layers, end to end (the `--dtype` and preset-table tests sit
//! beside their code).

use serde_json::{json, Map, Value};

use super::*;
use crate::test_rng::Rng;

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

fn sliding_indices(spec: &ModelSpec) -> Vec<u32> {
    spec.sliding_layers().map(|l| l.index).collect()
}

fn full_indices(spec: &ModelSpec) -> Vec<u32> {
    spec.full_layers().map(|l| l.index).collect()
}

#[test]
fn every_preset_resolves_in_every_release() {
    for p in MODEL_PRESETS {
        for r in Release::ALL {
            // gemma-4's full layers have their own head size, which vLLM reads from the per-layer config only from
            // 0.28.0; before, it depends on the installed transformers (layout.rs gemma4_full_layer): "cannot model".
            if p.vllm_model == super::VllmModel::Gemma4 && r < Release::V0_28_0 {
                let e = resolve_model_at(r, p.id, None).expect_err(p.id);
                assert!(
                    e.to_string().contains("qpath cannot model this: global_head_dim"),
                    "{}: {e}",
                    p.id
                );
                continue;
            }
            let spec = resolve_model_at(r, p.id, None).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert!(spec.preset);
            assert_eq!(spec.id, p.id);
            assert_eq!(spec.config_dtype, p.torch_dtype);
            assert!(!spec.source.is_empty());
            // NemotronH's MLP / MoE blocks have no token mixer and no layer here; every other layer is listed.
            if p.vllm_model != super::VllmModel::NemotronH {
                assert_eq!(spec.layers.len(), p.num_hidden_layers as usize);
            }
            assert!(spec.layers.windows(2).all(|w| w[0].index < w[1].index));
            assert!(spec.layers.iter().all(|l| l.index < p.num_hidden_layers));
            for (i, l) in spec.layers.iter().enumerate() {
                if p.vllm_model != super::VllmModel::NemotronH {
                    assert_eq!(l.index as usize, i);
                }
                assert_eq!(l.kind == AttentionKind::SlidingWindow, l.sliding_window.is_some());
                assert_eq!(l.num_q_heads % l.num_kv_heads, 0);
            }
        }
    }
}

#[test]
fn opt_125m_is_float16_mha() {
    let spec = resolve_model("facebook/opt-125m", None).unwrap();
    assert_eq!(spec.config_dtype, TorchDtype::Float16);
    assert_eq!(spec.layers.len(), 12);
    for l in &spec.layers {
        assert_eq!(
            (l.kind, l.head_dim, l.num_q_heads, l.num_kv_heads),
            (AttentionKind::Full, 64, 12, 12)
        );
        assert!(!l.has_sinks);
    }
}

#[test]
fn llama_and_qwen_presets_are_all_full() {
    for (id, n, q, kv, d) in [
        ("meta-llama/Llama-3.1-8B-Instruct", 32, 32, 8, 128),
        ("meta-llama/Llama-3.3-70B-Instruct", 80, 64, 8, 128),
        ("meta-llama/Meta-Llama-3-8B", 32, 32, 8, 128),
        ("Qwen/Qwen2.5-0.5B-Instruct", 24, 14, 2, 64),
        ("Qwen/Qwen3-8B", 36, 32, 8, 128),
        ("Qwen/Qwen3-0.6B", 28, 16, 8, 128),
    ] {
        let spec = resolve_model(id, None).unwrap();
        assert_eq!(spec.config_dtype, TorchDtype::BFloat16, "{id}");
        assert_eq!(spec.layers.len(), n, "{id}");
        assert!(spec
            .layers
            .iter()
            .all(|l| l.kind == AttentionKind::Full && (l.num_q_heads, l.num_kv_heads, l.head_dim) == (q, kv, d) && !l.has_sinks));
    }
}

#[test]
fn gemma3_27b_has_full_layers_every_sixth() {
    let spec = resolve_model("google/gemma-3-27b-it", None).unwrap();
    assert_eq!(spec.layers.len(), 62);
    assert_eq!(full_indices(&spec), vec![5, 11, 17, 23, 29, 35, 41, 47, 53, 59]);
    assert_eq!(spec.sliding_layers().count(), 52);
    assert!(spec.sliding_layers().all(|l| l.sliding_window == Some(1024)));
    assert!(spec.full_layers().all(|l| l.sliding_window.is_none()));
    assert!(spec
        .layers
        .iter()
        .all(|l| (l.head_dim, l.num_q_heads, l.num_kv_heads) == (128, 32, 16)));
    assert_eq!(spec.model_type(), Some("gemma3"));
}

#[test]
fn gpt_oss_alternates_and_has_sinks() {
    for (id, n) in [("openai/gpt-oss-20b", 24), ("openai/gpt-oss-120b", 36)] {
        let spec = resolve_model(id, None).unwrap();
        assert_eq!(spec.layers.len(), n);
        for l in &spec.layers {
            assert!(l.has_sinks);
            assert_eq!((l.head_dim, l.num_q_heads, l.num_kv_heads), (64, 64, 8));
            if l.index % 2 == 0 {
                assert_eq!((l.kind, l.sliding_window), (AttentionKind::SlidingWindow, Some(128)));
            } else {
                assert_eq!((l.kind, l.sliding_window), (AttentionKind::Full, None));
            }
        }
    }
}

#[test]
fn mistral_v01_slides_on_every_layer_in_every_release() {
    for r in Release::ALL {
        let spec = resolve_model_at(r, "mistralai/Mistral-7B-Instruct-v0.1", None).unwrap();
        assert_eq!(spec.layers.len(), 32);
        assert!(spec
            .layers
            .iter()
            .all(|l| l.kind == AttentionKind::SlidingWindow && l.sliding_window == Some(4096)));
        assert!(spec
            .layers
            .iter()
            .all(|l| (l.head_dim, l.num_q_heads, l.num_kv_heads) == (128, 32, 8)));
    }
}

#[test]
fn overrides_change_layers_and_heads() {
    let o = obj(json!({"num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 4, "head_dim": 64}));
    let spec = resolve_model("meta-llama/Llama-3.1-8B-Instruct", Some(&o)).unwrap();
    assert!(spec.preset);
    assert_eq!(spec.layers.len(), 4);
    assert!(spec
        .layers
        .iter()
        .all(|l| (l.num_q_heads, l.num_kv_heads, l.head_dim) == (16, 4, 64)));
    assert!(spec.source.iter().any(|s| s.contains("num_hidden_layers = 4 (was 32)")));

    // head_dim was materialised by LlamaConfig: changing the heads alone keeps 128.
    let o = obj(json!({"num_attention_heads": 16, "num_key_value_heads": 8}));
    let spec = resolve_model("meta-llama/Llama-3.1-8B-Instruct", Some(&o)).unwrap();
    assert!(spec.layers.iter().all(|l| l.head_dim == 128 && l.num_q_heads == 16));

    // OPT derives head_dim from hidden_size / heads: 768 / 24 = 32.
    let o = obj(json!({"num_attention_heads": 24}));
    let spec = resolve_model("facebook/opt-125m", Some(&o)).unwrap();
    assert!(spec
        .layers
        .iter()
        .all(|l| (l.head_dim, l.num_q_heads, l.num_kv_heads) == (32, 24, 24)));

    let o = obj(json!({"torch_dtype": "float16"}));
    let spec = resolve_model("Qwen/Qwen3-8B", Some(&o)).unwrap();
    assert_eq!(spec.config_dtype, TorchDtype::Float16);
}

#[test]
fn layer_types_override_makes_a_llama_hybrid() {
    let types: Vec<&str> = (0..32)
        .map(|i| if i % 4 == 3 { "full_attention" } else { "sliding_attention" })
        .collect();
    let o = obj(json!({"layer_types": types, "sliding_window": 512}));
    let spec = resolve_model("meta-llama/Llama-3.1-8B-Instruct", Some(&o)).unwrap();
    assert_eq!(full_indices(&spec), (0..32).filter(|i| i % 4 == 3).collect::<Vec<_>>());
    assert!(spec.sliding_layers().all(|l| l.sliding_window == Some(512)));
}

#[test]
fn gemma3_overrides_go_under_text_config() {
    let o = obj(json!({"text_config": {"num_hidden_layers": 12, "sliding_window": 512}}));
    let spec = resolve_model("google/gemma-3-27b-it", Some(&o)).unwrap();
    assert_eq!(spec.layers.len(), 12);
    assert_eq!(full_indices(&spec), vec![5, 11]);
    assert!(spec.sliding_layers().all(|l| l.sliding_window == Some(512)));

    // A top-level layout key would be ignored by vLLM: an error that says so.
    let o = obj(json!({"num_hidden_layers": 12}));
    let e = resolve_model("google/gemma-3-27b-it", Some(&o)).unwrap_err();
    assert!(
        e.message.contains("text_config") && e.message.contains("num_hidden_layers"),
        "{e}"
    );

    // More layers than transformers built layer_types for: vLLM's gemma3.py fails at layer 62.
    let o = obj(json!({"text_config": {"num_hidden_layers": 64}}));
    let e = resolve_model("google/gemma-3-27b-it", Some(&o)).unwrap_err();
    assert!(e.message.contains("layer_types[62]"), "{e}");

    // Top-level torch_dtype works; under text_config it would be shadowed by the top-level one.
    let o = obj(json!({"torch_dtype": "float32"}));
    assert_eq!(
        resolve_model("google/gemma-3-27b-it", Some(&o)).unwrap().config_dtype,
        TorchDtype::Float32
    );
    let o = obj(json!({"text_config": {"torch_dtype": "float32"}}));
    assert!(resolve_model("google/gemma-3-27b-it", Some(&o)).is_err());
}

#[test]
fn text_config_on_a_flat_model_is_an_error() {
    let o = obj(json!({"text_config": {"num_hidden_layers": 2}}));
    let e = resolve_model("Qwen/Qwen3-8B", Some(&o)).unwrap_err();
    assert!(e.message.starts_with("Qwen/Qwen3-8B"), "{e}");
}

#[test]
fn sliding_window_override_on_an_all_full_qwen_differs_by_release() {
    // layer_types all full_attention (materialised by Qwen3Config): 0.24-0.26 call the model not interleaved and
    // give every layer the window; 0.27+ require all-sliding layer_types, so no layer slides.
    let o = obj(json!({"sliding_window": 4096}));
    let old = resolve_model_at(Release::V0_26_0, "Qwen/Qwen3-8B", Some(&o)).unwrap();
    assert!(old.layers.iter().all(|l| l.sliding_window == Some(4096)));
    let new = resolve_model_at(Release::V0_27_0, "Qwen/Qwen3-8B", Some(&o)).unwrap();
    assert!(new.layers.iter().all(|l| l.kind == AttentionKind::Full));
}

#[test]
fn sliding_window_zero_or_null_removes_the_window() {
    for v in [json!(0), Value::Null] {
        let o = obj(json!({"sliding_window": v}));
        let spec = resolve_model("mistralai/Mistral-7B-Instruct-v0.1", Some(&o)).unwrap();
        assert!(spec.layers.iter().all(|l| l.kind == AttentionKind::Full));
    }
}

#[test]
fn unknown_model_without_overrides_lists_the_missing_keys() {
    let e = resolve_model("acme/unknown-7b", None).unwrap_err();
    assert!(e.message.contains("acme/unknown-7b"), "{e}");
    assert!(
        e.message
            .contains("missing: num_hidden_layers, num_attention_heads, head_dim (or hidden_size)"),
        "{e}"
    );

    let o = obj(json!({"num_hidden_layers": 8}));
    let e = resolve_model("acme/unknown-7b", Some(&o)).unwrap_err();
    assert!(
        e.message.ends_with("missing: num_attention_heads, head_dim (or hidden_size)"),
        "{e}"
    );

    let o = obj(json!({"text_config": {"num_attention_heads": 8}}));
    let e = resolve_model("acme/unknown-vl", Some(&o)).unwrap_err();
    assert!(
        e.message
            .ends_with("missing under text_config: num_hidden_layers, head_dim (or hidden_size)"),
        "{e}"
    );
}

#[test]
fn unknown_model_from_overrides() {
    let o = obj(json!({"num_hidden_layers": 4, "num_attention_heads": 8, "hidden_size": 1024}));
    let spec = resolve_model("acme/tiny", Some(&o)).unwrap();
    assert!(!spec.preset);
    assert_eq!(spec.config_dtype, TorchDtype::Float32);
    assert!(spec
        .layers
        .iter()
        .all(|l| (l.head_dim, l.num_q_heads, l.num_kv_heads) == (128, 8, 8)));

    // Every layer slides when a window is given without layer_types (cache_config.sliding_window).
    let o = obj(
        json!({"num_hidden_layers": 2, "num_attention_heads": 4, "head_dim": 64, "num_key_value_heads": 2,
                      "sliding_window": 256, "torch_dtype": "bfloat16"}),
    );
    let spec = resolve_model("acme/swa", Some(&o)).unwrap();
    assert_eq!(spec.config_dtype, TorchDtype::BFloat16);
    assert_eq!(sliding_indices(&spec), vec![0, 1]);
}

#[test]
fn bad_values_name_the_key_and_value() {
    let cases = [
        (json!({"num_hidden_layers": -1}), "num_hidden_layers = -1"),
        (json!({"num_hidden_layers": 0}), "num_hidden_layers = 0"),
        (json!({"num_hidden_layers": 2.5}), "num_hidden_layers = 2.5"),
        (json!({"num_hidden_layers": "12"}), "num_hidden_layers = \"12\""),
        (json!({"num_hidden_layers": 1_000_000}), "num_hidden_layers = 1000000"),
        (json!({"num_key_value_heads": 0}), "num_key_value_heads = 0"),
        (
            json!({"layer_types": ["full_attention"]}),
            "has 1 entries but the model has 32 layers",
        ),
        (
            json!({"layer_types": "sliding_attention"}),
            "layer_types = \"sliding_attention\"",
        ),
        (json!({"layer_types": [1, 2]}), "layer_types[0] = 1"),
        (json!({"sliding_window": -5}), "sliding_window = -5"),
        (json!({"sliding_window": true}), "sliding_window = true"),
        (json!({"torch_dtype": "fp8"}), "torch_dtype = \"fp8\""),
        (json!({"torch_dtype": "float16", "dtype": "bfloat16"}), "disagree"),
        (json!({"text_config": 3}), "text_config = 3"),
        (json!({"use_sliding_window": true}), "use_sliding_window"),
        (json!({"sliding_window_pattern": 4}), "sliding_window_pattern"),
    ];
    for (o, needle) in cases {
        let o = obj(o);
        let e = resolve_model("meta-llama/Llama-3.1-8B-Instruct", Some(&o)).unwrap_err();
        assert!(e.message.starts_with("meta-llama/Llama-3.1-8B-Instruct"), "{e}");
        assert!(e.message.contains(needle), "{needle:?} not in {e}");
    }
    let o = obj(json!({"hidden_size": 1000, "num_attention_heads": 3}));
    // opt.py's head_dim = embed_dim // num_heads: Python's floor division drops the remainder (1000 // 3 = 333).
    let m = resolve_model("facebook/opt-125m", Some(&o)).unwrap();
    assert!(
        m.layers.iter().all(|l| l.head_dim == 333 && l.num_q_heads == 3),
        "{:?}",
        m.layers[0]
    );
    let o = obj(json!({"head_dim": 128}));
    assert!(resolve_model("Qwen/Qwen2.5-0.5B-Instruct", Some(&o))
        .unwrap_err()
        .message
        .contains("ignores head_dim"));
    let o = obj(json!({"layer_types": ["sliding_attention", "full_attention"], "num_hidden_layers": 2}));
    assert!(resolve_model("Qwen/Qwen2.5-0.5B-Instruct", Some(&o)).is_err());
    assert!(resolve_model("", None).is_err());
}

#[test]
fn unrelated_keys_are_accepted() {
    let o = obj(json!({"rope_theta": 1.0e6, "architectures": ["X"], "max_position_embeddings": 4096}));
    assert_eq!(
        resolve_model("Qwen/Qwen3-8B", Some(&o)).unwrap().layers,
        resolve_model("Qwen/Qwen3-8B", None).unwrap().layers
    );
}

/// JSON values for the hf-overrides property run.
impl Rng {
    fn value(&mut self, depth: u32) -> Value {
        match self.below(if depth > 1 { 9 } else { 11 }) {
            0 => Value::Null,
            1 => json!(self.below(2) == 0),
            2 => json!(self.below(130)),
            3 => json!(-(self.below(1000) as i64)),
            4 => json!(self.next()),
            5 => json!((self.below(1000) as f64) / 7.0),
            6 => json!(["float16", "bfloat16", "float32", "half", "", "auto"][self.below(6)]),
            7 => json!([0u64, 1, 2, 4, 8, 16, 32, 62, 64, 128, 4096, 4097][self.below(12)]),
            8 => {
                let len = [0u64, 1, 2, 12, 24, 32, 62][self.below(7)];
                let items: Vec<Value> = (0..len)
                    .map(|_| match self.below(5) {
                        0 => json!("full_attention"),
                        1 | 2 => json!("sliding_attention"),
                        3 => json!("chunked_attention"),
                        _ => json!(self.below(3)),
                    })
                    .collect();
                Value::Array(items)
            }
            _ => Value::Object(self.map(depth + 1)),
        }
    }
    fn map(&mut self, depth: u32) -> Map<String, Value> {
        const KEYS: [&str; 15] = [
            "num_hidden_layers",
            "num_attention_heads",
            "num_key_value_heads",
            "head_dim",
            "hidden_size",
            "layer_types",
            "sliding_window",
            "torch_dtype",
            "dtype",
            "text_config",
            "use_sliding_window",
            "rope_theta",
            "model_type",
            "max_window_layers",
            "",
        ];
        let mut m = Map::new();
        for _ in 0..self.below(6) {
            let key = KEYS[self.below(KEYS.len())];
            let v = self.value(depth);
            m.insert(key.to_string(), v);
        }
        m
    }
}

#[test]
fn random_overrides_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let ids: Vec<&str> = MODEL_PRESETS.iter().map(|p| p.id).chain(["acme/unknown", "x"]).collect();
    let mut ok = 0;
    for _ in 0..600 {
        let id = ids[rng.below(ids.len())];
        let release = Release::ALL[rng.below(Release::ALL.len())];
        let m = rng.map(0);
        match resolve_model_at(release, id, Some(&m)) {
            Ok(spec) => {
                ok += 1;
                assert!(!spec.layers.is_empty() && spec.layers.len() <= MAX_LAYERS as usize);
                for l in &spec.layers {
                    // Heads that do not divide are vLLM's AssertionError in Attention.__init__ (resolve), not here.
                    assert!(l.num_kv_heads > 0, "{id} {m:?}");
                    assert!(l.head_dim > 0);
                    assert_eq!(l.kind == AttentionKind::SlidingWindow, l.sliding_window.is_some());
                }
            }
            Err(e) => assert!(!e.message.is_empty()),
        }
    }
    assert!(ok > 0, "no random map resolved at all");
}

/// Issue 11's presets (data/models.toml, each number with its source there): the layout vLLM builds for each, in
/// every release.
#[test]
fn issue_11_dense_presets_are_all_full() {
    for (id, n, q, kv, d, model_type) in [
        ("meta-llama/Llama-3.2-1B-Instruct", 16, 32, 8, 64, "llama"),
        ("meta-llama/Llama-3.2-3B-Instruct", 28, 24, 8, 128, "llama"),
        ("meta-llama/Llama-3.1-70B-Instruct", 80, 64, 8, 128, "llama"),
        ("Qwen/Qwen3-4B", 36, 32, 8, 128, "qwen3"),
        ("Qwen/Qwen3-14B", 40, 40, 8, 128, "qwen3"),
        ("Qwen/Qwen3-32B", 64, 64, 8, 128, "qwen3"),
        // Qwen3MoeForCausalLM: qwen3_moe.py reads the attention fields the qwen3 rule reads.
        ("Qwen/Qwen3-30B-A3B", 48, 32, 4, 128, "qwen3_moe"),
        ("Qwen/Qwen3-235B-A22B", 94, 64, 4, 128, "qwen3_moe"),
    ] {
        for r in Release::ALL {
            let spec = resolve_model_at(r, id, None).unwrap();
            assert_eq!(spec.config_dtype, TorchDtype::BFloat16, "{id}");
            assert_eq!(spec.model_type(), Some(model_type), "{id}");
            assert_eq!(spec.layers.len(), n, "{id}");
            assert!(
                spec.layers.iter().all(|l| l.kind == AttentionKind::Full
                    && (l.num_q_heads, l.num_kv_heads, l.head_dim) == (q, kv, d)
                    && !l.has_sinks),
                "{id} @{}",
                r.name()
            );
        }
    }
}

#[test]
fn issue_11_gemma3_presets_have_full_layers_every_sixth() {
    for (id, n, q, kv, full) in [
        ("google/gemma-3-4b-it", 34, 8, 4, vec![5, 11, 17, 23, 29]),
        ("google/gemma-3-12b-it", 48, 16, 8, vec![5, 11, 17, 23, 29, 35, 41, 47]),
    ] {
        for r in Release::ALL {
            let spec = resolve_model_at(r, id, None).unwrap();
            assert_eq!(spec.layers.len(), n, "{id}");
            assert_eq!(full_indices(&spec), full, "{id}");
            assert_eq!(spec.sliding_layers().count(), n - full.len(), "{id}");
            assert!(spec.sliding_layers().all(|l| l.sliding_window == Some(1024)), "{id}");
            assert!(spec
                .layers
                .iter()
                .all(|l| (l.head_dim, l.num_q_heads, l.num_kv_heads) == (256, q, kv)));
            assert_eq!(spec.model_type(), Some("gemma3"));
        }
    }
}
