#!/bin/sh
# Repro bundles with real processes: a tournament with a bot that hangs and
# one that crashes writes a bundle for each faulty seat of each match (mode
# 0600, named after the right matches, no seed in them); arena replay-bot
# re-feeds a bundle to a bot that now answers (exit 0, its answers by the
# game's labels), to the bot that hangs (the timeout reproduces, 1), to one
# that crashes (1, with its exit status), and refuses malformed bundles and
# misuse (2); arena replay --requests --seat S prints what the seat was
# sent, ready for a stdio bot.
set -u
BIN="$1"
SRC="$2"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$BIN/arena" tournament --game quasenbo --games 6 --jobs 1 --records "$T/r" --sandbox none \
  --decision_ms 400 --progress=false --max_restarts 10 \
  --bot hang="$BIN/crash_hang_flood_bot --mode=hang_after --n=2" \
  --bot crash="$BIN/crash_hang_flood_bot --mode=crash_after --n=2" \
  --bot rnd="$BIN/random_bot" > "$T/t.out" 2>&1
grep -q "repro bundles" "$T/t.out" || fail "no line about bundles: $(tail -5 "$T/t.out")"
# Every (match, seat) with a fault other than NO_SHOW in the records has its
# bundle, and no other bundle exists; none holds the match's seed or salt.
python3 - "$T/r" "$BIN" <<'PY' || fail "bundles do not match the records"
import glob, json, os, stat, subprocess, sys
d, bin_dir = sys.argv[1], sys.argv[2]
want, seeds = {}, {}
for rec in glob.glob(d + "/*.rec"):
    text = subprocess.run([os.path.join(bin_dir, "arena"), "cat", rec], check=True,
                          capture_output=True, text=True).stdout
    lines = [json.loads(l) for l in text.splitlines()]
    h = lines[0]["header"]
    seeds[h["match_id"]] = (h["seed"], lines[-1]["result"]["reveal"]["salt"])
    faults = [(a.get("seat", 0), a["fault"]) for l in lines if "decision" in l
              for a in l["decision"]["actions"] if a.get("fault")]
    faults += [(l["forfeit"].get("seat", 0), l["forfeit"]["fault"]) for l in lines if "forfeit" in l]
    for seat, kind in faults:
        if kind != "FAULT_KIND_NO_SHOW":
            want[(h["match_id"], seat)] = (h["seat_bots"][seat], kind)
got = {}
for path in glob.glob(d + "/repro/*/*.json"):
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600, path
    b = json.load(open(path))
    bot = os.path.basename(os.path.dirname(path))
    assert os.path.basename(path) == "%s-seat%d.json" % (b["match_id"], b["seat"]), path
    assert bot == b["bot"], path
    got[(b["match_id"], b["seat"])] = (b["bot"], b["fault"]["kind"])
    text = open(path).read()
    seed, salt = seeds[b["match_id"]]
    assert seed not in text and salt not in text and "match_end" not in text, path
