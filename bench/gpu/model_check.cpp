//===- model_check.cpp - CUDA model libraries against CPU ones ------------===//
//
//   model_check gemm CPU.so CUDA.so
//   model_check train NAME CPU.so CUDA.so LR STEPS BATCH.npy...
//   model_check memory NAME FP32.so AMP.so LR BATCH.npy...
//   model_check gemm-time CHAIN.so [TFLOPS_FILE]
//
// Calls libraries that mixprec-compile built from one model for --target=cpu
// and --target=cuda through their C ABI with the same inputs, compares what
// they compute, and measures the CUDA libraries' device memory and GEMM
// speed. Prints one line per check (PASS, FAIL, SKIP) or figure (FIGURE).
// Exit status: 0 if every check passed, 1 if one failed, 3 if the GPU part
// could not run (MIXPREC_UNAVAILABLE: no driver or no device) -- the CPU
// part runs anyway, so a machine without a GPU still exercises it.
//
//===----------------------------------------------------------------------===//

#include "Dtype.h"
#include "ModelLibrary.h"
#include "Npy.h"
#include "TrainerABI.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace mixprec;

namespace {

constexpr int kUnavailable = 3;

int failures = 0;

void check(bool ok, const char *format, ...) {
  std::printf("%s ", ok ? "PASS" : "FAIL");
  va_list args;
  va_start(args, format);
  std::vprintf(format, args);
  va_end(args);
  std::printf("\n");
  failures += !ok;
}

int exitStatus(const std::string &unavailable) {
  if (failures)
    return 1;
  return unavailable.empty() ? 0 : kUnavailable;
}

std::unique_ptr<ModelLibrary> load(const std::string &path) {
  std::string error;
  std::unique_ptr<ModelLibrary> library = ModelLibrary::open(path, error);
  if (!library)
    check(false, "load %s: %s", path.c_str(), error.c_str());
  return library;
}

/// A host tensor of the checker.
struct Tensor {
  mixprec_dtype dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  explicit Tensor(const mixprec_tensor_spec &spec)
      : dtype(spec.dtype), shape(spec.shape, spec.shape + spec.rank),
        bytes(size_t(elements()) * dtypeSize(spec.dtype)) {}
  int64_t elements() const {
    int64_t count = 1;
    for (int64_t size : shape)
      count *= size;
    return count;
  }
  mixprec_tensor view() {
    return {bytes.data(), dtype, int32_t(shape.size()), shape.data()};
  }
  const float *floats() const {
    return reinterpret_cast<const float *>(bytes.data());
  }
  /// Element `i` of a bf16 tensor.
  float bf16At(int64_t i) const {
    uint32_t bits =
        uint32_t(reinterpret_cast<const uint16_t *>(bytes.data())[i]) << 16;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
};

std::vector<mixprec_tensor> views(std::vector<Tensor> &tensors) {
  std::vector<mixprec_tensor> result;
  for (Tensor &tensor : tensors)
    result.push_back(tensor.view());
  return result;
}

/// The f16 bits of k / 2^11, 0 < |k| < 2^11: a normal number, held exactly.
/// (No _Float16: its conversions need a libgcc the GPU machine may lack.)
uint16_t f16Bits(int k) {
  unsigned magnitude = unsigned(std::abs(k));
  int log2 = 31 - __builtin_clz(magnitude); // 2^log2 <= |k| < 2^(log2 + 1)
  return uint16_t((k < 0 ? 0x8000 : 0) | (log2 + 4) << 10 |
                  ((magnitude << (10 - log2)) & 0x3ff));
}

/// Fills an f16 or bf16 tensor with values k / 2^11 (f16) or k / 2^8 (bf16)
/// in (-1, 1), which the type holds exactly: a product of two is exact in
/// f32, so CPU and GPU sums of products differ only in their order.
bool fillRandom(Tensor &tensor, std::mt19937 &rng) {
  auto *elements = reinterpret_cast<uint16_t *>(tensor.bytes.data());
  for (int64_t i = 0, e = tensor.elements(); i < e; ++i) {
    if (tensor.dtype == MIXPREC_F16) {
      int k = int(rng() % 4095) - 2047;
      elements[i] = k ? f16Bits(k) : 0;
    } else if (tensor.dtype == MIXPREC_BF16) {
      // The upper half of the f32, whose lower half is zero.
      float value = float(int(rng() % 511) - 255) / 256.0f;
      uint32_t bits;
      std::memcpy(&bits, &value, sizeof(bits));
      elements[i] = uint16_t(bits >> 16);
    } else {
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// gemm: every function of the contractions model, CPU against GPU
//===----------------------------------------------------------------------===//

int gemm(const char *cpuPath, const char *gpuPath) {
  std::unique_ptr<ModelLibrary> cpu = load(cpuPath), gpu = load(gpuPath);
  if (!cpu || !gpu)
    return 1;
  // Both sum exact products in f32 and only the order differs: the error
  // relative to the largest result is a few 2^-24 * sqrt(K), under 1e-6 for
  // K <= 200. A wrong or lost element, or a 16-bit accumulator (2^-11 for
  // f16, 2^-8 for bf16), is off by 1e-4 or more.
  const double tolerance = 1e-5;
  std::string unavailable;
  unsigned index = 0;
  for (const mixprec_function *function : cpu->functions()) {
    std::string name = function->name, error;
    std::mt19937 rng(index++);
    std::vector<Tensor> inputs, cpuOutputs, gpuOutputs;
    bool filled = true;
    for (int32_t i = 0; i < function->num_inputs; ++i) {
      inputs.emplace_back(function->inputs[i]);
      filled &= fillRandom(inputs.back(), rng);
    }
    bool f32 =
        function->num_outputs == 1 && function->outputs[0].dtype == MIXPREC_F32;
    if (!filled || !f32) {
      check(false, "gemm %s: needs f16/bf16 inputs and one f32 result",
            name.c_str());
      continue;
    }
    cpuOutputs.emplace_back(function->outputs[0]);
    gpuOutputs.emplace_back(function->outputs[0]);
    std::vector<mixprec_tensor> in = views(inputs);
    if (cpu->call(name, in, views(cpuOutputs), error) != MIXPREC_OK) {
      check(false, "gemm %s on the CPU: %s", name.c_str(), error.c_str());
      continue;
    }
    if (!unavailable.empty())
      continue;
    mixprec_status status = gpu->call(name, in, views(gpuOutputs), error);
    if (status == MIXPREC_UNAVAILABLE) {
      unavailable = error;
      continue;
    }
    if (status != MIXPREC_OK) {
      check(false, "gemm %s on the GPU: %s", name.c_str(), error.c_str());
      continue;
    }
    // NaN anywhere makes the ratio NaN, which fails.
    double maxDiff = 0, maxRef = 0;
    const float *want = cpuOutputs[0].floats(), *got = gpuOutputs[0].floats();
    for (int64_t i = 0, e = cpuOutputs[0].elements(); i < e; ++i) {
      double diff = std::fabs(double(got[i]) - double(want[i]));
      if (!(diff <= maxDiff))
        maxDiff = diff;
      maxRef = std::max(maxRef, std::fabs(double(want[i])));
    }
    double ratio = maxDiff / maxRef;
    check(ratio <= tolerance,
          "gemm %-34s max|gpu-cpu|/max|cpu| = %.2e (tolerance %.0e)",
          name.c_str(), ratio, tolerance);
  }
  if (!unavailable.empty())
    std::printf("SKIP gemm on the GPU: %s (the CPU library ran all %u "
                "functions)\n",
                unavailable.c_str(), index);
  return exitStatus(unavailable);
}

//===----------------------------------------------------------------------===//
// Training through the trainer ABI
//===----------------------------------------------------------------------===//

/// What a run of the train step "train" gave, step by step.
struct Run {
  mixprec_status status = MIXPREC_OK;
  std::string error;
  std::vector<float> loss, scale;
  std::vector<int64_t> skipped;
  // Device memory after the run, or why there is no figure.
  int64_t currentBytes = 0, peakBytes = 0;
  std::string memoryError;
};

/// Trains `steps` steps from seed 0 on consecutive batches of `arrays` (one
/// per batch input of the step, samples along dim 0), wrapping around: the
/// same batches for every library.
Run train(const ModelLibrary &library, const std::vector<npy::Array> &arrays,
          float lr, int64_t steps) {
  Run run;
  auto fail = [&](mixprec_status status, const std::string &error) {
    run.status = status;
    run.error = error;
  };
  TrainerABI abi(library);
  const mixprec_function *step = library.find("train");
  if (!step) {
    fail(MIXPREC_NOT_FOUND, "no train step 'train'");
    return run;
  }
  std::vector<Tensor> batches;
  for (const mixprec_tensor_spec *spec : abi.batchInputs(*step))
    batches.emplace_back(*spec);
  if (batches.size() != arrays.size()) {
    fail(MIXPREC_INVALID_ARGUMENT,
         "the step takes " + std::to_string(batches.size()) +
             " batch inputs, got " + std::to_string(arrays.size()));
    return run;
  }
  // Batches per pass over the data: the fewest any array holds.
  int64_t perEpoch = -1;
  for (size_t i = 0; i < arrays.size(); ++i) {
    int64_t rows = arrays[i].shape.empty() ? 0 : arrays[i].shape[0];
    int64_t batchRows = batches[i].shape.empty() ? 0 : batches[i].shape[0];
    bool rowsMatch = rows >= batchRows && batchRows > 0 &&
                     arrays[i].data.size() / size_t(rows) ==
                         batches[i].bytes.size() / size_t(batchRows);
    if (arrays[i].dtype != batches[i].dtype || !rowsMatch) {
      fail(MIXPREC_INVALID_ARGUMENT,
           "batch array " + std::to_string(i) +
               " does not match the step's batch input " + std::to_string(i));
      return run;
    }
    int64_t count = rows / batchRows;
    perEpoch = perEpoch < 0 ? count : std::min(perEpoch, count);
  }

  mixprec_trainer *trainer = nullptr;
  if (mixprec_status status =
          abi.api.mixprec_trainer_create("train", 0, &trainer)) {
    fail(status, abi.api.mixprec_last_error());
    return run;
  }
  std::vector<mixprec_tensor> tensors = views(batches);
  for (int64_t s = 0; s < steps; ++s) {
    for (size_t i = 0; i < arrays.size(); ++i) {
      size_t bytes = batches[i].bytes.size();
      std::memcpy(batches[i].bytes.data(),
                  arrays[i].data.data() + size_t(s % perEpoch) * bytes, bytes);
    }
    float loss = 0;
    if (mixprec_status status = abi.api.mixprec_trainer_step(
            trainer, tensors.data(), int32_t(tensors.size()), lr, &loss)) {
      fail(status, abi.api.mixprec_last_error());
      break;
    }
    run.loss.push_back(loss);
    run.scale.push_back(abi.lossScale(trainer));
    run.skipped.push_back(abi.skippedSteps(trainer));
  }
  if (abi.api.mixprec_device_memory(&run.currentBytes, &run.peakBytes) !=
      MIXPREC_OK)
    run.memoryError = abi.api.mixprec_last_error();
  abi.api.mixprec_trainer_destroy(trainer);
  return run;
}

bool readArrays(char **paths, int count, std::vector<npy::Array> &arrays) {
  for (int i = 0; i < count; ++i) {
    std::string error;
    std::optional<npy::Array> array = npy::read(paths[i], error);
    if (!array) {
      check(false, "read %s", error.c_str());
      return false;
    }
    arrays.push_back(std::move(*array));
  }
  return !arrays.empty();
}

double relative(double got, double want) {
  return std::fabs(got - want) / std::fabs(want);
}

int trainCheck(const char *name, const char *cpuPath, const char *gpuPath,
               float lr, int64_t steps, const std::vector<npy::Array> &arrays) {
  std::unique_ptr<ModelLibrary> cpu = load(cpuPath), gpu = load(gpuPath);
  if (!cpu || !gpu)
    return 1;
  Run want = train(*cpu, arrays, lr, steps);
  if (want.status != MIXPREC_OK) {
    check(false, "train %s on the CPU: %s", name, want.error.c_str());
    return 1;
  }
  std::printf("FIGURE train %s on the CPU: loss %.6f at step 1, %.6f at step "
              "%lld; loss scale %g, %lld steps skipped\n",
              name, want.loss.front(), want.loss.back(), (long long)steps,
              want.scale.back(), (long long)want.skipped.back());
  Run got = train(*gpu, arrays, lr, steps);
  if (got.status == MIXPREC_UNAVAILABLE) {
    std::printf("SKIP train %s on the GPU: %s\n", name, got.error.c_str());
    return kUnavailable;
  }
  if (got.status != MIXPREC_OK) {
    check(false, "train %s on the GPU, step %zu: %s", name, got.loss.size() + 1,
          got.error.c_str());
    return 1;
  }
  // Tolerances for f32 sums taken in another order, measured on the CPU
  // library alone: a 1-ulp change of the initial weights, or the library
  // built with --vectorize=false (reductions reordered), moves the losses of
  // steps 1-10 by up to 2.5e-5 (AdamW turns rounding noise into lr-sized
  // steps). Training amplifies rounding: single late losses of the digits
  // MLP move by up to 2.2e-2 (the transformer: 1e-3), the mean of the last
  // 20 by under 1e-3; the loss scale and skipped steps never change. A wrong
  // kernel is off by far more.
  double early = 0, every = 0;
  size_t worst = 0;
  for (size_t s = 0; s < size_t(steps); ++s) {
    double diff = relative(got.loss[s], want.loss[s]);
    if (!(diff <= every)) {
      every = diff;
      worst = s;
    }
    if (s < 10 && !(diff <= early))
      early = diff;
  }
  check(early <= 1e-4,
        "train %s: steps 1-10, max relative loss difference %.2e (tolerance "
        "1e-4)",
        name, early);
  check(every <= 5e-2,
        "train %s: all %lld steps, max relative loss difference %.2e at step "
        "%zu (tolerance 5e-2); final loss CPU %.6f, GPU %.6f",
        name, (long long)steps, every, worst + 1, want.loss.back(),
        got.loss.back());
  size_t tail = std::min<size_t>(20, size_t(steps));
  double wantTail = 0, gotTail = 0;
  for (size_t s = size_t(steps) - tail; s < size_t(steps); ++s) {
    wantTail += want.loss[s] / double(tail);
    gotTail += got.loss[s] / double(tail);
  }
  check(relative(gotTail, wantTail) <= 1e-2,
        "train %s: mean loss of the last %zu steps CPU %.6f, GPU %.6f, "
        "relative difference %.2e (tolerance 1e-2)",
        name, tail, wantTail, gotTail, relative(gotTail, wantTail));
  size_t mismatch = 0;
  while (mismatch < size_t(steps) &&
         got.scale[mismatch] == want.scale[mismatch] &&
         got.skipped[mismatch] == want.skipped[mismatch])
    ++mismatch;
  std::string when =
      mismatch == size_t(steps)
          ? "identical after every step"
          : "first differ after step " + std::to_string(mismatch + 1);
  check(mismatch == size_t(steps),
        "train %s: loss scale CPU %g, GPU %g; skipped steps CPU %lld, GPU "
        "%lld (%s)",
        name, want.scale.back(), got.scale.back(),
        (long long)want.skipped.back(), (long long)got.skipped.back(),
        when.c_str());
  return exitStatus("");
}

int memoryCheck(const char *name, const char *fp32Path, const char *ampPath,
                float lr, const std::vector<npy::Array> &arrays) {
  std::unique_ptr<ModelLibrary> fp32 = load(fp32Path), amp = load(ampPath);
  if (!fp32 || !amp)
    return 1;
  // A few steps: every step allocates the same, so the peak is reached in
  // the first; more make sure nothing grows.
  const int64_t steps = 3;
  int64_t peaks[2];
  const char *labels[2] = {"FP32", "AMP f16"};
  const ModelLibrary *libraries[2] = {fp32.get(), amp.get()};
  for (int i = 0; i < 2; ++i) {
    Run run = train(*libraries[i], arrays, lr, steps);
    if (run.status == MIXPREC_UNAVAILABLE) {
      std::printf("SKIP memory %s on the GPU: %s\n", name, run.error.c_str());
      return kUnavailable;
    }
    if (run.status == MIXPREC_OK && run.memoryError.empty() &&
        run.peakBytes <= 0)
      run.memoryError = "no device memory counted";
    if (run.status != MIXPREC_OK || !run.memoryError.empty()) {
      check(false, "memory %s %s train step: %s", name, labels[i],
            run.status != MIXPREC_OK ? run.error.c_str()
                                     : run.memoryError.c_str());
      return 1;
    }
    peaks[i] = run.peakBytes;
    std::printf("FIGURE memory %s %s train step: peak %lld bytes (%.3f MiB) "
                "over %lld steps, %lld held between steps\n",
                name, labels[i], (long long)run.peakBytes,
                double(run.peakBytes) / (1 << 20), (long long)steps,
                (long long)run.currentBytes);
  }
  std::printf("FIGURE memory %s AMP f16 / FP32 peak: %.3f\n", name,
              double(peaks[1]) / double(peaks[0]));
  return 0;
}

//===----------------------------------------------------------------------===//
// gemm-time: the speed of a bf16 GEMM in a CUDA library
//===----------------------------------------------------------------------===//

int gemmTime(const char *path, const char *tflopsFile) {
  std::unique_ptr<ModelLibrary> library = load(path);
  if (!library)
    return 1;
  const mixprec_function *one = library->find("chain1");
  const mixprec_function *five = library->find("chain5");
  if (!one || !five) {
    check(false, "gemm-time: %s has no chain1 and chain5", path);
    return 1;
  }
  std::vector<Tensor> inputs, outputs;
  std::mt19937 rng(0);
  for (int32_t i = 0; i < one->num_inputs; ++i) {
    inputs.emplace_back(one->inputs[i]);
    fillRandom(inputs.back(), rng);
  }
  outputs.emplace_back(one->outputs[0]);
  std::vector<mixprec_tensor> in = views(inputs), out = views(outputs);
  const Tensor &a = inputs[0], &b = inputs[1];
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  std::string error;
  // Wall time of one call, or -1 after printing why it failed.
  auto timeCall = [&](const char *name) {
    auto start = std::chrono::steady_clock::now();
    mixprec_status status = library->call(name, in, out, error);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (status == MIXPREC_UNAVAILABLE)
      std::printf("SKIP gemm-time on the GPU: %s\n", error.c_str());
    else if (status != MIXPREC_OK)
      check(false, "gemm-time %s: %s", name, error.c_str());
    return status == MIXPREC_OK ? seconds : -1.0;
  };
  // The first call also loads the kernels: a warm-up, and the result of one
  // GEMM to spot-check.
  if (timeCall("chain1") < 0)
    return failures ? 1 : kUnavailable;
  // 64 entries against float64 sums. K = 4096 reordered f32 sums are off by
  // about 2^-24 * sqrt(K) ~ 4e-6 of the largest entry; a bf16 accumulator
  // by 4e-3.
  double maxDiff = 0, maxRef = 0;
  for (int sample = 0; sample < 64; ++sample) {
    int64_t row = rng() % m, column = rng() % n;
    double want = 0;
    for (int64_t i = 0; i < k; ++i)
      want += double(a.bf16At(row * k + i)) * double(b.bf16At(i * n + column));
    double diff =
        std::fabs(double(outputs[0].floats()[row * n + column]) - want);
    if (!(diff <= maxDiff))
      maxDiff = diff;
    maxRef = std::max(maxRef, std::fabs(want));
  }
  check(maxDiff / maxRef <= 1e-4,
        "gemm-time chain1 result: 64 entries against float64 dot products, "
        "max error / max |entry| = %.2e (tolerance 1e-4)",
        maxDiff / maxRef);
  if (timeCall("chain5") < 0)
    return 1;
  // The best of a few calls: copies of 64 MiB each way vary more than the
  // GEMMs do.
  double best1 = 1e30, best5 = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    double t1 = timeCall("chain1"), t5 = timeCall("chain5");
    if (t1 < 0 || t5 < 0)
      return 1;
    best1 = std::min(best1, t1);
    best5 = std::min(best5, t5);
  }
  double flops = 2.0 * double(m) * double(n) * double(k);
  std::printf("FIGURE bf16 GEMM %lldx%lldx%lld, mixprec: a call with 1 GEMM "
              "%.2f ms, with 5 chained GEMMs %.2f ms (best of 5; each call "
              "copies A and B to the GPU and the f32 result back)\n",
              (long long)m, (long long)k, (long long)n, best1 * 1e3,
              best5 * 1e3);
  double perGemm = (best5 - best1) / 4;
  if (perGemm <= 0) {
    check(false, "gemm-time: 5 GEMMs took no longer than 1: the copies' "
                 "noise hides the GEMMs");
    return 1;
  }
  double tflops = flops / perGemm / 1e12;
  std::printf("FIGURE bf16 GEMM %lldx%lldx%lld, mixprec: (t5 - t1) / 4 = "
              "%.3f ms per GEMM (copies excluded; one f32->bf16 cast "
              "included) = %.1f TFLOP/s\n",
              (long long)m, (long long)k, (long long)n, perGemm * 1e3, tflops);
  if (tflopsFile) {
    if (FILE *file = std::fopen(tflopsFile, "w")) {
      std::fprintf(file, "%.3f\n", tflops);
      std::fclose(file);
    }
  }
  return exitStatus("");
}

int usage() {
  std::fprintf(stderr,
               "usage: model_check gemm CPU.so CUDA.so\n"
               "       model_check train NAME CPU.so CUDA.so LR STEPS "
               "BATCH.npy...\n"
               "       model_check memory NAME FP32.so AMP.so LR BATCH.npy...\n"
               "       model_check gemm-time CHAIN.so [TFLOPS_FILE]\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::string command = argc > 1 ? argv[1] : "";
  std::vector<npy::Array> arrays;
  if (command == "gemm" && argc == 4)
    return gemm(argv[2], argv[3]);
  if (command == "train" && argc >= 8 && std::atoll(argv[6]) >= 1)
    return readArrays(argv + 7, argc - 7, arrays)
               ? trainCheck(argv[2], argv[3], argv[4], std::atof(argv[5]),
                            std::atoll(argv[6]), arrays)
               : 1;
  if (command == "memory" && argc >= 7)
    return readArrays(argv + 6, argc - 6, arrays)
               ? memoryCheck(argv[2], argv[3], argv[4], std::atof(argv[5]),
                             arrays)
               : 1;
  if (command == "gemm-time" && (argc == 3 || argc == 4))
    return gemmTime(argv[2], argc == 4 ? argv[3] : nullptr);
  return usage();
}
