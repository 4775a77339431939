//! Browser tests of the page: each test mounts the real `App` into its own container (after setting the URL hash it
//! starts from), uses the real controls (choosing options, typing, pasting, clicking), lets Yew re-render, and reads
//! the DOM. They run in headless Chromium and headless Firefox (`scripts/test.sh`); natively this file compiles to
//! nothing.
#![cfg(target_arch = "wasm32")]

use qpath_core::gpu::{GpuFilter, GPUS};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{
    Element, Event, EventInit, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement, KeyboardEvent,
    KeyboardEventInit,
};

mod common;
use common::*;

wasm_bindgen_test_configure!(run_in_browser);

async fn mount() -> Element {
    mount_with_hash("").await
}

fn text(root: &Element, selector: &str) -> String {
    q(root, selector).text_content().unwrap_or_default()
}

fn bubbling(kind: &str) -> Event {
    let init = EventInit::new();
    init.set_bubbles(true);
    Event::new_with_event_init_dict(kind, &init).unwrap()
}

/// The ids of the GPU rows shown, in order.
fn shown_ids(root: &Element) -> Vec<String> {
    let rows = root.query_selector_all("#gpu-table tbody tr").unwrap();
    (0..rows.length())
        .map(|i| {
            rows.item(i)
                .unwrap()
                .unchecked_into::<Element>()
                .get_attribute("data-gpu-id")
                .unwrap()
        })
        .collect()
}

async fn choose(root: &Element, selector: &str, value: &str) {
    let select: HtmlSelectElement = q(root, selector).unchecked_into();
    select.set_value(value);
    assert_eq!(select.value(), value, "{selector} has no option {value}");
    select.dispatch_event(&bubbling("change")).unwrap();
    flush().await;
}

async fn type_into(root: &Element, selector: &str, value: &str) {
    let input: HtmlInputElement = q(root, selector).unchecked_into();
    input.set_value(value);
    input.dispatch_event(&bubbling("input")).unwrap();
    flush().await;
}

/// Puts text into the command line as a paste does (an input event with the new value).
async fn paste_command(root: &Element, line: &str) {
    let area: HtmlTextAreaElement = q(root, "#command-line").unchecked_into();
    area.set_value(line);
    area.dispatch_event(&bubbling("input")).unwrap();
    flush().await;
}

fn command(root: &Element) -> String {
    q(root, "#command-line").unchecked_into::<HtmlTextAreaElement>().value()
}

fn select_value(root: &Element, selector: &str) -> String {
    q(root, selector).unchecked_into::<HtmlSelectElement>().value()
}

/// Asserts that a select comes to show `want`. The selects take their value from the state in an effect
/// (components/choice.rs); after a navigation the state itself arrives on the browser's time.
async fn assert_select(root: &Element, selector: &str, want: &str) {
    eventually(|| select_value(root, selector) == want).await;
    assert_eq!(select_value(root, selector), want, "{selector}");
}

/// The first FlashInfer group's value in a results field (`q-prefill`, `kernel-decode`, …).
fn fi(root: &Element, class: &str) -> String {
    let groups = root.query_selector_all("article.group").unwrap();
    for i in 0..groups.length() {
        let g: Element = groups.item(i).unwrap().unchecked_into();
        if let Ok(Some(e)) = g.query_selector(&format!(".{class}")) {
            return e.text_content().unwrap_or_default().trim().to_string();
        }
    }
    panic!("no FlashInfer group shows .{class}");
}

#[wasm_bindgen_test]
async fn first_visit_shows_the_seed_scenario_and_writes_the_link() {
    let root = mount().await;
    assert_eq!(
        command(&root),
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8"
    );
    assert!(text(&root, "#selected-gpu").starts_with("NVIDIA L4 · compute capability 8.9"));
    assert_eq!(fi(&root, "q-prefill"), "bfloat16");
    assert_eq!(fi(&root, "kernel-prefill"), "fa2");
    assert!(text(&root, "#result-stamp").contains("vLLM 0.33.0"));
    let expected = "#gpu=l4&vllm=0.33.0&cuda=12.9&cubins=default&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct";
    assert!(
        eventually(|| location_hash().starts_with(expected)).await,
        "hash {:?}",
        location_hash()
    );
}

#[wasm_bindgen_test]
async fn choosing_the_prefix_release_shows_the_fa2_crash() {
    let root = mount().await;
    choose(&root, "#release", "0.25.0-prefix").await;
    let err = text(&root, ".group-error");
    assert!(err.contains("fp8 tensor core is not supported in fa2 backend"), "{err}");
    assert!(err.contains("on the first decode"), "{err}");
    assert_eq!(fi(&root, "q-prefill"), "float8_e4m3fn");
    // Both phases: each has its kernel and its own error; the prefill's is shown beside the first one (the decode's).
    assert_eq!(
        (fi(&root, "kernel-prefill"), fi(&root, "kernel-decode")),
        ("fa2".into(), "fa2".into())
    );
    let prefill = text(&root, ".phase-error");
    assert!(
        prefill.starts_with("Prefill also raises AssertionError on the first prefill"),
        "{prefill}"
    );
    assert!(
        prefill.contains("fp8 tensor core is not supported in fa2 backend"),
        "{prefill}"
    );
    choose(&root, "#release", "0.25.0").await;
    assert!(!exists(&root, ".group-error"));
    assert_eq!(fi(&root, "q-prefill"), "bfloat16");
    assert!(
        eventually(|| location_hash().contains("vllm=0.25.0&")).await,
        "hash {:?}",
        location_hash()
    );
}

#[wasm_bindgen_test]
async fn controls_edit_the_command_line_and_the_answer() {
    let root = mount_with_hash(
        "#gpu=h100-sxm&vllm=0.33.0&cubins=yes&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8",
    )
    .await;
    // FLASH_ATTN takes fp8 on SM90 unless FlashInfer is asked for.
    choose(&root, "#attention-backend", "FLASHINFER").await;
    assert!(
        command(&root).contains("--attention-backend FLASHINFER"),
        "{}",
        command(&root)
    );
    assert_eq!(
        (fi(&root, "q-prefill"), fi(&root, "kernel-decode")),
        ("float8_e4m3fn".into(), "xqa".into())
    );
    let check: HtmlInputElement = q(&root, "#disable-q-quant").unchecked_into();
    check.click();
    flush().await;
    assert!(
        command(&root).contains("disable_flashinfer_q_quantization"),
        "{}",
        command(&root)
    );
    assert_eq!(
        (fi(&root, "q-prefill"), fi(&root, "kernel-prefill")),
        ("bfloat16".into(), "fa2".into())
    );
}

