//! The DeepSeek-architecture (MLA) model files: `deepseek_v2.py` (`DeepseekV2ForCausalLM`, `DeepseekV3ForCausalLM`,
//! `GlmMoeDsaForCausalLM`; `DeepseekV32ForCausalLM` maps to its `DeepseekV3ForCausalLM` until 0.28.0) and, from 0.29.0
//! on CUDA, `vllm/models/deepseek_v32/nvidia/model.py` for `DeepseekV32ForCausalLM` / `GlmMoeDsaForCausalLM` — one rule
//! with a release switch ([`super::VllmModel::DeepseekV2`]). `docs/source-notes/mla-models.md` restates the source.
//!
//! - `ModelConfig.use_mla` ([`use_mla`]): `is_deepseek_mla` (the release's model-type list, and `kv_lora_rank` is not
//!   None), unless `VLLM_MLA_DISABLE=1`; from 0.29.0 also not when the config has `is_causal` False.
//! - Under `use_mla` every decoder layer `i` is `DeepseekV2MLAAttention` (`DeepseekV32Attention` in the 0.29.0+ DSA
//!   file, which never asks `use_mla`), whose `MLAAttention` (`model.layers.{i}.self_attn.attn`) has
//!   `num_attention_heads / TP` heads, one latent KV head and head size `kv_lora_rank + qk_rope_head_dim`; it is sparse
//!   (`use_sparse`) iff the config has `index_topk`, and then layers that do not skip the top-k (0.24.0+; every layer
//!   before 0.24.0, where `index_topk_freq` / `index_topk_pattern` only skip the top-k at run time) build an indexer whose
//!   cache layer `model.layers.{i}.self_attn.indexer.k_cache` has head size `index_head_dim + index_head_dim // 128 * 4`.
//!   `config.head_dim` (transformers' DeepSeek configs set it to `qk_rope_head_dim`) and `num_key_value_heads` are not
//!   read. `first_k_dense_replace` chooses the MLP only.
//! - Without MLA, `deepseek_v2.py` builds `DeepseekV2Attention`: a standard `Attention` with `num_attention_heads`
//!   query and KV heads of `qk_nope_head_dim + qk_rope_head_dim`, after asserting that the model has no top-k buffer
//!   (a sparse model: [`InitAssert`]).
//! - The MTP layers (`deepseek_mtp.py`): `num_nextn_predict_layers` layers from index `num_hidden_layers`
//!   ([`MtpLayers`]).

use std::ops::Range;

use serde_json::{Map, Value};

use super::config::TextConfig;
use super::layout::{AttentionKind, LayerSpec, MlaDims};
use super::overrides::{MAX_HEAD_DIM, MAX_LAYERS};
use super::Provenance;
use super::{err, show, ModelError};
use crate::release::Release;
use crate::source::{self, Cite};

/// The environment variables of `vllm/envs.py` the model config reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModelEnv {
    /// `VLLM_MLA_DISABLE` (`bool(int(...))`): `ModelConfig.use_mla` is False.
    pub mla_disable: bool,
}

/// What a DeepSeek-architecture model file builds beyond each layer's [`LayerSpec`].
#[derive(Clone, Debug, PartialEq)]
pub struct MlaModel {
    /// `ModelConfig.use_mla` (the engine config's, read by the selector, the KV-cache specs and the config checks).
    pub use_mla: bool,
    /// The file whose decoder layers build the attention in this release.
    pub file: &'static str,
    /// The sparse (DSA) indexer of a model with `index_topk` whose layers are MLA; `None` otherwise.
    pub indexer: Option<IndexerSpec>,
    /// The MTP layers `--speculative-config` method `mtp` builds (`None`: the config has no `num_nextn_predict_layers`
    /// attribute).
    pub mtp: Option<MtpLayers>,
    /// The assert the model file fails while it builds layer 0 (the scenario then stops at model initialisation).
    pub init_assert: Option<InitAssert>,
}

impl MlaModel {
    /// The attention layer's name in vLLM's forward context for decoder (or MTP) layer `i`.
    pub fn attention_layer_name(i: u32) -> String {
        format!("model.layers.{i}.self_attn.attn")
    }
}

