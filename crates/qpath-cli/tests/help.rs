//! Issue 25's "`--help` fits 80 columns; completions offer GPU ids, releases, formats and subcommands": every help text
//! of every command, as the binary prints it into a pipe, fits 80 columns (and a terminal's width, at most 100, when
//! it is one); the completion scripts offer the values qpath reads, not file names, and never the vLLM command's
//! placeholder. Native only: a wasm32 build has no processes.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

use qpath_core::gpu::GPUS;
use qpath_core::release::{FlashInfer, Release};

const QPATH: &str = env!("CARGO_BIN_EXE_qpath");

/// Every subcommand, with `help` (clap's).
const COMMANDS: [&str; 9] = [
    "matrix",
    "timeline",
    "fix",
    "explain-log",
    "gpus",
    "models",
    "releases",
    "completions",
    "help",
];

/// The binary's standard output for `args` (a pipe: not a terminal), with its exit code checked to be 0.
fn stdout(args: &[&str]) -> String {
    let out = Command::new(QPATH).args(args).output().expect("qpath ran");
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    assert_eq!(out.status.code(), Some(0), "qpath {args:?}\n{text}");
    text
}

/// The lines of `text` wider than `width` columns (characters: the help is ASCII but for `…` and `×`).
fn over(text: &str, width: usize) -> Vec<&str> {
    text.lines().filter(|l| l.chars().count() > width).collect()
}

/// Every help invocation: the root's (`--help`, `-h`, `help`, no argument) and each subcommand's (`SUB --help`,
/// `SUB -h`, `help SUB`).
fn help_invocations() -> Vec<Vec<&'static str>> {
    let mut all = vec![vec!["--help"], vec!["-h"], vec!["help"], vec![]];
    for sub in COMMANDS {
        all.push(vec!["help", sub]);
        // clap's `help` takes no options.
        if sub != "help" {
            all.push(vec![sub, "--help"]);
            all.push(vec![sub, "-h"]);
        }
    }
    all
}

#[test]
fn every_help_text_fits_80_columns_when_not_a_terminal() {
    for args in help_invocations() {
        let text = stdout(&args);
        assert!(text.lines().count() > 3, "qpath {args:?}: no help?\n{text}");
        let wide = over(&text, 80);
        assert!(
            wide.is_empty(),
            "qpath {args:?}: {} lines over 80:\n{}",
            wide.len(),
            wide.join("\n")
        );
    }
    // The library entry (tests, the page's native twin) is "not a terminal" too.
    let help = qpath_cli::run(&["--help".to_string()]).stdout;
    assert_eq!(help, stdout(&["--help"]));
    assert!(over(&help, 80).is_empty());
}

/// The examples of a help text, each checked to paste into a shell as printed: a comment line, or a command (its
/// words joined back are a known example), continued with ` \\` on lines indented by four. Returns how many.
fn pasteable_examples(help: &str) -> usize {
    let examples = help.split("\nexamples:\n").nth(1).expect("an examples section");
    let examples = examples.split("\n\n").next().unwrap_or_default();
    let mut commands: Vec<String> = vec![];
    let mut continued = false;
    for line in examples.lines() {
        if continued {
            assert!(line.starts_with("    ") && !line.starts_with("     "), "{line}\n{help}");
            let last = commands.last_mut().expect("a command before");
            last.push(' ');
            last.push_str(line.trim().trim_end_matches(" \\"));
        } else if !line.trim_start().starts_with("# ") {
            assert!(line.starts_with("  qpath "), "not a command: {line}\n{help}");
            commands.push(line.trim().trim_end_matches(" \\").to_string());
        }
        continued = line.ends_with(" \\");
    }
    assert!(!continued, "{examples}");
    for c in &commands {
        assert!(c.starts_with("qpath ") && !c.contains("  ") && !c.contains('\\'), "{c}");
    }
    assert!(commands.contains(&"qpath --check -- vllm serve M --kv-cache-dtype fp8 || exit 1".to_string()));
    assert!(commands.contains(
        &"qpath --gpu l4 --vllm 0.25.0-prefix -- vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8".to_string()
    ));
    commands.len()
}

