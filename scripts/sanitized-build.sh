#!/usr/bin/env bash
# The sanitizer build (docs/testing.md): installs clang-22 and its runtimes
# if missing, and builds the whole tree with ASan, UBSan and libFuzzer's
# coverage hooks into build-asan/ (or $MIXPREC_ASAN_BUILD) with
# build_sanitized. Sourced by test.sh and fuzz.sh, which run its programs
# in sanitizer_env.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"

MIXPREC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MIXPREC_ASAN_BUILD=${MIXPREC_ASAN_BUILD:-$MIXPREC_ROOT/build-asan}
LLVM_PREFIX=/usr/lib/llvm-22

build_sanitized() {
  install_packages "${MIXPREC_PACKAGES[@]}" "${SANITIZER_PACKAGES[@]}"
  # MIXPREC_WERROR as in setup.sh.
  local werror=(${MIXPREC_WERROR:+-DMIXPREC_WERROR=$MIXPREC_WERROR})
  if [ ! -f "$MIXPREC_ASAN_BUILD/build.ninja" ]; then
    cmake -G Ninja -S "$MIXPREC_ROOT" -B "$MIXPREC_ASAN_BUILD" \
      -DCMAKE_BUILD_TYPE=Release -DMIXPREC_SANITIZE=ON "${werror[@]}" \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" >/dev/null
  elif [ ${#werror[@]} -gt 0 ]; then
    cmake -S "$MIXPREC_ROOT" -B "$MIXPREC_ASAN_BUILD" "${werror[@]}" >/dev/null
  fi
  ninja -C "$MIXPREC_ASAN_BUILD" "$@"
}

# The shared ASan runtime that every sanitized program and model library
# uses; an uninstrumented host (Python) loads it first with LD_PRELOAD.
asan_runtime() {
  clang++-22 -print-file-name=libclang_rt.asan-x86_64.so
}

# Runs "$@" with the sanitizers' options: any report aborts the process
# (so `not` in lit and return-code checks cannot mistake it for an
# ordinary error exit), with a symbolized stack.
sanitizer_env() {
  env ASAN_OPTIONS=abort_on_error=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS} \
    UBSAN_OPTIONS=abort_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS} \
    ASAN_SYMBOLIZER_PATH="$LLVM_PREFIX/bin/llvm-symbolizer" "$@"
}
