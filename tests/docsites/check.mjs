// Browser checks of the doc sites built from docs/embedding.md's recipes (scripts/docsites-test.sh builds them):
//   node check.mjs SITES_DIR [--screenshots]
// Each site's built folder is served on its own (tests/e2e/serve-dist.mjs) and loaded in Debian's headless Chromium
// through playwright-core. Per site: the explainer renders its results inside its shadow root; no console error, no
// failed request and no 404; the host's own elements (html, body, headings, paragraphs, links, code, table cells, nav)
// have the same computed styles as on a twin of the page without the include line and the element; in each of the
// host's themes, chosen with the site's own switch while the OS preference says the opposite, the explainer's text
// follows the host's theme and axe-core's colour-contrast rule (which looks inside shadow roots) passes on the page;
// at 360 px nothing scrolls sideways; MkDocs Material's instant navigation renders the explainers of the pages it swaps
// in. One line per check ("ok   …" or "FAIL …"), then "docsites: N passed, M failed" (N and M include the build
// steps the caller counted and passes in DOCSITES_PASSED / DOCSITES_FAILED); exit 1 on any failure.
// --screenshots writes docs/embed-<site>-<light|dark>.png (1000 x 700) instead of checking.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launchChromium, repo, startServer } from '../e2e/lib.mjs';

const AXE = path.join(repo, 'tests', 'e2e', 'node_modules', 'axe-core', 'axe.min.js');
const RESULT_TEXT = 'FLASHINFER'; // the backend column of every explainer on the test pages
const SHOT_LIMIT = 200 * 1024;

// Each site's output folder, the page with the guide's explainer, a page in a sub-folder (the include line's relative
// URL must hold there too) and the host's theme switch.
const SITES = {
  mkdocs: {
    out: 'site', page: '/', shot: 'mkdocs', nested: '/two/',
    themes: { light: 'default', dark: 'slate' },
    // Material's palette toggle: a label per scheme, the visible one switches to the other scheme.
    current: () => document.body.getAttribute('data-md-color-scheme'),
    toggle: (page) => page.locator('form[data-md-component="palette"] label:visible').first().click(),
  },
  'sphinx-furo': {
    out: '_build/html', page: '/index.html', shot: 'furo', nested: '/sub/page.html',
    themes: { light: 'light', dark: 'dark' },
    // Furo's toggle cycles auto → light/dark; the theme is body[data-theme].
    current: () => document.body.dataset.theme,
    toggle: (page) => page.locator('button.theme-toggle:visible').first().click(),
  },
  'sphinx-rtd': {
    out: '_build/html', page: '/index.html', shot: 'rtd', nested: '/sub/page.html',
    themes: { light: null }, // sphinx_rtd_theme has one theme
  },
  mdbook: {
    out: 'book', page: '/kernels.html', shot: 'mdbook', nested: '/more/nested.html',
    themes: { light: 'light', dark: 'coal' },
    current: () => ['light', 'rust', 'coal', 'navy', 'ayu'].find((t) => document.documentElement.classList.contains(t)),
    toggle: async (page, want) => {
      await page.click('#mdbook-theme-toggle');
      await page.click(`#mdbook-theme-${want}`);
      if (await page.isVisible('#mdbook-theme-list')) await page.click('#mdbook-theme-toggle'); // close the menu
    },
  },
};

// Host elements whose computed styles must not change when qpath is on the page, and the properties compared.
const HOST_ELEMENTS = ['html', 'body', 'nav', 'h1', 'h2', 'p', 'a', 'code', 'pre', 'li', 'th', 'td'];
const HOST_PROPERTIES = [
  'color', 'background-color', 'font-family', 'font-size', 'font-weight', 'font-style', 'line-height', 'letter-spacing',
  'white-space', 'text-decoration-line', 'text-transform', 'margin-top', 'margin-bottom', 'padding-top', 'padding-left',
  'border-top-width', 'border-top-style', 'border-top-color', 'color-scheme', 'display', 'box-sizing',
];

