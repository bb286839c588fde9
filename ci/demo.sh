#!/usr/bin/env bash
# The main job: installs the dependencies, builds, and runs a demo Quäsenbö
# tournament among the bundled bots (C++ random, C++ heuristic, Python
# random), then verifies every record it wrote.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install_deps.sh
bash ci/build.sh
GAMES="${GAMES:-300}"
RECORDS="${RECORDS:-records/demo}"
rm -rf "$RECORDS"
build/bin/arena tournament --game quasenbo \
  --bot random=build/bin/random_bot \
  --bot heuristic=build/bin/quasenbo_bot \
  --bot python=build/bin/python_random_bot \
  --games "$GAMES" --jobs 2 --records "$RECORDS"
build/bin/arena verify "$RECORDS"
