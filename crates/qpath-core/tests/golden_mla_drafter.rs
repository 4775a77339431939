//! Golden cases for speculative decoding's drafters on DeepSeek-architecture (MLA) targets (issue 21 item 4;
//! `docs/source-notes/spec-decode.md` §6, `docs/source-notes/mla-models.md` §4), each at the first release that has
//! the rule and at 0.33.0: DeepSeek MTP (`method: mtp` and the deprecated `deepseek_mtp`) on DeepSeek-V3 / V3.2 /
//! GLM-5, its model runner (V1 before 0.29.0, V2 from 0.29.0) and the backend and cache dtype its MLA layer gets,
//! Kimi-K2's and DeepSeek-V2-Lite's `Unsupported speculative method`, the `n_predict` check, DeepSeek-V3.2's eager
//! drafter (0.24.0-0.28.0), and an EAGLE-3 Llama-type head on an MLA target: the forced MLA backend it inherits on V2
//! and the `fp8_ds_mla` cache it inherits. Texts and lines are the released sources'
//! (`/work/vllm-src/vllm-<VER>/vllm/...`).
//!
//! The MLA group path (query dtypes, kernels) is not modelled yet: these cases assert backends, roles, layers, cache
//! dtypes, errors and the trace's cited lines.

mod common;
use common::run;
use qpath_core::report::{Backend, GroupReport, GroupRole, LogLevel, ModelRunner, Report, ScenarioErrorKind};
use qpath_core::resolve::{resolve, Hardware, Scenario};

const V3: &str = "vllm serve deepseek-ai/DeepSeek-V3";
const V32: &str = "vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8";
const MTP1: &str = r#"--speculative-config '{"method":"mtp","num_speculative_tokens":1}'"#;
const EAGLE3: &str = r#"--speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3}'"#;
const DEEPSEEK_V3_CONFIG: &str = include_str!("fixtures/deepseek-v3.config.json");

fn ok(r: &Report) -> &Report {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    r
}

/// The one drafter group, after every target group.
fn drafter(r: &Report) -> &GroupReport {
    let d: Vec<&GroupReport> = ok(r).groups.iter().filter(|g| g.role == GroupRole::Drafter).collect();
    assert_eq!(d.len(), 1, "{:#?}", r.groups);
    let last_target = r.groups.iter().rposition(|g| g.role == GroupRole::Target).unwrap();
    assert!(r.groups.iter().position(|g| g.role == GroupRole::Drafter).unwrap() > last_target);
    d[0]
}

/// The target's MLA group (a sparse model also has its indexer-cache group).
fn target(r: &Report) -> &GroupReport {
    let t: Vec<&GroupReport> = ok(r)
        .groups
        .iter()
        .filter(|g| g.role == GroupRole::Target && g.attention != qpath_core::report::AttentionKind::Indexer)
        .collect();
    assert_eq!(t.len(), 1, "{:#?}", r.groups);
    t[0]
}

/// The group's trace has a step of `rule` citing `source`.
fn has_step(g: &GroupReport, rule: &str, source: &str) -> bool {
    g.trace
        .iter()
        .any(|s| s.rule == rule && s.source().as_deref() == Some(source))
}

fn step<'a>(g: &'a GroupReport, rule: &str, source: &str) -> &'a str {
    let s = g
        .trace
        .iter()
        .find(|s| s.rule == rule && s.source().as_deref() == Some(source));
    &s.unwrap_or_else(|| panic!("no step {rule} [{source}] in {:#?}", g.trace))
        .outcome
}

/// The scenario logs `text` at `level` from `file:line`.
fn assert_log(r: &Report, level: LogLevel, location: &str, text: &str) {
    let rec = r.log_records.iter().find(|l| l.text == text);
    let rec = rec.unwrap_or_else(|| panic!("no log line {text:?} in {:#?}", r.log_records));
    assert_eq!((rec.level, rec.location().as_str()), (level, location), "{text}");
}

fn error(r: &Report) -> (ScenarioErrorKind, &str, &str) {
    let e = r.error.as_ref().unwrap_or_else(|| panic!("no error: {:#?}", r.groups));
    (e.kind, e.message.as_str(), e.source.as_deref().unwrap_or(""))
}

