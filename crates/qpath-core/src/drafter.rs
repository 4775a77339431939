//! Speculative decoding's drafter: the method vLLM settles on (`SpeculativeConfig.__post_init__`,
//! `config/speculative.py`), the model runner that loads the drafter (`VllmConfig.use_v2_model_runner`,
//! `config/vllm.py`), and the drafter's layers with the attention backend and KV-cache dtype they are built under
//! (V1: `_create_draft_vllm_config` in `v1/spec_decode/llm_base_proposer.py`; V2: `load_eagle_model` in
//! `v1/worker/gpu/spec_decode/eagle/utils.py`, the draft-model speculators). `docs/source-notes/spec-decode.md`
//! restates the statements with their lines per release.
//!
//! [`crate::resolve`] then selects a backend for each drafter layer and builds its groups exactly like the target's
//! (`GroupReport::role` = `drafter`).

use crate::attention::Backend;
use crate::model::{self, AttentionKind, LayerSpec, ModelSpec, VllmModel};
use crate::release::Release;
use crate::report::{ModelRunner, SpeculativeReport};
use crate::report::{Note, ScenarioError, ScenarioErrorKind};
use crate::serve::{ServeCommand, SpeculativeConfig};
use crate::source::{self, Cite};
use crate::trace::Trace;

/// The drafter of a scenario, ready for selection.
pub struct Drafter {
    pub report: SpeculativeReport,
    /// The drafter's layers, indexed as vLLM's `extract_layer_index` reads their names (so
    /// `--kv-cache-dtype-skip-layers` matches them); `None` when the method has none or qpath cannot model them.
    pub model: Option<ModelSpec>,
    /// The backend forced on the drafter's layers (`None`: auto-selected).
    pub forced: Option<Backend>,
    /// qpath's notes ("qpath cannot model this: …").
    pub notes: Vec<Note>,
}

/// Methods whose drafter has no attention layer.
const NO_ATTENTION: [&str; 6] = [
    "ngram",
    "ngram_gpu",
    "suffix",
    "medusa",
    "mlp_speculator",
    "extract_hidden_states",
];

fn error(kind: ScenarioErrorKind, message: impl Into<String>, cite: &Cite, r: Release) -> ScenarioError {
    ScenarioError {
        kind,
        message: message.into(),
        source: cite.at(r).map(|s| s.short()),
    }
}

/// The drafter of `cmd`'s speculative config, or `None` without one. `target_forced` is the target's
/// `--attention-backend`; errors are the ones vLLM raises while it builds the `SpeculativeConfig`.
pub fn drafter(
    r: Release,
    cmd: &ServeCommand,
    target: &ModelSpec,
    target_forced: Option<Backend>,
) -> Result<Option<Drafter>, ScenarioError> {
    let Some(sc) = &cmd.speculative_config else {
        return Ok(None);
    };
    let mut t = Trace::new(r);
    let mut notes = Vec::new();
    let (method, model_id) = infer_method(r, sc, target, &mut t)?;
    let mut drafter_model = None;
    let mut method = method;
    if !NO_ATTENTION.contains(&method.as_str()) {
        let (m, spec) = drafter_layers(r, &method, model_id.as_deref(), target, sc, &mut t, &mut notes)?;
        method = m;
        drafter_model = spec;
    } else {
        t.step(
            None,
            "drafter layers",
            format!("method {method}: the proposer runs no attention layer, so the drafter adds no attention group"),
        );
    }
    let runner = model_runner(r, cmd, target, &method, &mut t)?;
    let (forced, kv) = drafter_backend(r, cmd, sc, runner, &method, target_forced, &mut t, &mut notes)?;
    let attention_layers = !NO_ATTENTION.contains(&method.as_str());
    Ok(Some(Drafter {
        report: SpeculativeReport {
            method,
            num_speculative_tokens: sc.num_speculative_tokens,
            model: model_id,
            runner,
            attention_layers,
            backend: forced.map_or("auto".to_string(), |b| b.name().to_string()),
            kv_cache_dtype: kv,
            trace: t.steps,
            log_records: t.records,
        },
        model: drafter_model,
        forced,
        notes,
    }))
}

