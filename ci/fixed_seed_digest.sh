#!/usr/bin/env bash
# Prints a digest of the records and standings of a fixed-seed tournament
# per game (each game's bundled bot against the random bot), for checking
# that a change which should not change behaviour (a move, a split, a
# rename) leaves every record and standings file byte-identical:
#
#   ci/fixed_seed_digest.sh build/bin > before.txt   # on the old tree
#   ci/fixed_seed_digest.sh build/bin > after.txt    # on the new tree
#   diff before.txt after.txt
#
# What a record holds that no move can keep equal is left out of its
# digest: the wall-clock start (header.started_at), the digest of the
# header that holds it (result.header_digest) and each bot's think time
# (think_us). Everything else is digested byte for byte, the standings
# files whole. Needs /usr/bin/python3 (stdlib only).
set -euo pipefail
bin=$(cd "${1:?usage: $0 BIN_DIR}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for game in quasenbo pesten quodlibet quabble; do
  out="$work/$game"
  "$bin/arena" tournament --game "$game" --seed 20261125 --games 8 --jobs 2 \
    --records "$out" --bot "mine=$bin/${game}_bot" --bot "rnd=$bin/random_bot" \
    > "$work/$game.log" 2>&1 || { cat "$work/$game.log" >&2; exit 1; }
  /usr/bin/python3 - "$out" "$game" "$bin" <<'PY'
import hashlib, json, os, re, subprocess, sys
out, game, bin_dir = sys.argv[1], sys.argv[2], sys.argv[3]
volatile = re.compile(r'"(started_at|header_digest)":"[^"]*",?|"think_us":"\d+",?')
for name in sorted(os.listdir(out)):
    path = os.path.join(out, name)
    if name.endswith((".rec", ".jsonl", ".jsonl.zst")):
        # As JSON lines whatever the format, so that digests compare across formats.
        text = subprocess.run([os.path.join(bin_dir, "arena"), "cat", path], check=True,
                              capture_output=True, text=True).stdout
        data = volatile.sub("", text).encode()
        name = re.sub(r"\.(rec|jsonl|jsonl\.zst)$", "", name)
    elif name in ("standings.json", "standings.csv", "head_to_head.csv"):
        data = open(path, "rb").read()
    else:
        continue
    print(game, name, hashlib.sha256(data).hexdigest())
PY
done
