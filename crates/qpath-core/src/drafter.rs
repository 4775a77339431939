//! Speculative decoding's drafter: the method vLLM settles on (`SpeculativeConfig.__post_init__`,
//! `config/speculative.py`), the model runner that loads the drafter (`VllmConfig.use_v2_model_runner`,
//! `config/vllm.py`), and the drafter's layers with the attention backend and KV-cache dtype they are built under
//! (V1: `_create_draft_vllm_config` in `v1/spec_decode/llm_base_proposer.py`; V2: `load_eagle_model` in
//! `v1/worker/gpu/spec_decode/eagle/utils.py`, the draft-model speculators). `docs/source-notes/spec-decode.md`
//! restates the statements with their lines per release.
//!
//! [`crate::resolve`] then selects a backend for each drafter layer and builds its groups exactly like the target's
//! (`GroupReport::role` = `drafter`).
//!
//! On a DeepSeek-architecture (MLA) target (`docs/source-notes/spec-decode.md` §6): `mtp` rewrites the draft config
//! to `deepseek_mtp` for `deepseek_v3` / `deepseek_v32` / `glm_moe_dsa` only (Kimi-K2's `kimi_k2` and DeepSeek-V2's
//! `deepseek_v2` end in vLLM's `Unsupported speculative method: 'mtp'`), checks `num_speculative_tokens` against
//! `n_predict`, and builds `num_nextn_predict_layers` MLA layers like the target's from index `num_hidden_layers`;
//! DeepSeek-V3.2's MTP drafter runs eagerly in 0.20.0-0.28.0. An EAGLE-3 head keeps its own attention: a Llama-type
//! head's layer is standard attention (`use_mla=False`) built under the target's model config.
//!
//! On a GLM-4.5 / 4.6 / 4.7 target (`Glm4MoeForCausalLM`, every release): `mtp` (or the deprecated `glm4_moe_mtp`)
//! rewrites the draft config to `glm4_moe_mtp` and builds `num_nextn_predict_layers` layers of the target's plain
//! attention from index `num_hidden_layers` (`glm4_moe_mtp.py`, `glm_mtp_layers`).

use crate::attention::Backend;
use crate::model::{self, AttentionKind, LayerSpec, MlaDims, ModelSpec, MtpLayers, ParsedConfig, VllmModel};
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
    /// The drafter's cache dtype is the target's cache config's (not the speculative config's `kv_cache_dtype`): the
    /// drafter is built after the target, so it meets `cache_config.cache_dtype` as the target's MLA layers left it.
    pub kv_from_target: bool,
    /// The MLA dims of the model config the drafter's layers are built under when it is the target's (EAGLE, EAGLE-3
    /// and MTP drafters on a DeepSeek-architecture target; [`crate::platform::Platform::model_mla`]).
    pub model_mla: Option<MlaDims>,
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
    draft_config: Option<&ParsedConfig>,
) -> Result<Option<Drafter>, ScenarioError> {
    let Some(sc) = &cmd.speculative_config else {
        return Ok(None);
    };
    let mut t = Trace::new(r);
    let mut notes = Vec::new();
    let (method, model_id, eager) = infer_method(r, sc, target, &mut t)?;
    let mut drafter_model = None;
    let mut method = method;
    if !NO_ATTENTION.contains(&method.as_str()) {
        let asked = (method.as_str(), model_id.as_deref(), draft_config);
        let (m, spec) = drafter_layers(r, cmd, asked, target, &mut t, &mut notes)?;
        method = m;
        drafter_model = spec;
    } else {
        t.step(
            None,
            "drafter layers",
            format!("method {method}: the proposer runs no attention layer, so the drafter adds no attention group"),
        );
    }
    aux_hidden_states_check(r, &method, target, &mut notes)?;
    let runner = model_runner(r, cmd, target, &method, &mut t)?;
    let (forced, kv, kv_from_target) = drafter_backend(r, cmd, sc, runner, &method, target_forced, &mut t)?;
    if eager && drafter_model.is_some() {
        eager_drafter_graphs(r, runner, &mut t);
    }
    // Qwen3-Next's MTP layer is `mtp.layers.0`, index 0 like the target's first layer (a DeepSeek MTP layer's index
    // follows the target's layers).
    if method == "mtp"
        && matches!(target.vllm_model, VllmModel::Qwen3Next | VllmModel::Qwen3_5)
        && cmd.kv_cache_dtype_skip_layers.iter().any(|s| s == "0")
    {
        notes.push(Note::info(
            "--kv-cache-dtype-skip-layers 0 also skips the MTP drafter's layer: vLLM reads its name mtp.layers.0 as \
             layer 0",
        ));
    }
    let attention_layers = !NO_ATTENTION.contains(&method.as_str());
    // EAGLE heads and MTP layers are built under the target's model config (V1: `_create_draft_vllm_config` keeps
    // it; V2: `load_eagle_model` passes the target's VllmConfig); a separate draft model under its own.
    let model_mla = if matches!(method.as_str(), "eagle" | "eagle3" | "mtp") {
        target.layers.iter().find_map(|l| l.mla)
    } else {
        None
    };
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
        kv_from_target,
        model_mla,
        notes,
    }))
}

/// DeepSeek-V3.2's MTP drafter in 0.20.0-0.28.0: `speculative_config.enforce_eager = True`
/// ([`source::MLA_MODEL_SPEC_V32_EAGER`]), read by the V1 proposer only.
fn eager_drafter_graphs(r: Release, runner: ModelRunner, t: &mut Trace) {
    match runner {
        ModelRunner::V1 => t.step(
            Some(&source::MLA_DRAFTER_V1_EAGER_GRAPHS),
            "drafter CUDA graphs",
            "speculative_config.enforce_eager: the proposer's cudagraph mode is NONE, so the MTP drafter runs \
             eagerly (no piecewise graphs of its own); the target keeps its cudagraph_mode, and the drafter's \
             attention groups still count in the runner's CUDA-graph support",
        ),
        ModelRunner::V2 => t.step(
            // 0.20.0-0.22.1: the EAGLE speculator (eagle/speculator.py); 0.23.0+ autoregressive/speculator.py.
            Some(if r < Release::V0_23_0 {
                &source::MLA_DRAFTER_V2_DRAFT_GRAPHS_EAGLE
            } else {
                &source::MLA_DRAFTER_V2_DRAFT_GRAPHS
            }),
            "drafter CUDA graphs",
            "the V2 speculator does not read speculative_config.enforce_eager: its draft decodes are captured \
             FULL_DECODE_ONLY when the target's decode mode is FULL, as for any drafter",
        ),
    }
}

