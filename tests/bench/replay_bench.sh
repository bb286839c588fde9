#!/bin/sh
# What a replay costs (docs/benchmarks.md, "Replays and the static site"):
#  1. `arena replay --json` of a 4-seat Pesten record of about 21,000
#     decisions (tests/bench/long_record: random players, the first seed
#     whose match lasts 20,000 to 22,000 decisions): wall time, CPU and
#     peak RSS (/usr/bin/time), RUNS runs; the JSON's size; and the text
#     replay the same way.
#  2. `arena html` of a 1,000-match 4-seat Pesten contest of weak bots
#     (two random_bot, pesten_bot --epsilon 0.5 and 0.9; public seed 45,
#     no sandbox, 2 jobs) with the long record of 1. added to its folder:
#     wall time, CPU, peak RSS, and the site's size (apparent bytes: the
#     pages, the decisions they carry, chunks of steps), RUNS runs.
#
#   tests/bench/replay_bench.sh BIN_DIR OUT_DIR [MATCHES [RUNS]]
#   e.g. tests/bench/replay_bench.sh build/bin /tmp/replay-bench     # ~4 min
#
# Not a test: run by hand from the top folder after a build, on a quiet
# machine. OUT_DIR is made anew (the contest's records are kept there).
set -eu
BIN=$1 OUT=$2
MATCHES=${3:-1000} RUNS=${4:-3}
rm -rf "$OUT"
mkdir -p "$OUT/long"
measure() {  # label, then the command; its stdout goes to $OUT/out
  label=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$OUT/time" "$@" > "$OUT/out"
  read -r wall user sys rss < "$OUT/time"
  echo "$label: ${wall} s wall, $(awk -v a="$user" -v b="$sys" 'BEGIN {print a + b}') s CPU, peak RSS $((rss / 1024)) MiB"
}

echo "== 1. arena replay of a long record"
"$BIN/long_record" --out "$OUT/long" --min_decisions 20000 --max_decisions 22000
REC=$(ls "$OUT"/long/*.rec)
echo "record: $(stat -c %s "$REC") bytes"
"$BIN/arena" verify "$REC"
i=0
while [ "$i" -lt "$RUNS" ]; do
  measure "replay --json" "$BIN/arena" replay "$REC" --json
  i=$((i + 1))
done
echo "JSON: $(stat -c %s "$OUT/out") bytes"
i=0
while [ "$i" -lt "$RUNS" ]; do
  measure "replay (text)" "$BIN/arena" replay "$REC"
  i=$((i + 1))
done

echo "== 2. arena html of a $MATCHES-match 4-seat Pesten contest of weak bots"
"$BIN/arena" tournament --game pesten --seats 4 --games "$MATCHES" --jobs 2 \
  --records "$OUT/contest" --sandbox none --progress=false --seed 45 \
  --bot r1="$BIN/random_bot" --bot r2="$BIN/random_bot" \
  --bot e5="$BIN/pesten_bot --epsilon 0.5" --bot e9="$BIN/pesten_bot --epsilon 0.9" \
  > "$OUT/contest.log" 2>&1
cp "$REC" "$OUT/contest/"
/usr/bin/python3 - "$OUT/contest" "$BIN/arena" <<'EOF'
import glob, json, subprocess, sys
folder, arena = sys.argv[1], sys.argv[2]
decisions = []
for f in glob.glob(folder + "/*.rec"):
    last = subprocess.run([arena, "cat", f], capture_output=True, text=True).stdout.splitlines()[-1]
    decisions.append(int(json.loads(last)["result"]["decisions"]))
decisions.sort()
n = len(decisions)
print(f"records: {n}, decisions: {sum(decisions)} in all, median {decisions[n // 2]}, "
      f"99th percentile {decisions[int(n * 0.99)]}, longest {decisions[-1]}; "
      f"records' size {sum(len(open(f, 'rb').read()) for f in glob.glob(folder + '/*.rec'))} bytes")
EOF
i=0
while [ "$i" -lt "$RUNS" ]; do
  rm -rf "$OUT/html"
  measure "html" "$BIN/arena" html "$OUT/contest" --out "$OUT/html"
  i=$((i + 1))
done
tail -1 "$OUT/out"
chunks=$(find "$OUT/html/replays" -path '*.steps/*' -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
pages=$(find "$OUT/html/replays" -maxdepth 1 -name '*.html' -printf '%s\n' | awk '{s += $1} END {print s}')
inputs=$(cat "$OUT"/html/replays/*.html | grep -o 'id="replay-inputs"[^<]*' | awk '{s += length($0)} END {print s + 0}')
echo "site: $(du -s --apparent-size -B1 "$OUT/html" | cut -f1) bytes: replay pages $pages" \
  "(the decisions they carry: $inputs), chunks of steps beside them $chunks"