#[test]
fn help_follows_a_terminal_width_up_to_100_columns() {
    let env = |_: &str| None;
    let at = |columns: Option<usize>| qpath_cli::run_in(&["--help".to_string()], &env, columns).stdout;
    let pipe = at(None);
    let narrow = at(Some(70));
    let wide = at(Some(200));
    assert!(over(&narrow, 70).is_empty(), "{narrow}");
    assert!(over(&pipe, 80).is_empty());
    assert!(over(&wide, 100).is_empty(), "{wide}");
    // A wider terminal uses its width: some line of it is longer than any in 80 columns (the options' help).
    assert!(wide.lines().any(|l| l.chars().count() > 80), "{wide}");
    assert_ne!(narrow, pipe);
    for help in [&narrow, &pipe, &wide] {
        assert_eq!(pasteable_examples(help), 9, "{help}");
        // The exit codes stay one entry per code, its text indented under it.
        assert!(help.contains("\n  1  vLLM would fail: the report says where"), "{help}");
    }
}

#[test]
fn help_teaches_the_two_sides_of_dashes_and_its_examples_paste_into_a_shell() {
    for args in [&["--help"][..], &["-h"], &[]] {
        let help = stdout(args);
        assert!(
            help.contains("qpath's options (--gpu, --vllm, --format, …) go before `--`; after it, the vLLM"),
            "{help}"
        );
        assert!(help.contains("Usage: qpath [OPTIONS] -- [ENV=VAL ...] vllm serve MODEL [FLAGS...]"));
    }
    let help = stdout(&["--help"]);
    assert_eq!(pasteable_examples(&help), 9);
    assert_eq!(pasteable_examples(&stdout(&["-h"])), 3);
    assert!(help.contains("  qpath --gpu l4 --vllm 0.25.0-prefix -- \\\n    vllm serve meta-llama/Llama-3.1"));
    // The long help keeps what the short one leaves out.
    for part in [
        "defaults: --gpu",
        "--flashinfer: the installed",
        "MODEL's config.json:",
        "exit codes (",
    ] {
        assert!(help.contains(part), "{part}");
    }
    // A value's help does not list the 30 GPU ids (nor the releases).
    for args in [&["--help"][..], &["-h"], &["matrix", "--help"], &["explain-log", "--help"]] {
        let text = stdout(args);
        let gpu = text
            .lines()
            .skip_while(|l| !l.contains("--gpu <ID>"))
            .nth(1)
            .unwrap_or_default();
        assert!(gpu.contains("id, name or nvidia-smi name"), "{gpu}");
        assert!(
            !text.contains("rtx-pro-6000-blackwell") && !text.contains("jetson-agx-orin"),
            "{text}"
        );
        assert!(
            !text.contains("0.25.0-prefix,") && !text.contains("possible values: v100"),
            "{text}"
        );
    }
}

/// The values a script offers for `--gpu`, `--vllm` and `--flashinfer`.
/// What `--gpu` completes to: `auto` (this machine's, issue 26), then the table's ids.
fn gpu_ids() -> Vec<&'static str> {
    std::iter::once("auto").chain(GPUS.iter().map(|g| g.id)).collect()
}

fn release_names() -> Vec<&'static str> {
    Release::ALL.iter().map(|r| r.name()).collect()
}

fn flashinfers() -> Vec<&'static str> {
    FlashInfer::ALL.iter().map(|f| f.name()).collect()
}

