// A match in progress as a spectator sees it (`arena serve`): the public
// events in words, and who acted, as the server's stream sends them
// (/live/<id>/events); never a hand, a seat's view or an action's label,
// which the server does not send; of a long match, its newest steps. When
// the match ends the page goes to its full replay.
(() => {
  const ID = JSON.parse(document.getElementById('match-id').textContent);
  let R = JSON.parse(document.getElementById('live-data').textContent);
  const app = document.getElementById('app');
  function draw() {
    window.arenaLiveReplay = R;  // what is drawn (the browser test reads it)
    app.textContent = '';
    app.appendChild(el('div', {class: 'muted'}, el('a', {href: '../index.html'}, 'Tournament')));
    app.appendChild(el('h1', {}, `Live: ${ID}`));
    if (!R) {
      app.appendChild(el('div', {class: 'none', id: 'live-waiting'}, 'Waiting for the match\u2019s first public events\u2026'));
      return;
    }
    const h = R.header || {};
    const bots = h.seat_bots || [];
    app.appendChild(el('div', {class: 'muted', id: 'live-seats'},
      `${h.game || ''}: ${bots.map((b, s) => `seat ${s} ${b}`).join(', ')}`));
    app.appendChild(el('div', {class: 'muted'}, 'Public information only: the events every seat is told, and who acted; hands appear in the replay once the match has ended.'));
    const steps = R.steps || [];
    // The server sends the newest steps only (arena/live/live_site.h).
    const before = steps.length ? steps[0].step || 0 : 0;
    if (before > 0) {
      app.appendChild(el('div', {class: 'muted', id: 'live-earlier'},
        `The ${fmt(before)} steps before these are in the replay once the match has ended.`));
    }
    const list = el('ol', {id: 'live-events'});
    for (const st of steps) {
      for (const ev of st.events || []) list.appendChild(el('li', {}, ev.text));
      for (const a of st.actions || []) {
        list.appendChild(el('li', {class: 'muted'}, `step ${fmt(st.step || 0)}: seat ${a.seat || 0} (${bots[a.seat || 0] || '?'}) acted`));
      }
    }
    app.appendChild(list);
  }
  draw();
  const es = new EventSource(`${encodeURIComponent(ID)}/events`);
  es.onmessage = (e) => {
    const u = JSON.parse(e.data);
    if (u.ended) {
      es.close();
      location.replace(u.replay);
      return;
    }
    R = u.replay;
    draw();
  };
})();
