// qpath's end-to-end checks: the built site (dist/) served by serve-dist.mjs, driven in Debian's headless Chromium
// through playwright-core with real clicks, typing and reads of the DOM, plus axe-core accessibility audits.
//   node tests/e2e/e2e.mjs [DIST]       DIST defaults to <repo>/dist; scripts/e2e-test.sh runs it on dist/
//   QPATH_E2E_ONLY=seed,a11y-matrix     runs only the checks whose names contain one of these words (for debugging)
// Each check is one user story in a fresh browser context. A failed check saves a full-page screenshot to
// tests/e2e/out/<check>.png and the run goes on; the last line is "e2e: N passed, M failed" (exit 1 if M > 0).
// Expected values (error texts, Q dtypes, kernels) are the core's answers, as its golden tests
// (crates/qpath-core/tests/golden.rs) and the CLI state them; the page must show exactly those.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { here, repo, startServer, launchChromium } from './lib.mjs';

const DIST = path.resolve(process.argv[2] ?? path.join(repo, 'dist'));
const OUT = path.join(here, 'out');
const AXE = path.join(here, 'node_modules', 'axe-core', 'axe.min.js');
// The machine may have two busy cores: generous budgets, and no assertion about how long anything takes.
const TIMEOUT = 30_000;

const LLAMA = 'vllm serve meta-llama/Llama-3.1-8B-Instruct';
const SEED_CMD = `${LLAMA} --kv-cache-dtype fp8`;
const FA2_ASSERT = 'fp8 tensor core is not supported in fa2 backend';
// What vLLM 0.25.0 (the fix, #47485) logs for the seed scenario (golden.rs: seed_story_l4_fp8).
const FIXED_LOG = 'FlashInfer resolved query dtypes: prefill=torch.bfloat16, decode=torch.bfloat16, decode_backend=flashinfer-native, kv_cache_dtype=torch.float8_e4m3fn, arch=sm89';
// How many GPUs data/gpus.toml has: one matrix row each.
const GPU_COUNT = (fs.readFileSync(path.join(repo, 'data', 'gpus.toml'), 'utf8').match(/^\[\[gpu\]\]/gm) ?? []).length;

/** A page hash as src/hash.rs writes it (form-encoded: `+` for a space). */
function hashOf({ embed, gpu, vllm, cuda, cubins, cmd, config }) {
  const enc = (s) => encodeURIComponent(s).replace(/%20/g, '+');
  const parts = [];
  if (embed) parts.push('embed=1');
  if (gpu) parts.push(`gpu=${enc(gpu)}`);
  if (vllm) parts.push(`vllm=${enc(vllm)}`);
  if (cuda) parts.push(`cuda=${enc(cuda)}`);
  if (cubins) parts.push(`cubins=${enc(cubins)}`);
  if (cmd) parts.push(`cmd=${enc(cmd)}`);
  if (config) parts.push(`config=${enc(config)}`);
  return `#${parts.join('&')}`;
}

const SEED_PREFIX = hashOf({ gpu: 'l4', vllm: '0.25.0-prefix', cmd: SEED_CMD });
const SEED_FIXED = hashOf({ gpu: 'l4', vllm: '0.25.0', cmd: SEED_CMD });

// meta-llama/Llama-3.1-8B-Instruct's config.json (huggingface.co/meta-llama/Llama-3.1-8B-Instruct) with 4 layers, as
// a user pastes it (indented).
const LLAMA_CONFIG_4 = JSON.stringify({
  architectures: ['LlamaForCausalLM'], attention_bias: false, attention_dropout: 0.0, bos_token_id: 128000,
  eos_token_id: [128001, 128008, 128009], hidden_act: 'silu', hidden_size: 4096, initializer_range: 0.02,
  intermediate_size: 14336, max_position_embeddings: 131072, mlp_bias: false, model_type: 'llama',
  num_attention_heads: 32, num_hidden_layers: 4, num_key_value_heads: 8, pretraining_tp: 1, rms_norm_eps: 1e-05,
  rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
  rope_theta: 500000.0, tie_word_embeddings: false, torch_dtype: 'bfloat16', transformers_version: '4.42.3',
  use_cache: true, vocab_size: 128256,
}, null, 2);

// ---------------------------------------------------------------------------------------------------------------------
// Reading the DOM (of a page or a frame) and waiting for it.

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` until it stops throwing (an assertion), at most `timeout` ms; then throws its last error. */
async function eventually(fn, timeout = TIMEOUT) {
  const end = Date.now() + timeout;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > end) throw e;
    }
    await sleep(100);
  }
}

/** The trimmed text of the first match, or null when nothing matches. */
const text = (p, sel) => p.evaluate((s) => document.querySelector(s)?.textContent.trim() ?? null, sel);
const texts = (p, sel) => p.evaluate((s) => [...document.querySelectorAll(s)].map((e) => e.textContent.trim()), sel);
const count = (p, sel) => p.evaluate((s) => document.querySelectorAll(s).length, sel);
const value = (p, sel) => p.evaluate((s) => document.querySelector(s)?.value ?? null, sel);
const attr = (p, sel, name) => p.evaluate(([s, n]) => document.querySelector(s)?.getAttribute(n) ?? null, [sel, name]);
const hash = (p) => p.evaluate(() => location.hash);

/** A field (`q-prefill`, `kernel-decode`, …) of the first group card that shows it (the first FlashInfer group). */
const fi = (p, field) => text(p, `article.group[data-backend="FLASHINFER"] .${field}`);

/** The decision of the first FlashInfer group: [Q prefill, Q decode, prefill kernel, decode kernel]. */
const decision = async (p) => Promise.all(['q-prefill', 'q-decode', 'kernel-prefill', 'kernel-decode'].map((f) => fi(p, f)));

/** Waits until the app has rendered one of its views. */
const ready = (p) => p.waitForSelector('.qpath .results, .qpath .compare, .qpath .matrix', { timeout: TIMEOUT });

function includes(haystack, needle, what) {
  assert.ok(typeof haystack === 'string' && haystack.includes(needle), `${what}: expected ${JSON.stringify(needle)} in ${JSON.stringify(haystack)}`);
}

// ---------------------------------------------------------------------------------------------------------------------
// The run: one server, one browser, a fresh context per check.

const problems = []; // console errors, page errors, failed requests: "check: what"
let server;
let browser;

class Story {
  constructor(name) {
    this.name = name;
    this.contexts = [];
    this.page = null; // the page a failure screenshot shows
  }

  /** A fresh context (scheme = prefers-color-scheme; theme = qpath's stored choice, set before the page's scripts). */
  async context({ scheme = 'light', width = 1280, height = 900, theme, permissions = [] } = {}) {
    const context = await browser.newContext({ colorScheme: scheme, viewport: { width, height } });
    context.setDefaultTimeout(TIMEOUT);
    context.setDefaultNavigationTimeout(TIMEOUT);
    if (permissions.length) await context.grantPermissions(permissions, { origin: server.url });
    // gloo's LocalStorage keeps JSON: the stored value of "dark" is the string '"dark"'.
    // (Only on the site's pages: about:blank has no localStorage.)
    if (theme) {
      await context.addInitScript((t) => {
        if (location.protocol === 'http:') localStorage.setItem('qpath-theme', JSON.stringify(t));
      }, theme);
    }
    this.contexts.push(context);
    return context;
  }

  /** A new page of `context` whose console errors, uncaught exceptions and failed requests are recorded. */
  async newPage(context) {
    const page = await context.newPage();
    const where = () => `${this.name} (${page.url().replace(server.url, '')})`;
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`${where()}: console error: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`${where()}: uncaught: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`${where()}: request failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`${where()}: HTTP ${r.status()} for ${r.url()}`); });
    this.page = page;
    return page;
  }

  /** Opens `urlPath` (e.g. "/index.html#gpu=l4…") in a new context and waits for the app. */
  async open(urlPath, options = {}) {
    const page = await this.newPage(await this.context(options));
    await page.goto(server.url + urlPath);
    if (options.wait !== false) await ready(page);
    return page;
  }

  async screenshot(error) {
    fs.mkdirSync(OUT, { recursive: true });
    const file = path.join(OUT, `${this.name}.png`);
    try {
      let page = this.page && !this.page.isClosed() ? this.page : null;
      if (!page) {
        // A check without a page of its own (the console/404 check): a page that shows what failed.
        page = await this.newPage(await this.context());
        await page.setContent(`<pre style="white-space:pre-wrap;font:13px monospace">${String(error.message)
          .replace(/&/g, '&amp;').replace(/</g, '&lt;')}</pre>`);
      }
      await page.screenshot({ path: file, fullPage: true, timeout: TIMEOUT });
      return file;
    } catch (e) {
      return `(no screenshot: ${e.message.split('\n')[0]})`;
    }
  }

  async close() {
    for (const c of this.contexts) await c.close().catch(() => {});
  }
}

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

// ---------------------------------------------------------------------------------------------------------------------
// 1. The seed story (README, golden.rs seed_story_l4_fp8): L4, --kv-cache-dtype fp8. At 0.25.0-prefix (#43232 without
//    its fix) the prefill plan hits FlashInfer's FA2 assertion; 0.25.0 (#47485) keeps a bfloat16 query and runs.

