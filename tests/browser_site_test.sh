#!/bin/sh
# The HTML site in a real browser: a small tournament of each of the four
# games with --html, one of 64 bots, and an adaptive one, then
# tests/browser/site_test.js drives Debian's headless chromium over every
# site (console errors, stepping, seat views; the 64-bot page must fit
# 1280 px; the adaptive contest's undecided comparisons named).
# Screenshots are kept in ARTIFACTS (build/artifacts/browser).
# Also the files' modes: under umask 022 the site, standings and
# the folders are published (0644, 0755), the records stay 0600.
set -u
umask 022
BIN="$1"; SRC="$2"; ARTIFACTS="$3"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v "${CHROMIUM:-/usr/bin/chromium}" > /dev/null || fail "no chromium (ci/install_deps.sh installs Debian's)"
run() {  # name, then arena tournament arguments
  name="$1"; shift
  "$BIN/arena" tournament --records "$T/$name" --progress=false --html "$@" > "$T/$name.out" 2>&1
  rc=$?
  # Exit 1: the tournament completed, but a bot was withdrawn (expected where
  # a bot cannot start).
  [ "$rc" = 0 ] || { [ "$rc" = 1 ] && grep -q "WITHDRAWN" "$T/$name.out"; } \
    || fail "$name: exit $rc: $(tail -20 "$T/$name.out")"
  grep -q "HTML site: $T/$name/html/index.html" "$T/$name.out" || fail "$name: no site: $(tail "$T/$name.out")"
}
# A bot that cannot start is withdrawn: its matches are NO_SHOW forfeits,
# which the index and the replay pages must say; 3 deal groups give the
# ratings intervals.
run quasenbo --game quasenbo --games 6 --bot q="$BIN/quasenbo_bot" --bot r="$BIN/random_bot" \
  --bot gone=/nonexistent/bot
run pesten --game pesten --seats 3 --games 3 --option winning_points=1 \
  --bot p="$BIN/pesten_bot" --bot r="$BIN/random_bot" --bot s="$BIN/random_bot"
run quodlibet --game quodlibet --games 2 --option contract=minus --option kingdoms=2 \
  --bot q="$BIN/quodlibet_bot" --bot r="$BIN/random_bot"
run quabble --game quabble --games 2 --bot q="$BIN/quabble_bot" --bot r="$BIN/random_bot"
# An adaptive contest of four equal bots on a budget of 8 matches: its top
# cannot be separated, so the site must name the undecided comparisons.
run adaptive --game quasenbo --schedule adaptive --top_k 1 --games 8 --jobs 2 \
  --bot r1="$BIN/random_bot" --bot r2="$BIN/random_bot" --bot r3="$BIN/random_bot" \
  --bot r4="$BIN/random_bot"
# A wide field: 62 random bots and 2 that cannot start (withdrawn), in two
# balanced rounds (128 matches: every bot plays 4, each of the 64 ranked or
# withdrawn); what it checks is the layout of 64 rows and matrices, which
# needs every bot, not every pair. The site with 3 replay pages (the small
# sites above check the replays). Trusted bundled bots: no sandbox.
wide=""
for i in $(seq -w 1 62); do wide="$wide --bot r$i=$BIN/random_bot"; done
# shellcheck disable=SC2086
"$BIN/arena" tournament --records "$T/wide" --progress=false --game quasenbo \
  --schedule rounds --games 128 --jobs 2 --seed 11 --sandbox none $wide \
  --bot gone1=/nonexistent/bot --bot gone2=/nonexistent/bot > "$T/wide.out" 2>&1
rc=$?
{ [ "$rc" = 1 ] && grep -q "WITHDRAWN" "$T/wide.out"; } || fail "wide: exit $rc: $(tail -20 "$T/wide.out")"
"$BIN/arena" html "$T/wide" --replays 3 > "$T/wide-html.out" 2>&1 || fail "wide: arena html: $(tail "$T/wide-html.out")"
# arena html again over a finished folder, and arena standings into another.
"$BIN/arena" html "$T/quabble" > "$T/quabble-html.out" 2>&1 || fail "arena html: $(cat "$T/quabble-html.out")"
"$BIN/arena" standings "$T/quabble" --out "$T/merged" > "$T/merged.out" 2>&1 \
  || fail "arena standings: $(cat "$T/merged.out")"
# Modes under umask 022.
mode() {  # want, then paths
  want="$1"; shift
  for p in "$@"; do
    [ -e "$p" ] || fail "no $p"
    got=$(stat -c %a "$p")
    [ "$got" = "$want" ] || fail "$p: mode $got, expected $want (umask 022)"
  done
}
for g in quasenbo pesten quodlibet quabble; do
  d="$T/$g"
  mode 644 "$d/html/index.html" "$d"/html/replays/*.html "$d/standings.json" "$d/standings.csv" \
    "$d/head_to_head.csv" "$d/entrants.json" "$d/manifest.json"
  mode 755 "$d" "$d/html" "$d/html/replays"
  mode 600 "$d"/*.rec
  mode 700 "$d/logs"
done
mode 644 "$T/merged/standings.json" "$T/merged/standings.csv" "$T/merged/head_to_head.csv"
mode 755 "$T/merged"
echo "modes: site and standings 0644 (folders 0755), records 0600, logs 0700"
# Each record's replay as arena replay --json gives it (with the events as
# messages, which the pages leave out), for site_test.js's seat views check.
for g in quasenbo pesten quodlibet quabble wide adaptive; do
  mkdir -p "$T/$g/replay-json"
  for r in "$T/$g"/*.rec; do
    "$BIN/arena" replay "$r" --json > "$T/$g/replay-json/$(basename "$r" .rec).json" \
      || fail "arena replay $r --json"
  done
done
rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
node "$SRC/tests/browser/site_test.js" "$ARTIFACTS" "$T/quasenbo/html" "$T/pesten/html" \
  "$T/quodlibet/html" "$T/quabble/html" "wide=$T/wide/html" "adaptive=$T/adaptive/html" \
  || fail "site_test.js"
# The sites themselves are kept beside the screenshots, to look at.
for g in quasenbo pesten quodlibet quabble; do cp -r "$T/$g/html" "$ARTIFACTS/site-$g"; done
ls "$ARTIFACTS"