/// The lightning indexer of a sparse MLA model (DeepSeek-V3.2, GLM-5): its own cache layer per layer that builds one,
/// with the fixed backend `DEEPSEEK_V32_INDEXER` (never selected).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexerSpec {
    pub index_topk: u32,
    pub index_n_heads: u32,
    pub index_head_dim: u32,
    /// `DeepseekV32IndexerCache`'s head size: `index_head_dim + index_head_dim // 128 * 4` bytes per token (uint8: fp8
    /// values and one fp32 scale per 128).
    pub cache_head_size: u32,
    /// The decoder layers that build an indexer (from 0.24.0 those that do not skip the top-k; every layer without
    /// `index_topk_freq` / `index_topk_pattern`, and every layer before 0.24.0). An MTP layer always builds one.
    pub layers: Vec<u32>,
}

impl IndexerSpec {
    /// The indexer cache layer's name for decoder (or MTP) layer `i`.
    pub fn cache_layer_name(i: u32) -> String {
        format!("model.layers.{i}.self_attn.indexer.k_cache")
    }
}

/// The MTP layers of `deepseek_mtp.py` (`DeepseekV32MTP` from 0.29.0 for the DSA architectures): `count`
/// (`config.num_nextn_predict_layers`) layers from index `first` (`config.num_hidden_layers`), named
/// `model.layers.{first + k}`; each is the target's decoder layer (same attention class and dims, an indexer when
/// sparse).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MtpLayers {
    pub count: u32,
    pub first: u32,
}

impl MtpLayers {
    /// The MTP layers' indices (`first .. first + count`).
    pub fn indices(&self) -> Range<u32> {
        self.first..self.first + self.count
    }

    /// The `k`-th MTP layer's module prefix, `model.layers.{num_hidden_layers + k}`.
    pub fn prefix(&self, k: u32) -> String {
        format!("model.layers.{}", self.first + k)
    }

    /// The MTP layers' prefixes as a drafter trace names them: the one layer, or the first `…` the last.
    pub fn names(&self) -> String {
        if self.count <= 1 {
            self.prefix(0)
        } else {
            format!("{} … {}", self.prefix(0), self.prefix(self.count - 1))
        }
    }
}

/// A model file's `assert` with a message that fails while the layers are built (an `AssertionError`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InitAssert {
    pub message: &'static str,
    pub cite: &'static Cite,
}

/// `DeepseekV2Attention`'s assert for a model with a top-k buffer (`index_topk`) but no MLA: the string literal
/// continues after a backslash, so its next line's indentation (8 spaces) is part of the message.
const TOPK_ASSERT: &str = "topk_indices_buffer is not         supported for DeepseekV2Attention";

fn at(c: &Cite, r: Release) -> String {
    c.at(r).map_or_else(|| "-".to_string(), |s| s.short())
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// `is_deepseek_mla`'s model-type list of `release` (`transformers_utils/model_arch_config_convertor.py`,
/// [`source::MLA_MODEL_IS_DEEPSEEK_MLA`]).
pub fn in_deepseek_mla_list(release: Release, model_type: &str) -> bool {
    match model_type {
        "deepseek_v2"
        | "deepseek_v3"
        | "deepseek_v32"
        | "deepseek_v4"
        | "deepseek_mtp"
        | "glm_moe_dsa"
        | "glm4_moe_lite"
        | "glm4_moe_lite_mtp"
        | "kimi_k2"
        | "kimi_linear"
        | "longcat_flash"
        | "pangu_ultra_moe"
        | "pangu_ultra_moe_mtp"
        | "bailing_hybrid" => true,
        "AXK1" => release < Release::V0_26_0,
        "axk1" => release >= Release::V0_26_0,
        "bailing_hybrid_mtp" => release >= Release::V0_25_0Prefix,
        "longcat_flash_ngram" => release >= Release::V0_26_0 && release < Release::V0_32_0,
        "k3_dspark" => release >= Release::V0_27_0,
        "dots3_note" | "bailing_hybrid_v3_mtp" => release >= Release::V0_28_0,
        "hy_v4" | "hy_v4_mtp" => release >= Release::V0_29_0,
        "deepseek_v41" | "glm5_next" | "glm5_next_text" => release >= Release::V0_30_0,
        _ => false,
    }
}

/// `ModelConfig.use_mla` ([`source::MLA_MODEL_USE_MLA`]) for a config without `compress_ratios` (DeepSeek-V4, not
/// modelled) read by vLLM's own model files (the Transformers modeling backend, 0.28.0+, is not modelled): before
/// 0.28.0 `is_deepseek_mla and not VLLM_MLA_DISABLE`; from 0.28.0 `VLLM_MLA_DISABLE` first; from 0.29.0 also False
/// when the config's `is_causal` is False. `is_deepseek_mla`: the model type is in the release's list and
/// `kv_lora_rank` is not None.
pub fn use_mla(release: Release, env: ModelEnv, model_type: &str, has_kv_lora_rank: bool, is_causal: bool) -> bool {
    let is_deepseek_mla = in_deepseek_mla_list(release, model_type) && has_kv_lora_rank;
    if release < Release::V0_28_0 {
        return is_deepseek_mla && !env.mla_disable;
    }
    if env.mla_disable {
        return false;
    }
    if release >= Release::V0_29_0 && !is_causal {
        return false;
    }
    is_deepseek_mla
}

/// The config attributes the deepseek model files read, from [`TextConfig::raw`] (a preset's `config` table, the
/// config.json reader's constructed values, then `--hf-overrides`).
struct MlaConfig {
    /// None: the attribute is None (or absent).
    kv_lora_rank: Option<u32>,
    q_lora_rank: Option<u32>,
    qk_nope_head_dim: u32,
    qk_rope_head_dim: u32,
    v_head_dim: Option<u32>,
    index: Option<IndexConfig>,
    /// None: no `num_nextn_predict_layers` attribute.
    mtp: Option<u32>,
    is_causal: bool,
    first_k_dense_replace: Option<u32>,
}

struct IndexConfig {
    topk: u32,
    n_heads: Option<u32>,
    head_dim: Option<u32>,
    freq: u32,
    offset: i64,
    /// `index_topk_pattern`: one entry per layer ("S": skip).
    pattern: Option<Vec<bool>>,
}

fn cannot<T>(name: &str, what: String) -> Result<T, ModelError> {
    err(format!("{name}: qpath cannot model this: {what}"))
}

/// Reads the attributes by name (errors name the model and the field).
struct Raw<'a> {
    name: &'a str,
    map: &'a Map<String, Value>,
}

