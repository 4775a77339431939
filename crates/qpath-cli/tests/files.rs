//! The files the `qpath` binary reads (issue 25, item 1): a model's or drafter's config.json (`--model-config`, a
//! model folder, the Hugging Face cache and its `refs/main`) and `explain-log`'s log are read only when they are
//! regular files, within their cap, and every problem exits 2 naming the file. Each run is guarded by a timeout: a
//! run that blocks (a FIFO opened for reading) is killed and the test fails. Unix only (FIFOs, symlinks, modes).
#![cfg(all(unix, not(target_arch = "wasm32")))]

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const QPATH: &str = env!("CARGO_BIN_EXE_qpath");
const CAP: &str = "16 MiB (qpath_core::serve::limits::MAX_CONFIG_JSON_BYTES)";
/// Far more than any of these runs needs (each answers from metadata or one small file); only a blocked run reaches it.
const TIMEOUT: Duration = Duration::from_secs(20);

const QWEN3: &str = r#"{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "hidden_size": 1024,
  "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 28,
  "torch_dtype": "bfloat16", "vocab_size": 151936, "max_position_embeddings": 40960}"#;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs qpath with `args` (`HOME` and the HF variables pointed at `home`, so no real cache is read); fails the test when
/// it does not finish within [`TIMEOUT`] (the child, started here, is killed by its handle).
fn qpath(home: &Path, args: &[&str]) -> Run {
    let mut child = Command::new(QPATH)
        .args(args)
        .env("HOME", home)
        .env("HF_HUB_CACHE", home.join("hub"))
        .env_remove("HF_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qpath starts");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("qpath waited for") {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("qpath {args:?} did not finish within {TIMEOUT:?}: it blocks");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let run = Run {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    assert!(
        !run.stderr.contains("panicked") && run.code != Some(101),
        "qpath {args:?} panicked: {}",
        run.stderr
    );
    run
}

/// A run that qpath must refuse: exit 2, one message on standard error that contains every one of `said`.
#[track_caller]
fn refused(run: &Run, said: &[&str]) {
    assert_eq!(run.code, Some(2), "stdout: {}\nstderr: {}", run.stdout, run.stderr);
    for s in said {
        assert!(run.stderr.contains(s), "expected {s:?} in: {}", run.stderr);
    }
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("qpath-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    fn s(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Give back what a mode test took away, so the folder can be removed.
        let _ = Command::new("chmod").args(["-R", "u+rwx"]).arg(&self.0).status();
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn mkfifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(ok.success(), "mkfifo {}", path.display());
}

/// Whether mode 000 stops this process from reading `path` (it does not for root): the permission cases are skipped,
/// and said to be, when it does not.
fn modes_apply(path: &Path) -> bool {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o000)).unwrap();
    let applies = std::fs::File::open(path).is_err() && std::fs::read_dir(path).is_err();
    if !applies {
        eprintln!(
            "skipped: mode 000 does not stop this user from reading {} (running as root?); the permission-denied case \
             is not tested here",
            path.display()
        );
    }
    applies
}

const SERVE: [&str; 3] = ["--", "vllm", "serve"];

fn serve<'a>(before: &[&'a str], model: &'a str) -> Vec<&'a str> {
    [before, &SERVE, &[model]].concat()
}

