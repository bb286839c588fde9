#!/bin/sh
# CI reports, with the real binaries:
#  1. every usage error of every arena command, and of referee, exits 2 with
#     a message naming the flag (an unknown flag, a value that does not
#     parse, a missing value, a flag of another command); absl's parser
#     alone would exit 1, which for arena gate means "H0 accepted";
#  2. arena gate --max_fault_rate gives no verdict (exit 4) on a candidate
#     that faults often but wins, and says why; its JSON carries faults by
#     kind for both bots;
#  3. --junit and --summary_md of tournament and gate parse
#     (tests/reports_check.py: xml.etree.ElementTree, markdown tables).
# Usage: reports_cli_test.sh BIN_DIR SOURCE_DIR
set -u
BIN="$1"
SRC="$2"
PY=/usr/bin/python3
CHECK="$SRC/tests/reports_check.py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. Usage errors: exit 2, and stderr names the flag.
expect_usage_error() {
  want="$1"; shift
  prog="$1"; shift
  "$BIN/$prog" "$@" > "$T/out" 2> "$T/err" < /dev/null; rc=$?
  [ $rc -eq 2 ] || fail "$prog $* exited $rc, not 2: $(cat "$T/err" "$T/out")"
  grep -q -e "$want" "$T/err" || fail "$prog $*: the message does not name $want: $(cat "$T/err")"
  echo "ok: $prog $* -> $(head -c 300 "$T/err")"
}
R="$BIN/random_bot"
expect_usage_error "--candidat" arena gate --game quasenbo --candidat a="$R" --baseline b="$R" --records "$T/g0"
grep -q "did you mean --candidate" "$T/err" || fail "no suggestion: $(cat "$T/err")"
expect_usage_error "--bogus" arena tournament --game quasenbo --games 2 --bot a="$R" --bot b="$R" --bogus 1 --records "$T/t0"
expect_usage_error "--bogus" arena match --game quasenbo --bot a="$R" --bot b="$R" --bogus=1 --records "$T/m0"
expect_usage_error "--bogus" arena gate --game quasenbo --candidate a="$R" --baseline b="$R" --bogus --records "$T/g1"
expect_usage_error "--bogus" arena verify "$T" --bogus
expect_usage_error "--bogus" arena standings "$T" --bogus=x
expect_usage_error "--bogus" arena replay "$T/x.jsonl" --bogus
expect_usage_error "--bogus" arena html "$T" --bogus
expect_usage_error "--bogus" arena games --bogus
expect_usage_error "--bogus" arena --bogus
expect_usage_error "--games" arena tournament --game quasenbo --games many --bot a="$R" --bot b="$R"
expect_usage_error "--max_fault_rate" arena gate --game quasenbo --candidate a="$R" --baseline b="$R" --max_fault_rate=lots
expect_usage_error "--max_fault_rate" arena gate --game quasenbo --candidate a="$R" --baseline b="$R" --max_fault_rate 1.5
expect_usage_error "--elo1" arena gate --game quasenbo --candidate a="$R" --baseline b="$R" --elo1
expect_usage_error "--noprogress" arena tournament --game quasenbo --games 2 --bot a="$R" --bot b="$R" --noprogress=1
expect_usage_error "--games" arena gate --game quasenbo --candidate a="$R" --baseline b="$R" --games 5
expect_usage_error "--max_fault_rate" arena tournament --game quasenbo --games 2 --bot a="$R" --bot b="$R" --max_fault_rate 0.5
expect_usage_error "--junit" arena verify "$T" --junit "$T/x.xml"
expect_usage_error "--bot" arena gate --game quasenbo --candidate a="$R" --baseline b="$R" --bot c="$R"
expect_usage_error "--shard" arena match --game quasenbo --bot a="$R" --bot b="$R" --shard 0/2 --secret_file "$T/s"
expect_usage_error "--bogus" referee --bogus --config "$T/none.textproto"
expect_usage_error "--listen" referee --listen
expect_usage_error "--reconnect_grace_ms" referee --reconnect_grace_ms=soon
expect_usage_error "unexpected argument" referee extra
# A known flag with its value as the next argument parses (--log_file PATH).
"$BIN/arena" games --log_file "$T/games.log" > /dev/null 2>&1 || fail "arena games --log_file"

# 2 and 3. A tournament with a bot that crashes: its testcase fails, the
# other passes; exit 1 (a bot failed as a program); the reports are
# written all the same.
"$BIN/arena" tournament --game quasenbo --games 2 --sandbox none --progress=false \
  --bot "crashy=$BIN/bad_bot --mode=crash_after --n=0" --bot ok="$R" --max_restarts 1 \
  --records "$T/t" --junit "$T/t.xml" --summary_md "$T/t.md" > "$T/t.out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "tournament with a crashing bot exited $rc: $(cat "$T/t.out")"
