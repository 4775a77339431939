//! Golden cases for what the platform and the engine config decide in the old releases 0.20.0 - 0.23.0, each beside
//! the first release with the new behaviour: the default backend of Llama-3.1-8B per GPU and cache dtype with its
//! CUDA-graph mode (the non-MLA priority list `_get_backend_priorities` is the same in 0.20.0 - 0.24.0; what moves is
//! FlashInfer's SM75 floor, raised in 0.24.0), the chosen-backend log line, the selector config's repr
//! (`use_kv_connector` from 0.23.0), 0.20.x's dflash `use_non_causal` for every layer, the checkpoint's KV-cache
//! quantization (a compressed-tensors scheme over an explicit dtype before 0.22.0, fp8_e5m2 with a weight-only
//! compressed-tensors checkpoint before 0.24.0), TRITON_MLA's NEVER CUDA-graph support before 0.22.0, and the
//! retired environment variables. Texts and lines are the released wheels' (`vllm-<VER>/vllm/platforms/cuda.py`,
//! `v1/attention/selector.py`, `model_executor/layers/attention/attention.py`, `config/compilation.py`, `envs.py`).

mod common;
use common::run;
use qpath_core::gpu;
use qpath_core::release::Release;
use qpath_core::report::{Backend, CgSupport, LogLevel, Report, ScenarioErrorKind};
use qpath_core::resolve::{resolve, Hardware, Scenario};

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
const LLAMA_31_8B: &str = include_str!("fixtures/llama-3.1-8b-instruct.config.json");

/// `base` with `extra` (a `"key": value` member) added at the top level.
fn with(base: &str, extra: &str) -> String {
    let i = base.rfind('}').expect("an object");
    format!("{},\n  {extra}\n}}", base[..i].trim_end())
}

fn with_config(gpu_id: &str, release: Release, line: &str, config: &str) -> Report {
    let g = gpu::find(gpu_id).unwrap_or_else(|| panic!("GPU {gpu_id}"));
    let mut s = Scenario::new(Hardware::Gpu(g), release, line);
    s.model_config = Some(config.to_string());
    resolve(&s)
}

/// The one backend every group of `r` runs (no scenario error).
fn backend(r: &Report) -> Backend {
    assert!(r.error.is_none(), "scenario error: {:?}", r.error);
    let b = r.groups[0].backend;
    assert!(r.groups.iter().all(|g| g.backend == b), "{:?}", r.groups);
    b
}

/// The `Using X attention backend out of potential backends: [...]` record: (line, text).
fn chosen_record(r: &Report) -> (u32, String) {
    let l = r
        .log_records
        .iter()
        .find(|l| l.text.contains("attention backend out of potential backends"))
        .unwrap_or_else(|| panic!("no chosen-backend record in {:#?}", r.log_records));
    assert_eq!((l.level, l.file), (LogLevel::Info, "vllm/platforms/cuda.py"));
    (l.line, l.text.clone())
}

