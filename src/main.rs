fn main() {
    yew::Renderer::<qpath_web::App>::new().render();
}
