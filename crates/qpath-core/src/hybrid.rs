//! What a hybrid model (recurrent GDN / Mamba layers beside attention layers) changes for attention: vLLM derives
//! the attention block size so that one attention page covers one recurrent-state page
//! (`Platform.update_block_size_for_backend` → `_align_hybrid_block_size`, `vllm/platforms/interface.py`, every
//! release 0.24.0-0.33.0), then splits that manager block into the kernel blocks the attention backend runs
//! (`select_common_block_size`, `vllm/v1/worker/utils.py`). The kernel block is the page size FlashInfer sees.
//!
//! Restated, in vLLM's order (each step is a trace step citing its line):
//! 1. Prefix caching: off by default for hybrid models until 0.25.1, on from 0.26.0 (`HYB_PREFIX_CACHING_DEFAULT`);
//!    `--enable-prefix-caching` / `--no-enable-prefix-caching` decide otherwise. With it on, `--mamba-cache-mode none`
//!    (the default) becomes `"all"` for a model with `SupportsMambaPrefixCaching`, else `"align"`, until 0.27.x, and
//!    `"align"` from 0.28.0; with it off the mode is `"none"` (`HYB_MAMBA_CACHE_MODE_DEFAULT`, `..._OFF`).
//! 2. The state dtypes: conv = `--mamba-cache-dtype` (`auto`: the model dtype), temporal = `--mamba-ssm-cache-dtype`
//!    (`auto`: the conv dtype) (`MAMBA_STATE_DTYPE`); NemotronH first turns `--mamba-ssm-cache-dtype auto` into
//!    config.json's `mamba_ssm_cache_dtype`, else `float32`, and logs it (`NEMOTRONH_SSM_DTYPE`).
//! 3. The state page: the sum of the state shapes' bytes (`MambaSpec.page_size_bytes`, `HYB_MAMBA_PAGE`).
//! 4. The attention page of one token: `FullAttentionSpec(block_size=1)`: 2 (K and V) × KV heads per rank × head
//!    size × cache-dtype bytes (`HYB_ATTN_PAGE_1_TOKEN`).
//! 5. The kernel alignment: max(smallest kernel block of the first attention backend, the block size)
//!    (`HYB_KERNEL_ALIGNMENT`); 0.33.0 in align mode: also a multiple of the GDN layers' prefill checkpoint alignment
//!    (64 when FlashInfer runs the GDN prefill) (`HYB_CHECKPOINT_ALIGNMENT`).
//! 6. The block: `all` mode (0.24.0-0.31.0): the smallest multiple of lcm(chunk size, alignment) covering the state
//!    in tokens (`HYB_ALL_MODE_CHUNK`); otherwise alignment × cdiv(state page, alignment × attention page per token)
//!    (`HYB_NONE_MODE_BLOCK`); 0.32.0+: rounded up to every attention backend's smallest kernel block
//!    (`HYB_BACKEND_ALIGNMENT`).
//! 7. If the block size is smaller, it is raised and logged (`HYB_SET_BLOCK_SIZE_LOG`), then the state page is
//!    padded to the attention page and that is logged (`HYB_PAD_LOG`).
//! 8. The kernel block size: the manager block if the backend declares it (an exact size or a `MultipleOf`), else
//!    the largest declared size dividing it (`SELECT_COMMON_BLOCK_SIZE`).

use crate::attention::Backend;
use crate::backends::KernelSizes;
use crate::dtype::TorchDtype;
use crate::model::{HybridSpec, HybridState, VllmModel};
use crate::platform::Platform;
use crate::release::Release;
use crate::report::{LogLevel, LogRecord};
use crate::serve::ServeCommand;
use crate::source::{self, Cite};
use crate::trace::Trace;

/// The hybrid-model flags of a command line (read from the options qpath's parser keeps as written, as the release's
/// argparse reads them: [`crate::serve::unused_option`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HybridFlags {
    pub prefix_caching: Option<bool>,
    pub mamba_cache_mode: Option<String>,
    pub mamba_cache_dtype: Option<String>,
    pub mamba_ssm_cache_dtype: Option<String>,
    pub mamba_block_size: Option<u32>,
    /// `--gdn-prefill-backend` (the GDN layers' prefill kernel request; `additional_config["gdn_prefill_backend"]`).
    pub gdn_prefill_backend: Option<String>,
    /// `--mamba-backend` (the Mamba SSU backend: `triton`, `flashinfer`, 0.27.0+ `cpu`).
    pub mamba_backend: Option<String>,
    /// `--mamba-ssu-algorithm` (0.27.0+; `None` and `""` are unset).
    pub mamba_ssu_algorithm: Option<String>,
    /// `--use-replayssm` / `--no-use-replayssm` (0.27.0+).
    pub use_replayssm: Option<bool>,
    /// A `--speculative-config` (until 0.21.0 it makes the default mamba cache mode `"align"`).
    pub speculative: bool,
}

/// The flags [`HybridFlags::read`] consumes for every hybrid model (they are then no longer "unused" for it; the
/// negative spellings of a boolean are its row's).
pub const FLAGS: [&str; 5] = [
    "--enable-prefix-caching",
    "--mamba-cache-mode",
    "--mamba-cache-dtype",
    "--mamba-ssm-cache-dtype",
    "--mamba-block-size",
];

