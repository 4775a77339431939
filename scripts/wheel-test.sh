#!/usr/bin/env bash
# The Python package of the `qpath` binary (pyproject.toml: maturin, bindings = "bin"), built and used as a user would:
#   scripts/wheel-test.sh                 install maturin if missing, build the wheel and the source package, install the
#                                         wheel into a FRESH virtual environment (pip --no-index) and run its `qpath`
#                                         (make test's step)
#   scripts/wheel-test.sh --install-only  only install maturin if missing (scripts/setup.sh test calls this)
# maturin comes from PyPI (pinned below) into its own virtual environment, target/wheel/tools (about 5 s, once). The
# wheel is a `maturin build --release --locked` into target/wheel/dist: cargo's release profile in CARGO_TARGET_DIR (or
# target/), from the local registry cache, so it needs no network once the crates are fetched (about 1-2 minutes cold,
# seconds when target/release is current). The fresh environment is target/wheel/venv, made anew on every run.
# Ends with "wheel: N passed, M failed"; exit 1 on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE="${1:-check}"
OUT=target/wheel
TOOLS="$OUT/tools"
DIST="$OUT/dist"
FRESH="$OUT/venv"
MATURIN_VERSION="1.16.0"
PYTHON="${PYTHON:-python3}"
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
say() { printf '\033[1m[wheel]\033[0m %s\n' "$*"; }

if [ "$("$TOOLS/bin/maturin" --version 2>/dev/null)" != "maturin $MATURIN_VERSION" ]; then
  say "installing maturin $MATURIN_VERSION from PyPI into $TOOLS (about 5 s)"
  rm -rf "$TOOLS"
  "$PYTHON" -m venv "$TOOLS"
  "$TOOLS/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION"
fi
[ "$MODE" = "--install-only" ] && exit 0

