//! qpath's resolution core: pure Rust with no web dependency. It is compiled natively (its tests, the CLI) and to
//! wasm32 for the page. Everything the page shows is computed here; the page only renders it.
//!
//! - [`capability`]: compute capabilities and CUDA versions, and the comparisons vLLM and FlashInfer make on them.
//! - [`gpu`]: the embedded GPU table (`data/gpus.toml`), its validation and the filter the page's GPU list uses.

pub mod capability;
pub mod gpu;
