//===- LossOps.cpp - softmax_cross_entropy and mse ------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOpUtils.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mixprec;

LogicalResult
mixprec::verifyLogitsAndLabels(function_ref<InFlightDiagnostic()> emitError,
                               RankedTensorType logits,
                               RankedTensorType labels) {
  if (logits.getRank() != 2)
    return emitError() << "logits must be [N, C], got rank "
                       << logits.getRank();
  if (labels.getShape() != ArrayRef<int64_t>{logits.getDimSize(0)})
    return emitError() << "labels must be [" << logits.getDimSize(0)
                       << "] (one per row of logits), got "
                       << llvm::interleaved_array(labels.getShape());
  if (logits.getDimSize(1) == 0)
    return emitError() << "logits must have at least one class";
  return success();
}

LogicalResult SoftmaxCrossEntropyOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  if (failed(verifyForInference(context, location, adaptor)))
    return failure();
  auto logits = cast<RankedTensorType>(adaptor.getLogits().getType());
  auto labels = cast<RankedTensorType>(adaptor.getLabels().getType());
  // Reports nothing without a location, as emitOptionalError does.
  auto emitError = [&]() -> InFlightDiagnostic {
    return location ? mlir::emitError(*location) : InFlightDiagnostic();
  };
  if (failed(verifyLogitsAndLabels(emitError, logits, labels)))
    return failure();
  types.push_back(RankedTensorType::get({}, logits.getElementType()));
  return success();
}

LogicalResult MseOp::inferReturnTypes(MLIRContext *context,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  if (failed(verifyForInference(context, location, adaptor)))
    return failure();
  Type input = adaptor.getInput().getType();
  Type target = adaptor.getTarget().getType();
  if (input != target)
    return emitOptionalError(location,
                             "input and target must have one type, "
                             "got ",
                             input, " and ", target);
  types.push_back(RankedTensorType::get(
      {}, cast<RankedTensorType>(input).getElementType()));
  return success();
}
