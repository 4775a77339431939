//! `resolve_prepared` (the command line parsed once for many GPUs) answers exactly what `resolve` answers, and a
//! `Prepared` of another command line or release is not used.

use qpath_core::bench_mix::scenarios;
use qpath_core::release::Release;
use qpath_core::resolve::{prepare, resolve, resolve_prepared, Scenario};

#[test]
fn a_prepared_command_line_gives_the_same_report_on_every_gpu() {
    for s in scenarios() {
        let p = prepare(&s);
        assert_eq!(resolve_prepared(&s, &p), resolve(&s), "{} {:?}", s.command_line, s.hardware);
    }
}

#[test]
fn a_prepared_command_line_of_another_scenario_is_ignored() {
    let mix = scenarios();
    let other = Scenario {
        command_line: "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype bogus".into(),
        ..mix[0].clone()
    };
    let bad = prepare(&other);
    assert!(resolve(&other).error.is_some(), "the other command line fails to parse");
    for s in &mix {
        assert_eq!(resolve_prepared(s, &bad), resolve(s), "{}", s.command_line);
    }
    let other_release = Scenario {
        release: Release::V0_24_0,
        ..mix.iter().find(|s| s.release != Release::V0_24_0).unwrap().clone()
    };
    let s = mix.iter().find(|s| s.release != Release::V0_24_0).unwrap();
    assert_eq!(resolve_prepared(s, &prepare(&other_release)), resolve(s));
}

// A multi-scenario command reads its model's config.json once (issue 25, item 1): the JSON is parsed once for the whole
// command and the model spec built once per release, and every answer is the one resolving each scenario alone gives.

use qpath_core::fix;
use qpath_core::gpu::GPUS;
use qpath_core::matrix::{matrix_in, summarize_in, MatrixMode};
use qpath_core::model::config_json_reads_on_this_thread;
use qpath_core::resolve::Hardware;
use qpath_core::timeline::timeline;

const LLAMA: &str = include_str!("fixtures/llama-3.1-8b-instruct.config.json");
const DEEPSEEK: &str = include_str!("fixtures/deepseek-v3.config.json");

/// A Llama config.json padded with a large field no reader looks at (what makes a re-parse per cell costly).
fn padded_llama() -> String {
    let mut v: serde_json::Value = serde_json::from_str(LLAMA).unwrap();
    v["qpath_test_padding"] = serde_json::Value::Array((0..20_000).map(|i| format!("pad {i}").into()).collect());
    v.to_string()
}

fn with_config(command_line: &str, config: &str) -> Scenario {
    Scenario {
        model_config: Some(config.to_string()),
        ..Scenario::new(
            Hardware::Gpu(GPUS.iter().find(|g| g.id == "h100-sxm").unwrap()),
            Release::LATEST,
            command_line,
        )
    }
}

/// (parses, spec builds) since `before`.
fn reads_since(before: (u64, u64)) -> (u64, u64) {
    let now = config_json_reads_on_this_thread();
    (now.0 - before.0, now.1 - before.1)
}

#[test]
fn a_matrix_parses_its_config_once_and_builds_its_model_once() {
    let config = padded_llama();
    for mode in MatrixMode::ALL {
        let s = with_config("vllm serve my/llama", &config);
        let before = config_json_reads_on_this_thread();
        let m = matrix_in(&s, mode).unwrap();
        assert!(m.cells.len() > 100, "{}", m.cells.len());
        assert_eq!(
            reads_since(before),
            (1, 1),
            "{mode:?}: one parse, one spec for {} cells",
            m.cells.len()
        );
    }
}

#[test]
fn a_matrix_over_a_config_answers_what_each_cell_resolved_alone_answers() {
    for config in [LLAMA, DEEPSEEK] {
        for mode in MatrixMode::ALL {
            let s = with_config("vllm serve my/model --hf-overrides '{\"num_hidden_layers\": 4}'", config);
            let m = matrix_in(&s, mode).unwrap();
            for c in m.cells.iter().step_by(7) {
                let alone = Scenario {
                    hardware: Hardware::Gpu(GPUS.iter().find(|g| g.id == c.gpu).unwrap()),
                    command_line: c.command_line.to_string(),
                    ..s.clone()
                };
                assert_eq!(
                    summarize_in(&resolve(&alone), mode),
                    (c.status, c.summary.clone()),
                    "{} {}",
                    c.gpu,
                    c.command_line
                );
            }
        }
    }
}

#[test]
fn a_bad_config_is_reported_by_every_cell_as_when_resolved_alone() {
    for config in ["{not json", "[]", "{\"architectures\": [\"NoSuchForCausalLM\"]}"] {
        let s = with_config("vllm serve my/model", config);
        let before = config_json_reads_on_this_thread();
        let m = matrix_in(&s, MatrixMode::FlashInfer).unwrap();
        assert_eq!(reads_since(before).0, 1, "{config}");
        let alone = summarize_in(&resolve(&s), MatrixMode::FlashInfer);
        assert!(
            m.cells.iter().all(|c| (c.status, c.summary.clone()) == alone),
            "{config}: {alone:?}"
        );
    }
}

