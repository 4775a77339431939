//! One scenario, end to end: the command line is parsed like the release parses it, the model's layers get their
//! skip-adjusted cache dtypes, each layer selects its backend, layers are grouped like vLLM groups them into attention
//! groups, and each group runs through its backend's rules ([`crate::backends`]).

use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;

use serde::Serialize;

use crate::attention::Backend;
use crate::backends::recurrent::RecurrentInputs;
use crate::backends::{is_quantized, Engine, GroupContext, LayerQuery};
use crate::capability::{ComputeCapability, CudaVersion};
use crate::dtype::TorchDtype;
use crate::gpu::{self, Gpu};
use crate::hybrid::{self, AttentionSide, HybridFlags};
use crate::model::{self, AttentionKind, LayerSpec, ModelSpec, ParsedConfig};
use crate::platform::Platform;
use crate::release::{FlashInfer, Release};
use crate::report::{
    GpuRef, GroupReport, GroupRole, LogLevel, LogRecord, ModelSummary, Note, Report, ScenarioError, ScenarioErrorKind, Verdict,
};
use crate::selection::{self, Selection};
use crate::serve::{self, ServeCommand};
use crate::source;
use crate::trace::Trace;

mod layers;
mod quantization;
mod recurrent;
mod speculative;

use layers::*;
use recurrent::*;
use speculative::*;

/// The hardware of a scenario: a GPU of the table, or a raw compute capability.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Hardware {
    Gpu(&'static Gpu),
    Capability(ComputeCapability),
}

impl Hardware {
    /// A GPU id of the table, or `X.Y`; the error names the input.
    pub fn parse(s: &str) -> Result<Hardware, String> {
        if let Some(g) = gpu::find(s.trim()) {
            return Ok(Hardware::Gpu(g));
        }
        match s.parse::<ComputeCapability>() {
            Ok(cc) => Ok(Hardware::Capability(cc)),
            Err(_) => Err(format!(
                "GPU `{s}` is neither an id of qpath's GPU table nor a compute capability X.Y"
            )),
        }
    }
}

/// Everything one answer depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub hardware: Hardware,
    pub release: Release,
    /// The CUDA version of the torch build.
    pub cuda: CudaVersion,
    /// TRTLLM cubins available (flashinfer-cubin installed or NVIDIA's artifactory reachable); `None` = the default,
    /// available ([`default_cubins`]). `VLLM_HAS_FLASHINFER_CUBIN=1` in the command line makes them available regardless.
    pub trtllm_cubins: Option<bool>,
    pub command_line: String,
    /// The model's `config.json` text (a file the CLI found or was given, one pasted into the page or passed to the
    /// JS API), read instead of the preset of the command line's model id; `None`: the preset or `--hf-overrides`.
    pub model_config: Option<String>,
    /// The speculative drafter's `config.json` text (an EAGLE head or a draft model the CLI found as a folder, in the
    /// HF cache or was given as a file), read instead of a preset of the speculative config's `"model"`; `None`: the
    /// presets.
    pub draft_model_config: Option<String>,
    /// The flashinfer-python release installed when it is not the one the release pins (users upgrade it); `None`:
    /// the pin ([`Release::flashinfer_pin`]). FlashInfer's rules and citations follow it.
    pub flashinfer: Option<FlashInfer>,
    /// The vLLM version as the user gave it when it is not a release qpath knows (a nightly `0.27.2rc1.dev77+g…`, a
    /// patch `0.31.1`): `release` is then the last known release at or before it, and the report's notes say so.
    pub vllm_version: Option<String>,
    /// The installed flashinfer-python as the user gave it when qpath does not model it (`0.6.15.post1`): `flashinfer`
    /// is then the newest modelled release at or below it, and the report's notes say so.
    pub flashinfer_version: Option<String>,
}

/// The torch CUDA version qpath assumes when none is given.
pub const DEFAULT_CUDA: CudaVersion = CudaVersion::new(12, 9);

/// TRTLLM cubins are available by default in every release: vLLM's `has_nvidia_artifactory()` is true when
/// flashinfer-cubin is installed (required up to 0.25.1, in the common images after) or NVIDIA's artifactory answers,
/// which any networked machine does. "Offline, no flashinfer-cubin" is a choice (`--trtllm-cubins no`), and then the
/// report carries vLLM's `Failed to connect to NVIDIA artifactory` warning.
pub fn default_cubins(_release: Release) -> bool {
    true
}

impl Scenario {
    pub fn new(hardware: Hardware, release: Release, command_line: impl Into<String>) -> Self {
        Scenario {
            hardware,
            release,
            cuda: DEFAULT_CUDA,
            trtllm_cubins: None,
            command_line: command_line.into(),
            model_config: None,
            draft_model_config: None,
            flashinfer: None,
            vllm_version: None,
            flashinfer_version: None,
        }
    }
}

fn scenario_error(
    kind: ScenarioErrorKind,
    message: impl Into<String>,
    cite: Option<&source::Cite>,
    release: Release,
) -> ScenarioError {
    ScenarioError {
        kind,
        message: message.into(),
        source: cite.and_then(|c| c.at(release)).map(|s| s.short()),
    }
}

/// A scenario's command line parsed once for its release, and its model's config.json shared ([`ParsedConfig`]: parsed
/// once, the model spec built once per release), for the features that resolve one scenario many times (the matrix,
/// the timeline, the fix finder): [`resolve_prepared`] reuses it instead of reading again.
#[derive(Clone, Debug)]
pub struct Prepared {
    release: Release,
    command_line: String,
    cmd: Result<ServeCommand, ScenarioError>,
    model_config: Option<Arc<ParsedConfig>>,
    draft_model_config: Option<Arc<ParsedConfig>>,
}

/// A scenario's config.json texts, each parsed at most once, shared by the scenarios of a multi-scenario command: the
/// model's and the speculative drafter's.
#[derive(Clone, Debug, Default)]
pub(crate) struct SharedConfigs {
    model: Option<Arc<ParsedConfig>>,
    draft: Option<Arc<ParsedConfig>>,
}

/// Parses `s`'s command line for its release (what [`resolve`] does first) and keeps its config.json texts for one
/// parse each.
pub fn prepare(s: &Scenario) -> Prepared {
    prepare_sharing(s, &shared_config(s))
}

