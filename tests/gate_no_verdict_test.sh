#!/bin/sh
# A gate's verdict needs both programs playing, with the real binaries:
#  1. a baseline that does not exist, a candidate that does not exist, and a
#     candidate that crashes at its first decision of every match
#     (crash_hang_flood_bot, withdrawn after its restarts): exit 4, never 0 or 1; the gate stops at
#     the first no-show instead of playing out the forfeits; stdout ends
#     with "no verdict: BASELINE|CANDIDATE 'NAME' ..." and says "accepted"
#     nowhere; --json, --junit and --summary_md say the same;
#  2. a baseline whose fault rate is above --max_fault_rate: no verdict too;
#  3. neither program starts: exit 2 (the gate could not run), and the
#     reports still say that there is no verdict;
#  4. arena tournament --junit: a withdrawn entrant is a failing testcase of
#     its own.
# Usage: gate_no_verdict_test.sh BIN_DIR SOURCE_DIR
set -u
BIN="$1"
SRC="$2"
PY=/usr/bin/python3
CHECK="$SRC/tests/reports_check.py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
Q="$BIN/quasenbo_bot"

# gate NAME WANT_RC ARGS...: runs a gate into $T/NAME with every report.
gate() {
  name="$1"; want="$2"; shift 2
  "$BIN/arena" gate --game quasenbo --seed 9 --sandbox none --jobs 2 \
    --records "$T/$name" --json "$T/$name.json" --junit "$T/$name.xml" \
    --summary_md "$T/$name.md" "$@" > "$T/$name.out" 2> "$T/$name.err" < /dev/null
  rc=$?
  cat "$T/$name.out"
  [ $rc -eq "$want" ] || fail "$name: gate exited $rc, not $want: $(tail -5 "$T/$name.err")"
  ! grep -q "accepted" "$T/$name.out" || fail "$name: a verdict on stdout: $(cat "$T/$name.out")"
}

# expect NAME SIDE NAME_OF_BOT WHAT: the reports of gate NAME give no
# verdict because SIDE 'NAME_OF_BOT' WHAT (e.g. "did not start").
expect() {
  name="$1"; side="$2"; bot="$3"; what="$4"
  line="no verdict: $side '$bot' $what"
  tail -n 1 "$T/$name.out" | grep -q -F "$line" \
    || fail "$name: stdout does not end with '$line': $(cat "$T/$name.out")"
  $PY - "$T/$name.json" "$line" <<'PYEOF' || fail "$name json: $(cat "$T/$name.json")"
import json, sys
g = json.load(open(sys.argv[1]))
line = sys.argv[2]
assert g["decision"] == "no_verdict" and g["no_verdict"] is True, g["decision"]
assert g["passed"] is False, g
assert g["verdict"].startswith(line), (g["verdict"], line)
assert g["no_verdict_reason"] == g["verdict"][len("no verdict: "):], g
PYEOF
  $PY "$CHECK" junit "$T/$name.xml" --tests 2 --failing sprt --message "$line" \
    || fail "$name junit: $(cat "$T/$name.xml")"
  grep -q 'type="no_verdict"' "$T/$name.xml" || fail "$name junit type: $(cat "$T/$name.xml")"
  $PY "$CHECK" md "$T/$name.md" --contains "NO VERDICT" --contains "$what" \
    || fail "$name md: $(cat "$T/$name.md")"
  ! grep -q "accepted" "$T/$name.xml" "$T/$name.md" || fail "$name: a report says accepted"
  echo "ok: $name: $line"
}

# At most this many of the bot's matches were played: the gate stopped at
# its first no-show (the SPRT alone would take 100 deal groups or more).
played_at_most() {
  $PY - "$T/$1.json" "$2" "$3" <<'PYEOF' || fail "$1: played on: $(cat "$T/$1.json")"
import json, sys
g = json.load(open(sys.argv[1]))
row = g[sys.argv[2] + "_row"]
assert row["withdrawn"] is True, row
assert row["matches"] <= int(sys.argv[3]), row["matches"]
PYEOF
}

