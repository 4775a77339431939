//! Golden cases for the Qwen3.5 family (issue 24, item 1): `Qwen3_5ForConditionalGeneration` /
//! `Qwen3_5MoeForConditionalGeneration` (qwen3_5.py, registered in every release 0.24.0-0.33.0) on RTX 4090, RTX 5090,
//! DGX Spark (GB10) and H100, at the first release qpath covers and at the latest: the groups, the hybrid block size
//! and its log lines, the float32 SSM state the text config asks for (and what a bf16 state gives instead), the MTP
//! drafter and the CUDA-graph downgrade a forced FlashInfer meets with it, and the text-only classes (0.27.0+).
//!
//! Arithmetic (vllm/model_executor/layers/mamba/mamba_utils.py `gated_delta_net_state_shape` / `_mamba_state_dtype`,
//! vllm/platforms/interface.py `_align_hybrid_block_size`), from the config.json fixtures (byte for byte):
//!
//! Qwen3.5-27B (text_config: 64 layers, full attention at 3, 7, ..., 63; 4 KV heads of 256; linear K 16x128,
//! V 48x128, conv 4; mamba_ssm_dtype float32; bfloat16):
//! - conv_dim = 128*16*2 + 128*48 = 10240; conv state (3 + spec tokens, 10240) in bf16; temporal (48, 128, 128) in
//!   float32 (Qwen3_5ForConditionalGenerationConfig turns --mamba-ssm-cache-dtype auto into the config's float32):
//!   page = 30720*2 + 786432*4 = 3207168 bytes. Attention page per token = 2 * 4 * 256 * 2 = 4096 bytes.
//! - alignment 16: block = 16 * cdiv(3207168, 65536) = 16 * 49 = 784; padding (784*4096 - 3207168) / 3207168 = 0.13%.
//! - a bf16 state (--mamba-ssm-cache-dtype bfloat16): page = (30720 + 786432) * 2 = 1634304 -> 16 * 25 = 400 (0.25%):
//!   the float32 state doubles the block (to within one alignment step).
//! - 0.33.0 in align mode with the FlashInfer GDN prefill (H100): alignment lcm(16, 64) = 64: 64 * cdiv(3207168,
//!   262144) = 64 * 13 = 832, padding 200704 / 3207168 = 6.26%.
//! - MTP with 2 speculative tokens: conv (5, 10240): 51200*2 + 3145728 = 3248128 -> 16 * 50 = 800 (0.88%).
//!
//! Qwen3.5-35B-A3B (40 layers, 2 KV heads of 256, V 32x128): conv_dim 8192; page = 24576*2 + 524288*4 = 2146304;
//! attention 2048 per token: 16 * cdiv(2146304, 32768) = 16 * 66 = 1056, padding 16384 / 2146304 = 0.76%.

mod common;
use common::run;
use qpath_core::release::Release;
use qpath_core::report::{AttentionKind, Backend, GroupRole, LogLevel, Report, ScenarioErrorKind};

const QWEN3_5_27B: &str = "vllm serve Qwen/Qwen3.5-27B";
const QWEN3_5_35B: &str = "vllm serve Qwen/Qwen3.5-35B-A3B";
const MTP2: &str = r#"--speculative-config '{"method":"mtp","num_speculative_tokens":2}'"#;

fn set_log(n: u32) -> String {
    format!("Setting attention block size to {n} tokens to ensure that attention page size is >= mamba page size.")
}

fn pad_log(pct: &str) -> String {
    format!("Padding mamba page size by {pct}% to ensure that mamba page size and attention page size are exactly equal.")
}

fn ok(r: &Report) -> &Report {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    for g in &r.groups {
        assert!(g.error.is_none(), "group {:?}: {:?}", g.layers, g.error);
    }
    r
}

/// The block-size lines of a report (the hybrid alignment's two logs).
fn block_logs(r: &Report) -> Vec<&str> {
    r.logs
        .iter()
        .filter(|l| l.starts_with("Setting attention block size") || l.starts_with("Padding mamba page size"))
        .map(String::as_str)
        .collect()
}