/// `SpeculativeConfig.__post_init__`'s first half: the method when none is given, a deprecated MTP name, and the
/// model a method without one takes. Returns the method and the drafter's model id.
fn infer_method(
    r: Release,
    sc: &SpeculativeConfig,
    target: &ModelSpec,
    t: &mut Trace,
) -> Result<(String, Option<String>), ScenarioError> {
    let model = sc.model.clone();
    let method = match (&sc.method, &model) {
        (Some(m), _) => m.clone(),
        (None, Some(m)) if is_custom_class_path(m) => "custom_class".into(),
        (None, Some(m)) if m == "ngram" || m == "[ngram]" => "ngram".into(),
        (None, _) => {
            t.step(
                Some(&source::SPEC_METHOD_DRAFT_MODEL),
                "method",
                "no method given: draft_model (a separate draft model)",
            );
            "draft_model".into()
        }
    };
    let method = if method.ends_with("_mtp") {
        // The name passed the release's `SpeculativeMethod` literal, so it is one of `MTPModelTypes`.
        t.warn(
            &source::SPEC_MTP_DEPRECATED_LOG,
            format!("method `{method}` is deprecated and replaced with mtp."),
        );
        "mtp".to_string()
    } else {
        method
    };
    if model.is_some() || sc.num_speculative_tokens.is_none() {
        return Ok((method, model));
    }
    let model = match method.as_str() {
        "mtp" | "dspark" => Some(target.id.clone()),
        "ngram" | "ngram_gpu" | "suffix" | "extract_hidden_states" => Some(method.clone()),
        _ => {
            return Err(error(
                ScenarioErrorKind::ValueError,
                "num_speculative_tokens was provided but without speculative model.",
                &source::SPEC_NO_MODEL_RAISE,
                r,
            ))
        }
    };
    if method == "mtp" {
        t.step(
            None,
            "method",
            format!(
                "mtp without a model: the drafter is the target's own checkpoint ({})",
                target.id
            ),
        );
    }
    Ok((method, model))
}

/// `_is_custom_proposer_path`: a dotted module path (a "." and no "/", not a URL).
fn is_custom_class_path(model: &str) -> bool {
    model.contains('.') && !model.contains('/') && !model.contains("://")
}

/// The method a model-based drafter ends with (`__post_init__`'s detection chain) and its layers.
fn drafter_layers(
    r: Release,
    method: &str,
    model_id: Option<&str>,
    target: &ModelSpec,
    sc: &SpeculativeConfig,
    t: &mut Trace,
    notes: &mut Vec<Note>,
) -> Result<(String, Option<ModelSpec>), ScenarioError> {
    let Some(id) = model_id else {
        notes.push(Note::limit(format!(
            "qpath cannot model this: speculative method {method} without a model and without num_speculative_tokens"
        )));
        return Ok((method.to_string(), None));
    };
    if method == "custom_class" || method == "dflash" || method == "dspark" {
        notes.push(Note::limit(format!(
            "qpath cannot model this: the {method} drafter's attention layers (qpath models MTP, EAGLE, EAGLE-3 and \
             draft models)"
        )));
        return Ok((method.to_string(), None));
    }
    // The MTP drafter is the target's own checkpoint; any drafter's config goes through `hf_config_override`, which
    // rewrites e.g. qwen3_next to qwen3_next_mtp, before the detection chain reads its model_type.
    let draft = if id == target.id {
        Some(target.clone())
    } else {
        model::resolve_model_at(r, id, None).ok()
    };
    let Some(detected) = detect_method(r, method, id, draft.as_ref(), t, notes)? else {
        return Ok((method.to_string(), None));
    };
    if detected == "mtp" && sc.num_speculative_tokens.is_some_and(|n| n > 1) {
        t.warn(
            &source::SPEC_MTP_MULTI_LOG,
            "Enabling num_speculative_tokens > 1 will run multiple times of forward on same MTP layer,which may \
             result in lower acceptance rate",
        );
    }
    let Some(draft) = draft else {
        notes.push(Note::limit(format!(
            "qpath cannot model this: the {detected} drafter `{id}` is not one of qpath's presets, so its layers are \
             unknown; the target's groups are shown without the drafter's"
        )));
        return Ok((detected, None));
    };
    let layers = match detected.as_str() {
        "mtp" => mtp_layers(&draft, t, notes),
        "eagle" | "eagle3" => Some(eagle_layers(&detected, &draft, target, t)),
        _ => Some(draft_model_layers(&draft, t)),
    };
    Ok((detected, layers))
}

