//! The `qpath` binary as a process: what it does with arguments that are not UTF-8 and with an output it cannot write
//! (issue 15's first rows). No case may end in a panic (exit 101 or 134, "panicked" on standard error). Native only:
//! a wasm32 build has no processes.
#![cfg(not(target_arch = "wasm32"))]

use std::io::Read;
use std::process::{Command, Stdio};

const QPATH: &str = env!("CARGO_BIN_EXE_qpath");

fn stderr_of(mut child: std::process::Child) -> (Option<i32>, String) {
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    let status = child.wait().expect("qpath ran");
    (status.code(), err)
}

#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_named_with_exit_2() {
    use std::os::unix::ffi::OsStringExt;
    let child = Command::new(QPATH)
        .args(["--", "vllm", "serve"])
        .arg(std::ffi::OsString::from_vec(vec![b'm', 0xff]))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (code, err) = stderr_of(child);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err, "qpath: argument 4 is not valid UTF-8: m\\xff\n");
}

// A full disk (exit 2) and a reader that goes away (the verdict kept): tests/exit_codes.rs.

/// Runs qpath with `args`: (exit code, standard output, standard error).
fn qpath(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(QPATH)
        .args(args)
        .env_remove("HF_HUB_CACHE")
        .env_remove("HF_HOME")
        .output()
        .expect("qpath ran");
    let text = |b: Vec<u8>| String::from_utf8(b).expect("UTF-8 output");
    (out.status.code(), text(out.stdout), text(out.stderr))
}

const LLAMA: [&str; 3] = ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"];

