//! FLASH_ATTN (`vllm/v1/attention/backends/flash_attn.py`, `fa_utils.py`, `vllm/vllm_flash_attn/flash_attn_interface.py`):
//! which FlashAttention version a layer runs (`get_flash_attn_version`, per layer and, for the class-level questions,
//! without arguments), selection (`validate_configuration`: head sizes, cache dtypes per release, FA4's fixed pages,
//! multimodal prefix layers, sinks, per-head scales, `supports_combination`), `FlashAttentionImpl.__init__` (its
//! version log line, the cache-dtype raise, whether the query arrives quantized), the kernel (`flash_attn_varlen_func`
//! once per mixed batch: no prefill/decode split), the first forward's version assert, and CUDA-graph support.
//! `docs/source-notes/flash-attn.md` restates every statement with its lines per release.

use super::query;
use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery, BLOCK_SIZE_REASON, SINK_REASON};
use crate::attention::{CgSupport, GroupErrorKind, Kernel, Phases, Stage, QPATH_LIMIT};
use crate::capability::ComputeCapability;
use crate::platform::Platform;
use crate::release::Release::*;
use crate::report::{GroupError, GroupReport, KernelChoice};
use crate::source::{self, Cite};
use crate::trace::Trace;

/// FLASH_ATTN's rules.
pub struct FlashAttn;

/// What a caller of `get_flash_attn_version` passes (`requires_alibi`, `requires_local_attention` (0.27.0) and
/// `requires_softcap` (0.29.0+) are always false: no model qpath reads has ALiBi, chunked local attention or logit
/// soft-capping).
#[derive(Clone, Copy, Debug, Default)]
struct Ask {
    head_size: Option<u32>,
    head_size_v: Option<u32>,
    has_sinks: bool,
    /// `kv_cache_block_size` (0.29.0+).
    block_size: Option<u32>,
    /// `supports_fa4_hd256=True` (0.29.0+).
    hd256: bool,
    /// `model_config.is_mm_prefix_lm` (an FA4 head-256 fallback reason, 0.29.0+).
    mm_prefix: bool,
}

/// `is_fa_version_supported(v)` (`flash_attn_interface.py`, every release; the CUDA wheel ships the FA2 and FA3
/// extensions and FA4's CuTe interface): FA2 on compute capability ≥ 8.0, FA3 on 9.x, FA4 on 9.x / 10.x / 11.x.
fn supported(p: &Platform, v: u8) -> bool {
    match v {
        2 => p.cc >= ComputeCapability::new(8, 0),
        3 => p.is_family(90),
        4 => matches!(p.major(), 9..=11),
        _ => false,
    }
}

/// `fa_version_unsupported_reason(v)`.
fn unsupported_reason(v: u8) -> &'static str {
    match v {
        2 => "FA2 is only supported on devices with compute capability >= 8",
        3 => "FA3 is only supported on devices with compute capability 9.x",
        _ => "FA4 is only supported on devices with compute capability 9.x, 10.x, or 11.x",
    }
}

/// `uses_fa4_hd256_kernel` (0.29.0+): head size 256 (and a value head size of 256 or none) on compute capability 10.x
/// or 11.x.
fn uses_hd256_kernel(p: &Platform, a: &Ask) -> bool {
    a.head_size == Some(256) && a.head_size_v.is_none_or(|v| v == 256) && matches!(p.major(), 10 | 11)
}

/// `_fa4_hd256_fallback_reason` (0.29.0+), first match: sinks, (soft-capping: no qpath model), a quantized global
/// cache dtype, a KV block size that is not a multiple of 128, a multimodal prefix model, (R-SWA: no qpath model),
/// decode context parallelism.
fn hd256_fallback_reason(p: &Platform, a: &Ask) -> Option<String> {
    if a.has_sinks {
        return Some("attention sinks".into());
    }
    if super::is_quantized_kv_cache(p.release, &p.global_kv) {
        return Some(format!("quantized KV cache dtype {}", p.global_kv));
    }
    if let Some(b) = a.block_size.filter(|b| b % 128 != 0) {
        return Some(format!("a KV cache block size of {b}"));
    }
    if a.mm_prefix {
        return Some("mm_prefix bidirectional attention".into());
    }
    (p.dcp > 1).then(|| "decode context parallelism".into())
}

