#!/usr/bin/env python3
"""The CPU of a process's threads, by thread name, sampled every 0.5 s from
/proc until the process ends (a thread's last figure is kept after it
ends). The live site's threads are live-http and live-poll
(tests/bench/live_viewers.sh).

Usage: thread_cpu.py PID"""
import os, sys, time

PID = int(sys.argv[1])
TICK = os.sysconf("SC_CLK_TCK")


def thread_cpu():
    """CPU seconds (user + system) so far of PID's threads, by (tid, name)."""
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


cpu = {}
while os.path.exists(f"/proc/{PID}"):
    cpu.update(thread_cpu())
    time.sleep(0.5)
by_name = {}
for (tid, name), sec in cpu.items():
    by_name[name] = by_name.get(name, 0) + sec
live = {n: v for n, v in by_name.items() if n.startswith("live-")}
print("server CPU by thread (s, to within 0.5 s of the end): " +
      ", ".join(f"{n} {v:.2f}" for n, v in sorted(by_name.items(), key=lambda x: -x[1])))
print(f"the live site's threads: {sum(live.values()):.2f} s CPU")
