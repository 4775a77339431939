//! A hybrid model's recurrent layers: the block-size alignment to their state page (crate::hybrid) and their own
//! group (GDN_ATTN / MAMBA2), whose input dtype, kernels, errors and log lines their backend's rules decide
//! ([`crate::backends::recurrent`]).

use super::*;

/// A hybrid model: the block size aligned to the recurrent state page (crate::hybrid), whose kernel block is the page
/// the attention groups' FlashInfer sees; its config and alignment log lines go around the selection's. Returns the
/// alignment's trace steps (empty for a model without recurrent layers).
pub(super) fn hybrid_alignment(
    p: &mut Platform,
    cmd: &ServeCommand,
    spec: &ModelSpec,
    rows: &[LayerRow],
    report: &mut Report,
) -> Vec<crate::report::TraceStep> {
    let (Some(h), Some(first)) = (&spec.hybrid, rows.first()) else {
        return Vec::new();
    };
    let r = p.release;
    report.unused_flags.retain(|f| !HybridFlags::consumes(r, f, h.backend));
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
        report.notes.push(Note::limit(why));
    } else {
        p.page_size = a.kernel_block_size;
    }
    a.trace.steps
}

/// A hybrid model's recurrent layers as one group: their kind, the `MambaAttentionBackendEnum` backend their
/// `mamba_type` names (no `--attention-backend` applies), their state page, then what their backend's rules decide
/// (`resolve_group` with the layers' flags and environment: [`RecurrentInputs`]).
pub(super) fn recurrent_group(
    p: &Platform,
    (cmd, engine): (&ServeCommand, &Engine),
    h: &model::HybridSpec,
    layers: Vec<u32>,
    align_steps: &[crate::report::TraceStep],
) -> GroupReport {
    let r = p.release;
    let mut t = Trace::new(r);
    recurrent_layer_steps(r, h, &layers, &mut t);
    recurrent_backend_steps(r, h, &mut t);
    let mut trace = t.steps;
    const STATE_STEPS: [&str; 12] = [
        "prefix caching",
        "mamba cache mode",
        "NemotronH mamba_ssm_cache_dtype",
        "NemotronH log",
        "get_mamba_state_dtype_from_config",
        "get_mamba_state_shape_from_config",
        "mamba2 group extension",
        "mamba chunk size",
        "mamba state dtypes",
        "mamba state shape",
        "mamba page size",
        "mamba page padded",
    ];
    trace.extend(align_steps.iter().filter(|s| STATE_STEPS.contains(&&*s.rule)).cloned());
    let mut g = GroupReport::unresolved(layers, h.kind, h.backend, "auto".to_string(), trace);
    let f = HybridFlags::read(r, cmd);
    let (_, mode) = hybrid::mamba_cache_mode(r, h, &f);
    let inputs = RecurrentInputs {
        spec: h,
        layers: &g.layers.clone(),
        gdn_prefill_backend: f.gdn_prefill_backend.as_deref(),
        mamba_backend: f.mamba_backend.as_deref(),
        mamba_ssu_algorithm: f.mamba_ssu_algorithm.as_deref(),
        use_replayssm: f.use_replayssm.unwrap_or(false),
        packed_decode_env: cmd.env_value("VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE"),
        gdn_decode_kernel_env: cmd.env_value("VLLM_GDN_DECODE_KERNEL"),
        speculative: cmd.speculative_config.is_some(),
        num_speculative_tokens: cmd
            .speculative_config
            .as_ref()
            .and_then(|s| s.num_speculative_tokens)
            .unwrap_or(0),
        mamba_cache_mode: &mode,
        state: hybrid::state_torch_dtypes(p.model_dtype, h, &f),
    };
    let cx = GroupContext {
        engine,
        query: None,
        recurrent: Some(&inputs),
    };
    crate::backends::rules(h.backend).resolve_group(p, &cx, &mut g);
    g
}

/// The model file's recurrent layers (`layer_types` / `hybrid_override_pattern`): which layers, of which kind, from
/// which rule.
pub(super) fn recurrent_layer_steps(r: Release, h: &model::HybridSpec, layers: &[u32], t: &mut Trace) {
    let (layer_cite, kind_text) = match h.model {
        model::VllmModel::NemotronH => (
            &source::NEMOTRONH_LAYER_TYPE,
            "`M`: NemotronHMambaDecoderLayer (a Mamba2 mixer)",
        ),
        model::VllmModel::GraniteMoeHybrid => (
            &source::GRANITE_LAYER_TYPE,
            "Mamba2 (GraniteMoeHybridMambaDecoderLayer's MambaMixer2)",
        ),
        model::VllmModel::FalconH1 => (
            &source::FALCON_H1_SSM_LAYER_IDX,
            "Mamba2 (each FalconH1ParallelHybrid's FalconH1SSMDecoderLayer MambaMixer2, named num_hidden_layers + i)",
        ),
        model::VllmModel::Jamba => (
            &source::JAMBA_LAYER_TYPE,
            "\"mamba\": JambaMambaDecoderLayer (a Mamba1 MambaMixer)",
        ),
        model::VllmModel::Qwen3_5 => (
            &source::QWEN3_5_LAYER_TYPE,
            "\"linear_attention\": a gated delta net (linear attention; Qwen3_5DecoderLayer's QwenGatedDeltaNetAttention)",
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

/// The recurrent layers' backend: `mamba_type`, then `get_mamba_attn_backend`. Until 0.21.0 the GDN layer lived in
/// `model_executor/layers/mamba/gdn_linear_attn.py` (`gdn/base.py` from 0.22.0); until 0.20.2 `mamba_type` returned
/// the names `"mamba2"` / `"gdn_attention"`, which `get_mamba_attn_backend` maps to the same backends.
pub(super) fn recurrent_backend_steps(r: Release, h: &model::HybridSpec, t: &mut Trace) {
    t.step(
        Some(if h.backend == Backend::Mamba2 {
            &source::MAMBA_TYPE_MAMBA2
        } else if h.backend == Backend::Mamba1 {
            &source::MAMBA_TYPE_MAMBA1
        } else if r < Release::V0_22_0 {
            &source::RECURRENT_GDN_MAMBA_TYPE_OLD
        } else {
            &source::MAMBA_TYPE_GDN
        }),
        "mamba_type",
        if r < Release::V0_21_0 {
            // 0.20.x: a string, which get_mamba_attn_backend maps through MAMBA_TYPE_TO_BACKEND_MAP.
            format!(
                "{:?}: MAMBA_TYPE_TO_BACKEND_MAP names MambaAttentionBackendEnum.{}",
                if h.backend == Backend::Mamba2 {
                    "mamba2"
                } else if h.backend == Backend::Mamba1 {
                    "mamba1"
                } else {
                    "gdn_attention"
                },
                h.backend.name()
            )
        } else {
            format!("MambaAttentionBackendEnum.{}", h.backend.name())
        },
    );
    t.step(
        Some(&source::MAMBA_LAYER_BACKEND),
        format!("backend {}", h.backend.name()),
        "get_mamba_attn_backend(self.mamba_type): fixed by the layer type; --attention-backend and the attention \
         priority list do not apply. A recurrent state per request, no KV cache",
    );
}
