//===- mixprec-run.cpp - run a compiled model on .npy files ---------------===//
//
//   mixprec-run libmodel.so --list
//   mixprec-run libmodel.so loss -i x.npy -i labels.npy -o loss.npy
//   mixprec-run model.mlir loss -i ...        (compiles with mixprec-compile)
//
// Inputs are checked against the function's signature before the call; a
// wrong count, dtype or shape is an error that names the argument.
//
//===----------------------------------------------------------------------===//

#include "ModelLibrary.h"
#include "Npy.h"

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

void usage() {
  std::fprintf(stderr,
               "usage: mixprec-run <model.so|model.mlir> --list\n"
               "       mixprec-run <model.so|model.mlir> <function> "
               "[-i input.npy]... [-o output.npy]...\n");
}

std::string describe(const mixprec_tensor_spec &spec) {
  std::string text = std::string(spec.name) + ": " +
                     mixprec_dtype_name(spec.dtype) + "[";
  for (int32_t i = 0; i < spec.rank; ++i)
    text += (i ? ", " : "") + std::to_string(spec.shape[i]);
  return text + "]";
}

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Compiles `source` with the mixprec-compile next to this executable.
bool compileModel(const char *self, const std::string &source,
                  std::string &library, std::string &error) {
  std::string tool = self;
  size_t slash = tool.rfind('/');
  tool = (slash == std::string::npos ? "" : tool.substr(0, slash + 1)) +
         "mixprec-compile";
  char dir[] = "/tmp/mixprec-run-XXXXXX";
  if (!mkdtemp(dir)) {
    error = "cannot create a temporary directory";
    return false;
  }
  library = std::string(dir) + "/libmodel.so";
  pid_t pid = fork();
  if (pid == 0) {
    execl(tool.c_str(), tool.c_str(), source.c_str(), "-o", library.c_str(),
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
  if (argc < 3) {
    usage();
    return 1;
  }
  std::string model = argv[1];
  std::string function = argv[2];
  std::vector<std::string> inputPaths, outputPaths;
  for (int i = 3; i < argc; ++i) {
    std::string flag = argv[i];
    if ((flag == "-i" || flag == "-o") && i + 1 < argc) {
      (flag == "-i" ? inputPaths : outputPaths).push_back(argv[++i]);
      continue;
    }
    usage();
    return fail("unexpected argument '" + flag + "'");
  }

  std::string error, library = model;
  if (endsWith(model, ".mlir") && !compileModel(argv[0], model, library, error))
    return fail(error);
  std::unique_ptr<mixprec::ModelLibrary> lib =
      mixprec::ModelLibrary::open(library, error);
  if (!lib)
    return fail(error);

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
    return fail("the model has no function '" + function +
                "' (see --list)");
  if (int32_t(inputPaths.size()) != fn->num_inputs)
    return fail(function + " takes " + std::to_string(fn->num_inputs) +
                " inputs, got " + std::to_string(inputPaths.size()));
  if (!outputPaths.empty() && int32_t(outputPaths.size()) != fn->num_outputs)
    return fail(function + " has " + std::to_string(fn->num_outputs) +
                " outputs, got " + std::to_string(outputPaths.size()) +
                " output files");

  std::vector<mixprec::npy::Array> inputs;
  for (const std::string &path : inputPaths) {
    std::optional<mixprec::npy::Array> array = mixprec::npy::read(path, error);
    if (!array)
      return fail(error);
    inputs.push_back(std::move(*array));
  }
  std::vector<mixprec::npy::Array> outputs(fn->num_outputs);
  std::vector<mixprec_tensor> inputTensors, outputTensors;
  for (mixprec::npy::Array &array : inputs)
    inputTensors.push_back({array.data.data(), array.dtype,
                            int32_t(array.shape.size()), array.shape.data()});
  for (int32_t i = 0; i < fn->num_outputs; ++i) {
    const mixprec_tensor_spec &spec = fn->outputs[i];
    mixprec::npy::Array &array = outputs[i];
    array.dtype = spec.dtype;
    array.shape.assign(spec.shape, spec.shape + spec.rank);
    size_t elements = 1;
    for (int64_t size : array.shape)
      elements *= size_t(size);
    array.data.resize(elements * mixprec_dtype_size(spec.dtype));
    outputTensors.push_back({array.data.data(), array.dtype, spec.rank,
                             array.shape.data()});
  }
  if (lib->call(function, inputTensors, outputTensors, error) != MIXPREC_OK)
    return fail(error);

  for (int32_t i = 0; i < fn->num_outputs; ++i) {
    if (outputPaths.empty()) {
      std::printf("%s: %s\n", fn->outputs[i].name,
                  describe(fn->outputs[i]).c_str());
      continue;
    }
    if (!mixprec::npy::write(outputPaths[i], outputs[i], error))
      return fail(error);
  }
  return 0;
}
