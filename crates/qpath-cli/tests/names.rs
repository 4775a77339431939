//! Issue 25, item 4: names as users type them. GPU ids in any case, the names `nvidia-smi` prints and the names
//! `qpath gpus` prints; `--compute-capability` as `9.0`, `90` or `sm_90`; `qpath models`; and `--hf-overrides` that
//! would describe an MLA or hybrid model as a dense one ("qpath cannot model this", naming what to give instead).

use qpath_cli::{run_with_env, Answer};
use qpath_core::gpu::GPUS;
use qpath_core::model::MODEL_PRESETS;

fn run(argv: &[&str]) -> Answer {
    let argv: Vec<String> = argv.iter().map(|a| a.to_string()).collect();
    // No HF cache, no HOME: a model is a preset or nothing.
    run_with_env(&argv, &|_| None)
}

fn json(a: &Answer) -> serde_json::Value {
    serde_json::from_str(&a.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", a.stdout, a.stderr))
}

/// The GPU id the JSON report of `--gpu NAME` ran on.
fn gpu_of(name: &str) -> String {
    let a = run(&["--format", "json", "--gpu", name, "--", "vllm", "serve", "Qwen/Qwen3-4B"]);
    assert_eq!(a.code, 0, "--gpu {name}: {}{}", a.stdout, a.stderr);
    json(&a)["gpu"]["id"].as_str().unwrap_or_default().to_string()
}

#[test]
fn gpu_ids_in_any_case() {
    assert_eq!(gpu_of("L4"), "l4");
    assert_eq!(gpu_of("H200"), "h200");
    assert_eq!(gpu_of("H100-SXM"), "h100-sxm");
    assert_eq!(gpu_of("h100_sxm"), "h100-sxm");
    assert_eq!(gpu_of("rtx4090"), "rtx-4090");
    for g in GPUS {
        assert_eq!(gpu_of(&g.id.to_ascii_uppercase()), g.id);
    }
}

#[test]
fn nvidia_smi_names_resolve() {
    for (name, id) in [
        ("NVIDIA H100 80GB HBM3", "h100-sxm"),
        ("NVIDIA A100-SXM4-80GB", "a100-80gb"),
        ("NVIDIA GeForce RTX 4090", "rtx-4090"),
        ("NVIDIA H100 PCIe", "h100-pcie"),
        ("NVIDIA A100-PCIE-40GB", "a100-40gb"),
        ("Tesla T4", "t4"),
        ("NVIDIA L4", "l4"),
        ("NVIDIA B200", "b200"),
    ] {
        assert_eq!(gpu_of(name), id, "{name}");
    }
}

#[test]
fn the_names_qpath_gpus_prints_resolve() {
    let listing = run(&["gpus"]);
    assert_eq!(listing.code, 0);
    for g in GPUS {
        // `qpath gpus` prints each row's name; that name, in any case, is the row.
        assert!(listing.stdout.contains(g.name), "{}", g.name);
        assert_eq!(gpu_of(g.name), g.id, "{}", g.name);
        assert_eq!(gpu_of(&g.name.to_ascii_lowercase()), g.id, "{}", g.name);
    }
}

#[test]
fn an_ambiguous_name_lists_its_rows() {
    for (name, listed) in [
        (
            "H100",
            "did you mean `h100-pcie`, `h100-sxm` or `h100-nvl`? (see `qpath gpus`)",
        ),
        (
            "h100",
            "did you mean `h100-pcie`, `h100-sxm` or `h100-nvl`? (see `qpath gpus`)",
        ),
        (
            "NVIDIA H100",
            "did you mean `h100-pcie`, `h100-sxm` or `h100-nvl`? (see `qpath gpus`)",
        ),
        ("A100", "did you mean `a100-40gb` or `a100-80gb`? (see `qpath gpus`)"),
        (
            "RTX 6000",
            "did you mean `rtx-6000-ada` or `rtx-pro-6000-blackwell`? (see `qpath gpus`)",
        ),
    ] {
        let a = run(&["--gpu", name, "--", "vllm", "serve", "Qwen/Qwen3-4B"]);
        assert_eq!(a.code, 2, "{name}");
        assert!(
            a.stderr
                .starts_with(&format!("qpath: --gpu `{name}` is not in qpath's GPU table; {listed}\n")),
            "{name}: {}",
            a.stderr
        );
    }
    // A name that is no GPU keeps today's did-you-mean.
    let a = run(&["--gpu", "h900", "--", "vllm", "serve", "m"]);
    assert!(
        a.stderr
            .starts_with("qpath: --gpu `h900` is not in qpath's GPU table; did you mean `h200`?"),
        "{}",
        a.stderr
    );
}

#[test]
fn compute_capability_as_users_write_it() {
    for given in ["9.0", "90", "sm_90", "sm90", "SM_90", "compute_90", "sm_90a", " 9.0 "] {
        let a = run(&[
            "--format",
            "json",
            "--compute-capability",
            given,
            "--",
            "vllm",
            "serve",
            "Qwen/Qwen3-4B",
        ]);
        assert_eq!(a.code, 0, "{given}: {}{}", a.stdout, a.stderr);
        assert_eq!(json(&a)["gpu"]["compute_capability"], "9.0", "{given}");
    }
    for (given, cc) in [("86", "8.6"), ("100", "10.0"), ("sm_121", "12.1"), ("compute_75", "7.5")] {
        let a = run(&[
            "--format",
            "json",
            "--compute-capability",
            given,
            "--",
            "vllm",
            "serve",
            "Qwen/Qwen3-4B",
        ]);
        assert_eq!(json(&a)["gpu"]["compute_capability"], cc, "{given}");
    }
    for (given, reason) in [
        ("8.10", "minor must be 0 to 9"),
        ("9", "expected X.Y, XY or sm_XY, for example 9.0, 90 or sm_90"),
        ("sm_9.0", "expected X.Y, XY or sm_XY"),
        ("sm_", "expected X.Y, XY or sm_XY"),
        ("0900", "expected X.Y, XY or sm_XY"),
        ("nine", "expected X.Y, XY or sm_XY"),
    ] {
        let a = run(&["--compute-capability", given, "--", "vllm", "serve", "Qwen/Qwen3-4B"]);
        assert_eq!(a.code, 2, "{given}");
        assert!(
            a.stderr.starts_with(&format!(
                "qpath: --compute-capability `{given}` is not a compute capability: "
            )),
            "{given}: {}",
            a.stderr
        );
        assert!(a.stderr.contains(reason), "{given}: {}", a.stderr);
    }
}

#[test]
fn qpath_models_lists_the_presets() {
    let a = run(&["models"]);
    assert_eq!(a.code, 0, "{}", a.stderr);
    let header = a.stdout.lines().next().unwrap();
    for column in ["id", "architecture", "layers", "what it is"] {
        assert!(header.contains(column), "{header}");
    }
    for p in MODEL_PRESETS {
        let line = a.stdout.lines().find(|l| l.starts_with(&format!("{} ", p.id))).unwrap();
        assert!(line.contains(p.architecture), "{line}");
        assert!(line.contains(&format!(" {} ", p.num_hidden_layers)), "{line}");
    }
    let r1 = a.stdout.lines().find(|l| l.starts_with("deepseek-ai/DeepSeek-R1 ")).unwrap();
    assert!(r1.contains("MLA"), "{r1}");
    let next = a
        .stdout
        .lines()
        .find(|l| l.starts_with("Qwen/Qwen3-Next-80B-A3B-Instruct "))
        .unwrap();
    assert!(next.contains("hybrid"), "{next}");
    assert!(a.stdout.contains("--model-config FILE"), "{}", a.stdout);

    let j = run(&["models", "--format", "json"]);
    assert_eq!(j.code, 0);
    let rows = json(&j);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), MODEL_PRESETS.len());
    for (row, p) in rows.iter().zip(MODEL_PRESETS) {
        assert_eq!(row["id"], p.id);
        assert_eq!(row["architecture"], p.architecture);
        assert_eq!(row["layers"], p.num_hidden_layers);
        assert!(row["kind"].is_string());
    }
    // A mistyped subcommand is pointed at it.
    let typo = run(&["model"]);
    assert!(typo.stderr.contains("did you mean `models`?"), "{}", typo.stderr);
}

