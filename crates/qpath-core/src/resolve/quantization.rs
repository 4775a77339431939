//! `--quantization` (`-q`) against the checkpoint, the GPU and the model dtype: the start-up checks of
//! `ModelConfig._verify_quantization` (`vllm/config/model.py`, in `ModelConfig.__post_init__`: :687@0.20.0,
//! :922@0.33.0; the checks :1383-1484@0.33.0) and `VllmConfig._get_quantization_config` (`vllm/config/vllm.py`,
//! :916-950@0.33.0, called from `VllmConfig.__post_init__` :1608@0.33.0), which calls `get_quant_config`
//! (`vllm/model_executor/model_loader/weight_utils.py`: :197-380@0.33.0). Both run while the engine config is built,
//! so every failure here is a config-time pydantic `ValidationError` (`ModelConfig` / `VllmConfig`).
//!
//! Restated (every release 0.20.0-0.33.0; docs/source-notes/quantization.md lists the rest):
//! - an unquantized checkpoint: `fp8` quantizes online (`Fp8Config`, from 0.31.0 `OnlineQuantizationConfig` with a
//!   deprecation warning; both: minimum capability 75, act dtypes bfloat16 / float16); `awq` / `gptq` on a preset
//!   (whose Hub repository has no `quant_config.json` / `quantize_config.json`) raise "Cannot find the config file";
//! - an `fp8` checkpoint: `--quantization fp8` passes `_verify_quantization`; `awq` / `gptq` are the mismatch
//!   (no override method claims an fp8 config under those names: auto_awq / auto_gptq / awq_marlin / gptq_marlin need
//!   quant_method awq / gptq, modelopt* need modelopt, mxfp4 needs mxfp4, moe_wna16 / humming need the user to name
//!   them; deepseek_v4_fp8 (0.20.x-0.21.0) claims a deepseek_v4 model, not modelled);
//! - an awq / gptq checkpoint under its own name: `awq` (AWQConfig, half only) before 0.24.0, `auto_awq` from
//!   0.24.0; `gptq` (GPTQConfig, half only) before 0.22.0, `auto_gptq` from 0.22.0;
//! - the minimum capability and act-dtype checks of `_get_quantization_config` for those methods.
//!
//! Anything else given with `--quantization` is "qpath cannot model this" (exit 2), never a confident "serves".

use super::{args_kwargs_error, last_int_option, scenario_error, vllm_config_error};
use crate::capability::ComputeCapability;
use crate::dtype::TorchDtype;
use crate::model::ModelSpec;
use crate::release::Release;
use crate::report::{ScenarioError, ScenarioErrorKind};
use crate::serve::{self, ServeCommand};
use crate::source;

/// What qpath knows of the checkpoint's `quantization_config.quant_method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Checkpoint<'a> {
    /// No `quantization_config` (nor `compression_config`, nor one in `text_config`).
    Unquantized,
    Method(&'a str),
    /// qpath does not know (a preset whose checkpoint's quantization_config it has not restated, a config.json with
    /// a quantization_config it does not read).
    Unknown(&'static str),
}

/// Presets whose checkpoint is quantized (data/models.toml's notes): `quant_method` as their config.json has it, or
/// unknown. Every other preset is an unquantized checkpoint.
fn preset_checkpoint(id: &str) -> Checkpoint<'static> {
    const FP8: [&str; 4] = [
        "deepseek-ai/DeepSeek-V3",
        "deepseek-ai/DeepSeek-R1",
        "deepseek-ai/DeepSeek-V3.2",
        "moonshotai/Kimi-K2-Instruct",
    ];
    const UNKNOWN: [&str; 5] = [
        "openai/gpt-oss-20b",
        "openai/gpt-oss-120b",
        "zai-org/GLM-4.7-FP8",
        "zai-org/GLM-5",
        "mistralai/Ministral-3-8B-Base-2512",
    ];
    if FP8.iter().any(|p| p.eq_ignore_ascii_case(id)) {
        Checkpoint::Method("fp8")
    } else if UNKNOWN.iter().any(|p| p.eq_ignore_ascii_case(id)) {
        Checkpoint::Unknown("the preset's quantization_config is not restated by qpath")
    } else {
        Checkpoint::Unquantized
    }
}

