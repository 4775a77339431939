//! Golden cases for hybrid models: a gated-delta-net hybrid (Qwen3-Next-80B-A3B-Instruct) and a Mamba2 hybrid
//! (NVIDIA-Nemotron-Nano-9B-v2), at the first release qpath covers (both model files exist in every release from
//! 0.24.0) and at 0.33.0. Every number is derived by hand from the released source in the comment above its case.
//!
//! Shared arithmetic (vllm/model_executor/layers/mamba/mamba_utils.py, vllm/platforms/interface.py
//! `_align_hybrid_block_size`, vllm/v1/worker/utils.py `select_common_block_size`):
//!
//! Qwen3-Next (config: linear_num_key_heads 16, linear_num_value_heads 32, linear_key_head_dim 128,
//! linear_value_head_dim 128, linear_conv_kernel_dim 4; attention: 2 KV heads, head_dim 256; bfloat16):
//! - gated_delta_net_state_shape: conv_dim = 128*16*2 + 128*32 = 8192, conv state (4-1, 8192) = 24576 elements,
//!   temporal (32, 128, 128) = 524288 elements; both bfloat16 (mamba_cache_dtype / ssm auto = model dtype):
//!   mamba page = (24576 + 524288) * 2 = 1097728 bytes.
//! - attention page per token = 2 (K, V) * 2 heads * 256 * 2 bytes = 2048 bytes.
//! - mode none / align without checkpoint alignment: block = 16 * cdiv(1097728, 16*2048) = 16 * 34 = 544;
//!   padding = (544*2048 - 1097728) / 1097728 = 16384 / 1097728 = 1.49%.
//!
//! Nemotron-Nano-9B-v2 (mamba_num_heads 128, mamba_head_dim 80, n_groups 8, ssm_state_size 128, conv_kernel 4;
//! attention: 8 KV heads, head_dim 128; bfloat16; NemotronH turns --mamba-ssm-cache-dtype auto into float32):
//! - mamba2_state_shape: conv_dim = 128*80 + 2*8*128 = 12288, conv (3, 12288) = 36864 elements (bfloat16),
//!   temporal (128, 80, 128) = 1310720 elements (float32): page = 36864*2 + 1310720*4 = 5316608 bytes.
//! - attention page per token = 2 * 8 * 128 * 2 = 4096 bytes.
//! - mode none / align: block = 16 * cdiv(5316608, 65536) = 16 * 82 = 1312; padding = 57344 / 5316608 = 1.08%.

use qpath_core::capability::CudaVersion;
use qpath_core::dtype::TorchDtype;
use qpath_core::release::Release::{self, *};
use qpath_core::report::{AttentionKind, Backend, GroupReport, Kernel, Report};
use qpath_core::resolve::{resolve, Hardware, Scenario};

const QWEN3_NEXT: &str = "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct";
const NEMOTRON: &str = "vllm serve nvidia/NVIDIA-Nemotron-Nano-9B-v2";

fn run(gpu: &str, release: Release, cubins: Option<bool>, cuda: Option<(u8, u8)>, cmd: &str) -> Report {
    let mut s = Scenario::new(Hardware::parse(gpu).unwrap(), release, cmd);
    s.trtllm_cubins = cubins;
    if let Some((a, b)) = cuda {
        s.cuda = CudaVersion::new(a, b);
    }
    let r = resolve(&s);
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    r
}

fn group(r: &Report, layer: u32) -> &GroupReport {
    r.groups
        .iter()
        .find(|g| g.layers.contains(&layer))
        .unwrap_or_else(|| panic!("no group holds layer {layer}: {r:#?}"))
}

/// The outcome of the trace step named `rule` in `g`.
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

const FI_LOG_SM100: &str =
    "Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'FLASH_ATTN', 'TRITON_ATTN', 'FLEX_ATTENTION'].";

