#!/usr/bin/python3
"""Where time losses fall at saturation: the share of a tournament's timeouts
that come at a match's first two decisions, against a threshold.

A match of two-seat Quaesenboe lasts about 29 decisions, about half of them
asked of a bot (a seat with one legal action is played for it), and a
timeout forfeits the match, so the share at steps 0 and 1 depends on how
many matches reach later steps. The fairer figure is the hazard: timeouts
per decision asked at steps 0 and 1 against the same at later steps (1.0:
a first decision is no likelier to time out than any other). Both come from
the records (JSON lines). The run: instant random bots, many matches at
once and a short clock, as in docs/benchmarks.md, "Fair clocks under
load".

Not a timed unit test: a benchmark with a threshold, run by hand on a quiet
machine from the top folder after a build (exit 1 above the threshold, 2 if
the run itself failed):

  tests/bench/early_timeouts.py [--bin build/bin] [--games 6000] [--jobs 64]
      [--decision_ms 10] [--bots 4] [--max_early_share 0.15] [--runs 1]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile



def tally(records):
    """(timeouts, asked) by step bucket 0, 1, 2 (2: any later step)."""
    timeouts, asked = [0, 0, 0], [0, 0, 0]
    for path in glob.glob(os.path.join(records, "*.jsonl")):
        step = 0
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                b = min(step, 2)
                if r.get("forfeit", {}).get("fault") == "FAULT_KIND_TIMEOUT":
                    timeouts[b] += 1
                    asked[b] += 1
                d = r.get("decision")
                if d is not None:
                    for a in d.get("actions", []):
                        if a.get("source") == "SOURCE_BOT":
                            asked[b] += 1
                        elif a.get("fault") == "FAULT_KIND_TIMEOUT":
                            timeouts[b] += 1
                            asked[b] += 1
                    step += 1
    return timeouts, asked


def run_once(args, work, k):
    arena = os.path.join(args.bin, "arena")
    bot = os.path.join(args.bin, "random_bot")
    records = os.path.join(work, f"records{k}")
    cmd = [arena, "tournament", "--game", "quasenbo", "--seats", "2",
           "--games", str(args.games), "--jobs", str(args.jobs),
           "--decision_ms", str(args.decision_ms), "--sandbox", "none",
           "--progress=false", "--records", records, "--record_format", "jsonl",
           "--secret_file", os.path.join(work, f"secret{k}")]
    for b in range(args.bots):
        cmd += ["--bot", f"b{b}={bot}"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print(f"arena exited {res.returncode}:\n{res.stderr[-2000:]}")
        sys.exit(2)
    timeouts, asked = tally(records)
    restarted = re.search(r"(\d+) decision clocks restarted", res.stderr)
    held = re.search(r"(\d+) match starts held", res.stderr)
    return timeouts, asked, (int(restarted.group(1)) if restarted else 0), \
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
    timeouts, asked = [0, 0, 0], [0, 0, 0]

    def report(label, t, a):
        total = sum(t)
        early = t[0] + t[1]
        share = early / total if total else 0.0
        later = t[2] / a[2] if a[2] else 0.0
        first = (t[0] + t[1]) / (a[0] + a[1]) if a[0] + a[1] else 0.0
        ratio = f"{first / later:.2f}" if later else "-"
        print(f"{label}: {total} timeouts in {sum(a)} decisions asked; "
              f"{early} at steps 0 and 1 ({100 * share:.1f} %); hazard "
              f"{100 * first:.2f} % a decision at steps 0-1, {100 * later:.2f} % "
              f"later (ratio {ratio})")
        return share

    try:
        for k in range(args.runs):
            t, a, restarted, held = run_once(args, work, k)
            for b in range(3):
                timeouts[b] += t[b]
                asked[b] += a[b]
            report(f"run {k + 1} ({restarted} clocks restarted, {held} starts held)", t, a)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    share = report("all runs", timeouts, asked)
    print(f"threshold on the share at steps 0 and 1: {100 * args.max_early_share:.0f} %")
    if sum(timeouts) and share > args.max_early_share:
        print("ABOVE THRESHOLD")
        sys.exit(1)


if __name__ == "__main__":
    main()