#[wasm_bindgen_test]
async fn skip_layer_chips() {
    let root = mount_with_hash("#gpu=h100-sxm&vllm=0.25.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8+--attention-backend+FLASHINFER").await;
    let input: HtmlInputElement = q(&root, "#skip-add").unchecked_into();
    input.set_value("0 2");
    let init = KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_bubbles(true);
    input
        .dispatch_event(&KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap())
        .unwrap();
    flush().await;
    assert!(
        command(&root).contains("--kv-cache-dtype-skip-layers 0 2"),
        "{}",
        command(&root)
    );
    assert_eq!(root.query_selector_all("#skip-layers .chip").unwrap().length(), 2);
    assert_eq!(root.query_selector_all("article.group").unwrap().length(), 2);
    // Removing a chip edits the command line again.
    q(&root, "#skip-layers .chip button").unchecked_into::<HtmlElement>().click();
    flush().await;
    assert!(
        command(&root).contains("--kv-cache-dtype-skip-layers 2"),
        "{}",
        command(&root)
    );
}

#[wasm_bindgen_test]
async fn pasting_a_command_line_fills_the_inputs() {
    let root = mount().await;
    paste_command(
        &root,
        "VLLM_BATCH_INVARIANT=1 vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER -dcp 2 --max-model-len 8192",
    )
    .await;
    assert_select(&root, "#model", "openai/gpt-oss-20b").await;
    assert_select(&root, "#attention-backend", "FLASHINFER").await;
    assert_select(&root, "#dcp", "2").await;
    assert!(q(&root, "#batch-invariant").unchecked_into::<HtmlInputElement>().checked());
    assert!(text(&root, "#command-unused").contains("--max-model-len 8192"));
    // Batch invariance: vLLM rejects the forced FlashInfer backend, and says why.
    assert!(text(&root, ".scenario-error").contains("batch invariance not supported"));
}

#[wasm_bindgen_test]
async fn an_invalid_command_line_is_named_and_the_inputs_stay() {
    let root = mount().await;
    paste_command(
        &root,
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 --no-such-flag 3",
    )
    .await;
    assert!(
        eventually(|| exists(&root, "#command-error")).await,
        "no #command-error; command {:?}",
        command(&root)
    );
    assert!(text(&root, "#command-error").contains("--no-such-flag"));
    // The last valid flags stay in the inputs.
    assert_select(&root, "#kv-cache-dtype", "fp8").await;
    assert!(exists(&root, ".scenario-error"));
}

#[wasm_bindgen_test]
async fn the_installed_flashinfer_and_a_nightly_come_from_the_link_and_the_select() {
    // H100, head_dim 512 at 0.33.0: fa2 decode with the pinned 0.7.2.post1; FlashInfer 0.6.14 builds FA2 modules with
    // head_dim > 256 for SM100+ only, so the decode plan fails.
    let root = mount_with_hash(
        "#gpu=h100-sxm&vllm=0.33.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--attention-backend+FLASHINFER+--hf-overrides+%27%7B%22head_dim%22%3A+512%7D%27",
    )
    .await;
    assert_select(&root, "#flashinfer", "").await;
    assert_eq!(text(&root, "#flashinfer option"), "as pinned (0.7.2.post1)");
    assert!(!exists(&root, "article.group.raises"));
    choose(&root, "#flashinfer", "0.6.14").await;
    assert!(
        eventually(|| location_hash().contains("&flashinfer=0.6.14&")).await,
        "{}",
        location_hash()
    );
    assert!(
        text(&root, "#result-stamp").contains("FlashInfer 0.6.14 (release pins 0.7.2.post1)"),
        "{}",
        text(&root, "#result-stamp")
    );
    assert!(eventually(|| exists(&root, "article.group.raises")).await);
    assert_eq!(fi(&root, "kernel-prefill"), "fa3");

    // A nightly runs as the release before it; the select shows that release and the notes say so.
    let root =
        mount_with_hash("#gpu=dgx-spark&vllm=0.27.2rc1.dev77%2Bg1234abc&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct").await;
    assert_select(&root, "#release", "0.27.1").await;
    assert!(!exists(&root, "#notices"));
    assert!(
        text(&root, ".notes-block ul.notes")
            .contains("vLLM 0.27.2rc1.dev77+g1234abc is a development build, not a release qpath knows; qpath shows 0.27.1"),
        "{}",
        text(&root, ".notes-block ul.notes")
    );

    // A flashinfer-python no release pins runs as the newest modelled one below it; the link keeps it as given, the
    // select shows the modelled one, the notes say both, and choosing in the select replaces it.
    let root =
        mount_with_hash("#gpu=h100-sxm&vllm=0.27.0&flashinfer=0.6.15.post1&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct")
            .await;
    assert_select(&root, "#flashinfer", "0.6.14").await;
    assert!(!exists(&root, "#notices"));
    assert!(
        text(&root, ".notes-block ul.notes").contains(
            "flashinfer-python 0.6.15.post1 is not a release qpath models: its rules and source lines are those of 0.6.14"
        ),
        "{}",
        text(&root, ".notes-block ul.notes")
    );
    assert!(
        eventually(|| location_hash().contains("&flashinfer=0.6.15.post1&")).await,
        "{}",
        location_hash()
    );
    choose(&root, "#flashinfer", "0.6.18").await;
    assert!(
        eventually(|| location_hash().contains("&flashinfer=0.6.18&")).await,
        "{}",
        location_hash()
    );
}

#[wasm_bindgen_test]
async fn links_restore_the_page_and_bad_parts_are_named() {
    let root = mount_with_hash(
        "#gpu=b200&vllm=0.25.0&cuda=12.8&cubins=yes&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8",
    )
    .await;
    assert!(text(&root, "#selected-gpu").starts_with("NVIDIA B200"));
    assert_select(&root, "#release", "0.25.0").await;
    assert_select(&root, "#cuda", "12.8").await;
    assert_select(&root, "#cubins", "true").await;
    assert_eq!(
        (fi(&root, "q-prefill"), fi(&root, "kernel-prefill")),
        ("float8_e4m3fn".into(), "trtllm-gen".into())
    );
    assert!(!exists(&root, "#notices"));

    let root = mount_with_hash("#gpu=h900&vllm=0.26.0&cuda=banana").await;
    let notices = text(&root, "#notices");
    assert!(notices.contains("`h900`") && notices.contains("`banana`"), "{notices}");
    assert_select(&root, "#release", "0.26.0").await; // the valid part is kept
    assert!(exists(&root, "article.group"), "the page stays usable");

    let root = mount_with_hash("#%%%&&==&cmd=%E2%82").await;
    assert!(exists(&root, "#notices"));
    assert!(exists(&root, "#command-line"));
}

