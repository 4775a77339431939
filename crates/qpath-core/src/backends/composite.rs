//! The composite backends (0.30.0+): TRITON_FLASH_ATTN and TRITON_FLASHINFER (`vllm/v1/attention/backends/
//! composite.py`, `triton_flash_attn.py`, `triton_flashinfer.py`), which route each batch either to TRITON_ATTN (a
//! query that overlaps an image span needs the multimodal prefix mask: variant 0, the "general" child) or to their
//! causal child (FLASH_ATTN / FLASHINFER: variant 1). `docs/source-notes/triton-attn.md` §8 restates them.
//!
//! - Selection ([`Composite::reasons`]): the composite class's `validate_configuration`: head sizes 256 / 512 that both
//!   children take, each `supports_*` of both children, the base class's refusals (sinks, per-head scales, non-causal,
//!   batch invariance, DCP), the device major (9 / 10), TRITON_FLASHINFER's 64-token kernel block, then each child's
//!   `supports_combination` (the causal child without `use_mm_prefix`) as `"{child}: {reason}"`, and
//!   TRITON_FLASH_ATTN's FlashAttention-version requirement per release.
//! - What runs ([`Composite::resolve_group`]): the causal child as that backend runs alone (its own `resolve_group`
//!   on a copy of the group: Q dtype, kernels, errors), plus the TRITON_ATTN route of image prefills as a kernel
//!   choice with its condition.
//! - CUDA graphs ([`Composite::cudagraph_support`]): the minimum of TRITON_ATTN's ALWAYS, the causal child's and the
//!   routing's (NEVER when some layer of the model has an unclamped sliding window, else UNIFORM_SINGLE_TOKEN_DECODE).

use super::triton_attn::{self, Launch, DCP_REASON, PER_HEAD_SCALES_REASON};
use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery, BLOCK_SIZE_REASON, SINK_REASON};
use crate::attention::{Backend, CgSupport, Phases, QPATH_LIMIT};
use crate::platform::Platform;
use crate::release::Release::*;
use crate::report::{GroupReport, KernelChoice};
use crate::source::{self, Cite};
use crate::trace::Trace;

/// One composite backend's rules.
pub struct Composite {
    backend: Backend,
    class_name: &'static str,
    /// The causal child (variant 1).
    causal: Backend,
    /// `supports_compute_capability`'s device major (TRITON_FLASH_ATTN 0.33.0+: its FA child's override, the same).
    major: u8,
    /// The statement that creates the class.
    definition: &'static Cite,
}

pub const TRITON_FLASH_ATTN: Composite = Composite {
    backend: Backend::TritonFlashAttn,
    class_name: "TritonFlashAttentionBackend",
    causal: Backend::FlashAttn,
    major: 9,
    definition: &source::COMPOSITE_TFA_DEFINITION,
};
pub const TRITON_FLASHINFER: Composite = Composite {
    backend: Backend::TritonFlashInfer,
    class_name: "TritonFlashInferBackend",
    causal: Backend::FlashInfer,
    major: 10,
    definition: &source::COMPOSITE_TFI_DEFINITION,
};

/// TRITON_FLASHINFER's `kernel_block_sizes=(64,)` (both children take 64).
const TFI_KERNEL_BLOCK: u32 = 64;

/// The texts the base `validate_configuration` appends for each `supports_*` check (everything a child's reasons hold
/// that is not its `supports_combination`).
const BASE_REASONS: [&str; 21] = [
    "head_size not supported",
    "dtype not supported",
    "kv_cache_dtype not supported",
    "block_size not supported",
    "partial multimodal token full attention not supported",
    "MLA not supported",
    "non-MLA not supported",
    "attention sinks not supported",
    "sparse not supported",
    "non-sparse not supported",
    "per-head quant scales not supported",
    "compute capability not supported",
    "sliding window not supported",
    "R-SWA not supported",
    "non-causal attention not supported",
    "non-causal MLA attention with DCP not supported",
    "batch invariance not supported",
    "KV connector not supported",
    "PCP not supported",
    "DCP not supported",
    "device-cpu query lens mismatch not supported, this is needed for adaptive verification",
];

fn is_base_reason(s: &str) -> bool {
    BASE_REASONS.contains(&s) || (s.starts_with("attention type ") && s.ends_with(" not supported"))
}

