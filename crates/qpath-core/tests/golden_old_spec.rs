//! Golden cases for speculative decoding in the old releases 0.20.0-0.23.0 (`qpath_core::drafter`), each at the old
//! release(s) and at the first release with the new behaviour: the model runner that loads the drafter (V2 opt-in by
//! VLLM_USE_V2_MODEL_RUNNER before 0.22.0, the default-V2 architectures and the MoE / quantization condition of
//! 0.22.0-0.23.0, the lower-case warning of 0.22.x), the drafter's backend (0.20.x inherits --attention-backend), the
//! speculative config's `attention_backend` (an extra input before 0.21.0), the aux-hidden-states check of
//! 0.20.0-0.21.0, the EAGLE heads' start layer and the V2 speculator's draft graphs. Texts and lines are the released
//! sources' (`/work/vllm-src/vllm-<VER>/vllm/...`).

mod common;
use common::run;
use qpath_core::report::{Backend, GroupReport, GroupRole, LogLevel, ModelRunner, Report, ScenarioErrorKind};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const EAGLE3: &str = r#"--speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3}'"#;
const QWEN3_NEXT: &str = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct";
const DEEPSEEK_V3: &str = "vllm serve deepseek-ai/DeepSeek-V3";
const MTP: &str = r#"--speculative-config '{"method":"mtp","num_speculative_tokens":1}'"#;

fn ok(r: &Report) {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
}

fn drafters(r: &Report) -> Vec<&GroupReport> {
    ok(r);
    r.groups.iter().filter(|g| g.role == GroupRole::Drafter).collect()
}

/// The speculative summary's trace step `rule`'s source, and its outcome.
fn spec_step(r: &Report, rule: &str) -> (String, String) {
    let s = r.speculative.as_ref().expect("a speculative report");
    let step = s.trace.iter().find(|s| s.rule == rule);
    let step = step.unwrap_or_else(|| panic!("no {rule:?} step in {:#?}", s.trace));
    (step.source().unwrap_or_default(), step.outcome.to_string())
}

/// Every source a drafter group's trace cites.
fn sources(g: &GroupReport) -> Vec<String> {
    g.trace.iter().filter_map(|s| s.source()).collect()
}

fn runner(r: &Report) -> ModelRunner {
    r.speculative.as_ref().unwrap().runner
}

fn warnings(r: &Report) -> Vec<(String, String)> {
    r.log_records
        .iter()
        .filter(|l| l.level == LogLevel::Warning)
        .map(|l| (l.location(), l.text.clone()))
        .collect()
}