/// [`prepare`] with the config.json texts already shared (`s.model_config` and `s.draft_model_config` are not read:
/// the caller's scenarios all have `configs`' texts).
pub(crate) fn prepare_sharing(s: &Scenario, configs: &SharedConfigs) -> Prepared {
    Prepared {
        release: s.release,
        command_line: s.command_line.clone(),
        cmd: parse_command(s),
        model_config: configs.model.clone(),
        draft_model_config: configs.draft.clone(),
    }
}

/// `s`'s config.json texts, to be shared by the scenarios of a multi-scenario command (whose scenarios then carry
/// neither text: a 16 MiB config is not copied per cell).
pub(crate) fn shared_config(s: &Scenario) -> SharedConfigs {
    let parsed = |t: &Option<String>| t.as_deref().map(|t| Arc::new(ParsedConfig::new(t)));
    SharedConfigs {
        model: parsed(&s.model_config),
        draft: parsed(&s.draft_model_config),
    }
}

impl SharedConfigs {
    /// The model's config.json, when the scenario has one.
    pub(crate) fn model(&self) -> Option<&ParsedConfig> {
        self.model.as_deref()
    }
}

/// `s` without its config.json texts (they are in [`SharedConfigs`]).
pub(crate) fn without_configs(s: &Scenario) -> Scenario {
    Scenario {
        model_config: None,
        draft_model_config: None,
        ..s.clone()
    }
}

/// [`resolve_prepared`] trusting `prepared` to be `s`'s (its config.json stands for `s.model_config`, which is not
/// read): the matrix's cells.
pub(crate) fn resolve_shared(s: &Scenario, prepared: &Prepared) -> Report {
    resolve_with(s, Some(prepared))
}

/// Resolves `s` with `configs` as its config.json texts (`s.model_config` and `s.draft_model_config` are not read),
/// sharing their parses and specs.
pub(crate) fn resolve_sharing(s: &Scenario, configs: &SharedConfigs) -> Report {
    resolve_with(s, Some(&prepare_sharing(s, configs)))
}

/// Resolves a scenario. Never panics; input errors become the report's `error`.
pub fn resolve(s: &Scenario) -> Report {
    resolve_with(s, None)
}

/// [`resolve`] with the command line `prepared` parsed and its config.json (when it is `s`'s release, command line
/// and config.json text; any other is ignored and `s` read as usual). The report is the one `resolve(s)` gives.
pub fn resolve_prepared(s: &Scenario, prepared: &Prepared) -> Report {
    let same_text = |text: &Option<String>, c: &Option<Arc<ParsedConfig>>| match (text, c) {
        (None, None) => true,
        (Some(text), Some(c)) => c.text() == text,
        _ => false,
    };
    let same_config =
        same_text(&s.model_config, &prepared.model_config) && same_text(&s.draft_model_config, &prepared.draft_model_config);
    let same = prepared.release == s.release && prepared.command_line == s.command_line && same_config;
    resolve_with(s, same.then_some(prepared))
}

/// Resolves `s` with `prepared` when given (its command line and config.json are `s`'s), else reads `s` once for
/// both passes (a downgrade's re-run reads nothing again).
fn resolve_with(s: &Scenario, prepared: Option<&Prepared>) -> Report {
    let own;
    let prepared = match prepared {
        Some(p) => p,
        None => {
            own = prepare(s);
            &own
        }
    };
    let r = s.release;
    let cc = match s.hardware {
        Hardware::Gpu(g) => g.capability_under(s.cuda),
        Hardware::Capability(cc) => cc,
    };
    // The report's header: built again (not cloned up front) in the rare re-run after a downgrade.
    let header = || {
        let (gpu_id, gpu_name) = match s.hardware {
            Hardware::Gpu(g) => (Some(g.id.to_string()), g.name.to_string()),
            Hardware::Capability(cc) => (None, format!("compute capability {cc}")),
        };
        let mut report = Report {
            vllm: r.name().to_string(),
            flashinfer: s.flashinfer.unwrap_or_else(|| r.flashinfer_pin()).name().to_string(),
            flashinfer_pinned: r.flashinfer().to_string(),
            gpu: GpuRef {
                id: gpu_id,
                name: gpu_name,
                compute_capability: cc.to_string(),
            },
            cuda: s.cuda.to_string(),
            trtllm_cubins: s.trtllm_cubins.unwrap_or_else(|| default_cubins(r)),
            error: None,
            model: None,
            groups: vec![],
            logs: vec![],
            notes: vec![],
            unused_flags: vec![],
            log_records: vec![],
            speculative: None,
            cuda_graphs: None,
            verdict: Verdict::Serves,
        };
        environment_notes(s, &mut report);
        report
    };
    let mut report = header();
    if let Err(e) = resolve_into(s, prepared, cc, &mut report, None) {
        report.error = Some(e);
    }
    // A downgrade that changes whether decodes are captured in full graphs changes which phase's error the engine
    // meets first: resolve again with the runner's mode (the warnings still come from the requested one).
    if let Some(resolved) = downgraded(&report) {
        report = header();
        if let Err(e) = resolve_into(s, prepared, cc, &mut report, Some(resolved)) {
            report.error = Some(e);
        }
    }
    report.verdict = Verdict::of(&report);
    report
}

/// The runner's mode when it differs from the command line's in whether decodes get full CUDA graphs.
fn downgraded(report: &Report) -> Option<crate::serve::CudaGraphs> {
    let cg = report.cuda_graphs.as_ref()?;
    let requested = crate::serve::CudaGraphs {
        mode: cg.requested.clone(),
        set_by: cg.set_by.clone(),
    };
    let resolved = crate::serve::CudaGraphs {
        mode: cg.mode.clone(),
        set_by: format!("resolved by the runner from {} ({})", cg.requested, cg.set_by),
    };
    (requested.full_decode() != resolved.full_decode()).then_some(resolved)
}

