#!/usr/bin/env bash
# Trains a game's zstd dictionary for compact records (docs/records.md):
# plays the game's bundled bot against the random bot over the option points
# below, encodes every record as a compact record's content (the magic and
# the length-prefixed binary lines, uncompressed) and runs `zstd --train`.
#
#   referee/records/train_dictionary.sh BIN_DIR GAME DICT_ID OUT [MATCHES]
#
# DICT_ID: the id written into the dictionary, which each record's zstd
# frame names; unique across games and versions (32768 to 2^31-1; the
# bundled games use 0x4152GGVV: GG the game, VV the version). A game's
# dictionary is never changed once records use it: a better one is a new
# file with a new id, listed after the old one (arena_add_game's
# RECORD_DICTIONARIES). Needs zstd, protoc and /usr/bin/python3 with
# python3-protobuf.
set -euo pipefail
bin=$(cd "${1:?usage: $0 BIN_DIR GAME DICT_ID OUT [MATCHES]}" && pwd)
game=${2:?game}
id=${3:?dictionary id}
out=${4:?output file}
matches=${5:-400}
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case "$game" in
  quasenbo) points=("--seats 2" "--seats 3 --option courts=true --option pawns=true"
                    "--seats 2 --option excuse=true --option double_quasenbo=true") ;;
  pesten) points=("--seats 4" "--seats 2 --option jokers=0" "--seats 6 --option winning_points=1") ;;
  quodlibet) points=("--option kingdoms=1" "--option kingdoms=1 --option ruleset=encyclopedia") ;;
  quabble) points=("--seats 4" "--seats 2" "--seats 6") ;;
  *) points=("") ;;
esac
i=0
for p in "${points[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  "$bin/arena" tournament --game "$game" $p --games "$matches" --jobs 4 \
    --record_format jsonl --records "$work/r$i" \
    --bot "mine=$bin/${game}_bot" --bot "rnd=$bin/random_bot" > "$work/r$i.log" 2>&1 ||
    { cat "$work/r$i.log" >&2; exit 1; }
done
mkdir -p "$work/py" "$work/samples"
protoc -I"$top/proto" --python_out="$work/py" "$top"/proto/arena/v1/*.proto
/usr/bin/python3 - "$work" <<'PY'
import glob, os, sys
work = sys.argv[1]
sys.path.insert(0, os.path.join(work, "py"))
from google.protobuf import json_format
from arena.v1 import record_pb2

MAGIC = b"\x89AREC1\r\n"  # referee/records/record.cc kCompactMagic

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)

for k, path in enumerate(sorted(glob.glob(os.path.join(work, "r*", "*.jsonl")))):
    data = bytearray(MAGIC)
    for line in open(path):
        m = record_pb2.RecordLine()
        json_format.Parse(line, m)
        b = m.SerializeToString(deterministic=True)
        data += varint(len(b)) + b
    open(os.path.join(work, "samples", "%06d" % k), "wb").write(data)
PY
zstd --train -q -r "$work/samples" --maxdict=32768 --dictID="$id" -o "$out"
echo "$out: $(stat -c %s "$out") bytes, id $id, from $(ls "$work/samples" | wc -l) records"
