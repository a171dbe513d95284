//===- GradientOps.cpp - the backward ops ---------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOpUtils.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

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
  return verifyNormParameter(*this, getScale().getType(), "scale",
                             input.getShape().drop_front(getAxis()),
                             input.getElementType(), "the normalized dims");
}

LogicalResult SoftmaxCrossEntropyGradOp::verify() {
  return verifyLogitsAndLabels([&] { return emitOpError(); },
                               getLogits().getType(), getLabels().getType());
}

LogicalResult EmbeddingGradOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  if (failed(verifyForInference(context, location, adaptor)))
    return failure();
  auto grad = cast<RankedTensorType>(adaptor.getGrad().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  ArrayRef<int64_t> expected = indices.getShape();
  if (grad.getRank() != indices.getRank() + 1 ||
      grad.getShape().drop_back() != expected)
    return emitOptionalError(location, "grad must be indices.shape + [dim] (",
                             llvm::interleaved_array(expected),
                             " + [dim]), got ",
                             llvm::interleaved_array(grad.getShape()));
  int64_t vocab = adaptor.getNumEmbeddings();
  if (vocab < 1)
    return emitOptionalError(location, "num_embeddings must be >= 1, got ",
                             vocab);
  types.push_back(grad.clone({vocab, grad.getShape().back()}));
  return success();
}

//===----------------------------------------------------------------------===//
// conv2d_grad_input, conv2d_grad_weight
//===----------------------------------------------------------------------===//

/// The result type of a conv2d gradient: `shape` (the forward operand's, an
/// attribute) in grad's element type.
static LogicalResult inferConvGradType(std::optional<Location> location,
                                       Value grad, ArrayRef<int64_t> shape,
                                       StringRef name,
                                       SmallVectorImpl<Type> &types) {
  if (shape.size() != 4 ||
      llvm::any_of(shape, [](int64_t size) { return size < 0; }))
    return emitOptionalError(location, name, " must be 4 sizes >= 0, got ",
                             llvm::interleaved_array(shape));
  types.push_back(cast<RankedTensorType>(grad.getType()).clone(shape));
  return success();
}

/// The checks of conv2d on the forward shapes `input` (NCHW) and `weight`
/// (OIHW), plus: grad has the forward result's shape and the element type of
/// `operand`, the other operand of the gradient.
static LogicalResult
verifyConvGrad(Operation *op, RankedTensorType grad, RankedTensorType operand,
               ArrayRef<int64_t> input, ArrayRef<int64_t> weight,
               ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
               ArrayRef<int64_t> dilation, int64_t groups) {
  if (grad.getElementType() != operand.getElementType())
    return op->emitOpError("operands must share one element type, got ")
           << grad.getElementType() << " and " << operand.getElementType();
  if (grad.getRank() != 4 || input.size() != 4 || weight.size() != 4)
    return op->emitOpError("grad, input (NCHW) and weight (OIHW) must be "
                           "rank 4");
  if (stride.size() != 2 || padding.size() != 2 || dilation.size() != 2)
    return op->emitOpError("stride, padding and dilation need 2 values each");
  if (llvm::any_of(stride, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilation, [](int64_t d) { return d < 1; }))
    return op->emitOpError("stride and dilation must be >= 1");
  if (llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return op->emitOpError("padding must be >= 0, got ")
           << llvm::interleaved_array(padding);
  int64_t channels = input[1], outChannels = weight[0];
  if (groups < 1 || channels % groups != 0 || outChannels % groups != 0)
    return op->emitOpError("groups (")
           << groups << ") must be >= 1 and divide the input channels ("
           << channels << ") and the output channels (" << outChannels << ")";
  if (weight[2] < 1 || weight[3] < 1)
    return op->emitOpError("kernel dims must be >= 1, got ")
           << llvm::interleaved_array(weight.drop_front(2));
  if (weight[1] != channels / groups)
    return op->emitOpError("weight dim 1 must be input channels / groups (")
           << channels / groups << "), got " << weight[1];
  SmallVector<int64_t> shape = {input[0], outChannels};
  for (int i = 0; i < 2; ++i) {
    int64_t padded, span, extent;
    if (llvm::MulOverflow(padding[i], int64_t(2), padded) ||
        llvm::AddOverflow(padded, input[2 + i], padded) ||
        llvm::MulOverflow(dilation[i], weight[2 + i] - 1, span) ||
        llvm::SubOverflow(padded, span, extent) ||
        llvm::SubOverflow(extent, int64_t(1), extent))
      return op->emitOpError("padding or dilation of spatial dim ")
             << i << " is too large";
    if (extent < 0)
      return op->emitOpError("the kernel does not fit spatial dim ")
             << i << " of the padded input";
    shape.push_back(extent / stride[i] + 1);
  }
  if (grad.getShape() != ArrayRef<int64_t>(shape))
    return op->emitOpError("grad must be the conv2d result shape ")
           << llvm::interleaved_array(shape) << ", got "
           << llvm::interleaved_array(grad.getShape());
  return success();
}

LogicalResult Conv2DGradInputOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  if (failed(verifyForInference(context, location, adaptor)))
    return failure();
  return inferConvGradType(location, adaptor.getGrad(), adaptor.getInputShape(),
                           "input_shape", types);
}

