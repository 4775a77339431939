//! The `qpath` binary: hands its arguments to [`qpath_cli::run`] and prints the answer (see the crate's lib for the
//! options). Nothing here panics: an argument that is not UTF-8 is named (exit 2), a reader that goes away ends the
//! run quietly, and an output that cannot be written (a full disk) is said on standard error (exit 1).

use std::io::Write;
use std::process::ExitCode;

use qpath_cli::{run, usage, utf8_args, write_answer, Written};

/// Prints to standard error, ignoring a failure there (nowhere left to say it).
fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

fn main() -> ExitCode {
    let argv = match utf8_args(std::env::args_os().skip(1)) {
        Ok(argv) => argv,
        Err(e) => {
            say(&format!("qpath: {e}"));
            return ExitCode::from(2);
        }
    };
    match run(&argv) {
        Ok(out) => match write_answer(&mut std::io::stdout().lock(), &out) {
            Written::Done | Written::ReaderGone => ExitCode::SUCCESS,
            Written::Failed(e) => {
                say(&format!("qpath: {e}"));
                ExitCode::from(1)
            }
        },
        Err(e) => {
            say(&format!("qpath: {e}\n\n{}", usage()));
            ExitCode::from(2)
        }
    }
}
