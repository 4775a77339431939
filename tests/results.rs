//! Browser tests of the results view: each test resolves a real scenario with the core, mounts `Results` with that
//! report into its own container, lets Yew render, and reads the DOM. Natively this file compiles to nothing.
#![cfg(target_arch = "wasm32")]

use std::rc::Rc;

use qpath_core::release::Release;
use qpath_core::report::Report;
use qpath_core::resolve::{resolve, Hardware, Scenario};
use qpath_web::components::results::{Results, ResultsProps};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

mod common;
use common::*;

wasm_bindgen_test_configure!(run_in_browser);

const LLAMA: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct";

fn report(gpu: &str, release: Release, flags: &str) -> Report {
    resolve(&Scenario::new(
        Hardware::parse(gpu).unwrap(),
        release,
        format!("{LLAMA} {flags}"),
    ))
}

/// Mounts `Results` for `report` into a fresh container and lets Yew render it.
async fn mount(report: Report) -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<Results>::with_root_and_props(root.clone(), ResultsProps { report: Rc::new(report) }).render();
    flush().await;
    root
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length()).map(|i| list.item(i).unwrap().unchecked_into()).collect()
}

fn text(root: &Element, selector: &str) -> String {
    q(root, selector).text_content().unwrap_or_default()
}

fn attr(e: &Element, name: &str) -> String {
    e.get_attribute(name)
        .unwrap_or_else(|| panic!("no {name} on {}", e.outer_html()))
}

/// The group card whose backend cell reads `backend`.
fn card_of_backend(root: &Element, backend: &str) -> Element {
    all(root, "article.group")
        .into_iter()
        .find(|c| text(c, ".backend") == backend)
        .unwrap_or_else(|| panic!("no group card on {backend}"))
}

#[wasm_bindgen_test]
async fn l4_fp8_cache_keeps_a_bf16_query_on_fa2() {
    let root = mount(report("l4", Release::V0_25_0, "--kv-cache-dtype fp8")).await;
    let section = q(&root, "section.results");
    assert_eq!(attr(&section, "aria-label"), "Results for vLLM 0.25.0 on NVIDIA L4");

    let stamp = text(&root, "#result-stamp");
    assert!(stamp.starts_with("as of vLLM 0.25.0 / FlashInfer 0."), "{stamp}");
    assert!(stamp.contains("NVIDIA L4 · compute capability 8.9"), "{stamp}");
    assert!(
        stamp.contains("CUDA 12.9") && stamp.contains("TRTLLM cubins available"),
        "{stamp}"
    );

    let cards = all(&root, "article.group");
    assert_eq!(cards.len(), 1);
    let card = &cards[0];
    assert_eq!(attr(card, "data-group"), "1");
    assert_eq!(text(card, "h3 .group-title"), "Group 1: layers 0-31");
    assert_eq!(text(card, ".backend"), "FLASHINFER");
    assert_eq!(text(card, ".cache-dtype"), "fp8");
    assert_eq!(text(card, ".q-prefill"), "bfloat16");
    assert_eq!(text(card, ".q-decode"), "bfloat16");
    assert_eq!(text(card, ".kernel-prefill"), "fa2");
    assert_eq!(text(card, ".kernel-decode"), "fa2");
    assert!(card.query_selector(".group-error").unwrap().is_none());
    assert!(
        card.query_selector(".fp8-badge").unwrap().is_none(),
        "a bf16 query has no FP8 badge"
    );
    let logs = text(card, ".logs");
    assert!(
        logs.contains("FlashInfer resolved query dtypes: prefill=torch.bfloat16"),
        "{logs}"
    );
    let engine = text(&root, ".engine-logs");
    assert!(engine.contains("Using FLASHINFER attention backend"), "{engine}");
    assert!(all(card, "ol.trace > li").len() >= 5);
}

