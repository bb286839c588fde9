#!/usr/bin/env bash
# The live site through a contest with long matches: `arena tournament
# --serve` of GAMES 4-seat Pesten matches among 8 weak bots (4 random_bot, 4
# pesten_bot --epsilon 0.25 to 1; sandboxed, the default as root; --jobs 2,
# default bounds), while tests/bench/live_pages_probe.py asks for every kind
# of page (the index, a match list, the replay of the longest record so far,
# a random replay, a live match) every half second and reports how long each
# took. Prints the probe's report, the contest's rate and arena's peak RSS.
# The records stay in OUT (default: a temporary folder, removed) for
# `arena html` (tests/bench/replay_cost.sh measures that).
#   tests/bench/live_long_matches.sh [BIN] [GAMES] [OUT]
set -euo pipefail
BIN="$(cd "${1:-build/bin}" && pwd)"; GAMES="${2:-1000}"; OUT="${3:-}"
HERE="$(cd "$(dirname "$0")" && pwd)"
T=$(mktemp -d)
chmod 755 "$T"  # the sandboxed bots' uid reaches the referee's socket in TMPDIR
trap 'rm -rf "$T"' EXIT
records="${OUT:-$T/records}"
rm -rf "$records"
bots=()
for i in 1 2 3 4; do bots+=(--bot "r$i=$BIN/random_bot"); done
for e in 0.25 0.5 0.75 1; do bots+=(--bot "e$e=$BIN/pesten_bot --epsilon $e"); done
start=$(date +%s.%N)
TMPDIR="$T" /usr/bin/time -f "%M" -o "$T/maxrss" "$BIN/arena" tournament --game pesten --seats 4 \
  --games "$GAMES" --jobs 2 --seed 7 --progress=false --serve 127.0.0.1:0 \
  --records "$records" "${bots[@]}" > "$T/out" 2>&1 &
pid=$!
addr=""
for _ in $(seq 1 400); do
  addr=$(sed -n 's|^live site: http://\([^/]*\)/ .*|\1|p' "$T/out"); [ -n "$addr" ] && break; sleep 0.05
done
[ -n "$addr" ] || { echo "no live site: $(tail -5 "$T/out")"; exit 1; }
/usr/bin/python3 "$HERE/live_pages_probe.py" "$addr" > "$T/probe" 2>&1 &
probe=$!
wait "$pid" || { echo "arena failed: $(tail -5 "$T/out")"; exit 1; }
end=$(date +%s.%N)
wait "$probe" || true
cat "$T/probe"
n=$(ls "$records" | grep -c '\.rec' || true)
wall=$(echo "$end - $start" | bc -l)
printf 'contest: %d records in %.0f s (%.2f matches/s), arena peak RSS %s KiB\n' \
  "$n" "$wall" "$(echo "$n / $wall" | bc -l)" "$(cat "$T/maxrss")"