# 1. The baseline does not exist.
gate nobase 4 --candidate "new=$Q" --baseline "old=$T/does/not/exist"
expect nobase BASELINE old "did not start"
# The reason, in public words: the command by its basename, no folder.
grep -q "exec: exist: not found" "$T/nobase.out" || fail "nobase: no reason given"
grep -q "/does/not/" "$T/nobase.xml" "$T/nobase.md" "$T/nobase.json" &&
  fail "nobase: a path of the machine in the reports"
played_at_most nobase baseline 4

# The candidate does not exist.
gate nocand 4 --candidate "new=$T/does/not/exist" --baseline "old=$Q"
expect nocand CANDIDATE new "did not start"
played_at_most nocand candidate 4

# The candidate crashes at its first decision of every match: restarted,
# then withdrawn.
gate crash 4 --candidate "new=$BIN/crash_hang_flood_bot --mode=crash_after --n=0" --baseline "old=$Q" \
  --max_restarts 2
expect crash CANDIDATE new "was withdrawn after"
$PY - "$T/crash.json" <<'PYEOF' || fail "crash json: $(cat "$T/crash.json")"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["candidate_row"]["fault_kinds"]["crashed"] >= 1, g["candidate_row"]
assert "exited with code 3" in g["no_verdict_reason"], g["no_verdict_reason"]
assert g["baseline_row"]["faults"] == 0, g["baseline_row"]
PYEOF

# 2. A baseline that plays but faults often (random moves are played for it).
gate faultybase 4 --candidate "new=$Q" --baseline "faulty=$BIN/illegal_answer_bot --every=4" \
  --fault_policy random --max_fault_rate 0.02
expect faultybase BASELINE faulty "had a fault in"
$PY - "$T/faultybase.json" <<'PYEOF' || fail "faultybase json: $(cat "$T/faultybase.json")"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["baseline_fault_rate_exceeded"] is True and g["baseline_fault_rate"] > 0.02, g
assert g["fault_rate_exceeded"] is False and g["fault_rate"] == 0, g
PYEOF
$PY "$CHECK" junit "$T/faultybase.xml" --failing fault_rate --message "the baseline) exceeds" \
  || fail "faultybase junit: $(cat "$T/faultybase.xml")"

# 3. Neither starts: the gate cannot run (2), and the reports say no verdict.
gate neither 2 --candidate "new=$T/nope/a" --baseline "old=$T/nope/b"
$PY - "$T/neither.json" <<'PYEOF' || fail "neither json: $(cat "$T/neither.json")"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["no_verdict"] is True and g["decision"] == "no_verdict" and g["passed"] is False, g
assert g["verdict"].startswith("no verdict: the gate could not run"), g["verdict"]
# Public text: the commands' basenames, no path of the machine.
assert "exec: a: not found" in g["verdict"] and "/nope/" not in g["verdict"], g["verdict"]
PYEOF
grep -q "/nope/" "$T/neither.xml" "$T/neither.md" && fail "neither: a path in the reports"
$PY "$CHECK" junit "$T/neither.xml" --failing sprt --message "the gate could not run" \
  || fail "neither junit: $(cat "$T/neither.xml")"
echo "ok: neither starts: $(head -c 200 "$T/neither.out")"

# 4. A tournament's JUnit: the withdrawn entrant fails on its own.
"$BIN/arena" tournament --game quasenbo --seed 9 --games 6 --sandbox none --progress=false \
  --bot "a=$Q" --bot "b=$BIN/random_bot" --bot "gone=$T/does/not/exist" \
  --records "$T/t" --junit "$T/t.xml" > "$T/t.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "tournament with a withdrawn entrant exited $rc: $(cat "$T/t.out")"
$PY "$CHECK" junit "$T/t.xml" --tests 4 --failures 1 --failing gone --passing a --passing b \
  --message "withdrawn: " || fail "tournament junit: $(cat "$T/t.xml")"
grep -q 'type="withdrawn"' "$T/t.xml" || fail "tournament junit type: $(cat "$T/t.xml")"
echo PASS