$PY "$CHECK" junit "$T/t.xml" --tests 3 --failures 1 --failing crashy --passing ok \
  --message crash || fail "tournament junit: $(cat "$T/t.xml")"
$PY "$CHECK" md "$T/t.md" --contains crashy --contains "Faults by kind" || fail "tournament md: $(cat "$T/t.md")"
# --summary_md appends, as $GITHUB_STEP_SUMMARY wants.
"$BIN/arena" tournament --game quasenbo --games 2 --sandbox none --progress=false --seed 5 \
  --bot a="$R" --bot b="$R" --records "$T/t2" --junit "$T/t2.xml" --summary_md "$T/t.md" \
  > "$T/t2.out" 2>&1 || fail "clean tournament: $(cat "$T/t2.out")"
$PY "$CHECK" junit "$T/t2.xml" --tests 3 --failures 0 --passing a --passing b || fail "clean junit"
[ "$(grep -c '^### arena tournament' "$T/t.md")" -eq 2 ] || fail "summary not appended: $(cat "$T/t.md")"

# The gate: a candidate that wins (the Quäsenbö heuristics) but answers one
# decision in 4 illegally, at most 40 a second (random moves are played for
# it; it faults in a good share of its matches), gets no verdict on
# --max_fault_rate 0.02 whatever its strength: exit 4, and the verdict says why.
"$BIN/arena" gate --game quasenbo --seed 7 --sandbox none --fault_policy random --jobs 2 \
  --candidate "faulty=$BIN/faulty_bot --every=4" --baseline random="$R" \
  --max_fault_rate 0.02 --records "$T/g" --json "$T/g.json" --junit "$T/g.xml" \
  --summary_md "$T/g.md" > "$T/g.out" 2>&1
rc=$?
cat "$T/g.out"
[ $rc -eq 4 ] || fail "gate of a faulty candidate exited $rc, not 4"
grep -q "^no verdict: CANDIDATE 'faulty' had a fault in .* above --max_fault_rate 0.02" "$T/g.out" \
  || fail "the verdict does not say why"
! grep -q "accepted" "$T/g.out" || fail "a verdict without one"
grep -q "faulty (candidate): faults .*[0-9] illegal" "$T/g.out" || fail "no faults by kind for the candidate"
grep -q "random (baseline): faults none" "$T/g.out" || fail "no faults line for the baseline"
$PY - "$T/g.json" <<'EOF' || fail "gate json: $(cat "$T/g.json")"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["llr"] >= g["upper_bound"], g               # it wins ...
assert g["decision"] == "no_verdict" and g["no_verdict"] is True, g["decision"]
assert g["fault_rate_exceeded"] is True and g["passed"] is False, g
assert g["baseline_fault_rate_exceeded"] is False and g["baseline_fault_rate"] == 0, g
assert g["baseline_matches"] == g["candidate_matches"] > 0, g
assert g["no_verdict_reason"].startswith("CANDIDATE 'faulty' had a fault"), g
assert g["fault_rate"] > 0.02 and g["max_fault_rate"] == 0.02, g
assert not g["candidate_row"]["withdrawn"] and g["candidate_row"]["fault_kinds"]["cut_off"] == 0, g
assert g["candidate_fault_matches"] <= g["candidate_matches"], g
assert g["candidate_row"]["bot"] == "faulty" and g["candidate_row"]["fault_kinds"]["illegal"] > 0, g
assert g["baseline_row"]["bot"] == "random" and g["baseline_row"]["faults"] == 0, g
assert g["verdict"].startswith("no verdict: ") and "max_fault_rate" in g["verdict"], g["verdict"]
print("gate json ok: fault rate", g["fault_rate"], "decision", g["decision"])
EOF
$PY "$CHECK" junit "$T/g.xml" --tests 2 --failures 2 --failing fault_rate --failing sprt \
  --message "exceeds --max_fault_rate" --message "no verdict: CANDIDATE 'faulty'" \
  || fail "gate junit: $(cat "$T/g.xml")"
$PY "$CHECK" md "$T/g.md" --contains "NO VERDICT" --contains faulty || fail "gate md: $(cat "$T/g.md")"

# Without the limit the same candidate passes (H1, exit 0), and the reports say so.
"$BIN/arena" gate --game quasenbo --seed 7 --sandbox none --fault_policy random --jobs 2 \
  --candidate "faulty=$BIN/faulty_bot --every=4" --baseline random="$R" \
  --records "$T/g2" --junit "$T/g2.xml" --summary_md "$T/g2.md" > "$T/g2.out" 2>&1 \
  || fail "gate without a limit: $(cat "$T/g2.out")"
$PY "$CHECK" junit "$T/g2.xml" --tests 2 --failures 0 --passing sprt --passing fault_rate || fail "gate junit pass"
$PY "$CHECK" md "$T/g2.md" --contains PASS || fail "gate md pass: $(cat "$T/g2.md")"
echo PASS
