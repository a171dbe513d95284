//===- ExpandMath.cpp - f32 exp and erf as vectorizable arithmetic --------===//
//
// --mixprec-expand-math: f32 math.exp and math.erf become arith ops and
// llvm.intr.fma (math.fma would become a call of libm's fmaf), so that loops
// computing them vectorize (a libm call keeps a loop scalar) and every element
// gets the same bits in a vector lane or in the scalar remainder. The error
// bounds are in Passes.td. f32 maximumf and minimumf become LLVM's
// intrinsics, whose reductions LLVM vectorizes.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <cstdint>

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECEXPANDMATH
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// Builds f32 arithmetic on scalars or vectors of the shape of `like`.
class F32Builder {
public:
  F32Builder(ImplicitLocOpBuilder &b, Type like) : b(b), floatType(like) {
    intType = b.getI32Type();
    if (auto vector = dyn_cast<VectorType>(like))
      intType = vector.clone(intType);
  }

  Value constant(float value) {
    return arith::ConstantOp::create(b, floatType, splat(floatType, value));
  }
  Value intConstant(int32_t value) {
    return arith::ConstantOp::create(b, intType, splat(intType, value));
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value fma(Value x, Value y, Value z) {
    return LLVM::FMAOp::create(b, x, y, z);
  }
  /// Horner's rule with FMAs: the coefficients from the highest power.
  Value polynomial(ArrayRef<float> coefficients, Value x) {
    Value result = constant(coefficients.front());
    for (float c : coefficients.drop_front()) {
      Value coefficient = constant(c);
      result = fma(result, x, coefficient);
    }
    return result;
  }
  Value compare(arith::CmpFPredicate predicate, Value x, Value y) {
    return arith::CmpFOp::create(b, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, condition, x, y);
  }
  Value isNaN(Value x) { return compare(arith::CmpFPredicate::UNO, x, x); }
  Value bits(Value x) { return arith::BitcastOp::create(b, intType, x); }
  Value fromBits(Value x) { return arith::BitcastOp::create(b, floatType, x); }
  Value andBits(Value x, int32_t mask) {
    Value maskValue = intConstant(mask);
    return arith::AndIOp::create(b, x, maskValue);
  }
  /// 2^k for integers k in [-126, 127], built from its exponent bits.
  Value powerOfTwo(Value k) {
    Value bias = intConstant(127);
    Value biased = arith::AddIOp::create(b, k, bias);
    Value shift = intConstant(23);
    return fromBits(arith::ShLIOp::create(b, biased, shift));
  }

  Value exp(Value x);
  Value erf(Value x);

private:
  static TypedAttr splat(Type type, float value) {
    if (auto vector = dyn_cast<VectorType>(type))
      return DenseElementsAttr::get(vector, value);
    return FloatAttr::get(type, value);
  }
  static TypedAttr splat(Type type, int32_t value) {
    if (auto vector = dyn_cast<VectorType>(type))
      return DenseElementsAttr::get(vector, APInt(32, value, true));
    return IntegerAttr::get(type, value);
  }

  ImplicitLocOpBuilder &b;
  Type floatType;
  Type intType;
};

} // namespace

Value F32Builder::exp(Value x) {
  // ln(FLT_MAX) rounded up to f32, and the largest x whose e^x rounds to 0
  // rounded down: beyond them the result is +Inf or +0.
  const float overflow = 88.72283935546875f;
  const float underflow = -103.97283935546875f;
  Value nan = isNaN(x);
  // Operands are built one statement at a time: the order of a call's
  // arguments is the host compiler's, and the IR's order should not be.
  Value overflowValue = constant(overflow);
  Value underflowValue = constant(underflow);
  Value above = compare(arith::CmpFPredicate::OGT, x, overflowValue);
  Value below = compare(arith::CmpFPredicate::OLT, x, underflowValue);
  // Lanes out of range (and NaN) compute e^0 instead, so that the
  // conversion to an integer below is defined and no lane multiplies into a
  // subnormal (a microcode assist on x86: the causal mask's -Inf scores ran
  // a softmax at two thirds of its speed); the selects at the end give
  // those lanes their results.
  Value zero = constant(0.0f);
  Value outOfRange = arith::OrIOp::create(b, below, above);
  outOfRange = arith::OrIOp::create(b, outOfRange, nan);
  Value clamped = select(outOfRange, zero, x);
  // n = round(x / ln 2), to nearest even: adding 1.5 * 2^23 leaves no
  // fraction bits.
  Value shifter = constant(12582912.0f);
  Value log2e = constant(1.44269502f);
  Value n = sub(fma(clamped, log2e, shifter), shifter);
  // r = x - n ln 2, with ln 2's high part short enough that n * high is
  // exact.
  Value ln2High = constant(-0.693145751953125f);
  Value ln2Low = constant(-1.42860677e-06f);
  Value r = fma(n, ln2High, clamped);
  r = fma(n, ln2Low, r);
  // e^r = 1 + r + r^2 q(r) on [-ln 2 / 2, ln 2 / 2].
  Value q = polynomial({0.000199026792f, 0.00139362703f, 0.00833329465f,
                        0.0416664407f, 0.166666672f, 0.5f},
                       r);
  Value rSquared = mul(r, r);
  Value one = constant(1.0f);
  Value expR = add(fma(q, rSquared, r), one);
  // 2^n in two factors, each a normal number for n in [-150, 128].
  Value k = arith::FPToSIOp::create(b, intType, n);
  Value oneBit = intConstant(1);
  Value half = arith::ShRSIOp::create(b, k, oneBit);
  Value rest = arith::SubIOp::create(b, k, half);
  Value halfScale = powerOfTwo(half);
  Value restScale = powerOfTwo(rest);
  Value result = mul(mul(expR, halfScale), restScale);
  Value infinity = constant(INFINITY);
  result = select(above, infinity, result);
  result = select(below, zero, result);
  Value quietNaN = add(x, x);
  return select(nan, quietNaN, result);
}