check('seed-story', async (t) => {
  const page = await t.open('/');
  // The first visit: the seed command line on an L4 at the newest release, which runs (bfloat16 query, fa2).
  assert.equal(await value(page, '#command-line'), SEED_CMD);
  includes(await text(page, '#selected-gpu'), 'NVIDIA L4 · compute capability 8.9', 'selected GPU');
  const newest = await page.evaluate(() => [...document.querySelectorAll('#release option')].at(-1).value);
  assert.equal(await value(page, '#release'), newest, 'the first visit shows the newest release');
  assert.equal(await value(page, '#kv-cache-dtype'), 'fp8');
  assert.deepEqual(await decision(page), ['bfloat16', 'bfloat16', 'fa2', 'fa2']);
  assert.equal(await count(page, '.group-error'), 0);

  // The release control: the prefix release crashes in FlashInfer's FA2 prefill plan.
  await page.selectOption('#release', '0.25.0-prefix');
  await eventually(async () => includes(await text(page, '.group-error .error-message'), FA2_ASSERT, 'the FA2 assertion'));
  assert.equal(await text(page, '.group-error .error-type'), 'AssertionError');
  includes(await text(page, '.group-error .error-stage'), 'on the first decode, in BatchDecodeWithPagedKVCacheWrapper.plan', 'when and where it fires (decodes are captured in CUDA graphs at start-up)');
  includes(await text(page, '.group-error .error-stage'), "(FlashInfer's JIT module)", 'in the JIT module');
  assert.match(await attr(page, '.group-error .error-source a', 'href') ?? '', /^https:\/\/github\.com\//, 'the raise links to its source line');
  assert.deepEqual((await decision(page)).slice(0, 3), ['float8_e4m3fn', 'float8_e4m3fn', 'fa2'], 'FP8 queries, the prefill on fa2');
  assert.equal(await fi(page, 'kernel-decode'), 'fa2', 'the decode phase has its own kernel');
  includes(await text(page, '.phase-error .error-label'), 'Prefill also raises', 'the prefill phase raises on its own path');
  includes(await text(page, '.phase-error .error-stage'), 'on the first prefill, in BatchPrefillWithPagedKVCacheWrapper.plan', 'when the prefill raises');
  includes(await text(page, '.phase-error .error-message'), FA2_ASSERT, 'the prefill error text');
  includes(await text(page, '#result-stamp'), 'as of vLLM 0.25.0-prefix', 'stamp');
  assert.equal(await count(page, '.layer-strip .layer'), 32, 'Llama 3.1 8B: 32 layers');
  assert.equal(await count(page, '.layer-strip .layer.failing'), 32, 'every layer is in the failing group');
  assert.equal(await count(page, 'article.group'), 1);
  assert.ok(await count(page, 'article.group .fp8-badge') > 0, 'the FP8 query badge');
  await eventually(async () => includes(await hash(page), 'vllm=0.25.0-prefix&', 'URL hash'));

  // The fixed release: the error is gone and the query stays bfloat16 (what 0.25.0 logs says so too).
  await page.selectOption('#release', '0.25.0');
  await eventually(async () => assert.equal(await count(page, '.group-error'), 0, 'no error at 0.25.0'));
  assert.deepEqual(await decision(page), ['bfloat16', 'bfloat16', 'fa2', 'fa2']);
  includes(await text(page, '#result-stamp'), 'as of vLLM 0.25.0 /', 'stamp');
  includes(await text(page, 'article.group .logs'), FIXED_LOG, "vLLM's log line");
  const steps = await texts(page, 'article.group ol.trace li');
  assert.ok(steps.length >= 10, `a why trace of ${steps.length} steps`);
  assert.ok(steps.some((s) => s.includes('get_q_data_type(is_prefill=True)') && s.includes('→ bfloat16')), `the Q dtype step: ${steps.join('\n')}`);
  await eventually(async () => includes(await hash(page), 'vllm=0.25.0&', 'URL hash'));
});

// 2. Compare: the prefix release beside the fix, one group, differences marked; the same release twice: no difference.
check('compare-releases', async (t) => {
  const page = await t.open(`/index.html${SEED_FIXED}`);
  await page.click('#tab-compare');
  await page.waitForSelector('#compare-table');
  assert.equal(await attr(page, '#tab-compare', 'aria-selected'), 'true');
  await page.selectOption('#compare-release', '0.25.0-prefix');
  await eventually(async () => includes(await text(page, '#compare-left'), 'vLLM 0.25.0-prefix / FlashInfer', 'left side'));
  includes(await text(page, '#compare-right'), 'vLLM 0.25.0 / FlashInfer', 'right side');
  for (const side of ['#compare-left', '#compare-right']) includes(await text(page, side), 'NVIDIA L4 (compute capability 8.9)', side);
  assert.equal(await text(page, '#compare-summary'), '1 of 1 group differs');
  assert.equal(await count(page, '#compare-table tbody tr'), 1);
  assert.equal(await text(page, '#compare-table tbody th.layers'), '0-31');
  for (const phase of ['prefill', 'decode']) {
    const left = await text(page, `.left-${phase}-outcome .value`);
    includes(left, 'AssertionError', `left ${phase} outcome`);
    includes(left, FA2_ASSERT, `left ${phase} outcome`);
    assert.equal(await text(page, `.right-${phase}-outcome .value`), 'runs fa2');
  }
  assert.equal(await text(page, '.left-q-prefill .value'), 'float8_e4m3fn');
  assert.equal(await text(page, '.right-q-prefill .value'), 'bfloat16');
  for (const cell of ['.left-prefill-outcome', '.right-decode-outcome', '.left-q-prefill', '.right-q-prefill']) {
    assert.equal(await count(page, `${cell}.diff .diff-mark[aria-label="differs"]`), 1, `${cell} is marked as differing`);
  }
  assert.equal(await count(page, '.left-kernel-prefill.diff'), 0, 'fa2 on both sides: not marked');
  // The same release on both sides.
  await page.selectOption('#compare-release', '0.25.0');
  await eventually(async () => assert.equal(await text(page, '#compare-summary'), 'Both releases decide the same for every group'));
  assert.equal(await count(page, '#compare-table .diff'), 0);
});

// 3. The matrix: every GPU × every FlashInfer cache dtype; a cell click loads that GPU and --kv-cache-dtype.
check('matrix-cell-loads-scenario', async (t) => {
  const page = await t.open(`/index.html${hashOf({ gpu: 'l4', vllm: '0.33.0', cubins: 'yes', cmd: SEED_CMD })}`);
  await page.click('#tab-matrix');
  await page.waitForSelector('#matrix-table button.cell');
  const rows = await count(page, '#matrix-table tr.gpu-row');
  const cols = await count(page, '#matrix-table thead th.kv-col');
  assert.equal(rows, GPU_COUNT, 'one row per GPU of data/gpus.toml');
  assert.ok(cols >= 4, `${cols} cache dtype columns`);
  assert.equal(await count(page, '#matrix-table button.cell'), rows * cols);
  const caption = await text(page, '#matrix-caption');
  const [, errors, total] = /(\d+) of (\d+) combinations raise an error/.exec(caption) ?? [];
  assert.equal(Number(total), rows * cols, caption);
  assert.equal(await count(page, '#matrix-table button.cell.error'), Number(errors), 'error cells = the caption\'s count');
  assert.equal(await attr(page, 'td.current button.cell', 'data-gpu'), 'l4', 'the current cell');
  assert.equal(await attr(page, 'td.current button.cell', 'data-kv'), 'fp8');

  // An ok cell: B200 with nvfp4. Its summary (Q prefill/decode, then kernels, of each FlashInfer group) is what the
  // explainer then shows.
  const short = { bf16: 'bfloat16', fp16: 'float16', e4m3: 'float8_e4m3fn', e5m2: 'float8_e5m2' };
  const okCell = 'button.cell[data-gpu="b200"][data-kv="nvfp4"]';
  assert.ok((await attr(page, okCell, 'class')).split(' ').includes('ok'), 'B200 nvfp4 runs');
  const summary = await text(page, `${okCell} .summary`);
  assert.equal(summary, 'e4m3/e4m3 trtllm-gen/trtllm-gen');
  const [q, k] = summary.split(' ');
  const expected = [...q.split('/').map((d) => short[d]), ...k.split('/')];
  await page.click(okCell);
  await eventually(async () => assert.equal(await attr(page, '#tab-explain', 'aria-selected'), 'true', 'back on the explainer'));
  await eventually(async () => includes(await text(page, '#selected-gpu'), 'NVIDIA B200', 'selected GPU'));
  assert.equal(await value(page, '#kv-cache-dtype'), 'nvfp4');
  includes(await value(page, '#command-line'), '--kv-cache-dtype nvfp4', 'command line');
  includes(await text(page, '#result-stamp'), 'NVIDIA B200', 'stamp');
  assert.deepEqual(await decision(page), expected, `the explainer agrees with the cell "${summary}"`);
  await eventually(async () => assert.match(await hash(page), /^#gpu=b200&.*--kv-cache-dtype\+nvfp4/));

  // An error cell: B200 with fp8_e5m2. The attention layer quantizes the query for the SM100 family and its bare assert
  // refuses an e5m2 cache in the memory profile, before any FlashInfer builder: the explainer raises the same.
  await page.click('#tab-matrix');
  const errCell = 'button.cell[data-gpu="b200"][data-kv="fp8_e5m2"]';
  await page.waitForSelector(errCell);
  assert.ok((await attr(page, errCell, 'class')).split(' ').includes('error'), 'B200 fp8_e5m2 raises');
  const bare = 'error: AssertionError: (a bare assert, no message)';
  assert.equal(await text(page, `${errCell} .cell-text`), bare);
  assert.equal(await attr(page, errCell, 'aria-label'), `NVIDIA B200, fp8_e5m2: ${bare}`);
  await page.click(errCell);
  await eventually(async () => assert.equal(await value(page, '#kv-cache-dtype'), 'fp8_e5m2'));
  assert.equal(await text(page, '.group-error .error-type'), 'AssertionError');
  assert.equal(await text(page, '.group-error .error-message'), '(a bare assert, no message)');
  includes(await text(page, '.group-error .error-stage'), "at engine start, in Attention.forward (the memory profile's forward pass)", 'stage');
  includes(await text(page, '#selected-gpu'), 'NVIDIA B200', 'selected GPU');

  // The backend selector: the backend vLLM picks on every GPU, over every backend's cache dtypes; each cell names its
  // backends, and a Triton-only cache dtype loads a TRITON_ATTN group.
  await page.click('#tab-matrix');
  await page.waitForSelector('#matrix-mode');
  await page.selectOption('#matrix-mode', 'picked');
  await eventually(async () => includes(await text(page, '#matrix-table caption'), 'the backend vLLM picks', 'picked caption'));
  const pickedCols = await count(page, '#matrix-table thead th.kv-col');
  assert.ok(pickedCols > cols, `${pickedCols} columns: every backend's cache dtypes`);
  assert.equal(await count(page, '#matrix-table button.cell.other-backend'), 0, 'every cell names its backend');
  const triton = 'button.cell[data-gpu="l4"][data-kv="int8_per_token_head"]';
  assert.equal(await attr(page, triton, 'data-backends'), 'TRITON_ATTN');
  includes(await text(page, `${triton} .summary`), 'TRITON_ATTN ', 'the backend in the cell');
  await page.click(triton);
  await eventually(async () => assert.equal(await value(page, '#kv-cache-dtype'), 'int8_per_token_head'));
  assert.equal(await text(page, 'article.group .backend'), 'TRITON_ATTN');
});

// 4b. A pasted config.json is read instead of the preset (4 layers), travels in the link (a fresh page gets it back),
//     a malformed one is named under the box with the rest of the page intact, and Clear brings the preset back.
check('paste-config-json', async (t) => {
  const page = await t.open('/');
  assert.equal(await count(page, '.layer-strip .layer'), 32);
  await page.click('.model-config > summary');
  await page.click('#model-config');
  await page.keyboard.insertText(LLAMA_CONFIG_4); // a paste: one input event
  await eventually(async () => assert.equal(await count(page, '.layer-strip .layer'), 4));
  assert.equal(await text(page, '#config-read'), 'read: LlamaForCausalLM, 4 layers');
  includes(await text(page, '#result-model'), 'meta-llama/Llama-3.1-8B-Instruct: 4 layers', 'model line');
  assert.deepEqual(await decision(page), ['bfloat16', 'bfloat16', 'fa2', 'fa2']);
  await eventually(async () => includes(await hash(page), '&config=%7B%22architectures%22:%5B%22LlamaForCausalLM%22%5D,', 'URL hash'));

  const link = await hash(page);
  const fresh = await t.open(`/index.html${link}`);
  await eventually(async () => assert.equal(await count(fresh, '.layer-strip .layer'), 4));
  assert.equal(await value(fresh, '#model-config'), JSON.stringify(JSON.parse(LLAMA_CONFIG_4)), 'the config, minified');
  assert.ok(await fresh.evaluate(() => document.querySelector('.model-config').open), 'the box is open');
  assert.equal(await count(fresh, '#notices'), 0);

  await page.click('#model-config');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText('{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": ');
  await eventually(async () => includes(await text(page, '#config-error'), 'the pasted config.json is not valid JSON', 'the config error'));
  includes(await text(page, '.scenario-error'), 'is not valid JSON', 'the scenario error');
  includes(await text(page, '#selected-gpu'), 'NVIDIA L4', 'the GPU stays');
  assert.equal(await value(page, '#kv-cache-dtype'), 'fp8', 'the cache dtype stays');
  await eventually(async () => assert.ok(!(await hash(page)).includes('config='), 'no config in the link'));

  await page.click('#config-clear');
  await eventually(async () => assert.equal(await count(page, '.layer-strip .layer'), 32));
  assert.equal(await value(page, '#model-config'), '');
  assert.equal(await count(page, '#config-error'), 0);
});

// 4c. An MLA model (issue 21): DeepSeek-V3 from the model select on a B200, an FP8 cache from the cache select (which
//     now offers the MLA cache dtypes), the MLA card (backend, both query dtypes, the MLA prefill backend's kernel and
//     the decode kernel, the latent dims), then the picked matrix over the MLA cache dtypes and a cell that loads.
//     The values are the core's (crates/qpath-core/tests/golden_mla.rs, `qpath --gpu b200 -- vllm serve
//     deepseek-ai/DeepSeek-V3 --kv-cache-dtype fp8`).
check('mla-deepseek', async (t) => {
  const page = await t.open(`/index.html${hashOf({ gpu: 'b200', vllm: '0.33.0', cmd: LLAMA })}`);
  await page.selectOption('#model', 'deepseek-ai/DeepSeek-V3');
  await eventually(async () => includes(await value(page, '#command-line'), 'vllm serve deepseek-ai/DeepSeek-V3', 'command line'));
  assert.equal(await count(page, '#kv-cache-dtype option[value="fp8_ds_mla"]'), 1, 'the MLA cache dtypes are offered');
  assert.equal(await count(page, '#attention-backend option[value="FLASH_ATTN"]'), 0, 'only MLA backends are offered');
  await page.selectOption('#kv-cache-dtype', 'fp8');
  const card = 'article.group[data-backend="FLASHINFER_MLA"]';
  await eventually(async () => assert.equal(await text(page, `${card} .cache-dtype`), 'fp8'));
  const field = (f) => text(page, `${card} .${f}`);
  assert.deepEqual(await Promise.all(['q-prefill', 'q-decode', 'kernel-prefill', 'kernel-decode'].map(field)),
    ['bfloat16', 'float8_e4m3fn', 'fa4-varlen', 'trtllm-gen-mla']);
  assert.deepEqual(await texts(page, `${card} .kernel-runner`), ['on MLA prefill backend FLASH_ATTN', 'on FLASHINFER_MLA']);
  assert.equal(await field('head-dim'), 'head size 576 = kv_lora_rank 512 + qk_rope_head_dim 64');
  assert.equal(await field('mla-kv-lora-rank'), 'kv_lora_rank 512 (latent)');
  assert.equal(await count(page, '.layer-strip .layer'), 61);

  await page.click('#tab-matrix');
  await page.waitForSelector('#matrix-mode');
  await page.selectOption('#matrix-mode', 'picked');
  await eventually(async () => includes(await text(page, '#matrix-caption'), 'some MLA backend accepts', 'the MLA caption'));
  assert.deepEqual(await texts(page, '#matrix-table thead th.kv-col'),
    ['auto', 'float16', 'bfloat16', 'fp8', 'fp8_e4m3', 'fp8_ds_mla', 'nvfp4_ds_mla']);
  const h200 = 'button.cell[data-gpu="h200"][data-kv="fp8"]';
  assert.equal(await attr(page, h200, 'data-backends'), 'FLASHMLA');
  await page.click(h200);
  await eventually(async () => includes(await text(page, '#selected-gpu'), 'NVIDIA H200', 'selected GPU'));
  await eventually(async () => assert.equal(await text(page, 'article.group .backend'), 'FLASHMLA'));
  assert.equal(await text(page, 'article.group .kernel-decode'), 'flashmla-decode-fp8');
});

// 4. A pasted command line fills the inputs and the answer; an invalid flag is named and the inputs keep their values.
check('paste-command-line', async (t) => {
  const page = await t.open('/');
  const pasted = 'vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8_e5m2 --kv-cache-dtype-skip-layers 0 1 --max-model-len 4096';
  await page.click('#command-line');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(pasted); // what a paste does: one input event with the new text
  await eventually(async () => assert.equal(await value(page, '#model'), 'Qwen/Qwen3-8B'));
  assert.equal(await value(page, '#kv-cache-dtype'), 'fp8_e5m2');
  assert.deepEqual(await texts(page, '#skip-layers .chip span'), ['0', '1']);
  includes(await text(page, '#command-unused'), '--max-model-len 4096', 'unused flags');
  includes(await text(page, '#result-model'), 'Qwen/Qwen3-8B: 36 layers', 'model line');
  assert.equal(await count(page, '.layer-strip .layer'), 36);
  // Layers 0 and 1 keep a 16-bit cache, which FLASH_ATTN takes on SM89; the rest stay on FlashInfer with fp8_e5m2.
  assert.equal(await count(page, 'article.group'), 2);
  assert.deepEqual(await texts(page, 'article.group .backend'), ['FLASH_ATTN', 'FLASHINFER']);
  assert.deepEqual(await texts(page, 'article.group .cache-dtype'), ['auto (16-bit, unquantized)', 'fp8_e5m2']);
  assert.deepEqual(await decision(page), ['bfloat16', 'bfloat16', 'fa2', 'fa2']);
  // The FLASH_ATTN group of layers 0 and 1 runs FA2 (SM89) with a 16-bit query.
  assert.deepEqual(await texts(page, 'article.group[data-backend="FLASH_ATTN"] .kernel-decode'), ['fa2-varlen']);
  await eventually(async () => includes(await hash(page), 'Qwen%2FQwen3-8B', 'URL hash'));

  // Typing an unknown flag: named under the command line and by vLLM's argparse; the inputs keep the last valid values.
  await page.keyboard.press('ControlOrMeta+End');
  await page.keyboard.type(' --no-such-flag 3');
  await eventually(async () => includes(await text(page, '#command-error'), '--no-such-flag 3', 'the parse error'));
  assert.equal(await attr(page, '#command-line', 'aria-invalid'), 'true');
  includes(await text(page, '.scenario-error'), 'unrecognized arguments: --no-such-flag 3', 'the scenario error');
  assert.equal(await text(page, '.scenario-error .error-type'), 'ArgumentError');
  assert.equal(await value(page, '#model'), 'Qwen/Qwen3-8B', 'the model stays');
  assert.equal(await value(page, '#kv-cache-dtype'), 'fp8_e5m2', 'the cache dtype stays');
  assert.deepEqual(await texts(page, '#skip-layers .chip span'), ['0', '1'], 'the skip chips stay');
  includes(await text(page, '#selected-gpu'), 'NVIDIA L4', 'the GPU stays');
  // A control edits the last command line that parsed: the bad flag goes, the rest stays.
  await page.selectOption('#kv-cache-dtype', 'fp8');
  await eventually(async () => assert.equal(await count(page, '#command-error'), 0, 'no parse error'));
  const line = await value(page, '#command-line');
  includes(line, 'vllm serve Qwen/Qwen3-8B', 'command line');
  includes(line, '--kv-cache-dtype fp8 ', 'command line');
  assert.ok(!line.includes('no-such-flag'), line);
  assert.equal(await count(page, 'article.group'), 2);
  assert.deepEqual(await texts(page, 'article.group .cache-dtype'), ['auto (16-bit, unquantized)', 'fp8']);
});

// ---------------------------------------------------------------------------------------------------------------------
// Big input (issue 27): a 2 MB paste into the command box is refused with the page's cap named
// (qpath_core::serve::limits::MAX_COMMAND_LINE_BYTES), the box keeps the command line in use, and the page still
// answers a normal command after it.

check('big-paste-capped', async (t) => {
  const page = await t.open('/');
  const before = await value(page, '#command-line');
  const huge = `vllm serve meta-llama/Llama-3.1-8B-Instruct --served-model-name ${'x'.repeat(2 << 20)}`;
  await page.click('#command-line');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(huge); // a paste: one input event
  await eventually(async () => includes(await text(page, '#command-error'), 'more than the page reads: at most 262,144 (256 KiB, qpath_core::serve::limits::MAX_COMMAND_LINE_BYTES); the previous one is kept.', 'the cap message'));
  assert.equal(await value(page, '#command-line'), before, 'the box keeps the command line in use');
  assert.equal(await count(page, '#qpath-panic'), 0, 'no crash');
  // The page still answers: a normal command replaces the message and is read.
  await page.click('#command-line');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText('vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8_e5m2');
  await eventually(async () => assert.equal(await value(page, '#model'), 'Qwen/Qwen3-8B'));
  assert.equal(await count(page, '#command-error'), 0, 'no message');
  await eventually(async () => includes(await hash(page), 'Qwen%2FQwen3-8B', 'URL hash'));
  includes(await text(page, '#verdict'), 'vLLM would', 'the verdict');
});

// ---------------------------------------------------------------------------------------------------------------------
// 5. A permalink: the state set through the controls is in the URL (and the copied link); opened anew it is the same.

check('permalink-reload', async (t) => {
  const page = await t.open('/', { permissions: ['clipboard-read', 'clipboard-write'] });
  await page.click('.gpu-browser > summary');
  await page.fill('#gpu-search', 'h100');
  await page.click('tr[data-gpu-id="h100-sxm"] button.pick');
  await eventually(async () => includes(await text(page, '#selected-gpu'), 'NVIDIA H100 SXM', 'selected GPU'));
  await page.selectOption('#release', '0.25.0');
  await page.click('#advanced > summary'); // CUDA, cubins and DCP are in the folded advanced section
  await page.selectOption('#cuda', '12.8');
  await page.selectOption('#cubins', 'true');
  await page.selectOption('#attention-backend', 'FLASHINFER');
  await page.selectOption('#dcp', '2');
  await eventually(async () => includes(await value(page, '#command-line'), '--decode-context-parallel-size 2', 'command line'));
  // H100 at 0.25.0 with cubins: FP8 query for the fa3 prefill, decode on the native fa2 wrapper (XQA is off under DCP).
  assert.deepEqual(await decision(page), ['float8_e4m3fn', 'bfloat16', 'fa3', 'fa2']);
  assert.ok(await count(page, 'article.group .warnings li') > 0, 'the DCP warning');
  const h = await hash(page);
  for (const part of ['#gpu=h100-sxm&', 'vllm=0.25.0&', 'cuda=12.8&', 'cubins=yes&', 'FLASHINFER', '--decode-context-parallel-size+2']) includes(h, part, 'URL hash');

  const snapshot = async (p) => ({
    gpu: await text(p, '#selected-gpu'),
    release: await value(p, '#release'),
    cuda: await value(p, '#cuda'),
    cubins: await value(p, '#cubins'),
    backend: await value(p, '#attention-backend'),
    dcp: await value(p, '#dcp'),
    command: await value(p, '#command-line'),
    results: await p.evaluate(() => document.querySelector('.results').innerText),
  });
  const before = await snapshot(page);
  await page.click('#copy-link');
  const copied = await eventually(async () => {
    const c = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(c, await page.evaluate(() => location.href), 'Copy link copies the address');
    return c;
  });
  includes(await text(page, '#markdown-preview'), `[Open in qpath](${copied})`, 'the Markdown links the same address');

  // The copied link in a new browser context (nothing shared), then a reload of the first page.
  const fresh = await t.open(copied.slice(server.url.length));
  await eventually(async () => assert.deepEqual(await snapshot(fresh), before, 'the link reopens the same state'));
  await page.reload();
  await ready(page);
  await eventually(async () => assert.deepEqual(await snapshot(page), before, 'a reload keeps the state'));
  assert.equal(await count(page, '#notices'), 0, 'the link is read without a problem');
});

// 5b. A bad link typed into the address bar of an open page (a same-document navigation: popstate, then hashchange):
//     its valid parts load, and the notice naming the bad part stays (it used to vanish when the second event reloaded
//     the corrected hash).
check('address-bar-bad-link', async (t) => {
  const page = await t.open('/');
  // As the browser does for an edited address: the new hash, popstate, and hashchange as a later task (by when the
  // page has rendered the link and replaced the hash with its corrected form).
  await page.evaluate(async () => {
    history.pushState(null, '', '#gpu=nope&vllm=0.26.0&cmd=vllm+serve+Qwen%2FQwen3-8B');
    dispatchEvent(new PopStateEvent('popstate'));
    await new Promise((r) => setTimeout(r, 100));
    dispatchEvent(new HashChangeEvent('hashchange'));
  });
  await eventually(async () => assert.equal(await value(page, '#release'), '0.26.0', 'the valid release loads'));
  await eventually(async () => includes(await value(page, '#command-line'), 'Qwen/Qwen3-8B', 'the valid command loads'));
  await page.waitForTimeout(300); // both events have fired; the notice must still be there
  includes(await text(page, '#notices'), 'nope', 'the notice names the bad GPU');
});

// 6. The theme toggle: system → light → dark → system, a class on <html>, computed colours, remembered on reload.
check('theme-toggle', async (t) => {
  const page = await t.open('/', { scheme: 'light' });
  const look = () => page.evaluate(() => ({
    cls: document.documentElement.className,
    bg: getComputedStyle(document.body).backgroundColor,
    fg: getComputedStyle(document.body).color,
    button: document.getElementById('theme-toggle').textContent.trim(),
    stored: JSON.parse(localStorage.getItem('qpath-theme')),
  }));
  const LIGHT_BG = 'rgb(255, 255, 255)';
  const DARK_BG = 'rgb(13, 17, 23)'; // --qp-bg's dark value, #0d1117
  assert.deepEqual(await look(), { cls: '', bg: LIGHT_BG, fg: 'rgb(27, 31, 36)', button: 'Theme: system', stored: null });
  await page.click('#theme-toggle');
  await eventually(async () => assert.deepEqual(await look(), { cls: 'light', bg: LIGHT_BG, fg: 'rgb(27, 31, 36)', button: 'Theme: light', stored: 'light' }));
  await page.click('#theme-toggle');
  await eventually(async () => assert.deepEqual(await look(), { cls: 'dark', bg: DARK_BG, fg: 'rgb(230, 237, 243)', button: 'Theme: dark', stored: 'dark' }));
  // Remembered: a reload starts dark, though the system is light.
  await page.reload();
  await ready(page);
  await eventually(async () => assert.deepEqual(await look(), { cls: 'dark', bg: DARK_BG, fg: 'rgb(230, 237, 243)', button: 'Theme: dark', stored: 'dark' }));
  await page.click('#theme-toggle');
  await eventually(async () => assert.deepEqual(await look(), { cls: '', bg: LIGHT_BG, fg: 'rgb(27, 31, 36)', button: 'Theme: system', stored: null }));
  // With a dark system, "system" is dark and "light" overrides it.
  const dark = await t.open('/', { scheme: 'dark' });
  const bg = () => dark.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await bg(), DARK_BG);
  await dark.click('#theme-toggle');
  await eventually(async () => assert.equal(await bg(), LIGHT_BG));
});

// 7. The iframe (dist/example.html): it posts qpath:state and qpath:resize, the parent sets its height; a change inside
//    the frame posts a new state and a new height.
check('embed-iframe-resize', async (t) => {
  const context = await t.context();
  await context.addInitScript(() => {
    if (window.top !== window) return;
    window.__qpath = [];
    addEventListener('message', (e) => {
      const frame = document.getElementById('qpath-frame');
      if (frame && e.source === frame.contentWindow && typeof e.data?.type === 'string') window.__qpath.push(e.data);
    });
  });
  const page = await t.newPage(context);
  await page.goto(`${server.url}/example.html`);
  const messages = () => page.evaluate(() => window.__qpath);
  const frameHeight = () => page.evaluate(() => document.getElementById('qpath-frame').style.height);
  const last = (ms, type) => ms.filter((m) => m.type === type).at(-1);
  await eventually(async () => {
    const ms = await messages();
    assert.ok(last(ms, 'qpath:state') && last(ms, 'qpath:resize'), `messages so far: ${JSON.stringify(ms)}`);
  });
  let ms = await messages();
  const state0 = last(ms, 'qpath:state').hash;
  // The frame keeps the embedder's origin= in its hash (hash::Link reads it), so a reload posts to the same origin.
  assert.match(state0, /^#embed=1&origin=http:%2F%2F127\.0\.0\.1:\d+&gpu=h100-sxm&vllm=0\.33\.0&/);
  includes(state0, 'gpt-oss-20b', 'state');
  const height0 = last(ms, 'qpath:resize').height;
  assert.ok(Number.isInteger(height0) && height0 > 100, `height ${height0}`);
  await eventually(async () => assert.equal(await frameHeight(), `${last(await messages(), 'qpath:resize').height}px`, "the parent took the frame's height"));
  assert.equal(await text(page, '#frame-state'), state0);

  const frame = await (await page.$('#qpath-frame')).contentFrame();
  await frame.waitForSelector('.qpath.embed .results');
  assert.equal(await count(frame, '.site-header, .site-footer, .share'), 0, 'no chrome in the frame');
  assert.equal(await hash(frame), state0);
  // gpt-oss-20b forced onto FlashInfer on H100 offline (cubins=no in the frame's link): vLLM rejects it (sinks).
  includes(await text(frame, '.scenario-error'), 'attention sinks not supported', 'the frame\'s answer');
  const measured = () => frame.evaluate(() => Math.ceil(document.querySelector('.qpath').getBoundingClientRect().height));
  // The app's height settles after its first frame (the selects' other options, the GPU browser): the last height it
  // posted is the one it measures.
  await eventually(async () => {
    const posted = last(await messages(), 'qpath:resize').height;
    assert.ok(Math.abs((await measured()) - posted) <= 1, `posted ${posted}, the app measures ${await measured()}`);
  });
  const settled = last(await messages(), 'qpath:resize').height;

  // Inside the frame: another model. One FlashInfer group card with its why trace replaces the short error: taller.
  await frame.selectOption('#model', 'meta-llama/Llama-3.1-8B-Instruct');
  await frame.waitForSelector('article.group');
  assert.deepEqual(await decision(frame), ['bfloat16', 'bfloat16', 'fa3', 'fa2']);
  await eventually(async () => {
    ms = await messages();
    includes(last(ms, 'qpath:state').hash, 'Llama-3.1-8B-Instruct', 'the new state message');
    assert.notEqual(last(ms, 'qpath:resize').height, settled, 'a new height');
  });
  const height1 = last(ms, 'qpath:resize').height;
  assert.ok(height1 > settled, `the frame grew: ${settled} → ${height1}`);
  await eventually(async () => assert.equal(await frameHeight(), `${last(await messages(), 'qpath:resize').height}px`));
  await eventually(async () => assert.ok(Math.abs((await measured()) - last(await messages(), 'qpath:resize').height) <= 1));
  assert.equal(await text(page, '#frame-state'), last(ms, 'qpath:state').hash);
  assert.equal(await hash(frame), last(ms, 'qpath:state').hash);
});

// 7b. The rest of example.html: the <qpath-explainer> elements (each in its own shadow root, with its own styles) and
//     the JS API answer the seed story; the page loads no qpath stylesheet.
check('embed-element-and-api', async (t) => {
  const page = await t.open('/example.html', { wait: false });
  await page.waitForSelector('#seed-fixed article.group'); // playwright's selectors pierce open shadow roots
  await eventually(async () => includes(await text(page, '#api-output'), `error AssertionError: ${FA2_ASSERT}`, 'the JS API'));
  const inside = (host, sel) => page.evaluate(([h, s]) => {
    const root = document.getElementById(h).shadowRoot;
    return root ? [...root.querySelectorAll(s)].map((e) => e.textContent.trim()) : null;
  }, [host, sel]);
  includes((await inside('seed-prefix', '.group-error'))[0], FA2_ASSERT, 'the 0.25.0-prefix element');
  assert.deepEqual((await inside('seed-prefix', '.q-prefill')).slice(0, 1), ['float8_e4m3fn']);
  assert.deepEqual(await inside('seed-fixed', '.group-error'), []);
  assert.deepEqual((await inside('seed-fixed', '.q-prefill')).slice(0, 1), ['bfloat16']);
  assert.equal(await count(page, 'link[rel=stylesheet]'), 0, 'no qpath stylesheet on the page');
  assert.equal(await count(page, 'qpath-explainer *'), 0, "nothing in the elements' light DOM");
  // Styled from inside: the box's border and 15 px text, whatever the page's root font size.
  const look = () => page.evaluate(() => {
    const box = document.getElementById('seed-prefix').shadowRoot.querySelector('.qpath-explainer');
    const s = getComputedStyle(box);
    return [s.borderTopStyle, s.fontSize, getComputedStyle(box.querySelector('h3')).fontSize];
  });
  assert.deepEqual(await look(), ['solid', '15px', '16px']);
  await page.evaluate(() => { document.documentElement.style.fontSize = '10px'; });
  assert.deepEqual(await look(), ['solid', '15px', '16px'], "mdBook's 10 px root font changes nothing");
  // theme="auto" (absent) follows the site's switch at run time; theme="dark" stays dark.
  const schemes = () => page.evaluate(() => ['seed-prefix', 'seed-fixed'].map((id) => {
    const box = document.getElementById(id).shadowRoot.querySelector('.qp-root');
    return getComputedStyle(box).colorScheme;
  }));
  assert.deepEqual(await schemes(), ['light', 'dark']);
  await page.evaluate(() => document.body.setAttribute('data-md-color-scheme', 'slate'));
  await eventually(async () => assert.deepEqual(await schemes(), ['dark', 'dark']));
  await page.evaluate(() => document.body.setAttribute('data-md-color-scheme', 'default'));
  await eventually(async () => assert.deepEqual(await schemes(), ['light', 'dark']));
  // An attribute change re-renders that element only.
  await page.evaluate(() => document.getElementById('seed-fixed').setAttribute('vllm', '0.25.0-prefix'));
  await eventually(async () => includes((await inside('seed-fixed', '.group-error'))[0] ?? '', FA2_ASSERT, 'after vllm="0.25.0-prefix"'));
  // A copy (cloneNode) is its own element: removing it leaves the original rendered.
  await page.evaluate(() => {
    const copy = document.getElementById('seed-prefix').cloneNode(true);
    copy.id = 'seed-copy';
    document.querySelector('main').append(copy);
    copy.scrollIntoView(); // an explainer renders when it comes near the viewport (7f)
  });
  await page.waitForSelector('#seed-copy article.group');
  await page.evaluate(() => document.getElementById('seed-copy').remove());
  await page.waitForTimeout(100);
  includes((await inside('seed-prefix', '.group-error'))[0] ?? '', FA2_ASSERT, 'the original after its copy was removed');
});

// 7c. docs/embedding.md's iframe snippet, pasted twice into one host page exactly as written (QPATH = the server):
//     each copy resizes its own frame; without origin= no frame posts its state.
check('embed-snippet-pasted-twice', async (t) => {
  const guide = fs.readFileSync(path.join(repo, 'docs', 'embedding.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## 2. The iframe'));
  const snippet = /```html\n([\s\S]*?)```/.exec(section)[1].replaceAll('QPATH', server.url);
  const context = await t.context();
  await context.addInitScript(() => {
    if (window.top !== window) return;
    window.__got = [];
    addEventListener('message', (e) => {
      const i = [...document.querySelectorAll('iframe')].findIndex((f) => e.source === f.contentWindow);
      window.__got.push(`${i}:${e.data?.type}`);
    });
  });
  const page = await t.newPage(context);
  const host = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,"></head>
    <body><main><h1>Two frames</h1>${snippet}<p>between</p>${snippet}</main></body></html>`;
  await page.route(`${server.url}/host-twice.html`, (r) => r.fulfill({ contentType: 'text/html', body: host }));
  await page.goto(`${server.url}/host-twice.html`);
  assert.equal(await count(page, 'iframe'), 2);
  await eventually(async () => {
    const heights = await page.evaluate(() => [...document.querySelectorAll('iframe')].map((f) => f.style.height));
    assert.ok(heights.every((h) => /^\d+px$/.test(h)), `both frames resized: ${heights}`);
  });
  const got = await page.evaluate(() => window.__got);
  assert.ok(got.includes('0:qpath:resize') && got.includes('1:qpath:resize'), JSON.stringify(got));
  assert.deepEqual(got.filter((m) => !m.endsWith(':qpath:resize')), [], 'height only: no origin= named, no state');
});

// 7d. A host with a strict CSP (no 'unsafe-inline' anywhere, style-src 'none'): the include line and the element work
//     with only what docs/embedding.md lists (script-src and connect-src for qpath, 'wasm-unsafe-eval').
check('embed-element-under-a-strict-csp', async (t) => {
  const page = await t.newPage(await t.context());
  const csp = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'none'; img-src data:";
  const host = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
    <meta http-equiv="Content-Security-Policy" content="${csp}"><title>strict host</title><link rel="icon" href="data:,">
    <script type="module" src="./qpath-embed.js"></script></head>
    <body><main><qpath-explainer gpu="l4" vllm="0.25.0-prefix" cmd="${SEED_CMD}"></qpath-explainer></main></body></html>`;
  const violations = [];
  page.on('console', (m) => { if (/Content.Security.Policy|Refused/i.test(m.text())) violations.push(m.text()); });
  await page.route(`${server.url}/host-csp.html`, (r) => r.fulfill({ contentType: 'text/html', body: host }));
  await page.goto(`${server.url}/host-csp.html`);
  await page.waitForSelector('qpath-explainer .group-error');
  const look = await page.evaluate(() => {
    const box = document.querySelector('qpath-explainer').shadowRoot.querySelector('.qpath-explainer');
    return [getComputedStyle(box).borderTopStyle, getComputedStyle(box).fontSize];
  });
  assert.deepEqual(look, ['solid', '15px'], 'styled under style-src none');
  assert.deepEqual(violations, [], 'no CSP violation');
});

// 7e. Without WebAssembly the element says why in a sentence (and the console has a warning, not an error).
check('embed-element-without-webassembly', async (t) => {
  const context = await t.context();
  await context.addInitScript(() => { delete globalThis.WebAssembly; });
  const page = await t.newPage(context);
  const warnings = [];
  page.on('console', (m) => { if (m.type() === 'warning') warnings.push(m.text()); });
  const host = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,">
    <script type="module" src="./qpath-embed.js"></script></head>
    <body><main><qpath-explainer id="e" gpu="l4"></qpath-explainer>
    <div style="height: 3000px"></div><qpath-explainer id="far" gpu="l4"></qpath-explainer></main></body></html>`;
  await page.route(`${server.url}/host-nowasm.html`, (r) => r.fulfill({ contentType: 'text/html', body: host }));
  await page.goto(`${server.url}/host-nowasm.html`);
  const says = async (id) => {
    const said = await page.evaluate((i) => document.getElementById(i).shadowRoot?.textContent ?? '', id);
    includes(said, 'qpath could not start here: it needs WebAssembly', `the element #${id}`);
    includes(said, "qpath's command-line tool", `the element #${id}`);
  };
  await eventually(() => says('e'));
  // One scrolled to after the failure says it too (the lazy loader does not retry).
  await page.evaluate(() => document.getElementById('far').scrollIntoView());
  await eventually(() => says('far'));
  assert.equal(warnings.filter((w) => w.includes('it needs WebAssembly')).length, 1, JSON.stringify(warnings));
});

// 7f. Lazy loading (issue 26): an explainer loads nothing (no qpath-web.js, no wasm) until it comes within a screen of
//     the viewport; the module and the wasm then load once for every explainer on the page. loading="eager" opts out,
//     a browser without IntersectionObserver loads at once, and `ready` starts the load when a script uses it.
const SPACER = '<div style="height: 3000px">spacer</div>';

/** A host page with this body (the include line in its head), its qpath requests counted by kind. */
async function lazyHost(t, name, body, { init } = {}) {
  const context = await t.context();
  if (init) await context.addInitScript(init);
  const page = await t.newPage(context);
  const requests = { wasm: 0, module: 0 };
  page.on('request', (r) => {
    const file = new URL(r.url()).pathname;
    if (file.endsWith('.wasm')) requests.wasm += 1;
    if (file.endsWith('/qpath-web.js')) requests.module += 1;
  });
  const host = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${name}</title><link rel="icon" href="data:,">
    <script type="module" src="./qpath-embed.js"></script></head><body><main>${body}</main></body></html>`;
  await page.route(`${server.url}/${name}.html`, (r) => r.fulfill({ contentType: 'text/html', body: host }));
  await page.goto(`${server.url}/${name}.html`);
  await page.waitForLoadState('networkidle');
  return { page, requests };
}

/** Which of the page's explainers (by id) have rendered results in their shadow roots. */
const renderedIds = (page) => page.evaluate(() => [...document.querySelectorAll('qpath-explainer')]
  .filter((el) => el.shadowRoot?.querySelector('article.group')).map((el) => el.id));

check('embed-lazy-below-the-fold', async (t) => {
  const { page, requests } = await lazyHost(t, 'host-lazy-one', `<h1>Far below</h1>${SPACER}
    <qpath-explainer id="far" gpu="l4" vllm="0.25.0-prefix" cmd="${SEED_CMD}"></qpath-explainer>`);
  await sleep(500); // idle: nothing may start later on its own either
  assert.deepEqual(requests, { wasm: 0, module: 0 }, 'nothing of qpath loaded before the explainer is scrolled to');
  assert.equal(await page.evaluate(() => document.getElementById('far').shadowRoot.querySelector('.qp-root')), null, 'not rendered');
  await page.evaluate(() => document.getElementById('far').scrollIntoView());
  await page.waitForSelector('#far .group-error');
  includes((await renderedIds(page)).join(), 'far', 'rendered after the scroll');
  assert.deepEqual(requests, { wasm: 1, module: 1 }, 'one wasm request once scrolled to');
});

check('embed-reserves-its-height-so-the-host-does-not-shift', async (t) => {
  // An explainer in the first screen, text after it, and the one CSS line docs/embedding.md gives for the first
  // paint (before qpath-embed.js has run): the layout shifts Chromium reports (PerformanceObserver layout-shift, what
  // Lighthouse's CLS adds up) total under 0.01 once the explainer has rendered. Without the reserve the text moved
  // down by the explainer's height: CLS 0.3-0.9 on the doc test sites (BENCHMARKS.md).
  const { page } = await lazyHost(t, 'host-reserve', `<style>qpath-explainer:not(:defined) { display: block; min-height: 100vh }</style>
    <h1>In view</h1>
    <qpath-explainer id="top" gpu="l4" vllm="0.25.0-prefix" cmd="${SEED_CMD}" compact></qpath-explainer>
    <p id="after">The host's own text after the explainer.</p>`, {
    init: () => {
      window.__shifts = [];
      new PerformanceObserver((l) => l.getEntries().forEach((e) => { if (!e.hadRecentInput) window.__shifts.push(e); }))
        .observe({ type: 'layout-shift', buffered: true });
    },
  });
  await page.waitForSelector('#top .group-error');
  await sleep(300);
  const shift = await page.evaluate(() => window.__shifts.reduce((sum, e) => sum + e.value, 0));
  assert.ok(shift < 0.01, `layout shift ${shift}`);
  // The host can set the reserve.
  const held = await page.evaluate(() => {
    const el = document.createElement('qpath-explainer');
    el.style.setProperty('--qpath-reserve', '321px');
    el.setAttribute('gpu', 'l4');
    document.body.prepend(el);
    return el.getBoundingClientRect().height;
  });
  assert.equal(Math.round(held), 321, 'the reserve follows --qpath-reserve');
});

