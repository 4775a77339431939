//! The choices the page offers and the verdicts it shows beside its controls, computed here so that the page holds
//! no rule of its own.
//!
//! Every list is per release where vLLM's answer can differ between releases, and every value in it is one that the
//! release's `vllm serve` accepts (the tests check each against [`crate::serve::parse`]).

use crate::attention::Backend;
use crate::capability::CudaVersion;
pub use crate::matrix::model_uses_mla;
#[cfg(doc)]
use crate::matrix::{any_backend_kv_dtypes, mla_kv_dtypes};
use crate::model::ModelPreset;
use crate::release::Release;
use crate::serve::{ServeCommand, SpeculativeConfig};

/// The environment variable that turns on vLLM's batch-invariant mode.
pub const BATCH_INVARIANT: &str = "VLLM_BATCH_INVARIANT";

/// The `--kv-cache-dtype-skip-layers` keyword that skips every sliding-window layer (the other tokens are layer
/// indices, compared as text).
pub const SKIP_SLIDING_WINDOW: &str = "sliding_window";

/// What a checkbox for an int-bool environment variable shows: vLLM's reading of the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Flag {
    Checked,
    Unchecked,
    /// vLLM cannot read the value: its error, naming the variable and the value.
    Invalid(String),
}

impl Flag {
    pub fn is_checked(&self) -> bool {
        *self == Flag::Checked
    }

    /// The error to show beside the checkbox, if vLLM cannot read the value.
    pub fn error(&self) -> Option<&str> {
        match self {
            Flag::Invalid(e) => Some(e),
            _ => None,
        }
    }
}

/// Whether the command line runs vLLM in batch-invariant mode, as vLLM reads `VLLM_BATCH_INVARIANT`
/// (`bool(int(...))`, the last assignment winning): `00` is off, `1` then `0` is off, `true` is an error.
pub fn batch_invariant(cmd: &ServeCommand) -> Flag {
    match cmd.env_flag(BATCH_INVARIANT) {
        Ok(Some(true)) => Flag::Checked,
        Ok(Some(false) | None) => Flag::Unchecked,
        Err(e) => Flag::Invalid(e),
    }
}

/// Sets or clears batch-invariant mode: every `VLLM_BATCH_INVARIANT` assignment is removed, and `=1` added when `on`.
pub fn set_batch_invariant(cmd: &mut ServeCommand, on: bool) {
    cmd.env.retain(|(k, _)| k != BATCH_INVARIANT);
    if on {
        cmd.env.push((BATCH_INVARIANT.into(), "1".into()));
    }
}

/// The CUDA versions of the torch builds the page offers (the CUDA wheels torch publishes for the releases qpath
/// covers); [`crate::resolve::DEFAULT_CUDA`] is one of them.
pub fn cuda_versions() -> &'static [CudaVersion] {
    const CUDAS: &[CudaVersion] = &[
        CudaVersion::new(12, 4),
        CudaVersion::new(12, 6),
        CudaVersion::new(12, 8),
        CudaVersion::new(12, 9),
        CudaVersion::new(13, 0),
    ];
    CUDAS
}

/// The `--attention-backend` values the page offers at a release for a model whose layers are MLA (`mla`, see
/// [`model_uses_mla`]) or not, in the releases whose `AttentionBackendEnum` has them (the tests check each against
/// that release's parser): for standard attention every non-MLA attention backend qpath names ([`Backend::ATTENTION`]),
/// FlashInfer first (the composites TRITON_FLASH_ATTN and TRITON_FLASHINFER from 0.30.0); for an MLA model the MLA
/// backends ([`Backend::MLA`]: an MLA layer's selector refuses every other with "MLA not supported"). A backend the
/// command line names outside the list is still shown (the page adds it).
pub fn attention_backends(release: Release, mla: bool) -> Vec<&'static str> {
    let mut v = Vec::new();
    if mla {
        v.extend(Backend::MLA);
    } else {
        v.push(Backend::FlashInfer);
        v.extend(
            Backend::ATTENTION
                .into_iter()
                .filter(|b| *b != Backend::FlashInfer && !b.is_mla()),
        );
    }
    v.into_iter()
        .map(Backend::name)
        .filter(|name| crate::serve::backend_exists(release, name))
        .collect()
}

