#!/bin/sh
# Installs the npm packages of a folder from its committed package-lock.json
# (npm ci), unless node_modules already matches the lockfile. Used as a ctest
# fixture by the tests that need Node packages.
set -eu
DIR="$1"
cd "$DIR"
command -v node > /dev/null || { echo "node_setup: node is not installed (ci/install_deps.sh)"; exit 1; }
command -v npm > /dev/null || { echo "node_setup: npm is not installed (ci/install_deps.sh)"; exit 1; }
if [ -f node_modules/.package-lock.json ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
  echo "node_setup: $DIR/node_modules is up to date"
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
