#!/usr/bin/python3
"""Where time losses fall at saturation: the share of a tournament's timeouts
that come at a match's first two decisions, against a threshold.

A match of two-seat Quaesenboe lasts about 29 decisions, so timeouts spread
evenly over a match's decisions would put about 7 % at steps 0 and 1; a
share far above that says that matches are started into a stall (the
referee's, or the bots' after a forfeit ended the match before). The run:
instant random bots, many matches at once and a short clock, as in
docs/benchmarks.md, "Fair clocks under load".

Not a timed unit test: a benchmark with a threshold, run by hand on a quiet
machine from the top folder after a build (exit 1 above the threshold, 2 if
the run itself failed):

  tests/bench/early_timeouts.py [--bin build/bin] [--games 6000] [--jobs 64]
      [--decision_ms 10] [--bots 4] [--max_early_share 0.15] [--runs 1]
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

FAULT_LINE = re.compile(r"match (\S+) step (\d+): seat \d+ \(([^)]*)\): timeout")


def run_once(args, work, k):
    arena = os.path.join(args.bin, "arena")
    bot = os.path.join(args.bin, "random_bot")
    records = os.path.join(work, f"records{k}")
    cmd = [arena, "tournament", "--game", "quasenbo", "--seats", "2",
           "--games", str(args.games), "--jobs", str(args.jobs),
           "--decision_ms", str(args.decision_ms), "--sandbox", "none",
           "--progress=false", "--records", records,
           "--secret_file", os.path.join(work, f"secret{k}")]
    for b in range(args.bots):
        cmd += ["--bot", f"b{b}={bot}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print(f"arena exited {res.returncode}:\n{res.stderr[-2000:]}")
        sys.exit(2)
    by_step = {}
    for m in FAULT_LINE.finditer(res.stderr):
        step = int(m.group(2))
        by_step[step] = by_step.get(step, 0) + 1
    restarted = re.search(r"(\d+) decision clocks restarted", res.stderr)
    held = re.search(r"(\d+) match starts held", res.stderr)
    return by_step, (int(restarted.group(1)) if restarted else 0), \
        (int(held.group(1)) if held else 0)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", default="build/bin")
    p.add_argument("--games", type=int, default=6000)
    p.add_argument("--jobs", type=int, default=64)
    p.add_argument("--decision_ms", type=int, default=10)
    p.add_argument("--bots", type=int, default=4)
    p.add_argument("--max_early_share", type=float, default=0.15)
    p.add_argument("--runs", type=int, default=1)
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="early_timeouts_", dir="/dev/shm"
                            if os.path.isdir("/dev/shm") else None)
    total = early = 0
    try:
        for k in range(args.runs):
            by_step, restarted, held = run_once(args, work, k)
            t = sum(by_step.values())
            e = by_step.get(0, 0) + by_step.get(1, 0)
            total += t
            early += e
            share = e / t if t else 0.0
            print(f"run {k + 1}: {t} timeouts, {e} at steps 0 and 1 "
                  f"({100 * share:.1f} %); {restarted} clocks restarted, "
                  f"{held} starts held")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    share = early / total if total else 0.0
    print(f"all runs: {total} timeouts, {early} at steps 0 and 1: "
          f"{100 * share:.1f} % (threshold {100 * args.max_early_share:.0f} %)")
    if total and share > args.max_early_share:
        print("ABOVE THRESHOLD")
        sys.exit(1)


if __name__ == "__main__":
    main()
