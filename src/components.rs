//! The page's components. [`app::App`] owns the state; the others get what they show as props and report
//! changes through `on<verb>` callbacks.

pub mod app;
pub mod choice;
pub mod command_line;
pub mod compare;
pub mod filters;
pub mod gpu_detail;
pub mod gpu_list;
pub mod inputs;
pub mod matrix_view;
pub mod results;