impl Raw<'_> {
    /// `getattr(config, key, default)` as an integer in `min..=max`: absent → `absent`, null → None.
    fn int(&self, key: &str, min: i64, max: u32, absent: Option<i64>) -> Result<Option<i64>, ModelError> {
        match self.map.get(key) {
            None => Ok(absent),
            Some(Value::Null) => Ok(None),
            Some(v) => match v.as_i64() {
                Some(n) if n >= min && n <= i64::from(max) => Ok(Some(n)),
                Some(n) if n > i64::from(max) => cannot(self.name, format!("{key} = {n}: larger than qpath's limit of {max}")),
                Some(n) => cannot(self.name, format!("{key} = {n}")),
                None => err(format!("{}: {key} = {}: must be an integer", self.name, show(v))),
            },
        }
    }

    fn dim(&self, key: &str, absent: Option<i64>) -> Result<Option<u32>, ModelError> {
        Ok(self.int(key, 0, MAX_HEAD_DIM, absent)?.map(|n| n as u32))
    }
}

fn read(name: &str, raw: &Map<String, Value>) -> Result<MlaConfig, ModelError> {
    let r = Raw { name, map: raw };
    // getattr(config, "qk_nope_head_dim", 0) etc. (DeepseekV2DecoderLayer.__init__)
    let qk_nope_head_dim = r.dim("qk_nope_head_dim", Some(0))?;
    let qk_rope_head_dim = r.dim("qk_rope_head_dim", Some(0))?;
    let (Some(qk_nope_head_dim), Some(qk_rope_head_dim)) = (qk_nope_head_dim, qk_rope_head_dim) else {
        return cannot(name, "qk_nope_head_dim / qk_rope_head_dim is None".into());
    };
    let index = match raw.get("index_topk") {
        None => None,
        Some(Value::Null) => {
            return cannot(
                name,
                "index_topk = null (hasattr(config, \"index_topk\") makes the model sparse, and vLLM then sizes the \
                 top-k buffer with None)"
                    .into(),
            )
        }
        Some(_) => {
            let topk = r.int("index_topk", 1, u32::MAX, None)?.unwrap_or(1) as u32;
            let freq = r.int("index_topk_freq", 0, MAX_LAYERS, Some(1))?.unwrap_or(1) as u32;
            if freq == 0 {
                return cannot(name, "index_topk_freq = 0 (vLLM's skip rule takes a modulo by it)".into());
            }
            let offset = r
                .int("index_skip_topk_offset", -i64::from(MAX_LAYERS), MAX_LAYERS, Some(2))?
                .unwrap_or(2);
            let pattern = match raw.get("index_topk_pattern") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.chars().map(|c| c == 'S').collect()),
                Some(Value::Array(a)) if a.iter().all(Value::is_string) => {
                    Some(a.iter().map(|v| v.as_str() == Some("S")).collect())
                }
                Some(v) => {
                    return cannot(
                        name,
                        format!("index_topk_pattern = {} (qpath reads a string or a list of strings)", show(v)),
                    )
                }
            };
            Some(IndexConfig {
                topk,
                n_heads: r.int("index_n_heads", 1, MAX_HEAD_DIM, None)?.map(|n| n as u32),
                head_dim: r.int("index_head_dim", 1, MAX_HEAD_DIM, None)?.map(|n| n as u32),
                freq,
                offset,
                pattern,
            })
        }
    };
    let is_causal = match raw.get("is_causal") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(v) => return err(format!("{name}: is_causal = {}: must be true or false", show(v))),
    };
    Ok(MlaConfig {
        kv_lora_rank: r.dim("kv_lora_rank", None)?,
        q_lora_rank: r.int("q_lora_rank", 1, MAX_HEAD_DIM, None)?.map(|n| n as u32),
        qk_nope_head_dim,
        qk_rope_head_dim,
        v_head_dim: r.dim("v_head_dim", Some(0))?,
        index,
        mtp: r.int("num_nextn_predict_layers", 0, MAX_LAYERS, None)?.map(|n| n as u32),
        is_causal,
        first_k_dense_replace: r.int("first_k_dense_replace", 0, MAX_LAYERS, None)?.map(|n| n as u32),
    })
}

