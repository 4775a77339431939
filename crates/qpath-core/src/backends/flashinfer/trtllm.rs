//! `vllm/utils/flashinfer.py`: whether TRTLLM attention (trtllm-gen on SM100, XQA decode on SM90 / SM12x) may and will
//! be used. One procedure per function, with the release switches inline; lines in [`crate::source`].

use crate::dtype::TorchDtype;
use crate::platform::Platform;
use crate::release::Release::*;
use crate::source;
use crate::trace::Trace;

/// Phase names as vLLM's log lines write them.
pub fn phase(is_prefill: bool) -> &'static str {
    if is_prefill {
        "prefill"
    } else {
        "decode"
    }
}

/// `supports_trtllm_attention(is_prefill)` (functools-cached; `UF_SUPPORTS_TRTLLM`).
/// - all releases: False under `VLLM_BATCH_INVARIANT`;
/// - 0.20.0–0.24.0 (no `is_prefill`): SM100 family and the artifactory (cubins);
/// - 0.25.0+: False without cubins; SM90 exact (0.28.0+: or the SM12x family) → decode only; else the SM100 family.
pub fn supports(p: &Platform, is_prefill: bool) -> bool {
    if p.batch_invariant {
        return false;
    }
    if p.release < V0_25_0Prefix {
        return p.is_family(100) && p.cubins;
    }
    if !p.cubins {
        return false;
    }
    if p.is_cc(90) || (p.release >= V0_28_0 && p.is_family(120)) {
        return !is_prefill;
    }
    p.is_family(100)
}

/// The warning `has_nvidia_artifactory()` logs offline without flashinfer-cubin (`logger.warning_once("Failed to connect
/// to NVIDIA artifactory: %s", e)`, [`source::UF_ARTIFACTORY_FAILED`], the same text in every release). The `%s` is the
/// exception `requests.get` raised, whose text qpath cannot model (it names the host and the network error).
pub const ARTIFACTORY_FAILED: &str = "Failed to connect to NVIDIA artifactory: %s";

/// Whether [`supports`] asks `has_nvidia_artifactory()` on this platform: after the batch-invariant check, and in
/// 0.24.0 only on the SM100 family (`is_device_capability_family(100) and has_nvidia_artifactory()` short-circuits).
fn asks_artifactory(p: &Platform) -> bool {
    !p.batch_invariant && (p.release >= V0_25_0Prefix || p.is_family(100))
}

/// Records the artifactory warning the first time a rule asks [`supports`] without cubins (vLLM logs it once).
pub fn artifactory_warning(p: &Platform, t: &mut Trace) {
    if p.cubins || !asks_artifactory(p) || t.warnings.iter().any(|w| w == ARTIFACTORY_FAILED) {
        return;
    }
    t.step(
        Some(&source::UF_ARTIFACTORY_FAILED),
        "has_nvidia_artifactory()",
        "no flashinfer-cubin (VLLM_HAS_FLASHINFER_CUBIN unset) and the artifactory request failed (offline): False, \
         so no TRTLLM; vLLM logs the exception as %s (qpath cannot model this: the text of the exception requests raises)",
    );
    t.warn(&source::UF_ARTIFACTORY_FAILED, ARTIFACTORY_FAILED);
}

/// A sentence saying why [`supports`] answered as it did, for the trace.
pub fn supports_reason(p: &Platform, is_prefill: bool) -> SupportsReason<'_> {
    SupportsReason { p, is_prefill }
}

/// [`supports_reason`]'s text, written where it is formatted (no string of its own).
pub struct SupportsReason<'a> {
    p: &'a Platform,
    is_prefill: bool,
}

