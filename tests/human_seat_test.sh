#!/bin/sh
# arena play, driven through its stdin as a person would type: a whole match
# of every game (the toy game too when this build has it) against the random
# bot, each record verified, each move offered and played shown by the
# record's label of it (the game's own words, no fields); garbage answers
# refused and asked again; the end of the input and `q` leave the match as a
# forfeit; an answer after the deadline is a timeout; no card of another
# seat's hidden hand is ever shown (checked against the record, over several
# seeds); usage errors exit 2.
# Usage: human_seat_test.sh BIN_DIR SOURCE_DIR [CASE...]  (cases: games,
# garbage, leave, timeout, noleak, usage; default all)
set -u
BIN="$1"
SRC="$2"
shift 2
CASES="${*:-games garbage leave timeout noleak usage}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CHECK="/usr/bin/python3 $SRC/tests/human_seat_check.py"
fail() { echo "FAIL: $*"; exit 1; }

# play NAME INPUT_CMD ARGS...: runs arena play with INPUT_CMD's output as
# stdin; the output in $T/NAME.out, the replay JSON in $T/NAME.json.
play() {
  name="$1"; input="$2"; shift 2
  sh -c "$input" 2>/dev/null | timeout 300 "$BIN/arena" play --records "$T/$name" \
    --bot rnd="$BIN/random_bot" "$@" > "$T/$name.out" 2> "$T/$name.err"
  rc=$?
  [ $rc -eq 0 ] || fail "$name: arena play exited $rc: $(tail -5 "$T/$name.err")"
  rec=$(ls "$T/$name"/*.rec) || fail "$name: no record"
  "$BIN/arena" verify "$T/$name" > "$T/$name.verify" 2>&1 ||
    fail "$name: the record does not verify: $(cat "$T/$name.verify")"
  "$BIN/arena" replay "$rec" --json > "$T/$name.json" || fail "$name: replay --json"
  grep -q "record: $rec" "$T/$name.out" || fail "$name: the record's path is not shown"
}

for c in $CASES; do
  case $c in
  games)
    games="quasenbo pesten quodlibet quabble"
    "$BIN/arena" games 2>/dev/null | grep -q '^toy' && games="$games toy"
    for g in $games; do
      play "game-$g" "yes 1" --game "$g" --seed 3
      $CHECK played "$T/game-$g.out" "$T/game-$g.json" 0 || fail "$g: $(head -40 "$T/game-$g.out")"
      grep -q "placement" "$T/game-$g.out" || fail "$g: no placements in the result"
      echo "ok: $g played to the end and verified"
    done
    ;;
  garbage)
    play garbage "printf 'abc\n0\n99\n\n -3\n2x\n'; yes 1" --game pesten --seed 5 --seat 1
    for bad in abc 0 99 '' -3 2x; do
      grep -q "'$bad' is not a move: type a number from 1 to [0-9]* (q leaves the match); time left [0-9]*:[0-9][0-9]" \
        "$T/garbage.out" || fail "no one-line error for '$bad'"
    done
    $CHECK played "$T/garbage.out" "$T/garbage.json" 1 || exit 1
    echo "ok: garbage answers asked again, the match went on"
    ;;
  leave)
    play eof "printf '1\n'" --game quasenbo --seed 2
    grep -q "end of input: you leave the match" "$T/eof.out" || fail "eof: not told"
    grep -q "10:00 per decision" "$T/eof.out" || fail "the default decision time is not 10 minutes"
    $CHECK forfeit "$T/eof.json" 0 DISCONNECTED || exit 1
    grep -q "forfeit at step [0-9]*: seat 0 (you)" "$T/eof.out" || fail "eof: forfeit not shown"
    play quit "printf '1\nq\n'" --game quodlibet --seed 2 --seat 3
    grep -q "you leave the match; the referee records it" "$T/quit.out" || fail "q: not told"
    grep -q "end of input\|'q' is not a move" "$T/quit.out" && fail "q was not taken as leaving"
    $CHECK forfeit "$T/quit.json" 3 DISCONNECTED || exit 1
    ;;
  timeout)
    play late "sleep 3; echo 1" --game quasenbo --seed 4 --decision_ms 500
    grep -q "500ms per decision" "$T/late.out" || fail "late: --decision_ms not taken"
    grep -q "time is up" "$T/late.out" || fail "late: not told the time is up"
    $CHECK forfeit "$T/late.json" 0 TIMEOUT || exit 1
    python3 -c "import json,sys; h=json.load(open(sys.argv[1]))['header']; \
assert int(h['time_control']['decision_ms'])==500, h['time_control']" "$T/late.json" ||
      fail "the record's header does not hold the decision time"
    ;;
  noleak)
    # Games whose moves name only cards in play; a Pesten draw is "draw a
    # card", with no card of its action's default fields (id 0, the 2 of
    # Clubs, which a move list of fields would show).
    # Two deals each, one at each of seats 1 and 0.
    for g in quasenbo quodlibet pesten; do
      for seed in 1 2; do
        seat=$((seed % 2))
        play "leak-$g-$seed" "yes 1" --game "$g" --seed "$seed" --seat "$seat"
        $CHECK noleak "$T/leak-$g-$seed.out" "$T/leak-$g-$seed.json" "$seat" || exit 1
      done
    done
    ;;
  usage)
    for args in "--game quasenbo" "--game quasenbo --bot r=x --seat 5" \
                "--game quasenbo --bot you=x" "--game quabble --seats 2 --bot a=x --bot b=y" \
                "--game quasenbo --bot a=x --games 3" "--game nosuchgame --bot a=x"; do
      # shellcheck disable=SC2086
      "$BIN/arena" play $args --records "$T/usage" < /dev/null > "$T/usage.out" 2> "$T/usage.err"; rc=$?
      [ $rc -eq 2 ] || fail "arena play $args exited $rc, not 2"
      [ -s "$T/usage.err" ] || fail "arena play $args: no message"
      echo "ok: arena play $args -> $(tail -1 "$T/usage.err")"
    done
    ;;
  *) fail "unknown case $c" ;;
  esac
done
echo PASS
