//! Golden cases for GLM-4.5 / 4.6 / 4.7's MTP drafter (`--speculative-config` method `mtp`, or the deprecated
//! `glm4_moe_mtp`) on a `Glm4MoeForCausalLM` target, every release 0.20.0-0.33.0 (crate::drafter `glm_mtp_layers`,
//! cites in data/source-lines/glm-mtp.toml):
//!
//! - `SpeculativeConfig.hf_config_override` keys on `architectures[0] == "Glm4MoeForCausalLM"`: model_type
//!   `glm4_moe_mtp` (one of `MTPModelTypes`, so the method is `mtp`), `n_predict = num_nextn_predict_layers`,
//!   architectures `Glm4MoeMTPModel` (registry: glm4_moe_mtp.py `Glm4MoeMTP`), `num_hidden_layers` kept.
//! - glm4_moe_mtp.py builds `num_nextn_predict_layers` `Glm4MoeDecoderLayer`s named `model.layers.{num_hidden_layers
//!   + k}`: the target's plain attention (GLM-4.7: 96 query heads, 8 KV heads, head size 128), one drafter group
//!   after the target's layers (92 for GLM-4.7, 46 for GLM-4.5-Air). Step k re-runs layer `num_hidden_layers + k % n`.
//! - `Glm4MoeConfig` (transformers 5.16.1): `num_mtp_layers` (default 1) is the field, `num_nextn_predict_layers` its
//!   alias; the GLM-4.7 fixture gives neither (so 1 layer), GLM-4.5-Air's gives 1.
//! - `n_predict` 0 (a config without MTP layers): `num_speculative_tokens % n_predict` raises ZeroDivisionError in
//!   `__post_init__` in every release; more tokens than layers and not a multiple: vLLM's ValueError.
//! - The runner: V1 in 0.20.0-0.28.0 (opt-in V2 before 0.22.0; Glm4MoeForCausalLM is not a default-V2 architecture
//!   in 0.22.0-0.28.0), V2 from 0.29.0.
//!
//! Fixtures: tests/fixtures/glm-4.7-fp8.aiconfigurator.config.json (ai-dynamo/aiconfigurator
//! src/aiconfigurator/model_configs/zai-org--GLM-4.7-FP8_config.json @ a0ba9ec6d14e3d4ecd5d8d5468142c290634391d) and
//! glm-4.5-air.restated.config.json (see tests/golden_families_dense.rs); the variants below edit one field of them.

mod common;
use qpath_core::release::Release;
use qpath_core::report::{AttentionKind, Backend, GroupRole, LogLevel, ModelRunner, Report, ScenarioErrorKind, Verdict};

const GLM47: &str = include_str!("fixtures/glm-4.7-fp8.aiconfigurator.config.json");
const GLM45_AIR: &str = include_str!("fixtures/glm-4.5-air.restated.config.json");

fn with_config(gpu: &str, vllm: Release, command: &str, config: &str) -> Report {
    let mut o = qpath_core::options::ScenarioOptions::default();
    o.set(qpath_core::options::OptionKey::Gpu, gpu).unwrap();
    o.set(qpath_core::options::OptionKey::Vllm, vllm.name()).unwrap();
    let mut s = o.scenario(command).unwrap();
    s.model_config = Some(config.to_string());
    qpath_core::resolve::resolve(&s)
}

fn mtp(model: &str, method: &str, n: u32) -> String {
    format!("vllm serve {model} --speculative-config '{{\"method\": \"{method}\", \"num_speculative_tokens\": {n}}}'")
}

/// GLM-4.7 with `num_nextn_predict_layers` set (the fixture gives none: Glm4MoeConfig's 1).
fn glm47_with_nextn(n: u32) -> String {
    GLM47.replacen('{', &format!("{{\n  \"num_nextn_predict_layers\": {n},"), 1)
}

fn ok(r: &Report) -> &Report {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    for g in &r.groups {
        assert!(g.error.is_none(), "group {:?}: {:?}", g.layers, g.error);
    }
    r
}

const MULTI: &str = "Enabling num_speculative_tokens > 1 will run multiple times of forward on same MTP layer,which may \
                     result in lower acceptance rate";

