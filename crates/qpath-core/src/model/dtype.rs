//! vLLM's `--dtype` resolution for a CUDA GPU: `_get_and_verify_dtype` in `vllm/config/model.py`
//! (2020@0.24.0, 2467@0.33.0) with `CudaPlatform.supported_dtypes` (`vllm/platforms/cuda.py:233@0.24.0, 257@0.33.0`).

use crate::capability::ComputeCapability;
use crate::dtype::TorchDtype;
use crate::release::Release;

/// `--dtype` choices as argparse lists them (vLLM sorts the `ModelDType` literal: `literal_to_kwargs`,
/// `vllm/engine/arg_utils.py:186-199@0.24.0, 221-234@0.33.0`).
pub const DTYPE_CHOICES: [&str; 6] = ["auto", "bfloat16", "float", "float16", "float32", "half"];

/// The `model_type`s vLLM refuses float16 for (`_FLOAT16_NOT_SUPPORTED_MODELS`, `vllm/config/model.py:1950@0.24.0,
/// 2398@0.33.0`): gemma2, gemma3, gemma3_text, glm4, plus plamo2 up to 0.26.0 (removed in 0.27.0). Reason text:
/// "Numerical instability. Please use bfloat16 or float32 instead."
pub fn float16_unsupported(release: Release, model_type: &str) -> bool {
    matches!(model_type, "gemma2" | "gemma3" | "gemma3_text" | "glm4") || (model_type == "plamo2" && release < Release::V0_27_0)
}

/// vLLM's `--dtype` resolution for a generative model on a CUDA GPU of capability 8.0 or newer (every GPU vLLM's
/// FlashInfer backend accepts from 0.24.0), without the model_type check: see [`resolve_dtype_on`].
pub fn resolve_dtype(release: Release, dtype_flag: &str, config_dtype: TorchDtype) -> Result<TorchDtype, String> {
    resolve_dtype_on(release, dtype_flag, config_dtype, None, ComputeCapability::new(8, 0))
}

/// vLLM's `--dtype` resolution (`_get_and_verify_dtype`, `vllm/config/model.py:2020@0.24.0, 2467@0.33.0`; identical
/// in 0.24.0–0.33.0 for CUDA except where noted):
///
/// 1. The CLI accepts only `auto, bfloat16, float, float16, float32, half` (argparse choices, case-sensitive); else
///    argparse exits with `argument --dtype: invalid choice: 'x' (choose from 'auto', 'bfloat16', 'float',
///    'float16', 'float32', 'half')` (CPython 3.11's wording, which serve/ restates; later CPythons print the choices
///    with str(), unquoted). The Python API lower-cases the value
///    (`model.py:2035@0.24.0, 2482@0.33.0`) and raises `ValueError: Unknown dtype: 'x'` instead (2045@0.24.0,
///    2498@0.33.0).
/// 2. `half`/`float16` → float16, `bfloat16` → bfloat16, `float`/`float32` → float32 (`_STR_DTYPE_TO_TORCH_DTYPE`,
///    `model.py:1936@0.24.0, 2384@0.33.0`).
/// 3. `auto`: `_resolve_auto_dtype` (restated by `resolve_auto_dtype` below).
/// 4. `_check_valid_dtype` (`model.py:1966@0.24.0, 2413@0.33.0`): float16 for a banned model_type raises `The model
///    type 'gemma3' does not support float16. Reason: Numerical instability. Please use bfloat16 or float32 instead.`
pub fn resolve_dtype_on(
    release: Release,
    dtype_flag: &str,
    config_dtype: TorchDtype,
    model_type: Option<&str>,
    device: ComputeCapability,
) -> Result<TorchDtype, String> {
    let banned = model_type.is_some_and(|m| float16_unsupported(release, m));
    let resolved = match dtype_flag {
        "auto" => resolve_auto_dtype(config_dtype, banned, device),
        "half" | "float16" => TorchDtype::Float16,
        "bfloat16" => TorchDtype::BFloat16,
        "float" | "float32" => TorchDtype::Float32,
        other => {
            // argparse's message (CPython 3.11, as serve/ restates it): the choices as their reprs.
            let choices: Vec<String> = DTYPE_CHOICES.iter().map(|c| format!("'{c}'")).collect();
            return Err(format!(
                "argument --dtype: invalid choice: '{other}' (choose from {})",
                choices.join(", ")
            ));
        }
    };
    if banned && resolved == TorchDtype::Float16 {
        return Err(format!(
            "The model type '{}' does not support float16. Reason: Numerical instability. Please use bfloat16 or \
             float32 instead.",
            model_type.unwrap_or_default()
        ));
    }
    Ok(resolved)
}

