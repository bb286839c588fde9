#!/bin/sh
# arena replay from the command line: text and --json for a real record,
# and every misuse of its flags refused with exit status 2 and a message.
set -u
BIN="$1"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$BIN/arena" match --game pesten --bot a="$BIN/random_bot" --bot b="$BIN/random_bot" \
  --records "$T/r" --progress=false > "$T/match.out" 2>&1 || fail "match: $(cat "$T/match.out")"
REC=$(ls "$T"/r/*.rec)
"$BIN/arena" replay "$REC" > "$T/text" || fail "replay"
grep -q "result: " "$T/text" || fail "no result line"
grep -q " of " "$T/text" || fail "no card names"
"$BIN/arena" replay "$REC" --seat 1 --json > "$T/json" || fail "replay --json"
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['seat']==1 and r['cards'][0]['name']=='2 of Clubs', r['cards'][0]" "$T/json" || fail "json"
expect_usage_error() {
  "$BIN/arena" "$@" > "$T/out" 2> "$T/err"; rc=$?
  [ $rc -eq 2 ] || fail "arena $* exited $rc, not 2"
  [ -s "$T/err" ] || fail "arena $*: no message"
  echo "ok: arena $* -> $(cat "$T/err")"
}
expect_usage_error replay "$REC" --seat 2
expect_usage_error replay "$REC" --seat -4
expect_usage_error replay "$REC" --step -7
expect_usage_error replay "$REC" --games 3
expect_usage_error replay "$REC" --bot x=y
expect_usage_error replay "$REC" "$REC"
expect_usage_error replay
expect_usage_error verify "$REC" --seat 1
expect_usage_error match --game pesten --bot a=x --bot b=y --json=-
expect_usage_error replay "$T/nonexistent.jsonl"
# An empty record: the error names the file.
for f in empty.jsonl empty.rec; do
  : > "$T/$f"
  expect_usage_error replay "$T/$f"
  grep -q "$T/$f" "$T/err" || fail "replay of an empty record does not name it: $(cat "$T/err")"
done
echo PASS
