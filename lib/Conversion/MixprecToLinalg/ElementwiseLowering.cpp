//===- ElementwiseLowering.cpp - elementwise ops, casts, constants --------===//
//
// An elementwise op lowers to one linalg.generic whose body computes an
// element from its operands' elements, widened to f32, and whose result is
// rounded once to the op's type (docs/design.md §4, LoweringUtils.h). A new
// elementwise op is one line in populateElementwiseLoweringPatterns: its
// scalar op, or a body function when it takes more than one.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

/// Computes one element of `op`'s result from the f32 elements `args` of
/// its operands at that index.
template <typename OpTy>
using ElementBody = Value (*)(OpTy op, OpBuilder &b, Location loc,
                              ValueRange args);

/// Lowers `OpTy` to the elementwise map of `body`.
template <typename OpTy, ElementBody<OpTy> body>
struct ElementwiseLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, mapElements(rewriter, op.getLoc(), op.getType(), op->getOperands(),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return body(op, b, loc, args);
                        }));
    return success();
  }
};

struct CastLowering : public OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, convertTensor(rewriter, op.getLoc(), op.getInput(),
                                         op.getType().getElementType()));
    return success();
  }
};

/// A splat tensor is a fill, computed where it is needed (a buffer of the
/// plan, a kernel on the GPU); any other constant is data.
struct ConstantLowering : public OpRewritePattern<ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = cast<TypedAttr>(op.getValue());
    auto splat = dyn_cast<SplatElementsAttr>(value);
    if (!splat || splat.getNumElements() < 2) {
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
      return success();
    }
    Location loc = op.getLoc();
    Value element = arith::ConstantOp::create(
        rewriter, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    Value empty = emptyTensor(rewriter, loc, op.getType());
    rewriter.replaceOpWithNewOp<linalg::FillOp>(op, ValueRange{element},
                                                ValueRange{empty});
    return success();
  }
};

} // namespace

/// The body that is one arith or math op of the operands' elements.
template <typename OpTy, typename ScalarOp>
static Value scalarOpBody(OpTy, OpBuilder &b, Location loc, ValueRange args) {
  if constexpr (ScalarOp::template hasTrait<OpTrait::OneOperand>())
    return ScalarOp::create(b, loc, args[0]);
  else
    return ScalarOp::create(b, loc, args[0], args[1]);
}

/// Lowers `OpTy`, elementwise, to `ScalarOp`.
template <typename OpTy, typename ScalarOp>
using OneToOneLowering =
    ElementwiseLowering<OpTy, scalarOpBody<OpTy, ScalarOp>>;

static Value rsqrtBody(RsqrtOp, OpBuilder &b, Location loc, ValueRange args) {
  // 1 / sqrt(x), as PyTorch computes it (libm has no rsqrtf).
  Value root = math::SqrtOp::create(b, loc, args[0]);
  Value one = floatConstant(b, loc, b.getF32Type(), 1.0);
  return arith::DivFOp::create(b, loc, one, root);
}

/// 1 / (1 + e^-x): e^-x overflows to +inf for very negative x, giving 0.
static Value sigmoidBody(SigmoidOp, OpBuilder &b, Location loc,
                         ValueRange args) {
  Value one = floatConstant(b, loc, b.getF32Type(), 1.0);
  Value negated = arith::NegFOp::create(b, loc, args[0]);
  Value exp = math::ExpOp::create(b, loc, negated);
  Value denominator = arith::AddFOp::create(b, loc, one, exp);
  return arith::DivFOp::create(b, loc, one, denominator);
}

/// x / (1 + e^-x), as PyTorch computes silu: -0 for very negative x, where
/// e^-x overflows to +inf.
static Value siluBody(SiluOp, OpBuilder &b, Location loc, ValueRange args) {
  Value x = args[0];
  Value one = floatConstant(b, loc, b.getF32Type(), 1.0);
  Value negated = arith::NegFOp::create(b, loc, x);
  Value exp = math::ExpOp::create(b, loc, negated);
  Value denominator = arith::AddFOp::create(b, loc, one, exp);
  return arith::DivFOp::create(b, loc, x, denominator);
}

static Value reluBody(ReluOp, OpBuilder &b, Location loc, ValueRange args) {
  // maximumf propagates NaN, as PyTorch's relu does (maxnumf would not).
  Value zero = floatConstant(b, loc, b.getF32Type(), 0.0);
  return arith::MaximumFOp::create(b, loc, args[0], zero);
}

