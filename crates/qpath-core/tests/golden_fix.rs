//! The fix finder (`qpath_core::fix`): the first suggestions for the issue's four cases, each with its command-line
//! diff and the outcome the core resolves for it.

use qpath_core::fix::{find, Fixes, Problem};
use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::release::Release;
use qpath_core::report::Verdict;

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";

fn fixes(gpu: &str, vllm: &str, command: &str) -> Fixes {
    let mut o = ScenarioOptions::default();
    o.set(OptionKey::Gpu, gpu).unwrap();
    o.set(OptionKey::Vllm, vllm).unwrap();
    find(&o.scenario(command).unwrap())
}

/// Every suggestion runs as resolved, and its diff and changes agree with its command line.
fn check_suggestions(f: &Fixes) {
    assert!(!f.suggestions.is_empty(), "{f:#?}");
    for s in &f.suggestions {
        assert_eq!(s.verdict, Verdict::Serves, "{s:#?}");
        assert!(!s.changes.is_empty());
        for a in &s.added {
            assert!(s.command_line.contains(a.as_str()), "{a} in {}", s.command_line);
        }
    }
}

/// The seed story at 0.25.0-prefix on an L4: the first fix keeps FlashInfer and the FP8 cache and turns off
/// FlashInfer's query quantization; the release with PR #47485 (0.25.0) is among the suggestions.
#[test]
fn seed_story_first_keeps_the_fp8_cache() {
    let f = fixes("l4", "0.25.0-prefix", &format!("{LLAMA} --kv-cache-dtype fp8"));
    assert_eq!(
        f.problem,
        Some(Problem::Fails(
            "AssertionError: fp8 tensor core is not supported in fa2 backend".into()
        ))
    );
    check_suggestions(&f);
    let first = &f.suggestions[0];
    assert_eq!(
        first.changes,
        ["--attention-config.disable_flashinfer_q_quantization: false → true"]
    );
    assert_eq!(first.removed, Vec::<String>::new());
    assert_eq!(
        first.added,
        [r#"--attention-config '{"disable_flashinfer_q_quantization": true}'"#]
    );
    assert_eq!(first.outcome, "FLASHINFER bf16/bf16 fa2/fa2");
    assert!(first.keeps_cache_dtype && first.keeps_backend);
    assert!(
        f.suggestions.iter().all(|s| s.keeps_cache_dtype),
        "an FP8 cache stays FP8: {f:#?}"
    );
    let upgrade = f
        .suggestions
        .iter()
        .find(|s| s.release == Release::V0_25_0)
        .expect("0.25.0 fixes it");
    assert_eq!(upgrade.changes, ["vLLM 0.25.0-prefix → 0.25.0"]);
    assert!(upgrade.added.is_empty() && upgrade.removed.is_empty());
}

/// FLASH_ATTN forced with an FP8 cache on an A100 (FA2 has no FP8): the first fix unforces the backend and keeps
/// the FP8 cache (FlashInfer takes it); dropping the FP8 cache comes after.
#[test]
fn fa2_with_fp8_on_a100_unforces_the_backend() {
    let f = fixes(
        "a100-80gb",
        "0.33.0",
        &format!("{LLAMA} --attention-backend FLASH_ATTN --kv-cache-dtype fp8"),
    );
    let Some(Problem::Fails(why)) = &f.problem else {
        panic!("{f:#?}")
    };
    assert!(
        why.starts_with("ValueError: Selected backend AttentionBackendEnum.FLASH_ATTN is not valid"),
        "{why}"
    );
    check_suggestions(&f);
    let first = &f.suggestions[0];
    assert_eq!(first.changes, ["--attention-backend: FLASH_ATTN → unset"]);
    assert_eq!(first.removed, ["--attention-backend FLASH_ATTN"]);
    assert!(first.added.is_empty());
    assert_eq!(first.outcome, "FLASHINFER bf16/bf16 fa2/fa2");
    assert!(first.keeps_cache_dtype);
    let drop_fp8 = f
        .suggestions
        .iter()
        .position(|s| !s.keeps_cache_dtype)
        .expect("auto is suggested too");
    assert!(drop_fp8 > 0);
}

/// gpt-oss (attention sinks) with FlashInfer forced on an L4: FlashInfer refuses sinks there; the first fix lets
/// vLLM pick (TRITON_ATTN).
#[test]
fn gpt_oss_sink_refusal_lets_vllm_pick() {
    let f = fixes("l4", "0.33.0", "vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER");
    assert_eq!(
        f.problem,
        Some(Problem::Fails(
            "ValueError: Selected backend AttentionBackendEnum.FLASHINFER is not valid: ['attention sinks not supported']".into()
        ))
    );
    check_suggestions(&f);
    let first = &f.suggestions[0];
    assert_eq!(first.changes, ["--attention-backend: FLASHINFER → unset"]);
    assert_eq!(first.removed, ["--attention-backend FLASHINFER"]);
    assert!(first.outcome.starts_with("TRITON_ATTN bf16/bf16 "), "{}", first.outcome);
}

/// FlashInfer with three ngram speculative tokens on an H100 at 0.29.0: full decode graphs are downgraded to
/// PIECEWISE (single-token decode graphs only). The first fix is 0.30.0 (XQA decode on SM90: uniform batches), which
/// keeps FlashInfer and FULL_AND_PIECEWISE; asking for PIECEWISE or eager mode is no fix.
#[test]
fn spec_decode_downgrade_moves_to_0_30_0() {
    let f = fixes(
        "h100-sxm",
        "0.29.0",
        &format!(
            r#"{LLAMA} --attention-backend FLASHINFER --speculative-config '{{"method": "ngram", "num_speculative_tokens": 3}}'"#
        ),
    );
    assert_eq!(
        f.problem,
        Some(Problem::CudaGraphDowngrade {
            requested: "FULL_AND_PIECEWISE".into(),
            resolved: "PIECEWISE".into()
        })
    );
    check_suggestions(&f);
    let first = &f.suggestions[0];
    assert_eq!(first.changes, ["vLLM 0.29.0 → 0.30.0"]);
    assert_eq!(first.release, Release::V0_30_0);
    assert_eq!(first.outcome, "FLASHINFER bf16/bf16 fa3/xqa");
    assert!(f
        .suggestions
        .iter()
        .all(|s| s.cuda_graph_mode.as_deref() == Some("FULL_AND_PIECEWISE")));
}

/// A scenario that serves has nothing to fix; one qpath cannot model says so.
#[test]
fn nothing_to_fix_and_cannot_model() {
    let f = fixes("h100-sxm", "0.33.0", LLAMA);
    assert_eq!((f.problem.clone(), f.suggestions.len(), f.tried), (None, 0, 0));
    let f = fixes("h100-sxm", "0.33.0", "vllm serve no-such-org/no-such-model");
    assert!(f.problem.is_none());
    assert!(
        f.cannot_model.as_deref().unwrap().contains("no-such-org/no-such-model"),
        "{f:#?}"
    );
}

/// A command line over the searched size gets no search (and says why); its answer is still the explainer's.
#[test]
fn a_huge_command_line_is_not_searched() {
    let line = format!("{LLAMA} --kv-cache-dtype fp8 --served-model-name {}", "m".repeat(20_000));
    let f = fixes("l4", "0.25.0-prefix", &line);
    assert!(matches!(f.problem, Some(Problem::Fails(_))), "{f:#?}");
    assert_eq!(f.tried, 0);
    assert!(f
        .skipped
        .as_deref()
        .unwrap()
        .starts_with("qpath searches for fixes around command lines of up to 16 KiB"));
}

/// An option only newer releases have: the fix is the first release that reads it.
#[test]
fn an_option_of_a_newer_release_moves_the_release() {
    let f = fixes("h100-sxm", "0.28.0", &format!("{LLAMA} --sse-keep-alive-interval 10"));
    check_suggestions(&f);
    assert_eq!(f.suggestions[0].changes, ["vLLM 0.28.0 → 0.29.0"]);
}

/// A fallback away from what the command line asks for: at 0.25.0 an EAGLE-3 head never inherits the forced backend
/// (`llm_base_proposer.py:1299`), so with FLASHINFER forced on an H100 (eager, so no CUDA-graph downgrade comes first) the drafter's layers run FLASH_ATTN. vLLM serves;
/// the finder names the fallback and the first suggestion makes every group run FLASHINFER while keeping it forced.
#[test]
fn a_drafter_falling_back_from_the_forced_backend_is_a_problem_with_a_fix() {
    let spec = r#"--speculative-config '{"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}'"#;
    let f = fixes(
        "h100-sxm",
        "0.25.0",
        &format!("{LLAMA} --attention-backend FLASHINFER --enforce-eager {spec}"),
    );
    let Some(Problem::Fallback { asked, got }) = &f.problem else {
        panic!("{f:#?}")
    };
    assert_eq!(asked, "--attention-backend FLASHINFER");
    assert_eq!(got, "group 2 (layers drafter 32) runs FLASH_ATTN");
    check_suggestions(&f);
    let first = &f.suggestions[0];
    assert!(first.keeps_backend, "{first:#?}");
    assert_eq!(first.changes, ["--speculative-config attention_backend: unset → FLASHINFER"]);
    assert_eq!(
        first.added,
        [
            r#"--speculative-config '{"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3, "attention_backend": "FLASHINFER"}'"#
        ]
    );
    assert!(first.outcome.starts_with("FLASHINFER"), "{}", first.outcome);
    let md = qpath_core::fix::markdown(&f);
    assert!(
        md.starts_with(
            "**vLLM runs, but not as asked:** --attention-backend FLASHINFER is asked for; group 2 (layers drafter 32) runs \
         FLASH_ATTN.\n\nHow to run what was asked for ("
        ),
        "{md}"
    );
    // Without the forced backend nothing was asked for: no problem.
    let unforced = fixes("h100-sxm", "0.25.0", &format!("{LLAMA} --enforce-eager {spec}"));
    assert_eq!(unforced.problem, None);
}
