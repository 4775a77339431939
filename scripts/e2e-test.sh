#!/usr/bin/env bash
# End-to-end checks of the built site: serves dist/ (tests/e2e/serve-dist.mjs) and drives Debian's headless Chromium
# through playwright-core (tests/e2e/e2e.mjs): the seed story, compare, matrix, pasting a command line, permalinks, the
# theme, the iframe's messages, the explainer's lazy loading (wasm requests counted), axe-core audits of every view in
# light and dark (zero violations), no console error and no 404. Run after `trunk build --release`; scripts/setup.sh
# test installs tests/e2e's node packages.
# Ends with "e2e: N passed, M failed"; failed checks leave a screenshot in tests/e2e/out/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/index.html ] || { echo "e2e: dist/index.html missing; run trunk build --release first" >&2; exit 1; }
[ -d tests/e2e/node_modules/playwright-core ] || { echo "e2e: tests/e2e/node_modules missing; run scripts/setup.sh test" >&2; exit 1; }
exec node tests/e2e/e2e.mjs dist
