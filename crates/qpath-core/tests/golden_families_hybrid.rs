//! Golden cases for the Falcon-H1 (`FalconH1ForCausalLM`, falcon_h1.py) and Jamba (`JambaForCausalLM`, jamba.py)
//! hybrids, read from config.json fixtures, at the first release qpath covers (both architectures are registered in
//! every release from 0.20.0: registry.py:109@0.20.0 / 110@0.33.0 and 149@0.20.0 / 146@0.33.0), at 0.27.0 (mamba
//! cache mode "all": prefix caching on by default from 0.26.0 and both model classes implement
//! SupportsMambaPrefixCaching until 0.32.0) and at 0.33.0. Every number is derived by hand from the released source
//! in the comment above its case (vllm/model_executor/layers/mamba/mamba_utils.py, vllm/platforms/interface.py
//! `_align_hybrid_block_size`).

use qpath_core::dtype::TorchDtype;
use qpath_core::release::Release::{self, *};
use qpath_core::report::{AttentionKind, Backend, GroupReport, Kernel, Report};
use qpath_core::resolve::{resolve, Hardware, Scenario};

fn run_at(gpu: &str, vllm: Release, cmd: &str, config: &str) -> Report {
    let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), vllm, cmd);
    s.model_config = Some(config.to_string());
    resolve(&s)
}

fn step<'a>(g: &'a GroupReport, rule: &str) -> &'a str {
    &g.trace
        .iter()
        .find(|s| s.rule == rule)
        .unwrap_or_else(|| panic!("no step `{rule}` in {:#?}", g.trace))
        .outcome
}

fn set_log(n: u32) -> String {
    format!("Setting attention block size to {n} tokens to ensure that attention page size is >= mamba page size.")
}

fn pad_log(pct: &str) -> String {
    format!("Padding mamba page size by {pct}% to ensure that mamba page size and attention page size are exactly equal.")
}

const FALCON_H1: &str = include_str!("fixtures/falcon-h1-7b.restated.config.json");
const FALCON_H1_CMD: &str = "vllm serve tiiuae/Falcon-H1-7B-Instruct";

/// Falcon-H1-7B from tests/fixtures/falcon-h1-7b.restated.config.json: the `FALCON_H1_7B_HF` dict of a public test
/// file that mirrors tiiuae/Falcon-H1-7B's config.json fields (find_string id 65865534003; the tool does not name its
/// repository), with `architectures` and `torch_dtype` added (HF's file is not reachable: not byte for byte). By hand:
/// - 44 decoder layers, each a FalconH1ParallelHybrid (falcon_h1.py:443@0.20.0, 436@0.33.0): attention layers 0-43
///   (head_dim 128 from config.head_dim, 2 KV heads of 12) and Mamba2 mixers named 44-87 (`num_hidden_layers + i`,
///   :351@0.20.0, :344@0.33.0): 88 KV-cache layers.
/// - Mamba2 state: intermediate = mamba_d_ssm 3072 (= 24 heads * 128); conv (3, 3072 + 2*1*256 = 3584) = 10752
///   elements, temporal (24, 128, 256) = 786432 elements, both bf16: page = 1594368 bytes; attention page per token
///   = 2 * 2 * 128 * 2 = 1024 bytes.
/// - none / align mode: 16 * cdiv(1594368, 16384) = 16 * 98 = 1568, padding 11264 / 1594368 = 0.71%.
/// - 0.26.0-0.27.x "all" mode: the state is cdiv(1594368, 1024) = 1557 tokens; lcm(mamba_chunk_size 128, 16) = 128;
///   128 * 13 = 1664, padding 109568 / 1594368 = 6.87%.
#[test]
fn falcon_h1_7b_from_its_config_json() {
    for (vllm, block, pad) in [
        (V0_20_0, 1568, "0.71"),
        (V0_27_0, 1664, "6.87"),
        (Release::LATEST, 1568, "0.71"),
    ] {
        let r = run_at("h100-sxm", vllm, FALCON_H1_CMD, FALCON_H1);
        assert!(r.error.is_none(), "{vllm}: {:?}", r.error);
        assert_eq!(r.groups.len(), 2, "{vllm}");
        // The model's num_hidden_layers, not its 88 KV-cache layers.
        assert_eq!(r.model.as_ref().map(|m| m.num_layers), Some(44));
        let (a, m) = (&r.groups[0], &r.groups[1]);
        assert_eq!(
            (a.attention, a.layers.clone()),
            (AttentionKind::Full, (0..44).collect::<Vec<_>>()),
            "{vllm}"
        );
        assert_eq!((a.num_q_heads, a.num_kv_heads, a.head_dim), (12, 2, 128));
        assert!(!a.backend.is_recurrent(), "{vllm}: {:?}", a.backend);
        assert_eq!(
            (m.attention, m.backend, m.layers.clone()),
            (AttentionKind::Mamba, Backend::Mamba2, (44..88).collect::<Vec<_>>()),
            "{vllm}"
        );
        let bf16 = Some(TorchDtype::BFloat16);
        assert_eq!((m.q_dtype.prefill, m.q_dtype.decode), (bf16, bf16));
        assert_eq!(m.kernel.prefill, Some(Kernel::MambaChunkScan), "{vllm}");
        assert!(m.error.is_none(), "{vllm}: {:?}", m.error);
        assert_eq!(r.logs[1..], [set_log(block), pad_log(pad)], "{vllm}");
        assert!(step(m, "mamba page size").contains("= 1594368 bytes"), "{vllm}");
        assert!(step(m, "mamba state shape").contains("conv (3, 3584)"), "{vllm}");
        assert!(step(a, "attention page per token").contains("= 1024 bytes"), "{vllm}");
        assert!(step(m, "recurrent layers").contains("num_hidden_layers + i"), "{vllm}");
        // No NemotronH-style SSM dtype update.
        assert!(r.logs.iter().all(|l| !l.starts_with("Updating mamba_ssm_cache_dtype")));
    }
}

