//! Browser tests of the views in the link (issue 27, item 3): the page mounted from a hash opens the view it names with
//! that view's state, writes the view back into the address bar, and walks views with back/forward; a matrix cell
//! click says what it changed; a hash over the link's cap is read without its largest part and says so. Natively this
//! file compiles to nothing.
#![cfg(target_arch = "wasm32")]

use qpath_core::release::Release;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, HtmlSelectElement};

mod common;
use common::*;

wasm_bindgen_test_configure!(run_in_browser);

const SEED: &str = "cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8";

fn text(root: &Element, selector: &str) -> String {
    q(root, selector).text_content().unwrap_or_default().trim().to_string()
}

fn select_value(root: &Element, selector: &str) -> String {
    q(root, selector).unchecked_into::<HtmlSelectElement>().value()
}

fn selected_tab(root: &Element) -> String {
    q(root, "[role=tab][aria-selected=true]").id()
}

fn click(root: &Element, selector: &str) {
    q(root, selector).unchecked_into::<HtmlElement>().click();
}

#[wasm_bindgen_test]
async fn a_compare_link_opens_compare_with_its_target() {
    let root = mount_with_hash(&format!("#view=compare&compare=0.25.0-prefix&gpu=l4&vllm=0.25.0&{SEED}")).await;
    assert!(eventually(|| exists(&root, "#compare-table")).await);
    assert_eq!(selected_tab(&root), "tab-compare");
    assert_eq!(select_value(&root, "#compare-release"), "0.25.0-prefix");
    assert!(text(&root, "#compare-left").contains("vLLM 0.25.0-prefix /"));
    assert_eq!(text(&root, "#compare-summary"), "1 of 1 group differs");
    assert!(
        location_hash().starts_with("#view=compare&compare=0.25.0-prefix&gpu=l4&"),
        "{}",
        location_hash()
    );
}

#[wasm_bindgen_test]
async fn compare_defaults_to_the_neighbouring_release() {
    let root = mount_with_hash(&format!("#gpu=l4&vllm=0.25.0&{SEED}")).await;
    click(&root, "#tab-compare");
    flush().await;
    assert!(eventually(|| exists(&root, "#compare-table")).await);
    let next = qpath_web::hash::neighbouring_release(Release::V0_25_0);
    assert_ne!(next, Release::V0_25_0);
    assert_eq!(select_value(&root, "#compare-release"), next.name());
    assert!(text(&root, "#compare-left").contains(&format!("vLLM {} /", next.name())));
    // The view is in the address bar (the default target is not: it follows the scenario's release).
    assert!(
        eventually(|| location_hash().starts_with("#view=compare&gpu=l4&")).await,
        "{}",
        location_hash()
    );
    // The latest release compares with the one before it.
    let root = mount_with_hash(&format!("#view=compare&gpu=l4&vllm={}&{SEED}", Release::LATEST.name())).await;
    assert!(eventually(|| exists(&root, "#compare-table")).await);
    let before = Release::ALL[Release::ALL.len() - 2];
    assert_eq!(select_value(&root, "#compare-release"), before.name());
}

#[wasm_bindgen_test]
async fn a_matrix_link_keeps_its_mode_and_filter_and_back_walks_the_views() {
    let root = mount_with_hash(&format!(
        "#view=matrix&mode=picked&arch=Hopper&gpu=h100-sxm&vllm=0.33.0&{SEED}"
    ))
    .await;
    assert!(eventually(|| exists(&root, "#matrix-table")).await);
    assert_eq!(selected_tab(&root), "tab-matrix");
    assert_eq!(select_value(&root, "#matrix-mode"), "picked");
    assert_eq!(select_value(&root, "#matrix-arch"), "Hopper");
    let rows = root.query_selector_all("#matrix-table tr.gpu-row").unwrap();
    let hopper = qpath_core::gpu::GPUS.iter().filter(|g| g.arch == "Hopper").count() as u32;
    assert!(hopper > 0 && rows.length() == hopper, "{} rows", rows.length());
    assert!(text(&root, "#matrix-shown").contains("Hopper"));
    assert!(exists(&root, "td.current button[data-gpu='h100-sxm'][data-kv='fp8']"));
    // Every architecture again: the choice is a history entry; back restores the filter, back again the explainer.
    let select: HtmlSelectElement = q(&root, "#matrix-arch").unchecked_into();
    select.set_value("");
    let change = web_sys::Event::new_with_event_init_dict("change", &{
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        init
    })
    .unwrap();
    select.dispatch_event(&change).unwrap();
    flush().await;
    assert!(eventually(|| !location_hash().contains("arch=")).await, "{}", location_hash());
    assert_eq!(
        root.query_selector_all("#matrix-table tr.gpu-row").unwrap().length() as usize,
        qpath_core::gpu::GPUS.len()
    );
    web_sys::window().unwrap().history().unwrap().back().unwrap();
    assert!(
        eventually(|| select_value(&root, "#matrix-arch") == "Hopper").await,
        "back restores the filter"
    );
    assert_eq!(selected_tab(&root), "tab-matrix");
}

