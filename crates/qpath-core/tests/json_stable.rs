//! The JSON contract stays byte-identical across refactors: every scenario below (each release × a spread of GPUs ×
//! the golden command lines, plus `qpath matrix` for a few of them) is serialised exactly as the CLI's `--format json`
//! and the JS API serialise it, and its FNV-1a digest is compared with `tests/snapshots/json-digests.tsv`.
//!
//! A change to the JSON fails here, naming each scenario whose output changed. When the change is intended, run
//! `QPATH_BLESS=1 cargo test -p qpath-core --test json_stable` and commit the new file (its diff shows which scenarios moved).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use qpath_core::matrix;
use qpath_core::release::Release;
use qpath_core::resolve::{resolve, Hardware, Scenario};

const GPUS: &[&str] = &[
    "l4",
    "a100-80gb",
    "h100-sxm",
    "b200",
    "gb300",
    "rtx-5090",
    "dgx-spark",
    "jetson-agx-thor",
    "jetson-agx-orin",
    "v100",
];

const COMMANDS: &[&str] = &[
    "vllm serve meta-llama/Llama-3.1-8B-Instruct",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype fp8",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype fp8_e5m2",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 0 2",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype fp8 -ac.use_trtllm_attention true",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype fp8 -ac.use_trtllm_attention false",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype fp8 -ac.disable_flashinfer_q_quantization true",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype fp8 -dcp 2",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype nvfp4",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype nvfp4 -ac.use_trtllm_attention false",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --kv-cache-dtype nvfp4_4over6",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --hf-overrides '{\"head_dim\": 256}' --kv-cache-dtype fp8",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 --no-such-flag 3",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{\"method\": \"ngram\", \"num_speculative_tokens\": 3}' --attention-backend FLASHINFER --kv-cache-dtype fp8",
    "VLLM_BATCH_INVARIANT=1 vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8",
    "vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER",
    "vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER --kv-cache-dtype fp8",
    "vllm serve google/gemma-3-27b-it --attention-backend FLASHINFER",
    "vllm serve google/gemma-3-27b-it --kv-cache-dtype fp8",
    "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8 --dtype float16",
    "vllm serve my-org/unknown-model",
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend TRITON_MLA",
    "vllm serve deepseek-ai/DeepSeek-V3",
    "vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype fp8",
    "vllm serve deepseek-ai/DeepSeek-V3.2 --kv-cache-dtype fp8_ds_mla",
    "vllm serve deepseek-ai/DeepSeek-V3 --speculative-config '{\"method\": \"mtp\", \"num_speculative_tokens\": 1}'",
];

const MATRIX_COMMANDS: &[&str] = &[
    "vllm serve meta-llama/Llama-3.1-8B-Instruct",
    "vllm serve google/gemma-3-27b-it --attention-backend FLASHINFER",
];

/// 64-bit FNV-1a: enough to tell that a text changed; the scenario key says which.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn digests() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for r in Release::ALL {
        for gpu in GPUS {
            for cmd in COMMANDS {
                for cubins in [None, Some(true)] {
                    let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), r, *cmd);
                    s.trtllm_cubins = cubins;
                    let json = serde_json::to_string(&resolve(&s)).unwrap();
                    let key = format!("{}\t{gpu}\t{cubins:?}\t{cmd}", r.name());
                    out.insert(key, format!("{:016x}", fnv1a(json.as_bytes())));
                }
            }
        }
        for cmd in MATRIX_COMMANDS {
            let s = Scenario::new(Hardware::parse("h100-sxm").unwrap(), r, *cmd);
            let json = match matrix::matrix(&s) {
                Ok(m) => serde_json::to_string(&m).unwrap(),
                Err(e) => e,
            };
            out.insert(
                format!("{}\tmatrix\t-\t{cmd}", r.name()),
                format!("{:016x}", fnv1a(json.as_bytes())),
            );
        }
    }
    out
}

