//! Issue 25, item 5 for `qpath matrix`, `qpath timeline` and `qpath fix`: their default (text) answer fits the width
//! (80 columns when standard output is not a terminal, the terminal's width when it is, `--width N`; `--wide` does not
//! wrap): the matrix is a grid of short keys with a legend and footnoted errors, the command's own cell marked; the
//! timeline a table of releases with the changed ones marked; fix's command lines are never wrapped (the only lines
//! that may run over). `--format markdown` and `--format json` are what they were.

use std::collections::BTreeMap;

use qpath_cli::{run_in, run_with_env, Answer};
use qpath_core::gpu;
use qpath_core::matrix::{self, MatrixMode};
use qpath_core::release::Release;
use qpath_core::resolve::{Hardware, Scenario};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const GEMMA: &str = "vllm serve google/gemma-3-27b-it";
const DEEPSEEK: &str = "vllm serve deepseek-ai/DeepSeek-V3";

fn argv(before: &str, command: &str) -> Vec<String> {
    let mut v: Vec<String> = before.split_whitespace().map(str::to_string).collect();
    v.push("--".to_string());
    v.extend(command.split_whitespace().map(str::to_string));
    v
}

fn run(before: &str, command: &str) -> Answer {
    run_with_env(&argv(before, command), &|_| None)
}

fn width(s: &str) -> usize {
    s.chars().count()
}

fn widest(s: &str) -> usize {
    s.lines().map(width).max().unwrap_or(0)
}

/// Blanks and line breaks as one blank: a wrapped text compared with its source.
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Without any blank or line break.
fn bare(s: &str) -> String {
    s.split_whitespace().collect()
}

/// The JSON matrix of the same command line.
fn json_matrix(before: &str, command: &str) -> serde_json::Value {
    let a = run(&format!("{before} --format json"), command);
    serde_json::from_str(&a.stdout).unwrap_or_else(|e| panic!("{command}: {e}: {}", a.stdout))
}

/// The grid's keys per GPU (every panel's, in column order), read from the text: a line that starts with a GPU id
/// followed by blanks.
fn grid_keys(text: &str, gpus: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut keys: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        let Some(first) = words.next() else { continue };
        if gpus.iter().any(|g| g == first) && line[first.len()..].starts_with("  ") {
            keys.entry(first.to_string()).or_default().extend(words.map(str::to_string));
        }
    }
    keys
}

/// The keys of the narrow fallback: one paragraph per GPU, `v100: auto A, float16 A, …`, continuation lines indented.
fn paragraph_keys(text: &str, gpus: &[String]) -> BTreeMap<String, Vec<String>> {
    let mut paras: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if line.is_empty() && !paras.is_empty() {
            break;
        }
        match line.split_once(": ") {
            Some((g, rest)) if gpus.iter().any(|x| x == g) => paras.push((g.to_string(), rest.to_string())),
            _ if line.starts_with("    ") => {
                if let Some((_, p)) = paras.last_mut() {
                    p.push(' ');
                    p.push_str(line.trim());
                }
            }
            _ => {}
        }
    }
    paras
        .into_iter()
        .map(|(g, p)| {
            let keys = p
                .split(", ")
                .map(|pair| pair.rsplit(' ').next().unwrap_or_default().to_string())
                .collect();
            (g, keys)
        })
        .collect()
}

/// The legend of an unwrapped (`--wide`) text: each key's text (footnotes without their brackets), continuation lines
/// (an error's own line breaks) joined by `\n`, the cell count cut off.
fn legend(text: &str) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut last: Option<(String, usize)> = None;
    let mut in_legend = false;
    for line in text.lines() {
        if line.starts_with("FlashInfer runs")
            || line.starts_with("No layer on FlashInfer")
            || line.starts_with("What runs")
            || line.starts_with("vLLM fails:")
            || line.starts_with("qpath cannot model:")
        {
            in_legend = true;
            continue;
        }
        if !in_legend || line.is_empty() || line.starts_with("note:") {
            last = None;
            continue;
        }
        let body = line.strip_prefix("  ").unwrap_or(line);
        match (body.starts_with(' '), &last) {
            (true, Some((key, indent))) => {
                let entry = out.get_mut(key).unwrap();
                entry.push('\n');
                entry.push_str(&line[*indent..]);
            }
            _ => {
                let (key, rest) = body.split_once(' ').unwrap_or_else(|| panic!("a legend line: {line:?}"));
                let text = rest.trim_start();
                let indent = width(line) - width(text);
                let key = key.trim_start_matches('[').trim_end_matches(']').to_string();
                out.insert(key.clone(), text.to_string());
                last = Some((key, indent));
            }
        }
    }
    // The count after each text: ` (N cells)`, ` (1 cell)`.
    for v in out.values_mut() {
        let cut = v.rfind(" (").unwrap_or_else(|| panic!("no cell count in {v:?}"));
        assert!(v[cut..].ends_with(" cells)") || v[cut..].ends_with(" cell)"), "{v:?}");
        v.truncate(cut);
    }
    out
}

