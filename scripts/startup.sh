#!/usr/bin/env bash
# qpath's start-up in headless Chromium (issue 22, item 5): navigation → the first result card, median of nine cold
# loads, without and with 4× CPU throttling, where the time goes before it, and the matrix tab → all its cells in the
# DOM. A benchmark: it prints figures and asserts none (not part of `make test`). See tests/e2e/startup.mjs.
# Usage: scripts/startup.sh [DIST ...]    (default dist/, the output of `trunk build --release` / `make test`)
#   A DIST may be NAME=DIR (the column's name); several sites are measured alternately, e.g.
#   scripts/startup.sh before=../main/dist after=dist
#   QPATH_STARTUP_RUNS=N     cold loads per site and CPU setting (default 9)
#   QPATH_STARTUP_MATRIX=N   matrix clicks per site and setting, the first one warm-up (default 5)
#   QPATH_STARTUP_RATES=1,4  CPU throttling rates (Emulation.setCPUThrottlingRate)
# Writes tests/e2e/out/startup.md (the table) and startup.json (every sample). About 40 s for one site on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$#" -gt 0 ] || set -- dist
. scripts/browser-prereqs.sh
for arg in "$@"; do
  dir="$arg"
  case "$arg" in [!/]*=*) dir="${arg#*=}" ;; esac
  need_site startup "$dir"
done
need_node_modules startup
need_chromium startup
export QPATH_CHROMIUM="$CHROMIUM"
exec node tests/e2e/startup.mjs "$@"
