//===- FuseElementwise.cpp - elementwise chains as one kernel -------------===//
//
// Fuses a linalg producer that computes elementwise into the elementwise op
// that is its only user, so a chain of them becomes one loop nest, one GPU
// kernel, with no buffer in between. Each op's body is inlined as it is:
// its casts, so its rounding points, stay (docs/design.md §4).
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECFUSEELEMENTWISE
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

struct MixprecFuseElementwisePass
    : public mixprec::impl::MixprecFuseElementwiseBase<
          MixprecFuseElementwisePass> {
  void runOnOperation() override {
    // Contractions and reductions keep their bodies: a multiply-accumulate
    // is what the tensor-core kernels match, and a producer fused into a
    // reduction would be recomputed for every reduced element.
    linalg::ControlFusionFn onlyUserIsElementwise = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
      return producer && producer->hasOneUse() && consumer &&
             consumer.getNumLoops() == consumer.getNumParallelLoops();
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 onlyUserIsElementwise);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
