// qpath's speed in a real browser, beside a static-HTML floor, and its Lighthouse scores. A benchmark: it prints and
// writes figures and asserts none of them (it fails only when the page does not reach the state it waits for).
//   node tests/e2e/perf.mjs [DIST]          (scripts/perf.sh [DIST] checks the prerequisites first)
// Env: QPATH_PERF_RUNS (default 20) runs per measure; QPATH_PERF_LIGHTHOUSE=0 skips Lighthouse.
// Writes tests/e2e/out/perf.md (the tables below), perf.json (every sample) and lighthouse-*.json (full reports).
//
// DIST is copied to a temporary directory, served once with --gzip --etag by serve-dist.mjs on 127.0.0.1 (stopped by
// its PID at the end), and driven with Debian's Chromium through playwright-core (headless, 1280×720).
//
// The floor is generated from qpath itself: after qpath renders the default scenario, its document (with the values
// of its controls written into attributes, the module script and the preloads removed) becomes floor.html, a static
// page of the same result with the same CSS. floor-live.html is the same page plus floor-live.js, whose listeners swap
// the answer column's innerHTML for HTML captured from qpath in the other states (the other --kv-cache-dtype, the
// other GPU, the matrix tab): what any page must at least do to show the same result.
//
// Measures (all times from performance.now() in the page, so they share the page's clock):
//   load      navigation start (performance.timeOrigin) → a MutationObserver (installed by page.addInitScript before any
//             of the page's code runs) first sees `section.results article.group`; "frame" adds the next frame: a
//             requestAnimationFrame callback scheduled at that moment posts a MessageChannel message, which runs once
//             that frame's style, layout and paint are done. FCP and LCP come from the performance timeline. Cold =
//             a fresh browser context (empty cache); warm = a new tab in that context, after the first was closed,
//             loading the page again (HTTP cache filled: the server answers each revalidation with 304 Not Modified).
//   change    a capture-phase listener on window takes performance.now() when the user's event (`change` from
//             Playwright's selectOption, `click` from Playwright's mouse click) starts dispatching → the first
//             MutationObserver callback after which the results show the new state ("DOM"), and → the next frame as
//             above ("frame"). Values alternate (there and back); the first two changes of each page are warm-up.
//   matrix    the click on the "All GPUs × cache dtypes" tab → the matrix table has all its cells (DOM), and the next
//             frame; then the Explain tab is clicked back (not timed). The first round of each page is warm-up.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance as nodePerf } from 'node:perf_hooks';
import { startServer, launchChromium, CHROMIUM, here, repo } from './lib.mjs';

const dist = path.resolve(process.argv[2] ?? path.join(repo, 'dist'));
const RUNS = Math.max(3, Number.parseInt(process.env.QPATH_PERF_RUNS ?? '20', 10) || 20);
const LIGHTHOUSE = process.env.QPATH_PERF_LIGHTHOUSE !== '0';
const WARMUP = 2;
const OUT = path.join(here, 'out');

// What the page shows in each state, as (selector, text prefix) or (selector, count) the harness waits for.
const LOADED = { sel: 'section.results article.group' };
const KV = { fp8: { sel: 'section.results article.group .cache-dtype', text: 'fp8' },
  auto: { sel: 'section.results article.group .cache-dtype', text: 'auto' } };
const GPU = { 'l4': { sel: '#result-stamp .stamp-gpu', text: 'NVIDIA L4 ' },
  'h100-sxm': { sel: '#result-stamp .stamp-gpu', text: 'NVIDIA H100 SXM5 ' } };
const pick = (id) => `#gpu-table tr[data-gpu-id="${id}"] button.pick`;

