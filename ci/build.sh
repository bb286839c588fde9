#!/usr/bin/env bash
# Configures and builds into build/ (binaries in build/bin/).
#   TESTS=ON|OFF   build the tests and benchmarks too (default ON; the demo
#                  builds without them, so it needs no test packages)
#   TARGETS="a b"  build only these targets (default: all)
#   UNITY=ON|OFF   unity build: a target's sources compiled a few at a time
#                  as one (default ON; the headers of protobuf, gRPC, Abseil
#                  and spdlog are then parsed once per batch, not per file)
#   BUILD_TYPE     CMake build type (default Release, at -O2 as
#                  RelWithDebInfo but without debug info, which took a
#                  tenth to a third of the compile time of the biggest files)
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
tests="${TESTS:-ON}"
# Ninja for a new build folder: it starts a target's files as soon as the
# headers they need exist, where make waits for every library before it.
generator=()
if [[ ! -f build/CMakeCache.txt ]] && command -v ninja > /dev/null; then
  generator=(-G Ninja)
fi
# Clang for a new build folder (CXX chooses another): its precompiled header
# (proto/precompiled_headers.h) halves the build's CPU time; GCC's did not
# pay on this machine. An existing folder keeps the compiler it has.
compiler=()
if [[ ! -f build/CMakeCache.txt ]]; then
  cxx="${CXX:-}"
  if [[ -z "$cxx" ]] && command -v clang++ > /dev/null; then cxx=clang++; fi
  if [[ -n "$cxx" ]]; then compiler=(-DCMAKE_CXX_COMPILER="$cxx"); fi
fi
cmake -S . -B build "${generator[@]}" "${compiler[@]}" -DCMAKE_UNITY_BUILD="${UNITY:-ON}" \
  -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DARENA_BUILD_TESTS="$tests" -DARENA_BUILD_BENCHMARKS="$tests" "${extra[@]}" > /dev/null
targets=()
for t in ${TARGETS:-}; do targets+=(--target "$t"); done
cmake --build build -j"${JOBS:-2}" "${targets[@]}"
