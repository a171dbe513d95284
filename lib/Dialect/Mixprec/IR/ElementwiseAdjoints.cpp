//===- ElementwiseAdjoints.cpp - adjoints of elementwise ops --------------===//
//
// Reverse-mode rules (AdjointOpInterface) of the elementwise ops, casts,
// constants and dropout. A binary op computes in its result type: its
// operands are cast to it, and each operand's gradient is cast back to the
// operand's own type.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

using namespace mlir;
using namespace mixprec;

LogicalResult ConstantOp::buildAdjoint(AdjointContext &, ArrayRef<Value>) {
  // The loss's dependence ends here.
  return success();
}

LogicalResult CastOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  context.accumulateCast(getInput(), resultGradients.front());
  return success();
}

LogicalResult AddOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  Value g = resultGradients.front();
  context.accumulateCast(getLhs(), g);
  context.accumulateCast(getRhs(), g);
  return success();
}

LogicalResult SubOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  OpBuilder &b = context.getBuilder();
  Value g = resultGradients.front();
  context.accumulateCast(getLhs(), g);
  context.accumulateCast(getRhs(), NegOp::create(b, context.getLoc(), g));
  return success();
}

LogicalResult MulOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  OpBuilder &b = context.getBuilder();
  Location loc = context.getLoc();
  Value g = resultGradients.front();
  Type type = getType().getElementType();
  Value lhs = context.castTo(getLhs(), type);
  Value rhs = context.castTo(getRhs(), type);
  context.accumulateCast(getLhs(), MulOp::create(b, loc, g, rhs));
  context.accumulateCast(getRhs(), MulOp::create(b, loc, g, lhs));
  return success();
}

LogicalResult DivOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  // d(a/b) = g/b da - g*(a/b)/b db
  OpBuilder &b = context.getBuilder();
  Location loc = context.getLoc();
  Value g = resultGradients.front();
  Value rhs = context.castTo(getRhs(), getType().getElementType());
  Value lhsGrad = DivOp::create(b, loc, g, rhs);
  Value scaled = MulOp::create(b, loc, g, getResult());
  Value rhsGrad = NegOp::create(b, loc, DivOp::create(b, loc, scaled, rhs));
  context.accumulateCast(getLhs(), lhsGrad);
  context.accumulateCast(getRhs(), rhsGrad);
  return success();
}

/// PyTorch's rule, ties split the gradient evenly: see maximum_grad.
template <typename GradOp, typename OpTy>
static LogicalResult buildMinMaxAdjoint(OpTy op, AdjointContext &context,
                                        Value g) {
  Type type = op.getType().getElementType();
  Value rhs = context.castTo(op.getRhs(), type);
  Value lhs = context.castTo(op.getLhs(), type);
  auto grads =
      GradOp::create(context.getBuilder(), context.getLoc(), g, lhs, rhs);
  context.accumulateCast(op.getLhs(), grads.getDlhs());
  context.accumulateCast(op.getRhs(), grads.getDrhs());
  return success();
}

LogicalResult MaximumOp::buildAdjoint(AdjointContext &context,
                                      ArrayRef<Value> resultGradients) {
  return buildMinMaxAdjoint<MaximumGradOp>(*this, context,
                                           resultGradients.front());
}

LogicalResult MinimumOp::buildAdjoint(AdjointContext &context,
                                      ArrayRef<Value> resultGradients) {
  return buildMinMaxAdjoint<MinimumGradOp>(*this, context,
                                           resultGradients.front());
}

LogicalResult PowOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  // d(a^b) = b a^(b-1) da + a^b ln(a) db
  OpBuilder &b = context.getBuilder();
  Location loc = context.getLoc();
  Value g = resultGradients.front();
  Type type = getType().getElementType();
  Value lhs = context.castTo(getLhs(), type);
  Value rhs = context.castTo(getRhs(), type);
  Value one = context.splat(1.0, cast<RankedTensorType>(rhs.getType()));
  Value lower = SubOp::create(b, loc, rhs, one);
  Value power = PowOp::create(b, loc, lhs, lower);
  Value lhsGrad = MulOp::create(b, loc, g, MulOp::create(b, loc, rhs, power));
  Value log = LogOp::create(b, loc, lhs);
  Value rhsGrad =
      MulOp::create(b, loc, g, MulOp::create(b, loc, getResult(), log));
  context.accumulateCast(getLhs(), lhsGrad);
  context.accumulateCast(getRhs(), rhsGrad);
  return success();
}

