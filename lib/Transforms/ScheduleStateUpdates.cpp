//===- ScheduleStateUpdates.cpp - update state as soon as it can be ------===//
//
// --mixprec-schedule-state-updates: the ops of a train step that only serve
// to compute new state values (an optimizer's update of one parameter, its
// reads of the state, the step counter) move up to right after what they
// need, and each `mixprec.assign` to right after its value and the last use
// of the state's old value. A gradient then dies at its update instead of
// living until the end of the backward with every other one.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseSet.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECSCHEDULESTATEUPDATES
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// The state symbol an op reads or writes, if it is a read or an assign.
FlatSymbolRefAttr stateOf(Operation *op) {
  if (auto read = dyn_cast<ReadOp>(op))
    return read.getStateAttr();
  if (auto assign = dyn_cast<AssignOp>(op))
    return assign.getBufferAttr();
  return nullptr;
}

class Scheduler {
public:
  explicit Scheduler(Block &body) : body(body) {
    // The ops every user of which is an assign or such an op, found from
    // the end: what exists only to update the state.
    for (Operation &op : llvm::reverse(body)) {
      if (isa<AssignOp>(op)) {
        updating.insert(&op);
        continue;
      }
      if (op.use_empty() || !(isPure(&op) || isa<ReadOp>(op)))
        continue;
      if (llvm::all_of(op.getUsers(), [&](Operation *user) {
            Operation *inBody = body.findAncestorOpInBlock(*user);
            return inBody && updating.contains(inBody);
          }))
        updating.insert(&op);
    }
    // Those whose operands are all arguments, constants or state: they
    // follow their first user rather than lead.
    for (Operation &op : body)
      if (updating.contains(&op) && !isa<AssignOp>(op) &&
          llvm::all_of(op.getOperands(), [&](Value operand) {
            Operation *producer = operand.getDefiningOp();
            return !producer || isa<ConstantOp>(producer) ||
                   freeRooted.contains(producer);
          }))
        freeRooted.insert(&op);
    // The updates: the ops that read state of their own (through
    // free-rooted ops: an optimizer's update of a parameter, loss scaling's
    // select of the old value) and what they feed. The rest of the
    // backward, which exists only to update the state too, stays where the
    // reverse sweep put it.
    // The loss seed times the loss scale starts the reverse sweep: it
    // reads state but updates none.
    llvm::DenseSet<Operation *> readingState, seeding;
    for (Operation &op : body) {
      if (op.hasAttr(kLossSeedAttr) ||
          llvm::any_of(op.getOperands(), [&](Value v) {
            return seeding.contains(v.getDefiningOp());
          }))
        seeding.insert(&op);
      if (!freeRooted.contains(&op) || seeding.contains(&op))
        continue;
      if (isa<ReadOp>(op) || llvm::any_of(op.getOperands(), [&](Value v) {
            return readingState.contains(v.getDefiningOp());
          }))
        readingState.insert(&op);
    }
    for (Operation &op : body) {
      if (!updating.contains(&op) || freeRooted.contains(&op))
        continue;
      if (isa<AssignOp>(op) ||
          llvm::any_of(op.getOperands(), [&](Value operand) {
            Operation *producer = operand.getDefiningOp();
            return readingState.contains(producer) ||
                   updates.contains(producer);
          }))
        updates.insert(&op);
    }
  }

  void run() {
    for (Operation *op : snapshot())
      if (updates.contains(op) && !isa<AssignOp>(op))
        moveAfter(op, readyAfter(op));
    // Free-rooted ops right before their first user, the last first so
    // that a chain of them lines up.
    SmallVector<Operation *> ops = snapshot();
    for (Operation *op : llvm::reverse(ops))
      if (freeRooted.contains(op))
        if (Operation *first = firstUser(op);
            first && first->isBeforeInBlock(op))
          op->moveBefore(first);
    for (Operation *op : snapshot())
      if (isa<AssignOp>(op))
        moveAfter(op, assignAfter(cast<AssignOp>(op)));
  }

private:
  SmallVector<Operation *> snapshot() {
    return llvm::to_vector(llvm::make_pointer_range(body.without_terminator()));
  }

