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
  // Integers and masks have no gradient.
  if (isa<FloatType>(getInput().getType().getElementType()))
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
  Value g = resultGradients.front();
  context.accumulateCast(getLhs(), g);
  context.accumulateCast(getRhs(), context.create<NegOp>(g));
  return success();
}

LogicalResult MulOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  Value g = resultGradients.front();
  Type type = getType().getElementType();
  Value lhs = context.castTo(getLhs(), type);
  Value rhs = context.castTo(getRhs(), type);
  context.accumulateCast(getLhs(), context.create<MulOp>(g, rhs));
  context.accumulateCast(getRhs(), context.create<MulOp>(g, lhs));
  return success();
}

LogicalResult DivOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  // d(a/b) = g/b da - g*(a/b)/b db
  Value g = resultGradients.front();
  Value rhs = context.castTo(getRhs(), getType().getElementType());
  Value lhsGrad = context.create<DivOp>(g, rhs);
  Value scaled = context.create<MulOp>(g, getResult());
  Value ratio = context.create<DivOp>(scaled, rhs);
  Value rhsGrad = context.create<NegOp>(ratio);
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
  auto grads = context.create<GradOp>(g, lhs, rhs);
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
  Value g = resultGradients.front();
  Type type = getType().getElementType();
  Value lhs = context.castTo(getLhs(), type);
  Value rhs = context.castTo(getRhs(), type);
  Value one = context.splat(1.0, cast<RankedTensorType>(rhs.getType()));
  Value lower = context.create<SubOp>(rhs, one);
  Value power = context.create<PowOp>(lhs, lower);
  Value lhsSlope = context.create<MulOp>(rhs, power);
  Value lhsGrad = context.create<MulOp>(g, lhsSlope);
  Value log = context.create<LogOp>(lhs);
  Value rhsSlope = context.create<MulOp>(getResult(), log);
  Value rhsGrad = context.create<MulOp>(g, rhsSlope);
  context.accumulateCast(getLhs(), lhsGrad);
  context.accumulateCast(getRhs(), rhsGrad);
  return success();
}

LogicalResult WhereOp::buildAdjoint(AdjointContext &context,
                                    ArrayRef<Value> resultGradients) {
  // PyTorch's where backward: g to the chosen value and 0 to the other, also
  // where that one is inf (a select, never inf * 0); the mask has none.
  Value g = resultGradients.front();
  Value condition = getCondition();
  Value zeros = context.splat(0.0, cast<RankedTensorType>(g.getType()));
  Value trueGrad = context.create<WhereOp>(condition, g, zeros);
  Value falseGrad = context.create<WhereOp>(condition, zeros, g);
  context.accumulateCast(getTrueValue(), trueGrad);
  context.accumulateCast(getFalseValue(), falseGrad);
  return success();
}

LogicalResult NegOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  context.accumulate(getInput(),
                     context.create<NegOp>(resultGradients.front()));
  return success();
}

LogicalResult AbsOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  // g * sign(x), as PyTorch's abs_backward. relu_grad of ones is the step
  // x > 0 (1 for NaN too), so sign = step(x) - step(-x) is 0 at 0 and for
  // NaN, as torch.sign; the product keeps g's inf and NaN.
  Value x = getInput();
  Value ones = context.splat(1.0, getType());
  Value positive = context.create<ReluGradOp>(ones, x);
  Value negated = context.create<NegOp>(x);
  Value negative = context.create<ReluGradOp>(ones, negated);
  Value sign = context.create<SubOp>(positive, negative);
  Value dx = context.create<MulOp>(resultGradients.front(), sign);
  context.accumulate(x, dx);
  return success();
}

LogicalResult ClampOp::buildAdjoint(AdjointContext &context,
                                    ArrayRef<Value> resultGradients) {
  // g where min <= x <= max, a tie on a bound included, else 0 (NaN x too),
  // as PyTorch's clamp_backward; strict: min < x < max, as its vectorized
  // hardtanh_backward. With no compare op, step(v) = relu_grad(1, v) is 1
  // for v > 0 and for NaN, and relu_grad(g, mask) selects g, so an inf g
  // outside gives 0. The mask "x >= min" is 1 - step(min - x) (0 for NaN);
  // "x > min" is step(x - min), and 1 - step(x - x) keeps out NaN.
  Value x = getInput();
  Value ones = context.splat(1.0, getType());
  auto step = [&](Value v) -> Value {
    return context.create<ReluGradOp>(ones, v);
  };
  auto notStep = [&](Value v) -> Value {
    return context.create<SubOp>(ones, step(v));
  };
  Value dx = resultGradients.front();
  if (FloatAttr min = getMinAttr()) {
    Value bound = context.splat(min.getValueAsDouble(), getType());
    dx = context.create<ReluGradOp>(
        dx, getStrict() ? step(context.create<SubOp>(x, bound))
                        : notStep(context.create<SubOp>(bound, x)));
  }
  if (FloatAttr max = getMaxAttr()) {
    Value bound = context.splat(max.getValueAsDouble(), getType());
    dx = context.create<ReluGradOp>(
        dx, getStrict() ? step(context.create<SubOp>(bound, x))
                        : notStep(context.create<SubOp>(x, bound)));
  }
  if (getStrict())
    dx = context.create<ReluGradOp>(dx, notStep(context.create<SubOp>(x, x)));
  context.accumulate(x, dx);
  return success();
}

