// The fix finder, the release timeline and explain-log in a real browser: time from the user's action to the rendered
// answer. A benchmark (BENCHMARKS.md, "Fix finder, timeline and explain-log in the browser"): it prints and writes
// figures and asserts none (it fails only when the page does not reach the state it waits for).
//   node tests/e2e/features.mjs [DIST]       (scripts/perf.sh runs it after perf.mjs; QPATH_PERF_FEATURES=0 skips it)
// Env: QPATH_PERF_RUNS (default 20) timed actions per case. Writes tests/e2e/out/features.md.
//
// Each case loads the page at a scenario that serves, then times (performance.now() in the page) from the moment the
// action's event starts dispatching (a capture-phase listener on window) to the first MutationObserver callback after
// which the answer is in the DOM ("DOM"), and to the next frame after it (a requestAnimationFrame callback that posts
// a MessageChannel message: that frame's style, layout and paint are done; "frame"). Then it undoes the action (not
// timed). The first two actions of each case are warm-up.
//   fix      the command line becomes the failing one (an `input` event on #command-line, as a paste) → the "How to make
//            it run" panel lists its first suggestion. The whole search runs in that step (qpath_core::fix::find).
//   timeline a click on the "Release timeline" tab → every release's row is in the table.
//   log      a paste of a real log into the "Explain a log" area → the line-by-line table is there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, launchChromium, here, repo } from './lib.mjs';

const dist = path.resolve(process.argv[2] ?? path.join(repo, 'dist'));
const RUNS = Math.max(3, Number.parseInt(process.env.QPATH_PERF_RUNS ?? '20', 10) || 20);
const WARMUP = 2;
const LLAMA = 'vllm serve meta-llama/Llama-3.1-8B-Instruct';
const hashOf = (gpu, vllm, cmd) => `#gpu=${gpu}&vllm=${vllm}&cmd=${new URLSearchParams({ cmd }).toString().slice(4)}`;

// The seed story and three failing cases of crates/qpath-core/tests/golden_fix.rs: [name, gpu, release, serving line,
// failing line].
const FIX_CASES = [
  ['seed story (L4, 0.25.0-prefix, --kv-cache-dtype fp8)', 'l4', '0.25.0-prefix', LLAMA, `${LLAMA} --kv-cache-dtype fp8`],
  ['FA2 + FP8 on A100 (0.33.0)', 'a100-80gb', '0.33.0', `${LLAMA} --attention-backend FLASH_ATTN`,
    `${LLAMA} --attention-backend FLASH_ATTN --kv-cache-dtype fp8`],
  ['gpt-oss sink refusal (L4, 0.33.0)', 'l4', '0.33.0', 'vllm serve openai/gpt-oss-20b',
    'vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER'],
  ['CUDA-graph downgrade with n-gram spec decode (H100, 0.29.0)', 'h100-sxm', '0.29.0', `${LLAMA} --attention-backend FLASHINFER`,
    `${LLAMA} --attention-backend FLASHINFER --speculative-config '{"method": "ngram", "num_speculative_tokens": 3}'`],
];
const LOG = fs.readFileSync(path.join(repo, 'crates/qpath-core/tests/fixtures/logs/rtx5090-qwen3-8b-fp8-flashinfer-jit.log'), 'utf8');

/** Injected before the page's code: arm(event, selector, minCount) then the action; `pending` gets { dom, frame }. */
function harness() {
  const P = {};
  window.__feat = P;
  const now = () => performance.now();
  P.arm = (event, sel, min) => {
    P.pending = null;
    const r = { start: null, dom: null, frame: null };
    const done = () => document.querySelectorAll(sel).length >= min;
    const onEvent = () => {
      if (r.start != null) return;
      r.start = now();
      const mo = new MutationObserver(() => {
        if (r.dom != null || !done()) return;
        r.dom = now() - r.start;
        mo.disconnect();
        requestAnimationFrame(() => {
          const ch = new MessageChannel();
          ch.port1.onmessage = () => { r.frame = now() - r.start; P.pending = r; };
          ch.port2.postMessage(null);
        });
      });
      mo.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true });
    };
    window.addEventListener(event, onEvent, { capture: true, once: true });
  };
}