/// `__post_init__`'s detection chain for a model-based drafter, in its order: an EAGLE method kept, "eagle-" / "eagle3"
/// in the model id, an MTP model_type after `hf_config_override`, draft_model kept, else vLLM's NotImplementedError.
/// `None` when the drafter is not a preset, so its model_type is unknown.
fn detect_method(
    r: Release,
    method: &str,
    id: &str,
    draft: Option<&ModelSpec>,
    t: &mut Trace,
    notes: &mut Vec<Note>,
) -> Result<Option<String>, ScenarioError> {
    let lower = id.to_ascii_lowercase();
    Ok(Some(match method {
        "eagle" | "eagle3" => method.to_string(),
        _ if lower.contains("eagle-") => step_to(t, &source::SPEC_EAGLE_BY_NAME, "eagle", id),
        _ if lower.contains("eagle3") => step_to(t, &source::SPEC_EAGLE3_BY_NAME, "eagle3", id),
        _ if draft.and_then(mtp_model_type).is_some() => {
            let ty = draft.and_then(mtp_model_type).unwrap_or("mtp");
            t.step(
                Some(&source::SPEC_MTP_BY_MODEL_TYPE),
                "method",
                format!("hf_config_override makes {id}'s model_type {ty}, one of MTPModelTypes: mtp"),
            );
            "mtp".to_string()
        }
        "draft_model" => "draft_model".to_string(),
        _ if draft.is_none() => {
            notes.push(Note::limit(format!(
                "qpath cannot model this: the drafter model `{id}` is not one of qpath's presets, so its model_type \
                 (which decides the method) and its layers are unknown"
            )));
            return Ok(None);
        }
        _ => {
            return Err(error(
                ScenarioErrorKind::NotImplementedError,
                format!("Unsupported speculative method: '{method}'"),
                &source::SPEC_UNSUPPORTED_RAISE,
                r,
            ))
        }
    }))
}

fn step_to(t: &mut Trace, cite: &Cite, method: &str, id: &str) -> String {
    t.step(Some(cite), "method", format!("the drafter's name `{id}` selects {method}"));
    method.to_string()
}

/// The MTP model type `hf_config_override` rewrites the target's config to, for the targets qpath has.
fn mtp_model_type(target: &ModelSpec) -> Option<&'static str> {
    match target.model_type() {
        Some("qwen3_next") => Some("qwen3_next_mtp"),
        Some("nemotron_h") => Some("nemotron_h_mtp"),
        _ => None,
    }
}

/// The MTP layers of a Qwen3-Next target (`qwen3_next_mtp.py`): `num_nextn_predict_layers` (absent in the
/// checkpoints: 1) decoder layers built with `layer_type="full_attention"` and the target's attention shape, named
/// `mtp.layers.{i}` (so `extract_layer_index` reads i).
fn mtp_layers(target: &ModelSpec, t: &mut Trace, notes: &mut Vec<Note>) -> Option<ModelSpec> {
    if target.vllm_model != VllmModel::Qwen3Next {
        notes.push(Note::limit(format!(
            "qpath cannot model this: the {} drafter's layers (qpath models Qwen3-Next's MTP layer)",
            mtp_model_type(target).unwrap_or("mtp")
        )));
        return None;
    }
    let full = target.full_layers().next()?;
    t.step(
        Some(&source::QWEN3NEXT_MTP_LAYERS),
        "drafter layers",
        "Qwen3NextMTP: num_nextn_predict_layers is not in the config, so 1 MTP layer (re-run for each speculative token)",
    );
    t.step(
        Some(&source::QWEN3NEXT_MTP_FULL),
        "drafter layer kind",
        format!(
            "mtp.layers.0 is a Qwen3NextDecoderLayer with layer_type=\"full_attention\": the target's full-attention \
             shape ({} query heads, {} KV heads, head size {}), no window; extract_layer_index(\"mtp.layers.0\") = 0",
            full.num_q_heads, full.num_kv_heads, full.head_dim
        ),
    );
    let layer = LayerSpec {
        index: 0,
        kind: AttentionKind::Full,
        sliding_window: None,
        ..full.clone()
    };
    Some(drafter_spec(target, format!("{} (MTP)", target.id), vec![layer]))
}

