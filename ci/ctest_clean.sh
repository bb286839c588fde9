#!/usr/bin/env bash
# Runs ctest in build/ (with the arguments given) in a temp folder of its
# own, and fails, naming them, if the tests left anything in it: every test
# writes into a folder of its own and removes it (README). 0755: arena puts
# its sandbox's socket folder there, which the bots must reach. Exit: ctest's
# if it failed, else 1 if anything was left, else 0.
#   ci/ctest_clean.sh -j2 --timeout 900
set -uo pipefail
cd "$(dirname "$0")/.."
T=$(mktemp -d)
chmod 755 "$T"
status=0
(cd build && TMPDIR="$T" ctest --output-on-failure "$@") || status=$?
if [[ -n "$(ls -A "$T")" ]]; then
  echo "ci/ctest_clean.sh: the tests left these behind in their temp folder $T:" >&2
  ls -lA "$T" >&2
  echo "ci/ctest_clean.sh: every test must remove what it writes (README: a test leaves nothing behind)" >&2
  [[ $status -ne 0 ]] || status=1
else
  rmdir "$T"
fi
exit "$status"
