//! The release timeline (`qpath_core::timeline`): one scenario at every release, the rows whose answer changes, and
//! the trace step each change cites.

use qpath_core::attention::Backend;
use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::release::Release;
use qpath_core::report::Verdict;
use qpath_core::timeline::{timeline, Timeline};

fn timeline_of(gpu: &str, command: &str) -> Timeline {
    let mut o = ScenarioOptions::default();
    o.set(OptionKey::Gpu, gpu).unwrap();
    timeline(&o.scenario(command).unwrap())
}

fn changed(t: &Timeline) -> Vec<&str> {
    t.changed().map(|r| r.release.name()).collect()
}

/// The seed story: an FP8 cache on an L4 serves at 0.24.0, fails at 0.25.0-prefix (the global FP8 query reaches
/// FlashInfer's FA2) and serves again from 0.25.0 (PR #47485); each change cites `get_q_data_type`'s step.
#[test]
fn seed_story_changes_at_the_prefix_and_at_0_25_0() {
    let t = timeline_of("l4", "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8");
    assert_eq!(t.rows.len(), Release::ALL.len());
    assert_eq!(changed(&t), ["0.25.0-prefix", "0.25.0"]);
    let verdicts: Vec<Verdict> = t.rows.iter().map(|r| r.verdict).collect();
    let at = Release::V0_24_0 as usize;
    assert_eq!(verdicts[at..at + 3], [Verdict::Serves, Verdict::Fails, Verdict::Serves]);
    assert!(verdicts.iter().enumerate().all(|(i, v)| *v == Verdict::Serves || i == at + 1));
    assert!(t
        .rows
        .iter()
        .all(|r| r.groups.iter().all(|g| g.backend == Backend::FlashInfer)));

    let broke = &t.rows[at + 1];
    assert_eq!(
        broke.summary,
        "AssertionError: fp8 tensor core is not supported in fa2 backend"
    );
    let [c] = &broke.changes[..] else {
        panic!("one change: {:#?}", broke.changes)
    };
    assert!(
        c.what.starts_with(
            "group 1 (layers 0-31): prefill query bfloat16 → float8_e4m3fn, decode query bfloat16 → float8_e4m3fn, \
             error: AssertionError"
        ),
        "{}",
        c.what
    );
    assert_eq!(c.rule.as_deref(), Some("get_q_data_type(is_prefill=True)"));
    assert_eq!(c.before, None, "0.24.0 has no such step");
    assert!(
        c.after.as_deref().unwrap().contains("(the bug #47485 fixed)"),
        "{:?}",
        c.after
    );
    assert_eq!(c.source.as_deref(), Some("vllm/v1/attention/backends/flashinfer.py:824"));
    assert!(
        c.url
            .as_deref()
            .unwrap()
            .ends_with("/v0.25.0/vllm/v1/attention/backends/flashinfer.py#L824"),
        "{:?}",
        c.url
    );

    let fixed = &t.rows[at + 2];
    let [c] = &fixed.changes[..] else {
        panic!("one change: {:#?}", fixed.changes)
    };
    assert_eq!(
        c.what,
        "group 1 (layers 0-31): prefill query float8_e4m3fn → bfloat16, decode query float8_e4m3fn → bfloat16, its \
         error is gone"
    );
    assert_eq!(c.rule.as_deref(), Some("get_q_data_type(is_prefill=True)"));
    assert!(
        c.before
            .as_deref()
            .unwrap()
            .starts_with("prefill: the global cache dtype \"fp8\""),
        "{:?}",
        c.before
    );
    assert!(
        c.after
            .as_deref()
            .unwrap()
            .starts_with("prefill: the group's cache dtype \"fp8\" on sm89"),
        "{:?}",
        c.after
    );
}

/// gpt-oss on an L4 (sinks: TRITON_ATTN): from 0.33.0 a prefill may take the 3D (split-KV) kernel too, which the
/// timeline names with the scratch-rows step of `triton_attn.py`.
#[test]
fn triton_prefill_gets_the_3d_kernel_in_0_33_0() {
    let t = timeline_of("l4", "vllm serve openai/gpt-oss-20b");
    assert_eq!(changed(&t), ["0.33.0"]);
    let last = t.rows.iter().find(|r| r.release.name() == "0.33.0").unwrap();
    assert_eq!(last.changes.len(), 2, "both sliding and full groups: {:#?}", last.changes);
    for c in &last.changes {
        assert!(
            c.what
                .ends_with("prefill kernels triton-unified-2d → triton-unified-2d | triton-unified-3d"),
            "{}",
            c.what
        );
        assert_eq!(c.rule.as_deref(), Some("split-KV scratch rows"));
        assert_eq!(c.source.as_deref(), Some("vllm/v1/attention/backends/triton_attn.py:175"));
    }
}

/// A scenario no release changes has no changed row, and each release reads the command line with its own table.
#[test]
fn an_unchanged_scenario_and_a_flag_only_newer_releases_know() {
    let t = timeline_of("h100-sxm", "vllm serve openai/gpt-oss-20b");
    assert!(changed(&t).is_empty(), "{:#?}", t.changed().collect::<Vec<_>>());
    assert!(t
        .rows
        .iter()
        .all(|r| r.cuda_graph_mode.as_deref() == Some("FULL_AND_PIECEWISE")));
    // `--sse-keep-alive-interval` is an option from 0.29.0: argparse refuses it before.
    let t = timeline_of("h100-sxm", "vllm serve openai/gpt-oss-20b --sse-keep-alive-interval 10");
    assert_eq!(changed(&t), ["0.29.0"]);
    for row in t.rows.iter().take_while(|r| r.release.name() != "0.29.0") {
        assert_eq!(row.verdict, Verdict::Fails, "{}", row.release.name());
        let error = row.error.as_deref().unwrap();
        assert!(
            error.contains("vllm: error: unrecognized arguments: --sse-keep-alive-interval 10\n"),
            "{error}"
        );
        assert_eq!(row.cuda_graph_mode, None);
    }
    let first = t.changed().next().unwrap();
    assert_eq!(first.changes[0].what, "no longer fails");
    assert_eq!(first.verdict, Verdict::Serves);
}
