//! The string-literal unions of `static/qpath.d.ts` list exactly the strings the report's enums serialise to, so a
//! variant added on either side fails here even when no scenario of `scripts/dts-check.sh` produces it. Each list below
//! is kept complete by an exhaustive `match`: a new Rust variant does not compile until it is added.

use qpath_core::dtype::TorchDtype;
use qpath_core::matrix::{CellStatus, MatrixMode};
use qpath_core::release::FlashInfer;
use qpath_core::report::ModelRunner;
use qpath_core::report::{
    AttentionKind, Backend, GroupErrorKind, GroupRole, Kernel, LogLevel, ScenarioErrorKind, Stage, Verdict,
};
use serde::Serialize;

const DTS: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/qpath.d.ts"));

/// The quoted strings of `export type NAME = "a" | "b" …;` in the d.ts.
fn union(name: &str) -> Vec<String> {
    let head = format!("export type {name} = ");
    let start = DTS.find(&head).unwrap_or_else(|| panic!("qpath.d.ts has no `{head}`")) + head.len();
    let body = &DTS[start..start + DTS[start..].find(';').expect("a union ends with `;`")];
    // A long union is written one member per line, each after a leading `|`.
    body.split('|')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| {
            assert!(
                part.len() >= 2 && part.starts_with('"') && part.ends_with('"'),
                "{name}: `{part}` is not a string literal"
            );
            part[1..part.len() - 1].to_string()
        })
        .collect()
}

fn json<T: Serialize>(values: &[T]) -> Vec<String> {
    values
        .iter()
        .map(|v| {
            serde_json::to_value(v)
                .unwrap()
                .as_str()
                .expect("serialises as a string")
                .to_string()
        })
        .collect()
}

fn same(name: &str, rust: Vec<String>) {
    let (mut d, mut r) = (union(name), rust);
    d.sort();
    r.sort();
    assert_eq!(d, r, "qpath.d.ts `{name}` (left) vs the strings the core serialises (right)");
}