/// The flags only a model with GDN layers reads.
pub const GDN_FLAGS: [&str; 1] = ["--gdn-prefill-backend"];

/// The flags only a model with Mamba layers reads (the SSU backend of `selective_state_update`).
pub const MAMBA_FLAGS: [&str; 3] = ["--mamba-backend", "--mamba-ssu-algorithm", "--use-replayssm"];

impl HybridFlags {
    pub fn read(r: Release, cmd: &ServeCommand) -> HybridFlags {
        let mut f = HybridFlags {
            speculative: cmd.speculative_config.is_some(),
            ..HybridFlags::default()
        };
        for entry in &cmd.unused {
            let Some(o) = crate::serve::unused_option(r, entry) else {
                continue;
            };
            let positive = !o.option.starts_with("--no-") && !o.option.starts_with("--disable-");
            let v = o.value;
            match o.flag {
                "--enable-prefix-caching" => f.prefix_caching = Some(positive),
                "--mamba-cache-mode" => f.mamba_cache_mode = v,
                "--mamba-cache-dtype" => f.mamba_cache_dtype = v,
                "--mamba-ssm-cache-dtype" => f.mamba_ssm_cache_dtype = v,
                "--mamba-block-size" => f.mamba_block_size = v.and_then(|v| v.parse().ok()),
                "--gdn-prefill-backend" => f.gdn_prefill_backend = v,
                "--mamba-backend" => f.mamba_backend = v,
                "--mamba-ssu-algorithm" => f.mamba_ssu_algorithm = v.filter(|v| !v.is_empty() && v != "None"),
                "--use-replayssm" => f.use_replayssm = Some(positive),
                _ => {}
            }
        }
        f
    }

    /// Whether an `unused` entry is a flag a hybrid model whose recurrent layers run on `backend` reads.
    pub fn consumes(r: Release, entry: &str, backend: Backend) -> bool {
        let Some(o) = crate::serve::unused_option(r, entry) else {
            return false;
        };
        FLAGS.contains(&o.flag)
            || (backend == Backend::GdnAttn && GDN_FLAGS.contains(&o.flag))
            || (matches!(backend, Backend::Mamba1 | Backend::Mamba2) && MAMBA_FLAGS.contains(&o.flag))
    }
}

/// The attention side of the alignment: the first attention group's backend and its heads.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionSide {
    pub backend: Backend,
    /// Total heads of the model (`get_num_attention_heads` / `get_num_kv_heads` divide by the TP size).
    pub q_heads: u32,
    pub kv_heads: u32,
    pub head_dim: u32,
}

/// The outcome: the manager block size, the kernel block size (FlashInfer's page size), and the steps and logs.
#[derive(Debug)]
pub struct Alignment {
    pub block_size: u32,
    pub kernel_block_size: u32,
    pub mamba_page_bytes: u64,
    pub attn_page_bytes_per_token: u64,
    pub trace: Trace,
    /// Log lines of config time (before backend selection): NemotronH's `mamba_ssm_cache_dtype` update.
    pub config_logs: Vec<LogRecord>,
    /// What qpath could not model (the block size is then vLLM's default or `--block-size`).
    pub unmodelled: Option<String>,
}

/// Step 1 without its steps: whether prefix caching is on, and the mamba cache mode vLLM settles on.
pub fn mamba_cache_mode(r: Release, h: &HybridSpec, f: &HybridFlags) -> (bool, String) {
    let prefix = f.prefix_caching.unwrap_or(r >= Release::V0_26_0);
    let asked = f.mamba_cache_mode.as_deref().unwrap_or("none");
    let mode = if !prefix {
        "none"
    } else if asked == "none" {
        // models/config.py MambaModelConfig (0.21.0:352-357): until 0.21.0 a speculative config makes the default
        // "align" (with its own warning) even for a model with SupportsMambaPrefixCaching; 0.22.0 dropped that branch.
        if r < Release::V0_22_0 && h.supports_mamba_prefix_caching && f.speculative {
            "align"
        } else if r < Release::V0_28_0 && h.supports_mamba_prefix_caching {
            "all"
        } else {
            "align"
        }
    } else if asked == "all" && !h.supports_mamba_prefix_caching {
        "align"
    } else {
        asked
    };
    (prefix, mode.to_string())
}

/// The mamba cache mode (step 1) and the steps that decided it.
fn cache_mode(r: Release, h: &HybridSpec, f: &HybridFlags, t: &mut Trace) -> String {
    let (prefix, mode) = mamba_cache_mode(r, h, f);
    t.step(
        Some(&source::HYB_PREFIX_CACHING_DEFAULT),
        "prefix caching",
        match f.prefix_caching {
            Some(b) => format!("{} by the command line", if b { "enabled" } else { "disabled" }),
            None if prefix => "enabled: from 0.26.0 generative hybrid models support prefix caching by default".into(),
            None => "disabled: until 0.25.1 hybrid models do not support prefix caching by default".into(),
        },
    );
    let asked = f.mamba_cache_mode.as_deref().unwrap_or("none");
    t.step(
        Some(if prefix {
            &source::HYB_MAMBA_CACHE_MODE_DEFAULT
        } else {
            &source::HYB_MAMBA_CACHE_MODE_OFF
        }),
        "mamba cache mode",
        format!(
            "--mamba-cache-mode {asked} with prefix caching {}: {mode:?}{}",
            if prefix { "on" } else { "off" },
            if prefix && asked == "none" {
                if r < Release::V0_22_0 && h.supports_mamba_prefix_caching && f.speculative {
                    " (a model with SupportsMambaPrefixCaching and a speculative config: \"align\" until 0.21.0)".to_string()
                } else if r < Release::V0_28_0 {
                    format!(
                        " (\"all\" for a model with SupportsMambaPrefixCaching, else \"align\"; {} has {})",
                        h.model.file(),
                        if h.supports_mamba_prefix_caching { "it" } else { "none" }
                    )
                } else {
                    " (\"align\" by default from 0.28.0)".to_string()
                }
            } else {
                String::new()
            }
        ),
    );
    mode
}

