#!/bin/sh
# deploy/slurm on a real one-node Slurm: installs Debian's slurm and munge if
# missing (as root), starts munged, slurmctld and slurmd of its own (own
# config, key, socket, ports, spool, all in a temp folder; SLURM_CONF points
# the client commands at it), runs deploy/slurm/submit.sh (an array job of 4
# shards and a merge job queued with --dependency=afterok), waits for the
# merge, checks the result and stops the daemons it started by their pids.
# Skips (exit 77) only if slurm cannot be installed or started.
set -u
BIN="$1"; SRC="$2"
T=$(mktemp -d)
PIDS=""
SERVE=""; VIEWER=""
cleanup() {
  for p in $SERVE $VIEWER; do kill "$p" 2> /dev/null; done
  if [ -n "${SLURM_CONF:-}" ] && command -v scancel > /dev/null; then scancel --user=root > /dev/null 2>&1; fi
  for f in "$T/slurmd.pid" "$T/slurmctld.pid" "$T/munged.pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2> /dev/null
  done
  sleep 1
  for f in "$T/slurmd.pid" "$T/slurmctld.pid" "$T/munged.pid"; do
    [ -s "$f" ] && kill -9 "$(cat "$f")" 2> /dev/null
  done
  rm -rf "$T"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for l in "$T"/*.log "$T"/run/*.out; do [ -f "$l" ] && { echo "== $l"; tail -20 "$l"; }; done; exit 1; }
skip() { echo "SKIP: $* (this test needs slurm; nothing was checked)"; exit 77; }

if ! command -v slurmctld > /dev/null || ! command -v slurmd > /dev/null ||
   ! command -v sbatch > /dev/null || ! command -v munged > /dev/null; then
  [ "$(id -u)" = 0 ] || skip "slurm is not installed and this is not root"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurmctld slurmd slurm-client munge \
    > "$T/apt.log" 2>&1 || skip "cannot install slurm: $(tail -3 "$T/apt.log")"
fi
[ "$(id -u)" = 0 ] || skip "the daemons are started as root here"

H=$(hostname -s)
# Ports of our own (another cluster on this machine keeps its own).
BASE=$(( 20000 + $$ % 20000 ))
mkdir -p "$T/spool" "$T/state" "$T/run"
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2> /dev/null
chmod 0400 "$T/munge.key"
/usr/sbin/munged --force --key-file="$T/munge.key" --socket="$T/munge.sock" \
  --pid-file="$T/munged.pid" --log-file="$T/munged.log" --seed-file="$T/munge.seed" \
  > "$T/munged.out" 2>&1 || skip "munged does not start: $(cat "$T/munged.out")"
cat > "$T/slurm.conf" <<EOF
ClusterName=arenatest
SlurmctldHost=$H(127.0.0.1)
SlurmctldPort=$BASE
SlurmdPort=$((BASE + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmdSpoolDir=$T/spool
StateSaveLocation=$T/state
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
ReturnToService=2
MpiDefault=none
NodeName=$H NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=$H Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"
/usr/sbin/slurmctld -f "$SLURM_CONF" > "$T/ctld.out" 2>&1 || skip "slurmctld does not start: $(cat "$T/ctld.out")"
/usr/sbin/slurmd -f "$SLURM_CONF" > "$T/d.out" 2>&1 || skip "slurmd does not start: $(cat "$T/d.out")"
i=0
until sinfo -h -o %T 2> /dev/null | grep -q idle; do
  i=$((i + 1)); [ $i -gt 60 ] && skip "the node did not come up: $(sinfo 2>&1)"; sleep 1
done

# The real deploy/slurm scripts, 16 quasenbo matches in 4 shards.
cd "$T/run" || fail "no run folder"
export ARENA_RECORDS="$T/records" ARENA_SECRET="$T/tournament.secret" ARENA_BIN="$BIN"
export ARENA_GAMES=16 ARENA_EXTRA="--sandbox none"
# arena serve on the shared folder the shards write into: the combined
# standings, live (a viewer follows its event stream from before the jobs).
mkdir -p "$T/records"
"$BIN/arena" serve "$T/records" --serve 127.0.0.1:0 > serve.out 2>&1 &
SERVE=$!
ADDR=""
for _ in $(seq 1 100); do
  ADDR=$(sed -n 's|^arena serve: http://\([^/]*\)/ .*|\1|p' serve.out); [ -n "$ADDR" ] && break; sleep 0.1
done
[ -n "$ADDR" ] || fail "arena serve: $(cat serve.out)"
/usr/bin/python3 - "$ADDR" > viewer.out 2>&1 <<'PY' &
import json, socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)))
s.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
s.settimeout(300)
buf, seen = b"", []
while not seen or seen[-1] != 16:
    chunk = s.recv(65536)
    if not chunk:
        break
    buf += chunk
    while b"\n\n" in buf:
        event, buf = buf.split(b"\n\n", 1)
        data = b"".join(l[6:] for l in event.split(b"\n") if l.startswith(b"data: "))
        # standings null: unchanged since the last event that had them.
        st = json.loads(data).get("standings") if data else None
        if st:
            n = st.get("matches_played", 0)
            if not seen or seen[-1] != n:
                seen.append(n)
print("matches_played seen live:", seen)
assert seen and seen[-1] == 16, seen
PY
VIEWER=$!
sh "$SRC/deploy/slurm/submit.sh" > submit.out 2>&1 || fail "submit.sh: $(cat submit.out)"
cat submit.out
ARRAY=$(sed -n 's/^shards: job \([0-9]*\) .*/\1/p' submit.out)
MERGE=$(sed -n 's/.*merge: job \([0-9]*\) .*/\1/p' submit.out)
[ -n "$ARRAY" ] && [ -n "$MERGE" ] || fail "no job ids in: $(cat submit.out)"
scontrol show job "$MERGE" | grep -q "Dependency=afterok:${ARRAY}" \
  || fail "merge job: $(scontrol show job "$MERGE")"
i=0
while squeue -h | grep -q .; do
  i=$((i + 1)); [ $i -gt 300 ] && fail "jobs still queued after 300 s: $(squeue)"; sleep 1
done
for s in 0 1 2 3; do
  grep -q "\"shard\": \"$s/4\"" "$T/records/shard-$s/manifest.json" || fail "shard $s: no manifest"
done
[ -f "$T/records/merged/standings.json" ] || fail "no merged standings"
/usr/bin/python3 - "$T/records" <<'PY' || fail "merged standings"
import glob, json, os, sys
r = sys.argv[1]
st = json.load(open(os.path.join(r, "merged", "standings.json")))
n = sum(len(glob.glob(os.path.join(d, "*.rec"))) for d in glob.glob(os.path.join(r, "shard-*")))
assert n == 16, f"{n} records in the shards, not 16"
assert st["matches_played"] == 16 and st["matches_planned"] == 16, st
print("16 matches in 4 shards, merged after all of them")
PY
cat arena-merge-*.out
grep -q "4 of 4 records verified\|records verified" arena-merge-*.out || fail "merge did not verify"
wait "$VIEWER" || fail "arena serve's combined standings: $(cat viewer.out)"
cat viewer.out
kill "$SERVE"; wait "$SERVE" 2>/dev/null
echo "PASS"