#[wasm_bindgen_test]
async fn prefix_release_raises_the_fa2_fp8_assertion_in_both_phases() {
    let root = mount(report("l4", Release::V0_25_0Prefix, "--kv-cache-dtype fp8")).await;
    let card = q(&root, "article.group");
    let err = q(&card, ".group-error:not(.phase-error)");
    assert_eq!(attr(&err, "role"), "alert");
    let msg = err.text_content().unwrap();
    assert!(msg.contains("AssertionError"), "{msg}");
    assert!(msg.contains("fp8 tensor core is not supported in fa2 backend"), "{msg}");
    // CUDA graphs capture the decode batches at start-up: the decode's error is the one the engine meets first. The
    // stage line says when and where, with the call that raises (the core's words, the same for every backend).
    assert_eq!(
        text(&err, ".error-stage"),
        " on the first decode, in BatchDecodeWithPagedKVCacheWrapper.plan (tensor cores) → get_batch_prefill_module \
         (FlashInfer's JIT module)"
    );
    assert!(msg.contains("flashinfer/jit/attention/modules.py:"), "{msg}");
    assert_eq!(
        text(&err, ".error-message"),
        "fp8 tensor core is not supported in fa2 backend"
    );

    // The query is quantized (badge); each phase chose fa2 and raises in fa2's JIT module on its own path.
    assert_eq!(text(&card, ".q-prefill"), "float8_e4m3fn");
    assert!(text(&card, "h3").contains("FP8 query"));
    assert_eq!(text(&card, ".kernel-prefill"), "fa2");
    assert_eq!(text(&card, ".kernel-decode"), "fa2");
    let prefill = q(&card, ".phase-error");
    assert_eq!(attr(&prefill, "data-stage"), "prefill_jit");
    let msg = prefill.text_content().unwrap();
    assert!(msg.contains("Prefill also raises AssertionError"), "{msg}");
    assert!(
        msg.contains("on the first prefill, in BatchPrefillWithPagedKVCacheWrapper.plan → get_batch_prefill_module"),
        "{msg}"
    );
    assert_eq!(
        text(&prefill, ".error-message"),
        "fp8 tensor core is not supported in fa2 backend"
    );
    // The strip marks the failing group's cells.
    assert_eq!(all(&root, ".layer-strip .layer.failing").len(), 32);
}

#[wasm_bindgen_test]
async fn skip_layers_put_layers_0_and_2_in_their_own_group_on_the_strip() {
    let root = mount(report(
        "l4",
        Release::V0_25_0,
        "--kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 0 2",
    ))
    .await;
    let cards = all(&root, "article.group");
    assert_eq!(cards.len(), 2);
    let fa = card_of_backend(&root, "FLASH_ATTN");
    let fi = card_of_backend(&root, "FLASHINFER");
    let (fa_group, fi_group) = (attr(&fa, "data-group"), attr(&fi, "data-group"));
    assert_ne!(fa_group, fi_group);
    assert_eq!(text(&fa, ".group-title"), format!("Group {fa_group}: layers 0, 2"));
    assert_eq!(text(&fa, ".cache-dtype"), "auto (16-bit, unquantized)");
    // Every backend's card has its Q dtype and kernel rows (FLASH_ATTN's too), and no "FlashInfer does not run".
    for field in [".q-prefill", ".q-decode", ".kernel-prefill", ".kernel-decode"] {
        assert!(fa.query_selector(field).unwrap().is_some(), "{field} on FLASH_ATTN's card");
    }
    assert!(!fa.text_content().unwrap().contains("FlashInfer does not run"));
    assert_eq!(attr(&fa, "data-backend"), "FLASH_ATTN");
    assert!(!all(&fa, "ol.trace > li").is_empty(), "the selection trace is shown");
    assert_eq!(text(&fi, ".group-title"), format!("Group {fi_group}: layers 1, 3-31"));

    let strip = q(&root, ".layer-strip");
    assert_eq!(attr(&strip, "role"), "img");
    let label = attr(&strip, "aria-label");
    assert!(label.starts_with("32 layers in 2 groups"), "{label}");
    let cells = all(&strip, ".layer");
    assert_eq!(cells.len(), 32);
    for (i, cell) in cells.iter().enumerate() {
        assert_eq!(attr(cell, "data-layer"), i.to_string(), "cells are in index order");
        let expected = if i == 0 || i == 2 { &fa_group } else { &fi_group };
        assert_eq!(&attr(cell, "data-group"), expected, "layer {i}");
    }
    assert_eq!(
        attr(&cells[2], "title"),
        format!("layer 2: group {fa_group} (full, FLASH_ATTN, auto)")
    );
    assert_eq!(
        attr(&cells[5], "title"),
        format!("layer 5: group {fi_group} (full, FLASHINFER, fp8)")
    );
    assert!(text(&root, "figure.layers figcaption").contains("Layers are numbered from 0"));
    assert_eq!(all(&root, ".legend li").len(), 2);
}