  static Operation *later(Operation *a, Operation *b) {
    if (!a)
      return b;
    if (!b)
      return a;
    return a->isBeforeInBlock(b) ? b : a;
  }

  Operation *inBody(Operation *op) const {
    return op ? body.findAncestorOpInBlock(*op) : nullptr;
  }

  /// The latest producer of an operand of `op` that leads; free-rooted
  /// producers come along, as far up as they may.
  Operation *readyAfter(Operation *op) const {
    Operation *after = nullptr;
    for (Value operand : op->getOperands()) {
      Operation *producer = inBody(operand.getDefiningOp());
      if (!producer)
        continue;
      after = later(after, freeRooted.contains(producer) ? floorOf(producer)
                                                         : producer);
    }
    return after;
  }

  /// The last op before free-rooted `op` that it may not move above: for a
  /// read, a write of its state or an op of unknown effects; for the others,
  /// their operands'.
  Operation *floorOf(Operation *op) const {
    if (FlatSymbolRefAttr state = stateOf(op)) {
      for (Operation *before = op->getPrevNode(); before;
           before = before->getPrevNode())
        if ((isa<AssignOp>(before) && stateOf(before) == state) ||
            (!isPure(before) && !stateOf(before)))
          return before;
      return nullptr;
    }
    return readyAfter(op);
  }

  /// After its value, every earlier read or assign of its state, and every
  /// use of a value read from it before (the old value, written over in
  /// place: reshapes of it are views of the same buffer).
  Operation *assignAfter(AssignOp assign) const {
    Operation *after = inBody(assign.getValue().getDefiningOp());
    FlatSymbolRefAttr state = assign.getBufferAttr();
    for (Operation *op = assign->getPrevNode(); op; op = op->getPrevNode()) {
      if (!isPure(op) && !stateOf(op) && !freeRooted.contains(op))
        after = later(after, op);
      if (stateOf(op) != state)
        continue;
      after = later(after, op);
      if (isa<ReadOp>(op))
        after = later(after, lastUse(op->getResult(0)));
    }
    return after;
  }

  /// The last op of the body that reads `value` or a reshape of it.
  Operation *lastUse(Value value) const {
    Operation *last = nullptr;
    for (Operation *user : value.getUsers()) {
      Operation *reader = inBody(user);
      last = later(last, reader);
      if (auto reshape = dyn_cast<ReshapeOp>(user))
        last = later(last, lastUse(reshape.getResult()));
    }
    return last;
  }

  Operation *firstUser(Operation *op) const {
    Operation *first = nullptr;
    for (Operation *user : op->getUsers())
      if (Operation *reader = inBody(user);
          reader && (!first || reader->isBeforeInBlock(first)))
        first = reader;
    return first;
  }

  /// Moves `op` up to right after `after` (the block's start for null);
  /// never down.
  void moveAfter(Operation *op, Operation *after) {
    if (after == op)
      return;
    if (!after) {
      if (op != &body.front())
        op->moveBefore(&body.front());
      return;
    }
    if (after->isBeforeInBlock(op) && after->getNextNode() != op)
      op->moveAfter(after);
  }

  Block &body;
  llvm::DenseSet<Operation *> updating, freeRooted, updates;
};

struct ScheduleStateUpdatesPass
    : public mixprec::impl::MixprecScheduleStateUpdatesBase<
          ScheduleStateUpdatesPass> {
  void runOnOperation() override {
    for (auto step : getOperation().getOps<func::FuncOp>())
      if (step->hasAttr(kOptimizerStepAttr) && step.getBody().hasOneBlock())
        Scheduler(step.getBody().front()).run();
  }
};

} // namespace