fn dtype_bytes(name: &str, model: TorchDtype) -> Option<u64> {
    match name {
        "auto" => Some(if model.is_16bit() { 2 } else { 4 }),
        "bfloat16" | "float16" | "half" => Some(2),
        "float32" | "float" => Some(4),
        _ => None,
    }
}

fn cdiv(a: u64, b: u64) -> u64 {
    a.div_ceil(b.max(1))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b).max(1) * b
}

/// The backend's `get_supported_kernel_block_sizes()` (None: qpath does not restate it).
fn kernel_sizes(p: &Platform, a: &AttentionSide, tp: u32, t: &mut Trace) -> Option<KernelSizes> {
    let q_heads = a.q_heads / tp;
    let kv_heads = (a.kv_heads / tp).max(1);
    crate::backends::rules(a.backend).kernel_block_sizes(p, q_heads, kv_heads, t)
}

/// The recurrent state page (steps 2-3): bytes, and the NemotronH dtype log when it fires.
fn mamba_page(
    p: &Platform,
    h: &HybridSpec,
    f: &HybridFlags,
    (tp, spec_tokens): (u32, u32),
    t: &mut Trace,
    logs: &mut Vec<LogRecord>,
) -> Result<u64, String> {
    let conv_name = f.mamba_cache_dtype.clone().unwrap_or_else(|| "auto".into());
    let ssm_name = f.mamba_ssm_cache_dtype.clone().unwrap_or_else(|| "auto".into());
    let ssm_name = nemotron_h_ssm_dtype(h, ssm_name, t, logs);
    let ssm_name = qwen3_5_ssm_dtype(h, ssm_name, t, logs);
    let (conv, ssm) = state_dtypes(p.model_dtype, &conv_name, &ssm_name, t)?;
    // granitemoehybrid.py passes num_spec to mamba2_state_shape from 0.32.0 (granitemoehybrid.py:646@0.32.0); before,
    // the calculator's default 0.
    // falcon_h1.py likewise from 0.32.0 (`source::FALCON_H1_STATE_SHAPE`); jamba.py's mamba1_state_shape takes none
    // in any release.
    let spec_tokens = match h.model {
        VllmModel::GraniteMoeHybrid | VllmModel::FalconH1 if p.release < Release::V0_32_0 => 0,
        VllmModel::Jamba => 0,
        _ => spec_tokens,
    };
    let (cite, conv_elems, temporal_elems, what) = state_shape(h, tp, spec_tokens)?;
    let page = conv_elems * conv + temporal_elems * ssm;
    let (shape_cite, dtype_cite) = match (h.model, h.architecture) {
        // The registry's class: the multimodal wrapper's own methods, or (0.27.0+) the text-only class's.
        (VllmModel::Qwen3_5, Some(a)) if a.ends_with("ForCausalLM") => {
            (&source::QWEN3_5_CAUSAL_STATE_SHAPE, &source::QWEN3_5_CAUSAL_STATE_DTYPE)
        }
        (VllmModel::Qwen3_5, _) => (&source::QWEN3_5_STATE_SHAPE, &source::QWEN3_5_STATE_DTYPE),
        (VllmModel::GraniteMoeHybrid, _) => (&source::GRANITE_STATE_SHAPE, &source::GRANITE_STATE_DTYPE),
        (VllmModel::FalconH1, _) => (&source::FALCON_H1_STATE_SHAPE, &source::FALCON_H1_STATE_DTYPE),
        (VllmModel::Jamba, _) => (&source::JAMBA_STATE_SHAPE, &source::JAMBA_STATE_DTYPE),
        _ => match h.state {
            HybridState::Gdn { .. } => (&source::QWEN3NEXT_STATE_SHAPE, &source::QWEN3NEXT_STATE_DTYPE),
            HybridState::Mamba2 { .. } | HybridState::Mamba1 { .. } => {
                (&source::NEMOTRONH_STATE_SHAPE, &source::NEMOTRONH_STATE_DTYPE)
            }
        },
    };
    t.step(
        Some(dtype_cite),
        "get_mamba_state_dtype_from_config",
        format!(
            "{} passes the model dtype, --mamba-cache-dtype and --mamba-ssm-cache-dtype",
            h.model.file()
        ),
    );
    t.step(
        Some(shape_cite),
        "get_mamba_state_shape_from_config",
        format!(
            "{} passes the config's state sizes, the tensor parallel size {tp} and {spec_tokens} speculative tokens",
            h.model.file()
        ),
    );
    if let HybridState::Mamba2 { n_groups, .. } = h.state {
        if n_groups % tp != 0 {
            t.step(
                Some(&source::MAMBA2_GROUP_EXTENSION),
                "mamba2 group extension",
                format!(
                    "n_groups {n_groups} does not divide by tensor parallel size {tp}: extra_groups_for_head_shards adds \
                     {} so that every rank holds the group its heads need ({tp} groups)",
                    tp - n_groups
                ),
            );
        }
    }
    t.step(Some(cite), "mamba state shape", what);
    t.step(
        Some(&source::HYB_MAMBA_PAGE),
        "mamba page size",
        format!(
            "{conv_elems} x {conv} + {temporal_elems} x {ssm} = {page} bytes per layer and request (MambaSpec.page_size_bytes)"
        ),
    );
    Ok(page)
}

