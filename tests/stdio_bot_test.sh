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

# A game outside the bundled ones (when this build has the toy game,
# tests/toy_game): its view, packed in an Any, reaches the program as JSON
# with its type and its fields.
if "$BIN/arena" games 2>&1 | grep -q "^toy "; then
  # Where the sandboxed bot (another user) can read it: $T is private.
  chmod 711 "$T" && mkdir -m 755 "$T/bin" || fail "cannot share $T/bin"
  cat > "$T/bin/view_bot.py" <<'EOF'
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["kind"] == "decision_request":
        print("view:", json.dumps(m["view"]), file=sys.stderr, flush=True)
        print(json.dumps({"action_index": 0}), flush=True)
EOF
  "$BIN/arena" tournament --game toy --games 2 --records "$T/toy" --progress=false \
    --bot py="$BIN/arena_stdio /usr/bin/python3 $T/bin/view_bot.py" \
    --bot rnd="$BIN/random_bot" > "$T/toy.out" 2>&1 || fail "toy: $(tail -20 "$T/toy.out")"
  grep -q '"@type": "type.googleapis.com/[A-Za-z0-9.]*ToyView"' "$T/toy/logs/py.log" \
    || fail "no toy view in JSON: $(tail -5 "$T/toy/logs/py.log")"
  grep -q '"hand": \[' "$T/toy/logs/py.log" || fail "the toy view has no hand: $(tail -5 "$T/toy/logs/py.log")"
  "$BIN/arena" verify "$T/toy" || fail "toy records"
fi

# Nonsense answers: named in the bot's log with the line; the seat forfeits.
"$BIN/arena" match --game quasenbo --records "$T/bad" --decision_ms 1000 --progress=false \
  --bot bad="$BIN/arena_stdio sh -c 'while read l; do echo \"{\\\"move\\\": 1}\"; done'" \
  --bot rnd="$BIN/random_bot" > "$T/bad.out" 2>&1
grep -q "is not a decision" "$T/bad/logs/bad.log" || fail "nonsense not reported: $(cat "$T/bad/logs/bad.log")"
grep -q '"move": 1' "$T/bad/logs/bad.log" || fail "the bad line is not shown"
"$BIN/arena" verify "$T/bad" || fail "bad records"

# A note in the answer line (docs/bots.md#notes), bytes that are not UTF-8
# among it (JSON of Latin-1 "\xe9"): recorded, repaired as the SDK repairs it.
mkdir -p -m 755 "$T/notes_bin" && chmod 711 "$T" || fail "cannot share $T/notes_bin"
printf '%s\n' 'import json, sys' 'for line in sys.stdin:' \
  '    m = json.loads(line)' \
  '    if m["kind"] == "decision_request":' \
  '        sys.stdout.buffer.write(b"{\"action_index\": 0, \"note\": \"stdio caf\xe9\"}\n")' \
  '        sys.stdout.flush()' > "$T/notes_bin/note_bot.py"
"$BIN/arena" match --game quasenbo --records "$T/notes" --progress=false --record_format jsonl \
  --bot n="$BIN/arena_stdio /usr/bin/python3 $T/notes_bin/note_bot.py" --bot rnd="$BIN/random_bot" \
  > "$T/notes.out" 2>&1