fn run_config(gpu: &str, vllm: &str, line: &str, config: &str) -> Report {
    let mut s = Scenario::new(
        Hardware::parse(gpu).unwrap(),
        vllm.parse().unwrap(),
        format!("vllm serve deepseek-ai/DeepSeek-V3 {line}"),
    );
    s.model_config = Some(config.to_string());
    resolve(&s)
}

#[test]
fn mtp_on_deepseek_v3_per_runner_on_h200_and_b200() {
    // hf_config_override rewrites deepseek_v3 to deepseek_mtp (DeepSeekMTPModel, n_predict 1); the MTP layer is
    // model.layers.61, an MLA layer like the target's. DeepseekV3ForCausalLM is not a default-V2 architecture before
    // 0.29.0 (V1: the drafter auto-selects), every model defaults to V2 from 0.29.0 (load_eagle_model).
    for (vllm, types, arch, registry, start, block, runner, backend_step) in [
        (
            "0.24.0",
            "vllm/config/speculative.py:312",
            "vllm/config/speculative.py:318",
            "vllm/model_executor/models/registry.py:624",
            "vllm/model_executor/models/deepseek_mtp.py:134",
            "vllm/model_executor/models/deepseek_mtp.py:92",
            ModelRunner::V1,
            "vllm/v1/spec_decode/llm_base_proposer.py:1212",
        ),
        (
            "0.28.0",
            "vllm/config/speculative.py:359",
            "vllm/config/speculative.py:365",
            "vllm/model_executor/models/registry.py:662",
            "vllm/model_executor/models/deepseek_mtp.py:142",
            "vllm/model_executor/models/deepseek_mtp.py:97",
            ModelRunner::V1,
            "vllm/v1/spec_decode/llm_base_proposer.py:1307",
        ),
        (
            "0.29.0",
            "vllm/config/speculative.py:661",
            "vllm/config/speculative.py:667",
            "vllm/model_executor/models/registry.py:650",
            "vllm/model_executor/models/deepseek_mtp.py:144",
            "vllm/model_executor/models/deepseek_mtp.py:99",
            ModelRunner::V2,
            "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:36",
        ),
        (
            "0.33.0",
            "vllm/config/speculative.py:749",
            "vllm/config/speculative.py:755",
            "vllm/model_executor/models/registry.py:715",
            "vllm/model_executor/models/deepseek_mtp.py:151",
            "vllm/model_executor/models/deepseek_mtp.py:106",
            ModelRunner::V2,
            "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:80",
        ),
    ] {
        for (gpu, backend) in [("h200", Backend::FlashAttnMla), ("b200", Backend::FlashInferMla)] {
            let r = run(gpu, vllm, &format!("{V3} {MTP1}"));
            let s = r.speculative.as_ref().unwrap();
            assert_eq!(
                (
                    s.method.as_str(),
                    s.runner,
                    s.attention_layers,
                    s.backend.as_str(),
                    s.kv_cache_dtype.as_str()
                ),
                ("mtp", runner, true, "auto", "auto"),
                "{gpu} {vllm}"
            );
            assert_eq!(s.model.as_deref(), Some("deepseek-ai/DeepSeek-V3"));
            // No deprecation warning for the current name, no re-run warning for one token.
            assert!(r.log_records.iter().all(|l| !l.text.contains("deprecated")));
            assert!(r
                .log_records
                .iter()
                .all(|l| !l.text.contains("Enabling num_speculative_tokens")));
            let d = drafter(&r);
            assert_eq!(d.layers, vec![61], "{gpu} {vllm}");
            assert_eq!((d.num_q_heads, d.num_kv_heads, d.head_dim), (128, 1, 576));
            let mla = d.mla.unwrap();
            assert_eq!((mla.kv_lora_rank, mla.qk_rope_head_dim, mla.index_topk), (512, 64, None));
            // The same MLA backend as the auto-selected target, in a group of its own.
            assert_eq!((d.backend, target(&r).backend), (backend, backend), "{gpu} {vllm}");
            assert_eq!(target(&r).layers.len(), 61);
            assert_eq!(d.cache_dtype, "auto");
            assert_eq!(
                step(d, "draft config", types),
                "hf_config_override: model_type deepseek_v3 → deepseek_mtp"
            );
            assert_eq!(
                step(d, "draft config", arch),
                "architectures [\"DeepSeekMTPModel\"], n_predict = num_nextn_predict_layers = 1"
            );
            assert!(has_step(d, "drafter model", registry), "{vllm}: {:#?}", d.trace);
            assert!(step(d, "drafter layers", start).ends_with("model.layers.61"), "{vllm}");
            assert!(step(d, "drafter layer kind", block).contains("extract_layer_index = 61"));
            assert!(has_step(d, "drafter backend", backend_step), "{vllm}: {:#?}", d.trace);
            // The MTP layer is not re-run for one token, and only V3.2 runs its drafter eagerly.
            assert!(!d
                .trace
                .iter()
                .any(|s| s.rule == "drafter CUDA graphs" || s.rule == "speculative config"));
        }
    }
}