#[wasm_bindgen_test]
async fn trace_steps_link_to_the_release_source() {
    let root = mount(report("l4", Release::V0_25_0, "--kv-cache-dtype fp8")).await;
    let prefix = "https://github.com/vllm-project/vllm/blob/v0.25.0/vllm/v1/attention/backends/flashinfer.py#L";
    let links = all(&root, &format!("ol.trace a[href^='{prefix}']"));
    assert!(!links.is_empty(), "no trace link into flashinfer.py");
    for a in &links {
        let href = attr(a, "href");
        let line = href.strip_prefix(prefix).unwrap();
        assert!(!line.is_empty() && line.chars().all(|c| c.is_ascii_digit()), "{href}");
        assert_eq!(
            a.text_content().unwrap(),
            format!("vllm/v1/attention/backends/flashinfer.py:{line}")
        );
        assert_eq!(attr(a, "target"), "_blank");
        assert!(attr(a, "rel").contains("noopener"));
        // Each link sits in a step beside its rule and outcome.
        let step = a.closest("li").unwrap().unwrap();
        assert!(!text(&step, "strong.rule").is_empty() && !text(&step, ".outcome").is_empty());
    }
}

#[wasm_bindgen_test]
async fn an_unknown_flag_is_a_scenario_error_without_groups() {
    let root = mount(report("l4", Release::V0_25_0, "--no-such-flag")).await;
    let err = q(&root, ".scenario-error");
    assert_eq!(attr(&err, "role"), "alert");
    let msg = err.text_content().unwrap();
    assert!(msg.contains("ArgumentError"), "{msg}");
    assert!(text(&err, ".error-message").contains("--no-such-flag"), "{msg}");
    assert!(all(&root, "article.group").is_empty());
    assert!(root.query_selector(".layer-strip").unwrap().is_none());
    // The stamp still says what was asked.
    assert!(text(&root, "#result-stamp").contains("NVIDIA L4"));
}

#[wasm_bindgen_test]
async fn notes_and_unused_flags_are_listed() {
    let root = mount(report(
        "l4",
        Release::V0_25_0,
        "--kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 99 --seed 3",
    ))
    .await;
    let notes = text(&root, "ul.notes");
    assert!(notes.contains("`99` matches no layer"), "{notes}");
    let unused = text(&root, "ul.unused-flags");
    assert!(unused.contains("--seed 3"), "{unused}");
    // Layer 99 does not exist: still one group over the 32 layers.
    assert_eq!(all(&root, ".layer-strip .layer").len(), 32);
}

#[wasm_bindgen_test]
async fn derived_predictions_are_marked_unverified() {
    // Jetson Thor reports 10.1 under CUDA 12.9: vLLM's SM100 gates pass, FlashInfer's trtllm-gen cubins do not load.
    let root = mount(report("jetson-agx-thor", Release::V0_25_0, "--kv-cache-dtype fp8")).await;
    assert!(text(&root, "#result-stamp").contains("compute capability 10.1"));
    let steps = all(&root, "ol.trace > li.unverified");
    assert!(!steps.is_empty());
    for s in &steps {
        let t = s.text_content().unwrap();
        assert!(t.contains("unverified prediction") && t.contains("sm_100a"), "{t}");
    }
}

