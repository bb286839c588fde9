#!/usr/bin/env bash
# Installs the build and run dependencies from Debian's packages (bookworm).
# Safe to run again: it installs only what is missing.
set -euo pipefail
PACKAGES=(
  build-essential cmake pkg-config
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libspdlog-dev libgtest-dev libgmock-dev libbenchmark-dev
  libssl-dev bubblewrap
  python3 python3-grpcio python3-protobuf
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
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