const checks = [];
const check = (name, fn, options = {}) => checks.push({ name, fn, options });

/** Collects console errors, uncaught exceptions and failed requests of a page. */
function watch(page) {
  const problems = [];
  page.on('console', (m) => {
    // A host without a favicon makes Chromium fetch /favicon.ico: the host's 404, not qpath's.
    if (m.type() === 'error' && !m.location().url?.endsWith('/favicon.ico')) problems.push(`console error: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  return problems;
}

/** Waits until every <qpath-explainer> on the page shows results in its shadow root, scrolling to each that has not
 * (as a reader does: an explainer renders when it nears the viewport, and one holds a screen's height until then), then
 * scrolls back to the top; returns how many there are. */
async function rendered(page, timeout = 30000) {
  await page.waitForFunction((want) => {
    const all = [...document.querySelectorAll('qpath-explainer')];
    const waiting = all.find((el) => !el.shadowRoot?.textContent.includes(want));
    waiting?.scrollIntoView({ block: 'nearest' });
    return all.length > 0 && !waiting;
  }, RESULT_TEXT, { timeout, polling: 100 }).catch(async () => {
    const state = await page.evaluate(() => [...document.querySelectorAll('qpath-explainer')]
      .map((el) => `${el.shadowRoot ? `shadow root "${el.shadowRoot.textContent.slice(0, 160)}"` : 'no shadow root'}`));
    throw new Error(`no results in the explainer(s) after ${timeout} ms: ${state.join('; ') || 'no <qpath-explainer> on the page'}`);
  });
  return page.evaluate(() => { scrollTo(0, 0); return document.querySelectorAll('qpath-explainer').length; });
}

async function computedStyles(page) {
  return page.evaluate(([tags, props]) => Object.fromEntries(tags.map((tag) => {
    const el = document.querySelector(tag);
    if (!el) return [tag, null];
    const style = getComputedStyle(el);
    return [tag, Object.fromEntries(props.map((p) => [p, style.getPropertyValue(p)]))];
  })), [HOST_ELEMENTS, HOST_PROPERTIES]);
}

/** The page's HTML without qpath: no script or stylesheet from qpath's folder (the include line) and no element. */
function withoutQpath(html) {
  const twin = html
    .replace(/<script\b[^>]*\bsrc="[^"]*qpath[/-][^"]*"[^>]*>\s*<\/script>/g, '')
    .replace(/<link\b[^>]*\bhref="[^"]*qpath\/[^"]*"[^>]*>/g, '')
    .replace(/<qpath-explainer\b[\s\S]*?<\/qpath-explainer>/g, '');
  assert.ok(!/qpath-embed|qpath\/|<qpath-explainer/.test(twin), 'the twin page still loads something of qpath');
  assert.notEqual(twin, html, 'the page has no include line or element to remove');
  return twin;
}

/** Puts the host in THEME with its own switch while the OS preference says the opposite. */
async function hostTheme(page, site, theme) {
  await page.emulateMedia({ colorScheme: theme === 'dark' ? 'light' : 'dark' });
  await page.waitForTimeout(200); // a host in "auto" (mdBook without a saved theme) follows the OS change first
  const want = site.themes[theme];
  if (want === null) return;
  for (let i = 0; i < 4 && (await page.evaluate(site.current)) !== want; i++) await site.toggle(page, want);
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(site.current), want, `the site's switch did not reach ${want}`);
}

/** Luminance (0–1) of the colour of the explainer's first visible text, read inside its shadow root. */
async function explainerTextLuminance(page) {
  return page.evaluate(() => {
    const root = document.querySelector('qpath-explainer').shadowRoot;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.textContent.trim() || !el || el.closest('style') || !el.getClientRects().length) continue;
      const [r, g, b] = getComputedStyle(el).color.match(/[\d.]+/g).map(Number).map((c) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    }
    return null;
  });
}

/** axe-core's colour-contrast rule on the whole page; fails on a violation inside an explainer (axe reads shadow roots:
 *  such a node's target is [host, inner]). The host theme's own violations are not qpath's: returns their count. */
async function contrast(page) {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(() => window.axe.run(document, { runOnly: ['color-contrast'], resultTypes: ['violations', 'passes'] }));
  const inside = (n) => Array.isArray(n.target[0]) && n.target[0][0].includes('qpath-explainer');
  const nodes = (list) => list.flatMap((v) => v.nodes);
  const bad = nodes(result.violations).filter(inside).map((n) => `${JSON.stringify(n.target)}: ${n.failureSummary.replace(/\s*\n\s*/g, ' ')}`);
  assert.equal(bad.length, 0, `axe colour-contrast violations in the explainer:\n      ${bad.join('\n      ')}`);
  const checked = nodes(result.passes).filter(inside).length;
  assert.ok(checked >= 5, `axe checked only ${checked} text nodes inside the explainer`);
  return { checked, host: nodes(result.violations).length };
}

// ---------------------------------------------------------------------------------------------------------------------

function siteChecks(name, site) {
  check(`${name}: the explainers render their results in their shadow roots (a page, a page in a sub-folder), no console error, no 404`, async ({ page, url, problems, server }) => {
    for (const address of [site.page, site.nested]) {
      await page.goto(url + address);
      await rendered(page);
      assert.equal(await page.evaluate(() => [...document.querySelectorAll('qpath-explainer')].some((el) => el.children.length)), false,
        `an element on ${address} added children to the host page (it should render into its shadow root only)`);
    }
    await page.waitForTimeout(300);
    const notFound = server.log.filter((l) => / 404 /.test(l) && !l.startsWith('GET /favicon.ico '));
    assert.deepEqual([...problems, ...notFound], []);
  });

  // Every set-up of the guide holds the explainer's height from the first paint (a stylesheet, a <style> in the head,
  // or qpath_sphinx.py's line in every page's head).
  check(`${name}: the page does not shift when its first explainer renders (layout shifts under 0.01)`, async ({ page, url }) => {
    await page.addInitScript(() => {
      window.__shift = 0;
      new PerformanceObserver((l) => l.getEntries().forEach((e) => { if (!e.hadRecentInput) window.__shift += e.value; }))
        .observe({ type: 'layout-shift', buffered: true });
    });
    await page.goto(url + site.page);
    await page.waitForFunction((want) => document.querySelector('qpath-explainer')?.shadowRoot?.textContent.includes(want),
      RESULT_TEXT, { timeout: 30000, polling: 100 });
    await page.waitForTimeout(300);
    const shift = await page.evaluate(() => window.__shift);
    assert.ok(shift < 0.01, `layout shift ${shift}`);
  });

  check(`${name}: the host's own elements keep their computed styles (twin page without qpath)`, async ({ page, url }) => {
    const address = url + site.page;
    await page.goto(address);
    await rendered(page);
    const withQpath = await computedStyles(page);
    await page.route(address, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: withoutQpath(await response.text()) });
    });
    await page.goto(address);
    assert.equal(await page.evaluate(() => document.querySelector('qpath-explainer')), null);
    const without = await computedStyles(page);
    const diffs = [];
    for (const [tag, props] of Object.entries(without)) {
      if (props === null) continue;
      for (const [p, v] of Object.entries(props)) if (withQpath[tag]?.[p] !== v) diffs.push(`${tag} ${p}: ${v} → ${withQpath[tag]?.[p]}`);
    }
    assert.ok(Object.values(without).filter(Boolean).length >= 8, 'fewer than 8 host elements to compare');
    assert.deepEqual(diffs, [], 'computed styles differ (without → with qpath)');
  });

  for (const theme of Object.keys(site.themes)) {
    check(`${name}: ${theme} theme (OS says the opposite): the explainer follows it and axe colour-contrast passes`, async ({ page, url, problems }) => {
      await page.goto(url + site.page);
      await rendered(page);
      await hostTheme(page, site, theme);
      const luminance = await explainerTextLuminance(page);
      assert.ok(luminance !== null, 'no visible text in the explainer');
      if (theme === 'dark') assert.ok(luminance > 0.4, `the explainer's text is dark (luminance ${luminance.toFixed(2)}) on a dark host`);
      else assert.ok(luminance < 0.2, `the explainer's text is light (luminance ${luminance.toFixed(2)}) on a light host`);
      const { checked, host } = await contrast(page);
      assert.deepEqual(problems, []);
      return `${checked} texts in the explainer pass${host ? `; the host theme's own: ${host} violation(s)` : ''}`;
    });
  }

  check(`${name}: 360 px wide: no horizontal scroll, the explainer within the viewport`, async ({ page, url, problems }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(url + site.page);
    await rendered(page);
    const m = await page.evaluate(() => ({
      scroll: document.scrollingElement.scrollWidth, client: document.scrollingElement.clientWidth,
      right: Math.max(...[...document.querySelectorAll('qpath-explainer')].map((el) => el.getBoundingClientRect().right)),
    }));
    assert.ok(m.scroll <= m.client, `the page scrolls sideways: scrollWidth ${m.scroll} > clientWidth ${m.client}`);
    assert.ok(m.right <= m.client, `the explainer ends at ${m.right} px, past the viewport (${m.client} px)`);
    assert.deepEqual(problems, []);
  });
}