/// `SpeculativeConfig.__post_init__`'s first half: the method when none is given, a deprecated MTP name, and the
/// model a method without one takes. Returns the method, the drafter's model id, and whether the speculative config
/// set `enforce_eager` (DeepSeek-V3.2's MTP drafter, 0.20.0-0.28.0).
fn infer_method(
    r: Release,
    sc: &SpeculativeConfig,
    target: &ModelSpec,
    t: &mut Trace,
) -> Result<(String, Option<String>, bool), ScenarioError> {
    let model = sc.model.clone();
    let method = match (&sc.method, &model) {
        (Some(m), _) => m.clone(),
        // 0.22.0+: a dotted module path is a custom proposer class (speculative.py:527@0.22.0); before, it is a
        // draft model's name.
        (None, Some(m)) if r >= Release::V0_22_0 && is_custom_class_path(m) => "custom_class".into(),
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
        return Ok((method, model, false));
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
    let mut eager = false;
    if method == "mtp" {
        // `hf_text_config.model_type == "deepseek_v32"` (not GLM-5's glm_moe_dsa), before the model is set.
        if r < Release::V0_29_0 && target.model_type() == Some("deepseek_v32") {
            t.step(
                Some(&source::MLA_MODEL_SPEC_V32_EAGER),
                "speculative config",
                "a deepseek_v32 target: enforce_eager = True for the MTP drafter (\"cudagraph with v32 MTP is not \
                 supported\")",
            );
            eager = true;
        }
        t.step(
            None,
            "method",
            format!(
                "mtp without a model: the drafter is the target's own checkpoint ({})",
                target.id
            ),
        );
    }
    Ok((method, model, eager))
}

/// 0.20.0-0.21.0 `SpeculativeConfig._verify_args` (after `__post_init__`; [`source::SPEC_AUX_HIDDEN_STATES_RAISE`],
/// removed in 0.22.0): `eagle3`, `extract_hidden_states` and `dflash` need a target whose text config's `model_type`
/// contains one of `aux_hidden_states_supported` (0.21.0 adds `laguna`). Raised inside the pydantic dataclass, so
/// vLLM shows pydantic's `ValidationError` around it; qpath gives the inner `ValueError` (as
/// [`source::SPEC_NO_MODEL_RAISE`]'s).
fn aux_hidden_states_check(r: Release, method: &str, target: &ModelSpec, notes: &mut Vec<Note>) -> Result<(), ScenarioError> {
    if r >= Release::V0_22_0 || !matches!(method, "eagle3" | "extract_hidden_states" | "dflash") {
        return Ok(());
    }
    let mut supported = vec![
        "llama",
        "qwen",
        "minicpm",
        "gpt_oss",
        "hunyuan_vl",
        "hunyuan_v1_dense",
        "afmoe",
        "nemotron_h",
        "deepseek_v2",
        "deepseek_v3",
        "kimi_k2",
        "kimi_k25",
        "minimax_m2",
        "gemma4",
    ];
    if r >= Release::V0_21_0 {
        supported.push("laguna");
    }
    // `hf_text_config.model_type`: a multimodal config's text config's type (gemma-3's `gemma3_text`).
    let text_type = match target.model_type() {
        Some("gemma3") => "gemma3_text".to_string(),
        Some(ty) => ty.to_string(),
        None => {
            notes.push(Note::limit(format!(
                "qpath cannot model this: {r} accepts {method} only for a target whose model_type contains one of \
                 aux_hidden_states_supported, and qpath reads no model_type for {}",
                target.id
            )));
            return Ok(());
        }
    };
    if supported.iter().any(|s| text_type.contains(s)) {
        return Ok(());
    }
    let list = supported.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", ");
    Err(error(
        ScenarioErrorKind::ValueError,
        format!(
            "{method} is only supported for [{list}] models. Got \
             self.target_model_config.hf_text_config.model_type='{text_type}'"
        ),
        &source::SPEC_AUX_HIDDEN_STATES_RAISE,
        r,
    ))
}

/// `_is_custom_proposer_path`: a dotted module path (a "." and no "/", not a URL).
fn is_custom_class_path(model: &str) -> bool {
    model.contains('.') && !model.contains('/') && !model.contains("://")
}

/// The method a model-based drafter ends with (`__post_init__`'s detection chain) and its layers.
/// The drafter's layers: `asked` is the method (before detection), the drafter's model and its config.json text when
/// the caller found one (a folder, the HF cache, a file).
fn drafter_layers(
    r: Release,
    cmd: &ServeCommand,
    (method, model_id, draft_config): (&str, Option<&str>, Option<&ParsedConfig>),
    target: &ModelSpec,
    t: &mut Trace,
    notes: &mut Vec<Note>,
) -> Result<(String, Option<ModelSpec>), ScenarioError> {
    let sc = cmd.speculative_config.as_ref().expect("a drafter has a speculative config");
    // The page has no drafter config.json box (its drafters are presets): the reader stays out of the wasm.
    #[cfg(target_arch = "wasm32")]
    let draft_config: Option<&ParsedConfig> = draft_config.and(None);
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
    } else if let Some(config) = draft_config {
        Some(draft_from_config(r, method, id, config, t)?)
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
        let deepseek = if target.vllm_model == VllmModel::DeepseekV2 && detected == "eagle3" {
            " (no public EAGLE-3 head for a DeepSeek-architecture model with a published config.json is a qpath \
             preset: a Llama-type head, LlamaForCausalLMEagle3, builds one standard attention layer that selects \
             among the non-MLA backends; an Eagle3DeepseekV3ForCausalLM head builds MLA layers)"
        } else {
            ""
        };
        notes.push(Note::limit(format!(
            "qpath cannot model this: the {detected} drafter `{id}` is not one of qpath's presets, so its layers are \
             unknown{deepseek}; the target's groups are shown without the drafter's"
        )));
        return Ok((detected, None));
    };
    let layers = match detected.as_str() {
        "mtp" if draft.vllm_model == VllmModel::DeepseekV2 => {
            deepseek_mtp_layers(r, cmd, sc.num_speculative_tokens, &draft, target, t, notes)?
        }
        "mtp" if draft.vllm_model == VllmModel::Glm4Moe => {
            glm_mtp_layers(r, cmd, sc.num_speculative_tokens, &draft, target, t, notes)?
        }
        "mtp" => mtp_layers(r, &draft, t, notes),
        "eagle" | "eagle3" => Some(eagle_layers(&detected, &draft, target, t)),
        _ => Some(draft_model_layers(&draft, t)),
    };
    Ok((detected, layers))
}