/// Falcon-H1 speculative tokens: falcon_h1.py passes `num_spec=vllm_config.num_speculative_tokens` to
/// mamba2_state_shape from 0.32.0 only (:572@0.32.0, :570@0.33.0). With 2 ngram tokens at 0.33.0 the conv state has
/// 3 + 2 = 5 rows: (5 * 3584 + 786432) * 2 = 1608704 bytes → 16 * cdiv(1608704, 16384) = 16 * 99 = 1584 (0.31.0:
/// still 3 rows, 1568).
#[test]
fn falcon_h1_speculative_tokens_grow_the_conv_state_from_0_32_0() {
    let cmd = format!(
        "{FALCON_H1_CMD} --speculative-config '{{\"method\": \"ngram\", \"num_speculative_tokens\": 2, \
         \"prompt_lookup_max\": 3}}'"
    );
    let new = run_at("h100-sxm", V0_33_0, &cmd, FALCON_H1);
    assert!(new.error.is_none(), "{:?}", new.error);
    assert!(new.logs.contains(&set_log(1584)), "{:?}", new.logs);
    let old = run_at("h100-sxm", V0_31_0, &cmd, FALCON_H1);
    assert!(old.error.is_none(), "{:?}", old.error);
    assert!(old.logs.contains(&set_log(1568)), "{:?}", old.logs);
}

/// FalconH1Config's defaults and validation: without `mamba_d_ssm` the class default 1024 is the intermediate size,
/// which 24 heads do not divide (validate_architecture's first ValueError); with `mamba_n_heads` 16 it divides, but
/// the fixture's `mamba_d_head` 128 * 16 = 2048 does not match it (the second ValueError); with `mamba_d_ssm: null` the intermediate size is mamba_expand 2 * hidden 3072 = 6144, which 24 * 128 does not
/// match either; `mamba_d_head: "auto"` then derives 6144 // 24 = 256. Without `head_dim` the attention head size is
/// hidden_size // heads = 3072 // 12 = 256.
#[test]
fn falcon_h1_config_class() {
    let no_ssm = FALCON_H1.replace("  \"mamba_d_ssm\": 3072,\n", "");
    let r = run_at("h100-sxm", Release::LATEST, FALCON_H1_CMD, &no_ssm);
    let e = r.error.expect("ValueError");
    assert!(
        e.message
            .contains("ValueError(\"mamba_n_heads must divide mamba_expand * hidden_size\")"),
        "{}",
        e.message
    );
    let sixteen = no_ssm.replace("\"mamba_n_heads\": 24", "\"mamba_n_heads\": 16");
    let e = run_at("h100-sxm", Release::LATEST, FALCON_H1_CMD, &sixteen)
        .error
        .expect("ValueError");
    assert!(
        e.message.contains("do not match the model intermediate_size"),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("128 * 16 is not the Mamba intermediate size 1024"),
        "{}",
        e.message
    );

    let auto = FALCON_H1
        .replace("\"mamba_d_ssm\": 3072", "\"mamba_d_ssm\": null")
        .replace("\"mamba_d_head\": 128", "\"mamba_d_head\": \"auto\"")
        .replace("  \"head_dim\": 128,\n", "");
    let r = run_at("h100-sxm", Release::LATEST, FALCON_H1_CMD, &auto);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.groups[0].head_dim, 256);
    // conv (3, 6144 + 512) = 19968, temporal (24, 256, 256) = 1572864: (19968 + 1572864) * 2 = 3185664 bytes.
    assert!(step(&r.groups[1], "mamba page size").contains("= 3185664 bytes"));

    let window = FALCON_H1.replace("\"head_dim\": 128,", "\"head_dim\": 128, \"sliding_window\": 4096,");
    let e = run_at("h100-sxm", Release::LATEST, FALCON_H1_CMD, &window)
        .error
        .expect("cannot model");
    assert!(
        e.message.contains("qpath cannot model this: sliding_window = 4096"),
        "{}",
        e.message
    );
}

