#!/bin/sh
# A long match's static replay page in a real browser: the longest of four
# 4-seat Pesten matches of random bots (about 1,000 to 3,000 positions, so
# its steps are in 3 or more chunks of 500), `arena html` of a folder
# holding it, and tests/browser/replay_parts_test.js against
# `arena replay --json` of the same record.
set -u
BIN="$1"; SRC="$2"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v "${CHROMIUM:-/usr/bin/chromium}" > /dev/null || fail "no chromium (ci/install_deps.sh installs Debian's)"
"$BIN/arena" tournament --game pesten --seats 4 --games 4 --seed 3 --sandbox none \
  --records "$T/r" --progress=false --bot a="$BIN/random_bot" --bot b="$BIN/random_bot" \
  --bot c="$BIN/random_bot" --bot d="$BIN/random_bot" > "$T/t.out" 2>&1 \
  || fail "tournament: $(tail "$T/t.out")"
REC=$(ls -S "$T"/r/*.rec | head -1)
mkdir "$T/one"
cp "$REC" "$T/one/"
"$BIN/arena" html "$T/one" > "$T/html.out" 2>&1 || fail "arena html: $(cat "$T/html.out")"
"$BIN/arena" replay "$REC" --json > "$T/replay.json" || fail "arena replay --json"
PAGE=$(ls "$T"/one/html/replays/*.html)
ls "$T"/one/html/replays/*.steps/ | head -1 > /dev/null 2>&1 || fail "no chunk of steps beside $PAGE"
NODE_PATH="$SRC/tests/browser/node_modules" node "$SRC/tests/browser/replay_parts_test.js" "$PAGE" \
  "$T/replay.json" || fail "replay_parts_test.js"
echo PASS