/// The `--kv-cache-dtype` values the page offers at a release: for standard attention those some backend qpath models
/// accepts ([`any_backend_kv_dtypes`]: FlashInfer's, then TRITON_ATTN's per-token-head caches, then TURBOQUANT's); for
/// an MLA model the MLA backends' ([`mla_kv_dtypes`]: the 16-bit and FP8 caches, `fp8_ds_mla`, and `nvfp4_ds_mla` from
/// 0.30.0), the matrix's picked-mode columns in both cases.
pub fn kv_cache_dtypes(release: Release, mla: bool) -> Vec<&'static str> {
    crate::matrix::MatrixMode::Picked.kv_dtypes(release, mla)
}

/// The `-dcp` (decode context parallel) sizes the page offers; 1 is vLLM's default.
pub fn dcp_sizes() -> &'static [u32] {
    &[1, 2, 4, 8]
}

/// The `--block-size` values the page offers besides the default (unset). Every release qpath covers takes any
/// integer; these are the page sizes the attention backends use.
pub fn block_sizes(_release: Release) -> &'static [u32] {
    &[16, 32, 64, 128, 256]
}

/// The numbers of speculative tokens the page offers.
pub fn speculative_tokens() -> std::ops::RangeInclusive<u32> {
    1..=5
}

/// The speculative method the page sets with a number of tokens and no method chosen: n-gram lookup, which needs no
/// draft model and is a `--spec-method` choice in every release qpath covers.
pub fn speculative_method(_release: Release) -> &'static str {
    "ngram"
}

/// The `--speculative-config` for `tokens` speculative tokens with [`speculative_method`]; `None` for none.
pub fn speculative_config(release: Release, tokens: Option<u32>) -> Option<SpeculativeConfig> {
    tokens.map(|n| SpeculativeConfig {
        method: Some(speculative_method(release).into()),
        num_speculative_tokens: Some(n),
        ..SpeculativeConfig::default()
    })
}

/// Why the page does not offer `--speculative-config` method `mtp` for the command line's model (read from
/// `model_config` when one is pasted), or `None` when it does: vLLM's MTP drafter builds the target checkpoint's own
/// MTP layers, and its `hf_config_override` rewrites only the configs of models that have them (DeepSeek-V3 / R1 /
/// V3.2, GLM-4.5 … 4.7, GLM-5, Qwen3-Next, Qwen3.5, Nemotron-H) to an MTP model; any other ends in vLLM's
/// `Unsupported speculative method` (see `drafter.rs`'s `mtp_model_type`). A model qpath cannot read is not said to
/// lack them.
pub fn mtp_unavailable(release: Release, cmd: &ServeCommand, model_config: Option<&str>) -> Option<String> {
    use crate::model;
    let env = model::ModelEnv {
        mla_disable: matches!(cmd.env_flag("VLLM_MLA_DISABLE"), Ok(Some(true))),
    };
    let overrides = cmd.hf_overrides.as_ref();
    let spec = match model_config {
        Some(c) if c.len() > crate::serve::limits::MAX_CONFIG_JSON_BYTES => return None,
        Some(c) => model::ParsedConfig::new(c).resolve_model_in(release, env, &cmd.model, "the pasted config.json", overrides),
        None => model::resolve_model_in(release, env, &cmd.model, overrides),
    }
    .ok()?;
    if crate::drafter::mtp_model_type(release, &spec).is_some() {
        return None;
    }
    let model = crate::serve::escape_for_message(&cmd.model);
    Some(format!(
        "MTP is not offered: {model} has no MTP layers vLLM {} drafts from (its MTP drafter runs only DeepSeek-V3 / R1 / \
         V3.2, GLM-4.5 to 4.7, GLM-5, Qwen3-Next, Qwen3.5 and Nemotron-H checkpoints' own MTP layers).",
        release.name()
    ))
}

/// A speculative method the page's drafter section offers: the `method` it writes, its label, and whether it needs
/// a drafter model (`model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpeculativeMethod {
    pub method: &'static str,
    pub label: &'static str,
    pub needs_model: bool,
}

