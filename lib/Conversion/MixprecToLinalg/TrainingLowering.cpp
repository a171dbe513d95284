//===- TrainingLowering.cpp - loss-scale rule and optimizer updates -------===//
//
// Optimizer updates compute in f32 (16-bit parameters and gradients widened
// exactly), keep their moments in f32 and round the new parameter once to its
// type. Hyper-parameters are f32 constants rounded once from their f64
// attributes (`1 - beta` and the like are formed in f64 first), as PyTorch
// passes its Python-float hyper-parameters to its f32 kernels.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

/// The element of a 0-d tensor.
Value extractScalar(OpBuilder &b, Location loc, Value tensor) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
}

/// A 0-d tensor holding `scalar`.
Value scalarTensor(OpBuilder &b, Location loc, Value scalar) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, scalar.getType()), ValueRange{scalar});
}

Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), value);
}

/// An elementwise computation over `shape` with several results: `body` gets
/// the widened inputs and returns one compute-type (f32) value per result,
/// each rounded once to its result's element type.
SmallVector<Value> mapElementsMulti(
    OpBuilder &b, Location loc, TypeRange resultTypes, ValueRange inputs,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        body) {
  MLIRContext *context = b.getContext();
  int64_t rank = cast<RankedTensorType>(resultTypes.front()).getRank();
  SmallVector<AffineMap> maps(inputs.size() + resultTypes.size(),
                              AffineMap::getMultiDimIdentityMap(rank, context));
  SmallVector<Value> inits;
  for (Type type : resultTypes)
    inits.push_back(emptyTensor(b, loc, cast<RankedTensorType>(type)));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, inits, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> widened;
        for (Value arg : args.take_front(inputs.size()))
          widened.push_back(widen(nested, nestedLoc, arg));
        SmallVector<Value> results = body(nested, nestedLoc, widened);
        SmallVector<Value> stored;
        for (auto [value, type] : llvm::zip_equal(results, resultTypes))
          stored.push_back(
              convertScalar(nested, nestedLoc, value,
                            cast<RankedTensorType>(type).getElementType()));
        linalg::YieldOp::create(nested, nestedLoc, stored);
      });
  return SmallVector<Value>(generic.getResults());
}

//===----------------------------------------------------------------------===//
// loss_scale_update
//===----------------------------------------------------------------------===//

