#!/bin/sh
# arena tournament --shard I/N: four local shards of a small tournament with
# one secret file, merged by `arena standings --out`, against one unsharded
# run with the same secret. random_bot is deterministic per match id and
# decision id, so both runs must play the same matches move for move.
#
# Records are compared after removing only their wall-clock fields (header
# started_at, result header_digest, which hashes the header with started_at,
# and every think_us: the bots' timing differs between runs). The standings
# files (standings.json, standings.csv, head_to_head.csv) are compared byte
# for byte, ratings and bootstrap intervals included, but for the bots'
# think times in standings.json (think_ms_*), which are timing too, and
# their processes' counts, CPU seconds and peak RSS (each run's own).
# The same with independent deals (3 shards), standings and slices only.
# Also tries the hostile inputs: malformed and out-of-range --shard, a shard
# without a kept secret, a resume with another shard, a folder merged twice.
set -u
BIN="$1"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
PY=/usr/bin/python3
cd "$T" || fail "no temp dir"

common="--game quasenbo --seats 2 --games 18 --jobs 2 --progress=false --sandbox none
  --secret_file $T/secret --bot a=$BIN/random_bot --bot b=$BIN/random_bot --bot c=$BIN/random_bot"
# shellcheck disable=SC2086
"$BIN/arena" tournament $common --records "$T/full" > full.out 2>&1 || fail "unsharded: $(tail full.out)"
[ -s "$T/secret" ] || fail "no secret file written"
for i in 0 1 2 3; do
  # shellcheck disable=SC2086
  "$BIN/arena" tournament $common --shard "$i/4" --records "$T/shard-$i" > "s$i.out" 2>&1 \
    || fail "shard $i: $(tail "s$i.out")"
  grep -q "\"shard\": \"$i/4\"" "$T/shard-$i/manifest.json" || fail "shard $i: manifest does not name it"
done
"$BIN/arena" standings "$T"/shard-* --out "$T/merged" > merge.out 2>&1 || fail "merge: $(tail merge.out)"
for i in 0 1 2 3; do
  "$BIN/arena" verify "$T/shard-$i" > "v$i.out" 2>&1 || fail "verify shard $i: $(cat "v$i.out")"
done

"$PY" - "$T" "$BIN" <<'PY' || fail "shards differ from the unsharded run"
import glob, json, os, subprocess, sys
# Of each run's own processes (how many, their CPU and memory): a shard's
# are its own, so the merged ones add up four runs'.
RUN_ONLY = ("processes", "cpu_seconds", "peak_rss_kib")
t, bin_dir = sys.argv[1], sys.argv[2]

def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k != "think_us"}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x

def record(path):
    lines = []
    text = subprocess.run([os.path.join(bin_dir, "arena"), "cat", path], check=True,
                          capture_output=True, text=True).stdout
    for line in text.splitlines():
        d = json.loads(line)
        if "header" in d:
            d["header"].pop("started_at", None)
        if "result" in d:
            d["result"].pop("header_digest", None)
        lines.append(strip(d))
    return lines

def records(dirs):
    out = {}
    for d in dirs:
        for p in glob.glob(os.path.join(d, "*.rec")):
            name = os.path.basename(p)
            assert name not in out, f"{name} is in two shards"
            out[name] = record(p)
    return out

full = records([os.path.join(t, "full")])
shards = records(sorted(glob.glob(os.path.join(t, "shard-*"))))
assert len(full) == 18, f"unsharded run wrote {len(full)} records, not 18"
assert sorted(full) == sorted(shards), f"match ids differ: {sorted(full)} vs {sorted(shards)}"
for name in full:
    assert full[name] == shards[name], f"{name}: the shard's record differs"
# The slices: quasenbo with 2 seats and 3 bots has 3 rotation classes of 2
# seatings, so deal group g is matches 2g+1 and 2g+2; shard i holds the
# groups g with g % 4 == i (9 groups: 3, 2, 2, 2 of them).
for i in range(4):
    got = sorted(int(os.path.basename(p).split("-")[-1][:6])
                 for p in glob.glob(os.path.join(t, f"shard-{i}", "*.rec")))
    want = sorted(m for g in range(9) if g % 4 == i for m in (2 * g + 1, 2 * g + 2))
    assert got == want, f"shard {i} played {got}, not {want}"
    planned = json.load(open(os.path.join(t, f"shard-{i}", "manifest.json")))["matches_planned"]
    assert planned == len(want), f"shard {i} manifest plans {planned}"
for f in ("standings.json", "standings.csv", "head_to_head.csv"):
    a = open(os.path.join(t, "full", f), "rb").read()
    b = open(os.path.join(t, "merged", f), "rb").read()
    if f == "standings.json":  # timing and the bots' processes: left out
        def strip(x):
            st = json.loads(x)
            for r in st["rows"] + st.get("entrants", []):
                for k in [k for k in r if k.startswith("think_ms_") or k in RUN_ONLY]:
                    del r[k]
            return json.dumps(st)
        a, b = strip(a), strip(b)
    assert a == b, f"merged {f} differs from the unsharded run's"
