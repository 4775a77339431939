//! One scenario, end to end: the command line is parsed like the release parses it, the model's layers get their
//! skip-adjusted cache dtypes, each layer selects its backend, layers are grouped like vLLM groups them into attention
//! groups, and each FlashInfer group runs through [`crate::builder`].

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::builder::{self, GroupSpec};
use crate::capability::{ComputeCapability, CudaVersion};
use crate::dtype::TorchDtype;
use crate::gpu::{self, Gpu};
use crate::hybrid::{self, AttentionSide, HybridFlags};
use crate::model::{self, AttentionKind, LayerSpec, ModelSpec};
use crate::platform::Platform;
use crate::release::{FlashInfer, Release};
use crate::report::{
    GpuRef, GroupReport, GroupRole, LogLevel, LogRecord, ModelSummary, Phases, Report, ScenarioError, ScenarioErrorKind,
};
use crate::selection::{self, Backend, LayerQuery, Selection, SelectionError};
use crate::serve::{self, ServeCommand};
use crate::source;
use crate::trace::Trace;

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
    /// The flashinfer-python release installed when it is not the one the release pins (users upgrade it); `None`:
    /// the pin ([`Release::flashinfer_pin`]). FlashInfer's rules and citations follow it.
    pub flashinfer: Option<FlashInfer>,
    /// The vLLM version as the user gave it when it is not a release qpath knows (a nightly `0.27.2rc1.dev77+g…`, a
    /// patch `0.31.1`): `release` is then the last known release at or before it, and the report's notes say so.
    pub vllm_version: Option<String>,
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
            flashinfer: None,
            vllm_version: None,
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

/// Resolves a scenario. Never panics; input errors become the report's `error`.
pub fn resolve(s: &Scenario) -> Report {
    let r = s.release;
    let (gpu_id, gpu_name, cc) = match s.hardware {
        Hardware::Gpu(g) => (Some(g.id.to_string()), g.name.to_string(), g.capability_under(s.cuda)),
        Hardware::Capability(cc) => (None, format!("compute capability {cc}"), cc),
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
    };
    environment_notes(s, &mut report);
    let first = report.clone();
    if let Err(e) = resolve_into(s, cc, &mut report, None) {
        report.error = Some(e);
    }
    // A downgrade that changes whether decodes are captured in full graphs changes which phase's error the engine
    // meets first: resolve again with the runner's mode (the warnings still come from the requested one).
    if let Some(resolved) = downgraded(&report) {
        let mut again = first;
        if let Err(e) = resolve_into(s, cc, &mut again, Some(resolved)) {
            again.error = Some(e);
        }
        return again;
    }
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
    cc: ComputeCapability,
    report: &mut Report,
    resolved_graphs: Option<crate::serve::CudaGraphs>,
) -> Result<(), ScenarioError> {
    let r = s.release;
    let mut cmd = parse_command(s)?;
    report.unused_flags = cmd.unused.clone();
    let env = read_env(r, &cmd, report)?;
    let env_records = retired_env(r, &cmd, report)?;
    let (spec, model_dtype) = load_model(s, &cmd, cc, report)?;
    let checkpoint_logs = checkpoint_cache_dtype(r, &spec, &mut cmd, report);
    let forced = forced_backend(r, &cmd)?;
    gemma4_backend(r, &spec, forced)?;
    let mut p = platform(s, cc, &cmd, &env, model_dtype);
    p.resolved_graphs = resolved_graphs;
    input_notes(&cmd, &spec, report);
    let checkpoint_set = report.model.as_ref().is_some_and(|m| m.checkpoint_kv_cache_dtype.is_some());
    let rows = select_layers(&p, forced, &cmd, &spec, checkpoint_set)?;
    report.log_records = env_records;
    report.log_records.extend(checkpoint_records(r, &checkpoint_logs));
    report.logs = report.log_records.iter().map(|l| l.text.clone()).collect();
    let selection = selection_logs(r, &rows);
    report.logs.extend(selection.iter().map(|l| l.text.clone()));
    report.log_records.extend(selection);
    let align_steps = hybrid_alignment(&mut p, &cmd, &spec, &rows, report);
    let mut groups = Vec::new();
    let device = report.gpu.name.clone();
    let engine = crate::backends::Engine {
        attention_config: &cmd.attention_config,
        device: &device,
        hybrid: spec.hybrid.is_some(),
    };
    for (key, layers) in group_layers(&rows) {
        let Some(row) = rows.iter().find(|row| row.layer.index == layers[0]) else {
            continue;
        };
        let mut g = group_report(&p, &cmd, key, layers, row, &align_steps);
        if g.backend != Backend::FlashInfer {
            crate::backends::init_checks(&p, &engine, &row.query, &mut g);
        }
        groups.push(g);
    }
    if let Some(h) = &spec.hybrid {
        let layers: Vec<u32> = spec
            .layers
            .iter()
            .filter(|l| !l.kind.is_attention())
            .map(|l| l.index)
            .collect();
        if !layers.is_empty() {
            let g = recurrent_group(r, h, layers, &align_steps);
            let at = groups
                .iter()
                .position(|x: &GroupReport| x.layers[0] > g.layers[0])
                .unwrap_or(groups.len());
            groups.insert(at, g);
        }
    }
    let n_spec = cmd
        .speculative_config
        .as_ref()
        .and_then(|s| s.num_speculative_tokens)
        .unwrap_or(0);
    for g in groups.iter_mut().filter(|g| g.backend == Backend::FlashInfer) {
        spec_as_decode(&p, g, n_spec);
    }
    if let Some(d) = crate::drafter::drafter(r, &cmd, &spec, forced)? {
        drafter_groups(&p, &cmd, &engine, d, &mut groups, report)?;
    }
    cuda_graphs(&p, &cmd, &spec, n_spec, &mut groups, report)?;
    report.groups = groups;
    Ok(())
}