LogicalResult NegOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  context.accumulate(getInput(),
                     NegOp::create(context.getBuilder(), context.getLoc(),
                                   resultGradients.front()));
  return success();
}

LogicalResult ExpOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  context.accumulate(getInput(),
                     MulOp::create(context.getBuilder(), context.getLoc(),
                                   resultGradients.front(), getResult()));
  return success();
}

LogicalResult LogOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  context.accumulate(getInput(),
                     DivOp::create(context.getBuilder(), context.getLoc(),
                                   resultGradients.front(), getInput()));
  return success();
}

LogicalResult SqrtOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  // d(sqrt x) = 1 / (2 y)
  OpBuilder &b = context.getBuilder();
  Location loc = context.getLoc();
  Value y = getResult();
  Value twice = AddOp::create(b, loc, y, y);
  context.accumulate(getInput(),
                     DivOp::create(b, loc, resultGradients.front(), twice));
  return success();
}

LogicalResult RsqrtOp::buildAdjoint(AdjointContext &context,
                                    ArrayRef<Value> resultGradients) {
  // d(x^-1/2) = -1/2 x^-3/2 = -1/2 y^3
  OpBuilder &b = context.getBuilder();
  Location loc = context.getLoc();
  Value y = getResult();
  Value cube = MulOp::create(b, loc, y, MulOp::create(b, loc, y, y));
  Value half = context.splat(-0.5, getType());
  Value scaled = MulOp::create(b, loc, resultGradients.front(), cube);
  context.accumulate(getInput(), MulOp::create(b, loc, scaled, half));
  return success();
}

LogicalResult TanhOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  // d(tanh x) = 1 - y^2, as g - g y^2
  OpBuilder &b = context.getBuilder();
  Location loc = context.getLoc();
  Value g = resultGradients.front();
  Value y = getResult();
  Value square = MulOp::create(b, loc, y, y);
  Value scaled = MulOp::create(b, loc, g, square);
  context.accumulate(getInput(), SubOp::create(b, loc, g, scaled));
  return success();
}

LogicalResult SigmoidOp::buildAdjoint(AdjointContext &context,
                                      ArrayRef<Value> resultGradients) {
  // d(sigmoid x) = y - y^2
  OpBuilder &b = context.getBuilder();
  Location loc = context.getLoc();
  Value y = getResult();
  Value slope = SubOp::create(b, loc, y, MulOp::create(b, loc, y, y));
  context.accumulate(getInput(),
                     MulOp::create(b, loc, resultGradients.front(), slope));
  return success();
}

LogicalResult SiluOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  // d(x sigmoid(x)) = s (1 + x (1 - s)), s = sigmoid(x): in FP32 and rounded
  // once to the input's type, as PyTorch's silu_backward computes it.
  OpBuilder &b = context.getBuilder();
  Location loc = context.getLoc();
  Type inputType = getType().getElementType();
  Type f32 = b.getF32Type();
  Value g = context.castTo(resultGradients.front(), f32);
  Value x = context.castTo(getInput(), f32);
  Value s = SigmoidOp::create(b, loc, x);
  Value one = context.splat(1.0, getType().clone(f32));
  Value complement = SubOp::create(b, loc, one, s);
  Value xComplement = MulOp::create(b, loc, x, complement);
  Value factor = AddOp::create(b, loc, one, xComplement);
  Value gs = MulOp::create(b, loc, g, s);
  Value dx = MulOp::create(b, loc, gs, factor);
  context.accumulate(getInput(), context.castTo(dx, inputType));
  return success();
}

LogicalResult ReluOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  context.accumulate(getInput(),
                     ReluGradOp::create(context.getBuilder(), context.getLoc(),
                                        resultGradients.front(), getInput()));
  return success();
}

LogicalResult GeluOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  context.accumulate(getInput(),
                     GeluGradOp::create(context.getBuilder(), context.getLoc(),
                                        resultGradients.front(), getInput(),
                                        getApproximateAttr()));
  return success();
}

LogicalResult DropoutOp::buildAdjoint(AdjointContext &context,
                                      ArrayRef<Value> resultGradients) {
  // The same Philox mask and scale.
  context.accumulate(getInput(),
                     DropoutOp::create(context.getBuilder(), context.getLoc(),
                                       resultGradients.front(), getRng(),
                                       getPAttr(), getStreamAttr(),
                                       getTrainingAttr()));
  return success();
}