#[test]
fn dev_zero_is_refused_before_reading_with_the_cap_named() {
    let t = TempDir::new("zero");
    let run = qpath(
        &t.0,
        &serve(&["--model-config", "/dev/zero"], "meta-llama/Llama-3.1-8B-Instruct"),
    );
    refused(
        &run,
        &["qpath: --model-config /dev/zero: a character device, not a regular file", CAP],
    );
    // A model folder whose config.json links to it.
    std::fs::create_dir_all(t.path("m")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", t.path("m/config.json")).unwrap();
    let m = t.s("m");
    refused(
        &qpath(&t.0, &serve(&[], &m)),
        &[&format!("{m}/config.json: a character device, not a regular file"), CAP],
    );
    // The drafter's config.json, by flag.
    let spec = r#"--speculative-config={"method":"eagle3","model":"x/eagle","num_speculative_tokens":3}"#;
    let args = [
        &["--draft-model-config", "/dev/zero", "--", "vllm", "serve"][..],
        &["meta-llama/Llama-3.1-8B-Instruct", spec],
    ]
    .concat();
    refused(
        &qpath(&t.0, &args),
        &["--draft-model-config /dev/zero: a character device, not a regular file", CAP],
    );
}

#[test]
fn a_fifo_never_blocks() {
    let t = TempDir::new("fifo");
    let fifo = t.path("pipe.json");
    mkfifo(&fifo);
    let f = t.s("pipe.json");
    refused(
        &qpath(&t.0, &serve(&["--model-config", &f], "meta-llama/Llama-3.1-8B-Instruct")),
        &[&format!("--model-config {f}: a FIFO (named pipe), not a regular file"), CAP],
    );
    // As a model folder's config.json, for the default action and the commands that resolve many scenarios.
    std::fs::create_dir_all(t.path("m")).unwrap();
    mkfifo(&t.path("m/config.json"));
    let m = t.s("m");
    for before in [&[][..], &["matrix"], &["timeline"], &["fix"], &["--format", "json"]] {
        let run = qpath(&t.0, &serve(before, &m));
        assert_eq!(run.code, Some(2), "{before:?}: {}{}", run.stdout, run.stderr);
        let said = run.stderr.clone() + &run.stdout;
        assert!(
            said.contains(&format!("{m}/config.json: a FIFO (named pipe), not a regular file")) && said.contains(CAP),
            "{before:?}: {said}"
        );
    }
    // explain-log: a FIFO is refused with a hint to pipe it to `-`; so is a device.
    refused(
        &qpath(&t.0, &["explain-log", &f]),
        &[
            &format!("cannot read the log `{f}`: a FIFO (named pipe), not a regular file"),
            "qpath explain-log -",
        ],
    );
    refused(
        &qpath(&t.0, &["explain-log", "/dev/zero"]),
        &["cannot read the log `/dev/zero`: a character device, not a regular file"],
    );
}

#[test]
fn a_config_over_16_mib_is_refused_by_its_size() {
    let t = TempDir::new("big");
    std::fs::create_dir_all(t.path("m")).unwrap();
    // Sparse: 16 MiB + 1 bytes of NULs, no disk used.
    let big = std::fs::File::create(t.path("m/config.json")).unwrap();
    big.set_len((16 << 20) + 1).unwrap();
    let m = t.s("m");
    for before in [&[][..], &["matrix"]] {
        refused(
            &qpath(&t.0, &serve(before, &m)),
            &[&format!("{m}/config.json: 16777217 bytes, more than qpath's cap of {CAP}")],
        );
    }
    let f = t.s("m/config.json");
    refused(
        &qpath(&t.0, &serve(&["--model-config", &f], "meta-llama/Llama-3.1-8B-Instruct")),
        &[&format!("--model-config {f}: 16777217 bytes, more than qpath's cap of {CAP}")],
    );
}

#[test]
fn a_config_that_is_not_json_is_named_as_the_file_read() {
    let t = TempDir::new("notjson");
    std::fs::write(t.path("shadow"), "root:*:19000:0:99999:7:::\n").unwrap();
    let f = t.s("shadow");
    refused(
        &qpath(&t.0, &serve(&["--model-config", &f], "meta-llama/Llama-3.1-8B-Instruct")),
        &[&format!("qpath: --model-config {f}: not valid JSON: ")],
    );
    // In JSON, the same message as an input error.
    let run = qpath(
        &t.0,
        &serve(
            &["--format", "json", "--model-config", &f],
            "meta-llama/Llama-3.1-8B-Instruct",
        ),
    );
    assert_eq!(run.code, Some(2));
    let j: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(j["error"]["type"], "input");
    assert!(j["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with(&format!("--model-config {f}: not valid JSON")));
    // `matrix` says it once, not in each cell.
    let run = qpath(
        &t.0,
        &serve(&["matrix", "--model-config", &f], "meta-llama/Llama-3.1-8B-Instruct"),
    );
    refused(&run, &[&format!("--model-config {f}: not valid JSON")]);
    assert!(run.stdout.is_empty() && run.stderr.lines().count() == 1, "{}", run.stderr);
    // Not UTF-8.
    std::fs::write(t.path("latin1.json"), b"{\"a\": \"\xe9\"}").unwrap();
    let l = t.s("latin1.json");
    refused(
        &qpath(&t.0, &serve(&["--model-config", &l], "m/x")),
        &[&format!("--model-config {l}: not UTF-8 text (an invalid byte at offset 7)")],
    );
    // A symlink loop.
    std::os::unix::fs::symlink(t.path("loop"), t.path("loop")).unwrap();
    let lp = t.s("loop");
    refused(
        &qpath(&t.0, &serve(&["--model-config", &lp], "m/x")),
        &[&format!("--model-config {lp}: cannot read it: ")],
    );
    // A good one still answers.
    std::fs::write(t.path("good.json"), QWEN3).unwrap();
    let g = t.s("good.json");
    let run = qpath(&t.0, &serve(&["--gpu", "l4", "--model-config", &g], "acme/tiny"));
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
}

/// An HF cache holding `acme/tiny` with one snapshot.
fn hf_cache(t: &TempDir, rev: &str) -> PathBuf {
    let folder = t.path("hub/models--acme--tiny");
    std::fs::create_dir_all(folder.join("snapshots").join(rev)).unwrap();
    std::fs::create_dir_all(folder.join("refs")).unwrap();
    std::fs::write(folder.join("snapshots").join(rev).join("config.json"), QWEN3).unwrap();
    folder
}

const HASH: &str = "0123456789abcdef0123456789abcdef01234567";

#[test]
fn refs_main_is_capped_and_must_name_a_revision() {
    let t = TempDir::new("refs");
    let folder = hf_cache(&t, HASH);
    let refs_main = folder.join("refs/main");
    let r = refs_main.display().to_string();
    // --wide: the config line names the whole path on one line.
    let model = serve(&["--wide", "--gpu", "l4"], "acme/tiny");
    std::fs::write(&refs_main, format!("{HASH}\n")).unwrap();
    let run = qpath(&t.0, &model);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains(&format!("snapshots/{HASH}/config.json (Hugging Face cache)")),
        "{}",
        run.stdout
    );
    // 8 MiB: refused by its size, never echoed.
    std::fs::write(&refs_main, "a".repeat(8 << 20)).unwrap();
    let run = qpath(&t.0, &model);
    refused(
        &run,
        &[
            &format!("{r}: 8388608 bytes, more than qpath's cap of 1 KiB (qpath_cli::read::REF)"),
            "commit hash",
        ],
    );
    assert!(run.stderr.len() < 400, "{}", run.stderr);
    // Not one revision: a path, blanks, nothing.
    for (text, said) in [
        (
            "../../../../etc",
            "holds `../../../../etc`, not a commit hash (40 hex digits)",
        ),
        ("two words", "holds `two words`, not a commit hash (40 hex digits)"),
        ("\n", "holds nothing, not a commit hash (40 hex digits)"),
    ] {
        std::fs::write(&refs_main, text).unwrap();
        refused(&qpath(&t.0, &model), &[&format!("{r}: {said}")]);
    }
    // A revision without its snapshot.
    std::fs::write(&refs_main, "feedface").unwrap();
    refused(
        &qpath(&t.0, &model),
        &[
            "refs/main names revision feedface (not a commit hash: 40 hex digits), but",
            "does not exist",
        ],
    );
    // refs/main as a FIFO or a device.
    std::fs::remove_file(&refs_main).unwrap();
    mkfifo(&refs_main);
    refused(
        &qpath(&t.0, &model),
        &[&format!("{r}: a FIFO (named pipe), not a regular file")],
    );
    std::fs::remove_file(&refs_main).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &refs_main).unwrap();
    refused(
        &qpath(&t.0, &model),
        &[&format!("{r}: a character device, not a regular file")],
    );
    // The snapshot's config.json as a FIFO (refs/main gone: the newest snapshot).
    std::fs::remove_file(&refs_main).unwrap();
    let config = folder.join("snapshots").join(HASH).join("config.json");
    std::fs::remove_file(&config).unwrap();
    mkfifo(&config);
    refused(
        &qpath(&t.0, &model),
        &[&format!("{}: a FIFO (named pipe), not a regular file", config.display())],
    );
}

#[test]
fn unreadable_files_say_permission_denied_and_name_the_file() {
    let t = TempDir::new("modes");
    // --model-config and a model folder's config.json.
    std::fs::write(t.path("secret.json"), QWEN3).unwrap();
    let f = t.s("secret.json");
    if modes_apply(&t.path("secret.json")) {
        refused(
            &qpath(&t.0, &serve(&["--model-config", &f], "meta-llama/Llama-3.1-8B-Instruct")),
            &[&format!("qpath: --model-config {f}: permission denied")],
        );
        refused(
            &qpath(&t.0, &["explain-log", &f]),
            &[&format!("cannot read the log `{f}`: permission denied")],
        );
    }
    // An unreadable snapshot is unreadable, not missing.
    let folder = hf_cache(&t, HASH);
    std::fs::write(folder.join("refs/main"), HASH).unwrap();
    let snapshot = folder.join("snapshots").join(HASH);
    if modes_apply(&snapshot) {
        let run = qpath(&t.0, &serve(&[], "acme/tiny"));
        refused(&run, &[&format!("{}/config.json: permission denied", snapshot.display())]);
        assert!(!run.stderr.contains("does not exist"), "{}", run.stderr);
        // Without refs/main: the scan says it too.
        std::fs::remove_file(folder.join("refs/main")).unwrap();
        refused(
            &qpath(&t.0, &serve(&[], "acme/tiny")),
            &[&format!("{}/config.json: permission denied", snapshot.display())],
        );
    }
    // A cache this user cannot look into at all (`HOME=/root` in a container run as another user) holds nothing: a
    // preset still answers.
    if modes_apply(&t.path("hub")) {
        let run = qpath(&t.0, &serve(&["--gpu", "l4"], "meta-llama/Llama-3.1-8B-Instruct"));
        assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    }
}

/// Root ignores mode 000, so the permission case of the reader itself is checked on the message it gives for the
/// error the system returns (the process cases above run when the tests do not run as root).
#[test]
fn the_permission_message_is_the_readers() {
    let p = qpath_cli::read::Problem::of_io(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
    assert_eq!(p.to_string(), "permission denied (qpath cannot read it as this user)");
}