#[test]
fn glm_4_7_mtp_adds_layer_92_on_h100_and_b200_at_the_first_and_latest_release() {
    for vllm in [Release::ALL[0], Release::LATEST] {
        for (gpu, backend, list) in [
            (
                "h100-sxm",
                Backend::FlashAttn,
                "['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']",
            ),
            (
                "b200",
                Backend::FlashInfer,
                "['FLASHINFER', 'FLASH_ATTN', 'TRITON_ATTN', 'FLEX_ATTENTION']",
            ),
        ] {
            for n in [1, 3] {
                let r = with_config(gpu, vllm, &mtp("zai-org/GLM-4.7-FP8", "mtp", n), GLM47);
                let r = ok(&r);
                let at = format!("{vllm} {gpu} {n} tokens");
                assert_eq!(r.verdict, Verdict::Serves, "{at}");
                assert_eq!(r.groups.len(), 2, "{at}");
                let (target, drafter) = (&r.groups[0], &r.groups[1]);
                assert_eq!(target.role, GroupRole::Target);
                assert_eq!(target.layers, (0..92).collect::<Vec<u32>>(), "{at}");
                assert_eq!(drafter.role, GroupRole::Drafter, "{at}");
                // model.layers.92.self_attn.attn: extract_layer_index reads 92.
                assert_eq!(drafter.layers, vec![92], "{at}");
                for g in [target, drafter] {
                    assert_eq!(
                        (g.attention, g.sliding_window, g.num_q_heads, g.num_kv_heads, g.head_dim),
                        (AttentionKind::Full, None, 96, 8, 128),
                        "{at}"
                    );
                    assert_eq!(g.backend, backend, "{at}");
                }
                let s = r.speculative.as_ref().expect("a speculative report");
                assert_eq!(s.method, "mtp");
                assert_eq!(s.model.as_deref(), Some("zai-org/GLM-4.7-FP8"));
                assert_eq!(s.num_speculative_tokens, Some(n));
                assert!(s.attention_layers);
                assert_eq!(s.backend, "auto");
                assert_eq!(s.kv_cache_dtype, "auto");
                let runner = if vllm == Release::LATEST {
                    ModelRunner::V2
                } else {
                    ModelRunner::V1
                };
                assert_eq!(s.runner, runner, "{at}");
                // vLLM's lines, in order: the MTP warning (n > 1), then the one selection line (info_once: the
                // drafter's layer selects the same backend).
                let using = format!(
                    "Using {} attention backend out of potential backends: {list}.",
                    backend.name()
                );
                let want: Vec<&str> = if n > 1 { vec![MULTI, &using] } else { vec![&using] };
                assert_eq!(r.logs, want, "{at}");
                if n > 1 {
                    let rec = r
                        .log_records
                        .iter()
                        .find(|l| l.text == MULTI)
                        .expect("the MTP warning's record");
                    assert_eq!((rec.level, rec.file), (LogLevel::Warning, "vllm/config/speculative.py"));
                    let line = if vllm == Release::LATEST { 1491 } else { 602 };
                    assert_eq!(rec.line, line, "{at}");
                }
                let outcomes: Vec<String> = s.trace.iter().map(|t| t.outcome.to_string()).collect();
                let has = |o: &str| outcomes.iter().any(|x| x == o);
                assert!(
                    has(
                        "hf_config_override: architectures[0] Glm4MoeForCausalLM → model_type glm4_moe_mtp, \
                          architectures [\"Glm4MoeMTPModel\"], n_predict = num_nextn_predict_layers = 1 \
                          (num_hidden_layers kept: 92)"
                    ),
                    "{at}: {outcomes:?}"
                );
                assert!(
                    has(
                        "Glm4MoeMultiTokenPredictor: num_nextn_predict_layers = 1 MTP layer(s) from index \
                          num_hidden_layers = 92: model.layers.92"
                    ),
                    "{at}: {outcomes:?}"
                );
                assert!(
                    outcomes
                        .iter()
                        .any(|o| o.contains("model.layers.92.self_attn.attn, extract_layer_index = 92")),
                    "{at}"
                );
                assert_eq!(
                    has("speculative step k runs layer 92 + k % 1: the MTP layer(s) are re-run"),
                    n > 1,
                    "{at}"
                );
                assert!(
                    r.notes.iter().all(|n| !n.text.starts_with("qpath cannot model this")),
                    "{at}: {:?}",
                    r.notes
                );
            }
        }
    }
}

#[test]
fn the_deprecated_method_name_glm4_moe_mtp_warns_and_becomes_mtp() {
    for vllm in [Release::ALL[0], Release::LATEST] {
        let r = with_config("h100-sxm", vllm, &mtp("zai-org/GLM-4.7-FP8", "glm4_moe_mtp", 1), GLM47);
        let r = ok(&r);
        let text = "method `glm4_moe_mtp` is deprecated and replaced with mtp.";
        assert_eq!(r.logs[0], text, "{vllm}");
        let rec = &r.log_records[0];
        let line = if vllm == Release::LATEST { 1247 } else { 456 };
        assert_eq!(
            (rec.level, rec.file, rec.line),
            (LogLevel::Warning, "vllm/config/speculative.py", line)
        );
        assert_eq!(r.speculative.as_ref().map(|s| s.method.as_str()), Some("mtp"));
        assert_eq!(r.groups[1].layers, vec![92]);
    }
}