/// Whether the FA4 TMEM rule leaves head size `h` on FA4 (the exempt sizes per release).
fn tmem_exempt(p: &Platform, h: u32, hv: Option<u32>) -> bool {
    let r = p.release;
    let v = hv.unwrap_or(h);
    if r < V0_27_0 {
        h == 192
    } else if r < V0_28_0 {
        h == 256 || (h == 192 && v == 128)
    } else if r < V0_29_0 {
        h == 192 && v == 128
    } else {
        (h == 256 && hv.is_none_or(|x| x == 256)) || (h == 192 && v == 128)
    }
}

/// `get_flash_attn_version(...)` as the release decides it for `a`, logging its warnings into `t` when given
/// (`warning_once` / `info_once` calls, and the `logger.error` of an unsupported version, with its steps). `None`: the
/// version the code settles on is not supported on this GPU (vLLM then returns None).
fn version(p: &Platform, a: &Ask, mut t: Option<&mut Trace>) -> Option<u8> {
    let r = p.release;
    // A step's text is built only when there is a trace to take it (the checks ask without one).
    fn step(t: &mut Option<&mut Trace>, cite: &Cite, rule: &'static str, outcome: impl FnOnce() -> String) {
        if let Some(t) = t.as_deref_mut() {
            t.step(Some(cite), rule, outcome());
        }
    }
    let mut v = if p.major() == 9 && supported(p, 3) {
        3
    } else if p.major() == 10 && supported(p, 4) {
        4
    } else {
        2
    };
    let default_cite = match v {
        3 => &source::FA_VERSION_DEFAULT_FA3,
        4 => &source::FA_VERSION_DEFAULT_FA4,
        _ => &source::FA_VERSION_FN,
    };
    step(&mut t, default_cite, "FlashAttention version", || {
        format!("{}: default FA{v} (FA3 on 9.x, FA4 on 10.x, FA2 elsewhere)", p.arch())
    });
    if let Some(o) = p.flash_attn_version {
        v = o;
        step(
            &mut t,
            &source::FA_VERSION_OVERRIDE,
            "--attention-config.flash_attn_version",
            || format!("{o}: replaces the default"),
        );
    }
    if v == 3 && p.major() >= 10 {
        v = if supported(p, 4) { 4 } else { 2 };
        if let Some(t) = t.as_deref_mut() {
            t.warn(
                &source::FA_WARN_FA3_ON_BLACKWELL,
                "Cannot use FA version 3 on Blackwell platform, defaulting to FA version 4 if supported, otherwise FA2.",
            );
            t.step(
                Some(&source::FA_WARN_FA3_ON_BLACKWELL),
                "FA3 on compute capability 10+",
                format!("FA3 cannot run on {}: FA{v}", p.arch()),
            );
        }
    }
    // 0.21.0+ (fa_utils.py): FA3 -> FA4 on SM90 above head size 256 with its info line; 0.20.x upgrades in
    // FlashAttentionImpl.__init__ instead, silently ([`impl_head_upgrade`]).
    if r >= V0_21_0 && v == 3 && p.major() == 9 && supported(p, 4) {
        if let Some(h) = a.head_size.filter(|h| *h > 256) {
            v = 4;
            if let Some(t) = t.as_deref_mut() {
                let reason = format!("FA3 does not support head_size={h} on SM90");
                t.info(
                    &source::FA_INFO_UPGRADE_FA4,
                    format!("{reason}: upgrading FlashAttention 3 -> 4"),
                );
                t.step(
                    Some(&source::FA_UPGRADE_HEAD_REASON),
                    "FA3 → FA4 on SM90",
                    format!("{reason}: FA4"),
                );
            }
        }
    }
    if p.batch_invariant && v == 4 {
        v = 2;
        if let Some(t) = t.as_deref_mut() {
            t.warn(
                &source::FA_WARN_BATCH_INVARIANT,
                "Cannot use FA version 4 with batch invariance, defaulting to FA version 2.",
            );
            t.step(
                Some(&source::FA_WARN_BATCH_INVARIANT),
                "VLLM_BATCH_INVARIANT",
                "FA4 → FA2".to_string(),
            );
        }
    }
    if v == 4 && p.major() >= 10 && a.head_size == Some(256) && r >= V0_28_0 && r < V0_29_0 {
        v = 2;
        if let Some(t) = t.as_deref_mut() {
            t.warn(
                &source::FA_WARN_HD256_DISABLED,
                "FA4 on Blackwell is temporarily disabled for head_size=256, defaulting to FA version 2.",
            );
            t.step(
                Some(&source::FA_WARN_HD256_DISABLED),
                "FA4 at head size 256",
                "disabled in 0.28.0: FA2".to_string(),
            );
        }
    }
    if v == 4 && r >= V0_29_0 && uses_hd256_kernel(p, a) {
        if !a.hd256 {
            v = 2;
            step(&mut t, &source::FA_HD256_NOT_SUPPORTED_SILENT, "FA4 head-256 kernel", || {
                "the caller does not take FA4's head-256 kernel: FA2, silently".to_string()
            });
        } else if let Some(why) = hd256_fallback_reason(p, a) {
            v = 2;
            if let Some(t) = t.as_deref_mut() {
                t.warn(
                    &source::FA_WARN_HD256_FALLBACK,
                    format!("FA4's Blackwell head_size=256 kernel does not support {why}, defaulting to FA version 2."),
                );
                t.step(
                    Some(&source::FA_HD256_FALLBACK_REASON_FN),
                    "FA4 head-256 kernel",
                    format!("{why}: FA2"),
                );
            }
        } else {
            step(&mut t, &source::FA_USES_HD256_KERNEL_FN, "FA4 head-256 kernel", || {
                "head size 256 on FA4: its dedicated kernel (128-token pages)".to_string()
            });
        }
    }
    if let Some(h) = a.head_size.filter(|h| v == 4 && p.major() >= 10 && *h > 128) {
        if !tmem_exempt(p, h, a.head_size_v) {
            v = 2;
            if let Some(t) = t.as_deref_mut() {
                t.warn(
                    &source::FA_WARN_TMEM,
                    format!(
                        "FA4 on Blackwell does not support head_size={h} due to TMEM capacity limits, defaulting to \
                         FA version 2."
                    ),
                );
                t.step(
                    Some(&source::FA_WARN_TMEM),
                    "FA4 TMEM capacity",
                    format!("head size {h}: FA2"),
                );
            }
        }
    }
    if supported(p, v) {
        return Some(v);
    }
    if let Some(t) = t {
        t.error(
            &source::FA_ERROR_UNSUPPORTED,
            format!("Cannot use FA version {v} is not supported due to {}", unsupported_reason(v)),
        );
        t.step(
            Some(&source::FA_RETURN_NONE),
            "FlashAttention version",
            format!("FA{v} is not supported on {}: get_flash_attn_version returns None", p.arch()),
        );
    }
    None
}

