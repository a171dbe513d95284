#!/usr/bin/env bash
# Installs what mixprec needs (Debian bookworm) and builds it into build/.
# Sourced by main.sh and test.sh; safe to run again: it installs only what
# is missing and rebuilds only what changed.
set -euo pipefail

MIXPREC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MIXPREC_BUILD=${MIXPREC_BUILD:-$MIXPREC_ROOT/build}
LLVM_PREFIX=/usr/lib/llvm-22
PACKAGES=(cmake ninja-build g++ libgtest-dev
          llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
          python3-numpy python3-pytest python3-torch python3-sklearn)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

build_mixprec() {
  if [ ! -f "$MIXPREC_BUILD/build.ninja" ]; then
    cmake -G Ninja -S "$MIXPREC_ROOT" -B "$MIXPREC_BUILD" \
      -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" >/dev/null
  fi
  ninja -C "$MIXPREC_BUILD"
}

install_packages
build_mixprec
