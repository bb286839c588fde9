// A long match's replay page in headless Chromium (Debian's
// /usr/bin/chromium, driven by puppeteer-core), opened from file:// as the
// static site is: its steps come in chunks (replay-parts), loaded as the
// viewer moves, not all at once; the steps the page rebuilds from its
// chunks equal, step for step, the document `arena replay --json` gives;
// no console error, no page error, no request outside file://.
//
//   node replay_parts_test.js PAGE.html REPLAY.json
'use strict';
const fs = require('fs');
const {launchChromium} = require('./chromium');

const [pagePath, jsonPath] = process.argv.slice(2);
if (!pagePath || !jsonPath) {
  console.error('usage: node replay_parts_test.js PAGE.html REPLAY.json');
  process.exit(2);
}
const failures = [];
const fail = (what) => { failures.push(what); console.log(`FAIL ${what}`); };
// JSON with every object's keys sorted: the page rebuilds objects whose
// keys may come in another order.
const canon = (o) => JSON.stringify(o, (k, v) => (v && typeof v === 'object' && !Array.isArray(v)
  ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v));

(async () => {
  const chromium = await launchChromium();
  const {browser} = chromium;
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!/^(file|data|about):/.test(r.url())) problems.push(`network request: ${r.url()}`); });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  await page.goto(`file://${pagePath}`, {waitUntil: 'load', timeout: 120000});
  await page.waitForFunction(() => window.arenaReplay, {timeout: 120000});
  const parts = await page.evaluate(() => window.arenaReplay.parts);
  const want = JSON.parse(fs.readFileSync(jsonPath, 'utf8'));
  console.log(`parts: ${JSON.stringify(parts)}; ${want.steps.length} steps`);
  if (!parts || parts.inline || parts.chunks < 3) fail(`not a page in parts of 3 chunks or more: ${JSON.stringify(parts)}`);
  else {
    if (parts.positions !== want.steps.length) fail(`${parts.positions} positions, the replay has ${want.steps.length}`);
    let loaded = await page.evaluate(() => window.arenaReplay.chunks());
    if (loaded > 2) fail(`${loaded} chunks loaded at the start`);
    // The middle of the match, by the slider: its chunk comes, the page draws it.
    const mid = Math.floor(parts.positions / 2);
    await page.$eval('#slider', (s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }, mid);
    await page.waitForFunction(() => !document.body.dataset.loading, {timeout: 30000});
    const label = await page.$eval('#pos', (e) => e.textContent);
    if (!label.startsWith(`position ${mid + 1} of ${parts.positions}`)) fail(`at the middle, the label says "${label}"`);
    const events = await page.$$eval('#events .ev', (e) => e.length);
    if (events === 0) fail('no events shown at the middle');
    loaded = await page.evaluate(() => window.arenaReplay.chunks());
    if (loaded >= parts.chunks) fail(`every chunk (${loaded}) loaded to show the middle`);
    console.log(`middle: "${label}", ${events} events, ${loaded} of ${parts.chunks} chunks loaded`);
    // The end: the result.
    await page.keyboard.press('End');
    await page.waitForFunction(() => !document.body.dataset.loading && document.getElementById('score-lines'),
                               {timeout: 30000}).catch(() => fail('no result at the end'));
  }
  // Every step, rebuilt from every chunk, as arena replay --json has it.
  await page.evaluate(() => window.arenaReplay.loadAll());
  const got = JSON.parse(await page.evaluate(() => JSON.stringify(window.arenaReplay.data.steps)));
  if (got.length !== want.steps.length) fail(`${got.length} steps rebuilt, the replay has ${want.steps.length}`);
  // The page carries events in words, not as messages (arena replay --json
  // has both): those are left out of the comparison.
  for (const st of want.steps) {
    for (const e of st.events) {
      delete e.event;
      for (const se of e.seats) delete se.event;
    }
  }
  let differ = 0;
  for (let i = 0; i < want.steps.length; ++i) {
    if (canon(got[i]) !== canon(want.steps[i]) && differ++ < 3) {
      fail(`step at position ${i} differs: ${canon(got[i]).slice(0, 300)} vs ${canon(want.steps[i]).slice(0, 300)}`);
    }
  }
  console.log(`${got.length} steps rebuilt, ${differ} differ from arena replay --json`);
  for (const p of problems) fail(p);
  await chromium.close();
  console.log(failures.length ? `${failures.length} FAILED` : 'PASS');
  process.exit(failures.length ? 1 : 0);
})().catch((e) => { console.log(`FAIL ${e.stack || e}`); process.exit(1); });