/// The methods the page offers in `release`: each is in that release's `SpeculativeMethod` literal
/// (`config/speculative.py`); MTP drafts from the target's own checkpoint (Qwen3-Next among qpath's presets).
pub fn speculative_methods(_release: Release) -> Vec<SpeculativeMethod> {
    vec![
        SpeculativeMethod {
            method: "ngram",
            label: "n-gram (no drafter layers)",
            needs_model: false,
        },
        SpeculativeMethod {
            method: "mtp",
            label: "MTP (the model's own MTP layers)",
            needs_model: false,
        },
        SpeculativeMethod {
            method: "eagle3",
            label: "EAGLE-3 head",
            needs_model: true,
        },
        SpeculativeMethod {
            method: "eagle",
            label: "EAGLE head",
            needs_model: true,
        },
        SpeculativeMethod {
            method: "draft_model",
            label: "draft model",
            needs_model: true,
        },
    ]
}

/// The drafter models the page lists for `method`: presets whose id names an EAGLE-3 / EAGLE head for those
/// methods, every other preset for a draft model.
pub fn drafter_models(method: &str) -> Vec<&'static str> {
    let eagle3 = |id: &str| id.to_ascii_lowercase().contains("eagle3");
    let eagle = |id: &str| id.to_ascii_lowercase().contains("eagle-");
    crate::model::MODEL_PRESETS
        .iter()
        .map(|p| p.id)
        .filter(|id| match method {
            "eagle3" => eagle3(id),
            "eagle" => eagle(id),
            _ => !eagle3(id) && !eagle(id),
        })
        .collect()
}

/// The `--speculative-config` the drafter section writes: `method` with `tokens` and, when the method takes one,
/// `model`; keeps the speculative config's other fields (`attention_backend`, `kv_cache_dtype`) from `current`.
pub fn drafter_config(
    current: Option<&SpeculativeConfig>,
    method: Option<&str>,
    tokens: u32,
    model: Option<&str>,
) -> Option<SpeculativeConfig> {
    let method = method?;
    let needs_model = speculative_methods(Release::LATEST)
        .iter()
        .any(|m| m.method == method && m.needs_model);
    Some(SpeculativeConfig {
        method: Some(method.to_string()),
        model: if needs_model { model.map(str::to_string) } else { None },
        num_speculative_tokens: Some(tokens),
        ..current.cloned().unwrap_or_default()
    })
}

/// One `--hf-overrides` key the page offers an input for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HfOverride {
    /// The key of the model's config.
    pub key: &'static str,
    /// A short name for ids (`layers`, `heads`, …).
    pub slug: &'static str,
    pub label: &'static str,
    /// The preset's value, when the model is a preset that has one.
    pub preset: Option<u32>,
}