/// The phases of engine start-up in vLLM's order: the command line (argparse), the environment, the model config,
/// the forced attention backend, the platform, each layer's backend (`get_attn_backend` per `Attention` layer), the
/// KV-cache groups, and each group's metadata builder. The first phase that raises ends the scenario.
fn resolve_into(
    s: &Scenario,
    prepared: &Prepared,
    cc: ComputeCapability,
    report: &mut Report,
    resolved_graphs: Option<crate::serve::CudaGraphs>,
) -> Result<(), ScenarioError> {
    let r = s.release;
    let mut cmd = prepared.cmd.clone()?;
    report.unused_flags = cmd.unused.clone();
    let env = read_env(r, &cmd, report)?;
    let env_records = retired_env(r, &cmd, report)?;
    let (spec, model_dtype) = load_model(s, prepared.model_config.as_deref(), &cmd, cc, report)?;
    // --quantization against the checkpoint, the GPU and the dtype (ModelConfig / VllmConfig, config time).
    let config_text = prepared.model_config.as_deref().map(ParsedConfig::text);
    quantization::check(r, &spec, config_text, &cmd, cc, model_dtype)?;
    let cache_record = cache_dtype_record(r, &cmd.kv_cache_dtype);
    let checkpoint_logs = checkpoint_cache_dtype(r, &spec, &mut cmd, report);
    mla_cache_dtype(r, &spec, &cmd)?;
    let turboquant_logs = crate::backends::turboquant::engine_config(r, &spec, &mut cmd, report)?;
    let forced = forced_backend(r, &cmd)?;
    // A model with chunked local attention needs the method SpeculativeConfig settles on before its layers are built
    // (the hybrid KV-cache manager rule): its drafter is built here, once, and its errors are raised where every
    // other model's are (below).
    let early_drafter = spec
        .attention_chunk_size
        .map(|_| crate::drafter::drafter(r, &cmd, &spec, forced, prepared.draft_model_config.as_deref()));
    let method = match &early_drafter {
        Some(Ok(Some(d))) => Some(d.report.method.as_str()),
        _ => None,
    };
    let (hma_off, hma_record) = chunked_local_kv_manager(r, &cmd, &spec, method, report)?;
    gemma4_backend(r, &spec, forced)?;
    let mut p = platform(s, cc, &cmd, &env, model_dtype);
    p.resolved_graphs = resolved_graphs;
    p.attention_chunk_size = spec.attention_chunk_size;
    input_notes(&cmd, &spec, report);
    let checkpoint_set = report.model.as_ref().is_some_and(|m| m.checkpoint_kv_cache_dtype.is_some());
    model_init_assert(r, &spec)?;
    let rows = select_layers(&p, forced, &cmd, &spec, checkpoint_set)?;
    if let Some(kv) = rewritten_cache_dtype(&rows) {
        // An MLA layer's sparse backend wrote its cache format to cache_config.cache_dtype.
        p.global_kv = kv.to_string();
    }
    report.log_records = env_records;
    report.log_records.extend(cache_record);
    report.log_records.extend(checkpoint_records(r, &checkpoint_logs));
    report.log_records.extend(turboquant_logs);
    report.log_records.extend(hma_record);
    report.logs = report.log_records.iter().map(|l| l.text.clone()).collect();
    let selection = selection_logs(r, &rows);
    report.logs.extend(selection.iter().map(|l| l.text.clone()));
    report.log_records.extend(selection);
    let mut align_steps = mla_block_size(&mut p, &cmd, &rows, report)?;
    align_steps.extend(hybrid_alignment(&mut p, &cmd, &spec, &rows, report));
    let device = report.gpu.name.clone();
    let engine = Engine {
        attention_config: &cmd.attention_config,
        device: &device,
        hybrid: spec.hybrid.is_some(),
        checkpoint: spec.checkpoint_kv.as_ref(),
        fa_window_configs: fa_window_configs(r, &rows),
        drafter: false,
        unclamped_window: spec.has_unclamped_window(r),
    };
    let mut groups = attention_groups(&p, &cmd, &engine, &rows, &align_steps);
    if let Some(h) = &spec.hybrid {
        let layers: Vec<u32> = spec
            .layers
            .iter()
            .filter(|l| !l.kind.is_attention())
            .map(|l| l.index)
            .collect();
        if !layers.is_empty() {
            let g = recurrent_group(&p, (&cmd, &engine), h, layers, &align_steps);
            let at = groups
                .iter()
                .position(|x: &GroupReport| x.layers[0] > g.layers[0])
                .unwrap_or(groups.len());
            groups.insert(at, g);
        }
    }
    if let Some(g) = indexer_group(&p, &engine, &spec, &rows) {
        groups.push(g);
    }
    let n_spec = cmd
        .speculative_config
        .as_ref()
        .and_then(|s| s.num_speculative_tokens)
        .unwrap_or(0);
    for g in groups.iter_mut() {
        if g.backend == Backend::FlashInfer {
            spec_as_decode(&p, g, n_spec);
        } else if g.backend.is_mla() {
            let step = crate::backends::mla::path::spec_as_decode_step(g.backend, &p, g.num_q_heads, n_spec);
            g.trace.extend(step);
        }
    }
    let drafter = match early_drafter {
        Some(d) => d?,
        None => crate::drafter::drafter(r, &cmd, &spec, forced, prepared.draft_model_config.as_deref())?,
    };
    if let Some(d) = drafter {
        drafter_groups(&p, &cmd, &engine, d, &mut groups, report)?;
    }
    if let Some(why) = &hma_off {
        chunked_local_kv_groups(r, why, &spec, report);
    }
    crate::backends::turboquant::layout::layout_conflict(&p, &mut groups);
    cuda_graphs(&p, &cmd, &spec, n_spec, &mut groups, report)?;
    report.groups = groups;
    Ok(())
}