assert stat.S_IMODE(os.stat(d + "/repro").st_mode) == 0o700
kinds = {k for _, k in got.values()}
assert "FAULT_KIND_TIMEOUT" in kinds and "FAULT_KIND_CRASHED" in kinds, kinds
assert got == want, (sorted(got.items()), sorted(want.items()))
print("bundles:", len(got), sorted(kinds))
PY
HANG=$(ls "$T"/r/repro/hang/*.json | head -1)
CRASH=$(ls "$T"/r/repro/crash/*.json | head -1)
# The bot that hung answers 2 requests, then none: the timeout reproduces.
"$BIN/arena" replay-bot "$HANG" -- "$BIN/crash_hang_flood_bot" --mode=hang_after --n=2 > "$T/o1" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "hanging bot: exit $rc: $(cat "$T/o1")"
grep -q "NO ANSWER within 400 ms" "$T/o1" || fail "no timeout shown: $(cat "$T/o1")"
grep -q "same: #" "$T/o1" || fail "the answers before the fault are not the same: $(cat "$T/o1")"
# A bot that answers: every request legal in time.
"$BIN/arena" replay-bot "$HANG" -- "$BIN/random_bot" > "$T/o2" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "random bot: exit $rc: $(cat "$T/o2")"
grep -q "the recorded fault no longer happens" "$T/o2" || fail "$(cat "$T/o2")"
# Its answers in the game's words (the label records give), not fields.
grep -q "now answers #[0-9]* (play [A-Z]" "$T/o2" || fail "no label: $(cat "$T/o2")"
grep -q '{"quasenbo"\|"card"' "$T/o2" && fail "an action as fields: $(cat "$T/o2")"
# A bot that crashes at its 2nd request: exit status and output shown.
"$BIN/arena" replay-bot "$CRASH" --decision_ms 5000 -- "$BIN/crash_hang_flood_bot" --mode=crash_after --n=1 \
  > "$T/o3" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "crashing bot: exit $rc: $(cat "$T/o3")"
grep -q "CRASHED at request 2: the bot exited with code 3" "$T/o3" || fail "$(cat "$T/o3")"
# A bot that cannot start at all.
"$BIN/arena" replay-bot "$CRASH" -- "$T/no-such-bot" > "$T/o4" 2>&1; rc=$?
[ $rc -eq 1 ] || fail "missing bot: exit $rc"
grep -q "cannot run" "$T/o4" || fail "$(cat "$T/o4")"
expect_usage_error() {
  "$BIN/arena" "$@" > "$T/out" 2> "$T/err"; rc=$?
  [ $rc -eq 2 ] || fail "arena $* exited $rc, not 2: $(cat "$T/out" "$T/err")"
  [ -s "$T/err" ] || fail "arena $*: no message"
  echo "ok: arena $* -> $(head -c 300 "$T/err")"
}
printf '{}' > "$T/empty.json"
printf '{"format_version": "one"}' > "$T/types.json"
python3 -c "
import json,sys
b=json.load(open(sys.argv[1])); b['exchanges'][0]['request']['match_id']='other'
json.dump(b, open(sys.argv[2],'w'))" "$HANG" "$T/ids.json"
head -c 70000000 /dev/zero | tr '\0' ' ' > "$T/huge.json"
expect_usage_error replay-bot "$T/missing.json" -- "$BIN/random_bot"
expect_usage_error replay-bot "$T/empty.json" -- "$BIN/random_bot"
expect_usage_error replay-bot "$T/types.json" -- "$BIN/random_bot"
expect_usage_error replay-bot "$T/ids.json" -- "$BIN/random_bot"
expect_usage_error replay-bot "$T/huge.json" -- "$BIN/random_bot"
expect_usage_error replay-bot "$HANG" "$BIN/random_bot"
expect_usage_error replay-bot "$HANG" --
expect_usage_error replay-bot "$HANG" --seat 1 -- "$BIN/random_bot"
grep -q "exchanges\[0\].request.match_id" "$T/err" || true
# arena replay --requests: what the seat was sent, for a stdio bot.
M=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['match_id'])" "$HANG")
S=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['seat'])" "$HANG")
"$BIN/arena" replay "$T/r/$M.rec" --requests --seat "$S" > "$T/req" || fail "replay --requests"
python3 - "$T/req" "$HANG" <<'PY' || fail "replay --requests is not what the bundle holds"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
b = json.load(open(sys.argv[2]))
assert lines[0]["kind"] == "match_start" and lines[-1]["kind"] == "match_end", lines[0]["kind"]
reqs = [l for l in lines if l["kind"] == "decision_request"]
assert len(reqs) == len(b["exchanges"]), (len(reqs), len(b["exchanges"]))
for r, x in zip(reqs, b["exchanges"]):
    del r["kind"]
    assert r == x["request"], (r, x["request"])
print("requests:", len(reqs))
PY
grep -v match_end "$T/req" | python3 "$SRC/bots/stdio/example_bot.py" > "$T/answers" 2>/dev/null
[ "$(wc -l < "$T/answers")" -eq "$(grep -c decision_request "$T/req")" ] ||
  fail "the stdio bot did not answer each request: $(cat "$T/answers")"
expect_usage_error replay "$T/r/$M.rec" --requests
expect_usage_error replay "$T/r/$M.rec" --requests --seat 9
expect_usage_error replay "$T/r/$M.rec" --requests --seat 0 --step 3
echo PASS
