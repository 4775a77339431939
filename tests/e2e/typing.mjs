// Typing in a long command line: the time from each key's keydown to the frame after the page has rendered it. A
// benchmark: it prints figures and asserts none (it fails only when the page does not reach the state it waits for).
//   node tests/e2e/typing.mjs [DIST]        (a release build: trunk build --release --dist DIST)
// Env: QPATH_TYPING_KEYS (default 20) keys typed at the end of each command line.
//
// For each size (10 KB, 100 KB and up to the page's cap, 256 KiB, qpath_core::serve::limits::MAX_COMMAND_LINE_BYTES), a
// fresh page gets a `vllm serve` command line whose --served-model-name is that long (pasted: one input event), then
// the keys are typed one at a time at its end (each waits for the previous key's frame). A capture-phase keydown
// listener takes performance.now(); a requestAnimationFrame callback scheduled then posts a MessageChannel message,
// which runs once that frame (after Yew's render, a microtask of the input event) is done. Prints the median and the
// worst key, and the load average of the machine. A last row types the same keys into a bare <textarea> holding the
// 100 KB command line (no page around it): the browser's own share of a key.
import os from 'node:os';
import path from 'node:path';
import { startServer, launchChromium, repo } from './lib.mjs';

const dist = path.resolve(process.argv[2] ?? path.join(repo, 'dist'));
const KEYS = Math.max(5, Number.parseInt(process.env.QPATH_TYPING_KEYS ?? '20', 10) || 20);
// The last one ends at the cap after the keys (a key past it is refused, as any input over the cap).
const SIZES = [['10 KB', 10_000], ['100 KB', 100_000], ['the cap, 256 KiB', (256 << 10) - KEYS]];

const HEAD = 'vllm serve meta-llama/Llama-3.1-8B-Instruct --served-model-name ';

// Types KEYS keys at the end of `page`'s #command-line (focused, its caret at the end), each after the previous key's
// frame; the row of `label` with the sorted latencies' median and worst and Playwright's wall time per key.
async function typeKeys(page, label, bytes) {
  await page.evaluate(() => {
    window.__latencies = [];
    addEventListener('keydown', () => {
      const t0 = performance.now();
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => window.__latencies.push(performance.now() - t0);
        ch.port2.postMessage(0);
      });
    }, true);
  });
  const wall0 = performance.now();
  for (let i = 0; i < KEYS; i++) {
    await page.keyboard.press(String.fromCharCode(97 + (i % 26)));
    await page.waitForFunction((n) => window.__latencies.length > n, i);
  }
  const wall = performance.now() - wall0;
  const typed = await page.evaluate(() => document.querySelector('#command-line').value.length);
  if (typed !== bytes + KEYS) throw new Error(`${label}: the box holds ${typed} characters, not ${bytes + KEYS}`);
  const lat = (await page.evaluate(() => window.__latencies)).sort((a, b) => a - b);
  return { label, bytes, median: lat[Math.floor(lat.length / 2)], worst: lat[lat.length - 1], wall: wall / KEYS };
}

const server = await startServer(dist);
const browser = await launchChromium();
const rows = [];
try {
  for (const [label, size] of SIZES) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/`);
    await page.waitForSelector('section.results article.group');
    const command = HEAD + 'x'.repeat(size - HEAD.length);
    await page.click('#command-line');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.insertText(command);
    await page.waitForFunction((n) => document.querySelector('#command-line').value.length === n, command.length);
    await page.waitForFunction(() => !document.querySelector('#command-error'));
    await page.keyboard.press('ControlOrMeta+End');
    rows.push(await typeKeys(page, label, command.length));
    await page.close();
  }
  // The same keys in a bare <textarea> holding the 100 KB command line, no page around it: the browser's own share.
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.setContent('<textarea id="command-line" rows="3" style="width:600px;font:14px monospace"></textarea>');
  const command = HEAD + 'x'.repeat(100_000 - HEAD.length);
  await page.click('#command-line');
  await page.keyboard.insertText(command);
  await page.keyboard.press('ControlOrMeta+End');
  rows.push(await typeKeys(page, '100 KB, a bare textarea', command.length));
  await page.close();
} finally {
  await browser.close();
  await server.stop();
}
const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`typing: ${KEYS} keys at the end of the command line, keydown → the frame after the render (ms)`);
console.log('| command line | bytes | median | worst | wall per key (Playwright) |');
console.log('|---|---:|---:|---:|---:|');
for (const r of rows) {
  console.log(`| ${r.label} | ${r.bytes} | ${r.median.toFixed(1)} | ${r.worst.toFixed(1)} | ${r.wall.toFixed(1)} |`);
}
console.log(`load average: ${load} (${os.cpus().length} CPUs)`);
