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
# runs in a temp folder of its own, and anything left there fails the run
# (ci/ctest_clean.sh). Then the soaks, which a plain ctest leaves out
# (tests/CMakeLists.txt: the chaos soak runs alone for minutes).
status=0
bash ci/ctest_clean.sh -j2 --timeout 900 || status=$?
bash ci/ctest_clean.sh -C soak -L chaos --timeout 900 || status=$?
exit "$status"
