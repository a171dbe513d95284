#!/usr/bin/env bash
# A campaign of random valid models through every pipeline
# (docs/random-models.md):
#
#   scripts/random_models.sh N [FIRST_SEED]
#
# installs and builds what is missing, then checks the models of seeds
# FIRST_SEED .. FIRST_SEED + N - 1 (FIRST_SEED is random when not given):
# mixprec-opt's training passes, mixprec-compile for the CPU in FP32, f16
# and bf16 and for CUDA, a few train steps of every library (the CUDA one
# on the GPU simulator). It prints a line per failing seed (its files are
# kept), then "N models: P passed, F failed in T s; failing seeds: ..."
# and the seconds each pipeline took; it exits 1 if a model failed.
# `test/Integration/random_model_pipelines.py check SEED --gpusim` reruns
# one seed.
set -euo pipefail
usage() {
  echo "usage: scripts/random_models.sh N [FIRST_SEED]" >&2
  exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
[[ "$1" =~ ^[1-9][0-9]*$ ]] || usage
count=$1
first=${2:-$((RANDOM * 32768 + RANDOM))}
[[ "$first" =~ ^[0-9]+$ ]] || usage

source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
export PATH=$PATH:/usr/local/cuda/bin

echo "== random models: seeds $first .. $((first + count - 1))"
MIXPREC_BUILD=$MIXPREC_BUILD /usr/bin/python3 \
  "$MIXPREC_ROOT/test/Integration/random_model_pipelines.py" campaign \
  --count "$count" --start "$first" --jobs "$(nproc)" --gpusim --keep