#[test]
fn a_timeline_parses_its_config_once_and_builds_its_model_once_per_release() {
    let s = with_config("vllm serve my/llama", &padded_llama());
    let before = config_json_reads_on_this_thread();
    let t = timeline(&s);
    let (parses, builds) = reads_since(before);
    assert_eq!(parses, 1);
    assert_eq!(builds as usize, Release::ALL.len());
    for (row, release) in t.rows.iter().zip(Release::ALL) {
        let alone = resolve(&Scenario { release, ..s.clone() });
        assert_eq!(
            (row.verdict, row.error.is_some()),
            (alone.verdict, alone.error.is_some()),
            "{release}"
        );
    }
}

#[test]
fn a_fix_search_parses_its_config_once() {
    // An FP8 cache on an L4 at 0.25.0-prefix fails (golden_fix.rs): the finder tries its neighbourhood.
    let s = Scenario {
        hardware: Hardware::Gpu(GPUS.iter().find(|g| g.id == "l4").unwrap()),
        release: Release::V0_25_0Prefix,
        ..with_config("vllm serve my/llama --kv-cache-dtype fp8", &padded_llama())
    };
    let before = config_json_reads_on_this_thread();
    let f = fix::find(&s);
    assert!(f.tried > 1, "{}", f.tried);
    let (parses, builds) = reads_since(before);
    assert_eq!(parses, 1, "{} candidates", f.tried);
    assert!(
        (builds as usize) <= Release::ALL.len(),
        "{builds} builds for {} candidates",
        f.tried
    );
}

#[test]
fn a_prepared_config_of_another_text_is_ignored() {
    let s = with_config("vllm serve my/model", DEEPSEEK);
    let other = with_config("vllm serve my/model", LLAMA);
    assert_ne!(resolve(&s), resolve(&other));
    assert_eq!(resolve_prepared(&s, &prepare(&other)), resolve(&s));
    assert_eq!(resolve_prepared(&s, &prepare(&s)), resolve(&s));
    let no_config = Scenario {
        model_config: None,
        ..s.clone()
    };
    assert_eq!(resolve_prepared(&no_config, &prepare(&s)), resolve(&no_config));
    assert_eq!(resolve_prepared(&s, &prepare(&no_config)), resolve(&s));
}

/// SpecForge's EAGLE-3 head config for Llama-3.1-8B (`tests/fixtures/drafters/README.md`).
const HEAD: &str = include_str!("fixtures/drafters/llama3-8b-eagle3/config.json");
const EAGLE3: &str = r#"vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"method":"eagle3","model":"/models/head","num_speculative_tokens":3}'"#;

/// A scenario whose drafter's config.json is `HEAD` (as the CLI attaches `--draft-model-config`'s).
fn with_drafter() -> Scenario {
    Scenario {
        model_config: None,
        draft_model_config: Some(HEAD.to_string()),
        ..with_config(EAGLE3, "")
    }
}

// The drafter's config.json is shared like the model's (the 1,000,000-case file run of issue 25 found a matrix with a
// 16 MiB drafter config taking seconds: it was parsed once per cell): parsed once for the whole command, its spec built
// once per release, and each answer the one the scenario alone gives.
#[test]
fn a_matrix_timeline_and_fix_parse_the_drafters_config_once() {
    let s = with_drafter();
    let before = config_json_reads_on_this_thread();
    let m = matrix_in(&s, MatrixMode::Picked).unwrap();
    assert_eq!(reads_since(before), (1, 1), "{} cells", m.cells.len());
    let mut with_drafter = 0;
    for c in m.cells.iter().step_by(11) {
        let alone = Scenario {
            hardware: Hardware::Gpu(GPUS.iter().find(|g| g.id == c.gpu).unwrap()),
            command_line: c.command_line.to_string(),
            ..s.clone()
        };
        let report = resolve(&alone);
        with_drafter += usize::from(report.speculative.is_some());
        assert_eq!(
            summarize_in(&report, MatrixMode::Picked),
            (c.status, c.summary.clone()),
            "{}",
            c.gpu
        );
    }
    assert!(with_drafter > 5, "the drafter's layers are read in {with_drafter} cells");
    let before = config_json_reads_on_this_thread();
    let t = timeline(&s);
    let (parses, builds) = reads_since(before);
    assert_eq!(parses, 1);
    assert!(builds as usize <= Release::ALL.len(), "{builds}");
    for (row, release) in t.rows.iter().zip(Release::ALL) {
        let alone = resolve(&Scenario { release, ..s.clone() });
        assert_eq!(
            (row.verdict, row.error.is_some()),
            (alone.verdict, alone.error.is_some()),
            "{release}"
        );
    }
    let before = config_json_reads_on_this_thread();
    let f = fix::find(&Scenario {
        release: Release::V0_25_0Prefix,
        hardware: Hardware::Gpu(GPUS.iter().find(|g| g.id == "l4").unwrap()),
        command_line: format!("{EAGLE3} --kv-cache-dtype fp8"),
        ..s.clone()
    });
    assert!(f.tried > 1, "{}", f.tried);
    assert_eq!(reads_since(before).0, 1, "{} candidates", f.tried);
}