/// The recurrent group: its layers, kind and backend, its input dtype (the model's bfloat16 in both phases), its
/// kernels (`tests/golden_recurrent.rs` has their rules), and no error.
fn assert_recurrent(r: &Report, layers: &[u32], (kind, backend): (AttentionKind, Backend), kernels: (Kernel, Kernel)) {
    let g = group(r, layers[0]);
    assert_eq!(g.layers, layers);
    assert_eq!((g.attention, g.backend), (kind, backend));
    let bf16 = Some(TorchDtype::BFloat16);
    assert_eq!((g.q_dtype.prefill, g.q_dtype.decode), (bf16, bf16));
    assert_eq!((g.kernel.prefill, g.kernel.decode), (Some(kernels.0), Some(kernels.1)));
    assert!(g.error.is_none());
}

fn kernels(g: &GroupReport) -> (Option<Kernel>, Option<Kernel>) {
    assert!(g.error.is_none(), "group error {:?}\n{:#?}", g.error, g.trace);
    (g.kernel.prefill, g.kernel.decode)
}

fn qwen3_next_linear_layers() -> Vec<u32> {
    (0..48).filter(|i| (i + 1) % 4 != 0).collect()
}

/// 0.24.0 on B200 (FlashInfer first on SM10x; cubins ship with 0.24.0): prefix caching is off by default for hybrids
/// (config/model.py:1832), so mode "none": block 544 (see the module docs). FlashInfer's kernel sizes on SM100 with
/// GQA 16/2 and trtllm-gen usable are [16 .. 1024] (flashinfer.py:349); 544 is none of them, the largest divisor is
/// 32 (544 = 17 * 32; 544 / 64 = 8.5): FlashInfer sees 32-token pages, trtllm-gen runs both phases.
#[test]
fn qwen3_next_0_24_0_b200() {
    let r = run("b200", V0_24_0, None, None, QWEN3_NEXT);
    // B200 under the default CUDA 12.9: FLA's Triton prefill (FlashInfer's needs CUDA >= 13 on SM10x).
    assert_recurrent(
        &r,
        &qwen3_next_linear_layers(),
        (AttentionKind::LinearAttention, Backend::GdnAttn),
        (Kernel::GdnChunkFla, Kernel::GdnPackedDecode),
    );
    assert_eq!(r.groups.len(), 2);
    assert_eq!(r.groups[0].layers[0], 0, "groups in the order of their first layer");
    let g = group(&r, 3);
    assert_eq!(g.layers, (0..12).map(|i| 4 * i + 3).collect::<Vec<_>>());
    assert_eq!((g.attention, g.backend), (AttentionKind::Full, Backend::FlashInfer));
    assert_eq!(r.logs, vec![FI_LOG_SM100.to_string(), set_log(544), pad_log("1.49")]);
    assert!(step(g, "mamba page size").contains("= 1097728 bytes"));
    assert!(step(g, "attention page per token").contains("= 2048 bytes"));
    assert!(step(g, "attention block size").contains("16 x cdiv(1097728, 16 x 2048) = 544 tokens"));
    assert!(step(g, "kernel block size").contains("the largest that divides it, 32"));
    assert_eq!(kernels(g), (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen)));
}

/// 0.24.0 on B200 with --block-size 128: the alignment is max(16, 128) = 128, block = 128 * cdiv(1097728, 128*2048)
/// = 128 * 5 = 640 (the user's block size is overridden); padding (1310720 - 1097728) / 1097728 = 19.40%. The
/// kernel block is 128 (640 / 256 = 2.5), and a page >= 128 forces trtllm-gen prefill (flashinfer.py:982).
#[test]
fn qwen3_next_block_size_128_forces_trtllm_gen_prefill() {
    let r = run("b200", V0_24_0, None, None, &format!("{QWEN3_NEXT} --block-size 128"));
    assert_eq!(r.logs[1..], [set_log(640), pad_log("19.40")]);
    let g = group(&r, 3);
    assert!(step(g, "kernel block size").contains("the largest that divides it, 128"));
    assert!(step(g, "page size >= 128").contains("forces trtllm-gen for prefill"));
    assert_eq!(kernels(g), (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen)));
}

