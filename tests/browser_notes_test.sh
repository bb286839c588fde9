#!/bin/sh
# Bots' notes on the static site's replay page in a real browser
# (tests/browser/notes_test.js): tests/note_bot's hostile notes against the
# random bot, in a short Pesten match; arena html with --show_notes shows
# each as text (no markup made, no script run), without it none.
set -u
BIN="$1"; SRC="$2"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v "${CHROMIUM:-/usr/bin/chromium}" > /dev/null || fail "no chromium (ci/install_deps.sh installs Debian's)"
"$BIN/arena" match --game pesten --seed 50 --sandbox none --records "$T/r" --progress=false \
  --bot noter="$BIN/note_bot" --bot rnd="$BIN/random_bot" > "$T/m.out" 2>&1 \
  || fail "match: $(tail "$T/m.out")"
for show in yes no; do
  flag=""; [ "$show" = yes ] && flag="--show_notes"
  "$BIN/arena" html "$T/r" --out "$T/html-$show" $flag > "$T/html.out" 2>&1 \
    || fail "arena html $flag: $(cat "$T/html.out")"
  PAGE=$(ls "$T/html-$show"/replays/*.html)
  NODE_PATH="$SRC/tests/browser/node_modules" node "$SRC/tests/browser/notes_test.js" "$PAGE" \
    "$show" 40 || fail "notes_test.js $show"
done
echo PASS