/// The runner's `cudagraph_mode` once every group's backend is known (crate::cudagraph, drafter groups included):
/// each group's support, the downgrade warnings (logged at `initialize_kv_cache`, after the selection lines), and
/// vLLM's ValueError when full graphs meet a backend that never supports them.
fn cuda_graphs(
    p: &Platform,
    cmd: &ServeCommand,
    spec: &ModelSpec,
    n_spec: u32,
    groups: &mut [GroupReport],
    report: &mut Report,
) -> Result<(), ScenarioError> {
    let tp = cmd.tensor_parallel_size.max(1);
    let model_q_heads = spec
        .layers
        .iter()
        .find(|l| l.kind.is_attention())
        .map_or(0, |l| l.num_q_heads / tp);
    let cg = crate::cudagraph::resolve(p, groups, model_q_heads, n_spec, false);
    for (g, s) in groups.iter_mut().zip(&cg.group_support) {
        g.cudagraph_support = *s;
    }
    report.logs.extend(cg.log_records.iter().map(|l| l.text.clone()));
    report.log_records.extend(cg.log_records.iter().cloned());
    if let Some(e) = &cg.error {
        return Err(e.clone());
    }
    report.cuda_graphs = Some(cg);
    Ok(())
}

/// The drafter's layers (crate::drafter) selected and grouped like the target's, under the drafter's own backend and
/// cache dtype, after the target's groups (`role: drafter`). Its config-time warnings (the `SpeculativeConfig` and
/// the model runner choice) come before every selection log line; its selection lines are `info_once`, so only new
/// texts are added.
fn drafter_groups(
    p: &Platform,
    cmd: &ServeCommand,
    engine: &crate::backends::Engine,
    d: crate::drafter::Drafter,
    groups: &mut Vec<GroupReport>,
    report: &mut Report,
) -> Result<(), ScenarioError> {
    let r = p.release;
    report.notes.extend(d.notes.iter().cloned());
    let mut records = d.report.log_records.clone();
    records.append(&mut report.log_records);
    report.log_records = records;
    let mut logs: Vec<String> = d.report.log_records.iter().map(|l| l.text.clone()).collect();
    logs.append(&mut report.logs);
    report.logs = logs;
    if let Some(dspec) = &d.model {
        let mut dcmd = cmd.clone();
        dcmd.kv_cache_dtype = d.report.kv_cache_dtype.clone();
        let rows = select_layers(p, d.forced, &dcmd, dspec, false)?;
        for rec in selection_logs(r, &rows) {
            if !report.log_records.iter().any(|l| l.text == rec.text) {
                report.logs.push(rec.text.clone());
                report.log_records.push(rec);
            }
        }
        for (key, layers) in group_layers(&rows) {
            let Some(row) = rows.iter().find(|row| row.layer.index == layers[0]) else {
                continue;
            };
            let mut g = group_report(p, &dcmd, key, layers, row, &[]);
            if g.backend != Backend::FlashInfer {
                crate::backends::init_checks(p, engine, &row.query, &mut g);
            }
            g.role = GroupRole::Drafter;
            let mut head = d.report.trace.clone();
            if g.backend == Backend::FlashInfer && d.report.kv_cache_dtype != cmd.kv_cache_dtype {
                head.push(drafter_builder_step(r, d.report.runner, &cmd.kv_cache_dtype));
            }
            g.trace.splice(0..0, head);
            groups.push(g);
        }
    }
    report.speculative = Some(d.report);
    Ok(())
}

/// The drafter's metadata builder reads the global cache dtype from the config it is built with: the V1 proposer
/// builds it with the target's `VllmConfig` ([`source::V1_DRAFT_METADATA_BUILDERS`]), so a drafter cache dtype set by
/// the speculative config meets the target's `--kv-cache-dtype` there. V2 is not read line by line: a prediction.
fn drafter_builder_step(r: Release, runner: crate::drafter::ModelRunner, target_kv: &str) -> crate::report::TraceStep {
    let mut t = Trace::new(r);
    let text = format!(
        "the drafter's FlashInfer metadata builder is created with the target's VllmConfig, so its global cache dtype \
         is the target's --kv-cache-dtype {target_kv}, not the drafter's"
    );
    match runner {
        crate::drafter::ModelRunner::V1 => t.step(Some(&source::V1_DRAFT_METADATA_BUILDERS), "drafter metadata builder", text),
        crate::drafter::ModelRunner::V2 => t.unverified(format!("V2 runner: {text} (as the V1 proposer does)")),
    }
    t.steps.remove(0)
}

