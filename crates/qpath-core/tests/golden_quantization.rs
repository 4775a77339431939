//! `--quantization` against the checkpoint, the GPU and the model dtype (issue 25 item 2): the start-up checks of
//! `ModelConfig._verify_quantization` and `VllmConfig._get_quantization_config` / `get_quant_config`, restated in
//! src/resolve/quantization.rs. Each case cites the vLLM line it restates.

use qpath_core::release::Release::{self, *};
use qpath_core::report::{Report, ScenarioError, ScenarioErrorKind, Verdict};
use qpath_core::resolve::{resolve, Hardware, Scenario};

fn run(gpu: &str, release: Release, command_line: &str) -> Report {
    resolve(&Scenario::new(Hardware::parse(gpu).unwrap(), release, command_line))
}

fn run_config(gpu: &str, release: Release, command_line: &str, config: &str) -> Report {
    let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), release, command_line);
    s.model_config = Some(config.to_string());
    resolve(&s)
}

fn error(r: &Report) -> &ScenarioError {
    r.error.as_ref().unwrap_or_else(|| panic!("no scenario error: {r:#?}"))
}

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const TAIL: &str = "input_value=ArgsKwargs((), {'model_co... 'shutdown_timeout': 0}), input_type=ArgsKwargs]";

/// A Llama-3.1-8B-shaped config.json with an AWQ `quantization_config` (AutoAWQ's keys) in `dtype`.
fn awq_config(method: &str, dtype: &str) -> String {
    format!(
        r#"{{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
            "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
            "head_dim": 128, "max_position_embeddings": 131072, "vocab_size": 128256, "rms_norm_eps": 1e-05,
            "torch_dtype": "{dtype}",
            "quantization_config": {{"quant_method": "{method}", "bits": 4, "group_size": 128, "zero_point": true,
            "version": "gemm"}}}}"#
    )
}

/// weight_utils.py:411@0.20.0, :380@0.33.0 (`get_quant_config`, called by `VllmConfig._get_quantization_config`
/// from `VllmConfig.__post_init__`, config/vllm.py:1608@0.33.0): no quantization_config, no hf_overrides entry, and
/// the Hub repository's *.json files end with none of AWQ's config file names → config-time ValueError, re-raised by
/// pydantic for VllmConfig.
#[test]
fn awq_on_unquantized_llama_cannot_find_its_config_file() {
    for r in [V0_20_0, V0_24_0, V0_33_0] {
        let rep = run("l4", r, &format!("{LLAMA} --quantization awq"));
        let e = error(&rep);
        assert_eq!(e.kind, ScenarioErrorKind::ValidationError, "{r:?}");
        assert_eq!(
            e.message,
            format!(
                "1 validation error for VllmConfig\n  Value error, Cannot find the config file for awq \
                     [type=value_error, {TAIL}"
            )
        );
        assert_eq!(Verdict::of(&rep), Verdict::Fails);
    }
    let e = run("h100-sxm", V0_33_0, &format!("{LLAMA} -q gptq")).error.unwrap();
    assert!(
        e.message.contains("Value error, Cannot find the config file for gptq ["),
        "{}",
        e.message
    );
}

/// fp8 on an unquantized checkpoint quantizes online: `get_config_filenames()` is empty (fp8.py:147-148@0.20.0), so
/// `get_quant_config` returns `Fp8Config()` (weight_utils.py:402-403@0.20.0) — from 0.31.0 an
/// `OnlineQuantizationConfig` (weight_utils.py:342-349@0.31.0) — minimum capability 75, bfloat16 / half: serves on L4.
#[test]
fn fp8_on_unquantized_llama_serves() {
    for r in [V0_20_0, V0_30_0, V0_31_0, V0_33_0] {
        for gpu in ["l4", "t4", "h100-sxm"] {
            let rep = run(gpu, r, &format!("{LLAMA} --quantization fp8"));
            assert!(rep.error.is_none(), "{gpu} {r:?}: {:?}", rep.error);
            assert_eq!(Verdict::of(&rep), Verdict::Serves, "{gpu} {r:?}");
        }
    }
}