/// EAGLE-3 on Llama-3.1-8B: 0.20.0-0.21.0 have no `use_v2_model_runner` (the worker reads VLLM_USE_V2_MODEL_RUNNER,
/// default "0"), 0.22.x defaults only Qwen3ForCausalLM to V2, 0.23.0 adds LlamaForCausalLM. The head's one layer is
/// model.layers.32 in every release, cited at llama_eagle3.py's `start_layer_id=target_layer_num`.
#[test]
fn eagle3_on_llama_runner_and_start_layer() {
    for (vllm, run_at, v, start) in [
        (
            "0.20.0",
            "vllm/v1/worker/gpu_worker.py:153",
            ModelRunner::V1,
            "llama_eagle3.py:290",
        ),
        (
            "0.20.2",
            "vllm/v1/worker/gpu_worker.py:153",
            ModelRunner::V1,
            "llama_eagle3.py:290",
        ),
        (
            "0.21.0",
            "vllm/v1/worker/gpu_worker.py:156",
            ModelRunner::V1,
            "llama_eagle3.py:290",
        ),
        ("0.22.0", "vllm/config/vllm.py:69", ModelRunner::V1, "llama_eagle3.py:323"),
        ("0.22.1", "vllm/config/vllm.py:69", ModelRunner::V1, "llama_eagle3.py:323"),
        ("0.23.0", "vllm/config/vllm.py:519", ModelRunner::V2, "llama_eagle3.py:310"),
        ("0.24.0", "vllm/config/vllm.py:522", ModelRunner::V2, "llama_eagle3.py:310"),
    ] {
        let r = run("h100-sxm", vllm, &format!("{LLAMA} {EAGLE3}"));
        let d = drafters(&r);
        assert_eq!(d.len(), 1, "{vllm}");
        assert_eq!(d[0].layers, vec![32], "{vllm}");
        assert_eq!(runner(&r), v, "{vllm}");
        let (at, outcome) = spec_step(&r, "model runner");
        assert!(at.ends_with(run_at), "{vllm}: {at} {outcome}");
        if vllm < "0.22.0" {
            assert_eq!(
                outcome,
                "VLLM_USE_V2_MODEL_RUNNER is unset (default \"0\"): the V1 model runner (Model Runner V2 is opt-in \
                 in this release)"
            );
        } else if vllm < "0.23.0" {
            assert_eq!(
                outcome,
                "LlamaForCausalLM is not in DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES: the V1 model runner"
            );
        }
        let s = r.speculative.as_ref().unwrap();
        let head = s
            .trace
            .iter()
            .chain(d[0].trace.iter())
            .find(|s| s.rule == "drafter layers")
            .unwrap();
        assert!(
            head.source()
                .unwrap()
                .ends_with(&format!("vllm/model_executor/models/{start}")),
            "{vllm}: {:?}",
            head.source()
        );
        assert!(sources(d[0]).iter().any(|s| s.ends_with(start)), "{vllm}");
        // No Model Runner V2 warning: the method is supported where V2 is the default.
        assert!(
            !warnings(&r).iter().any(|(_, t)| t.contains("does not yet support")),
            "{vllm}"
        );
    }
    // 0.20.0 / 0.21.0 with VLLM_USE_V2_MODEL_RUNNER=1: the V2 runner, from the same worker line.
    for (vllm, at) in [("0.20.0", "gpu_worker.py:153"), ("0.21.0", "gpu_worker.py:156")] {
        let r = run("h100-sxm", vllm, &format!("VLLM_USE_V2_MODEL_RUNNER=1 {LLAMA} {EAGLE3}"));
        ok(&r);
        assert_eq!(runner(&r), ModelRunner::V2, "{vllm}");
        let (src, outcome) = spec_step(&r, "model runner");
        assert!(src.ends_with(at), "{vllm}: {src}");
        assert_eq!(outcome, "VLLM_USE_V2_MODEL_RUNNER=1: V2");
    }
}

/// The drafter's backend under `--attention-backend FLASHINFER`: 0.20.x's V1 proposer builds the drafter with the
/// target's VllmConfig (llm_base_proposer.py:1287), so it inherits FLASHINFER; 0.21.0-0.22.x's V1 proposer never
/// inherits it (backend=spec_cfg.attention_backend, None: auto, FLASH_ATTN on H100); 0.23.0's V2 runner builds the
/// drafter with the target's VllmConfig again.
#[test]
fn eagle3_drafter_backend_per_release() {
    for (vllm, want, at) in [
        ("0.20.0", Backend::FlashInfer, "vllm/v1/spec_decode/llm_base_proposer.py:1287"),
        ("0.20.1", Backend::FlashInfer, "vllm/v1/spec_decode/llm_base_proposer.py:1287"),
        ("0.21.0", Backend::FlashAttn, "vllm/v1/spec_decode/llm_base_proposer.py:1110"),
        ("0.22.0", Backend::FlashAttn, "vllm/v1/spec_decode/llm_base_proposer.py:1162"),
        (
            "0.23.0",
            Backend::FlashInfer,
            "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:27",
        ),
    ] {
        let r = run("h100-sxm", vllm, &format!("{LLAMA} --attention-backend FLASHINFER {EAGLE3}"));
        let d = drafters(&r);
        assert_eq!(d.len(), 1, "{vllm}");
        assert_eq!(d[0].backend, want, "{vllm}");
        let (src, outcome) = spec_step(&r, "drafter backend");
        assert!(src.ends_with(at), "{vllm}: {src}");
        if vllm < "0.21.0" {
            assert_eq!(
                outcome,
                "V1 proposer (_create_draft_vllm_config): the drafter is built with the target's VllmConfig, so its \
                 backend is --attention-backend's: FLASHINFER"
            );
            assert_eq!(r.speculative.as_ref().unwrap().backend, "FLASHINFER");
        }
        // The target keeps the forced backend.
        assert!(r
            .groups
            .iter()
            .filter(|g| g.role == GroupRole::Target)
            .all(|g| g.backend == Backend::FlashInfer));
    }
}

