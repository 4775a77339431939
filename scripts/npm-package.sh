#!/usr/bin/env bash
# The npm package `qpath-explainer`: the embed (qpath-embed.js and every file it loads) with the licences, versioned as
# the CLI, so a documentation site pins it from the npm registry or any mirror of it
# (<script type="module" src="https://cdn.jsdelivr.net/npm/qpath-explainer@X.Y.Z/dist/qpath-embed.js"></script>) or
# vendors it with `npm install qpath-explainer@X.Y.Z` (docs/embedding.md, "From the npm package").
#   scripts/npm-package.sh [DIST]   from a release build (default dist/, after `trunk build --release`)
# Writes target/npm/qpath-explainer/ (package.json, README.md, LICENSE-MIT, LICENSE-APACHE, dist/: the files the
# embed loads, found by following qpath-embed.js's relative URLs, plus the licences) and packs it with `npm pack` into
# target/npm/qpath-explainer-X.Y.Z.tgz (npm pack's fixed timestamps make it byte-for-byte reproducible). Checks first,
# with `npm pack --dry-run --json`, that the package holds exactly those files. No network. Prints the tarball's path.
set -euo pipefail
cd "$(dirname "$0")/.."
DIST="${1:-dist}"
NAME=qpath-explainer
OUT=target/npm
PKG="$OUT/$NAME"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

[ -f "$DIST/qpath-embed.js" ] || { echo "npm-package: $DIST/qpath-embed.js missing; run trunk build --release first" >&2; exit 1; }
command -v npm >/dev/null || { echo "npm-package: npm is not on PATH (Debian: apt-get install npm)" >&2; exit 1; }
# The version is the CLI's (crates/qpath-cli/Cargo.toml [package] version): one number for the CLI, wheel and package.
VERSION=$(awk '/^\[package\]/ { p = 1; next } /^\[/ { p = 0 } p && $1 == "version" { gsub(/"/, "", $3); print $3; exit }' \
  crates/qpath-cli/Cargo.toml)
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+].*)?$ ]] ||
  { echo "npm-package: crates/qpath-cli/Cargo.toml: no [package] version (read: '$VERSION')" >&2; exit 1; }
# The repository's address, when the workspace's Cargo.toml names one ([workspace.package] repository).
REPOSITORY=$(awk '$1 == "repository" && $2 == "=" { gsub(/"/, "", $3); print $3; exit }' Cargo.toml)

rm -rf "$PKG" "$OUT/$NAME-$VERSION.tgz"
mkdir -p "$PKG/dist"
cp LICENSE-MIT LICENSE-APACHE "$PKG/"
cp LICENSE-MIT LICENSE-APACHE "$PKG/dist/" # a vendored copy of dist/ carries its licences

# Every file qpath-embed.js loads, transitively: each quoted relative path ending in .js/.mjs/.wasm/.css in a script
# (`here("./qpath-web.js")`, `from './snippets/…/inline0.js'`, `new URL('qpath-web_bg.wasm', import.meta.url)`),
# resolved against that script, that exists in DIST. Names that are no file (wasm-bindgen's import-object key
# "./qpath-web_bg.js") are skipped; the closure must hold a .wasm.
node - "$DIST" "$PKG/dist" <<'NODE'
const fs = require('node:fs');
const path = require('node:path');
const [dist, into] = process.argv.slice(2);
const seen = new Set(['qpath-embed.js']);
const queue = ['qpath-embed.js'];
while (queue.length) {
  const file = queue.shift();
  if (!file.endsWith('.js') && !file.endsWith('.mjs')) continue;
  const text = fs.readFileSync(path.join(dist, file), 'utf8');
  for (const m of text.matchAll(/["'`]((?:\.{1,2}\/)?[\w./-]+\.(?:m?js|wasm|css))["'`]/g)) {
    if (/^[a-z]+:/i.test(m[1])) continue;
    const rel = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]));
    if (rel.startsWith('..') || seen.has(rel) || !fs.statSync(path.join(dist, rel), { throwIfNoEntry: false })?.isFile()) continue;
    seen.add(rel);
    queue.push(rel);
  }
}
const files = [...seen].sort();
if (!files.some((f) => f.endsWith('.wasm'))) {
  console.error(`npm-package: no .wasm among the files qpath-embed.js loads (${files.join(', ')})`);
  process.exit(1);
}
for (const f of files) {
  fs.mkdirSync(path.dirname(path.join(into, f)), { recursive: true });
  fs.copyFileSync(path.join(dist, f), path.join(into, f));
}
NODE

