#!/bin/sh
# A wide sandboxed field: N entrants (default 256), random bots, every
# other one the Python random bot (build/bin/python_random_bot), in 4-seat
# Quabble, MATCHES matches of balanced rounds (--schedule rounds), the
# default bound on live bot processes, duplicate deals.
#
#   tests/bench/wide_field.sh OUT JOBS [MATCHES] [N] [extra flags...]
#
# Prints the wall time, the matches a second, the most matches at once, the
# wall time matches waited for their bots' processes, the processes
# started and stopped, and the peak RSS and PSS of the whole process tree
# (tests/bench/process_tree_peak.py). Not a test: run by hand from the top
# folder after a build (docs/benchmarks.md).
set -eu
out=$1 jobs=$2 matches=${3:-1024} n=${4:-256}
shift 2
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
bin=build/bin
arena=${ARENA:-$bin/arena}
bots=""
i=0
while [ "$i" -lt "$n" ]; do
  if [ $((i % 2)) -eq 0 ]; then bot=$bin/random_bot; else bot=$bin/python_random_bot; fi
  bots="$bots --bot r$(printf %03d "$i")=$bot"
  i=$((i + 1))
done
rm -rf "$out" "$out.secret"
start=$(date +%s.%N)
# shellcheck disable=SC2086
tests/bench/process_tree_peak.py "$out.log" "$arena" tournament --game quabble --seats 4 \
  --games "$matches" --jobs "$jobs" --schedule rounds --records "$out" --progress=false \
  --secret_file "$out.secret" "$@" $bots > "$out.peak" 2>&1 || true
end=$(date +%s.%N)
/usr/bin/python3 - "$out" "$start" "$end" <<'EOF'
import json, re, sys
out, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
log = open(out + ".log", errors="replace").read()
wall = end - start
st = json.load(open(out + "/standings.json"))
m = re.search(r"(\d+) matches played, at most (\d+) of them at once", log)
w = re.search(r"matches waiting for their bots[^:]*: (\S+) of the (\S+) since[^(]*\(([\d.]+)%\)", log)
p = re.search(r"bot processes: (.*)", log)
faults = sum(r.get("faults", 0) for r in st["rows"])
print(f"{wall:.0f} s, {st['matches_played']} matches ({st['matches_played'] / wall:.2f}/s), "
      f"at most {m.group(2) if m else '?'} at once; waiting for bots: "
      f"{w.group(1) + ' (' + w.group(3) + '%)' if w else 'none'}; faults {faults}")
print("processes:", p.group(1) if p else "?")
print(open(out + ".peak").read().strip().splitlines()[-1])
EOF
