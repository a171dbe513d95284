//===- SinkToFirstUse.cpp - compute values right before they are read ----===//
//
// --mixprec-sink-to-first-use: in a train step, an op without effects moves
// down to right before the first op that reads its result, when its results
// take more bytes than the operands that would then live longer: fewer
// bytes are live in between.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"
#include "mixprec/Transforms/StaticBytes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECSINKTOFIRSTUSE
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// The first op of `body` that reads `op`'s results, or null.
Operation *firstReader(Operation *op, Block &body) {
  Operation *first = nullptr;
  for (Operation *user : op->getUsers()) {
    Operation *reader = body.findAncestorOpInBlock(*user);
    if (reader && (!first || reader->isBeforeInBlock(first)))
      first = reader;
  }
  return first;
}

/// Whether `value` is read at or after `at` by an op other than `except`:
/// it is live there anyway. Arguments and constants always are, state read
/// until it is assigned (the new value is written over the old one).
bool liveAt(Value value, Operation *at, Operation *except, Block &body) {
  if (isa<BlockArgument>(value) ||
      isa_and_nonnull<ConstantOp>(value.getDefiningOp()))
    return true;
  if (auto read = value.getDefiningOp<ReadOp>()) {
    for (Operation *op = except; op && op != at; op = op->getNextNode())
      if (auto assign = dyn_cast<AssignOp>(op);
          assign && assign.getBufferAttr() == read.getStateAttr())
        return false;
    return true;
  }
  for (Operation *user : value.getUsers()) {
    Operation *reader = body.findAncestorOpInBlock(*user);
    if (reader && reader != except && !reader->isBeforeInBlock(at))
      return true;
  }
  return false;
}

struct SinkToFirstUsePass
    : public mixprec::impl::MixprecSinkToFirstUseBase<SinkToFirstUsePass> {
  void runOnOperation() override {
    for (auto step : getOperation().getOps<func::FuncOp>()) {
      if (!step->hasAttr(kOptimizerStepAttr) || !step.getBody().hasOneBlock())
        continue;
      Block &body = step.getBody().front();
      // Last first: an op's readers are where they go before it moves.
      SmallVector<Operation *> ops =
          llvm::to_vector(llvm::make_pointer_range(body.without_terminator()));
      for (Operation *op : llvm::reverse(ops)) {
        if (!isPure(op) || op->getNumRegions() != 0 ||
            isa<ConstantOp, ReadOp>(op))
          continue;
        Operation *first = firstReader(op, body);
        // A returned value is written into its caller's buffer, held for the
        // whole call wherever it is computed.
        if (!first || first == op->getNextNode() ||
            first == body.getTerminator())
          continue;
        int64_t extended = 0, shortened = 0;
        for (Value operand : op->getOperands())
          if (!liveAt(operand, first, op, body))
            extended += staticBytes(operand.getType()).value_or(0);
        for (Value result : op->getResults())
          shortened += staticBytes(result.getType()).value_or(0);
        if (shortened > extended)
          op->moveBefore(first);
      }
    }
  }
};

} // namespace