/// The `--hf-overrides` keys qpath's model reading uses, with the preset's values: layers and query heads, then for
/// standard attention the KV heads and head dim, for a DeepSeek-architecture (MLA) model (`mla`, or an MLA preset) the
/// latent cache's `kv_lora_rank` and `qk_rope_head_dim` (its head size is their sum; the deepseek model files never
/// read `num_key_value_heads` or `head_dim`, and qpath refuses them there).
pub fn hf_overrides(preset: Option<&ModelPreset>, mla: bool) -> [HfOverride; 4] {
    let o = |key, slug, label, preset| HfOverride {
        key,
        slug,
        label,
        preset,
    };
    let layers = o("num_hidden_layers", "layers", "layers", preset.map(|p| p.num_hidden_layers));
    let heads = o(
        "num_attention_heads",
        "heads",
        "query heads",
        preset.map(|p| p.num_attention_heads),
    );
    let deepseek = preset.map_or(mla, |p| p.vllm_model == crate::model::VllmModel::DeepseekV2);
    if deepseek {
        // An MLA preset's own dims are in its `config` fields (data/models.toml).
        let raw: Option<serde_json::Value> = preset.and_then(|p| serde_json::from_str(p.config).ok());
        let dim = |key: &str| {
            raw.as_ref()
                .and_then(|v| v.get(key))
                .and_then(serde_json::Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
        };
        return [
            layers,
            heads,
            o("kv_lora_rank", "kv-lora-rank", "kv_lora_rank (latent)", dim("kv_lora_rank")),
            o("qk_rope_head_dim", "rope-dim", "qk_rope_head_dim", dim("qk_rope_head_dim")),
        ];
    }
    [
        layers,
        heads,
        o(
            "num_key_value_heads",
            "kv-heads",
            "KV heads",
            preset.and_then(|p| p.num_key_value_heads),
        ),
        o("head_dim", "head-dim", "head dim", preset.and_then(|p| p.head_dim)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::find_preset;
    use crate::resolve::DEFAULT_CUDA;
    use crate::serve::{format, parse};

    fn cmd(line: &str) -> ServeCommand {
        parse(Release::LATEST, line).unwrap()
    }

    #[test]
    fn batch_invariance_is_read_as_vllm_reads_it() {
        let flag = |env: &str| batch_invariant(&cmd(&format!("{env} vllm serve m")));
        assert_eq!(flag("VLLM_BATCH_INVARIANT=00"), Flag::Unchecked, "int('00') is 0");
        assert_eq!(
            flag("VLLM_BATCH_INVARIANT=1 VLLM_BATCH_INVARIANT=0"),
            Flag::Unchecked,
            "the last assignment wins"
        );
        assert_eq!(flag("VLLM_BATCH_INVARIANT=0 VLLM_BATCH_INVARIANT=1"), Flag::Checked);
        let invalid = flag("VLLM_BATCH_INVARIANT=true");
        let e = invalid.error().expect("`true` is not an int");
        assert!(
            e.contains("VLLM_BATCH_INVARIANT=true") && e.contains("invalid literal for int()"),
            "{e}"
        );
        assert!(!invalid.is_checked());
        assert_eq!(flag("VLLM_BATCH_INVARIANT=2"), Flag::Checked);
        assert_eq!(batch_invariant(&cmd("vllm serve m")), Flag::Unchecked);
    }

    #[test]
    fn setting_batch_invariance_replaces_every_assignment() {
        let mut c = cmd("VLLM_BATCH_INVARIANT=true VLLM_BATCH_INVARIANT=0 vllm serve m");
        set_batch_invariant(&mut c, true);
        assert_eq!(batch_invariant(&c), Flag::Checked);
        assert!(format(&c).starts_with("VLLM_BATCH_INVARIANT=1 vllm serve"), "{}", format(&c));
        set_batch_invariant(&mut c, false);
        assert!(c.env.is_empty());
    }

    #[test]
    fn every_offered_value_parses_at_its_release() {
        for r in Release::ALL {
            for b in attention_backends(r, false).into_iter().chain(attention_backends(r, true)) {
                let c = parse(r, &format!("vllm serve m --attention-backend {b}")).unwrap();
                assert_eq!(c.attention_backend.as_deref(), Some(b), "{r:?}");
            }
            for kv in kv_cache_dtypes(r, false).into_iter().chain(kv_cache_dtypes(r, true)) {
                assert_eq!(
                    parse(r, &format!("vllm serve m --kv-cache-dtype {kv}"))
                        .unwrap()
                        .kv_cache_dtype,
                    kv
                );
            }
            for n in block_sizes(r) {
                assert_eq!(
                    parse(r, &format!("vllm serve m --block-size {n}")).unwrap().block_size,
                    Some(*n)
                );
            }
            for n in dcp_sizes() {
                let c = parse(r, &format!("vllm serve m -dcp {n}")).unwrap();
                assert_eq!(c.decode_context_parallel_size, *n);
            }
            for n in speculative_tokens() {
                let mut c = cmd("vllm serve m");
                c.speculative_config = speculative_config(r, Some(n));
                let again = parse(r, &format(&c)).unwrap_or_else(|e| panic!("{r:?}: {}", e.message));
                assert_eq!(again.speculative_config, c.speculative_config, "{r:?}");
            }
            let skip = parse(r, &format!("vllm serve m --kv-cache-dtype-skip-layers {SKIP_SLIDING_WINDOW}")).unwrap();
            assert_eq!(skip.kv_cache_dtype_skip_layers, [SKIP_SLIDING_WINDOW]);
        }
        assert!(speculative_config(Release::LATEST, None).is_none());
    }

    #[test]
    fn the_default_cuda_is_offered_and_the_list_is_ordered() {
        let cudas = cuda_versions();
        assert!(cudas.contains(&DEFAULT_CUDA));
        assert!(cudas.windows(2).all(|w| w[0] < w[1]), "{cudas:?}");
    }

    #[test]
    fn overrides_carry_the_presets_values() {
        let llama = find_preset("meta-llama/Llama-3.1-8B-Instruct").unwrap();
        let o = hf_overrides(Some(llama), false);
        assert_eq!(o[0].key, "num_hidden_layers");
        assert_eq!(o[0].preset, Some(llama.num_hidden_layers));
        assert_eq!(o[1].preset, Some(llama.num_attention_heads));
        assert_eq!(o[3].key, "head_dim");
        assert!(hf_overrides(None, false).iter().all(|o| o.preset.is_none()));
        for o in hf_overrides(None, false) {
            let c = parse(Release::LATEST, &format!("vllm serve m --hf-overrides '{{\"{}\":7}}'", o.key)).unwrap();
            assert!(c.hf_overrides.unwrap().contains_key(o.key));
        }
    }

    /// An MLA model's inputs are the latent cache's dims, with the preset's values, and each override is read: the
    /// resolved group's head size is kv_lora_rank + qk_rope_head_dim (the keys qpath refuses on a deepseek model file,
    /// num_key_value_heads and head_dim, are not offered).
    #[test]
    fn an_mla_models_overrides_are_its_latent_dims() {
        let v3 = find_preset("deepseek-ai/DeepSeek-V3").unwrap();
        let o = hf_overrides(Some(v3), false);
        let keys: Vec<(&str, Option<u32>)> = o.iter().map(|o| (o.key, o.preset)).collect();
        assert_eq!(
            keys,
            [
                ("num_hidden_layers", Some(61)),
                ("num_attention_heads", Some(128)),
                ("kv_lora_rank", Some(512)),
                ("qk_rope_head_dim", Some(64)),
            ]
        );
        // A pasted DeepSeek config.json (no preset) gets the same keys, without values.
        let keys: Vec<&str> = hf_overrides(None, true).iter().map(|o| o.key).collect();
        assert_eq!(
            keys,
            ["num_hidden_layers", "num_attention_heads", "kv_lora_rank", "qk_rope_head_dim"]
        );
        let report = crate::resolve::resolve(&crate::resolve::Scenario::new(
            crate::resolve::Hardware::Gpu(crate::gpu::find("h200").unwrap()),
            Release::LATEST,
            r#"vllm serve deepseek-ai/DeepSeek-V3 --hf-overrides '{"kv_lora_rank": 256, "qk_rope_head_dim": 64}'"#,
        ));
        let g = &report.groups[0];
        assert_eq!((g.head_dim, g.mla.unwrap().kv_lora_rank), (320, 256), "{report:?}");
    }

    /// The controls of an MLA model offer the MLA backends and cache dtypes where the release has them (nvfp4_ds_mla
    /// from 0.30.0), and a standard model's none of them; VLLM_MLA_DISABLE=1 makes a DeepSeek model standard.
    #[test]
    fn an_mla_model_is_offered_the_mla_backends_and_cache_dtypes() {
        let mla = |line: &str, config: Option<&str>| model_uses_mla(Release::LATEST, &cmd(line), config);
        assert!(mla("vllm serve deepseek-ai/DeepSeek-V3", None));
        assert!(mla("vllm serve deepseek-ai/DeepSeek-V2-Lite", None));
        assert!(!mla("VLLM_MLA_DISABLE=1 vllm serve deepseek-ai/DeepSeek-V3", None));
        assert!(!mla("vllm serve meta-llama/Llama-3.1-8B-Instruct", None));
        assert!(!mla("vllm serve no-such/model", None));
        let config = include_str!("../tests/fixtures/deepseek-v3.config.json");
        assert!(mla("vllm serve my/deepseek", Some(config)));
        assert!(!mla("vllm serve my/deepseek", Some("{}")));

        for r in [Release::V0_24_0, Release::V0_29_0, Release::V0_30_0, Release::LATEST] {
            let backends = attention_backends(r, true);
            assert!(
                backends.iter().all(|b| Backend::parse(b).is_some_and(Backend::is_mla)),
                "{backends:?}"
            );
            assert!(
                backends.contains(&"FLASHMLA") && backends.contains(&"TRITON_MLA"),
                "{backends:?}"
            );
            let standard = attention_backends(r, false);
            assert_eq!(standard[0], "FLASHINFER");
            assert!(standard.iter().all(|b| !Backend::parse(b).unwrap().is_mla()), "{standard:?}");
            let kvs = kv_cache_dtypes(r, true);
            assert!(kvs.contains(&"fp8_ds_mla"), "{r:?}");
            assert_eq!(kvs.contains(&"nvfp4_ds_mla"), r >= Release::V0_30_0, "{r:?}");
            assert!(!kv_cache_dtypes(r, false).iter().any(|k| k.ends_with("_ds_mla")), "{r:?}");
        }
    }
}
