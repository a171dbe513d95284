//===- ReverseSweep.h - the reverse sweep of --mixprec-autodiff -*- C++ -*-===//
//
// Private to MixprecTransforms: visits a function body last op to first and
// has each op's adjoint (AdjointOpInterface) turn the gradients of its
// results into gradients of its operands.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TRANSFORMS_REVERSESWEEP_H
#define MIXPREC_TRANSFORMS_REVERSESWEEP_H

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mixprec {

/// The reverse sweep over one function body; the gradient sink of the
/// adjoint rules it calls.
class ReverseSweep : public AdjointContext {
public:
  explicit ReverseSweep(mlir::OpBuilder &builder) : AdjointContext(builder) {}

  /// Seeds `loss` with 1 and propagates gradients to every value it
  /// depends on.
  mlir::LogicalResult run(mlir::Block &body, mlir::Value loss);

  /// The gradient of `value` (null if the loss does not depend on it).
  mlir::Value gradientOf(mlir::Value value) const {
    return adjoints.lookup(value);
  }

  void accumulate(mlir::Value value, mlir::Value gradient) override;

private:
  mlir::LogicalResult backprop(mlir::Operation *op);

  llvm::DenseMap<mlir::Value, mlir::Value> adjoints;
};

} // namespace mixprec

#endif // MIXPREC_TRANSFORMS_REVERSESWEEP_H
