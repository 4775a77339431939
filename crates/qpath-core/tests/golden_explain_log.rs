//! `explain-log` on real public vLLM logs (tests/fixtures/logs, each with its thread and what it lacks in
//! sources.toml): the scenario each reconstructs, and qpath's predicted lines set beside the logged ones. Two logs are
//! of a model qpath models (Qwen3-8B on an RTX 5090, 0.26.0 and 0.27.1) and match line for line; five are of models
//! or a release it does not model, which it reads and then says so.

use qpath_core::explain_log::{build, compare, read, Built, CommandSource, Comparison, Field, LogReading, Match};
use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::report::{Report, Verdict};
use qpath_core::resolve::resolve;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/logs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The log read, built over `given` (what a user passes for what the log lacks), resolved and compared.
fn explain(name: &str, given: &[(OptionKey, &str)]) -> (LogReading, Built, Report, Comparison) {
    let reading = read(&fixture(name));
    let built = build(&reading, &ScenarioOptions::default(), "vllm serve Qwen/Qwen3-0.6B");
    let mut o = built.options.clone();
    for (k, v) in given {
        o.set(*k, v).unwrap();
    }
    let report = resolve(&o.scenario(built.command_line.clone()).unwrap());
    let c = compare(&reading, &report);
    (reading, built, report, c)
}

fn rows(c: &Comparison, kind: Match) -> Vec<String> {
    c.rows
        .iter()
        .filter(|r| r.kind == kind)
        .map(|r| r.predicted.clone().or(r.pasted.clone().map(|p| p.1)).unwrap())
        .collect()
}

const SELECTION_026: &str =
    "INFO [cuda.py:482] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN'].";

/// vllm-project/vllm#50705: Qwen3-8B with an FP8 cache on an RTX 5090 at 0.26.0. The version (the logo, line 4), the
/// GPU (the report's prose, line 1) and the arguments (line 8) rebuild the scenario; the selection line is the log's
/// line 18 byte for byte; the lines qpath predicts after the weights load fall in the part of the log the thread
/// does not show.
#[test]
fn rtx5090_qwen3_fp8_at_0_26_0() {
    let (r, b, report, c) = explain("rtx5090-qwen3-8b-fp8-flashinfer-jit.log", &[]);
    assert_eq!(r.version.as_ref().map(|v| (v.value.as_str(), v.line)), Some(("0.26.0", 4)));
    assert_eq!(r.gpu.as_ref().map(|g| (g.value.1.id, g.line)), Some(("rtx-5090", 1)));
    assert_eq!(r.model.as_ref().map(|m| m.value.as_str()), Some("Qwen/Qwen3-8B"));
    assert_eq!(b.command_line, "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8");
    assert_eq!((b.command_from, b.command_line_at), (CommandSource::Args, Some(8)));
    assert_eq!(b.missing, []);
    assert_eq!(report.vllm, "0.26.0");
    assert_eq!(rows(&c, Match::Same), [SELECTION_026]);
    let same = c.rows.iter().find(|row| row.kind == Match::Same).unwrap();
    assert_eq!(same.pasted.as_ref().map(|p| p.0), Some(18));
    assert_eq!(rows(&c, Match::Different), Vec::<String>::new());
    assert_eq!(
        rows(&c, Match::Predicted).iter().map(|l| &l[..25]).collect::<Vec<_>>(),
        ["INFO [cache.py:285] Using", "INFO [flashinfer.py:822] "]
    );
    // The traceback's frames are read, not compared: the thread cut the exception line off.
    assert_eq!(r.exception, None);
    assert_eq!(c.error, None);
}

/// The same user's run 4 at 0.27.1 with TRITON_ATTN: the log holds no version or GPU line (its thread does), so they
/// are missing and the user gives them; the cache and selection lines then match byte for byte, line numbers too.
#[test]
fn rtx5090_qwen3_fp8_triton_at_0_27_1() {
    let (r, b, report, c) = explain(
        "rtx5090-qwen3-8b-fp8-triton-0271.log",
        &[(OptionKey::Vllm, "0.27.1"), (OptionKey::Gpu, "rtx-5090")],
    );
    assert_eq!(b.missing, [Field::Version, Field::Gpu]);
    assert_eq!(r.version, None);
    assert_eq!(
        b.command_line,
        "vllm serve Qwen/Qwen3-8B --attention-backend TRITON_ATTN --kv-cache-dtype fp8"
    );
    assert_eq!(report.verdict, Verdict::Serves);
    assert_eq!(
        rows(&c, Match::Same),
        [
            "INFO [cache.py:296] Using fp8 data type to store kv cache. It reduces the GPU memory footprint and boosts \
             the performance. Meanwhile, it may cause accuracy drop without a proper scaling factor",
            "INFO [cuda.py:422] Using AttentionBackendEnum.TRITON_ATTN backend."
        ]
    );
    assert_eq!(c.rows.len(), 2, "{c:?}");
    assert_eq!(c.other_records, 3);
    // At 0.26.0 the cache line is at cache.py:285: the same statement on another line is "different", the line
    // number marked.
    let (_, _, _, c026) = explain(
        "rtx5090-qwen3-8b-fp8-triton-0271.log",
        &[(OptionKey::Vllm, "0.26.0"), (OptionKey::Gpu, "rtx-5090")],
    );
    let d = c026
        .rows
        .iter()
        .find(|row| row.kind == Match::Different)
        .expect("a different row");
    let [(a, b2), _] = d.differs.unwrap();
    assert_eq!(&d.predicted.as_ref().unwrap()[a..b2], "85");
}