struct LossScaleUpdateLowering : public OpRewritePattern<LossScaleUpdateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LossScaleUpdateOp op,
                                PatternRewriter &rewriter) const override {
    // docs/design.md §1, both branches computed and selected on `finite`:
    //   overflow: tracker = 0; hyst > 1 ? hyst -= 1
    //                                    : scale = max(scale * backoff, min)
    //   clean:    tracker += 1; at tracker == interval:
    //               g = scale * growth; scale = isfinite(g) ? min(g, max)
    //                                                       : scale;
    //               tracker = 0; hyst = hysteresis
    // The factors and bounds are f32 constants; the products are f32, as in
    // PyTorch's GradScaler. The tracker counts in i32: an interval above
    // 2^31 - 1 is never reached (the scale never grows).
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Value scale = extractScalar(b, loc, op.getScale());
    Value tracker = extractScalar(b, loc, op.getTracker());
    Value hyst = extractScalar(b, loc, op.getHysteresisLeft());
    Value finite = extractScalar(b, loc, op.getFinite());

    constexpr int64_t i32Max = std::numeric_limits<int32_t>::max();
    int64_t interval = op.getGrowthIntervalAttr().getInt();
    int64_t hysteresis = std::min(op.getHysteresisAttr().getInt(), i32Max);
    Value zero = i32Constant(b, loc, 0);
    Value one = i32Constant(b, loc, 1);

    // Overflow.
    Value hystAbove1 =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, hyst, one);
    Value backedOff = arith::MaximumFOp::create(
        b, loc,
        arith::MulFOp::create(
            b, loc, scale,
            f32Constant(b, loc, op.getBackoffFactor().convertToDouble())),
        f32Constant(b, loc, op.getMinScale().convertToDouble()));
    Value overflowScale =
        arith::SelectOp::create(b, loc, hystAbove1, scale, backedOff);
    Value overflowHyst = arith::SelectOp::create(
        b, loc, hystAbove1, arith::SubIOp::create(b, loc, hyst, one), hyst);

    // Clean step.
    Value counted = arith::AddIOp::create(b, loc, tracker, one);
    Value atInterval =
        interval > i32Max
            ? arith::ConstantIntOp::create(b, loc, b.getI1Type(), 0).getResult()
            : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, counted,
                                    i32Constant(b, loc, interval))
                  .getResult();
    Value grown = arith::MulFOp::create(
        b, loc, scale,
        f32Constant(b, loc, op.getGrowthFactor().convertToDouble()));
    // |g| < inf is false for +-Inf and NaN.
    Value grownFinite = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OLT, math::AbsFOp::create(b, loc, grown),
        f32Constant(b, loc, std::numeric_limits<double>::infinity()));
    Value capped = arith::MinimumFOp::create(
        b, loc, grown, f32Constant(b, loc, op.getMaxScale().convertToDouble()));
    Value growScale =
        arith::SelectOp::create(b, loc, grownFinite, capped, scale);
    Value cleanScale =
        arith::SelectOp::create(b, loc, atInterval, growScale, scale);
    Value cleanTracker =
        arith::SelectOp::create(b, loc, atInterval, zero, counted);
    Value cleanHyst = arith::SelectOp::create(
        b, loc, atInterval, i32Constant(b, loc, hysteresis), hyst);

    Value newScale =
        arith::SelectOp::create(b, loc, finite, cleanScale, overflowScale);
    Value newTracker =
        arith::SelectOp::create(b, loc, finite, cleanTracker, zero);
    Value newHyst =
        arith::SelectOp::create(b, loc, finite, cleanHyst, overflowHyst);
    rewriter.replaceOp(op, {scalarTensor(b, loc, newScale),
                            scalarTensor(b, loc, newTracker),
                            scalarTensor(b, loc, newHyst)});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// sgd_update
//===----------------------------------------------------------------------===//

