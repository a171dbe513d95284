#!/usr/bin/env bash
# The GPU checks, run on the device machine from binaries built here:
#   bash bench/gpu/build.sh            (here: CUDA toolkit, no GPU needed)
#   bash bench/gpu/run.sh build/gpu    (there)
set -uo pipefail
dir=${1:-build/gpu}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$dir/cuda_runtime_check" "$dir/kernels.sm_90.cubin"
