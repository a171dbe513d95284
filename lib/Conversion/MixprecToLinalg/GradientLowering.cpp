//===- GradientLowering.cpp - the backward ops ----------------------------===//
//
// Each backward op widens its 16-bit operands to f32 as it reads them, keeps
// every statistic and sum in f32 and rounds each result once, when it is
// stored (docs/design.md §4). Statistics of the forward op (softmax's
// maximum and sum, layer_norm's mean and 1/std) are recomputed in f32 from
// the forward op's input, as PyTorch saves them in f32.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOpUtils.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

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

/// maximum_grad / minimum_grad: PyTorch's rule for each operand `self`
/// against `other`, `self loses other ? 0 : (self == other ? grad / 2 :
/// grad)`. `Loses` is olt for maximum and ogt for minimum; ordered
/// comparisons are false for NaN, which passes the gradient to both.
template <typename OpTy, arith::CmpFPredicate Loses>
struct MinMaxGradLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto share = [](OpBuilder &b, Location loc, ValueRange args) -> Value {
      Value grad = args[0], self = args[1], other = args[2];
      Value loses = arith::CmpFOp::create(b, loc, Loses, self, other);
      Value tied =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, self, other);
      Value half = mulF(b, loc, grad, f32Constant(b, loc, 0.5));
      return arith::SelectOp::create(
          b, loc, loses, f32Constant(b, loc, 0.0),
          arith::SelectOp::create(b, loc, tied, half, grad));
    };
    Location loc = op.getLoc();
    RankedTensorType type = op.getGrad().getType();
    Value grad = op.getGrad(), lhs = op.getLhs(), rhs = op.getRhs();
    rewriter.replaceOp(
        op, {mapElements(rewriter, loc, type, {grad, lhs, rhs}, share),
             mapElements(rewriter, loc, type, {grad, rhs, lhs}, share)});
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
          filledTensor(rewriter, loc, stats, 0.0), multiplyAddCombine);
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
    auto [normalized, row, param] = layerNormDims(context, rank, axis);
    SmallVector<int64_t> batch = dimRange(0, axis);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
    Value grad = op.getGrad(), input = op.getInput(), scale = op.getScale();

    Moments moments = computeMoments(rewriter, loc, input, normalized,
                                     op.getEps().convertToDouble());
    RankedTensorType rowStats = statType(rewriter, type.getShape(), normalized);
    // Per row: sum(g * s) and sum(g * s * xhat).
    Value sumDy = reduceInputs(
        rewriter, loc, rank, normalized, {grad, scale}, {identity, param},
        filledTensor(rewriter, loc, rowStats, 0.0), multiplyAddCombine);
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
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, context);
    AffineMap rowMap = keptDimsMap(context, 2, {1});
    AffineMap scalarMap = AffineMap::get(2, 0, {}, context);

    // maximumf: a NaN in a row makes the row's gradient NaN.
    auto [max, sum] = computeSoftmaxStats(rewriter, loc, logits, {1});
    bool mean = op.getReduction() == Reduction::Mean;
    std::optional<int64_t> ignored = op.getIgnoreIndex();
    SmallVector<Value> inputs = {logits, max, sum, op.getLabels(),
                                 op.getGrad()};
    SmallVector<AffineMap> maps = {identity, rowMap, rowMap, rowMap, scalarMap};
    // With ignored rows, a mean divides by the number of the others.
    if (mean && ignored) {
      inputs.push_back(countOtherThan(rewriter, loc, op.getLabels(), *ignored));
      maps.push_back(scalarMap);
    }
    Value result = mapElements(
        rewriter, loc, type, inputs,
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
            scale = divF(b, loc, scale,
                         ignored ? args[5] : f32Constant(b, loc, double(rows)));
          Value gradient = mulF(b, loc, scale, subF(b, loc, softmax, oneHot));
          if (!ignored)
            return gradient;
          Value counted = isOtherThan(b, loc, args[3], *ignored);
          Value zero = f32Constant(b, loc, 0.0);
          return arith::SelectOp::create(b, loc, counted, gradient, zero)
              .getResult();
        },
        maps);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// embedding_grad: dtable[v, d] = sum over i... of