/// `_init_reorder_batch_threshold(1, supports_spec_as_decode=…)` in `FlashInferMetadataBuilder.__init__`
/// ([`source::FI_REORDER_THRESHOLD`]): with speculative decoding, requests of up to 1 + num_speculative_tokens query
/// tokens count as decodes when the decode kernel takes several query tokens — 0.24.0 `can_use_trtllm` (trtllm-gen);
/// 0.25.0-0.27.0 TRTLLM_GEN; 0.28.0-0.29.0 TRTLLM_GEN or the SM12x dedicated XQA; 0.30.0-0.32.0 any TRTLLM-API kernel;
/// 0.33.0 also the FA2 native decode (CC < 9.0); never under DCP. Otherwise a verification request is a prefill.
fn spec_as_decode(p: &Platform, g: &mut GroupReport, n: u32) {
    if n == 0 {
        return;
    }
    let r = p.release;
    let decode = g.kernel.decode;
    let trtllm_api = matches!(decode, Some(crate::report::Kernel::TrtllmGen | crate::report::Kernel::Xqa));
    let supports = if r < Release::V0_28_0 {
        decode == Some(crate::report::Kernel::TrtllmGen)
    } else if r < Release::V0_30_0 {
        decode == Some(crate::report::Kernel::TrtllmGen) || (p.is_family(120) && decode == Some(crate::report::Kernel::Xqa))
    } else if r < Release::V0_33_0 {
        trtllm_api
    } else {
        trtllm_api || p.cc.major < 9
    };
    let supports = supports && p.dcp <= 1;
    let outcome = if supports {
        format!(
            "reorder_batch_threshold = 1 + {n}: a verification request of up to {} query tokens is a decode ({})",
            n + 1,
            decode.map_or("native", |k| k.name())
        )
    } else {
        format!(
            "reorder_batch_threshold = 1 (the decode kernel {} takes one query token{}): a verification request of {} \
             query tokens is a prefill, run by the prefill path ({})",
            decode.map_or("native", |k| k.name()),
            if p.dcp > 1 { ", and DCP > 1" } else { "" },
            n + 1,
            g.kernel.prefill.map_or("native", |k| k.name())
        )
    };
    let at = source::FI_REORDER_THRESHOLD.at(r);
    g.trace.push(crate::report::TraceStep {
        rule: "speculative decoding".into(),
        outcome,
        source: at.as_ref().map(|s| s.short()),
        url: at.map(|s| s.url),
        unverified: false,
    });
}

/// A hybrid model: the block size aligned to the recurrent state page (crate::hybrid), whose kernel block is the page
/// the attention groups' FlashInfer sees; its config and alignment log lines go around the selection's. Returns the
/// alignment's trace steps (empty for a model without recurrent layers).
fn hybrid_alignment(
    p: &mut Platform,
    cmd: &ServeCommand,
    spec: &ModelSpec,
    rows: &[LayerRow],
    report: &mut Report,
) -> Vec<crate::report::TraceStep> {
    let (Some(h), Some(first)) = (&spec.hybrid, rows.first()) else {
        return Vec::new();
    };
    report.unused_flags.retain(|f| !HybridFlags::consumes(f));
    let side = AttentionSide {
        backend: first.selection.backend,
        q_heads: first.layer.num_q_heads,
        kv_heads: first.layer.num_kv_heads,
        head_dim: first.layer.head_dim,
    };
    let a = hybrid::align(p, cmd, h, &side);
    let mut logs: Vec<String> = a.config_logs.iter().map(|l| l.text.clone()).collect();
    logs.append(&mut report.logs);
    logs.extend(a.trace.logs);
    report.logs = logs;
    let mut records = a.config_logs;
    records.append(&mut report.log_records);
    records.extend(a.trace.records);
    report.log_records = records;
    if let Some(why) = a.unmodelled {
        report.notes.push(why);
    } else {
        p.page_size = a.kernel_block_size;
    }
    a.trace.steps
}

/// A hybrid model's recurrent layers as one group: their kind, the `MambaAttentionBackendEnum` backend their
/// `mamba_type` names (no `--attention-backend` applies), no query dtype or kernel, and their state page.
fn recurrent_group(r: Release, h: &model::HybridSpec, layers: Vec<u32>, align_steps: &[crate::report::TraceStep]) -> GroupReport {
    let mut t = Trace::new(r);
    recurrent_layer_steps(r, h, &layers, &mut t);
    recurrent_backend_steps(h, &mut t);
    let mut trace = t.steps;
    const STATE_STEPS: [&str; 10] = [
        "prefix caching",
        "mamba cache mode",
        "NemotronH mamba_ssm_cache_dtype",
        "NemotronH log",
        "get_mamba_state_dtype_from_config",
        "get_mamba_state_shape_from_config",
        "mamba state dtypes",
        "mamba state shape",
        "mamba page size",
        "mamba page padded",
    ];
    trace.extend(align_steps.iter().filter(|s| STATE_STEPS.contains(&s.rule.as_str())).cloned());
    GroupReport {
        layers,
        attention: h.kind,
        sliding_window: None,
        head_dim: 0,
        num_q_heads: 0,
        num_kv_heads: 0,
        has_sinks: false,
        backend: h.backend,
        cache_dtype: "auto".to_string(),
        q_dtype: Phases::default(),
        kernel: Phases::default(),
        error: None,
        phase_errors: Phases::default(),
        warnings: vec![],
        logs: vec![],
        log_records: vec![],
        trace,
        role: GroupRole::Target,
        cudagraph_support: None,
    }
}

/// The model file's recurrent layers (`layer_types` / `hybrid_override_pattern`): which layers, of which kind, from
/// which rule.
fn recurrent_layer_steps(r: Release, h: &model::HybridSpec, layers: &[u32], t: &mut Trace) {
    let (layer_cite, kind_text) = match h.model {
        model::VllmModel::NemotronH => (
            &source::NEMOTRONH_LAYER_TYPE,
            "`M`: NemotronHMambaDecoderLayer (a Mamba2 mixer)",
        ),
        _ => (
            &source::QWEN3NEXT_LAYER_TYPE,
            "\"linear_attention\": a gated delta net (linear attention)",
        ),
    };
    if h.model == model::VllmModel::Qwen3Next && h.layers_rule.starts_with("no layer_types") {
        if r < Release::V0_32_0 {
            t.step(
                Some(&source::QWEN3NEXT_CONFIG_LAYER_TYPES),
                "layer_types",
                "config.json has none: vLLM's Qwen3NextConfig builds \"linear_attention\" if (i + 1) % 4 else \
                 \"full_attention\"",
            );
        } else {
            t.step(
                None,
                "layer_types",
                "config.json has none: 0.32.0+ use transformers' Qwen3NextConfig, which builds \"linear_attention\" if \
                 (i + 1) % full_attention_interval else \"full_attention\" (interval default 4; transformers 5.16.1 \
                 models/qwen3_next/configuration_qwen3_next.py:131-136)",
            );
        }
    }
    t.step(
        Some(layer_cite),
        "recurrent layers",
        format!("layers {} are {kind_text}, from {}", short_list(layers), h.layers_rule),
    );
}

