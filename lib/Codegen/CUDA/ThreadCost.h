//===- ThreadCost.h - about how long one GPU thread runs --------*- C++ -*-===//
//
// The estimate by which --mixprec-gpu-map-to-kernels bounds a one-thread
// kernel and --mixprec-gpu-merge-kernels the kernels one block runs in a
// row: no thread of a kernel other than a GEMM should run for long.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_LIB_CODEGEN_CUDA_THREADCOST_H
#define MIXPREC_LIB_CODEGEN_CUDA_THREADCOST_H

#include "mlir/IR/Operation.h"

namespace mixprec {

/// About how many ops one thread runs for `op`: loops with constant bounds
/// count their trips.
int64_t serialCost(mlir::Operation *op);

/// The most serialCost one thread of a one-thread kernel gathers from a run
/// of scalar code: a few thousand instructions (merge-kernels'
/// max-thread-cost bounds the kernels one block runs in a row alike).
constexpr int64_t kMaxThreadCost = 1024;

} // namespace mixprec

#endif // MIXPREC_LIB_CODEGEN_CUDA_THREADCOST_H