/// maximumf then minimumf with the bounds given: both propagate NaN, as
/// torch.clamp does.
static Value clampBody(ClampOp op, OpBuilder &b, Location loc,
                       ValueRange args) {
  Value result = args[0];
  if (FloatAttr min = op.getMinAttr()) {
    Value bound = floatConstant(b, loc, b.getF32Type(), min.getValueAsDouble());
    result = arith::MaximumFOp::create(b, loc, result, bound);
  }
  if (FloatAttr max = op.getMaxAttr()) {
    Value bound = floatConstant(b, loc, b.getF32Type(), max.getValueAsDouble());
    result = arith::MinimumFOp::create(b, loc, result, bound);
  }
  return result;
}

/// A select, not a blend: the element not chosen, inf or NaN, never enters
/// the result (x * c + y * (1 - c) would give inf * 0 = NaN).
static Value whereBody(WhereOp, OpBuilder &b, Location loc, ValueRange args) {
  return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
}

static Value logicalNotBody(LogicalNotOp, OpBuilder &b, Location loc,
                            ValueRange args) {
  Value yes = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  return arith::XOrIOp::create(b, loc, args[0], yes);
}

static Value geluBody(GeluOp op, OpBuilder &b, Location loc, ValueRange args) {
  Type f32 = b.getF32Type();
  Value x = args[0];
  Value half = floatConstant(b, loc, f32, 0.5);
  Value one = floatConstant(b, loc, f32, 1.0);
  Value inner;
  if (op.getApproximate() == GeluApproximation::Tanh) {
    // tanh(sqrt(2 / pi) * (x + 0.044715 x^3))
    Value square = arith::MulFOp::create(b, loc, x, x);
    Value cube = arith::MulFOp::create(b, loc, x, square);
    Value coefficient = floatConstant(b, loc, f32, 0.044715);
    Value term = arith::MulFOp::create(b, loc, coefficient, cube);
    Value poly = arith::AddFOp::create(b, loc, x, term);
    Value scale = floatConstant(b, loc, f32, std::sqrt(2.0 / M_PI));
    Value scaled = arith::MulFOp::create(b, loc, scale, poly);
    inner = math::TanhOp::create(b, loc, scaled);
  } else {
    Value scale = floatConstant(b, loc, f32, M_SQRT1_2);
    Value scaled = arith::MulFOp::create(b, loc, x, scale);
    inner = math::ErfOp::create(b, loc, scaled);
  }
  Value onePlus = arith::AddFOp::create(b, loc, one, inner);
  Value halfX = arith::MulFOp::create(b, loc, half, x);
  return arith::MulFOp::create(b, loc, halfX, onePlus);
}

void mixprec::populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<OneToOneLowering<AddOp, arith::AddFOp>,
               OneToOneLowering<SubOp, arith::SubFOp>,
               OneToOneLowering<MulOp, arith::MulFOp>,
               OneToOneLowering<DivOp, arith::DivFOp>,
               OneToOneLowering<MaximumOp, arith::MaximumFOp>,
               OneToOneLowering<MinimumOp, arith::MinimumFOp>,
               OneToOneLowering<PowOp, math::PowFOp>,
               OneToOneLowering<NegOp, arith::NegFOp>,
               OneToOneLowering<AbsOp, math::AbsFOp>,
               OneToOneLowering<ExpOp, math::ExpOp>,
               OneToOneLowering<LogOp, math::LogOp>,
               OneToOneLowering<SqrtOp, math::SqrtOp>,
               OneToOneLowering<TanhOp, math::TanhOp>,
               ElementwiseLowering<RsqrtOp, rsqrtBody>,
               ElementwiseLowering<SigmoidOp, sigmoidBody>,
               ElementwiseLowering<SiluOp, siluBody>,
               ElementwiseLowering<ReluOp, reluBody>,
               ElementwiseLowering<GeluOp, geluBody>,
               ElementwiseLowering<ClampOp, clampBody>,
               ElementwiseLowering<WhereOp, whereBody>,
               ElementwiseLowering<LogicalNotOp, logicalNotBody>, CastLowering,
               ConstantLowering>(patterns.getContext());
}