/// model.py:1002-1008@0.20.0, :1455-1461@0.33.0: DeepSeek-V3's quant_method is fp8, no override method claims an fp8
/// config under `awq` → the mismatch ValueError in ModelConfig.__post_init__, re-raised by pydantic for ModelConfig.
#[test]
fn awq_on_an_fp8_checkpoint_is_the_mismatch() {
    for r in [V0_20_0, V0_33_0] {
        let rep = run("h100-sxm", r, "vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --quantization awq");
        let e = error(&rep);
        assert_eq!(e.kind, ScenarioErrorKind::ValidationError);
        assert_eq!(
            e.message,
            "1 validation error for ModelConfig\n  Value error, Quantization method specified in the model config \
             (fp8) does not match the quantization method specified in the `quantization` argument (awq). \
             [type=value_error, input_value=ArgsKwargs((), {'model': ...nderer_num_workers': 1}), \
             input_type=ArgsKwargs]"
        );
    }
    // Its own method passes.
    let rep = run(
        "h100-sxm",
        V0_33_0,
        "vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --quantization fp8",
    );
    assert!(rep.error.is_none(), "{:?}", rep.error);
}

/// config/vllm.py:928-936@0.33.0: Fp8Config.get_min_capability() = 75 (fp8.py:143-144@0.20.0); a V100 is 70.
#[test]
fn fp8_below_capability_75_is_refused() {
    for r in [V0_20_0, V0_33_0] {
        let e = run("v100", r, &format!("{LLAMA} --quantization fp8")).error.unwrap();
        assert_eq!(e.kind, ScenarioErrorKind::ValidationError);
        assert!(
            e.message.starts_with(
                "1 validation error for VllmConfig\n  Value error, The quantization method fp8 is not supported for \
                 the current GPU. Minimum capability: 75. Current capability: 70. ["
            ),
            "{}",
            e.message
        );
    }
}

/// config/vllm.py:937-943@0.33.0: the model dtype against get_supported_act_dtypes(): fp8's [bfloat16, half]
/// refuses float32.
#[test]
fn fp8_with_float32_is_refused() {
    let e = run("l4", V0_33_0, &format!("{LLAMA} -q fp8 --dtype float32")).error.unwrap();
    assert!(
        e.message.contains(
            "Value error, torch.float32 is not supported for quantization method fp8. Supported dtypes: \
             [torch.bfloat16, torch.float16] ["
        ),
        "{}",
        e.message
    );
}

/// The release switch: an AWQ checkpoint under `--quantization awq` stays `awq` in 0.20.0-0.23.0 (awq_marlin's
/// override takes only None / marlin / awq_marlin, awq_marlin.py:243-255@0.20.0) and AWQConfig takes half only
/// (awq.py:71-72@0.20.0): bfloat16 is refused. From 0.24.0 AutoAWQConfig's override takes `awq`
/// (auto_awq.py:263-286@0.33.0) and takes bfloat16 (auto_awq.py:225-226@0.24.0); its name is in the capability text.
#[test]
fn awq_checkpoint_with_bfloat16_per_release() {
    let line = "vllm serve org/llama-awq --quantization awq";
    let bf16 = awq_config("awq", "bfloat16");
    for r in [V0_20_0, V0_23_0] {
        let e = run_config("l4", r, line, &bf16).error.unwrap();
        assert_eq!(
            e.message,
            format!(
                "1 validation error for VllmConfig\n  Value error, torch.bfloat16 is not supported for \
                     quantization method awq. Supported dtypes: [torch.float16] [type=value_error, {TAIL}"
            ),
            "{r:?}"
        );
    }
    for r in [V0_24_0, V0_33_0] {
        let rep = run_config("l4", r, line, &bf16);
        assert!(rep.error.is_none(), "{r:?}: {:?}", rep.error);
        let e = run_config("v100", r, line, &bf16).error.unwrap();
        assert!(
            e.message.contains(
                "The quantization method auto_awq is not supported for the current GPU. Minimum \
                                capability: 75. Current capability: 70."
            ),
            "{}",
            e.message
        );
    }
    // float16 passes at 0.20.0.
    let rep = run_config("l4", V0_20_0, line, &awq_config("awq", "float16"));
    assert!(rep.error.is_none(), "{:?}", rep.error);
}