check('embed-lazy-three-explainers', async (t) => {
  const { page, requests } = await lazyHost(t, 'host-lazy-three', `<h1>Three</h1>
    <qpath-explainer id="a" gpu="l4" vllm="0.25.0" compact></qpath-explainer>${SPACER}
    <qpath-explainer id="b" gpu="l4" vllm="0.25.0-prefix" cmd="${SEED_CMD}" compact></qpath-explainer>
    <qpath-explainer id="c" gpu="h100-sxm" compact></qpath-explainer>`);
  await page.waitForSelector('#a article.group');
  assert.deepEqual(await renderedIds(page), ['a'], 'only the explainer in view is rendered');
  assert.deepEqual(requests, { wasm: 1, module: 1 }, 'one wasm request for the one in view');
  await page.evaluate(() => document.getElementById('c').scrollIntoView());
  await eventually(async () => assert.deepEqual(await renderedIds(page), ['a', 'b', 'c']));
  includes(await page.evaluate(() => document.getElementById('b').shadowRoot.querySelector('.group-error').textContent), FA2_ASSERT, 'b answers its own scenario');
  // An attribute set on a rendered element re-renders it (the lazy class hands the change to src/embed.rs).
  await page.evaluate(() => {
    const [b, c] = ['b', 'c'].map((id) => document.getElementById(id));
    for (const name of ['gpu', 'vllm', 'cmd']) c.setAttribute(name, b.getAttribute(name));
  });
  await page.waitForSelector('#c .group-error');
  assert.deepEqual(requests, { wasm: 1, module: 1 }, 'still one wasm request for three explainers');
});

