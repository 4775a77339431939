//! Browser tests of the Compare and MatrixView components: each test mounts one component with real reports or a
//! real scenario from qpath-core into its own container, lets Yew render, and reads the DOM. Natively this file
//! compiles to nothing.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use qpath_core::gpu::{self, Gpu};
use qpath_core::matrix::MatrixMode;
use qpath_core::release::Release;
use qpath_core::resolve::{resolve, Hardware, Scenario};
use qpath_web::components::compare::{Compare, CompareProps};
use qpath_web::components::matrix_view::{MatrixView, MatrixViewProps};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement};
use yew::Callback;

mod common;
use common::*;

wasm_bindgen_test_configure!(run_in_browser);

const SEED: &str = "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8";

fn container() -> Element {
    let doc = web_sys::window().unwrap().document().unwrap();
    let root = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&root).unwrap();
    root
}

fn scenario(gpu_id: &str, release: Release, line: &str) -> Scenario {
    Scenario::new(Hardware::Gpu(gpu::find(gpu_id).unwrap()), release, line)
}

async fn mount_compare(left: &Scenario, right: &Scenario) -> Element {
    let root = container();
    let props = CompareProps {
        left: Rc::new(resolve(left)),
        right: Rc::new(resolve(right)),
    };
    yew::Renderer::<Compare>::with_root_and_props(root.clone(), props).render();
    flush().await;
    assert!(
        eventually(|| exists(&root, "#compare-table")).await,
        "the compare table never rendered"
    );
    root
}

fn text(root: &Element, selector: &str) -> String {
    q(root, selector).text_content().unwrap_or_default().trim().to_string()
}

fn has_class(el: &Element, class: &str) -> bool {
    el.class_name().split_whitespace().any(|c| c == class)
}

fn count(root: &Element, selector: &str) -> u32 {
    root.query_selector_all(selector).unwrap().length()
}

#[wasm_bindgen_test]
async fn compare_seed_story_shows_the_fa2_assertion_against_the_fix() {
    let root = mount_compare(
        &scenario("l4", Release::V0_25_0Prefix, SEED),
        &scenario("l4", Release::V0_25_0, SEED),
    )
    .await;
    assert_eq!(text(&root, "#compare-summary"), "1 of 1 group differs");
    assert_eq!(count(&root, "#compare-table tbody tr"), 1);
    assert_eq!(text(&root, "#compare-table tbody th.layers"), "0-31");
    // Both phases' outcomes differ, and say so on both sides.
    for phase in ["prefill", "decode"] {
        assert!(exists(&root, &format!(".left-{phase}-outcome.diff")), "{phase}");
        assert!(exists(&root, &format!(".right-{phase}-outcome.diff")), "{phase}");
        assert!(exists(&root, &format!(".left-{phase}-outcome.failing")), "{phase}");
        let left = text(&root, &format!(".left-{phase}-outcome .value"));
        assert!(left.contains("AssertionError"), "{left}");
        assert!(left.contains("fp8 tensor core is not supported in fa2 backend"), "{left}");
        assert!(left.contains(&format!("on the first {phase}")), "{left}");
        assert_eq!(text(&root, &format!(".right-{phase}-outcome .value")), "runs fa2");
    }
    assert!(
        exists(&root, ".left-prefill-outcome .diff-mark"),
        "a differing cell carries a visible marker"
    );
    // The query dtypes differ: FP8 queries before the fix, bfloat16 after.
    assert_eq!(text(&root, ".left-q-prefill .value"), "float8_e4m3fn");
    assert_eq!(text(&root, ".right-q-prefill .value"), "bfloat16");
    assert!(exists(&root, ".left-q-prefill.diff") && exists(&root, ".right-q-prefill.diff"));
    // Both phases run fa2 on both sides (the prefix release's decode raises in fa2's module): no marker there.
    for phase in ["prefill", "decode"] {
        assert_eq!(text(&root, &format!(".left-kernel-{phase} .value")), "fa2");
        assert_eq!(text(&root, &format!(".right-kernel-{phase} .value")), "fa2");
        assert!(!exists(&root, &format!(".left-kernel-{phase}.diff")));
    }
    assert!(!exists(&root, ".left-backend.diff"));
    assert!(!exists(&root, ".right-cache-dtype.diff"));
    // The header names both sides.
    let left_head = text(&root, "#compare-left");
    assert!(left_head.contains("vLLM 0.25.0-prefix / FlashInfer"), "{left_head}");
    assert!(left_head.contains("NVIDIA L4") && left_head.contains("8.9"), "{left_head}");
    assert!(left_head.contains("cubins: yes"), "{left_head}");
    assert!(text(&root, "#compare-right").contains("vLLM 0.25.0 / FlashInfer"));
}

