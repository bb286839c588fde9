// The replay page's table: a seat's view drawn as cards, for any game, from
// the replay's card catalogue and its card field names (no game is named
// here). A view's fields are sorted into
//   the hand     (the field `hand`): a row of cards;
//   the table    (every other field holding cards: a trick, the pile's top,
//                 offers, treasuries, ...): labelled groups of cards, each
//                 card captioned by its entry's other fields ("from seat 3,
//                 to seat 2");
//   the facts    (numbers and enums: phase, round, hand sizes): one short
//                 line each.
// Every card id of the view (>= 0) is drawn once, as a .pcard with
// data-card (the browser test counts them).

// Whether `v`, the value of field `key`, holds a card anywhere.
function holdsCards(ctx, key, v) {
  if (ctx.cardFields.has(key) && (typeof v === 'number' || (Array.isArray(v) && v.every((x) => typeof x === 'number')))) {
    return true;
  }
  if (Array.isArray(v)) return v.some((x) => x && typeof x === 'object' && holdsCards(ctx, '', x));
  if (v && typeof v === 'object') return Object.entries(v).some(([k, x]) => holdsCards(ctx, k, x));
  return false;
}

// A scalar in words; seats by number and bot.
function factWords(ctx, key, v) {
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return /^[A-Z][A-Z0-9_]+$/.test(v) ? enumWords(v) : v;
  if (/seat/.test(key) && Number.isInteger(Number(v))) {
    const s = Number(v);
    return s < 0 ? 'none' : ctx.seatName(s);
  }
  return fmt(v);
}

// An entry's caption: its fields other than cards, in words.
function captionOf(ctx, o) {
  const parts = [];
  for (const [k, v] of Object.entries(o)) {
    if (holdsCards(ctx, k, v) || v === null || typeof v === 'object') continue;
    if (/seat/.test(k) && Number(v) < 0) continue;
    if (typeof v === 'string' && /_UNSPECIFIED$/.test(v)) continue;
    if (typeof v === 'boolean') { if (v) parts.push(words(k)); continue; }
    const prefix = /^(.+)_seat$/.exec(k);
    if (k === 'seat' || /^seat_/.test(k)) parts.push(factWords(ctx, k, v));
    else if (prefix) parts.push(`${words(prefix[1])} ${factWords(ctx, k, v)}`);
    else parts.push(`${words(k)} ${factWords(ctx, k, v)}`);
  }
  return parts.join(', ');
}

// The cards of field `key` (any shape) appended to `out` (an element).
function drawCards(ctx, key, v, out, caption) {
  if (ctx.cardFields.has(key) && typeof v === 'number') {
    const c = cardFace(ctx.cards, v, caption);
    if (c) out.appendChild(c);
    return;
  }
  if (ctx.cardFields.has(key) && Array.isArray(v) && v.every((x) => typeof x === 'number')) {
    if (caption && v.length) {
      const g = el('div', {class: 'cardgroup'}, el('div', {class: 'glabel'}, caption));
      const row = el('div', {class: 'cards'});
      v.forEach((id) => { const c = cardFace(ctx.cards, id); if (c) row.appendChild(c); });
      g.appendChild(row);
      out.appendChild(g);
    } else {
      v.forEach((id) => { const c = cardFace(ctx.cards, id); if (c) out.appendChild(c); });
    }
    return;
  }
  const entries = Array.isArray(v) ? v : [v];
  for (const o of entries) {
    if (!o || typeof o !== 'object') continue;
    const cap = captionOf(ctx, o);
    const cardKeys = Object.keys(o).filter((k) => holdsCards(ctx, k, o[k]));
    for (const k of cardKeys) drawCards(ctx, k, o[k], out, cap || caption);
  }
}

// Whether field `key` is part of the table: it holds cards now, or at some
// position of the match (an empty trick is still the trick).
function isTableField(ctx, key, v) {
  if (ctx.cardFields.has(key) || holdsCards(ctx, key, v)) return true;
  if (!ctx.tableKeys) {
    ctx.tableKeys = new Set();
    for (const st of ctx.steps || []) {
      if (!st) continue;  // a chunk not loaded yet (replay.js)
      for (const view of st.views || []) {
        const b = boardOf(view);
        if (b) for (const [k, x] of Object.entries(b)) if (!ctx.tableKeys.has(k) && holdsCards(ctx, k, x)) ctx.tableKeys.add(k);
      }
    }
  }
  return ctx.tableKeys.has(key);
}

