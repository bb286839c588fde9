#!/usr/bin/env bash
# The test command: installs the dependencies, builds, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/install_deps.sh
bash ci/build.sh
cd build
ctest --output-on-failure -j2 --timeout 900