/// Logs of models qpath does not model (Qwen3.6 / Qwen3.8 checkpoints in local folders): the arguments are read, the
/// command rebuilt, and the answer is qpath's "cannot model", with no line compared.
#[test]
fn logs_of_models_qpath_does_not_model_are_read_and_said() {
    for (name, model, flag) in [
        (
            "2x3090-qwen38-27b-flashattn-fp8kv-0290-args.log",
            "~/.cache/huggingface/qwen3.8-27b-autoround-int4",
            "--attention-backend FLASH_ATTN",
        ),
        (
            "a6000-qwen38-27b-nvfp4-fp8kv-0271-args.log",
            "~/.cache/huggingface/qwen3.8-27b-nvfp4",
            "--kv-cache-dtype fp8_e4m3",
        ),
        (
            "rtx5090-qwen36-35b-a3b-nvfp4-fp8kv-args-env.log",
            "~/.cache/huggingface/qwen3.6-35b-a3b-nvfp4",
            "--kv-cache-dtype fp8",
        ),
    ] {
        let (r, b, report, c) = explain(name, &[]);
        assert_eq!(r.model.as_ref().map(|m| m.value.as_str()), Some(model), "{name}");
        assert_eq!(b.command_from, CommandSource::Args, "{name}");
        assert!(b.command_line.contains(flag), "{name}: {}", b.command_line);
        assert!(b.missing.contains(&Field::Gpu), "{name}");
        assert_eq!(report.verdict, Verdict::CannotModel, "{name}");
        assert_eq!(c.counts(), [0, 0, 0, 0], "{name}");
    }
    // vllm-project/vllm#49011: the command written after a shell prompt, the version from the logo.
    let (r, b, report, _) = explain("qwen36-27b-nvfp4kv-flashinfer-0251-cmd.log", &[]);
    assert_eq!(r.version.as_ref().map(|v| v.value.as_str()), Some("0.25.1"));
    assert_eq!((b.command_from, b.command_line_at), (CommandSource::Written, Some(1)));
    assert!(b.command_line.starts_with("vllm serve unsloth/Qwen3.6-27B-NVFP4 "));
    assert!(b.command_line.contains("--kv-cache-dtype nvfp4"));
    assert_eq!(report.verdict, Verdict::CannotModel);
}

/// vllm-project/vllm#27604 (0.11.0 on an H100; the excerpt lost the version and the command): collect_env's CUDA is
/// read, the traceback's first exception and its last vLLM / FlashInfer frame are found, and nothing names a model.
#[test]
fn a_collect_env_and_a_traceback_without_a_command() {
    let (r, b, _, _) = explain("h100-llama31-8b-fp8-flashinfer-jit-0110.log", &[]);
    assert_eq!(r.cuda.as_ref().map(|c| c.value.as_str()), Some("12.8"));
    let e = &r.exception.as_ref().unwrap().value;
    assert_eq!(e.kind, "CalledProcessError");
    assert_eq!(b.command_from, CommandSource::None);
    assert_eq!(b.missing, [Field::Version, Field::Gpu, Field::Model, Field::Arguments]);
    assert_eq!(b.options.cuda.map(|c| c.to_string()).as_deref(), Some("12.8"));
}

/// A release qpath cannot model is said, not answered as another release.
#[test]
fn a_log_of_an_older_release_is_one_qpath_cannot_model() {
    let log = "INFO 10-27 20:11:24 [core.py:77] Initializing a V1 LLM engine (v0.11.0) with config: \
               model='meta-llama/Llama-3.1-8B-Instruct', kv_cache_dtype=fp8, enforce_eager=False";
    let b = build(&read(log), &ScenarioOptions::default(), "vllm serve x");
    assert!(
        b.cannot_model
            .as_deref()
            .is_some_and(|t| t.starts_with("qpath cannot model this log's release: line 1: vllm `0.11.0`")),
        "{b:?}"
    );
    assert_eq!(b.command_from, CommandSource::EngineConfig);
    assert_eq!(
        b.command_line,
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8"
    );
}
