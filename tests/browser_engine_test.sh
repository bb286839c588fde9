#!/bin/sh
# The pages' Pesten engine (arena/views/html/pesten.js, resim.js) against
# the referee, over many random matches of every seat count and option:
# `arena html` of their records, then tests/browser_engine_check.js
# re-simulates every page's decisions as a browser would (node, no browser)
# and compares each position with `arena replay --json`; then once more with
# one decision of each page changed, which the page must refuse.
#   seats 2, no Jokers, 1 winning point; seats 3, 4 Jokers, 3 points, a
#   decision cap of 150 (matches cut mid-round); seats 5 with notes (hostile
#   ones), a bot late every 25th decision under --fault_policy random (the
#   referee's random moves, with their fault details); seats 6 with a bot
#   that crashes at its 4th decision (forfeits and withdrawal: no-shows).
set -u
BIN="$1"; SRC="$2"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v node > /dev/null || fail "no node (ci/install_deps.sh installs Debian's nodejs)"
R="$BIN/random_bot"
run() {  # NAME ARGS...: a tournament, its records copied into $T/recs
  name="$1"; shift
  # (A tournament whose bots failed as programs exits 1 once complete.)
  "$BIN/arena" tournament --game pesten --sandbox none --records "$T/$name" --progress=false \
    "$@" > "$T/$name.out" 2>&1
  grep -q 'tournament is complete\|^records and standings' "$T/$name.out" \
    || fail "$name: $(tail -5 "$T/$name.out")"
  cp "$T/$name"/*.rec "$T/recs/" || fail "$name: no records"
  echo "$name: $(ls "$T/$name"/*.rec | wc -l) records"
}
mkdir "$T/recs"
run two --seats 2 --games 6 --seed 11 --option jokers=0 --option winning_points=1 \
  --bot a="$R" --bot b="$R"
run three --seats 3 --games 6 --seed 12 --option jokers=4 --option winning_points=3 \
  --decision_cap 150 --bot a="$R" --bot b="$R" --bot c="$R"
run five --seats 5 --games 4 --seed 13 --option jokers=1 --option winning_points=1 \
  --fault_policy random --decision_ms 60 \
  --bot n1="$BIN/note_bot" --bot n2="$BIN/note_bot" --bot a="$R" --bot b="$R" \
  --bot late="$BIN/crash_hang_flood_bot --mode=slow_every --n=25"
run six --seats 6 --games 6 --seed 14 --bot a="$R" --bot b="$R" --bot c="$R" --bot d="$R" \
  --bot e="$R" --bot crash="$BIN/crash_hang_flood_bot --mode=crash_after --n=3"
"$BIN/arena" html "$T/recs" --show_notes > "$T/html.out" 2>&1 || fail "arena html: $(cat "$T/html.out")"
node "$SRC/tests/browser_engine_check.js" "$BIN/arena" "$T/recs/html" "$T/recs" --notes \
  > "$T/check.out" 2>&1 || fail "$(tail -5 "$T/check.out")"
tail -2 "$T/check.out"
# The cases above happened: random moves after faults, notes, forfeits, and
# matches that did not end by the game's rules.
for what in faults notes forfeits not_normal; do
  grep -q "\"$what\":[1-9]" "$T/check.out" || fail "no match had $what: $(grep seen: "$T/check.out")"
done
node "$SRC/tests/browser_engine_check.js" "$BIN/arena" "$T/recs/html" "$T/recs" --tamper \
  > "$T/tamper.out" 2>&1 || fail "$(tail -5 "$T/tamper.out")"
tail -1 "$T/tamper.out"
echo PASS