/// (indices[i...] == v ? grad[i..., d] : 0), in f32, rounded once. The scatter
/// is a reduction over the index positions for every row of the table, so
/// it stays one linalg.generic with static maps (O(V * tokens * D) work). An
/// index outside [0, V), which fails the call, matches no row meanwhile.
struct EmbeddingGradLowering : public OpRewritePattern<EmbeddingGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType type = op.getType();
    int64_t indexRank = op.getIndices().getType().getRank();
    // Iteration space (v, d, i...): the i dims are reduced.
    int64_t rank = 2 + indexRank;
    SmallVector<int64_t> reduced = dimRange(2, rank);
    SmallVector<AffineExpr> indexExprs;
    for (int64_t dim : reduced)
      indexExprs.push_back(getAffineDimExpr(dim, context));
    SmallVector<AffineExpr> gradExprs(indexExprs);
    gradExprs.push_back(getAffineDimExpr(1, context));
    AffineMap gradMap = AffineMap::get(rank, 0, gradExprs, context);
    AffineMap indexMap = AffineMap::get(rank, 0, indexExprs, context);
    Value sum = reduceInputs(
        rewriter, loc, rank, reduced, {op.getGrad(), op.getIndices()},
        {gradMap, indexMap},
        filledTensor(rewriter, loc, type.clone(rewriter.getF32Type()), 0.0),
        [](OpBuilder &b, Location loc, ValueRange args) {
          Value index =
              arith::IndexCastOp::create(b, loc, b.getIndexType(), args[2]);
          Value hit =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index,
                                    linalg::IndexOp::create(b, loc, 0));
          Value sum = addF(b, loc, args[0], args[1]);
          return arith::SelectOp::create(b, loc, hit, sum, args[0]).getResult();
        });
    rewriter.replaceOp(
        op, convertTensor(rewriter, loc, sum, type.getElementType()));
    return success();
  }
};

/// embedding_grad as a scatter (CPU): for each index in order, its row of
/// the gradient is added to the row it names, in f32, from zeros; an index
/// outside the table adds nothing. Each output element sums the same terms
/// in the same order as the dense form above, so the bits are the same, in
/// O(indices * width) instead of O(vocabulary * indices * width).
struct EmbeddingGradScatterLowering : public OpRewritePattern<EmbeddingGradOp> {
  EmbeddingGradScatterLowering(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(EmbeddingGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    auto indicesType = op.getIndices().getType();
    if (!type.hasStaticShape() || !indicesType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    int64_t indexRank = indicesType.getRank();
    int64_t rows = type.getDimSize(0), width = type.getDimSize(1);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value count = arith::ConstantIndexOp::create(rewriter, loc,
                                                 indicesType.getNumElements());
    Value widthValue = arith::ConstantIndexOp::create(rewriter, loc, width);
    Value rowsValue = arith::ConstantIndexOp::create(rewriter, loc, rows);
    Value init =
        filledTensor(rewriter, loc, type.clone(rewriter.getF32Type()), 0.0);
    auto tokens = scf::ForOp::create(
        rewriter, loc, zero, count, one, ValueRange{init},
        [&](OpBuilder &b, Location loc, Value token, ValueRange sums) {
          // The index's position in the indices, row-major.
          SmallVector<Value> position(indexRank);
          Value rest = token;
          for (int64_t dim = indexRank - 1; dim >= 0; --dim) {
            Value size = arith::ConstantIndexOp::create(
                b, loc, indicesType.getDimSize(dim));
            position[dim] = arith::RemUIOp::create(b, loc, rest, size);
            rest = arith::DivUIOp::create(b, loc, rest, size);
          }
          Value index = arith::IndexCastOp::create(
              b, loc, b.getIndexType(),
              tensor::ExtractOp::create(b, loc, op.getIndices(), position));
          Value inside = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index,
                                    zero),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                                    rowsValue));
          auto added = scf::IfOp::create(
              b, loc, inside,
              [&](OpBuilder &b, Location loc) {
                auto row = scf::ForOp::create(
                    b, loc, zero, widthValue, one, sums,
                    [&](OpBuilder &b, Location loc, Value column,
                        ValueRange partial) {
                      SmallVector<Value> gradPosition(position);
                      gradPosition.push_back(column);
                      Value term =
                          convertScalar(b, loc,
                                        tensor::ExtractOp::create(
                                            b, loc, op.getGrad(), gradPosition),
                                        b.getF32Type());
                      Value old = tensor::ExtractOp::create(
                          b, loc, partial[0], ValueRange{index, column});
                      Value sum = addF(b, loc, old, term);
                      scf::YieldOp::create(
                          b, loc,
                          tensor::InsertOp::create(b, loc, sum, partial[0],
                                                   ValueRange{index, column})
                              .getResult());
                    });
                scf::YieldOp::create(b, loc, row.getResults());
              },
              [&](OpBuilder &b, Location loc) {
                scf::YieldOp::create(b, loc, sums);
              });
          scf::YieldOp::create(b, loc, added.getResults());
        });
    rewriter.replaceOp(op, convertTensor(rewriter, loc, tokens.getResult(0),
                                         type.getElementType()));
    return success();
  }
};