#[test]
fn completion_scripts_offer_ids_releases_formats_and_subcommands() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&["completions", shell]);
        assert!(
            !script.contains("VLLM COMMAND]"),
            "{shell}: the vLLM command offered as a placeholder"
        );
        for sub in COMMANDS {
            assert!(script.contains(sub), "{shell}: {sub}");
        }
        if shell == "elvish" || shell == "powershell" {
            // clap_complete offers options and subcommands there, no values.
            continue;
        }
        // The values each option offers, as each shell's script lists them.
        let (gpu, vllm, flashinfer, format, backend) = match shell {
            "bash" => {
                let words = |list: Vec<&str>| format!("compgen -W \"{}\"", list.join(" "));
                (
                    words(gpu_ids()),
                    words(release_names()),
                    words(flashinfers()),
                    words(vec!["table", "json", "markdown"]),
                    words(vec!["flashinfer", "picked"]),
                )
            }
            "zsh" => {
                let values = |list: Vec<&str>| format!(":({})'", list.join(" "));
                (
                    format!(
                        "--gpu=[id, name or nvidia-smi name; auto reads this machine (default h100-sxm)]:ID{}",
                        values(gpu_ids())
                    ),
                    format!(":VERSION{}", values(release_names())),
                    format!(":VERSION{}", values(flashinfers())),
                    format!(":FORMAT{}", values(vec!["table", "json", "markdown"])),
                    "flashinfer\\:\"FlashInfer".to_string(),
                )
            }
            _ => {
                let values = |list: Vec<&str>| format!("-a \"{}\\t''\"", list.join("\\t''\n"));
                (
                    format!(
                        "-l gpu -d 'id, name or nvidia-smi name; auto reads this machine (default h100-sxm)' -r -f {}",
                        values(gpu_ids())
                    ),
                    format!(
                        "-l vllm -d 'a release or any vLLM version (default the newest)' -r -f {}",
                        values(release_names())
                    ),
                    format!("-r -f {}", values(flashinfers())),
                    format!(
                        "-l format -d 'how to print the answer' -r -f {}",
                        values(vec!["table", "json", "markdown"])
                    ),
                    "-l backend".to_string(),
                )
            }
        };
        for (what, needle) in [
            ("--gpu's ids", &gpu),
            ("--vllm's releases", &vllm),
            ("--flashinfer's versions", &flashinfer),
            ("--format's formats", &format),
            ("--backend's modes", &backend),
        ] {
            assert!(script.contains(needle.as_str()), "{shell}: {what}: {needle}");
        }
    }
}

#[test]
fn zsh_and_fish_complete_files_for_configs_and_a_command_after_dashes() {
    let zsh = stdout(&["completions", "zsh"]);
    assert!(zsh.contains("'--model-config=[the model'\\''s config.json]:FILE:_files'"));
    assert!(
        zsh.contains("':log -- the log (`-`\\: standard input):_files'"),
        "explain-log's FILE"
    );
    assert!(zsh.contains("or the same as one string:_cmdambivalent'"));
    assert!(!zsh.contains(":ID:_default") && !zsh.contains(":VERSION:_default"));
    let fish = stdout(&["completions", "fish"]);
    assert!(fish.contains("-l model-config -d 'the model\\'s config.json' -r -F"));
    assert!(fish.contains("-l draft-model-config -d 'the speculative drafter\\'s config.json"));
}

/// Runs bash's completion function on a command line (its last word the one being completed) and returns the
/// candidates; `None` when bash is not installed.
fn bash_candidates(script: &str, dir: &std::path::Path, words: &[&str]) -> Option<Vec<String>> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "{script}\ncompopt() {{ :; }}\nCOMP_WORDS=({})\nCOMP_CWORD={}\n_qpath qpath '{}' '{}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"",
        quoted.join(" "),
        words.len() - 1,
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let out = Command::new("bash").arg("-c").arg(program).current_dir(dir).output().ok()?;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    Some(text.lines().filter(|l| !l.is_empty()).map(String::from).collect())
}

