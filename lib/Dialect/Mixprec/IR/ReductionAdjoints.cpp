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
  context.accumulate(getInput(), context.create<MulOp>(spread, share));
  return success();
}

LogicalResult ReduceMaxOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  // torch.amax's rule: tied maxima share the gradient equally (not
  // torch.max(x, dim)'s, which gives it all to one index).
  context.accumulate(getInput(), context.create<ReduceMaxGradOp>(
                                     resultGradients.front(), getInput(),
                                     getResult(), getDims(), getKeepdim()));
  return success();
}

/// The backward pooling op takes the forward op's input and window.
template <typename GradOp, typename OpTy>
static LogicalResult buildPoolAdjoint(OpTy op, AdjointContext &context,
                                      Value g) {
  context.accumulate(op.getInput(),
                     context.create<GradOp>(op.getInput().getType(), g,
                                            op.getInput(), op.getKernelAttr(),
                                            op.getStrideAttr(),
                                            op.getPaddingAttr()));
  return success();
}

LogicalResult MaxPool2DOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  return buildPoolAdjoint<MaxPool2DGradOp>(*this, context,
                                           resultGradients.front());
}

LogicalResult AvgPool2DOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  return buildPoolAdjoint<AvgPool2DGradOp>(*this, context,
                                           resultGradients.front());
}