/// An EAGLE / EAGLE-3 head (`llama_eagle.py`, `llama_eagle3.py`): its own config's layers, named from
/// `start_layer_id = target_layer_num`, so the head's layer i has index `target layers + i`.
fn eagle_layers(method: &str, draft: &ModelSpec, target: &ModelSpec, t: &mut Trace) -> ModelSpec {
    let start = target.decoder_layers;
    let cite = if method == "eagle3" {
        &source::EAGLE3_LLAMA_START_LAYER
    } else {
        &source::EAGLE_LLAMA_START_LAYER
    };
    t.step(
        Some(cite),
        "drafter layers",
        format!(
            "{} layer(s) from {}'s config, named model.layers.{start}…: start_layer_id = the target's {start} layers",
            draft.layers.len(),
            draft.id
        ),
    );
    let layers = draft
        .layers
        .iter()
        .map(|l| LayerSpec {
            index: l.index + start,
            ..l.clone()
        })
        .collect();
    drafter_spec(draft, draft.id.clone(), layers)
}

/// A separate draft model: its own layers and indices.
fn draft_model_layers(draft: &ModelSpec, t: &mut Trace) -> ModelSpec {
    t.step(
        None,
        "drafter layers",
        format!("draft model {}: its own {} layers, indexed 0…", draft.id, draft.layers.len()),
    );
    draft.clone()
}

fn drafter_spec(base: &ModelSpec, id: String, layers: Vec<LayerSpec>) -> ModelSpec {
    ModelSpec {
        id,
        decoder_layers: layers.len() as u32,
        layers,
        hybrid: None,
        ..base.clone()
    }
}

/// The architectures that default to Model Runner V2 in 0.24.0-0.28.0 (`DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`;
/// 0.29.0+ default every model to V2).
fn default_v2_architecture(r: Release, arch: &str) -> bool {
    let mut archs = vec!["DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM", "GraniteMoeForCausalLM"];
    if r < Release::V0_25_0 {
        archs.extend(["Qwen3ForCausalLM", "LlamaForCausalLM", "MistralForCausalLM"]);
    }
    if r >= Release::V0_26_0 {
        archs.extend([
            "InklingForCausalLM",
            "InklingForConditionalGeneration",
            "LongcatFlashNgramForCausalLM",
        ]);
    }
    if r >= Release::V0_27_0 {
        archs.push("KimiK3ForConditionalGeneration");
    }
    if r >= Release::V0_28_0 {
        archs.push("DeepseekV4ForCausalLM");
    }
    archs.contains(&arch)
}

/// The speculative entry of `_get_v2_model_runner_unsupported_features`, per release.
fn v2_unsupported(r: Release, method: &str) -> Option<(String, &'static Cite)> {
    let spec_method = || (format!("speculative method '{method}'"), &source::V2_UNSUPPORTED_SPEC_METHOD);
    if r < Release::V0_30_0 {
        if method == "ngram" || method == "ngram_gpu" {
            return Some(("ngram/ngram_gpu speculative decoding".into(), &source::V2_UNSUPPORTED_NGRAM));
        }
        let mut supported = vec!["eagle", "eagle3", "mtp", "dflash"];
        if r >= Release::V0_25_0 {
            supported.push("dspark");
        }
        if r >= Release::V0_29_0 {
            supported.push("extract_hidden_states");
        }
        return (!supported.contains(&method)).then(spec_method);
    }
    let mut unsupported = vec!["suffix", "custom_class"];
    if r < Release::V0_33_0 {
        unsupported.extend(["medusa", "mlp_speculator"]);
    }
    if r < Release::V0_32_0 {
        unsupported.extend(["ngram", "ngram_gpu"]);
    }
    if r < Release::V0_31_0 {
        unsupported.push("draft_model");
    }
    unsupported.contains(&method).then(spec_method)
}

