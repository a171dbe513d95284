//===- ContractionAdjoints.cpp - adjoints of the contractions -------------===//
//
// Reverse-mode rules (AdjointOpInterface) of matmul, batch_matmul, linear
// and conv2d. The gradient is cast to the inputs' type, and the backward
// products accumulate in FP32 as the forward op does.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

using namespace mlir;
using namespace mixprec;

/// dlhs = g rhs^T, drhs = lhs^T g, with the transposes folded into the
/// products' flags.
template <typename OpTy>
static LogicalResult buildMatmulAdjoint(OpTy op, AdjointContext &context,
                                        Value g, bool batched) {
  Type type = op.getLhs().getType().getElementType();
  Value gIn = context.castTo(g, type);
  Value lhs = op.getLhs(), rhs = op.getRhs();
  bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
  Value lhsGrad = !tl ? context.matmul(gIn, rhs, false, !tr, type, batched)
                      : context.matmul(rhs, gIn, tr, true, type, batched);
  Value rhsGrad = !tr ? context.matmul(lhs, gIn, !tl, false, type, batched)
                      : context.matmul(gIn, lhs, true, tl, type, batched);
  context.accumulate(lhs, lhsGrad);
  context.accumulate(rhs, rhsGrad);
  return success();
}

LogicalResult MatmulOp::buildAdjoint(AdjointContext &context,
                                     ArrayRef<Value> resultGradients) {
  return buildMatmulAdjoint(*this, context, resultGradients.front(),
                            /*batched=*/false);
}

LogicalResult BatchMatmulOp::buildAdjoint(AdjointContext &context,
                                          ArrayRef<Value> resultGradients) {
  return buildMatmulAdjoint(*this, context, resultGradients.front(),
                            /*batched=*/true);
}

LogicalResult LinearOp::buildAdjoint(AdjointContext &context,
                                     ArrayRef<Value> resultGradients) {
  // Flattened to [M, in] x [out, in]^T: dx = g W, dW = g^T x, db = the sum
  // of g over M.
  RankedTensorType inputType = getInput().getType();
  Type type = inputType.getElementType();
  int64_t in = inputType.getShape().back();
  int64_t out = getWeight().getType().getDimSize(0);
  int64_t rows = inputType.getNumElements() / std::max<int64_t>(in, 1);
  Value g = context.castTo(resultGradients.front(), type);
  Value g2 = context.reshape(g, RankedTensorType::get({rows, out}, type));
  Value x2 =
      context.reshape(getInput(), RankedTensorType::get({rows, in}, type));
  Value inputGrad = context.matmul(g2, getWeight(), false, false, type, false);
  context.accumulate(getInput(), context.reshape(inputGrad, inputType));
  context.accumulate(getWeight(),
                     context.matmul(g2, x2, true, false, type, false));
  if (Value bias = getBias())
    context.accumulate(bias,
                       context.create<ReduceSumOp>(g2, ArrayRef<int64_t>{0}));
  return success();
}

LogicalResult Conv2DOp::buildAdjoint(AdjointContext &context,
                                     ArrayRef<Value> resultGradients) {
  OpBuilder &b = context.getBuilder();
  RankedTensorType inputType = getInput().getType();
  RankedTensorType weightType = getWeight().getType();
  Value gIn =
      context.castTo(resultGradients.front(), inputType.getElementType());
  context.accumulate(getInput(),
                     context.create<Conv2DGradInputOp>(
                         inputType, gIn, getWeight(), getStrideAttr(),
                         getPaddingAttr(), getDilationAttr(), getGroupsAttr(),
                         b.getDenseI64ArrayAttr(inputType.getShape())));
  context.accumulate(getWeight(),
                     context.create<Conv2DGradWeightOp>(
                         weightType, gIn, getInput(), getStrideAttr(),
                         getPaddingAttr(), getDilationAttr(), getGroupsAttr(),
                         b.getDenseI64ArrayAttr(weightType.getShape())));
  if (Value bias = getBias())
    context.accumulate(
        bias, context.create<ReduceSumOp>(gIn, ArrayRef<int64_t>{0, 2, 3}));
  return success();
}

//===----------------------------------------------------------------------===//
// Recomputation costs: a multiply-add per result element and reduction step
//===----------------------------------------------------------------------===//

/// Two operations per element of `result` and step of the `k` summed.
static int64_t multiplyAdds(Value result, int64_t k) {
  return 2 * cast<RankedTensorType>(result.getType()).getNumElements() * k;
}

int64_t MatmulOp::getRecomputeFlops() {
  RankedTensorType lhs = getLhs().getType();
  return multiplyAdds(getResult(), lhs.getDimSize(getTransposeLhs() ? 0 : 1));
}

int64_t BatchMatmulOp::getRecomputeFlops() {
  RankedTensorType lhs = getLhs().getType();
  int64_t rank = lhs.getRank();
  return multiplyAdds(getResult(),
                      lhs.getDimSize(rank - (getTransposeLhs() ? 2 : 1)));
}

int64_t LinearOp::getRecomputeFlops() {
  return multiplyAdds(getResult(), getInput().getType().getShape().back());
}

int64_t Conv2DOp::getRecomputeFlops() {
  // Each output element sums in / groups channels over the kernel.
  RankedTensorType weight = getWeight().getType();
  return multiplyAdds(getResult(), weight.getDimSize(1) * weight.getDimSize(2) *
                                       weight.getDimSize(3));
}
