//===- AdjointContext.h - what an adjoint rule builds with ------*- C++ -*-===//
//
// The adjoint rules of the ops (AdjointOpInterface) share the shape algebra
// of reverse mode here: undoing a broadcast, a reduction or a stride, and
// the casts that keep each adjoint in its forward op's precision. Where the
// gradients go is left to the reverse sweep that drives the rules.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_ADJOINTCONTEXT_H
#define MIXPREC_DIALECT_MIXPREC_IR_ADJOINTCONTEXT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

namespace mixprec {

/// The builder, location and gradient sink of one adjoint rule, and the
/// helpers the rules build with. The ops it creates go at the builder's
/// insertion point, at the location of the op being differentiated.
class AdjointContext {
public:
  explicit AdjointContext(mlir::OpBuilder &builder)
      : builder(builder), loc(builder.getUnknownLoc()) {}
  virtual ~AdjointContext();

  mlir::OpBuilder &getBuilder() { return builder; }
  mlir::Location getLoc() const { return loc; }

  /// A new `OpTy` at the builder's insertion point and the location of the op
  /// being differentiated.
  template <typename OpTy, typename... Args> OpTy create(Args &&...args) {
    return OpTy::create(builder, loc, std::forward<Args>(args)...);
  }

  /// Adds `gradient` to the gradient of `value`. A value used several times
  /// gets the sum of its gradients, in FP32.
  virtual void accumulate(mlir::Value value, mlir::Value gradient) = 0;

  /// accumulate(value, gradient cast to the element type of `value`): the
  /// gradient of an operand of another precision than the adjoint's.
  void accumulateCast(mlir::Value value, mlir::Value gradient);

  /// The error of an op the loss depends on whose adjoint does not exist
  /// (for the results it has gradients of).
  static mlir::InFlightDiagnostic emitNoAdjoint(mlir::Operation *op);

  /// `value` with elements of `elementType` (itself if it has them).
  mlir::Value castTo(mlir::Value value, mlir::Type elementType);

  /// A constant of `type` whose elements are all `value`.
  mlir::Value splat(double value, mlir::RankedTensorType type);

  /// `value` reshaped to `type` (itself if it has that type).
  mlir::Value reshape(mlir::Value value, mlir::RankedTensorType type);

  /// The adjoint of a numpy broadcast from `type` to the shape of
  /// `gradient`: sums over the dims the broadcast added or stretched. The
  /// result has the shape of `type` and the element type of `gradient`.
  mlir::Value sumTo(mlir::Value gradient, mlir::RankedTensorType type);

  /// The adjoint of a reduction of `input` over `dims`: `gradient` broadcast
  /// back over the reduced dims.
  mlir::Value unreduce(mlir::Value gradient, mlir::Value input,
                       llvm::ArrayRef<int64_t> dims);

  /// The adjoint of taking every `stride`-th element along `dim`: `stride -
  /// 1` zeros after each element of `gradient`, cut to the `limit` elements
  /// the input has from the first one taken on.
  mlir::Value unstride(mlir::Value gradient, int64_t dim, int64_t stride,
                       int64_t limit);

  /// A matrix product (batched: over the leading dims) whose result has
  /// `elementType`, for the adjoints of contractions.
  mlir::Value matmul(mlir::Value lhs, mlir::Value rhs, bool transposeLhs,
                     bool transposeRhs, mlir::Type elementType, bool batched);

protected:
  void setLoc(mlir::Location location) { loc = location; }

private:
  mlir::OpBuilder &builder;
  mlir::Location loc;
};

} // namespace mixprec

#endif // MIXPREC_DIALECT_MIXPREC_IR_ADJOINTCONTEXT_H
