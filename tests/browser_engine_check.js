// Holds the pages' engines (arena/views/html/resim.js, pesten.js) to the
// referee: for every replay page of a static site that carries its match's
// decisions ("replay-inputs"), re-simulates every chunk as the page does
// (each chunk's check included) and compares each step with `arena replay
// --json` of the record, field by field (but the events' messages, which a
// page does not show).
//
// node browser_engine_check.js ARENA SITE_DIR RECORDS_DIR [--notes]
// Prints one line a page and exits 1 at the first difference.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const {execFileSync} = require('child_process');

const [arena, site, records] = process.argv.slice(2, 5);
const notes = process.argv.includes('--notes');
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
  const replay = new EngineReplay(engine, R.header, inflate(inputsText), parts.chunk_steps);
  for (let k = 0; k * parts.chunk_steps < parts.positions; ++k) {
    let got;
    try {
      got = replay.chunk(k);
    } catch (e) {
      fail(`${file}: chunk ${k}: ${e.message}`);
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
  ++pages; positions += parts.positions;
  console.log(`ok ${file}: ${parts.positions} positions`);
}
if (pages === 0) fail('no page carries its decisions');
console.log(`${pages} pages, ${positions} positions: every step as the referee's`);
