// html_stacks.js - call stacks in memtrack's HTML report, in a real browser (Debian's
// chromium, headless, driven by playwright-core): a leak site's stack and an error's
// allocation stack are closed until clicked (or opened from the keyboard), then show their
// callers; a stack stays with its row when the table is sorted, and the table sorts by
// first caller. The page is rendered by memtrack report from test/report/stacks.json, a
// report of format 4 with stacks (run.sh).
//
//   node html_stacks.js REPORT.html SCREENSHOT.png
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

const [htmlPath, pngPath] = process.argv.slice(2);
const { chromium } = require(require.resolve('playwright-core',
  { paths: [path.dirname(htmlPath)] }));

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}${detail === undefined ? '' : ': ' + JSON.stringify(detail)}`);
  }
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'memtrack-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1200, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto('file://' + htmlPath);

    // ---- a leak site's stack: closed, then clicked open
    const row = page.locator('#leak-table tbody tr', { hasText: 'load_image' });
    const leakStack = row.locator('details.leak-stack');
    const caller = leakStack.locator('li').first();
    check('the leak row has a stack', (await leakStack.count()) === 1);
    check('the stack is closed at first', !(await caller.isVisible()) &&
      (await leakStack.getAttribute('open')) === null);
    check('its summary says how deep it is',
      (await leakStack.locator('summary').innerText()) === 'call stack (1 frame)');
    await leakStack.locator('summary').click();
    check('a click opens it and shows the caller', await caller.isVisible() &&
      (await caller.innerText()) === 'main at shapes.c:30', await caller.innerText());
    const deep = page.locator('#leak-table tbody tr', { hasText: 'parse_config' })
      .locator('details.leak-stack');
    await deep.locator('summary').click();
    const frames = await deep.locator('li').allInnerTexts();
    check('every frame, a library\'s by symbol and module, innermost first',
      JSON.stringify(frames) === JSON.stringify(
        ['settings::load<int>+0x2a (libsettings.so.1)', 'main at shapes.c:29']), frames);
    check('a site made in main has no stack', (await page.locator('#leak-table tbody tr',
      { hasText: 'calloc' }).locator('details').count()) === 0);

    // ---- sorting moves a row with its stack
    await page.locator('#leak-table thead th', { hasText: /^Bytes/ }).click();
    const sorted = await page.$$eval('#leak-table tbody tr', (rows) => rows.map((r) => [
      Number(r.cells[0].dataset.value),
      Array.from(r.querySelectorAll('details.leak-stack li')).map((li) => li.textContent)]));
    check('sorted by bytes, each stack stays with its site', JSON.stringify(sorted) ===
      JSON.stringify([[16, []], [48, frames], [300, ['main at shapes.c:30']]]), sorted);

    await page.locator('#leak-table thead th', { hasText: /^Called from/ }).click();
    const byCaller = await page.$$eval('#leak-table tbody tr',
      (rows) => rows.map((r) => Number(r.cells[0].dataset.value)));
    check('sorted by the first caller', JSON.stringify(byCaller) ===
      JSON.stringify([16, 300, 48]), byCaller);

    // ---- an error's allocation stack, opened from the keyboard
    const error = page.locator('#error-table tbody tr').first();
    const alloc = error.locator('details.alloc-stack');
    const allocCaller = alloc.locator('li').first();
    check('the error shows its allocation stack closed', (await alloc.count()) === 1 &&
      !(await allocCaller.isVisible()));
    await alloc.locator('summary').focus();
    await page.keyboard.press('Enter');
    check('Enter opens it: the caller that allocated the block', await allocCaller.isVisible() &&
      (await allocCaller.innerText()) === 'main at shapes.c:32', await allocCaller.innerText());
    const found = error.locator('details.found-stack');
    check('the stack of the free that found it is still closed',
      !(await found.locator('li').first().isVisible()));
    await found.locator('summary').click();
    check('a click shows who called that free',
      (await found.locator('li').first().innerText()) === 'main at shapes.c:33');
    const release = page.locator('#error-table tbody tr', { hasText: 'double free' })
      .locator('details.release-stack');
    await release.locator('summary').click();
    check('a double free shows the stack of the first release',
      (await release.locator('li').first().innerText()) === 'main at shapes.c:33');
    check('the wrappers are named', /xmalloc \(util\.c:4, found by memtrack's rule\), g_malloc/
      .test(await page.locator('#wrappers-note').innerText()));
    check('the page runs without script errors', pageErrors.length === 0, pageErrors);
    await page.screenshot({ path: pngPath, fullPage: true });
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((e) => {
  failed++;
  console.log(`FAIL browser run: ${e && e.stack ? e.stack : e}`);
}).finally(() => {
  console.log(`browser stacks: ${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
});
