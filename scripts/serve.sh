#!/usr/bin/env bash
# Builds qpath's page and serves it on 127.0.0.1 (PORT, default 8080), rebuilding when a file changes.
# Installs what is missing first (scripts/setup.sh serve). Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
PORT="${PORT:-8080}"
URL="http://127.0.0.1:$PORT/"

scripts/setup.sh serve
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "serve: port $PORT is already in use; run with PORT=<another port>." >&2
  exit 1
fi
mkdir -p target
echo "[serve] building the page (the first build compiles the dependencies: about a minute)"
# The CSP hook (scripts/csp-hash.mjs) hashes trunk's autoreload script as trunk will serve it, with this address.
QPATH_SERVE_ADDRESS="127.0.0.1:$PORT" trunk serve --skip-version-check --port "$PORT" >target/trunk-serve.log 2>&1 &
TRUNK_PID=$!
trap 'kill "$TRUNK_PID" 2>/dev/null || true' EXIT INT TERM
until (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do
  if ! kill -0 "$TRUNK_PID" 2>/dev/null; then
    echo "serve: trunk stopped; its output:" >&2
    cat target/trunk-serve.log >&2
    exit 1
  fi
  sleep 1
done
echo "[serve] trunk rebuilds on every change; its log is target/trunk-serve.log. Ctrl-C stops the server."
echo "qpath is served at $URL"
wait "$TRUNK_PID"
