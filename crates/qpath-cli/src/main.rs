//! The `qpath` binary: hands its arguments to [`qpath_cli::run`] and prints the answer (see the crate's lib for the
//! options).

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match qpath_cli::run(&argv) {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("qpath: {e}\n\n{}", qpath_cli::usage());
            ExitCode::from(2)
        }
    }
}
