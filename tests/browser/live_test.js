// The live site in headless Chromium (Debian's /usr/bin/chromium, driven by
// puppeteer-core), against a real `arena tournament --serve` that
// tests/browser_live_test.sh started:
//  - the index, opened before the tournament's first match, changes in place
//    as matches finish (three or more distinct "N of M matches played"
//    lines) and reaches the final standings ("M of M", each bot's matches)
//    without a reload (a mark set on the window at the start is still
//    there), with no console or page error;
//  - a live match, opened from the index's link while it is played, holds
//    the match as it is then in the page itself (its live-data is not
//    null), and in its DOM no card that was in a hand then: every card the
//    match's private events had dealt or drawn up to the last step the page
//    shows, and that no public event had shown by then (by name: the game's
//    card names are unique); the set is checked to be non-empty, so a page
//    that showed a hand would fail;
//  - once that match ends, the page is its replay, which shows such cards.
//
// The browser starts first and writes READY_FILE; the tournament is started
// then, and the index is loaded as soon as its server answers.
//
//   node live_test.js SHOTS_DIR URL RECORDS_DIR ARENA_BIN GAMES READY_FILE
'use strict';
const fs = require('fs');
const path = require('path');
const {execFileSync} = require('child_process');
const {launchChromium} = require('./chromium');