/// The recurrent layers' backend: `mamba_type`, then `get_mamba_attn_backend`.
fn recurrent_backend_steps(h: &model::HybridSpec, t: &mut Trace) {
    t.step(
        Some(if h.backend == Backend::Mamba2 {
            &source::MAMBA_TYPE_MAMBA2
        } else {
            &source::MAMBA_TYPE_GDN
        }),
        "mamba_type",
        format!("MambaAttentionBackendEnum.{}", h.backend.name()),
    );
    t.step(
        Some(&source::MAMBA_LAYER_BACKEND),
        format!("backend {}", h.backend.name()),
        "get_mamba_attn_backend(self.mamba_type): fixed by the layer type; --attention-backend and the attention \
         priority list do not apply. A recurrent state per request, no KV cache: no query dtype, no FlashInfer kernel",
    );
}

/// `vllm serve`'s argparse (`FlexibleArgumentParser`): a command line it rejects is an `ArgumentError`.
fn parse_command(s: &Scenario) -> Result<ServeCommand, ScenarioError> {
    let cmd = serve::parse(s.release, &s.command_line).map_err(|e| {
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
/// (0.24.0 to 0.33.0) has them in `vllm/envs.py`'s `environment_variables` (checked per release), and none prints a
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
        report.notes.push(format!(
            "{name}: vLLM {r} does not read it (it is not in vllm/envs.py's environment_variables; no release from \
             0.24.0 on reads it), so it changes nothing; use {flag}."
        ));
        records.push(LogRecord::new(
            LogLevel::Warning,
            log,
            (r, r.flashinfer_pin()),
            format!("Unknown vLLM environment variable detected: {name}"),
        ));
    }
    Ok(records)
}

/// `ModelConfig`: the model's layers (preset and `--hf-overrides`), its dtype (`_resolve_dtype` with `--dtype`), and
/// `ParallelConfig`'s check that the attention heads divide by the tensor-parallel size.
fn load_model(
    s: &Scenario,
    cmd: &ServeCommand,
    cc: ComputeCapability,
    report: &mut Report,
) -> Result<(ModelSpec, TorchDtype), ScenarioError> {
    let r = s.release;
    let cap = serve::limits::MAX_CONFIG_JSON_BYTES;
    if let Some(text) = s.model_config.as_ref().filter(|t| t.len() > cap) {
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
    let spec: ModelSpec = match &s.model_config {
        Some(text) => model::resolve_model_from_config(
            r,
            &cmd.model,
            &format!("config.json of {}", cmd.model),
            text,
            cmd.hf_overrides.as_ref(),
        ),
        None => model::resolve_model_at(r, &cmd.model, cmd.hf_overrides.as_ref()),
    }
    .map_err(|e| scenario_error(ScenarioErrorKind::InputError, e.to_string(), None, r))?;
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
            return Err(scenario_error(
                ScenarioErrorKind::ValueError,
                format!(
                    "Total number of attention heads ({}) must be divisible by tensor parallel size ({tp}).",
                    l.num_q_heads
                ),
                None,
                r,
            ));
        }
    }
    Ok((spec, model_dtype))
}

