//===- ModelLibrary.h - loading a compiled model ----------------*- C++ -*-===//
//
// dlopen()s a model compiled by mixprec-compile and calls it through its C
// ABI (mixprec/Runtime/mixprec.h).
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_MODELLIBRARY_H
#define MIXPREC_RUNTIME_MODELLIBRARY_H

#include "mixprec/Runtime/mixprec.h"

#include <memory>
#include <string>
#include <vector>

namespace mixprec {

class ModelLibrary {
public:
  /// Loads `path`; on failure returns null and sets `error`.
  static std::unique_ptr<ModelLibrary> open(const std::string &path,
                                            std::string &error);
  ~ModelLibrary();

  std::vector<const mixprec_function *> functions() const;
  const mixprec_function *find(const std::string &name) const;

  /// The model's exported C function `name` (a mixprec.h entry point), or
  /// null.
  void *symbol(const char *name) const;

  /// Calls `name`; on failure returns the status and sets `error` to the
  /// library's message.
  mixprec_status call(const std::string &name,
                      const std::vector<mixprec_tensor> &inputs,
                      const std::vector<mixprec_tensor> &outputs,
                      std::string &error) const;

private:
  ModelLibrary() = default;

  void *handle = nullptr;
  int32_t (*numFunctions)() = nullptr;
  const mixprec_function *(*functionAt)(int32_t) = nullptr;
  const mixprec_function *(*findFunction)(const char *) = nullptr;
  mixprec_status (*callFunction)(const char *, const mixprec_tensor *, int32_t,
                                 const mixprec_tensor *, int32_t) = nullptr;
  const char *(*lastError)() = nullptr;
};

} // namespace mixprec

#endif // MIXPREC_RUNTIME_MODELLIBRARY_H