#[wasm_bindgen_test]
async fn a_raw_capability_is_named_once() {
    let root = mount(report("8.9", Release::V0_25_0, "--kv-cache-dtype fp8")).await;
    let stamp = text(&root, "#result-stamp");
    assert_eq!(stamp.matches("compute capability 8.9").count(), 1, "{stamp}");
    assert_eq!(text(&root, ".q-prefill"), "bfloat16");
}

/// A hybrid model (Nemotron-H): the Mamba layers are a group of their own on MAMBA2, in the strip and as a card that
/// says there is no query dtype; the MLP layers belong to no group; the attention layers are a FlashInfer card.
#[wasm_bindgen_test]
async fn hybrid_groups_show_in_the_strip_and_as_cards() {
    let r = resolve(&Scenario::new(
        Hardware::parse("b200").unwrap(),
        Release::V0_24_0,
        "vllm serve nvidia/NVIDIA-Nemotron-Nano-9B-v2",
    ));
    let root = mount(r).await;
    let mamba = card_of_backend(&root, "MAMBA2");
    assert!(text(&mamba, ".attention").contains("Mamba"));
    // The Mamba2 layers' own kernels and state dtypes, as the report gives them (their input in the model dtype).
    assert_eq!(text(&mamba, ".kernel-prefill"), "mamba-chunk-scan");
    assert_eq!(text(&mamba, ".kernel-decode"), "selective-state-update");
    assert_eq!(text(&mamba, ".q-prefill"), "bfloat16");
    assert_eq!(text(&mamba, ".cache-dtype"), "conv bfloat16 / ssm float32");
    assert!(text(&mamba, ".decision").contains("Input dtype, prefill"));
    assert!(mamba.query_selector(".recurrent").unwrap().is_none(), "nothing is missing");
    // A recurrent group the report gives nothing says why, without a dash.
    let mut bare = resolve(&Scenario::new(
        Hardware::parse("b200").unwrap(),
        Release::V0_24_0,
        "vllm serve nvidia/NVIDIA-Nemotron-Nano-9B-v2",
    ));
    let g = bare.groups.iter_mut().find(|g| g.backend.name() == "MAMBA2").unwrap();
    g.q_dtype = Default::default();
    g.kernel = Default::default();
    g.kernels = Default::default();
    let bare_root = mount(bare).await;
    let bare_card = card_of_backend(&bare_root, "MAMBA2");
    assert!(text(&bare_card, ".recurrent").starts_with("No query dtype: recurrent state, no KV cache"));
    assert!(bare_card.query_selector(".missing").unwrap().is_none());
    let attention = card_of_backend(&root, "FLASHINFER");
    assert_eq!(text(&attention, ".kernel-prefill"), "trtllm-gen");
    let cells = all(&root, ".layer-strip .layer");
    assert_eq!(cells.len(), 56);
    assert_eq!(attr(&cells[0], "data-group"), attr(&mamba, "data-group"));
    assert_eq!(attr(&cells[1], "data-group"), "", "layer 1 is an MLP block");
    assert_eq!(attr(&cells[14], "data-group"), attr(&attention, "data-group"));
}

