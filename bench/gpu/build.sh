#!/usr/bin/env bash
# Builds what bench/gpu/run.sh runs on the GPU machine into build/gpu, which
# travels there alone (at most 64 MiB, and the machine has no libMLIR or
# libLLVM): the runtime check and its sm_90 cubin, model_check, mixprec-run,
# the model libraries (CPU and CUDA), their data as .npy files, and the
# scripts. Needs the CUDA toolkit, not a GPU.
#
# It uses the binaries in $MIXPREC_BUILD (default build/) as they are, so
# build them first; only a missing one is built here.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MIXPREC_BUILD:-$root/build}
cuda=${CUDA_PATH:-/usr/local/cuda}
out=$build/gpu
for file in lib/libmixprec_cuda_runtime.a lib/libmixprec_model_runtime.a \
  runtime/libmixprec_host_runtime.a bin/mixprec-compile bin/mixprec-run; do
  if [ ! -e "$build/$file" ]; then
    ninja -C "$build" mixprec_cuda_runtime mixprec_host_runtime \
      mixprec-compile mixprec-run
    break
  fi
done
# Nothing stale travels.
rm -rf "$out"
mkdir -p "$out/data"

# The runtime check.
"$cuda/bin/nvcc" -cubin -arch=sm_90 -O2 \
  "$root/bench/gpu/kernels.cu" -o "$out/kernels.sm_90.cubin"
g++ -O2 -std=c++17 -I"$root/include" -I"$root/runtime" -I"$root/runtime/cuda" \
  "$root/bench/gpu/cuda_runtime_check.cpp" -o "$out/cuda_runtime_check" \
  "$build/lib/libmixprec_cuda_runtime.a" "$build/lib/libmixprec_model_runtime.a" -ldl

# The model checks and the training driver.
g++ -O2 -std=c++17 -I"$root/include" -I"$root/runtime" \
  "$root/bench/gpu/model_check.cpp" -o "$out/model_check" \
  "$build/runtime/libmixprec_host_runtime.a" -ldl
cp "$build/bin/mixprec-run" "$root/bench/gpu/run.sh" \
  "$root/bench/gpu/torch_gemm.py" "$root/bench/gpu/torch_step.py" \
  "$root/bench/torch_twins.py" "$out/"

# Data: the digits (training split only) and token sequences.
/usr/bin/python3 "$root/examples/digits_data.py" "$out/data"
rm "$out/data/x_test.npy" "$out/data/y_test.npy"
/usr/bin/python3 -c "import numpy as np; x = np.load('$out/data/x_train.npy')
np.save('$out/data/images_train.npy', x.reshape(-1, 1, 8, 8))"
/usr/bin/python3 "$root/bench/gpu/transformer_data.py" "$out/data"

# The libraries: libNAME_{cpu,cuda}.so. FP32 training is --autodiff, AMP
# --amp=precision=f16 (dynamic loss scaling by default).
compile() {
  local model=$1 name=$2
  shift 2
  "$build/bin/mixprec-compile" "$model" "$@" -o "$out/lib${name}_cpu.so"
  "$build/bin/mixprec-compile" "$model" "$@" --target=cuda --arch=sm_90 \
    --cuda-path="$cuda" -o "$out/lib${name}_cuda.so"
}
compile "$root/bench/gpu/gemm_shapes.mlir" gemm
compile "$root/examples/mlp.mlir" mlp_amp --amp=precision=f16
compile "$root/examples/transformer.mlir" transformer_amp --amp=precision=f16
"$build/bin/mixprec-compile" "$root/examples/cnn.mlir" --amp=precision=f16 \
  --target=cuda --arch=sm_90 --cuda-path="$cuda" -o "$out/libcnn_amp_cuda.so"
for model in mlp transformer; do
  "$build/bin/mixprec-compile" "$root/examples/$model.mlir" --autodiff \
    --target=cuda --arch=sm_90 --cuda-path="$cuda" \
    -o "$out/lib${model}_fp32_cuda.so"
done
"$build/bin/mixprec-compile" "$root/bench/gpu/gemm_4096.mlir" \
  --target=cuda --arch=sm_90 --cuda-path="$cuda" -o "$out/libgemm4096_cuda.so"
rm "$out"/*.h

# What the GPU machine lacks must not be needed.
for binary in "$out"/*.so "$out/model_check" "$out/cuda_runtime_check" \
  "$out/mixprec-run"; do
  if ldd "$binary" | grep -E 'libMLIR|libLLVM'; then
    echo "error: $binary needs libMLIR or libLLVM" >&2
    exit 1
  fi
done
kib=$(du -sk "$out" | cut -f1)
if [ "$kib" -ge $((64 * 1024)) ]; then
  echo "error: $out is $kib KiB, over the 64 MiB that can travel" >&2
  exit 1
fi
echo "built $out ($kib KiB; nothing needs libMLIR or libLLVM)"
