//! Issue 25, item 3: options on the wrong side of `--` get a hint naming the right side (qpath's own among vLLM's
//! words are caught before vLLM's parser reads them; vLLM's before `--` are named as vLLM's); global options before a
//! subcommand are the subcommand's; `qpath matrix --gpu ID` keeps that GPU's row (`--compute-capability` is refused);
//! the text matrix says when its columns replace the command's own `--kv-cache-dtype`.

use qpath_cli::{run_with_env, Answer};
use qpath_core::release::Release;
use qpath_core::serve;

const M: &str = "meta-llama/Llama-3.1-8B-Instruct";

fn run(line: &str) -> Answer {
    let argv: Vec<String> = line.split(' ').map(str::to_string).collect();
    run_argv(&argv)
}

fn run_argv(argv: &[String]) -> Answer {
    run_with_env(argv, &|_| None)
}

/// The first line of the error (without `qpath: `), asserting exit 2 and nothing on standard output.
fn refused(line: &str) -> String {
    let a = run(line);
    assert_eq!((a.code, a.stdout.as_str()), (2, ""), "{line}: {}", a.stderr);
    let first = a.stderr.lines().next().unwrap_or_default();
    first.strip_prefix("qpath: ").unwrap_or(first).to_string()
}

#[test]
fn qpaths_options_after_dashes_are_named_before_vllm_reads_them() {
    let cases = [
        (
            format!("-- vllm serve {M} --check"),
            format!("`--check` is qpath's option, not vLLM's: put it before `--`: qpath --check -- vllm serve {M}"),
        ),
        // argparse would read `--gpu` as a prefix of `--gpu-memory-utilization`.
        (
            format!("-- vllm serve {M} --gpu l4"),
            format!("`--gpu l4` is qpath's option, not vLLM's: put it before `--`: qpath --gpu l4 -- vllm serve {M}"),
        ),
        (
            format!("-- vllm serve {M} --vllm 0.25.0"),
            format!("`--vllm 0.25.0` is qpath's option, not vLLM's: put it before `--`: qpath --vllm 0.25.0 -- vllm serve {M}"),
        ),
        (
            format!("-- vllm serve {M} --format json"),
            format!("`--format json` is qpath's option, not vLLM's: put it before `--`: qpath --format json -- vllm serve {M}"),
        ),
        (
            format!("-- vllm serve {M} --model-config F"),
            format!(
                "`--model-config F` is qpath's option, not vLLM's: put it before `--`: qpath --model-config F -- vllm serve {M}"
            ),
        ),
        // Several, with qpath's own options already before `--` and vLLM's kept after it; `=` spellings too.
        (
            format!("matrix --gpu l4 -- vllm serve {M} --kv-cache-dtype fp8 --vllm=0.25.0 --check"),
            format!(
                "`--vllm=0.25.0` and `--check` are qpath's options, not vLLM's: put them before `--`: qpath matrix --gpu l4 \
                 --vllm=0.25.0 --check -- vllm serve {M} --kv-cache-dtype fp8"
            ),
        ),
    ];
    for (line, want) in cases {
        assert_eq!(refused(&line), want, "{line}");
    }
    // One quoted string after `--`: the same, with the string re-quoted.
    let a = run_argv(&["--".to_string(), format!("vllm serve {M} --gpu l4")]);
    assert_eq!(a.code, 2);
    assert!(
        a.stderr.starts_with(&format!(
            "qpath: `--gpu l4` is qpath's option, not vLLM's: put it before `--`: qpath --gpu l4 -- \"vllm serve {M}\""
        )),
        "{}",
        a.stderr
    );
    // With --format json before `--`, the hint is the JSON usage error.
    let a = run(&format!("--format json -- vllm serve {M} --gpu l4"));
    assert_eq!(a.code, 2);
    let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
    assert_eq!(j["error"]["type"], "usage");
    assert!(j["error"]["message"]
        .as_str()
        .unwrap()
        .contains("`--gpu l4` is qpath's option"));
}

#[test]
fn vllms_own_options_that_share_a_prefix_stay_vllms() {
    // `--gpu-memory-utilization` begins with `--gpu`: it is vLLM's, and the scenario runs.
    let a = run(&format!("--gpu l4 -- vllm serve {M} --gpu-memory-utilization 0.8"));
    assert_eq!(a.code, 0, "{}{}", a.stdout, a.stderr);
    // None of qpath's option names is a vLLM option in any release (so a hint is never wrong today); a release that
    // had one exactly would win: the check is the release's own argparse lookup, exact and not by prefix.
    for name in [
        "--check",
        "--gpu",
        "--vllm",
        "--format",
        "--model-config",
        "--cuda",
        "--flashinfer",
        "--backend",
    ] {
        for r in Release::ALL {
            let exact = serve::unused_option(r, name).is_some_and(|u| u.option == name);
            assert!(!exact, "{} has {name}", r.name());
        }
    }
    let kv = serve::unused_option(Release::LATEST, "--kv-cache-dtype fp8").unwrap();
    assert_eq!(kv.option, "--kv-cache-dtype");
    // A word that is a value, not an option, is left alone.
    let a = run(&format!("-- vllm serve {M} --served-model-name check"));
    assert_eq!(a.code, 0, "{}{}", a.stdout, a.stderr);
}