/// The KV cache dtype a checkpoint sets under `--kv-cache-dtype auto` (every release 0.24.0 to 0.33.0): a ModelOpt
/// `kv_cache_quant_algo` / `kv_cache_scheme` through `resolve_kv_cache_dtype_string` when the engine config is built
/// ([`source::CHECKPOINT_KV_RESOLVE`], [`source::CHECKPOINT_KV_MODELOPT`]), a compressed-tensors `kv_cache_scheme` in
/// `Attention.__init__`, which also writes `cache_config.cache_dtype = "fp8"` ([`source::CHECKPOINT_KV_SCHEME`]). The
/// command's dtype becomes it for every later step (skip layers, selection, the builder). Returns vLLM's log lines.
fn checkpoint_cache_dtype(r: Release, spec: &ModelSpec, cmd: &mut ServeCommand, report: &mut Report) -> Vec<String> {
    let Some(kv) = &spec.checkpoint_kv else { return vec![] };
    if cmd.kv_cache_dtype != "auto" {
        return vec![];
    }
    // resolve_kv_cache_dtype_string reads the checkpoint only under "auto"; its warning is the fallback's.
    let Some(dtype) = kv.cache_dtype.as_deref().filter(|d| *d != "auto") else {
        return kv.warning.iter().cloned().collect();
    };
    let (cite, what) = match kv.scheme {
        model::KvScheme::CompressedTensors(_) => (&source::CHECKPOINT_KV_SCHEME, "Attention.__init__"),
        _ => (&source::CHECKPOINT_KV_RESOLVE, "resolve_kv_cache_dtype_string"),
    };
    let at = cite.at(r).map(|c| c.short()).unwrap_or_default();
    report.notes.push(format!(
        "--kv-cache-dtype auto: the checkpoint's {} makes vLLM use kv_cache_dtype \"{dtype}\" ({what}, {at}).",
        kv.field()
    ));
    if let Some(m) = report.model.as_mut() {
        m.checkpoint_kv_cache_dtype = Some(format!("{dtype}, from the checkpoint's {}", kv.field()));
    }
    cmd.kv_cache_dtype = dtype.to_string();
    vec![]
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
                format!(
                    "qpath cannot model this: attention backend {name}: qpath models FLASH_ATTN, FLASHINFER, \
                     TRITON_ATTN, FLEX_ATTENTION, TURBOQUANT"
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
        dcp: cmd.decode_context_parallel_size.max(1),
        page_size: page_size(r, cmd),
        global_kv: cmd.kv_cache_dtype.clone(),
        graphs: crate::serve::cuda_graphs(cmd),
        resolved_graphs: None,
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
        report.notes.push(if newest {
            format!(
                "vLLM {given} is not a release qpath knows; qpath shows {r}, the newest release it knows, which it \
                 follows: newer code may differ (qpath cannot model this: the source after {r})"
            )
        } else {
            format!("vLLM {given} is not a release qpath knows; qpath shows {r}, the last release before it, whose code it runs")
        });
    }
    let pin = r.flashinfer_pin();
    if let Some(fi) = s.flashinfer.filter(|f| *f != pin) {
        report.notes.push(format!(
            "FlashInfer {fi} is installed, not the {pin} vLLM {r} pins: FlashInfer's own rules (fa2/fa3, its JIT asserts, \
             XQA limits) and their source lines follow {fi}; vLLM's attention code is {r}'s, which reads no FlashInfer version{}",
            if fi < pin {
                format!(" (qpath cannot model this: whether every FlashInfer function vLLM {r} calls exists in the older {fi})")
            } else {
                String::new()
            }
        ));
        // 0.32.0+: the worker compares flashinfer-python's version with flashinfer-cubin's and flashinfer-jit-cache's.
        if let Some(at) = source::UF_KERNELS_MISSING_WARN.at(r) {
            report.notes.push(format!(
                "vLLM {r} warns at start-up (`warn_if_flashinfer_kernels_missing`, {}) when flashinfer-cubin or \
                 flashinfer-jit-cache is not at flashinfer-python's version ({fi}): \"FlashInfer's precompiled kernels are \
                 missing or do not match flashinfer-python %s (%s). FlashInfer then downloads and compiles kernels at \
                 startup, which can take several minutes, or fails to import mismatched ones. Run `vllm download-kernels` \
                 in this Python environment to install them.\"; qpath cannot model this: which of those packages \
                 are installed, and at which version",
                at.short()
            ));
        }
    }
}

/// qpath's notes on input vLLM accepts silently: what is not modelled yet, and skip tokens that match no layer.
fn input_notes(cmd: &ServeCommand, spec: &ModelSpec, report: &mut Report) {
    if cmd.env.iter().any(|(k, _)| k == "VLLM_KV_CACHE_LAYOUT") {
        report.notes.push(
            "VLLM_KV_CACHE_LAYOUT is read by vLLM but its effect on the layout FlashInfer gets is not modelled yet.".into(),
        );
    }
    skip_notes(cmd, spec, report);
}

/// `--kv-cache-dtype-skip-layers` read once: `Attention.__init__` skips a layer when `str(layer_idx)` is one of the
/// tokens, or when it has a sliding window and `sliding_window` is one ([`source::ATTN_SKIP_LAYERS`]). Built in one
/// pass over the tokens, so that each layer's check is a set lookup (linear in tokens + layers).
pub(crate) struct SkipList {
    indices: HashSet<u32>,
    sliding_window: bool,
}

impl SkipList {
    pub(crate) fn new(tokens: &[String]) -> Self {
        SkipList {
            indices: tokens.iter().filter_map(|t| layer_index_token(t)).collect(),
            sliding_window: tokens.iter().any(|t| t == "sliding_window"),
        }
    }

    /// Whether `Attention.__init__` gives this layer kv_cache_dtype "auto".
    pub(crate) fn skips(&self, layer: u32, sliding: bool) -> bool {
        (sliding && self.sliding_window) || self.indices.contains(&layer)
    }
}

/// The layer index a token names: `str(layer_idx) == token`, so only the canonical decimal ("7", not "07" or "+7").
fn layer_index_token(token: &str) -> Option<u32> {
    let n: u32 = token.parse().ok()?;
    (n.to_string() == token).then_some(n)
}

/// Skip tokens that match no layer are accepted by vLLM and do nothing: one note naming them (each once, at most
/// [`serve::limits::MAX_LISTED`]); past [`serve::limits::MAX_SKIP_LAYER_TOKENS`] the scenario stops earlier.
fn skip_notes(cmd: &ServeCommand, spec: &ModelSpec, report: &mut Report) {
    let tokens = &cmd.kv_cache_dtype_skip_layers;
    if tokens.is_empty() {
        return;
    }
    let layers: HashSet<u32> = spec.layers.iter().map(|l| l.index).collect();
    let has_window = spec.layers.iter().any(|l| l.sliding_window.is_some());
    let mut seen = HashSet::new();
    let mut unmatched: Vec<String> = Vec::new();
    let mut window_token = false;
    for tok in tokens {
        if tok == "sliding_window" {
            window_token = !has_window;
        } else if !layer_index_token(tok).is_some_and(|n| layers.contains(&n)) && seen.insert(tok.as_str()) {
            unmatched.push(format!("`{}`", crate::serve::escape_for_message(tok)));
        }
    }
    if window_token {
        report.notes.push(
            "--kv-cache-dtype-skip-layers sliding_window: this model has no sliding-window layer, so it skips nothing."
                .to_string(),
        );
    }
    if !unmatched.is_empty() {
        let what = if unmatched.len() == 1 {
            format!("{} matches", unmatched[0])
        } else {
            format!("tokens {} match", crate::serve::limits::capped_list(&unmatched))
        };
        report.notes.push(format!(
            "--kv-cache-dtype-skip-layers {what} no layer: vLLM compares each layer's index (0 to {}) as a string, \
             exactly, and ignores other tokens.",
            spec.layers.len().saturating_sub(1)
        ));
    }
}