/// conv2d_grad_weight: with the input zero-padded, per group gr,
///   dw[gr, o, c, kh, kw] = sum over n, oh, ow of
///     grad[n, gr, o, oh, ow] * x[n, gr, c, oh * s + kh * d, ow * s + kw * d],
/// one f32 reduction, rounded once.
struct Conv2DGradWeightLowering : public OpRewritePattern<Conv2DGradWeightOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DGradWeightOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> padding = op.getPadding(), stride = op.getStride(),
                      dilation = op.getDilation();
    int64_t groups = op.getGroups();
    Value input = padSpatial(rewriter, loc, op.getInput(), padding, 0.0);
    Value x = splitGroups(rewriter, loc, input, 1, groups);
    Value g = splitGroups(rewriter, loc, op.getGrad(), 1, groups);
    // Iteration space (gr, o, c, kh, kw, n, oh, ow).
    auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
    AffineMap gradMap =
        AffineMap::get(8, 0, {d(5), d(0), d(1), d(6), d(7)}, context);
    AffineMap inputMap =
        AffineMap::get(8, 0,
                       {d(5), d(0), d(2), d(6) * stride[0] + d(3) * dilation[0],
                        d(7) * stride[1] + d(4) * dilation[1]},
                       context);
    ArrayRef<int64_t> w = type.getShape();
    auto accType = RankedTensorType::get(
        {groups, w[0] / groups, w[1], w[2], w[3]}, rewriter.getF32Type());
    Value sum = reduceInputs(
        rewriter, loc, 8, {5, 6, 7}, {g, x}, {gradMap, inputMap},
        filledTensor(rewriter, loc, accType, 0.0), multiplyAddCombine);
    Value result = convertTensor(rewriter, loc, sum, type.getElementType());
    rewriter.replaceOp(op, mergeGroups(rewriter, loc, result, 0));
    return success();
  }
};

/// conv2d_grad_input: the transposed convolution. With grad spread into q
/// (spreadGradient),
///   dx[n, gr, c, h, w] = sum over o, kh, kw of
///     q[n, gr, o, h + d * (KH - 1 - kh), w + d * (KW - 1 - kw)]
///       * weight[gr, o, c, kh, kw],
/// one f32 reduction, rounded once.
struct Conv2DGradInputLowering : public OpRewritePattern<Conv2DGradInputOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DGradInputOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType type = op.getType();
    ArrayRef<int64_t> padding = op.getPadding(), stride = op.getStride(),
                      dilation = op.getDilation();
    ArrayRef<int64_t> x = type.getShape();
    ArrayRef<int64_t> w = op.getWeight().getType().getShape();
    int64_t groups = op.getGroups();

    Value q = spreadGradient(rewriter, loc, op.getGrad(), x, w, padding, stride,
                             dilation);
    Value q5 = splitGroups(rewriter, loc, q, 1, groups);
    Value w5 = splitGroups(rewriter, loc, op.getWeight(), 0, groups);
    // Iteration space (n, gr, c, h, w, o, kh, kw).
    auto d = [&](unsigned i) { return getAffineDimExpr(i, context); };
    AffineMap qMap = AffineMap::get(
        8, 0,
        {d(0), d(1), d(5), d(3) + dilation[0] * (w[2] - 1) - d(6) * dilation[0],
         d(4) + dilation[1] * (w[3] - 1) - d(7) * dilation[1]},
        context);
    AffineMap weightMap =
        AffineMap::get(8, 0, {d(1), d(5), d(2), d(6), d(7)}, context);
    auto accType = RankedTensorType::get(
        {x[0], groups, x[1] / groups, x[2], x[3]}, rewriter.getF32Type());
    Value sum = reduceInputs(
        rewriter, loc, 8, {5, 6, 7}, {q5, w5}, {qMap, weightMap},
        filledTensor(rewriter, loc, accType, 0.0), multiplyAddCombine);
    Value result = convertTensor(rewriter, loc, sum, type.getElementType());
    rewriter.replaceOp(op, mergeGroups(rewriter, loc, result, 1));
    return success();
  }
};

