#!/usr/bin/env bash
# Configures and builds everything into build/ (binaries in build/bin/).
set -euo pipefail
cd "$(dirname "$0")/.."
# Bots run sandboxed as an unprivileged user (docs/security.md), who must be
# able to enter the checkout: a fresh clone in a `mktemp -d` folder is 0700.
# Only search (x) is granted, on this folder alone; arena says which folder
# blocks the way if another one does.
chmod o+x . 2>/dev/null || true
# ARENA_EXTRA_GAMES (if set): folders of games outside referee/games/, added
# to the registry (docs/adding-a-game.md); unset keeps what build/ has.
extra=()
if [[ -n "${ARENA_EXTRA_GAMES+set}" ]]; then
  extra=(-DARENA_EXTRA_GAMES="$ARENA_EXTRA_GAMES")
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "${extra[@]}" > /dev/null
cmake --build build -j"${JOBS:-2}"