check('embed-lazy-eager-and-no-intersection-observer', async (t) => {
  const eager = await lazyHost(t, 'host-lazy-eager', `<h1>Eager</h1>${SPACER}
    <qpath-explainer id="far" loading="eager" gpu="l4"></qpath-explainer>`);
  await eager.page.waitForSelector('#far article.group');
  assert.deepEqual(eager.requests, { wasm: 1, module: 1 }, 'loading="eager" loads at once');
  const old = await lazyHost(t, 'host-lazy-no-io', `<h1>No IntersectionObserver</h1>${SPACER}
    <qpath-explainer id="far" gpu="l4"></qpath-explainer>`, { init: () => { delete globalThis.IntersectionObserver; } });
  await old.page.waitForSelector('#far article.group');
  assert.deepEqual(old.requests, { wasm: 1, module: 1 }, 'without IntersectionObserver: loaded at once');
});

check('embed-lazy-ready-starts-the-load', async (t) => {
  const { page, requests } = await lazyHost(t, 'host-lazy-ready', `<h1>The API</h1><pre id="out">waiting</pre>
    <button id="go">Ask</button>${SPACER}<qpath-explainer id="far" gpu="l4"></qpath-explainer>
    <script type="module">
      import { ready } from "./qpath-embed.js";
      document.getElementById("go").onclick = async () => {
        const qpath = await ready;
        document.getElementById("out").textContent = qpath.resolve("${SEED_CMD}", { gpu: "l4", vllm: "0.25.0-prefix" }).vllm;
      };
    </script>`);
  assert.deepEqual(requests, { wasm: 0, module: 0 }, 'importing ready loads nothing');
  await page.click('#go');
  await eventually(async () => assert.equal(await text(page, '#out'), '0.25.0-prefix'));
  assert.deepEqual(requests, { wasm: 1, module: 1 }, 'awaiting ready loaded the wasm once');
  assert.equal(await page.evaluate(() => document.getElementById('far').shadowRoot.querySelector('.qp-root')), null, 'the far explainer still waits');
  await page.evaluate(() => document.getElementById('far').scrollIntoView());
  await page.waitForSelector('#far article.group');
  assert.deepEqual(requests, { wasm: 1, module: 1 });
});