for (const [name, site] of Object.entries(SITES)) siteChecks(name, site);

check('mkdocs: instant navigation swaps in pages whose explainers render, without a reload', async ({ page, url, problems }) => {
  await page.goto(url + '/');
  await rendered(page);
  await page.evaluate(() => { window.qpathNoReload = true; });
  // Each fixture page links to the next one in its text; Material's instant navigation takes over such links.
  const follow = async (link, title, count) => {
    await page.locator('.md-content a', { hasText: link }).first().click();
    await page.waitForFunction((t) => document.querySelector('.md-content h1')?.textContent.includes(t), title);
    assert.equal(await page.evaluate(() => window.qpathNoReload), true, `following "${link}" reloaded the page`);
    if (count) assert.equal(await rendered(page), count, `explainers on "${title}"`);
    else assert.equal(await page.evaluate(() => document.querySelectorAll('qpath-explainer').length), 0);
  };
  await follow('a link to another page', 'Another page', 0);
  await follow('the page with two explainers', 'Two explainers', 2);
  await follow('the first page', 'Attention kernels on an L4', 1);
  await page.goBack();
  await page.waitForFunction(() => document.querySelector('.md-content h1')?.textContent.includes('Two explainers'));
  assert.equal(await rendered(page), 2, 'explainers after going back');
  assert.equal(await page.evaluate(() => window.qpathNoReload), true, 'going back reloaded the page');
  assert.deepEqual(problems, []);
}, { origin: 'https://docs.example.com' }); // the guide's site_url

