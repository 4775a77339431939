#!/usr/bin/env bash
# Lighthouse's performance score of a documentation-like host page without qpath, with three explainers below the fold
# (lazy, the default), the same with loading="eager", and with the first in view (tests/e2e/lazy-lighthouse.mjs).
# A benchmark: it prints figures and asserts none. See BENCHMARKS.md ("Lazy embedding").
# Usage: scripts/lazy-lighthouse.sh [DIST]   (DIST defaults to dist/, the output of `trunk build --release`)
#   QPATH_LH_RUNS=N (default 3, the median reported)   QPATH_LH_PRESETS=mobile,desktop (the default)
# Writes tests/e2e/out/lazy-lighthouse.md (the table) and lazy-lighthouse.json (every run).
set -euo pipefail
cd "$(dirname "$0")/.."
DIST="${1:-dist}"
. scripts/browser-prereqs.sh
need_site lazy-lighthouse "$DIST"
need_node_modules lazy-lighthouse lighthouse
need_chromium lazy-lighthouse
export CHROME_PATH="${CHROME_PATH:-$CHROMIUM}"
node tests/e2e/lazy-lighthouse.mjs "$(cd "$DIST" && pwd)"
