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

async function lighthouseRun(url, preset) {
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import('chrome-launcher');
  const config = preset === 'desktop' ? (await import('lighthouse/core/config/desktop-config.js')).default : undefined;
  const chrome = await chromeLauncher.launch({ chromePath: process.env.CHROME_PATH ?? CHROMIUM, chromeFlags: FLAGS, logLevel: 'silent' });
  try {
    const { lhr } = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] }, config);
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

async function main() {
  if (!fs.existsSync(path.join(dist, 'qpath-embed.js'))) throw new Error(`${dist}/qpath-embed.js is missing; run trunk build --release`);
  fs.mkdirSync(OUT, { recursive: true });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'qpath-lazy-lh-'));
  fs.cpSync(dist, root, { recursive: true });
  for (const v of VARIANTS) fs.writeFileSync(path.join(root, `host-${v}.html`), page(v));
  const server = await startServer(root, ['--gzip']);
  const all = {};
  try {
    for (const preset of PRESETS) {
      for (const v of VARIANTS) {
        for (let i = 0; i < RUNS; i += 1) {
          const r = await lighthouseRun(`${server.url}/host-${v}.html`, preset);
          (all[`${v} ${preset}`] ??= []).push(r);
          console.log(`${preset} ${v} run ${i + 1}: performance ${r.score}, wasm requests ${r.wasm}, LCP ${Math.round(r.LCP)} ms, TBT ${Math.round(r.TBT)} ms`);
        }
      }
    }
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
  const lines = [`Lighthouse performance (median of ${RUNS}), ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}`, '',
    '| page | preset | performance (runs) | wasm requests | FCP ms | LCP ms | TBT ms | CLS | bytes |', '|---|---|---:|---:|---:|---:|---:|---:|---:|'];
  for (const [key, runs] of Object.entries(all)) {
    const [v, preset] = key.split(' ');
    const m = (k) => median(runs.map((r) => r[k]));
    lines.push(`| ${v} | ${preset} | ${m('score')} (${runs.map((r) => r.score).join(', ')}) | ${m('wasm')} | ${Math.round(m('FCP'))} | `
      + `${Math.round(m('LCP'))} | ${Math.round(m('TBT'))} | ${m('CLS').toFixed(3)} | ${Math.round(m('bytes')).toLocaleString('en')} |`);
  }
  fs.writeFileSync(path.join(OUT, 'lazy-lighthouse.md'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(OUT, 'lazy-lighthouse.json'), JSON.stringify(all, null, 1));
  console.log(lines.join('\n'));
}

await main().catch((e) => { console.error(`lazy-lighthouse: ${e.stack ?? e}`); process.exitCode = 1; });
