//! The page's entry point. The same wasm also serves embeds (the `<qpath-explainer>` element and the JS API), so the
//! full page is rendered only where the host page asks for it with `<div id="qpath-app">`.

fn main() {
    qpath_web::panic::install();
    qpath_web::embed::define_explainer();
    if let Some(root) = gloo::utils::document().get_element_by_id("qpath-app") {
        yew::Renderer::<qpath_web::App>::with_root(root).render();
    }
}