/// An EAGLE-3 drafter under the V1 model runner at 0.25.0: the target is forced onto FlashInfer, the drafter's head
/// (named layer 32, after the target's 32 layers) does not inherit --attention-backend and runs on FLASH_ATTN. The
/// drafter's group comes after the target's, labelled, in a strip of its own; the speculative line is above them.
#[wasm_bindgen_test]
async fn an_eagle3_drafter_is_its_own_labelled_group() {
    let flags = r#"--attention-backend FLASHINFER --speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3}'"#;
    let root = mount(report("h100-sxm", Release::V0_25_0, flags)).await;
    let line = text(&root, "#result-speculative");
    assert!(
        line.starts_with(
            "Speculative decoding: method eagle3, 3 tokens, drafter yuhuili/EAGLE3-LLaMA3.1-Instruct-8B, backend auto, \
             cache auto, model runner V1."
        ),
        "{line}"
    );
    assert!(line.contains("the group marked \"drafter\""), "{line}");
    assert!(!all(&root, ".speculative-trace > li").is_empty(), "why this drafter");

    let cards = all(&root, "article.group");
    assert_eq!(cards.len(), 2);
    let (target, drafter) = (&cards[0], &cards[1]);
    assert_eq!(attr(target, "data-role"), "target");
    assert!(target.query_selector(".drafter-badge").unwrap().is_none());
    assert_eq!(text(target, ".backend"), "FLASHINFER");
    assert_eq!(attr(drafter, "data-role"), "drafter");
    assert_eq!(text(drafter, "h3 .drafter-badge"), "drafter");
    assert_eq!(text(drafter, ".group-title"), "Group 2: drafter layers 32");
    assert_eq!(text(drafter, ".backend"), "FLASH_ATTN");

    // The target's strip keeps its 32 layers; the drafter's shows its one layer, named 32.
    let strips = all(&root, ".layer-strip");
    assert_eq!(strips.len(), 2);
    assert_eq!(all(&strips[0], ".layer").len(), 32);
    assert!(attr(&strips[0], "aria-label").starts_with("32 layers in 1 group"));
    let cells = all(&strips[1], ".layer");
    assert_eq!(cells.len(), 1);
    assert_eq!(
        (attr(&cells[0], "data-layer"), attr(&cells[0], "data-group")),
        ("32".into(), "2".into())
    );
    assert_eq!(attr(&cells[0], "title"), "drafter layer 32: group 2 (full, FLASH_ATTN, auto)");
    assert_eq!(
        attr(&strips[1], "aria-label"),
        "drafter: 1 layer in 1 group: group 2 (full, FLASH_ATTN, auto): layers 32"
    );
    let legend = all(&root, ".legend li");
    assert_eq!(legend.len(), 2);
    assert_eq!(attr(&legend[1], "data-role"), "drafter");
    assert_eq!(text(&legend[1], ".drafter-badge"), "drafter");
}

#[wasm_bindgen_test]
async fn without_a_speculative_config_there_is_no_drafter() {
    let root = mount(report("h100-sxm", Release::V0_33_0, "")).await;
    assert!(root.query_selector("#result-speculative").unwrap().is_none());
    assert!(root.query_selector(".drafter-strip").unwrap().is_none());
    assert!(all(&root, "article.group").iter().all(|c| attr(c, "data-role") == "target"));
}

/// CUDA graphs once per scenario: H100 at 0.24.0, FlashInfer forced, an EAGLE-3 head (V2 inherits FlashInfer) and 3
/// speculative tokens: FlashInfer's single-token decode graphs make vLLM drop FULL_AND_PIECEWISE to PIECEWISE, with its
/// warning among the log lines; no card repeats the support, which is the minimum in every group.
#[wasm_bindgen_test]
async fn a_spec_decode_cuda_graph_downgrade_is_shown_once() {
    let spec = r#"--speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3}'"#;
    let root = mount(report(
        "h100-sxm",
        Release::V0_24_0,
        &format!("--attention-backend FLASHINFER {spec}"),
    ))
    .await;
    assert_eq!(
        text(&root, "#result-cuda-graphs"),
        "CUDA graphs: cudagraph_mode FULL_AND_PIECEWISE (the default optimization level -O2) → PIECEWISE \
         (FlashInferBackend: UNIFORM_SINGLE_TOKEN_DECODE)"
    );
    assert!(!all(&root, ".cuda-graphs-trace > li").is_empty(), "why this mode");
    assert!(all(&root, ".cudagraph-support").is_empty(), "every group is at the minimum");
    let logs = text(&root, ".engine-logs");
    assert!(
        logs.contains(
            "[compilation.py:1405] CUDAGraphMode.FULL_AND_PIECEWISE is not supported with spec-decode for attention \
             backend FlashInferBackend (support: AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE); setting \
             cudagraph_mode=PIECEWISE"
        ),
        "{logs}"
    );
    // Qwen3-Next on B200: the GDN group (UNIFORM_BATCH) is the minimum; no card differs either. On H100 at 0.24.0
    // FlashInfer is single-token while GDN is UNIFORM_BATCH: the GDN card says so.
    let r = resolve(&Scenario::new(
        Hardware::parse("h100-sxm").unwrap(),
        Release::V0_24_0,
        "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --attention-backend FLASHINFER",
    ));
    let root = mount(r).await;
    let marks = all(&root, ".cudagraph-support");
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].text_content().unwrap(), "UNIFORM_BATCH");
}

