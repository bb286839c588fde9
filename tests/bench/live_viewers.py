#!/usr/bin/env python3
"""Viewers of a live site (arena serve / --serve): N event streams on
/events, held until the server closes them. Each keeps only the last event
it got. Reports how many got the final standings (matches_played == GAMES),
the server's resident memory with the viewers on (PID's VmRSS, sampled), and
the CPU of the server's threads by name (the live site's are live-http and
live-poll), sampled every 0.5 s.

A viewer reads what the live page reads once it is open: the stream (the
page fetches no matches beyond those it carries).

Usage: live_viewers.py HOST:PORT N GAMES PID   (N 0: only the sampling)
Exit 0 if every viewer got the final standings."""
import asyncio, json, os, resource, sys, time

host, port = sys.argv[1].rsplit(":", 1)
N, GAMES, PID = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])


TICK = os.sysconf("SC_CLK_TCK")


def thread_cpu():
    """CPU seconds (user + system) so far of PID's threads, by thread name."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{PID}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            stat = open(f"/proc/{PID}/task/{tid}/stat").read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        out[(tid, name)] = (int(fields[11]) + int(fields[12])) / TICK
    return out


def rss_kib():
    try:
        for line in open(f"/proc/{PID}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return 0
    return 0


async def viewer(results, i):
    last = b""
    connected = False
    for attempt in range(50):
        try:
            r, w = await asyncio.open_connection(host, int(port))
            connected = True
            break
        except OSError:
            await asyncio.sleep(0.2)
    if not connected:
        results[i] = "no connection"
        return
    w.write(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
    await w.drain()
    tail = b""
    while True:
        chunk = await r.read(1 << 16)
        if not chunk:
            break
        tail += chunk
        # Complete events end with a blank line; keep the last with data.
        events = tail.split(b"\n\n")
        tail = events.pop()
        for e in reversed(events):
            if b"data: " in e:
                last = e
                break
    w.close()
    try:
        text = b"".join(l[6:] for l in last.split(b"\n") if l.startswith(b"data: "))
        u = json.loads(text)
        st = u.get("standings") or {}
        results[i] = st.get("matches_played", 0)
    except Exception as e:
        results[i] = f"bad last event: {e}"


async def main():
    resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
    rss_before = rss_kib()
    results = [None] * N
    tasks = [asyncio.create_task(viewer(results, i)) for i in range(N)]
    peak = rss_before
    cpu = {}
    # With no viewers (N 0): the server's threads sampled until it ends.
    while (not all(t.done() for t in tasks)) if N else os.path.exists(f"/proc/{PID}"):
        await asyncio.sleep(0.5)
        peak = max(peak, rss_kib())
        cpu.update(thread_cpu())  # a thread's last figure before it ended
    ok = sum(1 for r in results if r == GAMES)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(f"the viewers' own CPU (this client): {ru.ru_utime:.1f} s user, {ru.ru_stime:.1f} s system")
    print(f"viewers: {N}, got the final standings ({GAMES} matches): {ok}; "
          f"others: {sorted(set(str(r) for r in results if r != GAMES))[:5]}")
    print(f"server RSS before the viewers {rss_before} KiB, peak {peak} KiB")
    by_name = {}
    for (tid, name), sec in cpu.items():
        by_name[name] = by_name.get(name, 0) + sec
    live = {n: v for n, v in by_name.items() if n.startswith("live-")}
    print("server CPU by thread (s, to within 0.5 s of the end): " +
          ", ".join(f"{n} {v:.2f}" for n, v in sorted(by_name.items(), key=lambda x: -x[1])))
    print(f"the live site's threads: {sum(live.values()):.2f} s CPU")
    return 0 if ok == N else 1


sys.exit(asyncio.run(main()))
