//===- IndexCheckLowering.cpp - index_check to linalg ---------------------===//
//
// Two linalg ops, so that both backends run the check as ordinary loop nests
// or kernels: a reduction over the indices finds the first bad position and
// its value, and a three-element map writes the report. indices_valid reads
// the report's check in a 0-d map.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
}

/// The first row-major position of an index outside [0, bound) (and not
/// `skipped`), or INT64_MAX, and the index there: two 0-d i64 tensors.
std::pair<Value, Value> findFirstBad(OpBuilder &b, Location loc, Value indices,
                                     int64_t bound,
                                     std::optional<int64_t> skipped) {
  auto type = cast<RankedTensorType>(indices.getType());
  int64_t rank = type.getRank();
  MLIRContext *context = b.getContext();
  auto scalar = RankedTensorType::get({}, b.getI64Type());
  auto filled = [&](int64_t value) {
    Value empty = emptyTensor(b, loc, scalar);
    Value constant = i64Constant(b, loc, value);
    return linalg::FillOp::create(b, loc, ValueRange{constant},
                                  ValueRange{empty})
        .getResult(0);
  };
  Value noneYet = filled(std::numeric_limits<int64_t>::max());
  Value noValue = filled(0);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, context),
      AffineMap::get(rank, 0, {}, context),
      AffineMap::get(rank, 0, {}, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{scalar, scalar}, ValueRange{indices},
      ValueRange{noneYet, noValue}, maps, iterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        // Ops are created one statement at a time: argument evaluation order
        // would otherwise decide the order of the IR.
        Value position = i64Constant(b, loc, 0);
        for (int64_t dim = 0; dim < rank; ++dim) {
          Value index = linalg::IndexOp::create(b, loc, dim);
          Value at = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
          Value size = i64Constant(b, loc, type.getDimSize(dim));
          Value scaled = arith::MulIOp::create(b, loc, position, size);
          position = arith::AddIOp::create(b, loc, scaled, at);
        }
        Value value = convertScalar(b, loc, args[0], b.getI64Type());
        Value zero = i64Constant(b, loc, 0);
        Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                            value, zero);
        Value limit = i64Constant(b, loc, bound);
        Value above = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                            value, limit);
        Value outside = arith::OrIOp::create(b, loc, below, above);
        if (skipped) {
          Value counted = isOtherThan(b, loc, value, *skipped);
          outside = arith::AndIOp::create(b, loc, outside, counted);
        }
        Value earlier = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              position, args[1]);
        Value take = arith::AndIOp::create(b, loc, outside, earlier);
        Value first = arith::SelectOp::create(b, loc, take, position, args[1]);
        Value found = arith::SelectOp::create(b, loc, take, value, args[2]);
        linalg::YieldOp::create(b, loc, ValueRange{first, found});
      });
  return {generic.getResult(0), generic.getResult(1)};
}

struct IndexCheckLowering : public OpRewritePattern<IndexCheckOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IndexCheckOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    auto [first, value] = findFirstBad(rewriter, loc, op.getIndices(),
                                       op.getBound(), op.getSkipped());
    Value previous = op.getPrevious();
    RankedTensorType type = op.getType();
    AffineMap scalarMap = AffineMap::get(1, 0, {}, context);
    SmallVector<Value> inputs = {first, value};
    SmallVector<AffineMap> maps = {scalarMap, scalarMap};
    if (previous) {
      inputs.push_back(previous);
      maps.push_back(AffineMap::getMultiDimIdentityMap(1, context));
    }
    maps.push_back(AffineMap::getMultiDimIdentityMap(1, context));
    int64_t check = op.getCheck();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, inputs,
        ValueRange{emptyTensor(rewriter, loc, type)}, maps,
        {utils::IteratorType::parallel},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value index = linalg::IndexOp::create(b, loc, 0);
          Value element =
              arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
          auto elementIs = [&](int64_t k) -> Value {
            Value constant = i64Constant(b, loc, k);
            return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         element, constant);
          };
          // [check, position, value] of this check.
          Value isPosition = elementIs(1);
          Value positionOrValue =
              arith::SelectOp::create(b, loc, isPosition, args[0], args[1]);
          Value isCheck = elementIs(0);
          Value checkId = i64Constant(b, loc, check);
          Value mine = arith::SelectOp::create(b, loc, isCheck, checkId,
                                               positionOrValue);
          Value none = i64Constant(b, loc, std::numeric_limits<int64_t>::max());
          Value found = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                              args[0], none);
          // What passes through when this check finds nothing (or a previous
          // one found something first).
          Value passed;
          if (previous) {
            passed = args[2];
            Value zeroIndex = arith::ConstantIndexOp::create(b, loc, 0);
            Value previousCheck =
                tensor::ExtractOp::create(b, loc, previous, zeroIndex);
            Value zero = i64Constant(b, loc, 0);
            Value passedBefore = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::slt, previousCheck, zero);
            found = arith::AndIOp::create(b, loc, found, passedBefore);
          } else {
            Value minusOne = i64Constant(b, loc, -1);
            Value zero = i64Constant(b, loc, 0);
            passed = arith::SelectOp::create(b, loc, isCheck, minusOne, zero);
          }
          Value result = arith::SelectOp::create(b, loc, found, mine, passed);
          linalg::YieldOp::create(b, loc, result);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct IndicesValidLowering : public OpRewritePattern<IndicesValidOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IndicesValidOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    RankedTensorType type = op.getType();
    // Element 0 of the report, the failed check or -1.
    AffineMap check =
        AffineMap::get(0, 0, {getAffineConstantExpr(0, context)}, context);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getReport()},
        ValueRange{emptyTensor(rewriter, loc, type)},
        {check, AffineMap::get(0, 0, {}, context)}, {},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value zero = i64Constant(b, loc, 0);
          Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              args[0], zero);
          linalg::YieldOp::create(b, loc, valid);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void mixprec::populateIndexCheckLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<IndexCheckLowering, IndicesValidLowering>(patterns.getContext());
}
