#!/usr/bin/env bash
# The referee's memory over a long tournament (docs/benchmarks.md): a
# Quäsenbö round robin of 8 bundled bots (4 random_bot, 4 quasenbo_bot), run
# by `arena tournament` (the referee), whose RSS is sampled against the
# number of finished records. Prints "records rss_kib seconds" lines, then
# RSS at the first sample past 1,000 records (and past 10,000) against the
# last, as a ratio.
# A benchmark, not a test: it takes minutes and writes every record.
#
#   tests/bench/memory_curve.sh [MATCHES] [JOBS] [OUT_DIR] [extra arena flags]
#   tests/bench/memory_curve.sh 100000 64 /tmp/curve --compress
#   nice -n 19 tests/bench/memory_curve.sh 1000000 2 /tmp/curve-1m
#
# ARENA_BIN: the binaries' folder (default: build/bin beside this script;
# a copy keeps a long run safe from rebuilds). Records of every format are
# counted (.rec, .jsonl, .jsonl.zst). A sample lists the records folder,
# which costs more as it fills: samples are 1 s apart, plus 1 s for every
# 50,000 records (21 s at 1,000,000).
set -euo pipefail
MATCHES="${1:-100000}"
JOBS="${2:-64}"
OUT="${3:-/tmp/arena-memory-curve}"
shift $(( $# < 3 ? $# : 3 ))
B="${ARENA_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/build/bin}"
rm -rf "$OUT"
mkdir -p "$OUT"
BOTS=()
for i in 1 2 3 4; do
  BOTS+=(--bot "random$i=$B/random_bot" --bot "heuristic$i=$B/quasenbo_bot")
done
"$B/arena" tournament --game quasenbo "${BOTS[@]}" --games "$MATCHES" \
  --jobs "$JOBS" --progress=false --records "$OUT/records" "$@" \
  > "$OUT/arena.log" 2>&1 &
PID=$!
SAMPLES="$OUT/rss.txt"
: > "$SAMPLES"
T0=$(date +%s)
count() {
  find "$OUT/records" -maxdepth 1 -type f \( -name '*.rec' -o -name '*.jsonl' \
    -o -name '*.jsonl.zst' \) 2>/dev/null | wc -l
}
while kill -0 "$PID" 2>/dev/null; do
  rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status" 2>/dev/null || true)
  n=$(count) || n=0  # no records folder yet
  [ -n "$rss" ] && echo "$n $rss $(( $(date +%s) - T0 ))" >> "$SAMPLES"
  sleep $(( 1 + n / 50000 ))
done
wait "$PID" || { echo "arena failed:"; tail -20 "$OUT/arena.log"; exit 1; }
cat "$SAMPLES"
awk -v n="$MATCHES" '
  $1 >= 1000 && first == "" { first = $2; at = $1 }
  $1 >= 10000 && first10 == "" { first10 = $2; at10 = $1 }
  { last = $2; last_at = $1 }
  END {
    if (first == "") { print "fewer than 1,000 records sampled"; exit 1 }
    printf "RSS %d KiB at %d records, %d KiB at %d records: %+.1f%%\n",
           first, at, last, last_at, 100 * (last - first) / first
    if (first10 != "")
      printf "RSS %d KiB at %d records, %d KiB at %d records: %+.1f%%\n",
             first10, at10, last, last_at, 100 * (last - first10) / first10
  }' "$SAMPLES"
grep -E "at once" "$OUT/arena.log" || true
