//! The text report fits its width (issue 25, item 5): 80 columns when standard output is not a terminal, `--width N`,
//! `--wide` unwrapped (the core's `render::text`), `--brief` one screen; wrapping loses no word of vLLM's log lines or
//! errors, and the group table stays aligned for any layer list.

use qpath_cli::{exit, run_in, run_with_env, Answer};
use qpath_core::options::{OptionKey, ScenarioOptions};
use qpath_core::report::Report;
use qpath_core::resolve::resolve;

fn no_env(_: &str) -> Option<String> {
    None
}

fn words(s: &str) -> Vec<String> {
    s.split(' ').filter(|w| !w.is_empty()).map(String::from).collect()
}

fn run(argv: &[String]) -> Answer {
    run_with_env(argv, &no_env)
}

fn with(flags: &[&str], argv: &[String]) -> Vec<String> {
    flags.iter().map(|f| f.to_string()).chain(argv.iter().cloned()).collect()
}

/// The README's single-scenario examples (the `cargo run -q -p qpath-cli -- …` lines that are not matrix, timeline,
/// fix or explain-log), without `--format json`.
fn readme_examples() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let prefix = "cargo run -q -p qpath-cli -- ";
    let found: Vec<Vec<String>> = readme
        .lines()
        .filter_map(|l| l.trim().strip_prefix(prefix))
        .map(|l| l.split(" #").next().unwrap_or(l))
        .filter(|l| !["matrix", "timeline", "fix", "explain-log"].iter().any(|m| l.starts_with(m)))
        .map(|l| l.replace("--format json ", ""))
        .map(|l| words(&l))
        .collect();
    assert!(found.len() >= 3, "{found:?}");
    found
}

/// The README's examples and the cases: gpt-oss, Qwen3-Next (hybrid), DeepSeek-V3 on B200 with fp8 (MLA),
/// Gemma-3 (interleaved sliding / full layers: a long layer list), Nemotron-H (Mamba2 hybrid), DeepSeek-V3.2 (three
/// groups), a scenario error.
fn cases() -> Vec<Vec<String>> {
    let mut all = readme_examples();
    for c in [
        "--gpu h100-sxm -- vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER",
        "--gpu h100-sxm -- vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct",
        "--gpu b200 -- vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype fp8",
        "--gpu h100-sxm -- vllm serve google/gemma-3-27b-it",
        "--gpu l4 -- vllm serve nvidia/NVIDIA-Nemotron-Nano-9B-v2",
        "--gpu h200 -- vllm serve deepseek-ai/DeepSeek-V3.2 --kv-cache-dtype fp8_ds_mla",
        "--gpu l4 -- vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend NOPE",
    ] {
        all.push(words(c));
    }
    all
}

/// The core's report for `--gpu G [--vllm R] -- vllm serve …`.
fn report(argv: &[String]) -> Report {
    let split = argv.iter().position(|a| a == "--").unwrap();
    let mut options = ScenarioOptions::default();
    for pair in argv[..split].chunks(2) {
        let key = match pair[0].as_str() {
            "--gpu" => OptionKey::Gpu,
            "--vllm" => OptionKey::Vllm,
            other => panic!("{other}"),
        };
        options.set(key, &pair[1]).unwrap();
    }
    resolve(&options.scenario(argv[split + 1..].join(" ")).unwrap())
}