LogicalResult ExpOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  context.accumulate(
      getInput(), context.create<MulOp>(resultGradients.front(), getResult()));
  return success();
}

LogicalResult LogOp::buildAdjoint(AdjointContext &context,
                                  ArrayRef<Value> resultGradients) {
  context.accumulate(
      getInput(), context.create<DivOp>(resultGradients.front(), getInput()));
  return success();
}

LogicalResult SqrtOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  // d(sqrt x) = 1 / (2 y)
  Value y = getResult();
  Value twice = context.create<AddOp>(y, y);
  context.accumulate(getInput(),
                     context.create<DivOp>(resultGradients.front(), twice));
  return success();
}

LogicalResult RsqrtOp::buildAdjoint(AdjointContext &context,
                                    ArrayRef<Value> resultGradients) {
  // d(x^-1/2) = -1/2 x^-3/2 = -1/2 y^3
  Value y = getResult();
  Value square = context.create<MulOp>(y, y);
  Value cube = context.create<MulOp>(y, square);
  Value half = context.splat(-0.5, getType());
  Value scaled = context.create<MulOp>(resultGradients.front(), cube);
  context.accumulate(getInput(), context.create<MulOp>(scaled, half));
  return success();
}

LogicalResult TanhOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  // d(tanh x) = 1 - y^2, as g - g y^2
  Value g = resultGradients.front();
  Value y = getResult();
  Value square = context.create<MulOp>(y, y);
  Value scaled = context.create<MulOp>(g, square);
  context.accumulate(getInput(), context.create<SubOp>(g, scaled));
  return success();
}

LogicalResult SigmoidOp::buildAdjoint(AdjointContext &context,
                                      ArrayRef<Value> resultGradients) {
  // d(sigmoid x) = y - y^2
  Value y = getResult();
  Value square = context.create<MulOp>(y, y);
  Value slope = context.create<SubOp>(y, square);
  context.accumulate(getInput(),
                     context.create<MulOp>(resultGradients.front(), slope));
  return success();
}

LogicalResult SiluOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  // d(x sigmoid(x)) = s (1 + x (1 - s)), s = sigmoid(x): in FP32 and rounded
  // once to the input's type, as PyTorch's silu_backward computes it.
  OpBuilder &b = context.getBuilder();
  Type inputType = getType().getElementType();
  Type f32 = b.getF32Type();
  Value g = context.castTo(resultGradients.front(), f32);
  Value x = context.castTo(getInput(), f32);
  Value s = context.create<SigmoidOp>(x);
  Value one = context.splat(1.0, getType().clone(f32));
  Value complement = context.create<SubOp>(one, s);
  Value xComplement = context.create<MulOp>(x, complement);
  Value factor = context.create<AddOp>(one, xComplement);
  Value gs = context.create<MulOp>(g, s);
  Value dx = context.create<MulOp>(gs, factor);
  context.accumulate(getInput(), context.castTo(dx, inputType));
  return success();
}

LogicalResult ReluOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  context.accumulate(getInput(), context.create<ReluGradOp>(
                                     resultGradients.front(), getInput()));
  return success();
}

LogicalResult GeluOp::buildAdjoint(AdjointContext &context,
                                   ArrayRef<Value> resultGradients) {
  context.accumulate(
      getInput(), context.create<GeluGradOp>(resultGradients.front(),
                                             getInput(), getApproximateAttr()));
  return success();
}

LogicalResult DropoutOp::buildAdjoint(AdjointContext &context,
                                      ArrayRef<Value> resultGradients) {
  // The same Philox mask and scale.
  context.accumulate(
      getInput(),
      context.create<DropoutOp>(resultGradients.front(), getRng(), getPAttr(),
                                getStreamAttr(), getTrainingAttr()));
  return success();
}