st = json.load(open(os.path.join(t, "merged", "standings.json")))
assert st["matches_played"] == 18 and st["matches_planned"] == 18, st
assert st["bootstrap"] > 0, "no bootstrap intervals to compare"
print("18 records and the standings agree")
PY

# Independent deals (--duplicate=false): every match its own deal group, so
# 3 shards of 10 matches hold matches m with (m - 1) % 3 == I; merged, the
# same standings files as the unsharded run.
ind="--game quasenbo --seats 2 --games 10 --duplicate=false --progress=false --sandbox none
  --secret_file $T/secret --bot a=$BIN/random_bot --bot b=$BIN/random_bot"
# shellcheck disable=SC2086
"$BIN/arena" tournament $ind --records "$T/ifull" > ifull.out 2>&1 || fail "independent: $(tail ifull.out)"
for i in 0 1 2; do
  # shellcheck disable=SC2086
  "$BIN/arena" tournament $ind --shard "$i/3" --records "$T/ishard-$i" > "i$i.out" 2>&1 \
    || fail "independent shard $i: $(tail "i$i.out")"
done
"$BIN/arena" standings "$T"/ishard-* --out "$T/imerged" > imerge.out 2>&1 || fail "merge: $(tail imerge.out)"
for f in standings.csv head_to_head.csv; do
  cmp -s "$T/ifull/$f" "$T/imerged/$f" || fail "independent deals: merged $f differs"
done
# standings.json but for the think times (timing) and the bots' processes.
/usr/bin/python3 - "$T/ifull/standings.json" "$T/imerged/standings.json" <<'PY' \
  || fail "independent deals: merged standings.json differs"
import json, sys
def strip(path):
    st = json.load(open(path))
    for r in st["rows"] + st.get("entrants", []):
        for k in [k for k in r if k.startswith("think_ms_") or
                  k in ("processes", "cpu_seconds", "peak_rss_kib")]:
            del r[k]
    return st
sys.exit(0 if strip(sys.argv[1]) == strip(sys.argv[2]) else 1)
PY
[ "$(ls "$T/ishard-1" | grep -c '000002\.rec$\|000005\.rec$\|000008\.rec$')" = 3 ] \
  || fail "independent shard 1 holds $(ls "$T/ishard-1")"
[ "$(ls "$T/ishard-1" | grep -c 'rec$')" = 3 ] || fail "independent shard 1 holds $(ls "$T/ishard-1")"

# Hostile input: each refused with exit 2 and a message naming the problem.
expect2() {  # pattern, then arena arguments
  pat="$1"; shift
  "$BIN/arena" "$@" > bad.out 2>&1
  rc=$?
  [ "$rc" = 2 ] || fail "arena $*: exit $rc, not 2: $(cat bad.out)"
  grep -q -- "$pat" bad.out || fail "arena $*: no '$pat' in: $(cat bad.out)"
}
# shellcheck disable=SC2086
{
expect2 "needs N >= 1 and 0 <= I < N" tournament $common --shard 4/4 --records "$T/x"
expect2 "needs N >= 1 and 0 <= I < N" tournament $common --shard 0/0 --records "$T/x"
expect2 "use I/N" tournament $common --shard 1/x --records "$T/x"
expect2 "use I/N" tournament $common --shard -1/4 --records "$T/x"
expect2 "use I/N" tournament $common --shard 1 --records "$T/x"
expect2 "use I/N" tournament $common --shard 1/2/3 --records "$T/x"
expect2 "needs --secret_file" tournament --game quasenbo --games 2 --shard 0/2 \
  --bot a="$BIN/random_bot" --bot b="$BIN/random_bot" --records "$T/x"
expect2 "holds shard 1/4" tournament --resume "$T/shard-1" --shard 2/4 --progress=false
expect2 "a flag of arena tournament, not of match" match --shard 0/2 --bot a="$BIN/random_bot" --bot b="$BIN/random_bot"
expect2 "count it twice" standings "$T/shard-0" "$T/shard-1" "$T/full"
expect2 "given twice" standings "$T/shard-0" "$T/shard-0/"
}
[ -e "$T/x" ] && fail "a refused run left a records folder"
# A shard resumes as itself: nothing left to play, same records.
"$BIN/arena" tournament --resume "$T/shard-2" --shard 2/4 --progress=false --sandbox none \
  > resume.out 2>&1 || fail "resume shard 2: $(tail resume.out)"
grep -q "4 of 4 matches recorded, 0 to play" resume.out || fail "resume shard 2: $(tail resume.out)"
echo "PASS"
