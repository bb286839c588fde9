#!/bin/sh
# Queues a sharded tournament and its merge step:
#   ARENA_RECORDS=/shared/records ARENA_SECRET=/shared/tournament.secret \
#     deploy/slurm/submit.sh
# The secret file is made here if missing (64 hex digits; keep it to
# reproduce or resume the tournament) so that no shard makes its own.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SECRET="${ARENA_SECRET:-$PWD/tournament.secret}"
export ARENA_SECRET="$SECRET"
if [ ! -f "$SECRET" ]; then
  (umask 077; od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$SECRET"; echo >> "$SECRET")
fi
array=$(sbatch --parsable "$HERE/tournament.sbatch")
array="${array%%;*}"  # --parsable prints "id" or "id;cluster"
merge=$(sbatch --parsable --dependency=afterok:"$array" "$HERE/merge.sbatch")
merge="${merge%%;*}"
echo "shards: job $array (array 0-3), merge: job $merge (after all shards succeed)"
