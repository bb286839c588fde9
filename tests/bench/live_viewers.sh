#!/usr/bin/env bash
# 1,000 viewers of `arena tournament --serve` during a 20,000-match
# tournament of instant bots (random_bot, 2 seats, --jobs 2, no sandbox),
# against the same tournament without --serve: paired runs in ABBA order, so
# that the machine's other load falls on both alike. Records go under
# TMPDIR (TMPDIR=/dev/shm takes the disk out of the comparison). The viewers
# are BIN/live_viewers_client (tests/bench/live_viewers_client.cc: one epoll
# loop, under SCHED_IDLE: it stands for browsers on other machines);
# thread_cpu.py samples the arena process.
# Prints each run's wall time and matches/s, whether every viewer got the
# final standings, the viewers' own CPU, the arena process's peak RSS (with
# the viewers against without), and its CPU by thread (the live site's:
# live-http, live-poll).
#   tests/bench/live_viewers.sh [BIN] [RUNS] [GAMES] [VIEWERS] [EVERY_MS] [IDLE]
# EVERY_MS: how often the viewers read their sockets (10; 0: on every event);
# IDLE: false runs the viewers at the shell's priority.
set -euo pipefail
BIN="${1:-build/bin}"; RUNS="${2:-3}"; GAMES="${3:-20000}"; VIEWERS="${4:-1000}"
EVERY_MS="${5:-10}"; IDLE="${6:-true}"
HERE="$(cd "$(dirname "$0")" && pwd)"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ulimit -n 20000 2>/dev/null || true
n=0
run() {  # label, then extra arena flags
  label="$1"; shift
  # Each run's records in a folder of its own, all removed at the end: a
  # run right after 20,000 files were deleted pays for ext4's inode
  # allocator skipping the recently freed ones (seen at 5 % of a run).
  n=$((n + 1))
  start=$(date +%s.%N)
  /usr/bin/time -f "%M %U %S" -o "$T/maxrss" "$BIN/arena" tournament --game quasenbo --games "$GAMES" \
    --jobs 2 --seed 1 --sandbox none --progress=false --records "$T/r$n" \
    --bot a="$BIN/random_bot" --bot b="$BIN/random_bot" "$@" > "$T/out" 2>&1 &
  pid=$!
  apid=""
  for _ in $(seq 1 100); do apid=$(pgrep -n -P "$pid" arena || true); [ -n "$apid" ] && break; sleep 0.02; done
  python3 "$HERE/thread_cpu.py" "${apid:-$pid}" > "$T/sample" 2>&1 &
  spid=$!
  if [ "$label" = viewers ]; then
    addr=""
    for _ in $(seq 1 200); do
      addr=$(sed -n 's|^live site: http://\([^/]*\)/ .*|\1|p' "$T/out"); [ -n "$addr" ] && break; sleep 0.05
    done
    "$BIN/live_viewers_client" "$addr" "$VIEWERS" "$GAMES" --every_ms="$EVERY_MS" --idle="$IDLE" > "$T/viewers" 2>&1 &
    cpid=$!
  fi
  wait "$pid" || { echo "$label: arena failed: $(tail -5 "$T/out")"; exit 1; }
  # The tournament's time ends with the arena process: the viewers' own
  # count of what they got (a JSON parse each, about 0.3 s) comes after.
  end=$(date +%s.%N)
  if [ "$label" = viewers ]; then wait "$cpid" || true; fi
  wait "$spid" || true
  wall=$(echo "$end - $start" | bc -l)
  read -r rss user sys < "$T/maxrss"
  printf '%s: %.1f s, %.0f matches/s, arena max RSS %s KiB, CPU %s s user %s s system\n' \
    "$label" "$wall" "$(echo "$GAMES / $wall" | bc -l)" "$rss" "$user" "$sys"
  echo "$label $(echo "$GAMES / $wall" | bc -l)" >> "$T/rates"
  if [ "$label" = viewers ]; then cat "$T/viewers"; fi
  cat "$T/sample"
  return 0
}
# ABBA: plain, viewers, viewers, plain (RUNS pairs, rounded up to even),
# so that a drift of the machine's speed falls on both alike.
for i in $(seq 1 $(((RUNS + 1) / 2))); do
  run plain
  run viewers --serve 127.0.0.1:0 --live_records=false
  run viewers --serve 127.0.0.1:0 --live_records=false
  run plain
done
# Each ABBA block's ratio (viewers' matches/s over plain's, of the block's
# sums), their mean with a 95 % interval (Student's t over the blocks), and
# the pairs' median.
python3 - "$T/rates" <<'PY'
import statistics, sys
from math import sqrt
rates = [(l.split()[0], float(l.split()[1])) for l in open(sys.argv[1])]
blocks = [rates[i:i + 4] for i in range(0, len(rates) - 3, 4)]
ratios = [(b[1][1] + b[2][1]) / (b[0][1] + b[3][1]) for b in blocks]
pairs = [r for b in blocks for r in (b[1][1] / b[0][1], b[2][1] / b[3][1])]
print("block ratios (viewers / plain): " + ", ".join(f"{r:.3f}" for r in ratios))
if len(ratios) >= 2:
    t975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26,
            10: 2.23, 11: 2.20, 12: 2.18, 13: 2.16, 14: 2.14, 15: 2.13}.get(len(ratios) - 1, 2.0)
    m, sd = statistics.mean(ratios), statistics.stdev(ratios)
    half = t975 * sd / sqrt(len(ratios))
    print(f"mean block ratio {m:.3f}, 95 % interval {m - half:.3f} to {m + half:.3f} "
          f"({len(ratios)} blocks); pairs' median {statistics.median(pairs):.3f}")
PY
