#!/usr/bin/env bash
# The doc-site recipes of docs/embedding.md, followed to the letter and checked in a browser:
#   scripts/docsites-test.sh                 install what is missing, build the four sites, check them (make test's step)
#   scripts/docsites-test.sh --install-only  only install what is missing (scripts/setup.sh test calls this)
#   scripts/docsites-test.sh --screenshots   build, then write docs/embed-*.png (1000 x 700) from the sites
# Installs, only when missing: a project-local virtual environment target/docsites/venv with the pinned
# tests/docsites/requirements.txt (mkdocs-material, sphinx, furo, sphinx-rtd-theme; about 15 s from PyPI) and mdbook
# 0.5.x from crates.io into ~/.cargo/bin (builds from source: about 5 minutes, once).
# Then tests/docsites/extract.mjs writes one project per site (MkDocs Material, Sphinx + Furo, Sphinx +
# sphinx_rtd_theme, mdBook) into target/docsites/sites/ from the guide's annotated code blocks (plus a test page's
# extras from tests/docsites/SITE/), runs the guide's build steps in each with QPATH_DIST=dist (the release build; run
# after trunk build --release) and QPATH_REPO=this checkout, and tests/docsites/check.mjs checks the built sites in
# Debian's headless Chromium (what it asserts: its header). A build counts as one check: it must succeed and print no
# warning. The MkDocs and mdBook recipes take qpath from the npm package ("From the npm package"): the tarball
# scripts/npm-package.sh packs from dist/ (or QPATH_PACKAGE_TARBALL=FILE.tgz), installed offline in place of the pinned
# qpath-explainer@X.Y.Z, which must be the package's version; each must serve that package's dist/. Two more build the sphinx-rtd project with the Sphinx extension's other paths (a text builder; qpath_url).
# Ends with "docsites: N passed, M failed"; exit 1 on any failure. Logs: target/docsites/logs/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
MODE="${1:-check}"
OUT=target/docsites
VENV="$OUT/venv"
REQUIREMENTS=tests/docsites/requirements.txt
MDBOOK_VERSION="0.5.4"
CARGO_BIN="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$CARGO_BIN:$PATH"
say() { printf '\033[1m[docsites]\033[0m %s\n' "$*"; }

install_missing() {
  # The generators' Python packages, pinned, in a virtual environment of their own (re-installed when the pins change).
  if [ ! -x "$VENV/bin/python" ] || ! cmp -s "$REQUIREMENTS" "$VENV/.qpath-requirements"; then
    say "installing $(tr '\n' ' ' <"$REQUIREMENTS")into $VENV (PyPI, about 15 s)"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
    cp "$REQUIREMENTS" "$VENV/.qpath-requirements"
  fi
  # mdBook 0.5 (any 0.5.x on PATH will do).
  if ! mdbook --version 2>/dev/null | grep -q '^mdbook v0\.5\.'; then
    say "installing mdbook $MDBOOK_VERSION from crates.io (builds from source: about 5 minutes, once)"
    cargo install mdbook --version "$MDBOOK_VERSION" --locked
  fi
}

install_missing
[ "$MODE" = "--install-only" ] && exit 0

[ -f dist/qpath-embed.js ] || { echo "docsites: dist/qpath-embed.js missing; run trunk build --release first" >&2; exit 1; }
[ -d tests/e2e/node_modules/playwright-core ] || { echo "docsites: tests/e2e/node_modules missing; run scripts/setup.sh test" >&2; exit 1; }

SITES_DIR="$OUT/sites"
LOGS="$ROOT/$OUT/logs"
mkdir -p "$SITES_DIR" "$LOGS"
read -r -a SITES <<<"$(node tests/docsites/extract.mjs docs/embedding.md "$SITES_DIR")"
echo "docsites: mkdocs-material $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mkdocs-material"))'), sphinx $("$VENV/bin/sphinx-build" --version | awk '{print $2}'), $(mdbook --version); sites: ${SITES[*]}"
passed=0
failed=0
# The npm package (the guide's "From the npm package"): the sites whose steps `npm install` the pinned
# qpath-explainer@X.Y.Z (MkDocs, mdBook) install instead the tarball scripts/npm-package.sh packs from dist/ (or
# QPATH_PACKAGE_TARBALL=FILE.tgz, e.g. the published one from `npm pack qpath-explainer@X.Y.Z`), offline: the same
# command with the tarball for the spec, which only works if the guide pins the package's own version.
NPM_SITES=()
for site in "${SITES[@]}"; do grep -q 'npm install' "$SITES_DIR/$site/.docsite-build.sh" && NPM_SITES+=("$site"); done
if [ "${#NPM_SITES[@]}" -gt 0 ]; then
  TARBALL="$(realpath "${QPATH_PACKAGE_TARBALL:-$(scripts/npm-package.sh dist)}")"
  version=$(tar -xOzf "$TARBALL" package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).version')
  stale=$(grep -ho 'qpath-explainer@[^/ "`]*' docs/embedding.md README.md | grep -vxF "qpath-explainer@$version" | sort -u | tr '\n' ' ' || true)
  if [ -z "$stale" ]; then
    for site in "${NPM_SITES[@]}"; do sed -i "s|qpath-explainer@$version|$TARBALL|g" "$SITES_DIR/$site/.docsite-build.sh"; done
    passed=$((passed + 1))
    echo "ok   npm: docs/embedding.md and README.md pin qpath-explainer@$version, the package's version; ${NPM_SITES[*]} install $(basename "$TARBALL")"
  else
    failed=$((failed + 1))
    echo "FAIL npm: docs/embedding.md or README.md pins ${stale}but the package is qpath-explainer@$version"
  fi