/// Index arithmetic of the pooling gradients, in the body of a generic.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value constant(int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value add(Value l, Value r) { return arith::AddIOp::create(b, loc, l, r); }
  Value mul(Value l, int64_t r) {
    return arith::MulIOp::create(b, loc, l, constant(r));
  }
  Value cmp(arith::CmpIPredicate predicate, Value l, Value r) {
    return arith::CmpIOp::create(b, loc, predicate, l, r);
  }
  Value both(Value l, Value r) { return arith::AndIOp::create(b, loc, l, r); }
  Value select(Value c, Value t, Value f) {
    return arith::SelectOp::create(b, loc, c, t, f);
  }
  /// Whether 0 <= v < size.
  Value inRange(Value v, int64_t size) {
    return both(cmp(arith::CmpIPredicate::sge, v, constant(0)),
                cmp(arith::CmpIPredicate::slt, v, constant(size)));
  }
};

/// For input position `pos` and window offset `k` of a pooling with
/// `stride`, `padding` and `outSize` windows: whether a window `o` has
/// o * stride + k - padding == pos, and that o (0 where none).
std::pair<Value, Value> windowAt(IndexMath &m, Value pos, int64_t k,
                                 int64_t stride, int64_t padding,
                                 int64_t outSize) {
  Value start = m.add(pos, m.constant(padding - k));
  Value index = arith::DivSIOp::create(m.b, m.loc, start, m.constant(stride));
  Value exact =
      m.cmp(arith::CmpIPredicate::eq,
            arith::RemSIOp::create(m.b, m.loc, start, m.constant(stride)),
            m.constant(0));
  Value valid = m.both(
      m.both(m.cmp(arith::CmpIPredicate::sge, start, m.constant(0)), exact),
      m.cmp(arith::CmpIPredicate::slt, index, m.constant(outSize)));
  return {valid, m.select(valid, index, m.constant(0))};
}

