//===- ModelLibrary.h - loading a compiled model ----------------*- C++ -*-===//
//
// dlopen()s a model compiled by mixprec-compile and calls it through its C
// ABI (mixprec/Runtime/mixprec.h): the table of entry points that
// mixprec_get_api returns.
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

  /// Every entry point of the library, of version MIXPREC_API_VERSION.
  const mixprec_api &api() const { return *entryPoints; }

  std::vector<const mixprec_function *> functions() const;
  /// The function `name`, or null.
  const mixprec_function *find(const std::string &name) const;

  /// Calls `name`; on failure returns the status and sets `error` to the
  /// library's message.
  mixprec_status call(const std::string &name,
                      const std::vector<mixprec_tensor> &inputs,
                      const std::vector<mixprec_tensor> &outputs,
                      std::string &error) const;

private:
  ModelLibrary() = default;

  void *handle = nullptr;
  const mixprec_api *entryPoints = nullptr;
};

} // namespace mixprec

#endif // MIXPREC_RUNTIME_MODELLIBRARY_H
