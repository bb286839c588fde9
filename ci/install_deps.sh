#!/usr/bin/env bash
# Installs the build and run dependencies from Debian's packages (bookworm).
# Safe to run again: it installs only what is missing.
set -euo pipefail
PACKAGES=(
  build-essential cmake pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libspdlog-dev libgtest-dev libgmock-dev libbenchmark-dev libeigen3-dev
  libssl-dev libzstd-dev bubblewrap
  python3 python3-grpcio python3-protobuf python3-yaml
  zlib1g-dev chromium
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js for the grpc-js example bot and the browser test (bookworm: 18).
# A node and npm from elsewhere (e.g. NodeSource, which bundles npm) do too.
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  missing+=(nodejs npm)
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "ci/install_deps.sh: all dependencies present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "ci/install_deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
