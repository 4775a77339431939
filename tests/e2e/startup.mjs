// qpath's start-up in headless Chromium: navigation → the first result card, cold, with and without 4× CPU
// throttling, and the matrix tab → all its cells in the DOM. A benchmark (issue 22, item 5): it prints and writes figures and
// asserts none of them (it fails only when the page does not reach the state it waits for).
//   node tests/e2e/startup.mjs [DIST ...]      (scripts/startup.sh [DIST ...] checks the prerequisites first)
// A DIST may be written NAME=DIR to name it in the table; several DISTs are measured alternately (a before/after
// comparison on a noisy machine: each round loads every site once before the next round starts).
// Env: QPATH_STARTUP_RUNS (default 9) cold loads per site and setting; QPATH_STARTUP_MATRIX (default 5) matrix clicks
// per site and setting (the first is warm-up); QPATH_STARTUP_RATES (default "1,4") the CPU throttling rates.
// Writes tests/e2e/out/startup.md (the table) and startup.json (every sample).
//
// Served and driven as tests/e2e/perf.mjs does: each DIST is copied to a temporary directory and served with --gzip
// --etag by serve-dist.mjs on 127.0.0.1 (stopped by its PID); Debian's Chromium through playwright-core (headless,
// 1280×720). Throttling: a CDP session opened on the page before it navigates sends Emulation.setCPUThrottlingRate;
// a fixed JS loop timed in the loaded page checks that the rate took effect.
//
// Measures (performance.now() in the page; origin = navigation start, performance.timeOrigin):
//   cold load  a fresh browser context (empty HTTP and code caches) per load, one unrecorded load per site first.
//              card = a MutationObserver (installed by page.addInitScript before the page's own code) first sees
//              `section.results article.group`; frame = the next frame after it (a requestAnimationFrame callback
//              posts a MessageChannel message, which runs after that frame's style, layout and paint), as perf.mjs.
//              Breakdown: HTML response end, the first subresource request, the JS glue (qpath-web.js) and the last
//              CSS/JS response (Resource Timing: the module script runs once the parser is done, and the parser waits
//              for the classic script at the end of the body), DOMContentLoaded, the wasm response end,
//              WebAssembly.instantiateStreaming called and "wasm ready", its promise settling (both wrapped by the
//              init script: compilation and instantiation done, before wasm-bindgen calls the Rust start function),
//              "started" = trunk's TrunkApplicationStarted event (init() returned: the Rust start function has run).
//              startup.json keeps every resource's start, response start and end. (The Long Tasks API proved
//              unreliable under throttling here, often no entry for a 300 ms start-up task, so it is not used.)
//   matrix     on one loaded page per site and setting: click `#tab-matrix` (the event's dispatch, a capture listener)
//              → `#matrix-table` has all its cells (`button.cell`, counted after the warm-up round) in the DOM, and → the
//              next frame; `#tab-explain` is clicked back between rounds (untimed). The first round is warm-up.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance as nodePerf } from 'node:perf_hooks';
import { startServer, launchChromium, CHROMIUM, here, repo } from './lib.mjs';

const args = process.argv.slice(2);
const sites = (args.length ? args : [path.join(repo, 'dist')]).map((a) => {
  const m = /^([^=/]+)=(.+)$/.exec(a);
  const dir = path.resolve(m ? m[2] : a);
  const rel = path.relative(repo, dir);
  return { name: m ? m[1] : (rel && !rel.startsWith('..') ? rel : dir), dir };
});
const RUNS = Math.max(1, Number.parseInt(process.env.QPATH_STARTUP_RUNS ?? '9', 10) || 9);
const MATRIX = Math.max(2, Number.parseInt(process.env.QPATH_STARTUP_MATRIX ?? '5', 10) || 5);
const RATES = (process.env.QPATH_STARTUP_RATES ?? '1,4').split(',').map(Number).filter((x) => x >= 1);
const OUT = path.join(here, 'out');
const CARD = 'section.results article.group';

