#!/bin/sh
# The live site in a real browser: `arena tournament --serve` (random bots
# that think 150 ms a decision, so that matches last seconds), and
# tests/browser/live_test.js opens its index before the first match, follows
# the standings to the end without a reload, and watches a match mid-play
# (no card of any hand in its DOM) to its replay. Screenshots in ARTIFACTS.
set -u
BIN="$1"; SRC="$2"; ARTIFACTS="$3"
T=$(mktemp -d)
PID=""; NODE=""
trap 'for p in $PID $NODE; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v "${CHROMIUM:-/usr/bin/chromium}" > /dev/null || fail "no chromium (ci/install_deps.sh installs Debian's)"
GAMES=6
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$ARTIFACTS"
# The browser first; the tournament once it is up (the page is loaded as soon
# as the server answers, before the bots have connected).
node "$SRC/tests/browser/live_test.js" "$ARTIFACTS" "http://127.0.0.1:$PORT/" "$T/live" \
  "$BIN/arena" $GAMES "$T/ready" > "$T/node.txt" 2>&1 &
NODE=$!
for _ in $(seq 1 600); do [ -f "$T/ready" ] && break; sleep 0.1; done
[ -f "$T/ready" ] || fail "the browser did not start: $(cat "$T/node.txt")"
RANDOM_BOT_THINK_MS=150 "$BIN/arena" tournament --game quasenbo --games $GAMES --jobs 1 --seed 7 \
  --sandbox none --progress=false --records "$T/live" --serve "127.0.0.1:$PORT" \
  --bot a="$BIN/random_bot" --bot b="$BIN/random_bot" --bot c="$BIN/random_bot" --seats 2 \
  > "$T/out.txt" 2>&1 &
PID=$!
wait "$NODE"; rc=$?
NODE=""
cat "$T/node.txt"
[ "$rc" = 0 ] || fail "live_test.js (tournament output: $(tail -5 "$T/out.txt"))"
wait "$PID" || fail "the tournament exited $?: $(tail -20 "$T/out.txt")"
PID=""
echo "live site in the browser: passed"