grep -q '"note":"stdio caf�"' "$T"/notes/*.jsonl ||
  fail "no note of the stdio bot: $(grep -o '"note":"[^"]*"' "$T"/notes/*.jsonl | head -3) $(tail -5 "$T/notes/logs/n.log")"
"$BIN/arena" verify "$T/notes" || fail "notes records"

# A program that exits at once: arena_stdio says so, with its exit status.
"$BIN/arena" match --game quasenbo --records "$T/gone" --progress=false --max_restarts 0 --connect_timeout_ms 10000 \
  --bot gone="$BIN/arena_stdio sh -c 'exit 7'" --bot rnd="$BIN/random_bot" > "$T/gone.out" 2>&1
grep -q "exit status 7" "$T/gone/logs/gone.log" || fail "exit not reported: $(cat "$T/gone/logs/gone.log")"

# PROGRAM's end is noticed at once (not when a match times out): arena_stdio
# says so in one line (PROGRAM, its exit status or signal, the bot stopping),
# ends its stream and exits non-zero with PROGRAM's code (128+N for signal
# N). Against a standalone referee that waits for the bots (a real process).
cat > "$T/ref.textproto" <<EOF
game: "quasenbo"
matches: 1
records_dir: "$T/ref"
connect_timeout_ms: 120000
bots { name: "a" token: "token-a" }
bots { name: "b" token: "token-b" }
EOF
"$BIN/referee" --listen 127.0.0.1:0 --reconnect_grace_ms 0 --config "$T/ref.textproto" \
  > "$T/ref.out" 2> "$T/ref.err" &
REF=$!
trap 'kill $REF 2>/dev/null; wait $REF 2>/dev/null; rm -rf "$T"' EXIT
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*referee listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$T/ref.err")
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "the referee did not start: $(cat "$T/ref.err")"
stdio() {  # expected exit code, name, then the program and its arguments
  want="$1"; name="$2"; shift 2
  # timeout turns a hang into a failure (exit 124).
  ARENA_ADDRESS="127.0.0.1:$port" ARENA_TOKEN=token-a timeout 30 "$BIN/arena_stdio" "$@" \
    > "$T/$name.out" 2> "$T/$name.err"
  rc=$?
  [ "$rc" = "$want" ] || fail "$name: arena_stdio exit $rc, not $want: $(cat "$T/$name.err")"
  grep -q "the bot is stopping" "$T/$name.err" || fail "$name: no stopping line: $(cat "$T/$name.err")"
}
# A wrong path: python3 fails at once with "can't open file" (exit 2).
stdio 2 nopath /usr/bin/python3 /nonexistent/bot.py
grep -q "can't open file" "$T/nopath.err" || fail "python3's own words are not in the log"
grep -q "/usr/bin/python3 ended (exit status 2)" "$T/nopath.err" || fail "nopath: $(cat "$T/nopath.err")"
# The same through a wrapper that leaves a process holding PROGRAM's output
# open: its end is seen by waitpid, not by the end of that output. (The
# leftover is stopped by its pid at the end.)
stdio 2 leftover sh -c 'sleep 40 2>/dev/null & echo $! > "$0"; exec /usr/bin/python3 /nonexistent/bot.py' \
  "$T/leftover.pid"
kill "$(cat "$T/leftover.pid")" 2>/dev/null
grep -q "sh ended (exit status 2)" "$T/leftover.err" || fail "leftover: $(cat "$T/leftover.err")"
# Killed by a signal: 128 + 9.
stdio 137 killed sh -c 'kill -9 $$'
grep -q "killed by signal 9" "$T/killed.err" || fail "killed: $(cat "$T/killed.err")"
# Exit 0 before the referee ended the stream is still the bot stopping: 1.
stdio 1 zero true
grep -q "true ended (exit status 0)" "$T/zero.err" || fail "zero: $(cat "$T/zero.err")"

# A program that exits (3) after its 3rd answer, in a match: the bot's
# process ends at once (arena sees a crash), not after a decision timeout
# (20 s here); the whole command is bounded.
cat > "$T/third.sh" <<'EOF'
n=0
while read -r l; do
  case "$l" in
    *decision_request*)
      echo '{"action_index": 0}'
      n=$((n + 1))
      [ "$n" -ge 3 ] && exit 3 ;;
  esac
done
EOF
chmod a+rx "$T" && chmod a+r "$T/third.sh"  # read by the sandboxed bot's own uid
timeout 120 "$BIN/arena" match --game quasenbo --records "$T/third" --decision_ms 20000 \
  --progress=false --auto_moves=false --max_restarts 1 --connect_timeout_ms 10000 \
  --bot third="$BIN/arena_stdio sh $T/third.sh" --bot rnd="$BIN/random_bot" > "$T/third.out" 2>&1
[ $? = 124 ] && fail "third: arena match did not end: $(tail "$T/third.out")"
grep -q "sh ended (exit status 3) before the referee ended the stream; the bot is stopping" \
  "$T/third/logs/third.log" || fail "third: the exit is not reported: $(cat "$T/third/logs/third.log")"
/usr/bin/python3 -c "import json,sys; r={x['bot']: x for x in json.load(open(sys.argv[1]))['rows']}; t=r['third']; assert t['forfeits'] == 1 and t['fault_kinds'].get('timeout', 0) == 0, t" \
  "$T/third/standings.json" || fail "third: not a forfeit without a timeout: $(cat "$T/third/standings.json")"
"$BIN/arena" verify "$T/third" > /dev/null || fail "third: records"

# Misuse.
"$BIN/arena_stdio" > /dev/null 2>&1; [ $? -eq 2 ] || fail "no program: not exit 2"
env -u ARENA_ADDRESS "$BIN/arena_stdio" true > /dev/null 2>&1; [ $? -eq 2 ] || fail "no address: not exit 2"
echo PASS
