#!/usr/bin/env bash
# Refreshes docs/screenshot.png (light) and docs/screenshot-dark.png: builds the release page, serves dist/ on a free
# loopback port, and has headless Chromium photograph the seed scenario (L4, --kv-cache-dtype fp8, 0.25.0-prefix) in
# both colour schemes. Usage: make screenshot
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

trunk build --release --skip-version-check
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 -d dist >/dev/null 2>&1 &
SERVER=$!
PROFILE=$(mktemp -d)
trap 'kill "$SERVER" 2>/dev/null || true; rm -rf "$PROFILE"' EXIT
until (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do sleep 0.2; done

shot() { # shot FILE WIDTHxHEIGHT HASH [extra chromium flags]
  local file="$1" size="$2" hash="$3"; shift 3
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$PROFILE" "$@" \
    --virtual-time-budget=5000 --window-size="${size/x/,}" --screenshot="$file" "http://127.0.0.1:$PORT/$hash" 2>/dev/null
  echo "wrote $file"
}
mkdir -p docs
SEED='#gpu=l4&vllm=0.25.0-prefix&cmd=vllm+serve+meta-llama%2FLlama-3.1-8B-Instruct+--kv-cache-dtype+fp8+--kv-cache-dtype-skip-layers+0'
shot docs/screenshot.png 1280x1400 "$SEED"
shot docs/screenshot-dark.png 1280x1400 "$SEED" --force-dark-mode
shot docs/screenshot-360.png 360x1400 "$SEED"
