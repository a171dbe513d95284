//===- Passes.h - mixprec to mixprec transformations ------------*- C++ -*-===//

#ifndef MIXPREC_TRANSFORMS_PASSES_H
#define MIXPREC_TRANSFORMS_PASSES_H

#include "mixprec/Transforms/PassOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mixprec {

#define GEN_PASS_DECL
#include "mixprec/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mixprec/Transforms/Passes.h.inc"

/// The most bytes the tensors an optimizer step computes hold at once, as
/// --mixprec-rematerialize estimates them (program order, each from its
/// definition to its last use; the state and batch not counted).
int64_t estimateTemporaryBytes(mlir::func::FuncOp step);

} // namespace mixprec

#endif // MIXPREC_TRANSFORMS_PASSES_H
