//===- OneDnn.cpp - oneDNN, loaded at run time ----------------------------===//

#include "OneDnn.h"

#include <cstdio>
#include <dlfcn.h>
#include <pthread.h>

namespace mixprec::cpu {
namespace {

OneDnn library;
const OneDnn *loaded = nullptr;
pthread_once_t once = PTHREAD_ONCE_INIT;

template <typename Fn> bool resolve(void *handle, const char *symbol, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return fn != nullptr;
}

void load() {
  // Kept open for the process: its primitives are cached for it.
  void *handle = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
  const char *missing = nullptr;
  if (!handle) {
    std::fprintf(stderr,
                 "mixprec: cannot load oneDNN (%s): contractions run on a "
                 "plain loop, many times slower; install libdnnl2\n",
                 dlerror());
    return;
  }
#define MIXPREC_ONEDNN_RESOLVE(field, symbol)                                  \
  if (!missing && !resolve(handle, #symbol, library.field))                    \
    missing = #symbol;
  MIXPREC_ONEDNN_ENTRY_POINTS(MIXPREC_ONEDNN_RESOLVE)
#undef MIXPREC_ONEDNN_RESOLVE
  // libgomp is libdnnl's dependency: dlsym searches it through the handle.
  if (!missing &&
      !resolve(handle, "omp_get_max_threads", library.ompGetMaxThreads))
    missing = "omp_get_max_threads";
  if (!missing &&
      !resolve(handle, "omp_set_num_threads", library.ompSetNumThreads))
    missing = "omp_set_num_threads";
  if (missing) {
    std::fprintf(stderr,
                 "mixprec: libdnnl.so.2 lacks %s: contractions run on a plain "
                 "loop, many times slower; install libdnnl2 2.6 or later\n",
                 missing);
    return;
  }
  if (library.engineCreate(&library.engine, dnnl_cpu, 0) != dnnl_success) {
    std::fprintf(stderr, "mixprec: oneDNN has no CPU engine: contractions "
                         "run on a plain loop, many times slower\n");
    return;
  }
  loaded = &library;
}

} // namespace

const OneDnn *oneDnn() {
  pthread_once(&once, load);
  return loaded;
}

} // namespace mixprec::cpu
