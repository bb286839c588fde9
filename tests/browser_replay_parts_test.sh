#!/bin/sh
# Long matches' static replay pages in a real browser, opened from file://:
#  - Quodlibet (about 1,500 positions: 3 or more chunks of 500), whose
#    steps are in chunk files beside the page;
#  - the longest of four 4-seat Pesten matches of random bots (about 1,000
#    to 3,000 positions), whose page carries the decisions and re-simulates
#    them (arena/views/html/resim.js, pesten.js): no chunk file;
# each checked by tests/browser/replay_parts_test.js against `arena replay
# --json` of the same record.
set -u
BIN="$1"; SRC="$2"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v "${CHROMIUM:-/usr/bin/chromium}" > /dev/null || fail "no chromium (ci/install_deps.sh installs Debian's)"
for GAME in quodlibet pesten; do
  GAMES=4; [ "$GAME" = quodlibet ] && GAMES=1
  "$BIN/arena" tournament --game "$GAME" --seats 4 --games "$GAMES" --seed 3 --sandbox none \
    --records "$T/$GAME" --progress=false --bot a="$BIN/random_bot" --bot b="$BIN/random_bot" \
    --bot c="$BIN/random_bot" --bot d="$BIN/random_bot" > "$T/t.out" 2>&1 \
    || fail "$GAME tournament: $(tail "$T/t.out")"
  REC=$(ls -S "$T/$GAME"/*.rec | head -1)
  mkdir "$T/one-$GAME"
  cp "$REC" "$T/one-$GAME/"
  "$BIN/arena" html "$T/one-$GAME" > "$T/html.out" 2>&1 || fail "arena html: $(cat "$T/html.out")"
  "$BIN/arena" replay "$REC" --json > "$T/replay.json" || fail "arena replay --json"
  PAGE=$(ls "$T/one-$GAME"/html/replays/*.html)
  if [ "$GAME" = pesten ]; then
    grep -q 'id="replay-inputs"' "$PAGE" || fail "the Pesten page carries no decisions"
    ls -d "$T/one-$GAME"/html/replays/*.steps > /dev/null 2>&1 && fail "chunk files beside the Pesten page"
  else
    ls "$T/one-$GAME"/html/replays/*.steps/ | head -1 > /dev/null 2>&1 || fail "no chunk of steps beside $PAGE"
  fi
  echo "== $GAME"
  NODE_PATH="$SRC/tests/browser/node_modules" node "$SRC/tests/browser/replay_parts_test.js" "$PAGE" \
    "$T/replay.json" || fail "replay_parts_test.js ($GAME)"
done
echo PASS
