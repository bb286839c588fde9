#!/bin/sh
# arena_stdio: a Python bot that imports no gRPC (bots/stdio/example_bot.py)
# plays a tournament; the records verify. A program that answers with
# nonsense, and one that exits at once, are reported clearly and cost their
# seat the match (forfeit), nothing more.
set -u
BIN="$1"; SRC="$2"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
grep -Eq "^\s*(import|from)\s+grpc" "$SRC/bots/stdio/example_bot.py" && fail "the example imports grpc"
"$BIN/arena" tournament --game quabble --games 4 --records "$T/t" --progress=false \
  --bot py="$BIN/arena_stdio python3 $SRC/bots/stdio/example_bot.py" \
  --bot rnd="$BIN/random_bot" > "$T/out" 2>&1 || fail "tournament: $(tail -20 "$T/out")"
cat "$T/out" | tail -4
/usr/bin/python3 -c "import json,sys; r={x['bot']: x for x in json.load(open(sys.argv[1]))['rows']}; assert r['py']['matches'] == 4 and r['py']['forfeits'] == 0, r" \
  "$T/t/standings.json" || fail "py did not play its 4 matches: $(tail -20 "$T/out")"
# (What the example logs at the end is not checked: arena stops bot processes
# as soon as the last match ends, which may come before the example's last
# lines.)
grep -q "arena_stdio: connected as py" "$T/t/logs/py.log" || fail "no connection: $(tail "$T/t/logs/py.log")"
"$BIN/arena" verify "$T/t" || fail "records"

# Nonsense answers: named in the bot's log with the line; the seat forfeits.
"$BIN/arena" match --game quasenbo --records "$T/bad" --decision_ms 1000 --progress=false \
  --bot bad="$BIN/arena_stdio sh -c 'while read l; do echo \"{\\\"move\\\": 1}\"; done'" \
  --bot rnd="$BIN/random_bot" > "$T/bad.out" 2>&1
grep -q "is not a decision" "$T/bad/logs/bad.log" || fail "nonsense not reported: $(cat "$T/bad/logs/bad.log")"
grep -q '"move": 1' "$T/bad/logs/bad.log" || fail "the bad line is not shown"
"$BIN/arena" verify "$T/bad" || fail "bad records"

# A program that exits at once: arena_stdio says so, with its exit status.
"$BIN/arena" match --game quasenbo --records "$T/gone" --progress=false --max_restarts 0 --connect_timeout_ms 10000 \
  --bot gone="$BIN/arena_stdio sh -c 'exit 7'" --bot rnd="$BIN/random_bot" > "$T/gone.out" 2>&1
grep -q "exit status 7" "$T/gone/logs/gone.log" || fail "exit not reported: $(cat "$T/gone/logs/gone.log")"

# Misuse.
"$BIN/arena_stdio" > /dev/null 2>&1; [ $? -eq 2 ] || fail "no program: not exit 2"
env -u ARENA_ADDRESS "$BIN/arena_stdio" true > /dev/null 2>&1; [ $? -eq 2 ] || fail "no address: not exit 2"
echo PASS
