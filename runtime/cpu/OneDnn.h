//===- OneDnn.h - oneDNN, loaded at run time --------------------*- C++ -*-===//
//
// A CPU model library links the C library alone: it opens libdnnl.so.2
// (and, through it, libgomp) with dlopen on its first contraction and
// resolves the entry points below. Without it, contractions run on the
// runtime's reference loop.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_CPU_ONEDNN_H
#define MIXPREC_RUNTIME_CPU_ONEDNN_H

#include <oneapi/dnnl/dnnl.h>

namespace mixprec::cpu {

// X(field, symbol): the entry points resolved, with the prototypes of
// dnnl.h.
#define MIXPREC_ONEDNN_ENTRY_POINTS(X)                                         \
  X(engineCreate, dnnl_engine_create)                                          \
  X(memoryDescInitByStrides, dnnl_memory_desc_init_by_strides)                 \
  X(matmulDescInit, dnnl_matmul_desc_init)                                     \
  X(attrCreate, dnnl_primitive_attr_create)                                    \
  X(attrDestroy, dnnl_primitive_attr_destroy)                                  \
  X(attrSetScratchpadMode, dnnl_primitive_attr_set_scratchpad_mode)            \
  X(attrSetPostOps, dnnl_primitive_attr_set_post_ops)                          \
  X(postOpsCreate, dnnl_post_ops_create)                                       \
  X(postOpsDestroy, dnnl_post_ops_destroy)                                     \
  X(postOpsAppendSum, dnnl_post_ops_append_sum)                                \
  X(primitiveDescCreate, dnnl_primitive_desc_create)                           \
  X(primitiveDescDestroy, dnnl_primitive_desc_destroy)                         \
  X(primitiveDescQueryMd, dnnl_primitive_desc_query_md)                        \
  X(primitiveDescQuery, dnnl_primitive_desc_query)                             \
  X(memoryDescGetSize, dnnl_memory_desc_get_size)                              \
  X(primitiveCreate, dnnl_primitive_create)                                    \
  X(primitiveExecute, dnnl_primitive_execute)                                  \
  X(streamCreate, dnnl_stream_create)                                          \
  X(streamWait, dnnl_stream_wait)                                              \
  X(memoryCreate, dnnl_memory_create)                                          \
  X(memoryDestroy, dnnl_memory_destroy)                                        \
  X(memorySetDataHandle, dnnl_memory_set_data_handle)

struct OneDnn {
#define MIXPREC_ONEDNN_FIELD(field, symbol) decltype(&symbol) field;
  MIXPREC_ONEDNN_ENTRY_POINTS(MIXPREC_ONEDNN_FIELD)
#undef MIXPREC_ONEDNN_FIELD
  /// libgomp's, which oneDNN runs its primitives on: the calling thread's
  /// count of OpenMP threads.
  int (*ompGetMaxThreads)(void);
  void (*ompSetNumThreads)(int);
  dnnl_engine_t engine;
};

/// oneDNN, loaded on the first call, or null when it cannot be (the reason
/// is printed once, on stderr).
const OneDnn *oneDnn();

/// Sets the calling thread's OpenMP thread count to 1 for the scope, so
/// that oneDNN primitives run on it alone.
class OneOpenMPThread {
public:
  explicit OneOpenMPThread(const OneDnn *library)
      : library(library), saved(library ? library->ompGetMaxThreads() : 1) {
    if (library)
      library->ompSetNumThreads(1);
  }
  ~OneOpenMPThread() {
    if (library)
      library->ompSetNumThreads(saved);
  }
  OneOpenMPThread(const OneOpenMPThread &) = delete;
  OneOpenMPThread &operator=(const OneOpenMPThread &) = delete;

private:
  const OneDnn *library;
  int saved;
};

} // namespace mixprec::cpu

#endif
