#!/usr/bin/env bash
# Builds what bench/gpu/run.sh runs on the GPU machine into build/gpu: the
# runtime check (linked statically: no libMLIR, libLLVM or libcuda needed at
# link time) and its kernels as an sm_90 cubin.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MIXPREC_BUILD:-$root/build}
out=$build/gpu
mkdir -p "$out"
ninja -C "$build" mixprec_cuda_runtime >/dev/null
/usr/local/cuda/bin/nvcc -cubin -arch=sm_90 -O2 \
  "$root/bench/gpu/kernels.cu" -o "$out/kernels.sm_90.cubin"
g++ -O2 -std=c++17 -I"$root/include" -I"$root/runtime" -I"$root/runtime/cuda" \
  "$root/bench/gpu/cuda_runtime_check.cpp" -o "$out/cuda_runtime_check" \
  "$build/lib/libmixprec_cuda_runtime.a" "$build/lib/libmixprec_model_runtime.a" -ldl
echo "built $out"