check('sphinx-rtd: the directive passes a quoted, multi-line command and its options to the element unchanged', async ({ page, url }) => {
  await page.goto(url + '/index.html');
  await rendered(page);
  const attrs = await page.evaluate(() => [...document.querySelectorAll('qpath-explainer')]
    .map((el) => Object.fromEntries([...el.attributes].map((a) => [a.name, a.value]))));
  assert.deepEqual(attrs[1], {
    gpu: 'h100-sxm', vllm: '0.33.0', theme: 'auto',
    cmd: `vllm serve openai/gpt-oss-20b --attention-backend FLASHINFER --override-generation-config '{"temperature": 0.5}' --max-model-len 4096`,
  });
});

// ---------------------------------------------------------------------------------------------------------------------

/** Serves DIR and runs fn({ page, url, problems, server }) in a new browser context. With `origin`, the browser loads the
 *  site from that origin (requests to it are answered by the local server): MkDocs Material's instant navigation only
 *  takes over links to the pages its sitemap.xml lists, which are under site_url's host and port. */
async function withSite(browser, dir, fn, { viewport = { width: 1000, height: 700 }, origin } = {}) {
  const server = await startServer(dir);
  const context = await browser.newContext({ viewport });
  // The hosts' own requests to other origins (Material's Google Fonts stylesheet) get an empty answer: the checks run
  // offline, and what they check is the site as served, qpath's files included.
  await context.route((u) => !u.href.startsWith(server.url), (route) => route.fulfill({ status: 200, body: '' }));
  if (origin) {
    await context.route((u) => u.origin === origin, async (route) => {
      const u = new URL(route.request().url());
      await route.fulfill({ response: await route.fetch({ url: server.url + u.pathname + u.search }) });
    });
  }
  const page = await context.newPage();
  const problems = watch(page);
  try {
    return await fn({ page, url: origin ?? server.url, problems, server });
  } finally {
    await context.close();
    await server.stop();
  }
}

