//===- TransposesIntoContractions.cpp - contractions read transposes in place //
//
// --mixprec-transposes-into-contractions: a contraction that reads a
// transposed copy (attention's heads split from the projections' rows)
// reads the copy's source instead, through the composed indexing map. The
// runtime's GEMMs take any strides, so the copy, a pass over memory, goes.
// A transposed copy of an elementwise op's result (the heads merged back)
// is that op writing in the transposed order.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/ContractionBody.h"
#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECTRANSPOSESINTOCONTRACTIONS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// The linalg.transpose whose result `value` is, or is a collapse of.
linalg::TransposeOp transposeBehind(Value value) {
  if (auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>())
    value = collapse.getSrc();
  return value.getDefiningOp<linalg::TransposeOp>();
}

/// Whether `value` is the only result, used once, of an elementwise
/// linalg.generic (all loops parallel).
bool isElementwiseResult(Value value) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  return generic && generic->getNumResults() == 1 && value.hasOneUse() &&
         generic.getNumLoops() == generic.getNumParallelLoops();
}

/// Whether `op` is a contraction on tensors with an input that is a
/// transpose's result or a collapse of one.
bool readsTransposes(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && mixprec::computesContract(op) &&
         llvm::any_of(op.getDpsInputOperands(), [](OpOperand *input) {
           return transposeBehind(input->get());
         });
}

/// A contraction generic's input that is a transposed copy reads the
/// copy's source, indexed by the transpose's input map composed with its
/// own map.
struct ReadSourceOfTranspose : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || !mixprec::computesContract(op))
      return failure();
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto transpose = input->get().getDefiningOp<linalg::TransposeOp>();
      if (!transpose)
        continue;
      // The transpose's loops are its result's dimensions (identity map):
      // result[x] = source[sourceMap(x)].
      AffineMap sourceMap =
          transpose.getMatchingIndexingMap(transpose.getDpsInputOperand(0));
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      unsigned position = input->getOperandNumber();
      maps[position] = sourceMap.compose(maps[position]);
      rewriter.modifyOpInPlace(op, [&] {
        input->set(transpose.getInput());
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
      return success();
    }
    return failure();
  }
};

class TransposesIntoContractionsPass
    : public mixprec::impl::MixprecTransposesIntoContractionsBase<
          TransposesIntoContractionsPass> {
public:
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    SmallVector<linalg::LinalgOp> named;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op) && readsTransposes(op))
        named.push_back(op);
    });
    IRRewriter rewriter(context);
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }

    // A collapse between the transpose and the contraction (heads merged
    // into one batch dimension) becomes more loops of the contraction; an
    // expansion between an elementwise op and a transpose of its result
    // (heads split from one batch dimension) becomes more loops of the
    // elementwise op.
    linalg::ControlFusionFn reshapes = [](OpOperand *operand) {
      if (auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner()))
        return consumer.isDpsInput(operand) &&
               mixprec::computesContract(consumer) &&
               operand->get().getDefiningOp<tensor::CollapseShapeOp>() &&
               transposeBehind(operand->get());
      auto expand = dyn_cast<tensor::ExpandShapeOp>(operand->getOwner());
      return expand && isElementwiseResult(operand->get()) &&
             expand->hasOneUse() &&
             isa<linalg::TransposeOp>(*expand->getUsers().begin());
    };
    RewritePatternSet patterns(context);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapes);
    patterns.add<ReadSourceOfTranspose>(context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();

    // A transpose of an elementwise op's only result is that op writing
    // in the transposed order: one pass instead of two.
    SmallVector<linalg::TransposeOp> transposes;
    getOperation().walk([&](linalg::TransposeOp transpose) {
      if (isElementwiseResult(transpose.getInput()))
        transposes.push_back(transpose);
    });
    for (linalg::TransposeOp transpose : transposes) {
      rewriter.setInsertionPoint(transpose);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, transpose);
      if (failed(generic))
        continue;
      OpOperand *input = generic->getDpsInputOperand(0);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, input);
      if (failed(fused))
        continue;
      Operation *producer = input->get().getDefiningOp();
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(*generic);
      rewriter.eraseOp(producer);
    }
  }
};

} // namespace