#[test]
fn unions_match_the_enums() {
    let backends = Backend::ALL;
    let _: fn(Backend) = |b| match b {
        Backend::FlashAttn
        | Backend::FlashInfer
        | Backend::TritonAttn
        | Backend::FlexAttention
        | Backend::TurboQuant
        | Backend::TritonFlashAttn
        | Backend::TritonFlashInfer
        | Backend::FlashMla
        | Backend::FlashMlaSparse
        | Backend::CutlassMla
        | Backend::FlashInferMla
        | Backend::FlashInferMlaSparse
        | Backend::FlashInferMlaSparseSm120
        | Backend::FlashInferMlaSparseSm90
        | Backend::TritonMla
        | Backend::FlashAttnMla
        | Backend::FlashAttnMlaSparse
        | Backend::FlashAttnMlaSparseFa4
        | Backend::TokenspeedMla
        | Backend::DeepseekV32Indexer
        | Backend::GdnAttn
        | Backend::Mamba2
        | Backend::Mamba1
        | Backend::Linear
        | Backend::ShortConv => {}
    };
    same("Backend", json(&backends));

    let attention = AttentionKind::ALL;
    let _: fn(AttentionKind) = |a| match a {
        AttentionKind::Full
        | AttentionKind::SlidingWindow
        | AttentionKind::LinearAttention
        | AttentionKind::Mamba
        | AttentionKind::Indexer
        | AttentionKind::ChunkedLocal => {}
    };
    same("AttentionKind", json(&attention));

    let scenario = [
        ScenarioErrorKind::ArgumentError,
        ScenarioErrorKind::ValueError,
        ScenarioErrorKind::InputError,
        ScenarioErrorKind::NotImplementedError,
        ScenarioErrorKind::AssertionError,
        ScenarioErrorKind::ZeroDivisionError,
        ScenarioErrorKind::ValidationError,
    ];
    let _: fn(ScenarioErrorKind) = |k| match k {
        ScenarioErrorKind::ArgumentError
        | ScenarioErrorKind::ValueError
        | ScenarioErrorKind::InputError
        | ScenarioErrorKind::NotImplementedError
        | ScenarioErrorKind::AssertionError
        | ScenarioErrorKind::ZeroDivisionError
        | ScenarioErrorKind::ValidationError => {}
    };
    same("ScenarioErrorType", json(&scenario));

    let group = [
        GroupErrorKind::ValueError,
        GroupErrorKind::AssertionError,
        GroupErrorKind::NotImplementedError,
        GroupErrorKind::RuntimeError,
        GroupErrorKind::AttributeError,
    ];
    let _: fn(GroupErrorKind) = |k| match k {
        GroupErrorKind::ValueError
        | GroupErrorKind::AssertionError
        | GroupErrorKind::NotImplementedError
        | GroupErrorKind::RuntimeError
        | GroupErrorKind::AttributeError => {}
    };
    same("GroupErrorType", json(&group));

    // Kernel::ALL is written beside the enum; each variant's index there is checked, so a variant missing from it
    // fails here.
    let index = |k: Kernel| Kernel::ALL.iter().position(|x| *x == k);
    assert!(Kernel::ALL.iter().all(|k| index(*k).is_some()));
    same("Kernel", json(&Kernel::ALL));
    let verdicts = Verdict::ALL;
    let _: fn(Verdict) = |v| match v {
        Verdict::Serves | Verdict::Fails | Verdict::CannotModel => {}
    };
    same("Verdict", json(&verdicts));

    let stages = Stage::ALL;
    let _: fn(Stage) = |s| match s {
        Stage::ProfileRun
        | Stage::Init
        | Stage::Build
        | Stage::PrefillPlan
        | Stage::PrefillJit
        | Stage::PrefillForward
        | Stage::DecodePlan
        | Stage::DecodeJit
        | Stage::DecodeForward => {}
    };
    same("Stage", json(&stages));

    let statuses = [
        CellStatus::Ok,
        CellStatus::Error,
        CellStatus::OtherBackend,
        CellStatus::CannotModel,
    ];
    let _: fn(CellStatus) = |s| match s {
        CellStatus::Ok | CellStatus::Error | CellStatus::OtherBackend | CellStatus::CannotModel => {}
    };
    same("CellStatus", json(&statuses));

    let modes = MatrixMode::ALL;
    let _: fn(MatrixMode) = |m| match m {
        MatrixMode::FlashInfer | MatrixMode::Picked => {}
    };
    same("MatrixMode", json(&modes));

    same("FlashInferVersion", json(&FlashInfer::ALL));

    let _: fn(LogLevel) = |l| match l {
        LogLevel::Debug | LogLevel::Info | LogLevel::Warning | LogLevel::Error => {}
    };
    same("LogLevel", json(&LogLevel::ALL));

    let roles = [GroupRole::Target, GroupRole::Drafter];
    let _: fn(GroupRole) = |r| match r {
        GroupRole::Target | GroupRole::Drafter => {}
    };
    same("GroupRole", json(&roles));

    let runners = [ModelRunner::V1, ModelRunner::V2];
    let _: fn(ModelRunner) = |r| match r {
        ModelRunner::V1 | ModelRunner::V2 => {}
    };
    same("ModelRunner", json(&runners));

    use qpath_core::report::CgSupport;
    let supports = [
        CgSupport::Never,
        CgSupport::UniformSingleTokenDecode,
        CgSupport::UniformBatch,
        CgSupport::Always,
    ];
    let _: fn(CgSupport) = |s| match s {
        CgSupport::Never | CgSupport::UniformSingleTokenDecode | CgSupport::UniformBatch | CgSupport::Always => {}
    };
    same("CgSupport", json(&supports));

    let dtypes = [
        TorchDtype::Float16,
        TorchDtype::BFloat16,
        TorchDtype::Float32,
        TorchDtype::Float8E4m3fn,
        TorchDtype::Float8E5m2,
        TorchDtype::Uint8,
    ];
    let _: fn(TorchDtype) = |d| match d {
        TorchDtype::Float16
        | TorchDtype::BFloat16
        | TorchDtype::Float32
        | TorchDtype::Float8E4m3fn
        | TorchDtype::Float8E5m2
        | TorchDtype::Uint8 => {}
    };
    same("Dtype", json(&dtypes));
}