/// The causal child's layer query: `supports_combination` passes `use_mm_prefix` only to the general child
/// (`routing_policy.variant_uses_mm_prefix(variant)`), and the routing never hands the causal child an image batch.
fn causal_query(l: &LayerQuery) -> LayerQuery {
    LayerQuery {
        use_mm_prefix: false,
        ..l.clone()
    }
}

/// `get_flash_attn_version(head_size, has_sinks=…, kv_cache_block_size=block_size, supports_fa4_hd256=True)` as
/// `_FA4Backend` / `_FABackend.supports_combination` asks it ([`source::FA_VERSION_FN`]): FA3 on 9.x, FA4 on 10.x,
/// else FA2; `--attention-config.flash_attn_version` over it; FA3 on 10.x+ becomes FA4; SM90's FA3 becomes FA4 for a
/// head size over 256; batch invariance turns FA4 into FA2; on 10.x / 11.x FA4's head-256 kernel falls back to FA2
/// for sinks, a quantized cache, a block size not a multiple of 128, an mm-prefix model or DCP, and larger heads
/// (other than 256) to FA2 (TMEM). `None` when the version is not installed for the device (FA3: 9.x only; FA4: 9.x –
/// 11.x). Soft-capping (no model qpath reads has it) is left out.
fn causal_fa_version(p: &Platform, l: &LayerQuery) -> Option<u8> {
    let major = p.major();
    let fa4_here = matches!(major, 9..=11);
    let mut v = match major {
        9 => 3,
        10 => 4,
        _ => 2,
    };
    if let Some(o) = p.flash_attn_version {
        v = o;
    }
    if major >= 10 && v == 3 {
        v = if fa4_here { 4 } else { 2 };
    }
    if v == 3 && major == 9 && l.head_size > 256 {
        v = 4;
    }
    if p.batch_invariant && v == 4 {
        v = 2;
    }
    if v == 4 && l.head_size == 256 && matches!(major, 10 | 11) {
        let quantized = super::is_quantized_kv_cache(p.release, &p.global_kv);
        let block = l.block_size.is_some_and(|b| b % 128 != 0);
        if l.has_sinks || quantized || block || l.use_mm_prefix || p.dcp > 1 {
            v = 2;
        }
    }
    if v == 4 && major >= 10 && l.head_size > 128 && l.head_size != 256 {
        v = 2;
    }
    let installed = match v {
        2 => major >= 8,
        3 => major == 9,
        4 => fa4_here,
        _ => false,
    };
    installed.then_some(v)
}

impl Composite {
    /// `_FA4Backend` (0.30.0) / `_FABackend` (0.31.0+) `supports_combination`'s last check.
    fn fa_version_reason(&self, p: &Platform, l: &LayerQuery) -> Option<&'static str> {
        if self.causal != Backend::FlashAttn {
            return None;
        }
        let v = causal_fa_version(p, l);
        if p.release < V0_31_0 {
            (v != Some(4)).then_some("causal route requires FlashAttention v4")
        } else {
            (!matches!(v, Some(3 | 4))).then_some("causal route requires FlashAttention v3 or v4")
        }
    }

    /// The kernel block size the causal child's pages take: TRITON_FLASHINFER's 64, else the platform's.
    fn child_platform(&self, p: &Platform) -> Option<Platform> {
        (self.backend == Backend::TritonFlashInfer && p.page_size != TFI_KERNEL_BLOCK).then(|| {
            let mut pc = p.clone();
            pc.page_size = TFI_KERNEL_BLOCK;
            pc
        })
    }
}

