//! vLLM's own texts for the configurations it refuses (issue 12, item 3), byte for byte as each release formats them,
//! at the first release where each behaviour exists and at 0.33.0; and qpath's own limits worded as qpath's.
//!
//! - `Attention.__init__`'s `assert num_heads % num_kv_heads == 0` (an `AssertionError` at engine start, before the
//!   layer's backend is selected): `vllm/model_executor/layers/attention/attention.py:298@0.24.0, 329@0.33.0`.
//! - `get_attn_backend_cls`'s ValueError when no backend is valid (`vllm/platforms/cuda.py`): the reasons as its
//!   f-string builds them (unquoted) and `AttentionSelectorConfig.__repr__()` (`vllm/v1/attention/selector.py`) with
//!   every field of the release: `has_sliding_window` and `use_pcp` from 0.26.0, `use_adaptive_verification` from
//!   0.28.0, `use_dcp` from 0.29.0, `use_rswa` from 0.30.0.
//! - the forced backend's ValueError, whose reasons are a Python list's repr (quoted).

use qpath_core::release::Release::{self, *};
use qpath_core::render;
use qpath_core::report::{Report, ScenarioError, ScenarioErrorKind};
use qpath_core::resolve::{resolve, Hardware, Scenario};

fn run(gpu: &str, release: Release, command_line: &str) -> Report {
    resolve(&Scenario::new(
        Hardware::parse(gpu).unwrap(),
        release,
        command_line.to_string(),
    ))
}

fn error(r: &Report) -> &ScenarioError {
    r.error.as_ref().unwrap_or_else(|| panic!("no scenario error: {r:#?}"))
}

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";

#[test]
fn heads_not_divisible_is_vllms_assertion_error() {
    let line = format!("{LLAMA} --hf-overrides '{{\"num_key_value_heads\": 5}}'");
    for (release, at) in [(V0_24_0, 298), (V0_28_0, 319), (V0_33_0, 329)] {
        let r = run("h100-sxm", release, &line);
        let e = error(&r);
        assert_eq!(e.kind, ScenarioErrorKind::AssertionError);
        assert_eq!(e.message, "num_heads (32) is not divisible by num_kv_heads (5)");
        assert_eq!(
            e.source.as_deref(),
            Some(format!("vllm/model_executor/layers/attention/attention.py:{at}").as_str())
        );
        assert!(
            render::text(&r)
                .contains("\nvLLM rejects this scenario: AssertionError: num_heads (32) is not divisible by num_kv_heads (5)\n"),
            "{}",
            render::text(&r)
        );
        assert_eq!(serde_json::to_value(&r).unwrap()["error"]["type"], "AssertionError");
    }
    // Per tensor-parallel rank: 32 / 2 = 16 query heads against max(1, 6 / 2) = 3 KV heads.
    let r = run(
        "h100-sxm",
        V0_33_0,
        &format!("{LLAMA} -tp 2 --hf-overrides '{{\"num_key_value_heads\": 6}}'"),
    );
    assert_eq!(error(&r).message, "num_heads (16) is not divisible by num_kv_heads (3)");
    // Heads that divide are no error.
    let r = run(
        "h100-sxm",
        V0_33_0,
        &format!("{LLAMA} --hf-overrides '{{\"num_key_value_heads\": 4}}'"),
    );
    assert!(r.error.is_none(), "{:?}", r.error);
}

/// head_dim 20 with an fp8 cache on H100: every backend of the list refuses it.
const NO_BACKEND: &str = "--hf-overrides '{\"head_dim\": 20}' --kv-cache-dtype fp8";

const NO_BACKEND_REASONS: &str = "Reasons: {FLASH_ATTN: [head_size not supported], FLASHINFER: [head_size not \
    supported], TRITON_ATTN: [head_size not supported], FLEX_ATTENTION: [kv_cache_dtype not supported], TURBOQUANT: \
    [kv_cache_dtype not supported]}.";