#[test]
fn qwen3_5_27b_on_four_gpus_at_the_first_and_latest_release() {
    let full: Vec<u32> = (0..64).filter(|i| (i + 1) % 4 == 0).collect();
    let linear: Vec<u32> = (0..64).filter(|i| (i + 1) % 4 != 0).collect();
    for gpu in ["rtx-4090", "rtx-5090", "dgx-spark", "h100-sxm"] {
        for vllm in [Release::ALL[0], Release::LATEST] {
            let r = run(gpu, vllm.name(), QWEN3_5_27B);
            let r = ok(&r);
            assert_eq!(r.groups.len(), 2, "{gpu} {vllm}");
            let (gdn, attn) = (&r.groups[0], &r.groups[1]);
            assert_eq!(
                (gdn.attention, gdn.backend),
                (AttentionKind::LinearAttention, Backend::GdnAttn)
            );
            assert_eq!(gdn.layers, linear);
            assert_eq!((attn.attention, attn.layers.clone()), (AttentionKind::Full, full.clone()));
            assert_eq!((attn.num_kv_heads, attn.head_dim), (4, 256));
            // FLASH_ATTN is first on every one of them (FA3 on SM90, FA2 elsewhere).
            assert_eq!(attn.backend, Backend::FlashAttn, "{gpu} {vllm}");
            let h100_latest = gpu == "h100-sxm" && vllm == Release::LATEST;
            let want = if h100_latest {
                // 0.33.0, align mode, FlashInfer GDN prefill on SM90: the 64-token checkpoint alignment.
                [set_log(832), pad_log("6.26")]
            } else {
                [set_log(784), pad_log("0.13")]
            };
            assert_eq!(block_logs(r), want, "{gpu} {vllm}");
            // The SSM state dtype came from the text config, silently (no log line for `auto`); the alignment steps
            // are in the attention group's trace.
            assert!(attn.trace.iter().any(|s| s.rule == "Qwen3.5 mamba_ssm_cache_dtype"
                && s.outcome.starts_with("--mamba-ssm-cache-dtype auto becomes \"float32\"")));
            assert!(r.logs.iter().all(|l| !l.starts_with("Qwen3.5 model specifies")));
        }
    }
}

#[test]
fn a_bf16_ssm_state_halves_the_block_and_logs_vllms_warning() {
    // vllm/config/cache.py's MambaDType has no "bfloat16" until 0.21.0: argparse rejects it.
    for vllm in [Release::V0_20_0, Release::V0_21_0] {
        let r = run(
            "rtx-5090",
            vllm.name(),
            &format!("{QWEN3_5_27B} --mamba-ssm-cache-dtype bfloat16"),
        );
        let e = r.error.as_ref().expect("an argparse error");
        assert_eq!(e.kind, ScenarioErrorKind::ArgumentError, "{vllm}");
        assert!(
            e.message
                .contains("invalid choice: 'bfloat16' (choose from 'auto', 'float16', 'float32')"),
            "{vllm}"
        );
    }
    for (vllm, line, block, pad) in [
        (Release::V0_22_0, 554, 400, "0.25"),
        (Release::V0_24_0, 621, 400, "0.25"),
        (Release::LATEST, 971, 400, "0.25"),
    ] {
        let r = run(
            "rtx-5090",
            vllm.name(),
            &format!("{QWEN3_5_27B} --mamba-ssm-cache-dtype bfloat16"),
        );
        let r = ok(&r);
        assert_eq!(block_logs(r), [set_log(block), pad_log(pad)], "{vllm}");
        let text = "Qwen3.5 model specifies mamba_ssm_dtype='float32' in its config, but \
                    --mamba-ssm-cache-dtype='bfloat16' was passed. Using the user-specified value.";
        let rec = r.log_records.iter().find(|l| l.text == text).expect("the warning");
        assert_eq!(
            (rec.level, rec.location()),
            (LogLevel::Warning, format!("config.py:{line}")),
            "{vllm}"
        );
        // It is logged at config time, before the backend selection's line.
        assert_eq!(r.logs[0], text);
    }
    // Passing the config's own dtype is silent and changes nothing.
    let same = run(
        "rtx-5090",
        Release::LATEST.name(),
        &format!("{QWEN3_5_27B} --mamba-ssm-cache-dtype float32"),
    );
    assert_eq!(block_logs(&same), [set_log(784), pad_log("0.13")]);
    assert!(same.logs.iter().all(|l| !l.starts_with("Qwen3.5 model specifies")));
}

#[test]
fn qwen3_5_35b_a3b_moe() {
    for vllm in [Release::ALL[0], Release::LATEST] {
        let r = run("rtx-5090", vllm.name(), QWEN3_5_35B);
        let r = ok(&r);
        assert_eq!(r.groups[1].layers, (0..40).filter(|i| (i + 1) % 4 == 0).collect::<Vec<u32>>());
        assert_eq!((r.groups[1].num_kv_heads, r.groups[1].head_dim), (2, 256));
        assert_eq!(block_logs(r), [set_log(1056), pad_log("0.76")], "{vllm}");
    }
}