/// Layer `i` skips the top-k (and builds no indexer): with `index_topk_pattern`, iff `pattern[i] == "S"` (layers past
/// its end do not skip); else iff `max(i - index_skip_topk_offset + 1, 0) % index_topk_freq != 0`.
fn skips_topk(ix: &IndexConfig, i: u32) -> bool {
    match &ix.pattern {
        Some(p) => p.get(i as usize).copied().unwrap_or(false),
        None => (i64::from(i) - ix.offset + 1).max(0) % i64::from(ix.freq) != 0,
    }
}

/// Where the config came from and what the model is, for [`build`].
pub(super) struct Model<'a> {
    pub(super) name: &'a str,
    pub(super) architecture: Option<&'static str>,
    pub(super) model_type: Option<&'a str>,
}

/// The layers `release` builds for a DeepSeek-architecture config, and the model's MLA facts.
pub(super) fn build(
    release: Release,
    env: ModelEnv,
    m: Model,
    cfg: &TextConfig,
    source: &mut Provenance,
) -> Result<(Vec<LayerSpec>, MlaModel), ModelError> {
    let name = m.name;
    let (Some(n), Some(heads)) = (cfg.num_hidden_layers, cfg.num_attention_heads) else {
        return err(format!("{name}: num_hidden_layers and num_attention_heads are required"));
    };
    let Some(model_type) = m.model_type else {
        return cannot(
            name,
            "the config has no model_type (vLLM's use_mla and the deepseek model files read it)".into(),
        );
    };
    let c = read(name, &cfg.raw)?;
    let r = release;
    // DeepseekV2DecoderLayer: use_mha = model_type == "deepseek" or both qk dims 0 -> DeepseekAttention (plain MHA).
    if model_type == "deepseek" || (c.qk_nope_head_dim == 0 && c.qk_rope_head_dim == 0) {
        return cannot(
            name,
            format!(
                "model_type \"{model_type}\" with qk_nope_head_dim {} and qk_rope_head_dim {}: deepseek_v2.py builds \
                 DeepseekAttention (plain multi-head attention, {}), which qpath does not restate",
                c.qk_nope_head_dim,
                c.qk_rope_head_dim,
                at(&source::MLA_MODEL_USE_MHA, r)
            ),
        );
    }
    let mla = use_mla(r, env, model_type, c.kv_lora_rank.is_some(), c.is_causal);
    source.push(|| use_mla_line(r, env, model_type, &c, mla));
    let dsa_file = r >= Release::V0_29_0 && matches!(m.architecture, Some("DeepseekV32ForCausalLM" | "GlmMoeDsaForCausalLM"));
    let file = if dsa_file {
        "vllm/models/deepseek_v32/nvidia/model.py"
    } else {
        super::VllmModel::DeepseekV2.file()
    };
    if let Some(arch) = m.architecture {
        source.push(|| architecture_line(r, arch, file));
    }
    if dsa_file && !mla {
        return cannot(
            name,
            format!(
                "use_mla is False, but vLLM {} builds {} on CUDA with vllm/models/deepseek_v32, whose \
                 DeepseekV32Attention is MLA whatever use_mla says ({}), while the engine's head size is \
                 qk_nope_head_dim + qk_rope_head_dim: an inconsistent configuration",
                r.name(),
                m.architecture.unwrap_or_default(),
                at(&source::MLA_MODEL_V32_LAYER_ATTN, r)
            ),
        );
    }
    if dsa_file && c.index.is_none() {
        return cannot(
            name,
            format!(
                "{} has no index_topk: vllm/models/deepseek_v32 always builds the sparse indexer, which reads \
                 config.index_topk (an AttributeError)",
                m.architecture.unwrap_or_default()
            ),
        );
    }
    let mtp = c.mtp.map(|count| MtpLayers { count, first: n });
    if !mla {
        return non_mla(r, name, n, heads, &c, cfg, mtp, file, source);
    }
    let (Some(kv_lora_rank), Some(v_head_dim)) = (c.kv_lora_rank.filter(|k| *k > 0), c.v_head_dim.filter(|v| *v > 0)) else {
        return cannot(
            name,
            format!(
                "kv_lora_rank = {} and v_head_dim = {} on an MLA layer (qpath reads positive integers)",
                c.kv_lora_rank.map_or("None".into(), |k| k.to_string()),
                c.v_head_dim.map_or("None".into(), |k| k.to_string())
            ),
        );
    };
    if c.qk_nope_head_dim == 0 || c.qk_rope_head_dim == 0 {
        return cannot(
            name,
            format!(
                "qk_nope_head_dim = {}, qk_rope_head_dim = {}: an MLA layer with one of them 0",
                c.qk_nope_head_dim, c.qk_rope_head_dim
            ),
        );
    }
    let dims = MlaDims {
        kv_lora_rank,
        q_lora_rank: c.q_lora_rank,
        qk_nope_head_dim: c.qk_nope_head_dim,
        qk_rope_head_dim: c.qk_rope_head_dim,
        v_head_dim,
        index_topk: c.index.as_ref().map(|ix| ix.topk),
    };
    let layer = |index: u32| LayerSpec {
        index,
        kind: AttentionKind::Full,
        sliding_window: None,
        head_dim: dims.head_size(),
        num_q_heads: heads,
        num_kv_heads: 1,
        has_sinks: false,
        mla: Some(dims),
    };
    let layers: Vec<LayerSpec> = (0..n).map(layer).collect();
    // Where the class and its MLAAttention are built: deepseek_v2.py's make_layers, decoder layer, wrapper; or the
    // DSA file's DeepseekV32Attention (an MLAAttention itself, with num_local_heads).
    let built = if dsa_file {
        format!(
            "each a DeepseekV32Attention ({}), an MLAAttention with num_attention_heads / TP heads ({})",
            at(&source::MLA_MODEL_V32_LAYER_ATTN, r),
            at(&source::MLA_MODEL_V32_MLA_INIT, r)
        )
    } else {
        format!(
            "({}), each a DeepseekV2MLAAttention ({}) with num_attention_heads / TP heads ({}) whose MLAAttention is \
             built by the MLA wrapper ({})",
            at(&source::MLA_MODEL_LAYERS, r),
            at(&source::MLA_MODEL_ATTN_CLS, r),
            at(&source::MLA_MODEL_MLA_LOCAL_HEADS, r),
            at(&source::MLA_MODEL_WRAPPER_ATTN, r)
        )
    };
    source.push(|| {
        format!(
            "attention layers: {n} x model.layers.{{i}}.self_attn.attn {built}: {heads} query heads in all, one latent KV \
         head ({}), head size kv_lora_rank + qk_rope_head_dim = {kv_lora_rank} + {} = {} ({}); config.head_dim{} and \
         num_key_value_heads are not read; q_lora_rank {}, qk_nope_head_dim {}, v_head_dim {v_head_dim}",
            at(&source::MLA_MODEL_LAYER_KV_HEADS, r),
            c.qk_rope_head_dim,
            dims.head_size(),
            at(&source::MLA_MODEL_LAYER_HEAD_SIZE, r),
            cfg.head_dim.map_or(String::new(), |h| format!(" = {h}")),
            c.q_lora_rank.map_or("None".to_string(), |q| q.to_string()),
            c.qk_nope_head_dim,
        )
    });
    if let Some(k) = c.first_k_dense_replace {
        source.push(|| {
            format!(
                "first_k_dense_replace = {k}: it chooses each layer's MLP (dense or MoE, {}), not its attention",
                at(&source::MLA_MODEL_MOE_LAYER, r)
            )
        });
    }
    let indexer = match &c.index {
        None => None,
        Some(ix) => Some(indexer(r, name, n, ix, mtp, dsa_file, source)?),
    };
    if let Some(t) = &mtp {
        source.push(|| mtp_line(r, t));
    }
    source.push(|| format!("MLA layers: {file} (vLLM @{})", r.name()));
    Ok((
        layers,
        MlaModel {
            use_mla: true,
            file,
            indexer,
            mtp,
            init_assert: None,
        },
    ))
}