async function screenshots(browser, sitesDir) {
  let failed = 0;
  for (const [name, site] of Object.entries(SITES)) {
    for (const theme of Object.keys(site.themes)) {
      const file = path.join(repo, 'docs', Object.keys(site.themes).length > 1 ? `embed-${site.shot}-${theme}.png` : `embed-${site.shot}.png`);
      await withSite(browser, path.join(sitesDir, name, site.out), async ({ page, url }) => {
        await page.goto(url + site.page);
        await rendered(page);
        await hostTheme(page, site, theme);
        await page.emulateMedia({ colorScheme: theme });
        await page.waitForTimeout(500);
        await page.screenshot({ path: file });
      });
      const size = fs.statSync(file).size;
      const ok = size < SHOT_LIMIT;
      failed += ok ? 0 : 1;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${path.relative(repo, file)} (${Math.round(size / 1024)} KB${ok ? '' : `, over ${SHOT_LIMIT / 1024} KB`})`);
    }
  }
  return failed;
}

async function main() {
  const [sitesDir] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  assert.ok(sitesDir, 'usage: node check.mjs SITES_DIR [--screenshots]');
  const browser = await launchChromium();
  try {
    if (process.argv.includes('--screenshots')) return (await screenshots(browser, sitesDir)) ? 1 : 0;
    let passed = Number(process.env.DOCSITES_PASSED ?? 0);
    let failed = Number(process.env.DOCSITES_FAILED ?? 0);
    console.log(`docsites browser checks (Chromium ${browser.version()})`);
    const only = (process.env.QPATH_DOCSITES_ONLY ?? '').split(',').filter(Boolean);
    for (const { name, fn, options } of checks.filter((c) => !only.length || only.some((w) => c.name.includes(w)))) {
      const siteName = name.split(':')[0];
      const dir = path.join(sitesDir, siteName, SITES[siteName].out);
      const started = Date.now();
      try {
        assert.ok(fs.existsSync(path.join(dir, SITES[siteName].page.replace(/\/$/, '/index.html'))), `${dir} was not built`);
        const note = await withSite(browser, dir, fn, options);
        passed += 1;
        console.log(`ok   ${name} (${note ? `${note}; ` : ''}${((Date.now() - started) / 1000).toFixed(1)} s)`);
      } catch (e) {
        failed += 1;
        console.log(`FAIL ${name}: ${e.message}`);
      }
    }
    console.log(`docsites: ${passed} passed, ${failed} failed`);
    return failed > 0 ? 1 : 0;
  } finally {
    await browser.close().catch(() => {});
  }
}

process.exitCode = await main().catch((e) => {
  console.error(`docsites: ${e.stack ?? e}`);
  console.log(`docsites: ${Number(process.env.DOCSITES_PASSED ?? 0)} passed, ${Number(process.env.DOCSITES_FAILED ?? 0) + 1} failed`);
  return 1;
});
