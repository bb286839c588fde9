#!/bin/sh
# The 48-entrant contest of docs/contests.md, as an organiser runs it: 4-seat
# Pesten, 40 `pesten_bot --epsilon i/39`, 6 Python bots
# (build/bin/python_random_bot), one bot that crashes at its 3rd decision
# and one that answers every 50th decision after its deadline
# (tests/crash_hang_flood_bot), --schedule adaptive --top_k 8.
#
#   tests/bench/contest_field.sh OUT JOBS MODE [GAMES] [extra flags...]
#   MODE sandboxed: the defaults (sandboxed, duplicate deals, a fresh
#        process per rotation, the default bound on live processes)
#   MODE kept: --sandbox none --duplicate=false and every process kept
#        (--max_live_bots 48: no start after the first ones)
#
# Prints one line: the wall time, matches and decisions a second, the most
# matches at once, the wall time matches waited for their bots' processes,
# the processes started and stopped, the log's lines, the late answers and
# the timeouts of the 46 entrants that are never late. Not a test: run by
# hand from the top folder after a build (docs/benchmarks.md).
set -eu
out=$1 jobs=$2 mode=$3 games=${4:-1000}
shift 3
[ $# -gt 0 ] && shift
bin=build/bin
arena=${ARENA:-$bin/arena}
bots=""
i=0
while [ "$i" -lt 40 ]; do
  eps=$(/usr/bin/python3 -c "print(round($i / 39, 4))")
  bots="$bots --bot e$(printf %02d "$i")=$bin/pesten_bot\\ --epsilon\\ $eps"
  i=$((i + 1))
done
for i in 1 2 3 4 5 6; do bots="$bots --bot py$i=$bin/python_random_bot"; done
bots="$bots --bot crasher=$bin/crash_hang_flood_bot\\ --mode=crash_after\\ --n=2"
bots="$bots --bot sleeper=$bin/crash_hang_flood_bot\\ --mode=slow_every\\ --n=50"
case $mode in
  sandboxed) flags="" ;;
  kept) flags="--sandbox none --duplicate=false --max_live_bots 48" ;;
  *) echo "MODE: sandboxed or kept" >&2; exit 2 ;;
esac
rm -rf "$out" "$out.secret"
start=$(date +%s.%N)
eval "$arena tournament --game pesten --seats 4 --games $games --jobs $jobs \
  --schedule adaptive --top_k 8 --records $out --progress=false \
  --secret_file $out.secret $flags $* $bots" > "$out.log" 2>&1 || true
end=$(date +%s.%N)
/usr/bin/python3 - "$out" "$start" "$end" <<'EOF'
import json, re, sys
out, start, end = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
log = open(out + ".log").read()
wall = end - start
m = re.search(r"(\d+) matches played, at most (\d+) of them at once \((\d+) decisions", log)
matches, peak, decisions = (int(x) for x in m.groups()) if m else (0, 0, 0)
w = re.search(r"matches waiting for their bots[^:]*: (\S+) of the (\S+) since[^(]*\(([\d.]+)%\)", log)
p = re.search(r"bot processes: (.*)", log)
st = json.load(open(out + "/standings.json"))
innocent_timeouts = sum(r.get("fault_kinds", {}).get("timeout", 0) for r in st["rows"]
                        if r["bot"] not in ("crasher", "sleeper"))
crasher = [e for e in st.get("entrants", []) if e["bot"] == "crasher"]
late = re.findall(r"decision \d+ came (\d+) ms after its deadline", log)
print(f"{wall:.0f} s, {matches} matches ({matches / wall:.2f}/s), {decisions} decisions "
      f"({decisions / wall:.0f}/s), at most {peak} at once; waiting for bots: "
      f"{w.group(1) + ' (' + w.group(3) + '%)' if w else 'none'}; log {sum(1 for l in log.splitlines() if l.startswith('[20'))} lines; "
      f"late answers {len(late)} (max {max(map(int, late)) if late else 0} ms); "
      f"timeouts of the others {innocent_timeouts}; crasher withdrawn "
      f"{bool(crasher and crasher[0].get('withdrawn'))}")
print("processes:", p.group(1) if p else "?")
EOF