#[test]
fn the_runner_is_v1_until_0_28_0_and_v2_from_0_29_0() {
    for vllm in Release::ALL {
        let r = with_config("h100-sxm", vllm, &mtp("zai-org/GLM-4.7-FP8", "mtp", 1), GLM47);
        let r = ok(&r);
        let want = if vllm >= Release::V0_29_0 {
            ModelRunner::V2
        } else {
            ModelRunner::V1
        };
        assert_eq!(r.speculative.as_ref().map(|s| s.runner), Some(want), "{vllm}");
        assert_eq!(r.groups.last().map(|g| g.layers.clone()), Some(vec![92]), "{vllm}");
    }
}

#[test]
fn a_config_without_mtp_layers_raises_vllms_zero_division_in_every_release() {
    let cfg = glm47_with_nextn(0);
    for vllm in Release::ALL {
        for n in [1, 3] {
            let r = with_config("h100-sxm", vllm, &mtp("zai-org/GLM-4.7-FP8", "mtp", n), &cfg);
            let e = r.error.as_ref().unwrap_or_else(|| panic!("{vllm}: n_predict 0 raises"));
            assert_eq!(e.kind, ScenarioErrorKind::ZeroDivisionError, "{vllm}");
            assert_eq!(e.message, "integer modulo by zero", "{vllm}");
            let src = e.source.as_deref().unwrap_or_default();
            assert!(src.starts_with("vllm/config/speculative.py:"), "{vllm}: {src}");
            if vllm == Release::ALL[0] {
                assert!(src.ends_with(":662"), "{src}");
            }
            if vllm == Release::LATEST {
                assert!(src.ends_with(":1604"), "{src}");
            }
        }
    }
    // The same config serves without speculative decoding.
    let r = with_config("h100-sxm", Release::LATEST, "vllm serve zai-org/GLM-4.7-FP8", &cfg);
    assert_eq!(ok(&r).groups.len(), 1);
}

#[test]
fn two_mtp_layers_from_the_num_mtp_layers_alias_and_vllms_divisibility_error() {
    // Glm4MoeConfig's field num_mtp_layers (alias num_nextn_predict_layers), here given under its field name.
    let cfg = GLM47.replacen('{', "{\n  \"num_mtp_layers\": 2,", 1);
    for vllm in [Release::ALL[0], Release::LATEST] {
        let r = with_config("b200", vllm, &mtp("zai-org/GLM-4.7-FP8", "mtp", 2), &cfg);
        let r = ok(&r);
        assert_eq!(r.groups[1].role, GroupRole::Drafter);
        assert_eq!(r.groups[1].layers, vec![92, 93], "{vllm}");
        let r = with_config("b200", vllm, &mtp("zai-org/GLM-4.7-FP8", "mtp", 3), &cfg);
        let e = r.error.as_ref().expect("3 tokens over 2 layers");
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(e.message, "num_speculative_tokens:3 must be divisible by n_predict=2");
        // The config.json key wins over the alias.
        let both = cfg.replacen(
            "\"num_mtp_layers\": 2,",
            "\"num_mtp_layers\": 2, \"num_nextn_predict_layers\": 1,",
            1,
        );
        let r = with_config("b200", vllm, &mtp("zai-org/GLM-4.7-FP8", "mtp", 3), &both);
        assert_eq!(ok(&r).groups[1].layers, vec![92], "{vllm}");
    }
}

#[test]
fn glm_4_5_air_mtp_layer_follows_its_46_layers() {
    for vllm in [Release::ALL[0], Release::LATEST] {
        let r = with_config("h100-sxm", vllm, &mtp("zai-org/GLM-4.5-Air", "mtp", 1), GLM45_AIR);
        let r = ok(&r);
        assert_eq!(r.groups.len(), 2);
        assert_eq!(r.groups[0].layers.len(), 46);
        assert_eq!(
            (r.groups[1].role, r.groups[1].layers.clone()),
            (GroupRole::Drafter, vec![46]),
            "{vllm}"
        );
        assert_eq!(
            (r.groups[1].num_q_heads, r.groups[1].num_kv_heads, r.groups[1].head_dim),
            (96, 8, 128)
        );
    }
}

#[test]
fn hf_overrides_with_glm_mtp_cannot_be_modelled_and_the_target_still_resolves() {
    let cmd = format!(
        "{} --hf-overrides '{{\"num_key_value_heads\": 4}}'",
        mtp("zai-org/GLM-4.7-FP8", "mtp", 1)
    );
    let r = with_config("h100-sxm", Release::LATEST, &cmd, GLM47);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.verdict, Verdict::CannotModel);
    assert!(
        r.notes.iter().any(|n| n
            .text
            .starts_with("qpath cannot model this: --hf-overrides (num_key_value_heads, …)")),
        "{:?}",
        r.notes
    );
    assert_eq!(r.groups.len(), 1);
    assert_eq!(r.groups[0].num_kv_heads, 4);
}