// ---------------------------------------------------------------------------------------------------------------------
// 8. Accessibility: axe-core on each view, in light and dark, with every kind of result on screen. Zero violations of
//    any impact; no rule is disabled. (The why trace is an always-visible list, so there is nothing to expand; the
//    <details> of the page — GPU browser, sources, Markdown preview — are opened by clicking their summaries.)

async function axe(page, label) {
  // Evaluated through the DevTools protocol, not added as an inline <script>, which the page's CSP (no
  // 'unsafe-inline') rightly blocks.
  const source = fs.readFileSync(AXE, 'utf8');
  for (const frame of page.frames()) await frame.evaluate(source);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.map((v) => ({ label, ...v }));
}

function report(violations) {
  if (!violations.length) return;
  const lines = violations.map((v) => `  [${v.label}] ${v.id} (${v.impact}): ${v.help}\n${v.nodes
    .map((n) => `      ${n.target.join(' ')}${n.failureSummary ? `: ${n.failureSummary.replace(/\s*\n\s*/g, '; ')}` : ''}`)
    .join('\n')}`);
  throw new Error(`${violations.length} axe violation(s):\n${lines.join('\n')}`);
}

/** Opens every closed <details> by clicking its summary, as a reader would. */
async function expandAll(page) {
  for (const summary of await page.$$('details:not([open]) > summary')) {
    if (await summary.isVisible()) await summary.click();
  }
}

