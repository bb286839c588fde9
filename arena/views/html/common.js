// Shared by arena's HTML pages (embedded in each; no network, no library).
'use strict';

const ENUM_WORDS = (() => {
  const e = document.getElementById('enum-words');
  return e ? JSON.parse(e.textContent) : {};
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
