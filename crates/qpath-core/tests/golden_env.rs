//! Golden cases for the environment as users have it: TRTLLM cubins available by default in every release (and vLLM's
//! warning when they are not), an installed FlashInfer other than the release's pin, and vLLM versions that are not a
//! release qpath knows (nightlies, patch releases). Each case runs the whole resolution through the options reader the
//! front ends use and checks what vLLM and FlashInfer would do.

use qpath_core::backends::flashinfer::trtllm::ARTIFACTORY_FAILED;
use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::release::{FlashInfer, Release};
use qpath_core::report::GroupErrorKind::{RuntimeError, ValueError};
use qpath_core::report::{GroupReport, Kernel, Report, Stage};
use qpath_core::resolve::resolve;

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const FI: &str = "--attention-backend FLASHINFER";
const HEAD_512: &str = r#"--hf-overrides '{"head_dim": 512}'"#;

/// Resolves `LLAMA args` with the options given as `(key, value)` pairs, as the CLI's `--key value` would set them.
fn run(options: &[(OptionKey, &str)], args: &str) -> Report {
    let mut o = ScenarioOptions::default();
    for (k, v) in options {
        o.set(*k, v).unwrap_or_else(|e| panic!("{e}"));
    }
    resolve(&o.scenario(format!("{LLAMA} {args}")).unwrap())
}

fn group(r: &Report) -> &GroupReport {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    &r.groups[0]
}

fn kernels(r: &Report) -> (Option<Kernel>, Option<Kernel>) {
    let g = group(r);
    (g.kernel.prefill, g.kernel.decode)
}

use OptionKey::{Cubins, FlashInfer as Fi, Gpu, Vllm};

// ---- 1. TRTLLM cubins default to available ----

#[test]
fn cubins_are_available_by_default_in_every_release() {
    for r in Release::ALL {
        let report = run(&[(Gpu, "b200"), (Vllm, r.name())], FI);
        assert!(report.trtllm_cubins, "{r}");
        assert!(group(&report).warnings.iter().all(|w| w != ARTIFACTORY_FAILED), "{r}");
    }
}

#[test]
fn h100_fp8_e5m2_at_0_26_0_resolves_xqa_decode_as_public_logs_show() {
    // An H100 log of 0.26.0 with --kv-cache-dtype fp8_e5m2 prints `decode_backend=xqa` in the resolved-dtypes line:
    // `supports_trtllm_attention` passes (SM90 decode) because the cubins are there.
    let r = run(
        &[(Gpu, "h100-sxm"), (Vllm, "0.26.0")],
        &format!("{FI} --kv-cache-dtype fp8_e5m2"),
    );
    let g = group(&r);
    assert_eq!(
        g.logs.last().map(String::as_str),
        Some(
            "FlashInfer resolved query dtypes: prefill=torch.float8_e5m2, decode=torch.bfloat16, decode_backend=xqa, \
             kv_cache_dtype=torch.float8_e5m2, arch=sm90"
        )
    );
    // The first prefill then fails on the e5m2 query (vLLM quantizes to e4m3), as before.
    let e = g.error.as_ref().unwrap();
    assert_eq!((e.kind, e.stage), (ValueError, Stage::PrefillForward));
    // Offline, the same line says flashinfer-native.
    let off = run(
        &[(Gpu, "h100-sxm"), (Vllm, "0.26.0"), (Cubins, "no")],
        &format!("{FI} --kv-cache-dtype fp8_e5m2"),
    );
    assert!(group(&off)
        .logs
        .iter()
        .any(|l| l.contains("decode_backend=flashinfer-native")));
}

#[test]
fn b200_runs_trtllm_gen_by_default_from_0_26_0() {
    for v in ["0.26.0", "0.30.0", "0.33.0"] {
        let r = run(&[(Gpu, "b200"), (Vllm, v)], "--kv-cache-dtype fp8");
        let g = group(&r);
        assert_eq!(g.backend, qpath_core::report::Backend::FlashInfer, "{v}");
        assert_eq!(
            (g.kernel.prefill, g.kernel.decode),
            (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen)),
            "{v}"
        );
        assert_eq!(g.q_dtype.decode.map(|d| d.name()), Some("float8_e4m3fn"), "{v}");
    }
}