/** Scenarios that put each part of the results on screen. */
const SHOWCASE = {
  // The seed crash: an error card, its source link, the FP8 badge, a failing layer strip.
  'error card': [SEED_PREFIX, 'vLLM 0.25.0-prefix', '.group-error'],
  // Two groups (a skipped layer), warnings (DCP), logs, notes (speculative decoding, a skip token that matches nothing),
  // flags that do not matter.
  'warnings, notes, logs': [hashOf({
    gpu: 'h100-sxm', vllm: '0.25.0', cubins: 'yes',
    cmd: `${LLAMA} --attention-backend FLASHINFER --kv-cache-dtype fp8 -dcp 2 --kv-cache-dtype-skip-layers 0 99 --max-model-len 4096 --speculative-config '{"method":"ngram","num_speculative_tokens":2}'`,
  }), 'H100', '.warnings li, .notes li, .unused-flags li, .engine-logs'],
  // Sliding-window and full groups, one raising and one running.
  'mixed groups': [hashOf({ gpu: 'h100-sxm', vllm: '0.28.0', cmd: 'vllm serve google/gemma-3-27b-it --kv-cache-dtype fp8 --attention-backend FLASHINFER' }),
    'vLLM 0.28.0', 'article.group.raises + article.group:not(.raises)'],
  // No FlashInfer group at all (FLASH_ATTN: B200 offline cannot run sinks on FlashInfer), an unverified prediction (Thor at 10.1 with trtllm-gen).
  'other backend': [hashOf({ gpu: 'b200', vllm: '0.33.0', cubins: 'no', cmd: 'vllm serve openai/gpt-oss-20b --kv-cache-dtype fp8' }),
    'NVIDIA B200', 'article.group[data-backend="FLASH_ATTN"] .kernel-prefill'],
  // Another backend's card in full: FLASH_ATTN's FA3 kernel as vLLM calls it, the FP8 query and its scale.
  'query quantization': [hashOf({ gpu: 'h100-sxm', vllm: '0.33.0', cmd: `${LLAMA} --kv-cache-dtype fp8` }),
    'NVIDIA H100', 'article.group[data-backend="FLASH_ATTN"] .query-quant'],
  'unverified prediction': [hashOf({ gpu: 'jetson-agx-thor', vllm: '0.33.0', cubins: 'yes', cmd: `${LLAMA} --attention-backend FLASHINFER` }),
    'Thor', '.unverified-badge'],
  // An MLA group: the latent dims, each kernel's runner (the MLA prefill backend, the decode backend), an FP8 decode query.
  'mla group': [hashOf({ gpu: 'b200', vllm: '0.33.0', cmd: 'vllm serve deepseek-ai/DeepSeek-V3 --kv-cache-dtype fp8' }),
    'NVIDIA B200', 'article.group .mla-dims + .mla-why'],
  // A config.json from the link, read instead of the preset (the box open, its summary under it).
  'pasted config.json': [hashOf({ gpu: 'l4', vllm: '0.33.0', cmd: SEED_CMD, config: JSON.stringify(JSON.parse(LLAMA_CONFIG_4)) }),
    'NVIDIA L4', '#model-config + #config-clear + #config-read'],
  // A malformed link (notices) and a command line that does not parse (its error, vLLM's ArgumentError); the unknown
  // GPU gives way to the core's default GPU, as in the CLI and the JS API.
  'bad link and command': [hashOf({ gpu: 'h900', vllm: '0.25.0', cuda: 'banana', cmd: `${SEED_CMD} --no-such-flag 3` }),
    'NVIDIA H100 SXM', '#notices ~ main #command-error'],
};

