#!/usr/bin/env bash
# The main job: installs, builds, and runs mixprec-opt over the example
# models (verification and an op histogram of each).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

for model in mlp cnn transformer; do
  echo "== examples/$model.mlir"
  "$MIXPREC_BUILD/bin/mixprec-opt" "$MIXPREC_ROOT/examples/$model.mlir" \
    --print-op-stats -o /dev/null
done
