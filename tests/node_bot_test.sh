#!/bin/sh
# The grpc-js example bot (bots/node) plays matches against a C++ bot on a
# standalone referee; before the bots connect, the referee answers a gRPC
# health check (SERVING) and server reflection lists arena.v1.Referee
# (bots/node/probe.js). The records must verify, and hold the node bot's
# notes (--notes).
set -u
BIN="$1"; SRC="$2"
T=$(mktemp -d)
REF=""
cleanup() { [ -n "$REF" ] && kill "$REF" 2> /dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; echo "--- referee log"; cat "$T/ref.log"; exit 1; }
cat > "$T/config.textproto" <<CONF
game: "pesten"
seats: 2
matches: 4
jobs: 2
records_dir: "$T/records"
time_control { decision_ms: 5000 }
connect_timeout_ms: 120000
bots { name: "node" token: "node-token-1" }
bots { name: "cpp" token: "cpp-token-2" }
CONF
"$BIN/referee" --listen 127.0.0.1:0 --config "$T/config.textproto" > "$T/ref.log" 2>&1 &
REF=$!
PORT=""
for i in $(seq 1 100); do
  PORT=$(grep -o "listening on 127.0.0.1:[0-9]*" "$T/ref.log" | grep -o "[0-9]*$")
  [ -n "$PORT" ] && break
  sleep 0.2
done
[ -n "$PORT" ] || fail "the referee did not say where it listens"
node "$SRC/bots/node/probe.js" "127.0.0.1:$PORT" || fail "probe"
ARENA_ADDRESS="127.0.0.1:$PORT" ARENA_TOKEN=node-token-1 node "$SRC/bots/node/bot.js" --notes 2> "$T/node.log" &
NODE=$!
ARENA_ADDRESS="127.0.0.1:$PORT" ARENA_TOKEN=cpp-token-2 "$BIN/random_bot" > "$T/cpp.log" 2>&1 &
wait "$REF"; rc=$?; REF=""
[ $rc -eq 0 ] || fail "referee exited $rc"
wait "$NODE" || fail "node bot exited $?: $(cat "$T/node.log")"
cat "$T/ref.log" | tail -4
/usr/bin/python3 -c "import json,sys; r={x['bot']: x for x in json.load(open(sys.argv[1]))['rows']}; assert r['node']['matches'] == 4, r" \
  "$T/records/standings.json" || fail "the node bot did not play 4 matches"
"$BIN/arena" verify "$T/records" || fail "records do not verify"
"$BIN/arena" cat "$T/records"/*.rec | grep -q '"note":"node: random [0-9]* of [0-9]*; time [0-9]* ms + bank 0 ms"' ||
  fail "no note of the node bot in the records"
echo PASS
