//! Golden cases for speculative decoding's drafter (`qpath_core::drafter`, `docs/source-notes/spec-decode.md`), each at
//! the first release that has the behaviour and at 0.33.0: an MTP drafter on the hybrid Qwen3-Next, an EAGLE-3 head
//! with its own config, a separate draft model, a drafter whose backend differs from the target's forced one, the SM90
//! sliding-window error of a FlashInfer drafter, methods without attention layers, and the speculative config's
//! errors. Texts and lines are the released sources' (`/work/vllm-src/vllm-<VER>/vllm/...`).

mod common;
use common::run;
use qpath_core::report::ModelRunner;
use qpath_core::report::{Backend, GroupErrorKind, GroupReport, GroupRole, Kernel, LogLevel, Report, ScenarioErrorKind, Stage};

const QWEN3_NEXT: &str = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct";
const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const EAGLE3: &str = r#"--speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3}'"#;

fn drafters(r: &Report) -> Vec<&GroupReport> {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    r.groups.iter().filter(|g| g.role == GroupRole::Drafter).collect()
}

/// The one drafter group, after every target group.
fn drafter(r: &Report) -> &GroupReport {
    let d = drafters(r);
    assert_eq!(d.len(), 1, "{:#?}", r.groups);
    let last_target = r.groups.iter().rposition(|g| g.role == GroupRole::Target).unwrap();
    assert!(r.groups.iter().position(|g| g.role == GroupRole::Drafter).unwrap() > last_target);
    d[0]
}

fn target_groups(r: &Report) -> Vec<&GroupReport> {
    r.groups.iter().filter(|g| g.role == GroupRole::Target).collect()
}

/// The scenario logs `text` at `level` from `file:line`.
fn assert_log(r: &Report, level: LogLevel, location: &str, text: &str) {
    let rec = r.log_records.iter().find(|l| l.text == text);
    let rec = rec.unwrap_or_else(|| panic!("no log line {text:?} in {:#?}", r.log_records));
    assert_eq!((rec.level, rec.location().as_str()), (level, location), "{text}");
}

fn has_step(g: &GroupReport, rule: &str, source: &str) -> bool {
    g.trace
        .iter()
        .any(|s| s.rule == rule && s.source().as_deref() == Some(source))
}

#[test]
fn mtp_on_the_hybrid_qwen3_next() {
    // 0.24.0: `qwen3_next_mtp` is in MTPModelTypes (speculative.py:45) and deprecated in favour of mtp; Qwen3-Next is
    // not a default-V2 architecture, so the V1 runner loads the drafter, which never inherits --attention-backend.
    let spec = r#"--speculative-config '{"method":"qwen3_next_mtp","num_speculative_tokens":2}'"#;
    for (vllm, deprecated, multi, runner, proposer) in [
        (
            "0.24.0",
            "speculative.py:590",
            "speculative.py:761",
            ModelRunner::V1,
            "vllm/v1/spec_decode/llm_base_proposer.py:1212",
        ),
        (
            "0.33.0",
            "speculative.py:1247",
            "speculative.py:1491",
            ModelRunner::V2,
            "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:80",
        ),
    ] {
        let r = run("b200", vllm, &format!("{QWEN3_NEXT} {spec}"));
        let s = r.speculative.as_ref().unwrap();
        assert_eq!(
            (s.method.as_str(), s.runner, s.attention_layers),
            ("mtp", runner, true),
            "{vllm}"
        );
        assert_eq!(s.model.as_deref(), Some("Qwen/Qwen3-Next-80B-A3B-Instruct"));
        assert_log(
            &r,
            LogLevel::Warning,
            deprecated,
            "method `qwen3_next_mtp` is deprecated and replaced with mtp.",
        );
        assert_log(
            &r,
            LogLevel::Warning,
            multi,
            "Enabling num_speculative_tokens > 1 will run multiple times of forward on same MTP layer,which may result \
             in lower acceptance rate",
        );
        // The config-time warnings come before the backend selection's lines.
        assert_eq!(r.log_records[0].location(), deprecated);
        let d = drafter(&r);
        // One MTP layer, `mtp.layers.0` (extract_layer_index → 0), the target's full-attention shape, no window.
        assert_eq!(d.layers, vec![0]);
        assert_eq!(
            (d.num_q_heads, d.num_kv_heads, d.head_dim, d.sliding_window),
            (16, 2, 256, None)
        );
        assert_eq!(d.backend, Backend::FlashInfer);
        assert_eq!(
            (d.kernel.prefill, d.kernel.decode),
            (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen))
        );
        assert_eq!(d.error, None);
        assert!(has_step(d, "drafter backend", proposer), "{vllm}: {:#?}", d.trace);
        // The target keeps its GDN and full-attention groups; its decodes take 1 + 2 query tokens on trtllm-gen.
        let t = target_groups(&r);
        assert_eq!(
            t.iter().map(|g| g.backend).collect::<Vec<_>>(),
            vec![Backend::GdnAttn, Backend::FlashInfer]
        );
        let step = t[1].trace.iter().find(|s| s.rule == "speculative decoding").unwrap();
        assert!(
            step.outcome.starts_with("reorder_batch_threshold = 1 + 2"),
            "{}",
            step.outcome
        );
    }
}