#[test]
fn dgx_spark_decodes_on_xqa_from_0_28_0() {
    // `supports_trtllm_attention` adds the SM12x family (decode only) in 0.28.0 (vllm/utils/flashinfer.py).
    assert_eq!(
        kernels(&run(&[(Gpu, "dgx-spark"), (Vllm, "0.27.1")], FI)),
        (Some(Kernel::Fa2), Some(Kernel::Fa2))
    );
    for v in ["0.28.0", "0.33.0"] {
        assert_eq!(
            kernels(&run(&[(Gpu, "dgx-spark"), (Vllm, v)], FI)),
            (Some(Kernel::Fa2), Some(Kernel::Xqa)),
            "{v}"
        );
    }
}

#[test]
fn offline_logs_vllms_artifactory_warning_with_its_line() {
    assert_eq!(ARTIFACTORY_FAILED, "Failed to connect to NVIDIA artifactory: %s");
    for (v, line) in [
        ("0.24.0", 369),
        ("0.26.0", 369),
        ("0.28.0", 390),
        ("0.29.0", 462),
        ("0.30.0", 587),
        ("0.32.0", 643),
        ("0.33.0", 670),
    ] {
        let r = run(&[(Gpu, "b200"), (Vllm, v), (Cubins, "no")], FI);
        assert!(!r.trtllm_cubins);
        let g = group(&r);
        assert_eq!(
            g.warnings.iter().filter(|w| *w == ARTIFACTORY_FAILED).count(),
            1,
            "{v}: logged once"
        );
        let step = g.trace.iter().find(|s| s.rule == "has_nvidia_artifactory()").unwrap();
        assert_eq!(
            step.source().as_deref(),
            Some(format!("vllm/utils/flashinfer.py:{line}").as_str()),
            "{v}"
        );
        assert!(step.outcome.contains("qpath cannot model this"), "{v}");
        assert_eq!(kernels(&r), (Some(Kernel::Fa2), Some(Kernel::Fa2)), "{v}: no TRTLLM offline");
    }
    // 0.24.0 asks the artifactory only on the SM100 family (`is_device_capability_family(100) and …`).
    let r = run(&[(Gpu, "h100-sxm"), (Vllm, "0.24.0"), (Cubins, "no")], FI);
    assert!(group(&r).warnings.iter().all(|w| w != ARTIFACTORY_FAILED));
    let r = run(&[(Gpu, "h100-sxm"), (Vllm, "0.25.0"), (Cubins, "no")], FI);
    assert!(group(&r).warnings.iter().any(|w| w == ARTIFACTORY_FAILED));
    // VLLM_HAS_FLASHINFER_CUBIN=1 short-circuits the request: no warning.
    let mut o = ScenarioOptions::default();
    o.set(Gpu, "b200").unwrap();
    o.set(Cubins, "no").unwrap();
    let r = resolve(&o.scenario(format!("VLLM_HAS_FLASHINFER_CUBIN=1 {LLAMA} {FI}")).unwrap());
    assert!(r.trtllm_cubins && group(&r).warnings.iter().all(|w| w != ARTIFACTORY_FAILED));
}

// ---- 2. an installed FlashInfer other than the pin ----