/// `VllmConfig.use_v2_model_runner`: `VLLM_USE_V2_MODEL_RUNNER` wins; else (0.24.0-0.28.0) only a default-V2
/// architecture, and (every release) only without a feature V2 does not support, of which qpath reads the
/// speculative method's.
fn model_runner(
    r: Release,
    cmd: &ServeCommand,
    target: &ModelSpec,
    method: &str,
    t: &mut Trace,
) -> Result<ModelRunner, ScenarioError> {
    let env = cmd.env_flag("VLLM_USE_V2_MODEL_RUNNER").map_err(|m| ScenarioError {
        kind: ScenarioErrorKind::ValueError,
        message: m,
        source: None,
    })?;
    let cite = &source::V2_RUNNER_PROPERTY;
    if let Some(v2) = env {
        let runner = if v2 { ModelRunner::V2 } else { ModelRunner::V1 };
        t.step(
            Some(cite),
            "model runner",
            format!("VLLM_USE_V2_MODEL_RUNNER={}: {runner:?}", u8::from(v2)),
        );
        return Ok(runner);
    }
    if r < Release::V0_29_0 {
        let arch = target.architecture.unwrap_or("(none)");
        if !default_v2_architecture(r, arch) {
            t.step(
                Some(&source::V2_DEFAULT_ARCHITECTURES),
                "model runner",
                format!("{arch} is not in DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES: the V1 model runner"),
            );
            return Ok(ModelRunner::V1);
        }
    }
    if let Some((feature, feature_cite)) = v2_unsupported(r, method) {
        t.step(
            Some(feature_cite),
            "model runner",
            format!("Model Runner V2 does not support {feature}"),
        );
        t.warn(
            &source::V2_UNSUPPORTED_LOG,
            format!("Model Runner V2 does not yet support {feature}; using the V1 model runner instead."),
        );
        return Ok(ModelRunner::V1);
    }
    t.step(
        Some(cite),
        "model runner",
        if r < Release::V0_29_0 {
            "a default-V2 architecture and no unsupported speculative method: Model Runner V2 (qpath reads only the \
             speculative entries of the features V2 does not support)"
        } else {
            "no unsupported speculative method: Model Runner V2, the default (qpath reads only the speculative entries \
             of the features V2 does not support)"
        },
    );
    Ok(ModelRunner::V2)
}

/// The backend and cache dtype the drafter's layers are built under, per runner and release.
#[allow(clippy::too_many_arguments)]
fn drafter_backend(
    r: Release,
    cmd: &ServeCommand,
    sc: &SpeculativeConfig,
    runner: ModelRunner,
    method: &str,
    target_forced: Option<Backend>,
    t: &mut Trace,
    notes: &mut Vec<Note>,
) -> Result<(Option<Backend>, String), ScenarioError> {
    let spec_backend = match sc.attention_backend.as_deref().filter(|b| !b.eq_ignore_ascii_case("auto")) {
        None => None,
        Some(name) => Some(Backend::parse(name).ok_or_else(|| ScenarioError {
            kind: ScenarioErrorKind::InputError,
            message: format!(
                "qpath cannot model this: the speculative config's attention backend {name}: qpath models FLASH_ATTN, \
                 FLASHINFER, TRITON_ATTN, FLEX_ATTENTION, TURBOQUANT"
            ),
            source: None,
        })?),
    };
    if NO_ATTENTION.contains(&method) {
        return Ok((None, cmd.kv_cache_dtype.clone()));
    }
    let asked = Asked {
        target_forced,
        spec_backend,
        target_kv: cmd.kv_cache_dtype.clone(),
        spec_kv: sc.kv_cache_dtype.clone(),
    };
    let show = |b: Option<Backend>| b.map_or("auto (selected by priority)".to_string(), |b| b.name().to_string());
    let (backend, kv) = match runner {
        ModelRunner::V1 => {
            t.step(
                Some(&source::V1_DRAFT_BACKEND),
                "drafter backend",
                format!(
                    "V1 proposer (_create_draft_vllm_config): \"Never inherit the attention backend from base\": the \
                     speculative config's attention_backend, else auto; --attention-backend ({}) does not apply: {}",
                    show(target_forced),
                    show(spec_backend)
                ),
            );
            (
                spec_backend,
                drafter_kv(
                    KvSource {
                        read_by: (r >= Release::V0_26_0).then_some(&source::V1_DRAFT_KV_CACHE_DTYPE),
                        default: &source::V1_DRAFT_BACKEND,
                    },
                    &asked,
                    t,
                ),
            )
        }
        ModelRunner::V2 if method == "draft_model" => v2_draft_model(r, &asked, t),
        ModelRunner::V2 => v2_eagle(r, &asked, t),
    };
    if method == "mtp" && cmd.kv_cache_dtype_skip_layers.iter().any(|s| s == "0") {
        notes.push(Note::info(
            "--kv-cache-dtype-skip-layers 0 also skips the MTP drafter's layer: vLLM reads its name mtp.layers.0 as \
             layer 0",
        ));
    }
    Ok((backend, kv))
}