/// 0.33.0 on B200 under CUDA 13.0: prefix caching on by default (model.py:2277), mode "align" (config.py:764). The
/// GDN prefill runs on FlashInfer (SM10x, linear_key_head_dim 128, CUDA >= 13: qwen_gdn_linear_attn.py:148), whose
/// align-mode checkpoints need 64 tokens (qwen_gdn_linear_attn.py:696): alignment lcm(16, 64) = 64
/// (interface.py:1093), block = 64 * cdiv(1097728, 64*2048) = 64 * 9 = 576; padding 81920 / 1097728 = 7.46%. Offline
/// (no cubins): FlashInfer's sizes are [16, 32, 64], the kernel block 64 (576 = 9 * 64); FA2 both phases.
#[test]
fn qwen3_next_0_33_0_b200_cuda_13() {
    let r = run("b200", V0_33_0, Some(false), Some((13, 0)), QWEN3_NEXT);
    assert_recurrent(
        &r,
        &qwen3_next_linear_layers(),
        (AttentionKind::LinearAttention, Backend::GdnAttn),
        (Kernel::GdnChunkFlashInfer, Kernel::GdnPackedDecode),
    );
    assert_eq!(r.logs, vec![FI_LOG_SM100.to_string(), set_log(576), pad_log("7.46")]);
    let g = group(&r, 3);
    assert!(step(g, "prefill checkpoint alignment").contains("lcm(16, 64) = 64"));
    assert!(step(g, "kernel block size").contains("the largest that divides it, 64"));
    assert_eq!(kernels(g), (Some(Kernel::Fa2), Some(Kernel::Fa2)));
}

/// 0.33.0 on B200 under CUDA 12.9: the GDN prefill stays on Triton (CUDA < 13), no checkpoint alignment (lcm(16, 1)),
/// block 544 as in 0.24.0, kernel block 32. With --no-enable-prefix-caching the mode is "none" (config.py:781) and
/// the block is the same; the flag is read, so it is not listed as unused.
#[test]
fn qwen3_next_0_33_0_b200_cuda_12_9() {
    for extra in ["", " --no-enable-prefix-caching"] {
        let r = run("b200", V0_33_0, None, None, &format!("{QWEN3_NEXT}{extra}"));
        assert_eq!(r.logs[1..], [set_log(544), pad_log("1.49")], "{extra}");
        assert!(r.unused_flags.is_empty(), "{:?}", r.unused_flags);
        assert!(step(group(&r, 3), "kernel block size").contains("the largest that divides it, 32"));
    }
}

/// `--attention-backend` names attention backends only: the GDN layers keep GDN_ATTN (their `mamba_type`), the
/// attention layers take the forced FLASHINFER. On H100 (SM90) the GDN prefill runs on FlashInfer, so 0.33.0's align
/// mode gives block 576 and FlashInfer pages of 64 tokens, as on B200 with CUDA 13.
#[test]
fn attention_backend_does_not_apply_to_gdn_layers() {
    let r = run(
        "h100-sxm",
        V0_33_0,
        None,
        None,
        &format!("{QWEN3_NEXT} --attention-backend FLASHINFER"),
    );
    assert_recurrent(
        &r,
        &qwen3_next_linear_layers(),
        (AttentionKind::LinearAttention, Backend::GdnAttn),
        (Kernel::GdnChunkFlashInfer, Kernel::GdnPackedDecode),
    );
    assert_eq!(group(&r, 3).backend, Backend::FlashInfer);
    assert_eq!(r.logs[1..], [set_log(576), pad_log("7.46")]);
    assert!(step(group(&r, 3), "kernel block size").contains("the largest that divides it, 64"));
}

