//===- ElementwiseLowering.cpp - elementwise ops, casts, constants --------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

/// An op whose every result element is `compute(operands at that index)`,
/// computed in f32 and rounded once to the result type.
template <typename OpTy>
struct ElementwiseLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, mapElements(rewriter, op.getLoc(), op.getType(), op->getOperands(),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return compute(op, b, loc, args);
                        }));
    return success();
  }
  static Value compute(OpTy op, OpBuilder &b, Location loc, ValueRange args);
};

template <>
Value ElementwiseLowering<AddOp>::compute(AddOp, OpBuilder &b, Location loc,
                                          ValueRange args) {
  return arith::AddFOp::create(b, loc, args[0], args[1]);
}
template <>
Value ElementwiseLowering<SubOp>::compute(SubOp, OpBuilder &b, Location loc,
                                          ValueRange args) {
  return arith::SubFOp::create(b, loc, args[0], args[1]);
}
template <>
Value ElementwiseLowering<MulOp>::compute(MulOp, OpBuilder &b, Location loc,
                                          ValueRange args) {
  return arith::MulFOp::create(b, loc, args[0], args[1]);
}
template <>
Value ElementwiseLowering<DivOp>::compute(DivOp, OpBuilder &b, Location loc,
                                          ValueRange args) {
  return arith::DivFOp::create(b, loc, args[0], args[1]);
}
template <>
Value ElementwiseLowering<MaximumOp>::compute(MaximumOp, OpBuilder &b,
                                              Location loc, ValueRange args) {
  return arith::MaximumFOp::create(b, loc, args[0], args[1]);
}
template <>
Value ElementwiseLowering<MinimumOp>::compute(MinimumOp, OpBuilder &b,
                                              Location loc, ValueRange args) {
  return arith::MinimumFOp::create(b, loc, args[0], args[1]);
}
template <>
Value ElementwiseLowering<PowOp>::compute(PowOp, OpBuilder &b, Location loc,
                                          ValueRange args) {
  return math::PowFOp::create(b, loc, args[0], args[1]);
}
template <>
Value ElementwiseLowering<NegOp>::compute(NegOp, OpBuilder &b, Location loc,
                                          ValueRange args) {
  return arith::NegFOp::create(b, loc, args[0]);
}
template <>
Value ElementwiseLowering<ExpOp>::compute(ExpOp, OpBuilder &b, Location loc,
                                          ValueRange args) {
  return math::ExpOp::create(b, loc, args[0]);
}
template <>
Value ElementwiseLowering<LogOp>::compute(LogOp, OpBuilder &b, Location loc,
                                          ValueRange args) {
  return math::LogOp::create(b, loc, args[0]);
}
template <>
Value ElementwiseLowering<SqrtOp>::compute(SqrtOp, OpBuilder &b, Location loc,
                                           ValueRange args) {
  return math::SqrtOp::create(b, loc, args[0]);
}
template <>
Value ElementwiseLowering<RsqrtOp>::compute(RsqrtOp, OpBuilder &b, Location loc,
                                            ValueRange args) {
  // 1 / sqrt(x), as PyTorch computes it (libm has no rsqrtf).
  return arith::DivFOp::create(b, loc,
                               floatConstant(b, loc, b.getF32Type(), 1.0),
                               math::SqrtOp::create(b, loc, args[0]));
}
template <>
Value ElementwiseLowering<TanhOp>::compute(TanhOp, OpBuilder &b, Location loc,
                                           ValueRange args) {
  return math::TanhOp::create(b, loc, args[0]);
}
template <>
Value ElementwiseLowering<SigmoidOp>::compute(SigmoidOp, OpBuilder &b,
                                              Location loc, ValueRange args) {
  // 1 / (1 + e^-x): e^-x overflows to +inf for very negative x, giving 0.
  Value one = floatConstant(b, loc, b.getF32Type(), 1.0);
  Value negated = arith::NegFOp::create(b, loc, args[0]);
  Value denominator =
      arith::AddFOp::create(b, loc, one, math::ExpOp::create(b, loc, negated));
  return arith::DivFOp::create(b, loc, one, denominator);
}
template <>
Value ElementwiseLowering<ReluOp>::compute(ReluOp, OpBuilder &b, Location loc,
                                           ValueRange args) {
  // maximumf propagates NaN, as PyTorch's relu does (maxnumf would not).
  Value zero = floatConstant(b, loc, b.getF32Type(), 0.0);
  return arith::MaximumFOp::create(b, loc, args[0], zero);
}
template <>
Value ElementwiseLowering<GeluOp>::compute(GeluOp op, OpBuilder &b,
                                           Location loc, ValueRange args) {
  Type f32 = b.getF32Type();
  Value x = args[0];
  Value half = floatConstant(b, loc, f32, 0.5);
  Value one = floatConstant(b, loc, f32, 1.0);
  Value inner;
  if (op.getApproximate() == GeluApproximation::Tanh) {
    // tanh(sqrt(2 / pi) * (x + 0.044715 x^3))
    Value cube =
        arith::MulFOp::create(b, loc, x, arith::MulFOp::create(b, loc, x, x));
    Value poly = arith::AddFOp::create(
        b, loc, x,
        arith::MulFOp::create(b, loc, floatConstant(b, loc, f32, 0.044715),
                              cube));
    inner = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(
            b, loc, floatConstant(b, loc, f32, std::sqrt(2.0 / M_PI)), poly));
  } else {
    inner = math::ErfOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, x,
                              floatConstant(b, loc, f32, M_SQRT1_2)));
  }
  return arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, half, x),
                               arith::AddFOp::create(b, loc, one, inner));
}

struct CastLowering : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, convertTensor(rewriter, op.getLoc(), op.getInput(),
                                         op.getType().getElementType()));
    return success();
  }
};

struct ConstantLowering : public OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, cast<TypedAttr>(op.getValue()));
    return success();
  }
};

} // namespace

void mixprec::populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering<AddOp>, ElementwiseLowering<SubOp>,
               ElementwiseLowering<MulOp>, ElementwiseLowering<DivOp>,
               ElementwiseLowering<MaximumOp>, ElementwiseLowering<MinimumOp>,
               ElementwiseLowering<PowOp>, ElementwiseLowering<NegOp>,
               ElementwiseLowering<ExpOp>, ElementwiseLowering<LogOp>,
               ElementwiseLowering<SqrtOp>, ElementwiseLowering<RsqrtOp>,
               ElementwiseLowering<TanhOp>, ElementwiseLowering<SigmoidOp>,
               ElementwiseLowering<ReluOp>, ElementwiseLowering<GeluOp>,
               CastLowering, ConstantLowering>(patterns.getContext());
}