fn use_mla_line(r: Release, env: ModelEnv, model_type: &str, c: &MlaConfig, mla: bool) -> String {
    let listed = in_deepseek_mla_list(r, model_type);
    let kv = c.kv_lora_rank.map_or("None".to_string(), |k| k.to_string());
    let mut why = format!(
        "is_deepseek_mla = {}: model_type \"{model_type}\" {} the release's list ({}), kv_lora_rank = {kv} ({})",
        py_bool(listed && c.kv_lora_rank.is_some()),
        if listed { "is in" } else { "is not in" },
        at(&source::MLA_MODEL_IS_DEEPSEEK_MLA, r),
        at(&source::MLA_MODEL_IS_MLA_KV_LORA, r),
    );
    if env.mla_disable {
        why.push_str("; VLLM_MLA_DISABLE=1");
    }
    if r >= Release::V0_29_0 && !c.is_causal {
        why.push_str(&format!(
            "; is_causal = False ({})",
            at(&source::MLA_MODEL_USE_MLA_NONCAUSAL, r)
        ));
    }
    format!(
        "use_mla = {} ({}; {why}); the engine's head size is {} and its KV heads {} ({}, {})",
        py_bool(mla),
        at(&source::MLA_MODEL_USE_MLA, r),
        if mla {
            "kv_lora_rank + qk_rope_head_dim"
        } else {
            "qk_nope_head_dim + qk_rope_head_dim"
        },
        if mla { "1" } else { "the model's" },
        at(&source::MLA_MODEL_HEAD_SIZE, r),
        at(&source::MLA_MODEL_NUM_KV_HEADS, r),
    )
}