/// Falcon-H1 under tensor parallelism 2: `mamba_n_groups` 1 does not divide by 2, so mamba2_state_shape replicates it
/// to one group per rank (`extra_groups_for_head_shards`, mamba_utils.py:178@0.20.0, 199@0.33.0; MambaMixer2 accepts
/// it because n_groups is 1). Per rank: conv_dim = 3072 + 2*2*256 = 4096, conv (3, 2048) = 6144 elements, temporal
/// (12, 128, 256) = 393216: page = 798720 bytes; attention 2 * 1 * 128 * 2 = 512 bytes per token; block 16 *
/// cdiv(798720, 8192) = 16 * 98 = 1568, padding 4096 / 798720 = 0.51%. With 2 groups and TP 4 (neither dividing nor
/// 1) MambaMixer2's assert fires, which qpath does not restate: the block size is left alone and the report says so.
#[test]
fn falcon_h1_tp2_replicates_the_single_group() {
    let r = run_at("h100-sxm", Release::LATEST, &format!("{FALCON_H1_CMD} -tp 2"), FALCON_H1);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.logs[1..], [set_log(1568), pad_log("0.51")]);
    let m = &r.groups[1];
    assert!(step(m, "mamba2 group extension").contains("adds 1"), "{:#?}", m.trace);
    assert!(step(m, "mamba state shape").contains("conv (3, 2048) with conv_dim = 24*128 + 2*2*256 = 4096"));
    assert!(step(m, "mamba page size").contains("= 798720 bytes"));

    let two = FALCON_H1.replace("\"mamba_n_groups\": 1", "\"mamba_n_groups\": 2");
    let r = run_at("h100-sxm", Release::LATEST, &format!("{FALCON_H1_CMD} -tp 4"), &two);
    assert!(
        r.notes
            .iter()
            .any(|n| n.text.contains("qpath cannot model this: n_groups 2 does not divide")),
        "{:?}",
        r.notes
    );
}

const JAMBA: &str = include_str!("fixtures/ai21-jamba-1.5-mini.restated.config.json");
const JAMBA_CMD: &str = "vllm serve ai21labs/AI21-Jamba-1.5-Mini";