/// One layer after selection: its skip-adjusted query to the selector and the backend it got.
struct LayerRow<'a> {
    layer: &'a LayerSpec,
    skipped: bool,
    /// The checkpoint field that set the cache dtype (`--kv-cache-dtype auto` with a quantized-KV checkpoint).
    from_checkpoint: Option<(&'static str, &'static source::Cite)>,
    query: LayerQuery,
    selection: Selection,
}

/// Per layer, in order (`Attention.__init__`): the skip-adjusted cache dtype, then `get_attn_backend`, which is
/// cached on its arguments (`functools.cache`), so equal queries get one selection.
fn select_layers<'a>(
    p: &Platform,
    forced: Option<Backend>,
    cmd: &ServeCommand,
    spec: &'a ModelSpec,
    checkpoint_set: bool,
) -> Result<Vec<LayerRow<'a>>, ScenarioError> {
    let r = p.release;
    let skip = SkipList::new(&cmd.kv_cache_dtype_skip_layers);
    let tp = cmd.tensor_parallel_size.max(1);
    let mut cache: HashMap<LayerQuery, Result<Selection, SelectionError>> = HashMap::new();
    let mut rows = Vec::with_capacity(spec.layers.len());
    let from_checkpoint = spec
        .checkpoint_kv
        .as_ref()
        .filter(|kv| kv.cache_dtype.as_deref() == Some(cmd.kv_cache_dtype.as_str()) && checkpoint_set)
        .map(|kv| {
            let cite = match kv.scheme {
                model::KvScheme::CompressedTensors(_) => &source::CHECKPOINT_KV_SCHEME,
                _ => &source::CHECKPOINT_KV_MODELOPT,
            };
            (kv.field(), cite)
        });
    // A hybrid model's recurrent layers are not `Attention` layers: they never reach get_attn_backend.
    for l in spec.layers.iter().filter(|l| l.kind.is_attention()) {
        let skipped = skip.skips(l.index, l.sliding_window.is_some());
        let query = LayerQuery {
            head_size: l.head_dim,
            kv_cache_dtype: if skipped {
                "auto".to_string()
            } else {
                cmd.kv_cache_dtype.clone()
            },
            has_sinks: l.has_sinks,
            sliding_window: l.sliding_window.is_some(),
            q_heads: l.num_q_heads / tp,
            kv_heads: (l.num_kv_heads / tp).max(1),
            block_size: cmd.block_size,
            use_mm_prefix: spec.is_mm_prefix_lm(r),
            use_per_head_quant_scales: spec.checkpoint_kv.as_ref().is_some_and(|kv| kv.per_head_scales()),
            use_non_causal: cmd.attention_config.use_non_causal,
            use_dcp: cmd.decode_context_parallel_size > 1,
        };
        heads_divide(r, spec.vllm_model, l, tp)?;
        let selection = cache
            .entry(query.clone())
            .or_insert_with(|| selection::select(p, forced, &query))
            .clone()
            .map_err(|e| {
                scenario_error(
                    ScenarioErrorKind::ValueError,
                    e.message,
                    Some(if e.forced {
                        &source::CUDA_FORCED_INVALID
                    } else {
                        &source::CUDA_NONE_VALID
                    }),
                    r,
                )
            })?;
        checkpoint_layer_errors(r, spec, &query.kv_cache_dtype)?;
        rows.push(LayerRow {
            layer: l,
            skipped,
            from_checkpoint,
            query,
            selection,
        });
    }
    Ok(rows)
}

/// A layer's head checks at engine start, in vLLM's order, before `get_attn_backend`: the model file's bare asserts
/// ([`model::VllmModel::kv_tp_asserts`]), `QKVParallelLinear`'s `divide` of KV heads and ranks
/// ([`source::ENSURE_DIVISIBILITY`]), then `Attention.__init__`'s `num_heads % num_kv_heads`
/// ([`source::ATTENTION_HEADS_DIVISIBLE`]) on the rank's heads: heads / tp and max(1, KV heads / tp), except
/// `gpt_oss.py`'s plain KV heads // tp, which is 0 (a `ZeroDivisionError`) with fewer KV heads than ranks.
fn heads_divide(r: Release, rule: model::VllmModel, l: &model::LayerSpec, tp: u32) -> Result<(), ScenarioError> {
    let kv = l.num_kv_heads;
    let raise = |kind, message: String, cite| Err(scenario_error(kind, message, Some(cite), r));
    if let Some((kv_split, tp_split)) = rule.kv_tp_asserts() {
        if kv >= tp && kv % tp != 0 {
            return raise(ScenarioErrorKind::AssertionError, String::new(), kv_split);
        }
        if kv < tp && tp % kv != 0 {
            return raise(ScenarioErrorKind::AssertionError, String::new(), tp_split);
        }
    }
    let (n, d) = if tp >= kv { (tp, kv) } else { (kv, tp) };
    if n % d != 0 {
        let m = format!("{n} is not divisible by {d}");
        return raise(ScenarioErrorKind::AssertionError, m, &source::ENSURE_DIVISIBILITY);
    }
    let q = l.num_q_heads / tp;
    let kv_rank = if rule == model::VllmModel::GptOss {
        kv / tp
    } else {
        (kv / tp).max(1)
    };
    let at = &source::ATTENTION_HEADS_DIVISIBLE;
    if kv_rank == 0 {
        return raise(ScenarioErrorKind::ZeroDivisionError, "integer modulo by zero".into(), at);
    }
    if q % kv_rank != 0 {
        let m = format!("num_heads ({q}) is not divisible by num_kv_heads ({kv_rank})");
        return raise(ScenarioErrorKind::AssertionError, m, at);
    }
    Ok(())
}