fn checkpoint<'a>(spec: &'a ModelSpec, config_text: Option<&str>) -> Checkpoint<'a> {
    if spec.preset {
        return preset_checkpoint(&spec.id);
    }
    match &spec.checkpoint_kv {
        Some(kv) if kv.method.is_empty() => Checkpoint::Unknown("its quantization_config has no quant_method"),
        Some(kv) => Checkpoint::Method(kv.method.as_str()),
        // get_quant_config also reads text_config.quantization_config and compression_config, which qpath's
        // config.json reader does not: any mention of them is unknown.
        None if config_text.is_some_and(|t| t.contains("quantization_config") || t.contains("compression_config")) => {
            Checkpoint::Unknown("its config.json has a quantization_config / compression_config qpath does not read")
        }
        None => Checkpoint::Unquantized,
    }
}

/// `--quantization` as vLLM's argparse leaves it (the last one written; `None` and an absent flag are unset).
fn requested(r: Release, cmd: &ServeCommand) -> Option<String> {
    cmd.unused
        .iter()
        .rev()
        .filter_map(|e| serve::unused_option_of(r, e, &["--quantization"]))
        .find(|o| o.flag == "--quantization")
        .and_then(|o| o.value)
        .filter(|v| v != "None")
}

/// The quantization config class `get_quant_config` builds for a modelled method: its name after the override,
/// `get_min_capability()` and `get_supported_act_dtypes()`.
struct Method {
    name: &'static str,
    min_capability: u32,
    act_dtypes: &'static [TorchDtype],
}

/// `Fp8Config` (`model_executor/layers/quantization/fp8.py:139-148@0.20.0, 142-151@0.33.0`) and, from 0.31.0 on an
/// unquantized checkpoint, `OnlineQuantizationConfig` (`online/base.py:193-204@0.31.0`): 75, [bfloat16, half].
const FP8: Method = Method {
    name: "fp8",
    min_capability: 75,
    act_dtypes: &[TorchDtype::BFloat16, TorchDtype::Float16],
};

/// `AWQConfig` (awq.py:71-77@0.20.0): 75, [half].
const AWQ: Method = Method {
    name: "awq",
    min_capability: 75,
    act_dtypes: &[TorchDtype::Float16],
};

/// `AutoAWQConfig` (auto_awq.py:225-230@0.24.0, 229-234@0.33.0): 75, [half, bfloat16].
const AUTO_AWQ: Method = Method {
    name: "auto_awq",
    min_capability: 75,
    act_dtypes: &[TorchDtype::Float16, TorchDtype::BFloat16],
};

/// `GPTQConfig` (gptq.py:131-137@0.20.0): 60, [half].
const GPTQ: Method = Method {
    name: "gptq",
    min_capability: 60,
    act_dtypes: &[TorchDtype::Float16],
};

/// `AutoGPTQConfig` (auto_gptq.py:183-188@0.24.0, 178-183@0.33.0; from 0.22.0): 60, [half, bfloat16].
const AUTO_GPTQ: Method = Method {
    name: "auto_gptq",
    min_capability: 60,
    act_dtypes: &[TorchDtype::Float16, TorchDtype::BFloat16],
};

fn cannot(r: Release, what: &str, why: &str) -> ScenarioError {
    scenario_error(
        ScenarioErrorKind::InputError,
        format!(
            "qpath cannot model this: {what} (vLLM {}'s ModelConfig._verify_quantization / get_quant_config: {why}; \
             see docs/source-notes/quantization.md)",
            r.name()
        ),
        None,
        r,
    )
}

/// A `ValueError` raised in `ModelConfig.__post_init__`, re-raised by pydantic as `ValidationError`: the input is
/// `create_model_config`'s `ModelConfig(model=…, …, renderer_num_workers=self.renderer_num_workers)` (the last keyword
/// in every release 0.20.0-0.33.0: engine/arg_utils.py:1530@0.20.0, 2064@0.33.0; `--renderer-num-workers`, an int,
/// default 1), shortened to its first 25 and last 24 characters.
fn model_config_error(r: Release, cmd: &ServeCommand, text: &str) -> ScenarioError {
    let workers = last_int_option(r, cmd, "--renderer-num-workers", "1");
    let message = args_kwargs_error("ModelConfig", "model", ("renderer_num_workers", &workers), text);
    scenario_error(
        ScenarioErrorKind::ValidationError,
        message,
        Some(&source::QUANT_MISMATCH_RAISE),
        r,
    )
}

