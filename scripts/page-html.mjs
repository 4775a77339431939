// The page's start-up path (issue 22): what trunk writes into index.html, rearranged so that the first result card
// waits for as little as possible. Run by Trunk.toml's post_build hook before scripts/strip-glue.mjs (which re-hashes
// the CSP last):
//   node scripts/page-html.mjs [DIR]      rewrites DIR/index.html (default DIR: $TRUNK_STAGING_DIR, else dist/)
// 1. One stylesheet: the page's stylesheets (index.html's rel="css" links, each minified by trunk) joined in their
//    order into qpath.css, with one <link> and its sha384 integrity where the first was; the separate files go. One
//    request instead of four (Chromium opens six connections to a host; with the glue, its snippets and the wasm the
//    page needed nine requests before its first card).
// 2. trunk's module loader (the inline <script type="module"> that imports the glue and calls init) moves to the end
//    of <body> with `async`: a module script without it runs only once the document is parsed and every stylesheet
//    has loaded; with it, as soon as the glue is here. At the end of <body>, #qpath-app exists when it runs. The
//    stylesheet still blocks the first paint, as before.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR ?? 'dist';
const index = path.join(dir, 'index.html');
let html = fs.readFileSync(index, 'utf8');
const fail = (why) => {
  console.error(`page-html: ${index}: ${why}`);
  process.exit(1);
};
// An attribute's value as trunk writes it, minified (unquoted) or not (double-quoted).
const attr = (tag, name) => tag.match(new RegExp(`\\s${name}=(?:"([^"]*)"|([^\\s">]+))`))?.slice(1).find((v) => v != null);

const sheets = [...html.matchAll(/<link\b[^>]*>/g)].filter((m) => attr(m[0], 'rel') === 'stylesheet');
if (sheets.length === 0) fail('no stylesheet <link>');
const hrefs = sheets.map((m) => attr(m[0], 'href'));
if (!hrefs.every((h) => /^\.\/[\w-]+\.css$/.test(h))) fail(`unexpected stylesheet hrefs ${hrefs.join(', ')}`);
const css = hrefs.map((h) => fs.readFileSync(path.join(dir, h), 'utf8').trim()).join('\n') + '\n';
fs.writeFileSync(path.join(dir, 'qpath.css'), css);
for (const h of hrefs) fs.rmSync(path.join(dir, h));
const integrity = `sha384-${crypto.createHash('sha384').update(css).digest('base64')}`;
const first = sheets[0][0];
const joined = first.replace(attr(first, 'href'), './qpath.css').replace(attr(first, 'integrity') ?? '\0', integrity);
for (const [i, m] of sheets.entries()) html = html.replace(m[0], () => (i === 0 ? joined : ''));

const loaders = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/g)]
  .filter((m) => /\btype="?module"?/.test(m[1]) && !/\bsrc=/.test(m[1]) && /\binit\b/.test(m[2]));
if (loaders.length !== 1) fail(`expected one inline module loader, found ${loaders.length}`);
const [loader] = loaders;
if (!html.includes('</body>')) fail('no </body>');
html = html.replace(loader[0], '').replace('</body>', () => `<script async${loader[1]}>${loader[2]}</script></body>`);
fs.writeFileSync(index, html);
console.log(`page-html: ${index}: ${hrefs.length} stylesheet(s) joined into qpath.css; the module loader async at the end of <body>`);
