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

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_said_with_exit_1() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let child = Command::new(QPATH)
        .arg("gpus")
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (code, err) = stderr_of(child);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with("qpath: cannot write the answer to standard output: "),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_reader_that_goes_away_ends_the_run_quietly() {
    let mut child = Command::new(QPATH)
        .args(["matrix", "--", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before qpath writes (the matrix takes a while to resolve).
    drop(child.stdout.take());
    let (code, err) = stderr_of(child);
    assert_eq!((code, err.as_str()), (Some(0), ""));
}
