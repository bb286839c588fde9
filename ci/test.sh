#!/usr/bin/env bash
# The test command: installs the dependencies, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install_deps.sh
# With the toy game (tests/toy_game, not in the default registry), so that the
# conformance suite proves the path of docs/adding-a-game.md on it too.
ARENA_EXTRA_GAMES="${ARENA_EXTRA_GAMES-tests/toy_game}" bash ci/build.sh
# Each .cc alone through g++ -fsyntax-only, without the precompiled header
# and unity batches of the Clang build: a file that leans on them for an
# include fails here (ci/gcc_syntax_check.py).
python3 ci/gcc_syntax_check.py build
# Every test writes into a folder of its own and removes it (README): ctest
# runs with a temp folder of its own, which must be empty at the end. 0755:
# arena puts its sandbox's socket folder there, which the bots must reach.
T=$(mktemp -d)
chmod 755 "$T"
status=0
(cd build && TMPDIR="$T" ctest --output-on-failure -j2 --timeout 900) || status=$?
# Then the soaks, which a plain ctest leaves out (tests/CMakeLists.txt: the
# chaos soak runs alone for minutes).
(cd build && TMPDIR="$T" ctest --output-on-failure -C soak -L chaos --timeout 900) || status=$?
left=$(ls -A "$T")
if [[ -n "$left" ]]; then
  echo "ci/test.sh: the tests left these behind in their temp folder $T:" >&2
  ls -lA "$T" >&2
  echo "ci/test.sh: every test must remove what it writes (README, \"A test leaves nothing behind\")" >&2
  [[ $status -ne 0 ]] || status=1
else
  rmdir "$T"
fi
exit "$status"
