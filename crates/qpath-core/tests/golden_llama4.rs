//! Golden cases for Llama 4 (issue 24, item 1): Llama-4-Scout-17B-16E-Instruct (`Llama4ForConditionalGeneration`,
//! llama4.py's layers from text_config; registered in every release 0.24.0-0.33.0), at the first release qpath covers
//! and the latest. Each expectation is read from the released source:
//!
//! - layers: `Llama4TextConfig` turns `no_rope_layers: []` into `[1, 1, 1, 0] * 12` (interval 4); llama4.py builds
//!   `ChunkedLocalAttention` (8192-token chunks) where `no_rope_layers[i] != 0` and `attention_chunk_size` is set
//!   (llama4.py:253@0.24.0, 251@0.33.0), a plain `Attention` on the NoPE layers 3, 7, ..., 47.
//! - groups: `ChunkedLocalAttentionSpec` never merges with `FullAttentionSpec` while the hybrid KV-cache manager is
//!   on (the default: `VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE` defaults to 1), so the 36 chunked layers are
//!   one attention group and the 12 full ones another.
//! - backend: `ChunkedLocalAttention` asks `get_attn_backend` with the same arguments as the full layers, so both
//!   groups get the backend vLLM picks for a 128-head-size model (FLASH_ATTN on SM90 / SM89 / SM120, FLASHINFER on
//!   SM100), wrapped as `ChunkedLocalAttention_8192_<class>`.
//! - CUDA graphs: the wrapper's builder returns `AttentionCGSupport.NEVER` (chunked_local_attention.py:49@0.24.0,
//!   48@0.33.0), so the default FULL_AND_PIECEWISE becomes PIECEWISE with vLLM's warning naming the wrapper class.

mod common;
use common::run;
use qpath_core::release::Release;
use qpath_core::report::{AttentionKind, Backend, LogLevel, Report, ScenarioErrorKind};

const SCOUT: &str = "vllm serve meta-llama/Llama-4-Scout-17B-16E-Instruct";

fn ok(r: &Report) -> &Report {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    for g in &r.groups {
        assert!(g.error.is_none(), "group {:?}: {:?}", g.layers, g.error);
    }
    r
}

fn piecewise_log(class: &str) -> String {
    format!(
        "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with ChunkedLocalAttention_8192_{class} backend (support: \
         AttentionCGSupport.NEVER); setting cudagraph_mode=PIECEWISE because attention is compiled piecewise"
    )
}

const HMA_OFF: &str = "Hybrid KV cache manager is disabled for this hybrid model, This means we do not enable any \
                       optimizations for saving KV cache memory (e.g., dropping the KV cache outside the sliding \
                       window). The compute of layers like sliding window is still saved.";

#[test]
fn scout_has_a_chunked_group_and_a_full_group_and_drops_to_piecewise_graphs() {
    let full: Vec<u32> = (0..48).filter(|i| (i + 1) % 4 == 0).collect();
    let chunked: Vec<u32> = (0..48).filter(|i| (i + 1) % 4 != 0).collect();
    for (gpu, backend, class) in [
        ("h100-sxm", Backend::FlashAttn, "FlashAttentionBackend"),
        ("rtx-5090", Backend::FlashAttn, "FlashAttentionBackend"),
        ("l4", Backend::FlashAttn, "FlashAttentionBackend"),
        ("b200", Backend::FlashInfer, "FlashInferBackend"),
    ] {
        for vllm in [Release::ALL[0], Release::LATEST] {
            let r = run(gpu, vllm.name(), SCOUT);
            let r = ok(&r);
            assert_eq!(r.groups.len(), 2, "{gpu} {vllm}");
            let (c, f) = (&r.groups[0], &r.groups[1]);
            assert_eq!(
                (c.attention, c.layers.clone()),
                (AttentionKind::ChunkedLocal, chunked.clone())
            );
            assert_eq!((f.attention, f.layers.clone()), (AttentionKind::Full, full.clone()));
            assert_eq!((c.backend, f.backend), (backend, backend), "{gpu} {vllm}");
            assert_eq!((c.num_q_heads, c.num_kv_heads, c.head_dim), (40, 8, 128));
            // Same backend, same kernels: the chunking is done by the metadata builder (virtual batches).
            assert_eq!(c.kernel, f.kernel, "{gpu} {vllm}");
            let cg = r.cuda_graphs.as_ref().unwrap();
            assert_eq!(cg.mode, "PIECEWISE", "{gpu} {vllm}");
            assert_eq!(
                cg.min_backend.as_deref(),
                Some(format!("ChunkedLocalAttention_8192_{class}").as_str())
            );
            let want = piecewise_log(class);
            let rec = r.log_records.iter().find(|l| l.text == want).expect("the downgrade warning");
            assert_eq!(rec.level, LogLevel::Warning);
            assert!(
                r.logs.iter().all(|l| l != HMA_OFF),
                "the hybrid KV-cache manager stays on by default"
            );
        }
    }
}