/// The version the class-level questions get (`get_flash_attn_version()` without arguments: the default, the
/// override, FA3 on Blackwell, batch invariance): `_cudagraph_support`, `aot_schedule`, `supports_sink`,
/// `supports_per_head_quant_scales`, 0.24.0–0.26.0's `supports_kv_cache_dtype`.
fn class_version(p: &Platform) -> Option<u8> {
    version(p, &Ask::default(), None)
}

/// `flash_attn_supports_kv_cache_dtype` (0.27.0+): never `fp8_e5m2`; else FA3 on 9.x or FA4 on 10.x (0.31.0+: or FA4
/// on 9.x at head size 512 or without a head size).
fn supports_kv(p: &Platform, kv: &str, a: &Ask) -> bool {
    if kv == "fp8_e5m2" {
        return false;
    }
    let v = version(p, a, None);
    let fa4_sm90 = p.release >= V0_31_0 && v == Some(4) && a.head_size.is_none_or(|h| h == 512);
    ((v == Some(3) || fa4_sm90) && p.is_family(90)) || (v == Some(4) && p.is_family(100))
}

/// `FlashAttentionBackend.supports_kv_cache_dtype(kv)`: 0.20.0–0.21.0 any quantized dtype (`is_quantized_kv_cache`)
/// through [`flash_attn_supports_fp8`], else the class list (auto, float16, bfloat16); 0.22.0–0.26.0 the class list
/// or fp8 / fp8_e4m3 with FA3 on 9.x; 0.27.0+ the list (plus fp8, fp8_e4m3), a quantized one through [`supports_kv`]
/// without a head size.
fn accepts_kv(p: &Platform, kv: &str) -> bool {
    let plain = matches!(kv, "auto" | "float16" | "bfloat16");
    if p.release < V0_22_0 {
        return plain || (super::is_quantized_kv_cache(p.release, kv) && flash_attn_supports_fp8(p));
    }
    if p.release < V0_27_0 {
        return plain || (matches!(kv, "fp8" | "fp8_e4m3") && class_version(p) == Some(3) && p.is_family(90));
    }
    if !(plain || matches!(kv, "fp8" | "fp8_e4m3")) {
        return false;
    }
    !super::is_quantized_kv_cache(p.release, kv) || supports_kv(p, kv, &Ask::default())
}

