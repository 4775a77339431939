//! `--gpu auto` and `qpath doctor` (issue 26, item 2): a fake `nvidia-smi` on a `PATH` given through the environment
//! closure, a fake site-packages tree, the environment's `VLLM_*` variables, and `qpath doctor` on this machine.
//! Unix only: the fake `nvidia-smi` is a shell script.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use qpath_cli::machine::{self, ENV_NAMES};
use qpath_cli::{run_with_env, Answer};

/// A fresh folder of this test process, removed when dropped.
struct Dir(PathBuf);

static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

impl Dir {
    fn new(name: &str) -> Dir {
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("qpath-machine-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        Dir(p)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.0.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A folder holding an executable `nvidia-smi` with `body` (a shell script's lines).
fn fake_smi(name: &str, body: &str) -> Dir {
    let d = Dir::new(name);
    let p = d.write("nvidia-smi", &format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    d
}

/// A site-packages tree with these dist-infos (`(folder, METADATA)`) and torch's version.py.
fn fake_site(name: &str, dists: &[(&str, &str)], torch_cuda: Option<&str>) -> Dir {
    let d = Dir::new(name);
    for (folder, metadata) in dists {
        d.write(&format!("{folder}/METADATA"), metadata);
    }
    if let Some(line) = torch_cuda {
        d.write(
            "torch/version.py",
            &format!("from typing import Optional\n__version__ = '2.9.0+cu128'\n{line}\ngit_version = 'x'\n"),
        );
    }
    d
}

fn metadata(name: &str, version: &str) -> String {
    format!("Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: x\n\nVersion: 9.9.9 (the body)\n")
}

/// The usual tree: vllm 0.25.0, flashinfer-python 0.6.13, torch 2.9.0 with CUDA 12.8.
fn usual_site(name: &str, vllm: &str) -> Dir {
    fake_site(
        name,
        &[
            (&format!("vllm-{vllm}.dist-info"), &metadata("vllm", vllm)),
            ("flashinfer_python-0.6.13.dist-info", &metadata("flashinfer-python", "0.6.13")),
            ("torch-2.9.0.dist-info", &metadata("torch", "2.9.0+cu128")),
        ],
        Some("cuda: Optional[str] = '12.8'"),
    )
}

/// An environment of these variables only.
fn env_of(vars: Vec<(&'static str, String)>) -> impl Fn(&str) -> Option<String> {
    move |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone())
}

fn words(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

fn json(a: &Answer) -> serde_json::Value {
    serde_json::from_str(&a.stdout).unwrap_or_else(|e| panic!("{e}: {a:?}"))
}

/// The `machine` item `what` of a JSON answer.
fn item(j: &serde_json::Value, what: &str) -> serde_json::Value {
    j["machine"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["what"] == what)
        .cloned()
        .unwrap_or_else(|| panic!("no item {what}: {j}"))
}

const CMD: &str = "-- vllm serve Qwen/Qwen3-4B";

/// An empty site-packages, so only the GPU is read.
fn empty_site() -> Dir {
    Dir::new("empty-site")
}

fn auto(smi: &Dir, site: &Dir, extra: &str) -> Answer {
    let argv = words(&format!(
        "--gpu auto --site-packages {} --format json {extra} {CMD}",
        site.0.display()
    ));
    run_with_env(&argv, &env_of(vec![("PATH", smi.0.display().to_string())]))
}

#[test]
fn one_h100_is_read_from_nvidia_smi() {
    let smi = fake_smi("one-h100", "echo 'NVIDIA H100 80GB HBM3, 9.0'");
    let site = empty_site();
    let a = auto(&smi, &site, "");
    assert_eq!(a.code, 0, "{a:?}");
    let j = json(&a);
    assert_eq!(j["gpu"]["id"], "h100-sxm");
    assert_eq!(j["machine"]["gpus"][0]["name"], "NVIDIA H100 80GB HBM3");
    let gpu = item(&j, "GPU");
    assert_eq!(gpu["read"], "NVIDIA H100 80GB HBM3, compute capability 9.0 (GPU 0 of 1)");
    assert!(gpu["from"].as_str().unwrap().contains(&*smi.0.display().to_string()), "{gpu}");
    assert_eq!(gpu["problem"], serde_json::Value::Null);
    // The text: a block before the report.
    let t = run_with_env(
        &words(&format!("--gpu auto --site-packages {} {CMD}", site.0.display())),
        &env_of(vec![("PATH", smi.0.display().to_string())]),
    );
    assert!(
        t.stdout.starts_with("read from this machine:\n  GPU: NVIDIA H100 80GB HBM3"),
        "{}",
        t.stdout
    );
    // An explicit --gpu wins over what was read, and says so (doctor reads the machine whatever --gpu says; a
    // second --gpu replaces `--gpu auto`, as any option given twice).
    let j = json(&run_with_env(
        &words(&format!(
            "doctor --gpu l4 --site-packages {} --format json {CMD}",
            site.0.display()
        )),
        &env_of(vec![("PATH", smi.0.display().to_string())]),
    ));
    assert_eq!(j["gpu"]["id"], "l4");
    assert_eq!(item(&j, "GPU")["used"], "--gpu l4 (given)");
}

#[test]
fn several_gpus_are_all_listed_and_gpu_index_picks_one() {
    let smi = fake_smi("h100-l4", "echo 'NVIDIA H100 80GB HBM3, 9.0'\necho 'NVIDIA L4, 8.9'");
    let site = empty_site();
    let j = json(&auto(&smi, &site, ""));
    assert_eq!(j["gpu"]["id"], "h100-sxm");
    assert_eq!(j["machine"]["gpus"].as_array().map(Vec::len), Some(2));
    assert_eq!(j["machine"]["gpus"][1]["id"], "l4");
    assert_eq!(
        item(&j, "GPU 1")["read"],
        "NVIDIA L4, compute capability 8.9 (not used: --gpu-index 1 picks it)"
    );
    let j = json(&auto(&smi, &site, "--gpu-index 1"));
    assert_eq!(j["gpu"]["id"], "l4");
    assert_eq!(item(&j, "GPU")["read"], "NVIDIA L4, compute capability 8.9 (GPU 1 of 2)");
    let e = auto(&smi, &site, "--gpu-index 2");
    assert_eq!(e.code, 2);
    assert!(
        json(&e)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--gpu-index 2: nvidia-smi (")
            && e.stdout.contains("lists 2 GPUs (0 to 1)"),
        "{e:?}"
    );
    // --gpu-index without --gpu auto is refused, naming what to add.
    let e = run_with_env(&words(&format!("--gpu-index 1 {CMD}")), &env_of(vec![]));
    assert!(
        e.code == 2 && e.stderr.contains("`--gpu-index` is read with `--gpu auto`"),
        "{e:?}"
    );
}

#[test]
fn a_gpu_qpath_does_not_know_runs_with_its_compute_capability() {
    let smi = fake_smi("unknown", "echo 'NVIDIA RTX Z9000 Ultra, 8.6'");
    let site = empty_site();
    let a = auto(&smi, &site, "");
    assert_eq!(a.code, 0, "{a:?}");
    let j = json(&a);
    assert_eq!(j["gpu"]["compute_capability"], "8.6");
    assert_eq!(j["gpu"]["id"], serde_json::Value::Null);
    let gpu = item(&j, "GPU");
    assert!(gpu["read"]
        .as_str()
        .unwrap()
        .starts_with("NVIDIA RTX Z9000 Ultra, compute capability 8.6"));
    assert!(gpu["used"].as_str().unwrap().contains("not in qpath's GPU table"), "{gpu}");
    // The same scenario as --compute-capability 8.6.
    let cc = run_with_env(
        &words(&format!("--compute-capability 8.6 --format json {CMD}")),
        &env_of(vec![]),
    );
    assert_eq!(json(&cc)["groups"], j["groups"]);
}

#[test]
fn nvidia_smi_that_fails_is_said_with_the_flag_to_pass() {
    let site = empty_site();
    for (name, body, said) in [
        (
            "garbage",
            "echo 'Segmentation fault? no: garbage'",
            "printed `Segmentation fault? no: garbage` (line 1), not `NAME, COMPUTE_CAP`: pass --gpu ID",
        ),
        ("bad-cap", "echo 'NVIDIA L4, [N/A]'", "printed `NVIDIA L4, [N/A]` (line 1)"),
        (
            "exit9",
            "echo 'NVIDIA-SMI has failed because it could not communicate' >&2\nexit 9",
            "exited with code 9: `NVIDIA-SMI has failed because it could not communicate`: pass --gpu ID",
        ),
        ("nothing", "true", "listed no GPU: pass --gpu ID"),
    ] {
        let smi = fake_smi(name, body);
        let a = auto(&smi, &site, "");
        // A failed read is not vLLM failing: the answer with qpath's default GPU.
        assert_eq!(a.code, 0, "{name}: {a:?}");
        let j = json(&a);
        assert_eq!(j["gpu"]["id"], "h100-sxm", "{name}");
        let gpu = item(&j, "GPU");
        assert!(gpu["problem"].as_str().unwrap().contains(said), "{name}: {gpu}");
        assert_eq!(gpu["used"], "h100-sxm (qpath's default)", "{name}");
    }
    // No nvidia-smi on PATH.
    let empty = Dir::new("no-smi");
    let j = json(&auto(&empty, &site, ""));
    assert_eq!(
        item(&j, "GPU")["problem"],
        "no nvidia-smi on PATH: pass --gpu ID (or --compute-capability X.Y)"
    );
}

#[test]
fn an_nvidia_smi_that_hangs_is_stopped_at_the_timeout() {
    let smi = fake_smi("hang", "exec sleep 30");
    let env = env_of(vec![("PATH", smi.0.display().to_string())]);
    let started = std::time::Instant::now();
    let e = machine::read_gpus(&env, Duration::from_millis(300)).unwrap_err();
    assert!(
        e.contains("did not answer within 0.3 s (qpath stopped it): pass --gpu ID"),
        "{e}"
    );
    // Stopped, not waited for (30 s).
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn the_packages_are_read_from_site_packages() {
    let smi = Dir::new("site-no-smi");
    let site = usual_site("usual", "0.25.0");
    let a = auto(&smi, &site, "");
    let j = json(&a);
    assert_eq!(
        (j["vllm"].clone(), j["flashinfer"].clone(), j["cuda"].clone()),
        ("0.25.0".into(), "0.6.13".into(), "12.8".into())
    );
    let v = item(&j, "vLLM");
    assert_eq!(v["read"], "0.25.0");
    assert!(
        v["from"]
            .as_str()
            .unwrap()
            .ends_with("vllm-0.25.0.dist-info/METADATA, found by --site-packages"),
        "{v}"
    );
    assert_eq!(item(&j, "torch")["read"], "2.9.0+cu128");
    let cuda = item(&j, "CUDA");
    assert!(cuda["from"].as_str().unwrap().ends_with("torch/version.py"), "{cuda}");
    assert_eq!(cuda["used"], "12.8");
    // Explicit flags win over what was read.
    let j = json(&auto(&smi, &site, "--vllm 0.26.0 --cuda 13.0"));
    assert_eq!((j["vllm"].clone(), j["cuda"].clone()), ("0.26.0".into(), "13.0".into()));
    assert_eq!(item(&j, "vLLM")["used"], "--vllm 0.26.0 (given) (the flag given wins)");
    // Found through $VIRTUAL_ENV: lib/python3.X/site-packages.
    let venv = Dir::new("venv");
    let sp = venv.0.join("lib/python3.12/site-packages");
    std::fs::create_dir_all(sp.parent().unwrap()).unwrap();
    std::fs::rename(&site.0, &sp).unwrap();
    let env = env_of(vec![
        ("PATH", smi.0.display().to_string()),
        ("VIRTUAL_ENV", venv.0.display().to_string()),
    ]);
    let j = json(&run_with_env(&words(&format!("--gpu auto --format json {CMD}")), &env));
    assert_eq!(j["vllm"], "0.25.0");
    assert!(item(&j, "vLLM")["from"].as_str().unwrap().ends_with("found by $VIRTUAL_ENV"));
    // No environment, no python3: said, with the flags.
    let j = json(&run_with_env(
        &words(&format!("--gpu auto --format json {CMD}")),
        &env_of(vec![("PATH", smi.0.display().to_string())]),
    ));
    let v = item(&j, "vLLM");
    assert!(
        v["problem"]
            .as_str()
            .unwrap()
            .contains("no python3 on PATH: pass --site-packages DIR, or --vllm, --flashinfer and --cuda"),
        "{v}"
    );
    // A --site-packages that is not a folder is the user's error.
    let e = run_with_env(
        &words(&format!("--gpu auto --site-packages /nonexistent/x {CMD}")),
        &env_of(vec![]),
    );
    assert!(
        e.code == 2 && e.stderr.contains("--site-packages `/nonexistent/x`: not a folder"),
        "{e:?}"
    );
}

#[test]
fn a_vllm_outside_the_range_a_nightly_and_garbage_are_said() {
    let smi = Dir::new("range-no-smi");
    let old = usual_site("old", "0.19.0");
    let j = json(&auto(&smi, &old, ""));
    let v = item(&j, "vLLM");
    assert!(
        v["problem"]
            .as_str()
            .unwrap()
            .starts_with("--vllm `0.19.0` is before the first vLLM release qpath knows")
            && v["problem"].as_str().unwrap().ends_with(": pass --vllm VERSION"),
        "{v}"
    );
    assert_eq!(j["vllm"], qpath_core::release::Release::LATEST.name());
    let new = usual_site("new", "0.40.0");
    let j = json(&auto(&smi, &new, ""));
    let v = item(&j, "vLLM");
    assert_eq!(v["problem"], serde_json::Value::Null);
    assert!(v["used"].as_str().unwrap().starts_with("0.40.0, run as release "), "{v}");
    let nightly = usual_site("nightly", "0.34.0.dev12+gabcdef1");
    let j = json(&auto(&smi, &nightly, ""));
    assert!(item(&j, "vLLM")["used"]
        .as_str()
        .unwrap()
        .starts_with("0.34.0.dev12+gabcdef1, run as release"));
    // METADATA without a Version header; a CPU torch; a version.py without a cuda line.
    let bad = fake_site(
        "garbage",
        &[
            ("vllm-0.25.0.dist-info", "\u{0}\u{1}garbage\nnot: a header block"),
            ("torch-2.9.0.dist-info", &metadata("torch", "2.9.0+cpu")),
        ],
        Some("cuda = None"),
    );
    let j = json(&auto(&smi, &bad, ""));
    assert!(item(&j, "vLLM")["problem"]
        .as_str()
        .unwrap()
        .ends_with("vllm-0.25.0.dist-info/METADATA has no `Version:` header: pass --vllm VERSION"));
    assert_eq!(
        item(&j, "CUDA")["problem"],
        "torch 2.9.0+cpu is a build without CUDA: pass --cuda X.Y"
    );
    assert!(item(&j, "FlashInfer")["problem"]
        .as_str()
        .unwrap()
        .starts_with("no flashinfer_python-*.dist-info in "));
}

#[test]
fn the_environments_vllm_variables_apply_and_the_command_lines_win() {
    let smi = Dir::new("env-no-smi");
    let site = empty_site();
    let argv = |extra: &str| {
        words(&format!(
            "--gpu auto --site-packages {} --format json -- {extra} vllm serve Qwen/Qwen3-4B",
            site.0.display()
        ))
    };
    let env = env_of(vec![
        ("PATH", smi.0.display().to_string()),
        ("VLLM_BATCH_INVARIANT", "true".into()),
    ]);
    // vLLM reads it with int(): the environment's value fails as the command line's would.
    let a = run_with_env(&argv(""), &env);
    assert_eq!(a.code, 1, "{a:?}");
    assert!(a.stdout.contains("VLLM_BATCH_INVARIANT=true"), "{}", a.stdout);
    let j = json(&a);
    assert_eq!(item(&j, "VLLM_BATCH_INVARIANT")["from"], "the environment");
    // The command line's own assignment wins.
    let a = run_with_env(&argv("VLLM_BATCH_INVARIANT=0"), &env);
    assert_eq!(a.code, 0, "{a:?}");
    assert_eq!(
        item(&json(&a), "VLLM_BATCH_INVARIANT")["used"],
        "the command line's own value (it wins over the environment's)"
    );
    // Without --gpu auto the environment's variables are not read.
    let plain = run_with_env(&words(&format!("--format json {CMD}")), &env);
    assert_eq!(plain.code, 0);
}

#[test]
fn env_names_are_the_variables_the_core_reads() {
    let core = Path::new(env!("CARGO_MANIFEST_DIR")).join("../qpath-core/src");
    let mut read = vec![];
    let mut stack = vec![core];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                for call in ["env_flag(\"", "env_value(\""] {
                    for (i, _) in text.match_indices(call) {
                        let name: String = text[i + call.len()..]
                            .chars()
                            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                            .collect();
                        if name.starts_with("VLLM_") || name.starts_with("FLASHINFER_") {
                            read.push(name);
                        }
                    }
                }
            }
        }
    }
    read.extend(qpath_core::resolve::RETIRED_ENV.iter().map(|(n, _)| n.to_string()));
    assert!(read.len() >= 5, "{read:?}");
    for name in &read {
        assert!(
            ENV_NAMES.contains(&name.as_str()),
            "{name} is read by the core but not in machine::ENV_NAMES"
        );
    }
}

#[test]
fn check_keeps_one_line_and_says_the_machine_on_stderr() {
    let smi = fake_smi("check", "echo 'NVIDIA L4, 8.9'");
    let site = empty_site();
    let a = run_with_env(
        &words(&format!("--gpu auto --check --site-packages {} {CMD}", site.0.display())),
        &env_of(vec![("PATH", smi.0.display().to_string())]),
    );
    assert_eq!(a.code, 0);
    assert_eq!(a.stdout.lines().count(), 1, "{}", a.stdout);
    assert!(
        a.stdout.contains("assumed: NVIDIA L4 (compute capability 8.9)"),
        "{}",
        a.stdout
    );
    assert!(
        a.stderr.starts_with("read from this machine:\n  GPU: NVIDIA L4"),
        "{}",
        a.stderr
    );
    // explain-log reads the log's GPU: --gpu auto is refused there.
    let e = run_with_env(&words("explain-log --gpu auto x.log"), &env_of(vec![]));
    assert!(e.code == 2 && e.stderr.contains("`--gpu auto` reads this machine"), "{e:?}");
}

#[test]
fn doctor_reports_with_exit_0_and_answers_a_command_line() {
    let smi = fake_smi("doctor", "echo 'NVIDIA H100 80GB HBM3, 9.0'");
    let site = usual_site("doctor-site", "0.25.0");
    let env = env_of(vec![("PATH", smi.0.display().to_string())]);
    let a = run_with_env(&words(&format!("doctor --site-packages {}", site.0.display())), &env);
    assert_eq!(a.code, 0, "{a:?}");
    assert!(
        a.stdout.starts_with("read from this machine:\n  GPU: NVIDIA H100 80GB HBM3"),
        "{}",
        a.stdout
    );
    assert!(a.stdout.contains("\n  vLLM: 0.25.0 (from"), "{}", a.stdout);
    assert!(!a.stdout.contains("could not read"), "{}", a.stdout);
    let j = json(&run_with_env(
        &words(&format!("doctor --format json --site-packages {}", site.0.display())),
        &env,
    ));
    assert_eq!(j["machine"]["gpus"][0]["id"], "h100-sxm");
    // With a command line: the answer, with its code (FLASH_ATTN rejects an FP8 cache on an A100-class GPU).
    let smi = fake_smi("doctor-a100", "echo 'NVIDIA A100-SXM4-80GB, 8.0'");
    let env = env_of(vec![("PATH", smi.0.display().to_string())]);
    let a = run_with_env(
        &words(&format!(
            "doctor --site-packages {} -- vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASH_ATTN --kv-cache-dtype fp8",
            site.0.display()
        )),
        &env,
    );
    assert_eq!(a.code, 1, "{a:?}");
    assert!(
        a.stdout.starts_with("read from this machine:\n  GPU: NVIDIA A100-SXM4-80GB"),
        "{}",
        a.stdout
    );
}

/// `qpath doctor` on this machine, as the binary runs it: says what it could not read and the flag that passes it.
#[test]
fn doctor_on_this_machine_says_what_it_could_not_read() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_qpath"))
        .arg("doctor")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("read from this machine:\n"), "{text}");
    let path = std::env::var("PATH").ok();
    if machine::find_on_path("nvidia-smi", path.as_deref()).is_none() {
        assert!(
            text.contains("could not read (pass the flag named):\n  GPU: not read: no nvidia-smi on PATH: pass --gpu ID"),
            "{text}"
        );
    }
    // Whatever this machine has, each piece is either read or named with its flag.
    for (what, flag) in [("vLLM", "--vllm"), ("FlashInfer", "--flashinfer"), ("CUDA", "--cuda")] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("  {what}: ")))
            .unwrap_or_default();
        assert!(
            line.contains("(from ") || text.contains(&format!("pass {flag}")),
            "{what}: {text}"
        );
    }
}