/** Injected by addInitScript into every page (qpath and floor alike) before its own code. */
function harness() {
  const P = { load: {}, fcp: null, lcp: null };
  window.__perf = P;
  const now = () => performance.now();
  // The next frame after now: a rAF callback, then a message posted from it, which runs after that frame's rendering.
  P.afterFrame = (cb) => requestAnimationFrame(() => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => cb(now());
    ch.port2.postMessage(null);
  });
  P.met = (spec) => {
    if (spec.count != null) return document.querySelectorAll(spec.sel).length >= spec.count;
    const el = document.querySelector(spec.sel);
    return !!el && (spec.text == null || el.textContent.startsWith(spec.text));
  };
  const loadObserver = new MutationObserver(() => {
    if (P.load.dom != null || !P.met({ sel: 'section.results article.group' })) return;
    P.load.dom = now();
    loadObserver.disconnect();
    P.afterFrame((t) => { P.load.frame = t; });
  });
  loadObserver.observe(document, { childList: true, subtree: true });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') P.fcp = e.startTime;
    }).observe({ type: 'paint', buffered: true });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) P.lcp = e.startTime;
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  } catch { /* no paint timing: FCP/LCP stay null */ }
  // Before a user action: time from the event's dispatch to the DOM showing `spec`, and to the next frame after it.
  P.arm = (event, spec) => {
    let t0 = null;
    const onEvent = () => { if (t0 == null) t0 = now(); };
    window.addEventListener(event, onEvent, { capture: true });
    P.pending = new Promise((resolve, reject) => {
      const observer = new MutationObserver(() => {
        if (t0 == null || !P.met(spec)) return;
        const dom = now();
        observer.disconnect();
        clearTimeout(timer);
        window.removeEventListener(event, onEvent, { capture: true });
        P.afterFrame((frame) => resolve({ dom: dom - t0, frame: frame - t0 }));
      });
      const timer = setTimeout(() => {
        observer.disconnect();
        reject(new Error(`after ${event}: ${JSON.stringify(spec)} never appeared (dispatched: ${t0 != null})`));
      }, 15000);
      observer.observe(document.documentElement, { childList: true, subtree: true, characterData: true, attributes: true });
    });
  };
}

/** In the page: the document as static HTML (control values as attributes; no scripts, no preloads). */
function snapshotDocument() {
  const fix = (live, copy) => {
    const a = live.querySelectorAll('input, select, textarea');
    const b = copy.querySelectorAll('input, select, textarea');
    a.forEach((el, i) => {
      const c = b[i];
      if (el.tagName === 'TEXTAREA') c.textContent = el.value;
      else if (el.tagName === 'SELECT') [...c.options].forEach((o, j) => o.toggleAttribute('selected', el.options[j].selected));
      else if (el.type === 'checkbox' || el.type === 'radio') c.toggleAttribute('checked', el.checked);
      else c.setAttribute('value', el.value);
    });
    return copy;
  };
  const doc = fix(document.documentElement, document.documentElement.cloneNode(true));
  doc.querySelectorAll('script, link[rel="modulepreload"], link[rel="preload"]').forEach((e) => e.remove());
  return '<!DOCTYPE html>\n' + doc.outerHTML;
}
const answerHtml = (page) => page.evaluate(() => document.querySelector('.answer').innerHTML);
const waitFor = (page, spec) => page.waitForFunction((s) => {
  if (s.count != null) return document.querySelectorAll(s.sel).length >= s.count;
  const el = document.querySelector(s.sel);
  return !!el && (s.text == null || el.textContent.startsWith(s.text));
}, spec, { timeout: 30000 });
// Two frames and a task: what the page scheduled after its render has run.
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50)))));

/** Renders qpath's states once and writes floor.html, floor-live.html and floor-live.js into the served copy. */
async function makeFloor(browser, url, root) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${url}/`);
    await waitFor(page, LOADED);
    await settle(page);
    const doc = await page.evaluate(snapshotDocument);
    if (/<script\b/i.test(doc)) throw new Error('the captured document still has a script');
    const states = { base: await answerHtml(page) };
    await page.selectOption('#kv-cache-dtype', 'auto');
    await waitFor(page, KV.auto);
    states.kv = await answerHtml(page);
    await page.selectOption('#kv-cache-dtype', 'fp8');
    await waitFor(page, KV.fp8);
    await page.click('details.gpu-browser > summary');
    await page.click(pick('h100-sxm'));
    await waitFor(page, GPU['h100-sxm']);
    states.gpu = await answerHtml(page);
    await page.click(pick('l4'));
    await waitFor(page, GPU.l4);
    await page.click('#tab-matrix');
    await waitFor(page, { sel: '#matrix-table' });
    await settle(page);
    const cells = await page.evaluate(() => document.querySelectorAll('#matrix-table button.cell').length);
    states.matrix = await answerHtml(page);
    await page.click('#tab-explain');
    await waitFor(page, LOADED);
    await settle(page);
    // The live floor's base state is the answer qpath shows when it comes back to the default scenario.
    const back = await answerHtml(page);
    let firstRenderDiffers = null;
    if (back !== states.base) {
      let i = 0;
      while (back[i] === states.base[i]) i++;
      firstRenderDiffers = { first: states.base.slice(Math.max(0, i - 60), i + 60), later: back.slice(Math.max(0, i - 60), i + 60) };
      console.error('perf: note: qpath\'s first render of the default scenario differs from its later render of it:\n'
        + `  first: …${firstRenderDiffers.first}…\n  later: …${firstRenderDiffers.later}…`);
      states.base = back;
    }
    fs.writeFileSync(path.join(root, 'floor.html'), doc);
    fs.writeFileSync(path.join(root, 'floor-live.html'), doc.replace('</body>', '<script src="./floor-live.js"></script></body>'));
    fs.writeFileSync(path.join(root, 'floor-live.js'), `// Generated by tests/e2e/perf.mjs: qpath's answer column in four states, captured from qpath.