/// A group with every field a backend fills: a phase whose kernel depends on the batch (both kernels, the condition,
/// the call as vLLM's code names it), the query's quantization with its scale and why, and what qpath cannot model.
#[wasm_bindgen_test]
async fn a_card_shows_kernel_choices_the_query_scale_and_a_limit() {
    use qpath_core::dtype::TorchDtype;
    use qpath_core::report::{Kernel, KernelChoice, QueryQuant};
    let mut r = report("h100-sxm", Release::V0_33_0, "");
    let g = &mut r.groups[0];
    g.q_dtype.prefill = Some(TorchDtype::Float8E4m3fn);
    g.q_dtype.decode = Some(TorchDtype::Float8E4m3fn);
    g.kernel.prefill = Some(Kernel::FaVarlen3Aot);
    g.kernel.decode = Some(Kernel::TritonUnified3d);
    g.kernels.prefill = vec![KernelChoice::always(Kernel::FaVarlen3Aot)];
    g.kernels.decode = vec![
        KernelChoice::when(Kernel::TritonUnified3d, "decode-only batches of ≤ 16 requests"),
        KernelChoice::always(Kernel::TritonUnified2d),
    ];
    g.query_quant = Some(QueryQuant {
        granularity: "per_tensor".into(),
        q_scale: "1.0".into(),
        why: "no quantization_config: nothing loads a scale".into(),
    });
    let root = mount(r.clone()).await;
    let card = q(&root, "article.group");
    assert_eq!(text(&card, ".kernel-prefill"), "fa3-varlen-aot");
    assert_eq!(
        text(&card, ".kernel-prefill ~ .kernel-call").trim(),
        Kernel::FaVarlen3Aot.call(),
        "the kernel as vLLM's code names it"
    );
    assert_eq!(text(&card, ".kernel-decode"), "triton-unified-3d");
    assert_eq!(
        text(&card, ".kernel-decode ~ .kernel-when"),
        " for decode-only batches of ≤ 16 requests"
    );
    let others = all(&card, ".kernel-else > div");
    assert_eq!(others.len(), 1);
    assert_eq!(text(&others[0], ".kernel-alt"), "triton-unified-2d");
    assert!(others[0].text_content().unwrap().starts_with("else triton-unified-2d"));
    assert!(
        others[0].query_selector(".kernel-when").unwrap().is_none(),
        "the last one has no condition"
    );
    assert_eq!(text(&card, ".query-quant"), "static FP8 per tensor, q_scale 1.0");
    assert_eq!(
        text(&card, ".query-quant-why").trim(),
        "no quantization_config: nothing loads a scale"
    );
    assert!(text(&card, "h3").contains("FP8 query"));
    assert!(card.query_selector(".unmodelled").unwrap().is_none());

    // qpath cannot model a group: the card says why, and a missing value's tooltip says it too.
    let g = &mut r.groups[0];
    g.unmodelled = Some("qpath cannot model this: what TRITON_FLASH_ATTN runs".into());
    g.q_dtype.decode = None;
    let root = mount(r).await;
    let card = q(&root, "article.group");
    assert_eq!(
        text(&card, ".unmodelled"),
        "qpath cannot model this: what TRITON_FLASH_ATTN runs"
    );
    let missing = q(&card, ".q-decode.missing");
    assert_eq!(
        attr(&missing, "title"),
        "qpath cannot model this: what TRITON_FLASH_ATTN runs"
    );
}

