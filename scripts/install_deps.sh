#!/usr/bin/env bash
# Installs the Debian packages xtune needs to build and test, if missing,
# and NVRTC into a CUDA toolkit that lacks it (install_nvrtc.sh).
# Runs apt-get as root, or through sudo when not root. Safe to run often:
# it does nothing when every package is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config libboost-context-dev
  libabsl-dev libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev
  clang libclang-rt-14-dev
  python3 python3-numpy python3-dev pybind11-dev python3-pytest
  valgrind
  libhiredis-dev redis-server
  chromium fonts-dejavu-core
)

# NVRTC, where a CUDA toolkit lacks it (scripts/install_nvrtc.sh).
"$(dirname "$0")/install_nvrtc.sh"

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install_deps: installing ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  sudo_cmd=()
elif command -v sudo >/dev/null 2>&1; then
  sudo_cmd=(sudo)
else
  echo "install_deps: missing packages (${missing[*]}) and not root; no sudo." >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Try without refreshing the package lists first (fast, and works offline
# when the lists are current); refresh and retry if that fails.
if ! "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"; then
  "${sudo_cmd[@]}" apt-get update
  "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
