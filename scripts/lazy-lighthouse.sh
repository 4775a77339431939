#!/usr/bin/env bash
# Lighthouse's performance score of a documentation-like host page without qpath, with three explainers below the fold
# (lazy, the default), the same with loading="eager", and with the first in view; and of the MkDocs Material and mdBook
# test sites' page with the guide's explainer (built by scripts/docsites-test.sh into target/docsites/sites/) as built,
# without qpath and with loading="eager" (tests/e2e/lazy-lighthouse.mjs).
# A benchmark: it prints figures and asserts none. See BENCHMARKS.md ("Lazy embedding").
# Usage: scripts/lazy-lighthouse.sh [DIST]   (DIST defaults to dist/, the output of `trunk build --release`)
#   QPATH_LH_RUNS=N (default 3, the median reported)   QPATH_LH_PRESETS=mobile,desktop (the default)
#   QPATH_LH_PAGES=article,mkdocs,mdbook (the default; a site not built is skipped)   QPATH_LH_SITES=DIR (the sites)
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
