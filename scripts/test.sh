#!/usr/bin/env bash
# qpath's whole test suite, as CI runs it (.ci/run -> make test -> this). Stops at the first failing step.
#   1. cargo fmt --check                        7. wasm-bindgen-test in headless Firefox (geckodriver)
#   2. clippy, native, -D warnings               8. trunk build --release (the page as it ships, wasm-opt -Oz)
#   3. clippy, wasm32, -D warnings               9. the built site under a sub-path: the embedding example in Chromium
#   4. native tests (core + page logic)          10. size budgets of the built page (scripts/budget.sh)
#   5. static/qpath.d.ts type-checked (tsc)      11. end-to-end: user stories and axe-core audits of dist/ in Chromium
#      against the CLI's real JSON               12. docs/embedding.md's doc-site recipes (MkDocs Material, Sphinx with
#   6. wasm-bindgen-test in headless Chromium        Furo and sphinx_rtd_theme, mdBook) built as written and checked
#      (chromedriver)                                in Chromium (scripts/docsites-test.sh)
#   13. the Python wheel of `qpath` (pyproject.toml): maturin build --release, pip install into a fresh virtual
#       environment, its qpath run (scripts/wheel-test.sh)
# It ends with one summary line: "summary: N passed, N failed" over every cargo test run, the sub-path checks, the
# budgets, the d.ts check, the end-to-end checks, the doc sites and the wheel (their "test result:", "subpath:",
# "budget:", "dts:", "e2e:", "docsites:" and "wheel:" lines).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

LOG_DIR="target/test-logs"
mkdir -p "$LOG_DIR"
rm -f "$LOG_DIR"/*.log
passed=0
failed=0

count() { # add up the "test result: ... N passed; M failed" (cargo), "subpath: N passed, M failed" and "e2e: …" lines of a log
  local sums
  sums=$(awk '/^(test result|subpath|budget|e2e|dts|docsites|wheel): / { for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
              END { print p + 0, f + 0 }' "$1")
  passed=$((passed + ${sums% *})); failed=$((failed + ${sums#* }))
}

step() { # step NAME COMMAND...: runs it, keeps its output in target/test-logs/NAME.log
  local name="$1"; shift
  printf '\n\033[1m== %s\033[0m: %s\n' "$name" "$*"
  local log="$LOG_DIR/$name.log" status=0
  "$@" 2>&1 | tee "$log" || status=$?
  count "$log"
  if [ "$status" -ne 0 ]; then
    printf '\n\033[31mFAILED: %s (exit %s); its output is in %s\033[0m\n' "$name" "$status" "$log"
    echo "summary: $passed passed, $((failed > 0 ? failed : 1)) failed"
    exit 1
  fi
}

browser_tests() { # browser_tests NAME: requires the run to have executed at least one browser test
  local name="$1"; shift
  step "$name" "$@"
  if ! grep -q '^running [1-9][0-9]* tests\?$' "$LOG_DIR/$name.log"; then
    echo "FAILED: $name ran no browser test"
    echo "summary: $passed passed, 1 failed"
    exit 1
  fi
}

step fmt cargo fmt --all --check
step clippy-native cargo clippy --workspace --all-targets --locked -- -D warnings
step clippy-wasm32 cargo clippy --workspace --all-targets --locked --target wasm32-unknown-unknown -- -D warnings
step native-tests cargo test --workspace --locked
step dts scripts/dts-check.sh
browser_tests chromium-tests env -u GECKODRIVER CHROMEDRIVER="$(command -v chromedriver)" \
  cargo test --locked --target wasm32-unknown-unknown -p qpath-web
browser_tests firefox-tests env -u CHROMEDRIVER GECKODRIVER="$(command -v geckodriver)" \
  cargo test --locked --target wasm32-unknown-unknown -p qpath-web
step trunk-release trunk build --release --skip-version-check
step subpath scripts/subpath-test.sh
step budget scripts/budget.sh
step e2e scripts/e2e-test.sh
step docsites scripts/docsites-test.sh
step wheel scripts/wheel-test.sh

echo "summary: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