/// A model with chunked local attention layers (`ModelConfig.attention_chunk_size` set: Llama 4) and the hybrid
/// KV-cache manager (`VllmConfig.__post_init__`, the same rule in every release 0.24.0-0.33.0): with an EAGLE-style
/// speculative method (`use_eagle()`: eagle, eagle3, mtp, dflash, and from 0.25.0 dspark;
/// `source::HMA_CHUNKED_EAGLE`) or `VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0` (default 1; its warning,
/// `source::HMA_CHUNKED_ENV_WARNING`) vLLM turns the manager off, unless `--no-disable-hybrid-kv-cache-manager`
/// (0.33.0: `--enable-hybrid-kv-cache-manager`) forces it on, which raises (`source::HMA_EXPLICIT_ENABLE_RAISE`);
/// `--disable-hybrid-kv-cache-manager` turns it off in any case. Off, `unify_hybrid_kv_cache_specs` makes the chunked
/// layers' spec a full-attention spec with the chunk size and warns (`source::HMA_DISABLED_WARNING`): one KV-cache
/// group for every layer, which still compute chunked. On (the default), the chunked layers are their own group.
/// `method` is the speculative method the drafter settled on.
fn chunked_local_kv_manager(
    r: Release,
    cmd: &ServeCommand,
    spec: &ModelSpec,
    method: Option<&str>,
    report: &mut Report,
) -> Result<(Option<String>, Option<LogRecord>), ScenarioError> {
    if spec.attention_chunk_size.is_none() {
        return Ok((None, None));
    }
    let flag = "--disable-hybrid-kv-cache-manager";
    let mut explicit: Option<bool> = None;
    for entry in &cmd.unused {
        if let Some(o) = serve::unused_option_of(r, entry, &[flag]) {
            explicit = Some(o.option == flag);
        }
    }
    report
        .unused_flags
        .retain(|u| serve::unused_option_of(r, u, &[flag]).is_none());
    let eagle =
        matches!(method, Some("eagle" | "eagle3" | "mtp" | "dflash")) || (r >= Release::V0_25_0 && method == Some("dspark"));
    let name = "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE";
    let allowed = match cmd.env_value(name) {
        None => true,
        Some(v) => serve::py_int_bool(v).map_err(|e| {
            scenario_error(
                ScenarioErrorKind::ValueError,
                format!("{name}={v}: vLLM reads int(os.getenv(\"{name}\", \"1\")), and int() raises ValueError: {e}"),
                None,
                r,
            )
        })?,
    };
    let mut record = None;
    let need_disable = eagle || !allowed;
    if !eagle && !allowed {
        record = Some(LogRecord::new(
            LogLevel::Warning,
            &source::HMA_CHUNKED_ENV_WARNING,
            (r, r.flashinfer_pin()),
            "There is a latency regression when using chunked local attention with the hybrid KV cache manager. \
             Disabling it, by default. To enable it, set the environment \
             VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1.",
        ));
    }
    if explicit == Some(false) && need_disable {
        let spelled = if r >= Release::V0_33_0 {
            "--enable-hybrid-kv-cache-manager"
        } else {
            "--no-disable-hybrid-kv-cache-manager"
        };
        let text = format!(
            "Hybrid KV cache manager was explicitly enabled but is not supported in this configuration. Consider \
             omitting the {spelled} flag to let vLLM decide automatically."
        );
        return Err(vllm_config_error(r, cmd, &text, &source::HMA_EXPLICIT_ENABLE_RAISE));
    }
    if !explicit.unwrap_or(need_disable) {
        return Ok((None, record));
    }
    let why = match (explicit, eagle) {
        (Some(true), _) => flag.to_string(),
        (_, true) => format!("the speculative method {} (use_eagle())", method.unwrap_or("")),
        _ => format!("{name}=0"),
    };
    Ok((Some(why), record))
}

/// The hybrid KV-cache manager off for a model with chunked local attention ([`chunked_local_kv_manager`]):
/// `unify_hybrid_kv_cache_specs`' warning when the KV cache is planned (after the layers are built), and the note.
fn chunked_local_kv_groups(r: Release, why: &str, spec: &ModelSpec, report: &mut Report) {
    let cite = if r >= Release::V0_33_0 {
        &source::HMA_DISABLED_WARNING_PLANNING
    } else {
        &source::HMA_DISABLED_WARNING
    };
    let rec = LogRecord::new(
        LogLevel::Warning,
        cite,
        (r, r.flashinfer_pin()),
        "Hybrid KV cache manager is disabled for this hybrid model, This means we do not enable any optimizations for \
         saving KV cache memory (e.g., dropping the KV cache outside the sliding window). The compute of layers like \
         sliding window is still saved.",
    );
    report.logs.push(rec.text.clone());
    report.log_records.push(rec);
    report.notes.push(Note::info(format!(
        "{why} turns vLLM's hybrid KV-cache manager off: the chunked layers' ChunkedLocalAttentionSpec becomes a \
         FullAttentionSpec with attention_chunk_size {}, so vLLM allocates every attention layer in one KV-cache \
         group; the chunked layers still compute chunked local attention (their own group here)",
        spec.attention_chunk_size.unwrap_or(0)
    )));
}

/// `vllm serve`'s argparse (`FlexibleArgumentParser`): a command line it rejects is an `ArgumentError`; what the
/// engine's config construction raises after argparse (serve/engine.rs: `ValueError: …`, pydantic's
/// `pydantic_core._pydantic_core.ValidationError: …`) keeps its own exception type.
fn parse_command(s: &Scenario) -> Result<ServeCommand, ScenarioError> {
    let cmd = serve::parse(s.release, &s.command_line).map_err(|e| {
        const RAISED: [(&str, ScenarioErrorKind); 2] = [
            ("ValueError: ", ScenarioErrorKind::ValueError),
            (
                "pydantic_core._pydantic_core.ValidationError: ",
                ScenarioErrorKind::ValidationError,
            ),
        ];
        if let Some((body, kind)) = RAISED.iter().find_map(|(p, k)| e.message.strip_prefix(p).map(|b| (b, *k))) {
            return scenario_error(kind, body.to_string(), None, s.release);
        }
        let kind = if e.message.starts_with(serve::CANNOT_MODEL) {
            ScenarioErrorKind::InputError
        } else {
            ScenarioErrorKind::ArgumentError
        };
        scenario_error(kind, e.to_string(), None, s.release)
    })?;
    let cap = serve::limits::MAX_SKIP_LAYER_TOKENS;
    if cmd.kv_cache_dtype_skip_layers.len() > cap {
        return Err(scenario_error(
            ScenarioErrorKind::InputError,
            format!(
                "qpath cannot model this: more than {cap} --kv-cache-dtype-skip-layers tokens ({}; qpath's cap \
                 serve::limits::MAX_SKIP_LAYER_TOKENS)",
                cmd.kv_cache_dtype_skip_layers.len()
            ),
            None,
            s.release,
        ));
    }
    non_finite_overrides(&cmd).map_err(|m| scenario_error(ScenarioErrorKind::InputError, m, None, s.release))?;
    Ok(cmd)
}

/// `json.loads` reads `NaN`, `Infinity`, `-Infinity` (and `1e309`) as floats, and vLLM puts them on the config as
/// they are. Under a key qpath reads ([`model::LAYOUT_KEYS`], the dtype keys) qpath cannot tell what the model file
/// then does; under any other key (`rope_theta`, …) the float changes nothing qpath models.
fn non_finite_overrides(cmd: &ServeCommand) -> Result<(), String> {
    let Some(top) = &cmd.hf_overrides else { return Ok(()) };
    let read = |k: &str| model::LAYOUT_KEYS.contains(&k) || model::DTYPE_KEYS.contains(&k);
    let nested = top.get("text_config").and_then(|v| v.as_object());
    let levels = [("", Some(top)), ("text_config.", nested)];
    for (prefix, m) in levels.iter().filter_map(|(p, m)| m.map(|m| (p, m))) {
        for (k, v) in m.iter().filter(|(k, _)| read(k)) {
            if let Some(word) = serve::non_finite_of(v) {
                return Err(format!(
                    "qpath cannot model this: --hf-overrides {prefix}{k} = {word}: json.loads reads it as the float \
                     {}, which vLLM sets on the config as it is; qpath does not follow a non-finite {k} through the \
                     model file",
                    match word {
                        "NaN" => "nan",
                        "Infinity" => "inf",
                        _ => "-inf",
                    }
                ));
            }
        }
    }
    Ok(())
}

