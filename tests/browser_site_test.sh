#!/bin/sh
# The HTML site in a real browser: a small tournament of each of the four
# games with --html, then tests/browser/site_test.js drives Debian's headless
# chromium over every site (console errors, stepping, seat views).
# Screenshots are kept in ARTIFACTS (build/artifacts/browser).
set -u
BIN="$1"; SRC="$2"; ARTIFACTS="$3"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v "${CHROMIUM:-/usr/bin/chromium}" > /dev/null || fail "no chromium (ci/install_deps.sh installs Debian's)"
run() {  # name, then arena tournament arguments
  name="$1"; shift
  "$BIN/arena" tournament --records "$T/$name" --progress=false --html "$@" > "$T/$name.out" 2>&1 \
    || fail "$name: $(tail -20 "$T/$name.out")"
  grep -q "HTML site: $T/$name/html/index.html" "$T/$name.out" || fail "$name: no site: $(tail "$T/$name.out")"
}
run quasenbo --game quasenbo --games 2 --bot q="$BIN/quasenbo_bot" --bot r="$BIN/random_bot"
run pesten --game pesten --seats 3 --games 3 --option winning_points=1 \
  --bot p="$BIN/pesten_bot" --bot r="$BIN/random_bot" --bot s="$BIN/random_bot"
run quodlibet --game quodlibet --games 2 --option contract=minus --option kingdoms=2 \
  --bot q="$BIN/quodlibet_bot" --bot r="$BIN/random_bot"
run quabble --game quabble --games 2 --bot q="$BIN/quabble_bot" --bot r="$BIN/random_bot"
# Ratings are drawn when standings.json has them (another branch adds them):
# a rating with an interval, as fields the page must find by their names.
python3 - "$T/quabble/standings.json" <<'PY' || fail "adding ratings"
import json, sys
path = sys.argv[1]
st = json.load(open(path))
for i, row in enumerate(st["rows"]):
    row["rating"] = 1500 - 40 * i
    row["rating_low"] = row["rating"] - 60
    row["rating_high"] = row["rating"] + 55
json.dump(st, open(path, "w"), indent=1)
PY
"$BIN/arena" html "$T/quabble" > "$T/quabble-html.out" 2>&1 || fail "arena html: $(cat "$T/quabble-html.out")"
rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
node "$SRC/tests/browser/site_test.js" "$ARTIFACTS" "$T/quasenbo/html" "$T/pesten/html" \
  "$T/quodlibet/html" "$T/quabble/html" || fail "site_test.js"
# The sites themselves are kept beside the screenshots, to look at.
for g in quasenbo pesten quodlibet quabble; do cp -r "$T/$g/html" "$ARTIFACTS/site-$g"; done
ls "$ARTIFACTS"
