#!/usr/bin/env bash
# Resolve throughput, native and in WebAssembly (Node), over the same scenario mix (qpath-core/src/bench_mix.rs), and
# the instructions per scenario (callgrind), which the machine's load does not change.
# Usage: scripts/bench.sh   (needs `make test` or `scripts/setup.sh test` to have installed the wasm tools once;
#        the instruction count needs valgrind: `apt-get install valgrind`, skipped with a message when missing)
#   native: the release profile (opt-level 3), as the CLI ships;
#   wasm:   the page's size profile `web` (opt-level "z"), as the page ships, under Node.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
echo "bench: load average $(cut -d' ' -f1-3 /proc/loadavg)"
cargo bench -q -p qpath-core --bench resolve 2>/dev/null | grep 'resolve:'
# Node, not a browser: no CHROMEDRIVER/GECKODRIVER and no run_in_browser in that test file.
env -u CHROMEDRIVER -u GECKODRIVER cargo test --profile web -p qpath-core --target wasm32-unknown-unknown \
  --test wasm_bench -- --nocapture 2>&1 | grep -E "resolve:|fix:|timeline:"
if command -v valgrind >/dev/null; then
  # The bench binary cargo just built (its path from cargo, not the newest file: other builds share target/); 10
  # passes of the mix counted (the warm-up and set-up are not).
  bin=$(cargo bench -q -p qpath-core --bench resolve --no-run --message-format=json 2>/dev/null \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
  passes=10
  out=$(QPATH_BENCH_PASSES=$passes valgrind --tool=callgrind --toggle-collect='resolve::passes' \
    --callgrind-out-file=/dev/null "$bin" 2>&1)
  mix=$(echo "$out" | sed -n 's/.*(mix of \([0-9]*\)).*/\1/p')
  ir=$(echo "$out" | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  echo "native instructions: $ir Ir for $((passes * mix)) scenarios = $((ir / (passes * mix))) Ir per scenario (callgrind)"
else
  echo "bench: valgrind not found; instructions per scenario skipped (apt-get install valgrind)"
fi
echo "bench: load average $(cut -d' ' -f1-3 /proc/loadavg)"
