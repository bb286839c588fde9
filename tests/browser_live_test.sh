#!/bin/sh
# The live site in a real browser: `arena tournament --serve` (random bots
# that think 150 ms a decision, so that matches last seconds), and
# tests/browser/live_test.js opens its index before the first match, follows
# the standings to the end without a reload, and watches a match mid-play
# (no card of any hand in its DOM) to its replay. Screenshots in ARTIFACTS.
set -u
BIN="$1"; SRC="$2"; ARTIFACTS="$3"
T=$(mktemp -d)
PID=""
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v "${CHROMIUM:-/usr/bin/chromium}" > /dev/null || fail "no chromium (ci/install_deps.sh installs Debian's)"
GAMES=6
RANDOM_BOT_THINK_MS=150 "$BIN/arena" tournament --game quasenbo --games $GAMES --jobs 1 --seed 7 \
  --sandbox none --progress=false --records "$T/live" --serve 127.0.0.1:0 \
  --bot a="$BIN/random_bot" --bot b="$BIN/random_bot" --bot c="$BIN/random_bot" --seats 2 \
  > "$T/out.txt" 2>&1 &
PID=$!
URL=""
for _ in $(seq 1 100); do
  URL=$(sed -n 's|^live site: \(http://[^ ]*/\) .*|\1|p' "$T/out.txt")
  [ -n "$URL" ] && break
  sleep 0.1
done
[ -n "$URL" ] || fail "no live site address: $(cat "$T/out.txt")"
mkdir -p "$ARTIFACTS"
node "$SRC/tests/browser/live_test.js" "$ARTIFACTS" "$URL" "$T/live" "$BIN/arena" $GAMES \
  || fail "live_test.js (tournament output: $(tail -5 "$T/out.txt"))"
wait "$PID" || fail "the tournament exited $?: $(tail -20 "$T/out.txt")"
PID=""
echo "live site in the browser: passed"
