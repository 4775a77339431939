#!/usr/bin/env bash
# qpath's speed in headless Chromium beside a static-HTML floor, and Lighthouse scores (mobile and desktop presets),
# for a built site. A benchmark: it prints figures and asserts none. See BENCHMARKS.md ("Speed in the browser").
# Usage: scripts/perf.sh [DIST]        (DIST defaults to dist/, the output of `trunk build --release` / `make test`)
#   QPATH_PERF_RUNS=N        runs per measure (default 20; about 2 minutes with Lighthouse on 2 cores)
#   QPATH_PERF_LIGHTHOUSE=0  skip Lighthouse
#   QPATH_PERF_FEATURES=0    skip tests/e2e/features.mjs (the fix finder, the timeline and explain-log: action → answer)
# Writes tests/e2e/out/perf.md (the tables), perf.json (every sample), lighthouse-*.json (full reports) and features.md.
set -euo pipefail
cd "$(dirname "$0")/.."
DIST="${1:-dist}"
. scripts/browser-prereqs.sh
need_site perf "$DIST"
need_node_modules perf lighthouse
need_chromium perf
export CHROME_PATH="${CHROME_PATH:-$CHROMIUM}"
node tests/e2e/perf.mjs "$(cd "$DIST" && pwd)"
if [ "${QPATH_PERF_FEATURES:-1}" != 0 ]; then
  node tests/e2e/features.mjs "$(cd "$DIST" && pwd)"
fi
