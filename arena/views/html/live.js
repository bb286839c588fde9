// The live index (`arena serve`): follows the server's event stream
// (server-sent events, /events) and draws the page again, at most twice a
// second, as records land: standings, ratings, head to head, and what is
// drawn from every match (score distributions, seat advantage) from the
// server's summary of them, the newest matches as the stream carries them
// (never every match: a long contest's list is in /matches.json), and links
// to the matches in progress. The schedule (schedule.json: which of its
// target's comparisons are undecided) comes with the standings. No library;
// EventSource reconnects by itself.
(() => {
  const KEEP = 200;  // matches listed
  let ST = JSON.parse(document.getElementById('standings-data').textContent);
  let PLAN = JSON.parse((document.getElementById('schedule-data') || {}).textContent || 'null');
  const MATCHES = JSON.parse(document.getElementById('matches-data').textContent);
  const init = window.arenaLiveInit || {};
  let SUM = init.summary || null;
  let live = [];
  let liveSeats = {};
  let total = Number(init.total || MATCHES.length);
  let drawn = 0;
  let timer = null;
  const status = el('div', {id: 'live-status', class: 'muted'}, 'Live: connecting\u2026');
  const links = el('div', {id: 'live-matches'});
  function place() {
    const app = document.getElementById('app');
    app.insertBefore(links, app.children[1] || null);
    app.insertBefore(status, links);
  }
  function draw() {
    timer = null;
    drawn = Date.now();
    // While the contest runs, the matches not yet recorded are to come, not
    // missing: the status line counts them.
    window.arenaRenderIndex(ST && Object.assign({}, ST, {matches_unrecorded: 0}), MATCHES, SUM, PLAN);
    place();
  }
  function later() {
    if (!timer) timer = setTimeout(draw, Math.max(0, 500 - (Date.now() - drawn)));
  }
  function say() {
    status.textContent = `Live: ${fmt(total)} matches recorded, ${live.length} in progress.`;
    links.textContent = '';
    if (live.length) {
      // Each match with its seats' bots, once the server has read them.
      links.append('Watch: ', ...live.flatMap((id, i) => [i ? '; ' : '', el('a', {href: `live/${id}.html`}, id),
        liveSeats[id] ? ` (${liveSeats[id].join(', ')})` : '']));
    }
  }
  draw();
  const es = new EventSource(`events?have=${total}`);
  es.onmessage = (e) => {
    const u = JSON.parse(e.data);
    if (u.standings) ST = u.standings;
    if (u.standings || u.schedule) PLAN = u.schedule || null;  // sent with the standings
    if (u.summary) SUM = u.summary;
    // The newest matches: those past what the page has, kept to KEEP.
    u.matches.forEach((m, k) => { if (u.from + k >= total) MATCHES.push(m); });
    if (MATCHES.length > KEEP) MATCHES.splice(0, MATCHES.length - KEEP);
    total = Math.max(total, u.total);
    live = u.live || [];
    liveSeats = u.live_seats || {};
    say();
    later();
  };
  es.onerror = () => { status.textContent = 'Live: connection lost, reconnecting\u2026'; };
})();
