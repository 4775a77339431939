#!/usr/bin/env bash
# Serves the built dist/ under a sub-path (/tools/qpath/) on a free loopback port and loads the embedding example in
# headless Chromium: the JS API must answer, the custom element must render, the iframe page must load, and the
# browser must report no error (no uncaught exception, no failed request). Run after `trunk build --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f dist/example.html ] || { echo "subpath: dist/example.html missing; run trunk build --release first" >&2; exit 1; }
WORK=$(mktemp -d)
PROFILE=$(mktemp -d)
mkdir -p "$WORK/www/tools"
cp -r dist "$WORK/www/tools/qpath"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 -d "$WORK/www" >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK" "$PROFILE"' EXIT
until (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do sleep 0.2; done
URL="http://127.0.0.1:$PORT/tools/qpath/example.html"
# The iframe compiles the wasm a second time; on a busy machine that can outlast one virtual-time budget, so the page
# is loaded again with a longer budget until the iframe's messages have arrived (at most four loads).
for budget in 15000 30000 60000 90000; do
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$PROFILE" --enable-logging=stderr --v=0 \
    --virtual-time-budget="$budget" --dump-dom "$URL" >"$WORK/dom.html" 2>"$WORK/console.log" || true
  if grep -q 'id="frame-state">#embed=1' "$WORK/dom.html" && grep -qE 'id="qpath-frame"[^>]*style="height' "$WORK/dom.html"; then
    break
  fi
  echo "subpath: the iframe had not reported within a virtual-time budget of $budget ms; loading again"
done
failed=0
check() { # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "subpath: ok: $1"; else echo "subpath: FAILED: $1"; failed=$((failed + 1)); fi
}
check "the JS API answered (FA2 assertion on 0.25.0-prefix)" grep -q "error AssertionError: fp8 tensor core is not supported in fa2 backend" "$WORK/dom.html"
check "the custom element rendered its results (its stamp, read from its shadow root)" grep -qE 'id="element-state">as of vLLM 0\.25\.0-prefix' "$WORK/dom.html"
check "no uncaught exception or console error" bash -c "! grep -E 'Uncaught|CONSOLE.*(Error|error)' '$WORK/console.log'"
check "every request under the sub-path was found (no 404)" bash -c "! grep -E '\" 404 ' '$WORK/server.log'"
check "the iframe page was requested under the sub-path" grep -q 'GET /tools/qpath/index.html' "$WORK/server.log"
check "the iframe posted its state to the parent (qpath:state)" grep -qE 'id="frame-state">#embed=1&amp;origin=[^&]+&amp;gpu=h100-sxm' "$WORK/dom.html"
check "the iframe posted its height and the parent resized it (qpath:resize)" grep -qE 'id="qpath-frame"[^>]*style="height: [0-9]+px' "$WORK/dom.html"
if [ "$failed" -gt 0 ]; then
  echo "--- console ---"; grep -E 'CONSOLE|Uncaught' "$WORK/console.log" | head -20 || true
  echo "--- server ---"; tail -20 "$WORK/server.log"
fi
echo "subpath: $((7 - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