/// Step 2 without its steps: the conv and temporal (ssm) state dtypes (`MAMBA_STATE_DTYPE`: `--mamba-cache-dtype`,
/// `auto` the model dtype; `--mamba-ssm-cache-dtype`, `auto` the conv dtype after NemotronH's config turned it into
/// config.json's `mamba_ssm_cache_dtype` or float32); `None` for a dtype name qpath does not read.
pub fn state_torch_dtypes(model: TorchDtype, h: &HybridSpec, f: &HybridFlags) -> Option<(TorchDtype, TorchDtype)> {
    let named = |name: &str| match name {
        "auto" => Some(model),
        "bfloat16" => Some(TorchDtype::BFloat16),
        "float16" | "half" => Some(TorchDtype::Float16),
        "float32" | "float" => Some(TorchDtype::Float32),
        _ => None,
    };
    let conv = named(f.mamba_cache_dtype.as_deref().unwrap_or("auto"))?;
    let mut ssm_name = f.mamba_ssm_cache_dtype.as_deref().unwrap_or("auto");
    match &h.state {
        HybridState::Mamba2 { ssm_cache_dtype, .. } if ssm_name == "auto" && h.model == VllmModel::NemotronH => {
            ssm_name = ssm_cache_dtype.as_deref().unwrap_or("float32");
        }
        HybridState::Gdn { ssm_dtype: Some(d), .. } if ssm_name == "auto" && qwen3_5_config_runs(h) => ssm_name = d,
        _ => {}
    }
    let ssm = if ssm_name == "auto" { conv } else { named(ssm_name)? };
    Some((conv, ssm))
}

/// Step 2, NemotronH's config: `--mamba-ssm-cache-dtype auto` becomes config.json's dtype (else float32), logged.
fn nemotron_h_ssm_dtype(h: &HybridSpec, mut ssm_name: String, t: &mut Trace, logs: &mut Vec<LogRecord>) -> String {
    if h.model != VllmModel::NemotronH {
        // Only NemotronH has a MODELS_CONFIG_MAP entry that sets the SSM dtype (Granite-4.0-H has none).
        return ssm_name;
    }
    if let HybridState::Mamba2 { ssm_cache_dtype, .. } = &h.state {
        if ssm_name == "auto" {
            let to = ssm_cache_dtype.clone().unwrap_or_else(|| "float32".into());
            t.step(
                Some(&source::NEMOTRONH_SSM_DTYPE),
                "NemotronH mamba_ssm_cache_dtype",
                format!(
                    "--mamba-ssm-cache-dtype auto becomes {to:?} ({})",
                    if ssm_cache_dtype.is_some() {
                        "config.json's mamba_ssm_cache_dtype"
                    } else {
                        "no mamba_ssm_cache_dtype in config.json: NemotronH's default float32"
                    }
                ),
            );
            t.step(
                Some(&source::NEMOTRONH_SSM_DTYPE_LOG),
                "NemotronH log",
                format!("INFO \"Updating mamba_ssm_cache_dtype to '{to}' for NemotronH model\""),
            );
            let text = format!("Updating mamba_ssm_cache_dtype to '{to}' for NemotronH model");
            logs.push(LogRecord::new(
                LogLevel::Info,
                &source::NEMOTRONH_SSM_DTYPE_LOG,
                (t.release, t.flashinfer),
                text,
            ));
            ssm_name = to;
        }
    }
    ssm_name
}

/// Whether `Qwen3_5ForConditionalGenerationConfig.verify_and_update_config` runs for this model:
/// `MODELS_CONFIG_MAP` maps the two multimodal Qwen3.5 architectures in every release and (`Qwen3_5ForCausalLMConfig`)
/// the two text-only ones from 0.27.0 (config.py:704-705@0.24.0, 1259-1262@0.33.0), the first release that registers
/// them; it runs before the hybrid block-size alignment (`VllmConfig.try_verify_and_update_config`).
fn qwen3_5_config_runs(h: &HybridSpec) -> bool {
    h.model == VllmModel::Qwen3_5
}

