// A replay page's steps rebuilt from the match's decisions by the game's
// engine in the page (window.arenaEngines: pesten.js), where the static site
// (arena/views/html.h, ReplayPageBuilder with browser_engine) carries the
// decisions instead of the steps: a long match then costs its page about
// what its record costs. The steps are those of `arena replay --json`, but
// for the events' messages (the page shows their words), made as
// arena/views/replay.cc (StreamReplay) makes them.
//
// The decisions ("replay-inputs": the gzip of their JSON, in base64) are
// columns, one value a decision or an action: "step" (the first decision's
// step, then differences), "n" (each decision's actions), "seat", "action",
// "think" (think_us), "src" (an index into "sources", the enum's names), and
// "x": [action index, {label, fault_detail, note, note_cut_bytes}] where an
// action has any (a label only where it is not its legal action's). "finished"
// says whether the match ended (its last position is the end, with views);
// "checks" holds, for each chunk of chunk_steps positions, the FNV-1a hash of
// what the referee's own re-simulation gave (stepCheckText): a chunk the
// page's engine makes otherwise is refused, never shown.
(function (root) {
  'use strict';
  // FNV-1a (32 bits) over the UTF-8 of `text`, from `h`.
  function fnv1a(text, h = 0x811c9dc5) {
    const bytes = new TextEncoder().encode(text);
    for (let i = 0; i < bytes.length; ++i) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
    return h;
  }
  // What a chunk's check covers of a step (the same as html.cc's
  // StepCheckText): its number, every view's JSON, every event's visibility
  // and words as each seat got them, and every action's legal labels.
  function stepCheckText(st) {
    let t = `${st.step}\n`;
    for (const v of st.views || []) t += JSON.stringify(v) + '\n';
    for (const e of st.events || []) {
      t += `${e.visibility.is_public ? 1 : 0}:${e.visibility.seats.join(',')}\n${e.text}\n`;
      for (const se of e.seats) t += `${se.sees ? 1 : 0}${se.redacted ? 1 : 0}${se.text}\n`;
    }
    for (const a of st.actions || []) for (const l of a.legal) t += l + '\n';
    return t;
  }
  // The engine's events as a replay's (ReplayEvent without its message).
  function replayEvents(events, n) {
    return events.map((e) => {
      const seats = [];
      const told = [];
      for (let s = 0; s < n; ++s) {
        const inMask = ((e.mask >> s) & 1) === 1;
        if (!e.pub && inMask) told.push(s);
        if (e.pub || inMask) seats.push({sees: true, redacted: false, text: ''});
        else if (e.red !== null) seats.push({sees: true, redacted: true, text: e.red});
        else seats.push({sees: false, redacted: false, text: ''});
      }
      return {visibility: {is_public: e.pub, seats: told}, text: e.text, seats};
    });
  }
  function decisionsOf(inp) {
    const out = [];
    const extra = new Map((inp.x || []).map(([i, x]) => [i, x]));
    let step = 0; let i = 0;
    inp.n.forEach((count, d) => {
      step = d === 0 ? inp.step[0] : step + inp.step[d];
      const actions = [];
      for (let j = 0; j < count; ++j, ++i) {
        const x = extra.get(i) || {};
        actions.push({seat: inp.seat[i], action: inp.action[i], label: x.label, source: inp.sources[inp.src[i]],
                      think_us: String(inp.think[i]), fault_detail: x.fault_detail || '',
                      note: x.note || '', note_cut_bytes: x.note_cut_bytes || 0});
      }
      out.push({step, actions});
    });
    return out;
  }

  class EngineReplay {
    // engine: window.arenaEngines[game]; header: the replay's header (JSON);
    // inputs: the decoded "replay-inputs"; chunkSteps: positions a chunk.
    constructor(engine, header, inputs, chunkSteps) {
      this.n = header.num_seats;
      this.inputs = inputs;
      this.chunkSteps = chunkSteps;
      this.decisions = decisionsOf(inputs);
      const state = engine.newState(header);
      // Where each chunk starts: the state before its first position, and
      // the events that came since the decision before.
      this.starts = [{state, pending: state.takeEvents()}];
    }
    // The step at the state `state` with `pending` events, of decision d
    // (undefined: the end), or null if there is no such position.
    makeStep(state, pending, d) {
      const events = replayEvents(pending, this.n);
      const views = () => Array.from({length: this.n}, (_, s) => state.view(s));
      if (d) {
        return {step: d.step, events, views: views(), actions: d.actions.map((a) => {
          const legal = state.labels(a.seat);
          return {seat: a.seat, action: a.action, label: a.label !== undefined ? a.label : legal[a.action],
                  source: a.source, think_us: a.think_us, fault_detail: a.fault_detail, legal,
                  note: a.note, note_cut_bytes: a.note_cut_bytes};
        })};
      }
      if (this.inputs.finished) return {step: state.step, events, views: views(), actions: []};
      const last = this.decisions[this.decisions.length - 1];
      return events.length ? {step: last ? last.step + 1 : 0, events, views: [], actions: []} : null;
    }
    // Chunk k's steps (positions k * chunkSteps on), checked.
    chunk(k) {
      let j = Math.min(k, this.starts.length - 1);
      let {state, pending} = this.starts[j];
      state = state.clone();
      let out = [];
      for (let p = j * this.chunkSteps; ; ++p) {
        if (p % this.chunkSteps === 0 && Math.floor(p / this.chunkSteps) > j) {
          j = p / this.chunkSteps;
          if (this.starts.length === j) this.starts.push({state: state.clone(), pending: pending.slice()});
          if (j > k) break;
          out = [];
        }
        const d = this.decisions[p];
        if (j === k) {  // (the chunks before are only played through)
          const st = this.makeStep(state, pending, d);
          if (st === null) break;
          out.push(st);
        }
        if (!d) break;
        try {
          state.apply(new Map(d.actions.map((a) => [a.seat, a.action])));
        } catch (e) {
          throw new Error(`the decisions this page carries do not replay (${e.message}); ` +
                          'the record itself is the truth: `arena replay` shows it');
        }
        pending = state.takeEvents();
      }
      const want = (this.inputs.checks || [])[k];
      let h = 0x811c9dc5;
      for (const st of out) h = fnv1a(stepCheckText(st), h);
      if (want === undefined || h !== want) {
        throw new Error(`the steps ${k * this.chunkSteps + 1} to ${k * this.chunkSteps + out.length} ` +
                        'that this page re-simulates differ from the referee\'s (its check); ' +
                        'the record itself is the truth: `arena replay` shows it');
      }
      return out;
    }
  }

  const api = {EngineReplay, stepCheckText, fnv1a};
  root.arenaResim = api;
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
})(typeof window !== 'undefined' ? window : globalThis);