/// AI21-Jamba-1.5-Mini from tests/fixtures/ai21-jamba-1.5-mini.restated.config.json: sdpython/experimental-experiment,
/// experimental_experiment/torch_models/llm_model_helper.py@04097e3040047505e7cac0c2c9040ff294fdd980,
/// `get_ai21_jamba_15_mini`, whose docstring names https://huggingface.co/ai21labs/AI21-Jamba-1.5-Mini/blob/main/config.json
/// (its dict converted literal by literal; that project set `use_mamba_kernels` false, which vLLM does not read).
/// Jamba-Mini-1.7 has the same architecture. By hand:
/// - JambaConfig's layers_block_type: attention iff i % 8 == 4 → layers 4, 12, 20, 28 (jamba.py:328@0.20.0,
///   :322@0.33.0); the other 28 are Mamba1 (`MambaMixer`, MAMBA1). Attention head size 4096 // 32 = 128, 8 KV heads.
/// - Mamba1 state: intermediate = mamba_expand 2 * 4096 = 8192; conv (8192, 3) = 24576 elements, temporal (8192, 16)
///   = 131072, both bf16: page = 311296 bytes; attention page per token = 2 * 8 * 128 * 2 = 4096 bytes.
/// - none / align: 16 * cdiv(311296, 65536) = 80, padding 16384 / 311296 = 5.26%.
/// - 0.26.0-0.27.x "all": no chunk size in JambaConfig, so get_mamba_chunk_size() = 2048 (config/model.py:1544@0.27.0);
///   the state is 76 tokens; lcm(2048, 16) * cdiv(76, 2048) = 2048, padding 8077312 / 311296 = 2594.74%.
#[test]
fn jamba_1_5_mini_from_its_config_json() {
    for (vllm, block, pad) in [
        (V0_20_0, 80, "5.26"),
        (V0_27_0, 2048, "2594.74"),
        (Release::LATEST, 80, "5.26"),
    ] {
        let r = run_at("h100-sxm", vllm, JAMBA_CMD, JAMBA);
        assert!(r.error.is_none(), "{vllm}: {:?}", r.error);
        assert_eq!(r.groups.len(), 2, "{vllm}");
        assert_eq!(r.model.as_ref().map(|m| m.num_layers), Some(32));
        let (m, a) = (&r.groups[0], &r.groups[1]);
        let mamba: Vec<u32> = (0..32).filter(|i| i % 8 != 4).collect();
        assert_eq!(
            (m.attention, m.backend, m.layers.clone()),
            (AttentionKind::Mamba, Backend::Mamba1, mamba)
        );
        assert_eq!(
            (m.kernel.prefill, m.kernel.decode),
            (Some(Kernel::SelectiveScan), Some(Kernel::SelectiveStateUpdate))
        );
        assert!(m.error.is_none(), "{vllm}: {:?}", m.error);
        assert_eq!((a.attention, a.layers.clone()), (AttentionKind::Full, vec![4, 12, 20, 28]));
        assert_eq!((a.num_q_heads, a.num_kv_heads, a.head_dim), (32, 8, 128));
        assert_eq!(r.logs[1..], [set_log(block), pad_log(pad)], "{vllm}");
        assert!(step(m, "mamba page size").contains("= 311296 bytes"), "{vllm}");
        assert!(
            step(m, "mamba state shape").contains("mamba1_state_shape: conv (8192, 3)"),
            "{vllm}"
        );
        assert!(step(m, "mamba_type").contains("MAMBA1"), "{vllm}");
    }
    // The "all" mode's chunk size is get_mamba_chunk_size()'s Mamba1 default.
    let r = run_at("h100-sxm", V0_27_0, JAMBA_CMD, JAMBA);
    assert!(step(&r.groups[1], "mamba chunk size").contains("2048"));
}

/// JambaConfig: other periods move the attention layers (period 4, offset 0 → 0, 4, …, 28); an offset not smaller
/// than its period is validate_architecture's ValueError; `mamba_expand` 1 halves the state (page 155648 → 16 *
/// cdiv(155648, 65536) = 48, padding 26.32%); a speculative config does not change the block (mamba1_state_shape
/// takes no num_spec in any release).
#[test]
fn jamba_config_class() {
    let p4 = JAMBA
        .replace("\"attn_layer_offset\": 4", "\"attn_layer_offset\": 0")
        .replace("\"attn_layer_period\": 8", "\"attn_layer_period\": 4");
    let r = run_at("h100-sxm", Release::LATEST, JAMBA_CMD, &p4);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!(r.groups[0].layers, (0..8).map(|i| 4 * i).collect::<Vec<u32>>());

    let bad = JAMBA.replace("\"attn_layer_offset\": 4", "\"attn_layer_offset\": 8");
    let e = run_at("h100-sxm", Release::LATEST, JAMBA_CMD, &bad)
        .error
        .expect("ValueError");
    assert!(
        e.message
            .contains("attention layer offset (8) must be smaller than attention layer period (8)"),
        "{}",
        e.message
    );

    let half = JAMBA.replace("\"mamba_expand\": 2", "\"mamba_expand\": 1");
    let r = run_at("h100-sxm", Release::LATEST, JAMBA_CMD, &half);
    assert_eq!(r.logs[1..], [set_log(48), pad_log("26.32")]);

    let cmd = format!(
        "{JAMBA_CMD} --speculative-config '{{\"method\": \"ngram\", \"num_speculative_tokens\": 2, \
         \"prompt_lookup_max\": 3}}'"
    );
    let r = run_at("h100-sxm", Release::LATEST, &cmd, JAMBA);
    assert!(r.logs.contains(&set_log(80)), "{:?}", r.logs);
}
