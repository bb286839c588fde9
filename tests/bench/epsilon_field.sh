#!/bin/sh
# A field of known order from a bundled game bot: N entrants, entrant i
# playing a uniformly random legal action with chance i / (N - 1) (--epsilon),
# so entrant 0 is the strongest and the order is known. Runs one contest
# and prints the matches it played, how sure its top is (schedule.json) and
# Kendall's tau of the standings' order against the epsilon order.
#
#   tests/bench/epsilon_field.sh GAME SEATS SCHEDULE MATCHES OUT [N] [extra flags...]
#   e.g. tests/bench/epsilon_field.sh pesten 4 adaptive 6000 /tmp/eps-pesten 32
#
# Not a test: run by hand from the top folder after a build (docs/contests.md).
# Bots run without the sandbox (they are the bundled bots) and keep their
# processes through rotations, so the run measures the schedule, not the
# sandbox's start-up.
set -eu
game=$1 seats=$2 schedule=$3 matches=$4 out=$5
n=${6:-32}
shift 5
[ $# -gt 0 ] && shift
bin=build/bin
bots=""
i=0
while [ "$i" -lt "$n" ]; do
  eps=$(/usr/bin/python3 -c "print(round($i / ($n - 1), 4))")
  bots="$bots --bot e$(printf %02d "$i")=$bin/${game}_bot\\ --epsilon\\ $eps"
  i=$((i + 1))
done
rm -rf "$out"
start=$(date +%s)
eval "$bin/arena tournament --game $game --seats $seats --games $matches --jobs 4 \
  --schedule $schedule --records $out --sandbox none --fresh_bots_per_rotation=false \
  --progress=false --secret_file $out.secret $* $bots" > "$out.log" 2>&1 || true
end=$(date +%s)
/usr/bin/python3 - "$out" "$((end - start))" <<'EOF'
import json, sys
out, secs = sys.argv[1], sys.argv[2]
st = json.load(open(out + "/standings.json"))
plan = json.load(open(out + "/schedule.json"))
rows = [r for r in st["rows"] if not r.get("withdrawn")]
order = [int(r["bot"][1:]) for r in rows]  # best first; e00 is the strongest
n = len(order)
pos = {e: k for k, e in enumerate(order)}
conc = disc = 0
for a in range(n):
    for b in range(a + 1, n):
        # a < b: a has the smaller epsilon, so it should be ahead
        if pos[a] < pos[b]:
            conc += 1
        else:
            disc += 1
tau = (conc - disc) / (conc + disc)
comps = plan.get("comparisons", [])
open_ = [c for c in comps if not c.get("separated")]
print(f"matches {st['matches_played']}, rounds {plan.get('rounds')}, {secs} s; "
      f"Kendall tau {tau:.3f}; top {plan.get('top_k')}: {len(comps) - len(open_)} of "
      f"{len(comps)} comparisons separated; stop: {plan.get('stop')}")
print("order:", " ".join(f"e{e:02d}" for e in order))
EOF