struct SGDUpdateLowering : public OpRewritePattern<SGDUpdateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SGDUpdateOp op,
                                PatternRewriter &rewriter) const override {
    // PyTorch's SGD, in f32:
    //   g'   = grad + weight_decay * param            (weight_decay != 0)
    //   buf' = momentum * buf + (1 - dampening) * g'  (with a buffer)
    //          or g' on the first step (step == 1; given with dampening)
    //   step = nesterov ? g' + momentum * buf' : buf' (with a buffer; else g')
    //   param' = param - lr * step, rounded once to the param type.
    Location loc = op.getLoc();
    SGDAttr optimizer = op.getOptimizer();
    double weightDecay = optimizer.getWeightDecay().convertToDouble();
    double momentum = optimizer.getMomentum().convertToDouble();
    double dampening = optimizer.getDampening().convertToDouble();
    bool nesterov = optimizer.getNesterov();
    Value lr = extractScalar(rewriter, loc, op.getLr());
    // Without a step count, the zero buffer gives the first step already.
    Value firstStep;
    if (Value stepTensor = op.getStep()) {
      Value step = extractScalar(rewriter, loc, stepTensor);
      Value one =
          arith::ConstantIntOp::create(rewriter, loc, step.getType(), 1);
      firstStep = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        step, one);
    }

    SmallVector<Value> inputs = {op.getParam(), op.getGrad()};
    SmallVector<Type> resultTypes = {op.getParamOut().getType()};
    if (Value buffer = op.getMomentumBuffer()) {
      inputs.push_back(buffer);
      resultTypes.push_back(op.getMomentumBufferOut().getType());
    }
    bool hasBuffer = inputs.size() == 3;
    SmallVector<Value> results = mapElementsMulti(
        rewriter, loc, resultTypes, inputs,
        [&](OpBuilder &b, Location nestedLoc,
            ValueRange args) -> SmallVector<Value> {
          Value param = args[0], grad = args[1];
          if (weightDecay != 0.0)
            grad = arith::AddFOp::create(
                b, nestedLoc, grad,
                arith::MulFOp::create(b, nestedLoc,
                                      f32Constant(b, nestedLoc, weightDecay),
                                      param));
          Value step = grad;
          Value buffer;
          if (hasBuffer) {
            Value momentumValue = f32Constant(b, nestedLoc, momentum);
            Value damped = grad;
            if (dampening != 0.0)
              damped = arith::MulFOp::create(
                  b, nestedLoc, f32Constant(b, nestedLoc, 1.0 - dampening),
                  grad);
            Value carried =
                arith::MulFOp::create(b, nestedLoc, momentumValue, args[2]);
            buffer = arith::AddFOp::create(b, nestedLoc, carried, damped);
            if (firstStep)
              buffer = arith::SelectOp::create(b, nestedLoc, firstStep, grad,
                                               buffer);
            step = nesterov ? arith::AddFOp::create(
                                  b, nestedLoc, grad,
                                  arith::MulFOp::create(b, nestedLoc,
                                                        momentumValue, buffer))
                                  .getResult()
                            : buffer;
          }
          Value newParam = arith::SubFOp::create(
              b, nestedLoc, param,
              arith::MulFOp::create(b, nestedLoc, lr, step));
          if (hasBuffer)
            return {newParam, buffer};
          return {newParam};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// select, increment
//===----------------------------------------------------------------------===//

struct SelectLowering : public OpRewritePattern<SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SelectOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value condition = extractScalar(rewriter, loc, op.getCondition());
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<AffineMap> maps(3, AffineMap::getMultiDimIdentityMap(
                                       type.getRank(), rewriter.getContext()));
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    auto select = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{op.getTrueValue(), op.getFalseValue()},
        ValueRange{emptyTensor(rewriter, loc, type)}, maps, iterators,
        [&](OpBuilder &b, Location nested, ValueRange args) {
          linalg::YieldOp::create(
              b, nested,
              arith::SelectOp::create(b, nested, condition, args[0], args[1])
                  .getResult());
        });
    rewriter.replaceOp(op, select.getResults());
    return success();
  }
};

struct IncrementLowering : public OpRewritePattern<IncrementOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IncrementOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value count = extractScalar(rewriter, loc, op.getInput());
    Value one = arith::ConstantIntOp::create(rewriter, loc, count.getType(), 1);
    rewriter.replaceOp(
        op, scalarTensor(rewriter, loc,
                         arith::AddIOp::create(rewriter, loc, count, one)));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// adam_update
//===----------------------------------------------------------------------===//