/// What the drafter's config could take its backend and cache dtype from: the target's `--attention-backend` and
/// `--kv-cache-dtype`, and the speculative config's `attention_backend` and `kv_cache_dtype`.
struct Asked {
    target_forced: Option<Backend>,
    spec_backend: Option<Backend>,
    target_kv: String,
    spec_kv: Option<String>,
}

/// Where the drafter's cache dtype comes from: the speculative config's `kv_cache_dtype` when it is set and the
/// loader reads it (`read_by`: the statement that applies it, `None` where this loader ignores it), else the target's
/// cache config (`default`: the statement that passes it on).
struct KvSource {
    read_by: Option<&'static Cite>,
    default: &'static Cite,
}

fn drafter_kv(from: KvSource, a: &Asked, t: &mut Trace) -> String {
    match (&a.spec_kv, from.read_by) {
        (Some(kv), Some(cite)) => {
            t.step(
                Some(cite),
                "drafter cache dtype",
                format!("speculative config kv_cache_dtype: {kv}"),
            );
            kv.clone()
        }
        _ => {
            t.step(
                Some(from.default),
                "drafter cache dtype",
                format!("the target's cache config: {}", a.target_kv),
            );
            a.target_kv.clone()
        }
    }
}

/// V2 EAGLE / EAGLE-3 / MTP (`load_eagle_model`): the target's `VllmConfig`, so its forced backend and cache dtype;
/// the speculative config's `kv_cache_dtype` overrides from 0.26.0, its `attention_backend` from 0.30.0
/// (`apply_draft_overrides` from 0.31.0).
fn v2_eagle(r: Release, a: &Asked, t: &mut Trace) -> (Option<Backend>, String) {
    let (target_forced, spec_backend) = (a.target_forced, a.spec_backend);
    let overrides = if r >= Release::V0_31_0 {
        &source::V2_EAGLE_DRAFT_OVERRIDES
    } else {
        &source::V2_EAGLE_LOAD
    };
    let backend = match spec_backend {
        Some(b) if r >= Release::V0_30_0 => {
            let cite = if r >= Release::V0_31_0 {
                overrides
            } else {
                &source::V2_EAGLE_ATTENTION_BACKEND
            };
            t.step(
                Some(cite),
                "drafter backend",
                format!("V2: the speculative config's attention_backend: {}", b.name()),
            );
            Some(b)
        }
        _ => {
            t.step(
                Some(&source::V2_EAGLE_LOAD),
                "drafter backend",
                format!(
                    "V2 (load_eagle_model): the drafter is built with the target's VllmConfig, so its backend: {}{}",
                    target_forced.map_or("auto (selected by priority)", |b| b.name()),
                    if spec_backend.is_some() {
                        "; this release does not read the speculative config's attention_backend here"
                    } else {
                        ""
                    }
                ),
            );
            target_forced
        }
    };
    let read_by = match r {
        _ if r >= Release::V0_31_0 => Some(overrides),
        _ if r >= Release::V0_26_0 => Some(&source::V2_EAGLE_KV_CACHE_DTYPE),
        _ => None,
    };
    let kv = drafter_kv(
        KvSource {
            read_by,
            default: &source::V2_EAGLE_LOAD,
        },
        a,
        t,
    );
    (backend, kv)
}

/// V2 draft model (0.31.0+, `load_draft_model`): the target's `VllmConfig` with the draft's model config, so the
/// target's backend (the speculative config's `attention_backend` is not read) and cache dtype (0.32.0+: the
/// speculative config's `kv_cache_dtype` overrides).
fn v2_draft_model(r: Release, a: &Asked, t: &mut Trace) -> (Option<Backend>, String) {
    let (target_forced, spec_backend) = (a.target_forced, a.spec_backend);
    let load = if r >= Release::V0_32_0 {
        &source::V2_STANDALONE_LOAD
    } else {
        &source::V2_DRAFT_MODEL_LOAD
    };
    t.step(
        Some(load),
        "drafter backend",
        format!(
            "V2 draft-model speculator: the target's VllmConfig with the draft's model config, so the target's backend: \
             {}{}",
            target_forced.map_or("auto (selected by priority)", |b| b.name()),
            if spec_backend.is_some() {
                "; the speculative config's attention_backend is not read here"
            } else {
                ""
            }
        ),
    );
    let read_by = (r >= Release::V0_32_0).then_some(&source::V2_STANDALONE_KV_CACHE_DTYPE);
    let kv = drafter_kv(KvSource { read_by, default: load }, a, t);
    (target_forced, kv)
}
