// html_report.js - checks memtrack's HTML report in a real browser (Debian's chromium,
// headless, driven by playwright-core): the page loads nothing from the network, the
// summary, the plot's peak and the leak table show the numbers of the JSON report written
// by the same run, a leak's call stack opens on click to its caller, the table sorts when
// a column is clicked, the bars are in proportion, and a screenshot of the page is a real
// picture (not blank, the plot and bars drawn).
//
//   node html_report.js REPORT.html REPORT.json SCREENSHOT.png
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

const [htmlPath, jsonPath, pngPath] = process.argv.slice(2);
const outDir = path.dirname(htmlPath);
const { chromium } = require(require.resolve('playwright-core', { paths: [outDir] }));
const report = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));

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

// The same sizes the report prints (src/buf.c mt_buf_size).
function size(bytes) {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? 'byte' : 'bytes'}`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let u = 0;
  let scale = 1024;
  while (u + 1 < units.length && Math.floor(bytes / scale) >= 1024) {
    scale *= 1024;
    u++;
  }
  return `${Math.floor(bytes / scale)}.${Math.floor(((bytes % scale) * 10) / scale)} ${units[u]}`;
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
    const requests = [];
    page.on('request', (r) => requests.push(r.url()));
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto('file://' + htmlPath);

    const st = report.statistics;
    const sites = report.leaks.sites;

    // ---- self-contained
    const foreign = requests.filter((u) => !u.startsWith('file://'));
    check('the page loads nothing but itself', foreign.length === 0 && requests.length === 1,
      requests);
    check('the page runs without script errors', pageErrors.length === 0, pageErrors);
    check('title names the program', (await page.title()) === `memtrack: ${report.program}`,
      await page.title());

    // ---- summary
    const card = async (id) => page.locator(`#${id}`).getAttribute('data-value');
    check('leaked bytes card = JSON', Number(await card('leaked-bytes')) === report.leaks.bytes);
    check('leaked bytes shown exactly',
      (await page.locator('#leaked-bytes .exact').innerText()) === `${report.leaks.bytes} bytes`,
      await page.locator('#leaked-bytes .exact').innerText());
    check('leaked bytes shown readably',
      (await page.locator('#leaked-bytes .value').innerText()) === size(report.leaks.bytes));
    check('leaked blocks card = JSON', Number(await card('leaked-blocks')) === report.leaks.blocks);
    check('errors card = JSON', Number(await card('error-count')) === report.errors.total &&
      report.errors.total === 2);
    check('peak card = JSON', Number(await card('peak-bytes')) === st.peak_bytes);
    check('status says errors were found',
      (await page.locator('header .status').innerText()) === 'errors found');

    // ---- the plot: the peak marker sits on the highest point of the line
    const plot = await page.evaluate(() => {
      const pts = document.querySelector('#live-bytes').getAttribute('points').trim()
        .split(/\s+/).map((p) => p.split(',').map(Number));
      const m = document.querySelector('#peak-marker');
      return {
        points: pts,
        cx: Number(m.getAttribute('cx')),
        cy: Number(m.getAttribute('cy')),
        bytes: Number(m.dataset.bytes),
        event: Number(m.dataset.event),
        label: document.querySelector('#peak-label').textContent,
      };
    });
    // The program's peak: 300 blocks of 40 bytes, while a level was loaded.
    check('peak is the known 12000 bytes', st.peak_bytes === 12000 &&
      report.timeline.peak.bytes === 12000, report.timeline.peak);
    check('peak marker holds the JSON peak', plot.bytes === report.timeline.peak.bytes &&
      plot.event === report.timeline.peak.event);
    check('peak label reads the right numbers',
      plot.label === `peak ${size(12000)} (12000 bytes) in 300 blocks`, plot.label);
    const highest = Math.min(...plot.points.map((p) => p[1]));
    check('marker is at the highest point of the line', plot.cy === highest &&
      plot.points.some((p) => p[0] === plot.cx && p[1] === plot.cy), { cy: plot.cy, highest });
    check('the line has every sample', plot.points.length >= report.timeline.samples.length &&
      plot.points.length <= report.timeline.samples.length + 1);
    const last = plot.points[plot.points.length - 1];
    check('the line ends lower than the peak (memory was freed)', last[1] > plot.cy);
    const svgBox = await page.locator('#timeline-plot').boundingBox();
    const markerBox = await page.locator('#peak-marker').boundingBox();
    check('the marker is drawn inside the plot', markerBox !== null &&
      markerBox.x >= svgBox.x && markerBox.x + markerBox.width <= svgBox.x + svgBox.width &&
      markerBox.y >= svgBox.y && markerBox.y + markerBox.height <= svgBox.y + svgBox.height);

    // ---- the leak table
    const column = (index) => page.$$eval('#leak-table tbody tr', (rows, i) =>
      rows.map((r) => r.cells[i].dataset.value !== undefined ? Number(r.cells[i].dataset.value)
        : r.cells[i].textContent), index);
    const bytes0 = await column(0);
    // Six sites, seven rows: leaks are grouped by site and call stack, and texture() leaks
    // from two lines of main.
    check('one row per leak site and stack', bytes0.length === sites.length &&
      sites.length === 7, bytes0.length);
    check('rows show the JSON bytes, largest first',
      JSON.stringify(bytes0) === JSON.stringify(sites.map((s) => s.bytes)), bytes0);
    check('rows show the JSON blocks',
      JSON.stringify(await column(1)) === JSON.stringify(sites.map((s) => s.blocks)));
    check('rows show file:line',
      JSON.stringify(await column(2)) === JSON.stringify(sites.map((s) => `${s.file}:${s.line}`)),
      await column(2));
    // Every leak of this program is lost (main returned): the leak scan's class, as the JSON
    // says, and no holder.
    const classes = await page.$$eval('#leak-table tbody td.class', (cells) =>
      cells.map((c) => c.textContent));
    check('each row shows its class, as the JSON does', sites.every((s) => s.class === 'lost') &&
      JSON.stringify(classes) === JSON.stringify(sites.map(() => 'lost')), classes);
    check('the largest site is texture(), 4 blocks from main', sites[0].function === 'texture' &&
      sites[0].bytes === 4000 && sites[0].blocks === 4 && sites[0].stack.length === 1 &&
      sites[0].stack[0].function === 'main' && sites[0].stack[0].line === 23, sites[0]);
    // Its stack, closed until clicked, names the line of main that called texture().
    const stack = page.locator('#leak-table tbody tr').first().locator('details.leak-stack');
    const caller = stack.locator('li').first();
    check('its call stack is closed at first', !(await caller.isVisible()));
    await stack.locator('summary').click();
    check('a click on it shows the caller', await caller.isVisible() &&
      (await caller.innerText()) === `main at ${sites[0].stack[0].file}:23`,
      await caller.innerText());

    const header = (text) => page.locator('#leak-table thead th', { hasText: new RegExp(`^${text}`) });
    await header('Bytes').click();
    const up = await column(0);
    check('click on Bytes sorts ascending', JSON.stringify(up) ===
      JSON.stringify([...bytes0].sort((a, b) => a - b)), up);
    check('the header shows the order',
      (await header('Bytes').getAttribute('aria-sort')) === 'ascending');
    await header('Bytes').click();
    check('a second click sorts descending',
      JSON.stringify(await column(0)) === JSON.stringify([...bytes0].sort((a, b) => b - a)));
    await header('Site').click();
    const bySite = await column(2);
    const sorted = [...bySite].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
    check('click on Site sorts by file:line text', JSON.stringify(bySite) ===
      JSON.stringify(sorted), bySite);
    check('rows stay whole when sorted', JSON.stringify((await column(0)).slice().sort()) ===
      JSON.stringify(bytes0.slice().sort()));

    // ---- the bars: one per site, widths in proportion to bytes
    const bars = await page.$$eval('#top-sites .bar-row', (rows) => rows.map((r) => ({
      bytes: Number(r.dataset.bytes),
      ratio: r.querySelector('.bar').getBoundingClientRect().width /
        r.querySelector('.bar-track').getBoundingClientRect().width,
    })));
    check('one bar per site (up to 10)', bars.length === Math.min(10, sites.length));
    const max = sites[0].bytes;
    check('bar widths follow bytes', bars.every((b, i) => b.bytes === sites[i].bytes &&
      Math.abs(b.ratio - Math.max(b.bytes / max, 0)) < 0.01 + 2 / 600), bars);

    // ---- errors
    const kinds = await page.$$eval('#error-table tbody tr', (rows) =>
      rows.map((r) => r.cells[0].textContent));
    check('errors listed with their kinds', JSON.stringify(kinds) ===
      JSON.stringify(report.errors.list.map((e) => e.kind)) && kinds.length === 2, kinds);

    // ---- the picture
    await header('Bytes').click(); // back to largest first for the picture
    await header('Bytes').click();
    const png = await page.screenshot({ path: pngPath, fullPage: true });
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    check('screenshot is a PNG of the full page', png.slice(1, 4).toString() === 'PNG' &&
      width === 1200 && height > 900, { width, height });
    const pixels = await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = 'data:image/png;base64,' + b64;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d');
      g.drawImage(img, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      let ink = 0;
      let blue = 0;
      let orange = 0;
      const colors = new Set();
      for (let i = 0; i < d.length; i += 4) {
        const [r, gr, bl] = [d[i], d[i + 1], d[i + 2]];
        if (Math.abs(r - 0xf6) + Math.abs(gr - 0xf7) + Math.abs(bl - 0xf9) > 30 &&
            !(r > 250 && gr > 250 && bl > 250)) ink++;
        if (Math.abs(r - 0x25) + Math.abs(gr - 0x63) + Math.abs(bl - 0xeb) < 40) blue++;
        if (Math.abs(r - 0xc2) + Math.abs(gr - 0x41) + Math.abs(bl - 0x0c) < 40) orange++;
        if (i % 64 === 0) colors.add((r << 16) | (gr << 8) | bl);
      }
      return { ink: ink / (d.length / 4), blue, orange, colors: colors.size };
    }, png.toString('base64'));
    check('screenshot is not blank', pixels.ink > 0.05 && pixels.colors > 50, pixels);
    check('screenshot shows the plotted line', pixels.blue > 500, pixels);
    check('screenshot shows the bars and the peak', pixels.orange > 2000, pixels);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((e) => {
  failed++;
  console.log(`FAIL browser run: ${e && e.stack ? e.stack : e}`);
}).finally(() => {
  console.log(`browser: ${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
});