#[wasm_bindgen_test]
async fn the_gpu_picker_finds_both_6000s_and_selects() {
    let root = mount().await;
    type_into(&root, "#gpu-search", "6000").await;
    let ids = shown_ids(&root);
    assert!(
        ids.contains(&"rtx-6000-ada".to_string()) && ids.contains(&"rtx-pro-6000-blackwell".to_string()),
        "{ids:?}"
    );
    assert_eq!(text(&root, "tr[data-gpu-id='rtx-6000-ada'] .cc"), "8.9");
    assert_eq!(text(&root, "tr[data-gpu-id='rtx-pro-6000-blackwell'] .cc"), "12.0");
    q(&root, "tr[data-gpu-id='rtx-pro-6000-blackwell'] button.pick")
        .unchecked_into::<HtmlElement>()
        .click();
    flush().await;
    assert!(text(&root, "#selected-gpu").contains("compute capability 12.0"));
    assert!(
        eventually(|| location_hash().starts_with("#gpu=rtx-pro-6000-blackwell&")).await,
        "hash {:?}",
        location_hash()
    );
    // SM120 decodes through XQA from 0.28.0 (cubins are available by default); offline it decodes natively.
    assert_eq!(fi(&root, "kernel-decode"), "xqa");
    choose(&root, "#cubins", "false").await;
    assert_eq!(fi(&root, "kernel-decode"), "fa2");
    choose(&root, "#cubins", "true").await;
    assert_eq!(fi(&root, "kernel-decode"), "xqa");
}

#[wasm_bindgen_test]
async fn gpu_filters_combine_and_clear() {
    let root = mount().await;
    choose(&root, "#filter-fp4", "true").await;
    choose(&root, "#filter-memory", "180").await;
    let expected: Vec<String> = GpuFilter {
        fp4: Some(true),
        min_memory_gb: Some(180),
        ..Default::default()
    }
    .apply(GPUS)
    .iter()
    .map(|g| g.id.to_string())
    .collect();
    assert_eq!(shown_ids(&root), expected);
    q(&root, "button.clear").unchecked_into::<HtmlElement>().click();
    flush().await;
    assert_eq!(shown_ids(&root).len(), GPUS.len());
    assert_select(&root, "#filter-fp4", "").await;
}

#[wasm_bindgen_test]
async fn compare_puts_the_prefix_crash_beside_the_fix() {
    let root =
        mount_with_hash("#gpu=l4&vllm=0.25.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8").await;
    q(&root, "#tab-compare").unchecked_into::<HtmlElement>().click();
    flush().await;
    assert!(eventually(|| exists(&root, "#compare-table")).await);
    choose(&root, "#compare-release", "0.25.0-prefix").await;
    assert!(text(&root, ".left-prefill-outcome").contains("fp8 tensor core is not supported in fa2 backend"));
    assert!(text(&root, ".left-decode-outcome").contains("fp8 tensor core is not supported in fa2 backend"));
    assert!(text(&root, ".left-q-prefill").contains("float8_e4m3fn"));
    assert!(text(&root, ".right-q-prefill").contains("bfloat16"));
    assert!(q(&root, ".left-prefill-outcome").class_list().contains("diff"));
    // The compare view is not part of the link; the scenario is.
    assert!(location_hash().contains("vllm=0.25.0&"));
}

/// The release timeline: every release a row, the seed story's two changed releases badged, each change with the
/// step that decides it and the link to its line; the scenario's own release is the current row.
#[wasm_bindgen_test]
async fn the_timeline_shows_where_the_seed_story_changes() {
    let root =
        mount_with_hash("#gpu=l4&vllm=0.25.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8").await;
    q(&root, "#tab-timeline").unchecked_into::<HtmlElement>().click();
    flush().await;
    assert!(eventually(|| exists(&root, "#timeline-table")).await);
    let rows = root.query_selector_all("#timeline-table tbody tr").unwrap();
    assert_eq!(rows.length() as usize, qpath_core::release::Release::ALL.len());
    let changed = root.query_selector_all("#timeline-table tr.changed").unwrap();
    let names: Vec<String> = (0..changed.length())
        .map(|i| {
            changed
                .item(i)
                .unwrap()
                .unchecked_into::<Element>()
                .get_attribute("data-release")
                .unwrap()
        })
        .collect();
    assert_eq!(names, ["0.25.0-prefix", "0.25.0"]);
    assert!(text(&root, "tr[data-release='0.25.0-prefix'] .summary").contains("fp8 tensor core is not supported in fa2 backend"));
    assert_eq!(text(&root, "tr[data-release='0.25.0-prefix'] .verdict"), "fails");
    assert!(text(&root, "tr[data-release='0.25.0-prefix'] th").contains("changed"));
    assert_eq!(
        q(&root, "tr[aria-current='true']").get_attribute("data-release").as_deref(),
        Some("0.25.0")
    );
    let why = text(&root, "#timeline-changes li[data-release='0.25.0'] .why");
    assert!(
        why.starts_with("get_q_data_type(is_prefill=True) (vllm/v1/attention/backends/flashinfer.py:824)"),
        "{why}"
    );
    let link = q(&root, "#timeline-changes li[data-release='0.25.0'] a");
    assert!(link
        .get_attribute("href")
        .unwrap()
        .ends_with("/v0.25.0/vllm/v1/attention/backends/flashinfer.py#L824"));
}

/// "How to make it run": beside the seed story's crash at 0.25.0-prefix, the first suggestion keeps FlashInfer and the
/// FP8 cache; Apply puts it on the command line and the scenario runs; 0.25.0 is among the suggestions.
#[wasm_bindgen_test]
async fn applying_a_suggested_fix_makes_the_scenario_run() {
    let root =
        mount_with_hash("#gpu=l4&vllm=0.25.0-prefix&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8")
            .await;
    assert!(eventually(|| exists(&root, "section.fixes li.fix")).await);
    assert_eq!(text(&root, "#fixes-title"), "How to make it run");
    assert_eq!(
        text(&root, "li.fix[data-index='0'] .fix-changes"),
        "--attention-config.disable_flashinfer_q_quantization: false → true"
    );
    assert!(text(&root, "section.fixes").contains("vLLM 0.25.0-prefix → 0.25.0"));
    // The verdict bar says the failure and the best fix in one line.
    assert_eq!(
        text(&root, "#verdict"),
        "vLLM 0.25.0-prefix on NVIDIA L4 · vLLM would fail: group 1 (FLASHINFER, decode_jit): AssertionError: fp8 tensor \
         core is not supported in fa2 backend · Best fix: --attention-config.disable_flashinfer_q_quantization: false → \
         true (see How to make it run)"
    );
    q(&root, "li.fix[data-index='0'] button.apply-fix")
        .unchecked_into::<HtmlElement>()
        .click();
    flush().await;
    assert!(eventually(|| !exists(&root, "section.fixes")).await, "nothing left to fix");
    assert!(
        command(&root).contains("disable_flashinfer_q_quantization"),
        "{}",
        command(&root)
    );
    assert!(
        command(&root).contains("--kv-cache-dtype fp8"),
        "the FP8 cache is kept: {}",
        command(&root)
    );
    assert_eq!(
        (fi(&root, "q-prefill"), fi(&root, "kernel-prefill")),
        ("bfloat16".into(), "fa2".into())
    );
    assert!(location_hash().contains("disable_flashinfer_q_quantization"));
    assert_eq!(
        text(&root, "#verdict"),
        "vLLM 0.25.0-prefix on NVIDIA L4 · vLLM would start and serve: FLASHINFER bf16/bf16 fa2/fa2"
    );
}