/// The checks; `config_text` is the model's config.json when it was read from one.
pub(super) fn check(
    r: Release,
    spec: &ModelSpec,
    config_text: Option<&str>,
    cmd: &ServeCommand,
    cc: ComputeCapability,
    model_dtype: TorchDtype,
) -> Result<(), ScenarioError> {
    let Some(q) = requested(r, cmd) else { return Ok(()) };
    let what = format!("--quantization {q} on {}", cmd.model);
    // get_quant_config reads hf_overrides' quantization_config_file / quantization_config_dict_json, and a
    // --quantization-config (0.22.0+) composes online quantization: not restated.
    if let Some(k) = cmd.hf_overrides.as_ref().and_then(|o| {
        [
            "quantization_config",
            "quantization_config_file",
            "quantization_config_dict_json",
        ]
        .into_iter()
        .find(|k| o.contains_key(*k))
    }) {
        return Err(cannot(r, &what, &format!("--hf-overrides sets {k}")));
    }
    if cmd
        .unused
        .iter()
        .filter_map(|e| serve::unused_option_of(r, e, &["--quantization-config"]))
        .any(|o| o.flag == "--quantization-config")
    {
        return Err(cannot(
            r,
            &what,
            "--quantization-config (online quantization arguments) is not restated",
        ));
    }
    let method = match (checkpoint(spec, config_text), q.as_str()) {
        (Checkpoint::Unknown(why), _) => return Err(cannot(r, &what, why)),
        (Checkpoint::Unquantized, "fp8") => FP8,
        (Checkpoint::Unquantized, "awq" | "gptq") if spec.preset => {
            // get_quant_config: no hf quantization_config, no hf_overrides entry; the Hub repository's *.json files
            // (config, generation, tokenizer, index) end with none of get_config_filenames() ("quant_config.json",
            // "quantize_config.json") → weight_utils.py:411@0.20.0, 380@0.33.0.
            let text = format!("Cannot find the config file for {q}");
            return Err(vllm_config_error(r, cmd, &text, &source::QUANT_CONFIG_FILE_RAISE));
        }
        (Checkpoint::Unquantized, "awq" | "gptq") => {
            return Err(cannot(
                r,
                &what,
                "whether the model's folder or repository has quant_config.json / quantize_config.json is not read",
            ))
        }
        (Checkpoint::Method("fp8"), "fp8") if spec.model_type() != Some("deepseek_v4") => FP8,
        (Checkpoint::Method("fp8"), "awq" | "gptq") if spec.model_type() != Some("deepseek_v4") => {
            // model.py:1002-1008@0.20.0, 1455-1461@0.33.0.
            let text = format!(
                "Quantization method specified in the model config (fp8) does not match the quantization method \
                 specified in the `quantization` argument ({q})."
            );
            return Err(model_config_error(r, cmd, &text));
        }
        // An awq / gptq checkpoint under its own name: 0.20.0-0.23.0 keep `awq` (awq_marlin's override takes only
        // None / marlin / awq_marlin: awq_marlin.py:243-255@0.20.0); from 0.24.0 AutoAWQConfig's override takes `awq`
        // (auto_awq.py:263-286@0.33.0). gptq likewise: gptq_marlin.py:226-238@0.20.0; AutoGPTQConfig from 0.22.0.
        (Checkpoint::Method("awq"), "awq") if r < Release::V0_24_0 => AWQ,
        (Checkpoint::Method("awq"), "awq") => AUTO_AWQ,
        (Checkpoint::Method("gptq"), "gptq") if r < Release::V0_22_0 => GPTQ,
        (Checkpoint::Method("gptq"), "gptq") => AUTO_GPTQ,
        (Checkpoint::Method(m), _) => {
            return Err(cannot(
                r,
                &what,
                &format!("the override rules for a {m} checkpoint under --quantization {q} are not restated"),
            ))
        }
        (Checkpoint::Unquantized, _) => return Err(cannot(r, &what, &format!("the quantization method {q} is not restated"))),
    };
    // VllmConfig._get_quantization_config: config/vllm.py:916-943@0.33.0.
    let capability = cc.to_int();
    if capability < method.min_capability {
        let text = format!(
            "The quantization method {} is not supported for the current GPU. Minimum capability: {}. Current \
             capability: {capability}.",
            method.name, method.min_capability
        );
        return Err(vllm_config_error(r, cmd, &text, &source::QUANT_CAPABILITY_RAISE));
    }
    if !method.act_dtypes.contains(&model_dtype) {
        let list: Vec<String> = method.act_dtypes.iter().map(|d| d.torch_repr()).collect();
        let text = format!(
            "{} is not supported for quantization method {}. Supported dtypes: [{}]",
            model_dtype.torch_repr(),
            method.name,
            list.join(", ")
        );
        return Err(vllm_config_error(r, cmd, &text, &source::QUANT_DTYPE_RAISE));
    }
    Ok(())
}
