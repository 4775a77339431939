# Sourced by the browser benchmarks (scripts/startup.sh, scripts/perf.sh): the checks each makes before it runs, with
# its name in the messages. Functions only; the caller has `set -euo pipefail` and runs from the repository root.

# need_site NAME DIR: DIR holds a built site.
need_site() {
  if [ ! -f "$2/index.html" ]; then
    echo "$1: $2/index.html is missing; build the site first (make test, or trunk build --release)" >&2
    exit 1
  fi
}

# need_node_modules NAME [PACKAGE ...]: tests/e2e's node packages (playwright-core and each PACKAGE) are installed.
need_node_modules() {
  local name="$1" package
  shift
  for package in playwright-core "$@"; do
    if [ ! -d "tests/e2e/node_modules/$package" ]; then
      echo "$name: tests/e2e/node_modules is missing; install it with scripts/setup.sh test (or: cd tests/e2e && npm ci)" >&2
      exit 1
    fi
  done
}

# need_chromium NAME: sets CHROMIUM to QPATH_CHROMIUM (default Debian's /usr/bin/chromium), which must exist.
need_chromium() {
  CHROMIUM="${QPATH_CHROMIUM:-/usr/bin/chromium}"
  if [ ! -x "$CHROMIUM" ]; then
    echo "$1: $CHROMIUM is missing; install Debian's chromium with scripts/setup.sh test" >&2
    exit 1
  fi
}