#[wasm_bindgen_test]
async fn a_matrix_cell_loads_its_scenario() {
    let root =
        mount_with_hash("#gpu=l4&vllm=0.33.0&cubins=yes&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8")
            .await;
    q(&root, "#tab-matrix").unchecked_into::<HtmlElement>().click();
    assert!(eventually(|| exists(&root, "button.cell[data-gpu='b200'][data-kv='nvfp4']")).await);
    assert!(exists(&root, "button.cell.error"), "errors stand out");
    q(&root, "button.cell[data-gpu='b200'][data-kv='nvfp4']")
        .unchecked_into::<HtmlElement>()
        .click();
    flush().await;
    assert!(eventually(|| exists(&root, "article.group")).await, "back on the explainer");
    assert!(text(&root, "#selected-gpu").starts_with("NVIDIA B200"));
    assert!(command(&root).contains("--kv-cache-dtype nvfp4"), "{}", command(&root));
    assert_eq!(
        (fi(&root, "q-prefill"), fi(&root, "kernel-prefill")),
        ("float8_e4m3fn".into(), "trtllm-gen".into())
    );
}

/// The matrix's backend selector: "the backend vLLM picks" shows every backend's cache dtypes and, per cell, the
/// backend and what it runs; a Triton-only cache dtype's cell loads a TRITON_ATTN scenario into the explainer.
#[wasm_bindgen_test]
async fn the_matrix_shows_the_backend_vllm_picks_on_every_gpu() {
    let root = mount_with_hash("#gpu=h100-sxm&vllm=0.33.0&cubins=yes&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct").await;
    q(&root, "#tab-matrix").unchecked_into::<HtmlElement>().click();
    assert!(eventually(|| exists(&root, "#matrix-mode")).await);
    assert_eq!(
        select_value(&root, "#matrix-mode"),
        "flashinfer",
        "FlashInfer's grid first, as before"
    );
    let fi_cols = root.query_selector_all("#matrix-table thead th.kv-col").unwrap().length();
    // FlashInfer's grid: the H100's own cell is another backend's, and says what it runs.
    let h100 = q(&root, "button.cell[data-gpu='h100-sxm'][data-kv='auto']");
    assert!(h100.class_list().contains("other-backend"));
    assert_eq!(h100.get_attribute("data-backends").as_deref(), Some("FLASH_ATTN"));
    assert!(
        text(&h100, ".summary").starts_with("FLASH_ATTN "),
        "{}",
        text(&h100, ".summary")
    );

    choose(&root, "#matrix-mode", "picked").await;
    assert!(eventually(|| text(&root, "#matrix-table caption").contains("the backend vLLM picks")).await);
    let cols = root.query_selector_all("#matrix-table thead th.kv-col").unwrap().length();
    assert_eq!(
        cols as usize,
        qpath_core::matrix::any_backend_kv_dtypes(qpath_core::release::Release::V0_33_0).len()
    );
    assert!(cols > fi_cols);
    assert!(!exists(&root, "button.cell.other-backend"), "every cell names its backend");
    let h100 = q(&root, "button.cell[data-gpu='h100-sxm'][data-kv='auto']");
    assert!(h100.class_list().contains("ok"));
    assert!(text(&h100, ".summary").starts_with("FLASH_ATTN "));
    let b200 = q(&root, "button.cell[data-gpu='b200'][data-kv='fp8']");
    assert!(
        text(&b200, ".summary").starts_with("FLASHINFER "),
        "{}",
        text(&b200, ".summary")
    );
    assert!(text(&root, "#matrix-caption").contains("every --kv-cache-dtype some attention backend accepts"));
    let triton = "button.cell[data-gpu='h100-sxm'][data-kv='int8_per_token_head']";
    assert_eq!(
        q(&root, triton).get_attribute("data-backends").as_deref(),
        Some("TRITON_ATTN")
    );
    q(&root, triton).unchecked_into::<HtmlElement>().click();
    flush().await;
    assert!(eventually(|| exists(&root, "article.group")).await, "back on the explainer");
    assert!(
        command(&root).contains("--kv-cache-dtype int8_per_token_head"),
        "{}",
        command(&root)
    );
    assert_select(&root, "#kv-cache-dtype", "int8_per_token_head").await;
    assert_eq!(text(&root, "article.group .backend"), "TRITON_ATTN");
    // Back on the matrix, it keeps the mode the user chose.
    q(&root, "#tab-matrix").unchecked_into::<HtmlElement>().click();
    assert!(eventually(|| exists(&root, "#matrix-table")).await);
    assert_select(&root, "#matrix-mode", "picked").await;
    assert!(text(&root, "#matrix-table caption").contains("the backend vLLM picks"));
}

/// The page speaks of every backend: its title, description and tagline do not say "FlashInfer backend".
#[wasm_bindgen_test]
async fn the_page_speaks_of_every_backend() {
    let root = mount_with_hash("").await;
    let tagline = text(&root, ".tagline");
    assert!(!tagline.contains("FlashInfer backend"), "{tagline}");
    assert!(tagline.contains("Which attention backend vLLM picks"), "{tagline}");
    // Every backend qpath models is a choice of --attention-backend.
    for b in ["FLASHINFER", "FLASH_ATTN", "TRITON_ATTN", "FLEX_ATTENTION", "TURBOQUANT"] {
        assert!(exists(&root, &format!("#attention-backend option[value='{b}']")), "{b}");
    }
}

#[wasm_bindgen_test]
async fn markdown_for_an_issue_has_the_table_the_command_and_the_link() {
    let root =
        mount_with_hash("#gpu=l4&vllm=0.25.0-prefix&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8")
            .await;
    let md = text(&root, "#markdown-preview");
    assert!(
        md.contains("vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8"),
        "{md}"
    );
    assert!(md.contains("| layers | attention | backend |"), "{md}");
    assert!(md.contains("fp8 tensor core is not supported in fa2 backend"), "{md}");
    assert!(
        md.contains("- prefill: `AssertionError on the first prefill, in BatchPrefillWithPagedKVCacheWrapper.plan"),
        "{md}"
    );
    assert!(
        md.contains("- decode:  `AssertionError on the first decode, in BatchDecodeWithPagedKVCacheWrapper.plan"),
        "{md}"
    );
    assert!(md.contains("[Open in qpath](") && md.contains("vllm=0.25.0-prefix"), "{md}");
}

#[wasm_bindgen_test]
async fn the_first_render_without_a_hash_links_to_its_state() {
    // The address bar has no hash until the hash effect runs after the first render; the link must not wait for it.
    let root = mount().await;
    let md = text(&root, "#markdown-preview");
    let link = md.split("[Open in qpath](").nth(1).unwrap_or_default();
    assert!(link.contains("#gpu=") && link.contains("&cmd=vllm+serve+"), "{md}");
}