impl std::fmt::Display for SupportsReason<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (p, is_prefill) = (self.p, self.is_prefill);
        let ph = phase(is_prefill);
        if p.batch_invariant {
            return write!(f, "no TRTLLM for {ph}: VLLM_BATCH_INVARIANT is set");
        }
        if !p.cubins {
            return write!(
                f,
                "no TRTLLM for {ph}: TRTLLM cubins unavailable (no flashinfer-cubin, VLLM_HAS_FLASHINFER_CUBIN unset, artifactory unreachable)"
            );
        }
        let ok = supports(p, is_prefill);
        let arch = p.arch();
        let verdict = if ok { "supported" } else { "not supported" };
        if p.release < V0_25_0Prefix {
            // 0.20.0 to 0.24.0: the same SM100-family-only rule (vllm/utils/flashinfer.py, unchanged).
            return write!(
                f,
                "{verdict} on {arch} for {ph}: {} supports TRTLLM on the SM100 family only",
                p.release
            );
        }
        let why = if p.is_cc(90) || (p.release >= V0_28_0 && p.is_family(120)) {
            if p.is_cc(90) {
                "SM90 has XQA decode only (no TRTLLM prefill)"
            } else {
                "SM12x has XQA decode only from 0.28.0 (no TRTLLM prefill)"
            }
        } else if p.is_family(100) {
            "the SM100 family has trtllm-gen prefill and decode"
        } else if p.is_family(120) {
            "SM12x gets XQA decode only from vLLM 0.28.0"
        } else {
            "TRTLLM needs SM90 (decode), SM12x (decode, 0.28.0+) or the SM100 family"
        };
        write!(f, "{verdict} on {arch} for {ph}: {why}")
    }
}

/// `can_use_trtllm_attention(num_qo_heads, num_kv_heads, is_prefill)` (`UF_CAN_USE_TRTLLM`): False when
/// `use_trtllm_attention` is forced off; else [`supports`] and heads divisible.
pub fn can_use(p: &Platform, q_heads: u32, kv_heads: u32, is_prefill: bool) -> bool {
    p.force_trtllm != Some(false) && supports(p, is_prefill) && kv_heads > 0 && q_heads % kv_heads == 0
}

/// The arguments of `use_trtllm_attention` (`UF_USE_TRTLLM`).
#[derive(Clone, Debug, PartialEq)]
pub struct UseArgs<'a> {
    pub q_heads: u32,
    pub kv_heads: u32,
    pub num_tokens: u32,
    pub dcp_world_size: u32,
    pub kv_cache_dtype: &'a str,
    pub q_dtype: TorchDtype,
    pub is_prefill: bool,
    pub force: Option<bool>,
    pub has_sinks: bool,
    pub has_spec: bool,
}

/// `use_trtllm_attention(...)`, steps in order, first return wins; logs go to `t` with their exact text and level.
/// The builder asks it only for prefills (every release); the decode branches are restated for completeness and for
/// vLLM's own unit tests (`tests/kernels/attention/test_use_trtllm_attention.py`).
pub fn use_trtllm(p: &Platform, t: &mut Trace, a: &UseArgs) -> bool {
    let rule = if a.is_prefill {
        "use_trtllm_attention(is_prefill=True)"
    } else {
        "use_trtllm_attention(is_prefill=False)"
    };
    if refused(p, t, a, rule) {
        return false;
    }
    if required(t, a, rule) {
        return true;
    }
    if a.force.is_none() {
        return auto_detected(p, t, a, rule);
    }
    t.info(
        &source::UF_USE_TRTLLM_FORCED_ON,
        "Using TRTLLM attention (--attention-config.use_trtllm_attention is set to 1)",
    );
    t.step(
        Some(&source::UF_USE_TRTLLM_FORCED_ON),
        rule,
        "use_trtllm_attention is true: TRTLLM",
    );
    true
}