#[test]
fn the_config_json_gives_the_presets_answer() {
    let config = include_str!("fixtures/llama-4-scout-17b-16e-instruct.config.json");
    for gpu in ["h100-sxm", "b200"] {
        for vllm in [Release::ALL[0], Release::LATEST] {
            let preset = run(gpu, vllm.name(), SCOUT);
            let mut o = qpath_core::options::ScenarioOptions::default();
            o.set(qpath_core::options::OptionKey::Gpu, gpu).unwrap();
            o.set(qpath_core::options::OptionKey::Vllm, vllm.name()).unwrap();
            let mut s = o.scenario(SCOUT).unwrap();
            s.model_config = Some(config.to_string());
            let file = qpath_core::resolve::resolve(&s);
            assert_eq!((&file.groups, &file.logs), (&preset.groups, &preset.logs), "{gpu} {vllm}");
        }
    }
    // attention_chunk_size null: every layer is plain attention, one group, full graphs kept.
    let none = config.replace("\"attention_chunk_size\": 8192", "\"attention_chunk_size\": null");
    let mut o = qpath_core::options::ScenarioOptions::default();
    o.set(qpath_core::options::OptionKey::Gpu, "h100-sxm").unwrap();
    let mut s = o.scenario(SCOUT).unwrap();
    s.model_config = Some(none);
    let r = qpath_core::resolve::resolve(&s);
    assert_eq!(ok(&r).groups.len(), 1);
    assert_eq!(r.cuda_graphs.as_ref().unwrap().mode, "FULL_AND_PIECEWISE");
}

#[test]
fn the_hybrid_kv_cache_manager_off_and_its_warnings() {
    for (vllm, raise_line, spelled) in [
        (Release::V0_20_0, 1310, "--no-disable-hybrid-kv-cache-manager"),
        (Release::V0_21_0, 1362, "--no-disable-hybrid-kv-cache-manager"),
        (Release::V0_22_0, 1486, "--no-disable-hybrid-kv-cache-manager"),
        (Release::V0_23_0, 1507, "--no-disable-hybrid-kv-cache-manager"),
        (Release::V0_24_0, 1524, "--no-disable-hybrid-kv-cache-manager"),
        (Release::LATEST, 2285, "--enable-hybrid-kv-cache-manager"),
    ] {
        // VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0: the config-time warning first, then
        // unify_hybrid_kv_cache_specs' warning when the KV cache is planned; the groups still compute chunked.
        let r = run(
            "h100-sxm",
            vllm.name(),
            &format!("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0 {SCOUT}"),
        );
        let r = ok(&r);
        assert_eq!(
            r.logs[0],
            "There is a latency regression when using chunked local attention with the hybrid KV cache manager. \
             Disabling it, by default. To enable it, set the environment \
             VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1."
        );
        assert!(r.logs.iter().any(|l| l == HMA_OFF));
        assert!(r.notes.iter().any(|n| n.contains("one KV-cache group")));
        // --disable-hybrid-kv-cache-manager: only the planning warning; the flag is read, not "unused".
        let r = run("h100-sxm", vllm.name(), &format!("{SCOUT} --disable-hybrid-kv-cache-manager"));
        assert!(ok(&r).logs.iter().any(|l| l == HMA_OFF));
        assert!(r.unused_flags.is_empty(), "{:?}", r.unused_flags);
        // An EAGLE-style method turns it off silently at config time.
        let eagle = r#"--speculative-config '{"method":"eagle3","model":"someone/EAGLE3-head","num_speculative_tokens":2}'"#;
        let r = run("h100-sxm", vllm.name(), &format!("{SCOUT} {eagle}"));
        assert!(r.logs.iter().any(|l| l == HMA_OFF));
        // Forced on while it must be off: VllmConfig's ValueError, wrapped by pydantic.
        let r = run(
            "h100-sxm",
            vllm.name(),
            &format!("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=0 {SCOUT} --no-disable-hybrid-kv-cache-manager"),
        );
        let e = r.error.as_ref().expect("a ValidationError");
        assert_eq!(e.kind, ScenarioErrorKind::ValidationError);
        assert!(e.message.contains(&format!(
            "Hybrid KV cache manager was explicitly enabled but is not supported in this configuration. Consider \
             omitting the {spelled} flag to let vLLM decide automatically."
        )));
        assert_eq!(
            e.source.as_deref(),
            Some(format!("vllm/config/vllm.py:{raise_line}").as_str())
        );
        assert!(r.logs.is_empty(), "{:?}", r.logs);
    }
}
