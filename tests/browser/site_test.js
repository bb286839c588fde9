// Opens the HTML sites that `arena html` wrote in headless Chromium (Debian's
// /usr/bin/chromium, driven by puppeteer-core) and checks them:
//  - every page loads with no console error, no page error and no request
//    outside file:// (the site works offline);
//  - the tournament page draws its standings, head-to-head and charts, and
//    none of the defects the site once had: no "undefined" or "NaN" text, faults in
//    words (no raw JSON), one rank column, every rating dot and interval
//    inside its chart's axis box, withdrawn bots named;
//  - a replay page says when a bot was withdrawn (a NO_SHOW forfeit), and
//    shows the seats' ratings with intervals inside their axis boxes;
//  - as each seat, at every position, the seat's hand and table are drawn
//    as cards (every card of its view, and no field list), and no text reads
//    "undefined";
//  - a replay page steps with the keys and the slider, to the score lines;
//  - as each seat, at every position, no card that is in another seat's
//    hand and that this seat was never shown appears on the page (as a
//    drawn card, or by name for games whose card names are unique); the same
//    check on the omniscient view must find such cards (so it can fail);
//  - every tournament page fits a 1280 px window (document.scrollWidth),
//    shows each bot's rank interval, and no ahead-tied-behind count or
//    rank interval wraps;
//  - a wide site (wide=DIR: a tournament of many bots, two of them
//    withdrawn) has compact matrices, its withdrawn bots in a table of
//    their own and off the ratings chart, and no head-to-head result
//    between two withdrawn bots. Its replays are not checked (the other
//    sites do that);
//  - an adaptive contest's site (adaptive=DIR) names every comparison of
//    its target that schedule.json says is undecided (and there are some);
//  - drawn as a live page whose standings lag the records (1 of 22), the
//    summary counts the 22 records and a line says the standings are of 1;
//    a row of rank 0 is unranked: no rank, rating or interval, off the
//    ratings chart.
// Screenshots go to SHOTS_DIR.
//
//   node site_test.js SHOTS_DIR [wide=|adaptive=]SITE_DIR...
'use strict';
const fs = require('fs');
const path = require('path');
const {launchChromium} = require('./chromium');

const [shots, ...sites] = process.argv.slice(2);
if (!shots || !sites.length) {
  console.error('usage: node site_test.js SHOTS_DIR SITE_DIR...');
  process.exit(2);
}
fs.mkdirSync(shots, {recursive: true});
const failures = [];
const fail = (what) => { failures.push(what); console.log(`FAIL ${what}`); };

async function open(browser, url, label) {
  const page = await browser.newPage();
  await page.setViewport({width: 1280, height: 900});
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!/^(file|data|about):/.test(r.url())) problems.push(`network request: ${r.url()}`);
  });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  await page.goto(url, {waitUntil: 'load', timeout: 120000});
  if (/replays\//.test(url)) {
    await page.waitForFunction(() => window.arenaReplay, {timeout: 120000});
    // A long match's page loads its steps in chunks as the viewer moves;
    // the checks below read every step (and first see that it did not
    // load them all at once).
    const parts = await page.evaluate(() => ({parts: window.arenaReplay.parts,
                                               loaded: window.arenaReplay.chunks()}));
    if (parts.parts && parts.parts.chunks > 2 && parts.loaded >= parts.parts.chunks) {
      problems.push(`all ${parts.loaded} chunks of steps loaded at once`);
    }
    await page.evaluate(() => window.arenaReplay.loadAll());
  }
  return {page, problems, label};
}

function checkProblems(p) {
  for (const x of p.problems) fail(`${p.label}: ${x}`);
  p.problems.length = 0;
}