#[test]
fn a_newer_flashinfer_brings_its_fa3_head_dim_rule_to_0_24_0() {
    // determine_attention_backend gains `head_dim in {64, 128, 256}` for FA3 in FlashInfer 0.6.16.post3.
    let pinned = run(&[(Gpu, "h100-sxm"), (Vllm, "0.24.0")], &format!("{FI} {HEAD_512}"));
    assert_eq!(
        (pinned.flashinfer.as_str(), pinned.flashinfer_pinned.as_str()),
        ("0.6.12", "0.6.12")
    );
    assert_eq!(kernels(&pinned), (Some(Kernel::Fa3), Some(Kernel::Fa2)));
    let up = run(
        &[(Gpu, "h100-sxm"), (Vllm, "0.24.0"), (Fi, "0.7.2.post1")],
        &format!("{FI} {HEAD_512}"),
    );
    assert_eq!(
        (up.vllm.as_str(), up.flashinfer.as_str(), up.flashinfer_pinned.as_str()),
        ("0.24.0", "0.7.2.post1", "0.6.12")
    );
    assert_eq!(kernels(&up), (Some(Kernel::Fa2), Some(Kernel::Fa2)));
    // The FlashInfer steps cite the installed FlashInfer's lines, the vLLM steps 0.24.0's.
    let step = group(&up)
        .trace
        .iter()
        .find(|s| s.rule == "prefill plan: backend \"auto\"")
        .unwrap();
    assert_eq!(step.source().as_deref(), Some("flashinfer/prefill.py:3670"));
    assert!(step.url().unwrap().contains("/flashinfer/blob/v0.7.2.post1/"));
    assert!(
        step.outcome
            .contains("FlashInfer 0.7.2.post1 runs FA3 only for head dims 64, 128, 256"),
        "{}",
        step.outcome
    );
    assert!(group(&up)
        .trace
        .iter()
        .any(|s| s.url().is_some_and(|u| u.contains("/vllm/blob/v0.24.0/"))));
    assert!(up
        .notes
        .iter()
        .any(|n| n.starts_with("FlashInfer 0.7.2.post1 is installed, not the 0.6.12 vLLM 0.24.0 pins")));
    let text = qpath_core::render::text(&up);
    assert!(
        text.starts_with("vLLM 0.24.0 with FlashInfer 0.7.2.post1 (release pins 0.6.12) on"),
        "{text}"
    );
}

#[test]
fn an_older_flashinfer_at_0_33_0_changes_fa3_and_the_fa2_large_head_arches() {
    let pinned = run(&[(Gpu, "h100-sxm"), (Vllm, "0.33.0")], &format!("{FI} {HEAD_512}"));
    assert_eq!(kernels(&pinned), (Some(Kernel::Fa2), Some(Kernel::Fa2)));
    assert!(group(&pinned).error.is_none());
    // FlashInfer 0.6.14: no FA3 head-dim rule (prefill fa3), and every FA2 module with head_dim > 256 is built for
    // SM100/110/120 only, so the native decode (0.33.0 reverts XQA for head_dim 512) fails on H100.
    let old = run(
        &[(Gpu, "h100-sxm"), (Vllm, "0.33.0"), (Fi, "0.6.14")],
        &format!("{FI} {HEAD_512}"),
    );
    let g = group(&old);
    assert_eq!(g.kernel.prefill, Some(Kernel::Fa3));
    let e = g.error.as_ref().unwrap();
    assert_eq!(
        (e.kind, e.message.as_str(), e.stage, e.source.as_deref()),
        (
            RuntimeError,
            "No supported CUDA architectures found for major versions [10, 11, 12].",
            Stage::DecodeJit,
            Some("flashinfer/jit/attention/modules.py:1189")
        )
    );
    assert!(old.notes.iter().any(
        |n| n.contains("qpath cannot model this: whether every FlashInfer function vLLM 0.33.0 calls exists in the older 0.6.14")
    ));
    // vLLM 0.32.0+ compares flashinfer-python's version with its kernel packages at start-up.
    assert!(old
        .notes
        .iter()
        .any(|n| n.contains("`warn_if_flashinfer_kernels_missing`, vllm/utils/flashinfer.py:143")));
}