/// An EAGLE-3 drafter beside the target forced onto FlashInfer: the V1 runner of 0.25.0 builds the drafter's head on
/// FLASH_ATTN, the V2 runner of 0.33.0 inherits FLASHINFER. The drafter's row comes after the target's, labelled.
#[wasm_bindgen_test]
async fn compare_puts_the_drafter_in_its_own_row() {
    let line = r#"vllm serve meta-llama/Llama-3.1-8B-Instruct --attention-backend FLASHINFER --speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3}'"#;
    let root = mount_compare(
        &scenario("h100-sxm", Release::V0_25_0, line),
        &scenario("h100-sxm", Release::V0_33_0, line),
    )
    .await;
    assert_eq!(text(&root, "#compare-summary"), "1 of 2 groups differs");
    let rows = root.query_selector_all("#compare-table tbody tr").unwrap();
    assert_eq!(rows.length(), 2);
    let row = |i: u32| rows.item(i).unwrap().unchecked_into::<Element>();
    assert_eq!(row(0).get_attribute("data-role").as_deref(), Some("target"));
    assert_eq!(row(1).get_attribute("data-role").as_deref(), Some("drafter"));
    assert_eq!(text(&row(1), "th.layers"), "drafter 32");
    assert_eq!(text(&row(1), ".left-backend .value"), "FLASH_ATTN");
    assert_eq!(text(&row(1), ".right-backend .value"), "FLASHINFER");
    assert!(exists(&row(1), ".left-backend.diff"));
}

#[wasm_bindgen_test]
async fn compare_with_itself_shows_no_difference() {
    // Gemma 3: a sliding-window group and a full-attention group, both on TRITON_ATTN (0.33.0's mm-prefix layers:
    // FLASHINFER refuses them, FLASH_ATTN's FA2 the FP8 cache), whose layer quantizes the query to FP8.
    let s = scenario(
        "l4",
        Release::V0_33_0,
        "vllm serve google/gemma-3-27b-it --kv-cache-dtype fp8",
    );
    let root = mount_compare(&s, &s).await;
    assert_eq!(
        text(&root, "#compare-summary"),
        "Both releases decide the same for every group"
    );
    assert!(!exists(&root, ".diff"));
    assert!(!exists(&root, ".diff-mark"));
    assert_eq!(count(&root, "#compare-table tbody tr"), 2);
    assert_eq!(count(&root, ".left-prefill-outcome"), 2);
    assert_eq!(count(&root, ".left-decode-outcome"), 2);
    assert_eq!(text(&root, ".right-q-decode .value"), "float8_e4m3fn");
}

#[wasm_bindgen_test]
async fn compare_spans_a_scenario_error_across_its_side() {
    // nvfp4_4over6 exists from 0.28.0: 0.25.0's argparse rejects it.
    let line = "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype nvfp4_4over6";
    let mut left = scenario("b200", Release::V0_33_0, line);
    left.trtllm_cubins = Some(true);
    let root = mount_compare(&left, &scenario("b200", Release::V0_25_0, line)).await;
    assert_eq!(text(&root, "#compare-summary"), "1 of 1 group differs");
    let right = q(&root, ".right-outcome.scenario-error");
    assert_eq!(right.get_attribute("colspan").as_deref(), Some("9"));
    assert!(has_class(&right, "diff"));
    assert!(right.text_content().unwrap().contains("ArgumentError"));
    assert!(!exists(&root, ".right-q-prefill"));
    assert_eq!(text(&root, ".left-prefill-outcome .value"), "runs trtllm-gen");
    assert_eq!(text(&root, ".left-decode-outcome .value"), "runs trtllm-gen");
}

