//===- MixprecOpUtils.h - rules shared by several ops -----------*- C++ -*-===//
//
// Checks and facts that more than one op, or an op and its lowering, need:
// one definition each, next to the op that owns the rule.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECOPUTILS_H
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECOPUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

namespace mixprec {

/// softmax_cross_entropy and its gradient: logits are [N, C] with C >= 1 and
/// labels [N], one per row.
llvm::LogicalResult
verifyLogitsAndLabels(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                      mlir::RankedTensorType logits,
                      mlir::RankedTensorType labels);

/// A scale or bias of layer_norm, batch_norm or their gradients, `name`d in
/// the message: `shape` (described by `what`) in the input's `elementType`.
llvm::LogicalResult
verifyNormParameter(mlir::Operation *op, mlir::RankedTensorType type,
                    llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
                    mlir::Type elementType, llvm::StringRef what);

/// The dims batch_norm's statistics reduce over for a rank-`rank` input
/// ([N, C] or [N, C, H, W]): every dim but the channels, dim 1.
llvm::SmallVector<int64_t> batchNormReducedDims(int64_t rank);

} // namespace mixprec

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECOPUTILS_H