#[test]
fn the_xqa_head_dim_bound_follows_the_installed_flashinfer() {
    // vLLM 0.28.0 still sends head_dim 512 to XQA on H100; FlashInfer 0.6.16.post3 (the pin) rejects it, 0.6.18 accepts.
    let args = format!("{FI} {HEAD_512}");
    let pinned = run(&[(Gpu, "h100-sxm"), (Vllm, "0.28.0")], &args);
    let e = group(&pinned).error.as_ref().unwrap();
    assert_eq!(
        (e.kind, e.message.as_str()),
        (
            ValueError,
            "Invalid head_dim: 512, must be divisible by 16 and in range [16, 256]"
        )
    );
    assert_eq!(e.source.as_deref(), Some("flashinfer/jit/xqa.py:89"));
    let up = run(&[(Gpu, "h100-sxm"), (Vllm, "0.28.0"), (Fi, "0.6.18")], &args);
    assert!(group(&up).error.is_none(), "{:?}", group(&up).error);
    assert_eq!(kernels(&up), (Some(Kernel::Fa2), Some(Kernel::Xqa)));
    // 0.6.18 also needs at most 16 query heads per KV head above head_dim 256.
    let mqa = run(
        &[(Gpu, "h100-sxm"), (Vllm, "0.28.0"), (Fi, "0.6.18")],
        &format!(r#"{FI} --hf-overrides '{{"head_dim": 512, "num_key_value_heads": 1}}'"#),
    );
    let e = group(&mqa).error.as_ref().unwrap();
    assert_eq!(
        (e.kind, e.message.as_str(), e.stage, e.source.as_deref()),
        (
            ValueError,
            "head_dim 512 > 256 requires head_group_ratio <= 16, got 32",
            Stage::DecodeJit,
            Some("flashinfer/jit/xqa.py:101")
        )
    );
}

#[test]
fn the_pin_named_explicitly_is_the_pin() {
    let a = run(&[(Gpu, "h100-sxm"), (Vllm, "0.29.0"), (Fi, "0.6.18")], FI);
    let b = run(&[(Gpu, "h100-sxm"), (Vllm, "0.29.0")], FI);
    assert_eq!(a, b);
    assert_eq!(Release::V0_29_0.flashinfer_pin(), FlashInfer::F0_6_18);
}

// ---- 3. nightlies and patch versions ----

#[test]
fn a_nightly_runs_as_the_last_release_before_it() {
    let r = run(&[(Gpu, "dgx-spark"), (Vllm, "0.27.2rc1.dev77+g1234abc")], FI);
    assert_eq!(r.vllm, "0.27.1");
    assert_eq!(
        r.notes[0],
        "vLLM 0.27.2rc1.dev77+g1234abc is a development build, not a release qpath knows; qpath shows 0.27.1 \
         (published 2026-08-11), the last release before it by version order, whose rules it follows: the build's code \
         may be newer (qpath cannot model this: the commits after 0.27.1's release)"
    );
    // 0.27.x has no SM12x XQA: fa2 decode, as 0.27.1.
    assert_eq!(kernels(&r), (Some(Kernel::Fa2), Some(Kernel::Fa2)));
    // A 0.28.0 release candidate is still 0.27.1's code.
    assert_eq!(run(&[(Gpu, "dgx-spark"), (Vllm, "0.28.0rc2")], FI).vllm, "0.27.1");
}

/// Issue 24, item 5: a dev build names its commit (`+gHASH`); built from a release's commit (each wheel's
/// `vllm/_version.py`, `data/releases.toml`'s `commit`) it is that release's code, whatever its version number says.
#[test]
fn a_dev_build_from_a_release_commit_is_that_release() {
    let r = run(&[(Gpu, "h100-sxm"), (Vllm, "0.28.1rc1.dev0+g2cf0a6915")], FI);
    assert_eq!(r.vllm, "0.28.0");
    assert_eq!(
        r.notes[0],
        "vLLM 0.28.1rc1.dev0+g2cf0a6915 was built from 0.28.0's release commit (2cf0a6915): qpath shows 0.28.0, whose \
         code it is"
    );
    // A version number behind its code: a 0.25 dev number built from 0.26.0's commit is 0.26.0.
    assert_eq!(run(&[(Gpu, "h100-sxm"), (Vllm, "0.25.2.dev9+gffd46bfab")], FI).vllm, "0.26.0");
    // Another commit: version order, and the note says the code may be newer.
    let other = run(&[(Gpu, "h100-sxm"), (Vllm, "0.28.1rc1.dev446+g798544433")], FI);
    assert_eq!(other.vllm, "0.28.0");
    assert!(other.notes[0].contains("is a development build") && other.notes[0].contains("may be newer"));
    // Every published release's commit maps to it.
    for rel in Release::ALL.iter().filter(|r| r.is_released()) {
        let v = format!("0.0.1.dev1+g{}", rel.commit());
        assert_eq!(qpath_core::release::release_of_commit(&v), Some(*rel), "{rel}");
    }
    // The days PyPI received each release (data/releases.toml `published`): in history order, and every published
    // release has one (scripts/release-facts.py checks them against PyPI).
    let days: Vec<&str> = Release::ALL
        .iter()
        .filter(|r| r.is_released())
        .map(|r| r.published().unwrap())
        .collect();
    assert!(days.windows(2).all(|w| w[0] <= w[1]), "{days:?}");
}

#[test]
fn a_patch_and_a_newer_dev_version() {
    let patch = run(&[(Gpu, "b200"), (Vllm, "0.31.1")], "--kv-cache-dtype fp8");
    assert_eq!(patch.vllm, "0.31.0");
    assert!(patch.notes[0].contains("qpath shows 0.31.0, the last release before it, whose code it runs"));
    assert_eq!(kernels(&patch), (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen)));
    let newer = run(&[(Gpu, "b200"), (Vllm, "99.0.0.dev3")], "--kv-cache-dtype fp8");
    assert_eq!(newer.vllm, Release::LATEST.name());
    assert!(newer.notes[0].contains("the newest release it knows") && newer.notes[0].contains("newer code may differ"));
    // A known release adds no note.
    assert!(run(&[(Gpu, "b200"), (Vllm, "v0.33.0")], "--kv-cache-dtype fp8")
        .notes
        .is_empty());
}

