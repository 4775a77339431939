// wasm-bindgen's JS glue (qpath-web.js) and its snippets ship with their comments and indentation, which trunk's
// minifier leaves (about 1.6 KB gzip of the page's transfer); so would the embedding loader (qpath-embed.js, whose
// comments in static/ are its documentation). Trunk's post_build hook (Trunk.toml) drops them:
//   node scripts/strip-glue.mjs [DIR]      rewrites DIR/qpath-web.js, DIR/qpath-embed.js and DIR/snippets/*/*.js (default DIR:
//                                          $TRUNK_STAGING_DIR, else dist/) and the sha384 integrity of each one's
//                                          <link rel=modulepreload> in DIR/index.html, then runs
//                                          scripts/csp-hash.mjs DIR (one hook: trunk runs a stage's hooks at the same
//                                          time, and both rewrite index.html)
// Line by line: whole-line `//` comments, `/* … */` blocks that start a line, blank lines and each line's leading
// indentation go; nothing inside a line changes (the glue has no string or template literal spanning lines, which the
// check below would catch). The result must still parse (`node --check`) and export the same names, else the file is
// left as it was and the build fails.
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const dir = process.argv[2] ?? process.env.TRUNK_STAGING_DIR ?? 'dist';

export function strip(source) {
  const out = [];
  let inComment = false;
  for (const raw of source.split('\n')) {
    let line = raw.trim();
    if (inComment) {
      const end = line.indexOf('*/');
      if (end < 0) continue;
      inComment = false;
      line = line.slice(end + 2).trim();
    } else if (line.startsWith('/*')) {
      const end = line.indexOf('*/', 2);
      if (end < 0) {
        inComment = true;
        continue;
      }
      line = line.slice(end + 2).trim();
    }
    if (line === '' || line.startsWith('//')) continue;
    out.push(line);
  }
  return out.join('\n') + '\n';
}

const exportsOf = (source) => [...source.matchAll(/^\s*export\s+(?:async\s+)?(?:function|class|const|let)\s+([\w$]+)|^\s*export\s*\{([^}]*)\}/gm)]
  .map((m) => (m[1] ?? m[2]).replace(/\s+/g, ''))
  .sort()
  .join(',');

const snippets = path.join(dir, 'snippets');
const files = ['qpath-web.js', 'qpath-embed.js'].concat(
  fs.existsSync(snippets)
    ? fs.readdirSync(snippets).flatMap((d) => fs.readdirSync(path.join(snippets, d)).filter((f) => f.endsWith('.js')).map((f) => `snippets/${d}/${f}`))
    : [],
);
const index = path.join(dir, 'index.html');
let html = fs.readFileSync(index, 'utf8');
const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qpath-glue-'));
for (const name of files) {
  const file = path.join(dir, name);
  const text = fs.readFileSync(file, 'utf8');
  const stripped = strip(text);
  const tmp = path.join(tmpDir, 'glue.mjs');
  fs.writeFileSync(tmp, stripped);
  try {
    execFileSync(process.execPath, ['--check', tmp], { stdio: 'inherit' });
  } catch {
    console.error(`strip-glue: the stripped ${file} does not parse; left as it was`);
    process.exit(1);
  }
  if (exportsOf(stripped) !== exportsOf(text)) {
    console.error(`strip-glue: the stripped ${file} exports ${exportsOf(stripped)}, not ${exportsOf(text)}; left as it was`);
    process.exit(1);
  }
  fs.writeFileSync(file, stripped);
  // The preload's subresource integrity, in whatever quoting trunk's HTML minifier left.
  const digest = `sha384-${crypto.createHash('sha384').update(stripped, 'utf8').digest('base64')}`;
  const href = `./${name}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let found = 0;
  html = html.replace(/<link\b[^>]*>/gi, (tag) => {
    if (!new RegExp(`\\bhref=["']?${href}["'\\s>]`).test(tag) || !/\bintegrity=/.test(tag)) return tag;
    found += 1;
    return tag.replace(/\bintegrity=(["']?)sha384-[A-Za-z0-9+/=]+\1/, `integrity=$1${digest}$1`);
  });
  if (found > 1 || (found === 0 && name === 'qpath-web.js')) {
    console.error(`strip-glue: expected one <link> with the integrity of ./${name} in ${index}, found ${found}`);
    process.exit(1);
  }
  console.log(`strip-glue: ${name} ${text.length} -> ${stripped.length} bytes`);
}
fs.writeFileSync(index, html);

// The CSP's script-src hashes, after this script's last write of index.html.
execFileSync(process.execPath, [path.join(path.dirname(new URL(import.meta.url).pathname), 'csp-hash.mjs'), dir], { stdio: 'inherit' });
