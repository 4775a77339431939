//! qpath's page: a Yew app over `qpath-core`. The core computes everything; this crate holds the state
//! ([`state`]), the URL-hash reading ([`hash`]) and the components that render them.
//!
//! `src/main.rs` renders [`App`] into `<body>`; the browser tests in `tests/web.rs` mount it into their own containers.

pub mod api;
pub mod embed;
pub mod hash;
pub mod panic;
pub mod state;
pub mod theme;

pub mod components;

pub use components::app::App;