fn widest(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// The text after the group table (the details, the why trace, the log lines, the notes), its words in order.
fn after_table(text: &str) -> Vec<String> {
    let at = text
        .find("\ngroup 1 (")
        .or_else(|| text.find("\nlog lines"))
        .unwrap_or(text.len());
    text[at..].split_whitespace().map(String::from).collect()
}

fn collapsed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_line_fits_80_columns_when_not_a_terminal_and_60_with_width_60() {
    for argv in cases() {
        let a = run(&argv);
        assert!(a.code != exit::CANNOT, "{argv:?}: {a:?}");
        assert!(widest(&a.stdout) <= 80, "{argv:?}:\n{}", a.stdout);
        let narrow = run(&with(&["--width", "60"], &argv)).stdout;
        assert!(widest(&narrow) <= 60, "{argv:?}:\n{narrow}");
        // A terminal of 100 columns gets 100; --width beats it.
        let term = run_in(&argv, &no_env, Some(100)).stdout;
        assert!(widest(&term) <= 100, "{argv:?}:\n{term}");
        assert_eq!(run_in(&with(&["--width", "60"], &argv), &no_env, Some(100)).stdout, narrow);
    }
    // The unwrapped report of these runs far wider: the cases test something.
    let wide = run(&with(
        &["--wide"],
        &words("--gpu h100-sxm -- vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct"),
    ));
    assert!(widest(&wide.stdout) > 300, "{}", wide.stdout);
}

#[test]
fn wide_is_the_unwrapped_report_and_wrapping_loses_no_word() {
    for argv in cases() {
        let r = report(&argv);
        let unwrapped = qpath_core::render::text(&r);
        let wide = run(&with(&["--wide"], &argv));
        assert_eq!(wide.stdout, unwrapped, "{argv:?}");
        for width in ["80", "60"] {
            let fitted = run(&with(&["--width", width], &argv)).stdout;
            // The header and everything after the table: the same words in the same order.
            // The same characters in the same order, blanks and line breaks aside (a citation wider than a line
            // breaks after a `/`, a word wider than a line is cut).
            let same = |t: &str| t.split_whitespace().collect::<String>();
            let head = |t: &str| same(t.split("\n\n").next().unwrap());
            assert_eq!(head(&fitted), head(&unwrapped), "{argv:?} at {width}");
            assert_eq!(
                same(&after_table(&fitted).join(" ")),
                same(&after_table(&unwrapped).join(" ")),
                "{argv:?} at {width}:\n{fitted}"
            );
            // vLLM's log lines and every error's full text.
            let flat = same(&fitted);
            let mut texts: Vec<String> = r
                .log_records
                .iter()
                .chain(r.groups.iter().flat_map(|g| g.log_records.iter()))
                .map(|l| l.show())
                .collect();
            texts.extend(r.groups.iter().filter_map(|g| g.error.as_ref()).map(|e| e.full()));
            texts.extend(r.error.iter().map(|e| e.message.clone()));
            for t in &texts {
                assert!(flat.contains(&same(t)), "{argv:?} at {width}: {t}\n{fitted}");
            }
        }
    }
}

#[test]
fn a_long_citation_stays_whole_on_its_own_line() {
    let argv = words("--gpu h100-sxm -- vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct");
    let t = run(&argv).stdout;
    let cite = "      [vllm/model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py:1668]";
    assert!(t.lines().any(|l| l == cite), "{t}");
    // A step's text continues under its text, not under its number.
    assert!(
        t.contains("\n   1. layer_types: config.json has none: 0.32.0+ use transformers'\n      Qwen3NextConfig"),
        "{t}"
    );
}

/// The cells' starting columns of a table line: column 0 when not blank, and each non-blank after two blanks.
fn starts(line: &str) -> Vec<usize> {
    let c: Vec<char> = line.chars().collect();
    (0..c.len())
        .filter(|&i| c[i] != ' ' && (i == 0 || (i >= 2 && c[i - 1] == ' ' && c[i - 2] == ' ')))
        .collect()
}

/// The group table's lines (from its head to the blank line after it).
fn table_lines(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = lines.iter().position(|l| l.starts_with("layers  ")) else {
        return Vec::new();
    };
    lines[at..].iter().take_while(|l| !l.is_empty()).copied().collect()
}

#[test]
fn the_table_stays_aligned_for_any_layer_list() {
    let mut tables = 0;
    for argv in cases() {
        for width in ["90", "110", "140", "200", "240"] {
            let t = run(&with(&["--width", width], &argv)).stdout;
            let lines = table_lines(&t);
            let Some(head) = lines.first() else { continue };
            tables += 1;
            let offsets = starts(head);
            let nine = head.ends_with("outcome");
            assert_eq!(offsets.len(), if nine { 9 } else { 8 }, "{head}");
            for l in &lines[1..] {
                // Eight columns: the outcome is on its own lines under its row, indented.
                if !nine && l.starts_with(' ') {
                    assert!(l.starts_with("  outcome: ") || l.starts_with("           "), "{l}\n{t}");
                    continue;
                }
                for s in starts(l) {
                    assert!(
                        offsets.contains(&s),
                        "{argv:?} at {width}: {l:?} starts a cell at {s}, head {offsets:?}\n{t}"
                    );
                }
            }
        }
    }
    assert!(tables >= 10, "{tables}");
    // Gemma-3's interleaved layer list wraps inside its column at a comma, never inside a range.
    let t = run(&with(
        &["--width", "200"],
        &words("--gpu h100-sxm -- vllm serve google/gemma-3-27b-it"),
    ))
    .stdout;
    let lines = table_lines(&t);
    assert!(lines.len() > 3, "{t}");
    for l in &lines[1..] {
        let layers = l.split("  ").next().unwrap();
        assert!(!layers.ends_with('-'), "{l}");
    }
}

#[test]
fn brief_is_one_screen_with_the_verdict_check_prints() {
    let argv = words("--gpu l4 --vllm 0.25.0-prefix -- vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8");
    let a = run(&with(&["--brief"], &argv));
    assert_eq!(a.code, exit::FAILS);
    assert!(a.stdout.lines().count() <= 25, "{}", a.stdout);
    assert!(widest(&a.stdout) <= 80, "{}", a.stdout);
    let check = run(&with(&["--check"], &argv)).stdout;
    let verdict = check.split("; assumed:").next().unwrap();
    assert!(collapsed(&a.stdout).contains(&collapsed(verdict)), "{verdict}\n{}", a.stdout);
    assert!(
        a.stdout.contains("  outcome  AssertionError on the first decode"),
        "{}",
        a.stdout
    );
    assert!(!a.stdout.contains(": why") && !a.stdout.contains("INFO ["), "{}", a.stdout);
    assert!(
        collapsed(&a.stdout).ends_with("run without --brief to see them"),
        "{}",
        a.stdout
    );
    // Every case fits a screen's width too; a scenario error is said by its verdict.
    for argv in cases() {
        let b = run(&with(&["--brief"], &argv)).stdout;
        assert!(widest(&b) <= 80 && b.lines().count() <= 40, "{argv:?}\n{b}");
    }
}

#[test]
fn brief_is_refused_where_it_cannot_shorten_and_width_is_ignored_by_json() {
    let argv = words("--gpu l4 -- vllm serve meta-llama/Llama-3.1-8B-Instruct");
    let a = run(&with(&["--brief", "--check"], &argv));
    assert_eq!(a.code, exit::CANNOT);
    assert!(a.stderr.contains("--brief") && a.stderr.contains("--check"), "{a:?}");
    let a = run(&with(&["--brief", "--format", "json"], &argv));
    assert_eq!(a.code, exit::CANNOT);
    let j: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
    assert!(j["error"]["message"].as_str().unwrap().contains("--format json"), "{j}");
    let a = run(&with(&["--brief", "--format", "markdown"], &argv));
    assert_eq!(a.code, exit::CANNOT);
    assert!(a.stderr.contains("--format markdown"), "{a:?}");
    // --brief with the table format is the brief text.
    assert!(run(&with(&["--brief", "--format", "table"], &argv))
        .stdout
        .contains("--brief left out"));
    // JSON and Markdown are never wrapped: --width and --wide leave them as they are.
    for f in ["json", "markdown"] {
        let plain = run(&with(&["--format", f], &argv)).stdout;
        assert_eq!(run(&with(&["--format", f, "--width", "40"], &argv)).stdout, plain);
        assert_eq!(run(&with(&["--format", f, "--wide"], &argv)).stdout, plain);
    }
    let a = run(&with(&["--wide", "--width", "60"], &argv));
    assert_eq!(a.code, exit::CANNOT, "{a:?}");
}

#[test]
fn explain_log_fits_80_columns_and_wide_keeps_its_lines() {
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../qpath-core/tests/fixtures/logs/rtx5090-qwen3-8b-fp8-flashinfer-jit.log"
    );
    let argv = vec!["explain-log".to_string(), log.to_string()];
    let fitted = run(&argv);
    assert_eq!(fitted.code, exit::SERVES, "{fitted:?}");
    assert!(widest(&fitted.stdout) <= 80, "{}", fitted.stdout);
    let wide = run(&with(&["--wide"], &argv)).stdout;
    let line = "= INFO [cuda.py:482] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', \
                'TRITON_ATTN'].  (log line 18)";
    assert!(wide.lines().any(|l| l == line), "{wide}");
    assert!(collapsed(&fitted.stdout).contains(&collapsed(line)), "{}", fitted.stdout);
    assert!(widest(&run(&with(&["--width", "60"], &argv)).stdout) <= 60);
}
