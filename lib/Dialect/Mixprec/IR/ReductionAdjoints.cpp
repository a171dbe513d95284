//===- ReductionAdjoints.cpp - adjoints of reductions and pooling ---------===//
//
// Reverse-mode rules (AdjointOpInterface) of reduce_sum, reduce_mean,
// reduce_max and 2-D pooling: the gradient goes back over the elements each
// result element was reduced from.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

using namespace mlir;
using namespace mixprec;

LogicalResult ReduceSumOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  context.accumulate(getInput(), context.unreduce(resultGradients.front(),
                                                  getInput(), getDims()));
  return success();
}

LogicalResult ReduceMeanOp::buildAdjoint(AdjointContext &context,
                                         ArrayRef<Value> resultGradients) {
  int64_t count = 1;
  for (int64_t dim : getDims())
    count *= getInput().getType().getDimSize(dim);
  Value spread =
      context.unreduce(resultGradients.front(), getInput(), getDims());
  Value share =
      context.splat(1.0 / count, cast<RankedTensorType>(spread.getType()));
  context.accumulate(
      getInput(),
      MulOp::create(context.getBuilder(), context.getLoc(), spread, share));
  return success();
}

LogicalResult ReduceMaxOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  // torch.amax's rule: tied maxima share the gradient equally (not
  // torch.max(x, dim)'s, which gives it all to one index).
  context.accumulate(getInput(), ReduceMaxGradOp::create(
                                     context.getBuilder(), context.getLoc(),
                                     resultGradients.front(), getInput(),
                                     getResult(), getDims(), getKeepdim()));
  return success();
}

LogicalResult MaxPool2DOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  context.accumulate(
      getInput(), MaxPool2DGradOp::create(
                      context.getBuilder(), context.getLoc(),
                      getInput().getType(), resultGradients.front(), getInput(),
                      getKernelAttr(), getStrideAttr(), getPaddingAttr()));
  return success();
}

LogicalResult AvgPool2DOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  context.accumulate(
      getInput(), AvgPool2DGradOp::create(
                      context.getBuilder(), context.getLoc(),
                      getInput().getType(), resultGradients.front(), getInput(),
                      getKernelAttr(), getStrideAttr(), getPaddingAttr()));
  return success();
}