const DENSE: &str = r#"{"num_hidden_layers": 61, "num_attention_heads": 128, "head_dim": 128}"#;

/// The text answer's error for `vllm serve MODEL [--hf-overrides JSON]`.
fn cannot_model(model: &str, overrides: Option<&str>) -> String {
    let mut argv = vec!["--", "vllm", "serve", model];
    if let Some(o) = overrides {
        argv.extend(["--hf-overrides", o]);
    }
    // --wide: the message is compared as one line.
    let a = run(&[&["--wide"][..], &argv].concat());
    assert_eq!(a.code, 2, "{model} {overrides:?}: {}{}", a.stdout, a.stderr);
    let j = run(&[&["--format", "json"][..], &argv].concat());
    let message = json(&j)["error"]["message"].as_str().unwrap().to_string();
    assert!(message.starts_with("qpath cannot model this: "), "{message}");
    assert!(message.contains("--model-config FILE"), "{message}");
    assert!(message.contains("the model's folder"), "{message}");
    assert!(
        a.stdout.contains(&message["qpath cannot model this: ".len()..]),
        "{}",
        a.stdout
    );
    message
}

#[test]
fn mla_and_hybrid_families_are_not_described_by_overrides() {
    for (model, kind) in [
        ("deepseek-ai/DeepSeek-R1-0528", "an MLA"),
        ("deepseek-ai/DeepSeek-V3-0324", "an MLA"),
        ("deepseek-ai/DeepSeek-V3.1-Terminus", "an MLA"),
        ("deepseek-ai/DeepSeek-R1-Zero", "an MLA"),
        ("RedHatAI/DeepSeek-R1-0528-quantized.w4a16", "an MLA"),
        ("moonshotai/Kimi-K2-Thinking", "an MLA"),
        ("zai-org/GLM-5-FP8", "an MLA"),
        ("Qwen/Qwen3-Next-80B-A3B-Thinking", "a hybrid"),
        ("Qwen/Qwen3.5-9B", "a hybrid"),
        ("nvidia/Nemotron-H-8B-Base-8K", "a hybrid"),
        ("nvidia/NVIDIA-Nemotron-Nano-12B-v2", "a hybrid"),
        ("ibm-granite/granite-4.0-h-small", "a hybrid"),
        ("tiiuae/Falcon-H1-7B-Instruct", "a hybrid"),
        ("ai21labs/AI21-Jamba-Large-1.5", "a hybrid"),
    ] {
        for overrides in [Some(DENSE), None] {
            let message = cannot_model(model, overrides);
            assert!(
                message.contains(&format!(
                    "{model} is not a qpath preset (see `qpath models`) and its name is that of {kind}"
                )),
                "{message}"
            );
        }
    }
    // The presets themselves keep their real path.
    let a = run(&["--check", "--", "vllm", "serve", "deepseek-ai/DeepSeek-R1"]);
    assert_ne!(a.code, 2, "{}{}", a.stdout, a.stderr);
    // A distilled model is a dense student, and a dense family is not caught.
    for model in [
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        "ibm-granite/granite-4.0-micro",
        "acme/dense-7b",
    ] {
        let a = run(&["--check", "--", "vllm", "serve", model, "--hf-overrides", DENSE]);
        assert_eq!(a.code, 0, "{model}: {}{}", a.stdout, a.stderr);
    }
}