node - "$PKG" "$VERSION" "$REPOSITORY" <<'NODE'
const fs = require('node:fs');
const [pkg, version, repository] = process.argv.slice(2);
const json = {
  name: 'qpath-explainer',
  version,
  description: "qpath's <qpath-explainer> element and JS API: which attention backend, query dtype and kernel vLLM " +
    'picks for a GPU, a vLLM release and a `vllm serve` command line, and why; WebAssembly, no network. One include line ' +
    'for a documentation site.',
  keywords: ['vllm', 'flashinfer', 'attention', 'kv-cache', 'fp8', 'gpu', 'custom-element', 'web-component',
    'webassembly', 'documentation', 'mkdocs', 'sphinx', 'mdbook'],
  license: 'MIT OR Apache-2.0',
  ...(repository ? { homepage: repository, repository: { type: 'git', url: `git+${repository.replace(/\/?$/, '.git')}` },
    bugs: { url: `${repository.replace(/\/$/, '')}/issues` } } : {}),
  type: 'module',
  exports: {
    '.': './dist/qpath-embed.js',
    './qpath-embed.js': './dist/qpath-embed.js',
    './qpath-web.js': './dist/qpath-web.js',
    './qpath-web_bg.wasm': './dist/qpath-web_bg.wasm',
    './dist/*': './dist/*',
    './package.json': './package.json',
  },
  files: ['dist/', 'LICENSE-MIT', 'LICENSE-APACHE'],
  sideEffects: true,
};
fs.writeFileSync(`${pkg}/package.json`, JSON.stringify(json, null, 2) + '\n');
fs.writeFileSync(`${pkg}/README.md`, `# qpath-explainer

qpath answers, without a GPU, which attention backend vLLM picks for each group of layers on your GPU, vLLM release and
\`vllm serve\` command line, which query dtype and kernel it runs, whether it will crash, and why. This package is its
\`<qpath-explainer>\` element and JavaScript API for a web page or documentation site: WebAssembly, no network request
after loading, no stylesheet (each element renders into its own shadow root).

One include line with a pinned version, from the npm registry through a CDN (any npm mirror serves the same files):

\`\`\`html
<script type="module" src="https://cdn.jsdelivr.net/npm/qpath-explainer@${version}/dist/qpath-embed.js"></script>

<qpath-explainer gpu="l4" vllm="0.25.0" compact
  cmd="vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8"></qpath-explainer>
\`\`\`

Or self-hosted: \`npm install qpath-explainer@${version}\`, then serve the folder
\`node_modules/qpath-explainer/dist/\` with your pages (copy it into your site's static files) and include
\`qpath-embed.js\` from it. It loads \`qpath-web.js\`, \`qpath-web_bg.wasm\` and \`snippets/\` from its own folder;
a cross-origin host must send CORS headers and the wasm as \`application/wasm\`.

\`qpath-embed.js\` also exports \`ready\`, a promise of the API:
\`const { resolve } = await ready; resolve("vllm serve …", { gpu: "l4" })\` returns the same JSON as the \`qpath\`
command-line tool's \`--format json\`.

The element's attributes, theming, Content-Security-Policy and recipes for MkDocs Material, Sphinx and mdBook are in
qpath's docs/embedding.md. Licence: MIT OR Apache-2.0 (LICENSE-MIT, LICENSE-APACHE, also in \`dist/\`).
`);
NODE

# Exactly these files and nothing else (npm adds README, LICENSE* and package.json on its own; a stray file in the
# package folder or an .npmignore would show here).
expected=$(cd "$PKG" && find . -type f | sed 's|^\./||' | sort)
listed=$(cd "$PKG" && npm pack --dry-run --json --offline 2>/dev/null | node -e \
  'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s)[0].files.map((f) => f.path).sort().join("\n")))')
if [ "$expected" != "$listed" ]; then
  echo "npm-package: npm pack would ship other files than the package folder's:" >&2
  diff <(echo "$expected") <(echo "$listed") >&2 || true
  exit 1
fi
(cd "$PKG" && npm pack --offline --silent --pack-destination "$PWD/.." >/dev/null)
TARBALL="$OUT/$NAME-$VERSION.tgz"
[ -f "$TARBALL" ] || { echo "npm-package: npm pack wrote no $TARBALL" >&2; exit 1; }
echo "npm-package: $TARBALL ($(echo "$listed" | wc -l) files, $(du -k "$TARBALL" | cut -f1) KB)" >&2
echo "$PWD/$TARBALL"
