// A match replay page: step through with the keys or the slider, everything
// (omniscient) or as one seat (only what that seat saw: its views, its
// version of each event it was told, its own decisions).
// URL: replay.html#seat=1&pos=20 (seat -1: everything).
//
// The steps are in the page's replay-data, or (a page that has replay-parts,
// arena/views/html.h ReplayPageBuilder) in chunks of chunk_steps positions:
// in the page (replay-chunk-0) for a short match, else loaded as the viewer
// reaches them, by a script element (the static site: file:// pages may not
// fetch; each chunk file calls arenaReplayChunk) or fetched (the live
// server). A chunk is the gzip, in base64, of its steps' columns (a
// field's values for every step), as arena/views/replay_json.h
// (PageStepColumns) says: views after the first as deltas of the step
// before, and without what the page can work out again. A page of a game
// whose engine is in the page (the static site's Pesten) carries the
// decisions instead ("replay-inputs"), and resim.js makes each chunk.
async function inflateBase64(text) {
  const bin = Uint8Array.from(atob(text.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([bin]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
}
function isObject(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
// The new value of a field given as `d` in a delta, over its old value
// `old`: a splice {"@s":[at, removed, inserted...]} of the old list, or `d`.
function deltaValue(old, d) {
  if (isObject(d) && Array.isArray(d['@s']) && Array.isArray(old)) {
    const [at, removed, ...inserted] = d['@s'];
    return old.slice(0, at).concat(inserted, old.slice(at + removed));
  }
  return d;
}
// `prev` with the delta `d` applied (fields left out unchanged, null gone,
// an object in both merged one level down, lists perhaps spliced).
function applyDelta(prev, d) {
  const out = Object.assign({}, prev);
  for (const [k, v] of Object.entries(d)) {
    if (v === null) delete out[k];
    else if (isObject(v) && isObject(prev[k]) && !('@s' in v)) {
      const inner = Object.assign({}, prev[k]);
      for (const [kk, vv] of Object.entries(v)) {
        if (vv === null) delete inner[kk]; else inner[kk] = deltaValue(inner[kk], vv);
      }
      out[k] = inner;
    } else out[k] = deltaValue(prev[k], v);
  }
  return out;
}
// A chunk's columns (arena/views/replay_json.h, PageStepColumns) as whole
// steps: step numbers summed, views rebuilt from the step before's (what
// every seat's change held alike, "c", then the seat's own), events' seats
// repeated, actions' labels read from their legal labels.
function expandChunk(cols) {
  const keys = Object.keys(cols).filter((k) => k !== 'delta');
  const out = [];
  for (let i = 0; i < cols.delta.length; ++i) {
    const st = {};
    for (const k of keys) st[k] = cols[k][i];
    if ('step' in st && i > 0) st.step += out[i - 1].step;
    if (cols.delta[i]) {
      const own = Array.isArray(st.views) ? st.views : st.views.s;
      const alike = Array.isArray(st.views) ? null : st.views.c;
      st.views = own.map((d, s) => applyDelta(alike ? applyDelta(out[i - 1].views[s], alike) : out[i - 1].views[s], d));
    }
    for (const e of st.events || []) {
      for (let j = 1; j < (e.seats || []).length; ++j) if (e.seats[j] === 1) e.seats[j] = e.seats[j - 1];
    }
    for (const a of st.actions || []) {
      if (!('label' in a)) a.label = a.legal[a.action];
      if (!('note' in a)) Object.assign(a, {note: '', note_cut_bytes: 0});  // (none: left out)
    }
    out.push(st);
  }
  return out;
}
const replayChunkWaiters = new Map();
// Called by a chunk's script file.
window.arenaReplayChunk = (k, data) => {
  const w = replayChunkWaiters.get(k);
  if (w) w(data);
};

loadData('replay-data').then((R) => {
  const LINKS = JSON.parse(document.getElementById('links').textContent);
  const stEl = document.getElementById('standings-data');
  // In the page, or (the static site's pages) in their shared script.
  const ST = stEl ? JSON.parse(stEl.textContent) : (window.arenaReplayStandings || null);
  const partsEl = document.getElementById('replay-parts');
  const PARTS = partsEl ? JSON.parse(partsEl.textContent) : null;
  const H = R.header;
  const N = H.num_seats;
  const positions = PARTS ? PARTS.positions : R.steps.length;
  // Sparse until the chunks are loaded (PARTS).
  const steps = PARTS ? new Array(positions) : R.steps;
  if (PARTS) R.steps = steps;
  const ctx = {cards: R.cards, cardFields: new Set(R.card_fields), skip: new Set(['events']), steps,
               numSeats: N, seatName: (s) => (s >= 0 && s < N ? `seat ${s} (${H.seat_bots[s]})` : `seat ${s}`)};
  const chunks = new Map();  // chunk -> promise of its loading
  const chunkOf = (p) => Math.floor(p / PARTS.chunk_steps);
  const has = (p) => p < 0 || p >= positions || steps[p] !== undefined;
  function chunkData(k) {
    if (PARTS.inline) return Promise.resolve(document.getElementById(`replay-chunk-${k}`).textContent);
    if (PARTS.script) {
      return new Promise((resolve, reject) => {
        replayChunkWaiters.set(k, resolve);
        const tag = document.createElement('script');
        tag.src = PARTS.script.replace('{k}', k);
        tag.onerror = () => reject(new Error(`chunk ${k} of the steps is missing (${tag.src})`));
        tag.onload = () => tag.remove();
        document.head.appendChild(tag);
      });
    }
    return fetch(PARTS.url.replace('{k}', k)).then((r) => {
      if (!r.ok) throw new Error(`chunk ${k} of the steps: HTTP ${r.status}`);
      return r.json();
    }).then((j) => j.steps);
  }
  // A page with the match's decisions instead of its steps (PARTS.engine):
  // chunk k re-simulated by the game's engine (resim.js), checked.
  let resim = null;
  function engineChunk(k) {
    if (!resim) {
      resim = inflateBase64(document.getElementById('replay-inputs').textContent).then((inputs) => {
        const engine = (window.arenaEngines || {})[PARTS.engine];
        if (!engine || !window.arenaResim) throw new Error(`this page cannot re-simulate ${PARTS.engine}`);
        return new window.arenaResim.EngineReplay(engine, H, inputs, PARTS.chunk_steps);
      });
    }
    return resim.then((r) => r.chunk(k));
  }
  // Loads chunk k (once); resolves when its steps are in `steps`.
  function loadChunk(k) {
    if (!PARTS || k < 0 || k * PARTS.chunk_steps >= positions) return Promise.resolve();
    if (!chunks.has(k)) {
      const made = PARTS.engine ? engineChunk(k) : chunkData(k).then(inflateBase64).then(expandChunk);
      chunks.set(k, made.then((chunkSteps) => {
        chunkSteps.forEach((st, i) => { steps[k * PARTS.chunk_steps + i] = st; });
        ctx.tableKeys = null;  // the table's fields, over what is loaded
      }).catch((e) => {
        chunks.delete(k);
        document.getElementById('pos').textContent = `cannot load the steps: ${e.message}`;
        throw e;
      }));
    }
    return chunks.get(k);
  }
  function loadAll() {
    if (!PARTS) return Promise.resolve();
    const all = [];
    for (let k = 0; k * PARTS.chunk_steps < positions; ++k) all.push(loadChunk(k));
    return Promise.all(all);
  }
  const app = document.getElementById('app');
  let seat = -1;
  let pos = 0;
  let timer = null;

  const bot = (s) => `seat ${s} (${H.seat_bots[s]})`;
  const sourceWords = (a) => ({
    SOURCE_BOT: `bot, ${Number(a.think_us) < 1000 ? `${a.think_us} \u00B5s` : `${fmt(Number(a.think_us) / 1000, 1)} ms`}`,
    SOURCE_REFEREE_ONLY_MOVE: 'referee: the only legal move',
    SOURCE_REFEREE_FAULT: `referee: random move after a fault${a.fault_detail ? ': ' + a.fault_detail : ''}`,
  }[a.source] || enumWords(a.source));

  // --- Layout ---
  const opts = Object.entries(H.options || {}).map(([k, v]) => `${k}=${v}`).join(', ');
  app.appendChild(el('div', {}, el('a', {href: LINKS.index}, '\u2190 tournament')));
  app.appendChild(el('h1', {}, `${H.game}: match ${H.match_id}`));
  app.appendChild(el('div', {class: 'muted'},
    `${N} seats: ${H.seat_bots.map((b, i) => `${i}: ${b}`).join(', ')}`,
    H.seed !== undefined && H.seed !== null && H.seed !== '' ? `; seed ${H.seed}` : '',
    opts ? `; options ${opts}` : '', `; ${positions} positions`));
  app.appendChild(seatNotices());
  const seatsBox = seatRatings();
  if (seatsBox) app.appendChild(seatsBox);
  const seatSel = el('select', {id: 'seat', 'aria-label': 'view'},
    el('option', {value: -1}, 'omniscient (everything)'),
    H.seat_bots.map((b, i) => el('option', {value: i}, `as seat ${i} (${b})`)));
  const slider = el('input', {type: 'range', id: 'slider', min: 0, max: Math.max(0, positions - 1), value: 0,
                              'aria-label': 'position'});
  const posLabel = el('span', {id: 'pos', class: 'muted'});
  const playBtn = el('button', {id: 'play', title: 'play / pause (space)'}, 'play');
  app.appendChild(el('div', {class: 'controls'},
    el('button', {id: 'first', title: 'first (Home)', onclick: () => go(0)}, '\u00AB first'),
    el('button', {id: 'prev', title: 'back (\u2190)', onclick: () => go(pos - 1)}, '\u2039 back'),
    el('button', {id: 'next', title: 'forward (\u2192)', onclick: () => go(pos + 1)}, 'next \u203A'),
    el('button', {id: 'last', title: 'last (End)', onclick: () => go(positions - 1)}, 'last \u00BB'),
    playBtn, slider, posLabel, seatSel));
  app.appendChild(el('div', {class: 'muted'}, 'Keys: ', el('span', {class: 'kbd'}, '\u2190'), ' ',
    el('span', {class: 'kbd'}, '\u2192'), ' step, ', el('span', {class: 'kbd'}, 'Home'), ' ',
    el('span', {class: 'kbd'}, 'End'), ', ', el('span', {class: 'kbd'}, 'space'), ' play, ',
    el('span', {class: 'kbd'}, 'o'), ' omniscient, ', el('span', {class: 'kbd'}, '0'), '\u2013',
    el('span', {class: 'kbd'}, String(N - 1)), ' a seat.'));
  const decisionBox = el('div', {id: 'decision', class: 'panel'});
  const eventsBox = el('div', {id: 'events', class: 'panel events'});
  const boardBox = el('div', {id: 'board'});
  const resultBox = el('div', {id: 'result'});
  app.appendChild(resultBox);
  app.appendChild(el('div', {class: 'two'},
    el('div', {}, el('h2', {}, 'Decision'), decisionBox),
    el('div', {}, el('h2', {}, 'Events'), eventsBox)));
  app.appendChild(el('h2', {id: 'board-title'}, 'Table'));
  app.appendChild(boardBox);

  // --- What the current viewer knows ---
  function eventFor(e) {
    if (seat < 0) return {text: e.text, badge: visibilityBadge(e.visibility)};
    const se = e.seats[seat];
    if (!se || !se.sees) return null;
    return {text: se.redacted ? se.text : e.text, badge: se.redacted ? el('span', {class: 'badge redacted'}, 'redacted for you')
                                               : (e.visibility.is_public ? el('span', {class: 'badge'}, 'public')
                                                                         : el('span', {class: 'badge private'}, 'yours'))};
  }
  function visibilityBadge(v) {
    if (v.is_public) return el('span', {class: 'badge'}, 'public');
    if (!v.seats.length) return el('span', {class: 'badge private'}, 'record only');
    return el('span', {class: 'badge private'}, `seen by seat ${v.seats.join(', ')}`);
  }
  function viewOf(step, s) {
    // The omniscient data hold every seat's view, by seat.
    return step.views ? step.views[s] : null;
  }

  // Every event line the viewer sees, and how many come up to each position
  // (computed once per viewer).
  const logs = new Map();
  function logFor(viewer) {
    if (!logs.has(viewer)) {
      const lines = [];
      const upTo = [];
      steps.forEach((st, p) => {
        for (const e of st.events) {
          const shown = eventFor(e);
          if (shown) lines.push({p, shown});
        }
        upTo.push(lines.length);
      });
      logs.set(viewer, {lines, upTo});
    }
    return logs.get(viewer);
  }

  // The last 60 event lines the viewer sees up to `pos`, among the loaded
  // steps (a page in parts: back to the chunk before at least).
  function recentLines() {
    const out = [];
    let more = false;
    for (let p = pos; p >= 0 && !more; --p) {
      if (!steps[p]) { more = true; break; }
      const evs = steps[p].events;
      for (let i = evs.length - 1; i >= 0; --i) {
        const shown = eventFor(evs[i]);
        if (!shown) continue;
        if (out.length === 60) { more = true; break; }
        out.push({p, shown});
      }
    }
    return {lines: out.reverse(), more};
  }

  function renderEvents() {
    eventsBox.textContent = '';
    let lines, start, end;
    if (PARTS) {
      const recent = recentLines();
      lines = recent.lines; start = 0; end = lines.length;
      if (recent.more) eventsBox.appendChild(el('div', {class: 'muted'}, '\u2026 earlier events'));
    } else {
      const log = logFor(seat);
      lines = log.lines; end = log.upTo[pos]; start = Math.max(0, end - 60);
      if (start > 0) eventsBox.appendChild(el('div', {class: 'muted'}, `\u2026 ${start} earlier events`));
    }
    for (let i = start; i < end; ++i) {
      const {p, shown} = lines[i];
      eventsBox.appendChild(el('div', {class: p === pos ? 'ev current' : 'ev'}, shown.badge.cloneNode(true), shown.text));
    }
    if (!end) eventsBox.appendChild(el('div', {class: 'none'}, 'no events yet'));
    eventsBox.scrollTop = eventsBox.scrollHeight;
  }

  function renderDecision() {
    decisionBox.textContent = '';
    const step = steps[pos];
    const acts = step.actions.filter((a) => seat < 0 || a.seat === seat);
    if (!step.actions.length) {
      decisionBox.appendChild(el('div', {class: 'muted'}, R.finished ? 'The match is over.' : 'The replay stops here.'));
      return;
    }
    decisionBox.appendChild(el('div', {class: 'muted'}, `step ${step.step}`));
    if (!acts.length) {
      decisionBox.appendChild(el('div', {}, `Seat ${step.actions.map((a) => a.seat).join(', ')} decides (not you).`));
      return;
    }
    for (const a of acts) {
      decisionBox.appendChild(el('div', {class: 'action'}, `${bot(a.seat)}: ${a.label}`,
                                 el('span', {class: 'muted'}, `  [${sourceWords(a)}]`)));
      // The bot's note (only in a site made with --show_notes): text, never markup.
      if (a.note || Number(a.note_cut_bytes) > 0) {
        decisionBox.appendChild(el('div', {class: 'note'}, 'note: ', el('bdi', {}, a.note || ''),
          Number(a.note_cut_bytes) > 0 ? el('span', {class: 'muted'}, ` [${a.note_cut_bytes} more bytes cut]`) : null));
      }
      if (seat >= 0 || a.legal.length <= 12) {
        decisionBox.appendChild(el('ol', {class: 'legal', start: 0},
          a.legal.map((l, i) => el('li', {class: i === a.action ? 'chosen' : null}, l))));
      }
    }
  }

  function renderBoard() {
    boardBox.textContent = '';
    const step = steps[pos];
    document.getElementById('board-title').textContent =
      seat < 0 ? 'Table: what every seat sees' : `Table: what seat ${seat} sees`;
    const boards = [...Array(N).keys()].map((s) => (seat < 0 || s === seat ? boardOf(viewOf(step, s)) : null));
    boardBox.appendChild(drawBoard(ctx, boards, (s) => el('h3', {}, bot(s), withdrawnBadge(H.seat_bots[s]))));
  }

  // --- The bots: withdrawals and forfeits said at the top; ratings ---
  function standingRow(b) {
    return ST && ST.rows ? ST.rows.find((r) => r.bot === b) : null;
  }
  function withdrawnReason(b) {
    const r = standingRow(b);
    const e = ST && ST.entrants ? ST.entrants.find((x) => x.bot === b && x.withdrawn) : null;
    if (!(r && r.withdrawn) && !e) return null;
    return (e && e.reason) || (r && r.withdrawn_reason) || 'no reason given';
  }
  function withdrawnBadge(b) {
    return withdrawnReason(b) !== null ? el('span', {class: 'badge private'}, 'withdrawn') : null;
  }
  function seatNotices() {
    const box = el('div', {id: 'notices'});
    const f = R.forfeit;
    const noShow = f && f.fault === 'FAULT_KIND_NO_SHOW';
    if (f && (f.detail || f.fault)) {
      box.appendChild(el('div', {class: 'notice error', id: noShow ? 'no-show' : 'forfeit'}, noShow
        ? `${bot(f.seat)} did not play: the bot was withdrawn from the tournament, so this match is its forfeit (no show) at step ${fmt(f.step)}. ${f.detail || ''}`
        : `${bot(f.seat)} forfeited this match at step ${fmt(f.step)} (${enumWords(f.fault)}): ${f.detail || ''}`));
    }
    const named = new Set();
    H.seat_bots.forEach((b, s) => {
      const why = withdrawnReason(b);
      if (why === null || named.has(b) || (noShow && f.seat === s)) return;
      named.add(b);
      box.appendChild(el('div', {class: 'notice withdrawn'},
        `${b} (seat ${s}) was withdrawn from the tournament: ${why}. Its matches after that are no-show forfeits.`));
    });
    return box;
  }
  // Each seat's bot with its rank and rating, the interval as a bar on one
  // axis for all (when the standings hold ratings).
  function seatRatings() {
    const rows = H.seat_bots.map((b) => standingRow(b));
    const rated = rows.filter((r) => r && finite(r.elo) !== null);
    if (!rated.length) return null;
    // The axis of the bots not withdrawn (whose forfeits would stretch it)
    // and of this match's seats.
    const all = (ST.rows || []).filter((r) => !r.withdrawn || rows.includes(r))
      .flatMap((r) => [finite(r.elo), finite(r.elo_low), finite(r.elo_high)]).filter((v) => v !== null);
    const ax = niceAxis(Math.min(...all), Math.max(...all));
    const W = 220; const Hh = 22; const pad = 8;
    const x = (v) => pad + 6 + (v - ax.lo) / (ax.hi - ax.lo) * (W - 2 * pad - 12);
    const t = el('table', {id: 'seat-ratings'}, el('tr', {}, el('th', {}, 'seat'), el('th', {}, 'bot'),
      el('th', {class: 'num'}, 'rank'), el('th', {class: 'num'}, 'elo'), el('th', {}, `interval (${fmt(ax.lo, 0)} to ${fmt(ax.hi, 0)})`)));
    H.seat_bots.forEach((b, s) => {
      const r = rows[s];
      const c = r ? finite(r.elo) : null; const lo = r ? finite(r.elo_low) : null; const hi = r ? finite(r.elo_high) : null;
      const g = svg('svg', {width: W, height: Hh, class: 'mini-interval', role: 'img'},
        svg('rect', {class: 'axis-box', x: pad, y: 2, width: W - 2 * pad, height: Hh - 4, fill: 'none', stroke: '#d9dde5'}));
      if (c !== null) {
        if (lo !== null && hi !== null && hi > lo) {
          g.appendChild(svg('line', {x1: x(lo), x2: x(hi), y1: Hh / 2, y2: Hh / 2, stroke: '#2f6fdd', 'stroke-width': 3, class: 'interval'}));
        }
        g.appendChild(svg('circle', {cx: x(c), cy: Hh / 2, r: 4, fill: '#1d2330'},
          svg('title', {}, `${b}: ${fmt(c, 0)}${lo !== null && hi !== null ? ` [${fmt(lo, 0)}, ${fmt(hi, 0)}]` : ''}`)));
      }
      t.appendChild(el('tr', {'data-seat': s}, el('td', {}, s), el('td', {}, b, withdrawnBadge(b)),
        el('td', {class: 'num', title: 'rank (its 95% interval)'}, r && r.rank ? r.rank : '\u2013',
          r && r.rank_low && r.rank_high && r.rank_low !== r.rank_high ? ` (${r.rank_low}\u2013${r.rank_high})` : ''),
        el('td', {class: 'num'}, signedRating(c)),
        el('td', {}, g)));
    });
    return el('div', {class: 'seat-ratings'}, t);
  }

  function renderResult() {
    resultBox.textContent = '';
    if (pos !== positions - 1 || !R.result || !R.result.scores) return;
    const r = R.result;
    const box = el('div', {class: 'panel result', id: 'score-lines'});
    box.appendChild(el('h2', {}, 'Result'));
    if (R.forfeit && R.forfeit.detail) {
      box.appendChild(el('div', {class: 'error'}, `Forfeit at step ${fmt(R.forfeit.step)}: ${bot(R.forfeit.seat)}: ${R.forfeit.detail}`));
    }
    box.appendChild(el('div', {}, r.detail, el('span', {class: 'muted'}, ` (${enumWords(r.end_reason)}, ${fmt(r.decisions)} decisions; ${r.higher_score_wins ? 'higher' : 'lower'} score wins)`)));
    const t = el('table', {}, el('tr', {}, el('th', {}, 'seat'), el('th', {}, 'bot'), el('th', {class: 'num'}, 'score'),
                                       el('th', {class: 'num'}, 'placement'), el('th', {}, 'score lines')));
    r.scores.forEach((sc, s) => {
      const lines = (r.score_lines || []).filter((l) => l.seat === s);
      t.appendChild(el('tr', {}, el('td', {}, s), el('td', {}, H.seat_bots[s]), el('td', {class: 'num'}, fmt(sc)),
        el('td', {class: 'num'}, r.placements[s]),
        el('td', {}, lines.length ? el('table', {class: 'kv'}, lines.map((l) =>
          el('tr', {}, el('td', {class: 'num'}, fmt(l.points)), el('td', {}, l.item)))) : '')));
    });
    box.appendChild(t);
    resultBox.appendChild(box);
  }

  function render() {
    slider.value = pos;
    seatSel.value = String(seat);
    if (!steps[pos]) {  // its chunk is on its way: go() renders again then
      posLabel.textContent = `position ${pos + 1} of ${positions}: loading\u2026`;
      document.body.dataset.loading = '1';
      return;
    }
    delete document.body.dataset.loading;
    posLabel.textContent = `position ${pos + 1} of ${positions}` +
      (steps[pos].actions.length ? ` (step ${steps[pos].step})` : ' (end)');
    renderDecision();
    renderEvents();
    renderBoard();
    renderResult();
    document.body.dataset.pos = pos;
    document.body.dataset.seat = seat;
    history.replaceState(null, '', `#seat=${seat}&pos=${pos}`);
  }

  // Shows position p: at once if its step is loaded, else once its chunk
  // is (and the chunk before, for the events that led up to it).
  function go(p) {
    pos = Math.max(0, Math.min(positions - 1, p));
    render();
    if (!PARTS) return;
    const k = chunkOf(pos);
    const want = [k];
    if (pos - k * PARTS.chunk_steps < 60 && k > 0) want.push(k - 1);
    if ((k + 1) * PARTS.chunk_steps - pos < 60) want.push(k + 1);  // ahead of the viewer
    const missing = want.filter((c) => !has(c * PARTS.chunk_steps));
    if (!missing.length) return;
    const at = pos;
    Promise.all(missing.map(loadChunk)).then(() => { if (pos === at) render(); }, () => {});
  }
  function setSeat(s) {
    seat = s >= 0 && s < N ? s : -1;
    render();
  }
  function togglePlay() {
    if (timer) {
      clearInterval(timer);
      timer = null;
      playBtn.textContent = 'play';
      return;
    }
    playBtn.textContent = 'pause';
    timer = setInterval(() => {
      if (pos >= positions - 1) togglePlay();
      else go(pos + 1);
    }, 400);
  }
  playBtn.addEventListener('click', togglePlay);
  slider.addEventListener('input', () => go(Number(slider.value)));
  seatSel.addEventListener('change', () => setSeat(Number(seatSel.value)));
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'SELECT' || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'ArrowRight') go(pos + 1);
    else if (e.key === 'ArrowLeft') go(pos - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(positions - 1);
    else if (e.key === ' ') togglePlay();
    else if (e.key === 'o') setSeat(-1);
    else if (/^[0-9]$/.test(e.key) && Number(e.key) < N) setSeat(Number(e.key));
    else return;
    e.preventDefault();
  });

  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.has('seat')) seat = Number(hash.get('seat'));
  if (!(seat >= -1 && seat < N)) seat = -1;
  if (hash.has('pos')) pos = Math.max(0, Math.min(positions - 1, Number(hash.get('pos')) || 0));
  // For tools and tests: the page's state and controls; loadAll() loads
  // every chunk (data.steps then holds every step), chunks() how many were
  // loaded, parts the page's replay-parts (null: every step in the page).
  // Set once the first position shown is loaded.
  go(pos);
  return (PARTS ? loadChunk(chunkOf(pos)) : Promise.resolve()).then(() => {
    render();
    window.arenaReplay = {positions, numSeats: N, go, setSeat, loadAll, parts: PARTS,
                          chunks: () => chunks.size, state: () => ({pos, seat}), data: R};
  });
}).catch((e) => {
  document.getElementById('app').textContent = `This replay cannot be shown: ${e}`;
  throw e;
});
