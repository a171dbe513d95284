//===- ModelLibrary.cpp - loading a compiled model ------------------------===//

#include "ModelLibrary.h"
#include "ElfCheck.h"

#include <dlfcn.h>

namespace mixprec {

namespace {
template <typename FnPtr>
bool lookup(const std::string &path, void *handle, const char *symbol,
            FnPtr &fn, std::string &error) {
  fn = reinterpret_cast<FnPtr>(dlsym(handle, symbol));
  if (!fn)
    error = path + ": not a mixprec model: missing symbol " + symbol;
  return fn != nullptr;
}
} // namespace

std::unique_ptr<ModelLibrary> ModelLibrary::open(const std::string &path,
                                                 std::string &error) {
  // A bare file name means this directory, not the library search path.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;
  // dlopen faults on a file whose segments reach past its end.
  if (std::string problem = checkSharedObject(file); !problem.empty()) {
    error = path + ": " + problem;
    return nullptr;
  }
  // RTLD_LOCAL: every model exports the same ABI symbols.
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *message = dlerror();
    error = message ? message : path + ": cannot load";
    return nullptr;
  }
  std::unique_ptr<ModelLibrary> library(new ModelLibrary());
  library->handle = handle;
  int32_t (*abiVersion)() = nullptr;
  if (!lookup(path, handle, "mixprec_abi_version", abiVersion, error) ||
      !lookup(path, handle, "mixprec_num_functions", library->numFunctions,
              error) ||
      !lookup(path, handle, "mixprec_function_at", library->functionAt,
              error) ||
      !lookup(path, handle, "mixprec_find_function", library->findFunction,
              error) ||
      !lookup(path, handle, "mixprec_call", library->callFunction, error) ||
      !lookup(path, handle, "mixprec_last_error", library->lastError, error))
    return nullptr;
  if (abiVersion() != MIXPREC_ABI_VERSION) {
    error = path + ": compiled for ABI version " +
            std::to_string(abiVersion()) + ", this tool speaks " +
            std::to_string(MIXPREC_ABI_VERSION);
    return nullptr;
  }
  return library;
}

ModelLibrary::~ModelLibrary() {
  if (handle)
    dlclose(handle);
}

std::vector<const mixprec_function *> ModelLibrary::functions() const {
  std::vector<const mixprec_function *> result;
  for (int32_t i = 0, e = numFunctions(); i < e; ++i)
    result.push_back(functionAt(i));
  return result;
}

void *ModelLibrary::symbol(const char *name) const {
  return dlsym(handle, name);
}

const mixprec_function *ModelLibrary::find(const std::string &name) const {
  return findFunction(name.c_str());
}

mixprec_status ModelLibrary::call(const std::string &name,
                                  const std::vector<mixprec_tensor> &inputs,
                                  const std::vector<mixprec_tensor> &outputs,
                                  std::string &error) const {
  mixprec_status status =
      callFunction(name.c_str(), inputs.data(), int32_t(inputs.size()),
                   outputs.data(), int32_t(outputs.size()));
  if (status != MIXPREC_OK)
    error = lastError();
  return status;
}

} // namespace mixprec
