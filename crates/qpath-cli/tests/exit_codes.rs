//! Issue 25, item 2 (the part the CLI owns): exit codes that mean one thing, run on the built binary. 0 = the
//! attention path starts and serves within what qpath checks; 1 = vLLM's own failure only; 2 = qpath could not read
//! or cannot model the input (a launcher it does not read, an unclosed quote, an empty string, a bare model id) or
//! could not write its answer. The common launchers read as `vllm serve`; a broken pipe keeps the verdict's code;
//! `--check` names the GPU, release and FlashInfer it assumed and what it did not check. Native only.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Read;
use std::process::{Command, Stdio};

const QPATH: &str = env!("CARGO_BIN_EXE_qpath");
const LLAMA: &str = "meta-llama/Llama-3.1-8B-Instruct";

/// Runs qpath with `args`: (exit code, standard output, standard error).
fn qpath(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(QPATH)
        .args(args)
        .env_remove("HF_HUB_CACHE")
        .env_remove("HF_HOME")
        .env("HOME", "/nonexistent-qpath-home")
        .output()
        .expect("qpath ran");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// `qpath --check -- LINE` (the command as one pasted string): (exit code, the line).
fn check(line: &str) -> (Option<i32>, String) {
    let (code, out, err) = qpath(&["--check", "--", line]);
    assert!(!err.contains("panicked"), "{line}: {err}");
    (code, out)
}

/// The verdict part of a `--check` line (before what it assumed).
fn verdict(out: &str) -> &str {
    out.split("; assumed: ").next().unwrap_or(out)
}

#[test]
fn the_common_launchers_read_as_vllm_serve() {
    let (code, plain) = check(&format!("vllm serve {LLAMA} --kv-cache-dtype fp8"));
    assert_eq!(code, Some(0), "{plain}");
    let same = [
        format!("python -m vllm.entrypoints.openai.api_server --model {LLAMA} --kv-cache-dtype fp8"),
        format!("python3 -m vllm.entrypoints.openai.api_server --model={LLAMA} --kv-cache-dtype fp8"),
        format!("python3.12 -u -m vllm.entrypoints.openai.api_server {LLAMA} --kv-cache-dtype fp8"),
        format!("/usr/bin/python3 -m vllm.entrypoints.cli.main serve {LLAMA} --kv-cache-dtype fp8"),
        format!("uv run vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!("uv run --with vllm vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!("uv run --python 3.12 -m vllm.entrypoints.openai.api_server --model {LLAMA} --kv-cache-dtype fp8"),
        format!("uvx --from vllm vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!("env X=1 Y=2 vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!("env -u HF_TOKEN X=1 vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!("sudo -E vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!("nohup vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!("CUDA_VISIBLE_DEVICES=0 vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!("CUDA_VISIBLE_DEVICES=0 sudo -E env X=1 uv run vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!(
            "docker run --runtime nvidia --gpus all -v ~/.cache/huggingface:/root/.cache/huggingface \
             --env HF_TOKEN=x -p 8000:8000 --ipc=host --rm -it vllm/vllm-openai:latest --model {LLAMA} \
             --kv-cache-dtype fp8"
        ),
        format!("docker run --gpus all vllm/vllm-openai {LLAMA} --kv-cache-dtype fp8"),
        format!("podman run --device nvidia.com/gpu=all docker.io/vllm/vllm-openai:v0.10.0 {LLAMA} --kv-cache-dtype fp8"),
    ];
    for line in &same {
        assert_eq!(check(line), (Some(0), plain.clone()), "{line}");
    }
    // The words after `--` (not one pasted string) read the same.
    let (code, out, _) = qpath(&[
        "--check",
        "--",
        "uv",
        "run",
        "vllm",
        "serve",
        LLAMA,
        "--kv-cache-dtype",
        "fp8",
    ]);
    assert_eq!((code, out), (Some(0), plain.clone()));
}

#[test]
fn the_launchers_environment_reaches_vllm() {
    // VLLM_BATCH_INVARIANT=1 changes the kernels (no AOT FA3 schedule): set by `env`, `sudo VAR=…` or `docker -e`,
    // the answer is the one of the plain assignment.
    let (code, plain) = check(&format!("VLLM_BATCH_INVARIANT=1 vllm serve {LLAMA} --kv-cache-dtype fp8"));
    assert_eq!(code, Some(0));
    assert_ne!(plain, check(&format!("vllm serve {LLAMA} --kv-cache-dtype fp8")).1);
    for line in [
        format!("env VLLM_BATCH_INVARIANT=1 vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!("sudo -E VLLM_BATCH_INVARIANT=1 vllm serve {LLAMA} --kv-cache-dtype fp8"),
        format!("docker run -e VLLM_BATCH_INVARIANT=1 vllm/vllm-openai {LLAMA} --kv-cache-dtype fp8"),
        format!("docker run --env=VLLM_BATCH_INVARIANT=1 vllm/vllm-openai {LLAMA} --kv-cache-dtype fp8"),
        format!("docker run --env VLLM_BATCH_INVARIANT=1 --rm vllm/vllm-openai {LLAMA} --kv-cache-dtype fp8"),
    ] {
        assert_eq!(check(&line), (Some(0), plain.clone()), "{line}");
    }
}

#[test]
fn vllms_own_failures_behind_a_launcher_still_exit_1() {
    for line in [
        format!("docker run --gpus all vllm/vllm-openai {LLAMA} --bogus"),
        format!("python -m vllm.entrypoints.openai.api_server --model {LLAMA} --bogus"),
        format!("uv run vllm serve {LLAMA} --bogus"),
        format!("vllm serve {LLAMA} --bogus"),
    ] {
        let (code, out) = check(&line);
        assert_eq!(code, Some(1), "{line}: {out}");
        assert!(
            verdict(&out) == "vLLM would fail: the scenario: ArgumentError: vllm: error: unrecognized arguments: --bogus",
            "{line}: {out}"
        );
    }
}

#[test]
fn a_command_qpath_cannot_read_says_what_it_saw_and_expected_and_exits_2() {
    let cases: &[(&str, &[&str])] = &[
        (
            LLAMA,
            &[
                "found `meta-llama/Llama-3.1-8B-Instruct`",
                "write `vllm serve meta-llama/Llama-3.1-8B-Instruct`",
            ],
        ),
        ("", &["empty command line", "expected `vllm serve MODEL [options]`"]),
        ("   ", &["empty command line"]),
        ("vllm serve 'abc", &["unterminated single quote"]),
        ("vllm serve \"abc", &["unterminated double quote"]),
        ("X=1", &["only environment assignments"]),
        ("env X=1", &["`env` without a command"]),
        ("sudo -E", &["`sudo` without a command"]),
        ("bash serve.sh", &["found `bash`", "the launchers qpath reads: `env`"]),
        ("uv pip install vllm", &["found `uv`"]),
        (
            "python serve.py",
            &["found `serve.py` after `python`", "-m vllm.entrypoints.openai.api_server"],
        ),
        (
            "python -m vllm.entrypoints.api_server --model m",
            &["`python -m vllm.entrypoints.api_server`"],
        ),
        ("python -c 'import vllm'", &["found `-c` after `python`"]),
        (
            "docker ps",
            &["expected `docker run … vllm/vllm-openai …`, found `docker ps`"],
        ),
        (
            "docker run ubuntu vllm serve m",
            &["expected the image `vllm/vllm-openai[:TAG]`", "found `ubuntu`"],
        ),
        ("docker run --rm", &["`docker run` without an image"]),
        (
            "docker run --entrypoint bash vllm/vllm-openai",
            &["--entrypoint bash", "replaces the image's `vllm serve`"],
        ),
        ("vllm bench latency --model m", &["`vllm bench` is not `vllm serve`"]),
        ("vllm serve m | tee log", &["the shell operator `|`"]),
    ];
    for (line, says) in cases {
        let (code, out) = check(line);
        assert_eq!(code, Some(2), "{line:?}: {out}");
        assert!(out.starts_with("qpath cannot model this: "), "{line:?}: {out}");
        for s in *says {
            assert!(out.contains(s), "{line:?} should say {s:?}: {out}");
        }
        // The report (not --check) exits 2 too.
        let (code, _, err) = qpath(&["--", line]);
        assert_eq!(code, Some(2), "{line:?}: {err}");
    }
    // The words after `--`, one of them empty.
    let (code, out, _) = qpath(&["--check", "--", ""]);
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("empty command line"), "{out}");
    // A bare model id as words.
    let (code, out, _) = qpath(&["--check", "--", LLAMA, "--kv-cache-dtype", "fp8"]);
    assert_eq!(code, Some(2), "{out}");
}

#[test]
fn an_unknown_vllm_sub_command_is_still_vllms_own_error() {
    // `vllm nosuch` is rejected by vLLM's own parser: exit 1, as before.
    let (code, out) = check("vllm nosuch m");
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("expected the sub-command `serve` after `vllm`, found `nosuch`"),
        "{out}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_said_with_exit_2_not_1() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    for args in [&["gpus"][..], &["--", "vllm", "serve", LLAMA, "--bogus"][..]] {
        let full = full.try_clone().unwrap();
        let out = Command::new(QPATH)
            .args(args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("qpath: cannot write the answer to standard output: "), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Runs qpath with its standard output's reader gone before it writes: (exit code, standard error).
fn reader_gone(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(QPATH)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before qpath writes (the answer takes a while to resolve).
    drop(child.stdout.take());
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    (child.wait().unwrap().code(), err)
}

#[test]
fn a_reader_that_goes_away_keeps_the_verdict() {
    // `qpath matrix … | head -1`: the matrix fails (V100 has no bfloat16), and says so by its code, quietly.
    let (code, err) = reader_gone(&["matrix", "--", "vllm", "serve", LLAMA]);
    assert_eq!((code, err.as_str()), (Some(1), ""));
    let (code, err) = reader_gone(&["--", "vllm", "serve", LLAMA]);
    assert_eq!((code, err.as_str()), (Some(0), ""));
    let (code, err) = reader_gone(&["--", "vllm", "serve", LLAMA, "--bogus"]);
    assert_eq!((code, err.as_str()), (Some(1), ""));
    let (code, err) = reader_gone(&["--", "bash"]);
    assert_eq!((code, err.as_str()), (Some(2), ""));
}

#[test]
fn the_check_line_names_what_it_assumed_and_what_it_did_not_check() {
    let (code, out, _) = qpath(&["--check", "--gpu", "l4", "--vllm", "0.25.0", "--", "vllm", "serve", LLAMA]);
    assert_eq!(code, Some(0));
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.ends_with(
            "; assumed: NVIDIA L4 (compute capability 8.9), vLLM 0.25.0, FlashInfer 0.6.13; qpath checks the \
             attention path, the flags' range checks and --quantization against the checkpoint, not memory, weight \
             loading or the rest of the config validation\n"
        ),
        "{out}"
    );
    // A failure names what it assumed, without the caveat (vLLM's own error is certain).
    let (code, out, _) = qpath(&["--check", "--", "vllm", "serve", LLAMA, "--bogus"]);
    assert_eq!(code, Some(1));
    assert!(
        out.ends_with("; assumed: NVIDIA H100 SXM5 (compute capability 9.0), vLLM 0.33.0, FlashInfer 0.7.2.post1\n"),
        "{out}"
    );
    // JSON: the same, as fields.
    let (_, out, _) = qpath(&["--check", "--format", "json", "--gpu", "l4", "--", "vllm", "serve", LLAMA]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["verdict"], "serves");
    assert_eq!(j["assumed"]["gpu"], "NVIDIA L4 (compute capability 8.9)");
    assert_eq!(j["assumed"]["vllm"], "0.33.0");
    assert_eq!(j["assumed"]["flashinfer"], "0.7.2.post1");
    assert!(j["not_checked"]
        .as_str()
        .unwrap()
        .starts_with("qpath checks the attention path"));
    // A matrix: every GPU of its grid, the release and FlashInfer.
    let (_, out, _) = qpath(&["matrix", "--check", "--vllm", "0.25.0", "--", "vllm", "serve", LLAMA]);
    assert!(
        out.contains("; assumed: every GPU of the grid, vLLM 0.25.0, FlashInfer 0.6.13"),
        "{out}"
    );
    // fix and timeline's --check too.
    for sub in ["fix", "timeline"] {
        let (_, out, _) = qpath(&[sub, "--check", "--", "vllm", "serve", LLAMA]);
        assert!(out.contains("; assumed: NVIDIA H100 SXM5"), "{sub}: {out}");
    }
}

/// A flag out of its config field's pydantic range is vLLM's own start-up failure: exit 1 with pydantic's text.
#[test]
fn an_out_of_range_flag_exits_1_with_pydantics_text() {
    for (flag, class, line) in [
        (
            "--gpu-memory-utilization 1.5",
            "CacheConfig",
            "gpu_memory_utilization\n  Input should be less than or equal to 1 [type=less_than_equal, input_value=1.5, input_type=float]",
        ),
        (
            "--max-num-seqs 8 --pipeline-parallel-size 0",
            "ParallelConfig",
            "pipeline_parallel_size\n  Input should be greater than or equal to 1 [type=greater_than_equal, input_value=0, input_type=int]",
        ),
    ] {
        // --wide: pydantic's lines as vLLM prints them (the default text wraps at 80 columns).
        let mut args = vec!["--wide", "--gpu", "l4", "--", "vllm", "serve", LLAMA];
        args.extend(flag.split(' '));
        let (code, out, err) = qpath(&args);
        assert_eq!(code, Some(1), "{flag}: {out}{err}");
        let want = format!("pydantic_core._pydantic_core.ValidationError: 1 validation error for {class}\n{line}");
        assert!(out.contains(&want) || err.contains(&want), "{flag}: {out}{err}");
    }
}

/// `--quantization` against the checkpoint (src/resolve/quantization.rs): awq on an unquantized preset is vLLM's
/// config-time failure (1), fp8 quantizes online (0), a method qpath does not restate is 2.
#[test]
fn quantization_against_the_checkpoint() {
    let (code, out, _) = qpath(&["--gpu", "l4", "--", "vllm", "serve", LLAMA, "--quantization", "awq"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("Cannot find the config file for awq"), "{out}");
    let (code, out, _) = qpath(&["--gpu", "l4", "--", "vllm", "serve", LLAMA, "-q", "fp8"]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out, err) = qpath(&["--gpu", "l4", "--", "vllm", "serve", LLAMA, "-q", "bitsandbytes"]);
    assert_eq!(code, Some(2), "{out}{err}");
}
