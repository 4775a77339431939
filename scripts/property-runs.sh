#!/usr/bin/env bash
# The property runs of BENCHMARKS.md, one entry point after the other, in --release (the test command runs each with
# 20,000 cases in debug; this runs QPATH_FUZZ_CASES, default 1,000,000). Prints each run's summary line ("parser: …",
# "options: …", "model files: …", "URL hashes: …", "JS API arguments: …") and the machine's load before each run; stops
# at the first failure (a failure prints the seed, the case and the input).
#   scripts/property-runs.sh              every native run
#   scripts/property-runs.sh --browser    and the JS API fuzz in headless Chromium and Firefox (QPATH_API_FUZZ_CASES,
#                                         default 10,000; the browser tests build in debug, as `make test` runs them)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export QPATH_FUZZ_CASES="${QPATH_FUZZ_CASES:-1000000}"
browser=0
[ "${1:-}" = "--browser" ] && browser=1

run() { # run LABEL COMMAND...: the command's summary lines and its wall time
  local label="$1"; shift
  printf '\n== %s (load %s): %s\n' "$label" "$(cut -d' ' -f1-3 /proc/loadavg)" "$*"
  local start=$SECONDS log
  log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    cat "$log"; rm -f "$log"
    echo "FAILED: $label"
    exit 1
  fi
  grep -E ': [0-9]+ (cases|calls)|test result:' "$log" | sed 's/^test [a-z_:]* \.\.\. //' || true
  rm -f "$log"
  echo "   wall $((SECONDS - start)) s (build included)"
}

# Build first, so the timed runs below measure the runs.
cargo test --release -p qpath-core --test fuzz --test fuzz_config --test fuzz_options --no-run
cargo test --release -p qpath-web --lib --no-run
cargo test --release -p qpath-cli --test fuzz_argv --test fuzz_models --no-run

run "command line, hf-overrides, whole scenarios" \
  cargo test --release -p qpath-core --test fuzz -- --nocapture --test-threads 1
run "config.json" cargo test --release -p qpath-core --test fuzz_config -- --nocapture
run "JS API options (core reader)" cargo test --release -p qpath-core --test fuzz_options -- --nocapture
run "argv bytes (the CLI)" cargo test --release -p qpath-cli --test fuzz_argv -- --nocapture
run "model folders and HF caches (the CLI's files)" cargo test --release -p qpath-cli --test fuzz_models -- --nocapture
run "URL hash" cargo test --release -p qpath-web --lib generated_hashes -- --nocapture
run "JS API arguments (the API's reading)" cargo test --release -p qpath-web --lib api::tests::generated -- --nocapture

if [ "$browser" = 1 ]; then
  export QPATH_API_FUZZ_CASES="${QPATH_API_FUZZ_CASES:-10000}"
  export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-600}"
  run "JS API in Chromium" env -u GECKODRIVER CHROMEDRIVER="$(command -v chromedriver)" \
    cargo test --target wasm32-unknown-unknown -p qpath-web --test api_fuzz -- --nocapture
  run "JS API in Firefox" env -u CHROMEDRIVER GECKODRIVER="$(command -v geckodriver)" \
    cargo test --target wasm32-unknown-unknown -p qpath-web --test api_fuzz -- --nocapture
fi
