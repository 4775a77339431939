//! Issue 15's input rows, one test each (each failed before the fix): the skip-layer step names exactly the skipped
//! layers, retired environment variables are named with vLLM's warning and the flag to use, `--hf-overrides` reads
//! JSON as Python's `json.loads` does (NaN, Infinity, 1e309) or names qpath's nesting cap, hidden characters are
//! escaped and named in qpath's hints, lists cost linear time (checked by counting output, not by a clock) with named
//! caps, and what qpath cannot model says so.

use qpath_core::options::ScenarioOptions;
use qpath_core::release::Release;
use qpath_core::report::{LogLevel, Report, ScenarioErrorKind};
use qpath_core::resolve::{resolve, RETIRED_ENV};
use qpath_core::serve::limits::{
    MAX_ARGUMENTS, MAX_CONFIG_JSON_BYTES, MAX_JSON_DEPTH, MAX_LISTED, MAX_SKIP_LAYER_TOKENS, MAX_SUGGESTED,
};

const LLAMA: &str = "meta-llama/Llama-3.1-8B-Instruct";

fn run_at(release: &str, line: &str) -> Report {
    let mut o = ScenarioOptions::default();
    o.set(qpath_core::options::OptionKey::Vllm, release).unwrap();
    resolve(&o.scenario(line.to_string()).unwrap())
}

fn run(line: &str) -> Report {
    run_at(Release::LATEST.name(), line)
}

fn first_step(r: &Report, group: usize) -> String {
    assert!(r.error.is_none(), "{:?}", r.error);
    r.groups[group].trace[0].outcome.to_string()
}

fn error(r: &Report) -> (ScenarioErrorKind, String) {
    let e = r.error.as_ref().expect("a scenario error");
    (e.kind, e.message.clone())
}

// ---- 1. the layer cache dtype step ----

#[test]
fn skipping_layer_0_with_cache_dtype_auto_names_layer_0_only_and_says_it_changes_nothing() {
    let r = run(&format!("vllm serve {LLAMA} --kv-cache-dtype-skip-layers 0"));
    assert_eq!(r.groups.len(), 1, "auto and skipped-to-auto layers share one group");
    assert_eq!(
        first_step(&r, 0),
        "layer 0 is in --kv-cache-dtype-skip-layers, which changes nothing: the cache dtype is \"auto\" already \
         (--kv-cache-dtype auto); layers 1-31 are not in it: kv_cache_dtype \"auto\""
    );
}

#[test]
fn skipping_with_fp8_names_the_skipped_group_exactly() {
    let r = run(&format!(
        "vllm serve {LLAMA} --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 0 2 07 x"
    ));
    assert_eq!(r.groups[0].layers, [0, 2]);
    assert_eq!(
        first_step(&r, 0),
        "layers 0, 2 are in --kv-cache-dtype-skip-layers: kv_cache_dtype \"auto\""
    );
    let one = run(&format!(
        "vllm serve {LLAMA} --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 5"
    ));
    assert_eq!(first_step(&one, 0), "not in the skip list [\"5\"]: kv_cache_dtype \"fp8\"");
    assert_eq!(
        first_step(&one, 1),
        "layer 5 is in --kv-cache-dtype-skip-layers: kv_cache_dtype \"auto\""
    );
    // One note for the tokens that match nothing ("07" is not str(7), "x" no index), each named once.
    let notes: Vec<&str> = r
        .notes
        .iter()
        .filter(|n| n.contains("skip-layers"))
        .map(|n| n.text.as_str())
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("--kv-cache-dtype-skip-layers tokens `07`, `x` match no layer"),
        "{}",
        notes[0]
    );
}

// ---- 2. environment variables no release reads ----

#[test]
fn retired_env_variables_get_vllms_unknown_warning_and_a_note_naming_the_flag() {
    for release in ["0.24.0", "0.30.0", "0.31.0", "0.33.0"] {
        for (name, flag) in RETIRED_ENV {
            let r = run_at(release, &format!("{name}=1 vllm serve {LLAMA}"));
            assert!(r.error.is_none(), "{release} {name}: {:?}", r.error);
            let rec = &r.log_records[0];
            assert_eq!(rec.level, LogLevel::Warning);
            assert_eq!(rec.text, format!("Unknown vLLM environment variable detected: {name}"));
            let file = if release < "0.31.0" {
                "vllm/envs.py"
            } else {
                "vllm/platforms/interface.py"
            };
            assert_eq!(rec.file, file, "{release}");
            let expected_line = match release {
                "0.24.0" => 2004,
                "0.30.0" => 2248,
                "0.31.0" => 1355,
                _ => 1469,
            };
            assert_eq!(rec.line, expected_line, "{release}");
            assert!(
                r.notes
                    .iter()
                    .any(|n| n.starts_with(&format!("{name}: vLLM {release} does not read it"))
                        && n.contains(&format!("use {flag}"))),
                "{release} {name}: {:?}",
                r.notes
            );
        }
    }
}