/** Injected into every page before its own code (restated from perf.mjs's harness, plus the wasm and start marks). */
function harness() {
  const P = { load: {}, fcp: null };
  window.__startup = P;
  const now = () => performance.now();
  P.afterFrame = (cb) => requestAnimationFrame(() => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => cb(now());
    ch.port2.postMessage(null);
  });
  const loadObserver = new MutationObserver(() => {
    if (P.load.dom != null || !document.querySelector('section.results article.group')) return;
    P.load.dom = now();
    loadObserver.disconnect();
    P.afterFrame((t) => { P.load.frame = t; });
  });
  loadObserver.observe(document, { childList: true, subtree: true });
  // When the wasm module is compiled and instantiated: wrap the two entry points wasm-bindgen's glue uses.
  for (const name of ['instantiateStreaming', 'instantiate']) {
    const orig = WebAssembly[name];
    if (typeof orig !== 'function') continue;
    WebAssembly[name] = function (...a) {
      P.load.wasmCall ??= now();
      return orig.apply(this, a).then((r) => { P.load.wasmReady ??= now(); return r; });
    };
  }
  addEventListener('TrunkApplicationStarted', () => { P.load.started ??= now(); });
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') P.fcp = e.startTime;
    }).observe({ type: 'paint', buffered: true });
  } catch { /* no paint timing: FCP stays null */ }
  // Before a click: time from the event's dispatch to `count` matches of `sel` in the DOM, and to the next frame.
  P.arm = (event, sel, count) => {
    let t0 = null;
    const onEvent = () => { if (t0 == null) t0 = now(); };
    addEventListener(event, onEvent, { capture: true });
    P.pending = new Promise((resolve, reject) => {
      const observer = new MutationObserver(() => {
        if (t0 == null || document.querySelectorAll(sel).length < count) return;
        const dom = now();
        observer.disconnect();
        clearTimeout(timer);
        removeEventListener(event, onEvent, { capture: true });
        P.afterFrame((frame) => resolve({ dom: dom - t0, frame: frame - t0 }));
      });
      const timer = setTimeout(() => {
        observer.disconnect();
        reject(new Error(`after ${event}: ${count} × ${sel} never appeared (dispatched: ${t0 != null})`));
      }, 15000);
      observer.observe(document.documentElement, { childList: true, subtree: true, characterData: true, attributes: true });
    });
  };
}

const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50)))));
// A fixed amount of JS work, timed in the page: about rate× longer when the CPU throttling took effect.
const spin = (page) => page.evaluate(() => {
  const t = performance.now();
  let x = 0;
  for (let i = 0; i < 3e6; i++) x = (x + i * 7) % 1000003;
  return performance.now() - t + (x < 0 ? 1 : 0);
});

async function newPage(context, rate) {
  const page = await context.newPage();
  await page.addInitScript(harness);
  page.on('pageerror', (e) => console.error(`startup: page error: ${e.message}`));
  if (rate > 1) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate });
  }
  return page;
}

/** One cold load: navigation → first card in the DOM / next frame, and where the time went before it. */
async function load(page, url) {
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__startup?.load?.frame != null, null, { timeout: 30000, polling: 50 });
  await settle(page);
  return page.evaluate(() => {
    const P = window.__startup;
    const res = performance.getEntriesByType('resource');
    const wasm = res.filter((e) => e.name.endsWith('.wasm'));
    const glue = res.find((e) => /\/qpath-web\.js$/.test(e.name));
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      type: nav?.type, html: nav?.responseEnd, dcl: nav?.domContentLoadedEventStart, glue: glue?.responseEnd ?? null,
      firstRequest: res.length ? Math.min(...res.map((e) => e.startTime)) : null,
      lastOther: Math.max(0, ...res.filter((e) => !e.name.endsWith('.wasm') && e.startTime < (nav?.domContentLoadedEventStart ?? 0))
        .map((e) => e.responseEnd)) || null,
      resources: res.map((e) => [e.name.replace(location.origin, ''), e.startTime, e.responseStart, e.responseEnd, e.transferSize]),
      wasmStart: wasm[0]?.requestStart ?? null, wasm: wasm[0]?.responseEnd ?? null, wasmFetches: wasm.length,
      wasmBytes: wasm[0]?.transferSize ?? null, wasmCall: P.load.wasmCall ?? null, wasmReady: P.load.wasmReady ?? null,
      started: P.load.started ?? null, dom: P.load.dom, frame: P.load.frame, fcp: P.fcp,
    };
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length ? (s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) : null;
};
const clean = (xs) => xs.filter((x) => typeof x === 'number' && Number.isFinite(x));
const ms = (x) => (x == null || Number.isNaN(x) ? '—' : x < 10 ? x.toFixed(2) : x.toFixed(0));
const stat = (xs) => { const c = clean(xs); return c.length ? { median: median(c), min: Math.min(...c), max: Math.max(...c), n: c.length } : null; };
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').trim().split(/\s+/).slice(0, 3).join(' ');

