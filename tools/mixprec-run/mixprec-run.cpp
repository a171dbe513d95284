//===- mixprec-run.cpp - run a compiled model on .npy files ---------------===//
//
//   mixprec-run libmodel.so --list
//   mixprec-run libmodel.so loss -i x.npy -i labels.npy -o loss.npy
//   mixprec-run model.mlir loss -i ...        (compiles with mixprec-compile)
//   mixprec-run train model.mlir --data x.npy --data labels.npy ...
//                                             (Train.cpp: the training loop)
//
// Inputs are checked against the function's signature before the call; a
// wrong count, dtype or shape is an error that names the argument.
//
//===----------------------------------------------------------------------===//

#include "Dtype.h"
#include "ModelLibrary.h"
#include "Npy.h"
#include "Train.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "mixprec-run: error: %s\n", message.c_str());
  return 1;
}

void usage(FILE *stream) {
  std::fprintf(
      stream,
      "usage: mixprec-run <model.so|model.mlir> --list\n"
      "       mixprec-run <model.so|model.mlir> <function> "
      "[-i input.npy]... [-o output.npy]...\n"
      "       mixprec-run train <model.so|model.mlir> "
      "--data <array.npy>... [options] (--help)\n"
      "A model.mlir is compiled first. A library's ELF headers are checked "
      "before it is\n"
      "loaded (a truncated or foreign file is an error). --list shows each "
      "function's\n"
      "inputs and outputs by name (inputs keep their source names); -i takes "
      "one .npy\n"
      "per input, in order, each checked against its dtype and shape.\n");
}

