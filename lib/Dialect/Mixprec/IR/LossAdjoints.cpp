//===- LossAdjoints.cpp - adjoints of the losses --------------------------===//
//
// Reverse-mode rules (AdjointOpInterface) of softmax_cross_entropy and mse.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

using namespace mlir;
using namespace mixprec;

LogicalResult
SoftmaxCrossEntropyOp::buildAdjoint(AdjointContext &context,
                                    ArrayRef<Value> resultGradients) {
  // The labels are integers: only the logits have a gradient.
  context.accumulate(getLogits(),
                     context.create<SoftmaxCrossEntropyGradOp>(
                         resultGradients.front(), getLogits(), getLabels(),
                         getReductionAttr(), getIgnoreIndexAttr()));
  return success();
}

LogicalResult MseOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  // d/dx mean((x - t)^2) = 2 (x - t) / n
  Value g = resultGradients.front();
  RankedTensorType type = getInput().getType();
  double scale = getReduction() == Reduction::Mean
                     ? 2.0 / std::max<int64_t>(type.getNumElements(), 1)
                     : 2.0;
  Value diff = context.create<SubOp>(getInput(), getTarget());
  Value factor = context.splat(scale, cast<RankedTensorType>(g.getType()));
  Value scaledGradient = context.create<MulOp>(g, factor);
  Value seed = context.create<BroadcastOp>(type, scaledGradient);
  Value inputGrad = context.create<MulOp>(seed, diff);
  context.accumulate(getInput(), inputGrad);
  context.accumulate(getTarget(), context.create<NegOp>(inputGrad));
  return success();
}