impl BackendRules for Composite {
    fn class_name(&self) -> &'static str {
        self.class_name
    }

    /// The composite class's `validate_configuration`, in the base class's order (head size, dtype, cache dtype, block
    /// size, mm prefix, sinks, per-head scales, compute capability, sliding window, non-causal, batch invariance, DCP,
    /// then `supports_combination`), each `supports_*` asked of both children (TRITON_ATTN and the causal child).
    fn reasons(&self, p: &Platform, l: &LayerQuery) -> Vec<String> {
        if p.release < V0_30_0 {
            return vec![format!(
                "{QPATH_LIMIT}: {} is not a backend of vLLM {}",
                self.backend, p.release
            )];
        }
        let general = triton_attn::TritonAttn.reasons(p, l);
        let lc = causal_query(l);
        let causal = super::rules(self.causal).reasons(p, &lc);
        let either = |s: &str| general.iter().chain(&causal).any(|x| x == s);
        let mut reasons = Vec::new();
        if !matches!(l.head_size, 256 | 512) || either("head_size not supported") {
            reasons.push("head_size not supported".to_string());
        }
        for r in ["dtype not supported", "kv_cache_dtype not supported"] {
            if either(r) {
                reasons.push(r.to_string());
            }
        }
        let block = if self.backend == Backend::TritonFlashInfer {
            l.block_size.is_some_and(|b| b % TFI_KERNEL_BLOCK != 0)
        } else {
            either(BLOCK_SIZE_REASON)
        };
        if block {
            reasons.push(BLOCK_SIZE_REASON.to_string());
        }
        if l.has_sinks {
            reasons.push(SINK_REASON.to_string());
        }
        if l.use_per_head_quant_scales {
            reasons.push(PER_HEAD_SCALES_REASON.to_string());
        }
        if p.major() != self.major || either("compute capability not supported") {
            reasons.push("compute capability not supported".to_string());
        }
        if l.sliding_window && either("sliding window not supported") {
            reasons.push("sliding window not supported".to_string());
        }
        if l.use_non_causal {
            reasons.push("non-causal attention not supported".to_string());
        }
        if p.batch_invariant {
            reasons.push("batch invariance not supported".to_string());
        }
        if l.use_dcp {
            reasons.push(DCP_REASON.to_string());
        }
        let combination = general
            .iter()
            .find(|r| !is_base_reason(r))
            .map(|r| (Backend::TritonAttn, r.as_str()))
            .or_else(|| causal.iter().find(|r| !is_base_reason(r)).map(|r| (self.causal, r.as_str())))
            .or_else(|| self.fa_version_reason(p, l).map(|r| (self.causal, r)));
        if let Some((child, r)) = combination {
            reasons.push(format!("{child}: {r}"));
        }
        reasons
    }

    /// The causal child's own `resolve_group` on a copy of the group (its Q dtype, kernels, errors, logs and steps),
    /// the TRITON_ATTN route as a kernel choice of its own, and the composite's steps around them.
    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let Some(l) = cx.query else { return };
        let mut t = Trace::new(p.release);
        let child = self.causal;
        t.step(
            Some(self.definition),
            format!("{} (composite)", self.backend),
            format!(
                "create_composite_attention_backend(TritonAttentionBackend, {}, routing MMPrefixAttentionRouting, \
                 head_sizes (256, 512)): each batch runs on TRITON_ATTN (variant 0) when a query needs the image \
                 mask, else on {child} (variant 1); KV-cache writes always go through TRITON_ATTN",
                super::rules(child).class_name()
            ),
        );
        t.step(
            Some(&source::COMPOSITE_LAYER_USE_MM_PREFIX),
            "use_mm_prefix",
            format!(
                "{}: the layer's model_config.is_mm_prefix_lm; only TRITON_ATTN must support it",
                if l.use_mm_prefix { "True" } else { "False" }
            ),
        );
        let raised = triton_attn::impl_init(p, cx.engine.device, &l.kv_cache_dtype, &mut t);
        super::init_error(p, raised, &mut t, g);
        if g.error.is_some() {
            g.trace.extend(t.steps);
            return;
        }
        t.step(
            Some(&source::COMPOSITE_CAUSAL_ARGS_RAISE),
            "CompositeAttentionImpl.__init__",
            format!("TritonAttentionImpl, then {child}'s impl with the same arguments (both accept them)"),
        );
        t.step(
            Some(&source::COMPOSITE_QUANT_QUERY_INPUT),
            "CompositeAttentionImpl.supports_quant_query_input",
            format!(
                "TRITON_ATTN's (current_platform.is_cuda(): True) and {child}'s: the layer quantizes the query as for \
                 {child} alone, and both routes receive that query"
            ),
        );
        let pc = self.child_platform(p);
        let pc = pc.as_ref().unwrap_or(p);
        if self.backend == Backend::TritonFlashInfer {
            t.step(
                Some(&source::COMPOSITE_KERNEL_BLOCK_SIZES),
                "kernel block size",
                format!(
                    "kernel_block_sizes (64,), which both children take: the cache block size is 64 unless \
                     --block-size names a multiple of it, and {child}'s pages are 64 tokens"
                ),
            );
        } else {
            let v = causal_fa_version(p, l).map_or("None".to_string(), |v| v.to_string());
            t.step(
                Some(&source::COMPOSITE_TFA_FA_VERSION_REASON),
                "causal route's FlashAttention",
                format!(
                    "get_flash_attn_version(head_size={}, has_sinks={}, kv_cache_block_size={}, supports_fa4_hd256=True) \
                     = {v}",
                    l.head_size,
                    if l.has_sinks { "True" } else { "False" },
                    l.block_size.map_or("None".to_string(), |b| b.to_string())
                ),
            );
        }
        let lc = causal_query(l);
        let ccx = GroupContext {
            engine: cx.engine,
            query: Some(&lc),
            recurrent: None,
        };
        let mut cg = GroupReport {
            backend: child,
            trace: Vec::new(),
            ..g.clone()
        };
        super::rules(child).resolve_group(pc, &ccx, &mut cg);
        t.step(
            None,
            format!("causal route: {child}"),
            format!("{child} runs every batch the routing gives it as it runs alone (its steps follow)"),
        );
        let mut steps = t.steps;
        steps.append(&mut cg.trace);
        let mut t = Trace::new(p.release);
        g.cache_dtype = cg.cache_dtype;
        g.q_dtype = cg.q_dtype;
        g.query_quant = cg.query_quant;
        g.error = cg.error;
        g.phase_errors = cg.phase_errors;
        g.warnings = cg.warnings;
        g.logs = cg.logs;
        g.log_records = cg.log_records;
        g.unmodelled = cg.unmodelled;
        g.cudagraph_support = Some(routing_support(cx.engine.unclamped_window));
        if g.error.is_none() {
            self.routes(p, l, cx, cg.kernels, g, &mut t);
        }
        steps.append(&mut t.steps);
        g.trace.extend(steps);
    }

    /// `CompositeAttentionMetadataBuilder.get_cudagraph_support`: the minimum of TRITON_ATTN's ALWAYS, the causal
    /// child's and the routing's. The routing's reads every layer of the model (`_has_unclamped_window` over
    /// `static_forward_context`), which `resolve_group` records in `g.cudagraph_support` from the engine; without it
    /// (a group this module did not resolve) the group's own window decides.
    fn cudagraph_support(&self, p: &Platform, g: &GroupReport, q_heads: u32, non_causal: bool) -> CgDecision {
        let child = super::rules(self.causal).cudagraph_support(p, g, q_heads, non_causal);
        let routing = g
            .cudagraph_support
            .unwrap_or_else(|| routing_support(g.sliding_window.is_some()));
        let routing = routing.min(CgSupport::UniformSingleTokenDecode);
        let support = child.support.min(routing);
        let window = if routing == CgSupport::Never {
            "a layer of the model has a sliding window it does not clamp for images"
        } else {
            "no unclamped sliding window"
        };
        CgDecision {
            support,
            cite: &source::COMPOSITE_CG_SUPPORT,
            why: format!(
                "min(TRITON_ATTN ALWAYS, {} {} ({}), routing {} ({window}))",
                self.causal, child.support, child.why, routing
            ),
        }
    }

    /// `get_supported_kernel_block_sizes`: TRITON_FLASHINFER `[64]`; TRITON_FLASH_ATTN the intersection of TRITON_ATTN's
    /// `[MultipleOf(16)]` and FLASH_ATTN's sizes.
    fn kernel_block_sizes(&self, p: &Platform, q_heads: u32, kv_heads: u32, t: &mut Trace) -> Option<KernelSizes> {
        let sizes = if self.backend == Backend::TritonFlashInfer {
            KernelSizes::Exact(vec![TFI_KERNEL_BLOCK])
        } else {
            match super::rules(Backend::FlashAttn).kernel_block_sizes(p, q_heads, kv_heads, t) {
                Some(KernelSizes::MultipleOf(b)) => KernelSizes::MultipleOf(lcm(16, b)),
                Some(KernelSizes::Exact(v)) => KernelSizes::Exact(v.into_iter().filter(|s| s % 16 == 0).collect()),
                None => KernelSizes::MultipleOf(16),
            }
        };
        t.step(
            Some(&source::COMPOSITE_KERNEL_BLOCK_SIZES),
            format!("{} kernel block sizes", self.backend),
            sizes.show(),
        );
        Some(sizes)
    }
}