#[wasm_bindgen_test]
async fn the_theme_toggle_is_remembered() {
    use gloo::storage::{LocalStorage, Storage};
    LocalStorage::clear();
    let root = mount().await;
    let html = gloo::utils::document().document_element().unwrap();
    q(&root, "#theme-toggle").unchecked_into::<HtmlElement>().click();
    assert!(
        eventually(|| html.class_list().contains("light")).await,
        "class {:?}",
        html.class_name()
    );
    q(&root, "#theme-toggle").unchecked_into::<HtmlElement>().click();
    assert!(eventually(|| html.class_list().contains("dark") && !html.class_list().contains("light")).await);
    assert_eq!(LocalStorage::get::<String>("qpath-theme").ok().as_deref(), Some("dark"));
    let root = mount().await;
    assert!(
        text(&root, "#theme-toggle").contains("dark"),
        "a new page starts from the remembered theme"
    );
    q(&root, "#theme-toggle").unchecked_into::<HtmlElement>().click();
    assert!(
        eventually(|| !html.class_list().contains("dark") && !html.class_list().contains("light")).await,
        "back to the system's"
    );
    LocalStorage::clear();
}

#[wasm_bindgen_test]
async fn back_and_forward_walk_the_choices() {
    let root =
        mount_with_hash("#gpu=l4&vllm=0.25.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8").await;
    choose(&root, "#release", "0.25.0-prefix").await;
    assert!(eventually(|| location_hash().contains("vllm=0.25.0-prefix&")).await);
    assert!(exists(&root, ".group-error"));
    web_sys::window().unwrap().history().unwrap().back().unwrap();
    assert!(
        eventually(|| select_value(&root, "#release") == "0.25.0").await,
        "back restores 0.25.0"
    );
    assert!(eventually(|| !exists(&root, ".group-error")).await);
    web_sys::window().unwrap().history().unwrap().forward().unwrap();
    assert!(
        eventually(|| select_value(&root, "#release") == "0.25.0-prefix").await,
        "forward restores the prefix"
    );
}

#[wasm_bindgen_test]
async fn the_batch_invariance_box_reads_the_variable_as_vllm_does() {
    let root = mount().await;
    let checked = || q(&root, "#batch-invariant").unchecked_into::<HtmlInputElement>().checked();
    let llama = "vllm serve meta-llama/Llama-3.1-8B-Instruct";
    for (env, want) in [
        ("VLLM_BATCH_INVARIANT=1", true),
        ("VLLM_BATCH_INVARIANT=00", false),
        ("VLLM_BATCH_INVARIANT=1 VLLM_BATCH_INVARIANT=0", false),
    ] {
        paste_command(&root, &format!("{env} {llama}")).await;
        assert_eq!(checked(), want, "{env}");
        assert!(!exists(&root, "#batch-invariant-error"), "{env}");
    }
    paste_command(&root, &format!("VLLM_BATCH_INVARIANT=true {llama}")).await;
    assert!(!checked());
    let error = text(&root, "#batch-invariant-error");
    assert!(
        error.starts_with("invalid value: VLLM_BATCH_INVARIANT=true") && error.contains("invalid literal for int()"),
        "{error}"
    );
    // Checking the box replaces the value vLLM cannot read.
    q(&root, "#batch-invariant").unchecked_into::<HtmlElement>().click();
    flush().await;
    assert!(checked());
    assert!(
        command(&root).starts_with("VLLM_BATCH_INVARIANT=1 vllm serve"),
        "{}",
        command(&root)
    );
    assert!(!exists(&root, "#batch-invariant-error"));
}

#[wasm_bindgen_test]
async fn a_compare_release_qpath_does_not_know_is_named_and_the_choice_stays() {
    let root =
        mount_with_hash("#gpu=l4&vllm=0.25.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8").await;
    q(&root, "#tab-compare").unchecked_into::<HtmlElement>().click();
    flush().await;
    choose(&root, "#compare-release", "0.26.0").await;
    assert!(text(&root, "#compare-left").contains("vLLM 0.26.0 /"));
    // A value no release has, as a select could report it (an option added from outside).
    let option = gloo::utils::document().create_element("option").unwrap();
    option.set_attribute("value", "9.9.9").unwrap();
    q(&root, "#compare-release").append_child(&option).unwrap();
    choose(&root, "#compare-release", "9.9.9").await;
    let notices = text(&root, "#notices");
    assert!(
        notices.contains("`9.9.9`") && notices.contains("previous choice is kept"),
        "{notices}"
    );
    assert!(
        text(&root, "#compare-left").contains("vLLM 0.26.0 /"),
        "the previous release stays"
    );
    assert_eq!(select_value(&root, "#compare-release"), "0.26.0");
}

/// meta-llama/Llama-3.1-8B-Instruct's config.json (https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/blob/main/
/// config.json), the fixture the core's golden_config.rs reads too.
const LLAMA_31_8B: &str = include_str!("../crates/qpath-core/tests/fixtures/llama-3.1-8b-instruct.config.json");

/// Llama-3.1-8B-Instruct's config.json with `num_hidden_layers` 4 instead of 32.
fn llama_31_8b_4_layers() -> String {
    LLAMA_31_8B.replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 4")
}

/// Puts text into the config.json textarea as a paste does (an input event with the new value).
async fn paste_config(root: &Element, text: &str) {
    let area: HtmlTextAreaElement = q(root, "#model-config").unchecked_into();
    area.set_value(text);
    area.dispatch_event(&bubbling("input")).unwrap();
    flush().await;
}

fn strip_cells(root: &Element) -> u32 {
    root.query_selector_all(".layer-strip .layer").unwrap().length()
}

