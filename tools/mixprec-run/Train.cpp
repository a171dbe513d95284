//===- Train.cpp - `mixprec-run train`: the training loop -----------------===//
//
// Trains a compiled model through its trainer ABI on .npy arrays: one array
// per batch input of the train step, each with the samples along dim 0.
// Every epoch takes a fresh shuffle from a fixed seed and drops its last
// partial batch. Everything a run needs (options, data, the eval function and
// its data, the checkpoint's directory) is checked before the first step, so
// a mistake never costs a finished run; a run whose weights stop being finite
// stops with exit status 1.
//
//===----------------------------------------------------------------------===//

#include "Train.h"
#include "Dtype.h"
#include "Npy.h"
#include "ResidentMemory.h"
#include "TrainerABI.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace mixprec {

namespace {

/// The most steps one run takes: far beyond any run, and small enough that
/// step numbers never overflow.
constexpr int64_t kMaxSteps = 1'000'000'000'000;

int fail(const std::string &message) {
  std::fprintf(stderr, "mixprec-run train: error: %s\n", message.c_str());
  return 1;
}

/// `text` as an integer in [min, max]; false for anything else (empty,
/// trailing characters, a sign where none fits, out of range).
bool parseInteger(const std::string &text, int64_t min, int64_t max,
                  int64_t &out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])))
    return false;
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0' || value < min || value > max)
    return false;
  out = value;
  return true;
}

} // namespace

