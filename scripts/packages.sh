#!/usr/bin/env bash
# The Debian packages mixprec needs, and install_packages PACKAGE..., which
# installs those that are missing (as root, or through sudo). Sourced by
# setup.sh and sanitized-build.sh.

# Building and testing; clang-format-22 is the version that
# scripts/check-format.sh pins; libdnnl-dev the GEMMs CPU models call.
MIXPREC_PACKAGES=(cmake ninja-build g++ libgtest-dev libdnnl-dev
                  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
                  python3-numpy python3-pytest python3-torch python3-sklearn
                  python3-tqdm python3-matplotlib python3-venv python3-wheel
                  clang-format-22)
# The sanitizer build and the fuzzers, besides.
SANITIZER_PACKAGES=(clang-22 libclang-rt-22-dev)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_packages() {
  local missing=()
  for p in "$@"; do
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