/// `use_trtllm_attention`'s early `return False`s, in order: forced off ([`source::UF_USE_TRTLLM_FORCED_OFF`]), DCP
/// ([`source::UF_USE_TRTLLM_DCP`]), an unsupported platform ([`source::UF_USE_TRTLLM_PLATFORM`]) and heads that do not
/// divide ([`source::UF_USE_TRTLLM_HEADS`]). True when one of them returns.
fn refused(p: &Platform, t: &mut Trace, a: &UseArgs, rule: &'static str) -> bool {
    let r = p.release;
    let ph = phase(a.is_prefill);
    if a.force == Some(false) {
        t.step(
            Some(&source::UF_USE_TRTLLM_FORCED_OFF),
            rule,
            format!("use_trtllm_attention is false: native {ph}"),
        );
        return true;
    }
    if a.dcp_world_size > 1 {
        t.warn(
            &source::UF_USE_TRTLLM_DCP,
            if r >= V0_26_0 {
                "TRTLLM prefill does not support DCP, reverting to FlashInfer"
            } else {
                "Trtllm does not support returning LSE and as a result does not support DCP, reverting to FlashInfer"
            },
        );
        t.step(
            Some(&source::UF_USE_TRTLLM_DCP),
            rule,
            format!("decode_context_parallel_size {} > 1: native {ph}", a.dcp_world_size),
        );
        return true;
    }
    if !supports(p, a.is_prefill) {
        if a.force == Some(true) {
            t.warn(&source::UF_USE_TRTLLM_PLATFORM_LOG, if r < V0_25_0Prefix {
                "TRTLLM attention is not supported on this platform, but --attention-config.use_trtllm_attention is set to 1".to_string()
            } else {
                format!("TRTLLM attention is not supported on this platform for {ph}, but --attention-config.use_trtllm_attention is set to 1")
            });
        }
        t.step(
            Some(&source::UF_USE_TRTLLM_PLATFORM),
            rule,
            format!("{}: native {ph}", supports_reason(p, a.is_prefill)),
        );
        return true;
    }
    if a.kv_heads == 0 || a.q_heads % a.kv_heads != 0 {
        if a.force == Some(true) {
            t.warn(&source::UF_USE_TRTLLM_HEADS_LOG, "TRTLLM attention is not supported for this combination of query and key heads, but --attention-config.use_trtllm_attention is set to 1");
        }
        t.step(
            Some(&source::UF_USE_TRTLLM_HEADS),
            rule,
            format!(
                "{} query heads are not a multiple of {} KV heads: native {ph}",
                a.q_heads, a.kv_heads
            ),
        );
        return true;
    }
    false
}

/// `use_trtllm_attention`'s `return True`s that hold whatever the config says, in order: speculative decoding on a
/// decode ([`source::UF_USE_TRTLLM_SPEC`]), a quantized query ([`source::UF_USE_TRTLLM_Q_QUANTIZED`]) and attention
/// sinks ([`source::UF_USE_TRTLLM_SINKS`]).
fn required(t: &mut Trace, a: &UseArgs, rule: &'static str) -> bool {
    let ph = phase(a.is_prefill);
    if a.has_spec && !a.is_prefill {
        t.info(
            &source::UF_USE_TRTLLM_SPEC,
            "Using TRTLLM attention (enabled for speculative decoding).",
        );
        t.step(
            Some(&source::UF_USE_TRTLLM_SPEC),
            rule,
            "speculative decoding on a decode: TRTLLM",
        );
        return true;
    }
    if a.q_dtype == TorchDtype::Float8E4m3fn {
        t.info(
            &source::UF_USE_TRTLLM_Q_QUANTIZED,
            "Using TRTLLM attention (query is quantized).",
        );
        t.step(
            Some(&source::UF_USE_TRTLLM_Q_QUANTIZED),
            rule,
            format!("the {ph} query is float8_e4m3fn (current_platform.fp8_dtype()): TRTLLM"),
        );
        return true;
    }
    if a.has_sinks {
        t.info(
            &source::UF_USE_TRTLLM_SINKS,
            "Using TRTLLM attention (required for attention sinks).",
        );
        t.step(
            Some(&source::UF_USE_TRTLLM_SINKS),
            rule,
            "the group has attention sinks: TRTLLM",
        );
        return true;
    }
    false
}

/// `if force_use_trtllm is None:` the auto-detection ([`source::UF_USE_TRTLLM_AUTO`]): a prefill over an unquantized
/// cache; from 0.25.0 a decode over an FP8 cache on XQA's architectures; else a decode of at most 256 tokens over an
/// unquantized cache.
fn auto_detected(p: &Platform, t: &mut Trace, a: &UseArgs, rule: &'static str) -> bool {
    let r = p.release;
    let ph = phase(a.is_prefill);
    let xqa_arch = p.is_cc(90) || (r >= V0_28_0 && p.is_family(120));
    let (value, why) = if a.is_prefill {
        (
            a.kv_cache_dtype == "auto",
            format!(
                "auto: prefill uses TRTLLM only over an unquantized cache (this group: {:?})",
                a.kv_cache_dtype
            ),
        )
    } else if r >= V0_25_0Prefix && xqa_arch && a.kv_cache_dtype.starts_with("fp8") {
        (true, format!("auto: {} decode over an FP8 cache uses XQA", p.arch()))
    } else {
        (
            a.num_tokens <= 256 && a.kv_cache_dtype == "auto",
            format!(
                "auto: decode uses TRTLLM for at most 256 tokens over an unquantized cache ({} tokens, cache {:?})",
                a.num_tokens, a.kv_cache_dtype
            ),
        )
    };
    if value {
        // 0.24.0 prints fixed strings, 0.25.0+ formats `Using TRTLLM %s attention (auto-detected).`: the same text.
        let call = if a.is_prefill {
            &source::UF_USE_TRTLLM_AUTO
        } else {
            &source::UF_USE_TRTLLM_AUTO_DECODE_LOG
        };
        t.warn(call, format!("Using TRTLLM {ph} attention (auto-detected)."));
    }
    t.step(
        Some(&source::UF_USE_TRTLLM_AUTO),
        rule,
        format!("{why}: {}", if value { "TRTLLM" } else { "native" }),
    );
    value
}