/// The environment variables that matter (`vllm/envs.py`, read as `bool(int(...))`, which raises `ValueError`).
struct Env {
    batch_invariant: bool,
    /// TRTLLM cubins available: the scenario's option, or `VLLM_HAS_FLASHINFER_CUBIN=1`.
    cubins: bool,
}

/// `VLLM_BATCH_INVARIANT` and `VLLM_HAS_FLASHINFER_CUBIN` (`vllm/envs.py`); the cubin flag is written back to the report.
fn read_env(r: Release, cmd: &ServeCommand, report: &mut Report) -> Result<Env, ScenarioError> {
    let env_bool = |name: &str| {
        cmd.env_flag(name)
            .map_err(|m| scenario_error(ScenarioErrorKind::ValueError, m, None, r))
    };
    let batch_invariant = env_bool("VLLM_BATCH_INVARIANT")?.unwrap_or(false);
    let cubin_env = env_bool("VLLM_HAS_FLASHINFER_CUBIN")?.unwrap_or(false);
    report.trtllm_cubins = cubin_env || report.trtllm_cubins;
    Ok(Env {
        batch_invariant,
        cubins: report.trtllm_cubins,
    })
}

/// Environment variables older vLLM read for FlashInfer, and the flag that replaced each. No release qpath models
/// (0.20.0 to 0.33.0) has them in `vllm/envs.py`'s `environment_variables` (checked per release), and none prints a
/// deprecation text for them.
pub const RETIRED_ENV: [(&str, &str); 3] = [
    (
        "VLLM_ATTENTION_BACKEND",
        "--attention-backend (e.g. --attention-backend FLASHINFER)",
    ),
    (
        "VLLM_USE_TRTLLM_ATTENTION",
        "--attention-config.use_trtllm_attention (true / false)",
    ),
    (
        "VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION",
        "--attention-config.disable_flashinfer_q_quantization true",
    ),
];

/// `validate_environ` (`EngineArgs.create_engine_config`, before the model config): a `VLLM_` variable the release does
/// not define is logged as unknown, or raised with `--fail-on-environ-validation`. qpath knows this for
/// [`RETIRED_ENV`] only, and adds a note naming the flag to use instead.
fn retired_env(r: Release, cmd: &ServeCommand, report: &mut Report) -> Result<Vec<LogRecord>, ScenarioError> {
    let (raise, log) = if r < Release::V0_31_0 {
        (&source::ENV_UNKNOWN_RAISE, &source::ENV_UNKNOWN_LOG)
    } else {
        (&source::PLATFORM_ENV_UNKNOWN_RAISE, &source::PLATFORM_ENV_UNKNOWN_LOG)
    };
    let hard_fail = cmd.unused.iter().rev().find_map(|w| match w.as_str() {
        "--fail-on-environ-validation" => Some(true),
        "--no-fail-on-environ-validation" => Some(false),
        _ => None,
    });
    let mut records = Vec::new();
    let mut seen = HashSet::new();
    for (name, _) in &cmd.env {
        let Some((_, flag)) = RETIRED_ENV.iter().find(|(n, _)| n == name) else {
            continue;
        };
        if !seen.insert(name.as_str()) {
            continue;
        }
        if hard_fail == Some(true) {
            return Err(scenario_error(
                ScenarioErrorKind::ValueError,
                format!("Unknown vLLM environment variable detected: {name}"),
                Some(raise),
                r,
            ));
        }
        report.notes.push(Note::info(format!(
            "{name}: vLLM {r} does not read it (it is not in vllm/envs.py's environment_variables; no release from \
             {} on reads it), so it changes nothing; use {flag}.",
            Release::ALL[0]
        )));
        records.push(LogRecord::new(
            LogLevel::Warning,
            log,
            (r, r.flashinfer_pin()),
            format!("Unknown vLLM environment variable detected: {name}"),
        ));
    }
    Ok(records)
}

/// `ModelConfig`: the model's layers (preset and `--hf-overrides`, under `VLLM_MLA_DISABLE` for a DeepSeek-architecture
/// model), its dtype (`_resolve_dtype` with `--dtype`), and `VllmConfig.__post_init__`'s
/// `ModelConfig.verify_with_parallel_config`: the attention heads must divide by the tensor-parallel size.
fn load_model(
    s: &Scenario,
    config: Option<&ParsedConfig>,
    cmd: &ServeCommand,
    cc: ComputeCapability,
    report: &mut Report,
) -> Result<(ModelSpec, TorchDtype), ScenarioError> {
    let r = s.release;
    let cap = serve::limits::MAX_CONFIG_JSON_BYTES;
    if let Some(text) = config.map(ParsedConfig::text).filter(|t| t.len() > cap) {
        return Err(scenario_error(
            ScenarioErrorKind::InputError,
            format!(
                "qpath cannot model this: config.json of {} has {} bytes, more than {cap} (qpath's cap \
                 serve::limits::MAX_CONFIG_JSON_BYTES)",
                cmd.model,
                text.len()
            ),
            None,
            r,
        ));
    }
    // `envs.VLLM_MLA_DISABLE` (`bool(int(...))`), read by `ModelConfig.use_mla` and `get_head_size` for the model types
    // of is_deepseek_mla's list: a value int() refuses is vLLM's ValueError for those models.
    let mla_disable = cmd.env_flag("VLLM_MLA_DISABLE");
    let env = model::ModelEnv {
        mla_disable: matches!(mla_disable, Ok(Some(true))),
    };
    let spec: ModelSpec = match config {
        Some(config) => config.resolve_model_in(
            r,
            env,
            &cmd.model,
            &format!("config.json of {}", cmd.model),
            cmd.hf_overrides.as_ref(),
        ),
        None => model::resolve_model_in(r, env, &cmd.model, cmd.hf_overrides.as_ref()),
    }
    .map_err(|e| scenario_error(ScenarioErrorKind::InputError, e.to_string(), None, r))?;
    if let (Some(_), Err(m)) = (&spec.mla, mla_disable) {
        return Err(scenario_error(ScenarioErrorKind::ValueError, m, None, r));
    }
    let model_dtype = model::resolve_dtype_on(r, &cmd.dtype, spec.config_dtype, spec.model_type(), cc)
        .map_err(|m| scenario_error(ScenarioErrorKind::ValueError, m, None, r))?;
    report.model = Some(ModelSummary {
        id: spec.id.clone(),
        dtype: model_dtype,
        num_layers: spec.decoder_layers,
        preset: spec.preset,
        config: spec.config_file.clone(),
        checkpoint_kv_cache_dtype: None,
    });
    let tp = cmd.tensor_parallel_size.max(1);
    if let Some(l) = spec.layers.first() {
        if l.num_q_heads % tp != 0 {
            let text = format!(
                "Total number of attention heads ({}) must be divisible by tensor parallel size ({tp}).",
                l.num_q_heads
            );
            return Err(vllm_config_error(r, cmd, &text, &source::MLA_MODEL_TP_HEADS_RAISE));
        }
    }
    Ok((spec, model_dtype))
}