const states = ${JSON.stringify(states)};
const show = (key) => { document.querySelector('.answer').innerHTML = states[key]; };
document.addEventListener('change', (e) => {
  if (e.target.id === 'kv-cache-dtype') show(e.target.value === 'auto' ? 'kv' : 'base');
});
document.addEventListener('click', (e) => {
  const b = e.target.closest('button');
  if (!b) return;
  if (b.id === 'tab-matrix') show('matrix');
  else if (b.id === 'tab-explain') show('base');
  else if (b.classList.contains('pick')) show(b.closest('tr').dataset.gpuId === 'h100-sxm' ? 'gpu' : 'base');
});
`);
    return { cells, firstRenderDiffers, bytes: { doc: doc.length, base: states.base.length, matrix: states.matrix.length } };
  } finally {
    await context.close();
  }
}

async function newPage(context) {
  const page = await context.newPage();
  await page.addInitScript(harness);
  page.on('pageerror', (e) => console.error(`perf: page error: ${e.message}`));
  return page;
}

/** One load: navigation → result in the DOM / next frame, FCP, LCP (and when the wasm's response ended). */
async function load(page, url) {
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__perf?.load?.frame != null, null, { timeout: 30000, polling: 50 });
  await settle(page);
  return page.evaluate(() => {
    const P = window.__perf;
    const wasm = performance.getEntriesByType('resource').find((e) => e.name.endsWith('.wasm'));
    const nav = performance.getEntriesByType('navigation')[0];
    return { dom: P.load.dom, frame: P.load.frame, fcp: P.fcp, lcp: P.lcp, wasm: wasm ? wasm.responseEnd : null,
      type: nav?.type, responseEnd: nav?.responseEnd, dcl: nav?.domContentLoadedEventStart };
  });
}

async function interact(page, event, spec, act) {
  await page.evaluate(([e, s]) => window.__perf.arm(e, s), [event, spec]);
  await act();
  return page.evaluate(() => window.__perf.pending);
}

// ---------- statistics and formatting ----------
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(0.95 * xs.length) - 1)];
const ms = (x) => (x == null || Number.isNaN(x) ? '—' : x < 10 ? x.toFixed(2) : x.toFixed(1));
const clean = (xs) => xs.filter((x) => typeof x === 'number' && Number.isFinite(x));

// ---------- Lighthouse ----------
const LH_FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const LH_METRICS = { 'first-contentful-paint': 'FCP', 'largest-contentful-paint': 'LCP', 'total-blocking-time': 'TBT',
  'cumulative-layout-shift': 'CLS', 'speed-index': 'SI', 'interactive': 'TTI' };

async function lighthouseRun(url, preset, file) {
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import('chrome-launcher');
  const config = preset === 'desktop' ? (await import('lighthouse/core/config/desktop-config.js')).default : undefined;
  const chrome = await chromeLauncher.launch({ chromePath: process.env.CHROME_PATH ?? CHROMIUM, chromeFlags: LH_FLAGS, logLevel: 'silent' });
  try {
    const result = await lighthouse(url, { port: chrome.port, output: 'json', logLevel: 'error' }, config);
    fs.writeFileSync(file, result.report);
    const lhr = result.lhr;
    const scores = Object.fromEntries(Object.entries(lhr.categories).map(([k, c]) => [k, c.score == null ? null : Math.round(c.score * 100)]));
    const metrics = Object.fromEntries(Object.entries(LH_METRICS).map(([id, name]) => [name, lhr.audits[id]?.numericValue ?? null]));
    const flagged = [];
    for (const cat of ['performance', 'accessibility', 'best-practices', 'seo']) {
      for (const ref of lhr.categories[cat]?.auditRefs ?? []) {
        const a = lhr.audits[ref.id];
        if (!a || a.score == null || a.score >= 1 || ['notApplicable', 'manual', 'informative'].includes(a.scoreDisplayMode)) continue;
        if (cat === 'performance' && ['metrics', 'hidden'].includes(ref.group)) continue; // the metrics, reported as numbers
        const item = (i) => [i.node?.snippet ?? i.url ?? i.scriptUrl ?? i.source?.url ?? i.description ?? '',
          ...(i.subItems?.items ?? []).map((x) => x.error ?? '')].filter(Boolean).join(': ');
        flagged.push({ category: cat, id: a.id, title: a.title, score: a.score, weight: ref.weight, display: a.displayValue ?? '',
          items: (a.details?.items ?? []).slice(0, 5).map(item).filter(Boolean).map((x) => x.replaceAll(new URL(url).origin, '')) });
      }
    }
    const errors = Object.values(lhr.audits).filter((a) => a.scoreDisplayMode === 'error').map((a) => `${a.id}: ${a.errorMessage}`);
    const t = lhr.configSettings.throttling;
    const setting = `${lhr.configSettings.formFactor}, ${lhr.configSettings.throttlingMethod} throttling: ${t.rttMs} ms RTT, `
      + `${(t.throughputKbps / 1024).toFixed(1)} Mbit/s, CPU ×${t.cpuSlowdownMultiplier}`;
    return { scores, metrics, flagged, errors, setting, warnings: lhr.runWarnings ?? [], runtimeError: lhr.runtimeError?.message ?? null,
      lighthouse: lhr.lighthouseVersion, userAgent: lhr.environment?.hostUserAgent ?? '' };
  } finally {
    await chrome.kill();
  }
}

// ---------- main ----------
async function main() {
  if (!fs.existsSync(path.join(dist, 'index.html'))) throw new Error(`${dist}/index.html is missing`);
  fs.mkdirSync(OUT, { recursive: true });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'qpath-perf-'));
  fs.cpSync(dist, root, { recursive: true });
  const started = nodePerf.now();
  const load0 = os.loadavg();
  const say = (s) => console.error(`[perf ${((nodePerf.now() - started) / 1000).toFixed(0).padStart(3)} s] ${s}`);
  const server = await startServer(root, ['--gzip', '--etag']);
  let browser;
  const samples = {}; // row id → { qpath: [], floor: [] }
  const add = (id, who, x) => { ((samples[id] ??= { qpath: [], floor: [] })[who]).push(x); };
  let floorInfo;
  let lh = {};
  let version = '';
  try {
    browser = await launchChromium();
    version = browser.version();
    const url = server.url;
    const pages = { qpath: `${url}/`, floor: `${url}/floor.html`, live: `${url}/floor-live.html` };
    say(`serving a copy of ${dist} at ${url} (pid ${server.pid}); Chromium ${version}; ${RUNS} runs`);
    floorInfo = await makeFloor(browser, url, root);
    say(`floor pages generated (document ${floorInfo.bytes.doc} B, matrix answer ${floorInfo.bytes.matrix} B, ${floorInfo.cells} cells)`);

    // 1. Loads: cold (fresh context) then warm (second load in the same context), qpath and floor interleaved.
    for (let i = 0; i < RUNS; i++) {
      for (const who of ['qpath', 'floor']) {
        const context = await browser.newContext();
        try {
          const first = await newPage(context);
          const cold = await load(first, pages[who]);
          await first.close();
          const warm = await load(await newPage(context), pages[who]);
          for (const [k, v] of Object.entries({ 'load-dom': cold.dom, 'load-frame': cold.frame, fcp: cold.fcp, lcp: cold.lcp,
            'load-dom-warm': warm.dom, 'load-frame-warm': warm.frame, 'lcp-warm': warm.lcp, 'doc-cold': cold.responseEnd,
            'doc-warm': warm.responseEnd })) add(k, who, v);
          if (cold.type !== 'navigate' || warm.type !== 'navigate') throw new Error(`navigation types ${cold.type}, ${warm.type}`);
          if (who === 'qpath') add('wasm', who, cold.wasm);
        } finally {
          await context.close();
        }
      }
    }
    say('loads done');

    // 2. Input changes and 3. the matrix, on one page each (qpath, then the floor's live page).
    for (const who of ['qpath', 'floor']) {
      const context = await browser.newContext();
      try {
        const page = await newPage(context);
        await load(page, who === 'qpath' ? pages.qpath : pages.live);
        // --kv-cache-dtype: fp8 ⇄ auto in the select.
        for (let i = 0; i < WARMUP + 2 * RUNS; i++) {
          const to = i % 2 === 0 ? 'auto' : 'fp8';
          const r = await interact(page, 'change', KV[to], () => page.selectOption('#kv-cache-dtype', to));
          if (i >= WARMUP) { add('kv-dom', who, r.dom); add('kv-frame', who, r.frame); }
        }
        // GPU: L4 ⇄ H100 SXM5, a click in the GPU list.
        await page.click('details.gpu-browser > summary');
        await waitFor(page, { sel: pick('h100-sxm') });
        for (let i = 0; i < WARMUP + 2 * RUNS; i++) {
          const to = i % 2 === 0 ? 'h100-sxm' : 'l4';
          const r = await interact(page, 'click', GPU[to], () => page.click(pick(to)));
          if (i >= WARMUP) { add('gpu-dom', who, r.dom); add('gpu-frame', who, r.frame); }
        }
        // Matrix: click the tab; back to Explain untimed.
        for (let i = 0; i < 1 + RUNS; i++) {
          const r = await interact(page, 'click', { sel: '#matrix-table button.cell', count: floorInfo.cells }, () => page.click('#tab-matrix'));
          if (i >= 1) { add('matrix-dom', who, r.dom); add('matrix-frame', who, r.frame); }
          await page.click('#tab-explain');
          await waitFor(page, LOADED);
          await settle(page);
        }
      } finally {
        await context.close();
      }
      say(`input changes and matrix done (${who})`);
    }
    await browser.close();
    browser = null;

    // 6. Lighthouse: qpath and the floor page, mobile (default) and desktop presets.
    if (LIGHTHOUSE) {
      for (const [who, u] of [['qpath', pages.qpath], ['floor', pages.floor]]) {
        for (const preset of ['mobile', 'desktop']) {
          const file = path.join(OUT, `lighthouse-${who}-${preset}.json`);
          lh[`${who}-${preset}`] = await lighthouseRun(u, preset, file);
          say(`lighthouse ${who} ${preset} done → ${path.relative(repo, file)}`);
        }
      }
    }
  } finally {
    if (browser) await browser.close().catch(() => {});
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
  const notFound = server.log.filter((l) => / 404 /.test(l) && !l.startsWith('GET /robots.txt ')); // Lighthouse's SEO probe
  if (notFound.length) console.error(`perf: the server answered 404 to:\n${notFound.join('\n')}`);

  // ---------- report ----------
  const rows = [
    ['1', 'doc-cold', 'navigation → HTML response end (cold)'],
    ['1', 'load-dom', 'navigation → first result card in the DOM (cold)'],
    ['1', 'load-frame', 'navigation → first result card, next frame (cold)'],
    ['1', 'fcp', 'First Contentful Paint (cold)'],
    ['1', 'lcp', 'Largest Contentful Paint (cold)'],
    ['1', 'wasm', 'navigation → wasm response end (cold)'],
    ['1', 'load-dom-warm', 'navigation → first result card in the DOM (warm)'],
    ['1', 'load-frame-warm', 'navigation → first result card, next frame (warm)'],
    ['1', 'lcp-warm', 'Largest Contentful Paint (warm)'],
    ['2', 'kv-dom', '--kv-cache-dtype fp8 ⇄ auto (select) → results in the DOM'],
    ['2', 'kv-frame', '--kv-cache-dtype fp8 ⇄ auto (select) → next frame'],
    ['2', 'gpu-dom', 'GPU L4 ⇄ H100 SXM5 (click in the GPU list) → results in the DOM'],
    ['2', 'gpu-frame', 'GPU L4 ⇄ H100 SXM5 (click in the GPU list) → next frame'],
    ['3', 'matrix-dom', `matrix tab click → all ${floorInfo.cells} cells in the DOM`],
    ['3', 'matrix-frame', 'matrix tab click → next frame'],
  ];
  const lines = [];
  const loadEnd = os.loadavg();
  lines.push(`# qpath speed in headless Chromium (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`, '');
  const rel = path.relative(repo, dist);
  lines.push(`Site: \`${rel && !rel.startsWith('..') ? rel : dist}\`, served gzip -9 on 127.0.0.1. Chromium ${version} (${CHROMIUM}, headless, 1280×720); `
    + `${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; load average ${load0.map((x) => x.toFixed(2)).join(' ')} at start, `
    + `${loadEnd.map((x) => x.toFixed(2)).join(' ')} at end. ${RUNS} runs per load measure, ${2 * RUNS} changes per input measure `
    + `(after ${WARMUP} warm-up changes), ${RUNS} matrix renders (after 1 warm-up). Times in ms; p95 is the nearest-rank 95th percentile; `
    + 'ratio = qpath median / floor median.', '');
  lines.push('| # | measure | qpath median | qpath p95 | floor median | floor p95 | ratio | n |', '|---|---|---:|---:|---:|---:|---:|---:|');
  const summary = {};
  for (const [n, id, label] of rows) {
    const q = clean(samples[id]?.qpath ?? []);
    const f = clean(samples[id]?.floor ?? []);
    const s = { qpath: q.length ? { median: median(q), p95: p95(q) } : null, floor: f.length ? { median: median(f), p95: p95(f) } : null };
    summary[id] = s;
    const ratio = s.qpath && s.floor && s.floor.median > 0 ? `${(s.qpath.median / s.floor.median).toFixed(1)}×` : '—';
    lines.push(`| ${n} | ${label} | ${ms(s.qpath?.median)} | ${ms(s.qpath?.p95)} | ${ms(s.floor?.median)} | ${ms(s.floor?.p95)} | ${ratio} | ${q.length} |`);
  }
  if (LIGHTHOUSE) {
    lines.push('', `## Lighthouse ${Object.values(lh)[0]?.lighthouse ?? ''}`, '');
    for (const preset of ['mobile', 'desktop']) {
      const r = lh[`qpath-${preset}`];
      if (r) lines.push(`- ${preset} (${preset === 'mobile' ? 'default config' : 'desktop-config'}): ${r.setting}`);
    }
    lines.push('');
    lines.push('| page | preset | performance | accessibility | best practices | SEO | FCP ms | LCP ms | TBT ms | CLS | SI ms |', '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [key, r] of Object.entries(lh)) {
      const [who, preset] = key.split('-');
      const sc = r.scores;
      const m = r.metrics;
      lines.push(`| ${who === 'qpath' ? 'qpath (index.html)' : 'floor (floor.html)'} | ${preset} | ${sc.performance ?? '—'} | ${sc.accessibility ?? '—'} | ${sc['best-practices'] ?? '—'} | ${sc.seo ?? '—'} | `
        + `${m.FCP?.toFixed(0) ?? '—'} | ${m.LCP?.toFixed(0) ?? '—'} | ${m.TBT?.toFixed(0) ?? '—'} | ${m.CLS?.toFixed(3) ?? '—'} | ${m.SI?.toFixed(0) ?? '—'} |`);
    }
    lines.push('', 'Audits below a full score (performance opportunities and the other categories; the metrics are above):', '');
    for (const [key, r] of Object.entries(lh)) {
      lines.push(`- **${key}**${r.runtimeError ? ` runtime error: ${r.runtimeError}` : ''}`);
      for (const f of r.flagged) {
        const items = f.items.map((i) => `\`${String(i).slice(0, 120).replace(/`/g, "'")}\``).join(', ');
        lines.push(`  - ${f.category}${f.weight ? '' : ' (weight 0: not in the score)'}: \`${f.id}\` ${f.title}`
          + `${f.display ? ` (${f.display})` : ''}${items ? `: ${items}` : ''}`);
      }
      if (!r.flagged.length) lines.push('  - none');
      const byMessage = {};
      for (const e of r.errors) { const [id, ...m] = e.split(': '); (byMessage[m.join(': ')] ??= []).push(id); }
      for (const [m, ids] of Object.entries(byMessage)) lines.push(`  - audits that errored (${ids.map((i) => `\`${i}\``).join(', ')}): ${m}`);
      for (const w of r.warnings) lines.push(`  - run warning: ${w}`);
    }
  }
  const statuses = {};
  for (const l of server.log) { const st = l.split(' ')[2]; statuses[st] = (statuses[st] ?? 0) + 1; }
  lines.push('', `Server: ${server.log.length} requests (${Object.entries(statuses).map(([k, v]) => `${v} × ${k}`).join(', ')}).`);
  const md = lines.join('\n') + '\n';
  fs.writeFileSync(path.join(OUT, 'perf.md'), md);
  fs.writeFileSync(path.join(OUT, 'perf.json'), JSON.stringify({ dist, chromium: version, runs: RUNS, cpus: os.cpus().length,
    loadavg: { start: load0, end: loadEnd }, floor: floorInfo, summary, samples, lighthouse: lh }, null, 1));
  console.log(md);
  say(`wrote ${path.relative(repo, path.join(OUT, 'perf.md'))} and perf.json`);
}

main().catch((e) => {
  console.error(`perf: ${e.stack ?? e}`);
  process.exit(1);
});
