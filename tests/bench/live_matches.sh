#!/usr/bin/env bash
# How many matches the referee keeps live at once, and what each costs
# (docs/benchmarks.md): `arena tournament` of MATCHES two-seat Quäsenbö
# matches, all started at once (--jobs MATCHES), between a bot that answers
# nothing until it holds MATCHES open decisions (tests/crash_hang_flood_bot_main.cc,
# --mode=hold_until) and random_bot, with a decision clock long enough that
# nothing times out, and --auto_moves=false (else a match where the holder
# has only forced moves ends without asking it, and it waits for ever); under an open-file limit of NOFILE (soft and hard, so
# arena cannot raise it). Samples the arena process every SAMPLE_S seconds
# (RSS, peak RSS, open descriptors) and its heap every 100 ms (a preloaded
# sampler, below), then verifies every record. First the same with 2
# matches, for the idle figures (bots connected, next to nothing live).
# A benchmark, not a test: 65,536 matches take minutes and a few GiB.
#
#   tests/bench/live_matches.sh [MATCHES] [NOFILE] [OUT_DIR] [extra arena flags]
#   tests/bench/live_matches.sh 65536 1024 /tmp/live
#
# Prints the peak live matches (arena's "at most N of them at once"), the
# idle and peak RSS and heap and (peak - idle) per live match of each, the
# most descriptors arena held at a sample, and the verify summary. Files:
# OUT_DIR/{idle,records}.{log,samples,heap}, the records in OUT_DIR/records.
# ARENA_BIN: the binaries' folder (default: build/bin beside this script).
set -euo pipefail
MATCHES="${1:-65536}"
NOFILE="${2:-1024}"
OUT="${3:-/tmp/arena-live-matches}"
shift $(( $# < 3 ? $# : 3 ))
B="${ARENA_BIN:-$(cd "$(dirname "$0")/../.." && pwd)/build/bin}"
SAMPLE_S="${SAMPLE_S:-0.5}"
rm -rf "$OUT"
mkdir -p "$OUT"
# The heap: a preloaded sampler writes arena's mallinfo2() bytes in use
# (every malloc arena, plus mmapped blocks) every 100 ms, "ms bytes" a line,
# to $OUT/NAME.heap. It takes LD_PRELOAD out of the environment as it starts,
# so the bots arena starts do not load it. It holds one descriptor.
cat > "$OUT/heap_sampler.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
static int out_fd = -1;
static void* sample(void* unused) {
  (void)unused;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    struct mallinfo2 m = mallinfo2();
    clock_gettime(CLOCK_MONOTONIC, &t);
    char line[64];
    int n = snprintf(line, sizeof line, "%ld %zu\n",
                     (long)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000),
                     m.uordblks + m.hblkhd);
    if (write(out_fd, line, (size_t)n) < 0) return NULL;
    usleep(100000);
  }
}
__attribute__((constructor)) static void start(void) {
  const char* path = getenv("ARENA_HEAP_LOG");
  unsetenv("LD_PRELOAD");
  if (path == NULL) return;
  out_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  unsetenv("ARENA_HEAP_LOG");
  if (out_fd < 0) return;
  pthread_t th;
  if (pthread_create(&th, NULL, sample, NULL) == 0) pthread_detach(th);
}
C
PRELOAD=()
if cc -O2 -shared -fPIC -o "$OUT/heap_sampler.so" "$OUT/heap_sampler.c" -lpthread; then
  PRELOAD=(env LD_PRELOAD="$OUT/heap_sampler.so")
else
  echo "no C compiler: heap not sampled"
fi
# run N HOLD DECISION_MS NAME [flags]: `arena tournament` of N matches, N
# at once, the holder holding until HOLD decisions are open, sampled into
# $OUT/NAME.samples ("t_s rss_kib hwm_kib fds"); sets code and secs.
run() {
  local n="$1" hold="$2" ms="$3" name="$4"
  shift 4
  (
    ulimit -n "$NOFILE"  # soft and hard
    exec "${PRELOAD[@]}" ARENA_HEAP_LOG="$OUT/$name.heap" "$B/arena" tournament --game quasenbo --games "$n" --jobs "$n" \
      --duplicate=false --decision_ms "$ms" --auto_moves=false --progress=false \
      --bot holder="$B/crash_hang_flood_bot --mode=hold_until --n=$hold" \
      --bot steady="$B/random_bot" --records "$OUT/$name" "$@"
  ) > "$OUT/$name.log" 2>&1 &
  local pid=$!
  local samples="$OUT/$name.samples"
  echo "t_s rss_kib hwm_kib fds" > "$samples"
  local start
  start=$(date +%s.%N)
  while kill -0 "$pid" 2>/dev/null; do
    st=$(awk '/^VmRSS/ {r=$2} /^VmHWM/ {h=$2} END {if (r) print r, h}' \
           "/proc/$pid/status" 2>/dev/null || true)
    fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l || true)
    now=$(date +%s.%N)
    [ -n "$st" ] && echo "$(awk -v a="$start" -v b="$now" 'BEGIN {printf "%.1f", b - a}') $st $fds" >> "$samples"
    sleep "$SAMPLE_S"
  done
  code=0
  wait "$pid" || code=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
}
# Idle: the same bots and flags, 2 matches that the holder never answers
# (they time out after 3 s): arena with the bots connected and next to
# nothing live.
run 2 3 3000 idle "$@"
idle_rss=$(awk 'NR > 1 && $3 > h {h = $3} END {print h + 0}' "$OUT/idle.samples")
idle_heap=$(awk '$2 > h {h = $2} END {print h + 0}' "$OUT/idle.heap" 2>/dev/null || echo 0)
run "$MATCHES" "$MATCHES" 3600000 records "$@"
SAMPLES="$OUT/records.samples"
echo "arena exited $code after $secs s (ulimit -n $NOFILE, $MATCHES matches, --jobs $MATCHES)"
grep -E "at once|open file|needs about|error" "$OUT/records.log" | head -20 || true
live=$(sed -n 's/.* at most \([0-9]*\) of them at once.*/\1/p' "$OUT/records.log" | tail -1)
awk -v live="${live:-0}" -v idle="$idle_rss" 'NR > 1 {
    if ($3 > hwm) hwm = $3
    if ($4 > fds) fds = $4
  }
  END {
    printf "idle RSS %d KiB, peak RSS %d KiB (%.1f MiB), most descriptors open %d\n",
           idle, hwm, hwm / 1024, fds
    if (live > 0)
      printf "peak live matches %d: %.1f KiB of RSS per live match over idle\n",
             live, (hwm - idle) / live
  }' "$SAMPLES"
# Heap: the peak of this run against the idle run's peak.
if [ -s "$OUT/records.heap" ]; then
  awk -v live="${live:-0}" -v idle="$idle_heap" '{
      if ($2 > peak) { peak = $2; at = $1 }
    }
    END {
      printf "heap: idle %.1f MiB, peak %.1f MiB at %.1f s\n",
             idle / 1048576, peak / 1048576, at / 1000
      if (live > 0)
        printf "peak live matches %d: %.1f KiB of heap per live match over idle\n",
               live, (peak - idle) / 1024 / live
    }' "$OUT/records.heap"
fi
echo "verify:"
"$B/arena" verify "$OUT/records" 2>&1 | tail -3
exit "$code"
