//===- GradientLowering.cpp - the backward ops ----------------------------===//
//
// Each backward op widens its 16-bit operands to f32 as it reads them, keeps
// every statistic and sum in f32 and rounds each result once, when it is
// stored (ARCHITECTURE.md §4). Statistics of the forward op (softmax's
// maximum and sum, layer_norm's mean and 1/std) are recomputed in f32 from
// the forward op's input, as PyTorch saves them in f32.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

Value f32Constant(OpBuilder &b, Location loc, double value) {
  return floatConstant(b, loc, b.getF32Type(), value);
}

Value addF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::AddFOp::create(b, loc, lhs, rhs);
}
Value subF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::SubFOp::create(b, loc, lhs, rhs);
}
Value mulF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::MulFOp::create(b, loc, lhs, rhs);
}
Value divF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::DivFOp::create(b, loc, lhs, rhs);
}

Value sumCombine(OpBuilder &b, Location loc, ValueRange args) {
  return addF(b, loc, args[0], args[1]);
}

/// The dims [begin, end).
SmallVector<int64_t> dimRange(int64_t begin, int64_t end) {
  SmallVector<int64_t> dims(end - begin);
  std::iota(dims.begin(), dims.end(), begin);
  return dims;
}

/// relu_grad: PyTorch's threshold_backward, `input <= 0 ? 0 : grad`. The
/// ordered comparison is false for NaN, which passes the gradient through.
struct ReluGradLowering : public OpRewritePattern<ReluGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReluGradOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, mapElements(rewriter, op.getLoc(), op.getType(),
                        {op.getGrad(), op.getInput()},
                        [](OpBuilder &b, Location loc, ValueRange args) {
                          Value zero = f32Constant(b, loc, 0.0);
                          Value inactive = arith::CmpFOp::create(
                              b, loc, arith::CmpFPredicate::OLE, args[1], zero);
                          return arith::SelectOp::create(b, loc, inactive, zero,
                                                         args[0])
                              .getResult();
                        }));
    return success();
  }
};

/// gelu_grad: PyTorch's gelu_backward.
///   erf:  grad * (cdf + x * pdf), cdf = (1 + erf(x / sqrt(2))) / 2,
///         pdf = e^(-x^2 / 2) / sqrt(2 pi);
///   tanh: with t = tanh(sqrt(2 / pi) * (x + 0.044715 x^3)),
///         grad * ((1 + t) / 2
///                 + x / 2 * (1 - t^2) * sqrt(2 / pi) * (1 + 3 * 0.044715
///                 x^2)).
struct GeluGradLowering : public OpRewritePattern<GeluGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GeluGradOp op,
                                PatternRewriter &rewriter) const override {
    bool isTanh = op.getApproximate() == GeluApproximation::Tanh;
    rewriter.replaceOp(
        op,
        mapElements(
            rewriter, op.getLoc(), op.getType(), {op.getGrad(), op.getInput()},
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value grad = args[0], x = args[1];
              Value half = f32Constant(b, loc, 0.5);
              Value one = f32Constant(b, loc, 1.0);
              Value squared = mulF(b, loc, x, x);
              Value derivative;
              if (isTanh) {
                const double beta = std::sqrt(2.0 / M_PI);
                const double kappa = 0.044715;
                Value cube = mulF(b, loc, squared, x);
                Value inner =
                    mulF(b, loc, f32Constant(b, loc, beta),
                         addF(b, loc, x,
                              mulF(b, loc, f32Constant(b, loc, kappa), cube)));
                Value t = math::TanhOp::create(b, loc, inner);
                Value left = mulF(b, loc, half, addF(b, loc, one, t));
                Value slope =
                    mulF(b, loc, f32Constant(b, loc, beta),
                         addF(b, loc, one,
                              mulF(b, loc, f32Constant(b, loc, 3.0 * kappa),
                                   squared)));
                Value right = mulF(b, loc,
                                   mulF(b, loc, mulF(b, loc, half, x),
                                        subF(b, loc, one, mulF(b, loc, t, t))),
                                   slope);
                derivative = addF(b, loc, left, right);
              } else {
                Value cdf = mulF(
                    b, loc, half,
                    addF(b, loc, one,
                         math::ErfOp::create(
                             b, loc,
                             mulF(b, loc, x, f32Constant(b, loc, M_SQRT1_2)))));
                Value pdf = mulF(
                    b, loc, f32Constant(b, loc, 0.5 * M_2_SQRTPI * M_SQRT1_2),
                    math::ExpOp::create(
                        b, loc,
                        mulF(b, loc, f32Constant(b, loc, -0.5), squared)));
                derivative = addF(b, loc, cdf, mulF(b, loc, x, pdf));
              }
              return mulF(b, loc, grad, derivative);
            }));
    return success();
  }
};

