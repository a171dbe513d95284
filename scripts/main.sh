#!/usr/bin/env bash
# The main job: installs, builds, and trains the digits MLP
# (examples/mlp.mlir) on the CPU with mixed precision -- FP16 with FP32
# master weights and dynamic loss scaling -- next to FP32 and BF16 runs of
# the same model, then prints the test accuracies, the precision report of
# the AMP train step and its memory report against FP32; then it trains a
# transformer written in PyTorch through mixprec.torch in FP32 and bf16,
# with the planned and measured memory of each step side by side; finally it emits the AMP step's CUDA binary and trains it on the GPU
# simulator.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

out=$MIXPREC_BUILD/main
mkdir -p "$out"
/usr/bin/python3 "$MIXPREC_ROOT/examples/digits_data.py" "$out"
model=$MIXPREC_ROOT/examples/mlp.mlir

# SGD with momentum 0.9, lr 0.1, batch 64, 600 steps, a fixed shuffle.
train() {
  "$MIXPREC_BUILD/bin/mixprec-run" train "$1" --data "$out/x_train.npy" \
    --data "$out/y_train.npy" --lr 0.1 --steps 600 --log-every 100 \
    --eval predict --eval-data "$out/x_test.npy" \
    --eval-labels "$out/y_test.npy"
}

declare -A accuracy
for run in fp32 f16 bf16; do
  case $run in
    fp32) options=(--autodiff) ;;
    *) options=("--amp=precision=$run") ;;
  esac
  echo "== digits MLP, $run (mixprec-compile ${options[*]})"
  "$MIXPREC_BUILD/bin/mixprec-compile" "$model" "${options[@]}" \
    -o "$out/libmlp_$run.so"
  train "$out/libmlp_$run.so" | tee "$out/train_$run.log"
  accuracy[$run]=$(sed -n 's/^predict accuracy \([0-9.]*\) .*/\1/p' \
    "$out/train_$run.log")
done

echo "== test accuracy on 297 images"
for run in fp32 f16 bf16; do
  printf '  %-5s %s\n' "$run" "${accuracy[$run]}"
done

echo "== precision of the AMP (f16) train step"
"$MIXPREC_BUILD/bin/mixprec-opt" "$model" --mixprec-amp=precision=f16 \
  --mixprec-precision-report -o /dev/null 2>&1 | grep -A3 '^casts inserted'

echo "== memory of a call of the train step (bytes; mixprec-compile --memory-report)"
for run in fp32 f16; do
  options=(--autodiff)
  [ "$run" = f16 ] && options=(--amp=precision=f16)
  "$MIXPREC_BUILD/bin/mixprec-compile" "$model" "${options[@]}" \
    "--memory-report-json=$out/memory_$run.json" -o "$out/libmlp_memory_$run.so" 2>/dev/null
done
/usr/bin/python3 - "$out/memory_fp32.json" "$out/memory_f16.json" <<'PY'
import json, sys
fp32, amp = ({f["function"]: f for f in json.load(open(path))["functions"]}["train"]
             for path in sys.argv[1:])
print("  %-28s %10s %10s" % ("", "FP32", "AMP f16"))
for label, value in (("inputs (state, batch)", lambda f: f["inputs"]["bytes"]),
                     ("workspace (temporaries)", lambda f: f["workspace_bytes"]),
                     ("peak", lambda f: f["peak_bytes"])):
    print("  %-28s %10d %10d" % (label, value(fp32), value(amp)))
PY

# A model written in PyTorch: a transformer classifier built from
# nn.TransformerEncoderLayer, imported by mixprec.torch (torch.fx) and trained
# by its compiled train step in FP32 and in bf16 AMP.
echo "== a PyTorch transformer through mixprec.torch (FP32 and bf16)"
MIXPREC_BUILD=$MIXPREC_BUILD PYTHONPATH=$MIXPREC_ROOT/python \
  /usr/bin/python3 "$MIXPREC_ROOT/examples/torch_transformer.py" "$out/torch"

# The same AMP train step as a CUDA binary: tensor-core kernels for sm_80
# and sm_90 in one fatbin, the same C ABI. It runs where there is an NVIDIA
# GPU and driver; here it runs on the GPU simulator (runtime/gpusim), which
# MIXPREC_LIBCUDA selects, and trains to the CPU library's accuracy.
echo "== CUDA binary of the AMP (f16) train step"
cuda=${CUDA_PATH:-/usr/local/cuda}
if [ -x "$cuda/bin/ptxas" ]; then
  "$MIXPREC_BUILD/bin/mixprec-compile" "$model" --amp=precision=f16 \
    --target=cuda --arch=sm_80,sm_90 --cuda-path="$cuda" \
    -o "$out/libmlp_f16_cuda.so"
  "$MIXPREC_BUILD/bin/mixprec-compile" "$model" --amp=precision=f16 \
    --target=cuda --arch=sm_90 --cuda-path="$cuda" --emit=ptx \
    -o "$out/mlp_f16_sm_90.ptx"
  echo "  $out/libmlp_f16_cuda.so ($(du -k "$out/libmlp_f16_cuda.so" | cut -f1) KiB)," \
    "needs: $(readelf -d "$out/libmlp_f16_cuda.so" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
  echo "  tensor-core instructions in its sm_90 PTX:" \
    "$(grep -c 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' "$out/mlp_f16_sm_90.ptx") mma.sync," \
    "$(grep -c 'ldmatrix.sync.aligned' "$out/mlp_f16_sm_90.ptx") ldmatrix"
  echo "== the CUDA binary trained on the GPU simulator"
  MIXPREC_LIBCUDA=$MIXPREC_BUILD/lib/libmixprec_gpusim.so \
    MIXPREC_GPUSIM_REPORT=$out/gpusim_report.json \
    "$MIXPREC_BUILD/bin/mixprec-run" train "$out/libmlp_f16_cuda.so" \
    --data "$out/x_train.npy" --data "$out/y_train.npy" --lr 0.1 \
    --steps 600 --log-every 100 --eval predict \
    --eval-data "$out/x_test.npy" --eval-labels "$out/y_test.npy"
  /usr/bin/python3 - "$out/gpusim_report.json" <<'PY'
import json, sys
total = json.load(open(sys.argv[1]))["total"]
print("  simulated: %d launches, %d warp instructions, %d mma.sync "
      "(%.3g tensor-core FLOPs), %d shared bank conflicts" % (
          total["launches"], total["warp_instructions"], total["mma_sync"],
          total["tensor_core_flops"], total["shared_bank_conflicts"]))
PY
else
  echo "  skipped: no CUDA toolkit at $cuda (set CUDA_PATH)"
fi