#[test]
fn bash_offers_values_files_where_files_go_and_vllm_after_dashes() {
    let script = stdout(&["completions", "bash"]);
    let dir = std::env::temp_dir().join(format!("qpath-help-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), "{}").unwrap();
    std::fs::write(dir.join("vllm.log"), "").unwrap();
    let run = |words: &[&str]| bash_candidates(&script, &dir, words);
    let Some(h1) = run(&["qpath", "--gpu", "h1"]) else {
        eprintln!("no bash: the completion function was not run");
        return;
    };
    assert_eq!(h1, ["h100-pcie", "h100-sxm", "h100-nvl"]);
    assert_eq!(run(&["qpath", "matrix", "--gpu", ""]).unwrap(), gpu_ids());
    assert_eq!(run(&["qpath", "--vllm", ""]).unwrap(), release_names());
    assert_eq!(
        run(&["qpath", "--flashinfer", "0.7"]).unwrap(),
        ["0.7.0.post1", "0.7.2.post1"]
    );
    assert_eq!(run(&["qpath", "--format", ""]).unwrap(), ["table", "json", "markdown"]);
    assert_eq!(run(&["qpath", "matrix", "--backend", ""]).unwrap(), ["flashinfer", "picked"]);
    assert_eq!(run(&["qpath", "--model-config", "con"]).unwrap(), ["config.json"]);
    assert_eq!(
        run(&["qpath", "fix", "--draft-model-config", "con"]).unwrap(),
        ["config.json"]
    );
    assert_eq!(run(&["qpath", "explain-log", "vl"]).unwrap(), ["vllm.log"]);
    let log = run(&["qpath", "explain-log", ""]).unwrap();
    assert!(
        log.contains(&"vllm.log".to_string()) && log.contains(&"--gpu".to_string()),
        "{log:?}"
    );
    let cudas: Vec<String> = qpath_core::choices::cuda_versions().iter().map(|c| c.to_string()).collect();
    assert_eq!(run(&["qpath", "--cuda", ""]).unwrap(), cudas);
    // A number, not a file name.
    assert!(run(&["qpath", "--width", "c"]).unwrap().iter().all(|c| c == "c"));
    assert_eq!(run(&["qpath", "m"]).unwrap(), ["matrix", "models"]);
    let first = run(&["qpath", ""]).unwrap();
    for sub in COMMANDS {
        assert!(first.iter().any(|c| c == sub), "{sub}: {first:?}");
    }
    assert!(
        !first
            .iter()
            .any(|c| c.contains("VLLM") || c.starts_with('<') || c.starts_with('[')),
        "{first:?}"
    );
    // After `--`: the vLLM command, not qpath's options.
    assert_eq!(run(&["qpath", "--gpu", "l4", "--", ""]).unwrap(), ["vllm"]);
    assert_eq!(run(&["qpath", "matrix", "--", "v"]).unwrap(), ["vllm"]);
    assert_eq!(
        run(&["qpath", "--", "vllm", "serve", "M", "--"]).unwrap(),
        Vec::<String>::new()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gpu_values_are_read_as_before() {
    let env = |_: &str| None;
    let check = |gpu: &str| {
        let argv: Vec<String> = ["--check", "--gpu", gpu, "--", "vllm", "serve", "Qwen/Qwen3-4B"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        qpath_cli::run_with_env(&argv, &env)
    };
    // Ids in any case, nvidia-smi names and display names: not only the ids the completion offers.
    for gpu in [
        "L4",
        "h100-sxm",
        "NVIDIA H100 80GB HBM3",
        "NVIDIA GeForce RTX 4090",
        GPUS[0].name,
    ] {
        let a = check(gpu);
        assert_eq!(a.code, 0, "{gpu}: {}{}", a.stdout, a.stderr);
    }
    let a = check("h100");
    assert_eq!(a.code, 2);
    assert!(a.stderr.starts_with("qpath: --gpu `h100` "), "{}", a.stderr);
}