/// Llama-3.1-8B's backend with `--kv-cache-dtype auto` / `fp8` on T4, A100, L4, H100, B200 and RTX 5090, and its
/// CUDA-graph support; the mode stays the -O2 default FULL_AND_PIECEWISE everywhere (no backend below
/// UNIFORM_SINGLE_TOKEN_DECODE, no speculative tokens). The lists are `_get_backend_priorities`' non-MLA lists
/// (cuda.py:79@0.20.0 - 0.23.0): FLASH_ATTN, FLASHINFER, TRITON_ATTN, FLEX_ATTENTION, TURBOQUANT; FLASHINFER first
/// on 10.x. FLASH_ATTN needs SM80 and serves FP8 only with FA3 on 9.x; FlashInfer serves SM75 before 0.24.0
/// (flashinfer.py:406@0.20.0 `capability >= DeviceCapability(7, 5)`), from SM80 in 0.24.0.
#[test]
fn llama_default_backend_per_gpu_and_cache_dtype_in_each_old_codebase() {
    use Backend::{FlashAttn as Fa, FlashInfer as Fi, TritonAttn as Tr};
    use CgSupport::{UniformBatch as Batch, UniformSingleTokenDecode as Single};
    // (gpu, kv, backend before 0.24.0, backend in 0.24.0, CUDA-graph support before 0.24.0, in 0.24.0)
    type Row = (
        &'static str,
        &'static str,
        Backend,
        Backend,
        Option<CgSupport>,
        Option<CgSupport>,
    );
    let rows: [Row; 12] = [
        ("t4", "auto", Fi, Tr, Some(Single), Some(CgSupport::Always)),
        ("t4", "fp8", Fi, Tr, Some(Single), None),
        ("a100-80gb", "auto", Fa, Fa, Some(Batch), Some(Batch)),
        ("a100-80gb", "fp8", Fi, Fi, Some(Single), Some(Single)),
        ("l4", "auto", Fa, Fa, Some(Batch), Some(Batch)),
        ("l4", "fp8", Fi, Fi, Some(Single), Some(Single)),
        ("h100-sxm", "auto", Fa, Fa, Some(CgSupport::Always), Some(CgSupport::Always)),
        ("h100-sxm", "fp8", Fa, Fa, Some(CgSupport::Always), Some(CgSupport::Always)),
        ("b200", "auto", Fi, Fi, Some(Batch), Some(Batch)),
        ("b200", "fp8", Fi, Fi, Some(Batch), Some(Batch)),
        ("rtx-5090", "auto", Fa, Fa, Some(Batch), Some(Batch)),
        ("rtx-5090", "fp8", Fi, Fi, Some(Single), Some(Single)),
    ];
    for (gpu_id, kv, old, new, old_cg, new_cg) in rows {
        for vllm in ["0.20.0", "0.21.0", "0.22.0", "0.23.0", "0.24.0"] {
            let r = run(gpu_id, vllm, &format!("{LLAMA} --kv-cache-dtype {kv}"));
            let (want, want_cg) = if vllm == "0.24.0" { (new, new_cg) } else { (old, old_cg) };
            let what = format!("{gpu_id} {kv} at {vllm}");
            if vllm == "0.24.0" && gpu_id == "t4" && kv == "fp8" {
                // Triton's FP8 cache on SM75 is vLLM's ValueError at engine start (a group error): selection chose it.
                assert_eq!(r.groups[0].backend, Tr, "{what}");
                continue;
            }
            assert_eq!(backend(&r), want, "{what}");
            let cg = r.cuda_graphs.as_ref().expect("CUDA graphs");
            assert_eq!(
                (cg.requested.as_str(), cg.mode.as_str()),
                ("FULL_AND_PIECEWISE", "FULL_AND_PIECEWISE"),
                "{what}"
            );
            assert_eq!(cg.error, None, "{what}");
            assert_eq!(cg.support, want_cg, "{what}");
            assert!(cg.log_records.is_empty(), "{what}: {:?}", cg.log_records);
        }
    }
}

/// `get_attn_backend_cls`'s `logger.info_once("Using %s attention backend out of potential backends: %s.", ...)`:
/// the same text in every release, at cuda.py:368 (0.20.x), 372 (0.21.0), 378 (0.22.x, 0.23.0), 480 (0.24.0).
#[test]
fn the_chosen_backend_line_is_the_releases_own() {
    for (vllm, line) in [
        ("0.20.0", 368),
        ("0.20.1", 368),
        ("0.20.2", 368),
        ("0.21.0", 372),
        ("0.22.0", 378),
        ("0.22.1", 378),
        ("0.23.0", 378),
        ("0.24.0", 480),
    ] {
        let r = run("h100-sxm", vllm, LLAMA);
        assert_eq!(
            chosen_record(&r),
            (
                line,
                "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', \
                 'TRITON_ATTN', 'FLEX_ATTENTION']."
                    .to_string()
            ),
            "{vllm}"
        );
    }
    // T4 before 0.24.0: FLASH_ATTN refuses SM75, FLASHINFER is the first valid one.
    let r = run("t4", "0.23.0", LLAMA);
    assert_eq!(
        chosen_record(&r),
        (
            378,
            "Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN', \
             'FLEX_ATTENTION']."
                .to_string()
        )
    );
}

