// Holds the pages' engines (arena/views/html/resim.js, pesten.js) to the
// referee: for every replay page of a static site that carries its match's
// decisions ("replay-inputs"), re-simulates every chunk as the page does
// (each chunk's check included) and compares each step with `arena replay
// --json` of the record, field by field (but the events' messages, which a
// page does not show).
//
// node browser_engine_check.js ARENA SITE_DIR RECORDS_DIR [--notes] [--tamper]
// Prints one line a page and exits 1 at the first difference. --tamper
// changes one decision of each page to another legal action first, and
// requires the page to refuse that chunk instead (by its check, or as
// decisions that do not replay).
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const {execFileSync} = require('child_process');

const [arena, site, records] = process.argv.slice(2, 5);
const notes = process.argv.includes('--notes');
const tamper = process.argv.includes('--tamper');
const assets = path.join(__dirname, '..', 'arena', 'views', 'html');
require(path.join(assets, 'pesten.js'));
const {EngineReplay} = require(path.join(assets, 'resim.js'));

function element(html, id) {
  const m = html.match(new RegExp(`<script [^>]*id="${id}"[^>]*>([^<]*)</script>`));
  return m ? m[1] : null;
}
const inflate = (b64) => JSON.parse(zlib.gunzipSync(Buffer.from(b64, 'base64')).toString('utf8'));
// The step as a page has it: no event messages.
function pageStep(st) {
  for (const e of st.events) {
    delete e.event;
    for (const se of e.seats) delete se.event;
  }
  return st;
}
function fail(what) {
  console.error(`FAIL: ${what}`);
  process.exit(1);
}

let pages = 0; let positions = 0;
// What the matches held: random moves after faults, notes, forfeits, ends
// other than the game's own (the decision cap, forfeits).
const seen = {faults: 0, notes: 0, forfeits: 0, not_normal: 0};
for (const file of fs.readdirSync(path.join(site, 'replays')).sort()) {
  if (!file.endsWith('.html')) continue;
  const html = fs.readFileSync(path.join(site, 'replays', file), 'utf8');
  const inputsText = element(html, 'replay-inputs');
  if (inputsText === null) continue;
  const R = inflate(element(html, 'replay-data'));
  const parts = JSON.parse(element(html, 'replay-parts').replace(/<\\\//g, '</'));
  const engine = globalThis.arenaEngines[parts.engine];
  if (!engine) fail(`${file}: no engine for ${parts.engine}`);
  const record = fs.readdirSync(records).find((f) => f.startsWith(R.header.match_id + '.'));
  if (!record) fail(`${file}: no record of ${R.header.match_id} in ${records}`);
  const args = ['replay', path.join(records, record), '--json'];
  const want = JSON.parse(execFileSync(arena, args, {maxBuffer: 1 << 30}).toString('utf8'));
  if (want.steps.length !== parts.positions) fail(`${file}: ${parts.positions} positions, the record ${want.steps.length}`);
  if (tamper) {
    // The first decision of one seat with a choice: another legal action.
    const inputs = inflate(inputsText);
    let flat = 0; let found = -1;
    for (let d = 0; d < inputs.n.length && found < 0; ++d) {
      const st = want.steps[d];
      if (inputs.n[d] === 1 && st.actions[0].legal.length > 1) found = d;
      else flat += inputs.n[d];
    }
    if (found < 0) {  // e.g. a no-show's page: no decision at all
      console.log(`skip ${file}: no decision with a choice`);
      continue;
    }
    const legal = want.steps[found].actions[0].legal.length;
    inputs.action[flat] = (inputs.action[flat] + 1) % legal;
    const k = Math.floor(found / parts.chunk_steps);
    const refusal = (inp) => {
      try {
        new EngineReplay(engine, R.header, inp, parts.chunk_steps).chunk(k);
      } catch (e) {
        return e.message;
      }
      return null;
    };
    const why = refusal(inputs);
    if (why === null) fail(`${file}: decision ${found} changed, and chunk ${k} was shown`);
    if (!/differ from the referee|do not replay/.test(why)) fail(`${file}: refused for another reason: ${why}`);
    // A check that the steps do not meet: refused by the check itself.
    const wrong = inflate(inputsText);
    wrong.checks[k] = (wrong.checks[k] ^ 1) >>> 0;
    const byCheck = refusal(wrong);
    if (byCheck === null || !/differ from the referee/.test(byCheck)) {
      fail(`${file}: a wrong check was not refused by the check: ${byCheck}`);
    }
    ++pages;
    console.log(`ok ${file}: decision ${found} changed, chunk ${k} refused: ${why.slice(0, 60)}...; a wrong check refused`);
    continue;
  }
  const replay = new EngineReplay(engine, R.header, inflate(inputsText), parts.chunk_steps);
  for (let k = 0; k * parts.chunk_steps < parts.positions; ++k) {
    let got;
    try {
      got = replay.chunk(k);
    } catch (e) {
      fail(`${file}: chunk ${k}: ${e.message}`);
    }
    for (const st of got) {
      for (const a of st.actions) {
        if (a.source === 'SOURCE_REFEREE_FAULT') ++seen.faults;
        if (a.note) ++seen.notes;
      }
    }
    got.forEach((st, i) => {
      const p = k * parts.chunk_steps + i;
      const w = pageStep(want.steps[p]);
      if (!notes) for (const a of w.actions) { a.note = ''; a.note_cut_bytes = 0; }
      if (JSON.stringify(st) !== JSON.stringify(w)) {
        fail(`${file}: position ${p} differs:\n page:   ${JSON.stringify(st)}\n record: ${JSON.stringify(w)}`);
      }
    });
    if (k === 0 && got.length === 0) fail(`${file}: no steps`);
  }
  // Chunks out of order, as a viewer jumps: the same steps.
  const last = Math.floor((parts.positions - 1) / parts.chunk_steps);
  const again = new EngineReplay(engine, R.header, inflate(inputsText), parts.chunk_steps);
  for (const k of [last, 0, Math.floor(last / 2)]) {
    const st = again.chunk(k)[0];
    if (JSON.stringify(st) !== JSON.stringify(pageStep(want.steps[k * parts.chunk_steps]))) {
      fail(`${file}: chunk ${k} made out of order differs`);
    }
  }
  if (R.forfeit && R.forfeit.fault) ++seen.forfeits;
  if (R.result && R.result.end_reason !== 'END_REASON_NORMAL') ++seen.not_normal;
  ++pages; positions += parts.positions;
  console.log(`ok ${file}: ${parts.positions} positions`);
}
if (pages === 0) fail('no page carries its decisions');
if (!tamper) console.log(`seen: ${JSON.stringify(seen)}`);
console.log(tamper ? `${pages} pages: every changed decision refused`
                   : `${pages} pages, ${positions} positions: every step as the referee's`);