/// A `ValueError` raised inside the pydantic dataclass `VllmConfig` (its `__post_init__`, or a
/// `model_validator(mode="after")`, which run in that order): pydantic re-raises it as `ValidationError`, whose text
/// (`str()`, without the "For further information visit …" line, which names the installed pydantic) ends with the
/// constructor's input shortened to its first 25 and last 24 characters: `create_engine_config` builds
/// `VllmConfig(model_config=…, …, shutdown_timeout=self.shutdown_timeout)` in every release 0.24.0-0.33.0, so the tail
/// is the repr of `'shutdown_timeout': N})` (`--shutdown-timeout`, default 0).
fn vllm_config_error(r: Release, cmd: &ServeCommand, text: &str, cite: &source::Cite) -> ScenarioError {
    let timeout = last_int_option(r, cmd, "--shutdown-timeout", "0");
    let message = args_kwargs_error("VllmConfig", "model_config", ("shutdown_timeout", &timeout), text);
    scenario_error(ScenarioErrorKind::ValidationError, message, Some(cite), r)
}

/// The last `flag` of the command line as `int()` reads it (its text as written when it is no int), else `default`.
fn last_int_option(r: Release, cmd: &ServeCommand, flag: &str, default: &str) -> String {
    cmd.unused
        .iter()
        .rev()
        .filter_map(|e| serve::unused_option_of(r, e, &[flag]))
        .find(|o| o.flag == flag)
        .and_then(|o| o.value)
        .map_or_else(
            || default.to_string(),
            |v| match crate::serve::python::py_int(&v) {
                Ok(Some(n)) => n.to_string(),
                _ => v.trim().to_string(),
            },
        )
}

/// pydantic's text for a `ValueError` raised while `class` is built (`__post_init__` / a model validator), which
/// pydantic re-raises as `ValidationError`: the input is the constructor's `ArgsKwargs((), {'first': …, …, 'last': N})`
/// repr, shortened to its first 25 and last 24 characters ([`serve::pydantic`]'s rule), so only the first keyword and
/// the last keyword's value show.
fn args_kwargs_error(class: &str, first: &str, (last, value): (&str, &str), text: &str) -> String {
    let head: String = format!("ArgsKwargs((), {{'{first}': ").chars().take(25).collect();
    let end = format!(", '{last}': {value}}})");
    let tail: String = end.chars().skip(end.chars().count().saturating_sub(24)).collect();
    format!(
        "1 validation error for {class}\n  Value error, {text} [type=value_error, input_value={head}...{tail}, \
         input_type=ArgsKwargs]"
    )
}

/// `VllmConfig.validate_nvfp4_kv_cache_with_mla` (a `model_validator(mode="after")`, [`source::MLA_MODEL_NVFP4_RAISE`]),
/// on the cache dtype after the checkpoint's (an NVFP4 ModelOpt checkpoint under `auto` reaches it too): an MLA model
/// refuses `nvfp4` (0.21.0-0.27.x; 0.20.x has no such validator), any `nvfp4*` (0.28.0+), except the `*_ds_mla`
/// layouts (0.30.0+), each release with its text.
fn mla_cache_dtype(r: Release, spec: &ModelSpec, cmd: &ServeCommand) -> Result<(), ScenarioError> {
    let kv = cmd.kv_cache_dtype.as_str();
    // 0.20.x has no validate_nvfp4_kv_cache_with_mla (vllm/config/vllm.py; added in 0.21.0, :1995@0.21.0).
    if r < Release::V0_21_0 {
        return Ok(());
    }
    let refused = if r < Release::V0_28_0 {
        kv == "nvfp4"
    } else if r < Release::V0_30_0 {
        kv.starts_with("nvfp4")
    } else {
        kv.starts_with("nvfp4") && !kv.ends_with("_ds_mla")
    };
    if !(refused && spec.use_mla()) {
        return Ok(());
    }
    let text = if r < Release::V0_30_0 {
        "nvfp4 KV cache is not supported with MLA (Multi-head Latent Attention) backends. Please use a different \
         --kv-cache-dtype (e.g., 'fp8' or 'auto') for MLA models such as DeepSeek."
    } else {
        "nvfp4 KV cache is not supported with MLA (Multi-head Latent Attention) backends. Please use a different \
         --kv-cache-dtype (e.g., 'fp8', 'auto', or 'nvfp4_ds_mla' with a sparse MLA backend) for MLA models such as \
         DeepSeek."
    };
    Err(vllm_config_error(r, cmd, text, &source::MLA_MODEL_NVFP4_RAISE))
}

/// The assert a DeepSeek-architecture model file fails while it builds layer 0 ([`model::InitAssert`]), before the
/// layer asks for a backend.
fn model_init_assert(r: Release, spec: &ModelSpec) -> Result<(), ScenarioError> {
    match spec.mla.as_ref().and_then(|m| m.init_assert) {
        Some(a) => Err(scenario_error(ScenarioErrorKind::AssertionError, a.message, Some(a.cite), r)),
        None => Ok(()),
    }
}