/// `AttentionSelectorConfig.__repr__` in the no-valid-backend ValueError (cuda.py:342@0.22.0 / 0.23.0): 0.23.0 added
/// `use_kv_connector` (selector.py:34@0.23.0); 0.22.x ends the repr at `use_batch_invariant`.
#[test]
fn the_selector_repr_has_use_kv_connector_from_0_23_0() {
    for (vllm, tail) in [
        ("0.22.0", "use_batch_invariant=False). Reasons: {"),
        ("0.23.0", "use_batch_invariant=False, use_kv_connector=False). Reasons: {"),
    ] {
        let r = run("b200", vllm, &format!("{LLAMA} --block-size 8 -ac.flash_attn_version 2"));
        let e = r.error.expect("no valid backend");
        assert_eq!(e.kind, ScenarioErrorKind::ValueError);
        assert!(
            e.message.starts_with(
                "No valid attention backend found for cuda with AttentionSelectorConfig(head_size=128, \
                 dtype=torch.bfloat16, kv_cache_dtype=auto, block_size=8, use_mla=False, has_sink=False, \
                 use_sparse=False, use_mm_prefix=False, use_per_head_quant_scales=False, \
                 attn_type=AttentionType.DECODER, use_non_causal=False, "
            ),
            "{vllm}: {}",
            e.message
        );
        assert!(e.message.contains(tail), "{vllm}: {}", e.message);
        assert_eq!(e.source.as_deref(), Some("vllm/platforms/cuda.py:342"), "{vllm}");
    }
}

/// 0.20.x: `get_attn_backend` selects every layer, the target's too, with `use_non_causal` when the speculative
/// method is dflash (selector.py:85@0.20.0); FlashInfer does not support non-causal attention before 0.24.0, so
/// Llama on B200 runs FLASH_ATTN. 0.21.0 reads `attention_config.use_non_causal`, which only the DFlash drafter's own
/// config sets: the target keeps FLASHINFER.
#[test]
fn dflash_makes_every_layer_non_causal_in_0_20() {
    let line = format!(
        "{LLAMA} --speculative-config '{{\"method\": \"dflash\", \"model\": \
         \"z-lab/LLaMA3.1-8B-Instruct-DFlash-UltraChat\", \"num_speculative_tokens\": 4}}'"
    );
    for (vllm, want, text) in [
        (
            "0.20.0",
            Backend::FlashAttn,
            "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'TRITON_ATTN', \
             'FLEX_ATTENTION'].",
        ),
        (
            "0.20.2",
            Backend::FlashAttn,
            "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'TRITON_ATTN', \
             'FLEX_ATTENTION'].",
        ),
        (
            "0.21.0",
            Backend::FlashInfer,
            "Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'FLASH_ATTN', \
             'TRITON_ATTN', 'FLEX_ATTENTION'].",
        ),
    ] {
        let r = run("b200", vllm, &line);
        assert_eq!(backend(&r), want, "{vllm}");
        assert_eq!(chosen_record(&r).1, text, "{vllm}");
        let fi = r.groups[0]
            .trace
            .iter()
            .find(|s| s.rule.starts_with("backend FLASHINFER"))
            .map(|s| s.outcome.to_string());
        if want == Backend::FlashAttn {
            assert_eq!(fi.as_deref(), Some("rejected: non-causal attention not supported"), "{vllm}");
        }
    }
    // Without a speculative config nothing is non-causal in 0.20.x either.
    assert_eq!(backend(&run("b200", "0.20.0", LLAMA)), Backend::FlashInfer);
}

/// The `quantization_config` llm-compressor writes for an FP8 KV cache (compressed-tensors, as golden_config's).
const CT_FP8_KV: &str = r#""quantization_config": {
    "quant_method": "compressed-tensors",
    "format": "float-quantized",
    "quantization_status": "compressed",
    "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false, "symmetric": true},
    "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "dynamic": false, "symmetric": true}}},
    "ignore": ["lm_head"]
  }"#;

