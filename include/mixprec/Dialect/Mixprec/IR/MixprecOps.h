//===- MixprecOps.h - ops of the mixprec dialect ----------------*- C++ -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECOPS_H
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECOPS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mixprec/Dialect/Mixprec/IR/MixprecAdjointInterface.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecAttrs.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecEnums.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecInterfaces.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecTraits.h"

namespace mixprec {

/// The model's parameters, buffers and RNG state, as one side-effect resource:
/// reads and assigns of state are ordered against each other.
struct ModelStateResource
    : public mlir::SideEffects::Resource::Base<ModelStateResource> {
  llvm::StringRef getName() override { return "mixprec::ModelState"; }
};

/// The type both float element types promote to: the wider of the two, and
/// f32 when f16 meets bf16.
mlir::Type promoteFloatTypes(mlir::Type lhs, mlir::Type rhs);

/// Fails, with a located error, unless every operand is a statically shaped
/// ranked tensor.
llvm::LogicalResult
verifyStaticTensorOperands(std::optional<mlir::Location> location,
                           mlir::ValueRange operands);

/// Type inference runs while parsing, before the verifier: it checks the
/// attributes and operand types it relies on first.
template <typename AdaptorT>
llvm::LogicalResult verifyForInference(mlir::MLIRContext *context,
                                       std::optional<mlir::Location> location,
                                       AdaptorT &adaptor) {
  if (failed(adaptor.verify(location ? *location
                                     : mlir::UnknownLoc::get(context))))
    return mlir::failure();
  return verifyStaticTensorOperands(location, adaptor.getOperands());
}

/// Fails, reporting on `op`, unless 0 <= axis < rank.
llvm::LogicalResult verifyAxis(mlir::Operation *op, int64_t axis, int64_t rank);

/// Fails, reporting on `op`, unless `eps` is finite and > 0.
llvm::LogicalResult verifyEpsilon(mlir::Operation *op, double eps);

/// The parameters of the dynamic loss-scale rule (docs/design.md §1).
struct LossScaleParameters {
  double growthFactor, backoffFactor;
  int64_t growthInterval, hysteresis;
  double minScale, maxScale;
};

/// How loss-scale diagnostics name the parameters: as the attributes of
/// `mixprec.loss_scale_update` (`growth_factor`) or as the options of
/// `--mixprec-loss-scaling` (`growth-factor`).
enum class LossScaleNaming { Attributes, PassOptions };

/// The one check of the loss-scale rule's parameters, for the op and the
/// pass: growth factor finite and > 1, backoff factor in (0, 1), growth
/// interval and hysteresis in [1, 2^31), 0 < min scale <= max scale < inf.
llvm::LogicalResult verifyLossScaleParameters(
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
    const LossScaleParameters &parameters, LossScaleNaming naming);

/// Whether `op` is a contraction (matmul, batch_matmul, linear, conv2d: the
/// tensor-core category by default), whose result may be its inputs' type or
/// f32, its accumulator's.
bool isContraction(mlir::Operation *op);

/// Attaches IndexedAccessOpInterface to the gathers (softmax_cross_entropy,
/// embedding and their gradients); the dialect does it when it loads.
void attachIndexedAccessModels(mlir::MLIRContext &context);

/// `value` (a ranked tensor) with elements of `elementType`: itself when it
/// has them already, else a new `mixprec.cast`.
mlir::Value castElements(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value value, mlir::Type elementType);

// Result-type inference shared by several ops.
llvm::LogicalResult
inferElementwiseType(std::optional<mlir::Location> location,
                     mlir::ValueRange operands,
                     llvm::SmallVectorImpl<mlir::Type> &types);
llvm::LogicalResult
inferReductionType(std::optional<mlir::Location> location, mlir::Value input,
                   llvm::ArrayRef<int64_t> dims, bool keepdim,
                   llvm::SmallVectorImpl<mlir::Type> &types);
llvm::LogicalResult inferPool2DType(std::optional<mlir::Location> location,
                                    mlir::Value input,
                                    llvm::ArrayRef<int64_t> kernel,
                                    llvm::ArrayRef<int64_t> stride,
                                    llvm::ArrayRef<int64_t> padding,
                                    llvm::SmallVectorImpl<mlir::Type> &types);

} // namespace mixprec

#define GET_OP_CLASSES
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h.inc"

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECOPS_H
