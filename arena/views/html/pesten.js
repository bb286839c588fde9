// Pesten, re-simulated in the page: the rules of referee/games/pesten
// (pesten.cc) over the same generator (referee/game_api/rng.h), so that a
// replay page can carry a match's decisions instead of its steps and rebuild
// every position's events, views and legal actions as `arena replay --json`
// makes them (the runner and its check: resim.js). tests/browser_engine_test.sh
// holds the two to the same steps over many random matches; a page whose
// re-simulation disagrees with the record's check says so and shows nothing.
//
// A state is plain data (clone() copies it); events are {pub, mask, text,
// red}: public or not, the seats told (a bit each), the words, and the words
// the other seats get (null: they are told nothing).
(function (root) {
  'use strict';
  const M64 = (1n << 64n) - 1n;
  const rotl = (x, k) => ((x << k) | (x >> (64n - k))) & M64;
  function splitMix(st) {
    st.s = (st.s + 0x9e3779b97f4a7c15n) & M64;
    let z = st.s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
    return z ^ (z >> 31n);
  }
  // xoshiro256**, Lemire's bounded integers, Fisher-Yates from the back.
  class Rng {
    constructor(seed) {
      if (seed === undefined) return;
      const st = {s: BigInt.asUintN(64, BigInt(seed))};
      this.s = [splitMix(st), splitMix(st), splitMix(st), splitMix(st)];
    }
    clone() { const r = new Rng(); r.s = this.s.slice(); return r; }
    next() {
      const s = this.s;
      const result = (rotl((s[1] * 5n) & M64, 7n) * 9n) & M64;
      const t = (s[1] << 17n) & M64;
      s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
      s[3] = rotl(s[3], 45n);
      return result;
    }
    uniform(n) {
      const bn = BigInt(n);
      let m = (this.next() >> 32n) * bn;
      let low = Number(m & 0xffffffffn);
      if (low < n) {
        const threshold = (0x100000000 - n) % n;
        while (low < threshold) {
          m = (this.next() >> 32n) * bn;
          low = Number(m & 0xffffffffn);
        }
      }
      return Number(m >> 32n);
    }
    shuffle(v) {
      for (let i = v.length; i > 1; --i) {
        const j = this.uniform(i);
        const x = v[i - 1]; v[i - 1] = v[j]; v[j] = x;
      }
    }
  }

  const FRENCH = 52; const MAX_CARDS = 56; const HAND = 5;
  const TWO = 2; const SEVEN = 7; const EIGHT = 8; const TEN = 10; const JACK = 11;
  const KING = 13; const ACE = 14; const JOKER = 15;
  const PLAY = 1; const DRAW = 2; const TAKE = 3; const WISH = 4; const PASS_CARD = 5;
  const SUITS = ['?', 'Clubs', 'Diamonds', 'Hearts', 'Spades'];
  const SUIT_ENUM = ['PESTEN_SUIT_UNSPECIFIED', 'PESTEN_SUIT_CLUBS', 'PESTEN_SUIT_DIAMONDS',
                     'PESTEN_SUIT_HEARTS', 'PESTEN_SUIT_SPADES'];
  const PHASE = ['PESTEN_PHASE_UNSPECIFIED', 'PESTEN_PHASE_PLAY', 'PESTEN_PHASE_FOLLOW_UP',
                 'PESTEN_PHASE_WISH', 'PESTEN_PHASE_PASS', 'PESTEN_PHASE_OVER'];
  const P_PLAY = 1; const P_FOLLOW = 2; const P_WISH = 3; const P_PASS = 4; const P_OVER = 5;
  const RANKS = ['?', '?', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'Jack', 'Queen', 'King', 'Ace'];
  const isJoker = (c) => c >= FRENCH;
  const rankOf = (c) => (isJoker(c) ? JOKER : c % 13 + 2);
  const suitOf = (c) => (isJoker(c) ? 0 : Math.floor(c / 13) + 1);
  const isSpecial = (c) => [TWO, SEVEN, EIGHT, TEN, JACK, KING, ACE, JOKER].includes(rankOf(c));
  const cardName = (c) => (isJoker(c) ? `Joker ${c - FRENCH + 1}` : `${RANKS[rankOf(c)]} of ${SUITS[suitOf(c)]}`);
  const names = (ids) => ids.map(cardName).join(', ');
  // An option as the referee reads it (referee/game_api/options.h): absent,
  // the default; a number in its range, else the record would not verify.
  function intOption(options, key, dflt) {
    const v = options && options[key];
    return v === undefined || v === '' ? dflt : Number(v);
  }
  function moveLabel(m, obligation) {
    switch (m.kind) {
      case PLAY:
        return `play ${cardName(m.card)}${m.wish ? `, wish ${SUITS[m.wish]}` : ''}${m.announce ? ', "Pesten!"' : ''}`;
      case DRAW: return 'draw a card';
      case TAKE: return `take the obligation (${obligation} cards)`;
      case WISH: return `wish ${SUITS[m.wish]}`;
      case PASS_CARD: return `pass ${cardName(m.card)} left`;
      default: return '';
    }
  }
  const DRAW_REASON = ['', '', ' (the obligation)', ' (penalty: no "Pesten")'];

  class State {
    // header: a record header as the replay's JSON has it (game, options,
    // num_seats, seed, decision_cap).
    constructor(header) {
      if (header === undefined) return;
      const n = header.num_seats;
      this.n = n;
      this.jokers = intOption(header.options, 'jokers', 2);
      this.winningPoints = intOption(header.options, 'winning_points', 2);
      this.cap = Number(header.decision_cap || 0);
      this.rng = new Rng(header.seed);
      this.hands = Array.from({length: n}, () => new Uint8Array(MAX_CARDS));
      this.sizes = new Array(n).fill(0);
      this.points = new Array(n).fill(0);
      this.deck = []; this.deckPos = 0; this.pile = [];
      this.phase = P_PLAY; this.current = 0; this.direction = 1; this.wish = 0; this.obligation = 0;
      this.round = 0; this.step = 0; this.terminal = false; this.passNext = 0;
      this.legal = []; this.acting = [];
      this.events = [];
      this.startRound();
    }
    clone() {
      const c = Object.assign(new State(), this);
      c.rng = this.rng.clone();
      c.hands = this.hands.map((h) => h.slice());
      for (const k of ['sizes', 'points', 'deck', 'pile', 'legal', 'acting', 'events']) c[k] = this[k].slice();
      return c;
    }
    takeEvents() { const e = this.events; this.events = []; return e; }
    log(pub, seats, text, red = null) { this.events.push({pub, mask: seats, text, red}); }
    handOf(s) { const out = []; const h = this.hands[s]; for (let c = 0; c < MAX_CARDS; ++c) if (h[c]) out.push(c); return out; }
    add(s, c) { this.hands[s][c] = 1; ++this.sizes[s]; }
    remove(s, c) { this.hands[s][c] = 0; --this.sizes[s]; }
    next(seat) { return (seat + this.direction + this.n) % this.n; }
    dealer() { return this.round % this.n; }
    atCap() { return this.cap > 0 && this.step >= this.cap; }

    startRound() {
      const order = [];
      for (let c = 0; c < FRENCH + this.jokers; ++c) order.push(c);
      this.rng.shuffle(order);
      const n = this.n; const dealer = this.dealer();
      this.hands.forEach((h) => h.fill(0)); this.sizes.fill(0);
      this.pile = []; this.direction = 1; this.wish = 0; this.obligation = 0;
      const dealt = n * HAND;
      for (let i = 0; i < dealt; ++i) this.add((dealer + 1 + i) % n, order[i]);
      this.deck = order.slice(dealt); this.deckPos = 0;
      const head = `round ${this.round}, dealer seat ${dealer}, deal:`;
      const hand = (s) => ` seat ${s} [${names(this.handOf(s))}]`;
      let all = head;
      for (let s = 0; s < n; ++s) all += hand(s);
      if (this.deck.length) all += ` deck [${names(this.deck)}]`;
      this.log(false, 0, all);
      for (let s = 0; s < n; ++s) this.log(false, 1 << s, head + hand(s));
      const start = this.deck[this.deckPos++];
      this.pile.push(start);
      const rest = this.deck.slice(this.deckPos);
      this.log(false, 0, `start card ${cardName(start)}${rest.length ? `; deck [${names(rest)}]` : ''}`,
               `start card ${cardName(start)}`);
      if (rankOf(start) === JACK) {
        this.phase = P_WISH; this.current = dealer;
        this.legal = [1, 2, 3, 4].map((w) => ({kind: WISH, card: -1, wish: w, announce: false}));
        this.acting = [dealer];
        return;
      }
      this.effect(dealer, start);
    }
    playable(c) {
      const r = rankOf(c);
      const wild = r === JACK || r === JOKER;
      if (this.obligation > 0) return r === TWO || r === JOKER;
      const top = this.pile[this.pile.length - 1];
      if (isJoker(top)) return true;
      if (this.wish !== 0) return suitOf(c) === this.wish || wild;
      return suitOf(c) === suitOf(top) || r === rankOf(top) || wild;
    }
    computeLegal() {
      this.legal = [];
      const size = this.sizes[this.current];
      const leavesOne = size === 2;
      for (const c of this.handOf(this.current)) {
        if (!this.playable(c) || (size === 1 && isSpecial(c))) continue;
        const jack = rankOf(c) === JACK;
        for (let w = jack ? 1 : 0; w <= (jack ? 4 : 0); ++w) {
          this.legal.push({kind: PLAY, card: c, wish: w, announce: false});
          if (leavesOne) this.legal.push({kind: PLAY, card: c, wish: w, announce: true});
        }
      }
      this.legal.push({kind: this.obligation > 0 ? TAKE : DRAW, card: -1, wish: 0, announce: false});
    }
    beginTurn(seat, followUp) {
      this.phase = followUp ? P_FOLLOW : P_PLAY;
      this.current = seat; this.acting = [seat];
      this.computeLegal();
    }
    beginPass(nextSeat) {
      this.phase = P_PASS; this.current = -1; this.passNext = nextSeat; this.legal = [];
      this.acting = [];
      for (let s = 0; s < this.n; ++s) if (this.sizes[s]) this.acting.push(s);
      if (!this.acting.length) this.beginTurn(nextSeat, false);
    }
    effect(seat, card) {
      switch (rankOf(card)) {
        case TWO: this.obligation += 2; return this.beginTurn(this.next(seat), false);
        case JOKER: this.obligation += 5; return this.beginTurn(this.next(seat), false);
        case EIGHT: {
          const skipped = this.next(seat);
          this.log(true, 0, `seat ${skipped} is skipped`);
          return this.beginTurn(this.next(skipped), false);
        }
        case SEVEN: case KING: return this.beginTurn(seat, true);
        case TEN: return this.beginPass(this.next(seat));
        case ACE: this.direction = -this.direction; return this.beginTurn(this.next(seat), false);
        default: return this.beginTurn(this.next(seat), false);
      }
    }
    reshuffle() {
      if (this.pile.length <= 1) return false;
      this.deck = this.pile.slice(0, -1); this.deckPos = 0;
      this.pile = this.pile.slice(-1);
      this.rng.shuffle(this.deck);
      const head = `pile reshuffled into a deck of ${this.deck.length}`;
      this.log(false, 0, `${head} [${names(this.deck)}]`, head);
      return true;
    }
    logDrew(seat, cards, reason) {
      const head = `seat ${seat} drew ${cards.length} ${cards.length === 1 ? 'card' : 'cards'}`;
      this.log(false, 1 << seat, `${head}${cards.length ? ` [${names(cards)}]` : ''}${DRAW_REASON[reason]}`,
               head + DRAW_REASON[reason]);
    }
    drawCards(seat, count, reason) {
      let batch = []; let drawn = 0; let logged = false;
      while (drawn < count) {
        if (this.deckPos === this.deck.length) {
          if (batch.length) { this.logDrew(seat, batch, reason); logged = true; batch = []; }
          if (!this.reshuffle()) break;
        }
        const c = this.deck[this.deckPos++];
        this.add(seat, c); batch.push(c); ++drawn;
      }
      if (batch.length || !logged) this.logDrew(seat, batch, reason);
    }
    winRound(seat) {
      ++this.points[seat];
      this.log(true, 0, `seat ${seat} won round ${this.round}; winning points ${this.points.join(', ')}`);
      if (this.points[seat] >= this.winningPoints) {
        this.terminal = true; this.phase = P_OVER; this.current = -1; this.acting = []; this.legal = [];
        return;
      }
      if (this.stopAtCap()) return;
      ++this.round;
      this.startRound();
    }
    stopAtCap() {
      if (!this.atCap()) return false;
      this.current = -1; this.acting = []; this.legal = [];
      return true;
    }
    legalMove(seat, action) {
      if (this.phase === P_PASS) {
        const hand = this.handOf(seat);
        return {kind: PASS_CARD, card: action < hand.length ? hand[action] : -1, wish: 0, announce: false};
      }
      return seat === this.current ? this.legal[action] : null;
    }
    numLegal(seat) {
      if (this.terminal || seat < 0 || seat >= this.n) return 0;
      if (this.phase === P_PASS) return this.acting.includes(seat) ? this.sizes[seat] : 0;
      return seat === this.current ? this.legal.length : 0;
    }
    // Every legal action's label for `seat`, by index.
    labels(seat) {
      const out = [];
      for (let a = 0; a < this.numLegal(seat); ++a) out.push(moveLabel(this.legalMove(seat, a), this.obligation));
      return out;
    }
    // `bySeat`: the action of each acting seat (seat -> index).
    apply(bySeat) {
      for (const s of this.acting) {
        const a = bySeat.get(s);
        if (a === undefined || a < 0 || a >= this.numLegal(s)) {
          throw new Error(`pesten: no legal action of seat ${s} at step ${this.step}`);
        }
      }
      if (bySeat.size !== this.acting.length) throw new Error(`pesten: a seat acts out of turn at step ${this.step}`);
      ++this.step;
      if (this.phase === P_PASS) {
        const given = this.acting.map((s) => [s, this.legalMove(s, bySeat.get(s)).card]);
        for (const [s, c] of given) this.remove(s, c);
        given.sort((x, y) => x[0] - y[0]);
        for (const [s, c] of given) {
          const to = (s + 1) % this.n;
          this.add(to, c);
          this.log(false, (1 << s) | (1 << to), `seat ${s} passed ${cardName(c)} to seat ${to}`,
                   `seat ${s} passed a card to seat ${to}`);
        }
        if (this.stopAtCap()) return;
        return this.beginTurn(this.passNext, false);
      }
      const seat = this.current;
      const m = this.legal[bySeat.get(seat)];
      if (m.kind === WISH) {
        this.wish = m.wish;
        this.log(true, 0, `seat ${seat} wishes ${SUITS[m.wish]}`);
        if (this.stopAtCap()) return;
        return this.beginTurn(this.next(seat), false);
      }
      if (m.kind === DRAW || m.kind === TAKE) {
        const count = m.kind === DRAW ? 1 : this.obligation;
        if (m.kind === TAKE) this.obligation = 0;
        this.drawCards(seat, count, m.kind === DRAW ? 1 : 2);
        if (this.stopAtCap()) return;
        return this.beginTurn(this.next(seat), false);
      }
      this.remove(seat, m.card);
      this.pile.push(m.card);
      this.wish = rankOf(m.card) === JACK ? m.wish : 0;
      const left = this.sizes[seat];
      this.log(true, 0, `seat ${seat} played ${cardName(m.card)}${m.wish ? `, wishing ${SUITS[m.wish]}` : ''}` +
               `${m.announce && left === 1 ? ': "Pesten!"' : ''}`);
      if (left === 0) return this.winRound(seat);
      if (left === 1 && !m.announce) this.drawCards(seat, 2, 3);
      if (this.stopAtCap()) return;
      return this.effect(seat, m.card);
    }
    // What `seat` sees: a v1::View as the replay's JSON prints it.
    view(seat) {
      return {events: [], pesten: {
        hand: this.handOf(seat), top_card: this.pile[this.pile.length - 1],
        wished_suit: SUIT_ENUM[this.wish], draw_obligation: this.obligation,
        direction: this.direction > 0 ? 'PESTEN_DIRECTION_CLOCKWISE' : 'PESTEN_DIRECTION_COUNTERCLOCKWISE',
        hand_sizes: this.sizes.slice(), winning_points: this.points.slice(), current_seat: this.current,
        phase: PHASE[this.phase], deck_size: this.deck.length - this.deckPos, pile_size: this.pile.length,
        round: this.round, dealer: this.dealer()}};
    }
  }

  const engine = {game: 'pesten', newState: (header) => new State(header), Rng};
  root.arenaEngines = root.arenaEngines || {};
  root.arenaEngines.pesten = engine;
  if (typeof module !== 'undefined' && module.exports) module.exports = engine;
})(typeof window !== 'undefined' ? window : globalThis);