/// 0.20.0 - 0.21.0: `Attention.__init__` applies a compressed-tensors `kv_cache_scheme` whatever `--kv-cache-dtype`
/// says (attention.py:233@0.21.0 `if kv_cache_scheme is not None:`), so an explicit bfloat16 cache is fp8 and an
/// explicit fp8_e5m2 one is fp8 too (no e5m2 error). 0.22.0 honours the explicit dtype (attention.py:238@0.22.0):
/// bfloat16 stays, fp8_e5m2 is the fp8-checkpoint ValueError (attention.py:168@0.22.0).
#[test]
fn a_compressed_tensors_scheme_overrides_an_explicit_dtype_before_0_22_0() {
    let ct = with(LLAMA_31_8B, CT_FP8_KV);
    for (release, cache, line) in [
        (Release::V0_20_0, "fp8", 233),
        (Release::V0_21_0, "fp8", 233),
        // The model's own dtype as the cache: the group's cache dtype reads "auto", as for any release's
        // `--kv-cache-dtype bfloat16` on a bfloat16 model.
        (Release::V0_22_0, "auto", 0),
        (Release::V0_23_0, "auto", 0),
    ] {
        let r = with_config("h100-sxm", release, "vllm serve m --kv-cache-dtype bfloat16", &ct);
        assert!(r.error.is_none(), "{release}: {:?}", r.error);
        assert!(r.groups.iter().all(|g| g.cache_dtype == cache), "{release}: {:?}", r.groups);
        let step = if line == 0 {
            "kv_cache_dtype \"bfloat16\" (no skip list)"
        } else {
            "kv_cache_dtype \"fp8\", from the checkpoint's quantization_config.kv_cache_scheme (any --kv-cache-dtype \
             before 0.22.0)"
        };
        assert_eq!(r.groups[0].trace[0].outcome, step, "{release}");
        let note = r
            .notes
            .iter()
            .find(|n| n.text.contains("makes vLLM use kv_cache_dtype"))
            .map(|n| n.text.clone());
        if line == 0 {
            assert_eq!(note, None, "{release}");
        } else {
            assert_eq!(
                note.as_deref(),
                Some(
                    format!(
                        "--kv-cache-dtype bfloat16: the checkpoint's quantization_config.kv_cache_scheme makes vLLM \
                         use kv_cache_dtype \"fp8\" (Attention.__init__, \
                         vllm/model_executor/layers/attention/attention.py:{line})."
                    )
                    .as_str()
                ),
                "{release}"
            );
        }
    }
    let e5m2 = |release| with_config("a100-80gb", release, "vllm serve m --kv-cache-dtype fp8_e5m2", &ct);
    let r = e5m2(Release::V0_21_0);
    assert!(r.error.is_none(), "{:?}", r.error);
    assert!(r.groups.iter().all(|g| g.cache_dtype == "fp8"));
    let e = e5m2(Release::V0_22_0).error.expect("the fp8-checkpoint error");
    assert_eq!(
        (e.kind, e.message.as_str(), e.source.as_deref()),
        (
            ScenarioErrorKind::ValueError,
            "fp8_e5m2 kv-cache is not supported with fp8 checkpoints.",
            Some("vllm/model_executor/layers/attention/attention.py:168")
        )
    );
}

/// Before 0.24.0 a weight-only compressed-tensors checkpoint (no `kv_cache_scheme`) refuses fp8_e5m2 too: its config
/// gives every Attention layer a `CompressedTensorsKVCacheMethod` (compressed_tensors.py:206@0.23.0) and
/// `_init_kv_cache_quant` raises for any such method (attention.py:168@0.20.0 - 0.23.0); 0.24.0 exempts a
/// compressed-tensors checkpoint without a scheme (attention.py:177-181@0.24.0).
#[test]
fn fp8_e5m2_with_a_weight_only_compressed_tensors_checkpoint_fails_before_0_24_0() {
    let weight_only = with(
        LLAMA_31_8B,
        r#""quantization_config": {"quant_method": "compressed-tensors", "kv_cache_scheme": null}"#,
    );
    for release in [Release::V0_20_0, Release::V0_21_0, Release::V0_22_1, Release::V0_23_0] {
        let r = with_config("a100-80gb", release, "vllm serve m --kv-cache-dtype fp8_e5m2", &weight_only);
        let e = r.error.unwrap_or_else(|| panic!("{release}: no error"));
        assert_eq!(
            (e.kind, e.message.as_str(), e.source.as_deref()),
            (
                ScenarioErrorKind::ValueError,
                "fp8_e5m2 kv-cache is not supported with fp8 checkpoints.",
                Some("vllm/model_executor/layers/attention/attention.py:168")
            ),
            "{release}"
        );
    }
    let r = with_config(
        "a100-80gb",
        Release::V0_24_0,
        "vllm serve m --kv-cache-dtype fp8_e5m2",
        &weight_only,
    );
    assert!(r.error.is_none(), "{:?}", r.error);
    assert!(r.groups.iter().all(|g| g.cache_dtype == "fp8_e5m2"));
}

