//===- GradientOps.cpp - the backward ops ---------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mixprec;

LogicalResult SoftmaxGradOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult LogSoftmaxGradOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult LayerNormGradOp::verify() {
  RankedTensorType input = getInput().getType();
  if (failed(verifyAxis(*this, getAxis(), input.getRank())) ||
      failed(verifyEpsilon(*this, getEps().convertToDouble())))
    return failure();
  ArrayRef<int64_t> normalized = input.getShape().drop_front(getAxis());
  RankedTensorType scale = getScale().getType();
  if (scale.getShape() != normalized)
    return emitOpError("scale must be ")
           << llvm::interleaved_array(normalized)
           << " (the normalized dims), got "
           << llvm::interleaved_array(scale.getShape());
  if (scale.getElementType() != input.getElementType())
    return emitOpError("scale element type must be the input's (")
           << input.getElementType() << "), got " << scale.getElementType();
  return success();
}

LogicalResult SoftmaxCrossEntropyGradOp::verify() {
  RankedTensorType logits = getLogits().getType();
  if (logits.getRank() != 2)
    return emitOpError("logits must be [N, C], got rank ") << logits.getRank();
  ArrayRef<int64_t> labels = getLabels().getType().getShape();
  if (labels != ArrayRef<int64_t>{logits.getDimSize(0)})
    return emitOpError("labels must be [")
           << logits.getDimSize(0) << "] (one per row of logits), got "
           << llvm::interleaved_array(labels);
  return success();
}
