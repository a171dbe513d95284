//===- NormalizationOps.cpp - softmax, log_softmax, layer_norm, batch_norm ===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOpUtils.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "llvm/Support/InterleavedRange.h"

#include <cmath>

using namespace mlir;
using namespace mixprec;

LogicalResult mixprec::verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis >= 0 && axis < rank)
    return success();
  return op->emitOpError("axis ")
         << axis << " is out of range for rank " << rank;
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getType().getRank());
}

LogicalResult mixprec::verifyNormParameter(Operation *op, RankedTensorType type,
                                           StringRef name,
                                           ArrayRef<int64_t> shape,
                                           Type elementType, StringRef what) {
  if (type.getShape() != shape)
    return op->emitOpError()
           << name << " must be " << llvm::interleaved_array(shape) << " ("
           << what << "), got " << llvm::interleaved_array(type.getShape());
  if (type.getElementType() != elementType)
    return op->emitOpError()
           << name << " element type must be the input's (" << elementType
           << "), got " << type.getElementType();
  return success();
}

/// Scale and bias come as a pair of the given shape and the input's element
/// type.
static LogicalResult verifyAffine(Operation *op, Value scale, Value bias,
                                  ArrayRef<int64_t> shape, Type elementType,
                                  StringRef what) {
  if (!scale != !bias)
    return op->emitOpError("scale and bias must be given together");
  for (Value value : {scale, bias}) {
    if (!value)
      continue;
    StringRef name = value == scale ? "scale" : "bias";
    if (failed(verifyNormParameter(op, cast<RankedTensorType>(value.getType()),
                                   name, shape, elementType, what)))
      return failure();
  }
  return success();
}

SmallVector<int64_t> mixprec::batchNormReducedDims(int64_t rank) {
  SmallVector<int64_t> dims{0};
  for (int64_t dim = 2; dim < rank; ++dim)
    dims.push_back(dim);
  return dims;
}

LogicalResult mixprec::verifyEpsilon(Operation *op, double eps) {
  if (eps > 0.0 && std::isfinite(eps))
    return success();
  return op->emitOpError("eps must be finite and > 0, got ") << eps;
}

LogicalResult LayerNormOp::verify() {
  RankedTensorType input = getInput().getType();
  if (failed(verifyAxis(*this, getAxis(), input.getRank())) ||
      failed(verifyEpsilon(*this, getEps().convertToDouble())))
    return failure();
  return verifyAffine(*this, getScale(), getBias(),
                      input.getShape().drop_front(getAxis()),
                      input.getElementType(), "the normalized dims");
}

LogicalResult BatchNormOp::verify() {
  RankedTensorType input = getInput().getType();
  if (input.getRank() != 2 && input.getRank() != 4)
    return emitOpError("input must be [N, C] or [N, C, H, W], got rank ")
           << input.getRank();
  int64_t channels = input.getDimSize(1);
  ArrayRef<int64_t> statsShape = getRunningMean().getType().getShape();
  if (statsShape != ArrayRef<int64_t>{channels})
    return emitOpError("running statistics must be [")
           << channels << "] (the channels), got "
           << llvm::interleaved_array(statsShape);
  // The running variance is unbiased: n / (n - 1) needs n > 1 (PyTorch
  // rejects such a batch too).
  if (getTraining() && channels > 0 && input.getNumElements() / channels <= 1)
    return emitOpError("training needs more than one value per channel");
  double momentum = getMomentum().convertToDouble();
  if (!(momentum >= 0.0 && momentum <= 1.0))
    return emitOpError("momentum must be in [0, 1], got ") << momentum;
  if (failed(verifyEpsilon(*this, getEps().convertToDouble())))
    return failure();
  return verifyAffine(*this, getScale(), getBias(), {channels},
                      input.getElementType(), "the channels");
}
