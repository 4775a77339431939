#!/usr/bin/env bash
# Resolve throughput, native and in WebAssembly (Node), over the same scenario mix (qpath-core/src/bench_mix.rs).
# Usage: scripts/bench.sh   (needs `make test` or `scripts/setup.sh test` to have installed the wasm tools once)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
cargo bench -q -p qpath-core --bench resolve 2>/dev/null | grep 'resolve:'
# Node, not a browser: no CHROMEDRIVER/GECKODRIVER and no run_in_browser in that test file.
env -u CHROMEDRIVER -u GECKODRIVER cargo test --release -p qpath-core --target wasm32-unknown-unknown --test wasm_bench -- --nocapture 2>&1 | grep "resolve:"