/// The KV cache dtype a checkpoint sets under `--kv-cache-dtype auto` (every release; before 0.22.0 a compressed-tensors
/// scheme under any `--kv-cache-dtype`): a ModelOpt
/// `kv_cache_quant_algo` / `kv_cache_scheme` through `resolve_kv_cache_dtype_string` when the engine config is built
/// ([`source::CHECKPOINT_KV_RESOLVE`], [`source::CHECKPOINT_KV_MODELOPT`]), a compressed-tensors `kv_cache_scheme` in
/// `Attention.__init__`, which also writes `cache_config.cache_dtype = "fp8"` ([`source::CHECKPOINT_KV_SCHEME`]). The
/// command's dtype becomes it for every later step (skip layers, selection, the builder). Returns vLLM's log lines.
fn checkpoint_cache_dtype(r: Release, spec: &ModelSpec, cmd: &mut ServeCommand, report: &mut Report) -> Vec<String> {
    let Some(kv) = &spec.checkpoint_kv else { return vec![] };
    // 0.20.0-0.21.0: `Attention.__init__` applies a compressed-tensors `kv_cache_scheme` whatever `--kv-cache-dtype`
    // says (attention.py:233@0.21.0 `if kv_cache_scheme is not None:`); 0.22.0 honours an explicit dtype
    // (attention.py:238@0.22.0 `... and kv_cache_dtype == "auto"`), [`source::CHECKPOINT_KV_SCHEME`].
    let overrides = r < Release::V0_22_0 && matches!(kv.scheme, model::KvScheme::CompressedTensors(_));
    if cmd.kv_cache_dtype != "auto" && !overrides {
        return vec![];
    }
    let given = cmd.kv_cache_dtype.clone();
    // resolve_kv_cache_dtype_string reads the checkpoint only under "auto"; its warning is the fallback's.
    let Some(dtype) = kv.cache_dtype.as_deref().filter(|d| *d != "auto") else {
        return kv.warning.iter().cloned().collect();
    };
    if given == dtype {
        // An explicit dtype the scheme sets anyway (0.20.0-0.21.0): nothing changes.
        return vec![];
    }
    let (cite, what) = match kv.scheme {
        model::KvScheme::CompressedTensors(_) => (&source::CHECKPOINT_KV_SCHEME, "Attention.__init__"),
        _ => (&source::CHECKPOINT_KV_RESOLVE, "resolve_kv_cache_dtype_string"),
    };
    let at = cite.at(r).map(|c| c.short()).unwrap_or_default();
    report.notes.push(Note::info(format!(
        "--kv-cache-dtype {given}: the checkpoint's {} makes vLLM use kv_cache_dtype \"{dtype}\" ({what}, {at}).",
        kv.field()
    )));
    if let Some(m) = report.model.as_mut() {
        m.checkpoint_kv_cache_dtype = Some(format!("{dtype}, from the checkpoint's {}", kv.field()));
    }
    cmd.kv_cache_dtype = dtype.to_string();
    vec![]
}

/// `_get_sliding_window_configs` ([`source::FA_BUILD_AOT_OFF_SW`]): the distinct windows of the layers whose impl is
/// a `FlashAttentionImpl` (a full-attention layer's is `(-1, -1)`, so "no window" counts as one config); from 0.31.0
/// also the FLASH_ATTN child of a TRITON_FLASH_ATTN composite (`get_impl_variants`).
fn fa_window_configs(r: Release, rows: &[LayerRow]) -> usize {
    let fa = |b: Backend| b == Backend::FlashAttn || (r >= Release::V0_31_0 && b == Backend::TritonFlashAttn);
    let mut windows: Vec<Option<u32>> = Vec::new();
    for row in rows.iter().filter(|row| fa(row.selection.backend)) {
        if !windows.contains(&row.layer.sliding_window) {
            windows.push(row.layer.sliding_window);
        }
    }
    windows.len()
}

/// `CacheConfig`'s `cache_dtype` validator (every release), as the engine config is built: a per-token-head cache
/// ([`source::CACHE_PTH_INFO`]) or any other quantized one ([`source::FA_CACHE_FP8_INFO`]) logs an info line on the
/// dtype as given (`--kv-cache-dtype`); it is the only line vLLM prints about the scales of a checkpoint without any.
fn cache_dtype_record(r: Release, kv: &str) -> Option<LogRecord> {
    let at = (r, r.flashinfer_pin());
    if kv.ends_with("per_token_head") {
        let text = format!(
            "Using {kv} data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. \
             Dynamic per-token-head scales will be computed at runtime."
        );
        return Some(LogRecord::new(LogLevel::Info, &source::CACHE_PTH_INFO, at, text));
    }
    crate::backends::is_quantized_kv_cache(r, kv).then(|| {
        let text = format!(
            "Using {kv} data type to store kv cache. It reduces the GPU memory footprint and boosts the performance. \
             Meanwhile, it may cause accuracy drop without a proper scaling factor"
        );
        LogRecord::new(LogLevel::Info, &source::FA_CACHE_FP8_INFO, at, text)
    })
}

