// The page's Content-Security-Policy allows trunk's inline module loader by its hash, not by 'unsafe-inline'.
//   node scripts/csp-hash.mjs [DIR]          rewrites DIR/index.html (trunk's post_build hook: DIR = $TRUNK_STAGING_DIR)
//   node scripts/csp-hash.mjs --check [DIR]  fails unless script-src has no 'unsafe-inline' and allows every inline
//                                            script of DIR/index.html (default dist/) by its sha256, and nothing more
// Every inline <script> (trunk's loader; `trunk serve`'s autoreload script too) is hashed as the browser hashes it:
// sha256 of the UTF-8 text between <script …> and </script>, base64. The hashes replace any 'sha256-…' and
// 'unsafe-inline' in the CSP <meta>'s script-src; the rest of the policy is index.html's as written.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const check = args[0] === '--check';
if (check) args.shift();
const dir = args[0] ?? process.env.TRUNK_STAGING_DIR ?? 'dist';
const file = path.join(dir, 'index.html');
const html = fs.readFileSync(file, 'utf8');

/** The sha256 source expressions of the inline scripts (a <script> without src). `trunk serve` fills the
 *  placeholders of its autoreload script when it serves the page, after this hook: scripts/serve.sh passes the values
 *  it will use (QPATH_SERVE_ADDRESS, host:port; the web-socket base is the serve base, "/"), and the script is hashed
 *  as it will be served. */
export function inlineHashes(text) {
  const hashes = [];
  for (const m of text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (/\bsrc\s*=/i.test(m[1])) continue;
    let body = m[2];
    if (process.env.QPATH_SERVE_ADDRESS) {
      body = body.replaceAll('{{__TRUNK_ADDRESS__}}', process.env.QPATH_SERVE_ADDRESS).replaceAll('{{__TRUNK_WS_BASE__}}', '/');
    }
    hashes.push(`'sha256-${crypto.createHash('sha256').update(body, 'utf8').digest('base64')}'`);
  }
  return hashes;
}

// The policy meta, in whatever attribute order and quoting the minifier left: content="…" (the policy holds single
// quotes, so it stays double-quoted).
const tag = [...html.matchAll(/<meta\b[^>]*>/gi)].find((m) => /\bhttp-equiv=["']?Content-Security-Policy\b/i.test(m[0]));
const meta = tag && tag[0].match(/\bcontent="([^"]*)"/);
if (!meta) {
  console.error(`csp-hash: no Content-Security-Policy <meta> with a double-quoted content in ${file}`);
  process.exit(1);
}
const policy = meta[1].replaceAll('&#39;', "'").replaceAll('&apos;', "'");
const directives = policy.split(';').map((d) => d.trim()).filter(Boolean);
const scriptSrc = directives.find((d) => d.split(/\s+/)[0] === 'script-src');
if (!scriptSrc) {
  console.error(`csp-hash: the policy in ${file} has no script-src`);
  process.exit(1);
}
const hashes = inlineHashes(html);
const sources = scriptSrc.split(/\s+/).slice(1);

if (check) {
  const problems = [];
  if (sources.includes("'unsafe-inline'")) problems.push("script-src has 'unsafe-inline'");
  for (const h of hashes) if (!sources.includes(h)) problems.push(`inline script ${h} is not allowed by script-src`);
  for (const s of sources) if (s.startsWith("'sha256-") && !hashes.includes(s)) problems.push(`script-src allows ${s}, which is no inline script`);
  if (hashes.length === 0) problems.push('no inline script found (expected trunk\'s loader)');
  if (problems.length) {
    console.error(`csp-hash: ${file}: ${problems.join('; ')}`);
    process.exit(1);
  }
  console.log(`csp-hash: ${file}: script-src allows its ${hashes.length} inline script(s) by hash, no 'unsafe-inline'`);
} else {
  const kept = sources.filter((s) => s !== "'unsafe-inline'" && !s.startsWith("'sha256-"));
  const rewritten = directives.map((d) => (d === scriptSrc ? ['script-src', ...kept, ...hashes].join(' ') : d)).join('; ');
  const newTag = tag[0].replace(meta[0], `content="${rewritten}"`);
  fs.writeFileSync(file, html.slice(0, tag.index) + newTag + html.slice(tag.index + tag[0].length));
  console.log(`csp-hash: ${file}: script-src allows ${hashes.length} inline script(s) by hash`);
}