/// max_pool2d_grad: first the argmax of every window, as its row-major
/// offset kh * KW + kw, by PyTorch's scan (the first valid element, then
/// every element that is greater or NaN; padding is skipped); then every
/// input element sums, in f32, the gradients of the windows whose argmax it
/// is. Both generics unroll the window, so each reads through
/// tensor.extract with in-range indices; the result is rounded once.
///
/// avg_pool2d_grad: every input element sums the gradients of the windows
/// that hold it, in f32, and divides by KH * KW (count_include_pad).
template <typename OpTy, bool IsMax>
struct Pool2DGradLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    RankedTensorType gradType = op.getGrad().getType();
    ArrayRef<int64_t> kernel = op.getKernel(), stride = op.getStride(),
                      padding = op.getPadding();
    ArrayRef<int64_t> in = type.getShape(), out = gradType.getShape();
    Value grad = op.getGrad(), input = op.getInput();

    Value argmax;
    if (IsMax) {
      argmax = mapElements(
          rewriter, loc, gradType.clone(rewriter.getI64Type()), {},
          [&](OpBuilder &b, Location loc, ValueRange) {
            IndexMath m{b, loc};
            Value n = linalg::IndexOp::create(b, loc, 0);
            Value c = linalg::IndexOp::create(b, loc, 1);
            Value oh = linalg::IndexOp::create(b, loc, 2);
            Value ow = linalg::IndexOp::create(b, loc, 3);
            Value best = f32Constant(b, loc, -INFINITY);
            Value bestK = arith::ConstantIntOp::create(b, loc, -1, 64);
            for (int64_t kh = 0; kh < kernel[0]; ++kh) {
              for (int64_t kw = 0; kw < kernel[1]; ++kw) {
                Value h =
                    m.add(m.mul(oh, stride[0]), m.constant(kh - padding[0]));
                Value w =
                    m.add(m.mul(ow, stride[1]), m.constant(kw - padding[1]));
                Value valid = m.both(m.inRange(h, in[2]), m.inRange(w, in[3]));
                Value zero = m.constant(0);
                Value value =
                    widen(b, loc,
                          tensor::ExtractOp::create(
                              b, loc, input,
                              ValueRange{n, c, m.select(valid, h, zero),
                                         m.select(valid, w, zero)}));
                Value none = arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::slt, bestK,
                    arith::ConstantIntOp::create(b, loc, 0, 64));
                Value greater = arith::CmpFOp::create(
                    b, loc, arith::CmpFPredicate::OGT, value, best);
                Value nan = arith::CmpFOp::create(
                    b, loc, arith::CmpFPredicate::UNO, value, value);
                Value take = m.both(
                    valid,
                    arith::OrIOp::create(
                        b, loc, arith::OrIOp::create(b, loc, none, greater),
                        nan));
                best = m.select(take, value, best);
                bestK = m.select(take,
                                 arith::ConstantIntOp::create(
                                     b, loc, kh * kernel[1] + kw, 64),
                                 bestK);
              }
            }
            return bestK;
          });
    }

    double count = static_cast<double>(kernel[0] * kernel[1]);
    Value result = mapElements(
        rewriter, loc, type, {}, [&](OpBuilder &b, Location loc, ValueRange) {
          IndexMath m{b, loc};
          Value n = linalg::IndexOp::create(b, loc, 0);
          Value c = linalg::IndexOp::create(b, loc, 1);
          Value h = linalg::IndexOp::create(b, loc, 2);
          Value w = linalg::IndexOp::create(b, loc, 3);
          Value zero = f32Constant(b, loc, 0.0);
          Value sum = zero;
          for (int64_t kh = 0; kh < kernel[0]; ++kh) {
            auto [validH, oh] =
                windowAt(m, h, kh, stride[0], padding[0], out[2]);
            for (int64_t kw = 0; kw < kernel[1]; ++kw) {
              auto [validW, ow] =
                  windowAt(m, w, kw, stride[1], padding[1], out[3]);
              Value hit = m.both(validH, validW);
              if (IsMax) {
                Value k = tensor::ExtractOp::create(b, loc, argmax,
                                                    ValueRange{n, c, oh, ow});
                hit = m.both(hit, arith::CmpIOp::create(
                                      b, loc, arith::CmpIPredicate::eq, k,
                                      arith::ConstantIntOp::create(
                                          b, loc, kh * kernel[1] + kw, 64)));
              }
              Value g = widen(b, loc,
                              tensor::ExtractOp::create(
                                  b, loc, grad, ValueRange{n, c, oh, ow}));
              sum = addF(b, loc, sum, m.select(hit, g, zero));
            }
          }
          if (!IsMax)
            sum = divF(b, loc, sum, f32Constant(b, loc, count));
          return sum;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// batch_norm_grad: PyTorch's native_batch_norm_backward in training mode,
/// per channel over the dims N (and H, W), M elements per channel, with
/// xhat = (x - mean) * rstd from the batch statistics recomputed in f32:
///   dbias  = sum(g),  dscale = sum(g * xhat),
///   dx     = scale * rstd * (g - dbias / M - xhat * dscale / M).
struct BatchNormGradLowering : public OpRewritePattern<BatchNormGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType type = op.getDx().getType();
    int64_t rank = type.getRank();
    SmallVector<int64_t> reduced = batchNormReducedDims(rank);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
    AffineMap channel = keptDimsMap(context, rank, reduced);
    Value grad = op.getGrad(), input = op.getInput();

    Moments moments = computeMoments(rewriter, loc, input, reduced,
                                     op.getEps().convertToDouble());
    RankedTensorType stats = statType(rewriter, type.getShape(), reduced);
    Value sumG = reduceDims(rewriter, loc, grad, reduced, 0.0, sumCombine);
    Value sumGXhat = reduceInputs(
        rewriter, loc, rank, reduced,
        {grad, input, moments.mean, moments.invStd},
        {identity, identity, channel, channel},
        filledTensor(rewriter, loc, stats, 0.0),
        [](OpBuilder &b, Location loc, ValueRange args) {
          Value xhat = mulF(b, loc, subF(b, loc, args[2], args[3]), args[4]);
          return addF(b, loc, args[0], mulF(b, loc, args[1], xhat));
        });
    double count = static_cast<double>(moments.count);
    Value dx = mapElements(
        rewriter, loc, type,
        {grad, input, op.getScale(), moments.mean, moments.invStd, sumG,
         sumGXhat},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value n = f32Constant(b, loc, count);
          Value xhat = mulF(b, loc, subF(b, loc, args[1], args[3]), args[4]);
          Value centered = subF(b, loc, args[0], divF(b, loc, args[5], n));
          Value projected = mulF(b, loc, xhat, divF(b, loc, args[6], n));
          return mulF(b, loc, mulF(b, loc, args[2], args[4]),
                      subF(b, loc, centered, projected));
        },
        {identity, identity, channel, channel, channel, channel, channel});
    Type elementType = op.getScale().getType().getElementType();
    rewriter.replaceOp(op,
                       {dx, convertTensor(rewriter, loc, sumGXhat, elementType),
                        convertTensor(rewriter, loc, sumG, elementType)});
    return success();
  }
};

