#!/usr/bin/env bash
# The GPU checks, run on the device machine from what build.sh built here:
#   bash bench/gpu/build.sh            (here: CUDA toolkit, no GPU needed)
#   bash bench/gpu/run.sh build/gpu    (there; build/gpu/run.sh is a copy)
# Prints one line per check (PASS, FAIL, SKIP) or figure (FIGURE), then a
# summary. Exit status: 1 if a check failed, 3 if none failed but some could
# not run (no driver, GPU or torch), 0 if all passed. Every program runs
# under a time limit, and all of them within 330 s.
set -uo pipefail
dir=$(cd "${1:-build/gpu}" && pwd) || exit 1
data=$dir/data
passed=0 failed=0 skipped=0

# The seconds a program may take: $1, or what is left of the 330.
limit() {
  local left=$((330 - SECONDS))
  ((left < 1)) && left=1
  echo $(($1 < left ? $1 : left))
}

# Counts a program's exit status: 0 passed, 3 could not run, else failed.
tally() {
  case $1 in
    0) passed=$((passed + 1)) ;;
    3) skipped=$((skipped + 1)) ;;
    124) echo "FAIL $2: timed out"; failed=$((failed + 1)) ;;
    1) failed=$((failed + 1)) ;; # its FAIL lines say why
    *) echo "FAIL $2: exit status $1"; failed=$((failed + 1)) ;;
  esac
}

# Runs `name seconds command...` and counts its status.
run() {
  local name=$1 seconds=$2
  shift 2
  echo "== $name"
  timeout "$(limit "$seconds")" "$@"
  tally $? "$name"
}

# Runs `name seconds script.py argument` with python3, or counts it as
# could not run without one.
run_python() {
  if command -v python3 >/dev/null; then
    run "$1" "$2" python3 "$dir/$3" "$4"
  else
    echo "== $1"
    echo "SKIP $1: no python3"
    tally 3 "$1"
  fi
}

# mixprec-run itself (what scripts/main.sh trains with) on the CPU and the
# CUDA library of the AMP MLP: the same shuffled batches, so the final losses
# agree as model_check's late losses do (5e-2 relative).
mixprec_run_check() {
  local cpu gpu options=(--data "$data/x_train.npy" --data "$data/y_train.npy"
    --lr 0.1 --steps 200 --log-every 0)
  if ! cpu=$(timeout "$(limit 30)" "$dir/mixprec-run" train \
    "$dir/libmlp_amp_cpu.so" "${options[@]}" 2>&1); then
    echo "FAIL mixprec-run train on the CPU library: $cpu"
    return 1
  fi
  echo "FIGURE mixprec-run train, CPU library: ${cpu##*$'\n'}"
  if ! gpu=$(timeout "$(limit 30)" "$dir/mixprec-run" train \
    "$dir/libmlp_amp_cuda.so" "${options[@]}" 2>&1); then
    case $gpu in
      *"no CUDA driver"* | *"not a usable CUDA driver"* | *"no CUDA device"*)
        echo "SKIP mixprec-run train on the GPU: $gpu"
        return 3 ;;
    esac
    echo "FAIL mixprec-run train on the CUDA library: $gpu"
    return 1
  fi
  echo "FIGURE mixprec-run train, CUDA library: ${gpu##*$'\n'}"
  # "... final loss 0.061334, 0 skipped, 200 applied": awk reads the number.
  awk -v cpu="${cpu##*final loss }" -v gpu="${gpu##*final loss }" 'BEGIN {
    cpu += 0; gpu += 0; diff = (gpu > cpu ? gpu - cpu : cpu - gpu) / cpu
    ok = diff <= 5e-2
    printf "%s mixprec-run train: final loss CPU %.6f, GPU %.6f, relative " \
      "difference %.2e (tolerance 5e-2)\n", ok ? "PASS" : "FAIL", cpu, gpu, diff
    exit !ok }'
}