#[test]
fn retired_env_with_fail_on_environ_validation_is_vllms_value_error() {
    let r = run(&format!(
        "VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve {LLAMA} --fail-on-environ-validation"
    ));
    let e = r.error.as_ref().unwrap();
    assert_eq!(e.kind, ScenarioErrorKind::ValueError);
    assert_eq!(
        e.message,
        "Unknown vLLM environment variable detected: VLLM_ATTENTION_BACKEND"
    );
    assert_eq!(e.source.as_deref(), Some("vllm/platforms/interface.py:1465"));
}

// ---- 3. JSON as json.loads reads it ----

#[test]
fn non_finite_floats_in_overrides_are_accepted_as_json_loads_does() {
    for v in ["NaN", "Infinity", "-Infinity", "1e309", "-1e309"] {
        let r = run(&format!(r#"vllm serve {LLAMA} --hf-overrides '{{"rope_theta": {v}}}'"#));
        assert!(r.error.is_none(), "{v}: {:?}", r.error);
    }
    let dotted = run(&format!("vllm serve {LLAMA} --hf-overrides.rope_theta NaN"));
    assert!(dotted.error.is_none(), "{:?}", dotted.error);
    // Under a key qpath reads, qpath says it cannot follow the float.
    let r = run(&format!(
        r#"vllm serve {LLAMA} --hf-overrides '{{"num_hidden_layers": NaN}}'"#
    ));
    let (kind, m) = error(&r);
    assert_eq!(kind, ScenarioErrorKind::InputError);
    assert!(
        m.starts_with("qpath cannot model this: --hf-overrides num_hidden_layers = NaN"),
        "{m}"
    );
}

#[test]
fn non_finite_floats_in_other_json_flags() {
    let r = run(&format!(
        r#"vllm serve {LLAMA} --speculative-config '{{"method": "ngram", "num_speculative_tokens": 2, "x": Infinity}}'"#
    ));
    assert!(r.error.is_none(), "{:?}", r.error);
    let r = run(&format!(r#"vllm serve {LLAMA} --compilation-config '{{"x": NaN}}'"#));
    assert!(r.error.is_none(), "{:?}", r.error);
    // pydantic-core's float_as_int: nan is not a finite number.
    let r = run(&format!(
        r#"vllm serve {LLAMA} --speculative-config '{{"method": "ngram", "num_speculative_tokens": NaN}}'"#
    ));
    let (_, m) = error(&r);
    assert!(
        m.contains("Input should be a finite number [type=finite_number, input_value=nan, input_type=float]"),
        "{m}"
    );
}

#[test]
fn nesting_is_read_to_the_cap_and_named_past_it() {
    let nest = |d: usize| format!("{}{}", "[".repeat(d), "]".repeat(d));
    let ok = run(&format!(
        r#"vllm serve {LLAMA} --hf-overrides '{{"a": {}}}'"#,
        nest(MAX_JSON_DEPTH - 1)
    ));
    assert!(ok.error.is_none(), "{:?}", ok.error);
    let deep = run(&format!(
        r#"vllm serve {LLAMA} --hf-overrides '{{"a": {}}}'"#,
        nest(MAX_JSON_DEPTH)
    ));
    let (kind, m) = error(&deep);
    assert_eq!(kind, ScenarioErrorKind::InputError);
    assert!(
        m.starts_with("qpath cannot model this: JSON nested deeper than 900 levels"),
        "{m}"
    );
    assert!(!m.contains("<function loads"), "{m}");
}

// ---- 4. hidden characters ----

#[test]
fn a_zero_width_space_in_a_value_is_escaped_and_named() {
    let r = run(&format!("vllm serve {LLAMA} --kv-cache-dtype fp8\u{200b}"));
    let (_, m) = error(&r);
    // vLLM's own text: pydantic prints the value's repr, which escapes it.
    assert!(m.contains("Invalid kv_cache_dtype: 'fp8\\u200b'"), "{m}");
    assert!(m.ends_with("(contains U+200B ZERO WIDTH SPACE)"), "{m}");
    assert!(!m.lines().last().unwrap().contains('\u{200b}'), "{m}");
}

#[test]
fn a_hidden_character_in_a_flag_is_named_and_the_hint_does_not_hide_it() {
    let r = run(&format!("vllm serve {LLAMA} --kv-cache-dtype\u{200b} fp8 --bogus\u{1b}[31m"));
    let (_, m) = error(&r);
    // vLLM's line, byte for byte: argparse joins the arguments as they are.
    assert!(m.starts_with("vllm: error: unrecognized arguments: --kv-cache-dtype\u{200b} fp8 --bogus\u{1b}[31m\n"));
    let hints: Vec<&str> = m.lines().filter(|l| l.starts_with("qpath:")).collect();
    assert!(
        hints.contains(
            &format!(
                "qpath: `--kv-cache-dtype\\u200b` is not an option of vLLM {}; did you mean `--kv-cache-dtype`?",
                qpath_core::release::Release::LATEST
            )
            .as_str()
        ),
        "{hints:?}"
    );
    assert!(
        hints
            .iter()
            .any(|h| h.contains("`--kv-cache-dtype\\u200b` (contains U+200B ZERO WIDTH SPACE)")),
        "{hints:?}"
    );
    assert!(
        hints
            .iter()
            .any(|h| h.contains("`--bogus\\x1b[31m` (contains U+001B ESCAPE)")),
        "{hints:?}"
    );
    assert!(
        hints.iter().all(|h| !h.contains('\u{200b}') && !h.contains('\u{1b}')),
        "{hints:?}"
    );
}

// ---- 5. linear costs and caps (sizes, not clocks) ----

fn skip_line(tokens: usize) -> String {
    let list: Vec<String> = (0..tokens).map(|i| (1_000_000 + i).to_string()).collect();
    format!(
        r#"vllm serve {LLAMA} --kv-cache-dtype fp8 --hf-overrides '{{"num_hidden_layers": 64}}' --kv-cache-dtype-skip-layers {} 3"#,
        list.join(" ")
    )
}

fn report_bytes(r: &Report) -> usize {
    serde_json::to_string(r).unwrap().len()
}

#[test]
fn skip_lists_give_one_capped_note_and_output_that_does_not_grow_with_the_list() {
    let small = run(&skip_line(MAX_LISTED + 1));
    let large = run(&skip_line(20 * MAX_LISTED));
    for r in [&small, &large] {
        assert!(r.error.is_none(), "{:?}", r.error);
        assert_eq!(r.notes.iter().filter(|n| n.contains("skip-layers")).count(), 1);
    }
    assert!(large
        .notes
        .iter()
        .any(|n| n.contains(&format!("… and {} more match no layer", 19 * MAX_LISTED))));
    // The JSON grows only by the digits of "… and N more" (a few bytes), not by the tokens.
    let (a, b) = (report_bytes(&small), report_bytes(&large));
    assert!(b - a < 16, "{a} → {b}");
}

#[test]
fn too_many_skip_tokens_is_a_named_cap() {
    let r = run(&skip_line(MAX_SKIP_LAYER_TOKENS));
    let (kind, m) = error(&r);
    assert_eq!(kind, ScenarioErrorKind::InputError);
    assert!(
        m.starts_with("qpath cannot model this: more than 100000 --kv-cache-dtype-skip-layers tokens"),
        "{m}"
    );
}

#[test]
fn unknown_flags_get_suggestions_for_the_first_few_only() {
    let flags = |n: usize| (0..n).map(|i| format!("--kv-cache-dtyp{i}")).collect::<Vec<_>>().join(" ");
    let r = run(&format!("vllm serve {LLAMA} {}", flags(10 * MAX_SUGGESTED)));
    let (_, m) = error(&r);
    let hints = m.lines().filter(|l| l.starts_with("qpath: `")).count();
    assert!(hints <= MAX_SUGGESTED, "{hints}");
    assert!(
        m.contains(&format!(
            "qpath: {} more unrecognized arguments not checked",
            9 * MAX_SUGGESTED
        )),
        "{m}"
    );
}

#[test]
fn too_many_words_is_a_named_cap() {
    let line = format!("vllm serve {LLAMA} {}", "--x ".repeat(MAX_ARGUMENTS));
    let (kind, m) = error(&run(&line));
    assert_eq!(kind, ScenarioErrorKind::InputError);
    assert!(m.starts_with("qpath cannot model this: more than 200000 words"), "{m}");
}

#[test]
fn many_dotted_keys_merge_into_one_object() {
    let keys: Vec<String> = (0..5000).map(|i| format!("--hf-overrides.k{i} {i}")).collect();
    let r = run(&format!("vllm serve {LLAMA} {}", keys.join(" ")));
    assert!(r.error.is_none(), "{:?}", r.error);
}

#[test]
fn a_config_json_past_the_cap_is_named() {
    let mut o = ScenarioOptions::default();
    o.set(qpath_core::options::OptionKey::Vllm, "0.33.0").unwrap();
    let mut s = o.scenario(format!("vllm serve {LLAMA}")).unwrap();
    s.model_config = Some(format!("{{\"pad\": \"{}\"}}", "x".repeat(MAX_CONFIG_JSON_BYTES)));
    let (kind, m) = error(&resolve(&s));
    assert_eq!(kind, ScenarioErrorKind::InputError);
    assert!(
        m.contains("more than 16777216 (qpath's cap serve::limits::MAX_CONFIG_JSON_BYTES)"),
        "{m}"
    );
}

// ---- 6. what qpath cannot model says so ----

#[test]
fn unmodelled_inputs_read_qpath_cannot_model_this() {
    for args in [
        format!("vllm serve {LLAMA} --attention-backend ROCM_ATTN"),
        format!(r#"vllm serve {LLAMA} --hf-overrides '{{"num_hidden_layers": 4097}}'"#),
        "vllm serve some-org/unknown-model".to_string(),
    ] {
        let r = run(&args);
        let (kind, _) = error(&r);
        assert_eq!(kind, ScenarioErrorKind::InputError, "{args}");
        let text = qpath_core::render::text(&r);
        assert!(!text.contains("vLLM rejects this scenario"), "{args}: {text}");
        assert_eq!(text.matches("qpath cannot model this").count(), 1, "{args}: {text}");
    }
}
