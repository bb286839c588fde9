// Bots' notes on a static replay page in headless Chromium, opened from
// file://: with notes (arena html --show_notes) each shows as text beside
// its decision, markup and script included, and none runs (no dialog, no
// element made from a note, no page error); without notes, none shows.
//
//   node notes_test.js PAGE.html yes|no [POSITIONS]
'use strict';
const {launchChromium} = require('./chromium');

const [pagePath, expect, maxArg] = process.argv.slice(2);
if (!pagePath || !['yes', 'no'].includes(expect)) {
  console.error('usage: node notes_test.js PAGE.html yes|no [POSITIONS]');
  process.exit(2);
}
const failures = [];
const fail = (what) => { failures.push(what); console.log(`FAIL ${what}`); };

(async () => {
  const chromium = await launchChromium();
  const page = await chromium.browser.newPage();
  page.on('dialog', async (d) => { fail(`a dialog opened: ${d.message()}`); await d.dismiss(); });
  page.on('pageerror', (e) => fail(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') fail(`console error: ${m.text()}`); });
  await page.goto(`file://${pagePath}`, {waitUntil: 'load', timeout: 120000});
  await page.waitForFunction(() => window.arenaReplay, {timeout: 120000});
  const notes = [];
  const positions = Number(maxArg || 40);
  for (let p = 0; p < positions; ++p) {
    await page.waitForFunction(() => !document.body.dataset.loading, {timeout: 30000});
    const shown = await page.$$eval('#decision .note', (e) => e.map((n) => n.textContent));
    const made = await page.$$eval('#decision .note *', (e) => e.map((n) => n.tagName)
      .filter((t) => t !== 'BDI' && t !== 'SPAN'));
    if (made.length) fail(`position ${p}: elements made from a note: ${made.join(', ')}`);
    notes.push(...shown);
    await page.keyboard.press('ArrowRight');
  }
  // A note's onerror handler would have run by now, had its <img> been made.
  await new Promise((r) => setTimeout(r, 300));
  if (await page.$('img[src="x"]')) fail('an <img> from a note is in the page');
  console.log(`${notes.length} notes shown over ${positions} positions`);
  for (const n of notes.slice(0, 8)) console.log(`  ${n.slice(0, 120)}`);
  if (expect === 'no' && notes.length) fail(`${notes.length} notes shown without --show_notes`);
  if (expect === 'yes') {
    if (!notes.some((n) => n.includes("<script>alert('note')</script><img src=x onerror=alert(1)>"))) {
      fail('the note with markup is not shown as text');
    }
    if (!notes.some((n) => n.includes('\uFFFD[31mred'))) fail('the note with a terminal escape is not shown, replaced');
    if (!notes.some((n) => /more bytes cut\]$/.test(n))) fail('no cut note says how much was cut');
  }
  await chromium.close();
  console.log(failures.length ? `${failures.length} failures` : 'PASS');
  process.exit(failures.length ? 1 : 0);
})().catch((e) => { console.error(e); process.exit(1); });
