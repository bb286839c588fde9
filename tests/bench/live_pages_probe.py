#!/usr/bin/python3
"""Asks a live site for every kind of page, again and again, while a contest
runs, and reports how long each kind took to answer: the slowest, the 99th
percentile and the median, and how many did not answer within the bound.

  live_pages_probe.py HOST:PORT [--every 0.5] [--bound 1.0]

Each round (every --every seconds, until the site stops answering): the
index (/), the match list (/matches.json), the replay page of the longest
match the list holds (the costliest page) and the middle chunk of its steps
(which the page fetches as the viewer moves there), the replay of a random
one, and a live match's page (one in progress, from the first event of
/events). One request at a time, each on a new connection, with a timeout
of 30 s. Standard library only.
"""
import argparse
import http.client
import json
import random
import re
import socket
import statistics
import sys
import time


def get(addr, path, timeout=30.0):
    host, port = addr.rsplit(":", 1)
    start = time.monotonic()
    try:
        c = http.client.HTTPConnection(host, int(port), timeout=timeout)
        c.request("GET", path)
        r = c.getresponse()
        body = r.read()
        c.close()
        return r.status, body, time.monotonic() - start
    except (OSError, http.client.HTTPException) as e:
        return None, str(e).encode(), time.monotonic() - start


def live_ids(addr):
    """The ids of the matches in progress, from the first event of /events."""
    host, port = addr.rsplit(":", 1)
    try:
        s = socket.create_connection((host, int(port)), timeout=5)
        s.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while b"\ndata: " not in data or not data.endswith(b"\n\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
        line = data.split(b"\ndata: ", 1)[1].split(b"\n\n", 1)[0]
        return json.loads(line).get("live", [])
    except (OSError, ValueError, IndexError):
        return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("addr")
    ap.add_argument("--every", type=float, default=0.5)
    ap.add_argument("--bound", type=float, default=1.0)
    a = ap.parse_args()
    times = {}
    failures = {}
    misses = 0
    while True:
        status, _, took = get(a.addr, "/", timeout=5)
        if status is None:
            misses += 1
            if misses >= 6:  # the site is gone: the contest ended
                break
            time.sleep(a.every)
            continue
        misses = 0
        times.setdefault("index", []).append(took)
        status, body, took = get(a.addr, "/matches.json?from=0&to=5000")
        times.setdefault("matches.json", []).append(took)
        asks = []
        try:
            entries = [e for e in json.loads(body) if e.get("page")] if status == 200 else []
        except ValueError:
            entries = []
        if entries:
            longest = max(entries, key=lambda e: int(e.get("result", {}).get("decisions", 0)))
            asks.append(("replay longest", "/%s" % longest["page"]))
            asks.append(("replay random", "/%s" % random.choice(entries)["page"]))
        live = live_ids(a.addr)
        if live:
            asks.append(("live match", "/live/%s.html" % live[0]))
        for kind, path in asks:
            status, body, took = get(a.addr, path)
            times.setdefault(kind, []).append(took)
            if status not in (200, 302):
                failures.setdefault(kind, []).append("%s %s" % (status, body[:80]))
            # A long match's page fetches its steps in chunks as the viewer
            # moves: the middle one, as a viewer jumping there would.
            m = re.search(rb'"chunks":(\d+),"inline":false', body or b"")
            if kind == "replay longest" and status == 200 and m:
                chunk = int(m.group(1)) // 2
                status, body, took = get(a.addr, "%s.steps.json?chunk=%d"
                                         % (path[:-len(".html")], chunk))
                times.setdefault("replay chunk", []).append(took)
                if status != 200:
                    failures.setdefault("replay chunk", []).append("%s %s" % (status, body[:80]))
        time.sleep(a.every)
    worst = 0.0
    for kind, ts in sorted(times.items()):
        ts.sort()
        p99 = ts[min(len(ts) - 1, int(0.99 * len(ts)))]
        late = sum(t > a.bound for t in ts)
        worst = max(worst, ts[-1])
        print("%-15s %5d asked, median %6.3f s, 99th %6.3f s, slowest %6.3f s, %d over %.1f s"
              % (kind, len(ts), statistics.median(ts), p99, ts[-1], late, a.bound))
    for kind, f in sorted(failures.items()):
        print("%-15s %d failed, e.g. %s" % (kind, len(f), f[0]))
    print("slowest page: %.3f s (bound %.1f s): %s"
          % (worst, a.bound, "met" if worst <= a.bound and not failures else "NOT met"))


if __name__ == "__main__":
    sys.exit(main())