/// `FlashInferBackend.supports_sink()` (`FI_SUPPORTS_SINK`): never when TRTLLM is forced off;
/// 0.24.0 TRTLLM supported; 0.25.0+ the SM100 family with TRTLLM for both phases; 0.28.0+ also the SM12x family with
/// TRTLLM decode; 0.30.0+ also SM90 with TRTLLM decode.
pub fn supports_sink(p: &Platform) -> bool {
    if p.force_trtllm == Some(false) {
        return false;
    }
    let r = p.release;
    if r < V0_25_0Prefix {
        return supports(p, false);
    }
    (p.is_family(100) && supports(p, true) && supports(p, false))
        || (r >= V0_28_0 && p.is_family(120) && supports(p, false))
        || (r >= V0_30_0 && p.is_cc(90) && supports(p, false))
}

/// vLLM's own unit tests of these functions (`tests/kernels/attention/test_use_trtllm_attention.py`, 0.25.0 and 0.33.0),
/// restated: each test's mocks become a [`Platform`]. The default call is Llama-3-70B's heads 64/8,
/// 128 tokens, DCP 1, kv "auto", a bf16 query, decode, force None, no sinks, no speculative decoding.
#[cfg(test)]
mod vllm_unit_tests {
    use super::*;

    use crate::release::Release;

    fn platform(release: Release, cc: (u8, u8), cubins: bool) -> Platform {
        Platform {
            cubins,
            ..Platform::for_tests(release, cc)
        }
    }

