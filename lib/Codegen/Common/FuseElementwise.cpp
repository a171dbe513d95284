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

/// Whether `op` is a linalg op whose body yields one of its inputs as it is.
bool isBroadcast(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInits() != 1)
    return false;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  auto argument = dyn_cast<BlockArgument>(yield.getOperand(0));
  return argument && argument.getOwner() == generic.getBody() &&
         generic.isDpsInput(generic.getMatchingOpOperand(argument));
}

/// Whether an op after `producer` and before `consumer` (in one block)
/// computes a value the function returns.
bool returnsBetween(Operation *producer, Operation *consumer) {
  if (producer->getBlock() != consumer->getBlock())
    return true;
  for (Operation *op = producer->getNextNode(); op && op != consumer;
       op = op->getNextNode())
    for (Operation *user : op->getUsers())
      if (isa<func::ReturnOp>(user))
        return true;
  return false;
}

struct MixprecFuseElementwisePass
    : public mixprec::impl::MixprecFuseElementwiseBase<
          MixprecFuseElementwisePass> {
  void runOnOperation() override {
    // Contractions and reductions keep their bodies: a multiply-accumulate
    // is what the tensor-core kernels match, and a producer fused into a
    // reduction would be recomputed for every reduced element.
    // A producer that computes nothing (a broadcast: its body yields an
    // input) is fused into each of its users, the others only into their
    // one user.
    // Nor does a producer move past a new value of a returned tensor: that
    // is where the state is written over in place, and the producer may
    // read its old value.
    linalg::ControlFusionFn onlyUserIsElementwise = [](OpOperand *operand) {
      Operation *producer = operand->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
      return producer && (producer->hasOneUse() || isBroadcast(producer)) &&
             consumer &&
             consumer.getNumLoops() == consumer.getNumParallelLoops() &&
             !returnsBetween(producer, consumer);
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 onlyUserIsElementwise);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
