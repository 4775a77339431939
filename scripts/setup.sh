#!/usr/bin/env bash
# Installs what qpath's build and tests need, and only what is missing; a second run takes seconds.
#   scripts/setup.sh serve   the wasm target, trunk, wasm-bindgen-cli and npm's wasm-opt (enough to build and serve the page)
#   scripts/setup.sh test    all of that, plus Chromium + chromedriver and Firefox ESR + geckodriver for the browser tests,
#                            tests/e2e's node packages (playwright-core, axe-core, lighthouse, typescript) for the end-to-end checks,
#                            and the doc generators of the doc-site checks (scripts/docsites-test.sh --install-only: mkdocs-material,
#                            sphinx, furo, sphinx-rtd-theme from PyPI into target/docsites/venv; mdbook 0.5 from crates.io),
#                            and maturin from PyPI into target/wheel/tools for the wheel check (scripts/wheel-test.sh --install-only)
# Everything comes from crates.io, npm, PyPI and Debian's packages; nothing downloads its own binaries (playwright-core drives
# Debian's Chromium; it never fetches a browser).
# Callers must put tools/node_modules/.bin first on PATH (the Makefile does) so trunk finds npm's wasm-opt.
set -euo pipefail
cd "$(dirname "$0")/.."

MODE="${1:-test}"
TRUNK_VERSION="0.21.14"        # trunk 0.22 needs rustc >= 1.96.1; rust-toolchain.toml pins 1.95.0.
GECKODRIVER_VERSION="0.37.1"
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$PWD/tools/node_modules/.bin:$CARGO_BIN:$PATH"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }
have() { command -v "$1" >/dev/null 2>&1; }

# The wasm-bindgen version everything must agree on: the one Cargo.lock resolved.
lock_version() {
  awk -v pkg="$1" '$0 == "name = \"" pkg "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}
if [ ! -f Cargo.lock ]; then
  say "Cargo.lock is missing; resolving it (cargo generate-lockfile)"
  cargo generate-lockfile
fi
WBG_VERSION="$(lock_version wasm-bindgen)"
[ -n "$WBG_VERSION" ] || { echo "setup: cannot find wasm-bindgen in Cargo.lock" >&2; exit 1; }
TRUNK_WBG="$(sed -n 's/^wasm_bindgen *= *"\(.*\)"/\1/p' Trunk.toml)"
if [ "$TRUNK_WBG" != "$WBG_VERSION" ]; then
  echo "setup: Trunk.toml pins wasm_bindgen = \"$TRUNK_WBG\" but Cargo.lock has wasm-bindgen $WBG_VERSION; make them equal." >&2
  exit 1
fi

# 0. The toolchain rust-toolchain.toml pins. Where it is missing but the machine's stable toolchain is that very
#    version (this machine kind's one toolchain), stable is registered under the pinned name: nothing is downloaded.
PINNED="$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)"
if ! rustup toolchain list | grep -q "^$PINNED-"; then
  if [ "$(rustup run stable rustc --version 2>/dev/null | awk '{print $2}')" = "$PINNED" ]; then
    say "registering the machine's stable toolchain (rustc $PINNED) as $PINNED, the version rust-toolchain.toml pins"
    rustup toolchain link "$PINNED" "$(rustup run stable rustc --print sysroot)"
  else
    say "installing Rust $PINNED, the toolchain rust-toolchain.toml pins"
    rustup toolchain install "$PINNED" --profile minimal --component rustfmt,clippy --target wasm32-unknown-unknown
  fi
fi

# 1. The wasm32 target of the pinned toolchain.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target to the Rust toolchain"
  rustup target add wasm32-unknown-unknown
fi

# 2. trunk, pinned. Building it from source takes about 8 minutes the first time.
if ! have trunk || [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION from crates.io (builds from source: about 8 minutes, once)"
  cargo install --locked trunk --version "$TRUNK_VERSION"
fi

# 3. wasm-bindgen-cli at exactly Cargo.lock's wasm-bindgen (trunk and the test runner refuse any other).
#    Not --locked: its own lock file pins a webpki-roots version the registry lacks.
if ! have wasm-bindgen || [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WBG_VERSION" ]; then
  say "installing wasm-bindgen-cli $WBG_VERSION from crates.io (matches Cargo.lock; about 2-3 minutes, once)"
  cargo install wasm-bindgen-cli --version "$WBG_VERSION" --force
fi

# 4. wasm-opt from npm's binaryen (Debian's and crates.io's are too old for wasm-bindgen's output), locked in tools/.
STAMP=tools/node_modules/.qpath-installed-lock
if [ ! -x tools/node_modules/.bin/wasm-opt ] || ! cmp -s tools/package-lock.json "$STAMP"; then
  say "installing npm tools (binaryen's wasm-opt) into tools/node_modules from tools/package-lock.json"
  (cd tools && npm ci --no-audit --no-fund)
  cp tools/package-lock.json "$STAMP"
fi

if [ "$MODE" = "serve" ]; then
  exit 0
fi

# 5. Browsers and their drivers for wasm-bindgen-test: Debian's Chromium + chromedriver and Firefox ESR;
#    geckodriver from crates.io (about 4 minutes to build, once).
missing_apt=()
have chromium || missing_apt+=(chromium)
have chromedriver || missing_apt+=(chromium-driver)
have firefox-esr || missing_apt+=(firefox-esr)
if [ ${#missing_apt[@]} -gt 0 ]; then
  say "installing ${missing_apt[*]} from Debian (about a minute)"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${missing_apt[@]}" >/dev/null
fi
if ! have geckodriver || [ "$(geckodriver --version 2>/dev/null | awk 'NR == 1 { print $2 }')" != "$GECKODRIVER_VERSION" ]; then
  say "installing geckodriver $GECKODRIVER_VERSION from crates.io (about 4 minutes, once)"
  cargo install geckodriver --version "$GECKODRIVER_VERSION"
fi

# 6. The end-to-end checks' node packages (scripts/e2e-test.sh), locked by tests/e2e/package-lock.json; npm writes
#    node_modules/.package-lock.json on every install, so an older one means the lock file changed since.
if [ ! -f tests/e2e/node_modules/.package-lock.json ] || [ tests/e2e/package-lock.json -nt tests/e2e/node_modules/.package-lock.json ]; then
  say "installing tests/e2e's node packages (playwright-core, axe-core, lighthouse, typescript) from tests/e2e/package-lock.json"
  (cd tests/e2e && npm ci --no-audit --no-fund)
fi

# 7. The doc-site checks' generators (scripts/docsites-test.sh installs them itself when missing; done here so that the
#    test run's time is the tests'): a virtual environment in target/docsites/venv from tests/docsites/requirements.txt
#    (about 15 s) and mdbook 0.5 from crates.io (builds from source: about 5 minutes, once).
scripts/docsites-test.sh --install-only

# 8. maturin, which builds the Python wheel of `qpath` (scripts/wheel-test.sh installs it itself when missing, like the
#    doc-site generators): pinned, from PyPI into target/wheel/tools (about 5 s, once).
scripts/wheel-test.sh --install-only