/// softmax_grad: y * (g - sum(g * y)); log_softmax_grad: g - e^y * sum(g).
/// The sums run along `axis` in f32.
template <typename OpTy, bool IsLog>
struct SoftmaxGradLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    SmallVector<int64_t> reduced{static_cast<int64_t>(op.getAxis())};
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
    AffineMap kept = keptDimsMap(context, rank, reduced);
    Value grad = op.getGrad();
    Value output = op.getOutput();

    Value result;
    if (IsLog) {
      Value sum = reduceDims(rewriter, loc, grad, reduced, 0.0, sumCombine);
      result = mapElements(
          rewriter, loc, type, {grad, output, sum},
          [](OpBuilder &b, Location loc, ValueRange args) {
            Value softmax = math::ExpOp::create(b, loc, args[1]);
            return subF(b, loc, args[0], mulF(b, loc, softmax, args[2]));
          },
          {identity, identity, kept});
    } else {
      RankedTensorType stats = statType(rewriter, type.getShape(), reduced);
      Value sum = reduceInputs(
          rewriter, loc, rank, reduced, {grad, output}, {identity, identity},
          filledTensor(rewriter, loc, stats, 0.0),
          [](OpBuilder &b, Location loc, ValueRange args) {
            return addF(b, loc, args[0], mulF(b, loc, args[1], args[2]));
          });
      result = mapElements(rewriter, loc, type, {grad, output, sum},
                           [](OpBuilder &b, Location loc, ValueRange args) {
                             return mulF(b, loc, args[1],
                                         subF(b, loc, args[0], args[2]));
                           },
                           {identity, identity, kept});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// layer_norm_grad: PyTorch's native_layer_norm_backward over the dims
/// [axis, rank) (M elements per row), with xhat = (x - mean) * rstd:
///   dx     = rstd * (g * s - mean(g * s) - xhat * mean(g * s * xhat)),
///   dscale = sum over dims [0, axis) of g * xhat,
///   dbias  = sum over dims [0, axis) of g.
struct LayerNormGradLowering : public OpRewritePattern<LayerNormGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType type = op.getDx().getType();
    RankedTensorType scaleType = op.getScale().getType();
    int64_t rank = type.getRank();
    int64_t axis = op.getAxis();
    SmallVector<int64_t> normalized = dimRange(axis, rank);
    SmallVector<int64_t> batch = dimRange(0, axis);
    SmallVector<AffineExpr> normalizedExprs;
    for (int64_t dim : normalized)
      normalizedExprs.push_back(getAffineDimExpr(dim, context));
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
    AffineMap row = keptDimsMap(context, rank, normalized);
    AffineMap param = AffineMap::get(rank, 0, normalizedExprs, context);
    Value grad = op.getGrad(), input = op.getInput(), scale = op.getScale();

    Moments moments = computeMoments(rewriter, loc, input, normalized,
                                     op.getEps().convertToDouble());
    RankedTensorType rowStats = statType(rewriter, type.getShape(), normalized);
    // Per row: sum(g * s) and sum(g * s * xhat).
    Value sumDy = reduceInputs(
        rewriter, loc, rank, normalized, {grad, scale}, {identity, param},
        filledTensor(rewriter, loc, rowStats, 0.0),
        [](OpBuilder &b, Location loc, ValueRange args) {
          return addF(b, loc, args[0], mulF(b, loc, args[1], args[2]));
        });
    Value sumDyXhat = reduceInputs(
        rewriter, loc, rank, normalized,
        {grad, scale, input, moments.mean, moments.invStd},
        {identity, param, identity, row, row},
        filledTensor(rewriter, loc, rowStats, 0.0),
        [](OpBuilder &b, Location loc, ValueRange args) {
          Value xhat = mulF(b, loc, subF(b, loc, args[3], args[4]), args[5]);
          Value dy = mulF(b, loc, args[1], args[2]);
          return addF(b, loc, args[0], mulF(b, loc, dy, xhat));
        });
    double count = static_cast<double>(moments.count);
    Value dx = mapElements(
        rewriter, loc, type,
        {grad, scale, input, moments.mean, moments.invStd, sumDy, sumDyXhat},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value n = f32Constant(b, loc, count);
          Value xhat = mulF(b, loc, subF(b, loc, args[2], args[3]), args[4]);
          Value dy = mulF(b, loc, args[0], args[1]);
          Value centered = subF(b, loc, dy, divF(b, loc, args[5], n));
          Value projected = mulF(b, loc, xhat, divF(b, loc, args[6], n));
          return mulF(b, loc, args[4], subF(b, loc, centered, projected));
        },
        {identity, param, identity, row, row, row, row});

    // Over the batch dims: sum(g * xhat) and sum(g), rounded once.
    RankedTensorType paramStats = scaleType.clone(rewriter.getF32Type());
    Value dscale = reduceInputs(
        rewriter, loc, rank, batch, {grad, input, moments.mean, moments.invStd},
        {identity, identity, row, row},
        filledTensor(rewriter, loc, paramStats, 0.0),
        [](OpBuilder &b, Location loc, ValueRange args) {
          Value xhat = mulF(b, loc, subF(b, loc, args[2], args[3]), args[4]);
          return addF(b, loc, args[0], mulF(b, loc, args[1], xhat));
        });
    Value dbias = reduceDims(rewriter, loc, grad, batch, 0.0, sumCombine);
    Type elementType = scaleType.getElementType();
    rewriter.replaceOp(op,
                       {dx, convertTensor(rewriter, loc, dscale, elementType),
                        convertTensor(rewriter, loc, dbias, elementType)});
    return success();
  }
};

