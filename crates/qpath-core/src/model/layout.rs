//! The per-layer attention layout vLLM builds from the config (steps 3 and 4 of the module docs): each layer's kind,
//! window, head size, head counts and sinks, by the model file's rule ([`VllmModel`]).

use serde::Serialize;

use super::config::{HfLayerType, TextConfig};
use super::hybrid::{self, HybridSpec};
use super::presets::VllmModel;
use super::Provenance;
use super::{err, ModelError};
use crate::release::Release;

/// What a decoder layer's token mixer is: softmax attention over every previous token or over a window of them, or,
/// in hybrid models, a layer with a recurrent state instead of a KV cache: linear attention (gated delta net, GDN) or
/// a Mamba (state-space) mixer. Only the first two have a query dtype and a FlashInfer kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionKind {
    Full,
    SlidingWindow,
    LinearAttention,
    Mamba,
    /// The lightning indexer beside a sparse MLA layer (DeepSeek-V3.2, GLM-5): its own key cache, which scores the
    /// tokens the layer's top-k attention then reads.
    Indexer,
    /// Chunked local attention (`ChunkedLocalAttention`, Llama 4's RoPE layers): attention within fixed chunks of
    /// `attention_chunk_size` tokens; its own KV spec (`ChunkedLocalAttentionSpec`), so its own group, and a metadata
    /// builder that never runs in full CUDA graphs (`source::CHUNKED_LOCAL_CG_NEVER`).
    ChunkedLocal,
}

impl AttentionKind {
    /// Every kind, in the order above.
    pub const ALL: [AttentionKind; 6] = [
        AttentionKind::Full,
        AttentionKind::SlidingWindow,
        AttentionKind::LinearAttention,
        AttentionKind::Mamba,
        AttentionKind::Indexer,
        AttentionKind::ChunkedLocal,
    ];

    /// Whether the layer is softmax attention with a KV cache (full, sliding window or chunked local).
    pub fn is_attention(self) -> bool {
        matches!(
            self,
            AttentionKind::Full | AttentionKind::SlidingWindow | AttentionKind::ChunkedLocal
        )
    }
}

/// One decoder layer's attention as vLLM builds it. Head counts are the model's totals (tensor parallel size 1).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LayerSpec {
    pub index: u32,
    pub kind: AttentionKind,
    /// The window vLLM gives the layer (tokens); `Some` exactly when `kind` is `SlidingWindow`.
    pub sliding_window: Option<u32>,
    pub head_dim: u32,
    pub num_q_heads: u32,
    pub num_kv_heads: u32,
    pub has_sinks: bool,
    /// An MLA layer's dims (`DeepseekV2MLAAttention`: `head_dim` is then `kv_lora_rank + qk_rope_head_dim`, the head
    /// size the selector is asked, and `num_kv_heads` is 1, the latent); `None` for standard attention.
    pub mla: Option<MlaDims>,
}

/// An MLA layer's dims, as the DeepSeek model files read them from the config (`docs/source-notes/mla-models.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct MlaDims {
    pub kv_lora_rank: u32,
    /// `q_lora_rank` (`None`: the query is projected without a low-rank step, e.g. DeepSeek-V2-Lite).
    pub q_lora_rank: Option<u32>,
    pub qk_nope_head_dim: u32,
    pub qk_rope_head_dim: u32,
    pub v_head_dim: u32,
    /// DeepSeek Sparse Attention's `index_topk`: the layer is sparse (`use_sparse`) and has an indexer cache layer.
    pub index_topk: Option<u32>,
}

impl MlaDims {
    /// The head size the selector and the KV spec see: `kv_lora_rank + qk_rope_head_dim` (576 for DeepSeek-V3).
    pub fn head_size(&self) -> u32 {
        self.kv_lora_rank + self.qk_rope_head_dim
    }

    /// `use_sparse`.
    pub fn sparse(&self) -> bool {
        self.index_topk.is_some()
    }
}