/// After a layer's backend is selected, `Attention.__init__` sets up its KV-cache quantization
/// (`_init_kv_cache_quant`): with a checkpoint whose attention layers load k/v scales, a layer whose cache dtype is
/// `fp8_e5m2` raises ([`source::CHECKPOINT_KV_E5M2`]), and compressed-tensors validates its `kv_cache_scheme`
/// ([`source::CT_VALIDATE_KV_SCHEME`], `NotImplementedError`).
fn checkpoint_layer_errors(r: Release, spec: &ModelSpec, kv_cache_dtype: &str) -> Result<(), ScenarioError> {
    let Some(kv) = &spec.checkpoint_kv else { return Ok(()) };
    if kv.loads_kv_scales() && kv_cache_dtype == "fp8_e5m2" {
        return Err(scenario_error(
            ScenarioErrorKind::ValueError,
            "fp8_e5m2 kv-cache is not supported with fp8 checkpoints.",
            Some(&source::CHECKPOINT_KV_E5M2),
            r,
        ));
    }
    if let Some(m) = kv.scheme_error() {
        let (kind, cite) = if m.starts_with("qpath cannot model this") {
            (ScenarioErrorKind::InputError, None)
        } else {
            (ScenarioErrorKind::NotImplementedError, Some(&source::CT_VALIDATE_KV_SCHEME))
        };
        return Err(scenario_error(kind, m, cite, r));
    }
    Ok(())
}

/// The engine-wide log line of each distinct selection (`get_attn_backend_cls`'s `logger.info_once`), in order.
fn selection_logs(r: Release, rows: &[LayerRow]) -> Vec<LogRecord> {
    let mut seen: Vec<LogRecord> = Vec::new();
    for row in rows {
        let sel = &row.selection;
        let (call, line) = if sel.forced {
            let text = format!("Using AttentionBackendEnum.{} backend.", sel.backend.name());
            (&source::CUDA_FORCED_LOG, text)
        } else {
            let names: Vec<String> = sel.valid.iter().map(|b| format!("'{}'", b.name())).collect();
            let text = format!(
                "Using {} attention backend out of potential backends: [{}].",
                sel.backend.name(),
                names.join(", ")
            );
            (&source::CUDA_CHOSEN_LOG, text)
        };
        if !seen.iter().any(|l| l.text == line) {
            seen.push(LogRecord::new(LogLevel::Info, call, (r, r.flashinfer_pin()), line));
        }
    }
    seen
}

/// The checkpoint's warning (`checkpoint_cache_dtype`'s log lines) as records of `get_kv_cache_quant_algo_string`'s
/// `logger.warning(` (whose text itself starts with "WARNING: ").
fn checkpoint_records(r: Release, logs: &[String]) -> Vec<LogRecord> {
    let call = &source::CHECKPOINT_KV_UNKNOWN_ALGO_LOG;
    logs.iter()
        .map(|l| LogRecord::new(LogLevel::Warning, call, (r, r.flashinfer_pin()), l.clone()))
        .collect()
}

/// Attention groups (the KV-cache groups, one metadata builder each): layers sharing backend, per-layer KV spec and
/// per-rank heads, in the order of their first layer.
fn group_layers(rows: &[LayerRow]) -> Vec<(GroupKey, Vec<u32>)> {
    let mut groups: Vec<(GroupKey, Vec<u32>)> = Vec::new();
    for row in rows {
        let (l, q) = (row.layer, &row.query);
        let key = GroupKey {
            backend: row.selection.backend,
            kind: l.kind,
            window: l.sliding_window,
            kv: q.kv_cache_dtype.clone(),
            head_dim: l.head_dim,
            q_heads: q.q_heads,
            kv_heads: q.kv_heads,
            sinks: l.has_sinks,
        };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, layers)) => layers.push(l.index),
            None => groups.push((key, vec![l.index])),
        }
    }
    groups
}

/// The "layer cache dtype" step of a group: which of its layers `--kv-cache-dtype-skip-layers` names (exactly those),
/// and, when the cache dtype is "auto" anyway, that skipping them changes nothing (skipped and other layers then share
/// a group).
fn layer_cache_dtype_text(cmd: &ServeCommand, layers: &[u32], row: &LayerRow) -> String {
    let tokens = &cmd.kv_cache_dtype_skip_layers;
    let q = &row.query;
    let skip = SkipList::new(tokens);
    let sliding = row.layer.sliding_window.is_some();
    let (skipped, kept): (Vec<u32>, Vec<u32>) = layers.iter().partition(|&&i| skip.skips(i, sliding));
    let named = |l: &[u32]| {
        if l.len() == 1 {
            format!("layer {} is", l[0])
        } else {
            format!("layers {} are", short_list(l))
        }
    };
    if !skipped.is_empty() && q.kv_cache_dtype == "auto" && cmd.kv_cache_dtype == "auto" {
        let rest = if kept.is_empty() {
            String::new()
        } else {
            format!("; {} not in it", named(&kept))
        };
        return format!(
            "{} in --kv-cache-dtype-skip-layers, which changes nothing: the cache dtype is \"auto\" already \
             (--kv-cache-dtype auto){rest}: kv_cache_dtype \"auto\"",
            named(&skipped)
        );
    }
    if row.skipped {
        format!("{} in --kv-cache-dtype-skip-layers: kv_cache_dtype \"auto\"", named(&skipped))
    } else if let Some((field, _)) = row.from_checkpoint {
        format!(
            "kv_cache_dtype {:?}, from the checkpoint's {field} (--kv-cache-dtype auto){}",
            q.kv_cache_dtype,
            if tokens.is_empty() { "" } else { "; not in the skip list" }
        )
    } else if tokens.is_empty() {
        format!("kv_cache_dtype {:?} (no skip list)", q.kv_cache_dtype)
    } else {
        format!(
            "not in the skip list [{}]: kv_cache_dtype {:?}",
            skip_tokens_shown(tokens),
            q.kv_cache_dtype
        )
    }
}