LogicalResult Conv2DGradInputOp::verify() {
  return verifyConvGrad(*this, getGrad().getType(), getWeight().getType(),
                        getInputShape(), getWeight().getType().getShape(),
                        getStride(), getPadding(), getDilation(), getGroups());
}

LogicalResult Conv2DGradWeightOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  if (failed(verifyForInference(context, location, adaptor)))
    return failure();
  return inferConvGradType(location, adaptor.getGrad(),
                           adaptor.getWeightShape(), "weight_shape", types);
}

LogicalResult Conv2DGradWeightOp::verify() {
  return verifyConvGrad(*this, getGrad().getType(), getInput().getType(),
                        getInput().getType().getShape(), getWeightShape(),
                        getStride(), getPadding(), getDilation(), getGroups());
}

//===----------------------------------------------------------------------===//
// max_pool2d_grad, avg_pool2d_grad
//===----------------------------------------------------------------------===//

/// The forward pooling's checks on `input`, and grad has its result's type.
static LogicalResult verifyPoolGrad(Operation *op, Value grad, Value input,
                                    ArrayRef<int64_t> kernel,
                                    ArrayRef<int64_t> stride,
                                    ArrayRef<int64_t> padding) {
  SmallVector<Type> types;
  if (failed(
          inferPool2DType(op->getLoc(), input, kernel, stride, padding, types)))
    return failure();
  if (grad.getType() != types.front())
    return op->emitOpError("grad must be the pooling result type ")
           << types.front() << ", got " << grad.getType();
  return success();
}

LogicalResult MaxPool2DGradOp::verify() {
  return verifyPoolGrad(*this, getGrad(), getInput(), getKernel(), getStride(),
                        getPadding());
}

LogicalResult AvgPool2DGradOp::verify() {
  return verifyPoolGrad(*this, getGrad(), getInput(), getKernel(), getStride(),
                        getPadding());
}

//===----------------------------------------------------------------------===//
// batch_norm_grad
//===----------------------------------------------------------------------===//

LogicalResult BatchNormGradOp::verify() {
  RankedTensorType input = getInput().getType();
  if (input.getRank() != 2 && input.getRank() != 4)
    return emitOpError("input must be [N, C] or [N, C, H, W], got rank ")
           << input.getRank();
  if (failed(verifyEpsilon(*this, getEps().convertToDouble())))
    return failure();
  return verifyNormParameter(*this, getScale().getType(), "scale",
                             {input.getDimSize(1)}, input.getElementType(),
                             "the channels");
}

//===----------------------------------------------------------------------===//
// reduce_max_grad
//===----------------------------------------------------------------------===//

/// The forward reduction's checks on `dims`, and grad has its result type.
LogicalResult ReduceMaxGradOp::verify() {
  SmallVector<Type> types;
  if (failed(inferReductionType(getLoc(), getInput(), getDims(), getKeepdim(),
                                types)))
    return failure();
  if (getGrad().getType() != types.front())
    return emitOpError("grad must be the reduce_max result type ")
           << types.front() << ", got " << getGrad().getType();
  return success();
}
