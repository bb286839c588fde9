// Shared by arena's HTML pages (embedded in each; no network, no library).
'use strict';

// From the page's enum-words element, or (the static site's replay pages,
// which share one script file) the words that file sets first.
const ENUM_WORDS = (() => {
  const e = document.getElementById('enum-words');
  return e ? JSON.parse(e.textContent) : (window.ARENA_ENUM_WORDS || {});
})();

// el('div', {class: 'x'}, child, 'text', ...): a DOM element.
function el(tag, attrs, ...children) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
    else n.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    n.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
  return n;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, ...children) {
  const n = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) n.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    n.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
  }
  return n;
}

function enumWords(v) {
  return Object.prototype.hasOwnProperty.call(ENUM_WORDS, v) ? ENUM_WORDS[v] : String(v);
}

function words(key) { return String(key).replace(/_/g, ' '); }

function fmt(x, digits) {
  if (typeof x === 'string' && /^-?\d+$/.test(x)) return x;  // int64 as a string
  const n = Number(x);
  if (!Number.isFinite(n)) return String(x);
  return Number.isInteger(n) ? String(n) : n.toFixed(digits === undefined ? 3 : digits);
}

const SUIT_PIPS = {
  hearts: '\u2665', diamonds: '\u2666', clubs: '\u2663', spades: '\u2660',
  bells: '\u25CE', leaves: '\u2618', acorns: '\u2740',
  moons: '\u263E', suns: '\u2600', waves: '\u2248', wyrms: '\u2621', knots: '\u2318',
};

// Faults by kind in words: {timeout: 2, crashed: 1} -> "2 timeouts, 1 crash"
// (kinds this page does not know are named by their field).
const FAULT_WORDS = {
  timeout: ['timeout', 'timeouts'], illegal: ['illegal move', 'illegal moves'],
  disconnected: ['disconnection', 'disconnections'], unavailable: ['time unavailable', 'times unavailable'],
  crashed: ['crash', 'crashes'], no_show: ['no-show', 'no-shows'], cut_off: ['cut-off', 'cut-offs'],
};
function faultWords(kinds) {
  if (!kinds || typeof kinds !== 'object') return '';
  const parts = [];
  for (const [k, v] of Object.entries(kinds)) {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) continue;
    const w = FAULT_WORDS[k] || [words(k), words(k)];
    parts.push(`${fmt(n)} ${n === 1 ? w[0] : w[1]}`);
  }
  return parts.join(', ');
}

// A finite number, or null (missing fields, "NaN", "Infinity").
function finite(v) {
  if (v === null || v === undefined || v === '' || typeof v === 'object' || typeof v === 'boolean') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

// A rating with its sign, rounded: "+186", "-39", "0"; a dash if none.
function signedRating(v) {
  const n = finite(v);
  if (n === null) return '\u2013';
  const k = Math.round(n);
  return k > 0 ? `+${k}` : k < 0 ? String(k) : '0';
}

// A value axis for [lo, hi]: round tick values, the first at or below lo
// and the last at or above hi, so that everything drawn is within it
// (charts keep a margin inside their box for the dots' radius).
function niceAxis(lo, hi) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) { lo = 0; hi = 1; }
  if (lo > hi) [lo, hi] = [hi, lo];
  if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
  const span = hi - lo;
  const base = Math.pow(10, Math.floor(Math.log10(span / 5)));
  const step = [1, 2, 5, 10, 20].map((k) => k * base).find((m) => span / m <= 6);
  const a = Math.floor(lo / step + 1e-9) * step;
  const b = Math.ceil(hi / step - 1e-9) * step;
  const ticks = [];
  for (let t = a; t <= b + step / 2; t += step) ticks.push(Number(t.toFixed(10)));
  return {lo: a, hi: b, ticks};
}