#[test]
fn the_deprecated_deepseek_mtp_name_and_two_tokens() {
    let spec = r#"--speculative-config '{"method":"deepseek_mtp","num_speculative_tokens":2}'"#;
    for (vllm, deprecated, multi, step_line) in [
        (
            "0.24.0",
            "speculative.py:590",
            "speculative.py:761",
            "vllm/model_executor/models/deepseek_mtp.py:185",
        ),
        (
            "0.33.0",
            "speculative.py:1247",
            "speculative.py:1491",
            "vllm/model_executor/models/deepseek_mtp.py:217",
        ),
    ] {
        let r = run("b200", vllm, &format!("{V3} {spec}"));
        assert_eq!(r.speculative.as_ref().unwrap().method, "mtp");
        assert_log(
            &r,
            LogLevel::Warning,
            deprecated,
            "method `deepseek_mtp` is deprecated and replaced with mtp.",
        );
        assert_log(
            &r,
            LogLevel::Warning,
            multi,
            "Enabling num_speculative_tokens > 1 will run multiple times of forward on same MTP layer,which may result \
             in lower acceptance rate",
        );
        // The config-time warnings come before the selection lines.
        assert_eq!(r.log_records[0].location(), deprecated);
        let d = drafter(&r);
        assert_eq!(d.layers, vec![61]);
        assert_eq!(
            step(d, "drafter layers", step_line),
            "speculative step k runs layer 61 + k % 1: the MTP layer(s) are re-run"
        );
    }
}

#[test]
fn a_forced_mla_backend_reaches_the_mtp_layer_only_on_v2() {
    // B200, --attention-backend CUTLASS_MLA: V1 never inherits it (the drafter auto-selects FLASHINFER_MLA, first on
    // 10.x); V2 builds the drafter with the target's VllmConfig (CUTLASS_MLA); the speculative config's
    // attention_backend wins on V2 from 0.30.0 (0.31.0+ through apply_draft_overrides).
    let forced = "--attention-backend CUTLASS_MLA";
    for (vllm, runner, backend, cite) in [
        (
            "0.24.0",
            ModelRunner::V1,
            Backend::FlashInferMla,
            "vllm/v1/spec_decode/llm_base_proposer.py:1212",
        ),
        (
            "0.28.0",
            ModelRunner::V1,
            Backend::FlashInferMla,
            "vllm/v1/spec_decode/llm_base_proposer.py:1307",
        ),
        (
            "0.29.0",
            ModelRunner::V2,
            Backend::CutlassMla,
            "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:36",
        ),
        (
            "0.33.0",
            ModelRunner::V2,
            Backend::CutlassMla,
            "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:80",
        ),
    ] {
        let r = run("b200", vllm, &format!("{V3} {forced} {MTP1}"));
        let s = r.speculative.as_ref().unwrap();
        assert_eq!(s.runner, runner, "{vllm}");
        assert_eq!(target(&r).backend, Backend::CutlassMla);
        let d = drafter(&r);
        assert_eq!(d.backend, backend, "{vllm}");
        assert!(has_step(d, "drafter backend", cite), "{vllm}: {:#?}", d.trace);
    }
    // V1 logs the drafter's own selection after the target's forced one.
    let r = run("b200", "0.24.0", &format!("{V3} {forced} {MTP1}"));
    assert_log(
        &r,
        LogLevel::Info,
        "cuda.py:420",
        "Using AttentionBackendEnum.CUTLASS_MLA backend.",
    );
    assert_log(
        &r,
        LogLevel::Info,
        "cuda.py:480",
        "Using FLASHINFER_MLA attention backend out of potential backends: ['FLASHINFER_MLA', 'CUTLASS_MLA', \
         'TRITON_MLA'].",
    );
    // V2 reads the speculative config's attention_backend from 0.30.0 (eagle/utils.py:97), 0.31.0+ through
    // apply_draft_overrides (eagle/utils.py:86 at 0.33.0); 0.29.0 ignores it.
    let spec = r#"--speculative-config '{"method":"mtp","num_speculative_tokens":1,"attention_backend":"FLASHINFER_MLA"}'"#;
    for (vllm, backend, cite) in [
        (
            "0.29.0",
            Backend::CutlassMla,
            "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:36",
        ),
        (
            "0.30.0",
            Backend::FlashInferMla,
            "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:97",
        ),
        (
            "0.33.0",
            Backend::FlashInferMla,
            "vllm/v1/worker/gpu/spec_decode/eagle/utils.py:86",
        ),
    ] {
        let r = run("b200", vllm, &format!("{V3} {forced} {spec}"));
        let d = drafter(&r);
        assert_eq!(d.backend, backend, "{vllm}");
        assert!(has_step(d, "drafter backend", cite), "{vllm}: {:#?}", d.trace);
    }
}

