#!/usr/bin/env bash
# Refreshes docs/reference/, the dialect and pass reference that add_mlir_doc
# generates from the ODS (docs/CMakeLists.txt): builds the mixprec-doc target
# of a configured build and copies what it generates over the committed copy.
# With --check it changes nothing and fails, showing the difference, when the
# committed copy is not what the build generated (test/Docs runs it).
#
#   bash scripts/update-reference-docs.sh [--check] [BUILD_DIR]
#
# BUILD_DIR defaults to $MIXPREC_BUILD, else build/.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
check=false
if [ "${1:-}" = --check ]; then
  check=true
  shift
fi
build=${1:-${MIXPREC_BUILD:-$root/build}}
generated=$build/docs/reference
committed=$root/docs/reference

if $check; then
  if [ ! -d "$generated" ]; then
    echo "no generated reference in $generated: build the mixprec-doc target" >&2
    exit 1
  fi
  if ! difference=$(diff -ru "$committed" "$generated"); then
    printf '%s\n' "$difference" | head -60
    echo "docs/reference/ is not what the ODS generates now; refresh it with:" \
      "bash scripts/update-reference-docs.sh" >&2
    exit 1
  fi
  exit 0
fi

# Generated afresh, so that nothing a former configuration generated is
# copied.
rm -rf "$generated"
ninja -C "$build" mixprec-doc
mkdir -p "$committed"
rm -f "$committed"/*.md
cp "$generated"/*.md "$committed"/
echo "docs/reference/ refreshed from $generated"
