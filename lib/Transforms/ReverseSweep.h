//===- ReverseSweep.h - the reverse sweep of --mixprec-autodiff -*- C++ -*-===//
//
// Private to MixprecTransforms: visits a function body last op to first and
// turns the gradients of each op's results into gradients of its operands.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TRANSFORMS_REVERSESWEEP_H
#define MIXPREC_TRANSFORMS_REVERSESWEEP_H

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mixprec {

/// The reverse sweep over one function body.
class ReverseSweep {
public:
  explicit ReverseSweep(mlir::OpBuilder &builder) : b(builder) {}

  /// Seeds `loss` with 1 and propagates gradients to every value it
  /// depends on.
  mlir::LogicalResult run(mlir::Block &body, mlir::Value loss);

  /// The gradient of `value` (null if the loss does not depend on it).
  mlir::Value gradientOf(mlir::Value value) const {
    return adjoints.lookup(value);
  }

private:
  mlir::LogicalResult backprop(mlir::Operation *op);
  void accumulate(mlir::Value value, mlir::Value gradient);

  mlir::Value castTo(mlir::Value value, mlir::Type elementType);
  mlir::Value splat(double value, mlir::RankedTensorType type);
  mlir::Value reshape(mlir::Value value, mlir::RankedTensorType type);
  mlir::Value sumTo(mlir::Value gradient, mlir::RankedTensorType type);
  mlir::Value unreduce(mlir::Value gradient, mlir::Value input,
                       llvm::ArrayRef<int64_t> dims);
  mlir::Value unstride(mlir::Value gradient, int64_t dim, int64_t stride,
                       int64_t limit);
  mlir::Value matmul(mlir::Value lhs, mlir::Value rhs, bool transposeLhs,
                     bool transposeRhs, mlir::Type elementType, bool batched);
  void batchNormInference(BatchNormOp op, llvm::ArrayRef<mlir::Value> grads);

  mlir::OpBuilder &b;
  mlir::Location loc = b.getUnknownLoc();
  llvm::DenseMap<mlir::Value, mlir::Value> adjoints;
};

} // namespace mixprec

#endif // MIXPREC_TRANSFORMS_REVERSESWEEP_H
