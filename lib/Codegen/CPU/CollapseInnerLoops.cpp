//===- CollapseInnerLoops.cpp - contiguous inner loops as one -------------===//
//
// --mixprec-collapse-inner-loops: the innermost parallel loops of a loop nest
// on buffers that walk every operand contiguously become one loop, so that
// LLVM vectorizes a long loop with plain loads instead of a 3x3 one.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECCOLLAPSEINNERLOOPS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// The innermost loops of `op` to collapse into one: the longest run of
/// parallel loops, two or more, that every indexing map (each a projected
/// permutation: no window) reads in order as its last dimensions, over
/// buffers with the identity layout (so such a run is contiguous).
std::optional<ReassociationIndices> innerLoopsToCollapse(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics() || op.hasIndexSemantics() ||
      llvm::any_of(op->getOperandTypes(),
                   [](Type type) {
                     auto memref = dyn_cast<MemRefType>(type);
                     return memref && !memref.getLayout().isIdentity();
                   }) ||
      llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps,
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return std::nullopt;
  std::optional<ReassociationIndices> longest;
  for (int64_t first = int64_t(iterators.size()) - 2; first >= 0; --first) {
    if (iterators[first] != utils::IteratorType::parallel ||
        iterators[first + 1] != utils::IteratorType::parallel)
      break;
    ReassociationIndices run =
        llvm::to_vector(llvm::seq<int64_t>(first, iterators.size()));
    // In every map that reads them, the run's loops are its last
    // dimensions, so the collapsed loop walks each buffer contiguously.
    AffineExpr last = getAffineDimExpr(iterators.size() - 1, op.getContext());
    if (!linalg::areDimSequencesPreserved(maps, run) ||
        llvm::any_of(maps, [&](AffineMap map) {
          return map.getNumResults() > 0 &&
                 llvm::any_of(
                     run,
                     [&](int64_t dim) { return map.isFunctionOfDim(dim); }) &&
                 map.getResults().back() != last;
        }))
      break;
    longest = run;
  }
  return longest;
}

/// Makes the operands of `op` that view one buffer the same way one view:
/// an op that writes in place then reads and writes one value, which
/// --mixprec-outline-loop-nests passes once, so LLVM sees one pointer
/// (two that may be equal, it checks at run time and runs scalar when
/// they are).
void shareViews(RewriterBase &rewriter, Operation *op) {
  SmallVector<memref::CollapseShapeOp> views;
  for (OpOperand &operand : op->getOpOperands()) {
    auto view = operand.get().getDefiningOp<memref::CollapseShapeOp>();
    if (!view)
      continue;
    auto same = llvm::find_if(views, [&](memref::CollapseShapeOp other) {
      return other.getSrc() == view.getSrc() &&
             other.getType() == view.getType() &&
             other.getReassociation() == view.getReassociation();
    });
    if (same == views.end()) {
      views.push_back(view);
      continue;
    }
    rewriter.modifyOpInPlace(op, [&] { operand.set(*same); });
    if (view->use_empty())
      rewriter.eraseOp(view);
  }
}

struct MixprecCollapseInnerLoopsPass
    : public mixprec::impl::MixprecCollapseInnerLoopsBase<
          MixprecCollapseInnerLoopsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, ReassociationIndices>> nests;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<ReassociationIndices> run = innerLoopsToCollapse(op))
        nests.push_back({op, *run});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, run] : nests) {
      rewriter.setInsertionPoint(op);
      SmallVector<ReassociationIndices> folded = {run};
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, folded, rewriter);
      if (failed(collapsed)) {
        op.emitError("mixprec-collapse-inner-loops: could not collapse "
                     "loops that every map reads in order");
        return signalPassFailure();
      }
      shareViews(rewriter, collapsed->collapsedOp);
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