// In the page: for `seat` (or -1), at every position, the cards on the page
// that another seat holds and `viewer` was never shown.
// `told`: each position's events as arena replay --json has them (the page
// holds their words, not the messages), for what the viewer was told.
function leakScan(viewer, seat, uniqueNames, told) {
  const R = window.arenaReplay.data;
  const cardFields = new Set(R.card_fields);
  const ints = (o, out) => {
    if (Array.isArray(o)) { o.forEach((x) => ints(x, out)); return out; }
    if (o && typeof o === 'object') {
      for (const [k, v] of Object.entries(o)) {
        if (cardFields.has(k)) {
          if (Array.isArray(v)) v.forEach((x) => typeof x === 'number' && out.add(x));
          else if (typeof v === 'number') out.add(v);
        } else if (typeof v === 'object') ints(v, out);
      }
    }
    return out;
  };
  const hand = (view) => {
    const g = view && Object.entries(view).find(([k]) => k !== 'events');
    return g && Array.isArray(g[1].hand) ? g[1].hand : [];
  };
  const N = R.header.num_seats;
  const shown = new Set();  // everything `viewer` was shown so far
  const leaks = [];
  const drawnBad = [];
  let cardsDrawn = 0;
  let checked = 0;
  window.arenaReplay.setSeat(seat);
  for (let p = 0; p < R.steps.length; ++p) {
    const st = R.steps[p];
    ints(st.views[viewer], shown);
    for (const e of told[p]) {
      const se = e.seats[viewer];
      if (se && se.sees) ints(se.redacted ? se.event : e.event, shown);
    }
    const hidden = new Set();
    for (let t = 0; t < N; ++t) {
      if (t === viewer) continue;
      for (const c of hand(st.views[t])) if (!shown.has(c)) hidden.add(c);
    }
    window.arenaReplay.go(p);
    const app = document.getElementById('app');
    if (seat >= 0) {
      // The seat's view drawn as cards: every card of it, its hand as a hand.
      const view = st.views[viewer];
      const want = [...ints(view, new Set())].filter((x) => x >= 0).length;
      const ids = [];
      ints(view, {add: (x) => ids.push(x)});
      const expected = ids.filter((x) => x >= 0).length;
      const drawn = document.querySelectorAll('#board .pcard[data-card]').length;
      if (drawn !== expected) drawnBad.push(`position ${p}: ${drawn} cards drawn, the view holds ${expected} (${want} distinct)`);
      const h = hand(view).length;
      const handDrawn = document.querySelectorAll(`#board [data-seat="${seat}"] .hand .pcard`).length;
      if (handDrawn !== h) drawnBad.push(`position ${p}: hand of ${h} drawn as ${handDrawn} cards`);
      if (document.querySelector('#board table.kv')) drawnBad.push(`position ${p}: a field list in the table`);
      cardsDrawn += drawn;
    }
    if (/undefined|NaN/.test(app.innerText)) drawnBad.push(`position ${p}: the page reads "undefined" or "NaN"`);
    for (const chip of app.querySelectorAll('[data-card]')) {
      const c = Number(chip.dataset.card);
      if (hidden.has(c)) leaks.push(`position ${p}: card ${c} (${R.cards[c].name}) drawn`);
    }
    if (uniqueNames) {
      // The game's parts of the page (not the key help: "End" is a card).
      const text = ['decision', 'events', 'board', 'result']
        .map((id) => document.getElementById(id).innerText).join('\n');
      for (const c of hidden) {
        const name = R.cards[c].name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        if (new RegExp(`(^|[^\\w])${name}($|[^\\w])`).test(text)) {
          leaks.push(`position ${p}: card ${c} (${R.cards[c].name}) named`);
        }
      }
    }
    checked += hidden.size;
  }
  return {leaks: leaks.slice(0, 5), count: leaks.length, checked, positions: R.steps.length,
          drawnBad: drawnBad.slice(0, 5), drawnBadCount: drawnBad.length, cardsDrawn};
}

