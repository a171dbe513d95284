//===- NormalizationLowering.cpp - softmax, log_softmax, layer/batch norm -===//
//
// Every statistic (max, sum, mean, variance, 1/std) is an f32 tensor over the
// kept dims, whatever the input type; 16-bit inputs are widened as they are
// read and the result is rounded once, when it is stored (docs/design.md §4).
// Variances are two-pass: sum((x - mean)^2) after the mean, never
// E[x^2] - E[x]^2, which cancels catastrophically in f32.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOpUtils.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

/// (x - mean) * invStd [* scale + bias], rounded once to `resultType`.
/// `statMap` reads mean and invStd, `affineMap` scale and bias.
Value normalize(OpBuilder &b, Location loc, RankedTensorType resultType,
                Value input, Value mean, Value invStd, AffineMap statMap,
                Value scale, Value bias, AffineMap affineMap) {
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(resultType.getRank(), b.getContext());
  SmallVector<Value> inputs{input, mean, invStd};
  SmallVector<AffineMap> maps{identity, statMap, statMap};
  if (scale) {
    inputs.append({scale, bias});
    maps.append({affineMap, affineMap});
  }
  return mapElements(
      b, loc, resultType, inputs,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value normalized =
            mulF(b, loc, subF(b, loc, args[0], args[1]), args[2]);
        if (!scale)
          return normalized;
        return addF(b, loc, mulF(b, loc, normalized, args[3]), args[4]);
      },
      maps);
}

/// softmax: e^(x - max) / sum(e^(x - max)); log_softmax:
/// (x - max) - log(sum(e^(x - max))). Both along `axis`.
template <typename OpTy, bool IsLog>
struct SoftmaxLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value input = op.getInput();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    SmallVector<int64_t> reduced{static_cast<int64_t>(op.getAxis())};
    RankedTensorType stats = statType(rewriter, type.getShape(), reduced);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
    AffineMap kept = keptDimsMap(context, rank, reduced);

    // maximumf: a NaN anywhere in the row makes the whole row NaN.
    auto [max, sum] = computeSoftmaxStats(rewriter, loc, input, reduced);
    Value result;
    if (IsLog) {
      Value logSum =
          mapElements(rewriter, loc, stats, sum,
                      [](OpBuilder &b, Location loc, ValueRange args) -> Value {
                        return math::LogOp::create(b, loc, args[0]);
                      });
      result = mapElements(rewriter, loc, type, {input, max, logSum},
                           [](OpBuilder &b, Location loc, ValueRange args) {
                             return subF(b, loc, subF(b, loc, args[0], args[1]),
                                         args[2]);
                           },
                           {identity, kept, kept});
    } else {
      result = mapElements(
          rewriter, loc, type, {input, max, sum},
          [](OpBuilder &b, Location loc, ValueRange args) {
            Value shifted = subF(b, loc, args[0], args[1]);
            return divF(b, loc, math::ExpOp::create(b, loc, shifted), args[2]);
          },
          {identity, kept, kept});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// PyTorch's F.layer_norm over dims [axis, rank): biased variance.
struct LayerNormLowering : public OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    LayerNormDims dims = layerNormDims(context, rank, op.getAxis());
    Moments moments =
        computeMoments(rewriter, loc, op.getInput(), dims.normalized,
                       op.getEps().convertToDouble());
    rewriter.replaceOp(op,
                       normalize(rewriter, loc, type, op.getInput(),
                                 moments.mean, moments.invStd, dims.rowMap,
                                 op.getScale(), op.getBias(), dims.paramMap));
    return success();
  }
};

/// PyTorch's F.batch_norm on [N, C] or [N, C, H, W], statistics per channel.
struct BatchNormLowering : public OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType type = op.getResult().getType();
    int64_t rank = type.getRank();
    SmallVector<int64_t> reduced = batchNormReducedDims(rank);
    AffineMap channel = keptDimsMap(context, rank, reduced);
    double eps = op.getEps().convertToDouble();
    Value runningMean = op.getRunningMean();
    Value runningVar = op.getRunningVar();
    auto stats = cast<RankedTensorType>(runningMean.getType());

    if (!op.getTraining()) {
      // Inference: normalize with the running statistics, return them as is.
      Value invStd =
          mapElements(rewriter, loc, stats, runningVar,
                      [&](OpBuilder &b, Location loc, ValueRange args) {
                        return inverseStd(b, loc, args[0], eps);
                      });
      Value result =
          normalize(rewriter, loc, type, op.getInput(), runningMean, invStd,
                    channel, op.getScale(), op.getBias(), channel);
      rewriter.replaceOp(op, {result, runningMean, runningVar});
      return success();
    }

    Moments moments =
        computeMoments(rewriter, loc, op.getInput(), reduced, eps);
    Value result = normalize(rewriter, loc, type, op.getInput(), moments.mean,
                             moments.invStd, channel, op.getScale(),
                             op.getBias(), channel);

    // running = (1 - momentum) * running + momentum * batch statistic; the
    // variance is unbiased, sum((x - mean)^2) / (n - 1). With n = 1 that is
    // 0 / 0 = NaN (PyTorch refuses to train on one value per channel).
    double momentum = op.getMomentum().convertToDouble();
    auto update = [&](OpBuilder &b, Location loc, Value running, Value batch) {
      return addF(b, loc,
                  mulF(b, loc, f32Constant(b, loc, 1.0 - momentum), running),
                  mulF(b, loc, f32Constant(b, loc, momentum), batch));
    };
    Value meanOut =
        mapElements(rewriter, loc, stats, {runningMean, moments.mean},
                    [&](OpBuilder &b, Location loc, ValueRange args) {
                      return update(b, loc, args[0], args[1]);
                    });
    double denominator = static_cast<double>(moments.count - 1);
    Value varOut = mapElements(
        rewriter, loc, stats, {runningVar, moments.squaredDeviations},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value unbiased =
              divF(b, loc, args[1], f32Constant(b, loc, denominator));
          return update(b, loc, args[0], unbiased);
        });
    rewriter.replaceOp(op, {result, meanOut, varOut});
    return success();
  }
};

} // namespace

void mixprec::populateNormalizationLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering<SoftmaxOp, false>,
               SoftmaxLowering<LogSoftmaxOp, true>, LayerNormLowering,
               BatchNormLowering>(patterns.getContext());
}