/// `--dtype auto` (`_resolve_auto_dtype`, `vllm/config/model.py:1976@0.24.0, 2423@0.33.0`): the platform's supported
/// dtypes — `[bfloat16, float16, float32]` at capability ≥ 8.0, `[float16, float32]` at ≥ 6.0, else `[float32]`
/// (`CudaPlatform.supported_dtypes`) — minus float16 for a banned model_type ([`float16_unsupported`]); the preferred
/// dtype is the first of them (a pooling model prefers float16; qpath models generative runners only). A float32
/// config takes the preferred dtype (so bfloat16 on SM80+: "Downcast for float32 models", `model.py:1994@0.24.0,
/// 2441@0.33.0`); a config dtype in the list is kept; any other falls back to the preferred dtype with the warning
/// `Your device … doesn't support …`. (0.32+: a POWERPC CPU turns float16/float32 into bfloat16 — not CUDA.)
fn resolve_auto_dtype(config_dtype: TorchDtype, banned: bool, device: ComputeCapability) -> TorchDtype {
    let platform: &[TorchDtype] = if device.to_int() >= 80 {
        &[TorchDtype::BFloat16, TorchDtype::Float16, TorchDtype::Float32]
    } else if device.to_int() >= 60 {
        &[TorchDtype::Float16, TorchDtype::Float32]
    } else {
        &[TorchDtype::Float32]
    };
    let supported: Vec<TorchDtype> = platform
        .iter()
        .copied()
        .filter(|d| !(banned && *d == TorchDtype::Float16))
        .collect();
    let preferred = supported[0];
    let config = if config_dtype == TorchDtype::Float32 {
        preferred
    } else {
        config_dtype
    };
    if supported.contains(&config) {
        config
    } else {
        preferred
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_auto_keeps_16_bit_configs_and_downcasts_float32() {
        for r in Release::ALL {
            assert_eq!(resolve_dtype(r, "auto", TorchDtype::BFloat16), Ok(TorchDtype::BFloat16));
            assert_eq!(resolve_dtype(r, "auto", TorchDtype::Float16), Ok(TorchDtype::Float16));
            assert_eq!(resolve_dtype(r, "auto", TorchDtype::Float32), Ok(TorchDtype::BFloat16));
        }
    }

    #[test]
    fn dtype_explicit_values() {
        let r = Release::LATEST;
        for (flag, want) in [
            ("half", TorchDtype::Float16),
            ("float16", TorchDtype::Float16),
            ("bfloat16", TorchDtype::BFloat16),
            ("float", TorchDtype::Float32),
            ("float32", TorchDtype::Float32),
        ] {
            assert_eq!(resolve_dtype(r, flag, TorchDtype::BFloat16), Ok(want), "{flag}");
        }
        assert_eq!(
            resolve_dtype(r, "fp16", TorchDtype::BFloat16).unwrap_err(),
            "argument --dtype: invalid choice: 'fp16' (choose from 'auto', 'bfloat16', 'float', 'float16', 'float32', 'half')"
        );
        assert!(resolve_dtype(r, "FLOAT16", TorchDtype::BFloat16).is_err());
    }

    #[test]
    fn dtype_on_older_gpus_and_banned_models() {
        let t4 = ComputeCapability::new(7, 5);
        let r = Release::LATEST;
        assert_eq!(
            resolve_dtype_on(r, "auto", TorchDtype::BFloat16, None, t4),
            Ok(TorchDtype::Float16)
        );
        assert_eq!(
            resolve_dtype_on(r, "auto", TorchDtype::Float32, None, t4),
            Ok(TorchDtype::Float16)
        );
        // gemma3: float16 is filtered out of auto's candidates and refused when asked for.
        assert_eq!(
            resolve_dtype_on(r, "auto", TorchDtype::Float16, Some("gemma3"), ComputeCapability::new(9, 0)),
            Ok(TorchDtype::BFloat16)
        );
        assert_eq!(
            resolve_dtype_on(r, "auto", TorchDtype::BFloat16, Some("gemma3"), t4),
            Ok(TorchDtype::Float32)
        );
        assert!(
            resolve_dtype_on(r, "half", TorchDtype::BFloat16, Some("gemma3"), ComputeCapability::new(9, 0))
                .unwrap_err()
                .starts_with("The model type 'gemma3' does not support float16.")
        );
        // plamo2 left the list in 0.27.0.
        assert!(float16_unsupported(Release::V0_26_0, "plamo2"));
        assert!(!float16_unsupported(Release::V0_27_0, "plamo2"));
    }
}
