// The tournament page: standings (every field of standings.json; rating
// interval bars when the rows hold ratings), head-to-head, score
// distributions, seat advantage, and the matches with links to their replays.
(() => {
  const ST = JSON.parse(document.getElementById('standings-data').textContent);
  const MATCHES = JSON.parse(document.getElementById('matches-data').textContent);
  const app = document.getElementById('app');
  const ok = MATCHES.filter((m) => !m.error);
  const bad = MATCHES.filter((m) => m.error);
  const game = ST ? ST.game : (ok[0] ? ok[0].header.game : '?');
  const higher = ST ? ST.higher_score_wins : (ok[0] ? ok[0].result.higher_score_wins : true);

  app.appendChild(el('h1', {}, `Tournament: ${game}`));
  if (ST) {
    const opts = Object.entries(ST.options || {}).map(([k, v]) => `${k}=${v}`).join(', ');
    app.appendChild(el('div', {class: 'muted'}, `${fmt(ST.matches_played)} of ${fmt(ST.matches_planned)} matches played, `,
      `${ST.seats} seats, seed ${ST.seed}${opts ? ', options ' + opts : ''}; ${higher ? 'higher' : 'lower'} score is better`,
      ST.balanced ? '; seat positions balanced' : '; seat positions balanced only approximately'));
  }
  app.appendChild(el('div', {class: 'muted'}, `${MATCHES.length} records, ${ok.length} replayable`,
    bad.length ? el('span', {class: 'error'}, `, ${bad.length} that do not verify`) : ''));

  // --- Standings ---
  app.appendChild(el('h2', {}, 'Standings'));
  if (!ST) {
    app.appendChild(el('div', {class: 'none'}, 'No standings.json in this folder.'));
  } else {
    const rows = ST.rows || [];
    const keys = [];
    for (const r of rows) for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
    const t = el('table', {id: 'standings'}, el('tr', {}, el('th', {}, 'rank'),
      keys.map((k) => el('th', {class: k === 'bot' ? null : 'num'}, words(k)))));
    rows.forEach((r, i) => t.appendChild(el('tr', {}, el('td', {class: 'num'}, i + 1),
      keys.map((k) => el('td', {class: k === 'bot' ? null : 'num'},
        r[k] === undefined ? '' : (typeof r[k] === 'object' ? JSON.stringify(r[k]) : fmt(r[k])),
        k === 'bot' && r.withdrawn ? el('span', {class: 'error'}, ' (withdrawn)') : '')))));
    app.appendChild(t);
    // Entrants that failed as programs: withdrawn (their remaining matches
    // are their forfeits), restarted, or ended unexpectedly.
    const entrants = ST.entrants || [];
    for (const r of rows.filter((r) => r.withdrawn)) {
      const e = entrants.find((x) => x.bot === r.bot);
      app.appendChild(el('div', {class: 'error withdrawn'},
        `Withdrawn: ${r.bot}: ${(e && e.reason) || r.withdrawn_reason || ''}`));
    }
    const trouble = entrants.filter((e) => e.withdrawn || e.restarts || (e.exits || []).length);
    if (trouble.length) {
      app.appendChild(el('h3', {}, 'Bot processes'));
      const et = el('table', {id: 'entrants'}, el('tr', {}, ['bot', 'restarts', 'withdrawn', 'reason', 'unexpected ends', 'log']
        .map((k) => el('th', {}, k))));
      for (const e of trouble) {
        et.appendChild(el('tr', {}, el('td', {}, e.bot), el('td', {class: 'num'}, fmt(e.restarts || 0)),
          el('td', {}, e.withdrawn ? 'yes' : 'no'), el('td', {}, e.reason || ''),
          el('td', {}, (e.exits || []).join('; ')), el('td', {}, e.log || '')));
      }
      app.appendChild(et);
    }
    const ratings = findRatings(rows);
    if (ratings) {
      app.appendChild(el('h3', {}, `Ratings (${words(ratings.label)})`));
      app.appendChild(intervalChart(rows.map((r) => ratings.get(r))));
    }
  }

  // Ratings, if the rows hold them: a centre field (rating, elo, mu, ...)
  // and an interval: two fields (…low/…high, …lower/…upper, …lo/…hi), an
  // object {low, high} or [low, high], or a deviation (…sigma, …std,
  // …stderr: ±2 of it).
  function findRatings(rows) {
    if (!rows.length) return null;
    const r0 = rows[0];
    const num = (v) => (v !== null && v !== '' && Number.isFinite(Number(v)) && typeof v !== 'object');
    const centre = Object.keys(r0).find((k) => /^(rating|elo|mu|skill|strength)$/i.test(k)) ||
      Object.keys(r0).find((k) => /rating|elo/i.test(k) && !/low|high|lower|upper|_lo$|_hi$|ci|interval|sigma|std|err|dev/i.test(k) && num(r0[k]));
    if (!centre || !num(r0[centre])) return null;
    const keys = Object.keys(r0);
    const lowK = keys.find((k) => /(^|_)(low|lower|lo|min)($|_)/i.test(k) && (/rating|elo|mu|ci|interval/i.test(k) || keys.length));
    const highK = keys.find((k) => /(^|_)(high|upper|hi|max)($|_)/i.test(k));
    const objK = keys.find((k) => /interval|ci/i.test(k) && r0[k] && typeof r0[k] === 'object');
    const devK = keys.find((k) => /sigma|std|stderr|deviation|rd$/i.test(k) && num(r0[k]));
    const get = (r) => {
      const c = Number(r[centre]);
      let lo = null; let hi = null;
      if (lowK && highK && num(r[lowK]) && num(r[highK])) { lo = Number(r[lowK]); hi = Number(r[highK]); }
      else if (objK && r[objK]) {
        const o = r[objK];
        if (Array.isArray(o)) { lo = Number(o[0]); hi = Number(o[1]); }
        else { lo = Number(o.low ?? o.lower ?? o.lo); hi = Number(o.high ?? o.upper ?? o.hi); }
      } else if (devK) { lo = c - 2 * Number(r[devK]); hi = c + 2 * Number(r[devK]); }
      return {bot: r.bot, c, lo: Number.isFinite(lo) ? lo : null, hi: Number.isFinite(hi) ? hi : null};
    };
    return {label: centre + (lowK && highK ? ` [${lowK}, ${highK}]` : objK ? ` ${objK}` : devK ? ` \u00B1 2 ${devK}` : ''), get};
  }

  function intervalChart(items) {
    const W = 640; const rowH = 24; const left = 130; const right = 20;
    const H = items.length * rowH + 30;
    const vals = items.flatMap((i) => [i.c, i.lo, i.hi]).filter((v) => v !== null);
    let lo = Math.min(...vals); let hi = Math.max(...vals);
    if (lo === hi) { lo -= 1; hi += 1; }
    const pad = (hi - lo) * 0.05; lo -= pad; hi += pad;
    const x = (v) => left + (v - lo) / (hi - lo) * (W - left - right);
    const g = svg('svg', {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', id: 'ratings-chart'});
    ticks(lo, hi).forEach((t) => g.appendChild(svg('g', {},
      svg('line', {x1: x(t), x2: x(t), y1: 0, y2: H - 18, stroke: '#e3e6ec'}),
      svg('text', {x: x(t), y: H - 4, 'text-anchor': 'middle'}, fmt(t, 1)))));
    items.forEach((it, i) => {
      const y = i * rowH + 14;
      g.appendChild(svg('text', {x: left - 8, y: y + 4, 'text-anchor': 'end'}, it.bot));
      if (it.lo !== null && it.hi !== null) {
        g.appendChild(svg('line', {x1: x(it.lo), x2: x(it.hi), y1: y, y2: y, stroke: '#2f6fdd', 'stroke-width': 3}));
      }
      g.appendChild(svg('circle', {cx: x(it.c), cy: y, r: 5, fill: '#1d2330'},
        svg('title', {}, `${it.bot}: ${fmt(it.c, 1)}${it.lo !== null ? ` [${fmt(it.lo, 1)}, ${fmt(it.hi, 1)}]` : ''}`)));
    });
    return g;
  }

  function ticks(lo, hi) {
    const span = hi - lo;
    const step = Math.pow(10, Math.floor(Math.log10(span / 5)));
    const m = [1, 2, 5, 10].find((k) => span / (step * k) <= 7) * step;
    const out = [];
    for (let t = Math.ceil(lo / m) * m; t <= hi + 1e-9; t += m) out.push(Number(t.toFixed(10)));
    return out;
  }

  // --- Head to head: how often the row bot placed better than the column bot
  const bots = [];
  for (const m of ok) for (const b of m.header.seat_bots) if (!bots.includes(b)) bots.push(b);
  if (ST) bots.sort((a, b) => ST.rows.findIndex((r) => r.bot === a) - ST.rows.findIndex((r) => r.bot === b));
  const h2h = {};
  for (const a of bots) { h2h[a] = {}; for (const b of bots) h2h[a][b] = {w: 0, d: 0, l: 0}; }
  for (const m of ok) {
    const p = m.result.placements; const sb = m.header.seat_bots;
    for (let i = 0; i < sb.length; ++i) {
      for (let j = 0; j < sb.length; ++j) {
        if (i === j || sb[i] === sb[j]) continue;
        const c = h2h[sb[i]][sb[j]];
        if (p[i] < p[j]) c.w++; else if (p[i] > p[j]) c.l++; else c.d++;
      }
    }
  }
  app.appendChild(el('h2', {}, 'Head to head'));
  app.appendChild(el('div', {class: 'muted'}, 'Share of meetings in which the row bot placed better than the column bot (ties count half); wins-draws-losses below.'));
  const heat = el('table', {class: 'heat', id: 'head-to-head'}, el('tr', {}, el('th', {}, ''), bots.map((b) => el('th', {}, b))));
  for (const a of bots) {
    heat.appendChild(el('tr', {}, el('th', {}, a), bots.map((b) => {
      const c = h2h[a][b]; const n = c.w + c.d + c.l;
      if (a === b || !n) return el('td', {class: 'none'}, '\u2013');
      const share = (c.w + c.d / 2) / n;
      const hue = share >= 0.5 ? '120' : '0'; const sat = Math.round(Math.abs(share - 0.5) * 2 * 70);
      return el('td', {style: `background: hsl(${hue}, ${sat}%, 88%)`, title: `${a} vs ${b}: ${c.w} better, ${c.d} tied, ${c.l} worse`},
        el('div', {}, `${Math.round(share * 100)}%`), el('div', {class: 'muted'}, `${c.w}-${c.d}-${c.l}`));
    })));
  }
  app.appendChild(heat);

  // --- Score distributions per bot: box (quartiles) and every score as a dot
  app.appendChild(el('h2', {}, 'Score distributions'));
  const scores = {};
  for (const b of bots) scores[b] = [];
  for (const m of ok) m.result.scores.forEach((s, i) => scores[m.header.seat_bots[i]].push(Number(s)));
  app.appendChild(el('div', {class: 'muted'}, `Every match score of every bot (${higher ? 'higher' : 'lower'} is better); the box spans the middle half, the bar is the median.`));
  app.appendChild(boxChart(bots.map((b) => ({bot: b, v: scores[b]}))));

  function quantile(sorted, q) {
    if (!sorted.length) return NaN;
    const i = (sorted.length - 1) * q; const a = Math.floor(i); const b = Math.ceil(i);
    return sorted[a] + (sorted[b] - sorted[a]) * (i - a);
  }
  function boxChart(items) {
    const W = 640; const rowH = 30; const left = 130; const right = 20;
    const H = items.length * rowH + 30;
    const all = items.flatMap((i) => i.v);
    let lo = all.length ? Math.min(...all) : 0; let hi = all.length ? Math.max(...all) : 1;
    if (lo === hi) { lo -= 1; hi += 1; }
    const x = (v) => left + (v - lo) / (hi - lo) * (W - left - right);
    const g = svg('svg', {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', id: 'score-chart'});
    ticks(lo, hi).forEach((t) => g.appendChild(svg('g', {},
      svg('line', {x1: x(t), x2: x(t), y1: 0, y2: H - 18, stroke: '#e3e6ec'}),
      svg('text', {x: x(t), y: H - 4, 'text-anchor': 'middle'}, fmt(t, 1)))));
    items.forEach((it, i) => {
      const y = i * rowH + 16; const s = [...it.v].sort((a, b) => a - b);
      g.appendChild(svg('text', {x: left - 8, y: y + 4, 'text-anchor': 'end'}, `${it.bot} (${s.length})`));
      if (!s.length) return;
      const q1 = quantile(s, 0.25); const q2 = quantile(s, 0.5); const q3 = quantile(s, 0.75);
      g.appendChild(svg('line', {x1: x(s[0]), x2: x(s[s.length - 1]), y1: y, y2: y, stroke: '#9aa3b2'}));
      g.appendChild(svg('rect', {x: x(q1), y: y - 8, width: Math.max(1, x(q3) - x(q1)), height: 16, fill: '#dce7fb', stroke: '#2f6fdd'}));
      g.appendChild(svg('line', {x1: x(q2), x2: x(q2), y1: y - 8, y2: y + 8, stroke: '#1d2330', 'stroke-width': 2}));
      s.forEach((v, k) => g.appendChild(svg('circle', {cx: x(v), cy: y + ((k * 7919) % 11) - 5, r: 1.8, fill: '#1d2330', 'fill-opacity': 0.45})));
      g.appendChild(svg('title', {}, `${it.bot}: median ${fmt(q2)}, quartiles ${fmt(q1)} to ${fmt(q3)}, ${s.length} scores`));
    });
    return g;
  }

  // --- Seat advantage: win rate and mean placement by seat
  app.appendChild(el('h2', {}, 'Seat advantage'));
  const nSeats = ok.length ? Math.max(...ok.map((m) => m.header.num_seats)) : 0;
  const bySeat = [...Array(nSeats)].map(() => ({n: 0, wins: 0, place: 0}));
  for (const m of ok) {
    m.result.placements.forEach((p, s) => { bySeat[s].n++; bySeat[s].place += p; if (p === 1) bySeat[s].wins++; });
  }
  app.appendChild(el('div', {class: 'muted'}, 'Over all matches: how often each seat won (placement 1, ties included), and its mean placement. Seat 0 moves first in most games.'));
  const W = 640; const barH = 22; const left = 130;
  const g = svg('svg', {width: W, height: nSeats * barH + 24, role: 'img', id: 'seat-chart'});
  bySeat.forEach((s, i) => {
    const rate = s.n ? s.wins / s.n : 0; const y = i * barH + 4;
    g.appendChild(svg('text', {x: left - 8, y: y + 13, 'text-anchor': 'end'}, `seat ${i}`));
    g.appendChild(svg('rect', {x: left, y, width: Math.max(1, rate * (W - left - 160)), height: barH - 6, fill: '#2f6fdd'}));
    g.appendChild(svg('text', {x: left + rate * (W - left - 160) + 6, y: y + 13},
      `${Math.round(rate * 100)}% wins, mean placement ${s.n ? fmt(s.place / s.n, 2) : '\u2013'} (${s.n})`));
  });
  app.appendChild(g);
  const seatTable = el('table', {id: 'seat-table'}, el('tr', {}, el('th', {}, 'mean placement'),
    [...Array(nSeats).keys()].map((s) => el('th', {class: 'num'}, `seat ${s}`))));
  for (const b of bots) {
    seatTable.appendChild(el('tr', {}, el('th', {}, b), [...Array(nSeats).keys()].map((s) => {
      const ps = ok.filter((m) => m.header.seat_bots[s] === b).map((m) => m.result.placements[s]);
      return el('td', {class: 'num'}, ps.length ? `${fmt(ps.reduce((x, y) => x + y, 0) / ps.length, 2)} (${ps.length})` : '\u2013');
    })));
  }
  app.appendChild(seatTable);

  // --- Matches
  app.appendChild(el('h2', {}, 'Matches'));
  const mt = el('table', {id: 'matches'}, el('tr', {}, el('th', {}, 'match'), el('th', {}, 'seats'),
    el('th', {}, 'scores'), el('th', {}, 'placements'), el('th', {}, 'end'), el('th', {class: 'num'}, 'decisions')));
  for (const m of MATCHES) {
    if (m.error) {
      mt.appendChild(el('tr', {}, el('td', {}, m.file), el('td', {colspan: 5, class: 'error'}, `does not verify: ${m.error}`)));
      continue;
    }
    mt.appendChild(el('tr', {},
      el('td', {}, m.page ? el('a', {href: m.page}, m.header.match_id) : m.header.match_id),
      el('td', {}, m.header.seat_bots.join(', ')),
      el('td', {}, m.result.scores.map((s) => fmt(s)).join(', ')),
      el('td', {}, m.result.placements.join(', ')),
      el('td', {}, enumWords(m.result.end_reason)),
      el('td', {class: 'num'}, fmt(m.result.decisions))));
  }
  app.appendChild(mt);
})();