/// Bad input as vLLM says it: a backend forced on a GPU it cannot run is vLLM's selection ValueError with its line; a
/// Triton cache dtype the GPU cannot hold is TritonAttentionImpl's own ValueError at engine start, with the call that
/// raises and its line (no FlashInfer words for another backend's error).
#[wasm_bindgen_test]
async fn bad_input_shows_vllms_text_line_and_stage_for_every_backend() {
    let root = mount(report("v100", Release::V0_33_0, "--attention-backend FLASHINFER")).await;
    let err = q(&root, ".scenario-error");
    assert_eq!(
        text(&err, ".error-message"),
        "Selected backend AttentionBackendEnum.FLASHINFER is not valid for this configuration. Reason: \
         ['compute capability not supported']"
    );
    assert!(text(&err, ".error-source").contains("vllm/platforms/cuda.py:"));

    let root = mount(report("t4", Release::V0_33_0, "--kv-cache-dtype bfloat16")).await;
    let card = card_of_backend(&root, "TRITON_ATTN");
    let err = q(&card, ".group-error");
    assert_eq!(attr(&err, "data-stage"), "init");
    assert_eq!(text(&err, ".error-type"), "ValueError");
    assert_eq!(
        text(&err, ".error-stage"),
        " at engine start, in TritonAttentionImpl.__init__"
    );
    assert!(
        text(&err, ".error-message").starts_with("bfloat16 KV cache is not supported on NVIDIA T4 (compute capability 7.5)"),
        "{}",
        text(&err, ".error-message")
    );
    assert!(text(&err, ".error-source").contains("vllm/v1/attention/backends/triton_attn.py:"));
    assert!(
        !err.text_content().unwrap().contains("FlashInfer"),
        "{}",
        err.text_content().unwrap()
    );
    // The values the code never reached say so.
    assert_eq!(
        attr(&q(&card, ".q-prefill.missing"), "title"),
        qpath_web::components::results::NOT_REACHED
    );
}

/// FLASH_ATTN on an H100 with an FP8 cache (vLLM's default backend there): the card shows FA3's varlen kernel as
/// vLLM's code calls it, the FP8 query both phases receive, and the attention layer's quantization with its scale
/// (1.0: the checkpoint has no quantization_config) and why.
#[wasm_bindgen_test]
async fn flash_attn_on_h100_with_an_fp8_cache_shows_its_kernel_and_query_scale() {
    let root = mount(report("h100-sxm", Release::V0_33_0, "--kv-cache-dtype fp8")).await;
    let card = card_of_backend(&root, "FLASH_ATTN");
    assert_eq!(text(&card, ".q-prefill"), "float8_e4m3fn");
    assert_eq!(text(&card, ".q-decode"), "float8_e4m3fn");
    assert!(text(&card, "h3").contains("FP8 query"));
    for phase in ["prefill", "decode"] {
        let kernel = text(&card, &format!(".kernel-{phase}"));
        assert!(kernel.starts_with("fa3-varlen"), "{phase}: {kernel}");
        let call = text(&card, &format!(".kernel-{phase} ~ .kernel-call"));
        assert!(call.contains("flash_attn_varlen_func(fa_version=3"), "{phase}: {call}");
    }
    assert_eq!(text(&card, ".query-quant"), "static FP8 per tensor, q_scale 1.0");
    assert!(text(&card, ".query-quant-why").contains("no quantization_config"));
    assert!(card.query_selector(".group-error").unwrap().is_none());
    assert!(
        card.query_selector(".missing").unwrap().is_none(),
        "no dash for a group that runs"
    );
}

/// Bad input on FLASH_ATTN: forced with an FP8 cache on an A100 (FA2 only), vLLM's selection refuses it with its own
/// reasons and line.
#[wasm_bindgen_test]
async fn flash_attn_forced_with_an_fp8_cache_on_fa2_is_vllms_error() {
    let root = mount(report(
        "a100-80gb",
        Release::V0_33_0,
        "--attention-backend FLASH_ATTN --kv-cache-dtype fp8",
    ))
    .await;
    let err = q(&root, ".scenario-error");
    let message = text(&err, ".error-message");
    assert!(
        message.starts_with("Selected backend AttentionBackendEnum.FLASH_ATTN is not valid for this configuration."),
        "{message}"
    );
    assert!(message.contains("kv_cache_dtype not supported"), "{message}");
    assert_eq!(text(&err, ".error-type"), "ValueError");
    assert!(text(&err, ".error-source").contains("vllm/platforms/cuda.py:"));
    assert!(all(&root, "article.group").is_empty());
}