for (const theme of ['light', 'dark']) {
  check(`a11y-main-${theme}`, async (t) => {
    const page = await t.open('/', { theme });
    const found = [];
    for (const [label, [h, stamp, marker]] of Object.entries(SHOWCASE)) {
      // Each scenario as a link opened anew (a full load: a malformed link's notices are shown on load).
      await page.goto('about:blank');
      await page.goto(`${server.url}/index.html${h}`);
      await ready(page);
      await expandAll(page);
      await eventually(async () => {
        includes(await text(page, '#result-stamp'), stamp, label);
        assert.ok(await count(page, marker) > 0, `${label}: ${marker}`);
      });
      assert.equal(await page.evaluate(() => document.documentElement.className), theme);
      found.push(...await axe(page, `${theme} · ${label}`));
    }
    // The seed crash again at a phone's width.
    await page.setViewportSize({ width: 360, height: 800 });
    await page.goto('about:blank');
    await page.goto(`${server.url}/index.html${SEED_PREFIX}`);
    await page.waitForSelector('.group-error');
    await expandAll(page);
    found.push(...await axe(page, `${theme} · error card at 360 px`));
    report(found);
  });

  check(`a11y-compare-${theme}`, async (t) => {
    const page = await t.open(`/index.html${SEED_FIXED}`, { theme });
    await page.click('#tab-compare');
    await page.selectOption('#compare-release', '0.25.0-prefix');
    await page.waitForSelector('#compare-table .diff');
    await expandAll(page);
    report(await axe(page, `${theme} · compare`));
  });

  // The answer first: at 390 × 844 the verdict bar is in the first screen on load, and still in view after scrolling
  // to the bottom (sticky).
  check(`verdict-in-view-at-390-${theme}`, async (t) => {
    const page = await t.open(`/index.html${SEED_PREFIX}`, { theme, width: 390, height: 844 });
    await page.waitForSelector('#verdict.fails');
    const inView = async () => page.$eval('#verdict', (el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= innerHeight && r.height > 0;
    });
    if (!(await inView())) throw new Error('the verdict bar is not in the first screen at 390 × 844');
    const text = await page.textContent('#verdict');
    if (!text.includes('vLLM would fail: group 1 (FLASHINFER, decode_jit): AssertionError')) throw new Error(`verdict: ${text}`);
    await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
    if (!(await inView())) throw new Error('the verdict bar scrolls out of view');
  });

  // The release timeline and, for the seed story's crash at 0.25.0-prefix, the "How to make it run" panel.
  check(`a11y-timeline-${theme}`, async (t) => {
    const page = await t.open(`/index.html${SEED_FIXED}`, { theme });
    await page.click('#tab-timeline');
    await page.waitForSelector('#timeline-table tr.changed');
    report(await axe(page, `${theme} · timeline`));
  });

  // Explain a log: a real log pasted (vllm-project/vllm#50705), its read facts and the line-by-line table with a
  // different row's <mark> (the 0.27.1 log read at 0.26.0: the cache line's number differs).
  check(`a11y-log-${theme}`, async (t) => {
    const page = await t.open('/index.html#gpu=rtx-5090&vllm=0.26.0', { theme });
    await page.click('#tab-log');
    const log = fs.readFileSync(path.join(repo, 'crates/qpath-core/tests/fixtures/logs/rtx5090-qwen3-8b-fp8-triton-0271.log'), 'utf8');
    await page.fill('#log-input', log);
    await page.waitForSelector('#log-rows tr.different mark');
    await expandAll(page);
    report(await axe(page, `${theme} · log`));
  });

  check(`a11y-fixes-${theme}`, async (t) => {
    const page = await t.open(`/index.html${SEED_PREFIX}`, { theme });
    await page.waitForSelector('section.fixes li.fix');
    await expandAll(page);
    report(await axe(page, `${theme} · fixes`));
  });

  check(`a11y-matrix-${theme}`, async (t) => {
    const page = await t.open(`/index.html${SEED_PREFIX}`, { theme });
    await page.click('#tab-matrix');
    await page.waitForSelector('#matrix-table button.cell.error');
    await expandAll(page);
    const found = await axe(page, `${theme} · matrix`);
    // The backend vLLM picks, over every backend's cache dtypes.
    await page.selectOption('#matrix-mode', 'picked');
    await eventually(async () => includes(await text(page, '#matrix-table caption'), 'the backend vLLM picks', 'picked'));
    found.push(...await axe(page, `${theme} · matrix, picked`));
    report(found);
  });

  // The iframe's page on its own (as a frame shows it), following the system's scheme as an embed does.
  check(`a11y-embed-${theme}`, async (t) => {
    const page = await t.open(`/index.html${hashOf({ embed: true, gpu: 'l4', vllm: '0.25.0-prefix', cmd: SEED_CMD })}`, { scheme: theme });
    await page.waitForSelector('.qpath.embed .group-error');
    await expandAll(page);
    report(await axe(page, `${theme} · embed`));
  });

  // example.html with its elements, the iframe (audited inside it too) and the API output.
  check(`a11y-example-${theme}`, async (t) => {
    const page = await t.open('/example.html', { scheme: theme, wait: false });
    await page.waitForSelector('#seed-fixed article.group');
    await page.waitForFunction(() => document.getElementById('qpath-frame').style.height !== '');
    await (await (await page.$('#qpath-frame')).contentFrame()).waitForSelector('.qpath.embed .results');
    report(await axe(page, `${theme} · example.html`));
  });
}

// 8a. The layout (issue 27, items 1 and 2): the command line is the first input, in the first screen; after the seed
//     story is pasted the verdict is in view without scrolling, on wide screens at the top of the results column,
//     which stays in view beside the inputs; the advanced settings are one folded section; axe in both themes.
function layoutChecks() {
  const inScreen = (p, sel) => p.$eval(sel, (el) => {
    const r = el.getBoundingClientRect();
    return { top: Math.round(r.top + scrollY), bottom: Math.round(r.bottom + scrollY), left: Math.round(r.left),
      right: Math.round(r.right), scrollY, shown: r.height > 0 && r.top >= 0 && r.bottom <= innerHeight };
  });
  const ADVANCED = ['#cuda', '#cubins', '#flashinfer', '#use-trtllm', '#disable-q-quant', '#dcp', '#batch-invariant'];
  for (const [width, height] of [[1280, 900], [390, 844]]) {
    for (const theme of ['light', 'dark']) {
      check(`layout-${width}x${height}-${theme}`, async (t) => {
        const page = await t.open('/', { theme, width, height });
        const box = await inScreen(page, '#command-line');
        assert.ok(box.shown && box.scrollY === 0, `the command box is in the first screen: ${JSON.stringify(box)}`);
        // The command line comes before every other input of the page.
        const first = await page.evaluate(() => document.querySelector('.setup').querySelector('textarea, select, input').id);
        assert.equal(first, 'command-line', 'the first input');
        // The advanced settings: one folded section, its summary saying the defaults; opened, its controls show.
        assert.equal(await page.$eval('#advanced', (d) => d.open), false, 'folded by default');
        includes(await text(page, '#advanced-state'), 'all defaults: CUDA', 'the summary');
        for (const sel of ADVANCED) assert.equal(await page.isVisible(sel), false, `${sel} folded`);
        await page.click('#advanced > summary');
        for (const sel of ADVANCED) assert.equal(await page.isVisible(sel), true, `${sel} shown`);
        // A changed value is named in the summary (the control still edits the command line).
        await page.selectOption('#dcp', '2');
        await eventually(async () => includes(await value(page, '#command-line'), '--decode-context-parallel-size 2', 'command line'));
        includes(await text(page, '#advanced-state'), 'changed: -dcp 2', 'the summary');
        await page.click('#advanced > summary');
        // The seed story: the release beside the command line, the command pasted (one input event).
        await page.selectOption('#release', '0.25.0-prefix');
        await page.click('#command-line');
        await page.keyboard.press('ControlOrMeta+A');
        await page.keyboard.insertText(SEED_CMD);
        await page.waitForSelector('#verdict.fails');
        const verdict = await inScreen(page, '#verdict');
        assert.ok(verdict.shown, `the verdict is in view after the paste: ${JSON.stringify(verdict)}`);
        includes(await text(page, '#verdict'), 'AssertionError: fp8 tensor core is not supported in fa2 backend', 'the verdict');
        console.log(`     ${width}×${height} ${theme}: command box y ${box.top}–${box.bottom}, verdict y ${verdict.top}–${verdict.bottom} (scrollY ${verdict.scrollY})`);
        if (width > 1000) {
          // The results column beside the inputs, the verdict at its top, in view at every scroll position.
          const setup = await inScreen(page, '.setup');
          const answer = await inScreen(page, '.answer');
          assert.ok(answer.left >= setup.right, `the answer beside the inputs: ${JSON.stringify({ setup, answer })}`);
          assert.equal(await page.evaluate(() => document.querySelector('.answer').firstElementChild.contains(document.getElementById('verdict'))), true);
          assert.ok(Math.abs(answer.top - setup.top) < 2 && answer.bottom >= setup.bottom - 2, `side by side from the first pixel: ${JSON.stringify({ setup, answer })}`);
          for (const y of [600, 1200, 1e6]) {
            await page.evaluate((top) => scrollTo(0, top), y);
            assert.ok((await inScreen(page, '#verdict')).shown, `the verdict stays in view at scrollY ${y}`);
          }
        } else {
          // One column: the verdict bar first and sticky; its button scrolls to the results.
          await page.click('.to-results');
          await eventually(async () => assert.ok((await inScreen(page, '.answer .tabs')).shown, 'the tabs in view'));
          assert.ok((await inScreen(page, '#verdict')).shown, 'the verdict stays in view');
        }
        await expandAll(page);
        report(await axe(page, `${theme} · layout at ${width} px`));
      });
    }
  }
  // A link that sets advanced values: the folded section names them (it stays folded).
  check('layout-advanced-summary-names-changes', async (t) => {
    const page = await t.open(`/index.html${hashOf({ gpu: 'h100-sxm', vllm: '0.25.0', cuda: '12.8', cubins: 'no',
      cmd: `VLLM_BATCH_INVARIANT=1 ${LLAMA} -dcp 2 --attention-config '{"use_trtllm_attention": false}'` })}`);
    assert.equal(await page.$eval('#advanced', (d) => d.open), false, 'folded');
    assert.equal(await text(page, '#advanced-state'),
      'changed: CUDA 12.8, TRTLLM cubins: no, use_trtllm_attention=false, -dcp 2, VLLM_BATCH_INVARIANT');
  });
}
layoutChecks();