// The facts: a short line per field.
function factsList(ctx, fields) {
  const dl = el('div', {class: 'facts'});
  for (const [k, v] of fields) {
    let text;
    if (Array.isArray(v)) {
      if (!v.length) continue;
      text = v.every((x) => x === null || typeof x !== 'object')
        ? v.map((x, i) => (/sizes|seats|points|totals|taken|penalties/.test(k) && ctx.numSeats === v.length
          ? `${i}: ${factWords(ctx, '', x)}` : factWords(ctx, k, x))).join(', ')
        : v.map((x) => (x && typeof x === 'object' ? captionOf(ctx, x) : String(x))).join('; ');
    } else if (v && typeof v === 'object') {
      text = captionOf(ctx, v);
    } else {
      if (typeof v === 'string' && /_UNSPECIFIED$/.test(v)) continue;
      text = factWords(ctx, k, v);
    }
    if (text === '') continue;
    dl.appendChild(el('span', {class: 'fact'}, el('span', {class: 'fk'}, words(k)), ' ', text));
  }
  return dl;
}

// The table groups of `fields` ([key, value] holding cards).
function tableGroups(ctx, fields) {
  const box = el('div', {class: 'table-cards'});
  for (const [k, v] of fields) {
    if (typeof v === 'number' && v < 0) continue;  // no card there (-1)
    const g = el('div', {class: 'cardgroup', 'data-field': k}, el('div', {class: 'glabel'}, words(k)));
    const row = el('div', {class: 'cards'});
    drawCards(ctx, k, v, row);
    if (!row.childNodes.length) row.appendChild(el('span', {class: 'none'}, 'empty'));
    g.appendChild(row);
    box.appendChild(g);
  }
  return box;
}

// A hand as a row of cards.
function handRow(ctx, hand) {
  const row = el('div', {class: 'cards hand'});
  drawCards(ctx, 'hand', hand, row);
  if (!row.childNodes.length) row.appendChild(el('span', {class: 'none'}, 'no cards'));
  return row;
}

// The game's part of a view (views hold the game's message under its name,
// or a packed Any for a game outside the bundled ones).
function boardOf(view) {
  if (!view) return null;
  const gameKey = Object.keys(view).find((k) => k !== 'events');
  let board = gameKey ? view[gameKey] : view;
  if (board && board['@type']) board = Object.fromEntries(Object.entries(board).filter(([k]) => k !== '@type'));
  return board;
}

// The table of `boards` (one per seat shown, by seat): fields every shown
// seat sees alike once, on the table; the rest in each seat's panel.
function drawBoard(ctx, boards, seatHeader) {
  const out = el('div', {class: 'board'});
  const shown = boards.map((b, s) => [s, b]).filter(([, b]) => b);
  if (!shown.length) return out;
  const keys = [];
  for (const [, b] of shown) for (const k of Object.keys(b)) if (!keys.includes(k)) keys.push(k);
  const same = (k) => k !== 'hand' && shown.every(([, b]) => JSON.stringify(b[k]) === JSON.stringify(shown[0][1][k]));
  // One seat: its table apart from its hand; every seat: what all see alike.
  const common = keys.filter((k) => (shown.length > 1 ? same(k) : k !== 'hand'));
  const split = (b, ks) => {
    const table = []; const facts = [];
    for (const k of ks) {
      if (k === 'hand' || !(k in b)) continue;
      (isTableField(ctx, k, b[k]) ? table : facts).push([k, b[k]]);
    }
    return {table, facts};
  };
  if (common.length) {
    const {table, facts} = split(shown[0][1], common);
    out.appendChild(el('div', {class: 'panel tablepanel', id: 'table-common'}, el('h3', {}, 'On the table'),
      table.length ? tableGroups(ctx, table) : null, facts.length ? factsList(ctx, facts) : null));
  }
  const seats = el('div', {class: 'grid seats'});
  for (const [s, b] of shown) {
    const own = keys.filter((k) => !common.includes(k));
    const {table, facts} = split(b, own);
    seats.appendChild(el('div', {class: 'panel seatpanel', 'data-seat': s}, seatHeader(s),
      'hand' in b ? el('div', {class: 'glabel'}, 'hand') : null,
      'hand' in b ? handRow(ctx, b.hand) : null,
      table.length ? tableGroups(ctx, table) : null,
      facts.length ? factsList(ctx, facts) : null));
  }
  out.appendChild(seats);
  return out;
}