/// What is not restated is exit 2, never "serves": other methods, other override rules, a folder's config files.
#[test]
fn what_qpath_does_not_restate_cannot_be_modelled() {
    let cases = [
        ("l4", format!("{LLAMA} -q bitsandbytes"), None),
        ("l4", format!("{LLAMA} -q awq_marlin"), None),
        ("h100-sxm", "vllm serve openai/gpt-oss-20b -q mxfp4".to_string(), None),
        (
            "l4",
            "vllm serve org/llama-awq -q awq_marlin".to_string(),
            Some(awq_config("awq", "float16")),
        ),
        (
            "l4",
            "vllm serve org/plain -q awq".to_string(),
            Some(awq_config("awq", "float16").replace(r#""quantization_config""#, r#""unused""#)),
        ),
        (
            "l4",
            format!("{LLAMA} -q fp8 --hf-overrides '{{\"quantization_config_file\": \"q.json\"}}'"),
            None,
        ),
    ];
    for (gpu, line, config) in cases {
        let rep = match &config {
            Some(c) => run_config(gpu, V0_33_0, &line, c),
            None => run(gpu, V0_33_0, &line),
        };
        let e = error(&rep);
        assert_eq!(e.kind, ScenarioErrorKind::InputError, "{line}: {}", e.message);
        assert!(
            e.message.starts_with("qpath cannot model this: --quantization "),
            "{line}: {}",
            e.message
        );
        assert_eq!(Verdict::of(&rep), Verdict::CannotModel, "{line}");
    }
    // Without --quantization nothing changes.
    assert!(run("l4", V0_33_0, LLAMA).error.is_none());
}

/// gptq's switch is at 0.22.0: `GPTQConfig` (gptq.py:131-137@0.20.0: 60, [half]; gptq_marlin's override takes only
/// None / marlin / gptq_marlin, gptq_marlin.py:226-227@0.20.0) before, AutoGPTQConfig's override (auto_gptq.py:
/// 214-231@0.33.0; 60, [half, bfloat16]) from 0.22.0. Both floors are 60: a V100 (70) passes.
#[test]
fn gptq_checkpoint_with_bfloat16_per_release() {
    let line = "vllm serve org/llama-gptq --quantization gptq";
    let bf16 = awq_config("gptq", "bfloat16");
    let e = run_config("l4", V0_21_0, line, &bf16).error.unwrap();
    assert!(
        e.message.contains(
            "Value error, torch.bfloat16 is not supported for quantization method gptq. Supported dtypes: \
             [torch.float16] ["
        ),
        "{}",
        e.message
    );
    for r in [V0_22_0, V0_33_0] {
        let rep = run_config("l4", r, line, &bf16);
        assert!(rep.error.is_none(), "{r:?}: {:?}", rep.error);
    }
    let rep = run_config("v100", V0_20_0, line, &awq_config("gptq", "float16"));
    assert!(rep.error.is_none(), "{:?}", rep.error);
    // awq under --quantization gptq is not restated (the overrides decide): exit 2, not the mismatch.
    let e = run_config(
        "l4",
        V0_33_0,
        "vllm serve org/llama-awq -q gptq",
        &awq_config("awq", "float16"),
    )
    .error
    .unwrap();
    assert_eq!(e.kind, ScenarioErrorKind::InputError, "{}", e.message);
}