#[wasm_bindgen_test]
async fn a_pasted_config_json_is_read_instead_of_the_preset_and_goes_into_the_link() {
    let root =
        mount_with_hash("#gpu=h100-sxm&vllm=0.33.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8").await;
    assert_eq!(strip_cells(&root), 32);
    assert!(!exists(&root, "#config-read"));
    paste_config(&root, &llama_31_8b_4_layers()).await;
    assert_eq!(strip_cells(&root), 4);
    let model = text(&root, "#result-model");
    assert!(
        model.contains(": 4 layers") && model.contains("(read from the pasted config.json, not a preset)"),
        "{model}"
    );
    assert_eq!(text(&root, "#config-read"), "read: LlamaForCausalLM, 4 layers");
    assert!(
        eventually(|| location_hash().contains("&config=%7B%22architectures%22:%5B%22LlamaForCausalLM%22%5D,")).await,
        "{}",
        location_hash()
    );
    // The rest of the state is kept.
    assert!(text(&root, "#selected-gpu").starts_with("NVIDIA H100"));
    assert_select(&root, "#kv-cache-dtype", "fp8").await;
    assert!(!exists(&root, "#notices"));

    // Reloading the link gives the config back (minified), and the same answer.
    let link = location_hash();
    let root = mount_with_hash(&link).await;
    let area = q(&root, "#model-config").unchecked_into::<HtmlTextAreaElement>().value();
    assert!(
        area.starts_with(r#"{"architectures":["LlamaForCausalLM"],"attention_bias":false,"#),
        "{area}"
    );
    assert_eq!(strip_cells(&root), 4);
    assert_eq!(text(&root, "#config-read"), "read: LlamaForCausalLM, 4 layers");
    assert!(!exists(&root, "#notices"));

    // Clear: the preset again, and out of the link.
    q(&root, "#config-clear").unchecked_into::<HtmlElement>().click();
    flush().await;
    assert_eq!(strip_cells(&root), 32);
    assert!(!exists(&root, "#config-read"));
    assert!(
        eventually(|| !location_hash().contains("config=")).await,
        "{}",
        location_hash()
    );
}

#[wasm_bindgen_test]
async fn a_malformed_config_json_is_named_and_the_page_stays() {
    let root =
        mount_with_hash("#gpu=h100-sxm&vllm=0.33.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8").await;
    paste_config(&root, r#"{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": "#).await;
    let e = text(&root, "#config-error");
    assert!(e.contains("the pasted config.json is not valid JSON"), "{e}");
    // The report says the same; the inputs, the command line and the link's other keys stay.
    assert!(text(&root, ".scenario-error").contains("is not valid JSON"));
    assert!(text(&root, "#selected-gpu").starts_with("NVIDIA H100"));
    assert_select(&root, "#kv-cache-dtype", "fp8").await;
    assert!(command(&root).contains("--kv-cache-dtype fp8"));
    assert!(!location_hash().contains("config="), "{}", location_hash());

    // JSON that is not a config qpath can read: the reader's error names the field.
    paste_config(
        &root,
        r#"{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": "4", "num_attention_heads": 32, "hidden_size": 4096}"#,
    )
    .await;
    let e = text(&root, "#config-error");
    assert!(e.contains("num_hidden_layers"), "{e}");
    // A link whose config is not JSON is a notice naming it; the rest of the link is used.
    let root = mount_with_hash("#gpu=b200&vllm=0.33.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct&config=%7Boops").await;
    assert!(
        text(&root, "#notices").contains("config `{oops`"),
        "{}",
        text(&root, "#notices")
    );
    assert!(text(&root, "#selected-gpu").starts_with("NVIDIA B200"));
    assert_eq!(strip_cells(&root), 32);
}

#[wasm_bindgen_test]
async fn a_dropped_config_json_file_is_read() {
    let root = mount_with_hash("#gpu=h100-sxm&vllm=0.33.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct").await;
    let parts = js_sys::Array::of1(&llama_31_8b_4_layers().into());
    let file = web_sys::File::new_with_str_sequence(&parts, "config.json").unwrap();
    let transfer = web_sys::DataTransfer::new().unwrap();
    transfer.items().add_with_file(&file).unwrap();
    let init = web_sys::DragEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_data_transfer(Some(&transfer));
    let drop = web_sys::DragEvent::new_with_event_init_dict("drop", &init).unwrap();
    q(&root, "#model-config").dispatch_event(&drop).unwrap();
    assert!(drop.default_prevented(), "the browser would open the file");
    // File::text() resolves on the browser's time.
    assert!(
        eventually(|| exists(&root, "#config-read")).await,
        "the dropped file was not read"
    );
    assert_eq!(text(&root, "#config-read"), "read: LlamaForCausalLM, 4 layers");
    // The results re-render in Yew's next pass after the read (Firefox runs it later than Chromium: CI saw 32 cells,
    // the preset's, right after "#config-read" appeared).
    assert!(
        eventually(|| strip_cells(&root) == 4).await,
        "the layer strip shows {} cells, not the config's 4",
        strip_cells(&root)
    );
}

#[wasm_bindgen_test]
async fn a_config_json_too_large_for_a_link_is_said_beside_copy_link() {
    let root = mount_with_hash("#gpu=h100-sxm&vllm=0.33.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct").await;
    let big = llama_31_8b_4_layers().replace(
        "\"vocab_size\": 128256",
        &format!("\"vocab_size\": 128256, \"padding\": \"{}\"", "x".repeat(16_000)),
    );
    paste_config(&root, &big).await;
    let said = "This link does not carry the pasted config.json (too large); paste it again after opening the link.";
    assert_eq!(text(&root, "#link-note"), said);
    assert!(text(&root, "#notices").contains(said));
    assert_eq!(strip_cells(&root), 4, "the page still reads it");
    assert!(eventually(|| !location_hash().contains("config=")).await);
    assert!(location_hash().contains("&cmd=vllm+serve+"), "{}", location_hash());
}

/// Qwen/Qwen3-Next-80B-A3B-Instruct's config.json as far as qpath reads it (the values of its preset in
/// data/models.toml and of `crates/qpath-core/tests/golden_config.rs`, which restate the released file).
const QWEN3_NEXT_80B: &str = include_str!("../crates/qpath-core/tests/fixtures/qwen3-next-80b-a3b-instruct.config.json");

/// A pasted hybrid config.json: the strip shows its 48 layers in two groups, the gated-delta-net layers on GDN_ATTN
/// (with their gated-delta-rule kernels) beside the full-attention layers every fourth layer on FlashInfer, whose page vLLM aligned to the
/// recurrent state (544-token blocks, 32-token kernel pages on B200 at 0.24.0).
#[wasm_bindgen_test]
async fn a_pasted_hybrid_config_json_shows_its_recurrent_group_in_the_strip() {
    let root = mount_with_hash("#gpu=b200&vllm=0.24.0&cmd=vllm+serve+Qwen%2FQwen3-Next-80B-A3B-Instruct").await;
    paste_config(&root, QWEN3_NEXT_80B).await;
    assert_eq!(strip_cells(&root), 48);
    assert_eq!(text(&root, "#config-read"), "read: Qwen3NextForCausalLM, 48 layers");
    // Layer 0 is gated delta net, layer 3 full attention (every fourth layer).
    let group_of = |layer: u32| {
        q(&root, &format!(".layer-strip .layer[data-layer=\"{layer}\"]"))
            .get_attribute("data-group")
            .unwrap_or_default()
    };
    let (linear, full) = (group_of(0), group_of(3));
    assert_ne!(linear, full);
    assert_eq!(group_of(1), linear);
    assert_eq!(group_of(7), full);
    let card = |g: &str| text(&root, &format!("article.group[data-group=\"{g}\"]"));
    let recurrent = card(&linear);
    assert!(recurrent.contains("GDN_ATTN"), "{recurrent}");
    // The gated delta net's own kernels (a gated delta rule per phase), as its card names them.
    let kernel = text(&root, &format!("article.group[data-group=\"{linear}\"] .kernel-prefill"));
    assert!(kernel.ends_with("-gdr"), "{kernel}");
    let attention = card(&full);
    assert!(attention.contains("FLASHINFER"), "{attention}");
    let logs = text(&root, "section.results");
    assert!(
        logs.contains("Setting attention block size to 544 tokens to ensure that attention page size is >= mamba page size."),
        "{logs}"
    );
}

/// The drafter section: Qwen3-Next chosen in the model select, method MTP and 2 tokens → the command line carries the
/// speculative config and the results show the MTP layer as a drafter group on FlashInfer (B200, 0.33.0).
#[wasm_bindgen_test]
async fn the_drafter_section_adds_an_mtp_drafter_group() {
    let root = mount_with_hash("#gpu=b200&vllm=0.33.0&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct").await;
    choose(&root, "#model", "Qwen/Qwen3-Next-80B-A3B-Instruct").await;
    assert!(!exists(&root, "article.group[data-role=\"drafter\"]"));
    choose(&root, "#spec-method", "mtp").await;
    assert!(
        !exists(&root, "#spec-model"),
        "MTP drafts from the target's checkpoint: no model select"
    );
    choose(&root, "#spec-tokens", "2").await;
    assert_eq!(
        command(&root),
        r#"vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-config '{"method": "mtp", "num_speculative_tokens": 2}'"#
    );
    let drafters = root.query_selector_all("article.group[data-role=\"drafter\"]").unwrap();
    assert_eq!(drafters.length(), 1);
    let card: Element = drafters.item(0).unwrap().unchecked_into();
    assert_eq!(text(&card, ".drafter-badge"), "drafter");
    assert_eq!(text(&card, ".group-title"), "Group 3: drafter layers 0");
    assert_eq!(text(&card, ".backend"), "FLASHINFER");
    // After the target's groups, in a strip of its own.
    let groups = root.query_selector_all("article.group").unwrap();
    assert_eq!(groups.length(), 3);
    assert_eq!(
        groups
            .item(2)
            .unwrap()
            .unchecked_into::<Element>()
            .get_attribute("data-role")
            .as_deref(),
        Some("drafter")
    );
    let strip = q(&root, ".drafter-strip");
    assert!(strip
        .get_attribute("aria-label")
        .unwrap()
        .starts_with("drafter: 1 layer in 1 group"));
    let line = text(&root, "#result-speculative");
    assert!(
        line.starts_with("Speculative decoding: method mtp, 2 tokens, drafter Qwen/Qwen3-Next-80B-A3B-Instruct"),
        "{line}"
    );
    // Off takes the flag and the drafter group away.
    choose(&root, "#spec-method", "").await;
    assert_eq!(command(&root), "vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct");
    assert!(!exists(&root, "article.group[data-role=\"drafter\"]") && !exists(&root, "#result-speculative"));
}

/// A method the page does not list (a deprecated MTP name typed in the command line) shows as itself, and changing
/// the tokens keeps it; EAGLE-3 shows the drafter model select with the EAGLE-3 preset.
#[wasm_bindgen_test]
async fn the_drafter_section_reads_the_command_lines_method_and_model() {
    let root = mount_with_hash("#gpu=b200&vllm=0.33.0").await;
    let typed = r#"vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-config '{"method":"qwen3_next_mtp","num_speculative_tokens":1}'"#;
    paste_command(&root, typed).await;
    assert_select(&root, "#spec-method", "qwen3_next_mtp").await;
    assert_select(&root, "#spec-tokens", "1").await;
    assert_eq!(command(&root), typed, "reading the command line leaves it as typed");
    let shown = q(&root, "#spec-method option[value=\"qwen3_next_mtp\"]")
        .text_content()
        .unwrap();
    assert_eq!(shown, "qwen3_next_mtp (from the command line)");
    choose(&root, "#spec-tokens", "3").await;
    assert_eq!(
        command(&root),
        r#"vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-config '{"method": "qwen3_next_mtp", "num_speculative_tokens": 3}'"#
    );
    assert!(text(&root, "#result-speculative").contains("method mtp, 3 tokens"));

    paste_command(&root, "vllm serve meta-llama/Llama-3.1-8B-Instruct").await;
    choose(&root, "#spec-method", "eagle3").await;
    assert_select(&root, "#spec-model", "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").await;
    assert!(
        command(&root).contains(r#""model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B""#),
        "{}",
        command(&root)
    );
    let card = q(&root, "article.group[data-role=\"drafter\"]");
    assert_eq!(text(&card, ".group-title"), "Group 2: drafter layers 32");
    // A model without a method: vLLM infers it (the results say eagle3); the model select lists every preset.
    paste_command(
        &root,
        r#"vllm serve meta-llama/Llama-3.1-8B-Instruct --speculative-config '{"model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":3}'"#,
    )
    .await;
    assert_select(&root, "#spec-method", "(inferred)").await;
    assert_select(&root, "#spec-model", "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B").await;
    let option = q(&root, "#spec-model option[value=\"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B\"]");
    assert_eq!(option.text_content().unwrap(), "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B");
    assert!(text(&root, "#result-speculative").contains("method eagle3, 3 tokens"));
}

/// deepseek-ai/DeepSeek-V3's config.json as released (https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/
/// config.json), the fixture the core's MLA goldens read too.
const DEEPSEEK_V3: &str = include_str!("../crates/qpath-core/tests/fixtures/deepseek-v3.config.json");

/// The text of `selector` in the first group card, trimmed.
fn in_card(root: &Element, selector: &str) -> String {
    text(&q(root, "article.group[data-group=\"1\"]"), selector).trim().to_string()
}

/// Issue 21: DeepSeek-V3's config.json pasted under a model id that is no preset is read as vLLM's deepseek model
/// file reads it, and the answer is an MLA group: a named MLA backend, both phases' query dtypes and kernels (the
/// decode kernel the MLA backend's, the prefill kernel the MLA prefill backend's), the latent dims behind head size
/// 576; the controls then offer the MLA backends, the MLA cache dtypes and the latent-dim overrides.
#[wasm_bindgen_test]
async fn a_pasted_deepseek_config_json_shows_an_mla_group_with_both_kernels_and_query_dtypes() {
    let root = mount_with_hash("#gpu=b200&vllm=0.33.0&cmd=vllm+serve+my-org%2Fmy-deepseek+--kv-cache-dtype+fp8").await;
    // Before the paste, the id is no model qpath knows: qpath cannot model it, and the controls are the standard ones.
    assert!(!exists(&root, "article.group"));
    assert!(exists(&root, "#attention-backend option[value='FLASH_ATTN']"));
    paste_config(&root, DEEPSEEK_V3).await;
    assert_eq!(text(&root, "#config-read"), "read: DeepseekV3ForCausalLM, 61 layers");
    assert_eq!(strip_cells(&root), 61);
    let card = q(&root, "article.group[data-group=\"1\"]");
    assert_eq!(card.get_attribute("data-backend").as_deref(), Some("FLASHINFER_MLA"));
    assert_eq!(in_card(&root, ".backend"), "FLASHINFER_MLA");
    assert_eq!(in_card(&root, ".q-prefill"), "bfloat16");
    assert_eq!(in_card(&root, ".q-decode"), "float8_e4m3fn");
    assert_eq!(in_card(&root, ".kernel-prefill"), "fa4-varlen");
    assert_eq!(in_card(&root, ".kernel-decode"), "trtllm-gen-mla");
    // Who runs each kernel: the MLA prefill backend vLLM selects apart, and the decode backend.
    let runners: Vec<String> = (0..2)
        .map(|i| {
            card.query_selector_all(".kernel-runner")
                .unwrap()
                .item(i)
                .unwrap()
                .text_content()
                .unwrap()
        })
        .collect();
    assert_eq!(runners, [" on MLA prefill backend FLASH_ATTN", " on FLASHINFER_MLA"]);
    assert_eq!(in_card(&root, ".attention"), "multi-head latent attention (MLA)");
    assert_eq!(in_card(&root, ".heads"), "heads 128/1 (q/latent kv)");
    assert_eq!(
        in_card(&root, ".head-dim"),
        "head size 576 = kv_lora_rank 512 + qk_rope_head_dim 64"
    );
    assert_eq!(in_card(&root, ".mla-kv-lora-rank"), "kv_lora_rank 512 (latent)");
    assert_eq!(in_card(&root, ".mla-nope"), "qk_nope_head_dim 128");
    assert_eq!(in_card(&root, ".mla-v"), "v_head_dim 128");
    assert_eq!(in_card(&root, ".mla-q-lora-rank"), "q_lora_rank 1536");
    assert!(!exists(&card, ".mla-topk"));
    // The controls: MLA backends only, the MLA cache dtypes (nvfp4_ds_mla at 0.33.0), the latent dims as overrides.
    assert!(exists(&root, "#attention-backend option[value='FLASHMLA']"));
    assert!(!exists(&root, "#attention-backend option[value='FLASH_ATTN']"));
    assert!(exists(&root, "#kv-cache-dtype option[value='fp8_ds_mla']"));
    assert!(exists(&root, "#kv-cache-dtype option[value='nvfp4_ds_mla']"));
    assert!(!exists(&root, "#kv-cache-dtype option[value='turboquant_k8v4']"));
    assert!(exists(&root, "#ov-kv-lora-rank") && !exists(&root, "#ov-head-dim"));
    // Forcing another MLA backend from the select: CUTLASS_MLA's decode kernel, the same prefill backend.
    choose(&root, "#attention-backend", "CUTLASS_MLA").await;
    assert!(
        command(&root).contains("--attention-backend CUTLASS_MLA"),
        "{}",
        command(&root)
    );
    assert!(eventually(|| in_card(&root, ".backend") == "CUTLASS_MLA").await);
    assert_eq!(in_card(&root, ".kernel-decode"), "cutlass-mla-decode");
    assert_eq!(in_card(&root, ".kernel-prefill"), "fa4-varlen");
}

/// The sparse DeepSeek-V3.2 preset on an H200: the MLA cache dtype from the select, the group's top-k, and vLLM's
/// refusal of a plain FP8 cache named in the page (FLASHMLA_SPARSE takes fp8_ds_mla).
#[wasm_bindgen_test]
async fn the_sparse_deepseek_v32_takes_fp8_ds_mla_from_the_cache_select() {
    let root = mount_with_hash("#gpu=h200&vllm=0.33.0&cmd=vllm+serve+deepseek-ai%2FDeepSeek-V3.2").await;
    choose(&root, "#kv-cache-dtype", "fp8_ds_mla").await;
    assert!(command(&root).contains("--kv-cache-dtype fp8_ds_mla"), "{}", command(&root));
    assert!(eventually(|| in_card(&root, ".backend") == "FLASHMLA_SPARSE").await);
    assert_eq!(in_card(&root, ".mla-topk"), "index_topk 2048 (sparse)");
    assert_eq!(in_card(&root, ".cache-dtype"), "fp8_ds_mla");
    assert_eq!(in_card(&root, ".kernel-decode"), "flashmla-sparse-decode-fp8");
    assert!(!in_card(&root, ".q-decode").is_empty());
    assert!(in_card(&root, ".attention").starts_with("sparse multi-head latent attention"));
    // A DeepSeek preset's latent-dim input shows the preset's value.
    assert_eq!(
        q(&root, "#ov-kv-lora-rank").get_attribute("placeholder").as_deref(),
        Some("512")
    );
}

/// A real vLLM 0.26.0 log from an RTX 5090 (vllm-project/vllm#50705; tests/fixtures/logs/sources.toml), the fixture
/// the core's golden_explain_log.rs reads too.
const LOG_RTX5090_026: &str = include_str!("../crates/qpath-core/tests/fixtures/logs/rtx5090-qwen3-8b-fp8-flashinfer-jit.log");

/// Explain a log: pasting a real log sets the page to its scenario (GPU, release, command line from its non-default
/// args) and puts qpath's lines beside the log's: the backend selection line is the same, at the log's line 18.
#[wasm_bindgen_test]
async fn a_pasted_log_sets_its_scenario_and_shows_the_lines_side_by_side() {
    let root = mount().await;
    q(&root, "#tab-log").unchecked_into::<HtmlElement>().click();
    flush().await;
    assert!(eventually(|| exists(&root, "#log-input")).await);
    let area: HtmlTextAreaElement = q(&root, "#log-input").unchecked_into();
    area.set_value(LOG_RTX5090_026);
    area.dispatch_event(&bubbling("input")).unwrap();
    flush().await;
    assert!(eventually(|| exists(&root, "#log-rows")).await);
    assert_eq!(command(&root), "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8");
    assert_select(&root, "#release", "0.26.0").await;
    assert!(
        text(&root, "#verdict").starts_with("vLLM 0.26.0 on GeForce RTX 5090"),
        "{}",
        text(&root, "#verdict")
    );
    let same = text(&root, "#log-rows tr.same");
    assert!(
        same.contains(
            "INFO [cuda.py:482] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN']."
        ) && same.contains("line 18:"),
        "{same}"
    );
    assert!(text(&root, "#log-read").contains("vLLM 0.26.0 (line 4)"));
    assert!(!exists(&root, "#log-missing"), "the log gives version, GPU and arguments");
    // A log without a GPU or version keeps the page's and says so; markup in it is text.
    area.set_value("INFO 08-21 05:41:30 [api_utils.py:273] non-default args: {'model_tag': '<b>x</b>'}");
    area.dispatch_event(&bubbling("input")).unwrap();
    flush().await;
    assert!(eventually(|| text(&root, "#log-missing").contains("Not in the log: the GPU")).await);
    assert!(!exists(&root, "#log-read b"), "no markup from the log");
    assert_select(&root, "#release", "0.26.0").await;
}