struct AdamUpdateLowering : public OpRewritePattern<AdamUpdateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AdamUpdateOp op,
                                PatternRewriter &rewriter) const override {
    // PyTorch's Adam (#mixprec.adam) / AdamW (#mixprec.adamw, decoupled):
    //   AdamW: param *= 1 - lr * wd;   Adam: g += wd * param
    //   m = b1 * m + (1 - b1) * g;     v = b2 * v + (1 - b2) * g * g
    //   param -= lr * (m / bc1) / (sqrt(v / bc2) + eps),
    //     bc1 = 1 - b1^step, bc2 = 1 - b2^step.
    // The last line is evaluated as PyTorch does (same value, its rounding):
    //   param += (-(lr / bc1) * m) / (sqrt(v) / sqrt(bc2) + eps)
    // with the per-step scalars lr / bc1, sqrt(bc2) and 1 - lr * wd formed in
    // f64 and rounded once to f32. f64 matters for bc2: f32(0.999) is off by
    // 1.3e-8, which 1 - 0.999^step would magnify to a 1.3e-5 relative error.
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    Type f32 = b.getF32Type(), f64 = b.getF64Type();
    AdamFamilyAttrInterface optimizer = op.getOptimizer();
    double beta1 = optimizer.getBeta1().convertToDouble();
    double beta2 = optimizer.getBeta2().convertToDouble();
    double eps = optimizer.getEps().convertToDouble();
    double weightDecay = optimizer.getWeightDecay().convertToDouble();
    bool decoupled = optimizer.isDecoupled();

    Value lr = extractScalar(b, loc, op.getLr());
    Value lr64 = arith::ExtFOp::create(b, loc, f64, lr);
    Value step = arith::SIToFPOp::create(b, loc, f64,
                                         extractScalar(b, loc, op.getStep()));
    Value one64 = floatConstant(b, loc, f64, 1.0);
    auto biasCorrection = [&](double beta) -> Value {
      Value power =
          math::PowFOp::create(b, loc, floatConstant(b, loc, f64, beta), step);
      return arith::SubFOp::create(b, loc, one64, power);
    };
    Value negStepSize = arith::TruncFOp::create(
        b, loc, f32,
        arith::NegFOp::create(
            b, loc,
            arith::DivFOp::create(b, loc, lr64, biasCorrection(beta1))));
    Value bc2Sqrt = arith::TruncFOp::create(
        b, loc, f32, math::SqrtOp::create(b, loc, biasCorrection(beta2)));
    Value decayFactor;
    if (decoupled && weightDecay != 0.0)
      decayFactor = arith::TruncFOp::create(
          b, loc, f32,
          arith::SubFOp::create(
              b, loc, one64,
              arith::MulFOp::create(b, loc, lr64,
                                    floatConstant(b, loc, f64, weightDecay))));

    Value expAvg = op.getExpAvg();
    SmallVector<Type> resultTypes = {op.getParamOut().getType(),
                                     expAvg.getType(), expAvg.getType()};
    SmallVector<Value> results = mapElementsMulti(
        rewriter, loc, resultTypes,
        ValueRange{op.getParam(), op.getGrad(), expAvg, op.getExpAvgSq()},
        [&](OpBuilder &nb, Location nl, ValueRange args) -> SmallVector<Value> {
          Value param = args[0], grad = args[1], m = args[2], v = args[3];
          if (weightDecay != 0.0) {
            if (decoupled)
              param = arith::MulFOp::create(nb, nl, param, decayFactor);
            else
              grad = arith::AddFOp::create(
                  nb, nl, grad,
                  arith::MulFOp::create(
                      nb, nl, f32Constant(nb, nl, weightDecay), param));
          }
          m = arith::AddFOp::create(
              nb, nl,
              arith::MulFOp::create(nb, nl, f32Constant(nb, nl, beta1), m),
              arith::MulFOp::create(nb, nl, f32Constant(nb, nl, 1.0 - beta1),
                                    grad));
          v = arith::AddFOp::create(
              nb, nl,
              arith::MulFOp::create(nb, nl, f32Constant(nb, nl, beta2), v),
              arith::MulFOp::create(
                  nb, nl,
                  arith::MulFOp::create(nb, nl,
                                        f32Constant(nb, nl, 1.0 - beta2), grad),
                  grad));
          Value denominator = arith::AddFOp::create(
              nb, nl,
              arith::DivFOp::create(nb, nl, math::SqrtOp::create(nb, nl, v),
                                    bc2Sqrt),
              f32Constant(nb, nl, eps));
          Value update = arith::DivFOp::create(
              nb, nl, arith::MulFOp::create(nb, nl, negStepSize, m),
              denominator);
          return {arith::AddFOp::create(nb, nl, param, update), m, v};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void mixprec::populateTrainingLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LossScaleUpdateLowering, SGDUpdateLowering, SelectLowering,
               IncrementLowering, AdamUpdateLowering>(patterns.getContext());
}