# Each example's AMP f16 train step on the GPU with mixprec-run: the time of
# a 250-step run minus a 50-step one (loading and the first steps' setup
# cancel), per step, into $1 as `<model> <ms>` lines for torch_step.py.
step_times() {
  local model inputs lr out steps short long ms
  for model in mlp cnn transformer; do
    case $model in
      mlp) inputs=("$data/x_train.npy" "$data/y_train.npy") lr=0.1 ;;
      cnn) inputs=("$data/images_train.npy" "$data/y_train.npy") lr=0.05 ;;
      transformer) inputs=("$data/tokens.npy" "$data/labels.npy") lr=0.001 ;;
    esac
    for steps in 50 250; do
      if ! out=$(timeout "$(limit 60)" "$dir/mixprec-run" train \
        "$dir/lib${model}_amp_cuda.so" --data "${inputs[0]}" \
        --data "${inputs[1]}" --lr "$lr" --steps "$steps" --log-every 0 2>&1)
      then
        case $out in
          *"no CUDA driver"* | *"not a usable CUDA driver"* | *"no CUDA device"*)
            echo "SKIP $model AMP step time on the GPU: $out"
            return 3 ;;
        esac
        echo "FAIL $model AMP step time: $out"
        return 1
      fi
      # "trained 250 steps of 64 samples in 0.123 s": the seconds.
      out=${out##*samples in }
      if [ "$steps" = 50 ]; then short=${out%% s*}; else long=${out%% s*}; fi
    done
    ms=$(awk -v short="$short" -v long="$long" \
      'BEGIN { printf "%.4f", (long - short) / 200 * 1000 }')
    echo "FIGURE $model AMP f16 train step, mixprec: $ms ms (250 steps - 50)"
    echo "$model $ms" >>"$1"
  done
}

echo "== the machine"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
else
  echo "no nvidia-smi"
fi

run "the CUDA runtime against the driver" 30 \
  "$dir/cuda_runtime_check" "$dir/kernels.sm_90.cubin"
run "f16/bf16 contractions, CUDA library against CPU library" 60 \
  "$dir/model_check" gemm "$dir/libgemm_cpu.so" "$dir/libgemm_cuda.so"
run "digits MLP, AMP f16, 200 steps, CPU against GPU" 60 \
  "$dir/model_check" train mlp "$dir/libmlp_amp_cpu.so" \
  "$dir/libmlp_amp_cuda.so" 0.1 200 "$data/x_train.npy" "$data/y_train.npy"
run "transformer block, AMP f16, 200 steps, CPU against GPU" 90 \
  "$dir/model_check" train transformer "$dir/libtransformer_amp_cpu.so" \
  "$dir/libtransformer_amp_cuda.so" 0.001 200 "$data/tokens.npy" \
  "$data/labels.npy"
echo "== mixprec-run train, digits MLP, AMP f16"
mixprec_run_check
tally $? "mixprec-run train"
run "peak GPU memory, digits MLP train step, FP32 and AMP f16" 30 \
  "$dir/model_check" memory mlp "$dir/libmlp_fp32_cuda.so" \
  "$dir/libmlp_amp_cuda.so" 0.1 "$data/x_train.npy" "$data/y_train.npy"
run "peak GPU memory, transformer train step, FP32 and AMP f16" 30 \
  "$dir/model_check" memory transformer "$dir/libtransformer_fp32_cuda.so" \
  "$dir/libtransformer_amp_cuda.so" 0.001 "$data/tokens.npy" \
  "$data/labels.npy"
steps=$(mktemp)
tflops=$(mktemp)
trap 'rm -f "$steps" "$tflops"' EXIT
echo "== AMP f16 train step time, mixprec"
step_times "$steps"
tally $? "AMP step time"
run_python "AMP f16 train step time, PyTorch eager" 90 torch_step.py "$steps"
run "bf16 GEMM 4096^3, mixprec" 60 \
  "$dir/model_check" gemm-time "$dir/libgemm4096_cuda.so" "$tflops"
run_python "bf16 GEMM 4096^3, torch.matmul (cuBLAS)" 60 torch_gemm.py "$tflops"

echo "== $passed passed, $failed failed, $skipped could not run ($SECONDS s)"
((failed)) && exit 1
((skipped)) && exit 3
exit 0
