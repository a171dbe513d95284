//===- Train.cpp - `mixprec-run train`: the training loop -----------------===//
//
// Trains a compiled model through its trainer ABI on .npy arrays: one array
// per batch input of the train step, each with the samples along dim 0.
// Every epoch takes a fresh shuffle from a fixed seed and drops its last
// partial batch.
//
//===----------------------------------------------------------------------===//

#include "Train.h"
#include "Npy.h"
#include "TrainerABI.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>

namespace mixprec {

namespace {

struct TrainOptions {
  std::vector<std::string> data;
  std::string step = "train";
  double lr = 0.01;
  int64_t steps = 100;
  uint64_t seed = 0;
  int64_t logEvery = 50;
  std::string evalFunction;
  std::string evalData, evalLabels;
  std::string resume, save;
};

int fail(const std::string &message) {
  std::fprintf(stderr, "mixprec-run train: error: %s\n", message.c_str());
  return 1;
}

/// Parses "--name value" pairs; an error message on failure.
std::string parse(const std::vector<std::string> &args, TrainOptions &options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &flag = args[i];
    if (i + 1 >= args.size())
      return "option '" + flag + "' needs a value";
    const std::string &value = args[++i];
    char *end = nullptr;
    auto number = [&](double &out) {
      out = std::strtod(value.c_str(), &end);
      return !value.empty() && *end == '\0';
    };
    auto integer = [&](int64_t &out, int64_t min) {
      out = std::strtoll(value.c_str(), &end, 10);
      return !value.empty() && *end == '\0' && out >= min;
    };
    int64_t parsed = 0;
    if (flag == "--data")
      options.data.push_back(value);
    else if (flag == "--step")
      options.step = value;
    else if (flag == "--lr") {
      if (!number(options.lr) || !(options.lr >= 0.0))
        return "--lr needs a number >= 0, got '" + value + "'";
    } else if (flag == "--steps") {
      if (!integer(options.steps, 1))
        return "--steps needs an integer >= 1, got '" + value + "'";
    } else if (flag == "--seed") {
      if (!integer(parsed, 0))
        return "--seed needs an integer >= 0, got '" + value + "'";
      options.seed = uint64_t(parsed);
    } else if (flag == "--log-every") {
      if (!integer(options.logEvery, 0))
        return "--log-every needs an integer >= 0, got '" + value + "'";
    } else if (flag == "--eval")
      options.evalFunction = value;
    else if (flag == "--eval-data")
      options.evalData = value;
    else if (flag == "--resume")
      options.resume = value;
    else if (flag == "--save")
      options.save = value;
    else if (flag == "--eval-labels")
      options.evalLabels = value;
    else
      return "unknown option '" + flag + "' (see mixprec-run train --help)";
  }
  if (options.data.empty())
    return "no --data arrays (one per batch input of the train step)";
  bool anyEval = !options.evalFunction.empty() || !options.evalData.empty() ||
                 !options.evalLabels.empty();
  bool allEval = !options.evalFunction.empty() && !options.evalData.empty() &&
                 !options.evalLabels.empty();
  if (anyEval && !allEval)
    return "--eval, --eval-data and --eval-labels go together";
  return "";
}

size_t rowBytes(const npy::Array &array) {
  size_t elements = 1;
  for (size_t dim = 1; dim < array.shape.size(); ++dim)
    elements *= size_t(array.shape[dim]);
  return elements * mixprec_dtype_size(array.dtype);
}

mixprec_tensor tensorOf(npy::Array &array) {
  return {array.data.data(), array.dtype, int32_t(array.shape.size()),
          array.shape.data()};
}

/// The share of rows whose largest output (last dim) is at the label.
std::optional<double> accuracy(const npy::Array &logits,
                               const npy::Array &labels, std::string &error) {
  if (logits.dtype != MIXPREC_F32 || logits.shape.size() != 2) {
    error = "--eval: the function's result 0 must be f32 [rows, classes]";
    return std::nullopt;
  }
  if ((labels.dtype != MIXPREC_I32 && labels.dtype != MIXPREC_I64) ||
      labels.shape.size() != 1 || labels.shape[0] != logits.shape[0]) {
    error = "--eval-labels must be i32 or i64 [" +
            std::to_string(logits.shape[0]) + "]";
    return std::nullopt;
  }
  int64_t rows = logits.shape[0], classes = logits.shape[1], correct = 0;
  const float *values = reinterpret_cast<const float *>(logits.data.data());
  for (int64_t row = 0; row < rows; ++row) {
    const float *scores = values + row * classes;
    int64_t best = std::max_element(scores, scores + classes) - scores;
    int64_t label =
        labels.dtype == MIXPREC_I32
            ? reinterpret_cast<const int32_t *>(labels.data.data())[row]
            : reinterpret_cast<const int64_t *>(labels.data.data())[row];
    correct += best == label;
  }
  return double(correct) / double(rows);
}

} // namespace