/// Nemotron-Nano-9B-v2 at 0.24.0 on B200: NemotronH's ssm dtype update logs first (config.py:480), then selection,
/// then the alignment: block 1312 (see the module docs), padding 1.08%; FlashInfer's sizes [16 .. 1024] (GQA 40/8 on
/// SM100, cubins shipped): 1312 / 64 = 20.5, 1312 = 41 * 32: kernel block 32. The 27 `M` layers are one MAMBA2
/// group; the 25 MLP layers have no token mixer and no group.
#[test]
fn nemotron_h_0_24_0_b200() {
    let r = run("b200", V0_24_0, None, None, NEMOTRON);
    let pattern = "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
    let mamba: Vec<u32> = pattern
        .char_indices()
        .filter(|(_, c)| *c == 'M')
        .map(|(i, _)| i as u32)
        .collect();
    assert_eq!(mamba.len(), 27);
    assert_recurrent(
        &r,
        &mamba,
        (AttentionKind::Mamba, Backend::Mamba2),
        (Kernel::MambaChunkScan, Kernel::SelectiveStateUpdate),
    );
    assert_eq!(
        r.model.as_ref().unwrap().num_layers,
        56,
        "decoder layers, MLP blocks included"
    );
    let g = group(&r, 14);
    assert_eq!(g.layers, vec![14, 21, 30, 39]);
    assert_eq!(
        r.logs,
        vec![
            "Updating mamba_ssm_cache_dtype to 'float32' for NemotronH model".to_string(),
            FI_LOG_SM100.to_string(),
            set_log(1312),
            pad_log("1.08"),
        ]
    );
    assert!(step(g, "mamba page size").contains("36864 x 2 + 1310720 x 4 = 5316608 bytes"));
    assert!(step(g, "kernel block size").contains("the largest that divides it, 32"));
    assert_eq!(kernels(g), (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen)));
}

/// --mamba-ssm-cache-dtype bfloat16: no NemotronH update, temporal state in 2 bytes: page 36864*2 + 1310720*2 =
/// 2695168; block 16 * cdiv(2695168, 65536) = 16 * 42 = 672; padding (2752512 - 2695168) / 2695168 = 2.13%; kernel
/// block 32 (672 / 64 = 10.5, 672 = 21 * 32).
#[test]
fn nemotron_h_ssm_cache_dtype_bfloat16() {
    let r = run(
        "b200",
        V0_24_0,
        None,
        None,
        &format!("{NEMOTRON} --mamba-ssm-cache-dtype bfloat16"),
    );
    assert_eq!(r.logs, vec![FI_LOG_SM100.to_string(), set_log(672), pad_log("2.13")]);
    assert!(step(group(&r, 14), "kernel block size").contains("the largest that divides it, 32"));
}

/// 0.27.0 with cubins: prefix caching on (0.26.0+), and NemotronH has SupportsMambaPrefixCaching, so mode "all"
/// (config.py:614, still 0.27.x). The block aligns to the chunk size (interface.py:890): state = cdiv(5316608, 4096)
/// = 1298 tokens; lcm(128, 16) = 128; 128 * cdiv(1298, 128) = 1408; padding (5767168 - 5316608) / 5316608 = 8.47%.
/// Kernel block 128 (1408 = 11 * 128; 1408 / 256 = 5.5): trtllm-gen prefill forced. Without cubins FlashInfer
/// declares [16, 32, 64] and the kernel block is 64.
#[test]
fn nemotron_h_0_27_0_all_mode_gives_128_token_pages() {
    let r = run("b200", V0_27_0, Some(true), None, NEMOTRON);
    assert_eq!(r.logs[2..], [set_log(1408), pad_log("8.47")]);
    let g = group(&r, 14);
    assert!(step(g, "mamba cache mode").contains("\"all\""));
    assert!(step(g, "kernel block size").contains("the largest that divides it, 128"));
    assert!(step(g, "page size >= 128").contains("forces trtllm-gen"));
    assert_eq!(kernels(g), (Some(Kernel::TrtllmGen), Some(Kernel::TrtllmGen)));
    let r = run("b200", V0_27_0, Some(false), None, NEMOTRON);
    assert!(step(group(&r, 14), "kernel block size").contains("the largest that divides it, 64"));
}