fn architecture_line(r: Release, arch: &str, file: &str) -> String {
    let (entry, cuda) = match arch {
        "DeepseekV2ForCausalLM" => (&source::MLA_MODEL_REG_DEEPSEEK_V2, None),
        "DeepseekV3ForCausalLM" => (&source::MLA_MODEL_REG_DEEPSEEK_V3, None),
        "DeepseekV32ForCausalLM" => (&source::MLA_MODEL_REG_DEEPSEEK_V32, Some(&source::MLA_MODEL_V32_CUDA_MODEL)),
        _ => (&source::MLA_MODEL_REG_GLM_MOE_DSA, Some(&source::MLA_MODEL_V32_CUDA_GLM)),
    };
    let via = match cuda {
        Some(c) if r >= Release::V0_29_0 => format!(", vllm.models.deepseek_v32 on CUDA ({})", at(c, r)),
        _ => String::new(),
    };
    format!("{arch} -> {file} (registry {}{via})", at(entry, r))
}

fn mtp_line(r: Release, t: &MtpLayers) -> String {
    let names = match t.count {
        0 => "none".to_string(),
        1 => t.prefix(0),
        k => format!("{} .. {}", t.prefix(0), t.prefix(k - 1)),
    };
    format!(
        "num_nextn_predict_layers = {}: the MTP drafter (--speculative-config method mtp) builds {} layer(s) from index \
         num_hidden_layers = {} ({}, {}): {names}",
        t.count,
        t.count,
        t.first,
        at(&source::MLA_MODEL_MTP_START, r),
        at(&source::MLA_MODEL_MTP_NUM, r)
    )
}