// In the page: each dot and interval bar of the charts matching `sel` that
// is not inside its chart's axis box (.axis-box).
function outsideAxis(sel) {
  const out = [];
  for (const chart of document.querySelectorAll(sel)) {
    const box = chart.querySelector('.axis-box');
    if (!box) { out.push('no axis box'); continue; }
    const b = box.getBoundingClientRect();
    for (const m of chart.querySelectorAll('circle, line.interval')) {
      const r = m.getBoundingClientRect();
      if (!(r.width >= 0) || Number.isNaN(r.left)) { out.push(`a ${m.tagName} with no place`); continue; }
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) {
        const t = m.querySelector('title');
        out.push(`${m.tagName} ${t ? t.textContent : ''} at [${Math.round(r.left)}, ${Math.round(r.right)}] ` +
                 `outside the axis box [${Math.round(b.left)}, ${Math.round(b.right)}]`);
      }
    }
  }
  return out;
}

// In the page: what a page of many bots needs to fit 1280 px. `wide`: the
// checks of a wide site (compact matrices, withdrawn bots apart).
function layoutDefects(wide) {
  const out = [];
  const width = document.documentElement.scrollWidth;
  if (width > 1280) out.push(`the page is ${width} px wide (more than 1280)`);
  const S = JSON.parse(document.getElementById('standings-data').textContent);
  // Rank intervals: a "95% ranks" column with one cell per bot shown.
  for (const id of ['standings', 'withdrawn-standings']) {
    const t = document.getElementById(id);
    if (!t) continue;
    const heads = [...t.rows[0].cells].map((c) => c.textContent.trim());
    const k = heads.indexOf('95% ranks');
    if (k < 0) { out.push(`#${id}: no rank interval column (${heads.join(' | ')})`); continue; }
    for (const tr of [...t.rows].slice(1)) {
      const r = S.rows.find((x) => x.bot === tr.dataset.bot);
      const want = r.rank_low === r.rank_high ? `${r.rank_low}` : `${r.rank_low}\u2013${r.rank_high}`;
      if (tr.cells[k].textContent !== want) out.push(`${r.bot}: rank interval "${tr.cells[k].textContent}", expected "${want}"`);
    }
  }
  // Text that must stay on one line: ahead-tied-behind counts, intervals.
  const lines = (e) => {
    const range = document.createRange();
    range.selectNodeContents(e);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
  };
  for (const e of document.querySelectorAll('#head-to-head td div, #standings td.num, #withdrawn-standings td.num')) {
    if (lines(e) > 1) out.push(`"${e.textContent}" wraps`);
  }
  if (!wide) return out;
  const gone = S.rows.filter((r) => r.withdrawn).map((r) => r.bot);
  if (gone.length < 2) out.push(`${gone.length} withdrawn bots; the wide site needs two`);
  for (const b of gone) {
    if (document.querySelector(`#standings tr[data-bot="${CSS.escape(b)}"]`)) out.push(`withdrawn ${b} in the main standings`);
    if (!document.querySelector(`#withdrawn-standings tr[data-bot="${CSS.escape(b)}"]`)) out.push(`withdrawn ${b} not listed apart`);
  }
  const chart = document.getElementById('ratings-chart');
  const labels = chart ? [...chart.querySelectorAll('text')].map((t) => t.textContent) : [];
  for (const b of gone) if (labels.includes(b)) out.push(`withdrawn ${b} on the ratings chart`);
  const dots = chart ? chart.querySelectorAll('circle').length : 0;
  if (dots !== S.rows.length - gone.length) out.push(`ratings chart: ${dots} dots for ${S.rows.length - gone.length} bots not withdrawn`);
  for (const id of ['los', 'head-to-head']) {
    const t = document.getElementById(id);
    if (!t || !t.classList.contains('compact')) out.push(`#${id} is not a compact heatmap`);
  }
  // Between two withdrawn bots the head to head is empty (no one "won"
  // the other's no-show); the rows are numbered as the columns.
  const h = document.getElementById('head-to-head');
  const names = [...h.rows].slice(1).map((tr) => tr.cells[0].title);
  for (const a of gone) {
    for (const b of gone) {
      if (a === b) continue;
      const cell = h.rows[names.indexOf(a) + 1].cells[names.indexOf(b) + 1];
      if (!cell.classList.contains('none')) out.push(`head to head shows ${a} against ${b}: ${cell.title}`);
    }
  }
  if (!/Surely ahead \(95%, Holm over \d+ pairs\)/.test((document.getElementById('surely') || {}).textContent || '')) {
    out.push('no "surely ahead" statement');
  }
  if (!/matches per bot/.test((document.getElementById('balance') || {}).textContent || '')) out.push('no balance line');
  return out;
}