/// TRITON_MLA before 0.22.0 has no builder of its own: `MLACommonMetadataBuilder` keeps the base class's
/// `_cudagraph_support = NEVER` (backend.py:519@0.21.0). `resolve_cudagraph_mode_and_sizes` then downgrades the
/// default FULL_AND_PIECEWISE to PIECEWISE with its warning (compilation.py:1370@0.21.0) and raises for FULL
/// (compilation.py:1334@0.21.0). 0.22.0's TritonMLAMetadataBuilder declares UNIFORM_BATCH: the default stays.
#[test]
fn triton_mla_has_no_full_cuda_graphs_before_0_22_0() {
    const V2_LITE: &str = "vllm serve deepseek-ai/DeepSeek-V2-Lite";
    for vllm in ["0.20.0", "0.21.0"] {
        let r = run("a100-80gb", vllm, V2_LITE);
        assert_eq!(backend(&r), Backend::TritonMla, "{vllm}");
        let cg = r.cuda_graphs.as_ref().expect("CUDA graphs");
        assert_eq!(
            (cg.mode.as_str(), cg.support, cg.min_backend.as_deref()),
            ("PIECEWISE", Some(CgSupport::Never), Some("TritonMLABackend")),
            "{vllm}"
        );
        let w: Vec<(LogLevel, String, &str)> = cg
            .log_records
            .iter()
            .map(|l| (l.level, l.location(), l.text.as_str()))
            .collect();
        assert_eq!(
            w,
            [(
                LogLevel::Warning,
                "compilation.py:1370".to_string(),
                "CUDAGraphMode.FULL_AND_PIECEWISE is not supported with TritonMLABackend backend (support: \
                 AttentionCGSupport.NEVER); setting cudagraph_mode=PIECEWISE because attention is compiled piecewise"
            )],
            "{vllm}"
        );
        let r = run("a100-80gb", vllm, &format!("{V2_LITE} -cc.cudagraph_mode FULL"));
        let e = r.error.expect("FULL under NEVER");
        assert_eq!(
            (e.kind, e.message.as_str(), e.source.as_deref()),
            (
                ScenarioErrorKind::ValueError,
                "CUDAGraphMode.FULL is not supported with TritonMLABackend backend (support: \
                 AttentionCGSupport.NEVER); please try cudagraph_mode=PIECEWISE, and make sure compilation mode is \
                 VLLM_COMPILE",
                Some("vllm/config/compilation.py:1334")
            ),
            "{vllm}"
        );
    }
    let r = run("a100-80gb", "0.22.0", V2_LITE);
    assert_eq!(backend(&r), Backend::TritonMla);
    let cg = r.cuda_graphs.as_ref().expect("CUDA graphs");
    assert_eq!(
        (cg.mode.as_str(), cg.support),
        ("FULL_AND_PIECEWISE", Some(CgSupport::UniformBatch))
    );
    assert!(cg.log_records.is_empty());
}

/// `--attention-backend` with a member qpath does not model: the list names only the modelled backends this
/// release's `AttentionBackendEnum` has (TREE_ATTN is a member in 0.20.x only; TOKENSPEED_MLA from 0.21.0, the
/// composites from 0.30.0).
#[test]
fn an_unmodelled_backend_lists_the_releases_modelled_members() {
    let r = run("h100-sxm", "0.20.0", &format!("{LLAMA} --attention-backend TREE_ATTN"));
    let e = r.error.expect("an InputError");
    assert_eq!(e.kind, ScenarioErrorKind::InputError);
    assert_eq!(
        e.message,
        "qpath cannot model this: attention backend TREE_ATTN: qpath models FLASH_ATTN, FLASHINFER, TRITON_ATTN, \
         FLEX_ATTENTION, TURBOQUANT, FLASHMLA, FLASHMLA_SPARSE, CUTLASS_MLA, FLASHINFER_MLA, FLASHINFER_MLA_SPARSE, \
         TRITON_MLA, FLASH_ATTN_MLA"
    );
    // 0.21.0 dropped TREE_ATTN from the enum: vLLM's own error.
    let r = run("h100-sxm", "0.21.0", &format!("{LLAMA} --attention-backend TREE_ATTN"));
    let e = r.error.expect("vLLM's error");
    assert!(e.message.contains("Unknown attention backend: 'TREE_ATTN'"), "{}", e.message);
}

