//! The `qpath` binary: hands its arguments to [`qpath_cli::run`], prints the answer and exits with its code (see the
//! crate's lib for the options and the codes). Nothing here panics: an argument that is not UTF-8 is named (exit 2),
//! a reader that goes away ends the run quietly with the answer's own code (`qpath matrix … | head -1` keeps the
//! matrix's verdict), and an output that cannot be written (a full disk) is said on standard error (exit 2: qpath's
//! failure, never 1, which is vLLM's).

use std::io::Write;
use std::process::ExitCode;

use qpath_cli::{exit, run_in, utf8_args, width, write_answer, Written};

/// mimalloc instead of the system's malloc: a resolve allocates many small strings and frees them all with its report
/// (about a third fewer instructions per scenario; BENCHMARKS.md).
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Prints to standard error, ignoring a failure there (nowhere left to say it).
fn say(text: &str) {
    let _ = write!(std::io::stderr(), "{text}");
}

fn main() -> ExitCode {
    let argv = match utf8_args(std::env::args_os().skip(1)) {
        Ok(argv) => argv,
        Err(e) => {
            say(&format!("qpath: {e}\n"));
            return ExitCode::from(exit::CANNOT);
        }
    };
    let env = |name: &str| std::env::var(name).ok();
    let answer = run_in(&argv, &env, width::terminal_width(env("COLUMNS")));
    say(&answer.stderr);
    match write_answer(&mut std::io::stdout().lock(), &answer.stdout) {
        Written::Done => ExitCode::from(answer.code),
        // `qpath matrix … | head -1`: the reader took what it wanted; the verdict stays the exit code.
        Written::ReaderGone => ExitCode::from(answer.code),
        // qpath's own failure, never vLLM's (1): the answer is lost, so the code says qpath could not finish.
        Written::Failed(e) => {
            say(&format!("qpath: {e}\n"));
            ExitCode::from(exit::CANNOT)
        }
    }
}