/// 0.20.0–0.21.0 `flash_attn_supports_fp8()` (`fa_utils.py`, gone in 0.22.0): the version without arguments is FA3
/// and the GPU is in the 9.x family.
fn flash_attn_supports_fp8(p: &Platform) -> bool {
    class_version(p) == Some(3) && p.is_family(90)
}

/// FLASH_ATTN's `get_supported_kernel_block_sizes()` as `supports_block_size` calls it at selection (the model's head
/// size, the global cache dtype): 0.31.0+ SM90 FA4 at head size 512 with an fp8 cache takes 64-token pages; 0.29.0+
/// FA4's head-256 kernel takes 128-token pages; else `[MultipleOf(16)]` (`None`).
fn fixed_block(p: &Platform, l: &LayerQuery) -> Option<(u32, &'static Cite)> {
    let r = p.release;
    let fp8 = matches!(p.global_kv.as_str(), "fp8" | "fp8_e4m3");
    if r >= V0_31_0 && p.is_family(90) && fp8 {
        let a = Ask {
            head_size: Some(512),
            ..Ask::default()
        };
        if l.head_size == 512 && version(p, &a, None) == Some(4) {
            return Some((64, &source::FA_SM90_FP8_KV_BLOCK_SIZE));
        }
    }
    if r >= V0_29_0 && l.head_size == 256 {
        let a = Ask {
            head_size: Some(256),
            hd256: true,
            mm_prefix: l.use_mm_prefix,
            ..Ask::default()
        };
        if uses_hd256_kernel(p, &a) && version(p, &a, None) == Some(4) {
            return Some((128, &source::FA_FA4_HD256_BLOCK_SIZE));
        }
    }
    None
}

/// What the layer asks `get_flash_attn_version` in `FlashAttentionImpl.__init__`: its head size, its sinks (0.27.0+),
/// FA4's head-256 kernel (0.29.0+).
fn layer_ask(p: &Platform, l: &LayerQuery) -> Ask {
    let r = p.release;
    Ask {
        head_size: Some(l.head_size),
        head_size_v: None,
        has_sinks: r >= V0_27_0 && l.has_sinks,
        block_size: None,
        hd256: r >= V0_29_0,
        mm_prefix: l.use_mm_prefix,
    }
}

/// `supports_combination`'s reason (the first that applies, appended after every other reason): sinks below 9.0, an
/// fp8 cache with a multimodal prefix on 9.0 (0.31.0+), a quantized cache FA cannot read at this head size (0.27.0+),
/// a multimodal prefix layer FA4 does not run.
fn combination_reason(p: &Platform, l: &LayerQuery) -> Option<String> {
    let r = p.release;
    if l.has_sinks && p.cc < ComputeCapability::new(9, 0) {
        return Some("sink not supported on compute capability < 9.0".into());
    }
    let quantized = super::is_quantized_kv_cache(r, &l.kv_cache_dtype);
    if r >= V0_31_0 && l.use_mm_prefix && quantized && p.is_cc(90) {
        return Some("SM90 FP8 KV with mm_prefix requires Triton".into());
    }
    let a = Ask {
        head_size: Some(l.head_size),
        head_size_v: Some(l.head_size),
        has_sinks: l.has_sinks,
        block_size: if r >= V0_29_0 { l.block_size } else { None },
        hd256: r >= V0_29_0,
        mm_prefix: l.use_mm_prefix,
    };
    if r >= V0_27_0 && quantized && !supports_kv(p, &l.kv_cache_dtype, &a) {
        return Some(if r < V0_31_0 {
            "FP8 KV cache requires FA3 on SM90 or FA4 on SM100".into()
        } else {
            "FP8 KV cache requires FA3 on SM90, FA4 with head_size=512 on SM90, or FA4 on SM100".into()
        });
    }
    let mm = Ask { head_size_v: None, ..a };
    // 0.24.0+: before it FLASH_ATTN has no supports_mm_prefix and validate_configuration refuses mm-prefix layers.
    if r >= V0_24_0 && l.use_mm_prefix && version(p, &mm, None) != Some(4) {
        return Some(
            "mm_prefix (PrefixLM bidirectional attention) requires FlashAttention v4, which does not resolve for this \
             head_size"
                .into(),
        );
    }
    None
}