#[test]
fn mtp_on_kimi_k2_and_deepseek_v2_lite_is_unsupported() {
    // kimi_k2 and deepseek_v2 are not rewritten to deepseek_mtp: the draft's model_type is not an MTP type.
    for (vllm, line) in [
        ("0.24.0", "vllm/config/speculative.py:769"),
        ("0.33.0", "vllm/config/speculative.py:1499"),
    ] {
        for (model, method) in [
            ("moonshotai/Kimi-K2-Instruct -tp 8", "mtp"),
            ("moonshotai/Kimi-K2-Instruct -tp 8", "deepseek_mtp"),
            ("deepseek-ai/DeepSeek-V2-Lite", "mtp"),
        ] {
            let cmd = format!(r#"vllm serve {model} --speculative-config '{{"method":"{method}","num_speculative_tokens":1}}'"#);
            let r = run("h200", vllm, &cmd);
            assert_eq!(
                error(&r),
                (
                    ScenarioErrorKind::NotImplementedError,
                    "Unsupported speculative method: 'mtp'",
                    line
                ),
                "{vllm} {cmd}"
            );
        }
    }
}

#[test]
fn the_n_predict_check_reads_num_nextn_predict_layers() {
    let two = DEEPSEEK_V3_CONFIG.replace("\"num_nextn_predict_layers\": 1", "\"num_nextn_predict_layers\": 2");
    let zero = DEEPSEEK_V3_CONFIG.replace("\"num_nextn_predict_layers\": 1", "\"num_nextn_predict_layers\": 0");
    assert_ne!(two, DEEPSEEK_V3_CONFIG);
    let tokens = |n: u32| format!(r#"--speculative-config '{{"method":"mtp","num_speculative_tokens":{n}}}'"#);
    for (vllm, raise, modulo, step_line) in [
        (
            "0.24.0",
            "vllm/config/speculative.py:816",
            "vllm/config/speculative.py:811",
            "vllm/model_executor/models/deepseek_mtp.py:185",
        ),
        (
            "0.33.0",
            "vllm/config/speculative.py:1609",
            "vllm/config/speculative.py:1604",
            "vllm/model_executor/models/deepseek_mtp.py:217",
        ),
    ] {
        // 3 tokens over 2 MTP layers: not a multiple.
        let r = run_config("h200", vllm, &tokens(3), &two);
        assert_eq!(
            error(&r),
            (
                ScenarioErrorKind::ValueError,
                "num_speculative_tokens:3 must be divisible by n_predict=2",
                raise
            )
        );
        // 4 over 2: two MTP layers, 61 and 62, re-run.
        let r = run_config("h200", vllm, &tokens(4), &two);
        let d = drafter(&r);
        assert_eq!(d.layers, vec![61, 62]);
        assert!(has_step(d, "drafter layers", step_line));
        // 2 over 2: no re-run.
        let r = run_config("h200", vllm, &tokens(2), &two);
        assert!(!has_step(drafter(&r), "drafter layers", step_line));
        // n_predict 0: the modulo raises.
        let r = run_config("h200", vllm, &tokens(1), &zero);
        assert_eq!(
            error(&r),
            (ScenarioErrorKind::ZeroDivisionError, "integer modulo by zero", modulo)
        );
    }
}

#[test]
fn deepseek_v32_mtp_is_eager_until_0_29() {
    // 0.24.0-0.28.0: enforce_eager for a deepseek_v32 target's MTP drafter; the V1 proposer then captures no graphs
    // for it. 0.29.0: the rule is gone, and V3.2's MTP model is vllm/models/deepseek_v32's DeepseekV32MTPModel.
    for (vllm, eager, graphs, registry) in [
        (
            "0.24.0",
            "vllm/config/speculative.py:599",
            "vllm/v1/spec_decode/llm_base_proposer.py:407",
            "vllm/model_executor/models/registry.py:624",
        ),
        (
            "0.28.0",
            "vllm/config/speculative.py:762",
            "vllm/v1/spec_decode/llm_base_proposer.py:432",
            "vllm/model_executor/models/registry.py:662",
        ),
    ] {
        let r = run("b200", vllm, &format!("{V32} {MTP1}"));
        assert_eq!(r.speculative.as_ref().unwrap().runner, ModelRunner::V1);
        let d = drafter(&r);
        assert_eq!(d.layers, vec![61]);
        assert!(d.mla.unwrap().sparse());
        assert_eq!(d.num_q_heads, 16);
        assert_eq!(d.backend, target(&r).backend);
        assert!(step(d, "speculative config", eager).contains("enforce_eager = True"));
        assert!(step(d, "drafter CUDA graphs", graphs).contains("cudagraph mode is NONE"));
        // Before 0.29.0 V3.2's MTP model is deepseek_mtp.py's DeepSeekMTP.
        assert!(step(d, "drafter model", registry).starts_with("DeepSeekMTPModel → deepseek_mtp.py"));
    }
    // The V2 runner (forced by the environment) does not read speculative_config.enforce_eager.
    let r = run("b200", "0.24.0", &format!("VLLM_USE_V2_MODEL_RUNNER=1 {V32} {MTP1}"));
    let d = drafter(&r);
    assert!(step(
        d,
        "drafter CUDA graphs",
        "vllm/v1/worker/gpu/spec_decode/autoregressive/speculator.py:84"
    )
    .contains("does not read speculative_config.enforce_eager"));
    for (vllm, v32_mtp, registry, start, block) in [
        (
            "0.29.0",
            "vllm/config/speculative.py:645",
            "vllm/model_executor/models/registry.py:651",
            "vllm/models/deepseek_v32/nvidia/mtp.py:164",
            "vllm/models/deepseek_v32/nvidia/mtp.py:84",
        ),
        (
            "0.33.0",
            "vllm/config/speculative.py:733",
            "vllm/model_executor/models/registry.py:716",
            "vllm/models/deepseek_v32/nvidia/mtp.py:175",
            "vllm/models/deepseek_v32/nvidia/mtp.py:94",
        ),
    ] {
        let r = run("b200", vllm, &format!("{V32} {MTP1}"));
        assert_eq!(r.speculative.as_ref().unwrap().runner, ModelRunner::V2);
        let d = drafter(&r);
        assert_eq!(d.layers, vec![61]);
        assert!(!d
            .trace
            .iter()
            .any(|s| s.rule == "speculative config" || s.rule == "drafter CUDA graphs"));
        assert!(step(d, "draft config", v32_mtp).starts_with("use_v32_mtp = True"));
        assert!(step(d, "drafter model", registry).starts_with("DeepseekV32MTPModel → vllm/models/deepseek_v32"));
        assert!(has_step(d, "drafter layers", start));
        assert!(step(d, "drafter layer kind", block).contains("DeepseekV32DecoderLayer"));
    }
    // GLM-5 (glm_moe_dsa) is rewritten to deepseek_mtp too, but the eager rule names deepseek_v32 only.
    let r = run("b200", "0.24.0", &format!("vllm serve zai-org/GLM-5 -tp 8 {MTP1}"));
    let d = drafter(&r);
    assert_eq!(d.layers, vec![78]);
    assert!(!d.trace.iter().any(|s| s.rule == "speculative config"));
}

#[test]
fn the_mtp_layer_inherits_the_rewritten_sparse_cache_format() {
    // H200, V3.2 with --kv-cache-dtype fp8: FLASHMLA_SPARSE serves it as fp8_ds_mla and writes that back to
    // cache_config.cache_dtype, which the MTP layer (built after the target, same cache_config) then asks with.
    for (vllm, writeback) in [
        ("0.24.0", "vllm/model_executor/layers/attention/mla_attention.py:418"),
        ("0.33.0", "vllm/model_executor/layers/attention/mla_attention.py:528"),
    ] {
        let r = run("h200", vllm, &format!("{V32} --kv-cache-dtype fp8 {MTP1}"));
        assert_eq!(r.speculative.as_ref().unwrap().kv_cache_dtype, "fp8_ds_mla");
        let d = drafter(&r);
        assert_eq!((d.backend, d.cache_dtype.as_str()), (Backend::FlashMlaSparse, "fp8_ds_mla"));
        assert!(step(d, "drafter cache dtype", writeback).contains("rewrote from fp8 to fp8_ds_mla"));
    }
}

#[test]
fn the_mtp_layer_is_skipped_by_its_index_from_0_26() {
    // model.layers.61: MLA layers read --kv-cache-dtype-skip-layers from 0.26.0 (mla_attention.py:403).
    let flags = "--kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 61";
    let r = run("h200", "0.25.0", &format!("{V3} {flags} {MTP1}"));
    assert_eq!(drafter(&r).cache_dtype, "fp8");
    let r = run("h200", "0.26.0", &format!("{V3} {flags} {MTP1}"));
    let d = drafter(&r);
    assert_eq!((d.layers.as_slice(), d.cache_dtype.as_str()), ([61].as_slice(), "auto"));
    assert_eq!(
        step(
            d,
            "layer cache dtype",
            "vllm/model_executor/layers/attention/mla_attention.py:403"
        ),
        "layer 61 is in --kv-cache-dtype-skip-layers: kv_cache_dtype \"auto\""
    );
    assert_eq!(target(&r).cache_dtype, "fp8");
    // Token 61 names the drafter's layer, so qpath does not call it unmatched.
    assert!(r.notes.iter().all(|n| !n.text.contains("matches no layer")), "{:#?}", r.notes);
}

#[test]
fn an_eagle3_llama_head_on_deepseek_v3_with_a_forced_mla_backend() {
    // B200, --attention-backend FLASHINFER_MLA. V2 (0.29.0+) builds the head with the target's VllmConfig: its
    // standard-attention layer 61 asks the selector with use_mla=False and the forced MLA backend refuses it. The
    // FlashInfer MLA qk_nope check reads the target's config (128), so it adds no reason.
    for (vllm, line, select) in [
        (
            "0.29.0",
            "vllm/platforms/cuda.py:427",
            "vllm/model_executor/layers/attention/attention.py:340",
        ),
        (
            "0.33.0",
            "vllm/platforms/cuda.py:443",
            "vllm/model_executor/layers/attention/attention.py:350",
        ),
    ] {
        let r = run("b200", vllm, &format!("{V3} --attention-backend FLASHINFER_MLA {EAGLE3}"));
        assert_eq!(
            error(&r),
            (
                ScenarioErrorKind::ValueError,
                "Selected backend AttentionBackendEnum.FLASHINFER_MLA is not valid for this configuration. Reason: \
                 ['head_size not supported', 'non-MLA not supported']",
                line
            ),
            "{vllm}"
        );
        let s = r.speculative.as_ref().unwrap();
        assert_eq!(
            (s.method.as_str(), s.runner, s.backend.as_str()),
            ("eagle3", ModelRunner::V2, "FLASHINFER_MLA")
        );
        assert!(s
            .trace
            .iter()
            .any(|t| t.rule == "drafter layer kind" && t.source().as_deref() == Some(select)));
        assert!(r.notes.iter().any(|n| n.text
            == "the error is the drafter's: its layer(s) 61 (yuhuili/EAGLE3-LLaMA3.1-Instruct-8B) are built under \
                backend FLASHINFER_MLA and cache dtype auto (V2 model runner)"));
    }
    // 0.28.0, V1: the head auto-selects among the non-MLA backends (FLASHINFER first on 10.x).
    let r = run("b200", "0.28.0", &format!("{V3} --attention-backend FLASHINFER_MLA {EAGLE3}"));
    let d = drafter(&r);
    assert_eq!(d.layers, vec![61]);
    assert_eq!((d.num_q_heads, d.num_kv_heads, d.head_dim, d.mla), (32, 8, 128, None));
    assert_eq!((d.backend, target(&r).backend), (Backend::FlashInfer, Backend::FlashInferMla));
    assert!(has_step(
        d,
        "drafter backend",
        "vllm/v1/spec_decode/llm_base_proposer.py:1307"
    ));
    // A non-MLA model forced onto FLASHINFER_MLA reads a config without qk_nope_head_dim (default 1).
    let r = run(
        "b200",
        "0.33.0",
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER_MLA",
    );
    assert!(error(&r)
        .1
        .ends_with("'FlashInfer MLA kernel requires qk_nope_head_dim in [64, 128, 192], but got 1']"));
}

#[test]
fn an_eagle3_llama_head_inherits_fp8_ds_mla() {
    // H200, V3.2 with fp8: the target's FLASHMLA_SPARSE rewrites the cache dtype to fp8_ds_mla; the head's
    // standard-attention layer asks the non-MLA backends with it, and none lists it. V1 (0.24.0) and V2 (0.33.0)
    // alike: neither the proposer nor load_eagle_model changes the cache config.
    for (vllm, line) in [
        ("0.24.0", "vllm/platforms/cuda.py:444"),
        ("0.33.0", "vllm/platforms/cuda.py:472"),
    ] {
        let r = run("h200", vllm, &format!("{V32} --kv-cache-dtype fp8 {EAGLE3}"));
        let (kind, message, source) = error(&r);
        assert_eq!((kind, source), (ScenarioErrorKind::ValueError, line), "{vllm}");
        assert!(
            message.starts_with(
                "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=128, \
                 dtype=torch.bfloat16, kv_cache_dtype=fp8_ds_mla, block_size=None, use_mla=False,"
            ),
            "{message}"
        );
        assert!(message.ends_with(
            "Reasons: {FLASH_ATTN: [kv_cache_dtype not supported], FLASHINFER: [kv_cache_dtype not supported], \
             TRITON_ATTN: [kv_cache_dtype not supported], FLEX_ATTENTION: [kv_cache_dtype not supported], \
             TURBOQUANT: [kv_cache_dtype not supported]}."
        ));
        assert_eq!(r.speculative.as_ref().unwrap().kv_cache_dtype, "fp8_ds_mla");
    }
}

#[test]
fn an_eagle3_head_qpath_has_no_config_for() {
    let r = run(
        "b200",
        "0.33.0",
        &format!(r#"{V3} --speculative-config '{{"model":"someone/DeepSeek-V3-EAGLE3","num_speculative_tokens":3}}'"#),
    );
    assert_eq!(r.speculative.as_ref().unwrap().method, "eagle3");
    assert!(r.groups.iter().all(|g| g.role == GroupRole::Target));
    assert!(r
        .notes
        .iter()
        .any(|n| n.text.starts_with(
            "qpath cannot model this: the eagle3 drafter `someone/DeepSeek-V3-EAGLE3` is not one of qpath's presets"
        ) && n.text.contains("Eagle3DeepseekV3ForCausalLM head builds MLA layers")));
}

#[test]
fn hf_overrides_the_mtp_layer_does_not_read() {
    // The draft config is the checkpoint's: --hf-overrides of the MLA keys reach the target only.
    let r = run(
        "h200",
        "0.33.0",
        &format!(r#"{V3} --hf-overrides '{{"num_nextn_predict_layers": 2}}' {MTP1}"#),
    );
    assert!(r.groups.iter().all(|g| g.role == GroupRole::Target));
    assert!(r.notes.iter().any(|n| n
        .text
        .starts_with("qpath cannot model this: --hf-overrides num_nextn_predict_layers with an MTP drafter")));
}