/// `VLLM_ATTENTION_BACKEND` is not in 0.20.0's `environment_variables` either: `validate_environ` logs it as
/// unknown (envs.py:1818@0.20.0, 1830@0.20.1) and qpath's note names the flag to use.
#[test]
fn vllm_attention_backend_is_unknown_in_0_20_too() {
    for (vllm, line) in [("0.20.0", 1818), ("0.20.1", 1830), ("0.23.0", 2088)] {
        let r = run("h100-sxm", vllm, &format!("VLLM_ATTENTION_BACKEND=FLASHINFER {LLAMA}"));
        assert_eq!(backend(&r), Backend::FlashAttn, "{vllm}");
        let l = r
            .log_records
            .iter()
            .find(|l| l.text == "Unknown vLLM environment variable detected: VLLM_ATTENTION_BACKEND")
            .unwrap_or_else(|| panic!("{vllm}: {:#?}", r.log_records));
        assert_eq!(
            (l.level, l.location()),
            (LogLevel::Warning, format!("envs.py:{line}")),
            "{vllm}"
        );
        assert!(
            r.notes.iter().any(|n| n.text
                == format!(
                    "VLLM_ATTENTION_BACKEND: vLLM {vllm} does not read it (it is not in vllm/envs.py's \
                     environment_variables; no release from 0.20.0 on reads it), so it changes nothing; use \
                     --attention-backend (e.g. --attention-backend FLASHINFER)."
                )),
            "{vllm}: {:#?}",
            r.notes
        );
    }
}

/// `MM_PREFIX_LM_MODELS` (`ModelArchConfigConvertorBase.is_mm_prefix_lm`): 0.20.x's list has no moondream3
/// (model_arch_config_convertor.py:266@0.20.0), 0.21.0 adds it (:270@0.21.0); umm is in every old list.
#[test]
fn moondream3_is_a_prefix_lm_from_0_21_0() {
    let mut spec = qpath_core::model::resolve_model_at(Release::V0_20_0, "Qwen/Qwen3-4B", None).unwrap();
    for (model_type, release, want) in [
        ("moondream3", Release::V0_20_0, false),
        ("moondream3", Release::V0_20_2, false),
        ("moondream3", Release::V0_21_0, true),
        ("moondream3", Release::V0_24_0, true),
        ("umm", Release::V0_20_0, true),
        ("molmo2", Release::V0_20_0, true),
    ] {
        spec.model_type = Some(model_type.to_string());
        assert_eq!(spec.is_mm_prefix_lm(release), want, "{model_type} at {release}");
        assert_eq!(spec.layers_use_mm_prefix(release), want, "{model_type} at {release}");
    }
}

/// `validate_kv_cache_scheme` before 0.24.0 raises only when both the type and the bits are wrong
/// (`if type_ != "float" and num_bits != 8:`, compressed_tensors.py:986@0.23.0, the raise at :987): an int8 scheme
/// passes and the layers cache fp8 (`Attention.__init__`); 0.24.0's `or` refuses it (:987@0.24.0).
#[test]
fn an_int8_kv_scheme_passes_validation_before_0_24_0() {
    let scheme = |t: &str, bits: u32| {
        with(
            LLAMA_31_8B,
            &format!(
                r#""quantization_config": {{"quant_method": "compressed-tensors", "kv_cache_scheme": {{"num_bits": {bits}, "type": "{t}", "strategy": "tensor", "symmetric": true}}}}"#
            ),
        )
    };
    let int8 = scheme("int", 8);
    for release in [Release::V0_20_0, Release::V0_22_0, Release::V0_23_0] {
        let r = with_config("h100-sxm", release, "vllm serve m", &int8);
        assert!(r.error.is_none(), "{release}: {:?}", r.error);
        assert!(r.groups.iter().all(|g| g.cache_dtype == "fp8"), "{release}");
    }
    let not_implemented = |release, config: &str, message: &str, line: u32| {
        let r = with_config("h100-sxm", release, "vllm serve m", config);
        let e = r.error.unwrap_or_else(|| panic!("{release}: no error"));
        assert_eq!(
            (e.kind, e.message.as_str(), e.source),
            (
                ScenarioErrorKind::NotImplementedError,
                message,
                Some(format!(
                    "vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors.py:{line}"
                ))
            ),
            "{release}"
        );
    };
    not_implemented(
        Release::V0_24_0,
        &int8,
        "Currently supported kv cache quantization is num_bits=8, type=float, however received num_bits=8, type=int",
        987,
    );
    not_implemented(
        Release::V0_23_0,
        &scheme("int", 4),
        "Currently supported kv cache quantization is num_bits=8, type=float, however received num_bits=4, type=int",
        987,
    );
    not_implemented(
        Release::V0_20_0,
        &scheme("int", 4),
        "Currently supported kv cache quantization is num_bits=8, type=float, however received num_bits=4, type=int",
        983,
    );
}