impl BackendRules for FlashAttn {
    fn class_name(&self) -> &'static str {
        "FlashAttentionBackend"
    }

    /// `validate_configuration` for FLASH_ATTN, in vLLM's order: head size, dtype, cache dtype, block size, multimodal
    /// prefix, sinks, per-head scales, compute capability, then `supports_combination`'s one reason.
    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String> {
        let mut reasons = Vec::new();
        let head_ok = l.head_size % 8 == 0 && (l.head_size <= 256 || (supported(p, 4) && l.head_size <= 512));
        if !head_ok {
            reasons.push("head_size not supported".to_string());
        }
        if !p.model_dtype.is_16bit() {
            reasons.push("dtype not supported".to_string());
        }
        if !accepts_kv(p, &l.kv_cache_dtype) {
            reasons.push("kv_cache_dtype not supported".to_string());
        }
        if let Some(b) = l.block_size {
            let fixed = fixed_block(p, l).is_some_and(|(kernel, _)| b % kernel != 0);
            if b % 16 != 0 || fixed {
                reasons.push(BLOCK_SIZE_REASON.to_string());
            }
        }
        // supports_mm_prefix() = is_fa_version_supported(4) from 0.24.0; before it the base class's False.
        if l.use_mm_prefix && (p.release < V0_24_0 || !supported(p, 4)) {
            reasons.push("partial multimodal token full attention not supported".to_string());
        }
        let class = class_version(p);
        if l.has_sinks && !matches!(class, Some(3 | 4)) {
            reasons.push(SINK_REASON.to_string());
        }
        if l.use_per_head_quant_scales && class.is_none_or(|v| v < 3) {
            reasons.push("per-head quant scales not supported".to_string());
        }
        if p.cc < ComputeCapability::new(8, 0) {
            reasons.push("compute capability not supported".to_string());
        }
        reasons.extend(combination_reason(p, l));
        reasons
    }

    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let Some(l) = cx.query else {
            g.unmodelled = Some(format!("{QPATH_LIMIT}: a FLASH_ATTN group without its layers' query"));
            return;
        };
        let r = p.release;
        let mut t = Trace::new(r);
        block_size_step(p, l, &mut t);
        // FlashAttentionImpl.__init__: the layer's version, its log line, the cache-dtype raise.
        let mut v = version(p, &layer_ask(p, l), Some(&mut t));
        impl_head_upgrade(p, l, &mut v, &mut t);
        t.info(
            &source::FA_IMPL_INFO_VERSION,
            format!(
                "Using FlashAttention version {}",
                v.map_or("None".to_string(), |v| v.to_string())
            ),
        );
        let kv = l.kv_cache_dtype.as_str();
        let quantized = super::is_quantized_kv_cache(r, kv);
        // 0.20.0–0.21.0: a quantized cache raises unless flash_attn_supports_fp8() (0.22.0–0.26.0 raise nothing).
        if r < V0_22_0 && quantized && !flash_attn_supports_fp8(p) {
            let e = init_raise(
                p,
                &mut t,
                GroupErrorKind::NotImplementedError,
                "FlashAttention does not support fp8 kv-cache on this device.".into(),
                &source::FA_IMPL_KV_RAISE,
            );
            finish(g, t, Some(e));
            return;
        }
        if r >= V0_27_0 && quantized {
            let a = Ask {
                head_size_v: Some(l.head_size),
                ..layer_ask(p, l)
            };
            if !supports_kv(p, kv, &a) {
                let e = init_raise(
                    p,
                    &mut t,
                    GroupErrorKind::NotImplementedError,
                    format!("FlashAttention does not support {kv} kv-cache on this device."),
                    &source::FA_IMPL_KV_RAISE,
                );
                finish(g, t, Some(e));
                return;
            }
        }
        // supports_quant_query_input: True on CUDA; 0.31.0+ False for FA4 on 9.x with an fp8 cache (that kernel
        // dequantizes K/V and takes a 16-bit query).
        let sm90_fa4_fp8 = r >= V0_31_0 && v == Some(4) && p.is_family(90) && matches!(kv, "fp8" | "fp8_e4m3");
        let why = if sm90_fa4_fp8 {
            "FlashAttentionImpl.supports_quant_query_input is False for FA4 on SM90 with an fp8 cache"
        } else {
            "FlashAttentionImpl.supports_quant_query_input is True on CUDA"
        };
        let cite = if sm90_fa4_fp8 {
            &source::FA_IMPL_SM90_FP8_DEQUANT
        } else {
            &source::FA_IMPL_QQI
        };
        t.step(Some(cite), "supports_quant_query_input", why);
        let q = query::layer_query(p, cx, kv, (!sm90_fa4_fp8, why), g.num_kv_heads, &mut t);
        g.q_dtype = Phases {
            prefill: Some(q.q_dtype),
            decode: Some(q.q_dtype),
        };
        g.query_quant = q.quant;
        // 0.20.0–0.21.0 view through get_fp8_dtype_for_flashattn, which knows fp8 / fp8_e4m3 only ([`fp8_dtype_error`]).
        if quantized && (r >= V0_22_0 || matches!(kv, "fp8" | "fp8_e4m3")) {
            let q_descale = if g.query_quant.is_some() {
                "q_descale = layer._q_scale"
            } else {
                "q_descale = None (the query stays 16-bit)"
            };
            t.step(
                Some(&source::FA_FWD_FP8_VIEW),
                "FP8 cache in the kernel",
                format!(
                    "forward views the K/V cache as {} and passes {q_descale}, k_descale = layer._k_scale, v_descale = \
                     layer._v_scale (expanded per request and KV head) to the kernel",
                    crate::dtype::TorchDtype::Float8E4m3fn
                ),
            );
        }
        if let Some(e) = q.error {
            finish(g, t, Some(e));
            return;
        }
        // The first forward (the memory profile's) asserts the version was detected.
        let Some(v) = v else {
            let e = GroupError {
                kind: GroupErrorKind::AssertionError,
                message: "FlashAttention version not detected.".into(),
                stage: Stage::ProfileRun,
                source: source::FA_FWD_VERSION_ASSERT.at(r).map(|s| s.short()),
                raised_in: "FlashAttentionImpl.forward (the memory profile's forward pass)".into(),
            };
            t.step(
                Some(&source::FA_FWD_VERSION_ASSERT),
                "raises AssertionError",
                "FlashAttention version not detected.",
            );
            finish(g, t, Some(e));
            return;
        };
        let kernel = kernel(p, cx, v, &mut t);
        g.kernel = Phases {
            prefill: Some(kernel),
            decode: Some(kernel),
        };
        g.kernels = Phases {
            prefill: vec![KernelChoice::always(kernel)],
            decode: vec![KernelChoice::always(kernel)],
        };
        if v == 2 && l.head_size > 256 {
            g.unmodelled = Some(format!(
                "{QPATH_LIMIT}: FA2 runs this head size {} layer (FA4 is not used for it on {}); FA2's kernels are \
                 built for head sizes up to 256, and the error its compiled extension raises at the first forward is \
                 not in vLLM's Python source",
                l.head_size,
                p.arch()
            ));
        }
        let sinks_fa2 = (v == 2 && l.has_sinks)
            .then(|| forward_error(p, &mut t))
            .or_else(|| fp8_dtype_error(p, &mut t));
        finish(g, t, None);
        if let Some(phases) = sinks_fa2 {
            g.phase_errors = phases.clone();
            g.error = first_phase_error(p, &phases);
        }
    }

    /// `FlashAttentionMetadataBuilder._cudagraph_support`, a class attribute evaluated when `flash_attn.py` is imported
    /// (the version without arguments): ALWAYS on FA3 (0.33.0+: FA3 or FA4), else UNIFORM_BATCH.
    fn cudagraph_support(&self, p: &Platform, _g: &GroupReport, _q_heads: u32, _non_causal: bool) -> CgDecision {
        let v = class_version(p);
        let always = v == Some(3) || (p.release >= V0_33_0 && v == Some(4));
        let rule = if p.release >= V0_33_0 { "FA3 or FA4" } else { "FA3" };
        let shown = v.map_or("None".to_string(), |v| v.to_string());
        CgDecision {
            support: if always { CgSupport::Always } else { CgSupport::UniformBatch },
            cite: &source::CG_FA_SUPPORT,
            why: format!("FlashAttention {shown} on {}: ALWAYS only on {rule}", p.arch()),
        }
    }

    fn kernel_block_sizes(&self, _p: &Platform, _q_heads: u32, _kv_heads: u32, t: &mut Trace) -> Option<KernelSizes> {
        t.unverified(
            "FLASH_ATTN's kernel block sizes taken as [MultipleOf(16)] (its general case; qpath does not restate its \
             FA4 / fp8 special cases)",
        );
        Some(KernelSizes::MultipleOf(16))
    }
}