const MATRICES: [(&str, &str); 5] = [
    ("matrix", LLAMA),
    ("matrix", GEMMA),
    ("matrix", DEEPSEEK),
    ("matrix --backend picked", LLAMA),
    ("matrix --backend picked", DEEPSEEK),
];

/// Every line fits 80 columns when standard output is not a terminal, 60 with `--width 60`, the terminal's width
/// when it is one; each GPU row has one key per column; the command's own cell (the default GPU, auto) is marked.
#[test]
fn a_matrix_fits_the_width_with_one_key_per_cell() {
    for (before, command) in MATRICES {
        let j = json_matrix(before, command);
        let gpus: Vec<String> = j["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap().into())
            .collect();
        let columns = j["kv_cache_dtypes"].as_array().unwrap().len();
        let narrowest = |text: &str, w: usize| {
            assert!(
                widest(text) <= w,
                "{before} {command} at {w}: {}",
                text.lines().find(|l| width(l) > w).unwrap()
            );
        };
        let default = run(before, command);
        assert!(default.code <= 2 && default.stderr.is_empty(), "{}", default.stderr);
        narrowest(&default.stdout, 80);
        for w in [60, 40] {
            narrowest(&run(&format!("{before} --width {w}"), command).stdout, w);
        }
        let terminal = run_in(&argv(before, command), &|_| None, Some(132)).stdout;
        narrowest(&terminal, 132);
        for text in [
            &default.stdout,
            &run(&format!("{before} --width 60"), command).stdout,
            &terminal,
        ] {
            let keys = match grid_keys(text, &gpus) {
                k if k.is_empty() => paragraph_keys(text, &gpus),
                k => k,
            };
            assert_eq!(keys.len(), gpus.len(), "{before} {command}: {text}");
            for (g, k) in &keys {
                assert_eq!(k.len(), columns, "{before} {command}: {g}: {k:?}");
            }
            let marked: Vec<(&String, usize)> = keys
                .iter()
                .flat_map(|(g, k)| {
                    k.iter()
                        .enumerate()
                        .filter(|(_, k)| k.ends_with('*'))
                        .map(move |(i, _)| (g, i))
                })
                .collect();
            assert_eq!(marked, [(&"h100-sxm".to_string(), 0)], "{before} {command}");
            assert!(
                flat(text).contains("* the command as given: h100-sxm with --kv-cache-dtype auto"),
                "{text}"
            );
        }
        // A width too narrow for four panels of columns: one paragraph per GPU naming each column.
        let narrow = run(&format!("{before} --width 40"), command).stdout;
        if grid_keys(&narrow, &gpus).is_empty() {
            let keys = paragraph_keys(&narrow, &gpus);
            assert_eq!(keys.len(), gpus.len(), "{narrow}");
            assert!(keys.values().all(|k| k.len() == columns), "{narrow}");
            assert!(
                narrow.contains(&format!("v100: {} ", j["kv_cache_dtypes"][0].as_str().unwrap())),
                "{narrow}"
            );
        }
    }
    // --wide: one panel, the widest line as wide as it needs.
    let wide = run("matrix --backend picked --wide", LLAMA).stdout;
    assert!(widest(&wide) > 80);
    let header = wide.lines().find(|l| l.starts_with("GPU ")).unwrap();
    assert!(header.contains("turboquant_3bit_nc") && header.contains("auto"), "{header}");
}

/// Each cell's key stands for its JSON cell: the legend's text of the key is the cell's summary (in FlashInfer mode,
/// upper-case letters are FlashInfer's groups, lower-case where no layer runs on FlashInfer; numbers are errors and
/// then what qpath cannot model), and every error's full message is in the footnotes, wrapped or not.
#[test]
fn every_key_is_its_cells_outcome_and_every_error_is_a_footnote() {
    for (before, command) in MATRICES {
        let j = json_matrix(before, command);
        let gpus: Vec<String> = j["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g.as_str().unwrap().into())
            .collect();
        let columns = j["kv_cache_dtypes"].as_array().unwrap().len();
        let wide = run(&format!("{before} --wide"), command).stdout;
        let keys = grid_keys(&wide, &gpus);
        let legend = legend(&wide);
        let cells = j["cells"].as_array().unwrap();
        for (n, cell) in cells.iter().enumerate() {
            let gpu = &gpus[n / columns];
            let key = keys[gpu][n % columns].trim_end_matches('*');
            let status = cell["status"].as_str().unwrap();
            let summary = cell["summary"].as_str().unwrap();
            assert_eq!(
                legend.get(key).map(String::as_str),
                Some(summary),
                "{command}: {gpu} {key} {legend:?}"
            );
            let numbered = key.chars().all(|c| c.is_ascii_digit());
            assert_eq!(
                numbered,
                status == "error" || status == "cannot-model",
                "{command}: {key} {status}"
            );
            if !numbered {
                let lower = key.chars().all(|c| c.is_ascii_lowercase());
                assert_eq!(lower, status == "other-backend", "{command}: {key} {status}");
            }
        }
        // Each distinct outcome once.
        let mut distinct: Vec<(&serde_json::Value, &serde_json::Value)> = Vec::new();
        for c in cells {
            if !distinct.contains(&(&c["status"], &c["summary"])) {
                distinct.push((&c["status"], &c["summary"]));
            }
        }
        assert_eq!(legend.len(), distinct.len(), "{command}: {legend:?}");
        let text = flat(&run(before, command).stdout);
        for cell in cells.iter().filter(|c| c["status"] != "ok" && c["status"] != "other-backend") {
            let summary = flat(cell["summary"].as_str().unwrap());
            assert!(text.contains(&summary), "{command}: {summary}");
        }
    }
}

/// `--format markdown` is the Markdown table with the notes as before; `--format json` the matrix's JSON.
#[test]
fn markdown_and_json_are_unchanged() {
    let h100 = Hardware::Gpu(gpu::find("h100-sxm").unwrap());
    for (mode, command) in [
        (MatrixMode::FlashInfer, LLAMA.to_string()),
        (MatrixMode::Picked, format!("{DEEPSEEK} --kv-cache-dtype fp8")),
    ] {
        let m = matrix::matrix_in(&Scenario::new(h100, Release::LATEST, command.clone()), mode).unwrap();
        let before = format!("matrix --backend {}", mode.name());
        let md = run(&format!("{before} --format markdown"), &command).stdout;
        let notes = if command.contains("--kv-cache-dtype fp8") {
            "\nnote: each column sets its own cache dtype: the command's `--kv-cache-dtype fp8` is replaced in every \
             column (the command as given is column `fp8`)\n"
        } else {
            ""
        };
        assert_eq!(md, matrix::markdown(&m) + notes, "{command}");
        let json = run(&format!("{before} --format json"), &command).stdout;
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v, serde_json::to_value(&m).unwrap());
        // The text keeps the note, wrapped, and marks the command's own column.
        let text = run(&before, &command).stdout;
        if !notes.is_empty() {
            assert!(flat(&text).contains(&flat(notes)), "{text}");
            assert!(
                flat(&text).contains("* the command as given: h100-sxm with --kv-cache-dtype fp8"),
                "{text}"
            );
        }
        assert!(!text.contains("**") && !text.contains("|---"), "{text}");
    }
    // A --gpu row only.
    let one = run("matrix --gpu l4", LLAMA).stdout;
    let keys = grid_keys(&one, &["l4".to_string(), "h100-sxm".to_string()]);
    assert_eq!(keys.keys().collect::<Vec<_>>(), ["l4"], "{one}");
    assert_eq!(keys["l4"][0], "a*", "the command's own cell is l4's auto: {one}");
}

/// The timeline: each line fits the width but the command line's; every release of the JSON is a row, the changed
/// ones marked, and each change's text is in the answer.
#[test]
fn a_timeline_fits_the_width_and_keeps_every_release_and_change() {
    for (gpu, command) in [
        ("l4", format!("{GEMMA} --kv-cache-dtype fp8")),
        ("l4", DEEPSEEK.to_string()),
        ("h100-sxm", format!("{LLAMA} --kv-cache-dtype fp8_e5m2")),
    ] {
        let before = format!("timeline --gpu {gpu}");
        let j: serde_json::Value = serde_json::from_str(&run(&format!("{before} --format json"), &command).stdout).unwrap();
        for (flags, w) in [("", 80), (" --width 60", 60), (" --width 40", 40)] {
            let a = run(&format!("{before}{flags}"), &command);
            for line in a.stdout.lines() {
                assert!(width(line) <= w || line.trim() == command, "{command} at {w}: {line}");
            }
            assert!(
                a.stdout.lines().any(|l| l.trim() == command),
                "the command line whole: {}",
                a.stdout
            );
            let rows = j["rows"].as_array().unwrap();
            assert_eq!(rows.len(), Release::ALL.len());
            for r in rows {
                let release = r["release"].as_str().unwrap();
                let changed = !r["changes"].as_array().unwrap().is_empty();
                let starts = a
                    .stdout
                    .lines()
                    .filter(|l| l.starts_with(&format!("{release} ")))
                    .collect::<Vec<_>>();
                let marked = starts.iter().any(|l| l.starts_with(&format!("{release} *")));
                assert!(
                    !starts.is_empty() || a.stdout.contains(&format!("{release}:")),
                    "{release}: {}",
                    a.stdout
                );
                assert_eq!(marked, changed, "{release} at {w}: {}", a.stdout);
                for c in r["changes"].as_array().unwrap() {
                    // A word wider than the width is cut at the width: compared without blanks.
                    assert!(bare(&a.stdout).contains(&bare(c["what"].as_str().unwrap())), "{c}");
                }
                if w == 80 {
                    let summary = flat(r["summary"].as_str().unwrap());
                    let unwrapped = flat(&run(&format!("{before} --wide"), &command).stdout);
                    assert!(unwrapped.contains(&summary), "{summary}");
                }
            }
        }
    }
    let md = run("timeline --format markdown", LLAMA).stdout;
    assert!(
        md.contains("| vLLM | verdict | what runs, or the error | cudagraph_mode |"),
        "{md}"
    );
}

/// fix: every suggestion of the JSON is in the text with its whole command line on a line of its own; only command
/// lines and the diff's option lines run over the width.
#[test]
fn fix_keeps_each_command_line_whole_and_only_those_run_over() {
    let long = format!(
        "{LLAMA} --kv-cache-dtype fp8_e5m2 --attention-backend FLASHINFER --served-model-name a-rather-long-name-for-the-model"
    );
    for (gpu, command) in [
        ("h100-sxm", long.as_str()),
        ("v100", &*format!("{GEMMA} --kv-cache-dtype fp8")),
        ("l4", &*format!("{LLAMA} --kv-cache-dtype nvfp4_4over6")),
        (
            "b200",
            &*format!("{LLAMA} --kv-cache-dtype float16 --attention-backend FLASHINFER"),
        ),
    ] {
        let before = format!("fix --gpu {gpu}");
        let j: serde_json::Value = serde_json::from_str(&run(&format!("{before} --format json"), command).stdout).unwrap();
        let suggestions = j["suggestions"].as_array().unwrap();
        assert!(!suggestions.is_empty(), "{command}: {j}");
        for w in [80, 60, 40] {
            let a = run(&format!("{before} --width {w}"), command);
            let lines: Vec<&str> = a.stdout.lines().collect();
            let commands: Vec<String> = suggestions
                .iter()
                .map(|s| s["command_line"].as_str().unwrap().to_string())
                .collect();
            let units: Vec<String> = suggestions
                .iter()
                .flat_map(|s| {
                    let removed = s["removed"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|u| format!("- {}", u.as_str().unwrap()));
                    let added = s["added"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|u| format!("+ {}", u.as_str().unwrap()));
                    removed.chain(added).collect::<Vec<_>>()
                })
                .collect();
            for line in &lines {
                if width(line) > w {
                    let own = line.trim_start();
                    assert!(
                        commands.iter().any(|c| c == own) || units.iter().any(|u| u == own),
                        "{command} at {w}: {line}"
                    );
                }
            }
            for (s, c) in suggestions.iter().zip(&commands) {
                assert!(lines.iter().any(|l| l.trim_start() == c), "{c} at {w}: {}", a.stdout);
                let changes: Vec<&str> = s["changes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
                // A word wider than the width (an option's name) is cut at the width: compared without blanks.
                assert!(bare(&a.stdout).contains(&bare(&changes.join("; "))), "{changes:?}");
            }
            if w == 40 {
                assert!(
                    lines.iter().any(|l| width(l) > w),
                    "a command line wider than 40 runs over: {}",
                    a.stdout
                );
            }
        }
    }
    // Markdown stays Markdown.
    let md = run("fix --gpu h100-sxm --format markdown", &long).stdout;
    assert!(md.starts_with("**vLLM fails:**"), "{md}");
    assert!(md.contains("   `vllm serve "), "{md}");
}
