// The live index (`arena serve`): follows the server's event stream
// (server-sent events, /events) and draws the page again, at most twice a
// second, as records land: standings, ratings, head to head, the matches
// (the stream carries the newest; any the page missed are fetched from
// /matches.json), and links to the matches in progress. No library;
// EventSource reconnects by itself.
(() => {
  let ST = JSON.parse(document.getElementById('standings-data').textContent);
  const MATCHES = JSON.parse(document.getElementById('matches-data').textContent);
  let live = [];
  let total = MATCHES.length;
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
    window.arenaRenderIndex(ST && Object.assign({}, ST, {matches_unrecorded: 0}), MATCHES);
    place();
  }
  function later() {
    if (!timer) timer = setTimeout(draw, Math.max(0, 500 - (Date.now() - drawn)));
  }
  function say() {
    status.textContent = `Live: ${fmt(total)} matches recorded, ${live.length} in progress.`;
    links.textContent = '';
    if (live.length) {
      links.append('Watch: ', ...live.flatMap((id, i) => [i ? ', ' : '', el('a', {href: `live/${id}.html`}, id)]));
    }
  }
  async function fill(from, to) {
    try {
      const r = await fetch(`matches.json?from=${from}&to=${to}`);
      const got = await r.json();
      got.forEach((m, k) => { MATCHES[from + k] = m; });
      later();
    } catch (e) {
      status.textContent = `Live: could not fetch matches ${from} to ${to}.`;
    }
  }
  draw();
  const es = new EventSource(`events?have=${MATCHES.length}`);
  es.onmessage = (e) => {
    const u = JSON.parse(e.data);
    if (u.standings) ST = u.standings;
    const missing = MATCHES.length;
    u.matches.forEach((m, k) => { MATCHES[u.from + k] = m; });
    if (u.from > missing) fill(missing, u.from);
    total = u.total;
    live = u.live || [];
    say();
    later();
  };
  es.onerror = () => { status.textContent = 'Live: connection lost, reconnecting\u2026'; };
})();
