//===- ReduceAcrossLanes.cpp - a parallel loop innermost in reductions ----===//
//
// --mixprec-reduce-across-lanes: a reduction over its innermost loop gets a
// parallel loop innermost instead, so that the loop vectorizes across the
// outputs, each summed in its own order as before.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/ContractionBody.h"
#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECREDUCEACROSSLANES
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// The loop order of `op` with its last parallel loop of at least
/// `minLanes` iterations innermost, or nothing when its innermost loop is
/// parallel already or it has no such loop but its outermost, which stays
/// where the model's threads split the nest.
std::optional<SmallVector<unsigned>> lanesInnermost(linalg::GenericOp op,
                                                    int64_t minLanes) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators.empty() || iterators.back() == utils::IteratorType::parallel)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned dim = iterators.size(); dim-- > 1;) {
    if (iterators[dim] != utils::IteratorType::parallel ||
        ShapedType::isDynamic(ranges[dim]) || ranges[dim] < minLanes)
      continue;
    SmallVector<unsigned> order;
    for (unsigned other = 0; other < iterators.size(); ++other)
      if (other != dim)
        order.push_back(other);
    order.push_back(dim);
    return order;
  }
  return std::nullopt;
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
      std::optional<SmallVector<unsigned>> order =
          lanesInnermost(op, minLanes);
      if (!order)
        continue;
      rewriter.setInsertionPoint(op);
      (void)linalg::interchangeGenericOp(rewriter, op, *order);
    }
  }
};

} // namespace