/// 0.33.0 on B200: mode "align" (the default from 0.28.0); Mamba2 layers declare no checkpoint alignment, so
/// lcm(16, 1) = 16 and the block is 1312 again (0.32.0+ rounding to the smallest kernel block changes nothing);
/// offline (no cubins): FlashInfer's [16, 32, 64], kernel block 32, FA2 both phases.
#[test]
fn nemotron_h_0_33_0_b200() {
    let r = run("b200", V0_33_0, Some(false), None, NEMOTRON);
    assert_eq!(r.logs[2..], [set_log(1312), pad_log("1.08")]);
    let g = group(&r, 14);
    assert!(step(g, "mamba cache mode").contains("\"align\""));
    assert!(step(g, "prefill checkpoint alignment").contains("lcm(16, 1) = 16"));
    assert!(step(g, "kernel block size").contains("the largest that divides it, 32"));
    assert_eq!(kernels(g), (Some(Kernel::Fa2), Some(Kernel::Fa2)));
}

/// The text and Markdown renderings list the recurrent group with its backend, its input dtype and kernels.
#[test]
fn renderings_show_recurrent_groups() {
    let r = run("b200", V0_24_0, None, None, NEMOTRON);
    let text = qpath_core::render::text(&r);
    assert!(text.contains("mamba"), "{text}");
    assert!(text.contains("conv bfloat16 / ssm float32"), "{text}");
    assert!(text.contains("mamba-chunk-scan"), "{text}");
    assert!(text.contains("selective-state-update"), "{text}");
    assert!(!text.contains("no query dtype"), "{text}");
    let md = qpath_core::render::markdown(&r, NEMOTRON, None);
    assert!(md.contains("| mamba | MAMBA2 |"), "{md}");
    assert!(md.contains(&set_log(1312)), "{md}");
}

/// 0.33.0's align-mode checkpoint alignment follows the GDN layers' *active* prefill kernel (qwen_gdn_linear_attn.py:696
/// sets `_checkpoint_alignment` only when `self.gdn_prefill_backend == "flashinfer"`): on H100 FlashInfer
/// gives lcm(16, 64) = 64 and block 576; `--gdn-prefill-backend triton` keeps FLA's prefill, no checkpoint alignment
/// (lcm(16, 1) = 16) and block 544 as without align mode; the flag is read, not listed as unused.
#[test]
fn checkpoint_alignment_follows_the_active_gdn_prefill() {
    let r = run("h100-sxm", V0_33_0, None, None, QWEN3_NEXT);
    assert_eq!(r.logs[1..], [set_log(576), pad_log("7.46")]);
    assert!(step(group(&r, 3), "prefill checkpoint alignment").contains("lcm(16, 64) = 64"));
    let r = run(
        "h100-sxm",
        V0_33_0,
        None,
        None,
        &format!("{QWEN3_NEXT} --gdn-prefill-backend triton"),
    );
    assert!(r.unused_flags.is_empty(), "{:?}", r.unused_flags);
    assert_eq!(r.logs[1..], [set_log(544), pad_log("1.49")]);
    let g = group(&r, 3);
    assert!(step(g, "GDN prefill backend").starts_with("triton (--gdn-prefill-backend triton, although FlashInfer"));
    assert!(step(g, "prefill checkpoint alignment").contains("lcm(16, 1) = 16"));
    assert_eq!(group(&r, 0).kernel.prefill, Some(Kernel::GdnChunkFla));
    // B200 under CUDA 13: --gdn-prefill-backend cutedsl runs CuTe DSL, which emits no checkpoints either.
    let r = run(
        "b200",
        V0_33_0,
        Some(false),
        Some((13, 0)),
        &format!("{QWEN3_NEXT} --gdn-prefill-backend cutedsl"),
    );
    assert_eq!(r.logs[1..], [set_log(544), pad_log("1.49")]);
    assert_eq!(group(&r, 0).kernel.prefill, Some(Kernel::GdnChunkCuteDsl));
}

