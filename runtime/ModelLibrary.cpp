//===- ModelLibrary.cpp - loading a compiled model ------------------------===//

#include "ModelLibrary.h"
#include "ElfCheck.h"

#include <dlfcn.h>

namespace mixprec {

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
  // Every version exports mixprec_abi_version: a library without it is no
  // model, one of another version is named as such.
  auto *abiVersion =
      reinterpret_cast<int32_t (*)()>(dlsym(handle, "mixprec_abi_version"));
  if (!abiVersion) {
    error = path + ": not a mixprec model: missing symbol mixprec_abi_version";
    return nullptr;
  }
  if (abiVersion() != MIXPREC_API_VERSION) {
    error = path + ": compiled for ABI version " +
            std::to_string(abiVersion()) + ", this tool speaks " +
            std::to_string(MIXPREC_API_VERSION);
    return nullptr;
  }
  auto *getApi = reinterpret_cast<const mixprec_api *(*)(uint32_t)>(
      dlsym(handle, "mixprec_get_api"));
  library->entryPoints = getApi ? getApi(MIXPREC_API_VERSION) : nullptr;
  if (!library->entryPoints) {
    error = path +
            ": not a mixprec model: no table of entry points of "
            "version " +
            std::to_string(MIXPREC_API_VERSION) + " (mixprec_get_api)";
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
  int32_t count = 0;
  entryPoints->mixprec_num_functions(&count);
  for (int32_t i = 0; i < count; ++i) {
    const mixprec_function *function = nullptr;
    if (entryPoints->mixprec_function_at(i, &function) == MIXPREC_OK)
      result.push_back(function);
  }
  return result;
}

const mixprec_function *ModelLibrary::find(const std::string &name) const {
  const mixprec_function *function = nullptr;
  if (entryPoints->mixprec_find_function(name.c_str(), &function) != MIXPREC_OK)
    return nullptr;
  return function;
}

mixprec_status ModelLibrary::call(const std::string &name,
                                  const std::vector<mixprec_tensor> &inputs,
                                  const std::vector<mixprec_tensor> &outputs,
                                  std::string &error) const {
  mixprec_status status = entryPoints->mixprec_call(
      name.c_str(), inputs.data(), int32_t(inputs.size()), outputs.data(),
      int32_t(outputs.size()));
  if (status != MIXPREC_OK)
    error = entryPoints->mixprec_last_error();
  return status;
}

} // namespace mixprec
