// Lighthouse's performance score of a documentation-like host page with and without qpath's explainers: the cost of
// embedding, and what lazy loading (issue 26) saves when the explainers are below the fold. A benchmark: it prints
// figures and asserts none (BENCHMARKS.md, "Lazy embedding").
//   node tests/e2e/lazy-lighthouse.mjs [DIST]     (scripts/lazy-lighthouse.sh; DIST defaults to <repo>/dist)
//   QPATH_LH_RUNS=N (default 3) runs per page and preset, the median reported; QPATH_LH_PRESETS=mobile,desktop
// The pages are written into a copy of DIST and served gzip -9 by serve-dist.mjs, as a static host would:
//   none         the article alone (no include line): the floor
//   lazy-below   the include line and three explainers after about two screens of text (the default: lazy)
//   eager-below  the same with loading="eager" on each: the wasm loads at once, as before issue 26
//   lazy-in-view the same three, the first at the top of the article: the wasm loads at once, once
// and, for the doc sites scripts/docsites-test.sh builds into SITES (default <repo>/target/docsites/sites; QPATH_LH_SITES),
// the MkDocs Material and mdBook page with the guide's explainer (tests/docsites/check.mjs's `page`), each site's built
// folder copied and served on its own the same way, in three variants written next to the page:
//   host-alone   the page without qpath: the <qpath-explainer> elements and qpath's script tag stripped
//   as-built     the page as the site builds it (lazy, the default)
//   eager        the same with loading="eager" on every explainer
// The external font stylesheet MkDocs Material links (Google Fonts) is blocked in every variant: no network here.
//   QPATH_LH_PAGES=article,mkdocs,mdbook (the default) chooses what to measure; a site not built is skipped with a note.
// Writes tests/e2e/out/lazy-lighthouse.md (the table) and lazy-lighthouse.json (every run).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { here, repo, startServer, CHROMIUM } from './lib.mjs';

const dist = path.resolve(process.argv[2] ?? path.join(repo, 'dist'));
const OUT = path.join(here, 'out');
const RUNS = Number(process.env.QPATH_LH_RUNS ?? 3);
const PRESETS = (process.env.QPATH_LH_PRESETS ?? 'mobile,desktop').split(',').filter(Boolean);
const FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const METRICS = { 'first-contentful-paint': 'FCP', 'largest-contentful-paint': 'LCP', 'total-blocking-time': 'TBT',
  'cumulative-layout-shift': 'CLS', 'speed-index': 'SI', 'interactive': 'TTI', 'total-byte-weight': 'bytes' };

const CMD = 'vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8';
const para = (i) => `<p>Paragraph ${i}. FlashInfer picks a prefill and a decode kernel per layer group; the query dtype
  follows the KV cache dtype unless the backend keeps a bfloat16 query. This text stands for a documentation page's prose,
  long enough that what follows it is below the fold on a phone and on a laptop.</p>`;
const explainer = (i, eager) => `<qpath-explainer${eager ? ' loading="eager"' : ''} gpu="l4" vllm="${['0.25.0', '0.25.0-prefix', '0.33.0'][i]}" compact
  cmd="${CMD}"></qpath-explainer>`;
