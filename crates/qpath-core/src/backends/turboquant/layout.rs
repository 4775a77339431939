//! The KV-cache layout every attention backend of the engine must share (0.29.0+): `EngineCore._initialize_kv_caches`
//! asks the workers for `get_supported_kv_cache_layouts` over every attention layer's backend
//! ([`source::REGISTRY_LAYOUT_RESOLVE_CALL`]), which raises when the declared sets have no layout in common
//! ([`source::REGISTRY_LAYOUT_CONFLICT_RAISE`]). TurboQuant (and FLEX_ATTENTION) declare `(LBNHC,)`; FlashInfer on
//! capability 10.x declares `(LBHNC, BLHNC)` ([`source::REGISTRY_FI_KV_CACHE_LAYOUTS`]): a dense model with a
//! TurboQuant cache on 10.x, whose boundary layers select FLASHINFER, fails there, before the memory profile and any
//! metadata builder (`docs/source-notes/flex-turboquant-registry.md` §3.6).

use crate::attention::{Backend, GroupErrorKind, Phases, Stage};
use crate::platform::Platform;
use crate::release::Release;
use crate::report::{GroupError, GroupReport, TraceStep};
use crate::source;
use crate::trace::Trace;

const FI_10X: &[&str] = &["LBHNC", "BLHNC"];
const LBNHC: &[&str] = &["LBNHC"];
/// `_DEFAULT_LAYOUT_PREFERENCE`: what `get_supported_kv_cache_layouts` returns when no backend declares a set (a
/// composite of two such backends declares it).
const DEFAULT: &[&str] = &["LBNHC", "LBHNC", "BLNHC", "BLHNC", "BHLNC", "LHBNC"];

/// `supported_kv_cache_layouts()` of a backend class (`None`: it declares none, any layout).
fn declared(p: &Platform, b: Backend) -> Option<&'static [&'static str]> {
    let ten = p.major() == 10;
    match b {
        Backend::FlashInfer => ten.then_some(FI_10X),
        Backend::FlexAttention | Backend::TurboQuant => Some(LBNHC),
        // `CompositeAttentionBackend.supported_kv_cache_layouts`: its two backends' common sets.
        Backend::TritonFlashInfer => Some(if ten { FI_10X } else { DEFAULT }),
        Backend::TritonFlashAttn => Some(DEFAULT),
        // MLA layers never meet a TurboQuant group (no MLA backend takes a turboquant_* cache), so their layouts are not
        // asked here.
        Backend::FlashMla
        | Backend::FlashMlaSparse
        | Backend::CutlassMla
        | Backend::FlashInferMla
        | Backend::FlashInferMlaSparse
        | Backend::FlashInferMlaSparseSm120
        | Backend::FlashInferMlaSparseSm90
        | Backend::TritonMla
        | Backend::FlashAttnMla
        | Backend::FlashAttnMlaSparse
        | Backend::FlashAttnMlaSparseFa4
        | Backend::TokenspeedMla
        | Backend::DeepseekV32Indexer
        | Backend::FlashAttn
        | Backend::TritonAttn
        | Backend::GdnAttn
        | Backend::Mamba2
        | Backend::Mamba1
        | Backend::Linear
        | Backend::ShortConv => None,
    }
}

/// `get_supported_kv_cache_layouts` over the engine's attention backends (each distinct one once, in the order of
/// their first layer: the target's groups, then the drafter's): with no layout common to every declared set, every
/// group whose backend declares one gets the ValueError, the first error the engine meets (its query dtype and kernels
/// are cleared: no batch ever runs). A no-op before 0.29.0, which had no layout negotiation.
pub fn layout_conflict(p: &Platform, groups: &mut [GroupReport]) {
    if p.release < Release::V0_29_0 {
        return;
    }
    // The common case allocates nothing: no backend declares a set, or every one declares the same.
    let mut declared_sets = groups.iter().filter_map(|g| declared(p, g.backend));
    let Some(first) = declared_sets.next() else { return };
    if declared_sets.all(|s| s == first) {
        return;
    }
    let mut seen: Vec<Backend> = Vec::new();
    let mut sets: Vec<(Backend, &[&str])> = Vec::new();
    for g in groups.iter() {
        if seen.contains(&g.backend) {
            continue;
        }
        seen.push(g.backend);
        if let Some(set) = declared(p, g.backend) {
            sets.push((g.backend, set));
        }
    }
    let Some((_, first)) = sets.first() else { return };
    if sets.iter().all(|(_, s)| s == first) {
        return;
    }
    if first.iter().any(|l| sets.iter().all(|(_, s)| s.contains(l))) {
        return;
    }
    let lists: Vec<String> = sets
        .iter()
        .map(|(_, s)| {
            let names: Vec<String> = s.iter().map(|l| format!("'{l}'")).collect();
            format!("[{}]", names.join(", "))
        })
        .collect();
    let message = format!("No KV cache layout satisfies every supported set: [{}].", lists.join(", "));
    let declared_by: Vec<String> = sets.iter().map(|(b, s)| format!("{b} ({})", s.join(", "))).collect();
    let mut t = Trace::new(p.release);
    t.step(
        Some(&source::REGISTRY_LAYOUT_RESOLVE_CALL),
        "KV cache layout (EngineCore._initialize_kv_caches)",
        format!(
            "the backends' declared layouts: {}; FLASH_ATTN and TRITON_ATTN declare none",
            declared_by.join("; ")
        ),
    );
    if p.major() == 10 && sets.iter().any(|(b, _)| *b == Backend::FlashInfer) {
        t.step(
            Some(&source::REGISTRY_FI_KV_CACHE_LAYOUTS),
            "FlashInfer's layouts",
            "capability 10.x: the trtllm-gen kernels consume head-major blocks, (LBHNC, BLHNC)",
        );
    }
    t.step(
        Some(&source::REGISTRY_LAYOUT_CONFLICT_RAISE),
        "raises ValueError",
        message.clone(),
    );
    let error = GroupError {
        kind: GroupErrorKind::ValueError,
        message,
        stage: Stage::Init,
        source: source::REGISTRY_LAYOUT_CONFLICT_RAISE.at(p.release).map(|s| s.short()),
        raised_in: "EngineCore._initialize_kv_caches → Worker.get_supported_kv_cache_layouts → \
                    get_supported_kv_cache_layouts"
            .to_string(),
    };
    let steps: Vec<TraceStep> = t.steps;
    for g in groups.iter_mut().filter(|g| sets.iter().any(|(b, _)| *b == g.backend)) {
        g.error = Some(error.clone());
        g.phase_errors = Phases::default();
        g.q_dtype = Phases::default();
        g.kernel = Phases::default();
        g.kernels = Phases::default();
        g.query_quant = None;
        g.trace.extend(steps.iter().cloned());
    }
}