#[wasm_bindgen_test]
async fn matrix_has_every_gpu_and_cache_dtype_and_reports_picks() {
    let mut base = scenario("l4", Release::V0_33_0, SEED);
    base.trtllm_cubins = Some(true);
    let picked: Rc<RefCell<Option<(&'static Gpu, String)>>> = Rc::new(RefCell::new(None));
    let onpick = {
        let picked = picked.clone();
        Callback::from(move |p: (&'static Gpu, String)| *picked.borrow_mut() = Some(p))
    };
    let root = container();
    yew::Renderer::<MatrixView>::with_root_and_props(
        root.clone(),
        MatrixViewProps {
            base: base.clone(),
            mode: MatrixMode::FlashInfer,
            onmode: Callback::noop(),
            onpick,
            arch: None,
            onarch: Callback::noop(),
        },
    )
    .render();
    flush().await;
    assert!(
        eventually(|| exists(&root, "#matrix-table")).await,
        "the matrix never rendered"
    );

    let rows = root.query_selector_all("#matrix-table tbody tr.gpu-row").unwrap();
    assert_eq!(rows.length(), 30);
    for i in 0..rows.length() {
        let row: Element = rows.item(i).unwrap().unchecked_into();
        assert_eq!(row.query_selector_all("button.cell").unwrap().length(), 8, "row {i}");
    }
    assert_eq!(count(&root, "#matrix-table thead th.kv-col"), 8);
    assert_eq!(count(&root, "#matrix-table button.cell"), 240);
    assert!(text(&root, "#matrix-table caption").contains("vLLM 0.33.0"));
    assert!(text(&root, "#matrix-caption").contains("Rows: GPUs grouped by architecture"));

    // The l4/fp8 cell is the core's summary of that scenario (the base one).
    let expected = qpath_core::matrix::summarize(&resolve(&base)).1;
    let l4 = q(&root, r#"button[data-gpu="l4"][data-kv="fp8"]"#);
    assert_eq!(text(&l4, ".summary"), expected);
    assert_eq!(l4.text_content().unwrap().trim(), expected);
    assert_eq!(l4.get_attribute("aria-label").unwrap(), format!("NVIDIA L4, fp8: {expected}"));
    assert!(has_class(&l4, "ok"));
    assert_eq!(
        l4.get_attribute("aria-current").as_deref(),
        Some("true"),
        "the base cell is marked"
    );

    // Errors stand out: class, a text label and bold.
    let err = q(&root, "button.cell.error");
    assert!(err.text_content().unwrap().starts_with("error:"));
    assert!(err.query_selector("strong").unwrap().is_some());
    let l4_nv46 = q(&root, r#"button[data-gpu="l4"][data-kv="nvfp4_4over6"]"#);
    assert!(has_class(&l4_nv46, "error"), "{}", l4_nv46.class_name());

    // Clicking a cell reports its GPU and cache dtype.
    q(&root, r#"button[data-gpu="b200"][data-kv="nvfp4"]"#)
        .unchecked_into::<HtmlElement>()
        .click();
    flush().await;
    let got = picked.borrow().clone().expect("onpick was not called");
    assert_eq!(got.0.id, "b200");
    assert_eq!(got.1, "nvfp4");
}

#[wasm_bindgen_test]
async fn matrix_shows_a_command_line_that_does_not_parse() {
    let base = scenario(
        "l4",
        Release::V0_33_0,
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --no-such-flag",
    );
    let root = container();
    yew::Renderer::<MatrixView>::with_root_and_props(
        root.clone(),
        MatrixViewProps {
            base,
            mode: MatrixMode::Picked,
            onmode: Callback::noop(),
            onpick: Callback::noop(),
            arch: None,
            onarch: Callback::noop(),
        },
    )
    .render();
    flush().await;
    assert!(eventually(|| exists(&root, ".matrix-error")).await);
    assert!(!exists(&root, "#matrix-table"));
    assert!(
        text(&root, ".matrix-error").contains("--no-such-flag"),
        "{}",
        text(&root, ".matrix-error")
    );
}

/// The picked mode: every backend's cache dtypes as columns, each cell the core's picked summary (the backend, then
/// query dtypes and kernels) with its backends named; the mode select reports a change through `onmode`.
#[wasm_bindgen_test]
async fn matrix_in_the_picked_mode_names_every_cells_backend() {
    let base = scenario("t4", Release::V0_33_0, "vllm serve Qwen/Qwen3-4B");
    let chosen: Rc<RefCell<Option<String>>> = Rc::new(RefCell::new(None));
    let onmode = {
        let chosen = chosen.clone();
        Callback::from(move |v: String| *chosen.borrow_mut() = Some(v))
    };
    let root = container();
    yew::Renderer::<MatrixView>::with_root_and_props(
        root.clone(),
        MatrixViewProps {
            base: base.clone(),
            mode: MatrixMode::Picked,
            onmode,
            onpick: Callback::noop(),
            arch: None,
            onarch: Callback::noop(),
        },
    )
    .render();
    flush().await;
    assert!(eventually(|| exists(&root, "#matrix-table")).await);
    let kvs = qpath_core::matrix::any_backend_kv_dtypes(Release::V0_33_0);
    assert_eq!(count(&root, "#matrix-table thead th.kv-col") as usize, kvs.len());
    assert_eq!(count(&root, "#matrix-table button.cell") as usize, 30 * kvs.len());
    assert!(text(&root, "#matrix-table caption").contains("the backend vLLM picks"));
    assert!(!exists(&root, "button.cell.other-backend"));
    // The T4 row: TRITON_ATTN for a 16-bit cache (vLLM's only valid backend on SM75), TURBOQUANT for its caches.
    let t4 = q(&root, r#"button[data-gpu="t4"][data-kv="auto"]"#);
    let expected = qpath_core::matrix::summarize_in(&resolve(&base), MatrixMode::Picked).1;
    assert_eq!(text(&t4, ".summary"), expected);
    assert!(expected.starts_with("TRITON_ATTN "), "{expected}");
    assert_eq!(t4.get_attribute("data-backends").as_deref(), Some("TRITON_ATTN"));
    // TURBOQUANT's cache on a T4: the core's cell (qpath cannot model its prefill there: the cell says so, dotted).
    let tq = q(&root, r#"button[data-gpu="t4"][data-kv="turboquant_k8v4"]"#);
    let mut tq_base = base.clone();
    tq_base.command_line = "vllm serve Qwen/Qwen3-4B --kv-cache-dtype turboquant_k8v4".into();
    let (status, summary) = qpath_core::matrix::summarize_in(&resolve(&tq_base), MatrixMode::Picked);
    assert_eq!(text(&tq, ".summary"), summary);
    assert!(has_class(&tq, status.name()), "{}", tq.class_name());
    // Its boundary layers keep a 16-bit cache (TurboQuant skips them) on TRITON_ATTN.
    assert_eq!(tq.get_attribute("data-backends").as_deref(), Some("TRITON_ATTN,TURBOQUANT"));
    // vLLM's own error where the T4 cannot hold the cache (Triton's bfloat16 check at init).
    let bf16 = q(&root, r#"button[data-gpu="t4"][data-kv="bfloat16"]"#);
    assert!(has_class(&bf16, "error"));
    assert!(text(&bf16, ".summary").starts_with("ValueError: bfloat16 KV cache is not supported on NVIDIA T4"));
    assert_eq!(bf16.get_attribute("data-backends").as_deref(), Some("TRITON_ATTN"));

    let select: web_sys::HtmlSelectElement = q(&root, "#matrix-mode").unchecked_into();
    assert_eq!(select.value(), "picked");
    select.set_value("flashinfer");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    select
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).unwrap())
        .unwrap();
    flush().await;
    assert_eq!(chosen.borrow().as_deref(), Some("flashinfer"));
}

/// Compare on another backend: FLASH_ATTN on an H100 with an FP8 cache shows its kernels, the query's quantization
/// and scale, and each phase's outcome in the core's words (never "runs on" a backend with dashes).
#[wasm_bindgen_test]
async fn compare_shows_every_backends_kernels_and_query_scale() {
    let line = "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8";
    let s = scenario("h100-sxm", Release::V0_33_0, line);
    let root = mount_compare(&s, &s).await;
    assert_eq!(text(&root, ".left-backend .value"), "FLASH_ATTN");
    assert_eq!(text(&root, ".left-q-prefill .value"), "float8_e4m3fn");
    assert_eq!(text(&root, ".left-query-quant .value"), "static FP8 per tensor, q_scale 1.0");
    let report = resolve(&s);
    let g = &report.groups[0];
    for phase in ["prefill", "decode"] {
        let is_prefill = phase == "prefill";
        let kernel = text(&root, &format!(".left-kernel-{phase} .value"));
        assert_eq!(kernel, g.kernels_text(is_prefill));
        assert!(kernel.starts_with("fa3-varlen"), "{kernel}");
        let outcome = text(&root, &format!(".right-{phase}-outcome .value"));
        assert_eq!(outcome, format!("runs {}", g.kernel_names(is_prefill)));
    }
    assert!(!root.text_content().unwrap().contains("runs on"));
    // The heading names the column.
    assert!(text(&root, "#compare-table thead").contains("Query quantization"));
}

/// An MLA model's picked matrix: its columns are the MLA backends' cache dtypes (fp8_ds_mla, nvfp4_ds_mla at 0.33.0),
/// its cells name the MLA backend each GPU gets, the caption and legend say so, and the cell is the core's.
#[wasm_bindgen_test]
async fn matrix_of_an_mla_model_shows_mla_backends_over_the_mla_cache_dtypes() {
    let base = scenario("b200", Release::V0_33_0, "vllm serve deepseek-ai/DeepSeek-V3");
    let root = container();
    yew::Renderer::<MatrixView>::with_root_and_props(
        root.clone(),
        MatrixViewProps {
            base: base.clone(),
            mode: MatrixMode::Picked,
            onmode: Callback::noop(),
            onpick: Callback::noop(),
            arch: None,
            onarch: Callback::noop(),
        },
    )
    .render();
    flush().await;
    assert!(eventually(|| exists(&root, "#matrix-table")).await);
    let kvs = qpath_core::matrix::mla_kv_dtypes(Release::V0_33_0);
    let heads = root.query_selector_all("#matrix-table thead th.kv-col").unwrap();
    let shown: Vec<String> = (0..heads.length())
        .map(|i| heads.item(i).unwrap().text_content().unwrap())
        .collect();
    assert_eq!(shown, kvs);
    assert!(shown.contains(&"fp8_ds_mla".to_string()) && shown.contains(&"nvfp4_ds_mla".to_string()));
    assert_eq!(count(&root, "#matrix-table button.cell") as usize, 30 * kvs.len());
    assert!(text(&root, "#matrix-caption").contains("every --kv-cache-dtype some MLA backend accepts"));
    assert!(text(&root, ".matrix-legend").contains("FLASHINFER_MLA bf16/e4m3 fa4-varlen/trtllm-gen-mla"));
    let b200 = q(&root, r#"button[data-gpu="b200"][data-kv="fp8"]"#);
    assert_eq!(b200.get_attribute("data-backends").as_deref(), Some("FLASHINFER_MLA"));
    assert_eq!(text(&b200, ".summary"), "FLASHINFER_MLA bf16/e4m3 fa4-varlen/trtllm-gen-mla");
    let h200 = q(&root, r#"button[data-gpu="h200"][data-kv="auto"]"#);
    assert_eq!(h200.get_attribute("data-backends").as_deref(), Some("FLASH_ATTN_MLA"));
    // Every backend a cell names is an MLA backend.
    let cells = root.query_selector_all("#matrix-table button.cell").unwrap();
    for i in 0..cells.length() {
        let c: Element = cells.item(i).unwrap().unchecked_into();
        let backends = c.get_attribute("data-backends").unwrap_or_default();
        for b in backends.split(',').filter(|b| !b.is_empty()) {
            assert!(qpath_core::report::Backend::parse(b).is_some_and(|b| b.is_mla()), "{b}");
        }
    }
}

/// Compare on an MLA model: each side's kernel cells say who runs them (the MLA prefill backend, the MLA backend).
#[wasm_bindgen_test]
async fn compare_says_who_runs_an_mla_groups_kernels() {
    let line = "vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype fp8";
    let root = mount_compare(
        &scenario("b200", Release::V0_24_0, line),
        &scenario("b200", Release::V0_33_0, line),
    )
    .await;
    assert_eq!(text(&root, ".right-backend .value"), "FLASHINFER_MLA");
    assert_eq!(
        text(&root, ".right-kernel-prefill .value"),
        "fa4-varlen on MLA prefill backend FLASH_ATTN"
    );
    assert_eq!(text(&root, ".right-kernel-decode .value"), "trtllm-gen-mla on FLASHINFER_MLA");
    assert!(text(&root, ".left-kernel-decode .value").ends_with(&format!(" on {}", text(&root, ".left-backend .value"))));
}
