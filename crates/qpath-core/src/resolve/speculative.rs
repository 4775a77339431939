//! Speculative decoding and CUDA graphs in a scenario: the drafter's groups (crate::drafter) selected and built like
//! the target's, the target's reorder threshold with speculative tokens, and the runner's CUDA-graph resolution over
//! every group (crate::cudagraph).

use super::*;

/// The runner's `cudagraph_mode` once every group's backend is known (crate::cudagraph, drafter groups included):
/// each group's support, the downgrade warnings (logged at `initialize_kv_cache`, after the selection lines), and
/// vLLM's ValueError when full graphs meet a backend that never supports them.
pub(super) fn cuda_graphs(
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
/// texts are added. The drafter is loaded after the target with the same `cache_config`, so a cache dtype it takes
/// from the target is `cache_config.cache_dtype` as the target's MLA layers left it (`fp8_ds_mla` after a sparse
/// backend's rewrite); its layers select under the model config they are built with
/// ([`crate::drafter::Drafter::model_mla`]). When a drafter layer fails selection the report keeps the drafter's
/// speculative summary, with a note naming the layer.
pub(super) fn drafter_groups(
    p: &Platform,
    cmd: &ServeCommand,
    engine: &Engine,
    mut d: crate::drafter::Drafter,
    groups: &mut Vec<GroupReport>,
    report: &mut Report,
) -> Result<(), ScenarioError> {
    let r = p.release;
    if d.kv_from_target && d.model.is_some() && p.global_kv != d.report.kv_cache_dtype {
        let mut t = Trace::new(r);
        // 0.20.0-0.23.0: FLASHMLA_SPARSE's own `cache_config.cache_dtype = "fp8_ds_mla"`; 0.24.0+ the canonical
        // sparse MLA dtype's write-back.
        let cite = if r < Release::V0_24_0 {
            &source::MLA_DRAFTER_SPARSE_FP8_WRITEBACK
        } else {
            &source::MLA_SEL_CANON_WRITEBACK
        };
        t.step(
            Some(cite),
            "drafter cache dtype",
            format!(
                "the drafter is built after the target, with its cache_config, whose cache_dtype the target's MLA \
                 layers rewrote from {} to {}: the drafter's layers ask the selector with {}",
                d.report.kv_cache_dtype, p.global_kv, p.global_kv
            ),
        );
        d.report.trace.append(&mut t.steps);
        d.report.kv_cache_dtype = p.global_kv.clone();
    }
    report.notes.extend(d.notes.iter().cloned());
    if let Some(dspec) = d.model.as_ref().filter(|_| !cmd.kv_cache_dtype_skip_layers.is_empty()) {
        skip_notes_with_drafter(cmd, dspec, groups, report);
    }
    let mut records = d.report.log_records.clone();
    records.append(&mut report.log_records);
    report.log_records = records;
    let mut logs: Vec<String> = d.report.log_records.iter().map(|l| l.text.clone()).collect();
    logs.append(&mut report.logs);
    report.logs = logs;
    if let Some(dspec) = &d.model {
        let mut dcmd = cmd.clone();
        dcmd.kv_cache_dtype = d.report.kv_cache_dtype.clone();
        let dp = Platform {
            model_mla: d.model_mla,
            ..p.clone()
        };
        let p = &dp;
        let rows = match select_layers(p, d.forced, &dcmd, dspec, false) {
            Ok(rows) => rows,
            Err(e) => {
                let layers: Vec<u32> = dspec.layers.iter().map(|l| l.index).collect();
                report.notes.push(Note::info(format!(
                    "the error is the drafter's: its layer(s) {} ({}) are built under backend {} and cache dtype {} \
                     ({:?} model runner)",
                    short_list(&layers),
                    dspec.id,
                    d.report.backend,
                    d.report.kv_cache_dtype,
                    d.report.runner
                )));
                report.speculative = Some(d.report);
                return Err(e);
            }
        };
        for rec in selection_logs(r, &rows) {
            if !report.log_records.iter().any(|l| l.text == rec.text) {
                report.logs.push(rec.text.clone());
                report.log_records.push(rec);
            }
        }
        let dengine = Engine {
            drafter: true,
            ..*engine
        };
        for mut g in attention_groups(p, &dcmd, &dengine, &rows, &[]) {
            g.role = GroupRole::Drafter;
            let mut head = d.report.trace.clone();
            if g.backend == Backend::FlashInfer && d.report.kv_cache_dtype != p.global_kv {
                head.push(drafter_builder_step(r, d.report.runner, &p.global_kv));
            }
            g.trace.splice(0..0, head);
            groups.push(g);
        }
    }
    report.speculative = Some(d.report);
    Ok(())
}

/// `--kv-cache-dtype-skip-layers` tokens are matched against every attention layer vLLM builds, the drafter's too
/// (a DeepSeek MTP layer is `model.layers.61`, an EAGLE head's layer follows the target's): the skip notes
/// ([`skip_notes`]) are redone over the target's layers (its groups) and the drafter's.
fn skip_notes_with_drafter(cmd: &ServeCommand, dspec: &ModelSpec, groups: &[GroupReport], report: &mut Report) {
    let Some(first) = dspec.layers.first() else { return };
    report.notes.retain(|n| !n.text.starts_with("--kv-cache-dtype-skip-layers "));
    let target = groups.iter().flat_map(|g| {
        g.layers.iter().map(move |&index| LayerSpec {
            index,
            sliding_window: g.sliding_window,
            ..first.clone()
        })
    });
    let combined = ModelSpec {
        layers: target.chain(dspec.layers.iter().cloned()).collect(),
        ..dspec.clone()
    };
    skip_notes(cmd, &combined, report);
}

/// The drafter's metadata builder reads the global cache dtype from the config it is built with: the V1 proposer
/// builds it with the target's `VllmConfig` ([`source::V1_DRAFT_METADATA_BUILDERS`]), so a drafter cache dtype set by
/// the speculative config meets the target's `--kv-cache-dtype` there. V2 is not read line by line: a prediction.
pub(super) fn drafter_builder_step(r: Release, runner: crate::report::ModelRunner, target_kv: &str) -> crate::report::TraceStep {
    let mut t = Trace::new(r);
    let text = format!(
        "the drafter's FlashInfer metadata builder is created with the target's VllmConfig, so its global cache dtype \
         is the target's --kv-cache-dtype {target_kv}, not the drafter's"
    );
    match runner {
        crate::report::ModelRunner::V1 => t.step(Some(&source::V1_DRAFT_METADATA_BUILDERS), "drafter metadata builder", text),
        crate::report::ModelRunner::V2 => t.unverified(format!("V2 runner: {text} (as the V1 proposer does)")),
    }
    t.steps.remove(0)
}

/// `_init_reorder_batch_threshold(1, supports_spec_as_decode=…)` in `FlashInferMetadataBuilder.__init__`
/// ([`source::FI_REORDER_THRESHOLD`]): with speculative decoding, requests of up to 1 + num_speculative_tokens query
/// tokens count as decodes when the decode kernel takes several query tokens — 0.24.0 `can_use_trtllm` (trtllm-gen);
/// 0.25.0-0.27.0 TRTLLM_GEN; 0.28.0-0.29.0 TRTLLM_GEN or the SM12x dedicated XQA; 0.30.0-0.32.0 any TRTLLM-API kernel;
/// 0.33.0 also the FA2 native decode (CC < 9.0); never under DCP. Otherwise a verification request is a prefill.
pub(super) fn spec_as_decode(p: &Platform, g: &mut GroupReport, n: u32) {
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
    g.trace.push(crate::report::TraceStep::new(
        "speculative decoding",
        outcome,
        source::FI_REORDER_THRESHOLD.at(r),
    ));
}
