// The tournament page: standings (every field of standings.json; rating
// interval bars when the rows hold ratings; ranks with their intervals;
// which bots are surely ahead of which; withdrawn bots in a table of their
// own, off the ratings axis), head-to-head, score distributions, seat
// advantage, and the matches with links to their replays. Beyond 16 bots
// the matrices are compact heatmaps (values in tooltips), and anything
// wider than the page scrolls in its own box.
// arenaRenderIndex draws the page anew from the standings and the matches
// (a live page calls it again as records land: arena/live/). A live page
// holds only the newest matches, and passes SUM (a MatchListSummary: the
// count of records, every bot's scores and seats) for what is drawn from
// all of them; its counts of matches are the records', and when the
// standings, rebuilt less often, are of fewer records it says so. PLAN
// (schedule.json, or null): the schedule's target, and which of its
// comparisons are still undecided. A row of rank 0 is unranked (no match
// against another bot yet): no rank, rating or interval, off the charts.
window.arenaRenderIndex = (ST, MATCHES, SUM, PLAN) => {
  const app = document.getElementById('app');
  app.textContent = '';
  const ok = MATCHES.filter((m) => !m.error);
  const bad = MATCHES.filter((m) => m.error);
  const game = ST ? ST.game : (ok[0] ? ok[0].header.game : '?');
  const higher = ST ? ST.higher_score_wins : (ok[0] ? ok[0].result.higher_score_wins : true);

  app.appendChild(el('h1', {}, `Tournament: ${game}`));
  const nRecords = SUM ? Number(SUM.records || 0) : MATCHES.length;
  const nBad = SUM ? Number(SUM.errors || 0) : bad.length;
  // The matches played: on a live page, the whole records (the standings
  // may be of fewer, until their next rebuild); else the standings'.
  const played = SUM ? nRecords - nBad : Number((ST && ST.matches_played) || 0);
  const unranked = (r) => finite(r.rank) === 0;
  if (ST) {
    // Fields at their default may be left out of standings.json: 0, false.
    const opts = Object.entries(ST.options || {}).map(([k, v]) => `${k}=${v}`).join(', ');
    const groups = finite(ST.deal_groups);
    const planned = Math.max(Number(ST.matches_planned || 0), Number((PLAN && PLAN.matches_planned) || 0), played);
    app.appendChild(el('div', {class: 'muted', id: 'summary'},
      `${fmt(played)} of ${fmt(planned)} matches played`,
      PLAN && PLAN.budget && !PLAN.finished ? ` (planned so far; at most ${fmt(PLAN.budget)})` : '',
      ST.matches_unrecorded ? el('span', {class: 'error'}, ` (${fmt(ST.matches_unrecorded)} unrecorded)`) : '',
      `, ${fmt(ST.seats || 0)} seats`,
      ST.deal_mode ? `, ${enumWords(ST.deal_mode)} deals` : '',
      groups ? ` in ${fmt(groups)} deal group${groups === 1 ? '' : 's'}` : '',
      opts ? `, options ${opts}` : '', `; ${higher ? 'higher' : 'lower'} score is better`));
    const bal = ST.balance;  // absent from the standings of older versions
    const span = (a, b) => (Number(a || 0) === Number(b || 0) ? fmt(a || 0) : `${fmt(a || 0)}\u2013${fmt(b || 0)}`);
    app.appendChild(el('div', {class: 'muted', id: 'balance'}, !bal ? (ST.balanced ? 'Seat positions balanced.' : 'Not balanced.')
      : `${ST.balanced ? 'Balanced' : 'Not balanced'}: ${span(bal.matches_min, bal.matches_max)} matches per bot, ` +
      `${span(bal.seat_count_min, bal.seat_count_max)} times at each seat position, ` +
      `${span(bal.meetings_min, bal.meetings_max)} meetings per pair of bots not withdrawn (${fmt(bal.pairs || 0)} pairs).`));
  }
  app.appendChild(el('div', {class: 'muted', id: 'records'}, `${fmt(nRecords)} records, ${fmt(nRecords - nBad)} replayable`,
    nBad ? el('span', {class: 'error'}, `, ${fmt(nBad)} that do not verify`) : ''));

  // --- Standings ---
  app.appendChild(el('h2', {}, 'Standings'));
  if (!ST) {
    app.appendChild(el('div', {class: 'none'}, 'No standings.json in this folder.'));
  } else {
    const rows = ST.rows || [];
    const active = rows.filter((r) => !r.withdrawn);
    const gone = rows.filter((r) => r.withdrawn);
    const ranked = active.filter((r) => !unranked(r));
    const nUnranked = rows.filter(unranked).length;
    if (SUM && Number(ST.matches_played || 0) < played) {
      app.appendChild(el('div', {class: 'muted', id: 'standings-lag'},
        `Standings of ${fmt(ST.matches_played || 0)} of ${fmt(played)} records; rebuilding.`));
    }
    app.appendChild(scroll(standingsTable(active, 'standings')));
    if (nUnranked) {
      app.appendChild(el('div', {class: 'muted', id: 'unranked-note'},
        `${fmt(nUnranked)} unranked: no match against another bot yet, so no rank or rating.`));
    }
    if (ST.pairs_compared) app.appendChild(el('div', {id: 'surely'}, surelyWords()));
    scheduleWords();
    if (gone.length) {
      app.appendChild(el('h3', {}, 'Withdrawn'));
      app.appendChild(el('div', {class: 'muted'}, 'Their remaining matches were forfeited; they are left off the ratings chart and the matrices.'));
      app.appendChild(scroll(standingsTable(gone, 'withdrawn-standings')));
    }
    // Entrants that failed as programs: withdrawn (their remaining matches
    // are their forfeits), restarted, or ended unexpectedly.
    const entrants = ST.entrants || [];
    for (const r of rows.filter((r) => r.withdrawn)) {
      const e = entrants.find((x) => x.bot === r.bot);
      app.appendChild(el('div', {class: 'error withdrawn'},
        `Withdrawn: ${r.bot}: ${(e && e.reason) || r.withdrawn_reason || 'no reason given'}`));
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
    if (ratings && ranked.length) {
      const level = finite(ST.interval_level);
      app.appendChild(el('h3', {}, `Ratings (${words(ratings.label)})`));
      if (!ratings.intervals) {
        app.appendChild(el('div', {class: 'muted'}, 'No intervals: the bootstrap needs more than one deal group.'));
      } else if (level) {
        app.appendChild(el('div', {class: 'muted'}, `Dots: ratings; bars: ${Math.round(level * 100)}% intervals.`));
      }
      app.appendChild(intervalChart(ranked.map((r) => ratings.get(r))));
    }
    const los = losTable(rows, ranked);
    if (los) {
      app.appendChild(el('h3', {}, 'Likelihood of superiority'));
      app.appendChild(el('div', {class: 'muted'}, 'How likely the row bot is stronger than the column bot' +
        (active.length > 16 ? ' (green: row stronger, red: weaker; the value in each cell\'s tooltip).' : '.')));
      app.appendChild(scroll(los));
    }
  }

  // The schedule's target (schedule.json): an adaptive contest's rounds,
  // budget and why it stopped, and for any schedule the comparisons of its
  // target (the top K in order) that are still undecided, by name.
  function scheduleWords() {
    if (!PLAN) return;
    const comps = PLAN.comparisons || [];
    const adaptive = PLAN.kind === 'SCHEDULE_KIND_ADAPTIVE';
    if (!adaptive && !comps.length) return;
    const pct = Math.round((finite(PLAN.confidence) || 0.95) * 100);
    const k = Number(PLAN.top_k || 0);
    const box = el('div', {id: 'schedule'});
    box.appendChild(el('h3', {}, adaptive ? 'Adaptive schedule' : 'How sure the top is'));
    if (adaptive) {
      box.appendChild(el('div', {class: 'muted'},
        `${fmt(PLAN.rounds || 0)} round${PLAN.rounds === 1 ? '' : 's'}, ${fmt(PLAN.matches_planned || 0)} matches planned` +
        (PLAN.budget ? ` of a budget of ${fmt(PLAN.budget)}` : '') +
        (PLAN.finished ? `; stopped: ${PLAN.stop || 'done'}.` : '; running.')));
    } else if (PLAN.stop) {
      box.appendChild(el('div', {class: 'muted'}, PLAN.stop));
    }
    const target = `the top ${k ? fmt(k) : ''} named in order at ${pct}% (Holm over ${fmt(comps.length)} comparison${comps.length === 1 ? '' : 's'})`;
    const open = comps.filter((c) => !c.separated);
    if (!comps.length) {
      box.appendChild(el('div', {id: 'undecided-none'}, `Target: ${target}; not checked yet.`));
    } else if (!open.length) {
      box.appendChild(el('div', {id: 'undecided-none'}, `Target: ${target}; every comparison is decided.`));
    } else {
      box.appendChild(el('div', {id: 'undecided-words'},
        `Target: ${target}; ${fmt(open.length)} undecided: ` +
        open.slice(0, 12).map((c) => `${c.ahead} ahead of ${c.behind}?`).join(', ') +
        (open.length > 12 ? `, and ${fmt(open.length - 12)} more (below).` : '.')));
      const t = el('table', {id: 'undecided'}, el('tr', {}, ['ahead', 'behind', 'difference (Elo)', 'sd', 'p'].map(
        (h, i) => el('th', {class: i > 1 ? 'num' : null}, h))));
      for (const c of open) {
        t.appendChild(el('tr', {}, el('td', {}, c.ahead), el('td', {}, c.behind),
          el('td', {class: 'num'}, signedRating(c.elo_diff)), el('td', {class: 'num'}, fmt(finite(c.sd) || 0, 0)),
          el('td', {class: 'num'}, fmt(finite(c.p) || 0, 3))));
      }
      box.appendChild(scroll(t));
    }
    app.appendChild(box);
  }

  // A box that scrolls what is wider than the page.
  function scroll(x) { return el('div', {class: 'scroll'}, x); }

  // "2-5,7" (1-based row positions) -> [2, 3, 4, 5, 7].
  function positions(ranges) {
    const out = [];
    for (const part of String(ranges || '').split(',').filter(Boolean)) {
      const [a, b] = part.split('-').map(Number);
      for (let k = a; k <= (Number.isFinite(b) ? b : a); ++k) out.push(k);
    }
    return out;
  }

  // Which bots are surely ahead of which: every pair when there are few,
  // else each bot's count.
  function surelyWords() {
    const rows = ST.rows || [];
    const head = `Surely ahead (${Math.round((finite(ST.interval_level) || 0.95) * 100)}%, Holm over ${fmt(ST.pairs_compared)} pairs): `;
    const n = ST.pairs_ordered || 0;
    if (!n) return head + 'no bot is surely ahead of another.';
    if (n <= 20) {
      const pairs = rows.flatMap((r) => positions(r.surely_ahead_of).map((k) => `${r.bot} > ${rows[k - 1] ? rows[k - 1].bot : k}`));
      return head + pairs.join(', ') + '.';
    }
    const some = rows.filter((r) => r.surely_ahead_count > 0);
    return head + `${fmt(n)} pairs; ` + some.slice(0, 20).map((r) => `${r.bot} > ${fmt(r.surely_ahead_count)}`).join(', ') +
      (some.length > 20 ? `, and ${some.length - 20} more bots` : '') + ' (each row says which).';
  }

  // The standings table: one rank column, the known fields in words (faults
  // by kind, the rating with its interval), then any field this page does
  // not know, in words too (never raw JSON).
  function standingsTable(rows, id) {
    const KNOWN = ['rank', 'bot', 'elo', 'elo_low', 'elo_high', 'matches', 'seats_played', 'wins',
                   'mean_score', 'mean_placement', 'forfeits', 'faults', 'fault_kinds', 'los',
                   'withdrawn', 'withdrawn_reason', 'rank_low', 'rank_high', 'surely_ahead_count',
                   'surely_behind_count', 'surely_ahead_of', 'answers', 'think_ms_median',
                   'think_ms_p95', 'think_ms_max', 'processes', 'cpu_seconds', 'peak_rss_kib',
                   'bank_spent_ms'];
    const all = ST.rows || [];
    const hasRanks = rows.some((r) => finite(r.rank_low) !== null && finite(r.rank_high) !== null);
    const pct = Math.round((finite(ST.interval_level) || 0.95) * 100);
    const extra = [];
    for (const r of rows) for (const k of Object.keys(r)) if (!KNOWN.includes(k) && !extra.includes(k)) extra.push(k);
    const hasElo = rows.some((r) => finite(r.elo) !== null);
    const hasInterval = rows.some((r) => finite(r.elo_low) !== null && finite(r.elo_high) !== null &&
                                         Number(r.elo_low) !== Number(r.elo_high));
    const signed = signedRating;
    const none = '\u2013';
    const cols = [
      ['rank', (r, i) => (unranked(r) ? none : fmt(finite(r.rank) || i + 1)), 'num'],
      hasRanks ? [`${pct}% ranks`, (r) => (unranked(r) ? none : r.rank_low === r.rank_high ? fmt(r.rank_low)
        : `${fmt(r.rank_low)}\u2013${fmt(r.rank_high)}`), 'num'] : null,
      ['bot', (r) => [r.bot, r.withdrawn ? el('span', {class: 'badge private'}, 'withdrawn') : null,
        unranked(r) ? el('span', {class: 'badge unranked', title: 'no match against another bot yet: no rank or rating'}, 'unranked') : null], ''],
      hasElo ? ['elo', (r) => (unranked(r) ? none : signed(r.elo)), 'num'] : null,
      hasInterval ? [`${Math.round((finite(ST.interval_level) || 0.95) * 100)}% interval`,
        (r) => (unranked(r) ? none : `[${signed(r.elo_low)}, ${signed(r.elo_high)}]`), 'num'] : null,
      ST.pairs_compared ? ['ahead / behind', (r) => unranked(r) ? none : el('span', {
        title: `surely ahead of: ${positions(r.surely_ahead_of).map((k) => (all[k - 1] || {}).bot).join(', ') || 'none'}`},
        `${fmt(r.surely_ahead_count || 0)} / ${fmt(r.surely_behind_count || 0)}`), 'num'] : null,
      ['matches', (r) => fmt(r.matches || 0), 'num'],
      all.some((r) => (r.seats_played || 0) !== (r.matches || 0)) ? ['seats played', (r) => fmt(r.seats_played || 0), 'num'] : null,
      ['wins', (r) => fmt(r.wins || 0), 'num'],
      ['win %', (r) => (r.matches ? `${fmt(100 * (r.wins || 0) / r.matches, 1)}%` : '\u2013'), 'num'],
      ['mean score', (r) => fmt(r.mean_score || 0), 'num'],
      ['mean placement', (r) => fmt(r.mean_placement || 0), 'num'],
      ['forfeits', (r) => fmt(r.forfeits || 0), 'num'],
      ['faults', (r) => faultWords(r.fault_kinds) || (r.faults ? `${fmt(r.faults)}` : 'none'), 'faults'],
      all.some((r) => Number(r.answers || 0) > 0) ? ['think ms', (r) => (Number(r.answers || 0) > 0
        ? `${fmt(r.think_ms_median || 0, 2)} / ${fmt(r.think_ms_p95 || 0, 2)} / ${fmt(r.think_ms_max || 0, 2)}`
        : '\u2013'), 'num'] : null,
      all.some((r) => Number(r.bank_spent_ms || 0) > 0) ? ['bank spent ms',
        (r) => fmt(r.bank_spent_ms || 0, 1), 'num'] : null,
      all.some((r) => Number(r.processes || 0) > 0) ? ['CPU s / peak MiB', (r) => (Number(r.processes || 0) > 0
        ? `${fmt(r.cpu_seconds || 0, 2)} / ${fmt((r.peak_rss_kib || 0) / 1024, 1)}`
        : '\u2013'), 'num'] : null,
      ...extra.map((k) => [words(k), (r) => plainWords(r[k]), '']),
    ].filter(Boolean);
    const tips = {'ahead / behind': `bots this one is surely stronger / weaker than (${pct}%, Holm-corrected; the names in each cell's tooltip)`,
                  [`${pct}% ranks`]: `the rank's ${pct}% interval, from the bootstrap`,
                  'think ms': 'time to answer, median / 95th percentile / longest, in ms, over the answers that came in time',
                  'CPU s / peak MiB': 'CPU seconds (user + system) of the bot\'s processes, summed, and the largest peak resident set of one of its programs, in MiB (from the kernel\'s accounting)'};
    const t = el('table', {id}, el('tr', {}, cols.map(([h, , c]) => el('th', {class: c === 'num' ? 'num' : null, title: tips[h]}, h))));
    rows.forEach((r, i) => t.appendChild(el('tr', {'data-bot': r.bot}, cols.map(([h, f, c]) =>
      el('td', {class: c || null, 'data-col': h}, f(r, i))))));
    return t;
  }

  // Any JSON value in words: lists joined, objects as "key value" pairs.
  function plainWords(v) {
    if (v === undefined || v === null) return '';
    if (Array.isArray(v)) return v.map(plainWords).join(', ');
    if (typeof v === 'object') return Object.entries(v).map(([k, x]) => `${words(k)} ${plainWords(x)}`).join(', ');
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    if (typeof v === 'string') return /^[A-Z][A-Z0-9_]+$/.test(v) ? enumWords(v) : v;
    return fmt(v);
  }

  // The likelihood-of-superiority matrix (each row's `los`, in row order)
  // of the bots `shown` (a part of `rows`).
  function losTable(rows, shown) {
    if (shown.length < 2 || !rows.every((r) => Array.isArray(r.los) && r.los.length === rows.length)) return null;
    const at = shown.map((r) => rows.indexOf(r));
    return matrix('los', shown.map((r) => r.bot), (i, j) => {
      const n = finite(shown[i].los[at[j]]);
      return n === null ? null : {share: n, text: fmt(n, 3), title: `${shown[i].bot} stronger than ${shown[j].bot}: ${fmt(n, 3)}`};
    });
  }

  // A matrix of bots, each cell coloured by a share in [0, 1] (green above
  // one half, red below): up to 16 bots with the values written in it, more
  // as small cells with the values in their tooltips, the columns numbered
  // as the rows. cell(i, j) -> {share, text, sub, title} or null.
  function matrix(id, names, cell) {
    const compact = names.length > 16;
    const t = el('table', {class: compact ? 'heat compact' : 'heat', id},
      el('tr', {}, el('th', {}, ''), names.map((b, j) => el('th', {title: b}, compact ? String(j + 1) : b))));
    names.forEach((a, i) => t.appendChild(el('tr', {}, el('th', {title: a}, compact ? `${i + 1} ${a}` : a), names.map((b, j) => {
      const c = i === j ? null : cell(i, j);
      if (!c) return el('td', {class: 'none'}, compact ? '' : '\u2013');
      const hue = c.share >= 0.5 ? '120' : '0'; const sat = Math.round(Math.abs(c.share - 0.5) * 2 * 70);
      return el('td', {style: `background: hsl(${hue}, ${sat}%, ${compact ? 82 : 88}%)`, title: c.title},
        compact ? '' : [el('div', {}, c.text), c.sub ? el('div', {class: 'muted'}, c.sub) : null]);
    }))));
    return t;
  }

  // Ratings, if the rows hold them: a centre field (elo, rating, mu, ...)
  // and an interval: two fields (…low/…high, …lower/…upper), an object
  // {low, high} or [low, high], or a deviation (…sigma, …std, …stderr: ±2
  // of it). Values that are missing or not finite are left out.
  function findRatings(rows) {
    if (!rows.length) return null;
    const keys = [];
    for (const r of rows) for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
    const has = (k) => rows.some((r) => finite(r[k]) !== null);
    const centre = ['elo', 'rating', 'mu', 'skill', 'strength'].find((k) => keys.includes(k) && has(k));
    if (!centre) return null;
    const pick = (sfx) => sfx.map((x) => `${centre}_${x}`).find((k) => keys.includes(k));
    const lowK = pick(['low', 'lower', 'lo', 'min']);
    const highK = pick(['high', 'upper', 'hi', 'max']);
    const objK = keys.find((k) => /interval|ci$/i.test(k) && rows.some((r) => r[k] && typeof r[k] === 'object'));
    const devK = keys.find((k) => /sigma|std|stderr|deviation|rd$/i.test(k) && has(k));
    const get = (r) => {
      const c = finite(r[centre]);
      let lo = null; let hi = null;
      if (lowK && highK) { lo = finite(r[lowK]); hi = finite(r[highK]); }
      else if (objK && r[objK] && typeof r[objK] === 'object') {
        const o = r[objK];
        if (Array.isArray(o)) { lo = finite(o[0]); hi = finite(o[1]); }
        else { lo = finite(o.low ?? o.lower ?? o.lo); hi = finite(o.high ?? o.upper ?? o.hi); }
      } else if (devK && c !== null && finite(r[devK]) !== null) {
        lo = c - 2 * finite(r[devK]); hi = c + 2 * finite(r[devK]);
      }
      if (lo === null || hi === null) { lo = null; hi = null; }
      return {bot: r.bot, c, lo, hi};
    };
    const items = rows.map(get);
    const intervals = items.some((i) => i.lo !== null && i.hi > i.lo);
    return {label: centre + (lowK && highK ? ` [${lowK}, ${highK}]` : objK ? ` ${objK}` : devK ? ` \u00B1 2 ${devK}` : ''),
            get, intervals};
  }

  // Each bot's rating as a dot and its interval as a bar, on one axis whose
  // box holds every dot and bar (its ends are round values beyond them).
  function intervalChart(items) {
    const W = 640; const rowH = items.length > 16 ? 16 : 24; const left = 130; const right = 20; const top = 4;
    const plotH = items.length * rowH;
    const H = top + plotH + 26;
    const vals = items.flatMap((i) => [i.c, i.lo, i.hi]).filter((v) => v !== null);
    const ax = niceAxis(Math.min(...vals), Math.max(...vals));
    const inset = 10;  // the dots' radius and more, inside the box
    const x = (v) => left + inset + (v - ax.lo) / (ax.hi - ax.lo) * (W - left - right - 2 * inset);
    const g = svg('svg', {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', id: 'ratings-chart'});
    g.appendChild(svg('rect', {class: 'axis-box', x: left, y: top, width: W - left - right, height: plotH,
                               fill: 'none', stroke: '#9aa3b2'}));
    ax.ticks.forEach((t) => g.appendChild(svg('g', {class: 'tick'},
      svg('line', {x1: x(t), x2: x(t), y1: top, y2: top + plotH + 4, stroke: t === 0 ? '#9aa3b2' : '#e3e6ec'}),
      svg('text', {x: x(t), y: top + plotH + 17, 'text-anchor': 'middle'}, fmt(t, 0)))));
    items.forEach((it, i) => {
      const y = top + i * rowH + rowH / 2;
      g.appendChild(svg('text', {x: left - 8, y: y + 4, 'text-anchor': 'end'}, it.bot));
      if (it.c === null) {
        g.appendChild(svg('text', {x: left + 6, y: y + 4, class: 'muted'}, 'no rating'));
        return;
      }
      if (it.lo !== null && it.hi !== null) {
        g.appendChild(svg('line', {x1: x(it.lo), x2: x(it.hi), y1: y, y2: y, stroke: '#2f6fdd', 'stroke-width': 3, class: 'interval'}));
      }
      g.appendChild(svg('circle', {cx: x(it.c), cy: y, r: 5, fill: '#1d2330'},
        svg('title', {}, `${it.bot}: ${fmt(it.c, 1)}${it.lo !== null ? ` [${fmt(it.lo, 1)}, ${fmt(it.hi, 1)}]` : ''}`)));
    });
    return g;
  }

  // --- Head to head: how often the row bot placed better than the column bot
  const bots = SUM ? Object.keys(SUM.bots || {}) : [];
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
  // From the standings when there are (they leave out what two withdrawn
  // bots "won" from each other's no-shows), else from the records.
  let h2hBots = bots;
  if (ST && Array.isArray(ST.rows)) {
    h2hBots = [...ST.rows.filter((r) => !r.withdrawn), ...ST.rows.filter((r) => r.withdrawn)].map((r) => r.bot);
    for (const a of h2hBots) { h2h[a] = {}; for (const b of h2hBots) h2h[a][b] = {w: 0, d: 0, l: 0}; }
    for (const x of ST.head_to_head || []) {
      if (h2h[x.bot] && h2h[x.bot][x.opponent]) h2h[x.bot][x.opponent] = {w: x.ahead || 0, d: x.tied || 0, l: x.behind || 0};
    }
  }
  app.appendChild(el('h2', {}, 'Head to head'));
  app.appendChild(el('div', {class: 'muted'}, 'Share of meetings in which the row bot placed better than the column bot (ties count half)' +
    (h2hBots.length > 16 ? '; better-tied-worse in each cell\'s tooltip.' : '; better-tied-worse below.')));
  app.appendChild(scroll(matrix('head-to-head', h2hBots, (i, j) => {
    const a = h2hBots[i]; const b = h2hBots[j]; const c = h2h[a][b]; const n = c.w + c.d + c.l;
    if (!n) return null;
    const share = (c.w + c.d / 2) / n;
    return {share, text: `${Math.round(share * 100)}%`, sub: `${c.w}-${c.d}-${c.l}`,
            title: `${a} vs ${b}: ${c.w} better, ${c.d} tied, ${c.l} worse`};
  })));

  // --- Score distributions per bot: box (quartiles), and a dot for each
  // score that occurred (a contest of a million matches has as many scores:
  // they are counted by value, never listed one by one).
  app.appendChild(el('h2', {}, 'Score distributions'));
  const scores = {};  // bot -> Map(score -> count)
  for (const b of bots) scores[b] = new Map();
  const count = (b, v, n) => { if (scores[b]) scores[b].set(v, (scores[b].get(v) || 0) + n); };
  if (SUM) {
    for (const b of bots) {
      for (const x of ((SUM.bots || {})[b] || {}).scores || []) count(b, Number(x.score || 0), Number(x.count || 0));
    }
  } else {
    for (const m of ok) m.result.scores.forEach((v, i) => count(m.header.seat_bots[i], Number(v), 1));
  }
  app.appendChild(el('div', {class: 'muted'}, `Every match score of every bot (${higher ? 'higher' : 'lower'} is better); the box spans the middle half, the bar is the median; a dot for each score that occurred, darker the more often.`));
  app.appendChild(boxChart(bots.map((b) => ({bot: b, v: [...scores[b]].filter(([v, n]) => Number.isFinite(v) && n > 0).sort((a, c) => a[0] - c[0])}))));

  // The q-quantile of sorted [value, count] pairs, as of the list they
  // stand for (interpolated between neighbours, as for a sorted list).
  function quantile(pairs, total, q) {
    if (!total) return NaN;
    const at = (i) => {  // the i-th value of the list
      let seen = 0;
      for (const [v, n] of pairs) { seen += n; if (i < seen) return v; }
      return pairs[pairs.length - 1][0];
    };
    const i = (total - 1) * q; const a = Math.floor(i); const b = Math.ceil(i);
    const va = at(a); const vb = at(b);
    return va + (vb - va) * (i - a);
  }
  function boxChart(items) {
    const W = 640; const rowH = 30; const left = 130; const right = 20;
    const H = items.length * rowH + 30;
    let lo = Infinity; let hi = -Infinity;
    for (const it of items) {
      if (it.v.length) { lo = Math.min(lo, it.v[0][0]); hi = Math.max(hi, it.v[it.v.length - 1][0]); }
    }
    const ax = niceAxis(lo <= hi ? lo : 0, lo <= hi ? hi : 1);
    const x = (v) => left + 6 + (v - ax.lo) / (ax.hi - ax.lo) * (W - left - right - 12);
    const g = svg('svg', {width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', id: 'score-chart'});
    ax.ticks.forEach((t) => g.appendChild(svg('g', {},
      svg('line', {x1: x(t), x2: x(t), y1: 0, y2: H - 18, stroke: '#e3e6ec'}),
      svg('text', {x: x(t), y: H - 4, 'text-anchor': 'middle'}, fmt(t, 1)))));
    items.forEach((it, i) => {
      const y = i * rowH + 16; const s = it.v;
      const total = s.reduce((t, [, n]) => t + n, 0);
      g.appendChild(svg('text', {x: left - 8, y: y + 4, 'text-anchor': 'end'}, `${it.bot} (${total})`));
      if (!total) return;
      const q1 = quantile(s, total, 0.25); const q2 = quantile(s, total, 0.5); const q3 = quantile(s, total, 0.75);
      g.appendChild(svg('line', {x1: x(s[0][0]), x2: x(s[s.length - 1][0]), y1: y, y2: y, stroke: '#9aa3b2'}));
      g.appendChild(svg('rect', {x: x(q1), y: y - 8, width: Math.max(1, x(q3) - x(q1)), height: 16, fill: '#dce7fb', stroke: '#2f6fdd'}));
      g.appendChild(svg('line', {x1: x(q2), x2: x(q2), y1: y - 8, y2: y + 8, stroke: '#1d2330', 'stroke-width': 2}));
      // One dot a pixel column at most (values closer than a pixel share
      // one), its shade by the share of the scores there.
      const cols = new Map();
      for (const [v, n] of s) { const c = Math.round(x(v)); cols.set(c, (cols.get(c) || 0) + n); }
      let k = 0;
      for (const [c, n] of cols) {
        g.appendChild(svg('circle', {cx: c, cy: y + ((k++ * 7919) % 11) - 5, r: 1.8, fill: '#1d2330',
                                     'fill-opacity': (0.3 + 0.7 * Math.sqrt(n / total)).toFixed(2)}));
      }
      g.appendChild(svg('title', {}, `${it.bot}: median ${fmt(q2)}, quartiles ${fmt(q1)} to ${fmt(q3)}, ${total} scores`));
    });
    return g;
  }

  // --- Seat advantage: win rate and mean placement by seat
  app.appendChild(el('h2', {}, 'Seat advantage'));
  const seatOf = (x) => ({n: Number((x || {}).matches || 0), wins: Number((x || {}).wins || 0),
    place: Number((x || {}).placement_sum || 0)});
  const nSeats = SUM ? (SUM.by_seat || []).length : ok.reduce((n, m) => Math.max(n, m.header.num_seats), 0);
  const bySeat = SUM ? (SUM.by_seat || []).map(seatOf) : [...Array(nSeats)].map(() => ({n: 0, wins: 0, place: 0}));
  if (!SUM) {
    for (const m of ok) {
      m.result.placements.forEach((p, s) => { bySeat[s].n++; bySeat[s].place += p; if (p === 1) bySeat[s].wins++; });
    }
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
      let n = 0; let sum = 0;
      if (SUM) {
        const x = seatOf((((SUM.bots || {})[b] || {}).seats || [])[s]);
        n = x.n; sum = x.place;
      } else {
        const ps = ok.filter((m) => m.header.seat_bots[s] === b).map((m) => m.result.placements[s]);
        n = ps.length; sum = ps.reduce((x, y) => x + y, 0);
      }
      return el('td', {class: 'num'}, n ? `${fmt(sum / n, 2)} (${fmt(n)})` : '\u2013');
    })));
  }
  app.appendChild(seatTable);

  // --- Matches
  app.appendChild(el('h2', {}, 'Matches'));
  if (SUM && nRecords > MATCHES.length) {
    app.appendChild(el('div', {class: 'muted', id: 'matches-note'},
      `The newest of ${fmt(nRecords)} as they land (${fmt(MATCHES.length)} here); every one is in `,
      el('a', {href: 'matches.json'}, 'matches.json'), '.'));
  }
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
      el('td', {}, enumWords(m.result.end_reason),
        m.forfeit && m.forfeit.fault ? ` (${m.header.seat_bots[m.forfeit.seat] || `seat ${m.forfeit.seat}`}: ${enumWords(m.forfeit.fault)})` : ''),
      el('td', {class: 'num'}, fmt(m.result.decisions))));
  }
  app.appendChild(mt);
};
// A live page's script (IndexPage's extra_script) draws the page itself,
// with the summary of every match: drawing it here first would be wasted.
if (!window.arenaDrawnByExtraScript) {
  const plan = document.getElementById('schedule-data');
  window.arenaRenderIndex(JSON.parse(document.getElementById('standings-data').textContent),
    JSON.parse(document.getElementById('matches-data').textContent), null,
    plan ? JSON.parse(plan.textContent) : null);
}
