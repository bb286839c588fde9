#!/bin/sh
# Runs one sharded tournament on the current kubectl context: the secret (a
# fresh one unless SECRET_FILE names one to keep), the shared volume, the
# Indexed Job, then the merge Job once every shard has completed.
#   SECRET_FILE=./tournament.secret deploy/kubernetes/run.sh
set -eu
HERE=$(dirname "$0")
SECRET_FILE="${SECRET_FILE:-./tournament.secret}"
if [ ! -f "$SECRET_FILE" ]; then
  # 64 hex digits, what arena writes for --secret_file; keep it to reproduce.
  (umask 077; od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > "$SECRET_FILE"; echo >> "$SECRET_FILE")
fi
kubectl create secret generic arena-tournament-secret --from-file=secret="$SECRET_FILE" \
  --dry-run=client -o yaml | kubectl apply -f -
kubectl apply -f "$HERE/records-pvc.yaml"
kubectl apply -f "$HERE/tournament-job.yaml"
kubectl wait --for=condition=complete job/arena-tournament --timeout="${TIMEOUT:-24h}"
kubectl apply -f "$HERE/merge-job.yaml"
kubectl wait --for=condition=complete job/arena-merge --timeout=1h
kubectl logs job/arena-merge