#[test]
fn mtp_with_the_current_name_logs_no_deprecation() {
    let r = run(
        "b200",
        "0.33.0",
        &format!(r#"{QWEN3_NEXT} --speculative-config '{{"method":"mtp","num_speculative_tokens":1}}'"#),
    );
    assert!(r.log_records.iter().all(|l| !l.text.contains("deprecated")));
    assert!(r
        .log_records
        .iter()
        .all(|l| !l.text.contains("Enabling num_speculative_tokens")));
    assert_eq!(drafter(&r).layers, vec![0]);
}

#[test]
fn an_eagle3_head_with_its_own_config() {
    // The method comes from the name ("eagle3" in the model id); the head's one layer is named from the target's 32
    // layers (llama_eagle3.py start_layer_id = target_layer_num), so it is layer 32.
    for (vllm, runner, backend) in [
        // 0.24.0: LlamaForCausalLM is a default-V2 architecture: V2 loads the head with the target's VllmConfig.
        ("0.24.0", ModelRunner::V2, Backend::FlashInfer),
        // 0.25.0: Llama left the default-V2 list: V1 auto-selects, FLASH_ATTN first on SM90.
        ("0.25.0", ModelRunner::V1, Backend::FlashAttn),
        ("0.33.0", ModelRunner::V2, Backend::FlashInfer),
    ] {
        let r = run("h100-sxm", vllm, &format!("{LLAMA} --attention-backend FLASHINFER {EAGLE3}"));
        let s = r.speculative.as_ref().unwrap();
        assert_eq!((s.method.as_str(), s.runner), ("eagle3", runner), "{vllm}");
        let d = drafter(&r);
        assert_eq!(d.layers, vec![32], "{vllm}");
        assert_eq!((d.num_q_heads, d.num_kv_heads, d.head_dim), (32, 8, 128));
        assert_eq!(d.backend, backend, "{vllm}");
        assert_eq!(target_groups(&r)[0].backend, Backend::FlashInfer);
        let name_step = if vllm == "0.24.0" {
            "vllm/config/speculative.py:744"
        } else {
            ""
        };
        if !name_step.is_empty() {
            assert!(has_step(d, "method", name_step), "{:#?}", d.trace);
        }
    }
}

#[test]
fn the_drafter_backend_differs_from_the_target_forced_one() {
    // 0.25.0, V1: "Never inherit the attention backend from base" (llm_base_proposer.py:1299): the target is forced
    // to FLASHINFER, the head auto-selects FLASH_ATTN, and its selection logs its own line.
    let r = run(
        "h100-sxm",
        "0.25.0",
        &format!("{LLAMA} --attention-backend FLASHINFER {EAGLE3}"),
    );
    let d = drafter(&r);
    assert_eq!(d.backend, Backend::FlashAttn);
    assert!(has_step(
        d,
        "drafter backend",
        "vllm/v1/spec_decode/llm_base_proposer.py:1299"
    ));
    assert_log(
        &r,
        LogLevel::Info,
        "cuda.py:416",
        "Using AttentionBackendEnum.FLASHINFER backend.",
    );
    assert_log(
        &r,
        LogLevel::Info,
        "cuda.py:476",
        "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION'].",
    );
    // 0.33.0, V2: the head inherits FLASHINFER unless the speculative config names a backend (apply_draft_overrides,
    // eagle/utils.py:86) or the V1 runner is forced.
    let spec = r#"--speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3,"attention_backend":"FLASH_ATTN"}'"#;
    let r = run(
        "h100-sxm",
        "0.33.0",
        &format!("{LLAMA} --attention-backend FLASHINFER {spec}"),
    );
    let d = drafter(&r);
    assert_eq!(d.backend, Backend::FlashAttn);
    assert!(has_step(
        d,
        "drafter backend",
        "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:86"
    ));
    let r = run(
        "h100-sxm",
        "0.33.0",
        &format!("VLLM_USE_V2_MODEL_RUNNER=0 {LLAMA} --attention-backend FLASHINFER {EAGLE3}"),
    );
    assert_eq!(r.speculative.as_ref().unwrap().runner, ModelRunner::V1);
    assert_eq!(drafter(&r).backend, Backend::FlashAttn);
    // The V1 rule is in every release: at 0.24.0 (Llama on V2 by default) with VLLM_USE_V2_MODEL_RUNNER=0 the head
    // auto-selects too (llm_base_proposer.py:1212).
    let r = run(
        "h100-sxm",
        "0.24.0",
        &format!("VLLM_USE_V2_MODEL_RUNNER=0 {LLAMA} --attention-backend FLASHINFER {EAGLE3}"),
    );
    let d = drafter(&r);
    assert_eq!(d.backend, Backend::FlashAttn);
    assert!(has_step(
        d,
        "drafter backend",
        "vllm/v1/spec_decode/llm_base_proposer.py:1212"
    ));
    // 0.24.0-0.29.0, V2: the speculative config's attention_backend is not read (eagle/utils.py load_eagle_model).
    let r = run(
        "h100-sxm",
        "0.24.0",
        &format!("{LLAMA} --attention-backend FLASHINFER {spec}"),
    );
    assert_eq!(drafter(&r).backend, Backend::FlashInfer);
}

#[test]
fn a_separate_draft_model() {
    // No method: draft_model (speculative.py:587 at 0.24.0). Qwen3ForCausalLM is default-V2 at 0.24.0, but V2 does not
    // support draft_model, so vLLM warns and uses V1.
    let spec = r#"--speculative-config '{"model":"Qwen/Qwen3-0.6B","num_speculative_tokens":4}'"#;
    let r = run(
        "h100-sxm",
        "0.24.0",
        &format!("vllm serve Qwen/Qwen3-8B --attention-backend FLASHINFER {spec}"),
    );
    let s = r.speculative.as_ref().unwrap();
    assert_eq!((s.method.as_str(), s.runner), ("draft_model", ModelRunner::V1));
    assert_log(
        &r,
        LogLevel::Warning,
        "vllm.py:541",
        "Model Runner V2 does not yet support speculative method 'draft_model'; using the V1 model runner instead.",
    );
    let d = drafter(&r);
    assert_eq!(d.layers, (0..28).collect::<Vec<u32>>());
    assert_eq!((d.num_q_heads, d.num_kv_heads, d.head_dim), (16, 8, 128));
    assert_eq!(d.backend, Backend::FlashAttn, "V1 auto-selects on SM90");
    // 0.33.0: the V2 standalone speculator loads the draft with the target's VllmConfig: the forced FLASHINFER.
    let r = run(
        "h100-sxm",
        "0.33.0",
        &format!("vllm serve Qwen/Qwen3-8B --attention-backend FLASHINFER {spec}"),
    );
    assert_eq!(r.speculative.as_ref().unwrap().runner, ModelRunner::V2);
    let d = drafter(&r);
    assert_eq!(d.backend, Backend::FlashInfer);
    assert!(has_step(
        d,
        "drafter backend",
        "vllm/v1/worker/gpu/spec_decode/standalone_ar/speculator.py:101"
    ));
}

#[test]
fn a_flashinfer_drafter_with_sliding_windows_on_sm90() {
    // 0.25.0-0.29.0: FlashInferMetadataBuilder.__init__ raises on SM90 for a group with windows (flashinfer.py:757 at
    // 0.25.0); the drafter (Mistral-7B-v0.1, window 4096 on every layer) is FlashInfer through the speculative
    // config, the target auto-selects FLASH_ATTN and runs.
    let spec = r#"--speculative-config '{"model":"mistralai/Mistral-7B-Instruct-v0.1","num_speculative_tokens":3,"attention_backend":"FLASHINFER"}'"#;
    let r = run("h100-sxm", "0.25.0", &format!("{LLAMA} {spec}"));
    let t = target_groups(&r);
    assert_eq!((t[0].backend, t[0].error.as_ref()), (Backend::FlashAttn, None));
    let d = drafter(&r);
    assert_eq!(d.backend, Backend::FlashInfer);
    assert!(d.sliding_window.is_some());
    let e = d.error.as_ref().expect("the drafter's builder raises");
    assert_eq!((e.kind, e.stage), (GroupErrorKind::NotImplementedError, Stage::Init));
    assert_eq!(
        e.message,
        "FlashInfer backend on SM90 currently crashes with sliding-window attention layers. Use the default attention backend."
    );
    assert_eq!(e.source.as_deref(), Some("vllm/v1/attention/backends/flashinfer.py:757"));
    // 0.30.0 removed the check; 0.33.0 runs the drafter.
    let r = run("h100-sxm", "0.33.0", &format!("{LLAMA} {spec}"));
    assert_eq!(drafter(&r).error, None);
}

#[test]
fn methods_without_attention_layers_add_no_group() {
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run(
            "b200",
            vllm,
            &format!(r#"{LLAMA} --speculative-config '{{"method":"ngram","num_speculative_tokens":3}}'"#),
        );
        let s = r.speculative.as_ref().unwrap();
        assert_eq!((s.method.as_str(), s.attention_layers), ("ngram", false));
        assert!(drafters(&r).is_empty());
        // The target still sees the verification batches: trtllm-gen takes 1 + 3 query tokens as a decode.
        let step = r.groups[0].trace.iter().find(|x| x.rule == "speculative decoding").unwrap();
        assert!(
            step.outcome.starts_with("reorder_batch_threshold = 1 + 3"),
            "{}",
            step.outcome
        );
    }
    // 0.24.0-0.31.0: V2 does not support ngram.
    let r = run(
        "b200",
        "0.24.0",
        r#"vllm serve Qwen/Qwen3-8B --speculative-config '{"method":"ngram","num_speculative_tokens":3}'"#,
    );
    assert_log(
        &r,
        LogLevel::Warning,
        "vllm.py:541",
        "Model Runner V2 does not yet support ngram/ngram_gpu speculative decoding; using the V1 model runner instead.",
    );
}

#[test]
fn verification_batches_without_spec_as_decode_are_prefills() {
    // SM90 at 0.25.0: the XQA decode kernel takes one query token, so the threshold stays 1.
    let r = run(
        "h100-sxm",
        "0.25.0",
        &format!("{LLAMA} --attention-backend FLASHINFER {EAGLE3}"),
    );
    let step = r.groups[0].trace.iter().find(|x| x.rule == "speculative decoding").unwrap();
    assert!(
        step.outcome.starts_with("reorder_batch_threshold = 1 (the decode kernel xqa"),
        "{}",
        step.outcome
    );
    assert_eq!(step.source().as_deref(), Some("vllm/v1/attention/backends/flashinfer.py:741"));
    // 0.30.0+: any TRTLLM-API kernel, XQA included.
    let r = run(
        "h100-sxm",
        "0.33.0",
        &format!("{LLAMA} --attention-backend FLASHINFER {EAGLE3}"),
    );
    let step = r.groups[0].trace.iter().find(|x| x.rule == "speculative decoding").unwrap();
    assert!(
        step.outcome.starts_with("reorder_batch_threshold = 1 + 3"),
        "{}",
        step.outcome
    );
}

#[test]
fn the_speculative_config_errors_are_vllms() {
    let error = |vllm: &str, command: String| run("h100-sxm", vllm, &command).error.expect("vLLM rejects it");
    // A number of tokens without a model or a method: draft_model without a model.
    for (vllm, at) in [("0.24.0", "speculative.py:626"), ("0.33.0", "speculative.py:1293")] {
        let e = error(
            vllm,
            format!(r#"{LLAMA} --speculative-config '{{"num_speculative_tokens":2}}'"#),
        );
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(
            e.message,
            "num_speculative_tokens was provided but without speculative model."
        );
        assert!(e.source.as_deref().unwrap().ends_with(at), "{:?}", e.source);
    }
    // mtp on a model without MTP layers: its model_type is not an MTP type.
    for (vllm, at) in [("0.24.0", "speculative.py:769"), ("0.33.0", "speculative.py:1499")] {
        let e = error(
            vllm,
            r#"vllm serve Qwen/Qwen3-8B --speculative-config '{"method":"mtp","num_speculative_tokens":1}'"#.to_string(),
        );
        assert_eq!(
            (e.kind, e.message.as_str()),
            (
                ScenarioErrorKind::NotImplementedError,
                "Unsupported speculative method: 'mtp'"
            )
        );
        assert!(e.source.as_deref().unwrap().ends_with(at), "{:?}", e.source);
    }
    // The same method on a model described by --hf-overrides alone: its model_type (which decides MTP) is unknown,
    // so qpath says it cannot model it rather than answer with vLLM's NotImplementedError (issue 24, item 3).
    for vllm in ["0.24.0", "0.33.0"] {
        let r = run(
            "h100-sxm",
            vllm,
            r#"vllm serve my-org/my-model --hf-overrides '{"num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 128}' --speculative-config '{"method":"mtp","num_speculative_tokens":2}'"#,
        );
        assert_eq!(r.error, None, "{vllm}: {:?}", r.error);
        assert_eq!(r.verdict, qpath_core::report::Verdict::CannotModel, "{vllm}");
        assert!(
            r.notes.iter().any(|n| n.text.starts_with(
                "qpath cannot model this: the speculative method `mtp` is decided by the model's `model_type` (an MTP \
                 head is found by it), and for `my-org/my-model` qpath reads no model_type (a model described by \
                 `--hf-overrides` alone)"
            )),
            "{vllm}: {:?}",
            r.notes
        );
    }
    // Overrides that name a type (Qwen3.5's) do not make it one qpath knows: still "cannot model", not vLLM's error.
    let r = run(
        "h100-sxm",
        "0.33.0",
        r#"vllm serve my-org/my-model --hf-overrides '{"model_type": "qwen3_5", "num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 128}' --speculative-config '{"method":"mtp","num_speculative_tokens":1}'"#,
    );
    assert_eq!(
        (r.error.as_ref(), r.verdict),
        (None, qpath_core::report::Verdict::CannotModel),
        "{:?}",
        r.notes
    );
    // 0.33.0 removed medusa from SpeculativeMethod: pydantic's literal error.
    let e = error(
        "0.33.0",
        format!(r#"{LLAMA} --speculative-config '{{"method":"medusa","num_speculative_tokens":1}}'"#),
    );
    assert!(e.message.contains("literal_error"), "{}", e.message);
    // An unknown backend name: AttentionBackendEnum[...] raises KeyError, which pydantic does not catch.
    let e = error(
        "0.33.0",
        format!(
            r#"{LLAMA} {}"#,
            r#"--speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":1,"attention_backend":"fa"}'"#
        ),
    );
    assert_eq!(e.message, "KeyError: 'FA'");
    // kv_cache_dtype is a SpeculativeConfig field from 0.26.0; before, an extra input.
    let spec = r#"--speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":1,"kv_cache_dtype":"fp8"}'"#;
    let e = error("0.25.0", format!("{LLAMA} {spec}"));
    assert!(e.message.contains("Extra inputs are not permitted"), "{}", e.message);
    // 0.26.0, V1: the drafter's layers get an fp8 KV spec (llm_base_proposer.py:1303), but the proposer creates its
    // FlashInfer metadata builder with the target's VllmConfig (llm_base_proposer.py:1761), whose cache dtype is
    // "auto": FlashInferBackend.get_fp8_dtype_for_flashinfer("auto") raises.
    let r = run("b200", "0.26.0", &format!("{LLAMA} {spec}"));
    let d = drafter(&r);
    assert!(has_step(
        d,
        "drafter metadata builder",
        "vllm/v1/spec_decode/llm_base_proposer.py:1761"
    ));
    let e = d.error.as_ref().unwrap();
    assert_eq!(
        (e.kind, e.message.as_str()),
        (GroupErrorKind::ValueError, "Unrecognized dtype: auto")
    );
    assert_eq!(target_groups(&r)[0].cache_dtype, "auto");
    // With the same fp8 cache on the target the drafter's builder agrees.
    let r = run("b200", "0.26.0", &format!("{LLAMA} --kv-cache-dtype fp8 {spec}"));
    assert_eq!((drafter(&r).cache_dtype.as_str(), drafter(&r).error.as_ref()), ("fp8", None));
}

/// A scenario whose drafter config.json is `text` (as the CLI attaches a folder's, the HF cache's or
/// `--draft-model-config`'s).
fn run_with_draft(gpu: &str, vllm: &str, command: &str, text: &str) -> Report {
    let mut o = qpath_core::options::ScenarioOptions::default();
    o.set(qpath_core::options::OptionKey::Gpu, gpu).unwrap();
    o.set(qpath_core::options::OptionKey::Vllm, vllm).unwrap();
    let mut s = o.scenario(command).unwrap();
    s.draft_model_config = Some(text.to_string());
    qpath_core::resolve::resolve(&s)
}

/// SpecForge's EAGLE-3 head config for Llama-3.1-8B (`tests/fixtures/drafters/README.md`).
const HEAD_CONFIG: &str = include_str!("fixtures/drafters/llama3-8b-eagle3/config.json");

#[test]
fn an_eagle3_head_read_from_its_folder() {
    // The folder's name says nothing ("/models/head"), so the method is given; EAGLEConfig keeps the architecture
    // LlamaForCausalLMEagle3 (it ends with Eagle3, eagle.py:55-64 in every release), which the registry maps to
    // llama_eagle3.py: one LlamaDecoderLayer from the head's own config (32 query / 8 KV heads of 128), named from the
    // target's 32 layers. Same answer as the preset of the same head, at the first release and the latest.
    let spec = r#"--speculative-config '{"method":"eagle3","model":"/models/head","num_speculative_tokens":3}'"#;
    for (vllm, runner, backend) in [
        ("0.24.0", ModelRunner::V2, Backend::FlashInfer),
        ("0.25.0", ModelRunner::V1, Backend::FlashAttn),
        ("0.33.0", ModelRunner::V2, Backend::FlashInfer),
    ] {
        let cmd = format!("{LLAMA} --attention-backend FLASHINFER {spec}");
        let r = run_with_draft("h100-sxm", vllm, &cmd, HEAD_CONFIG);
        let s = r.speculative.as_ref().unwrap();
        assert_eq!((s.method.as_str(), s.runner), ("eagle3", runner), "{vllm}");
        assert!(
            s.trace.iter().any(|t| t.rule == "drafter config"
                && t.outcome
                    .contains("an eagle3 head, EAGLEConfig names its architecture LlamaForCausalLMEagle3")
                && t.source().as_deref() == Some("vllm/transformers_utils/configs/eagle.py:55")),
            "{:#?}",
            s.trace
        );
        let d = drafter(&r);
        assert_eq!(d.layers, vec![32], "{vllm}");
        assert_eq!((d.num_q_heads, d.num_kv_heads, d.head_dim), (32, 8, 128));
        assert_eq!(d.backend, backend, "{vllm}");
        let preset = run("h100-sxm", vllm, &format!("{LLAMA} --attention-backend FLASHINFER {EAGLE3}"));
        let p = drafter(&preset);
        assert_eq!(
            (p.layers.clone(), p.backend, p.kernel),
            (d.layers.clone(), d.backend, d.kernel)
        );
    }
}

#[test]
fn a_drafter_config_qpath_cannot_read_is_named() {
    let spec = r#"--speculative-config '{"method":"eagle3","model":"/models/head","num_speculative_tokens":3}'"#;
    let cmd = format!("{LLAMA} {spec}");
    // A Qwen3-type head: EAGLEConfig names it Eagle3Qwen3ForCausalLM (qwen3_eagle3.py), not restated.
    let qwen = HEAD_CONFIG.replace("LlamaForCausalLMEagle3", "Qwen3ForCausalLM");
    let r = run_with_draft("h100-sxm", "0.33.0", &cmd, &qwen);
    let e = r.error.as_ref().expect("an input error");
    assert_eq!(e.kind, ScenarioErrorKind::InputError);
    assert!(
        e.message.starts_with(
            "config.json of the drafter /models/head: qpath cannot model this: architectures[0] = \"Qwen3ForCausalLM\", \
             which EAGLEConfig names \"Eagle3Qwen3ForCausalLM\" for method eagle3"
        ),
        "{}",
        e.message
    );
    // Not JSON: the file is named.
    let r = run_with_draft("h100-sxm", "0.33.0", &cmd, "{");
    assert!(r
        .error
        .as_ref()
        .unwrap()
        .message
        .starts_with("config.json of the drafter /models/head is not valid JSON"));
    // A draft model (no EAGLE method, no "eagle" in its name) is read as a target: Llama-3.2-1B's config.
    let draft = r#"--speculative-config '{"model":"/models/small","num_speculative_tokens":3}'"#;
    let small = HEAD_CONFIG
        .replace("LlamaForCausalLMEagle3", "LlamaForCausalLM")
        .replace("\"num_hidden_layers\": 1", "\"num_hidden_layers\": 16");
    let r = run_with_draft("h100-sxm", "0.33.0", &format!("{LLAMA} {draft}"), &small);
    assert_eq!(r.speculative.as_ref().unwrap().method, "draft_model");
    assert_eq!(drafter(&r).layers, (0..16).collect::<Vec<u32>>());
}

#[test]
fn an_unknown_drafter_model_keeps_the_target() {
    let r = run(
        "h100-sxm",
        "0.33.0",
        &format!(r#"{LLAMA} --speculative-config '{{"model":"someone/EAGLE3-unknown","num_speculative_tokens":2}}'"#),
    );
    assert!(r.error.is_none());
    assert_eq!(r.speculative.as_ref().unwrap().method, "eagle3");
    assert!(drafters(&r).is_empty());
    assert_eq!(target_groups(&r).len(), 1);
    assert!(r
        .notes
        .iter()
        .any(|n| n.starts_with("qpath cannot model this: the eagle3 drafter `someone/EAGLE3-unknown`")));
}

#[test]
fn a_spec_decode_downgrade_moves_the_first_error_to_the_prefill() {
    // L4 at 0.25.0-prefix with an fp8 cache: FA2's FP8 assertion in both phases. With full decode graphs (-O2) the
    // decode's JIT error fires first, at capture; speculative decoding makes FlashInfer (UNIFORM_SINGLE_TOKEN_DECODE on
    // SM89) drop to PIECEWISE (compilation.py:1409), so no decode is captured and the first prefill raises first.
    let base = format!("{LLAMA} --kv-cache-dtype fp8 --attention-backend FLASHINFER");
    let r = run("l4", "0.25.0-prefix", &base);
    assert_eq!(r.groups[0].error.as_ref().unwrap().stage, Stage::DecodeJit);
    assert_eq!(r.cuda_graphs.as_ref().unwrap().mode, "FULL_AND_PIECEWISE");
    let spec = r#"--speculative-config '{"method":"ngram","num_speculative_tokens":2}'"#;
    let r = run("l4", "0.25.0-prefix", &format!("{base} {spec}"));
    let cg = r.cuda_graphs.as_ref().unwrap();
    assert_eq!((cg.requested.as_str(), cg.mode.as_str()), ("FULL_AND_PIECEWISE", "PIECEWISE"));
    assert_log(
        &r,
        LogLevel::Warning,
        "compilation.py:1409",
        "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention backend FlashInferBackend \
         (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting cudagraph_mode=PIECEWISE",
    );
    let e = r.groups[0].error.as_ref().unwrap();
    assert_eq!(
        (e.stage, e.message.as_str()),
        (Stage::PrefillJit, "fp8 tensor core is not supported in fa2 backend")
    );
    let step = r.groups[0].trace.iter().find(|s| s.rule == "first error").unwrap();
    assert!(step
        .outcome
        .starts_with("cudagraph_mode PIECEWISE (resolved by the runner from FULL_AND_PIECEWISE"));
}