#[test]
fn no_valid_backend_prints_every_field_of_the_selector_config() {
    let head = "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=20, \
        dtype=torch.bfloat16, kv_cache_dtype=fp8, block_size=None, use_mla=False, has_sink=False, use_sparse=False, \
        use_mm_prefix=False, use_per_head_quant_scales=False, attn_type=AttentionType.DECODER, ";
    let cases = [
        (
            V0_24_0,
            444,
            "use_non_causal=False, use_batch_invariant=False, use_kv_connector=False)",
        ),
        (
            V0_26_0,
            446,
            "has_sliding_window=False, use_non_causal=False, use_batch_invariant=False, use_kv_connector=False, \
             use_pcp=False)",
        ),
        (
            V0_28_0,
            450,
            "has_sliding_window=False, use_non_causal=False, use_batch_invariant=False, use_kv_connector=False, \
             use_adaptive_verification=False, use_pcp=False)",
        ),
        (
            V0_29_0,
            456,
            "has_sliding_window=False, use_non_causal=False, use_batch_invariant=False, use_kv_connector=False, \
             use_adaptive_verification=False, use_pcp=False, use_dcp=False)",
        ),
        (
            V0_30_0,
            502,
            "has_sliding_window=False, use_non_causal=False, use_batch_invariant=False, use_kv_connector=False, \
             use_adaptive_verification=False, use_pcp=False, use_dcp=False, use_rswa=False)",
        ),
        (
            V0_33_0,
            472,
            "has_sliding_window=False, use_non_causal=False, use_batch_invariant=False, use_kv_connector=False, \
             use_adaptive_verification=False, use_pcp=False, use_dcp=False, use_rswa=False)",
        ),
    ];
    for (release, at, tail) in cases {
        let r = run("h100-sxm", release, &format!("{LLAMA} {NO_BACKEND}"));
        let e = error(&r);
        assert_eq!(e.kind, ScenarioErrorKind::ValueError, "{release}");
        assert_eq!(e.message, format!("{head}{tail}. {NO_BACKEND_REASONS}"), "{release}");
        assert_eq!(
            e.source.as_deref(),
            Some(format!("vllm/platforms/cuda.py:{at}").as_str()),
            "{release}"
        );
    }
}

#[test]
fn selector_config_carries_the_scenarios_values() {
    // A user-set block size, batch invariance and non-causal attention as the engine passes them; the layer's sinks
    // and window as the model builds it (gpt-oss layer 0: sliding, with sinks).
    let line = "VLLM_BATCH_INVARIANT=1 vllm serve openai/gpt-oss-20b --block-size 24 \
        --attention-config.use_non_causal 1 --hf-overrides '{\"head_dim\": 20}' --kv-cache-dtype fp8";
    let r = run("h100-sxm", V0_33_0, line);
    let m = &error(&r).message;
    let want = "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=20, \
        dtype=torch.bfloat16, kv_cache_dtype=fp8, block_size=24, use_mla=False, has_sink=True, use_sparse=False, \
        use_mm_prefix=False, use_per_head_quant_scales=False, attn_type=AttentionType.DECODER, has_sliding_window=True, \
        use_non_causal=True, use_batch_invariant=True, use_kv_connector=False, use_adaptive_verification=False, \
        use_pcp=False, use_dcp=False, use_rswa=False). Reasons: {";
    assert!(m.starts_with(want), "{m}");
    // Decode context parallelism (0.29.0+): -tp 16 -dcp 2 passes ModelConfig.verify_with_parallel_config for Llama's
    // 8 KV heads (16 > 8, 2 <= 16 // 8, 32 // 8 = 4 query heads per KV head divide by 2).
    let r = run("h100-sxm", V0_33_0, &format!("{LLAMA} -tp 16 -dcp 2 {NO_BACKEND}"));
    assert!(
        error(&r).message.contains(", use_pcp=False, use_dcp=True, use_rswa=False). "),
        "{:?}",
        r.error
    );
}

#[test]
fn forced_backend_reasons_are_a_python_list() {
    let line = format!(
        "{LLAMA} --attention-backend FLASHINFER --hf-overrides '{{\"head_dim\": 20}}' --kv-cache-dtype int8_per_token_head"
    );
    for (release, at) in [(V0_24_0, 416), (V0_33_0, 444)] {
        let r = run("h100-sxm", release, &line);
        let e = error(&r);
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert_eq!(
            e.message,
            "Selected backend AttentionBackendEnum.FLASHINFER is not valid for this configuration. Reason: \
             ['head_size not supported', 'kv_cache_dtype not supported']"
        );
        assert!(
            e.source.as_deref().is_some_and(|s| s.starts_with("vllm/platforms/cuda.py:")),
            "{at}: {e:?}"
        );
    }
}

#[test]
fn qpaths_own_limits_are_worded_as_qpaths() {
    let r = run("h100-sxm", V0_33_0, &format!("{LLAMA} --attention-backend ROCM_ATTN"));
    let e = error(&r);
    assert_eq!(e.kind, ScenarioErrorKind::InputError);
    assert_eq!(serde_json::to_value(&r).unwrap()["error"]["type"], "InputError");
    let text = render::text(&r);
    let models = qpath_core::report::Backend::modelled_list();
    assert!(models.starts_with("FLASH_ATTN, FLASHINFER, TRITON_ATTN, FLEX_ATTENTION, TURBOQUANT, TRITON_FLASH_ATTN"));
    assert!(
        text.contains(&format!(
            "\nqpath cannot model this: attention backend ROCM_ATTN: qpath models {models}\n"
        )),
        "{text}"
    );
    let md = render::markdown(&r, LLAMA, None);
    assert!(
        md.contains(&format!(
            "qpath cannot model this: `attention backend ROCM_ATTN: qpath models {models}`"
        )),
        "{md}"
    );
    for out in [&text, &md] {
        assert!(!out.contains("vLLM rejects"), "{out}");
        assert!(!out.contains("InputError"), "{out}");
    }
    // A message that names its subject first keeps it, under one heading.
    let r = run("h100-sxm", V0_33_0, "vllm serve acme/unknown");
    let text = render::text(&r);
    assert!(text.contains("\nqpath cannot model this: "), "{text}");
    assert_eq!(text.matches("qpath cannot model this").count(), 1, "{text}");
}