fn with_llama<'a>(before: &[&'a str], after: &[&'a str]) -> Vec<&'a str> {
    [before, &["--"], &LLAMA, after].concat()
}

#[test]
fn the_exit_code_is_0_when_vllm_serves_1_when_it_fails_2_when_qpath_cannot_tell() {
    let (code, out, err) = qpath(&with_llama(&["--check"], &[]));
    assert_eq!((code, out.lines().count(), err.as_str()), (Some(0), 1, ""), "{out}");
    let (code, out, err) = qpath(&with_llama(&["--wide"], &["--bogus"]));
    assert_eq!((code, err.as_str()), (Some(1), ""));
    assert!(out.contains("unrecognized arguments: --bogus"), "{out}");
    let (code, out, _) = qpath(&with_llama(
        &["--gpu", "l4", "--vllm", "0.25.0-prefix", "--check"],
        &["--kv-cache-dtype", "fp8"],
    ));
    assert_eq!(code, Some(1));
    assert!(
        out.starts_with("vLLM would fail: group 1 (FLASHINFER, decode_jit): AssertionError"),
        "{out}"
    );
    let (code, out, _) = qpath(&["--format", "json", "--", "vllm", "serve", "no-such-org/no-such-model"]);
    assert_eq!(code, Some(2));
    assert!(out.contains("\"InputError\""), "{out}");
    let (code, out, _) = qpath(&with_llama(&["matrix"], &[]));
    assert_eq!(code, Some(1), "a cell fails (nvfp4 off SM100)");
    assert!(
        out.contains("\nGPU ") && out.lines().all(|l| l.chars().count() <= 80),
        "the text grid: {out}"
    );
    for tables in [&["gpus"][..], &["releases", "--format", "json"], &["--version"], &["--help"]] {
        assert_eq!(qpath(tables).0, Some(0), "{tables:?}");
    }
}

#[test]
fn an_error_in_qpaths_own_options_is_named_with_exit_2() {
    let (code, out, err) = qpath(&["--gpu", "h100", "--", "vllm", "serve", "m"]);
    assert_eq!((code, out.as_str()), (Some(2), ""));
    assert!(
        err.starts_with("qpath: --gpu `h100` is not in qpath's GPU table; did you mean `h100-pcie`, `h100-sxm` or `h100-nvl`?"),
        "{err}"
    );
    assert!(
        err.contains("\nusage: qpath [OPTIONS] --") && !err.contains("defaults:"),
        "the usage lines, not the help: {err}"
    );
    let (code, _, err) = qpath(&["vllm", "serve", "m"]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("qpath: put `--` before the vLLM command"), "{err}");
    let (_, _, err) = qpath(&["--gp", "l4", "--", "vllm", "serve", "m"]);
    assert!(
        err.starts_with("qpath: unknown option `--gp`; did you mean `--gpu`?"),
        "{err}"
    );
    let (_, _, err) = qpath(&["--gpu", "--", "vllm", "serve", "m"]);
    assert!(err.starts_with("qpath: `--gpu` needs a value\n"), "{err}");
    // With --format json: a JSON object on standard output, nothing on standard error.
    let (code, out, err) = qpath(&["--format", "json", "--gp", "l4", "--", "vllm", "serve", "m"]);
    assert_eq!((code, err.as_str()), (Some(2), ""));
    assert!(
        out.starts_with("{\n  \"error\": {\n") && out.contains("\"type\": \"usage\""),
        "{out}"
    );
}

#[test]
fn a_one_string_command_and_an_assignment_with_a_blank_are_read() {
    let one = LLAMA.join(" ") + " --kv-cache-dtype fp8";
    let (code, out, err) = qpath(&["--gpu", "b200", "--format", "json", "--", &one]);
    let split = qpath(&with_llama(
        &["--gpu", "b200", "--format", "json"],
        &["--kv-cache-dtype", "fp8"],
    ));
    assert_eq!((code, out, err), split);
    let dir = std::env::temp_dir().join(format!("qpath process hf-{}", std::process::id()));
    let snap = dir.join("hub/models--acme--blank/snapshots/r");
    std::fs::create_dir_all(&snap).unwrap();
    std::fs::write(
        snap.join("config.json"),
        r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32,
            "num_hidden_layers": 3, "num_key_value_heads": 8, "torch_dtype": "bfloat16"}"#,
    )
    .unwrap();
    let home = format!("HF_HOME={}", dir.display());
    let (code, out, err) = qpath(&["--format", "json", "--", &home, "vllm", "serve", "acme/blank"]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!((code, err.as_str()), (Some(0), ""), "{out}");
    assert!(
        out.contains("\"num_layers\": 3") && out.contains("qpath process hf-"),
        "{out}"
    );
}

/// Every backend's answer from the binary: `--check` names the backend vLLM picks and what it runs (FLASH_ATTN's FA3
/// on an H100); `matrix --backend picked` covers every backend's cache dtypes and exits 1 where a cell fails.
#[test]
fn the_binary_names_the_backend_vllm_picks() {
    let (code, out, err) = qpath(&with_llama(&["--gpu", "h100-sxm", "--check"], &[]));
    assert_eq!((code, err.as_str()), (Some(0), ""));
    assert!(
        out.starts_with("vLLM would start and serve: FLASH_ATTN bf16/bf16 fa3-varlen"),
        "{out}"
    );
    let (code, out, _) = qpath(&with_llama(&["matrix", "--backend", "picked", "--format", "markdown"], &[]));
    assert_eq!(code, Some(1), "a cell fails (nvfp4 off SM100)");
    let head = out.lines().next().unwrap_or_default();
    assert!(
        head.starts_with("| GPU | auto |") && head.contains("| int8_per_token_head |") && head.contains("| turboquant_k8v4 |"),
        "{head}"
    );
    assert!(out.contains("| h100-sxm | FLASH_ATTN bf16/bf16 fa3-varlen"), "{out}");
}

/// The speculative config's `"model"` is read like the target's: a folder holding config.json (here named
/// `…-eagle3`, so vLLM's name check selects eagle3), a Hugging Face id in the local cache, or `--draft-model-config
/// FILE`; each gives the EAGLE-3 head's one layer, named from the target's 32 (layer 32).
#[test]
fn a_drafter_is_read_from_a_folder_the_hf_cache_or_a_file() {
    let head = include_str!("../../qpath-core/tests/fixtures/drafters/llama3-8b-eagle3/config.json");
    let dir = std::env::temp_dir().join(format!("qpath process drafter-{}", std::process::id()));
    let folder = dir.join("llama3-8b-eagle3");
    let snap = dir.join("hub/models--acme--EAGLE3-head/snapshots/r");
    for d in [&folder, &snap] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::write(d.join("config.json"), head).unwrap();
    }
    let spec = |model: &str| format!(r#"{{"model": "{model}", "num_speculative_tokens": 3}}"#);
    let by_folder = spec(&folder.display().to_string());
    let by_cache = spec("acme/EAGLE3-head");
    let by_file = r#"{"method": "eagle3", "model": "acme/not-cached", "num_speculative_tokens": 3}"#;
    let home = format!("HF_HOME={}", dir.display());
    let file = folder.join("config.json").display().to_string();
    let runs = [
        qpath(&with_llama(
            &["--gpu", "h100-sxm", "--format", "json"],
            &["--speculative-config", &by_folder],
        )),
        qpath(&[
            "--gpu",
            "h100-sxm",
            "--format",
            "json",
            "--",
            &home,
            "vllm",
            "serve",
            "meta-llama/Llama-3.1-8B-Instruct",
            "--speculative-config",
            &by_cache,
        ]),
        qpath(&with_llama(
            &["--gpu", "h100-sxm", "--format", "json", "--draft-model-config", &file],
            &["--speculative-config", by_file],
        )),
    ];
    let _ = std::fs::remove_dir_all(&dir);
    for (code, out, err) in runs {
        assert_eq!((code, err.as_str()), (Some(0), ""), "{out}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let drafter = v["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["role"] == "drafter")
            .unwrap_or_else(|| panic!("no drafter group: {out}"));
        assert_eq!(drafter["layers"], serde_json::json!([32]), "{out}");
        assert_eq!(v["speculative"]["method"], "eagle3");
    }
}