/// The drafter's own config.json: an EAGLE head when the method is (or its name makes it) `eagle` / `eagle3`
/// ([`eagle_method`], the detection chain's first two steps), else a draft model read like a target. A config qpath cannot
/// read is the scenario's input error, naming the file.
fn draft_from_config(
    r: Release,
    method: &str,
    id: &str,
    config: &ParsedConfig,
    t: &mut Trace,
) -> Result<ModelSpec, ScenarioError> {
    let text = config.text();
    let cap = crate::serve::limits::MAX_CONFIG_JSON_BYTES;
    let file = format!("config.json of the drafter {id}");
    let input = |message: String| ScenarioError {
        kind: ScenarioErrorKind::InputError,
        message,
        source: None,
    };
    if text.len() > cap {
        return Err(input(format!(
            "qpath cannot model this: {file} has {} bytes, more than {cap} (qpath's cap \
             serve::limits::MAX_CONFIG_JSON_BYTES)",
            text.len()
        )));
    }
    let eagle = eagle_method(method, id).map(|(m, _)| m);
    // Parsed once and the spec built once per release for every scenario sharing the config (a matrix's cells).
    let spec = config
        .resolve_drafter_in(r, eagle, id, &file)
        .map_err(|e| input(e.to_string()))?;
    t.step(
        Some(&source::EAGLE_CONFIG_ARCHITECTURES),
        "drafter config",
        match (eagle, spec.architecture) {
            (Some(m), Some(arch)) => format!("{file}: an {m} head, EAGLEConfig names its architecture {arch}"),
            _ => format!("{file}: a draft model, read like a target's config.json"),
        },
    );
    Ok(spec)
}