const [shots, url, records, arenaBin, gamesArg, readyFile] = process.argv.slice(2);
const GAMES = Number(gamesArg);
const failures = [];
const fail = (what) => { failures.push(what); console.log(`FAIL ${what}`); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Card ids in an event object (fields named in card_fields), recursively.
function cardIds(obj, fields, out) {
  if (Array.isArray(obj)) { obj.forEach((x) => cardIds(x, fields, out)); return out; }
  if (!obj || typeof obj !== 'object') return out;
  for (const [k, v] of Object.entries(obj)) {
    if (fields.has(k) && (typeof v === 'number' || Array.isArray(v))) {
      for (const c of [].concat(v)) if (typeof c === 'number') out.add(c);
    } else {
      cardIds(v, fields, out);
    }
  }
  return out;
}

(async () => {
  fs.mkdirSync(shots, {recursive: true});
  const chromium = await launchChromium();
  const {browser} = chromium;
  const problems = [];
  let finalSeen = false;  // after it, the server stops: the stream's reconnects fail
  const watch = (page, label) => {
    page.on('console', (m) => {
      if (m.type() !== 'error') return;
      if (finalSeen && /ERR_CONNECTION_REFUSED/.test(m.text())) return;
      problems.push(`${label}: console error: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`${label}: page error: ${e.message}`));
  };
  try {
    const index = await browser.newPage();
    await index.setViewport({width: 1280, height: 900});
    fs.writeFileSync(readyFile, 'ready\n');
    // Until the server answers, each attempt ends on Chromium's error page,
    // and a navigation of a refused attempt can still land just after one
    // that worked (seen: "Execution context was destroyed" on the next
    // evaluate). So the page is marked in the same attempt, and taken only
    // if it is the index; the mark then catches a reload of our making.
    const navigations = [];
    index.on('framenavigated', (f) => { if (f === index.mainFrame()) navigations.push(f.url()); });
    for (let k = 0; ; ++k) {
      try {
        await index.goto(url, {waitUntil: 'load', timeout: 60000});
        await index.evaluate(() => { window.arenaNoReload = true; });
        if (await index.evaluate(() => !!document.getElementById('standings-data'))) break;
      } catch (e) {
        if (k > 600) throw new Error(`${e.message} (navigations: ${navigations.slice(-5).join(', ')})`);
        await sleep(50);
      }
    }
    watch(index, 'index');
    const startRecords = fs.readdirSync(records).filter((f) => f.endsWith('.rec')).length;
    if (startRecords !== 0) fail(`the index was opened after ${startRecords} records, not before the first`);
    const summaries = new Set();
    let liveId = null;
    let liveSnap = null;
    let match = null;
    const deadline = Date.now() + 240000;
    while (Date.now() < deadline) {
      const s = await index.evaluate(() => {
        const sum = document.getElementById('summary');
        const links = [...document.querySelectorAll('#live-matches a')].map((a) => a.getAttribute('href'));
        return {summary: sum ? sum.textContent : '', links, mark: !!window.arenaNoReload,
                status: (document.getElementById('live-status') || {}).textContent};
      });
      if (!s.mark) { fail(`the index reloaded (navigations: ${navigations.slice(-5).join(', ')})`); break; }
      if (s.summary) summaries.add(s.summary.replace(/,.*$/, ''));
      // A live match, opened once, mid-play.
      if (!match && s.links.length) {
        liveId = s.links[0].replace(/^live\//, '').replace(/\.html$/, '');
        match = await browser.newPage();
        watch(match, 'live match');
        await match.goto(new URL(s.links[0], url).href, {waitUntil: 'load', timeout: 60000});
        // The page as served, before any event of its stream.
        const held = () => match.evaluate(() => {
          const d = document.getElementById('live-data');
          return d ? d.textContent : (/\/live\//.test(location.href) ? 'no live-data' : 'ended');
        });
        const data = await held();
        if (data === 'null' || data === 'no live-data') fail(`live match page opened mid-match holds live-data ${data}`);
        else console.log(`live match page as served: ${data === 'ended' ? 'the match had ended' : `${data.length} bytes of live-data`}`);
        // Wait for some public events to be shown, then take the DOM.
        for (let k = 0; k < 40; ++k) {
          const n = await match.evaluate(() => document.querySelectorAll('#live-events li').length);
          if (n >= 6 || !/\/live\//.test(match.url())) break;
          await sleep(100);
        }
        if (/\/live\//.test(match.url())) {
          liveSnap = await match.evaluate(() => ({
            cards: [...document.querySelectorAll('[data-card]')].map((x) => Number(x.dataset.card)),
            text: document.body.innerText,
            html: document.documentElement.outerHTML,
            steps: [...document.querySelectorAll('#live-events li')].length,
            maxStep: window.arenaLiveReplay,
          }));
          await match.screenshot({path: path.join(shots, 'live-match.png'), fullPage: true});
        }
      }
      if (s.summary.startsWith(`${GAMES} of ${GAMES} matches played`)) { finalSeen = true; break; }
      await sleep(200);
    }
    await index.screenshot({path: path.join(shots, 'live-index.png'), fullPage: true});
    const final = await index.evaluate(() => ({
      summary: (document.getElementById('summary') || {}).textContent || '',
      rows: [...document.querySelectorAll('#standings tr')].length,
      mark: !!window.arenaNoReload,
    }));
    console.log(`index summaries seen: ${[...summaries].join(' | ')}`);
    if (!final.mark) fail('the index reloaded');
    if (!final.summary.startsWith(`${GAMES} of ${GAMES} matches played`)) fail(`final summary: ${final.summary}`);
    if (summaries.size < 3) fail(`the standings changed ${summaries.size} times, expected 3 or more`);
    if (final.rows < 3) fail(`standings table has ${final.rows} rows`);

    // The live match: no card of any hand in its DOM.
    if (!liveSnap) {
      fail('no live match could be opened mid-play');
    } else {
      // The page's live view: the last step it shows.
      const shown = liveSnap.maxStep;
      const lastStep = shown && shown.steps && shown.steps.length ? Math.max(...shown.steps.map((s) => s.step || 0)) : -1;
      const rec = fs.readdirSync(records).find((f) => f.startsWith(liveId) && f.endsWith('.rec'));
      if (!rec) {
        fail(`no record of ${liveId}`);
      } else {
        const full = JSON.parse(execFileSync(arenaBin, ['replay', path.join(records, rec), '--json=-'],
          {maxBuffer: 1 << 28}).toString());
        const fields = new Set(full.card_fields);
        const names = new Map(full.cards.map((c) => [c.id || 0, c.name]));
        const dealt = new Set(); const open = new Set();
        for (const st of full.steps) {
          if ((st.step || 0) > lastStep) break;
          for (const ev of st.events || []) {
            const vis = ev.visibility || {};
            const ids = cardIds(ev.event, fields, new Set());
            if (vis.is_public) ids.forEach((c) => open.add(c));
            else ids.forEach((c) => dealt.add(c));
            for (const se of ev.seats || []) if (se.redacted) cardIds(se.event, fields, new Set()).forEach((c) => open.add(c));
          }
        }
        const hiddenIds = [...dealt].filter((c) => !open.has(c));
        const hidden = hiddenIds.map((c) => names.get(c)).filter(Boolean);
        console.log(`live match ${liveId} up to step ${lastStep}: ${hidden.length} hidden cards (hands, deck), ` +
          `${liveSnap.steps} lines shown`);
        if (!hidden.length) fail('no hidden card to look for: the check could not fail');
        for (const n of hidden) {
          if (liveSnap.text.includes(n) || liveSnap.html.includes(n)) fail(`live match DOM shows hidden card "${n}"`);
        }
        for (const c of liveSnap.cards) if (hiddenIds.includes(c)) fail(`live match DOM draws hidden card ${c}`);
        // After the end: the page is the replay, and it shows the hands.
        for (let k = 0; k < 100 && /\/live\//.test(match.url()); ++k) await sleep(200);
        if (!/\/replays\//.test(match.url())) {
          fail(`after the match ended the page is ${match.url()}, not its replay`);
        } else {
          await match.waitForFunction(() => window.arenaReplay, {timeout: 60000});
          const drawn = new Set(await match.$$eval('[data-card]', (e) => e.map((x) => Number(x.dataset.card))));
          const text = await match.evaluate(() => document.body.innerText);
          const seen = hiddenIds.filter((c) => drawn.has(c) || text.includes(names.get(c)));
          console.log(`the replay shows ${seen.length} of the ${hiddenIds.length} cards that were hidden`);
          if (!seen.length) fail('the replay shows none of the cards that were in hands');
          await match.screenshot({path: path.join(shots, 'live-match-replay.png'), fullPage: true});
        }
      }
    }
  } finally {
    await chromium.close();
  }
  for (const p of problems) fail(p);
  if (failures.length) {
    console.log(`${failures.length} failure(s)`);
    process.exit(1);
  }
  console.log('live site: all checks passed');
})().catch((e) => { console.error(e); process.exit(1); });