/// The layers vLLM `release` builds for the config `cfg` with the model file `rule`, in the model file's order:
/// heads and head size (each model file's `__init__`), the `layer_types` it reads, `cache_config.sliding_window`
/// (step 3), then each layer's window and sinks (step 4).
pub(super) fn build_layers(
    release: Release,
    name: &str,
    rule: VllmModel,
    cfg: &TextConfig,
    architecture: Option<&'static str>,
    source: &mut Provenance,
) -> Result<(Vec<LayerSpec>, Option<HybridSpec>), ModelError> {
    let (Some(n), Some(heads)) = (cfg.num_hidden_layers, cfg.num_attention_heads) else {
        // resolve_model_at checks this for unknown models; presets always carry both.
        return err(format!("{name}: num_hidden_layers and num_attention_heads are required"));
    };
    let kv = kv_heads(name, rule, heads, cfg)?;
    let head_dim = head_dim(name, rule, heads, cfg, source)?;
    check_layer_types(name, rule, n, cfg)?;
    let cache_window = cache_sliding_window(release, cfg, source);
    // Hybrid model files: each layer's token mixer (model::hybrid); recurrent layers have no window.
    let kinds = hybrid::layer_kinds(release, name, rule, n, cfg)?;
    let hybrid = match &kinds {
        Some((_, how)) => hybrid::spec(name, rule, architecture, cfg, how.clone())?,
        None => None,
    };

    // A hybrid model file can build more token mixers than decoder layers (falcon_h1.py: an attention and a Mamba2
    // layer per decoder layer, `model::hybrid`).
    let count = kinds.as_ref().map_or(n, |(k, _)| k.len() as u32);
    let mut layers = Vec::with_capacity(count as usize);
    for i in 0..count {
        let mixer = kinds.as_ref().map(|(k, _)| k[i as usize]);
        if mixer == Some(None) {
            continue; // an MLP / MoE block: no token mixer
        }
        // A hybrid model file's linear-attention / Mamba layer has no KV cache and no window (model::hybrid). The
        // other model files test `layer_types[i] == "sliding_attention"` only, so for them any other entry is a
        // full-attention layer.
        let recurrent = mixer.flatten().filter(|k| !k.is_attention());
        let window = match recurrent {
            Some(_) => None,
            None => per_layer_window(name, rule, i, n, cfg)?.or(cache_window),
        };
        let (head_dim, kv) = if rule == VllmModel::Gemma4 && recurrent.is_none() && window.is_none() {
            gemma4_full_layer(release, name, head_dim, kv, cfg)?
        } else {
            (head_dim, kv)
        };
        layers.push(LayerSpec {
            index: i,
            kind: match (recurrent, window) {
                (Some(kind), _) => kind,
                (None, Some(_)) => AttentionKind::SlidingWindow,
                (None, None) if rule == VllmModel::Llama4 && llama4_chunked(name, i, cfg)?.is_some() => {
                    AttentionKind::ChunkedLocal
                }
                (None, None) => AttentionKind::Full,
            },
            sliding_window: window,
            head_dim,
            num_q_heads: heads,
            num_kv_heads: kv,
            // Learned sinks on every layer of gpt_oss.py (148@0.24.0, 186@0.33.0) and of no other model file.
            has_sinks: rule == VllmModel::GptOss,
            mla: None,
        });
    }
    source.push(|| {
        format!(
            "per-layer windows, head size and sinks: {} (vLLM @{})",
            rule.file(),
            release.name()
        )
    });
    if let Some(h) = &hybrid {
        source.push(|| format!("hybrid layers ({}): {}", rule.file(), h.layers_rule));
    }
    Ok((layers, hybrid))
}