#[test]
fn mtp_adds_one_full_attention_drafter_layer() {
    for (gpu, vllm, block) in [
        ("h100-sxm", Release::ALL[0], 800),
        ("rtx-4090", Release::ALL[0], 800),
        ("rtx-4090", Release::LATEST, 800),
        ("dgx-spark", Release::LATEST, 800),
    ] {
        let r = run(gpu, vllm.name(), &format!("{QWEN3_5_27B} {MTP2}"));
        let r = ok(&r);
        let s = r.speculative.as_ref().expect("a drafter");
        assert_eq!(s.method, "mtp");
        let d: Vec<_> = r.groups.iter().filter(|g| g.role == GroupRole::Drafter).collect();
        assert_eq!(d.len(), 1, "{gpu} {vllm}");
        // mtp.layers.0: a Qwen3_5DecoderLayer with layer_type="full_attention", the target's attention shape.
        assert_eq!((d[0].layers.clone(), d[0].attention), (vec![0], AttentionKind::Full));
        assert_eq!((d[0].num_q_heads, d[0].num_kv_heads, d[0].head_dim), (24, 4, 256));
        assert_eq!(block_logs(r)[0], set_log(block), "{gpu} {vllm}");
        assert!(s.trace.iter().any(|t| t.rule == "drafter config"
            && t.outcome == "hf_config_override: model_type qwen3_5 → qwen3_5_mtp, architectures [\"Qwen3_5MTP\"]"));
        // vLLM's text, without a space after the comma, in every release.
        assert!(r.logs.contains(
            &"Enabling num_speculative_tokens > 1 will run multiple times of forward on same MTP layer,which may \
              result in lower acceptance rate"
                .to_string()
        ));
    }
    // The MoE's drafter is Qwen3_5MoeMTP.
    let r = run("h100-sxm", Release::LATEST.name(), &format!("{QWEN3_5_35B} {MTP2}"));
    let s = r.speculative.as_ref().unwrap();
    assert!(s
        .trace
        .iter()
        .any(|t| t.outcome.ends_with("architectures [\"Qwen3_5MoeMTP\"]")));
}

#[test]
fn mtp_with_flashinfer_forced_drops_cuda_graphs_to_piecewise_on_the_v1_runner() {
    // 0.24.0: Qwen3_5ForConditionalGeneration runs on the V1 runner, whose proposer never inherits the forced backend:
    // the target's FlashInfer (UNIFORM_SINGLE_TOKEN_DECODE on SM89 / SM120) cannot capture 3-token decodes, so
    // FULL_AND_PIECEWISE becomes PIECEWISE with vLLM's warning.
    for gpu in ["rtx-4090", "rtx-5090", "dgx-spark"] {
        // (0.20.x builds the drafter with the target's VllmConfig, so it inherits the forced backend: drafter.rs.)
        let r = run(
            gpu,
            Release::V0_24_0.name(),
            &format!("{QWEN3_5_27B} --attention-backend FLASHINFER {MTP2}"),
        );
        let r = ok(&r);
        assert_eq!(r.cuda_graphs.as_ref().unwrap().mode, "PIECEWISE", "{gpu}");
        assert!(r.logs.contains(
            &"CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention backend \
              FlashInferBackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting \
              cudagraph_mode=PIECEWISE"
                .to_string()
        ));
        let d = r.groups.iter().find(|g| g.role == GroupRole::Drafter).unwrap();
        assert_eq!(d.backend, Backend::FlashAttn, "{gpu}");
    }
}

/// The text-only classes (`Qwen3_5ForCausalLM`, a text config at the top level with model_type `qwen3_5_text`) are
/// registered from 0.27.0; MTP on them needs 0.28.0's `hf_config_override`, which rewrites `qwen3_5_text`.
#[test]
fn the_text_only_classes_and_their_mtp() {
    let config = include_str!("fixtures/qwen3.5-27b.config.json");
    let root: serde_json::Value = serde_json::from_str(config).unwrap();
    let mut text = root["text_config"].clone();
    text["architectures"] = serde_json::json!(["Qwen3_5ForCausalLM"]);
    let text = text.to_string();
    let resolve = |vllm: &str, cmd: &str| {
        let mut o = qpath_core::options::ScenarioOptions::default();
        o.set(qpath_core::options::OptionKey::Gpu, "h100-sxm").unwrap();
        o.set(qpath_core::options::OptionKey::Vllm, vllm).unwrap();
        let mut s = o.scenario(cmd).unwrap();
        s.model_config = Some(text.clone());
        qpath_core::resolve::resolve(&s)
    };
    let old = resolve("0.26.0", "vllm serve my/qwen3.5-text");
    let e = old.error.as_ref().expect("not registered in 0.26.0");
    assert_eq!(e.kind, ScenarioErrorKind::InputError);
    assert!(
        e.message.contains("\"Qwen3_5ForCausalLM\" is registered from vLLM 0.27.0 on"),
        "{}",
        e.message
    );
    let r = resolve("0.27.0", "vllm serve my/qwen3.5-text");
    assert_eq!(block_logs(ok(&r)), [set_log(784), pad_log("0.13")]);
    let mtp = resolve("0.27.0", &format!("vllm serve my/qwen3.5-text {MTP2}"));
    let e = mtp.error.as_ref().expect("0.27.0 does not rewrite qwen3_5_text");
    assert_eq!(
        (e.kind, e.message.as_str()),
        (
            ScenarioErrorKind::NotImplementedError,
            "Unsupported speculative method: 'mtp'"
        )
    );
    let mtp = resolve("0.28.0", &format!("vllm serve my/qwen3.5-text {MTP2}"));
    assert_eq!(ok(&mtp).groups.iter().filter(|g| g.role == GroupRole::Drafter).count(), 1);
}