/// Granite-4.0-H (`GraniteMoeHybridForCausalLM`, granitemoehybrid.py, every release) from a config.json: the 350M
/// checkpoint's fields as tests/fixtures/granite-4.0-h-350m.restated.config.json restates them (from a public MLX
/// copy that mirrors the checkpoint's 32-entry layer_types; `architectures` and `torch_dtype` added, the MLX
/// `quantization` block removed: not IBM's file byte for byte). By hand:
/// - attention layers 10, 13, 17, 27 (`attention`), 28 Mamba2 layers; attention head size 768 // 12 = 64, 4 KV heads.
/// - Mamba2 state: intermediate = mamba_expand 2 * 768 = 1536 (= 48 heads * 32); conv (3, 1536 + 2*1*128 = 1792) =
///   5376 elements, temporal (48, 32, 128) = 196608 elements, both bf16 (no MODELS_CONFIG_MAP entry: the SSM dtype
///   stays auto): page = (5376 + 196608) * 2 = 403968 bytes; attention page per token = 2 * 4 * 64 * 2 = 1024.
/// - none / align mode: 16 * cdiv(403968, 16384) = 16 * 25 = 400, padding 5632 / 403968 = 1.39%.
/// - 0.26.0-0.27.x with prefix caching on (the default from 0.26.0) and SupportsMambaPrefixCaching: "all" mode, the
///   smallest multiple of lcm(mamba_chunk_size 256, 16) covering 403968 / 1024 = 394.5 tokens: 512, padding 29.78%.
#[test]
fn granite_4_0_h_from_its_config_json() {
    let config = include_str!("fixtures/granite-4.0-h-350m.restated.config.json");
    let run_at = |vllm: Release, text: &str| {
        let mut s = Scenario::new(
            Hardware::parse("h100-sxm").unwrap(),
            vllm,
            "vllm serve ibm-granite/granite-4.0-h-350m",
        );
        s.model_config = Some(text.to_string());
        resolve(&s)
    };
    for (vllm, block, pad) in [
        (V0_24_0, 400, "1.39"),
        (V0_27_0, 512, "29.78"),
        (Release::LATEST, 400, "1.39"),
    ] {
        let r = run_at(vllm, config);
        assert!(r.error.is_none(), "{vllm}: {:?}", r.error);
        let (m, a) = (&r.groups[0], &r.groups[1]);
        assert_eq!(
            (m.attention, m.backend, m.layers.len()),
            (AttentionKind::Mamba, Backend::Mamba2, 28),
            "{vllm}"
        );
        assert_eq!((a.attention, a.layers.clone()), (AttentionKind::Full, vec![10, 13, 17, 27]));
        assert_eq!((a.num_kv_heads, a.head_dim), (4, 64));
        assert_eq!(r.logs[1..], [set_log(block), pad_log(pad)], "{vllm}");
        // Granite has no NemotronH-style SSM dtype update: no "Updating mamba_ssm_cache_dtype" line.
        assert!(r.logs.iter().all(|l| !l.starts_with("Updating mamba_ssm_cache_dtype")));
    }
    // transformers >= 5.13's names in config.json: 0.24.0's layer map has only `attention` / `mamba` (KeyError);
    // 0.33.0 reads them, the same answer.
    let renamed = config
        .replace("\"mamba\"", "\"linear_attention\"")
        .replace("\"attention\"", "\"full_attention\"");
    let old = run_at(V0_24_0, &renamed);
    let e = old.error.as_ref().expect("KeyError");
    assert!(e.message.contains("raises KeyError: 'linear_attention'"), "{}", e.message);
    let new = run_at(Release::LATEST, &renamed);
    assert_eq!(new.groups, run_at(Release::LATEST, config).groups);
}
