#!/usr/bin/env bash
# Installs the dependencies from Debian's packages (bookworm). Safe to run
# again: it installs only what is missing.
#   ci/install_deps.sh          everything: build, run, tests, benchmarks,
#                               the browser test, the grpc-js bot, Slurm
#   ci/install_deps.sh demo     only what the main job needs: the build and
#                               the bots it runs (no test tools, no browser)
set -euo pipefail
WHAT="${1:-all}"
case "$WHAT" in
  demo|all) ;;
  *) echo "ci/install_deps.sh: unknown set '$WHAT' (use demo or all)" >&2; exit 2 ;;
esac
# The build uses Clang (ci/build.sh): with its precompiled headers it takes
# half the CPU time of GCC's build, and clang-14 brings about as many megabytes
# as g++ would. The full set adds g++ (and build-essential), the project's
# other compiler: ci/test.sh runs every .cc through g++ -fsyntax-only
# (ci/gcc_syntax_check.py), without the precompiled header, which shows a
# file that does not include what it uses; CXX=g++ builds with it.
PACKAGES=(
  clang cmake ninja-build pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libspdlog-dev libeigen3-dev libssl-dev libzstd-dev zlib1g-dev
  libboost-dev
  bubblewrap python3 python3-grpcio python3-protobuf
)
if [ "$WHAT" = all ]; then
  PACKAGES+=(g++ build-essential libgtest-dev libgmock-dev libbenchmark-dev python3-yaml chromium
             slurmctld slurmd slurm-client munge libfaketime)
fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js for the grpc-js example bot and the browser test (bookworm: 18).
# A node and npm from elsewhere (e.g. NodeSource, which bundles npm) do too.
if [ "$WHAT" = all ] && { ! command -v node > /dev/null || ! command -v npm > /dev/null; }; then
  missing+=(nodejs npm)
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "ci/install_deps.sh: all dependencies present ($WHAT)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "ci/install_deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Without the translated descriptions: a third of the index, never read here.
$SUDO apt-get update -qq -o Acquire::Languages=none
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