/// "f32[2, 3]"
std::string typeText(mixprec_dtype dtype, int32_t rank, const int64_t *shape) {
  std::string text = std::string(mixprec::dtypeName(dtype)) + "[";
  for (int32_t i = 0; i < rank; ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

/// "x: f32[2, 3]"
std::string describe(const mixprec_tensor_spec &spec) {
  return std::string(spec.name) + ": " +
         typeText(spec.dtype, spec.rank, spec.shape);
}

/// "(x: f32[2, 3], y: i32[2])"
std::string describe(const mixprec_tensor_spec *specs, int32_t count) {
  std::string text = "(";
  for (int32_t i = 0; i < count; ++i)
    text += (i ? ", " : "") + describe(specs[i]);
  return text + ")";
}

/// The .npy file `path` read as input `index` of `fn`: an error naming the
/// file and the argument when its dtype or shape is not the spec's.
std::string checkInput(const mixprec_function &fn, int32_t index,
                       const std::string &path,
                       const mixprec::npy::Array &array) {
  const mixprec_tensor_spec &spec = fn.inputs[index];
  bool matches = array.dtype == spec.dtype &&
                 int32_t(array.shape.size()) == spec.rank &&
                 std::equal(array.shape.begin(), array.shape.end(), spec.shape);
  if (matches)
    return "";
  return path + ": input " + std::to_string(index) + " ('" + spec.name +
         "') of " + fn.name + " must be " +
         typeText(spec.dtype, spec.rank, spec.shape) + ", got " +
         typeText(array.dtype, int32_t(array.shape.size()), array.shape.data());
}

/// The data pointer of a tensor, which must not be null: an empty vector's
/// data() may be, so a tensor without elements points at a dummy byte.
void *dataOf(mixprec::npy::Array &array) {
  static uint8_t noElements;
  return array.data.empty() ? &noElements : array.data.data();
}

/// This executable's directory, with a trailing '/', or "" if unknown.
std::string selfDirectory(const char *argv0) {
  std::string self = argv0;
  char buffer[4096];
  ssize_t size = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (size > 0)
    self.assign(buffer, size_t(size));
  size_t slash = self.rfind('/');
  return slash == std::string::npos ? "" : self.substr(0, slash + 1);
}

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A temporary directory holding a model compiled on the fly; removed, with
/// the library and its header, once the library is loaded (or not).
struct CompiledModel {
  std::string dir;
  ~CompiledModel() {
    if (dir.empty())
      return;
    unlink((dir + "/libmodel.so").c_str());
    unlink((dir + "/libmodel.h").c_str());
    rmdir(dir.c_str());
  }
};

/// Compiles `source` with the mixprec-compile next to this executable (found
/// through /proc/self/exe, so also when this one was found on PATH), adding
/// `option` unless it is empty.
bool compileModel(const char *argv0, const std::string &source,
                  const std::string &option, CompiledModel &compiled,
                  std::string &library, std::string &error) {
  std::string tool = selfDirectory(argv0) + "mixprec-compile";
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/mixprec-run-XXXXXX";
  if (!mkdtemp(pattern.data())) {
    error = "cannot create a temporary directory in " +
            pattern.substr(0, pattern.rfind('/'));
    return false;
  }
  compiled.dir = pattern;
  library = pattern + "/libmodel.so";
  pid_t pid = fork();
  if (pid == 0) {
    execl(tool.c_str(), tool.c_str(), source.c_str(), "-o", library.c_str(),
          option.empty() ? static_cast<char *>(nullptr) : option.c_str(),
          static_cast<char *>(nullptr));
    std::perror(tool.c_str());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    error = "compiling " + source + " failed";
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2 &&
      (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    usage(stdout);
    return 0;
  }
  // `train ... --help` anywhere among the options: the training options.
  for (int i = 2; i < argc && std::string(argv[1]) == "train"; ++i)
    if (std::string(argv[i]) == "--help") {
      std::fputs(mixprec::trainUsage(), stdout);
      return 0;
    }
  if (argc < 3) {
    usage(stderr);
    return 1;
  }
  // `train` compiles an .mlir model with its train step.
  bool train = std::string(argv[1]) == "train";
  std::string model = argv[train ? 2 : 1];
  std::string function = train ? "" : argv[2];
  // A model compiled here for training gets its train step: --autodiff, or
  // the mixed-precision pipeline of `--amp OPTIONS`. A compiled library
  // takes no --amp: parseTrainOptions refuses it.
  bool compiles = endsWith(model, ".mlir");
  std::vector<std::string> trainArgs;
  std::string compileOption = train ? "--autodiff" : "";
  bool amp = false;
  for (int i = 3; i < argc && train; ++i) {
    if (compiles && std::string(argv[i]) == "--amp" && i + 1 < argc) {
      if (amp) {
        std::fprintf(stderr, "mixprec-run train: error: option '--amp' is "
                             "given twice\n");
        return 1;
      }
      amp = true;
      compileOption = std::string("--amp=") + argv[++i];
    } else {
      trainArgs.push_back(argv[i]);
    }
  }
  // Options are checked before the model is compiled or loaded.
  mixprec::TrainOptions trainOptions;
  if (train)
    if (std::string problem =
            mixprec::parseTrainOptions(trainArgs, trainOptions);
        !problem.empty()) {
      std::fprintf(stderr, "mixprec-run train: error: %s\n", problem.c_str());
      return 1;
    }
  std::vector<std::string> inputPaths, outputPaths;
  for (int i = 3; i < argc && !train; ++i) {
    std::string flag = argv[i];
    if ((flag == "-i" || flag == "-o") && i + 1 < argc) {
      (flag == "-i" ? inputPaths : outputPaths).push_back(argv[++i]);
      continue;
    }
    usage(stderr);
    return fail("unexpected argument '" + flag + "'");
  }

  std::string error, library = model;
  std::unique_ptr<mixprec::ModelLibrary> lib;
  {
    CompiledModel compiled; // a loaded library stays mapped once removed
    if (compiles &&
        !compileModel(argv[0], model, compileOption, compiled, library, error))
      return fail(error);
    lib = mixprec::ModelLibrary::open(library, error);
  }
  if (!lib)
    return fail(error);
  if (train)
    return mixprec::runTrain(*lib, trainOptions);

  if (function == "--list") {
    for (const mixprec_function *fn : lib->functions()) {
      std::printf("%s(", fn->name);
      for (int32_t i = 0; i < fn->num_inputs; ++i)
        std::printf("%s%s", i ? ", " : "", describe(fn->inputs[i]).c_str());
      std::printf(") -> (");
      for (int32_t i = 0; i < fn->num_outputs; ++i)
        std::printf("%s%s", i ? ", " : "", describe(fn->outputs[i]).c_str());
      std::printf(")\n");
    }
    return 0;
  }

  const mixprec_function *fn = lib->find(function);
  if (!fn)
    return fail("the model has no function '" + function + "' (see --list)");
  int32_t numInputs = int32_t(inputPaths.size());
  if (numInputs < fn->num_inputs)
    return fail(function + " takes " + std::to_string(fn->num_inputs) +
                " inputs " + describe(fn->inputs, fn->num_inputs) + ", got " +
                std::to_string(numInputs) + ": input " +
                std::to_string(numInputs) + " ('" + fn->inputs[numInputs].name +
                "') is missing");
  if (numInputs > fn->num_inputs)
    return fail(function + " takes " + std::to_string(fn->num_inputs) +
                " inputs " + describe(fn->inputs, fn->num_inputs) + ", got " +
                std::to_string(numInputs) + ": " + inputPaths[fn->num_inputs] +
                " is one too many");
  if (!outputPaths.empty() && int32_t(outputPaths.size()) != fn->num_outputs)
    return fail(function + " has " + std::to_string(fn->num_outputs) +
                " outputs, got " + std::to_string(outputPaths.size()) +
                " output files");

  std::vector<mixprec::npy::Array> inputs;
  for (int32_t i = 0; i < numInputs; ++i) {
    std::optional<mixprec::npy::Array> array =
        mixprec::npy::read(inputPaths[i], error);
    if (!array)
      return fail(error);
    std::string mismatch = checkInput(*fn, i, inputPaths[i], *array);
    if (!mismatch.empty())
      return fail(mismatch);
    inputs.push_back(std::move(*array));
  }
  std::vector<mixprec::npy::Array> outputs(fn->num_outputs);
  std::vector<mixprec_tensor> inputTensors, outputTensors;
  for (mixprec::npy::Array &array : inputs)
    inputTensors.push_back({dataOf(array), array.dtype,
                            int32_t(array.shape.size()), array.shape.data()});
  for (int32_t i = 0; i < fn->num_outputs; ++i) {
    const mixprec_tensor_spec &spec = fn->outputs[i];
    mixprec::npy::Array &array = outputs[i];
    array.dtype = spec.dtype;
    array.shape.assign(spec.shape, spec.shape + spec.rank);
    size_t elements = 1;
    for (int64_t size : array.shape)
      elements *= size_t(size);
    array.data.resize(elements * mixprec::dtypeSize(spec.dtype));
    outputTensors.push_back(
        {dataOf(array), array.dtype, spec.rank, array.shape.data()});
  }
  if (lib->call(function, inputTensors, outputTensors, error) != MIXPREC_OK)
    return fail(error);

  for (int32_t i = 0; i < fn->num_outputs; ++i) {
    if (outputPaths.empty()) {
      std::printf("%s\n", describe(fn->outputs[i]).c_str());
      continue;
    }
    if (!mixprec::npy::write(outputPaths[i], outputs[i], error))
      return fail(error);
  }
  return 0;
}