/// The indexer of a sparse MLA model: the layers that build one, its cache layer's head size.
fn indexer(
    r: Release,
    name: &str,
    n: u32,
    ix: &IndexConfig,
    mtp: Option<MtpLayers>,
    dsa_file: bool,
    source: &mut Provenance,
) -> Result<IndexerSpec, ModelError> {
    // Before 0.24.0 every sparse layer builds its Indexer (deepseek_v2.py:1009@0.23.0, MLA_MODEL_INDEXER_EVERY_LAYER):
    // index_topk_freq / index_topk_pattern only set skip_topk (0.21.0-0.23.0), which skips the top-k at run time.
    // From 0.24.0 a layer that skips the top-k builds none (MLA_MODEL_INDEXER_BUILT).
    let every_layer = r < Release::V0_24_0;
    let layers: Vec<u32> = (0..n).filter(|i| every_layer || !skips_topk(ix, *i)).collect();
    let (Some(index_n_heads), Some(index_head_dim)) = (ix.n_heads, ix.head_dim) else {
        return cannot(
            name,
            "index_topk is set but index_n_heads / index_head_dim is not a positive integer (the indexer reads both)".into(),
        );
    };
    let cache_head_size = index_head_dim + index_head_dim / 128 * 4;
    let skips = (0..n).any(|i| skips_topk(ix, i));
    let how = match (&ix.pattern, layers.len() as u32 == n) {
        (_, true) if every_layer && skips => format!(
            "all {n} layers (vLLM {} builds the indexer on every sparse layer; index_topk_freq / index_topk_pattern do \
             not change which layers build one)",
            r.name()
        ),
        (_, true) => format!("all {n} layers"),
        (Some(_), false) => format!("{} of {n} layers (index_topk_pattern)", layers.len()),
        (None, false) => format!(
            "{} of {n} layers (index_topk_freq {}, index_skip_topk_offset {})",
            layers.len(),
            ix.freq,
            ix.offset
        ),
    };
    // deepseek_v2.py: sparse iff hasattr(config, "index_topk"); the DSA file's layers are always sparse.
    let (sparse_cite, built_cite, cache_cite) = if dsa_file {
        (
            &source::MLA_MODEL_V32_MLA_INIT,
            &source::MLA_MODEL_V32_MLA_INIT,
            &source::MLA_MODEL_V32_INDEXER_CACHE,
        )
    } else {
        (
            &source::MLA_MODEL_IS_V32,
            if every_layer {
                &source::MLA_MODEL_INDEXER_EVERY_LAYER
            } else {
                &source::MLA_MODEL_INDEXER_BUILT
            },
            &source::MLA_MODEL_INDEXER_CACHE,
        )
    };
    source.push(|| {
        format!(
            "index_topk = {}: every MLA layer is sparse (use_sparse, {}); an indexer ({}) on {how}{}, each with a cache \
         layer model.layers.{{i}}.self_attn.indexer.k_cache of head size index_head_dim + index_head_dim // 128 * 4 = \
         {} + {} = {cache_head_size} (uint8, {}); index_n_heads {index_n_heads}",
            ix.topk,
            at(sparse_cite, r),
            at(built_cite, r),
            if mtp.is_some_and(|t| t.count > 0) {
                " and every MTP layer"
            } else {
                ""
            },
            index_head_dim,
            index_head_dim / 128 * 4,
            at(cache_cite, r),
        )
    });
    Ok(IndexerSpec {
        index_topk: ix.topk,
        index_n_heads,
        index_head_dim,
        cache_head_size,
        layers,
    })
}

