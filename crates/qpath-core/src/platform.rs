//! The machine a scenario runs on, and the predicates vLLM and FlashInfer evaluate on it.
//!
//! vLLM (`vllm/platforms/interface.py`, all releases): `is_device_capability(x)` is exact equality of `major*10+minor`;
//! `is_device_capability_family(x)` compares `to_int() // 10` (the major); `has_device_capability(x)` is `>=`.
//! FlashInfer (`flashinfer/utils.py`, all pinned releases): `is_sm90a_supported` = major 9 and torch CUDA >= 12.3.

use crate::capability::{ComputeCapability, CudaVersion};
use crate::dtype::TorchDtype;
use crate::model::MlaDims;
use crate::release::{FlashInfer, Release};

/// Everything about the scenario that the rules read besides the group itself.
#[derive(Clone, Debug)]
pub struct Platform {
    pub release: Release,
    /// The flashinfer-python installed: the release's pin unless the scenario names another. FlashInfer's own rules
    /// ([`crate::backends::flashinfer::library`]) and citations follow it; vLLM's follow `release`.
    pub flashinfer: FlashInfer,
    pub cc: ComputeCapability,
    pub cuda: CudaVersion,
    /// `has_nvidia_artifactory()`: flashinfer-cubin importable, `VLLM_HAS_FLASHINFER_CUBIN=1`, or the artifactory answered.
    pub cubins: bool,
    /// `VLLM_BATCH_INVARIANT`.
    pub batch_invariant: bool,
    pub model_dtype: TorchDtype,
    /// `--attention-config.use_trtllm_attention`: None = auto.
    pub force_trtllm: Option<bool>,
    pub disable_q_quant: bool,
    /// `--attention-config.flash_attn_version` (2, 3 or 4), which `get_flash_attn_version` puts over its default.
    pub flash_attn_version: Option<u8>,
    pub dcp: u32,
    /// The FlashInfer page size: `--block-size`, or the default kernel block size.
    pub page_size: u32,
    /// The global `--kv-cache-dtype` string.
    pub global_kv: String,
    /// The command line's `cudagraph_mode` ([`crate::serve::cuda_graphs`]): when its decode mode is FULL (the default
    /// `FULL_AND_PIECEWISE`; not under `--enforce-eager`) decode-only batches are captured at engine start, so each
    /// group's decode path runs before its first prefill.
    pub graphs: crate::serve::CudaGraphs,
    /// The `cudagraph_mode` the runner resolved once the backends were known, when a downgrade changed whether
    /// decodes are captured in full graphs ([`crate::cudagraph`]); the order of each group's phase errors follows it.
    pub resolved_graphs: Option<crate::serve::CudaGraphs>,
    /// The MLA dims of the model config the layers are built under (`get_current_vllm_config().model_config
    /// .hf_text_config`, which some MLA backends' `supports_combination` read), when that is not the layer's own
    /// model: an EAGLE / EAGLE-3 / MTP drafter is built under the target's model config (crate::drafter). `None`: the
    /// layer's own dims (a target layer; a non-MLA model's layer has none).
    pub model_mla: Option<MlaDims>,
    /// The model's `attention_chunk_size` when it has chunked local attention layers (Llama 4): the chunked
    /// backend's class name carries it (`ChunkedLocalAttention_8192_FlashAttentionBackend`).
    pub attention_chunk_size: Option<u32>,
}

impl Platform {
    /// The unit tests' platform: the release's pin, CUDA 12.9, cubins, a bfloat16 model, no flags, the default
    /// 16-token page and `FULL_AND_PIECEWISE` graphs; tests change the fields they are about.
    #[cfg(test)]
    pub(crate) fn for_tests(release: Release, (major, minor): (u8, u8)) -> Platform {
        Platform {
            flashinfer: release.flashinfer_pin(),
            release,
            cc: ComputeCapability::new(major, minor),
            cuda: CudaVersion::new(12, 9),
            cubins: true,
            batch_invariant: false,
            model_dtype: TorchDtype::BFloat16,
            force_trtllm: None,
            disable_q_quant: false,
            flash_attn_version: None,
            dcp: 1,
            page_size: 16,
            global_kv: "auto".into(),
            graphs: crate::serve::CudaGraphs {
                mode: "FULL_AND_PIECEWISE".into(),
                set_by: "the default -O2".into(),
            },
            resolved_graphs: None,
            model_mla: None,
            attention_chunk_size: None,
        }
    }

    /// `is_device_capability(90)` etc.: exact capability.
    pub fn is_cc(&self, int: u32) -> bool {
        self.cc.to_int() == int
    }

    /// `is_device_capability_family(100)` etc.: same major.
    pub fn is_family(&self, int: u32) -> bool {
        self.cc.to_int() / 10 == int / 10
    }

    pub fn major(&self) -> u8 {
        self.cc.major
    }

    /// `sm{major}{minor}`, as the resolved-dtypes log prints the arch.
    pub fn arch(&self) -> String {
        format!("sm{}{}", self.cc.major, self.cc.minor)
    }

    /// FlashInfer's `is_sm90a_supported`: the FA3 gate.
    pub fn sm90a(&self) -> bool {
        self.cc.major == 9 && self.cuda >= CudaVersion::new(12, 3)
    }

    /// Whether the installed FlashInfer's `determine_attention_backend` has the FA3 head-dim rule (0.6.16.post3+).
    pub fn fi_has_fa3_head_dim_rule(&self) -> bool {
        self.flashinfer >= FlashInfer::F0_6_16Post3
    }
}