/// With a user's `--block-size`, the fixed FA4 page it was checked against.
fn block_size_step(p: &Platform, l: &LayerQuery, t: &mut Trace) {
    if let (Some(bs), Some((kernel, cite))) = (l.block_size, fixed_block(p, l)) {
        t.step(
            Some(cite),
            "FLASH_ATTN kernel block size",
            format!("--block-size {bs} is a multiple of FA4's {kernel}-token page: accepted"),
        );
    }
}

/// The one kernel call every batch makes (`flash_attn_varlen_func`, no prefill/decode split): FA2, FA3 (with the AOT
/// scheduler metadata when the builder plans it: the class version is 3, no batch invariance, and every FLASH_ATTN
/// layer of the model has the same window), or FA4.
fn kernel(p: &Platform, cx: &GroupContext, v: u8, t: &mut Trace) -> Kernel {
    let r = p.release;
    let call = if r >= V0_30_0 {
        "_FA4_DENSE_ATTENTION_KERNEL(...) → flash_attn_varlen_func"
    } else {
        "flash_attn_varlen_func"
    };
    let kernel = match v {
        2 => Kernel::FaVarlen2,
        4 => Kernel::FaVarlen4,
        _ => {
            let aot_class = class_version(p) == Some(3);
            let windows = cx.engine.fa_window_configs;
            if !aot_class {
                t.step(
                    Some(&source::FA_BUILDER_AOT),
                    "AOT scheduling",
                    "aot_schedule = get_flash_attn_version() == 3 is False: no scheduler metadata",
                );
                Kernel::FaVarlen3
            } else if p.batch_invariant || cx.engine.drafter {
                let why = if cx.engine.drafter {
                    "the drafter's builder builds with fast_build"
                } else {
                    "VLLM_BATCH_INVARIANT"
                };
                t.step(
                    Some(&source::FA_BUILD_AOT),
                    "AOT scheduling",
                    format!("{why}: build() plans no scheduler metadata"),
                );
                Kernel::FaVarlen3
            } else if windows > 1 {
                t.step(
                    Some(&source::FA_BUILD_AOT_OFF_SW),
                    "AOT scheduling",
                    format!(
                        "the model's FLASH_ATTN layers have {windows} sliding-window configs: the first build() turns \
                         aot_schedule off, silently"
                    ),
                );
                Kernel::FaVarlen3
            } else {
                t.step(
                    Some(&source::FA_BUILD_AOT),
                    "AOT scheduling",
                    "FA3 with one window config: each build() plans get_scheduler_metadata(...) for the kernel",
                );
                Kernel::FaVarlen3Aot
            }
        }
    };
    let dcp = if p.dcp > 1 {
        " (decode context parallelism: _forward_with_dcp makes two calls, the context and the new tokens, merged)"
    } else {
        ""
    };
    t.step(
        Some(&source::FA_FWD_KERNEL),
        "FlashAttentionImpl.forward",
        format!(
            "one {call}(fa_version={v}) per batch, prefill and decode tokens together{dcp}: {}",
            kernel.call()
        ),
    );
    if r < V0_32_0 {
        t.step(
            Some(&source::FA_CONFIG_DISABLE_CASCADE),
            "cascade attention",
            "disable_cascade_attn defaults to True: the runner plans no cascade attention",
        );
    }
    kernel
}

