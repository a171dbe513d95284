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

/// Whether fusing the producer of `operand` into its user would keep,
/// live at once, the producer's inputs and a result narrower than the one
/// it reads, where the producer alone could write over an input of its
/// result's type that dies there (a value no later op reads).
bool fusingHoldsNarrowResult(OpOperand *operand) {
  auto result = dyn_cast<OpResult>(operand->get());
  auto producer = result ? dyn_cast<linalg::GenericOp>(result.getOwner())
                         : linalg::GenericOp();
  auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
  if (!producer || !consumer || producer.getNumDpsInits() != 1)
    return false;
  auto width = [](Value value) -> unsigned {
    Type element = getElementTypeOrSelf(value.getType());
    return element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
  };
  unsigned wide = width(result);
  if (!llvm::all_of(consumer->getResults(), [&](Value narrow) {
        return width(narrow) > 0 && width(narrow) < wide;
      }))
    return false;
  // Read by no op after the producer: its buffer dies there.
  auto diesAtProducer = [&](Value input) {
    return llvm::all_of(input.getUsers(), [&](Operation *user) {
      return user->getBlock() == producer->getBlock() &&
             !producer->isBeforeInBlock(user);
    });
  };
  return llvm::any_of(producer.getDpsInputs(), [&](Value input) {
    return input.getType() == result.getType() && input.getDefiningOp() &&
           diesAtProducer(input);
  });
}

/// Whether `op` is a linalg.generic whose loops are all parallel.
bool isParallelGeneric(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.getNumLoops() == generic.getNumParallelLoops();
}

/// Fuses a producer whose results have several uses into the first user,
/// when that user is elementwise and reads one of its results in the
/// producer's order; the fused op
/// also yields the results the other users read. The producer is computed
/// once, in the fused op. Repeated, an optimizer update and the guards that
/// select each of its new values (`--mixprec-guard-state-updates`) become
/// one pass over the state instead of three.
struct FuseIntoFirstUser : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp producer,
                                PatternRewriter &rewriter) const override {
    if (!isParallelGeneric(producer) || producer->hasOneUse() ||
        producer->use_empty() || isBroadcast(producer))
      return failure();
    OpOperand *first = nullptr;
    for (OpOperand &use : producer->getUses()) {
      if (use.getOwner()->getBlock() != producer->getBlock())
        return failure();
      if (!first || use.getOwner()->isBeforeInBlock(first->getOwner()))
        first = &use;
    }
    Operation *firstUser = first->getOwner();
    // The user's loops must visit every element of the result it reads in
    // the order the producer's do (its map for the result the producer's),
    // as the fused op yields the others from them: all of them, written as
    // contiguously as before (coalesced on the GPU).
    auto user = dyn_cast<linalg::GenericOp>(firstUser);
    if (!isParallelGeneric(firstUser) ||
        user.getMatchingIndexingMap(first) !=
            producer.getIndexingMapMatchingResult(
                cast<OpResult>(first->get())) ||
        !linalg::areElementwiseOpsFusable(first) ||
        llvm::count_if(firstUser->getOperands(), [&](Value operand) {
          return operand.getDefiningOp() == producer;
        }) != 1)
      return failure();
    if (returnsBetween(producer, firstUser))
      return failure();
    // At the first user, the fused op dominates every other use.
    rewriter.setInsertionPoint(firstUser);
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, first);
    if (failed(fused))
      return failure();
    for (auto [original, replacement] : fused->replacements)
      rewriter.replaceAllUsesWith(original, replacement);
    rewriter.eraseOp(firstUser);
    rewriter.eraseOp(producer);
    return success();
  }
};

struct MixprecFuseElementwisePass
    : public mixprec::impl::MixprecFuseElementwiseBase<
          MixprecFuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    // Contractions and reductions keep their bodies: a multiply-accumulate
    // is what the tensor-core kernels match, and a producer fused into a
    // reduction would be recomputed for every reduced element.
    // A producer that computes nothing (a broadcast: its body yields an
    // input) is fused into each of its users, the others into their one
    // user, or, with several users, into the first when it is elementwise.
    // Nor does a producer move past a new value of a returned tensor: that
    // is where the state is written over in place, and the producer may
    // read its old value.
    // Under narrow-apart, a narrowing op stays apart from a producer that
    // can write over a dead input.
    bool narrowApart = this->narrowApart;
    linalg::ControlFusionFn onlyUserIsElementwise =
        [narrowApart](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
          return producer && (producer->hasOneUse() || isBroadcast(producer)) &&
                 consumer &&
                 consumer.getNumLoops() == consumer.getNumParallelLoops() &&
                 !returnsBetween(producer, consumer) &&
                 !(narrowApart && fusingHoldsNarrowResult(operand));
        };
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 onlyUserIsElementwise);
    patterns.add<FuseIntoFirstUser>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