fn lcm(a: u32, b: u32) -> u32 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a.checked_div(x).map_or(0, |q| q * b)
}

/// `MMPrefixAttentionRouting.get_cudagraph_support`: NEVER when some layer has an unclamped sliding window (a decode
/// may then need the image mask, and capture always builds the causal child), else single-token decodes.
fn routing_support(unclamped_window: bool) -> CgSupport {
    if unclamped_window {
        CgSupport::Never
    } else {
        CgSupport::UniformSingleTokenDecode
    }
}

impl Composite {
    /// The routing of each batch and what each route runs: the causal child's kernels (every batch whose queries
    /// overlap no image span) first, then TRITON_ATTN's for the batches `requires_mm_prefix` sends it.
    fn routes(
        &self,
        p: &Platform,
        l: &LayerQuery,
        cx: &GroupContext,
        child_kernels: Phases<Vec<KernelChoice>>,
        g: &mut GroupReport,
        t: &mut Trace,
    ) {
        let child = self.causal;
        let unclamped = cx.engine.unclamped_window;
        let q = g.q_dtype.prefill.unwrap_or(p.model_dtype);
        t.step(
            None,
            "general route: TRITON_ATTN",
            "its TritonAttentionMetadataBuilder, built beside the causal child's",
        );
        let launch = Launch::new(p, g, q, &l.kv_cache_dtype, t);
        let image = "a batch with a multi-token query that overlaps an image span (start < seq_len - 1 and stop > the \
                     query's first position)";
        t.step(
            Some(&source::COMPOSITE_REQUIRES_MM_PREFIX),
            "MMPrefixAttentionRouting.select",
            if unclamped {
                format!(
                    "variant 0 (TRITON_ATTN) for {image}, or, the model having unclamped sliding windows, any batch \
                     with a query whose image span reaches its first position (a decode right after a prompt that \
                     ends in an image too); variant 1 ({child}) for every other batch"
                )
            } else {
                format!(
                    "variant 0 (TRITON_ATTN) for {image}; variant 1 ({child}) for every other batch (text prefills, \
                     later chunks, every decode)"
                )
            },
        );
        t.step(
            Some(&source::COMPOSITE_CAPTURE_BUILD),
            "CUDA-graph capture",
            format!("capture_variant = 1: captured batches are built by {child}'s builder"),
        );
        let wrap = |choices: Vec<KernelChoice>, when: &str| -> Vec<KernelChoice> {
            choices
                .into_iter()
                .map(|c| {
                    let w = match c.when {
                        Some(w) => format!("{when}: {w}"),
                        None => when.to_string(),
                    };
                    KernelChoice::when(c.kernel, w)
                })
                .collect()
        };
        let routed = format!("routed to {child} (no query overlaps an image span)");
        let mut prefill = wrap(child_kernels.prefill, &routed);
        let mut decode = wrap(child_kernels.decode, &routed);
        if !prefill.is_empty() {
            prefill.push(launch.image_prefill(&format!("{image}: routed to TRITON_ATTN, ")));
        }
        if unclamped && !decode.is_empty() {
            let prefix = "a decode batch with a request whose image span ends where its new token starts (an unclamped \
                          sliding window): routed to TRITON_ATTN, ";
            decode.extend(launch.decode_choices(p, prefix));
        }
        g.kernel = Phases {
            prefill: prefill.first().map(|c| c.kernel),
            decode: decode.first().map(|c| c.kernel),
        };
        g.kernels = Phases { prefill, decode };
        if g.unmodelled.is_none() && (g.kernel.prefill.is_none() || g.kernel.decode.is_none()) {
            g.unmodelled = Some(format!("{QPATH_LIMIT}: what {child} runs as {}'s causal route", self.backend));
        }
        t.step(
            Some(&source::COMPOSITE_BUILDER_ROUTE),
            "kernel per phase",
            format!(
                "the first prefill (512 text tokens) and a decode batch run on {child}: {} / {}; image prefills on \
                 TRITON_ATTN's 2D grid",
                g.kernel.prefill.map_or("none", |k| k.name()),
                g.kernel.decode.map_or("none", |k| k.name())
            ),
        );
    }
}