/// The detection chain's first two steps (`__post_init__`): an EAGLE method kept, else "eagle-" / "eagle3" in the
/// model id (lower-cased); the flag says the name decided it.
fn eagle_method(method: &str, id: &str) -> Option<(&'static str, bool)> {
    match method {
        "eagle" => return Some(("eagle", false)),
        "eagle3" => return Some(("eagle3", false)),
        _ => {}
    }
    let lower = id.to_ascii_lowercase();
    if lower.contains("eagle-") {
        Some(("eagle", true))
    } else if lower.contains("eagle3") {
        Some(("eagle3", true))
    } else {
        None
    }
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
    match eagle_method(method, id) {
        Some((m, false)) => return Ok(Some(m.to_string())),
        Some(("eagle", true)) => return Ok(Some(step_to(t, &source::SPEC_EAGLE_BY_NAME, "eagle", id))),
        Some((m, true)) => return Ok(Some(step_to(t, &source::SPEC_EAGLE3_BY_NAME, m, id))),
        None => {}
    }
    Ok(Some(match method {
        _ if draft.and_then(|d| mtp_model_type(r, d)).is_some() => {
            let ty = draft.and_then(|d| mtp_model_type(r, d)).unwrap_or("mtp");
            if let Some(d) = draft.filter(|d| d.vllm_model == VllmModel::DeepseekV2) {
                deepseek_mtp_config(r, d, t);
            }
            if let Some(d) = draft.filter(|d| d.vllm_model == VllmModel::Glm4Moe) {
                t.step(
                    Some(&source::GLM_MTP_OVERRIDE),
                    "drafter config",
                    format!(
                        "hf_config_override: architectures[0] Glm4MoeForCausalLM → model_type glm4_moe_mtp, \
                         architectures [\"Glm4MoeMTPModel\"], n_predict = num_nextn_predict_layers = {} \
                         (num_hidden_layers kept: {})",
                        d.glm_nextn_layers.map_or("None".to_string(), |n| n.to_string()),
                        d.decoder_layers
                    ),
                );
            }
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
        // vLLM decides the method from the model's `model_type` (`hf_config_override` maps the MTP-capable ones to
        // their draft types). qpath knows that mapping for its presets' types only, so vLLM's NotImplementedError is
        // its answer only for a `model_type` one of its presets has; a model described by `--hf-overrides` alone (no
        // type) or of another type is "cannot model", never an error vLLM would not print (issue 24, item 3).
        _ if draft.is_some_and(|d| !d.model_type().is_some_and(is_preset_model_type)) => {
            let why = match draft.and_then(ModelSpec::model_type) {
                Some(ty) => format!("model_type `{ty}` is not one qpath knows the MTP support of"),
                None => "qpath reads no model_type (a model described by `--hf-overrides` alone)".to_string(),
            };
            notes.push(Note::limit(format!(
                "qpath cannot model this: the speculative method `{method}` is decided by the model's `model_type` \
                 (an MTP head is found by it), and for `{id}` {why}; give the model's config.json (--model-config \
                 FILE, a model folder, or the page's config.json box) of a model qpath knows"
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

/// Whether qpath knows the MTP support (or its absence) of this `model_type`: one of its presets' types, or a type
/// [`mtp_model_type`] names (the text-only Qwen3.5 types, rewritten from 0.28.0 and so `Unsupported speculative
/// method: 'mtp'` in 0.27.0).
fn is_preset_model_type(ty: &str) -> bool {
    crate::model::MODEL_PRESETS.iter().any(|p| p.model_type == ty) || matches!(ty, "qwen3_5_text" | "qwen3_5_moe_text")
}

fn step_to(t: &mut Trace, cite: &Cite, method: &str, id: &str) -> String {
    t.step(Some(cite), "method", format!("the drafter's name `{id}` selects {method}"));
    method.to_string()
}

/// The MTP model type `hf_config_override` rewrites the target's config to, for the targets qpath has: DeepSeek-V3 /
/// R1, V3.2 and GLM-5 to `deepseek_mtp` ([`source::MLA_MODEL_SPEC_MTP_TYPES`]), a `Glm4MoeForCausalLM` (GLM-4.5 /
/// 4.6 / 4.7, by `architectures[0]`) to `glm4_moe_mtp`; `kimi_k2` and `deepseek_v2` are not rewritten, so their MTP
/// detection ends in vLLM's `Unsupported speculative method`.
pub(crate) fn mtp_model_type(r: Release, target: &ModelSpec) -> Option<&'static str> {
    match target.model_type() {
        Some("qwen3_next") => Some("qwen3_next_mtp"),
        // Qwen3.5 (`source::QWEN3_5_MTP_TYPES`): the multimodal configs in every release; the text-only types
        // (Qwen3_5ForCausalLM checkpoints) from 0.28.0 (speculative.py:551-561@0.28.0).
        Some("qwen3_5" | "qwen3_5_moe") => Some("qwen3_5_mtp"),
        Some("qwen3_5_text" | "qwen3_5_moe_text") if r >= Release::V0_28_0 => Some("qwen3_5_mtp"),
        Some("nemotron_h") => Some("nemotron_h_mtp"),
        Some("deepseek_v3" | "deepseek_v32" | "glm_moe_dsa") => Some("deepseek_mtp"),
        // GLM-4.5 / 4.6 / 4.7: keyed on architectures[0], every release (source::GLM_MTP_OVERRIDE).
        _ if target.architecture == Some("Glm4MoeForCausalLM") => Some("glm4_moe_mtp"),
        _ => None,
    }
}

/// The architecture `hf_config_override` gives a DeepSeek MTP draft config: `DeepseekV32MTPModel` (0.29.0+, when the
/// original model_type is `deepseek_v32` / `glm_moe_dsa`) or `DeepSeekMTPModel`, with its registry entry.
fn deepseek_mtp_architecture(r: Release, draft: &ModelSpec) -> (&'static str, &'static Cite) {
    if r >= Release::V0_29_0 && matches!(draft.model_type(), Some("deepseek_v32" | "glm_moe_dsa")) {
        ("DeepseekV32MTPModel", &source::MLA_MODEL_REG_DEEPSEEK_V32_MTP)
    } else {
        ("DeepSeekMTPModel", &source::MLA_MODEL_REG_DEEPSEEK_MTP)
    }
}

/// `hf_config_override` on a DeepSeek-architecture draft config, in its order: (0.29.0+) `use_v32_mtp` from the
/// original model_type, the model_type → `deepseek_mtp`, then `n_predict` and the architecture.
fn deepseek_mtp_config(r: Release, draft: &ModelSpec, t: &mut Trace) {
    let ty = draft.model_type().unwrap_or("(none)");
    let (arch, _) = deepseek_mtp_architecture(r, draft);
    if r >= Release::V0_29_0 {
        t.step(
            Some(&source::MLA_MODEL_SPEC_V32_MTP),
            "draft config",
            format!(
                "use_v32_mtp = {}: the original model_type {ty} {} deepseek_v32 / glm_moe_dsa",
                if arch == "DeepseekV32MTPModel" { "True" } else { "False" },
                if arch == "DeepseekV32MTPModel" { "is" } else { "is not" }
            ),
        );
    }
    t.step(
        Some(&source::MLA_MODEL_SPEC_MTP_TYPES),
        "draft config",
        format!("hf_config_override: model_type {ty} → deepseek_mtp"),
    );
    let n_predict = draft
        .mla
        .as_ref()
        .and_then(|m| m.mtp)
        .map_or("None".to_string(), |m| m.count.to_string());
    t.step(
        Some(&source::MLA_MODEL_SPEC_MTP_ARCH),
        "draft config",
        format!("architectures [\"{arch}\"], n_predict = num_nextn_predict_layers = {n_predict}"),
    );
}

/// The `--hf-overrides` keys the MTP layer's attention reads from the draft config: vLLM builds the draft
/// `ModelConfig` from the checkpoint without the target's dict overrides, while the layers' count, start and
/// `use_mla` come from the target's (overridden) config.
fn overrides_reach_mtp(cmd: &ServeCommand) -> Option<&str> {
    let o = cmd.hf_overrides.as_ref()?;
    model::MLA_KEYS
        .iter()
        .chain(["num_attention_heads"].iter())
        .find(|k| o.contains_key(**k))
        .copied()
}

/// `n_predict` against `num_speculative_tokens` (`__post_init__`, after the detection): more tokens than MTP layers
/// must be a multiple of them ([`source::MLA_MODEL_SPEC_NPREDICT_RAISE`]); with `n_predict` 0 the modulo itself
/// raises ([`source::MLA_DRAFTER_NPREDICT_MODULO`]). The `ValueError` is raised inside the pydantic dataclass
/// `SpeculativeConfig`, so vLLM shows pydantic's `ValidationError` around it (docs/source-notes/spec-decode.md §6.3);
/// qpath gives the inner `ValueError`, like [`source::SPEC_NO_MODEL_RAISE`]'s.
fn n_predict_check(r: Release, n_predict: Option<u32>, tokens: Option<u32>) -> Result<(), ScenarioError> {
    let (Some(k), Some(n)) = (n_predict, tokens) else {
        return Ok(());
    };
    if n <= k {
        return Ok(());
    }
    if k == 0 {
        return Err(error(
            ScenarioErrorKind::ZeroDivisionError,
            "integer modulo by zero",
            &source::MLA_DRAFTER_NPREDICT_MODULO,
            r,
        ));
    }
    if n % k != 0 {
        return Err(error(
            ScenarioErrorKind::ValueError,
            format!("num_speculative_tokens:{n} must be divisible by n_predict={k}"),
            &source::MLA_MODEL_SPEC_NPREDICT_RAISE,
            r,
        ));
    }
    Ok(())
}

/// The MTP layers of a DeepSeek-architecture target (`deepseek_mtp.py`; 0.29.0+ for DeepSeek-V3.2 / GLM-5 on CUDA
/// `vllm/models/deepseek_v32/nvidia/mtp.py`): `num_nextn_predict_layers` layers from index `num_hidden_layers`, each
/// a decoder layer of the target's attention class built with the draft config ([`ModelSpec::mtp_layer_specs`]),
/// named `model.layers.{num_hidden_layers + k}` (so `--kv-cache-dtype-skip-layers` matches that index).
fn deepseek_mtp_layers(
    r: Release,
    cmd: &ServeCommand,
    tokens: Option<u32>,
    draft: &ModelSpec,
    target: &ModelSpec,
    t: &mut Trace,
    notes: &mut Vec<Note>,
) -> Result<Option<ModelSpec>, ScenarioError> {
    if draft.id != target.id {
        notes.push(Note::limit(format!(
            "qpath cannot model this: an MTP drafter from another checkpoint ({}): vLLM takes the MTP layers' count \
             and start from the target's config and their attention from the draft's",
            draft.id
        )));
        return Ok(None);
    }
    if let Some(key) = overrides_reach_mtp(cmd) {
        notes.push(Note::limit(format!(
            "qpath cannot model this: --hf-overrides {key} with an MTP drafter: vLLM builds the draft config from the \
             checkpoint without the target's --hf-overrides, so the MTP layer's attention (and n_predict) would not \
             be the overridden target's, while its count, start and use_mla are"
        )));
        return Ok(None);
    }
    let Some(mtp) = target.mla.as_ref().and_then(|m| m.mtp) else {
        notes.push(Note::limit(format!(
            "qpath cannot model this: {} has no num_nextn_predict_layers attribute, which the MTP drafter reads",
            target.id
        )));
        return Ok(None);
    };
    n_predict_check(r, Some(mtp.count), tokens)?;
    let layers = target.mtp_layer_specs();
    let Some(first) = layers.first() else {
        return Ok(None);
    };
    let (arch, registry) = deepseek_mtp_architecture(r, draft);
    let v32_file = arch == "DeepseekV32MTPModel";
    let (file, start, block, block_class) = if v32_file {
        (
            "vllm/models/deepseek_v32/nvidia/mtp.py DeepseekV32MTP",
            &source::MLA_MODEL_V32_MTP_START,
            &source::MLA_DRAFTER_V32_MTP_BLOCK,
            "DeepseekV32DecoderLayer",
        )
    } else {
        (
            "deepseek_mtp.py DeepSeekMTP",
            &source::MLA_MODEL_MTP_START,
            &source::MLA_MODEL_MTP_BLOCK,
            "DeepseekV2DecoderLayer",
        )
    };
    t.step(Some(registry), "drafter model", format!("{arch} → {file}"));
    let names = mtp.names();
    t.step(
        Some(start),
        "drafter layers",
        format!(
            "the target's config: num_nextn_predict_layers = {} MTP layer(s) from index num_hidden_layers = {}: {names}",
            mtp.count, mtp.first
        ),
    );
    let attention = match first.mla {
        Some(d) => format!(
            "an MLA layer like the target's ({} query heads, one latent KV head, head size kv_lora_rank + \
             qk_rope_head_dim = {}{})",
            first.num_q_heads,
            first.head_dim,
            if d.sparse() { ", sparse" } else { "" }
        ),
        None => format!(
            "the target's non-MLA attention ({} query and KV heads of {})",
            first.num_q_heads, first.head_dim
        ),
    };
    t.step(
        Some(block),
        "drafter layer kind",
        format!(
            "each MTP layer's mtp_block is a {block_class} built with the draft config under the target's use_mla: \
             {attention}; {}.self_attn.attn, extract_layer_index = {}",
            mtp.prefix(0),
            mtp.first
        ),
    );
    if tokens.is_some_and(|n| n > mtp.count) {
        t.step(
            Some(&source::MLA_MODEL_MTP_STEP),
            "drafter layers",
            format!(
                "speculative step k runs layer {} + k % {}: the MTP layer(s) are re-run",
                mtp.first, mtp.count
            ),
        );
    }
    Ok(Some(drafter_spec(target, format!("{} (MTP)", target.id), layers)))
}

/// The MTP layers of a GLM-4.5 / 4.6 / 4.7 target (`glm4_moe_mtp.py`, the same file in every release 0.20.0-0.33.0
/// as far as its layers go): `hf_config_override` keys on `architectures[0] == "Glm4MoeForCausalLM"`, sets model_type
/// `glm4_moe_mtp`, `n_predict = num_nextn_predict_layers` and architectures `Glm4MoeMTPModel`, and keeps
/// `num_hidden_layers`; `Glm4MoeMultiTokenPredictor` builds `num_nextn_predict_layers` `Glm4MoeDecoderLayer`s (the
/// target's plain `Attention`: same heads, KV heads and head size, no window) named `model.layers.{n + k}` where n is
/// `num_hidden_layers` (`source::GLM_MTP_START`, `source::GLM_MTP_COUNT`), so `extract_layer_index` reads the index
/// after the target's layers.
fn glm_mtp_layers(
    r: Release,
    cmd: &ServeCommand,
    tokens: Option<u32>,
    draft: &ModelSpec,
    target: &ModelSpec,
    t: &mut Trace,
    notes: &mut Vec<Note>,
) -> Result<Option<ModelSpec>, ScenarioError> {
    if draft.id != target.id {
        notes.push(Note::limit(format!(
            "qpath cannot model this: an MTP drafter from another checkpoint ({}): vLLM builds glm4_moe_mtp.py's \
             layers from that checkpoint's config, which qpath reads only for the target",
            draft.id
        )));
        return Ok(None);
    }
    if let Some(key) = cmd.hf_overrides.as_ref().and_then(|o| o.keys().next()) {
        notes.push(Note::limit(format!(
            "qpath cannot model this: --hf-overrides ({key}, …) with GLM's MTP drafter: vLLM builds the draft config \
             from the checkpoint without the target's dict overrides, so the MTP layers' count and attention would be \
             the checkpoint's, not the overridden target's"
        )));
        return Ok(None);
    }
    let Some(count) = target.glm_nextn_layers else {
        notes.push(Note::limit(format!(
            "qpath cannot model this: {} has no num_nextn_predict_layers that qpath read",
            target.id
        )));
        return Ok(None);
    };
    n_predict_check(r, Some(count), tokens)?;
    let Some(first) = target.layers.iter().find(|l| l.kind.is_attention()) else {
        return Ok(None);
    };
    if count == 0 {
        notes.push(Note::limit(
            "qpath cannot model this: num_nextn_predict_layers = 0: glm4_moe_mtp.py builds no MTP layer and \
             Glm4MoeMTP's MoE set-up has no example layer",
        ));
        return Ok(None);
    }
    let mtp = MtpLayers {
        count,
        first: target.decoder_layers,
    };
    t.step(
        Some(&source::GLM_MTP_REGISTRY),
        "drafter model",
        "Glm4MoeMTPModel → glm4_moe_mtp.py Glm4MoeMTP",
    );
    let names = mtp.names();
    t.step(
        Some(&source::GLM_MTP_LAYERS),
        "drafter layers",
        format!(
            "Glm4MoeMultiTokenPredictor: num_nextn_predict_layers = {count} MTP layer(s) from index num_hidden_layers \
             = {}: {names}",
            mtp.first
        ),
    );
    t.step(
        Some(&source::GLM_MTP_BLOCK),
        "drafter layer kind",
        format!(
            "each MTP layer's mtp_block is a Glm4MoeDecoderLayer built with the draft config: the target's attention \
             ({} query heads, {} KV heads, head size {}), no window; {}.self_attn.attn, extract_layer_index = {}",
            first.num_q_heads,
            first.num_kv_heads,
            first.head_dim,
            mtp.prefix(0),
            mtp.first
        ),
    );
    if tokens.is_some_and(|n| n > count) {
        t.step(
            Some(&source::GLM_MTP_STEP),
            "drafter layers",
            format!(
                "speculative step k runs layer {} + k % {count}: the MTP layer(s) are re-run",
                mtp.first
            ),
        );
    }
    let layers = mtp
        .indices()
        .map(|index| LayerSpec {
            index,
            kind: AttentionKind::Full,
            sliding_window: None,
            ..first.clone()
        })
        .collect();
    Ok(Some(drafter_spec(target, format!("{} (MTP)", target.id), layers)))
}

/// The MTP layers of a Qwen3-Next target (`qwen3_next_mtp.py`): `num_nextn_predict_layers` (absent in the
/// checkpoints: 1) decoder layers built with `layer_type="full_attention"` and the target's attention shape, named
/// `mtp.layers.{i}` (so `extract_layer_index` reads i).
fn mtp_layers(r: Release, target: &ModelSpec, t: &mut Trace, notes: &mut Vec<Note>) -> Option<ModelSpec> {
    if target.vllm_model == VllmModel::Qwen3_5 {
        return qwen3_5_mtp_layers(target, t);
    }
    if target.vllm_model != VllmModel::Qwen3Next {
        notes.push(Note::limit(format!(
            "qpath cannot model this: the {} drafter's layers (qpath models Qwen3-Next's MTP layer)",
            mtp_model_type(r, target).unwrap_or("mtp")
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

/// The MTP layers of a Qwen3.5 target (`qwen3_5_mtp.py`, every release 0.20.0-0.33.0): built with the target's
/// VllmConfig, so from its text config: `getattr(config, "mtp_num_hidden_layers", 1)` `Qwen3_5DecoderLayer`s with
/// `layer_type="full_attention"` (the target's full-attention shape), named `mtp.layers.{i}`, so
/// `extract_layer_index` gives i (index 0 like the target's first layer).
fn qwen3_5_mtp_layers(target: &ModelSpec, t: &mut Trace) -> Option<ModelSpec> {
    let full = target.full_layers().next()?;
    let given = target.hybrid.as_ref().and_then(|h| h.mtp_layers);
    let n = given.unwrap_or(1);
    t.step(
        Some(&source::QWEN3_5_MTP_TYPES),
        "drafter config",
        format!(
            "hf_config_override: model_type {} → qwen3_5_mtp, architectures [\"{}\"]",
            target.model_type().unwrap_or("qwen3_5"),
            if target.model_type().is_some_and(|m| m.contains("moe")) {
                "Qwen3_5MoeMTP"
            } else {
                "Qwen3_5MTP"
            }
        ),
    );
    t.step(
        Some(&source::QWEN3_5_MTP_LAYERS),
        "drafter layers",
        match given {
            Some(n) => format!("Qwen3_5MTP: mtp_num_hidden_layers = {n} MTP layer(s) from the target's text config"),
            None => "Qwen3_5MTP: mtp_num_hidden_layers is not in the text config, so 1 MTP layer".to_string(),
        },
    );
    t.step(
        Some(&source::QWEN3_5_MTP_FULL),
        "drafter layer kind",
        format!(
            "{} Qwen3_5DecoderLayer with layer_type=\"full_attention\": the target's full-attention shape ({} query \
             heads, {} KV heads, head size {}), no window; extract_layer_index(\"mtp.layers.i\") = i",
            if n == 1 {
                "mtp.layers.0 is a".to_string()
            } else {
                format!("mtp.layers.0…{} are each a", n - 1)
            },
            full.num_q_heads,
            full.num_kv_heads,
            full.head_dim
        ),
    );
    let layers = (0..n.min(crate::model::MAX_LAYERS))
        .map(|i| LayerSpec {
            index: i,
            kind: AttentionKind::Full,
            sliding_window: None,
            ..full.clone()
        })
        .collect();
    Some(drafter_spec(target, format!("{} (MTP)", target.id), layers))
}

/// An EAGLE / EAGLE-3 head (`llama_eagle.py`, `llama_eagle3.py`): its own config's layers, named from
/// `start_layer_id = target_layer_num`, so the head's layer i has index `target layers + i`.
fn eagle_layers(method: &str, draft: &ModelSpec, target: &ModelSpec, t: &mut Trace) -> ModelSpec {
    let start = target.decoder_layers;
    // An MLA head (`Eagle3DeepseekV3ForCausalLM`, deepseek_eagle3.py) builds DeepseekV2MLAAttention layers whatever
    // use_mla says; a Llama-type head (llama_eagle3.py) standard attention.
    let mla_head = draft.layers.iter().any(|l| l.mla.is_some());
    let cite = match (method, mla_head) {
        ("eagle3", true) => &source::MLA_MODEL_EAGLE3_START,
        ("eagle3", false) => &source::EAGLE3_LLAMA_START_LAYER,
        _ => &source::EAGLE_LLAMA_START_LAYER,
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
    if mla_head {
        t.step(
            Some(&source::MLA_MODEL_EAGLE3_MLA_ATTN),
            "drafter layer kind",
            "each head layer is a DeepseekV2MLAAttention (MLA, the head's own dims) whatever the head config's use_mla",
        );
    } else if target.use_mla() {
        t.step(
            Some(&source::MLA_DRAFTER_ATTENTION_SELECT),
            "drafter layer kind",
            format!(
                "the head's layer is a standard Attention: get_attn_backend(use_mla=False) on an MLA target, so it \
                 selects among the non-MLA backends, under the target's model config ({})",
                target.id
            ),
        );
    }
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

/// The architectures that default to Model Runner V2 in 0.22.0-0.28.0 (`DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES`;
/// 0.29.0+ default every model to V2).
fn default_v2_architecture(r: Release, arch: &str) -> bool {
    // 0.22.x: {"Qwen3ForCausalLM"}; 0.23.0 adds Llama and Mistral (vllm.py:69@0.22.0, 69@0.23.0); 0.24.0 the MoE
    // ones; 0.25.0 drops the dense ones.
    let mut archs = Vec::new();
    if r >= Release::V0_24_0 {
        archs.extend(["DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM", "GraniteMoeForCausalLM"]);
    }
    if r < Release::V0_25_0 {
        archs.push("Qwen3ForCausalLM");
    }
    if r >= Release::V0_23_0 && r < Release::V0_25_0 {
        archs.extend(["LlamaForCausalLM", "MistralForCausalLM"]);
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

/// `_validate_v2_model_runner` when VLLM_USE_V2_MODEL_RUNNER=1 ([`source::V2_VALIDATE_RAISE`]): the features V2 does
/// not support raise a ValueError. qpath reads the speculative method's entry and (0.20.0-0.22.1, where any model
/// with inner state is unsupported) the hybrid models' `has_inner_state`; the message is
/// "VLLM_USE_V2_MODEL_RUNNER does not yet support: …" before 0.23.0, "Model Runner V2 does not yet support: …" after.
fn v2_validate(r: Release, target: &ModelSpec, method: &str) -> Result<(), ScenarioError> {
    let mut features = Vec::new();
    // 0.20.0-0.22.1: `if model_config.has_inner_state` (vllm.py:1791@0.20.0); 0.23.0+ only with the align cache mode,
    // which qpath does not read.
    if r < Release::V0_23_0 && target.hybrid.is_some() {
        features.push("hybrid/mamba models".to_string());
    }
    if let Some((feature, _)) = v2_unsupported(r, method) {
        features.push(feature);
    }
    if features.is_empty() {
        return Ok(());
    }
    let head = if r < Release::V0_23_0 {
        "VLLM_USE_V2_MODEL_RUNNER does not yet support: "
    } else {
        "Model Runner V2 does not yet support: "
    };
    Err(error(
        ScenarioErrorKind::ValueError,
        format!("{head}{}", features.join(", ")),
        &source::V2_VALIDATE_RAISE,
        r,
    ))
}

/// The speculative entry of `_get_v2_model_runner_unsupported_features` (0.20.0-0.21.0: of
/// `_validate_v2_model_runner`), per release.
fn v2_unsupported(r: Release, method: &str) -> Option<(String, &'static Cite)> {
    let spec_method = || (format!("speculative method '{method}'"), &source::V2_UNSUPPORTED_SPEC_METHOD);
    if r < Release::V0_30_0 {
        // 0.22.0+: ngram has its own entry (vllm.py:2001@0.22.0); before, it is one of the methods not in
        // ("eagle", "eagle3", "mtp") (vllm.py:1797@0.20.0).
        if r >= Release::V0_22_0 && (method == "ngram" || method == "ngram_gpu") {
            return Some(("ngram/ngram_gpu speculative decoding".into(), &source::V2_UNSUPPORTED_NGRAM));
        }
        // 0.22.0-0.23.0: ("eagle", "eagle3", "mtp") (vllm.py:2011@0.23.0); dflash from 0.24.0.
        let mut supported = vec!["eagle", "eagle3", "mtp"];
        if r >= Release::V0_24_0 {
            supported.push("dflash");
        }
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

/// `VllmConfig.use_v2_model_runner`: `VLLM_USE_V2_MODEL_RUNNER` wins (`=1` also validates the features V2 does not
/// support, [`v2_validate`]); else (0.22.0-0.28.0) only a default-V2 architecture (0.22.0-0.23.0: neither MoE nor
/// quantized), and (0.22.0+) only without a feature V2 does not support, of which qpath reads the speculative
/// method's. 0.20.0-0.21.0 have no such property: the worker runs V2 only under `VLLM_USE_V2_MODEL_RUNNER=1`.
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
    // 0.20.0-0.21.0: no `VllmConfig.use_v2_model_runner`; the worker takes `envs.VLLM_USE_V2_MODEL_RUNNER`
    // (`bool(int(os.getenv(..., "0")))`): Model Runner V2 is opt-in.
    if env == Some(true) {
        v2_validate(r, target, method)?;
    }
    if r < Release::V0_22_0 {
        let runner = if env == Some(true) { ModelRunner::V2 } else { ModelRunner::V1 };
        t.step(
            Some(&source::V2_WORKER_ENV),
            "model runner",
            match env {
                Some(v2) => format!("VLLM_USE_V2_MODEL_RUNNER={}: {runner:?}", u8::from(v2)),
                None => "VLLM_USE_V2_MODEL_RUNNER is unset (default \"0\"): the V1 model runner (Model Runner V2 is \
                         opt-in in this release)"
                    .to_string(),
            },
        );
        return Ok(runner);
    }
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
    // 0.22.0-0.23.0: `_is_default_v2_model_runner_model` also wants `not is_moe and not is_quantized`; the default-V2
    // architectures of these releases are dense, and qpath reads `is_quantized` from the checkpoint's
    // `quantization_config` and `--quantization`.
    if r < Release::V0_24_0 {
        let flag = cmd
            .unused
            .iter()
            .filter_map(|e| crate::serve::unused_option(r, e))
            .find(|o| o.flag == "--quantization" && o.value.as_deref().is_some_and(|v| v != "None"));
        let why = match (&target.checkpoint_kv, flag) {
            (Some(q), _) => Some(format!("the checkpoint's quantization_config (quant_method {:?})", q.method)),
            (None, Some(o)) => Some(format!("--quantization {}", o.value.unwrap_or_default())),
            (None, None) => None,
        };
        if let Some(why) = why {
            t.step(
                Some(&source::V2_DEFAULT_NOT_MOE_QUANTIZED),
                "model runner",
                format!("the model is quantized ({why}): not a default-V2 model, the V1 model runner"),
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
        // 0.22.x spells it "Model runner v2 … the v1 model runner" (vllm.py:509@0.22.0).
        let (v2, v1) = if r < Release::V0_23_0 {
            ("Model runner v2", "v1")
        } else {
            ("Model Runner V2", "V1")
        };
        t.warn(
            &source::V2_UNSUPPORTED_LOG,
            format!("{v2} does not yet support {feature}; using the {v1} model runner instead."),
        );
        return Ok(ModelRunner::V1);
    }
    t.step(
        Some(cite),
        "model runner",
        if r < Release::V0_24_0 {
            "a default-V2 architecture, not quantized (its dense architectures are not MoE), and no unsupported \
             speculative method: Model Runner V2 (qpath reads only the speculative entries of the features V2 does \
             not support)"
        } else if r < Release::V0_29_0 {
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
) -> Result<(Option<Backend>, String, bool), ScenarioError> {
    let spec_backend = match sc.attention_backend.as_deref().filter(|b| !b.eq_ignore_ascii_case("auto")) {
        None => None,
        Some(name) => Some(Backend::parse(name).ok_or_else(|| ScenarioError {
            kind: ScenarioErrorKind::InputError,
            message: format!(
                "qpath cannot model this: the speculative config's attention backend {name}: qpath models {}",
                Backend::modelled_list()
            ),
            source: None,
        })?),
    };
    if NO_ATTENTION.contains(&method) {
        return Ok((None, cmd.kv_cache_dtype.clone(), true));
    }
    let asked = Asked {
        target_forced,
        spec_backend,
        target_kv: cmd.kv_cache_dtype.clone(),
        spec_kv: sc.kv_cache_dtype.clone(),
    };
    let show = |b: Option<Backend>| b.map_or("auto (selected by priority)".to_string(), |b| b.name().to_string());
    let (backend, (kv, kv_from_target)) = match runner {
        // 0.20.x: `_create_draft_vllm_config` returns the target's VllmConfig (the speculative config has no
        // `attention_backend` before 0.21.0), so the drafter's layers select under the target's --attention-backend.
        ModelRunner::V1 if r < Release::V0_21_0 => {
            t.step(
                Some(&source::V1_DRAFT_CONFIG_INHERITED),
                "drafter backend",
                format!(
                    "V1 proposer (_create_draft_vllm_config): the drafter is built with the target's VllmConfig, so \
                     its backend is --attention-backend's: {}",
                    show(target_forced)
                ),
            );
            (
                target_forced,
                drafter_kv(
                    KvSource {
                        read_by: None,
                        default: &source::V1_DRAFT_CONFIG_INHERITED,
                    },
                    &asked,
                    t,
                ),
            )
        }
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
    Ok((backend, kv, kv_from_target))
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

/// The drafter's cache dtype, and whether it is the target's cache config's.
fn drafter_kv(from: KvSource, a: &Asked, t: &mut Trace) -> (String, bool) {
    match (&a.spec_kv, from.read_by) {
        (Some(kv), Some(cite)) => {
            t.step(
                Some(cite),
                "drafter cache dtype",
                format!("speculative config kv_cache_dtype: {kv}"),
            );
            (kv.clone(), false)
        }
        _ => {
            t.step(
                Some(from.default),
                "drafter cache dtype",
                format!("the target's cache config: {}", a.target_kv),
            );
            (a.target_kv.clone(), true)
        }
    }
}

/// V2 EAGLE / EAGLE-3 / MTP (`load_eagle_model`): the target's `VllmConfig`, so its forced backend and cache dtype;
/// the speculative config's `kv_cache_dtype` overrides from 0.26.0, its `attention_backend` from 0.30.0
/// (`apply_draft_overrides` from 0.31.0).
fn v2_eagle(r: Release, a: &Asked, t: &mut Trace) -> (Option<Backend>, (String, bool)) {
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
fn v2_draft_model(r: Release, a: &Asked, t: &mut Trace) -> (Option<Backend>, (String, bool)) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::Release::*;

    fn preset(r: Release, id: &str, overrides: Option<&str>) -> ModelSpec {
        let o: Option<serde_json::Map<String, serde_json::Value>> = overrides.map(|t| serde_json::from_str(t).unwrap());
        model::resolve_model_at(r, id, o.as_ref()).unwrap()
    }

    /// An MLA EAGLE-3 head (`Eagle3DeepseekV3ForCausalLM`, deepseek_eagle3.py): no public head is a preset, so a
    /// one-layer DeepSeek-V3 stands in for its config. Its layers stay MLA with the head's dims, named from the
    /// target's 61 layers, and the trace cites deepseek_eagle3.py.
    #[test]
    fn an_mla_eagle3_head_keeps_mla_layers_named_after_the_target() {
        for (r, start, attn) in [
            (
                V0_24_0,
                "vllm/model_executor/models/deepseek_eagle3.py:332",
                "vllm/model_executor/models/deepseek_eagle3.py:84",
            ),
            (
                V0_33_0,
                "vllm/model_executor/models/deepseek_eagle3.py:292",
                "vllm/model_executor/models/deepseek_eagle3.py:68",
            ),
        ] {
            let target = preset(r, "deepseek-ai/DeepSeek-V3", None);
            let head = preset(r, "deepseek-ai/DeepSeek-V3", Some(r#"{"num_hidden_layers": 1}"#));
            let mut t = Trace::new(r);
            let spec = eagle_layers("eagle3", &head, &target, &mut t);
            assert_eq!(spec.layers.len(), 1);
            let l = &spec.layers[0];
            assert_eq!((l.index, l.head_dim, l.num_kv_heads), (61, 576, 1));
            assert_eq!(l.mla, target.layers[0].mla);
            let sources: Vec<String> = t.steps.iter().filter_map(|s| s.source()).collect();
            assert_eq!(sources, vec![start, attn], "{r}");
        }
    }

    /// A Llama-type head on an MLA target says its layer selects among the non-MLA backends; on a non-MLA target it
    /// says nothing more.
    #[test]
    fn a_llama_eagle3_head_on_an_mla_target() {
        let r = V0_33_0;
        let head = preset(r, "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", None);
        let mut t = Trace::new(r);
        let spec = eagle_layers("eagle3", &head, &preset(r, "deepseek-ai/DeepSeek-V3", None), &mut t);
        assert_eq!((spec.layers[0].index, spec.layers[0].mla), (61, None));
        assert_eq!(
            t.steps.last().and_then(|s| s.source()).as_deref(),
            Some("vllm/model_executor/layers/attention/attention.py:350")
        );
        let mut t = Trace::new(r);
        eagle_layers("eagle3", &head, &preset(r, "meta-llama/Llama-3.1-8B-Instruct", None), &mut t);
        assert_eq!(t.steps.len(), 1);
    }

    #[test]
    fn n_predict_against_the_speculative_tokens() {
        let r = V0_33_0;
        for (k, n, outcome) in [
            (Some(1), Some(3), None),
            (Some(2), Some(2), None),
            (Some(2), Some(1), None),
            (Some(2), Some(4), None),
            (None, Some(3), None),
            (Some(2), None, None),
            (
                Some(2),
                Some(3),
                Some((
                    ScenarioErrorKind::ValueError,
                    "num_speculative_tokens:3 must be divisible by n_predict=2",
                )),
            ),
            (
                Some(0),
                Some(1),
                Some((ScenarioErrorKind::ZeroDivisionError, "integer modulo by zero")),
            ),
        ] {
            let got = n_predict_check(r, k, n).err();
            assert_eq!(
                got.as_ref().map(|e| (e.kind, e.message.as_str())),
                outcome,
                "n_predict {k:?}, tokens {n:?}"
            );
        }
    }

    #[test]
    fn which_targets_hf_config_override_makes_mtp() {
        let r = V0_33_0;
        for (id, ty) in [
            ("deepseek-ai/DeepSeek-V3", Some("deepseek_mtp")),
            ("deepseek-ai/DeepSeek-R1", Some("deepseek_mtp")),
            ("deepseek-ai/DeepSeek-V3.2", Some("deepseek_mtp")),
            ("zai-org/GLM-5", Some("deepseek_mtp")),
            ("moonshotai/Kimi-K2-Instruct", None),
            ("deepseek-ai/DeepSeek-V2-Lite", None),
            ("Qwen/Qwen3-Next-80B-A3B-Instruct", Some("qwen3_next_mtp")),
        ] {
            assert_eq!(mtp_model_type(r, &preset(r, id, None)), ty, "{id}");
        }
        // 0.29.0+: DeepSeek-V3.2 and GLM-5 get vllm/models/deepseek_v32's MTP model.
        let v32 = |r| deepseek_mtp_architecture(r, &preset(r, "deepseek-ai/DeepSeek-V3.2", None)).0;
        assert_eq!((v32(V0_28_0), v32(V0_29_0)), ("DeepSeekMTPModel", "DeepseekV32MTPModel"));
        assert_eq!(
            deepseek_mtp_architecture(V0_33_0, &preset(V0_33_0, "deepseek-ai/DeepSeek-V3", None)).0,
            "DeepSeekMTPModel"
        );
    }
}