/// TRITON_ATTN on a T4 (vLLM's only valid backend on SM75) for Qwen3-4B: a float16 query (the T4 has no bfloat16),
/// and each phase's kernel as the batch decides it: the 3D split-KV grid for small decode batches, else the 2D grid,
/// each with its condition and the call as vLLM's code names it.
#[wasm_bindgen_test]
async fn triton_on_a_t4_shows_both_grids_with_their_conditions() {
    let r = resolve(&Scenario::new(
        Hardware::parse("t4").unwrap(),
        Release::V0_33_0,
        "vllm serve Qwen/Qwen3-4B",
    ));
    let g = r.groups[0].clone();
    let root = mount(r).await;
    let card = card_of_backend(&root, "TRITON_ATTN");
    assert_eq!(text(&card, ".q-prefill"), "float16");
    assert_eq!(text(&card, ".q-decode"), "float16");
    let decode = g.kernel_choices(false);
    assert!(decode.len() >= 2, "{decode:?}");
    assert_eq!(text(&card, ".kernel-decode"), decode[0].kernel.name());
    assert_eq!(
        text(&card, ".kernel-decode ~ .kernel-when"),
        format!(" for {}", decode[0].when.as_deref().unwrap())
    );
    assert_eq!(text(&card, ".kernel-decode ~ .kernel-call").trim(), decode[0].kernel.call());
    let others: Vec<String> = all(&card, ".kernel-decode ~ .kernel-else .kernel-alt")
        .iter()
        .map(|e| e.text_content().unwrap())
        .collect();
    let expected: Vec<&str> = decode[1..].iter().map(|c| c.kernel.name()).collect();
    assert_eq!(others, expected);
    assert!(expected.contains(&"triton-unified-2d") || decode[0].kernel.name() == "triton-unified-2d");
    assert!(
        card.query_selector(".missing").unwrap().is_none(),
        "no dash for a group that runs"
    );
}

/// A bare `assert` that stops the whole scenario (llama.py's KV heads over tensor-parallel ranks) says so in the
/// core's words, as a group's does, with its line.
#[wasm_bindgen_test]
async fn a_bare_scenario_assert_says_it_has_no_message() {
    let root = mount(report(
        "h100-sxm",
        Release::V0_33_0,
        "-tp 4 --hf-overrides '{\"num_key_value_heads\": 6}'",
    ))
    .await;
    let err = q(&root, ".scenario-error");
    assert_eq!(text(&err, ".error-type"), "AssertionError");
    assert_eq!(text(&err, ".error-message"), qpath_core::report::BARE_ASSERT);
    assert!(text(&err, ".error-source").contains("vllm/model_executor/models/llama.py:"));
}

/// Bad input on FLASH_ATTN's version: FA3 asked of an A100: vLLM's ERROR log line in the card, then its assert in the
/// memory profile's forward, said with the call that raises; no kernel (the code never picks one) and why.
#[wasm_bindgen_test]
async fn an_fa_version_the_gpu_does_not_take_is_vllms_assert_in_the_card() {
    let root = mount(report("a100-80gb", Release::V0_33_0, "-ac.flash_attn_version=3")).await;
    let card = card_of_backend(&root, "FLASH_ATTN");
    let err = q(&card, ".group-error");
    assert_eq!(attr(&err, "data-stage"), "profile_run");
    assert_eq!(text(&err, ".error-message"), "FlashAttention version not detected.");
    assert_eq!(
        text(&err, ".error-stage"),
        " at engine start, in FlashAttentionImpl.forward (the memory profile's forward pass)"
    );
    assert!(text(&err, ".error-source").contains("vllm/v1/attention/backends/flash_attn.py:"));
    assert!(text(&card, ".logs").contains("[fa_utils.py:212] Cannot use FA version 3 is not supported"));
    assert_eq!(
        attr(&q(&card, ".kernel-prefill.missing"), "title"),
        qpath_web::components::results::NOT_REACHED
    );
}
