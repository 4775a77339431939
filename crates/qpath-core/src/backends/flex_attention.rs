//! FLEX_ATTENTION (`vllm/v1/attention/backends/flex_attention.py`): selection (16-bit caches, the block size, no
//! sinks), `FlexAttentionMetadataBuilder.__init__`'s block-size raise, and CUDA-graph support.
//! `docs/source-notes/other-backends.md` restates the statements per release.

use super::{BackendRules, CgDecision, GroupContext, KernelSizes, LayerQuery, Raise, SINK_REASON};
use crate::attention::{Backend, CgSupport, GroupErrorKind};
use crate::platform::Platform;
use crate::report::GroupReport;
use crate::source;
use crate::trace::Trace;

/// FLEX_ATTENTION's rules.
pub struct FlexAttention;

impl BackendRules for FlexAttention {
    fn class_name(&self) -> &'static str {
        "FlexAttentionBackend"
    }

    /// `validate_configuration` for FLEX_ATTENTION: 16-bit caches only, `[MultipleOf(16)]` kernel blocks, and no
    /// `supports_sink` override (False).
    fn reasons(&self, _p: &Platform, l: &LayerQuery) -> Vec<String> {
        let mut reasons = Vec::new();
        if !matches!(l.kv_cache_dtype.as_str(), "auto" | "float16" | "bfloat16") {
            reasons.push("kv_cache_dtype not supported".to_string());
        }
        super::multiple_of_16_reason(l, &mut reasons);
        if l.has_sinks {
            reasons.push(SINK_REASON.to_string());
        }
        reasons
    }

    fn resolve_group(&self, p: &Platform, cx: &GroupContext, g: &mut GroupReport) {
        let mut t = Trace::new(p.release);
        let Some(l) = cx.query else { return };
        super::block_size_step(Backend::FlexAttention, l, &source::FLEX_KERNEL_BLOCK_SIZES, &mut t);
        let raised = builder_init(p, cx, &mut t);
        super::init_error(p, raised, &mut t, g);
        g.trace.extend(t.steps);
    }

    fn cudagraph_support(&self, _p: &Platform, _g: &GroupReport, _q_heads: u32, _non_causal: bool) -> CgDecision {
        super::class_attribute(CgSupport::Always, &source::CG_FLEX_SUPPORT)
    }
    fn kernel_block_sizes(&self, _p: &Platform, _q_heads: u32, _kv_heads: u32, _t: &mut Trace) -> Option<KernelSizes> {
        None
    }
}

/// The `--attention-config` fields `FlexAttentionMetadataBuilder._get_block_sizes` reads.
const BLOCK_FIELDS: [&str; 4] = [
    "flex_attn_q_block_size",
    "flex_attn_kv_block_size",
    "flex_attn_block_m",
    "flex_attn_block_n",
];

/// `FlexAttentionMetadataBuilder.__init__` → `_get_block_sizes` (every release; the torch each release pins, 2.11 or
/// newer, is at least 2.9, so small blocks are on and a decoder's KV block is the cache block size): the query block 16
/// and the KV block must be powers of 2, else ValueError. The cache block is `--block-size` (selection made it a
/// multiple of 16) or the default 16.
fn builder_init(p: &Platform, cx: &GroupContext, t: &mut Trace) -> Option<Raise> {
    let cite = &source::FLEX_KV_BLOCK_POWER_OF_2;
    let fields = &cx.engine.attention_config.other;
    let unmodelled = if let Some((name, _)) = fields.iter().find(|(k, _)| BLOCK_FIELDS.contains(&k.as_str())) {
        Some(format!("--attention-config sets {name}, which qpath does not restate"))
    } else if cx.engine.hybrid {
        Some("a hybrid model's block size follows its recurrent state page, which qpath does not align for FLEX_ATTENTION".into())
    } else {
        None
    };
    if let Some(why) = unmodelled {
        t.step(
            Some(cite),
            "FlexAttention block sizes",
            format!("qpath cannot model this: {why}"),
        );
        return None;
    }
    let kv = p.page_size;
    if kv.is_power_of_two() {
        t.step(
            Some(cite),
            "FlexAttention block sizes",
            format!("KV block = cache block size {kv}: a power of 2, no raise"),
        );
        return None;
    }
    Some(Raise {
        kind: GroupErrorKind::ValueError,
        message: format!("flex_attn_kv_block_size must be a power of 2 and divisible by flex_attn_block_n, got {kv}, None"),
        cite,
        raised_in: "FlexAttentionMetadataBuilder.__init__",
    })
}