    fn default_args() -> UseArgs<'static> {
        UseArgs {
            q_heads: 64,
            kv_heads: 8,
            num_tokens: 128,
            dcp_world_size: 1,
            kv_cache_dtype: "auto",
            q_dtype: TorchDtype::BFloat16,
            is_prefill: false,
            force: None,
            has_sinks: false,
            has_spec: false,
        }
    }

    /// "supports True": an SM100 GPU with cubins (the tests patch `supports_trtllm_attention` to return True).
    fn supported() -> Platform {
        platform(V0_33_0, (10, 0), true)
    }

    fn use_(p: &Platform, a: UseArgs) -> bool {
        use_trtllm(p, &mut Trace::new(p.release), &a)
    }

    #[test]
    fn supports_cases() {
        for r in [V0_25_0, V0_33_0] {
            let mut bi = platform(r, (10, 0), true);
            bi.batch_invariant = true;
            assert!(!supports(&bi, false), "test_supports_batch_invariant_disables");
            assert!(
                supports(&platform(r, (10, 0), true), false),
                "test_supports_sm100_with_artifactory"
            );
            assert!(
                !supports(&platform(r, (8, 9), true), false),
                "test_supports_unsupported_platform"
            );
            let sm90 = platform(r, (9, 0), true);
            assert!(
                supports(&sm90, false) && !supports(&sm90, true),
                "test_supports_sm90_decode_only"
            );
            assert!(
                !supports(&platform(r, (10, 0), false), false),
                "test_supports_sm100_without_artifactory"
            );
        }
        let sm120 = platform(V0_33_0, (12, 0), true);
        assert!(
            supports(&sm120, false) && !supports(&sm120, true),
            "test_supports_sm12x_decode_only (0.33)"
        );
    }

    #[test]
    fn can_use_cases() {
        let mut off = supported();
        off.force_trtllm = Some(false);
        assert!(!can_use(&off, 64, 8, false), "test_can_use_force_disabled");
        assert!(can_use(&supported(), 64, 8, false), "test_can_use_compatible_heads");
        assert!(!can_use(&supported(), 40, 6, false), "test_can_use_incompatible_heads");
        let unsupported = platform(V0_33_0, (8, 9), true);
        for (q, kv) in [(64, 8), (32, 8), (14, 2), (32, 8), (8, 4), (128, 8)] {
            assert!(
                !can_use(&unsupported, q, kv, false),
                "test_can_use_platform_unsupported {q}/{kv}"
            );
        }
    }

    #[test]
    fn use_cases_forced_off_and_dcp() {
        let s = supported();
        let d = default_args;
        assert!(
            !use_(
                &s,
                UseArgs {
                    force: Some(false),
                    ..d()
                }
            ),
            "test_use_force_off"
        );
        assert!(
            !use_(
                &s,
                UseArgs {
                    dcp_world_size: 2,
                    ..d()
                }
            ),
            "test_use_dcp_fallback"
        );
        assert!(
            !use_(
                &s,
                UseArgs {
                    dcp_world_size: 2,
                    is_prefill: true,
                    ..d()
                }
            ),
            "test_use_dcp_fallback_prefill"
        );
        assert!(
            !use_(
                &s,
                UseArgs {
                    dcp_world_size: 2,
                    is_prefill: true,
                    force: Some(true),
                    ..d()
                }
            ),
            "..._force_on_still_false"
        );
    }

    #[test]
    fn use_cases_platform_and_heads() {
        let s = supported();
        let un = platform(V0_33_0, (8, 9), true);
        let d = default_args;
        assert!(!use_(&un, d()), "test_use_platform_unsupported");
        assert!(
            !use_(
                &un,
                UseArgs {
                    force: Some(true),
                    ..d()
                }
            ),
            "test_use_platform_unsupported_force_on_still_false"
        );
        assert!(
            !use_(
                &s,
                UseArgs {
                    q_heads: 40,
                    kv_heads: 6,
                    ..d()
                }
            ),
            "test_use_incompatible_heads"
        );
        assert!(
            !use_(
                &s,
                UseArgs {
                    q_heads: 40,
                    kv_heads: 6,
                    force: Some(true),
                    ..d()
                }
            ),
            "..._force_on_still_false"
        );
    }

    #[test]
    fn use_cases_trtllm_or_auto() {
        let s = supported();
        let d = default_args;
        assert!(use_(&s, UseArgs { has_spec: true, ..d() }), "test_use_spec_decode_enables");
        assert!(
            use_(
                &s,
                UseArgs {
                    q_dtype: TorchDtype::Float8E4m3fn,
                    ..d()
                }
            ),
            "test_use_fp8_query_forces_trtllm"
        );
        assert!(use_(&s, UseArgs { has_sinks: true, ..d() }), "test_use_sinks_force_trtllm");
        assert!(use_(&s, UseArgs { is_prefill: true, ..d() }), "test_use_auto_prefill_kv_auto");
        assert!(
            !use_(
                &s,
                UseArgs {
                    is_prefill: true,
                    kv_cache_dtype: "fp8",
                    ..d()
                }
            ),
            "test_use_auto_prefill_kv_fp8"
        );
        assert!(use_(&s, d()), "test_use_auto_decode_small_batch");
        assert!(
            !use_(&s, UseArgs { num_tokens: 512, ..d() }),
            "test_use_auto_decode_large_batch"
        );
        assert!(
            use_(
                &s,
                UseArgs {
                    force: Some(true),
                    ..d()
                }
            ),
            "test_use_force_on"
        );
    }

    #[test]
    fn log_texts() {
        let s = supported();
        let mut t = Trace::new(V0_33_0);
        use_trtllm(
            &s,
            &mut t,
            &UseArgs {
                dcp_world_size: 2,
                ..default_args()
            },
        );
        assert_eq!(t.warnings, ["TRTLLM prefill does not support DCP, reverting to FlashInfer"]);
        let mut t = Trace::new(V0_33_0);
        use_trtllm(
            &platform(V0_33_0, (8, 9), true),
            &mut t,
            &UseArgs {
                force: Some(true),
                is_prefill: true,
                ..default_args()
            },
        );
        assert_eq!(t.warnings, ["TRTLLM attention is not supported on this platform for prefill, but --attention-config.use_trtllm_attention is set to 1"]);
        let mut t = Trace::new(V0_33_0);
        use_trtllm(
            &s,
            &mut t,
            &UseArgs {
                is_prefill: true,
                ..default_args()
            },
        );
        assert_eq!(t.warnings, ["Using TRTLLM prefill attention (auto-detected)."]);
    }
}
