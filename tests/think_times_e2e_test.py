"""Each bot's think times in the standings agree with its records.

A tournament of two random bots (real processes) writes its standings from
what the match runner timed; this reads every record and works out, for
each bot, the answers that came in time (the bot's own moves and its illegal
ones, not the referee's only moves or timeouts) and their think times'
median and 95th percentile by nearest rank, and the longest. The standings
must hold the same count and longest exactly, and the percentiles within
1 % (their resolution: arena/stats ThinkTimes), in standings.json and in
the text table.

Usage: think_times_e2e_test.py BIN_DIR
"""
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile


def field(obj, name):
    """A field of protobuf JSON, by its proto or its camelCase name."""
    camel = name.split("_")[0] + "".join(p.title() for p in name.split("_")[1:])
    return obj.get(name, obj.get(camel))


def nearest_rank(sorted_us, q):
    return sorted_us[max(1, math.ceil(q * len(sorted_us))) - 1]


def main():
    bin_dir = sys.argv[1]
    arena = os.path.join(bin_dir, "arena")
    bot = os.path.join(bin_dir, "random_bot")
    work = tempfile.mkdtemp(prefix="think_times_")
    try:
        records = os.path.join(work, "records")
        run = subprocess.run(
            [arena, "tournament", "--game", "quasenbo", "--seats", "2",
             "--bot", "a=" + bot, "--bot", "b=" + bot, "--games", "40", "--jobs", "2",
             "--sandbox", "none", "--record_format", "jsonl", "--progress=false",
             "--records", records],
            capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            sys.exit(f"FAIL: arena tournament exited {run.returncode}: {run.stderr[-2000:]}")
        times = {}
        for path in sorted(glob.glob(os.path.join(records, "*.jsonl"))):
            with open(path) as f:
                lines = [json.loads(line) for line in f if line.strip()]
            bots = field(lines[0]["header"], "seat_bots")
            for line in lines:
                for a in (line.get("decision") or {}).get("actions", []):
                    source = a.get("source", "SOURCE_UNSPECIFIED")
                    answered = source == "SOURCE_BOT" or (
                        source == "SOURCE_REFEREE_FAULT" and a.get("fault") == "FAULT_KIND_ILLEGAL")
                    if answered:
                        times.setdefault(bots[a.get("seat", 0)], []).append(
                            int(field(a, "think_us") or 0))
        with open(os.path.join(records, "standings.json")) as f:
            rows = {r["bot"]: r for r in json.load(f)["rows"]}
        failures = []
        for name in ("a", "b"):
            us = sorted(times.get(name, []))
            row = rows[name]
            if not us:
                failures.append(f"{name}: no answer in its records")
                continue
            want = {"answers": len(us), "think_ms_max": us[-1] / 1000,
                    "think_ms_median": nearest_rank(us, 0.5) / 1000,
                    "think_ms_p95": nearest_rank(us, 0.95) / 1000}
            got = {k: float(field(row, k) or 0) for k in want}
            print(f"{name}: records {want}; standings {got}")
            if got["answers"] != want["answers"]:
                failures.append(f"{name}: {got['answers']} answers, the records {want['answers']}")
            if abs(got["think_ms_max"] - want["think_ms_max"]) > 1e-9:
                failures.append(f"{name}: longest {got['think_ms_max']}, the records {want['think_ms_max']}")
            for k in ("think_ms_median", "think_ms_p95"):
                if abs(got[k] - want[k]) > 0.01 * want[k] + 1e-6:
                    failures.append(f"{name}: {k} {got[k]}, the records {want[k]}")
        if "think time, ms:" not in run.stdout:
            failures.append("the text standings show no think times")
        for f in failures:
            print("FAIL:", f)
        if failures:
            sys.exit(1)
        print("PASS")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