/// Step 2, Qwen3.5's config: `--mamba-ssm-cache-dtype auto` becomes the text config's `mamba_ssm_dtype` (silently);
/// an explicit other value is kept with vLLM's warning (`source::QWEN3_5_SSM_DTYPE`, `QWEN3_5_SSM_DTYPE_LOG`, every
/// release 0.24.0-0.33.0).
fn qwen3_5_ssm_dtype(h: &HybridSpec, ssm_name: String, t: &mut Trace, logs: &mut Vec<LogRecord>) -> String {
    let HybridState::Gdn { ssm_dtype, .. } = &h.state else {
        return ssm_name;
    };
    if !qwen3_5_config_runs(h) {
        return ssm_name;
    }
    match ssm_dtype {
        None => {
            t.step(
                Some(&source::QWEN3_5_SSM_DTYPE),
                "Qwen3.5 mamba_ssm_cache_dtype",
                format!("the text config has no mamba_ssm_dtype: --mamba-ssm-cache-dtype stays {ssm_name:?}"),
            );
            ssm_name
        }
        Some(d) if ssm_name == "auto" => {
            t.step(
                Some(&source::QWEN3_5_SSM_DTYPE),
                "Qwen3.5 mamba_ssm_cache_dtype",
                format!("--mamba-ssm-cache-dtype auto becomes {d:?}, the text config's mamba_ssm_dtype (no log line)"),
            );
            d.clone()
        }
        Some(d) if *d != ssm_name => {
            let text = format!(
                "Qwen3.5 model specifies mamba_ssm_dtype='{d}' in its config, but --mamba-ssm-cache-dtype='{ssm_name}' \
                 was passed. Using the user-specified value."
            );
            t.step(
                Some(&source::QWEN3_5_SSM_DTYPE_LOG),
                "Qwen3.5 mamba_ssm_cache_dtype",
                format!(
                    "--mamba-ssm-cache-dtype {ssm_name} is kept over the text config's mamba_ssm_dtype {d:?}, with a warning"
                ),
            );
            logs.push(LogRecord::new(
                LogLevel::Warning,
                &source::QWEN3_5_SSM_DTYPE_LOG,
                (t.release, t.flashinfer),
                text,
            ));
            ssm_name
        }
        Some(_) => ssm_name,
    }
}

/// Step 2, `MambaStateDtypeCalculator`: the conv and temporal state bytes per element.
fn state_dtypes(model: TorchDtype, conv_name: &str, ssm_name: &str, t: &mut Trace) -> Result<(u64, u64), String> {
    let conv = dtype_bytes(conv_name, model).ok_or_else(|| format!("--mamba-cache-dtype {conv_name}"))?;
    let ssm = if ssm_name == "auto" {
        conv
    } else {
        dtype_bytes(ssm_name, model).ok_or_else(|| format!("--mamba-ssm-cache-dtype {ssm_name}"))?
    };
    let bytes_name = |b: u64| if b == 4 { "float32" } else { "16-bit" };
    t.step(
        Some(&source::MAMBA_STATE_DTYPE),
        "mamba state dtypes",
        format!(
            "conv state {} ({} bytes, --mamba-cache-dtype {conv_name}), temporal state {} ({} bytes, \
             --mamba-ssm-cache-dtype {ssm_name})",
            bytes_name(conv),
            conv,
            bytes_name(ssm),
            ssm,
        ),
    );
    Ok((conv, ssm))
}

/// Step 3, `MambaStateShapeCalculator`: the cite, conv and temporal elements per rank, and the shape's text.
fn state_shape(h: &HybridSpec, tp: u32, spec_tokens: u32) -> Result<(&'static Cite, u64, u64, String), String> {
    let tp64 = tp as u64;
    Ok(match h.state {
        HybridState::Gdn {
            num_k_heads,
            num_v_heads,
            head_k_dim,
            head_v_dim,
            conv_kernel,
            ..
        } => {
            let conv_dim = head_k_dim as u64 * num_k_heads as u64 * 2 + head_v_dim as u64 * num_v_heads as u64;
            if conv_dim % tp64 != 0 || num_v_heads as u64 % tp64 != 0 {
                return Err(format!("the GDN state does not divide by tensor parallel size {tp}"));
            }
            let rows = (conv_kernel - 1 + spec_tokens) as u64;
            (
                &source::GDN_STATE_SHAPE,
                rows * conv_dim / tp64,
                num_v_heads as u64 / tp64 * head_v_dim as u64 * head_k_dim as u64,
                format!(
                    "gated_delta_net_state_shape: conv ({rows}, {}) with conv_dim = {head_k_dim}*{num_k_heads}*2 + \
                     {head_v_dim}*{num_v_heads} = {conv_dim}; temporal ({}, {head_v_dim}, {head_k_dim})",
                    conv_dim / tp64,
                    num_v_heads as u64 / tp64
                ),
            )
        }
        HybridState::Mamba2 {
            num_heads,
            head_dim,
            n_groups,
            state_size,
            conv_kernel,
            ..
        } => {
            if num_heads as u64 % tp64 != 0 {
                return Err(format!(
                    "mamba_num_heads {num_heads} does not divide by tensor parallel size {tp} (MambaMixer2's assert; \
                     not restated)"
                ));
            }
            // MambaMixer2 asserts that the TP size divides n_groups or n_groups is 1 (`MAMBA2_MIXER_GROUPS_ASSERT`);
            // a single group is replicated to one per rank (`extra_groups_for_head_shards`, `MAMBA2_GROUP_EXTENSION`).
            if n_groups as u64 % tp64 != 0 && n_groups != 1 {
                return Err(format!(
                    "n_groups {n_groups} does not divide by tensor parallel size {tp} and is not 1 (MambaMixer2's \
                     assert; not restated)"
                ));
            }
            let groups = if n_groups as u64 % tp64 != 0 { tp64 } else { n_groups as u64 };
            let inter = num_heads as u64 * head_dim as u64;
            let conv_dim = inter + 2 * groups * state_size as u64;
            let rows = (conv_kernel - 1 + spec_tokens) as u64;
            (
                &source::MAMBA2_STATE_SHAPE,
                rows * conv_dim / tp64,
                num_heads as u64 / tp64 * head_dim as u64 * state_size as u64,
                format!(
                    "mamba2_state_shape: conv ({rows}, {}) with conv_dim = {num_heads}*{head_dim} + 2*{groups}*\
                     {state_size} = {conv_dim}; temporal ({}, {head_dim}, {state_size})",
                    conv_dim / tp64,
                    num_heads as u64 / tp64
                ),
            )
        }
        HybridState::Mamba1 {
            intermediate_size,
            state_size,
            conv_kernel,
        } => {
            let inter = intermediate_size as u64;
            if inter % tp64 != 0 {
                return Err(format!(
                    "the Mamba1 intermediate size {inter} does not divide by tensor parallel size {tp} (vLLM's divide \
                     asserts)"
                ));
            }
            let rows = (conv_kernel - 1) as u64;
            (
                &source::MAMBA1_STATE_SHAPE,
                rows * inter / tp64,
                inter / tp64 * state_size as u64,
                format!(
                    "mamba1_state_shape: conv ({}, {rows}) with intermediate_size {inter}; temporal ({}, {state_size})",
                    inter / tp64,
                    inter / tp64
                ),
            )
        }
    })
}