#[test]
fn vllms_options_before_dashes_are_named_with_the_side_they_go_on() {
    assert_eq!(
        refused(&format!("--kv-cache-dtype fp8 -- vllm serve {M}")),
        format!("unknown option `--kv-cache-dtype`: `--kv-cache-dtype` is vLLM's option: put it after `--`: qpath -- vllm serve {M} --kv-cache-dtype fp8")
    );
    // A flag without a value, among qpath's own options, in a subcommand.
    assert_eq!(
        refused(&format!("matrix --enforce-eager --gpu l4 -- vllm serve {M}")),
        format!("unknown option `--enforce-eager`: `--enforce-eager` is vLLM's option: put it after `--`: qpath matrix --gpu l4 -- vllm serve {M} --enforce-eager")
    );
    // No command yet: the hint shows where it goes.
    assert_eq!(
        refused("--kv-cache-dtype=fp8"),
        "unknown option `--kv-cache-dtype`: `--kv-cache-dtype` is vLLM's option: put it after `--`: qpath -- vllm serve MODEL --kv-cache-dtype=fp8"
    );
    // Not a vLLM option: clap's did-you-mean as before.
    assert_eq!(
        refused(&format!("--gp l4 -- vllm serve {M}")),
        "unknown option `--gp`; did you mean `--gpu`?"
    );
}

#[test]
fn global_options_before_a_subcommand_are_the_subcommands() {
    for (before, after) in [
        ("--format json gpus", "gpus --format json"),
        ("--format json releases", "releases --format json"),
        ("--format=json models", "models --format=json"),
    ] {
        let (a, b) = (run(before), run(after));
        assert_eq!((a.code, &a.stdout, &a.stderr), (0, &b.stdout, &b.stderr), "{before}");
        assert!(a.stdout.starts_with('['), "{before}: {}", a.stdout);
    }
    let (a, b) = (
        run(&format!("--gpu l4 --vllm 0.25.0 --format json timeline -- vllm serve {M}")),
        run(&format!("timeline --gpu l4 --vllm 0.25.0 --format json -- vllm serve {M}")),
    );
    assert_eq!((a.code, &a.stdout), (b.code, &b.stdout));
    let (a, b) = (
        run(&format!("--check --gpu l4 matrix -- vllm serve {M}")),
        run(&format!("matrix --check --gpu l4 -- vllm serve {M}")),
    );
    assert_eq!((a.code, &a.stdout), (b.code, &b.stdout));
    // An option the subcommand does not take is said so (never "unknown command `gpus`; did you mean `gpus`?").
    assert_eq!(
        refused("--gpu l4 gpus"),
        "`--gpu` does not apply to `qpath gpus` (it takes --format); in `qpath --gpu l4 gpus` drop it"
    );
    assert_eq!(
        refused("--check completions bash"),
        "`--check` does not apply to `qpath completions` (it takes no option); in `qpath --check completions` drop it"
    );
    // A value the subcommand does not take is the subcommand's error.
    assert_eq!(refused("--format markdown gpus"), "--format `markdown`: one of table, json");
    // A GPU id called `gpus` is a value, not the subcommand.
    assert!(refused(&format!("--gpu gpus -- vllm serve {M}")).starts_with("--gpu `gpus`"));
}

#[test]
fn matrix_gpu_keeps_that_gpus_row_and_compute_capability_is_refused() {
    let a = run(&format!("matrix --gpu l4 --format json -- vllm serve {M}"));
    let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
    assert_eq!(j["gpus"], serde_json::json!(["l4"]));
    let cells = j["cells"].as_array().unwrap();
    assert_eq!(cells.len(), j["kv_cache_dtypes"].as_array().unwrap().len());
    assert!(cells.iter().all(|c| c["gpu"] == "l4"));
    // The row is the full matrix's row.
    let full = run(&format!("matrix --format json -- vllm serve {M}"));
    let f: serde_json::Value = serde_json::from_str(&full.stdout).unwrap();
    let row: Vec<&serde_json::Value> = f["cells"].as_array().unwrap().iter().filter(|c| c["gpu"] == "l4").collect();
    assert_eq!(cells.iter().collect::<Vec<_>>(), row);
    assert!(f["gpus"].as_array().unwrap().len() > 1);
    // The text too, and its verdict is the row's (`--gpu` names any spelling of the GPU).
    let t = run(&format!("matrix --gpu L4 --format markdown -- vllm serve {M}"));
    assert_eq!(t.stdout.lines().filter(|l| l.starts_with("| ")).count(), 2, "{}", t.stdout);
    assert!(t.stdout.contains("\n| l4 |"));
    assert_eq!(
        refused(&format!("matrix --compute-capability 9.0 -- vllm serve {M}")),
        "`qpath matrix` spans the GPUs of qpath's table (`qpath gpus`), each with its own compute capability: \
         `--compute-capability` does not apply; give `--gpu ID` for one GPU's row, or run the scenario without `matrix`"
    );
}

#[test]
fn the_matrix_text_says_the_columns_replace_the_commands_kv_cache_dtype() {
    let a = run(&format!(
        "matrix --gpu l4 --format markdown -- vllm serve {M} --kv-cache-dtype fp8"
    ));
    assert!(
        a.stdout.ends_with(
            "\nnote: each column sets its own cache dtype: the command's `--kv-cache-dtype fp8` is replaced in every \
             column (the command as given is column `fp8`)\n"
        ),
        "{}",
        a.stdout
    );
    // Without the flag, no note; JSON never has one (the matrix's JSON is the core's).
    let plain = run(&format!("matrix --gpu l4 -- vllm serve {M}"));
    assert!(!plain.stdout.contains("note:"), "{}", plain.stdout);
    let j = run(&format!("matrix --format json -- vllm serve {M} --kv-cache-dtype fp8"));
    let j: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    let keys: Vec<&String> = j.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["cells", "gpus", "kv_cache_dtypes", "mode", "vllm"]);
    assert!(!j.to_string().contains("note"));
}
