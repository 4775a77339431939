//! qpath's resolution core: pure Rust with no web dependency. It is compiled natively (its tests, the CLI) and to
//! wasm32 for the page. Everything the page shows is computed here; the page only renders it.
//!
//! - [`attention`]: the shared vocabulary (backends, phases, stages, kernels), at the bottom of the imports.
//! - [`backends`]: one module per attention backend behind one interface ([`backends::BackendRules`]).
//! - [`capability`]: compute capabilities and CUDA versions, and the comparisons vLLM and FlashInfer make on them.
//! - [`gpu`]: the embedded GPU table (`data/gpus.toml`), its validation and the filter the page's GPU list uses.
//! - [`release`]: the vLLM releases, the FlashInfer release each pins.
//! - [`source`]: the vLLM / FlashInfer source lines each rule restates, per release.

pub mod attention;
pub mod backends;
pub mod bench_mix;
pub mod capability;
pub mod choices;
pub mod columns;
pub mod cudagraph;
pub mod drafter;
pub mod dtype;
pub mod explain_log;
mod fasthash;
pub mod fix;
pub mod float;
pub mod gpu;
pub mod hybrid;
pub mod matrix;
pub mod model;
pub mod options;
pub mod order;
pub mod platform;
pub mod release;
pub mod render;
pub mod report;
pub mod resolve;
pub mod selection;
pub mod serve;
pub mod source;
pub mod timeline;
pub mod trace;

#[cfg(test)]
mod test_rng;