/// Steps 1-8 for a hybrid model whose first attention group is `a`.
pub fn align(p: &Platform, cmd: &ServeCommand, h: &HybridSpec, a: &AttentionSide) -> Alignment {
    let default_block = cmd.block_size.unwrap_or(16);
    let mut out = Alignment {
        block_size: default_block,
        kernel_block_size: default_block,
        mamba_page_bytes: 0,
        attn_page_bytes_per_token: 0,
        trace: Trace::new(p.release),
        config_logs: Vec::new(),
        unmodelled: None,
    };
    if let Err(why) = align_steps(p, cmd, h, a, &mut out) {
        out.unmodelled = Some(format!("qpath cannot model this: {why}"));
    }
    out
}

/// `_align_hybrid_block_size`, steps 1-8 in vLLM's order, filling `out` as they go; `Err` names what qpath cannot
/// model (`out` then keeps the default block size and the pages found so far).
fn align_steps(p: &Platform, cmd: &ServeCommand, h: &HybridSpec, a: &AttentionSide, out: &mut Alignment) -> Result<(), String> {
    let r = p.release;
    let t = &mut out.trace;
    let f = HybridFlags::read(r, cmd);
    let tp = cmd.tensor_parallel_size.max(1);
    let default_block = cmd.block_size.unwrap_or(16);
    t.step(
        Some(&source::HYB_IS_HYBRID_ALIGN),
        "hybrid block size",
        format!(
            "the model is hybrid: update_block_size_for_backend aligns the block size to the {} state page, with the \
             first attention backend {}",
            h.backend.name(),
            a.backend.name()
        ),
    );
    let mode = cache_mode(r, h, &f, t);
    if !cmd.kv_cache_dtype_skip_layers.is_empty() {
        return Err(
            "--kv-cache-dtype-skip-layers on a hybrid model (the heterogeneous-page alignment that follows is not restated)"
                .into(),
        );
    }
    let spec_tokens = cmd
        .speculative_config
        .as_ref()
        .and_then(|s| s.num_speculative_tokens)
        .unwrap_or(0);
    let mamba = mamba_page(p, h, &f, (tp, spec_tokens), t, &mut out.config_logs)?;
    out.mamba_page_bytes = mamba;
    let attn1 = attn_page_per_token(p, cmd, a, tp, t)?;
    out.attn_page_bytes_per_token = attn1;
    let sizes = kernel_sizes(p, a, tp, t).ok_or_else(|| format!("the kernel block sizes of {}", a.backend.name()))?;
    let align = kernel_alignment(p, (cmd, &f), h, &sizes, &mode, t);
    let block = attention_block(r, &f, h, &sizes, &mode, (mamba, attn1, align), t)?;
    let block_size = raise_block_size(default_block, block, (mamba, attn1), t);
    let block_size =
        u32::try_from(block_size).map_err(|_| format!("a block of {block_size} tokens (beyond the sizes qpath models)"))?;
    let kernel = kernel_block(a, &sizes, block_size, t)?;
    out.block_size = block_size;
    out.kernel_block_size = kernel;
    Ok(())
}