/// reduce_max_grad: PyTorch's amax backward, (grad / count) * (x == max)
/// with count the group's elements equal to its maximum (in f32, exact). A
/// NaN maximum has count 0, which makes its group's gradient NaN.
struct ReduceMaxGradLowering : public OpRewritePattern<ReduceMaxGradOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceMaxGradOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    ArrayRef<int64_t> dims = op.getDims();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
    AffineMap kept = keptDimsMap(context, rank, dims);
    // grad and output: with keepdim, the reduced dims are read at index 0.
    SmallVector<AffineExpr> reducedExprs;
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (!llvm::is_contained(dims, dim))
        reducedExprs.push_back(getAffineDimExpr(dim, context));
      else if (op.getKeepdim())
        reducedExprs.push_back(getAffineConstantExpr(0, context));
    }
    AffineMap reduced = AffineMap::get(rank, 0, reducedExprs, context);
    auto isMax = [](OpBuilder &b, Location loc, Value x, Value max) {
      Value equal =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, max);
      return arith::SelectOp::create(b, loc, equal, f32Constant(b, loc, 1.0),
                                     f32Constant(b, loc, 0.0))
          .getResult();
    };
    Value count = reduceInputs(
        rewriter, loc, rank, dims, {op.getInput(), op.getOutput()},
        {identity, reduced},
        filledTensor(rewriter, loc, statType(rewriter, type.getShape(), dims),
                     0.0),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return addF(b, loc, args[0], isMax(b, loc, args[1], args[2]));
        });
    rewriter.replaceOp(
        op, mapElements(rewriter, loc, type,
                        {op.getGrad(), op.getInput(), op.getOutput(), count},
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return mulF(b, loc, divF(b, loc, args[0], args[3]),
                                      isMax(b, loc, args[1], args[2]));
                        },
                        {reduced, identity, reduced, kept}));
    return success();
  }
};

} // namespace

void mixprec::populateGradientLoweringPatterns(RewritePatternSet &patterns,
                                               bool scatterEmbeddingGradients) {
  if (scatterEmbeddingGradients)
    patterns.add<EmbeddingGradScatterLowering>(patterns.getContext());
  patterns
      .add<ReluGradLowering,
           MinMaxGradLowering<MaximumGradOp, arith::CmpFPredicate::OLT>,
           MinMaxGradLowering<MinimumGradOp, arith::CmpFPredicate::OGT>,
           GeluGradLowering, SoftmaxGradLowering<SoftmaxGradOp, false>,
           SoftmaxGradLowering<LogSoftmaxGradOp, true>, LayerNormGradLowering,
           SoftmaxCrossEntropyGradLowering, EmbeddingGradLowering,
           Conv2DGradInputLowering, Conv2DGradWeightLowering,
           Pool2DGradLowering<MaxPool2DGradOp, true>,
           Pool2DGradLowering<AvgPool2DGradOp, false>, BatchNormGradLowering,
           ReduceMaxGradLowering>(patterns.getContext());
}
