//===- ReductionLowering.cpp - reductions, losses, all_finite -------------===//
//
// Sums accumulate in f32 whatever the input type and are rounded once to the
// result type (docs/design.md §4); the maximum is exact in any type and
// propagates NaN. Nothing here depends on fast-math: all_finite must see
// every Inf and NaN.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

/// An f32 accumulator of the reduction into `resultType` (the 0-d tensor of
/// a loss): divided by `count` for a mean, rounded once to the result type.
Value finishScalar(OpBuilder &b, Location loc, Value accumulator,
                   RankedTensorType resultType, bool mean, double count) {
  if (!mean)
    return convertTensor(b, loc, accumulator, resultType.getElementType());
  return mapElements(b, loc, resultType, accumulator,
                     [&](OpBuilder &b, Location loc, ValueRange args) {
                       return arith::DivFOp::create(b, loc, args[0],
                                                    f32Constant(b, loc, count));
                     });
}

enum class ReduceKind { Sum, Mean, Max };

/// reduce_sum / reduce_mean / reduce_max over `dims`; with `keepdim` the
/// reduced tensor is expanded with unit dims where `dims` were.
template <typename OpTy, ReduceKind Kind>
struct ReduceLowering : public OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    ArrayRef<int64_t> dims = op.getDims();
    RankedTensorType resultType = op.getType();
    Type elementType = resultType.getElementType();

    Value accumulator =
        Kind == ReduceKind::Max
            ? reduceDims(rewriter, loc, input, dims,
                         -std::numeric_limits<double>::infinity(), maxCombine)
            : reduceDims(rewriter, loc, input, dims, 0.0, sumCombine);
    auto accType = cast<RankedTensorType>(accumulator.getType());
    Value result;
    if (Kind == ReduceKind::Mean) {
      int64_t count = 1;
      for (int64_t dim : dims)
        count *= inputType.getDimSize(dim);
      result =
          mapElements(rewriter, loc, accType.clone(elementType), accumulator,
                      [&](OpBuilder &b, Location loc, ValueRange args) {
                        return arith::DivFOp::create(
                            b, loc, args[0],
                            f32Constant(b, loc, static_cast<double>(count)));
                      });
    } else {
      result = convertTensor(rewriter, loc, accumulator, elementType);
    }

    if (op.getKeepdim()) {
      // Each kept dim takes the reduced dims before it; trailing reduced dims
      // join the last kept one. A full reduction expands a 0-d tensor (no
      // groups).
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices current;
      for (int64_t dim = 0; dim < inputType.getRank(); ++dim) {
        current.push_back(dim);
        if (!llvm::is_contained(dims, dim)) {
          groups.push_back(current);
          current.clear();
        }
      }
      if (!groups.empty())
        groups.back().append(current.begin(), current.end());
      result = tensor::ExpandShapeOp::create(rewriter, loc, resultType, result,
                                             groups);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Mean (or sum) over rows of -log_softmax(logits)[n, labels[n]]
/// = log(sum_c e^(x[n, c] - max_n)) - (x[n, labels[n]] - max_n).
/// The label is clamped into [0, C) before it addresses the row: a bad one
/// fails the call through --mixprec-check-indices, and must not read out of
/// bounds meanwhile.
struct SoftmaxCrossEntropyLowering
    : public OpRewritePattern<SoftmaxCrossEntropyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxCrossEntropyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    Value logits = op.getLogits();
    Value labels = op.getLabels();
    auto logitsType = cast<RankedTensorType>(logits.getType());
    int64_t rows = logitsType.getDimSize(0);
    int64_t classes = logitsType.getDimSize(1);
    std::optional<int64_t> ignored = op.getIgnoreIndex();
    auto scalarType = RankedTensorType::get({}, rewriter.getF32Type());

    auto [max, sum] = computeSoftmaxStats(rewriter, loc, logits, {1});

    // One loop over the rows gathers the labelled logit and sums the losses.
    AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
    Value total = reduceInputs(
        rewriter, loc, 1, {0}, {labels, max, sum},
        {identity, identity, identity},
        filledTensor(rewriter, loc, scalarType, 0.0),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value row = linalg::IndexOp::create(b, loc, 0);
          Value column =
              arith::IndexCastOp::create(b, loc, b.getIndexType(), args[1]);
          Value first = arith::ConstantIndexOp::create(b, loc, 0);
          column = arith::MaxSIOp::create(b, loc, column, first);
          Value last = arith::ConstantIndexOp::create(b, loc, classes - 1);
          column = arith::MinSIOp::create(b, loc, column, last);
          Value picked = widen(b, loc,
                               tensor::ExtractOp::create(
                                   b, loc, logits, ValueRange{row, column}));
          Value loss = subF(b, loc, math::LogOp::create(b, loc, args[3]),
                            subF(b, loc, picked, args[2]));
          if (ignored) {
            Value counted = isOtherThan(b, loc, args[1], *ignored);
            Value zero = f32Constant(b, loc, 0.0);
            loss = arith::SelectOp::create(b, loc, counted, loss, zero);
          }
          return addF(b, loc, args[0], loss);
        });
    bool mean = op.getReduction() == Reduction::Mean;
    if (mean && ignored) {
      Value count = countOtherThan(rewriter, loc, labels, *ignored);
      rewriter.replaceOp(
          op, mapElements(rewriter, loc, op.getType(), {total, count},
                          [](OpBuilder &b, Location loc, ValueRange args) {
                            return divF(b, loc, args[0], args[1]);
                          }));
      return success();
    }
    rewriter.replaceOp(op, finishScalar(rewriter, loc, total, op.getType(),
                                        mean, static_cast<double>(rows)));
    return success();
  }
};