const char *trainUsage() {
  return "usage: mixprec-run train <model.so|model.mlir> --data <array.npy>... "
         "[options]\n"
         "  --data A.npy        one per batch input of the step, in order; "
         "samples along dim 0\n"
         "  --amp OPTIONS       (model.mlir only) compile with the "
         "mixed-precision pipeline,\n"
         "                      e.g. \"precision=f16\" (default: FP32, "
         "--autodiff)\n"
         "  --step NAME         the train step (default train)\n"
         "  --lr X              learning rate (default 0.01)\n"
         "  --steps N           optimizer steps (default 100)\n"
         "  --seed S            shuffle and RNG seed (default 0)\n"
         "  --log-every N       progress every N steps (default 50; 0: "
         "none)\n"
         "  --resume C          start from checkpoint C\n"
         "  --save C            write a checkpoint to C after training\n"
         "  --eval F --eval-data X.npy --eval-labels Y.npy\n"
         "                      after training, run F on X (any number of "
         "rows) and print\n"
         "                      the accuracy of its argmax against Y\n";
}

int runTrain(const ModelLibrary &library,
             const std::vector<std::string> &args) {
  TrainOptions options;
  std::string error = parse(args, options);
  if (!error.empty())
    return fail(error);
  TrainerABI abi;
  if (!abi.resolve(library))
    return fail("the model has no trainer ABI (recompile it)");
  const mixprec_function *step = library.find(options.step);
  if (!step)
    return fail("the model has no function '" + options.step + "'");

  mixprec_trainer *trainer = nullptr;
  if (abi.create(options.step.c_str(), options.seed, &trainer) != MIXPREC_OK)
    return fail(abi.lastError());
  struct Destroy {
    TrainerABI &abi;
    mixprec_trainer *trainer;
    ~Destroy() { abi.destroy(trainer); }
  } destroy{abi, trainer};
  if (!options.resume.empty()) {
    if (abi.load(trainer, options.resume.c_str()) != MIXPREC_OK)
      return fail(abi.lastError());
    std::printf("resumed from %s at step %lld\n", options.resume.c_str(),
                (long long)abi.stepCount(trainer));
  }

  // Progress shows the loss scale where the step has one.
  bool scaled = false;
  std::string scaleName = options.step + ".loss_scale";
  for (int32_t i = 0; i < abi.numStates(); ++i)
    scaled |= scaleName == abi.stateAt(i)->name;

  std::vector<const mixprec_tensor_spec *> batchSpecs = abi.batchInputs(*step);
  if (batchSpecs.size() != options.data.size())
    return fail(options.step + " takes " + std::to_string(batchSpecs.size()) +
                " batch inputs, got " + std::to_string(options.data.size()) +
                " --data arrays");
  std::vector<npy::Array> data, batches;
  int64_t samples = -1, batchSize = 0;
  for (size_t i = 0; i < options.data.size(); ++i) {
    std::optional<npy::Array> array = npy::read(options.data[i], error);
    if (!array)
      return fail(error);
    const mixprec_tensor_spec &spec = *batchSpecs[i];
    bool matches = array->dtype == spec.dtype && spec.rank >= 1 &&
                   int32_t(array->shape.size()) == spec.rank &&
                   std::equal(array->shape.begin() + 1, array->shape.end(),
                              spec.shape + 1);
    if (!matches || (samples >= 0 && array->shape[0] != samples))
      return fail(options.data[i] + ": must be " +
                  mixprec_dtype_name(spec.dtype) +
                  " with the shape of batch input '" + spec.name +
                  "' but dim 0, and as many samples as the other arrays");
    if (spec.shape[0] < 1 || (batchSize && spec.shape[0] != batchSize))
      return fail(options.step + ": every batch input needs the same "
                                 "batch size (dim 0) to train on samples");
    samples = array->shape[0];
    batchSize = spec.shape[0];
    npy::Array batch;
    batch.dtype = spec.dtype;
    batch.shape.assign(spec.shape, spec.shape + spec.rank);
    batch.data.resize(size_t(batchSize) * rowBytes(*array));
    batches.push_back(std::move(batch));
    data.push_back(std::move(*array));
  }
  int64_t perEpoch = samples / batchSize;
  if (perEpoch < 1)
    return fail("the data has " + std::to_string(samples) +
                " samples, fewer than one batch of " +
                std::to_string(batchSize));

  std::mt19937_64 shuffle(options.seed);
  std::vector<int64_t> order(static_cast<size_t>(samples));
  std::vector<mixprec_tensor> tensors;
  for (npy::Array &batch : batches)
    tensors.push_back(tensorOf(batch));
  auto start = std::chrono::steady_clock::now();
  auto logStart = start;
  float loss = 0.0f;
  // A resumed run continues the schedule: its epochs' shuffles are replayed
  // up to the steps already taken, applied or skipped.
  int64_t first = abi.stepCount(trainer) + abi.skippedSteps(trainer);
  int64_t sinceLog = 0;
  for (int64_t s = 0; s < first + options.steps; ++s) {
    if (s % perEpoch == 0) {
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), shuffle);
    }
    if (s < first)
      continue;
    ++sinceLog;
    for (size_t i = 0; i < data.size(); ++i) {
      size_t bytes = rowBytes(data[i]);
      for (int64_t row = 0; row < batchSize; ++row)
        std::memcpy(batches[i].data.data() + row * bytes,
                    data[i].data.data() +
                        order[(s % perEpoch) * batchSize + row] * bytes,
                    bytes);
    }
    if (abi.step(trainer, tensors.data(), int32_t(tensors.size()),
                 float(options.lr), &loss) != MIXPREC_OK)
      return fail(abi.lastError());
    if (abi.skipped(trainer)) {
      // The diagnosis: which gradients overflowed.
      std::printf("step %lld skipped: non-finite gradients of",
                  (long long)(s + 1));
      for (int32_t i = 0; const char *name = abi.nonfinite(trainer, i); ++i)
        std::printf("%s %s", i ? "," : "", name);
      std::printf("; loss scale now %g\n", abi.lossScale(trainer));
    }
    if (options.logEvery > 0 &&
        ((s + 1) % options.logEvery == 0 || s + 1 == first + options.steps)) {
      auto now = std::chrono::steady_clock::now();
      double seconds = std::chrono::duration<double>(now - logStart).count();
      std::printf("step %lld  loss %.6f  samples/s %.0f", (long long)(s + 1),
                  loss, double(sinceLog * batchSize) / seconds);
      if (scaled)
        std::printf("  scale %g  skipped %lld", abi.lossScale(trainer),
                    (long long)abi.skippedSteps(trainer));
      std::printf("\n");
      std::fflush(stdout);
      logStart = now;
      sinceLog = 0;
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("trained %lld steps of %lld samples in %.3f s (%.0f samples/s)"
              ", final loss %.6f",
              (long long)options.steps, (long long)batchSize, seconds,
              double(options.steps * batchSize) / seconds, loss);
  if (scaled)
    std::printf(", %lld skipped, %lld applied",
                (long long)abi.skippedSteps(trainer),
                (long long)abi.stepCount(trainer));
  std::printf("\n");
  int64_t deviceBytes, peakDeviceBytes;
  if (abi.deviceMemory &&
      abi.deviceMemory(&deviceBytes, &peakDeviceBytes) == MIXPREC_OK)
    std::printf("peak GPU memory %.3f MiB\n",
                double(peakDeviceBytes) / (1 << 20));
  if (!options.save.empty()) {
    if (abi.save(trainer, options.save.c_str()) != MIXPREC_OK)
      return fail(abi.lastError());
    std::printf("saved a checkpoint to %s\n", options.save.c_str());
  }

  if (options.evalFunction.empty())
    return 0;
  const mixprec_function *eval = library.find(options.evalFunction);
  if (!eval || eval->num_outputs < 1)
    return fail("the model has no function '" + options.evalFunction +
                "' with a result");
  std::optional<npy::Array> x = npy::read(options.evalData, error);
  std::optional<npy::Array> labels =
      x ? npy::read(options.evalLabels, error) : std::nullopt;
  if (!x || !labels)
    return fail(error);
  npy::Array logits;
  const mixprec_tensor_spec &out = eval->outputs[0];
  logits.dtype = out.dtype;
  logits.shape.assign(out.shape, out.shape + out.rank);
  if (logits.shape.empty() || x->shape.empty())
    return fail("--eval needs a function with per-row inputs and results");
  logits.shape[0] = x->shape[0];
  logits.data.resize(size_t(x->shape[0]) * rowBytes(logits));
  mixprec_tensor input = tensorOf(*x), output = tensorOf(logits);
  if (abi.evaluate(trainer, options.evalFunction.c_str(), x->shape[0], &input,
                   1, &output, 1) != MIXPREC_OK)
    return fail(abi.lastError());
  std::optional<double> share = accuracy(logits, *labels, error);
  if (!share)
    return fail(error);
  std::printf("%s accuracy %.4f on %lld samples\n",
              options.evalFunction.c_str(), *share, (long long)x->shape[0]);
  return 0;
}

} // namespace mixprec
