#!/bin/sh
# A big ladder as an organiser runs it: N entrants (default 500) submitted
# with `arena ladder submit`, every other one build/bin/random_bot, the
# others build/bin/quasenbo_bot at epsilons spread over 0 to 1, then
# `arena ladder run` of 4-seat Quäsenbö, sandboxed, the default bound on
# live bot processes unless the extra flags say otherwise, for SECONDS,
# stopped by SIGINT as an organiser's Ctrl-C, under
# tests/bench/process_tree_peak.py.
#
#   tests/bench/ladder_field.sh OUT SECONDS [N] [JOBS] [extra flags...]
#
# Prints the rated matches and their rate, the most bot processes live in
# the log's minute lines against the bound, the peak RSS and PSS of the
# whole process tree, the most child processes of arena seen, and the
# largest single process's peak RSS (arena's). Not a test: run by hand from the top folder
# after a build (docs/benchmarks.md).
set -eu
out=$1 secs=$2 n=${3:-500} jobs=${4:-4}
shift 2
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
bin=$(pwd)/build/bin
arena=${ARENA:-$bin/arena}
rm -rf "$out"
mkdir -p "$out"
i=0
while [ "$i" -lt "$n" ]; do
  if [ $((i % 2)) -eq 0 ]; then
    cmd="$bin/random_bot"
  else
    cmd="$bin/quasenbo_bot --epsilon $(/usr/bin/python3 -c "print(round($i / $n, 4))")"
  fi
  "$arena" ladder submit "$out/l" --entrant "e$(printf %03d "$i")" --command "$cmd" > /dev/null
  i=$((i + 1))
done
start=$(date +%s.%N)
# shellcheck disable=SC2086
tests/bench/process_tree_peak.py "$out/run.log" "$arena" ladder run \
  "$out/l" --game quasenbo --seats 4 --jobs "$jobs" "$@" > "$out/peak" 2>&1 &
peak=$!
sleep "$secs"
# The organiser's Ctrl-C, to arena (the child of /usr/bin/time, the child
# of process_tree_peak.py).
kill -INT "$(pgrep -P "$(pgrep -P "$peak" | head -1)" | head -1)"
wait "$peak" || true
end=$(date +%s.%N)
/usr/bin/python3 - "$out" "$start" "$end" <<'EOF'
import glob, json, re, sys
out, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
wall = end - start
log = open(out + "/run.log", errors="replace").read()
board = json.load(open(out + "/l/leaderboard.json"))
records = len(glob.glob(out + "/l/records/segment-*/*.rec"))
rated = int(board.get("matches", 0))
versions = len(board.get("rows", board.get("versions", [])))
bound = re.search(r"at most (\d+) bot processes at once", log)
live = [int(x) for x in re.findall(r"(\d+) live now", log)]
live += [int(x) for x in re.findall(r"at most (\d+) live at once", log)]
rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", log)
print(f"{wall:.0f} s; {rated} rated matches ({rated / wall:.2f}/s), {records} records, "
      f"{versions} versions on the board; bot processes live at the minute's lines: at "
      f"most {max(live, default=-1)} (bound {bound.group(1) if bound else '?'}); the "
      f"largest process's peak RSS {int(rss.group(1)) // 1024 if rss else '?'} MiB")
print(open(out + "/peak").read().strip().splitlines()[-1])
EOF
