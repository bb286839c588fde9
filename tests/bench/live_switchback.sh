#!/usr/bin/env bash
# The cost of 1,000 viewers to a tournament served live, measured within
# each run: `arena tournament --serve` of GAMES matches of instant bots
# (random_bot, 2 seats, --jobs 2, no sandbox), while BIN/live_viewers_client
# --switch_s=S connects VIEWERS viewers for S seconds, leaves for S, and so
# on (one probe stream stays), then stays for the last 10 % so that every
# viewer gets the final standings.
# Each window's rate is the records that landed in it (their files' times),
# after a WASHOUT (the viewers' arrival or leaving, the next push) at its
# start. Each window with viewers is compared with the mean of the two
# windows without around it: adjacent windows a few seconds apart see the
# machine at nearly the same speed, which whole runs a minute apart (as in
# live_viewers.sh) do not, and a steady drift cancels. What it leaves out:
# the cost of --serve itself (every window has it), and the viewers'
# arrival (the washout). Prints each run's windows and ratios, then their
# mean with a 95 % interval and their median. TMPDIR=/dev/shm takes the disk
# out (the previous run's 20,000 deleted files slow the next run's start).
#   tests/bench/live_switchback.sh [BIN] [RUNS] [GAMES] [VIEWERS] [S] [WASHOUT]
set -euo pipefail
BIN="${1:-build/bin}"; RUNS="${2:-6}"; GAMES="${3:-20000}"; VIEWERS="${4:-1000}"
S="${5:-4}"; WASHOUT="${6:-1}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ulimit -n 20000 2>/dev/null || true
for n in $(seq 1 "$RUNS"); do
  "$BIN/arena" tournament --game quasenbo --games "$GAMES" --jobs 2 --seed "$n" --sandbox none \
    --progress=false --records "$T/r$n" --bot a="$BIN/random_bot" --bot b="$BIN/random_bot" \
    --serve 127.0.0.1:0 --live_records=false > "$T/out$n" 2>&1 &
  pid=$!
  addr=""
  for _ in $(seq 1 200); do
    addr=$(sed -n 's|^live site: http://\([^/]*\)/ .*|\1|p' "$T/out$n")
    [ -n "$addr" ] && break
    sleep 0.05
  done
  "$BIN/live_viewers_client" "$addr" "$VIEWERS" "$GAMES" --switch_s="$S" \
    > "$T/viewers$n" 2>&1 || true
  wait "$pid" || { echo "run $n: arena failed: $(tail -5 "$T/out$n")"; exit 1; }
  find "$T/r$n" -maxdepth 1 -name '*.rec' -printf '%T@\n' > "$T/times$n"
  grep -v '^viewers \(on\|off\|stay\) ' "$T/viewers$n"
  rm -rf "$T/r$n"
done
python3 - "$T" "$RUNS" "$WASHOUT" <<'PY'
import bisect, statistics, sys
from math import sqrt
folder, runs, washout = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
ratios = []
for n in range(1, runs + 1):
    times = sorted(float(l) for l in open(f"{folder}/times{n}"))
    changes = [(l.split()[1], float(l.split()[2])) for l in open(f"{folder}/viewers{n}")
               if l.startswith("viewers ") and l.split()[1] in ("on", "off", "stay")]
    windows = []  # (viewers present, matches a second)
    for (state, t0), (_, t1) in zip(changes, changes[1:]):
        if state == "stay" or t1 - t0 <= washout:
            continue
        count = bisect.bisect_left(times, t1) - bisect.bisect_left(times, t0 + washout)
        windows.append((state == "on", count / (t1 - t0 - washout)))
    mine = [on / ((a + b) / 2)
            for (pa, a), (p, on), (pb, b) in zip(windows, windows[1:], windows[2:])
            if p and not pa and not pb]
    ratios += mine
    print(f"run {n}: matches/s in each window (+ with viewers, - without): "
          + " ".join(f"{'+' if p else '-'}{r:.0f}" for p, r in windows))
    print("  with viewers / without around: " + ", ".join(f"{r:.3f}" for r in mine))
if len(ratios) >= 2:
    m, sd = statistics.mean(ratios), statistics.stdev(ratios)
    # Student's t, 97.5 % point, for the degrees of freedom (2.0 past 30).
    t = [12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14,
         2.13, 2.12, 2.11, 2.10, 2.09, 2.09, 2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05,
         2.05, 2.04]
    half = (t[len(ratios) - 2] if len(ratios) - 2 < len(t) else 2.0) * sd / sqrt(len(ratios))
    print(f"matches/s with viewers over without: mean {m:.3f}, 95 % interval {m - half:.3f} to "
          f"{m + half:.3f} ({len(ratios)} windows), median {statistics.median(ratios):.3f}")
PY