#[test]
fn json_of_every_snapshot_scenario_is_unchanged() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots/json-digests.tsv");
    let now = digests();
    if std::env::var_os("QPATH_BLESS").is_some() {
        let mut text = String::from("# release\tgpu\tcubins\tcommand line\tfnv1a-64 of the JSON (tests/json_stable.rs)\n");
        for (k, v) in &now {
            writeln!(text, "{k}\t{v}").unwrap();
        }
        std::fs::write(path, text).unwrap();
        return;
    }
    let saved: BTreeMap<String, String> = std::fs::read_to_string(path)
        .expect("tests/snapshots/json-digests.tsv is missing; run with QPATH_BLESS=1")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit_once('\t'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut problems = vec![];
    for (k, v) in &now {
        match saved.get(k) {
            None => problems.push(format!("new scenario (not in the snapshot): {k}")),
            Some(s) if s != v => problems.push(format!("JSON changed: {k}")),
            _ => {}
        }
    }
    for k in saved.keys().filter(|k| !now.contains_key(*k)) {
        problems.push(format!("scenario gone from the run: {k}"));
    }
    assert!(
        problems.is_empty(),
        "{} of {} scenarios differ from tests/snapshots/json-digests.tsv (QPATH_BLESS=1 rewrites it when intended):\n{}",
        problems.len(),
        now.len(),
        problems.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}

/// A release whose source is byte-identical to another's (`source =` in data/releases.toml: 0.25.1 and 0.27.1) answers
/// every snapshot scenario exactly as that release does, but for its own name and the tag its links point at.
#[test]
fn byte_identical_releases_answer_as_their_source() {
    for r in Release::ALL
        .into_iter()
        .filter(|r| r.source_release() != *r && r.is_released())
    {
        let src = r.source_release();
        for gpu in GPUS {
            for cmd in COMMANDS {
                let json = |rel: Release| {
                    let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), rel, *cmd);
                    s.trtllm_cubins = Some(true);
                    serde_json::to_string(&resolve(&s)).unwrap()
                };
                let mine = json(r)
                    .replace(&format!("\"vllm\":\"{}\"", r.name()), &format!("\"vllm\":\"{}\"", src.name()))
                    .replace(&format!("/blob/{}/", r.git_ref()), &format!("/blob/{}/", src.git_ref()));
                assert!(mine == json(src), "{r} differs from {src} on {gpu}: {cmd}");
            }
        }
    }
}

/// Patch releases with their own files (0.20.1 and 0.20.2 of 0.20.0, 0.22.1 of 0.22.0) change nothing qpath restates
/// but line numbers (docs/source-notes/older-releases.md: 0.20.1's CUDA-graph capture sizes, envs and indexer top-k,
/// 0.22.1's registered Mellum model): over every snapshot scenario each answers as its minor, once the release's name
/// (in `vllm`, the links' tags and texts) and the cited line numbers are set aside; and at least one cited line moves (0.20.1's envs.py), so
/// the lines are its own.
#[test]
fn patch_releases_with_their_own_files_answer_as_their_minor_but_for_lines() {
    use Release::*;
    let without_lines = |text: String| {
        // `file.py:123` and `#L123` -> `file.py:` and `#L`
        let mut out = String::with_capacity(text.len());
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            out.push(c);
            let after_ref = out.ends_with(".py:") || out.ends_with("#L");
            if after_ref {
                while chars.peek().is_some_and(char::is_ascii_digit) {
                    chars.next();
                }
            }
        }
        out
    };
    let mut moved = false;
    for (patch, minor) in [(V0_20_1, V0_20_0), (V0_20_2, V0_20_0), (V0_22_1, V0_22_0)] {
        assert_eq!(patch.source_release(), patch, "{patch} reads its own files");
        for gpu in GPUS {
            for cmd in COMMANDS {
                let json = |rel: Release| {
                    let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), rel, *cmd);
                    s.trtllm_cubins = Some(true);
                    serde_json::to_string(&resolve(&s)).unwrap()
                };
                // the release's name: the report's `vllm`, the links' tags, texts that name the release
                let mine = json(patch).replace(patch.name(), minor.name());
                let theirs = json(minor);
                moved |= mine != theirs;
                let (a, b) = (without_lines(mine), without_lines(theirs));
                let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
                assert!(
                    a == b,
                    "{patch} decides otherwise than {minor} on {gpu}: {cmd}: …{}… vs …{}…",
                    &a[at.saturating_sub(80)..(at + 80).min(a.len())],
                    &b[at.saturating_sub(80)..(at + 80).min(b.len())]
                );
            }
        }
    }
    assert!(moved, "no cited line differs between a patch release and its minor");
}