/// `llama4.py`'s layer i (`Llama4Attention.__init__`, the same text in every release 0.24.0-0.33.0):
/// `self.nope = config.no_rope_layers[i] == 0` (`source::LLAMA4_NOPE`), then `use_chunked_local_attn = not self.nope
/// and config.attention_chunk_size` (`source::LLAMA4_CHUNKED_LAYER`): a RoPE layer is a `ChunkedLocalAttention` of
/// `attention_chunk_size` tokens when that is set and non-zero, a NoPE layer a plain `Attention`. Returns the chunk
/// size of a chunked layer. The config class fills `no_rope_layers` (`config_json`), and the presets carry it.
pub fn llama4_chunked(name: &str, i: u32, cfg: &TextConfig) -> Result<Option<u32>, ModelError> {
    let Some(serde_json::Value::Array(no_rope)) = cfg.raw.get("no_rope_layers") else {
        return err(format!(
            "{name}: vLLM's llama4.py reads config.no_rope_layers[{i}], which is not set"
        ));
    };
    let Some(rope) = no_rope.get(i as usize) else {
        return err(format!(
            "{name}: vLLM's llama4.py reads config.no_rope_layers[{i}] but no_rope_layers has only {} entries \
             (IndexError)",
            no_rope.len()
        ));
    };
    // Python truthiness of the entry (`== 0` is the NoPE test) and of attention_chunk_size.
    let nope = rope.as_f64() == Some(0.0) || rope.as_bool() == Some(false);
    let chunk = cfg
        .raw
        .get("attention_chunk_size")
        .and_then(serde_json::Value::as_u64)
        .filter(|&c| c > 0);
    Ok(if nope {
        None
    } else {
        chunk.map(|c| c.min(u32::MAX as u64) as u32)
    })
}

/// A gemma-4 full-attention layer's head size and KV heads (`source::GEMMA4_LAYER_SHAPE`). From 0.28.0 vLLM takes them
/// from the per-layer config (`gemma4_layer_config`, then from 0.32.0 `config.per_layer_config[i]`), which both
/// transformers eras give as `global_head_dim` and, when `attention_k_eq_v`, `num_global_key_value_heads`. Before
/// 0.28.0 it reads `getattr(config, "global_head_dim", config.head_dim)`, an attribute transformers >= 5.15 no longer
/// keeps (it moves it into `per_layer_config`), so the answer depends on the installed transformers: qpath cannot
/// model it when the global shape differs from the sliding one.
fn gemma4_full_layer(release: Release, name: &str, head_dim: u32, kv: u32, cfg: &TextConfig) -> Result<(u32, u32), ModelError> {
    let int = |key: &str| -> Result<Option<u32>, ModelError> {
        match cfg.raw.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) if n > 0 && n <= u64::from(super::MAX_HEAD_DIM) => Ok(Some(n as u32)),
                _ => err(format!("{name}: {key} = {v}: must be a positive integer")),
            },
        }
    };
    let Some(global_head_dim) = int("global_head_dim")? else {
        return err(format!(
            "{name}: qpath cannot model this: global_head_dim is not given (its default depends on the transformers \
             version: Gemma4TextConfig's 512 from 5.15, none before)"
        ));
    };
    let k_eq_v = cfg
        .raw
        .get("attention_k_eq_v")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    let global_kv = if k_eq_v {
        int("num_global_key_value_heads")?.unwrap_or(kv)
    } else {
        kv
    };
    if release < Release::V0_28_0 && (global_head_dim != head_dim || global_kv != kv) {
        return err(format!(
            "{name}: qpath cannot model this: global_head_dim = {global_head_dim} (num_global_key_value_heads: \
             {global_kv} KV heads) on the full-attention layers: vLLM {} reads getattr(config, \"global_head_dim\", \
             config.head_dim), which transformers < 5.15 keeps as an attribute and >= 5.15 moves into \
             per_layer_config, so the layer shape depends on the installed transformers",
            release.name()
        ));
    }
    // Query heads that do not divide by these KV heads are vLLM's AssertionError in `Attention.__init__` (resolve's
    // heads_divide), not the model's; zero KV heads would divide by zero there.
    if global_kv == 0 {
        return err(format!("{name}: qpath cannot model this: num_global_key_value_heads = 0"));
    }
    Ok((global_head_dim, global_kv))
}

