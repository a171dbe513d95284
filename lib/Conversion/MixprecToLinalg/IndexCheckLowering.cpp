//===- IndexCheckLowering.cpp - index_check to linalg ---------------------===//
//
// Two linalg ops, so that both backends run the check as ordinary loop nests
// or kernels: a reduction over the indices finds the first bad position and
// its value, and a three-element map writes the report.
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
    return linalg::FillOp::create(b, loc, ValueRange{i64Constant(b, loc, value)},
                                  ValueRange{emptyTensor(b, loc, scalar)})
        .getResult(0);
  };
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, context),
      AffineMap::get(rank, 0, {}, context),
      AffineMap::get(rank, 0, {}, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{scalar, scalar}, ValueRange{indices},
      ValueRange{filled(std::numeric_limits<int64_t>::max()), filled(0)}, maps,
      iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value position = i64Constant(b, loc, 0);
        for (int64_t dim = 0; dim < rank; ++dim) {
          Value at = arith::IndexCastOp::create(
              b, loc, b.getI64Type(), linalg::IndexOp::create(b, loc, dim));
          position = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(
                  b, loc, position,
                  i64Constant(b, loc, type.getDimSize(dim))),
              at);
        }
        Value value = convertScalar(b, loc, args[0], b.getI64Type());
        Value outside = arith::OrIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, value,
                                  i64Constant(b, loc, 0)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, value,
                                  i64Constant(b, loc, bound)));
        Value kept = arith::XOrIOp::create(
            b, loc, isSkipped(b, loc, value, skipped),
            arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1));
        Value earlier = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, position, args[1]);
        Value take = arith::AndIOp::create(
            b, loc, arith::AndIOp::create(b, loc, outside, kept), earlier);
        linalg::YieldOp::create(
            b, loc,
            ValueRange{
                arith::SelectOp::create(b, loc, take, position, args[1]),
                arith::SelectOp::create(b, loc, take, value, args[2])});
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
          Value element =
              arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                         linalg::IndexOp::create(b, loc, 0));
          auto elementIs = [&](int64_t k) {
            return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         element, i64Constant(b, loc, k));
          };
          // [check, position, value] of this check.
          Value mine = arith::SelectOp::create(
              b, loc, elementIs(0), i64Constant(b, loc, check),
              arith::SelectOp::create(b, loc, elementIs(1), args[0], args[1]));
          Value found = arith::CmpIOp::create(
              b, loc, arith::CmpIPredicate::ne, args[0],
              i64Constant(b, loc, std::numeric_limits<int64_t>::max()));
          Value passed;
          if (previous) {
            passed = args[2];
            Value previousCheck = tensor::ExtractOp::create(
                b, loc, previous,
                ValueRange{arith::ConstantIndexOp::create(b, loc, 0)});
            Value failedBefore = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::sge, previousCheck,
                i64Constant(b, loc, 0));
            found = arith::AndIOp::create(
                b, loc, found,
                arith::XOrIOp::create(
                    b, loc, failedBefore,
                    arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1)));
          } else {
            passed = arith::SelectOp::create(b, loc, elementIs(0),
                                             i64Constant(b, loc, -1),
                                             i64Constant(b, loc, 0));
          }
          linalg::YieldOp::create(
              b, loc,
              ValueRange{arith::SelectOp::create(b, loc, found, mine, passed)});
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

} // namespace

void mixprec::populateIndexCheckLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<IndexCheckLowering>(patterns.getContext());
}