/// An init-time raise: its trace step and the group error.
fn init_raise(p: &Platform, t: &mut Trace, kind: GroupErrorKind, message: String, cite: &Cite) -> GroupError {
    t.step(Some(cite), format!("raises {kind}"), message.clone());
    GroupError {
        kind,
        message,
        stage: Stage::Init,
        source: cite.at(p.release).map(|s| s.short()),
        raised_in: "FlashAttentionImpl.__init__".into(),
    }
}

/// A layer with sinks that runs FA2 (the FA4 head-256 fallback for sinks, 0.29.0+): `flash_attn_varlen_func` refuses
/// sinks on FA2 in every batch, both phases.
fn forward_error(p: &Platform, t: &mut Trace) -> Phases<Option<GroupError>> {
    let cite = &source::FA_IFACE_FA2_NO_SAUX;
    t.step(Some(cite), "raises NotImplementedError", "FA2 does not support s_aux");
    let e = |stage| GroupError {
        kind: GroupErrorKind::NotImplementedError,
        message: "FA2 does not support s_aux".into(),
        stage,
        source: cite.at(p.release).map(|s| s.short()),
        raised_in: "FlashAttentionImpl.forward → flash_attn_varlen_func".into(),
    };
    Phases {
        prefill: Some(e(Stage::PrefillForward)),
        decode: Some(e(Stage::DecodeForward)),
    }
}

