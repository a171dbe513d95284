//===- ContractionBody.h - what a contraction's body computes ---*- C++ -*-===//
//
// The test both backends' contraction kernels (CPU register tiles, CUDA
// tensor-core kernels) use to decide that a linalg op is theirs.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_CODEGEN_CONTRACTIONBODY_H
#define MIXPREC_CODEGEN_CONTRACTIONBODY_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mixprec {

/// Whether `op` computes what linalg.contract does: its body is
/// `out + cast(a) * cast(b)` where each cast is an exact widening to the
/// accumulator's type (arith.extf) or nothing, and its reduction dims are
/// exactly the dims the output does not use.
bool computesContract(mlir::linalg::LinalgOp op);

} // namespace mixprec

#endif // MIXPREC_CODEGEN_CONTRACTIONBODY_H
