#!/usr/bin/env python3
"""Holds N server-sent-event streams on a candidate server and reports its
resident memory, threads and CPU, then tries to starve it: IDLE connections
that send nothing, and streams whose client reads nothing; a fresh request
must still be answered. Usage: sse_load.py PID PORT [N] [IDLE]"""
import asyncio, os, resource, socket, sys, time

PID, PORT = int(sys.argv[1]), int(sys.argv[2])
N = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
IDLE = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
HOLD = 10.0


def proc():
    st = {}
    for line in open(f"/proc/{PID}/status"):
        k, v = line.split(":", 1)
        st[k] = v.strip()
    f = open(f"/proc/{PID}/stat").read().rsplit(")", 1)[1].split()
    ticks = int(f[11]) + int(f[12])
    return int(st["VmRSS"].split()[0]), int(st["Threads"]), ticks / os.sysconf("SC_CLK_TCK")


async def stream(counts, i, stop):
    try:
        r, w = await asyncio.open_connection("127.0.0.1", PORT)
        w.write(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        await w.drain()
        while not stop.is_set():
            line = await asyncio.wait_for(r.readline(), 5)
            if not line:
                break
            if line.startswith(b"data:"):
                counts[i] += 1
        w.close()
    except Exception:
        pass


async def probe():
    t0 = time.monotonic()
    try:
        r, w = await asyncio.open_connection("127.0.0.1", PORT)
        w.write(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        await w.drain()
        data = await asyncio.wait_for(r.read(), 5)
        w.close()
        return f"{(time.monotonic() - t0) * 1000:.0f} ms" if b"200" in data[:20] else "bad answer"
    except Exception as e:
        return f"no answer ({type(e).__name__})"


async def main():
    resource.setrlimit(resource.RLIMIT_NOFILE, (20000, 20000))
    rss0, thr0, cpu0 = proc()
    counts = [0] * N
    stop = asyncio.Event()
    tasks = [asyncio.create_task(stream(counts, i, stop)) for i in range(N)]
    await asyncio.sleep(2)
    c0 = sum(counts)
    rss1, thr1, cpu1 = proc()
    t1 = time.monotonic()
    await asyncio.sleep(HOLD)
    rss2, thr2, cpu2 = proc()
    got = sum(counts) - c0
    print(f"idle server: {rss0} KiB, {thr0} threads")
    print(f"{N} streams: {rss2} KiB (+{(rss2 - rss0) / N:.1f} KiB each), {thr2} threads, "
          f"CPU {100 * (cpu2 - cpu1) / (time.monotonic() - t1):.1f} %, "
          f"events {got} in {HOLD:.0f} s (expected {N * HOLD:.0f}), "
          f"streams with none: {sum(1 for c in counts if c == 0)}")
    print(f"probe with {N} streams: {await probe()}")
    # Idle connections: connect and send nothing.
    idle = []
    for _ in range(IDLE):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect_ex(("127.0.0.1", PORT))
        except OSError:
            pass
        idle.append(s)
    await asyncio.sleep(1)
    print(f"probe with {IDLE} idle connections: {await probe()}")
    # Non-reading streams: ask for events, then never read.
    dead = []
    for _ in range(50):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect(("127.0.0.1", PORT))
        s.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        dead.append(s)
    c0 = sum(counts)
    await asyncio.sleep(3)
    print(f"with 50 non-reading streams: probe {await probe()}, events to readers in 3 s: "
          f"{sum(counts) - c0}, rss {proc()[0]} KiB, threads {proc()[1]}")
    for s in idle + dead:
        s.close()
    stop.set()
    for t in tasks:
        t.cancel()


asyncio.run(main())