async function timed(page, event, sel, min, act) {
  await page.evaluate(([e, s, m]) => window.__feat.arm(e, s, m), [event, sel, min]);
  await act();
  await page.waitForFunction(() => window.__feat.pending != null, null, { timeout: 30000, polling: 20 });
  return page.evaluate(() => window.__feat.pending);
}

async function setCommand(page, line) {
  await page.evaluate((l) => {
    const a = document.querySelector('#command-line');
    a.value = l;
    a.dispatchEvent(new Event('input', { bubbles: true }));
  }, line);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(0.95 * xs.length) - 1)];
const ms = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1));

async function main() {
  if (!fs.existsSync(path.join(dist, 'index.html'))) throw new Error(`${dist}/index.html is missing`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'qpath-features-'));
  fs.cpSync(dist, root, { recursive: true });
  const load0 = os.loadavg();
  const server = await startServer(root, ['--gzip']);
  const browser = await launchChromium();
  const rows = [];
  try {
    const open = async (hash) => {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await page.addInitScript(harness);
      page.on('pageerror', (e) => console.error(`features: page error: ${e.message}`));
      await page.goto(`${server.url}/${hash}`);
      await page.waitForSelector('section.results article.group', { timeout: 30000 });
      return page;
    };
    for (const [name, gpu, vllm, ok, failing] of FIX_CASES) {
      const page = await open(hashOf(gpu, vllm, ok));
      const dom = [];
      const frame = [];
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const r = await timed(page, 'input', 'section.fixes li.fix', 1, () => setCommand(page, failing));
        if (i >= WARMUP) { dom.push(r.dom); frame.push(r.frame); }
        await setCommand(page, ok);
        await page.waitForFunction(() => !document.querySelector('section.fixes'), null, { timeout: 30000 });
      }
      rows.push([`fix: ${name}`, dom, frame]);
      await page.context().close();
      console.error(`features: ${name}: median ${ms(median(frame))} ms to the next frame`);
    }
    {
      const page = await open(hashOf('l4', '0.25.0-prefix', `${LLAMA} --kv-cache-dtype fp8`));
      const releases = await page.evaluate(() => document.querySelectorAll('#release option').length);
      const dom = [];
      const frame = [];
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const r = await timed(page, 'click', '#timeline-table tbody tr', releases, () => page.click('#tab-timeline'));
        if (i >= WARMUP) { dom.push(r.dom); frame.push(r.frame); }
        await page.click('#tab-explain');
        await page.waitForSelector('section.results article.group');
      }
      rows.push([`timeline: the seed story, ${releases} releases`, dom, frame]);
      await page.context().close();
    }
    {
      const page = await open(hashOf('h100-sxm', '0.33.0', LLAMA));
      await page.click('#tab-log');
      await page.waitForSelector('#log-input');
      const dom = [];
      const frame = [];
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const r = await timed(page, 'input', '#log-rows tbody tr', 1, () => page.evaluate((t) => {
          const a = document.querySelector('#log-input');
          a.value = t;
          a.dispatchEvent(new Event('input', { bubbles: true }));
        }, LOG));
        if (i >= WARMUP) { dom.push(r.dom); frame.push(r.frame); }
        await page.evaluate(() => {
          const a = document.querySelector('#log-input');
          a.value = '';
          a.dispatchEvent(new Event('input', { bubbles: true }));
        });
        await page.waitForFunction(() => !document.querySelector('#log-rows'));
      }
      rows.push(['explain-log: paste the 0.26.0 RTX 5090 log (vllm#50705)', dom, frame]);
      await page.context().close();
    }
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
  const load1 = os.loadavg();
  const lines = [
    `Chromium, 1280×900, ${RUNS} timed actions per row after ${WARMUP} warm-up; load average ${load0.map((x) => x.toFixed(2)).join(' ')} `
      + `before, ${load1.map((x) => x.toFixed(2)).join(' ')} after (${os.cpus().length} CPUs)`,
    '',
    '| action → rendered answer | DOM median | DOM p95 | next frame median | next frame p95 |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(([n, d, f]) => `| ${n} | ${ms(median(d))} ms | ${ms(p95(d))} ms | ${ms(median(f))} ms | ${ms(p95(f))} ms |`),
  ];
  const out = path.join(here, 'out');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'features.md'), `${lines.join('\n')}\n`);
  console.log(lines.join('\n'));
}

main().catch((e) => {
  console.error(`features: ${e.stack ?? e}`);
  process.exit(1);
});