// In the page: the defects the tournament page once had.
function indexDefects() {
  const out = [];
  const text = document.getElementById('app').innerText;
  for (const bad of ['undefined', 'NaN', '[object Object]']) {
    const i = text.indexOf(bad);
    if (i >= 0) out.push(`the page reads "${bad}": …${text.slice(Math.max(0, i - 60), i + 20)}`);
  }
  const t = document.getElementById('standings');
  if (!t) return out.concat(['no standings table']);
  const heads = [...t.rows[0].cells].map((c) => c.textContent.trim());
  const ranks = heads.filter((h) => h === 'rank').length;
  if (ranks !== 1) out.push(`${ranks} rank columns (${heads.join(' | ')})`);
  for (const c of t.querySelectorAll('td')) {
    if (/[{}"]/.test(c.textContent)) out.push(`raw JSON in a standings cell: ${c.textContent.slice(0, 80)}`);
  }
  const S = JSON.parse(document.getElementById('standings-data').textContent);
  for (const r of S.rows) {
    const rowOf = (b) => document.querySelector(`#standings tr[data-bot="${CSS.escape(b)}"], #withdrawn-standings tr[data-bot="${CSS.escape(b)}"]`);
    const cell = rowOf(r.bot) && rowOf(r.bot).querySelector('td[data-col="faults"]');
    if (!cell) { out.push(`${r.bot}: no faults cell`); continue; }
    const kinds = Object.entries(r.fault_kinds || {}).filter(([, n]) => n > 0);
    for (const [k, n] of kinds) {
      const word = {timeout: 'timeout', illegal: 'illegal move', disconnected: 'disconnection', unavailable: 'unavailable',
                    crashed: 'crash', no_show: 'no-show', cut_off: 'cut-off'}[k] || k;
      if (!cell.textContent.includes(`${n} ${word}`)) out.push(`${r.bot}: faults cell "${cell.textContent}" does not say ${n} ${k}`);
    }
    if (!kinds.length && cell.textContent !== 'none') out.push(`${r.bot}: faults cell "${cell.textContent}" for no faults`);
    if (r.withdrawn && !rowOf(r.bot).textContent.includes('withdrawn')) {
      out.push(`${r.bot} is withdrawn and its row does not say so`);
    }
  }
  return out;
}

(async () => {
  const chromium = await launchChromium(['--allow-file-access-from-files']);
  const {browser} = chromium;
  try {
    for (const arg of sites) {
      const wide = arg.startsWith('wide=');
      const adaptive = arg.startsWith('adaptive=');
      const site = wide ? arg.slice(5) : adaptive ? arg.slice(9) : arg;
      const index = path.resolve(site, 'index.html');
      const idx = await open(browser, `file://${index}`, index);
      const game = await idx.page.evaluate(() => document.querySelector('h1').textContent.replace('Tournament: ', ''));
      for (const id of ['standings', 'head-to-head', 'score-chart', 'seat-chart', 'matches']) {
        if (!(await idx.page.$(`#${id}`))) fail(`${index}: no #${id}`);
      }
      // Ratings with interval bars, when standings.json holds them.
      const rated = await idx.page.evaluate(() => {
        const s = JSON.parse(document.getElementById('standings-data').textContent);
        return s && s.rows.length && 'elo' in s.rows[0] ? s.rows.length : 0;
      });
      if (!rated) fail(`${index}: standings.json holds no ratings (elo)`);
      if (rated) {
        const dots = await idx.page.$$eval('#ratings-chart circle', (c) => c.length);
        const intervals = await idx.page.$$eval('#ratings-chart line.interval', (l) => l.length);
        const shown = rated - await idx.page.evaluate(() => JSON.parse(document.getElementById('standings-data').textContent)
          .rows.filter((r) => r.withdrawn).length);
        if (dots !== shown || intervals !== shown) fail(`${index}: ratings chart: ${dots} dots, ${intervals} intervals for ${shown} bots not withdrawn`);
        else console.log(`${game}: ratings chart with ${shown} interval bars`);
        for (const o of await idx.page.evaluate(outsideAxis, '#ratings-chart')) fail(`${index}: ratings chart: ${o}`);
        const chart = await idx.page.$('#ratings-chart');
        await chart.screenshot({path: path.join(shots, `${game}-ratings.png`)});
      }
      for (const d of await idx.page.evaluate(indexDefects)) fail(`${index}: ${d}`);
      for (const d of await idx.page.evaluate(layoutDefects, wide)) fail(`${index}: ${d}`);
      if (wide) {
        const w = await idx.page.evaluate(() => document.documentElement.scrollWidth);
        console.log(`${game} (wide, ${rated} bots): ${w} px wide at 1280`);
        // Down to the head to head (the list of matches below is long).
        const bottom = await idx.page.evaluate(() => {
          const r = document.getElementById('head-to-head').getBoundingClientRect();
          return Math.ceil(r.bottom + window.scrollY + 10);
        });
        await idx.page.screenshot({path: path.join(shots, `${game}-wide-standings.png`),
                                   clip: {x: 0, y: 0, width: 1280, height: bottom}, captureBeyondViewport: true});
        checkProblems(idx);
        await idx.page.close();
        continue;
      }
      if (adaptive) {
        const a = await idx.page.evaluate(() => {
          const plan = JSON.parse(document.getElementById('schedule-data').textContent);
          const t = document.getElementById('undecided');
          return {plan, rows: t ? [...t.rows].slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)) : [],
                  words: (document.getElementById('undecided-words') || {}).textContent || '',
                  text: (document.getElementById('schedule') || {}).innerText || ''};
        });
        const open = a.plan && a.plan.kind === 'SCHEDULE_KIND_ADAPTIVE' ? a.plan.comparisons.filter((c) => !c.separated) : [];
        if (!open.length) fail(`${index}: schedule.json has no undecided comparison: the check could not fail`);
        for (const c of open) {
          if (!a.rows.some((r) => r[0] === c.ahead && r[1] === c.behind)) fail(`${index}: undecided ${c.ahead} vs ${c.behind} not in #undecided`);
          if (!a.words.includes(`${c.ahead} ahead of ${c.behind}?`)) fail(`${index}: undecided ${c.ahead} vs ${c.behind} not named: "${a.words}"`);
        }
        if (a.rows.length !== open.length) fail(`${index}: ${a.rows.length} undecided rows for ${open.length} undecided comparisons`);
        if (!/budget spent/.test(a.text)) fail(`${index}: the schedule does not say why it stopped: "${a.text}"`);
        console.log(`${game} (adaptive): ${a.words}`);
        for (const d of await idx.page.evaluate(indexDefects)) fail(`${index}: ${d}`);
        await idx.page.screenshot({path: path.join(shots, `${game}-adaptive.png`), fullPage: true});
        checkProblems(idx);
        await idx.page.close();
        continue;
      }
      // Drawn as a live page whose standings are of 1 of 22 records (and
      // one record that does not verify), its last bot not withdrawn
      // unranked: the summary counts the records, a line says how far
      // behind the standings are (none once they caught up), and the
      // unranked bot has no rank, rating or interval and is off the chart.
      const lag = await idx.page.evaluate(() => {
        const ST = JSON.parse(document.getElementById('standings-data').textContent);
        const MATCHES = JSON.parse(document.getElementById('matches-data').textContent);
        const last = ST.rows.filter((r) => !r.withdrawn).pop().bot;
        const none = {rank: 0, rank_low: 0, rank_high: 0, elo: 0, elo_low: 0, elo_high: 0, matches: 0};
        const lagging = Object.assign({}, ST, {matches_played: 1, matches_planned: 0,
          rows: ST.rows.map((r) => (r.bot === last ? Object.assign({}, r, none) : r))});
        const SUM = {records: 23, errors: 1, bots: {}, by_seat: []};
        const text = (id) => (document.getElementById(id) || {}).textContent || '';
        let out;
        try {
          window.arenaRenderIndex(lagging, MATCHES, SUM);
          const row = document.querySelector(`#standings tr[data-bot="${CSS.escape(last)}"]`);
          const chart = document.getElementById('ratings-chart');
          out = {summary: text('summary'), note: text('standings-lag'), unranked: text('unranked-note'), last,
                 row: row ? [...row.cells].map((c) => c.textContent) : null,
                 onChart: chart ? [...chart.querySelectorAll('text')].some((t) => t.textContent === last) : null};
          window.arenaRenderIndex(Object.assign({}, ST, {matches_played: 22}), MATCHES, SUM);
          out.caughtUp = text('standings-lag');
        } catch (e) {
          out = {error: String(e)};
        }
        window.arenaRenderIndex(ST, MATCHES);
        return out;
      });
      if (lag.error) fail(`${index}: drawn as a lagging live page: ${lag.error}`);
      else {
        if (!lag.summary.startsWith('22 of 22 matches played')) fail(`${index}: live summary "${lag.summary}" with 22 whole records`);
        if (lag.note !== 'Standings of 1 of 22 records; rebuilding.') fail(`${index}: lagging standings say "${lag.note}"`);
        if (lag.caughtUp) fail(`${index}: standings of every record still say "${lag.caughtUp}"`);
        if (!lag.row) fail(`${index}: no row of ${lag.last}`);
        else {
          if (lag.row[0] !== '\u2013') fail(`${index}: unranked ${lag.last} has rank "${lag.row[0]}"`);
          if (!lag.row.some((c) => c.includes('unranked'))) fail(`${index}: ${lag.last}'s row does not say unranked: ${lag.row.join(' | ')}`);
          if (lag.row.some((c) => /\[|1328/.test(c))) fail(`${index}: unranked ${lag.last} shows an interval: ${lag.row.join(' | ')}`);
        }
        if (lag.onChart !== false) fail(`${index}: unranked ${lag.last} on the ratings chart (${lag.onChart})`);
        if (!lag.unranked.startsWith('1 unranked')) fail(`${index}: unranked note "${lag.unranked}"`);
      }
      const bars = await idx.page.$$eval('#score-chart rect', (r) => r.length);
      if (bars === 0) fail(`${index}: the score chart has no boxes`);
      // A live page's summary of a contest of 700,000 scores a bot: counted
      // by value, a dot for each value, the quartiles those of the whole
      // list (worked out by hand: 400,000 ones, then 300,000 twos).
      const big = await idx.page.evaluate(() => {
        const ST = JSON.parse(document.getElementById('standings-data').textContent);
        const MATCHES = JSON.parse(document.getElementById('matches-data').textContent);
        const SUM = {records: 700000, bots: {}, by_seat: []};
        for (const r of ST.rows) SUM.bots[r.bot] = {scores: [{score: 2, count: 300000}, {score: 1, count: 400000}]};
        let out;
        try {
          window.arenaRenderIndex(ST, [], SUM);
          const c = document.getElementById('score-chart');
          out = {dots: c.querySelectorAll('circle').length, bots: ST.rows.length, first: ST.rows[0].bot,
                 titles: [...c.querySelectorAll('title')].map((t) => t.textContent)};
        } catch (e) {
          out = {error: String(e)};
        }
        window.arenaRenderIndex(ST, MATCHES);
        return out;
      });
      if (big.error) fail(`${index}: a summary of 700,000 scores a bot: ${big.error}`);
      else {
        if (big.dots !== 2 * big.bots) fail(`${index}: 700,000 scores of 2 values a bot drawn as ${big.dots} dots for ${big.bots} bots`);
        const want = `${big.first}: median 1, quartiles 1 to 2, 700000 scores`;
        if (!big.titles.includes(want)) fail(`${index}: score chart says ${JSON.stringify(big.titles.slice(0, 2))}, expected "${want}"`);
      }
      await idx.page.screenshot({path: path.join(shots, `${game}-standings.png`), fullPage: true});
      // The replay checks below take the first match that was played out;
      // a match forfeited by a withdrawn bot (NO_SHOW) must say so.
      const links = await idx.page.evaluate(() => {
        const M = JSON.parse(document.getElementById('matches-data').textContent);
        const abs = (p) => new URL(p, location.href).href;
        const played = M.find((m) => m.page && !m.forfeit);
        const noShow = M.find((m) => m.page && m.forfeit && m.forfeit.fault === 'FAULT_KIND_NO_SHOW');
        return {played: played ? abs(played.page) : null,
                noShow: noShow ? {href: abs(noShow.page), bot: noShow.header.seat_bots[noShow.forfeit.seat]} : null,
                withdrawn: JSON.parse(document.getElementById('standings-data').textContent).rows
                  .filter((r) => r.withdrawn).map((r) => r.bot)};
      });
      const replayHref = links.played;
      if (!replayHref) fail(`${index}: no match played out`);
      checkProblems(idx);
      await idx.page.close();
      if (links.withdrawn.length && !links.noShow) fail(`${game}: ${links.withdrawn} withdrawn, and no NO_SHOW match`);
      if (links.noShow) {
        const ns = await open(browser, links.noShow.href, `${game} no-show replay`);
        const notice = await ns.page.$eval('#no-show', (e) => e.innerText).catch(() => '');
        if (!notice.includes(links.noShow.bot) || !/withdrawn/.test(notice)) {
          fail(`${game}: the no-show replay does not say ${links.noShow.bot} was withdrawn: "${notice}"`);
        } else {
          console.log(`${game}: no-show replay says: ${notice.slice(0, 100)}`);
        }
        const nsText = await ns.page.$eval('#app', (e) => e.innerText);
        if (/undefined|NaN/.test(nsText)) fail(`${game}: the no-show replay reads "undefined" or "NaN"`);
        await ns.page.screenshot({path: path.join(shots, `${game}-replay-no-show.png`), fullPage: true});
        checkProblems(ns);
        await ns.page.close();
      }
      if (!replayHref) continue;

      const rp = await open(browser, replayHref, `${game} replay`);
      const page = rp.page;
      const n = await page.evaluate(() => window.arenaReplay.positions);
      if (!(n > 2)) fail(`${game}: only ${n} positions`);
      // Keys: forward three times, back once.
      await page.focus('body');
      for (let i = 0; i < 3; ++i) await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowLeft');
      let st = await page.evaluate(() => window.arenaReplay.state());
      if (st.pos !== 2) fail(`${game}: keys: at position ${st.pos}, expected 2`);
      // The slider.
      const mid = Math.floor(n / 2);
      await page.$eval('#slider', (s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }, mid);
      st = await page.evaluate(() => window.arenaReplay.state());
      if (st.pos !== mid) fail(`${game}: slider: at position ${st.pos}, expected ${mid}`);
      if (rated) {
        const bars = await page.$$eval('#seat-ratings circle', (c) => c.length);
        if (bars === 0) fail(`${game}: the replay page shows no rating of its seats`);
        for (const o of await page.evaluate(outsideAxis, '#seat-ratings svg')) fail(`${game} replay: seat ratings: ${o}`);
      }
      const events = await page.$$eval('#events .ev', (e) => e.length);
      if (events === 0) fail(`${game}: no events shown at position ${mid}`);
      const cards = await page.$$eval('#board [data-card]', (e) => e.length);
      if (cards === 0) fail(`${game}: no cards drawn at position ${mid}`);
      await page.screenshot({path: path.join(shots, `${game}-replay-omniscient.png`), fullPage: false});
      // Step through every position with the key.
      await page.keyboard.press('Home');
      for (let i = 1; i < n; ++i) await page.keyboard.press('ArrowRight');
      st = await page.evaluate(() => window.arenaReplay.state());
      if (st.pos !== n - 1) fail(`${game}: stepping: at ${st.pos}, expected ${n - 1}`);
      const scoreText = await page.$eval('#score-lines', (e) => e.innerText).catch(() => '');
      if (!/Result/.test(scoreText) || !/placement/.test(scoreText)) fail(`${game}: no result at the end`);
      await page.screenshot({path: path.join(shots, `${game}-replay-end.png`), fullPage: true});

      // Seat views: nothing of another seat's hidden hand.
      const seats = await page.evaluate(() => window.arenaReplay.numSeats);
      const unique = await page.evaluate(() => {
        const R = window.arenaReplay.data;
        return new Set(R.cards.map((c) => c.name)).size === R.cards.length;
      });
      // What each seat was told, from arena replay --json of the record
      // (browser_site_test.sh writes it beside the site, replay-json/).
      const jsonPath = path.join(path.dirname(new URL(replayHref).pathname), '..', '..', 'replay-json',
                                 `${path.basename(new URL(replayHref).pathname, '.html')}.json`);
      if (!fs.existsSync(jsonPath)) fail(`${game}: no ${jsonPath} to check the seat views against`);
      const told = fs.existsSync(jsonPath)
        ? JSON.parse(fs.readFileSync(jsonPath, 'utf8')).steps.map((st) => st.events) : [];
      if (told.length !== n) fail(`${game}: ${jsonPath} has ${told.length} positions, the page ${n}`);
      for (let s = 0; s < seats; ++s) {
        const r = await page.evaluate(leakScan, s, s, unique, told);
        console.log(`${game}: seat ${s}: ${r.positions} positions, ${r.checked} hidden cards checked, ${r.count} shown`);
        if (r.count) fail(`${game}: seat ${s} view shows hidden cards: ${r.leaks.join('; ')}`);
        if (r.drawnBadCount) fail(`${game}: seat ${s} view: ${r.drawnBadCount} positions wrong: ${r.drawnBad.join('; ')}`);
        if (!r.cardsDrawn) fail(`${game}: seat ${s}: no card drawn at any position`);
        if (r.checked === 0) fail(`${game}: seat ${s}: no hidden card to check`);
      }
      // The check must be able to fail: the omniscient view shows them.
      const control = await page.evaluate(leakScan, 0, -1, unique, told);
      if (control.count === 0) fail(`${game}: control: the omniscient view shows no other hand, the seat check proves nothing`);
      else console.log(`${game}: control: the omniscient view shows ${control.count} cards hidden from seat 0`);
      await page.evaluate(() => { window.arenaReplay.setSeat(0); window.arenaReplay.go(Math.floor(window.arenaReplay.positions / 2)); });
      await page.screenshot({path: path.join(shots, `${game}-replay-seat0.png`), fullPage: true});
      // The URL opens the same view.
      const url = await page.evaluate(() => location.href);
      const again = await open(browser, url, `${game} replay (reopened)`);
      const st2 = await again.page.evaluate(() => window.arenaReplay.state());
      if (st2.seat !== 0) fail(`${game}: the URL did not keep the seat (${JSON.stringify(st2)})`);
      checkProblems(again);
      await again.page.close();
      checkProblems(rp);
      await page.close();
      console.log(`${game}: checked ${replayHref}`);
    }
  } finally {
    await chromium.close();
  }
  if (failures.length) {
    console.log(`${failures.length} failures`);
    process.exit(1);
  }
  console.log(`PASS; screenshots in ${shots}`);
})().catch((e) => { console.log(`FAIL ${e.stack || e}`); process.exit(1); });
