//===- ReduceAcrossLanes.cpp - a parallel loop innermost in reductions ----===//
//
// --mixprec-reduce-across-lanes: a reduction over its innermost loop gets a
// parallel loop (or a block of it) innermost instead, so that the loop
// vectorizes across outputs, each summed in its own order as before.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/ContractionBody.h"
#include "mixprec/Codegen/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECREDUCEACROSSLANES
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// The parallel loop of `op` to move innermost: its last one of at least
/// `minLanes` iterations, when its innermost loop is reduced.
std::optional<unsigned> lanesLoop(linalg::GenericOp op, int64_t minLanes) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.empty() || iterators.back() == utils::IteratorType::parallel)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned dim = iterators.size(); dim-- > 0;)
    if (iterators[dim] == utils::IteratorType::parallel &&
        !ShapedType::isDynamic(ranges[dim]) && ranges[dim] >= minLanes)
      return dim;
  return std::nullopt;
}

/// Whether every output of `op` is combined by one op whose result is the
/// same in any order (a maximum, a minimum, integer arithmetic): LLVM
/// vectorizes such a loop over the reduced elements itself, with
/// contiguous loads.
bool reducesInAnyOrder(linalg::GenericOp op) {
  for (unsigned position = 0; position < op.getNumDpsInits(); ++position) {
    SmallVector<Operation *> combiners;
    if (!matchReduction(op.getRegionOutputArgs(), position, combiners) ||
        combiners.size() != 1 ||
        !isa<arith::MaximumFOp, arith::MinimumFOp, arith::AddIOp, arith::MulIOp,
             arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::MaxSIOp,
             arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(combiners.front()))
      return false;
  }
  return true;
}

/// `value` (indexed through `map`) viewed with the dimension that loop
/// `dim` indexes cut into (extent / lanes, lanes), and its map over the
/// loops with `lanes` appended as loop `numLoops`; the reassociation in
/// `groups`.
Value cutOperand(RewriterBase &rewriter, Location loc, Value value,
                 AffineMap map, unsigned dim, int64_t lanes, unsigned numLoops,
                 AffineMap &cutMap, SmallVector<ReassociationIndices> &groups) {
  MLIRContext *context = rewriter.getContext();
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<AffineExpr> exprs;
  SmallVector<int64_t> shape;
  for (auto [position, expr] : llvm::enumerate(map.getResults())) {
    int64_t size = type.getDimSize(position);
    if (expr == getAffineDimExpr(dim, context)) {
      groups.push_back({int64_t(shape.size()), int64_t(shape.size()) + 1});
      exprs.push_back(expr);
      exprs.push_back(getAffineDimExpr(numLoops, context));
      shape.push_back(size / lanes);
      shape.push_back(lanes);
      continue;
    }
    groups.push_back({int64_t(shape.size())});
    exprs.push_back(expr);
    shape.push_back(size);
  }
  cutMap = AffineMap::get(numLoops + 1, 0, exprs, context);
  if (shape.size() == size_t(type.getRank()))
    return value;
  return tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(shape, type.getElementType()), value,
      groups);
}

/// Replaces `op` by the same op with loop `dim` cut into blocks of `lanes`
/// iterations, the blocks where `dim` was and the lanes innermost. The
/// operands are viewed with that dimension expanded, the results
/// collapsed back.
void cutLanes(RewriterBase &rewriter, linalg::GenericOp op, unsigned dim,
              int64_t lanes) {
  Location loc = op.getLoc();
  unsigned numLoops = op.getNumLoops();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> inputs, inits;
  SmallVector<AffineMap> maps;
  SmallVector<SmallVector<ReassociationIndices>> resultGroups;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap cutMap;
    SmallVector<ReassociationIndices> groups;
    Value cut = cutOperand(rewriter, loc, operand.get(),
                           op.getMatchingIndexingMap(&operand), dim, lanes,
                           numLoops, cutMap, groups);
    maps.push_back(cutMap);
    if (op.isDpsInit(&operand)) {
      inits.push_back(cut);
      resultGroups.push_back(groups);
    } else {
      inputs.push_back(cut);
    }
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::parallel);
  SmallVector<Type> resultTypes;
  for (Value init : inits)
    resultTypes.push_back(init.getType());
  auto cutOp = linalg::GenericOp::create(rewriter, loc, resultTypes, inputs,
                                         inits, maps, iterators);
  rewriter.inlineRegionBefore(op.getRegion(), cutOp.getRegion(),
                              cutOp.getRegion().begin());
  SmallVector<Value> results;
  for (auto [result, original, groups] :
       llvm::zip(cutOp.getResults(), op.getResults(), resultGroups)) {
    if (result.getType() == original.getType())
      results.push_back(result);
    else
      results.push_back(tensor::CollapseShapeOp::create(
          rewriter, loc, original.getType(), result, groups));
  }
  rewriter.replaceOp(op, results);
}

class ReduceAcrossLanesPass
    : public mixprec::impl::MixprecReduceAcrossLanesBase<
          ReduceAcrossLanesPass> {
public:
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> reductions;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.hasPureTensorSemantics() && !mixprec::computesContract(op))
        reductions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : reductions) {
      std::optional<unsigned> dim = lanesLoop(op, minLanes);
      if (!dim || reducesInAnyOrder(op))
        continue;
      int64_t extent = op.getStaticLoopRanges()[*dim];
      bool cuttable = extent > minLanes && extent % minLanes == 0 &&
                      !op.hasIndexSemantics() &&
                      llvm::all_of(op.getIndexingMapsArray(), [](AffineMap m) {
                        return m.isProjectedPermutation();
                      });
      if (cuttable) {
        cutLanes(rewriter, op, *dim, minLanes);
        continue;
      }
      // Whole: the outermost loop stays where the threads split the nest.
      if (*dim == 0)
        continue;
      SmallVector<unsigned> order;
      for (unsigned other = 0; other < op.getNumLoops(); ++other)
        if (other != *dim)
          order.push_back(other);
      order.push_back(*dim);
      rewriter.setInsertionPoint(op);
      (void)linalg::interchangeGenericOp(rewriter, op, order);
    }
  }
};

} // namespace