/// Mean (or sum) of (input - target)^2 over every element.
struct MseLowering : public OpRewritePattern<MseOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MseOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    int64_t rank = inputType.getRank();
    AffineMap identity =
        AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext());
    Value total = reduceInputs(
        rewriter, loc, rank, dimRange(0, rank), {op.getInput(), op.getTarget()},
        {identity, identity},
        filledTensor(rewriter, loc,
                     RankedTensorType::get({}, rewriter.getF32Type()), 0.0),
        [](OpBuilder &b, Location loc, ValueRange args) {
          Value difference = subF(b, loc, args[1], args[2]);
          return addF(b, loc, args[0],
                      arith::MulFOp::create(b, loc, difference, difference));
        });
    rewriter.replaceOp(
        op, finishScalar(rewriter, loc, total, op.getType(),
                         op.getReduction() == Reduction::Mean,
                         static_cast<double>(inputType.getNumElements())));
    return success();
  }
};

/// Per input: true iff |x| < +inf (ordered) for every element, which is
/// false for NaN as well as for +-Inf; `result` is the conjunction.
struct AllFiniteLowering : public OpRewritePattern<AllFiniteOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllFiniteOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value init =
        arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
    Value all = init;
    SmallVector<Value> each;
    for (Value input : op.getInputs()) {
      int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
      Value flag = reduceInputs(
          rewriter, loc, rank, dimRange(0, rank), input,
          AffineMap::getMultiDimIdentityMap(rank, rewriter.getContext()),
          linalg::FillOp::create(
              rewriter, loc, init,
              emptyTensor(rewriter, loc, op.getResult().getType()))
              .getResult(0),
          [](OpBuilder &b, Location loc, ValueRange args) -> Value {
            Value inf =
                f32Constant(b, loc, std::numeric_limits<double>::infinity());
            Value finite = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::OLT,
                math::AbsFOp::create(b, loc, args[1]), inf);
            return arith::AndIOp::create(b, loc, args[0], finite);
          });
      each.push_back(tensor::ExtractOp::create(rewriter, loc, flag));
      all = arith::AndIOp::create(rewriter, loc, all, each.back());
    }
    Value result = tensor::FromElementsOp::create(
        rewriter, loc, op.getResult().getType(), all);
    Value flags = tensor::FromElementsOp::create(rewriter, loc,
                                                 op.getEach().getType(), each);
    rewriter.replaceOp(op, ValueRange{result, flags});
    return success();
  }
};

} // namespace

void mixprec::populateReductionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<ReduceSumOp, ReduceKind::Sum>,
               ReduceLowering<ReduceMeanOp, ReduceKind::Mean>,
               ReduceLowering<ReduceMaxOp, ReduceKind::Max>,
               SoftmaxCrossEntropyLowering, MseLowering, AllFiniteLowering>(
      patterns.getContext());
}
