#!/usr/bin/env bash
# Installs what mixprec needs (Debian bookworm) and builds it into build/.
# Sourced by main.sh and test.sh; safe to run again: it installs only what
# is missing and rebuilds only what changed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"

MIXPREC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MIXPREC_BUILD=${MIXPREC_BUILD:-$MIXPREC_ROOT/build}
LLVM_PREFIX=/usr/lib/llvm-22

build_mixprec() {
  if [ ! -f "$MIXPREC_BUILD/build.ninja" ]; then
    cmake -G Ninja -S "$MIXPREC_ROOT" -B "$MIXPREC_BUILD" \
      -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" >/dev/null
  fi
  ninja -C "$MIXPREC_BUILD"
}

install_packages "${MIXPREC_PACKAGES[@]}"
build_mixprec