#[wasm_bindgen_test]
async fn back_and_forward_walk_the_views() {
    let root = mount_with_hash(&format!("#gpu=l4&vllm=0.25.0&{SEED}")).await;
    click(&root, "#tab-timeline");
    flush().await;
    assert!(eventually(|| location_hash().starts_with("#view=timeline&")).await);
    click(&root, "#tab-compare");
    flush().await;
    assert!(eventually(|| location_hash().starts_with("#view=compare&")).await);
    let history = web_sys::window().unwrap().history().unwrap();
    history.back().unwrap();
    assert!(eventually(|| exists(&root, "#timeline-table")).await, "back: the timeline");
    assert_eq!(selected_tab(&root), "tab-timeline");
    history.back().unwrap();
    assert!(
        eventually(|| selected_tab(&root) == "tab-explain").await,
        "back: the explainer"
    );
    history.forward().unwrap();
    assert!(
        eventually(|| selected_tab(&root) == "tab-timeline").await,
        "forward: the timeline"
    );
}

#[wasm_bindgen_test]
async fn a_matrix_cell_click_says_what_it_changed() {
    let root = mount_with_hash(&format!("#view=matrix&gpu=l4&vllm=0.33.0&cubins=yes&{SEED}")).await;
    assert!(eventually(|| exists(&root, "button.cell[data-gpu='h100-sxm'][data-kv='auto']")).await);
    let note = q(&root, "#pick-note");
    assert_eq!(note.get_attribute("aria-live").as_deref(), Some("polite"));
    assert_eq!(
        text(&root, "#pick-note"),
        "",
        "the live region is there, empty, before the click"
    );
    click(&root, "button.cell[data-gpu='h100-sxm'][data-kv='auto']");
    flush().await;
    assert!(eventually(|| selected_tab(&root) == "tab-explain").await);
    assert_eq!(
        text(&root, "#pick-note"),
        "From the matrix: GPU l4 → h100-sxm, --kv-cache-dtype fp8 → auto. Back returns to the matrix."
    );
    web_sys::window().unwrap().history().unwrap().back().unwrap();
    assert!(
        eventually(|| selected_tab(&root) == "tab-matrix").await,
        "back returns to the matrix"
    );
}

#[wasm_bindgen_test]
async fn a_hash_over_the_cap_names_it_and_keeps_the_rest() {
    let big = "x".repeat(qpath_web::hash::MAX_LINK);
    let root = mount_with_hash(&format!("#view=compare&gpu=h100-sxm&vllm=0.26.0&cmd=vllm+serve+{big}")).await;
    let notices = text(&root, "#notices");
    assert!(
        notices.contains("over the 65,536 characters (64 KiB) a link may carry") && notices.contains("`cmd`"),
        "{notices}"
    );
    assert_eq!(selected_tab(&root), "tab-compare");
    assert!(
        text(&root, "#compare-right").contains("H100"),
        "{}",
        text(&root, "#compare-right")
    );
    // The page stays usable: another view opens.
    click(&root, "#tab-explain");
    flush().await;
    assert!(eventually(|| selected_tab(&root) == "tab-explain").await);
}