/// softmax_cross_entropy_grad: grad * (softmax(logits) - one_hot(labels)),
/// divided by N for the mean; the softmax is recomputed row by row in f32.
struct SoftmaxCrossEntropyGradLowering
    : public OpRewritePattern<SoftmaxCrossEntropyGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxCrossEntropyGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value logits = op.getLogits();
    RankedTensorType type = op.getType();
    int64_t rows = type.getDimSize(0);
    auto rowType = RankedTensorType::get({rows}, rewriter.getF32Type());
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, context);
    AffineMap rowMap = keptDimsMap(context, 2, {1});
    AffineMap scalarMap = AffineMap::get(2, 0, {}, context);

    // maximumf: a NaN in a row makes the row's gradient NaN.
    Value max = reduceDims(
        rewriter, loc, logits, {1}, -std::numeric_limits<double>::infinity(),
        [](OpBuilder &b, Location loc, ValueRange args) {
          return arith::MaximumFOp::create(b, loc, args[0], args[1]);
        });
    Value sum = reduceInputs(
        rewriter, loc, 2, {1}, {logits, max}, {identity, rowMap},
        filledTensor(rewriter, loc, rowType, 0.0),
        [](OpBuilder &b, Location loc, ValueRange args) {
          Value shifted = subF(b, loc, args[1], args[2]);
          return addF(b, loc, args[0], math::ExpOp::create(b, loc, shifted));
        });
    bool mean = op.getReduction() == Reduction::Mean;
    double count = static_cast<double>(rows);
    Value result = mapElements(
        rewriter, loc, type, {logits, max, sum, op.getLabels(), op.getGrad()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value softmax =
              divF(b, loc,
                   math::ExpOp::create(b, loc, subF(b, loc, args[0], args[1])),
                   args[2]);
          Value label =
              arith::IndexCastOp::create(b, loc, b.getIndexType(), args[3]);
          Value isLabel =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, label,
                                    linalg::IndexOp::create(b, loc, 1));
          Value oneHot =
              arith::SelectOp::create(b, loc, isLabel, f32Constant(b, loc, 1.0),
                                      f32Constant(b, loc, 0.0));
          Value scale = args[4];
          if (mean)
            scale = divF(b, loc, scale, f32Constant(b, loc, count));
          return mulF(b, loc, scale, subF(b, loc, softmax, oneHot));
        },
        {identity, rowMap, rowMap, rowMap, scalarMap});
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mixprec::populateGradientLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReluGradLowering, GeluGradLowering,
               SoftmaxGradLowering<SoftmaxGradOp, false>,
               SoftmaxGradLowering<LogSoftmaxGradOp, true>,
               LayerNormGradLowering, SoftmaxCrossEntropyGradLowering>(
      patterns.getContext());
}
