//===- NormalizationAdjoints.cpp - adjoints of softmax and the norms ------===//
//
// Reverse-mode rules (AdjointOpInterface) of softmax, log_softmax,
// layer_norm and batch_norm: each backward op takes what its forward op
// saw; without scale and bias a normalization has a scale of ones.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOpUtils.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

using namespace mlir;
using namespace mixprec;

LogicalResult SoftmaxOp::buildAdjoint(AdjointContext &context,
                                      ArrayRef<Value> resultGradients) {
  context.accumulate(getInput(),
                     context.create<SoftmaxGradOp>(resultGradients.front(),
                                                   getResult(), getAxisAttr()));
  return success();
}

LogicalResult LogSoftmaxOp::buildAdjoint(AdjointContext &context,
                                         ArrayRef<Value> resultGradients) {
  context.accumulate(
      getInput(), context.create<LogSoftmaxGradOp>(resultGradients.front(),
                                                   getResult(), getAxisAttr()));
  return success();
}

LogicalResult LayerNormOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  RankedTensorType inputType = getInput().getType();
  Value scale = getScale();
  if (!scale)
    scale = context.splat(
        1.0, RankedTensorType::get(inputType.getShape().drop_front(getAxis()),
                                   inputType.getElementType()));
  auto grads = context.create<LayerNormGradOp>(
      resultGradients.front(), getInput(), scale, getAxisAttr(), getEpsAttr());
  context.accumulate(getInput(), grads.getDx());
  if (getScale()) {
    context.accumulate(getScale(), grads.getDscale());
    context.accumulate(getBias(), grads.getDbias());
  }
  return success();
}

/// The adjoint of batch_norm with `training = false`, which is affine per
/// channel: y = (x - mean) * rstd * scale + bias, rstd = (var + eps)^-1/2.
/// It runs in FP32, like batch_norm_grad, and rounds each gradient once.
/// Unlike PyTorch it also differentiates the running statistics, which the
/// result depends on here; it returns them unchanged.
static void buildInferenceAdjoint(BatchNormOp op, AdjointContext &context,
                                  ArrayRef<Value> grads) {
  OpBuilder &b = context.getBuilder();
  Value mean = op.getRunningMean(), var = op.getRunningVar();
  if (grads[1])
    context.accumulate(mean, grads[1]);
  if (grads[2])
    context.accumulate(var, grads[2]);
  Value g = grads[0];
  if (!g)
    return;
  RankedTensorType inputType = op.getInput().getType();
  RankedTensorType statsType = op.getRunningMean().getType();
  Type f32 = b.getF32Type();
  // [C] statistics meet [N, C(, H, W)] tensors as [1, C(, 1, 1)].
  SmallVector<int64_t> channelShape(inputType.getRank(), 1);
  channelShape[1] = inputType.getDimSize(1);
  SmallVector<int64_t> dims = batchNormReducedDims(inputType.getRank());
  auto spread = [&](Value perChannel) -> Value {
    Value channels =
        context.reshape(perChannel, RankedTensorType::get(channelShape, f32));
    return context.create<BroadcastOp>(inputType.clone(f32), channels);
  };
  auto sum = [&](Value value) -> Value {
    return context.create<ReduceSumOp>(value, dims);
  };

  Value eps = context.splat(op.getEps().convertToDouble(), statsType);
  Value shifted = context.create<AddOp>(var, eps);
  Value rstd = context.create<RsqrtOp>(shifted);
  Value factor = rstd;
  if (Value scale = op.getScale()) {
    Value scale32 = context.castTo(scale, f32);
    factor = context.create<MulOp>(scale32, rstd);
  }
  Value g32 = context.castTo(g, f32);
  Value factorSpread = spread(factor);
  Value dx = context.create<MulOp>(g32, factorSpread);
  context.accumulate(op.getInput(),
                     context.castTo(dx, inputType.getElementType()));
  Value rstdSpread = spread(rstd);
  Value meanSpread = spread(mean);
  Value x32 = context.castTo(op.getInput(), f32);
  Value centered = context.create<SubOp>(x32, meanSpread);
  Value xhat = context.create<MulOp>(centered, rstdSpread);
  Value gXhat = context.create<MulOp>(g32, xhat);
  Value sumGXhat = sum(gXhat);
  // dmean = -sum(dx); dvar = -1/2 * scale * rstd^3 * sum(g * (x - mean)).
  Value sumDx = sum(dx);
  context.accumulate(mean, context.create<NegOp>(sumDx));
  Value minusHalf = context.splat(-0.5, statsType);
  Value cube = context.create<MulOp>(factor, rstd);
  Value scaled = context.create<MulOp>(sumGXhat, cube);
  context.accumulate(var, context.create<MulOp>(scaled, minusHalf));
  if (Value scale = op.getScale()) {
    Type type = op.getScale().getType().getElementType();
    context.accumulate(scale, context.castTo(sumGXhat, type));
    Value sumG = sum(g32);
    context.accumulate(op.getBias(), context.castTo(sumG, type));
  }
}

LogicalResult BatchNormOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  if (!getTraining()) {
    buildInferenceAdjoint(*this, context, resultGradients);
    return success();
  }
  // The running statistics it returns carry no gradient.
  Value g = resultGradients.front();
  if (!g)
    return AdjointContext::emitNoAdjoint(*this);
  RankedTensorType inputType = getInput().getType();
  int64_t channels = inputType.getDimSize(1);
  auto scaleType =
      RankedTensorType::get({channels}, inputType.getElementType());
  Value scale = getScale();
  if (!scale)
    scale = context.splat(1.0, scaleType);
  auto grads = context.create<BatchNormGradOp>(
      TypeRange{inputType, scaleType, scaleType}, g, getInput(), scale,
      getEpsAttr());
  context.accumulate(getInput(), grads.getDx());
  if (getScale()) {
    context.accumulate(getScale(), grads.getDscale());
    context.accumulate(getBias(), grads.getDbias());
  }
  return success();
}
