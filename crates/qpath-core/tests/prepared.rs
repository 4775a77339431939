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