/// `--attention-backend` and `--attention-config.backend` (`EngineArgs`: mutually exclusive; `auto` is no choice).
fn forced_backend(r: Release, cmd: &ServeCommand) -> Result<Option<Backend>, ScenarioError> {
    let backend_flag = cmd.attention_backend.as_deref().filter(|b| !b.eq_ignore_ascii_case("auto"));
    let backend_cfg = cmd
        .attention_config
        .backend
        .as_deref()
        .filter(|b| !b.eq_ignore_ascii_case("auto"));
    if cmd.attention_backend.is_some() && backend_cfg.is_some() {
        return Err(scenario_error(
            ScenarioErrorKind::ValueError,
            "attention_backend and attention_config.backend are mutually exclusive",
            Some(&source::ARGS_BACKEND_EXCLUSIVE),
            r,
        ));
    }
    match backend_flag.or(backend_cfg) {
        None => Ok(None),
        Some(name) => Backend::parse(name).map(Some).ok_or_else(|| {
            scenario_error(
                ScenarioErrorKind::InputError,
                // The backends qpath models that this release's AttentionBackendEnum has (TRITON_FLASH_ATTN only
                // from 0.30.0, TOKENSPEED_MLA from 0.21.0, …: data/vllm-enums.tsv).
                format!(
                    "qpath cannot model this: attention backend {name}: qpath models {}",
                    Backend::ATTENTION
                        .iter()
                        .map(|b| b.name())
                        .filter(|b| serve::backend_exists(r, b))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None,
                r,
            )
        }),
    }
}

/// gemma-4 with different head sizes on its sliding and full layers: `Gemma4Config.verify_and_update_config`
/// ([`source::GEMMA4_VERIFY_BACKEND`], every release) sets FA4 for all layers when FA4 is installed and no other
/// backend is forced, else forces TRITON_ATTN when no backend is forced. Whether FA4 is installed is outside what
/// qpath knows, so only a forced backend other than FLASH_ATTN (which neither branch changes) is modelled.
fn gemma4_backend(r: Release, spec: &ModelSpec, forced: Option<Backend>) -> Result<(), ScenarioError> {
    if spec.vllm_model != model::VllmModel::Gemma4 {
        return Ok(());
    }
    let sizes = spec.layers.iter().filter(|l| l.kind.is_attention()).map(|l| l.head_dim);
    let (lo, hi) = (sizes.clone().min().unwrap_or(0), sizes.max().unwrap_or(0));
    if lo == hi || forced.is_some_and(|b| b != Backend::FlashAttn) {
        return Ok(());
    }
    Err(scenario_error(
        ScenarioErrorKind::InputError,
        format!(
            "qpath cannot model this: --attention-backend {} on a gemma-4 model with head sizes {lo} and {hi}: vLLM's \
             Gemma4Config.verify_and_update_config then uses FA4 for all layers if FA4 is installed, else TRITON_ATTN \
             (without a forced backend), and qpath does not know whether FA4 is installed; force a backend (e.g. \
             --attention-backend FLASHINFER) to see that backend's answer",
            forced.map_or("unset", |b| b.name()),
        ),
        Some(&source::GEMMA4_VERIFY_BACKEND),
        r,
    ))
}

/// What `current_platform` and the engine config tell the attention code: the GPU, CUDA, cubins, the attention config.
fn platform(s: &Scenario, cc: ComputeCapability, cmd: &ServeCommand, env: &Env, model_dtype: TorchDtype) -> Platform {
    let r = s.release;
    Platform {
        release: r,
        flashinfer: s.flashinfer.unwrap_or_else(|| r.flashinfer_pin()),
        cc,
        cuda: s.cuda,
        cubins: env.cubins,
        batch_invariant: env.batch_invariant,
        model_dtype,
        force_trtllm: cmd.attention_config.use_trtllm_attention,
        disable_q_quant: cmd.attention_config.disable_flashinfer_q_quantization,
        flash_attn_version: cmd.attention_config.flash_attn_version.and_then(|v| u8::try_from(v).ok()),
        dcp: cmd.decode_context_parallel_size.max(1),
        page_size: page_size(r, cmd),
        global_kv: cmd.kv_cache_dtype.clone(),
        graphs: crate::serve::cuda_graphs(cmd),
        resolved_graphs: None,
        model_mla: None,
        attention_chunk_size: None,
    }
}

/// qpath's notes on the environment the scenario names: a vLLM version that is not a known release (a nightly, a
/// patch) and a FlashInfer other than the pin.
fn environment_notes(s: &Scenario, report: &mut Report) {
    let r = s.release;
    if let Some(given) = s.vllm_version.as_deref().filter(|v| *v != r.name()) {
        let newest = r == Release::LATEST
            && crate::release::Pep440::parse(given)
                .zip(crate::release::Pep440::parse(r.name()))
                .is_some_and(|(g, n)| !(g.at_or_after_final(&n) && n.at_or_after_final(&g)));
        let at_commit = crate::release::release_of_commit(given) == Some(r);
        // "0.27.1 (published 2026-08-11)": the day says how old the code qpath follows is.
        let shown = match r.published() {
            Some(day) => format!("{r} (published {day})"),
            None => r.to_string(),
        };
        report.notes.push(Note::info(if at_commit {
            format!(
                "vLLM {given} was built from {r}'s release commit ({}): qpath shows {r}, whose code it is",
                r.commit()
            )
        } else if newest {
            format!(
                "vLLM {given} is not a release qpath knows; qpath shows {shown}, the newest release it knows, which it \
                 follows: newer code may differ (qpath cannot model this: the source after {r})"
            )
        } else if crate::release::is_dev_build(given) {
            format!(
                "vLLM {given} is a development build, not a release qpath knows; qpath shows {shown}, the last \
                 release before it by version order, whose rules it follows: the build's code may be newer (qpath \
                 cannot model this: the commits after {r}'s release)"
            )
        } else {
            format!("vLLM {given} is not a release qpath knows; qpath shows {r}, the last release before it, whose code it runs")
        }));
    }
    let pin = r.flashinfer_pin();
    if let (Some(given), Some(fi)) = (s.flashinfer_version.as_deref(), s.flashinfer) {
        report.notes.push(Note::info(format!(
            "flashinfer-python {given} is not a release qpath models: its rules and source lines are those of {fi}, the \
             newest modelled release at or below it (qpath cannot model this: what changed in FlashInfer between {fi} \
             and {given})"
        )));
    }
    if let Some(fi) = s.flashinfer.filter(|f| *f != pin) {
        report.notes.push(Note::info(format!(
            "FlashInfer {fi} is installed, not the {pin} vLLM {r} pins: FlashInfer's own rules (fa2/fa3, its JIT asserts, \
             XQA limits) and their source lines follow {fi}; vLLM's attention code is {r}'s, which reads no FlashInfer version{}",
            if fi < pin {
                format!(" (qpath cannot model this: whether every FlashInfer function vLLM {r} calls exists in the older {fi})")
            } else {
                String::new()
            }
        )));
        // 0.32.0+: the worker compares flashinfer-python's version with flashinfer-cubin's and flashinfer-jit-cache's.
        if let Some(at) = source::UF_KERNELS_MISSING_WARN.at(r) {
            report.notes.push(Note::info(format!(
                "vLLM {r} warns at start-up (`warn_if_flashinfer_kernels_missing`, {}) when flashinfer-cubin or \
                 flashinfer-jit-cache is not at flashinfer-python's version ({fi}): \"FlashInfer's precompiled kernels are \
                 missing or do not match flashinfer-python %s (%s). FlashInfer then downloads and compiles kernels at \
                 startup, which can take several minutes, or fails to import mismatched ones. Run `vllm download-kernels` \
                 in this Python environment to install them.\"; qpath cannot model this: which of those packages \
                 are installed, and at which version",
                at.short()
            )));
        }
    }
}

/// `0-3, 5, 7` style.
pub fn short_list(layers: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < layers.len() {
        let start = layers[i];
        let mut end = start;
        while i + 1 < layers.len() && layers[i + 1] == end + 1 {
            i += 1;
            end = layers[i];
        }
        parts.push(if end == start {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(", ")
}