/// 0.20.x: `FlashAttentionImpl.__init__` forces FA3 to FA4 above head size 256 on the 9.x family (no log line;
/// 0.21.0 moved the upgrade into `get_flash_attn_version`).
fn impl_head_upgrade(p: &Platform, l: &LayerQuery, v: &mut Option<u8>, t: &mut Trace) {
    if p.release < V0_21_0 && l.head_size > 256 && *v == Some(3) && p.is_family(90) {
        *v = Some(4);
        t.step(
            Some(&source::FA_IMPL_HEAD_UPGRADE_FA4),
            "FA3 → FA4 on SM90",
            format!(
                "FlashAttentionImpl.__init__: head_size {} > 256 with FA3 on {}: self.vllm_flash_attn_version = 4, \
                 silently",
                l.head_size,
                p.arch()
            ),
        );
    }
}

/// 0.20.0–0.21.0: a quantized global cache dtype other than fp8 / fp8_e4m3 that selection let through (any quantized
/// dtype passes with FA3 on 9.x): every `build()` asks `get_fp8_dtype_for_flashattn` for the scheduler's dtype, which
/// raises, in both phases.
fn fp8_dtype_error(p: &Platform, t: &mut Trace) -> Option<Phases<Option<GroupError>>> {
    let kv = p.global_kv.as_str();
    if p.release >= V0_22_0 || !super::is_quantized_kv_cache(p.release, kv) || matches!(kv, "fp8" | "fp8_e4m3") {
        return None;
    }
    let message = format!("Unrecognized FP8 dtype: {kv}");
    t.step(
        Some(&source::FA_BUILD_FP8_DTYPE),
        "FlashAttentionMetadataBuilder.build",
        format!("schedule() reads the FP8 dtype of the quantized cache_dtype {kv:?} in every build()"),
    );
    let cite = &source::FA_FP8_DTYPE_RAISE;
    t.step(Some(cite), "raises ValueError", message.clone());
    let e = |stage| GroupError {
        kind: GroupErrorKind::ValueError,
        message: message.clone(),
        stage,
        source: cite.at(p.release).map(|s| s.short()),
        raised_in: "FlashAttentionMetadataBuilder.build → get_fp8_dtype_for_flashattn".into(),
    };
    Some(Phases {
        prefill: Some(e(Stage::PrefillForward)),
        decode: Some(e(Stage::DecodeForward)),
    })
}

/// The phase error the engine meets first: decodes first when CUDA graphs capture them at start-up.
fn first_phase_error(p: &Platform, e: &Phases<Option<GroupError>>) -> Option<GroupError> {
    let graphs = p.resolved_graphs.as_ref().unwrap_or(&p.graphs);
    if graphs.full_decode() {
        e.decode.clone().or_else(|| e.prefill.clone())
    } else {
        e.prefill.clone().or_else(|| e.decode.clone())
    }
}

/// Moves the trace into the group, with the error that stops it.
fn finish(g: &mut GroupReport, t: Trace, error: Option<GroupError>) {
    if error.is_some() {
        g.error = error;
    }
    super::take_trace(g, t);
}

/// `get_flash_attn_version(head_size=…, head_size_v=…)` as another module's vLLM code calls it (the MLA prefill
/// backend's FLASH_ATTN: [`super::mla::prefill`]), with its warnings and steps in `t` when given; both `None` is the
/// call without arguments.
pub(crate) fn version_for(p: &Platform, head_size: Option<u32>, head_size_v: Option<u32>, t: Option<&mut Trace>) -> Option<u8> {
    let a = Ask {
        head_size,
        head_size_v,
        ..Ask::default()
    };
    version(p, &a, t)
}
