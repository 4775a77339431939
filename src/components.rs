//! The page's components. [`app::App`] owns the state; the others get what they show as props and report
//! changes through `on<verb>` callbacks. A part that holds no state (the header, the GPU section, the command line,
//! the tabs, the share box, …) is a plain function returning [`yew::Html`], called in its parent's render: a
//! component costs code of its own in the wasm, and gains nothing where the props change on every render.

pub mod app;
pub mod attention_fieldset;
pub mod cache_fieldset;
pub mod choice;
pub mod chrome;
pub mod command_line;
pub mod compare;
pub mod copy_button;
pub mod filters;
pub mod fix_panel;
pub mod gpu_detail;
pub mod gpu_list;
pub mod gpu_picker;
pub mod hooks;
pub mod inputs;
pub mod log_view;
pub mod matrix_view;
pub mod model_fieldset;
pub mod release_fieldset;
pub mod results;
pub mod views;