/// The skip tokens as the trace showed them (`"0", "2"`), at most [`serve::limits::MAX_LISTED`].
fn skip_tokens_shown(tokens: &[String]) -> String {
    let quoted: Vec<String> = tokens
        .iter()
        .take(serve::limits::MAX_LISTED + 1)
        .map(|t| format!("{t:?}"))
        .collect();
    let mut shown = serve::limits::capped_list(&quoted[..quoted.len().min(serve::limits::MAX_LISTED)]);
    if tokens.len() > serve::limits::MAX_LISTED {
        shown.push_str(&format!(", … and {} more", tokens.len() - serve::limits::MAX_LISTED));
    }
    shown
}

/// The trace steps every group starts with: its layers' cache dtype (`Attention.__init__`'s skip-layer check) and how
/// their backend was selected (`get_attn_backend_cls`).
fn selection_trace(p: &Platform, cmd: &ServeCommand, layers: &[u32], row: &LayerRow) -> Trace {
    let sel = &row.selection;
    let mut head = Trace::new(p.release);
    let cite = match row.from_checkpoint {
        Some((_, cite)) if !row.skipped => cite,
        _ => &source::ATTN_SKIP_LAYERS,
    };
    head.step(Some(cite), "layer cache dtype", layer_cache_dtype_text(cmd, layers, row));
    if sel.forced {
        head.step(
            Some(&source::CUDA_FORCED_INVALID),
            "attention backend",
            format!("forced {}: valid for these layers", sel.backend.name()),
        );
    } else {
        for (b, why) in &sel.rejected {
            head.step(
                Some(&source::CUDA_NONE_VALID),
                format!("backend {} (priority order)", b.name()),
                format!("rejected: {}", why.join(", ")),
            );
        }
        head.step(
            Some(&source::CUDA_CHOSEN_LOG),
            format!("backend {}", sel.backend.name()),
            "first valid backend in priority order",
        );
    }
    head
}

/// One group's report; a FlashInfer group also runs its metadata builder ([`builder::resolve_group`]).
fn group_report(
    p: &Platform,
    cmd: &ServeCommand,
    key: GroupKey,
    layers: Vec<u32>,
    row: &LayerRow,
    align_steps: &[crate::report::TraceStep],
) -> GroupReport {
    let mut head = selection_trace(p, cmd, &layers, row);
    head.steps.extend(align_steps.iter().cloned());
    let mut g = GroupReport {
        layers,
        attention: key.kind,
        sliding_window: key.window,
        head_dim: key.head_dim,
        num_q_heads: key.q_heads,
        num_kv_heads: key.kv_heads,
        has_sinks: key.sinks,
        backend: key.backend,
        cache_dtype: if selection::is_quantized(&key.kv) {
            key.kv.clone()
        } else {
            "auto".to_string()
        },
        q_dtype: Phases::default(),
        kernel: Phases::default(),
        error: None,
        phase_errors: Phases::default(),
        warnings: vec![],
        logs: vec![],
        log_records: vec![],
        trace: head.steps,
        role: GroupRole::Target,
        cudagraph_support: None,
    };
    if key.backend == Backend::FlashInfer {
        let spec = GroupSpec {
            quantized: selection::is_quantized(&key.kv),
            spec_dtype: selection::unquantized_spec_dtype(&key.kv, p.model_dtype),
            head_dim: key.head_dim,
            q_heads: key.q_heads,
            kv_heads: key.kv_heads,
            sliding_window: key.window,
            has_sinks: key.sinks,
        };
        let out = builder::resolve_group(p, &spec);
        g.cache_dtype = out.cache_dtype;
        g.q_dtype = out.q_dtype;
        g.kernel = out.kernel;
        g.error = out.error;
        g.phase_errors = out.phase_errors;
        g.warnings = out.trace.warnings;
        g.logs = out.trace.logs;
        g.log_records = out.trace.records;
        g.trace.extend(out.trace.steps);
    }
    g
}

#[derive(Clone, Debug, PartialEq)]
struct GroupKey {
    backend: Backend,
    kind: AttentionKind,
    window: Option<u32>,
    kv: String,
    head_dim: u32,
    q_heads: u32,
    kv_heads: u32,
    sinks: bool,
}

/// The FlashInfer page size: `--block-size`, else 16 (FlashInfer's smallest kernel block). From 0.25.0, with skip
/// layers and a quantized primary dtype, vLLM raises the block size so the quantized page covers the 16-bit page
/// (`_align_heterogeneous_kv_block_size`): 32 for an FP8 primary on a 16-bit model.
fn page_size(r: Release, cmd: &ServeCommand) -> u32 {
    if let Some(b) = cmd.block_size {
        return b;
    }
    let fp8 = cmd.kv_cache_dtype.starts_with("fp8");
    if r >= Release::V0_25_0Prefix && !cmd.kv_cache_dtype_skip_layers.is_empty() && fp8 {
        32
    } else {
        16
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