passed=0
failed=0
check() { # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "wheel: ok: $1"; passed=$((passed + 1)); else echo "wheel: FAILED: $1"; failed=$((failed + 1)); fi
}
finish() { echo "wheel: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; }

# The version the wheel must carry: crates/qpath-cli's (pyproject.toml's version is dynamic).
VERSION="$(sed -n 's/^version *= *"\(.*\)"/\1/p' crates/qpath-cli/Cargo.toml | head -1)"

# 1. The wheel and the source package.
rm -rf "$DIST"
started=$(date +%s)
build_ok=0
"$TOOLS/bin/maturin" build --release --locked --out "$DIST" && build_ok=1
say "maturin build: $(($(date +%s) - started)) s"
WHEELS=("$DIST"/qpath-"$VERSION"-*.whl)
check "maturin build --release made one wheel, qpath-$VERSION-py3-none-<platform>.whl" \
  test "$build_ok" = 1 -a "${#WHEELS[@]}" = 1 -a -f "${WHEELS[0]}"
[ "$build_ok" = 1 ] && [ -f "${WHEELS[0]}" ] || { finish; exit 1; }
WHEEL="${WHEELS[0]}"
say "$WHEEL ($(($(stat -c %s "$WHEEL") / 1024)) KiB)"
metadata() { "$PYTHON" -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.read(sys.argv[2]).decode())' \
  "$WHEEL" "qpath-$VERSION.dist-info/METADATA"; }
METADATA="$(metadata)"
has_line() { grep -qxF "$1" <<<"$METADATA"; }
check "its metadata: name, version, licence expression and files, README, requires-python, console classifier" \
  bash -c 'for l in "Name: qpath" "Version: '"$VERSION"'" "License-Expression: MIT OR Apache-2.0" "License-File: LICENSE-MIT" \
    "License-File: LICENSE-APACHE" "Description-Content-Type: text/markdown; charset=UTF-8; variant=GFM" \
    "Classifier: Environment :: Console" "Classifier: Programming Language :: Rust"; do
      grep -qxF "$l" <<<"$1" || { echo "  missing: $l"; exit 1; }; done
    grep -q "^Requires-Python: >=3" <<<"$1" && grep -q "^Project-URL: Source, " <<<"$1" && grep -q "^# qpath$" <<<"$1"' _ "$METADATA"
check "it holds the qpath binary as a script and the two licence texts" bash -c \
  '"$0" -m zipfile -l "$1" | awk "{print \$1}" | grep -qx "qpath-$2.data/scripts/qpath" &&
   [ "$("$0" -m zipfile -l "$1" | grep -c "dist-info/licenses/LICENSE-")" = 2 ]' "$PYTHON" "$WHEEL" "$VERSION"
SDIST_OK=0
"$TOOLS/bin/maturin" sdist --out "$DIST" >/dev/null 2>&1 && SDIST_OK=1
check "maturin sdist made qpath-$VERSION.tar.gz with the crates, data/ (qpath-core's build.rs reads it) and the licences" \
  bash -c '[ "$0" = 1 ] && tar tzf "$1" >"$3" &&
    for f in crates/qpath-cli/Cargo.toml crates/qpath-core/build.rs data/gpus.toml data/releases.toml LICENSE-MIT \
      LICENSE-APACHE Cargo.lock pyproject.toml; do grep -qx "qpath-$2/$f" "$3" || { echo "  missing: $f"; exit 1; }; done' \
  "$SDIST_OK" "$DIST/qpath-$VERSION.tar.gz" "$VERSION" "$OUT/sdist-files.txt"

# 2. A fresh virtual environment, the wheel installed into it from the file alone.
rm -rf "$FRESH"
"$PYTHON" -m venv "$FRESH"
check "pip install --no-index the wheel into a fresh virtual environment" \
  "$FRESH/bin/pip" install --quiet --disable-pip-version-check --no-index "$WHEEL"
QPATH="$FRESH/bin/qpath"
check "the environment's bin/ has an executable qpath, and pip lists qpath $VERSION" \
  bash -c '[ -x "$0" ] && "$1" show qpath 2>/dev/null | grep -qx "Version: $2"' "$QPATH" "$FRESH/bin/pip" "$VERSION"

# 3. That qpath, run as a user would (the environment activated: its bin/ first on PATH).
run() { env PATH="$PWD/$FRESH/bin:/usr/bin:/bin" VIRTUAL_ENV="$PWD/$FRESH" qpath "$@"; }
out="$(run --version 2>&1)" || true
check "qpath --version says qpath $VERSION" test "$(head -1 <<<"$out")" = "qpath $VERSION"
status=0
out="$(run --check --gpu l4 --vllm 0.25.0-prefix -- vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 2>&1)" ||
  status=$?
say "qpath --check --gpu l4 --vllm 0.25.0-prefix ... --kv-cache-dtype fp8 (exit $status): $out"
check "the seed story (L4, 0.25.0-prefix, fp8 KV cache) exits 1 with FlashInfer's FA2 assertion" \
  bash -c '[ "$0" = 1 ] && grep -q "^vLLM would fail: .*FLASHINFER.*AssertionError: fp8 tensor core is not supported in fa2 backend" <<<"$1"' \
  "$status" "$out"
status=0
out="$(run --check --gpu h100-sxm --vllm 0.25.0-prefix -- vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 2>&1)" ||
  status=$?
say "qpath --check --gpu h100-sxm --vllm 0.25.0-prefix ... --kv-cache-dtype fp8 (exit $status): $out"
check "the same command on an H100 serves: exit 0" \
  bash -c '[ "$0" = 0 ] && grep -q "^vLLM would start and serve: FLASH_ATTN" <<<"$1"' "$status" "$out"
status=0
run --gpu l4 --vllm 0.25.0-prefix --format json -- vllm serve meta-llama/Llama-3.1-8B-Instruct >"$OUT/report.json" 2>&1 ||
  status=$?
check "--format json prints one JSON report (exit 0)" \
  bash -c '[ "$0" = 0 ] && "$1" -c "import json, sys; assert isinstance(json.load(open(sys.argv[1])), dict)" "$2"' \
  "$status" "$PYTHON" "$OUT/report.json"

finish