// A card drawn as a small playing card: its corner (rank and suit pip),
// its name from the catalogue, coloured by suit; assets (no suit) as a
// labelled tile. `caption` is a line below it (who offered it, to whom).
const RANK_MARKS = {
  ace: 'A', two: '2', three: '3', four: '4', five: '5', six: '6', seven: '7', eight: '8', nine: '9',
  ten: '10', jack: 'J', queen: 'Q', king: 'K', unter: 'U', ober: 'O', joker: '\u2605', pawn: 'P',
  court: 'C', crown: '\u2655', excuse: '\u2205',
};
function cardFace(cards, id, caption) {
  const n = Number(id);
  if (!Number.isInteger(n) || n < 0) return null;
  const c = cards[n];
  if (!c) return el('div', {class: 'pcard unknown', 'data-card': n}, el('div', {class: 'pname'}, `card #${n}`));
  const suits = c.suits || [];
  const pips = suits.map((s) => SUIT_PIPS[s] || s[0].toUpperCase()).join('');
  const rank = RANK_MARKS[c.rank] || (c.rank ? String(c.rank).slice(0, 2).toUpperCase() : '');
  const cls = suits.length ? `pcard suit-${suits[0]}` : 'pcard asset';
  const title = [c.name, suits.length ? `suits: ${suits.join(', ')}` : '', c.rank ? `rank: ${c.rank}` : '',
                 c.detail].filter(Boolean).join('\n');
  const value = !suits.length && /value\s+(-?\d+)/.exec(c.detail || '');
  return el('div', {class: cls, 'data-card': n, title},
    el('div', {class: 'corner'}, rank || (value ? value[1] : ''), pips ? el('span', {class: 'pip'}, pips) : null),
    pips ? el('div', {class: 'big'}, pips) : null,
    el('div', {class: 'pname'}, c.name),
    caption ? el('div', {class: 'caption'}, caption) : null);
}

// A card drawn with its name and suit(s); `cards` is the replay's catalogue.
function cardChip(cards, id) {
  const n = Number(id);
  if (!Number.isInteger(n) || n < 0) return el('span', {class: 'none'}, 'none');
  const c = cards[n];
  if (!c) return el('span', {class: 'card', 'data-card': n}, `card #${n}`);
  const suits = c.suits || [];
  const cls = suits.length ? `card suit-${suits[0]}` : 'card asset';
  const pips = suits.map((s) => SUIT_PIPS[s] || s[0]).join('');
  const title = [c.name, suits.length ? `suits: ${suits.join(', ')}` : '', c.rank ? `rank: ${c.rank}` : '',
                 c.detail].filter(Boolean).join('\n');
  return el('span', {class: cls, 'data-card': n, title},
            pips ? el('span', {class: 'pip'}, pips) : null, c.name);
}

// Any protobuf JSON value, generically: card fields as cards, enums in
// words, nested messages as small tables.
function renderValue(ctx, key, v) {
  if (ctx.cardFields.has(key)) {
    if (Array.isArray(v)) {
      return v.length ? el('span', {}, v.map((id) => cardChip(ctx.cards, id))) : el('span', {class: 'none'}, 'none');
    }
    if (typeof v === 'number') return cardChip(ctx.cards, v);
  }
  if (Array.isArray(v)) {
    if (!v.length) return el('span', {class: 'none'}, '[]');
    if (typeof v[0] === 'object') return el('div', {}, v.map((x) => renderObject(ctx, x)));
    return el('span', {}, v.map((x) => (typeof x === 'string' ? enumWords(x) : fmt(x))).join(', '));
  }
  if (v !== null && typeof v === 'object') return renderObject(ctx, v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return /^[A-Z][A-Z0-9_]+$/.test(v) ? enumWords(v) : v;
  return fmt(v);
}

function renderObject(ctx, o) {
  const t = el('table', {class: 'kv'});
  for (const [k, v] of Object.entries(o)) {
    if (ctx.skip && ctx.skip.has(k)) continue;
    t.appendChild(el('tr', {}, el('th', {}, words(k)), el('td', {}, renderValue(ctx, k, v))));
  }
  return t;
}

// The JSON in <script id=...>, plain or (data-encoding="gzip+base64")
// compressed; replays are large and repetitive (views at every step).
async function loadData(id) {
  const e = document.getElementById(id);
  if (e.dataset.encoding !== 'gzip+base64') return JSON.parse(e.textContent);
  const bin = Uint8Array.from(atob(e.textContent.trim()), (c) => c.charCodeAt(0));
  const stream = new Blob([bin]).stream().pipeThrough(new DecompressionStream('gzip'));
  return JSON.parse(await new Response(stream).text());
}