/// Step 4: the attention page of one token (`FullAttentionSpec(block_size=1).page_size_bytes`).
fn attn_page_per_token(p: &Platform, cmd: &ServeCommand, a: &AttentionSide, tp: u32, t: &mut Trace) -> Result<u64, String> {
    let kv = cmd.kv_cache_dtype.as_str();
    let kv_bytes = if kv.starts_with("fp8") {
        Some(1)
    } else {
        dtype_bytes(kv, p.model_dtype)
    }
    .ok_or_else(|| format!("the attention page of --kv-cache-dtype {kv} on a hybrid model"))?;
    let kv_heads = (a.kv_heads / tp).max(1) as u64;
    let attn1 = 2 * kv_heads * a.head_dim as u64 * kv_bytes;
    t.step(
        Some(&source::HYB_ATTN_PAGE_1_TOKEN),
        "attention page per token",
        format!(
            "FullAttentionSpec(block_size=1): 2 x {kv_heads} KV heads x head size {} x {kv_bytes} bytes \
             (kv_cache_dtype {kv}) = {attn1} bytes",
            a.head_dim
        ),
    );
    Ok(attn1)
}

/// Step 5: the kernel alignment (max of the smallest kernel block and the block size; 0.33.0 align mode: lcm with
/// the prefill checkpoint alignment).
fn kernel_alignment(
    p: &Platform,
    (cmd, f): (&ServeCommand, &HybridFlags),
    h: &HybridSpec,
    sizes: &KernelSizes,
    mode: &str,
    t: &mut Trace,
) -> u64 {
    let default_block = cmd.block_size.unwrap_or(16);
    let min = sizes.min() as u64;
    let mut align = min.max(default_block as u64);
    t.step(
        Some(&source::HYB_KERNEL_ALIGNMENT),
        "kernel block alignment",
        format!(
            "max(smallest kernel block {min}, block size {default_block}{}) = {align}",
            if cmd.block_size.is_some() {
                " from --block-size"
            } else {
                " (the default)"
            }
        ),
    );
    if p.release >= Release::V0_33_0 && mode == "align" {
        let ckpt = checkpoint_alignment(p, h, f, t);
        let before = align;
        align = lcm(align, ckpt);
        t.step(
            Some(&source::HYB_CHECKPOINT_ALIGNMENT),
            "prefill checkpoint alignment",
            format!("align mode: lcm({before}, {ckpt}) = {align} (1: the mamba layers declare no checkpoint alignment)"),
        );
    }
    align
}

/// Step 5, 0.33.0 align mode: the recurrent layers' prefill checkpoint alignment: 64 when the GDN layers' *active*
/// prefill kernel is FlashInfer's (`GDN_CHECKPOINT_ALIGNMENT`: `_resolve_gdn_prefill_backend`, which
/// `--gdn-prefill-backend` changes; [`crate::backends::recurrent::gdn_prefill`]), else none.
fn checkpoint_alignment(p: &Platform, h: &HybridSpec, f: &HybridFlags, t: &mut Trace) -> u64 {
    match h.state {
        HybridState::Gdn { head_k_dim, .. } => {
            let d = crate::backends::recurrent::gdn_prefill(p, f.gdn_prefill_backend.as_deref(), head_k_dim);
            let fi = d.raise.is_none() && d.active == crate::backends::recurrent::GdnPrefill::FlashInfer;
            let requested = if d.requested == "auto" {
                "auto".to_string()
            } else {
                format!("--gdn-prefill-backend {}", d.requested)
            };
            t.step(
                Some(&source::GDN_PREFILL_BACKEND),
                "GDN prefill backend",
                if fi {
                    format!(
                        "flashinfer ({requested}; SM90, or SM10x/SM12x with linear_key_head_dim 128 and CUDA >= 13): \
                         its align-mode checkpoints need 64-token alignment"
                    )
                } else if d.supports_flashinfer && d.raise.is_none() {
                    format!(
                        "{} ({requested}, although FlashInfer's GDN prefill is possible here): no checkpoint alignment",
                        if d.active == crate::backends::recurrent::GdnPrefill::CuteDsl {
                            "cutedsl"
                        } else {
                            "triton"
                        }
                    )
                } else if d.raise.is_some() {
                    format!("{requested}: the GDN layers raise at init; no FlashInfer checkpoint alignment")
                } else {
                    format!(
                        "triton ({requested}; FlashInfer's GDN prefill needs SM90, or SM10x/SM12x with \
                         linear_key_head_dim 128 and CUDA >= 13): no checkpoint alignment"
                    )
                },
            );
            if fi {
                t.step(
                    Some(&source::GDN_CHECKPOINT_ALIGNMENT),
                    "GDN checkpoint alignment",
                    "mamba_cache_mode \"align\" and the FlashInfer prefill: FLASHINFER_GDN_CHECKPOINT_ALIGNMENT = 64",
                );
                64
            } else {
                1
            }
        }
        HybridState::Mamba2 { .. } | HybridState::Mamba1 { .. } => 1,
    }
}

/// Step 6: the attention block covering the state page (0.32.0+: rounded up to the smallest kernel block).
fn attention_block(
    r: Release,
    f: &HybridFlags,
    h: &HybridSpec,
    sizes: &KernelSizes,
    mode: &str,
    (mamba, attn1, align): (u64, u64, u64),
    t: &mut Trace,
) -> Result<u64, String> {
    let mut block = if mode == "all" && r < Release::V0_32_0 {
        all_mode_block(f, h, (mamba, attn1, align), t)?
    } else {
        let b = align * cdiv(mamba, align * attn1);
        t.step(
            Some(&source::HYB_NONE_MODE_BLOCK),
            "attention block size",
            format!("{align} x cdiv({mamba}, {align} x {attn1}) = {b} tokens"),
        );
        b
    };
    if r >= Release::V0_32_0 {
        let min = sizes.min() as u64;
        let before = block;
        block = min * cdiv(block, min);
        t.step(
            Some(&source::HYB_BACKEND_ALIGNMENT),
            "every attention backend's smallest kernel block",
            format!("{min} x cdiv({before}, {min}) = {block}"),
        );
    }
    Ok(block)
}