/// KV heads: `opt.py` gives every query head its own KV head and never reads `num_key_value_heads`; the other model
/// files read it, defaulting to the query heads as transformers does. The query heads must be a multiple.
fn kv_heads(name: &str, rule: VllmModel, heads: u32, cfg: &TextConfig) -> Result<u32, ModelError> {
    let file = rule.file();
    let kv = match rule {
        VllmModel::Opt => {
            if let Some(k) = cfg.num_key_value_heads.filter(|k| *k != heads) {
                return err(format!(
                    "{name}: --hf-overrides num_key_value_heads = {k}: vLLM's {file} gives every query head its own KV \
                     head and never reads num_key_value_heads, so this would change nothing"
                ));
            }
            heads
        }
        _ => cfg.num_key_value_heads.unwrap_or(heads),
    };
    // Query heads that do not divide by the KV heads are vLLM's AssertionError in `Attention.__init__` (resolve's
    // heads_divide), not the model's; zero KV heads would divide by zero there.
    if kv == 0 {
        return err(format!("{name}: qpath cannot model this: num_key_value_heads = 0"));
    }
    Ok(kv)
}

/// Head size, per model file ([`VllmModel`]): `opt.py` and `qwen2.py` use hidden_size // heads and ignore
/// `config.head_dim`; `llama.py` and `qwen3.py` use `config.head_dim`, else hidden_size // heads; `gemma3.py` and
/// `gpt_oss.py` read `config.head_dim` only.
fn head_dim(name: &str, rule: VllmModel, heads: u32, cfg: &TextConfig, source: &mut Provenance) -> Result<u32, ModelError> {
    let file = rule.file();
    let derived = |what: &str| -> Result<u32, ModelError> {
        let Some(hidden) = cfg.hidden_size else {
            return err(format!(
                "{name}: {what} needs hidden_size / num_attention_heads, and hidden_size is not set"
            ));
        };
        // Python's floor division, as the model files write it: a remainder is dropped, never refused.
        match hidden / heads {
            0 => err(format!(
                "{name}: qpath cannot model this: head_dim = hidden_size // num_attention_heads = {hidden} // {heads} = 0"
            )),
            d => Ok(d),
        }
    };
    Ok(match rule {
        VllmModel::Opt | VllmModel::Qwen2 | VllmModel::GraniteMoeHybrid | VllmModel::Jamba => {
            let d = derived("the head size")?;
            if let Some(h) = cfg.head_dim.filter(|h| *h != d) {
                return err(format!(
                    "{name}: --hf-overrides head_dim = {h}: vLLM's {file} ignores head_dim and uses hidden_size / \
                     num_attention_heads = {d}, so this would change nothing"
                ));
            }
            source.push(|| format!("head_dim = hidden_size / num_attention_heads = {d} ({file})"));
            d
        }
        VllmModel::Llama
        | VllmModel::Llama4
        | VllmModel::Qwen3
        | VllmModel::Qwen3Next
        | VllmModel::Qwen3_5
        | VllmModel::NemotronH
        | VllmModel::FalconH1
        | VllmModel::Glm4Moe => match cfg.head_dim {
            Some(h) => h,
            None => {
                let d = derived("head_dim")?;
                source.push(|| format!("head_dim = hidden_size / num_attention_heads = {d} ({file})"));
                d
            }
        },
        VllmModel::Gemma3 | VllmModel::GptOss | VllmModel::Gemma4 => match cfg.head_dim {
            Some(h) => h,
            None => return err(format!("{name}: vLLM's {file} reads config.head_dim, which is not set")),
        },
        // model::mla builds these layers (model::build_layers never hands them here).
        VllmModel::DeepseekV2 => return err(format!("{name}: {file}'s layers are built by the MLA rule")),
    })
}

/// `layer_types` given by the user must describe every layer; `qwen2.py` asserts `max_window_layers ==
/// num_hidden_layers` when `layer_types` mixes full and sliding layers (341@0.24.0, 352@0.33.0), which qpath does
/// not model.
fn check_layer_types(name: &str, rule: VllmModel, n: u32, cfg: &TextConfig) -> Result<(), ModelError> {
    let Some(lt) = &cfg.layer_types else {
        return Ok(());
    };
    if cfg.layer_types_origin.starts_with("--hf-overrides") && lt.len() != n as usize {
        return err(format!(
            "{name}: {} has {} entries but the model has {n} layers (num_hidden_layers); they must match",
            cfg.layer_types_origin,
            lt.len()
        ));
    }
    if rule == VllmModel::Qwen2 && lt.contains(&HfLayerType::Full) && lt.contains(&HfLayerType::Sliding) {
        return err(format!(
            "{name}: layer_types mixes full and sliding layers; vLLM's {} then asserts \
             max_window_layers == num_hidden_layers (\"Sliding window for some but all layers is not \
             supported...\"), which qpath does not model",
            rule.file()
        ));
    }
    Ok(())
}

