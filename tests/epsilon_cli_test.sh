#!/bin/sh
# --epsilon of the bundled game bots, with the real binaries:
#  1. every game's bot refuses an epsilon outside [0, 1] before it connects:
#     exit 2, and stderr names --epsilon;
#  2. --epsilon 0 plays exactly as no flag: a fixed-seed tournament's
#     records are the same, byte for byte but for the wall clock;
#  3. a graded field orders as its epsilons do: in a fixed-seed Pesten
#     tournament pesten_bot at 0 beats itself at 0.5, which beats itself at
#     1, and at 1 it is no better than the random bot.
# Usage: epsilon_cli_test.sh BIN_DIR
set -u
BIN="$1"
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. Out of range: refused at once, no referee needed.
for game in quasenbo pesten quodlibet quabble; do
  for e in 1.5 -0.1 nan; do
    "$BIN/${game}_bot" --epsilon "$e" --address 127.0.0.1:1 --token t \
      > "$T/out" 2> "$T/err" < /dev/null
    rc=$?
    [ $rc -eq 2 ] || fail "${game}_bot --epsilon $e exited $rc, not 2: $(cat "$T/err" "$T/out")"
    grep -q -e "--epsilon must be in \[0, 1\]" "$T/err" \
      || fail "${game}_bot --epsilon $e: the message does not say why: $(cat "$T/err")"
  done
done
echo "ok: out-of-range epsilons refused: $(cat "$T/err")"

# 2. --epsilon 0 is the bot as it was: same records as without the flag.
digest() {
  $PY - "$BIN" "$1" <<'PYEOF'
import hashlib, os, re, subprocess, sys
bin_dir, out = sys.argv[1], sys.argv[2]
volatile = re.compile(r'"(started_at|header_digest)":"[^"]*",?|"think_us":"\d+",?')
h = hashlib.sha256()
names = sorted(n for n in os.listdir(out) if n.endswith(".rec"))
assert names, "no records in " + out
for name in names:
    text = subprocess.run([os.path.join(bin_dir, "arena"), "cat", os.path.join(out, name)],
                          check=True, capture_output=True, text=True).stdout
    h.update(name.encode() + volatile.sub("", text).encode())
print(len(names), h.hexdigest())
PYEOF
}
for game in quasenbo pesten; do
  for flag in "" "--epsilon 0" "--epsilon 0.3"; do
    dir="$T/$game-$(echo "$flag" | tr -cd 'a-z0-9.')"
    "$BIN/arena" tournament --game "$game" --seed 20261126 --games 12 --jobs 2 \
      --sandbox none --progress=false --records "$dir" \
      --bot "mine=$BIN/${game}_bot $flag" --bot "rnd=$BIN/random_bot" > "$dir.log" 2>&1 \
      || fail "$game tournament with '$flag': $(cat "$dir.log")"
  done
  plain=$(digest "$T/$game-") || fail "digest"
  zero=$(digest "$T/$game-epsilon0") || fail "digest"
  some=$(digest "$T/$game-epsilon0.3") || fail "digest"
  [ "$plain" = "$zero" ] || fail "$game: --epsilon 0 changed the records ($plain vs $zero)"
  # The check can fail: a nonzero epsilon does change them.
  [ "$plain" != "$some" ] || fail "$game: --epsilon 0.3 changed nothing"
  echo "ok: $game records with --epsilon 0 as without it: $zero"
done

# 3. A graded field, fixed seed: e0 > e5 > e10 ~ random.
"$BIN/arena" tournament --game pesten --seed 5 --games 120 --jobs 2 --sandbox none \
  --progress=false --records "$T/field" \
  --bot "e0=$BIN/pesten_bot --epsilon 0" --bot "e5=$BIN/pesten_bot --epsilon 0.5" \
  --bot "e10=$BIN/pesten_bot --epsilon 1" --bot "rnd=$BIN/random_bot" \
  > "$T/field.log" 2>&1 || fail "field: $(cat "$T/field.log")"
$PY - "$T/field/standings.json" <<'PYEOF' || fail "field: $(tail -20 "$T/field.log")"
import json, sys
st = json.load(open(sys.argv[1]))
rows = {r["bot"]: r for r in st["rows"]}
h2h = {(h["bot"], h["opponent"]): h for h in st["head_to_head"]}
def share(a, b):
    h = h2h[(a, b)]
    return (h["ahead"] + 0.5 * h["tied"]) / h["matches"]
for bot in rows.values():
    assert bot["faults"] == 0 and bot["forfeits"] == 0, bot
order = [r["bot"] for r in sorted(st["rows"], key=lambda r: r["rank"])]
assert order[:2] == ["e0", "e5"] and set(order[2:]) == {"e10", "rnd"}, order
assert share("e0", "e5") > 0.75, share("e0", "e5")
assert share("e5", "e10") > 0.6, share("e5", "e10")
assert share("e0", "e10") > 0.9, share("e0", "e10")
# Epsilon 1 plays at random: even with the random bot.
assert 0.35 < share("e10", "rnd") < 0.65, share("e10", "rnd")
print("field ok:", ", ".join("%s %+.0f" % (b, rows[b]["elo"]) for b in order),
      "| e0-e5 %.2f, e5-e10 %.2f, e10-rnd %.2f" % (share("e0", "e5"), share("e5", "e10"),
                                                  share("e10", "rnd")))
PYEOF
echo PASS