// 8a. Views in the link (issue 27, item 3): the view and its state (compare target, matrix mode and filter) are in the
//     hash and survive a reload and back/forward; the matrix shows the current cell at 1280 × 900, shows a clamped
//     error whole on focus, and a cell click says what it changed; a hash over the 64 KiB cap names it. axe in each.
function viewLinkChecks() {
  // The cell's box against the viewport and against its scroll box (minus the sticky header row and GPU column).
  const cellInView = (p, sel) => p.$eval(sel, (el) => {
    const r = el.getBoundingClientRect();
    const w = el.closest('.matrix-wrap').getBoundingClientRect();
    const head = document.querySelector('#matrix-table thead').getBoundingClientRect();
    const gpuCol = document.querySelector('#matrix-table thead .gpu-col').getBoundingClientRect();
    const box = { left: Math.round(r.left), right: Math.round(r.right), top: Math.round(r.top), bottom: Math.round(r.bottom) };
    return { box, inViewport: r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight,
      inBox: r.left >= gpuCol.right - 1 && r.right <= w.right + 1 && r.top >= head.bottom - 1 && r.bottom <= w.bottom + 1 };
  });
  for (const theme of ['light', 'dark']) {
    check(`view-link-compare-reload-${theme}`, async (t) => {
      const page = await t.open(`/index.html${SEED_FIXED}`, { theme, permissions: ['clipboard-read', 'clipboard-write'] });
      await page.click('#tab-compare');
      await page.waitForSelector('#compare-table');
      // The neighbouring release by default, never the same one.
      const next = await value(page, '#compare-release');
      assert.notEqual(next, '0.25.0', 'compare defaults to another release');
      includes(await text(page, '#compare-left'), `vLLM ${next} /`, 'the left side is the neighbouring release');
      await page.selectOption('#compare-release', '0.25.0-prefix');
      await eventually(async () => includes(await hash(page), 'view=compare&compare=0.25.0-prefix&', 'hash'));
      await page.reload();
      await page.waitForSelector('#compare-table');
      assert.equal(await attr(page, '#tab-compare', 'aria-selected'), 'true', 'compare after the reload');
      assert.equal(await value(page, '#compare-release'), '0.25.0-prefix', 'the same target after the reload');
      assert.equal(await text(page, '#compare-summary'), '1 of 1 group differs');
      report(await axe(page, `${theme} · compare from a link`));
      // Copy link carries the view: the copied address opens compare with the same target in a new context.
      await page.click('#copy-link');
      const copied = await eventually(async () => {
        const c = await page.evaluate(() => navigator.clipboard.readText());
        includes(c, 'view=compare&compare=0.25.0-prefix&', 'Copy link');
        return c;
      });
      const fresh = await t.open(copied.slice(server.url.length), { theme });
      await fresh.waitForSelector('#compare-table');
      assert.equal(await value(fresh, '#compare-release'), '0.25.0-prefix', 'the copied link opens the same comparison');
    });

    check(`view-link-matrix-reload-${theme}`, async (t) => {
      const page = await t.open(`/index.html${hashOf({ gpu: 'l4', vllm: '0.33.0', cubins: 'yes', cmd: SEED_CMD })}`, { theme });
      await page.click('#tab-matrix');
      await page.waitForSelector('#matrix-table button.cell');
      await page.selectOption('#matrix-mode', 'picked');
      await page.selectOption('#matrix-arch', 'Ada Lovelace');
      await eventually(async () => includes(await hash(page), 'view=matrix&mode=picked&arch=Ada+Lovelace&', 'hash'));
      const rows = await count(page, '#matrix-table tr.gpu-row');
      assert.ok(rows > 0 && rows < GPU_COUNT, `${rows} Ada Lovelace rows`);
      await page.reload();
      await page.waitForSelector('#matrix-table button.cell');
      assert.equal(await attr(page, '#tab-matrix', 'aria-selected'), 'true', 'the matrix after the reload');
      assert.equal(await value(page, '#matrix-mode'), 'picked');
      assert.equal(await value(page, '#matrix-arch'), 'Ada Lovelace');
      assert.equal(await count(page, '#matrix-table tr.gpu-row'), rows, 'the filter after the reload');
      report(await axe(page, `${theme} · matrix from a link`));
    });
  }

  check('view-link-back-forward', async (t) => {
    const page = await t.open(`/index.html${SEED_FIXED}`);
    await page.click('#tab-timeline');
    await eventually(async () => includes(await hash(page), 'view=timeline&', 'hash'));
    await page.click('#tab-matrix');
    await page.waitForSelector('#matrix-table');
    await page.goBack();
    await eventually(async () => assert.equal(await attr(page, '#tab-timeline', 'aria-selected'), 'true', 'back: timeline'));
    await page.goBack();
    await eventually(async () => assert.equal(await attr(page, '#tab-explain', 'aria-selected'), 'true', 'back: explain'));
    await page.goForward();
    await eventually(async () => assert.equal(await attr(page, '#tab-timeline', 'aria-selected'), 'true', 'forward: timeline'));
  });

  check('view-link-matrix-current-cell-and-click', async (t) => {
    // The current cell far right and down: the B200 (a late row) with fp8_e5m2.
    const cmd = `${LLAMA} --kv-cache-dtype fp8_e5m2`;
    const page = await t.open(`/index.html#view=matrix&${hashOf({ gpu: 'b200', vllm: '0.33.0', cubins: 'yes', cmd }).slice(1)}`);
    await page.waitForSelector('#matrix-table td.current');
    await eventually(async () => {
      const v = await cellInView(page, '#matrix-table td.current');
      assert.ok(v.inViewport && v.inBox, `the current cell in view at 1280 × 900: ${JSON.stringify(v)}`);
    });
    // The header row stays put while the table scrolls.
    const sticky = await page.$eval('#matrix-table thead th.kv-col', (el) => getComputedStyle(el).position);
    assert.equal(sticky, 'sticky');
    // An error cell: clamped, whole on focus, with the footnote saying so.
    includes(await text(page, '#matrix-footnote'), 'hover over a cell or focus it', 'footnote');
    const err = '#matrix-table button.cell.error';
    const whole = await page.$eval(err, (b) => b.getAttribute('title'));
    await page.focus(err);
    const fits = await page.$eval(`${err} .cell-text`, (e) => e.scrollHeight <= e.clientHeight + 1);
    assert.ok(fits, 'the focused error cell shows its text whole');
    includes(whole, 'error:', 'the title holds the sentence');
    // A click says what it changed, in a polite live region.
    assert.equal(await attr(page, '#pick-note', 'aria-live'), 'polite');
    await page.click('button.cell[data-gpu="h100-sxm"][data-kv="auto"]');
    await eventually(async () => assert.equal(await text(page, '#pick-note'),
      'From the matrix: GPU b200 → h100-sxm, --kv-cache-dtype fp8_e5m2 → auto. Back returns to the matrix.'));
    report(await axe(page, 'light · after a matrix cell click'));
    await page.goBack();
    await eventually(async () => assert.equal(await attr(page, '#tab-matrix', 'aria-selected'), 'true', 'back: the matrix'));
  });

  // Embedded (another page's iframe), the current cell scrolls into view inside the table's box only: the host page's
  // scroll position is not the frame's to move.
  check('view-link-matrix-in-a-frame-keeps-the-host-still', async (t) => {
    const page = await t.open('/example.html', { wait: false });
    await page.waitForSelector('#qpath-frame');
    const cmd = `${LLAMA} --kv-cache-dtype fp8_e5m2`;
    const src = `/index.html#embed=1&view=matrix&${hashOf({ gpu: 'b200', vllm: '0.33.0', cubins: 'yes', cmd }).slice(1)}`;
    await page.evaluate((u) => { scrollTo(0, 0); document.getElementById('qpath-frame').src = u; }, src);
    const frame = await eventually(async () => {
      const f = page.frames().find((x) => x.url().includes('view=matrix'));
      assert.ok(f, 'the frame loaded');
      await f.waitForSelector('#matrix-table td.current', { timeout: 1000 });
      return f;
    });
    await eventually(async () => assert.ok(await frame.$eval('.matrix-wrap', (w) => w.scrollTop > 0), 'the box scrolled to the B200 row'));
    assert.equal(await page.evaluate(() => scrollY), 0, 'the host page did not scroll');
  });

  check('view-link-over-the-cap', async (t) => {
    const big = 'x'.repeat(70_000);
    const page = await t.open(`/index.html#view=compare&gpu=h100-sxm&vllm=0.26.0&cmd=vllm+serve+${big}`);
    await page.waitForSelector('#compare-table');
    const notices = await text(page, '#notices');
    includes(notices, 'over the 65,536 characters (64 KiB) a link may carry', 'the cap notice');
    includes(notices, '`cmd`', 'names the part');
    includes(await text(page, '#compare-right'), 'H100', 'the rest of the link is kept');
    await page.click('#tab-explain');
    await eventually(async () => assert.equal(await attr(page, '#tab-explain', 'aria-selected'), 'true', 'still usable'));
    report(await axe(page, 'light · over-cap link'));
  });
}
viewLinkChecks();

// 8b. Never blank: the built page's CSP allows trunk's inline loader by its hash and no other inline script; a browser
//     without WebAssembly, or a wasm that does not load, sees why and a link to the CLI instead of a blank page. These
//     pages fail on purpose, so their console errors are not recorded.
check('csp-hash-no-unsafe-inline', async () => {
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync('node', [path.join(repo, 'scripts', 'csp-hash.mjs'), '--check', DIST], { encoding: 'utf8' });
  includes(out, "no 'unsafe-inline'", 'csp-hash --check');
  const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const scriptSrc = html.match(/script-src ([^;"]*)/)[1];
  assert.ok(!scriptSrc.includes("'unsafe-inline'"), scriptSrc);
  assert.ok(/'sha256-[A-Za-z0-9+/=]{44}'/.test(scriptSrc), scriptSrc);
});

async function failingStart(t, prepare) {
  const context = await t.context();
  await prepare(context);
  const page = await context.newPage();
  t.page = page;
  await page.goto(`${server.url}/`);
  return page;
}

check('no-webassembly-explains-and-links-the-cli', async (t) => {
  const page = await failingStart(t, (c) => c.addInitScript(() => { delete globalThis.WebAssembly; }));
  await eventually(async () => includes(await text(page, '#qpath-start'), 'it needs WebAssembly', 'the start text'));
  assert.equal(await attr(page, '#qpath-start', 'role'), 'alert');
  const href = await page.evaluate(() => document.getElementById('qpath-cli-link').href);
  const readme = await page.evaluate(async (u) => (await fetch(u)).text(), href);
  includes(readme, 'crates/qpath-cli', 'the README the link opens');
});

check('wasm-that-fails-to-load-explains', async (t) => {
  const page = await failingStart(t, (c) => c.route('**/qpath-web_bg.wasm', (r) => r.fulfill({ status: 404, body: 'gone' })));
  await eventually(async () => includes(await text(page, '#qpath-start'), 'qpath could not start', 'the start text'));
  assert.ok(await page.$('#qpath-cli-link'), 'the CLI link');
  assert.equal(await count(page, '.qpath'), 0);
});

// 9. Nothing went wrong on the way: no console error, uncaught exception or failed request in any story, no 404.
check('no-console-errors-or-404', async () => {
  const notFound = server.log.filter((l) => !/^\S+ \S+ 200 \d+$/.test(l));
  assert.ok(server.log.length > 0, 'the server saw requests');
  assert.deepEqual([...problems, ...notFound.map((l) => `server: ${l}`)], [], 'console errors, failed requests or non-200 responses');
});

// ---------------------------------------------------------------------------------------------------------------------

async function main() {
  if (!fs.existsSync(path.join(DIST, 'index.html'))) {
    console.error(`e2e: ${DIST}/index.html is missing; build the site first (trunk build --release)`);
    return 1;
  }
  if (!fs.existsSync(AXE)) {
    console.error('e2e: tests/e2e/node_modules is missing; run scripts/setup.sh test (or npm ci in tests/e2e)');
    return 1;
  }
  // Screenshots of an earlier run would pass for this one's.
  fs.rmSync(OUT, { recursive: true, force: true });
  const only = (process.env.QPATH_E2E_ONLY ?? '').split(',').filter(Boolean);
  const selected = checks.filter((c) => !only.length || only.some((w) => c.name.includes(w)));
  let passed = 0;
  let failed = 0;
  server = await startServer(DIST);
  const stop = () => server?.stop();
  for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, async () => { await stop(); process.exit(130); });
  try {
    browser = await launchChromium();
    console.log(`e2e checks of ${DIST} at ${server.url} (Chromium ${browser.version()}, server pid ${server.pid})`);
    for (const { name, fn } of selected) {
      const t = new Story(name);
      const started = Date.now();
      try {
        await fn(t);
        passed += 1;
        console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      } catch (e) {
        failed += 1;
        console.log(`FAIL ${name}: ${e.message}`);
        console.log(`     screenshot: ${await t.screenshot(e)}`);
      } finally {
        await t.close();
      }
    }
  } finally {
    await browser?.close().catch(() => {});
    await stop();
  }
  console.log(`e2e: ${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

process.exitCode = await main().catch(async (e) => {
  console.error(`e2e: ${e.stack ?? e}`);
  await server?.stop();
  console.log('e2e: 0 passed, 1 failed');
  return 1;
});
