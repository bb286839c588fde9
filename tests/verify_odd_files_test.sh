#!/bin/sh
# arena verify reads regular files only: a FIFO named like a record (opening
# it would block for ever), a symbolic link loop and a link to a real record
# in a records folder are skipped with a warning naming each and why, the
# real record is verified, and the exit code is the one of the folder
# without them (0). Named on its own, a FIFO is a failure (1), never opened.
# A FIFO in place of standings.json or manifest.json is a failure too.
# Every arena command is bounded (timeout 60: a hang fails, exit 124).
set -u
BIN="$1"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

timeout 60 "$BIN/arena" match --game quasenbo --seed 1 --sandbox none --progress=false \
  --records "$T/r" --bot a="$BIN/random_bot" --bot b="$BIN/random_bot" > "$T/match.out" 2>&1 \
  || fail "match: $(tail "$T/match.out")"
record=$(cd "$T/r" && ls ./*.rec | head -1)
[ -f "$T/r/$record" ] || fail "no record in $T/r: $(ls -la "$T/r")"

timeout 60 "$BIN/arena" verify "$T/r" > "$T/clean.out" 2> "$T/clean.err"
clean=$?
[ "$clean" = 0 ] || fail "the clean folder: exit $clean: $(cat "$T/clean.out" "$T/clean.err")"

mkfifo "$T/r/x.jsonl"
ln -s y.jsonl "$T/r/y.jsonl"           # a loop
ln -s "$record" "$T/r/z.jsonl"         # a link to the real record
mkfifo "$T/r/.inprogress/w.jsonl.part"
timeout 60 "$BIN/arena" verify "$T/r" > "$T/odd.out" 2> "$T/odd.err"
rc=$?
[ "$rc" != 124 ] || fail "arena verify hung on the odd files"
[ "$rc" = "$clean" ] || fail "exit $rc, not $clean as without the odd files: $(cat "$T/odd.out" "$T/odd.err")"
grep -q "1 of 1 records verified; the standings agree with them" "$T/odd.out" \
  || fail "the real record: $(cat "$T/odd.out")"
grep -q "x.jsonl: a FIFO, not a regular file; skipped" "$T/odd.err" || fail "x.jsonl not named: $(cat "$T/odd.err")"
grep -q "y.jsonl: a symbolic link, not a regular file.*; skipped" "$T/odd.err" || fail "y.jsonl not named: $(cat "$T/odd.err")"
grep -q "z.jsonl: a symbolic link, not a regular file.*; skipped" "$T/odd.err" || fail "z.jsonl not named: $(cat "$T/odd.err")"
grep -q "w.jsonl.part: a FIFO, not a regular file; skipped" "$T/odd.err" || fail "w.jsonl.part not named: $(cat "$T/odd.err")"

# arena standings and arena html list records the same way: they finish,
# count the real record once (not again through the link), and name what
# they skipped.
timeout 60 "$BIN/arena" standings "$T/r" > "$T/st.out" 2> "$T/st.err"
rc=$?
[ "$rc" != 124 ] || fail "arena standings hung on the odd files"
grep -q "1 of 1 matches" "$T/st.out" || fail "standings counted: $(cat "$T/st.out" "$T/st.err")"
grep -q "x.jsonl: a FIFO, not a regular file; skipped" "$T/st.err" || fail "standings: x.jsonl not named: $(cat "$T/st.err")"
grep -q "y.jsonl: a symbolic link" "$T/st.err" || fail "standings: y.jsonl not named: $(cat "$T/st.err")"
timeout 60 "$BIN/arena" html "$T/r" > "$T/html.out" 2>&1
rc=$?
[ "$rc" != 124 ] || fail "arena html hung on the odd files"
[ "$rc" = 0 ] || fail "arena html: exit $rc: $(cat "$T/html.out")"
grep -q "x.jsonl: a FIFO, not a regular file; skipped" "$T/html.out" || fail "html: x.jsonl not named: $(cat "$T/html.out")"
[ "$(ls "$T/r/html/replays" | grep -c "\.html$")" = 1 ] || fail "html: replay pages: $(ls "$T/r/html/replays")"
rm -rf "$T/r/html"

# Named on its own: a FIFO is a failure (not opened), a loop too; a link to a
# record is followed (the organiser named it).
timeout 60 "$BIN/arena" verify "$T/r/x.jsonl" > "$T/fifo.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "verify FIFO: exit $rc, not 1: $(cat "$T/fifo.out")"
grep -q "x.jsonl: a FIFO, not a regular file" "$T/fifo.out" || fail "verify FIFO: $(cat "$T/fifo.out")"
timeout 60 "$BIN/arena" verify "$T/r/y.jsonl" > "$T/loop.out" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "verify loop: exit $rc, not 1: $(cat "$T/loop.out")"
grep -q "y.jsonl: Too many levels of symbolic links" "$T/loop.out" || fail "verify loop: $(cat "$T/loop.out")"
timeout 60 "$BIN/arena" verify "$T/r/z.jsonl" > "$T/link.out" 2>&1 || fail "verify link: $(cat "$T/link.out")"

# A FIFO in place of the standings or the manifest: a failure, no hang.
for f in standings.json manifest.json; do
  mkdir "$T/$f.d"
  cp "$T/r/$record" "$T/$f.d/"
  mkfifo "$T/$f.d/$f"
  timeout 60 "$BIN/arena" verify "$T/$f.d" > "$T/$f.out" 2>&1
  rc=$?
  [ "$rc" = 1 ] || fail "a FIFO $f: exit $rc, not 1: $(cat "$T/$f.out")"
  grep -q "$f: a FIFO, not a regular file" "$T/$f.out" || fail "a FIFO $f: $(cat "$T/$f.out")"
done
# A .inprogress that is a link to another folder is not followed: the .part
# file there is not this folder's.
mkdir "$T/p" "$T/elsewhere"
cp "$T/r/$record" "$T/p/"
touch "$T/elsewhere/q.jsonl.part"
ln -s ../elsewhere "$T/p/.inprogress"
timeout 60 "$BIN/arena" verify "$T/p" > "$T/p.out" 2>&1 || fail "a linked .inprogress: $(cat "$T/p.out")"
grep -q "1 of 1 records verified" "$T/p.out" || fail "a linked .inprogress: $(cat "$T/p.out")"
echo PASS