/// Step 6, mamba cache mode "all" (0.24.0-0.31.0): the smallest multiple of lcm(chunk size, alignment) covering the
/// state in tokens.
fn all_mode_block(f: &HybridFlags, h: &HybridSpec, (mamba, attn1, align): (u64, u64, u64), t: &mut Trace) -> Result<u64, String> {
    let chunk = match (f.mamba_block_size, &h.state) {
        (Some(b), _) => b as u64,
        (None, HybridState::Mamba2 { chunk_size: Some(c), .. }) => *c as u64,
        (None, HybridState::Mamba1 { .. }) => {
            t.step(
                Some(&source::MAMBA_CHUNK_SIZE_DEFAULT),
                "mamba chunk size",
                "get_mamba_chunk_size(): the config has no mamba_chunk_size or chunk_size (Mamba1 has no chunk notion): \
                 2048",
            );
            2048
        }
        _ => {
            return Err("mamba cache mode \"all\" needs the model's mamba chunk size, which the config does not give".into());
        }
    };
    let tokens = cdiv(mamba, attn1);
    let chunk_align = lcm(chunk, align);
    let b = chunk_align * cdiv(tokens, chunk_align);
    t.step(
        Some(&source::HYB_ALL_MODE_CHUNK),
        "attention block size (mamba cache mode all)",
        format!(
            "state = cdiv({mamba}, {attn1}) = {tokens} tokens; lcm(chunk size {chunk}, {align}) = {chunk_align}; \
             {chunk_align} x cdiv({tokens}, {chunk_align}) = {b}"
        ),
    );
    Ok(b)
}

/// Step 7: the block size raised (logged) if smaller, the page assertion, and the mamba page padded (logged).
fn raise_block_size(default_block: u32, block: u64, (mamba, attn1): (u64, u64), t: &mut Trace) -> u64 {
    let mut block_size = default_block as u64;
    if block_size < block {
        block_size = block;
        t.step(
            Some(&source::HYB_SET_BLOCK_SIZE_LOG),
            "block size raised",
            format!("block size {default_block} < {block}: cache_config.block_size = {block}"),
        );
        t.info(
            &source::HYB_SET_BLOCK_SIZE_LOG,
            format!("Setting attention block size to {block} tokens to ensure that attention page size is >= mamba page size."),
        );
    } else {
        t.step(
            Some(&source::HYB_SET_BLOCK_SIZE_LOG),
            "block size kept",
            format!("block size {default_block} >= {block}: unchanged"),
        );
    }
    let attn_page = block_size * attn1;
    t.step(
        Some(&source::HYB_PAGE_ASSERT),
        "attention page >= mamba page",
        format!("{block_size} x {attn1} = {attn_page} >= {mamba}: the assertion holds"),
    );
    if attn_page != mamba {
        // vLLM's `%.2f` of the float quotient: correctly rounded from its exact value (crate::float, no core float
        // formatting in the page).
        let pct = crate::float::fixed(100.0 * (attn_page - mamba) as f64 / mamba as f64, 2);
        t.step(
            Some(&source::HYB_PAD_LOG),
            "mamba page padded",
            format!("attention page {block_size} x {attn1} = {attn_page} bytes; the {mamba}-byte state page is padded to it"),
        );
        t.info(
            &source::HYB_PAD_LOG,
            format!(
                "Padding mamba page size by {pct}% to ensure that mamba page size and attention page size are exactly equal."
            ),
        );
    }
    block_size
}

/// Step 8: `select_common_block_size`, the kernel block the manager block splits into (FlashInfer's page size).
fn kernel_block(a: &AttentionSide, sizes: &KernelSizes, block_size: u32, t: &mut Trace) -> Result<u32, String> {
    let kernel = sizes
        .kernel_block(block_size)
        .ok_or_else(|| format!("no kernel block of {} divides {block_size}", sizes.show()))?;
    t.step(
        Some(&source::SELECT_COMMON_BLOCK_SIZE),
        "kernel block size",
        if kernel == block_size {
            format!(
                "{} accepts the manager block {block_size}: the kernel sees pages of {kernel} tokens",
                sizes.show()
            )
        } else {
            format!(
                "{block_size} is not one of {}: the largest that divides it, {kernel}; each manager block is {} kernel \
                 pages of {kernel} tokens",
                sizes.show(),
                block_size / kernel
            )
        },
    );
    if a.backend == Backend::FlashInfer && kernel >= 128 {
        t.step(
            Some(&source::FI_PREFILL_FORCE_LARGE_PAGE),
            "page size >= 128",
            format!(
                "FlashInfer's build() forces trtllm-gen for prefill too (prefill_force_trtllm = True): pages of {kernel} \
                 tokens run on trtllm-gen only"
            ),
        );
    }
    Ok(kernel)
}
