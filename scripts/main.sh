#!/usr/bin/env bash
# The main job: installs, builds, verifies the example models (with an op
# histogram of each), shows what autocast makes of each (casts, FLOPs in
# 16-bit tensor-core ops, activation bytes), compiles each to a native
# library for the CPU and lists the functions of its C ABI.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

out=$MIXPREC_BUILD/examples
mkdir -p "$out"
for model in mlp cnn transformer; do
  echo "== examples/$model.mlir"
  "$MIXPREC_BUILD/bin/mixprec-opt" "$MIXPREC_ROOT/examples/$model.mlir" \
    --print-op-stats -o /dev/null
  echo "-- precision after --mixprec-autocast=precision=f16:"
  "$MIXPREC_BUILD/bin/mixprec-opt" "$MIXPREC_ROOT/examples/$model.mlir" \
    --mixprec-autocast --mixprec-precision-report -o /dev/null 2>&1 |
    grep -A3 '^casts inserted'
  "$MIXPREC_BUILD/bin/mixprec-compile" "$MIXPREC_ROOT/examples/$model.mlir" \
    -o "$out/lib$model.so"
  echo "compiled $out/lib$model.so:"
  "$MIXPREC_BUILD/bin/mixprec-run" "$out/lib$model.so" --list
done