/// `attention_backend` is a SpeculativeConfig field from 0.21.0; before, the dataclass (extra="forbid") refuses it as
/// pydantic does, with any value (null included).
#[test]
fn the_speculative_attention_backend_key_is_an_extra_input_before_0_21_0() {
    let spec = r#"--speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3,"attention_backend":"FLASH_ATTN"}'"#;
    for vllm in ["0.20.0", "0.20.1", "0.20.2"] {
        let e = run("h100-sxm", vllm, &format!("{LLAMA} {spec}"))
            .error
            .expect("pydantic refuses it");
        assert_eq!(e.kind, ScenarioErrorKind::ValidationError, "{vllm}");
        // The type is the error's kind; Python prints it qualified (the body the renderings show).
        assert!(
            e.kind
                .body(&e.message)
                .starts_with("pydantic_core._pydantic_core.ValidationError: 1 validation error for SpeculativeConfig"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains(
                "attention_backend\n  Extra inputs are not permitted [type=extra_forbidden, input_value='FLASH_ATTN', \
                 input_type=str]"
            ),
            "{}",
            e.message
        );
        let null = spec.replace(r#""FLASH_ATTN""#, "null");
        let e = run("h100-sxm", vllm, &format!("{LLAMA} {null}"))
            .error
            .expect("null is an extra input too");
        assert!(
            e.message
                .contains("[type=extra_forbidden, input_value=None, input_type=NoneType]"),
            "{}",
            e.message
        );
    }
    // 0.21.0: read by the V1 proposer (llm_base_proposer.py:1110).
    let r = run(
        "h100-sxm",
        "0.21.0",
        &format!("{LLAMA} --attention-backend FLASHINFER {spec}"),
    );
    let d = drafters(&r);
    assert_eq!(d[0].backend, Backend::FlashAttn);
    assert_eq!(r.speculative.as_ref().unwrap().backend, "FLASH_ATTN");
}

/// MTP on Qwen3-Next: Qwen3NextForCausalLM is never a default-V2 architecture, so the V1 runner in every old release;
/// the MTP layer is mtp.layers.0 (index 0) with the target's full-attention shape.
#[test]
fn mtp_on_qwen3_next_old_releases() {
    let spec = r#"--speculative-config '{"method":"qwen3_next_mtp","num_speculative_tokens":2}'"#;
    for (vllm, run_at, deprecated, backend_at) in [
        (
            "0.20.0",
            "gpu_worker.py:153",
            "speculative.py:456",
            "llm_base_proposer.py:1287",
        ),
        (
            "0.21.0",
            "gpu_worker.py:156",
            "speculative.py:521",
            "llm_base_proposer.py:1110",
        ),
        ("0.22.0", "vllm.py:69", "speculative.py:542", "llm_base_proposer.py:1162"),
        ("0.23.0", "vllm.py:69", "speculative.py:551", "llm_base_proposer.py:1180"),
    ] {
        let r = run("b200", vllm, &format!("{QWEN3_NEXT} {spec}"));
        let d = drafters(&r);
        assert_eq!(d.len(), 1, "{vllm}");
        assert_eq!(
            (d[0].layers.clone(), d[0].num_q_heads, d[0].num_kv_heads, d[0].head_dim),
            (vec![0], 16, 2, 256)
        );
        let s = r.speculative.as_ref().unwrap();
        assert_eq!((s.method.as_str(), s.runner), ("mtp", ModelRunner::V1), "{vllm}");
        assert!(spec_step(&r, "model runner").0.ends_with(run_at), "{vllm}");
        assert!(spec_step(&r, "drafter backend").0.ends_with(backend_at), "{vllm}");
        let w = warnings(&r);
        assert!(
            w.iter()
                .any(|(at, t)| at.ends_with(deprecated) && t == "method `qwen3_next_mtp` is deprecated and replaced with mtp."),
            "{vllm}: {w:?}"
        );
        assert_eq!(d[0].backend, Backend::FlashInfer, "{vllm}");
    }
}

/// MTP on DeepSeek-V3: deepseek_mtp's layer model.layers.61, an MLA layer, V1 runner (DeepseekV3ForCausalLM is not a
/// default-V2 architecture in any old release). 0.20.x's drafter takes the target's --attention-backend.
#[test]
fn mtp_on_deepseek_v3_old_releases() {
    for (vllm, start, backend_at) in [
        ("0.20.0", "deepseek_mtp.py:128", "llm_base_proposer.py:1287"),
        ("0.21.0", "deepseek_mtp.py:128", "llm_base_proposer.py:1110"),
        ("0.22.1", "deepseek_mtp.py:128", "llm_base_proposer.py:1162"),
        ("0.23.0", "deepseek_mtp.py:130", "llm_base_proposer.py:1180"),
    ] {
        let r = run(
            "b200",
            vllm,
            &format!("{DEEPSEEK_V3} -tp 8 --attention-backend FLASHINFER_MLA {MTP}"),
        );
        let d = drafters(&r);
        assert_eq!(d.len(), 1, "{vllm}: {:#?}", r.notes);
        assert_eq!(d[0].layers, vec![61], "{vllm}");
        assert!(
            sources(d[0]).iter().any(|s| s.ends_with(start)),
            "{vllm}: {:?}",
            sources(d[0])
        );
        assert_eq!(runner(&r), ModelRunner::V1, "{vllm}");
        assert!(spec_step(&r, "drafter backend").0.ends_with(backend_at), "{vllm}");
        if vllm < "0.21.0" {
            assert_eq!(r.speculative.as_ref().unwrap().backend, "FLASHINFER_MLA", "{vllm}");
            assert_eq!(d[0].backend, Backend::FlashInferMla, "{vllm}");
        } else {
            assert_eq!(r.speculative.as_ref().unwrap().backend, "auto", "{vllm}");
        }
    }
}

/// DeepSeek-V3.2's eager MTP drafter under the V2 runner (VLLM_USE_V2_MODEL_RUNNER=1): the V2 speculator's draft
/// decodes are cited in eagle/speculator.py before 0.23.0 and autoregressive/speculator.py from 0.23.0.
#[test]
fn v2_draft_graphs_file_per_release() {
    for (vllm, at) in [
        ("0.20.0", "vllm/v1/worker/gpu/spec_decode/eagle/speculator.py:129"),
        ("0.21.0", "vllm/v1/worker/gpu/spec_decode/eagle/speculator.py:136"),
        ("0.22.0", "vllm/v1/worker/gpu/spec_decode/eagle/speculator.py:137"),
        ("0.23.0", "vllm/v1/worker/gpu/spec_decode/autoregressive/speculator.py:85"),
    ] {
        let r = run(
            "b200",
            vllm,
            &format!("VLLM_USE_V2_MODEL_RUNNER=1 vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8 {MTP}"),
        );
        let s = r.speculative.as_ref().unwrap_or_else(|| panic!("{vllm}: {:?}", r.error));
        assert_eq!(s.runner, ModelRunner::V2, "{vllm}");
        let (src, _) = spec_step(&r, "drafter CUDA graphs");
        assert!(src.ends_with(at), "{vllm}: {src}");
    }
}

/// 0.22.0-0.23.0: a default-V2 architecture is V2 only when neither MoE nor quantized (vllm.py:532@0.22.0,
/// 558@0.23.0); 0.24.0 dropped the condition.
#[test]
fn a_quantized_model_is_not_default_v2_in_0_22_and_0_23() {
    let r = run("h100-sxm", "0.23.0", &format!("{LLAMA} --quantization fp8 {EAGLE3}"));
    ok(&r);
    assert_eq!(runner(&r), ModelRunner::V1);
    let (src, outcome) = spec_step(&r, "model runner");
    assert!(src.ends_with("vllm/config/vllm.py:558"), "{src}");
    assert_eq!(
        outcome,
        "the model is quantized (--quantization fp8): not a default-V2 model, the V1 model runner"
    );
    let r = run("h100-sxm", "0.24.0", &format!("{LLAMA} --quantization fp8 {EAGLE3}"));
    ok(&r);
    assert_eq!(runner(&r), ModelRunner::V2);
    // 0.22.x: Qwen3ForCausalLM, quantized: V1 from the same line.
    let qwen =
        r#"vllm serve Qwen/Qwen3-8B --quantization fp8 --speculative-config '{"method":"ngram","num_speculative_tokens":2}'"#;
    let r = run("h100-sxm", "0.22.0", qwen);
    ok(&r);
    assert_eq!(runner(&r), ModelRunner::V1);
    assert!(spec_step(&r, "model runner").0.ends_with("vllm/config/vllm.py:532"));
}

/// An unsupported speculative method on a default-V2 model: 0.22.x's warning is lower-case ("Model runner v2 … the
/// v1 model runner"), 0.23.0's as 0.24.0's; draft_model is unsupported in both, and dflash joins the supported
/// methods only in 0.24.0.
#[test]
fn the_unsupported_method_warning_per_release() {
    let cmd = r#"vllm serve Qwen/Qwen3-8B --speculative-config '{"model":"Qwen/Qwen3-0.6B","num_speculative_tokens":2}'"#;
    for (vllm, at, text) in [
        (
            "0.22.0",
            "vllm.py:509",
            "Model runner v2 does not yet support speculative method 'draft_model'; using the v1 model runner instead.",
        ),
        (
            "0.22.1",
            "vllm.py:509",
            "Model runner v2 does not yet support speculative method 'draft_model'; using the v1 model runner instead.",
        ),
        (
            "0.23.0",
            "vllm.py:535",
            "Model Runner V2 does not yet support speculative method 'draft_model'; using the V1 model runner instead.",
        ),
    ] {
        let r = run("h100-sxm", vllm, cmd);
        ok(&r);
        assert_eq!(runner(&r), ModelRunner::V1, "{vllm}");
        let w = warnings(&r);
        assert!(w.iter().any(|(l, t)| l == at && t == text), "{vllm}: {w:?}");
    }
    // ngram: its own entry.
    let r = run(
        "h100-sxm",
        "0.22.0",
        r#"vllm serve Qwen/Qwen3-8B --speculative-config '{"method":"ngram","num_speculative_tokens":2}'"#,
    );
    assert!(warnings(&r).iter().any(|(_, t)| t
        == "Model runner v2 does not yet support ngram/ngram_gpu speculative decoding; using the v1 model runner \
            instead."));
    // 0.20.0: no such warning (V2 is opt-in).
    let r = run("h100-sxm", "0.20.0", cmd);
    ok(&r);
    assert_eq!(runner(&r), ModelRunner::V1);
    assert!(!warnings(&r).iter().any(|(_, t)| t.contains("does not yet support")));
}

/// 0.20.0-0.21.0's `_verify_args`: EAGLE-3 only on targets whose text model_type contains one of
/// aux_hidden_states_supported; Mistral's `mistral` does not. 0.22.0 removed the check.
#[test]
fn eagle3_needs_an_aux_hidden_states_target_before_0_22_0() {
    let cmd = format!("vllm serve mistralai/Mistral-7B-Instruct-v0.1 {EAGLE3}");
    for (vllm, at, laguna) in [
        ("0.20.0", "vllm/config/speculative.py:929", ""),
        ("0.21.0", "vllm/config/speculative.py:999", ", 'laguna'"),
    ] {
        let e = run("h100-sxm", vllm, &cmd).error.expect("vLLM refuses it");
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(
            e.message,
            format!(
                "eagle3 is only supported for ['llama', 'qwen', 'minicpm', 'gpt_oss', 'hunyuan_vl', \
                 'hunyuan_v1_dense', 'afmoe', 'nemotron_h', 'deepseek_v2', 'deepseek_v3', 'kimi_k2', 'kimi_k25', \
                 'minimax_m2', 'gemma4'{laguna}] models. Got self.target_model_config.hf_text_config.model_type='mistral'"
            )
        );
        assert!(e.source.as_deref().unwrap().ends_with(at), "{:?}", e.source);
    }
    let r = run("h100-sxm", "0.22.0", &cmd);
    assert_eq!(r.error, None);
    assert_eq!(drafters(&r).len(), 1);
    // Gemma-3's text config is gemma3_text.
    let e = run("h100-sxm", "0.20.0", &format!("vllm serve google/gemma-3-4b-it {EAGLE3}"))
        .error
        .unwrap();
    assert!(e.message.ends_with("model_type='gemma3_text'"), "{}", e.message);
}

/// A dotted module path as the model is a custom proposer class from 0.22.0; before, a draft model's name.
#[test]
fn custom_class_from_0_22_0() {
    let cmd = format!(r#"{LLAMA} --speculative-config '{{"model":"my_pkg.MyProposer","num_speculative_tokens":2}}'"#);
    let method = |vllm| run("h100-sxm", vllm, &cmd).speculative.map(|s| s.method);
    assert_eq!(method("0.21.0").as_deref(), Some("draft_model"));
    assert_eq!(method("0.22.0").as_deref(), Some("custom_class"));
}

/// VLLM_USE_V2_MODEL_RUNNER=1 with a feature V2 does not support: `_validate_v2_model_runner` raises. Before 0.22.0
/// ngram is one of the methods not in ("eagle", "eagle3", "mtp"); 0.22.0 gives it its own entry; 0.23.0 renames the
/// message; a hybrid model (has_inner_state) is unsupported before 0.23.0.
#[test]
fn v2_runner_forced_on_an_unsupported_feature_raises() {
    let ngram = r#"vllm serve Qwen/Qwen3-8B --speculative-config '{"method":"ngram","num_speculative_tokens":2}'"#;
    for (vllm, at, text) in [
        (
            "0.20.0",
            "vllm/config/vllm.py:1825",
            "VLLM_USE_V2_MODEL_RUNNER does not yet support: speculative method 'ngram'",
        ),
        (
            "0.20.1",
            "vllm/config/vllm.py:1835",
            "VLLM_USE_V2_MODEL_RUNNER does not yet support: speculative method 'ngram'",
        ),
        (
            "0.21.0",
            "vllm/config/vllm.py:1893",
            "VLLM_USE_V2_MODEL_RUNNER does not yet support: speculative method 'ngram'",
        ),
        (
            "0.22.0",
            "vllm/config/vllm.py:2064",
            "VLLM_USE_V2_MODEL_RUNNER does not yet support: ngram/ngram_gpu speculative decoding",
        ),
        (
            "0.23.0",
            "vllm/config/vllm.py:2069",
            "Model Runner V2 does not yet support: ngram/ngram_gpu speculative decoding",
        ),
        (
            "0.24.0",
            "vllm/config/vllm.py:2099",
            "Model Runner V2 does not yet support: ngram/ngram_gpu speculative decoding",
        ),
    ] {
        let e = run("h100-sxm", vllm, &format!("VLLM_USE_V2_MODEL_RUNNER=1 {ngram}"))
            .error
            .expect("vLLM refuses it");
        assert_eq!((e.kind, e.message.as_str()), (ScenarioErrorKind::ValueError, text), "{vllm}");
        assert!(e.source.as_deref().unwrap().ends_with(at), "{vllm}: {:?}", e.source);
        // VLLM_USE_V2_MODEL_RUNNER=0: the V1 runner, no error.
        let r = run("h100-sxm", vllm, &format!("VLLM_USE_V2_MODEL_RUNNER=0 {ngram}"));
        ok(&r);
        assert_eq!(runner(&r), ModelRunner::V1, "{vllm}");
    }
    // 0.32.0 supports ngram on V2.
    let r = run("h100-sxm", "0.32.0", &format!("VLLM_USE_V2_MODEL_RUNNER=1 {ngram}"));
    ok(&r);
    assert_eq!(runner(&r), ModelRunner::V2);
    // The hybrid Qwen3-Next's MTP drafter.
    let mtp = format!(r#"VLLM_USE_V2_MODEL_RUNNER=1 {QWEN3_NEXT} {MTP}"#);
    for vllm in ["0.21.0", "0.22.1"] {
        let e = run("b200", vllm, &mtp).error.expect("vLLM refuses it");
        assert_eq!(
            e.message, "VLLM_USE_V2_MODEL_RUNNER does not yet support: hybrid/mamba models",
            "{vllm}"
        );
    }
    let r = run("b200", "0.23.0", &mtp);
    ok(&r);
    assert_eq!(runner(&r), ModelRunner::V2);
}

/// 0.22.x's one default-V2 architecture, Qwen3ForCausalLM, unquantized, with an EAGLE-3 head: Model Runner V2, from
/// `use_v2_model_runner` (vllm.py:493@0.22.0); Llama is V1 there.
#[test]
fn qwen3_is_default_v2_in_0_22() {
    let cmd = format!("vllm serve Qwen/Qwen3-8B {EAGLE3}");
    for vllm in ["0.22.0", "0.22.1"] {
        let r = run("h100-sxm", vllm, &cmd);
        ok(&r);
        assert_eq!(runner(&r), ModelRunner::V2, "{vllm}");
        let (src, outcome) = spec_step(&r, "model runner");
        assert!(src.ends_with("vllm/config/vllm.py:493"), "{vllm}: {src}");
        assert!(outcome.starts_with("a default-V2 architecture, not quantized"), "{outcome}");
        assert_eq!(drafters(&r).len(), 1);
    }
    let r = run("h100-sxm", "0.21.0", &cmd);
    ok(&r);
    assert_eq!(runner(&r), ModelRunner::V1);
}

/// DeepSeek-V3.2 with an fp8 cache and its MTP drafter: the target's sparse MLA backend writes fp8_ds_mla to
/// cache_config.cache_dtype, which the drafter (built after the target) reads; before 0.24.0 that is FLASHMLA_SPARSE's
/// own write-back (mla_attention.py:396@0.20.0, 403@0.23.0).
#[test]
fn the_drafter_reads_the_sparse_fp8_write_back() {
    for (vllm, at) in [
        ("0.20.0", "vllm/model_executor/layers/attention/mla_attention.py:396"),
        ("0.21.0", "vllm/model_executor/layers/attention/mla_attention.py:394"),
        ("0.23.0", "vllm/model_executor/layers/attention/mla_attention.py:403"),
        ("0.24.0", "vllm/model_executor/layers/attention/mla_attention.py:418"),
    ] {
        let r = run(
            "h100-sxm",
            vllm,
            &format!("vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8 --kv-cache-dtype fp8 {MTP}"),
        );
        let d = drafters(&r);
        assert_eq!(
            (d[0].backend, d[0].cache_dtype.as_str()),
            (Backend::FlashMlaSparse, "fp8_ds_mla"),
            "{vllm}"
        );
        let s = r.speculative.as_ref().unwrap();
        assert_eq!(s.kv_cache_dtype, "fp8_ds_mla", "{vllm}");
        let step = s.trace.iter().rfind(|t| t.rule == "drafter cache dtype").unwrap();
        assert_eq!(step.source().as_deref(), Some(at), "{vllm}");
        assert!(step.outcome.contains("rewrote from fp8 to fp8_ds_mla"), "{}", step.outcome);
    }
}