function page(variant) {
  const embeds = variant !== 'none';
  const eager = variant === 'eager-below';
  const three = [0, 1, 2].map((i) => explainer(i, eager));
  const top = variant === 'lazy-in-view' ? three.shift() : '';
  const body = [top, ...Array.from({ length: 24 }, (_, i) => para(i + 1)), ...(embeds ? three.map((e, i) => `<h2>Scenario ${i + 1}</h2>${e}${para(30 + i)}`) : [])];
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="description" content="A documentation page that embeds qpath (${variant})."><title>Attention kernels (${variant})</title>
<link rel="icon" href="data:,">${embeds ? '<script type="module" src="./qpath-embed.js"></script>' : ''}
<style>body { max-width: 760px; margin: 0 auto; padding: 16px; font: 16px/1.5 system-ui, sans-serif; } qpath-explainer { display: block; margin: 1em 0; }</style>
</head><body><main><h1>Attention kernels on an L4</h1>${body.join('\n')}</main></body></html>`;
}
const VARIANTS = ['none', 'lazy-below', 'eager-below', 'lazy-in-view'];

// The doc sites: built folder and the page with the guide's explainer (as tests/docsites/check.mjs's SITES).
const SITES_DIR = path.resolve(process.env.QPATH_LH_SITES ?? path.join(repo, 'target', 'docsites', 'sites'));
const DOC_SITES = { mkdocs: { out: 'site', page: 'index.html' }, mdbook: { out: 'book', page: 'kernels.html' } };
const PAGES = (process.env.QPATH_LH_PAGES ?? 'article,mkdocs,mdbook').split(',').filter(Boolean);
const BLOCKED = ['*fonts.googleapis.com*', '*fonts.gstatic.com*'];
const EXPLAINER = /<qpath-explainer\b[\s\S]*?<\/qpath-explainer>/g;
const QPATH_SCRIPT = /<script\b[^>]*\bsrc="[^"]*qpath-embed\.js"[^>]*>\s*<\/script>/g;
/** The three variants of a doc site's page (FILE: its HTML): the host alone, as built, every explainer eager. */
function siteVariants(file, html) {
  const count = (html.match(EXPLAINER) ?? []).length;
  if (!count || !html.match(QPATH_SCRIPT)) throw new Error(`${file}: no <qpath-explainer> or no qpath-embed.js script tag to measure`);
  const alone = html.replace(EXPLAINER, '').replace(QPATH_SCRIPT, '');
  if (/qpath-embed|<qpath-explainer/.test(alone)) throw new Error(`${file}: qpath is still on the page after stripping it`);
  const eager = html.replace(/<qpath-explainer\b(?![^>]*\bloading=)/g, '<qpath-explainer loading="eager"');
  if ((eager.match(/<qpath-explainer loading="eager"/g) ?? []).length !== count) throw new Error(`${file}: an explainer already has a loading attribute`);
  return { count, pages: { 'host-alone': alone, 'as-built': html, eager } };
}

async function lighthouseRun(url, preset, blockedUrlPatterns = []) {
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import('chrome-launcher');
  const config = preset === 'desktop' ? (await import('lighthouse/core/config/desktop-config.js')).default : undefined;
  const chrome = await chromeLauncher.launch({ chromePath: process.env.CHROME_PATH ?? CHROMIUM, chromeFlags: FLAGS, logLevel: 'silent' });
  try {
    const { lhr } = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], blockedUrlPatterns }, config);
    const wasm = (lhr.audits['network-requests']?.details?.items ?? []).filter((r) => r.url.endsWith('.wasm')).length;
    return {
      score: Math.round(lhr.categories.performance.score * 100), wasm,
      ...Object.fromEntries(Object.entries(METRICS).map(([id, name]) => [name, lhr.audits[id]?.numericValue ?? null])),
    };
  } finally {
    await chrome.kill();
  }
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };

/** Copies SRC to a temporary folder, writes FILES (name -> HTML) into it, serves it gzip -9 (serve-dist.mjs). */
async function serveCopy(src, files, prefix) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `qpath-${prefix}-lh-`));
  fs.cpSync(src, root, { recursive: true });
  for (const [name, html] of Object.entries(files)) fs.writeFileSync(path.join(root, name), html);
  const server = await startServer(root, ['--gzip']);
  return { url: server.url, stop: async () => { await server.stop(); fs.rmSync(root, { recursive: true, force: true }); } };
}

/** What to measure: [{ page, serve, variants: [[variant, file]], blocked }], and a note per site skipped. */
function plan() {
  const groups = [];
  const notes = [];
  for (const name of PAGES) {
    if (name === 'article') {
      if (!fs.existsSync(path.join(dist, 'qpath-embed.js'))) throw new Error(`${dist}/qpath-embed.js is missing; run trunk build --release`);
      groups.push({ page: 'article', variants: VARIANTS.map((v) => [v, `host-${v}.html`]), blocked: [],
        serve: () => serveCopy(dist, Object.fromEntries(VARIANTS.map((v) => [`host-${v}.html`, page(v)])), 'lazy') });
    } else if (DOC_SITES[name]) {
      const { out, page: file } = DOC_SITES[name];
      const dir = path.join(SITES_DIR, name, out);
      const built = path.join(dir, file);
      if (!fs.existsSync(built)) { notes.push(`${name}: ${built} is missing (run scripts/docsites-test.sh): skipped`); continue; }
      const { count, pages } = siteVariants(built, fs.readFileSync(built, 'utf8'));
      const base = path.basename(file, '.html');
      const names = Object.fromEntries(Object.keys(pages).map((v) => [v, v === 'as-built' ? file : `${base}-qpath-${v}.html`]));
      groups.push({ page: `${name} ${file} (${count} explainer${count === 1 ? '' : 's'})`, blocked: BLOCKED,
        variants: Object.entries(names),
        serve: () => serveCopy(dir, Object.fromEntries(Object.entries(pages).filter(([v]) => v !== 'as-built').map(([v, html]) => [names[v], html])), name) });
    } else {
      throw new Error(`QPATH_LH_PAGES: unknown page "${name}" (article, ${Object.keys(DOC_SITES).join(', ')})`);
    }
  }
  return { groups, notes };
}

async function main() {
  const { groups, notes } = plan();
  for (const n of notes) console.log(n);
  if (!groups.length) throw new Error(`nothing to measure (QPATH_LH_PAGES=${PAGES.join(',')})`);
  fs.mkdirSync(OUT, { recursive: true });
  const all = {};
  for (const group of groups) {
    const server = await group.serve();
    try {
      for (const preset of PRESETS) {
        for (const [v, file] of group.variants) {
          for (let i = 0; i < RUNS; i += 1) {
            const r = await lighthouseRun(`${server.url}/${file}`, preset, group.blocked);
            (all[`${group.page}\t${v}\t${preset}`] ??= []).push(r);
            console.log(`${preset} ${group.page} ${v} run ${i + 1}: performance ${r.score}, wasm requests ${r.wasm}, LCP ${Math.round(r.LCP)} ms, TBT ${Math.round(r.TBT)} ms`);
          }
        }
      }
    } finally {
      await server.stop();
    }
  }
  const lines = [`Lighthouse performance (median of ${RUNS}), ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(', ')} at the end`, '',
    '| page | variant | preset | performance (runs) | wasm requests | FCP ms | LCP ms | TBT ms | CLS | bytes |', '|---|---|---|---:|---:|---:|---:|---:|---:|---:|'];
  for (const [key, runs] of Object.entries(all)) {
    const [pg, v, preset] = key.split('\t');
    const m = (k) => median(runs.map((r) => r[k]));
    lines.push(`| ${pg} | ${v} | ${preset} | ${m('score')} (${runs.map((r) => r.score).join(', ')}) | ${m('wasm')} | ${Math.round(m('FCP'))} | `
      + `${Math.round(m('LCP'))} | ${Math.round(m('TBT'))} | ${m('CLS').toFixed(3)} | ${Math.round(m('bytes')).toLocaleString('en')} |`);
  }
  fs.writeFileSync(path.join(OUT, 'lazy-lighthouse.md'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(OUT, 'lazy-lighthouse.json'), JSON.stringify(all, null, 1));
  console.log(lines.join('\n'));
}

await main().catch((e) => { console.error(`lazy-lighthouse: ${e.stack ?? e}`); process.exitCode = 1; });