async function main() {
  for (const s of sites) if (!fs.existsSync(path.join(s.dir, 'index.html'))) throw new Error(`${s.dir}/index.html is missing`);
  fs.mkdirSync(OUT, { recursive: true });
  const started = nodePerf.now();
  const load0 = loadavg();
  const say = (x) => console.error(`[startup ${((nodePerf.now() - started) / 1000).toFixed(0).padStart(3)} s] ${x}`);
  const roots = [];
  const servers = [];
  let browser;
  // samples[site][rate] = { loads: [...], matrix: [...], cells, spin: [...] }
  const samples = Object.fromEntries(sites.map((s) => [s.name, Object.fromEntries(RATES.map((r) => [r, { loads: [], matrix: [], cells: null, spin: [] }]))]));
  let version = '';
  try {
    for (const s of sites) {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), 'qpath-startup-'));
      roots.push(root);
      fs.cpSync(s.dir, root, { recursive: true });
      const server = await startServer(root, ['--gzip', '--etag']);
      servers.push(server);
      s.url = `${server.url}/`;
      s.wasmSize = fs.readdirSync(s.dir).filter((f) => f.endsWith('.wasm')).map((f) => fs.statSync(path.join(s.dir, f)).size)[0] ?? null;
    }
    browser = await launchChromium();
    version = browser.version();
    say(`Chromium ${version}; ${sites.map((s) => `${s.name} at ${s.url}`).join(', ')}; load average ${load0}`);
    // One unrecorded load per site: the browser's own first-use costs (processes, disk) stay out of the samples.
    for (const s of sites) {
      const context = await browser.newContext();
      try { await load(await newPage(context, 1), s.url); } finally { await context.close(); }
    }

    for (const rate of RATES) {
      for (let i = 0; i < RUNS; i++) {
        for (const s of (i % 2 ? [...sites].reverse() : sites)) {
          const context = await browser.newContext();
          try {
            const page = await newPage(context, rate);
            const r = await load(page, s.url);
            if (r.type !== 'navigate') throw new Error(`navigation type ${r.type}`);
            samples[s.name][rate].loads.push(r);
            if (i === 0) samples[s.name][rate].spin.push(await spin(page));
          } finally {
            await context.close();
          }
        }
      }
      say(`cold loads at ${rate}× done`);
      for (const s of sites) {
        const context = await browser.newContext();
        const m = samples[s.name][rate];
        try {
          const page = await newPage(context, rate);
          await load(page, s.url);
          for (let i = 0; i < MATRIX; i++) {
            const count = m.cells ?? 1;
            await page.evaluate(([sel, n]) => window.__startup.arm('click', sel, n), ['#matrix-table button.cell', count]);
            await page.click('#tab-matrix');
            const r = await page.evaluate(() => window.__startup.pending);
            await settle(page);
            if (i === 0) m.cells = await page.evaluate(() => document.querySelectorAll('#matrix-table button.cell').length);
            else m.matrix.push(r);
            await page.click('#tab-explain');
            await page.waitForSelector(CARD, { timeout: 30000 });
            await settle(page);
          }
          m.spin.push(await spin(page));
        } finally {
          await context.close();
        }
      }
      say(`matrix at ${rate}× done`);
    }
    await browser.close();
    browser = null;
  } finally {
    if (browser) await browser.close().catch(() => {});
    for (const server of servers) await server.stop();
    for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
  }
  const load1 = loadavg();
  const bad = servers.flatMap((s) => s.log.filter((l) => !/ (200|304) /.test(l)));
  if (bad.length) console.error(`startup: the server answered:\n${bad.join('\n')}`);

  // ---------- report ----------
  const rows = [
    ['html', 'HTML response end'],
    ['firstRequest', 'first subresource request starts'],
    ['glue', 'JS glue (qpath-web.js) response end'],
    ['lastOther', 'last CSS/JS response end (requested before DCL)'],
    ['dcl', 'DOMContentLoaded (the module script ran)'],
    ['wasm', 'wasm response end'],
    ['wasmCall', 'WebAssembly.instantiateStreaming called'],
    ['wasmReady', 'wasm compiled + instantiated'],
    ['started', 'TrunkApplicationStarted (Rust start returned)'],
    ['dom', '**first result card in the DOM**'],
    ['frame', 'first result card, next frame'],
    ['fcp', 'First Contentful Paint'],
    ['card-ready', 'card in the DOM − wasm ready'],
  ];
  const value = (r, id) => (id === 'card-ready' ? (r.wasmReady == null ? null : r.dom - r.wasmReady) : r[id]);
  const summary = {};
  const lines = [];
  lines.push(`# qpath start-up in headless Chromium (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`, '');
  lines.push(`Chromium ${version} (${CHROMIUM}, headless, 1280×720), served gzip -9 on 127.0.0.1; ${os.cpus().length} cores; `
    + `load average ${load0} at start, ${load1} at end (/proc/loadavg: 1, 5, 15 min). ${RUNS} cold loads per site and CPU setting `
    + `(fresh context each, sites alternated); ${MATRIX - 1} matrix clicks after 1 warm-up. Times in ms from navigation start: `
    + 'median (min–max).', '');
  const head = ['measure', ...RATES.flatMap((rate) => sites.map((s) => `${s.name}${rate > 1 ? ` ${rate}× CPU` : ''}`))];
  lines.push(`| ${head.join(' | ')} |`, `|---|${head.slice(1).map(() => '---:').join('|')}|`);
  for (const [id, label] of rows) {
    const cells = [];
    for (const rate of RATES) {
      for (const s of sites) {
        const st = stat(samples[s.name][rate].loads.map((r) => value(r, id)));
        ((summary[s.name] ??= {})[rate] ??= {})[id] = st;
        cells.push(st ? `${ms(st.median)} (${ms(st.min)}–${ms(st.max)})` : '—');
      }
    }
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  }
  for (const [id, label] of [['dom', 'matrix click → all cells in the DOM'], ['frame', 'matrix click → next frame']]) {
    const cells = [];
    for (const rate of RATES) {
      for (const s of sites) {
        const m = samples[s.name][rate];
        const st = stat(m.matrix.map((r) => r[id]));
        summary[s.name][rate][`matrix-${id}`] = st;
        cells.push(st ? `${ms(st.median)} (${ms(st.min)}–${ms(st.max)})` : '—');
      }
    }
    const n = sites.map((s) => samples[s.name][RATES[0]].cells);
    lines.push(`| ${label} (${[...new Set(n)].join('/')} cells) | ${cells.join(' | ')} |`);
  }
  lines.push('');
  for (const s of sites) {
    const spins = RATES.map((rate) => `${rate}×: ${samples[s.name][rate].spin.map(ms).join(', ')} ms`).join('; ');
    const l0 = samples[s.name][RATES[0]].loads[0];
    lines.push(`- ${s.name}: ${s.dir}; wasm ${s.wasmSize} B (${l0?.wasmBytes ?? '?'} B transferred, fetched ${l0?.wasmFetches ?? '?'}×); `
      + `throttling check (a fixed JS loop): ${spins}.`);
  }
  const md = lines.join('\n') + '\n';
  fs.writeFileSync(path.join(OUT, 'startup.md'), md);
  fs.writeFileSync(path.join(OUT, 'startup.json'), JSON.stringify({ chromium: version, runs: RUNS, matrixRounds: MATRIX, rates: RATES,
    cpus: os.cpus().length, loadavg: { start: load0, end: load1 }, sites: sites.map(({ name, dir, wasmSize }) => ({ name, dir, wasmSize })),
    summary, samples }, null, 1));
  console.log(md);
  say(`wrote ${path.relative(repo, path.join(OUT, 'startup.md'))} and startup.json`);
}

main().catch((e) => {
  console.error(`startup: ${e.stack ?? e}`);
  process.exit(1);
});