#[test]
fn hidden_size_floor_divides_as_the_model_files_do() {
    // opt.py: head_dim = embed_dim // num_heads; 1000 // 3 = 333, which only TRITON_ATTN and FLEX_ATTENTION take on
    // H100 (FLASH_ATTN wants a multiple of 8, FLASHINFER 64/128/256/512).
    let r = run(
        "h100-sxm",
        V0_33_0,
        "vllm serve facebook/opt-125m --hf-overrides '{\"hidden_size\": 1000, \"num_attention_heads\": 3}'",
    );
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.groups[0].backend.name(), "TRITON_ATTN");
}

#[test]
fn a_limit_named_after_its_subject_drops_only_the_repeated_heading() {
    let k = ScenarioErrorKind::InputError;
    assert_eq!(k.heading(), "qpath cannot model this");
    assert_eq!(k.body("config.json of m: qpath cannot model this: x"), "config.json of m: x");
    assert_eq!(k.body("qpath cannot model this: x"), "x");
    let v = ScenarioErrorKind::ValueError;
    assert_eq!(
        (v.heading(), v.body("x").as_str()),
        ("vLLM rejects this scenario", "ValueError: x")
    );
}

/// (kind, message, source) of a scenario's error.
fn raised(release: Release, line: &str) -> (ScenarioErrorKind, String, String) {
    let r = run("h100-sxm", release, line);
    let e = error(&r);
    (e.kind, e.message.clone(), e.source.clone().unwrap_or_default())
}

#[test]
fn kv_heads_and_tensor_parallelism_fail_where_vllm_checks_them() {
    use ScenarioErrorKind::{AssertionError, ZeroDivisionError};
    let kv = |n: u32| format!("--hf-overrides '{{\"num_key_value_heads\": {n}}}'");
    let llama = "vllm/model_executor/models/llama.py";
    for (release, kv_split, tp_split, divide, attention) in [(V0_24_0, 151, 155, 55, 298), (V0_33_0, 151, 155, 53, 329)] {
        // llama.py's bare asserts (no message): 6 KV heads on 4 ranks, then 3 KV heads on 4 ranks.
        assert_eq!(
            raised(release, &format!("{LLAMA} -tp 4 {}", kv(6))),
            (AssertionError, String::new(), format!("{llama}:{kv_split}"))
        );
        assert_eq!(
            raised(release, &format!("{LLAMA} -tp 4 {}", kv(3))),
            (AssertionError, String::new(), format!("{llama}:{tp_split}"))
        );
        // gpt_oss.py has no such assert: QKVParallelLinear's divide(6, 4) raises with its message.
        let oss = "vllm serve openai/gpt-oss-20b";
        assert_eq!(
            raised(release, &format!("{oss} -tp 4 {}", kv(6))),
            (
                AssertionError,
                "6 is not divisible by 4".to_string(),
                format!("vllm/distributed/utils.py:{divide}")
            )
        );
        // ... and with more ranks than its 8 KV heads it passes 8 // 16 = 0 KV heads to Attention.
        assert_eq!(
            raised(release, &format!("{oss} -tp 16")),
            (
                ZeroDivisionError,
                "integer modulo by zero".to_string(),
                format!("vllm/model_executor/layers/attention/attention.py:{attention}")
            )
        );
    }
    let r = run("h100-sxm", V0_33_0, &format!("{LLAMA} -tp 4 {}", kv(6)));
    assert!(
        render::text(&r).contains("\nvLLM rejects this scenario: AssertionError\n"),
        "{}",
        render::text(&r)
    );
    // Llama's max(1, 8 // 16) = 1 KV head per rank: no error.
    assert!(run("h100-sxm", V0_33_0, &format!("{LLAMA} -tp 16")).error.is_none());
}

/// A flag the decision does not read is repeated in the text shortened when it is long (its value quoted with blanks
/// or not), whole in the report (the JSON).
#[test]
fn a_long_unused_flag_is_shortened_in_the_text_only() {
    let value = "x ".repeat(50_000);
    let r = run("l4", V0_33_0, &format!("{LLAMA} --served-model-name '{}'", value.trim_end()));
    assert_eq!(r.unused_flags.len(), 1);
    assert_eq!(r.unused_flags[0].chars().count(), 100_021);
    let text = render::text(&r);
    let line = text.lines().find(|l| l.starts_with("flags that do not affect")).unwrap();
    assert!(line.ends_with(" (100021 characters)"), "{line}");
    assert!(text.len() < 10_000, "{}", text.len());
}