Value F32Builder::erf(Value x) {
  Value xBits = bits(x);
  Value sign = andBits(xBits, INT32_MIN);
  auto withSign = [&](Value magnitude) {
    Value magnitudeBits = bits(magnitude);
    return fromBits(arith::OrIOp::create(b, magnitudeBits, sign));
  };
  Value a = fromBits(andBits(xBits, INT32_MAX));
  // |x| <= 0.921875: erf(x) = x + x p(x^2).
  Value xSquared = mul(x, x);
  Value small =
      polynomial({8.50528086e-05f, -0.00081753527f, 0.00520397583f,
                  -0.0268606152f, 0.11283718f, -0.376126349f, 0.128379166f},
                 xSquared);
  small = fma(small, x, x);
  // Up to 3.921875: erf(|x|) = 1 - e^(g(|x|) - x^2), g = log(erfc) + x^2
  // on a variable centred in the interval.
  Value centre = constant(2.421875f);
  Value centred = sub(a, centre);
  Value g = polynomial({-5.73356225e-08f, -3.0906012e-08f, 1.95968914e-06f,
                        -1.41499104e-05f, 8.42185109e-05f, -0.00045847884f,
                        0.00233722222f, -0.0115613211f, 0.0587324724f,
                        -0.361650378f, -1.52891433f},
                       centred);
  Value negated = arith::NegFOp::create(b, a);
  Value exponent = fma(negated, a, g);
  Value one = constant(1.0f);
  Value complement = exp(exponent);
  Value large = withSign(sub(one, complement));
  Value smallBound = constant(0.921875f);
  Value isSmall = compare(arith::CmpFPredicate::OLE, a, smallBound);
  Value result = select(isSmall, small, large);
  // Beyond, erf rounds to +-1 (and NaN compares unordered, handled last).
  Value saturation = constant(3.921875f);
  Value saturates = compare(arith::CmpFPredicate::UGE, a, saturation);
  Value signedOne = withSign(one);
  result = select(saturates, signedOne, result);
  Value nan = isNaN(x);
  Value quietNaN = add(x, x);
  return select(nan, quietNaN, result);
}

namespace {

/// Replaces an f32 `OpTy` by what `expand` builds from its operand.
template <typename OpTy, Value (F32Builder::*expand)(Value)>
struct ExpandF32 : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    F32Builder builder(b, op.getType());
    rewriter.replaceOp(op, (builder.*expand)(op.getOperand()));
    return success();
  }
};

/// Replaces an f32 `ArithOp` (arith.maximumf, arith.minimumf) by the LLVM
/// intrinsic of the same semantics, before `arith-expand-ops` would make it
/// compares and selects: LLVM vectorizes a reduction by the intrinsic
/// (any order gives the same result), not by the selects.
template <typename ArithOp, typename IntrinsicOp>
struct ToIntrinsic : OpRewritePattern<ArithOp> {
  using OpRewritePattern<ArithOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ArithOp op,
                                PatternRewriter &rewriter) const override {
    auto vector = dyn_cast<VectorType>(op.getType());
    if (!op.getType().isF32() &&
        !(vector && vector.getRank() == 1 && vector.getElementType().isF32()))
      return rewriter.notifyMatchFailure(op, "not f32 or a 1-D f32 vector");
    rewriter.replaceOpWithNewOp<IntrinsicOp>(op, op.getLhs(), op.getRhs());
    return success();
  }
};

class ExpandMathPass
    : public mixprec::impl::MixprecExpandMathBase<ExpandMathPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandF32<math::ExpOp, &F32Builder::exp>,
                 ExpandF32<math::ErfOp, &F32Builder::erf>,
                 ToIntrinsic<arith::MaximumFOp, LLVM::MaximumOp>,
                 ToIntrinsic<arith::MinimumFOp, LLVM::MinimumOp>>(
        &getContext());
    // One walk: each op is rewritten once, and nothing else in the module
    // (as large as the model, this late) is folded or visited again.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