#[test]
fn versions_qpath_cannot_place_are_named_errors() {
    let mut o = ScenarioOptions::default();
    let e = o.set(Vllm, "0.19.1").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "vllm `0.19.1` is before the first vLLM release qpath knows ({})",
            Release::range_text()
        )
    );
    let e = o.set(Vllm, "latest").unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("vllm `latest` is not a vLLM version (qpath knows {})", Release::range_text())
    );
    let e = o.set(Fi, "0.6.7").unwrap_err();
    assert_eq!(
        e.to_string(),
        "flashinfer `0.6.7` is before flashinfer-python 0.6.8.post1, the first qpath models (0.6.8.post1, \
         0.6.11.post2, 0.6.12, 0.6.13, 0.6.14, 0.6.16.post3, 0.6.18, 0.6.18.post1, 0.7.0.post1, 0.7.2.post1)"
    );
    // a version between two modelled ones runs as the lower (0.6.9 as 0.6.8.post1)
    assert!(o.set(Fi, "0.6.9").is_ok());
}

/// Issue 24, item 6: any flashinfer-python from 0.6.12 on. One no release pins (0.6.15.post1, 0.7.4) runs with the
/// rules and source lines of the newest modelled release at or below it, and the report names both.
#[test]
fn an_unpinned_flashinfer_runs_as_the_nearest_modelled_one_below_it() {
    for (vllm, given, runs_as) in [("0.26.0", "0.6.15.post1", "0.6.14"), ("0.33.0", "0.7.4", "0.7.2.post1")] {
        let mut o = ScenarioOptions::default();
        o.set(OptionKey::Gpu, "h100-sxm").unwrap();
        o.set(Vllm, vllm).unwrap();
        o.set(Fi, given).unwrap();
        let r = resolve(&o.scenario(format!("{LLAMA} --attention-backend FLASHINFER")).unwrap());
        assert_eq!(r.flashinfer, runs_as, "{given}");
        let note = format!(
            "flashinfer-python {given} is not a release qpath models: its rules and source lines are those of {runs_as}, \
             the newest modelled release at or below it (qpath cannot model this: what changed in FlashInfer between \
             {runs_as} and {given})"
        );
        assert!(r.notes.iter().any(|n| n.text == note), "{given}: {:?}", r.notes);
        // The same answer as the modelled release, but for the notes.
        let mut m = o.clone();
        m.set(Fi, runs_as).unwrap();
        let same = resolve(&m.scenario(format!("{LLAMA} --attention-backend FLASHINFER")).unwrap());
        assert_eq!((same.groups.clone(), same.verdict), (r.groups.clone(), r.verdict), "{given}");
    }
}