std::string parseTrainOptions(const std::vector<std::string> &args,
                              TrainOptions &options) {
  std::set<std::string> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &flag = args[i];
    if (flag.rfind("--", 0) != 0)
      return "unexpected argument '" + flag +
             "' (options are --name value; see mixprec-run train --help)";
    if (flag != "--data" && !seen.insert(flag).second)
      return "option '" + flag + "' is given twice";
    if (i + 1 >= args.size())
      return "option '" + flag + "' needs a value";
    const std::string &value = args[++i];
    int64_t parsed = 0;
    if (flag == "--data")
      options.data.push_back(value);
    else if (flag == "--step")
      options.step = value;
    else if (flag == "--lr") {
      // The rate reaches the step as an f32: it must be finite there too.
      char *end = nullptr;
      options.lr = std::strtod(value.c_str(), &end);
      if (value.empty() || *end != '\0' || !(options.lr >= 0.0) ||
          !std::isfinite(float(options.lr)))
        return "--lr needs a number >= 0 that is finite as an f32, got '" +
               value + "'";
    } else if (flag == "--steps") {
      if (!parseInteger(value, 1, kMaxSteps, options.steps))
        return "--steps needs an integer from 1 to " +
               std::to_string(kMaxSteps) + ", got '" + value + "'";
    } else if (flag == "--seed") {
      if (!parseInteger(value, 0, INT64_MAX, parsed))
        return "--seed needs an integer from 0 to " +
               std::to_string(INT64_MAX) + ", got '" + value + "'";
      options.seed = uint64_t(parsed);
    } else if (flag == "--log-every") {
      if (!parseInteger(value, 0, kMaxSteps, options.logEvery))
        return "--log-every needs an integer from 0 to " +
               std::to_string(kMaxSteps) + ", got '" + value + "'";
    } else if (flag == "--max-skipped") {
      if (!parseInteger(value, 0, kMaxSteps, options.maxSkipped))
        return "--max-skipped needs an integer from 0 to " +
               std::to_string(kMaxSteps) + ", got '" + value + "'";
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
    else if (flag == "--memory-report")
      options.memoryReport = value;
    else if (flag == "--amp")
      return "--amp compiles a model.mlir; this model is a compiled library "
             "(compile it with mixprec-compile --amp=... instead)";
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

namespace {

/// "" when a checkpoint can be written to `path` (its directory exists and
/// is writable: the checkpoint is a temporary file there, renamed), else
/// why not.
std::string checkOutputPath(const std::string &flag, const std::string &path) {
  if (path.empty() || path.back() == '/')
    return flag + " " + path + ": needs a file name";
  size_t slash = path.rfind('/');
  std::string directory = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  struct stat status;
  if (stat(path.c_str(), &status) == 0 && S_ISDIR(status.st_mode))
    return flag + " " + path + ": is a directory";
  if (stat(directory.c_str(), &status) != 0 || !S_ISDIR(status.st_mode))
    return flag + " " + path + ": the directory " + directory +
           " does not exist";
  if (access(directory.c_str(), W_OK | X_OK) != 0)
    return flag + " " + path + ": the directory " + directory +
           " is not writable";
  return "";
}

/// "f32[2, 3]", with dim 0 as `dim0` when it is not empty.
std::string typeText(mixprec_dtype dtype, size_t rank, const int64_t *shape,
                     const std::string &dim0 = "") {
  std::string text = std::string(dtypeName(dtype)) + "[";
  for (size_t i = 0; i < rank; ++i)
    text += (i ? ", " : "") +
            (i == 0 && !dim0.empty() ? dim0 : std::to_string(shape[i]));
  return text + "]";
}

/// "" when `array` (read from `path`) has the type of `spec` with any
/// number of samples along dim 0, else what differs; `what` names the
/// input ("batch input 'x' of train").
std::string checkSamples(const std::string &path, const npy::Array &array,
                         const mixprec_tensor_spec &spec,
                         const std::string &what) {
  bool matches =
      array.dtype == spec.dtype && spec.rank >= 1 &&
      int32_t(array.shape.size()) == spec.rank &&
      std::equal(array.shape.begin() + 1, array.shape.end(), spec.shape + 1);
  if (matches)
    return "";
  return path + ": " + what + " must be " +
         typeText(spec.dtype, size_t(spec.rank), spec.shape, "N") +
         " (N samples), got " +
         typeText(array.dtype, array.shape.size(), array.shape.data());
}

size_t rowBytes(const npy::Array &array) {
  size_t elements = 1;
  for (size_t dim = 1; dim < array.shape.size(); ++dim)
    elements *= size_t(array.shape[dim]);
  return elements * dtypeSize(array.dtype);
}

mixprec_tensor tensorOf(npy::Array &array) {
  return {array.data.data(), array.dtype, int32_t(array.shape.size()),
          array.shape.data()};
}

/// What --eval runs after training, read and checked before it.
struct Evaluation {
  npy::Array x, labels, logits;
};

/// Reads and checks the --eval function, data and labels; an error message
/// on failure.
std::string prepareEvaluation(const ModelLibrary &library,
                              const TrainerABI &abi,
                              const TrainOptions &options, Evaluation &eval) {
  const std::string &name = options.evalFunction;
  const mixprec_function *function = library.find(name);
  if (!function) {
    std::string known;
    for (const mixprec_function *candidate : library.functions())
      known += (known.empty() ? "" : ", ") + std::string(candidate->name);
    return "--eval " + name + ": the model has no such function; it has " +
           known;
  }
  std::vector<const mixprec_tensor_spec *> inputs =
      abi.evaluateInputs(*function);
  const mixprec_tensor_spec *result =
      function->num_outputs > 0 ? &function->outputs[0] : nullptr;
  if (inputs.size() != 1 || function->num_outputs != 1 ||
      result->dtype != MIXPREC_F32 || result->rank != 2 || inputs[0]->rank < 1)
    return "--eval " + name +
           ": needs a function of one batched input besides the model's "
           "state and one f32 result [rows, classes] (its argmax is the "
           "prediction)";
  std::string error;
  std::optional<npy::Array> x = npy::read(options.evalData, error);
  if (!x)
    return error;
  std::string mismatch =
      checkSamples(options.evalData, *x, *inputs[0],
                   "input '" + std::string(inputs[0]->name) + "' of " + name);
  if (!mismatch.empty())
    return mismatch;
  std::optional<npy::Array> labels = npy::read(options.evalLabels, error);
  if (!labels)
    return error;
  int64_t rows = x->shape[0];
  if ((labels->dtype != MIXPREC_I32 && labels->dtype != MIXPREC_I64) ||
      labels->shape.size() != 1 || labels->shape[0] != rows)
    return options.evalLabels + ": --eval-labels must be i32[" +
           std::to_string(rows) + "] or i64[" + std::to_string(rows) +
           "] (one label per row of " + options.evalData + "), got " +
           typeText(labels->dtype, labels->shape.size(), labels->shape.data());
  if (rows < 1)
    return options.evalData + ": no rows to evaluate";
  eval.logits.dtype = result->dtype;
  eval.logits.shape.assign(result->shape, result->shape + result->rank);
  eval.logits.shape[0] = rows;
  eval.logits.data.resize(size_t(rows) * rowBytes(eval.logits));
  eval.x = std::move(*x);
  eval.labels = std::move(*labels);
  return "";
}

/// The share of rows whose largest output (last dim) is at the label.
double accuracy(const npy::Array &logits, const npy::Array &labels) {
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

/// "8192", "1.5e-05": a loss scale as progress lines show it.
std::string formatScale(float scale) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", double(scale));
  return text;
}

/// ", fc1_weight, fc2_bias": the parameters whose gradients were not finite
/// in the last step.
std::string nonfiniteGradients(const TrainerABI &abi,
                               const mixprec_trainer *trainer) {
  std::string names;
  for (const char *name : abi.nonfiniteParameters(trainer))
    names += std::string(names.empty() ? " " : ", ") + name;
  return names;
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
         "  --lr X              learning rate, >= 0 and finite as an f32 "
         "(default 0.01)\n"
         "  --steps N           optimizer steps, 1 to 10^12 (default 100)\n"
         "  --seed S            shuffle and RNG seed (default 0)\n"
         "  --log-every N       progress every N steps (default 50; 0: "
         "none)\n"
         "  --max-skipped N     stop (exit 1) after N consecutive steps the "
         "loss scaler\n"
         "                      skipped (default 50; 0: never)\n"
         "  --resume C          start from checkpoint C\n"
         "  --save C            write a checkpoint to C after training\n"
         "  --eval F --eval-data X.npy --eval-labels Y.npy\n"
         "                      after training, run F on X (any number of "
         "rows) and print\n"
         "                      the accuracy of its argmax against Y\n"
         "  --memory-report R   print the trainer's memory plan and the "
         "growth of resident\n"
         "                      (and GPU) memory while training, and write "
         "both to R (JSON)\n"
         "Everything is checked before the first step. A step whose loss is "
         "not finite\n"
         "and that was applied (not skipped by a loss scaler) stops the run "
         "with exit\n"
         "status 1: the weights it wrote are not finite either.\n";
}

/// Prints the trainer's memory plan against what was measured (-1: not
/// measured) and writes both as JSON to `path`; "" or what went wrong.
static std::string reportMemory(TrainerABI &abi, mixprec_trainer *trainer,
                                int64_t residentGrowth, int64_t peakDeviceBytes,
                                const std::string &path) {
  mixprec_memory_plan plan;
  if (abi.api.mixprec_trainer_memory(trainer, &plan) != MIXPREC_OK)
    return abi.api.mixprec_last_error();
  std::printf("memory plan: state %lld bytes, workspace %lld, host %lld, "
              "device %lld; measured: peak resident memory grew %lld bytes "
              "while training, peak device memory %lld\n",
              (long long)plan.state_bytes, (long long)plan.workspace_bytes,
              (long long)plan.host_bytes, (long long)plan.device_bytes,
              (long long)residentGrowth, (long long)peakDeviceBytes);
  FILE *file = std::fopen(path.c_str(), "w");
  if (!file)
    return path + ": cannot write the memory report: " + std::strerror(errno);
  std::fprintf(file,
               "{\"planned\": {\"state_bytes\": %lld, \"workspace_bytes\": "
               "%lld, \"host_bytes\": %lld, \"device_bytes\": %lld}, "
               "\"measured\": {\"resident_growth_bytes\": %lld, "
               "\"peak_device_bytes\": %lld}}\n",
               (long long)plan.state_bytes, (long long)plan.workspace_bytes,
               (long long)plan.host_bytes, (long long)plan.device_bytes,
               (long long)residentGrowth, (long long)peakDeviceBytes);
  if (std::fclose(file) != 0)
    return path + ": cannot write the memory report: " + std::strerror(errno);
  return "";
}

int runTrain(const ModelLibrary &library, const TrainOptions &options) {
  std::string error;
  TrainerABI abi(library);
  const mixprec_function *step = library.find(options.step);
  if (!step)
    return fail("the model has no function '" + options.step + "'");
  if (!options.save.empty())
    if (std::string problem = checkOutputPath("--save", options.save);
        !problem.empty())
      return fail(problem);
  if (!options.memoryReport.empty())
    if (std::string problem =
            checkOutputPath("--memory-report", options.memoryReport);
        !problem.empty())
      return fail(problem);
  // The step is a train step (the trainer says why not) before the data is
  // read; the trainer that trains is created once the data is loaded, so
  // that --memory-report counts what it holds.
  mixprec_trainer *trainer = nullptr;
  if (abi.api.mixprec_trainer_create(options.step.c_str(), options.seed,
                                     &trainer) != MIXPREC_OK)
    return fail(abi.api.mixprec_last_error());
  abi.api.mixprec_trainer_destroy(trainer);

  // Progress shows the loss scale where the step has one.
  bool scaled = abi.hasStepState(options.step, MIXPREC_STATE_LOSS_SCALE);

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
    std::string mismatch =
        checkSamples(options.data[i], *array, spec,
                     "batch input " + std::to_string(i) + " ('" + spec.name +
                         "') of " + options.step);
    if (!mismatch.empty())
      return fail(mismatch);
    if (samples >= 0 && array->shape[0] != samples)
      return fail(options.data[i] + ": " + std::to_string(array->shape[0]) +
                  " samples, but " + options.data[0] + " has " +
                  std::to_string(samples) +
                  ": every --data array has one row per sample");
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
  Evaluation eval;
  if (!options.evalFunction.empty())
    if (std::string problem = prepareEvaluation(library, abi, options, eval);
        !problem.empty())
      return fail(problem);

  std::mt19937_64 shuffle(options.seed);
  std::vector<int64_t> order(static_cast<size_t>(samples));
  std::vector<mixprec_tensor> tensors;
  for (npy::Array &batch : batches)
    tensors.push_back(tensorOf(batch));
  // What --memory-report measures starts here: the data and batches are
  // the caller's, the trainer and its steps are the model's.
  if (!options.memoryReport.empty())
    settleResidentMemory();
  bool measured = !options.memoryReport.empty() && resetPeakResidentMemory();
  ResidentMemory before = residentMemory();
  if (abi.api.mixprec_trainer_create(options.step.c_str(), options.seed,
                                     &trainer) != MIXPREC_OK)
    return fail(abi.api.mixprec_last_error());
  struct Destroy {
    TrainerABI &abi;
    mixprec_trainer *trainer;
    ~Destroy() { abi.api.mixprec_trainer_destroy(trainer); }
  } destroy{abi, trainer};

  if (!options.resume.empty()) {
    if (abi.api.mixprec_trainer_load(trainer, options.resume.c_str()) !=
        MIXPREC_OK)
      return fail(abi.api.mixprec_last_error());
    // Step numbers (and the schedule replayed up to them) stay in range.
    int64_t applied = abi.stepCount(trainer);
    int64_t skipped = abi.skippedSteps(trainer);
    if (applied < 0 || skipped < 0 || applied > kMaxSteps ||
        skipped > kMaxSteps)
      return fail(options.resume + ": the checkpoint has taken " +
                  std::to_string(applied) + " steps and skipped " +
                  std::to_string(skipped) + "; each must be from 0 to " +
                  std::to_string(kMaxSteps));
    std::printf("resumed from %s at step %lld\n", options.resume.c_str(),
                (long long)abi.stepCount(trainer));
  }

  auto start = std::chrono::steady_clock::now();
  auto logStart = start;
  float loss = 0.0f;
  // A resumed run continues the schedule: its epochs' shuffles are replayed
  // up to the steps already taken, applied or skipped.
  int64_t first = abi.stepCount(trainer) + abi.skippedSteps(trainer);
  int64_t sinceLog = 0, consecutiveSkips = 0;
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
    if (abi.api.mixprec_trainer_step(trainer, tensors.data(),
                                     int32_t(tensors.size()), float(options.lr),
                                     &loss) != MIXPREC_OK)
      return fail(abi.api.mixprec_last_error());
    bool skipped = abi.skipped(trainer);
    if (skipped) {
      // The diagnosis: which gradients overflowed.
      std::printf("step %lld skipped: non-finite gradients of%s; loss scale "
                  "now %g\n",
                  (long long)(s + 1), nonfiniteGradients(abi, trainer).c_str(),
                  abi.lossScale(trainer));
      consecutiveSkips += 1;
    } else {
      consecutiveSkips = 0;
    }
    if (!skipped && !std::isfinite(loss)) {
      std::fflush(stdout);
      return fail("step " + std::to_string(s + 1) + ": the loss is " +
                  (std::isnan(loss) ? "NaN" : "infinite") +
                  " and the step was applied, so the weights are no longer "
                  "finite; stopped" +
                  (options.save.empty() ? "" : " without saving") +
                  " (a smaller --lr, or --amp with loss scaling, may help)");
    }
    if (options.maxSkipped > 0 && consecutiveSkips >= options.maxSkipped) {
      std::fflush(stdout);
      return fail("stopped after " + std::to_string(consecutiveSkips) +
                  " consecutive skipped steps (" +
                  std::to_string(s + 2 - consecutiveSkips) + " to " +
                  std::to_string(s + 1) + "), loss scale now " +
                  formatScale(abi.lossScale(trainer)) + ": the gradients of" +
                  nonfiniteGradients(abi, trainer) +
                  " are not finite at any scale (see --max-skipped)" +
                  (options.save.empty() ? "" : "; nothing saved"));
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
  // Before anything is printed: stdout's buffer is not the trainer's.
  ResidentMemory after = residentMemory();
  std::printf("trained %lld steps of %lld samples in %.3f s (%.0f samples/s)"
              ", final loss %.6f",
              (long long)options.steps, (long long)batchSize, seconds,
              double(options.steps * batchSize) / seconds, loss);
  if (scaled)
    std::printf(", %lld skipped, %lld applied",
                (long long)abi.skippedSteps(trainer),
                (long long)abi.stepCount(trainer));
  std::printf("\n");
  int64_t deviceBytes = -1, peakDeviceBytes = -1;
  if (abi.api.mixprec_device_memory(&deviceBytes, &peakDeviceBytes) ==
      MIXPREC_OK)
    std::printf("peak GPU memory %.3f MiB\n",
                double(peakDeviceBytes) / (1 << 20));
  if (!options.memoryReport.empty()) {
    int64_t growth = measured ? after.peak - before.current : -1;
    if (std::string problem = reportMemory(
            abi, trainer, growth, peakDeviceBytes, options.memoryReport);
        !problem.empty())
      return fail(problem);
  }
  if (!options.save.empty()) {
    if (abi.api.mixprec_trainer_save(trainer, options.save.c_str()) !=
        MIXPREC_OK)
      return fail(abi.api.mixprec_last_error());
    std::printf("saved a checkpoint to %s\n", options.save.c_str());
  }

  if (options.evalFunction.empty())
    return 0;
  mixprec_tensor input = tensorOf(eval.x), output = tensorOf(eval.logits);
  if (abi.api.mixprec_trainer_evaluate(trainer, options.evalFunction.c_str(),
                                       eval.x.shape[0], &input, 1, &output,
                                       1) != MIXPREC_OK)
    return fail(abi.api.mixprec_last_error());
  std::printf("%s accuracy %.4f on %lld samples\n",
              options.evalFunction.c_str(), accuracy(eval.logits, eval.labels),
              (long long)eval.x.shape[0]);
  return 0;
}

} // namespace mixprec
