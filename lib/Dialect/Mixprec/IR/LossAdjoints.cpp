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
                     SoftmaxCrossEntropyGradOp::create(
                         context.getBuilder(), context.getLoc(),
                         resultGradients.front(), getLogits(), getLabels(),
                         getReductionAttr(), getIgnoreIndexAttr()));
  return success();
}

LogicalResult MseOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  // d/dx mean((x - t)^2) = 2 (x - t) / n
  OpBuilder &b = context.getBuilder();
  Location loc = context.getLoc();
  Value g = resultGradients.front();
  RankedTensorType type = getInput().getType();
  double scale = getReduction() == Reduction::Mean
                     ? 2.0 / std::max<int64_t>(type.getNumElements(), 1)
                     : 2.0;
  Value diff = SubOp::create(b, loc, getInput(), getTarget());
  Value factor = context.splat(scale, cast<RankedTensorType>(g.getType()));
  Value seed =
      BroadcastOp::create(b, loc, type, MulOp::create(b, loc, g, factor));
  Value inputGrad = MulOp::create(b, loc, seed, diff);
  context.accumulate(getInput(), inputGrad);
  context.accumulate(getTarget(), NegOp::create(b, loc, inputGrad));
  return success();
}