/// `deepseek_v2.py` without MLA: `DeepseekV2Attention`, a standard `Attention` of `qk_nope_head_dim + qk_rope_head_dim`
/// with as many KV heads as query heads, after asserting the model has no top-k buffer.
#[allow(clippy::too_many_arguments)]
fn non_mla(
    r: Release,
    name: &str,
    n: u32,
    heads: u32,
    c: &MlaConfig,
    cfg: &TextConfig,
    mtp: Option<MtpLayers>,
    file: &'static str,
    source: &mut Provenance,
) -> Result<(Vec<LayerSpec>, MlaModel), ModelError> {
    let head_dim = c.qk_nope_head_dim + c.qk_rope_head_dim;
    let init_assert = c.index.as_ref().map(|_| InitAssert {
        message: TOPK_ASSERT,
        cite: &source::MLA_MODEL_NONMLA_TOPK_ASSERT,
    });
    if init_assert.is_some() {
        source.push(|| {
            format!(
                "index_topk is set, so DeepseekV2Model allocates the top-k buffer ({}) and DeepseekV2Attention asserts it \
             is None ({}): AssertionError while layer 0 is built",
                at(&source::MLA_MODEL_TOPK_BUFFER, r),
                at(&source::MLA_MODEL_NONMLA_TOPK_ASSERT, r)
            )
        });
    } else {
        if r >= Release::V0_29_0 && !c.is_causal {
            return cannot(
                name,
                format!(
                    "is_causal = False: vLLM {} builds DeepseekV2Attention with EncoderOnlyAttention ({}), \
                     bidirectional attention qpath does not restate",
                    r.name(),
                    at(&source::MLA_MODEL_NONMLA_ATTN, r)
                ),
            );
        }
        if let Some(w) = cfg.sliding_window {
            return cannot(
                name,
                format!(
                    "sliding_window = {w} without MLA: DeepseekV2Attention's Attention would take \
                     cache_config.sliding_window, which qpath does not restate for this model file"
                ),
            );
        }
        source.push(|| {
            format!(
                "attention layers: {n} x model.layers.{{i}}.self_attn.attn, each a DeepseekV2Attention whose Attention \
             ({}) has {heads} query heads and {heads} KV heads of qk_nope_head_dim + qk_rope_head_dim = {} + {} = \
             {head_dim} (v padded to it)",
                at(&source::MLA_MODEL_NONMLA_ATTN, r),
                c.qk_nope_head_dim,
                c.qk_rope_head_dim,
            )
        });
    }
    if let Some(t) = &mtp {
        source.push(|| mtp_line(r, t));
    }
    let layers = (0..n)
        .map(|index| LayerSpec {
            index,
            kind: AttentionKind::Full,
            sliding_window: None,
            head_dim,
            num_q_heads: heads,
            num_kv_heads: heads,
            has_sinks: false,
            mla: None,
        })
        .collect();
    Ok((
        layers,
        MlaModel {
            use_mla: false,
            file,
            indexer: None,
            mtp,
            init_assert,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::Release::*;

    #[test]
    fn the_mla_model_type_list_follows_the_release() {
        // 0.20.0-0.24.0 have the same list (model_arch_config_convertor.py:220@0.20.0-0.22.1, :252@0.23.0/0.24.0).
        for (t, first, until) in [
            ("deepseek_v3", V0_20_0, None),
            ("kimi_k2", V0_20_0, None),
            ("glm_moe_dsa", V0_20_0, None),
            ("AXK1", V0_20_0, Some(V0_26_0)),
            ("axk1", V0_26_0, None),
            ("bailing_hybrid_mtp", V0_25_0, None),
            ("longcat_flash_ngram", V0_26_0, Some(V0_32_0)),
            ("k3_dspark", V0_27_0, None),
            ("dots3_note", V0_28_0, None),
            ("hy_v4_mtp", V0_29_0, None),
            ("glm5_next", V0_30_0, None),
        ] {
            for r in Release::ALL {
                let want = r.source_release() >= first && until.is_none_or(|u| r < u);
                assert_eq!(in_deepseek_mla_list(r, t), want, "{t} @{r}");
            }
        }
        assert!(!in_deepseek_mla_list(V0_33_0, "deepseek"));
        assert!(!in_deepseek_mla_list(V0_33_0, "llama"));
    }

    #[test]
    fn use_mla_per_release() {
        let on = ModelEnv { mla_disable: true };
        let off = ModelEnv::default();
        assert!(use_mla(V0_24_0, off, "deepseek_v3", true, true));
        assert!(!use_mla(V0_24_0, off, "deepseek_v3", false, true), "kv_lora_rank None");
        assert!(!use_mla(V0_24_0, on, "deepseek_v3", true, true));
        assert!(!use_mla(V0_33_0, on, "deepseek_v3", true, true));
        // is_causal False turns MLA off from 0.29.0 only.
        assert!(use_mla(V0_28_0, off, "deepseek_v3", true, false));
        assert!(!use_mla(V0_29_0, off, "deepseek_v3", true, false));
        assert!(!use_mla(V0_33_0, off, "llama", true, true));
    }

    #[test]
    fn the_skip_rule_of_the_indexer() {
        let ix = |freq, offset, pattern: Option<&str>| IndexConfig {
            topk: 2048,
            n_heads: Some(64),
            head_dim: Some(128),
            freq,
            offset,
            pattern: pattern.map(|p| p.chars().map(|c| c == 'S').collect()),
        };
        let built = |x: &IndexConfig| (0..6).filter(|i| !skips_topk(x, *i)).collect::<Vec<_>>();
        assert_eq!(built(&ix(1, 2, None)), vec![0, 1, 2, 3, 4, 5]);
        // freq 2, offset 2: max(i - 1, 0) % 2 == 0 for i = 0, 1, 3, 5.
        assert_eq!(built(&ix(2, 2, None)), vec![0, 1, 3, 5]);
        // A pattern wins; layers past its end do not skip.
        assert_eq!(built(&ix(2, 2, Some("FSSF"))), vec![0, 3, 4, 5]);
    }
}