/// Step 3, `CacheConfig.sliding_window` (the window of layers without their own): the model's `sliding_window` when
/// the model is not interleaved. 0.24–0.26: `not is_interleaved(text_config)`, i.e. no `layer_types` or a single
/// distinct type (`vllm/engine/arg_utils.py:1826@0.24.0, 1860@0.25.0, 1889@0.26.0`); 0.27+: `layer_types is None or
/// all(lt == "sliding_attention")` (`arg_utils.py:1939@0.27.0 … 2290@0.33.0`); else None.
fn cache_sliding_window(release: Release, cfg: &TextConfig, source: &mut Provenance) -> Option<u32> {
    let model_window = cfg.sliding_window;
    let lt = cfg.layer_types.as_deref();
    let (cache_window, cache_rule) = if release < Release::V0_27_0 {
        let interleaved = lt.is_some_and(|l| l.contains(&HfLayerType::Full) && l.contains(&HfLayerType::Sliding));
        (
            if interleaved { None } else { model_window },
            "`not is_interleaved(text_config)`",
        )
    } else {
        (
            if lt.is_none_or(|l| l.iter().all(|t| *t == HfLayerType::Sliding)) {
                model_window
            } else {
                None
            },
            "`layer_types is None or all sliding_attention`",
        )
    };
    source.push(|| {
        format!(
            "cache_config.sliding_window = {} (vllm/engine/arg_utils.py @{}: the model's sliding_window iff {cache_rule})",
            cache_window.map_or("None".to_string(), |w| w.to_string()),
            release.name()
        )
    });
    cache_window
}

/// Step 4, the `per_layer_sliding_window` the model file passes to layer `i`'s `Attention` (None: the layer takes
/// `cache_config.sliding_window`): none in `opt.py`, `qwen2.py`, `qwen3.py`; `config.sliding_window` iff `i % 2 == 0`
/// in `gpt_oss.py` (137@0.24.0, 175@0.33.0); `config.sliding_window` where `config.layer_types[i]` is
/// `"sliding_attention"` in `llama.py` (185-204@0.24.0/0.33.0; no `layer_types` means no per-layer window) and
/// `gemma3.py` (157-159@0.24.0, 153-155@0.33.0; it fails without `layer_types[i]`).
fn per_layer_window(name: &str, rule: VllmModel, i: u32, n: u32, cfg: &TextConfig) -> Result<Option<u32>, ModelError> {
    let file = rule.file();
    let model_window = cfg.sliding_window;
    Ok(match rule {
        VllmModel::Opt
        | VllmModel::Qwen2
        | VllmModel::Qwen3
        | VllmModel::Qwen3Next
        | VllmModel::Qwen3_5
        | VllmModel::NemotronH
        | VllmModel::GraniteMoeHybrid
        | VllmModel::FalconH1
        | VllmModel::Jamba
        | VllmModel::Llama4
        | VllmModel::Glm4Moe
        | VllmModel::DeepseekV2 => None,
        VllmModel::GptOss => model_window.filter(|_| i % 2 == 0),
        VllmModel::Llama | VllmModel::Gemma3 | VllmModel::Gemma4 => match cfg.layer_types.as_deref() {
            None if rule == VllmModel::Llama => None,
            Some([]) if rule == VllmModel::Llama => None,
            None => {
                return err(format!(
                    "{name}: vLLM's {file} reads config.layer_types[{i}], which is not set"
                ))
            }
            Some(l) => match l.get(i as usize) {
                Some(HfLayerType::Sliding) => model_window,
                Some(HfLayerType::Full | HfLayerType::Linear | HfLayerType::Mamba) => None,
                None => {
                    return err(format!(
                        "{name}: vLLM's {file} reads config.layer_types[{i}] but {} has only {} entries (it fails \
                         there); pass a layer_types override with {n} entries as well",
                        cfg.layer_types_origin,
                        l.len()
                    ))
                }
            },
        },
    })
}
