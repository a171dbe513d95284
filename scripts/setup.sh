#!/usr/bin/env bash
# Installs what mixprec needs (Debian bookworm) and builds it into build/.
# Sourced by main.sh and test.sh; safe to run again: it installs only what
# is missing and rebuilds only what changed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"

MIXPREC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MIXPREC_BUILD=${MIXPREC_BUILD:-$MIXPREC_ROOT/build}
LLVM_PREFIX=/usr/lib/llvm-22

# MIXPREC_WERROR=ON or OFF (.ci/run sets ON) is passed to CMake, also for an
# existing build/; unset, the build keeps its setting (OFF by default).
build_mixprec() {
  local werror=(${MIXPREC_WERROR:+-DMIXPREC_WERROR=$MIXPREC_WERROR})
  if [ ! -f "$MIXPREC_BUILD/build.ninja" ]; then
    cmake -G Ninja -S "$MIXPREC_ROOT" -B "$MIXPREC_BUILD" \
      -DCMAKE_BUILD_TYPE=Release "${werror[@]}" \
      -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" >/dev/null
  elif [ ${#werror[@]} -gt 0 ]; then
    cmake -S "$MIXPREC_ROOT" -B "$MIXPREC_BUILD" "${werror[@]}" >/dev/null
  fi
  ninja -C "$MIXPREC_BUILD"
}

install_packages "${MIXPREC_PACKAGES[@]}"
build_mixprec