#[test]
fn mla_and_recurrent_keys_are_not_described_by_overrides() {
    for key in [
        "kv_lora_rank",
        "q_lora_rank",
        "qk_rope_head_dim",
        "qk_nope_head_dim",
        "v_head_dim",
    ] {
        let o = format!(r#"{{"num_hidden_layers": 4, "num_attention_heads": 8, "head_dim": 64, "{key}": 64}}"#);
        let message = cannot_model("acme/model", Some(&o));
        assert!(
            message.contains(&format!("--hf-overrides {key} describes an MLA model")),
            "{message}"
        );
        let nested =
            format!(r#"{{"text_config": {{"num_hidden_layers": 4, "num_attention_heads": 8, "head_dim": 64, "{key}": 64}}}}"#);
        let message = cannot_model("acme/model", Some(&nested));
        assert!(
            message.contains(&format!("--hf-overrides text_config.{key} describes an MLA model")),
            "{message}"
        );
    }
    for (extra, named) in [
        (r#""linear_num_key_heads": 16"#, "linear_num_key_heads"),
        (r#""mamba_d_state": 128"#, "mamba_d_state"),
        (r#""ssm_state_size": 128"#, "ssm_state_size"),
        (r#""hybrid_override_pattern": "M*M*""#, "hybrid_override_pattern"),
        (
            r#""layer_types": ["linear_attention", "full_attention", "full_attention", "full_attention"]"#,
            r#"layer_types entry "linear_attention""#,
        ),
        (
            r#""layer_types": ["mamba", "attention", "mamba", "attention"]"#,
            r#"layer_types entry "mamba""#,
        ),
    ] {
        let o = format!(r#"{{"num_hidden_layers": 4, "num_attention_heads": 8, "head_dim": 64, {extra}}}"#);
        let message = cannot_model("acme/model", Some(&o));
        assert!(
            message.contains(&format!("--hf-overrides {named} describes a hybrid")),
            "{message}"
        );
    }
}