fi
for site in "${SITES[@]}"; do
  started=$(date +%s)
  log="$LOGS/build-$site.log"
  if (cd "$SITES_DIR/$site" && PATH="$ROOT/$VENV/bin:$PATH" QPATH_DIST="$ROOT/dist" QPATH_REPO="$ROOT" \
      npm_config_offline=true npm_config_update_notifier=false bash .docsite-build.sh) >"$log" 2>&1; then
    if grep -nE '\bWARN(ING)?\b' "$log" >"$LOGS/warnings-$site.log"; then
      failed=$((failed + 1))
      echo "FAIL $site: the guide's build steps printed warnings ($log):"
      sed 's/^/     /' "$LOGS/warnings-$site.log"
    else
      passed=$((passed + 1))
      echo "ok   $site: the guide's build steps build the site without a warning ($(($(date +%s) - started)) s)"
    fi
  else
    failed=$((failed + 1))
    echo "FAIL $site: the guide's build steps failed ($log):"
    tail -n 20 "$log" | sed 's/^/     /'
  fi
done

# The npm sites serve the installed package's dist/ (with its licences), file for file, from their built output.
serves_package() { # serves_package PKG SERVED: PKG is qpath-explainer@$version and SERVED holds its dist/, file for file
  local f
  [ "$(node -p "require('$1/package.json').version" 2>/dev/null)" = "$version" ] && [ -f "$1/dist/LICENSE-MIT" ] || return 1
  while IFS= read -r f; do cmp -s "$1/dist/$f" "$2/$f" || return 1; done < <(cd "$1/dist" && find . -type f)
}
for site in "${NPM_SITES[@]}"; do
  pkg="$ROOT/$SITES_DIR/$site/node_modules/qpath-explainer"
  case "$site" in mkdocs) served="$SITES_DIR/$site/site/qpath" ;; mdbook) served="$SITES_DIR/$site/book/qpath" ;; *) served="" ;; esac
  if [ -n "$served" ] && serves_package "$pkg" "$served"; then
    passed=$((passed + 1)); echo "ok   $site: serves node_modules/qpath-explainer@$version's dist/ (with the licences) as qpath/"
  else
    failed=$((failed + 1)); echo "FAIL $site: its built qpath/ is not node_modules/qpath-explainer@$version's dist/ (${served:-no output folder known})"
  fi
done

# The Sphinx extension's two other paths, on the sphinx-rtd project: a non-HTML builder prints the directive's command
# line as a literal block (no element), and qpath_url includes qpath-embed.js from that URL and copies nothing.
extension_check() { # extension_check DESCRIPTION SPHINX-ARGS... -- TEST...
  local name="$1" args=() ; shift
  while [ "$1" != "--" ]; do args+=("$1"); shift; done; shift
  if (cd "$SITES_DIR/sphinx-rtd" && "$ROOT/$VENV/bin/sphinx-build" "${args[@]}" -q >>"$LOGS/extension.log" 2>&1) && "$@"; then
    passed=$((passed + 1)); echo "ok   sphinx-rtd: qpath_sphinx: $name"
  else
    failed=$((failed + 1)); echo "FAIL sphinx-rtd: qpath_sphinx: $name ($LOGS/extension.log)"
  fi
}
text_has_commands() { # the text build shows both directives' command lines and no element
  local f="$SITES_DIR/sphinx-rtd/_build/text/index.txt"
  grep -qF -e 'vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8' "$f" &&
    grep -qF -e "--override-generation-config '{\"temperature\": 0.5}' --max-model-len 4096" "$f" && ! grep -q qpath-explainer "$f"
}
url_include_only() { # the qpath_url build includes the module from that URL and has no copy of the build
  grep -qF -e '<script type="module" src="https://qpath.example/qpath-embed.js"></script>' "$SITES_DIR/sphinx-rtd/_build/url/index.html" &&
    [ ! -e "$SITES_DIR/sphinx-rtd/_build/url/_static/qpath" ]
}
if [ -f "$SITES_DIR/sphinx-rtd/qpath_sphinx.py" ]; then
  : >"$LOGS/extension.log"
  extension_check "a text build prints the directives' command lines, no element" -M text . _build -- text_has_commands
  extension_check "qpath_url includes qpath-embed.js from that URL and copies no build" \
    -b html -D qpath_url=https://qpath.example/ . _build/url -- url_include_only
fi

if [ "$MODE" = "--screenshots" ]; then
  exec node tests/docsites/check.mjs "$SITES_DIR" --screenshots
fi
DOCSITES_PASSED=$passed DOCSITES_FAILED=$failed exec node tests/docsites/check.mjs "$SITES_DIR"
