//===- Rematerialize.cpp - recompute forward values in the backward ------===//
//
// --mixprec-rematerialize: a value the forward computes and the backward
// reads is cloned right before its first backward use, from operands alive
// there, so that it is not kept in between: every cast whose operand stays
// alive anyway (AMP keeps one precision of each saved value), and, under a
// budget, the values that free the most bytes at the estimated peak per
// operation recomputed.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"
#include "mixprec/Transforms/ReportSupport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECREMATERIALIZE
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// Elements times element size; i1 takes a byte, as the backends store it.
int64_t bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isIntOrFloat())
    return 0;
  return tensor.getNumElements() *
         int64_t(llvm::divideCeil(
             tensor.getElementType().getIntOrFloatBitWidth(), 8));
}

/// The ops of a step's body that compute the loss (forward) and those that
/// depend on the loss seed or feed such an op without being forward
/// (backward). Program order does not split them: canonicalization hoists
/// the seed, and micro-batches interleave them.
struct Sweeps {
  llvm::DenseSet<Operation *> forward, backward;

  explicit Sweeps(Block &body) {
    SmallVector<Operation *> worklist;
    for (Operation &op : body)
      if (op.hasAttr(kLossSeedAttr))
        worklist.push_back(&op);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!backward.insert(op).second)
        continue;
      for (Operation *user : op->getUsers())
        if (Operation *inBody = body.findAncestorOpInBlock(*user))
          worklist.push_back(inBody);
    }
    for (Value returned : body.getTerminator()->getOperands())
      if (Operation *producer = returned.getDefiningOp())
        worklist.push_back(producer);
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (backward.contains(op) || !forward.insert(op).second)
        continue;
      for (Value operand : op->getOperands())
        if (Operation *producer = operand.getDefiningOp())
          worklist.push_back(producer);
    }
    worklist.assign(backward.begin(), backward.end());
    while (!worklist.empty())
      for (Value operand : worklist.pop_back_val()->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && !forward.contains(producer) &&
            backward.insert(producer).second)
          worklist.push_back(producer);
  }
};

/// Live bytes over the positions of a body, as differences: an interval
/// [begin, end] of `bytes` adds them at begin and takes them at end + 1.
struct LiveBytes {
  SmallVector<int64_t> delta;

  void add(int64_t begin, int64_t end, int64_t bytes) {
    if (end < begin)
      return;
    delta[begin] += bytes;
    delta[end + 1] -= bytes;
  }
  /// The most bytes live at once, and where.
  int64_t peak(int64_t *where = nullptr) const {
    int64_t live = 0, most = 0;
    for (size_t i = 0; i + 1 < delta.size(); ++i) {
      live += delta[i];
      if (live > most) {
        most = live;
        if (where)
          *where = int64_t(i);
      }
    }
    return most;
  }
};

/// The body's ops numbered in order and the bytes live at each: every
/// tensor an op of the body computes (state reads alias the state,
/// constants are data), from its definition to its last use. What the
/// estimate of the peak, and the choice of what to recompute, read.
class Schedule {
public:
  explicit Schedule(Block &body) : body(body) {
    for (Operation &op : body)
      position[&op] = int64_t(ops.size()), ops.push_back(&op);
    live.delta.assign(ops.size() + 1, 0);
    for (Operation *op : ops)
      if (!isa<ReadOp, ConstantOp>(op))
        for (Value result : op->getResults())
          live.add(position[op], lastUse(result), bytesOf(result.getType()));
  }

  int64_t positionOf(Operation *user) const {
    return position.lookup(body.findAncestorOpInBlock(*user));
  }

  /// The last position at which `value` is read, its definition's without
  /// a reader; the readers `ignore` accepts do not count.
  int64_t
  lastUse(Value value,
          llvm::function_ref<bool(Operation *)> ignore = nullptr) const {
    int64_t last =
        value.getDefiningOp() ? position.lookup(value.getDefiningOp()) : 0;
    for (Operation *user : value.getUsers()) {
      Operation *inBody = body.findAncestorOpInBlock(*user);
      if (inBody && !(ignore && ignore(inBody)))
        last = std::max(last, position.lookup(inBody));
    }
    return last;
  }

  /// Whether `value` needs no bytes of the body: an argument or what
  /// aliases the state or data.
  static bool isFree(Value value) {
    return isa<BlockArgument>(value) ||
           isa_and_nonnull<ReadOp, ConstantOp>(value.getDefiningOp());
  }

  Block &body;
  SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, int64_t> position;
  LiveBytes live;
};

/// Where `value`'s backward readers start: the first of them, or null.
Operation *firstBackwardUser(Value value, const Sweeps &sweeps,
                             const Schedule &schedule) {
  Operation *first = nullptr;
  for (Operation *user : value.getUsers()) {
    Operation *inBody = schedule.body.findAncestorOpInBlock(*user);
    if (!inBody || !sweeps.backward.contains(inBody))
      continue;
    if (!first || inBody->isBeforeInBlock(first))
      first = inBody;
  }
  return first;
}

class RematerializePass
    : public mixprec::impl::MixprecRematerializeBase<RematerializePass> {
public:
  using Base::Base;

  void runOnOperation() override {
    if (budget < 0) {
      getOperation().emitError("mixprec-rematerialize: budget must be >= 0, "
                               "got ")
          << int64_t(budget);
      return signalPassFailure();
    }
    for (auto step : getOperation().getOps<func::FuncOp>())
      if (step->hasAttr(kOptimizerStepAttr) && step.getBody().hasOneBlock())
        rematerialize(step.getBody().front());
  }

private:
  void rematerialize(Block &body);
  /// Clones `op` before the first backward reader of its result, which the
  /// backward reads from then on; `op` goes when nothing else reads it.
  void recompute(Operation *op, Operation *before, const Sweeps &sweeps);
  /// The recomputation that lowers the estimated peak at the least cost
  /// per byte, or null.
  Operation *cheapestAtPeak(const Sweeps &sweeps, const Schedule &schedule);
};

void RematerializePass::rematerialize(Block &body) {
  Sweeps sweeps(body);
  // Casts: the backward reads a cast of something it keeps anyway.
  {
    Schedule schedule(body);
    SmallVector<std::pair<Operation *, Operation *>> casts;
    for (Operation &op : body) {
      auto cast = dyn_cast<CastOp>(op);
      if (!cast || !sweeps.forward.contains(&op))
        continue;
      Operation *first = firstBackwardUser(cast.getResult(), sweeps, schedule);
      if (!first)
        continue;
      Value source = cast.getInput();
      bool alive = Schedule::isFree(source) ||
                   schedule.lastUse(source, [&](Operation *user) {
                     return user == cast;
                   }) >= schedule.position[first];
      if (alive)
        casts.push_back({cast, first});
    }
    for (auto [cast, first] : casts)
      recompute(cast, first, sweeps);
  }
  if (budget == 0)
    return;
  // Under the budget: the cheapest recomputation per byte at the peak,
  // again, until the estimate fits or nothing lowers it.
  while (true) {
    Schedule schedule(body);
    if (schedule.live.peak() <= budget)
      return;
    Operation *op = cheapestAtPeak(sweeps, schedule);
    if (!op)
      return;
    recompute(op, firstBackwardUser(op->getResult(0), sweeps, schedule),
              sweeps);
  }
}

void RematerializePass::recompute(Operation *op, Operation *before,
                                  const Sweeps &sweeps) {
  OpBuilder b(before);
  Operation *clone = b.clone(*op);
  clone->setAttr(kRecomputedAttr, b.getUnitAttr());
  Block *body = before->getBlock();
  op->getResult(0).replaceUsesWithIf(clone->getResult(0), [&](OpOperand &use) {
    return sweeps.backward.contains(
        body->findAncestorOpInBlock(*use.getOwner()));
  });
  if (op->use_empty())
    op->erase();
  if (report)
    llvm::errs() << "mixprec-rematerialize: recomputed " << clone->getName()
                 << " (" << locationOf(clone) << ", "
                 << bytesOf(clone->getResult(0).getType()) << " bytes, "
                 << cast<AdjointOpInterface>(clone).getRecomputeFlops()
                 << " operations)\n";
}

Operation *RematerializePass::cheapestAtPeak(const Sweeps &sweeps,
                                             const Schedule &schedule) {
  int64_t at = 0;
  int64_t peak = schedule.live.peak(&at);
  Operation *best = nullptr;
  double bestCost = 0.0;
  auto isBackward = [&](Operation *inBody) {
    return sweeps.backward.contains(inBody);
  };
  for (Operation *op : schedule.ops) {
    auto adjoint = dyn_cast<AdjointOpInterface>(op);
    // One tensor a forward op computes before the peak and the backward
    // reads after it.
    if (!adjoint || !sweeps.forward.contains(op) || op->getNumResults() != 1 ||
        !isPure(op) || Schedule::isFree(op->getResult(0)))
      continue;
    Value result = op->getResult(0);
    Operation *first = firstBackwardUser(result, sweeps, schedule);
    int64_t defined = schedule.position.lookup(op);
    if (!first || defined > at || schedule.position.lookup(first) <= at)
      continue;
    // After: the forward's readers keep the value, a clone lives from the
    // first backward reader to the last, the operands at least until it.
    int64_t clonePosition = schedule.position.lookup(first);
    int64_t forwardEnd = schedule.lastUse(result, isBackward);
    if (forwardEnd >= at)
      continue;
    LiveBytes after = schedule.live;
    int64_t bytes = bytesOf(result.getType());
    after.add(defined, schedule.lastUse(result), -bytes);
    if (forwardEnd > defined)
      after.add(defined, forwardEnd, bytes);
    after.add(clonePosition, schedule.lastUse(result), bytes);
    for (Value operand : op->getOperands())
      if (!Schedule::isFree(operand))
        after.add(schedule.lastUse(operand) + 1, clonePosition,
                  bytesOf(operand.getType()));
    int64_t lowered = peak - after.peak();
    if (lowered <= 0)
      continue;
    double cost = double(adjoint.getRecomputeFlops()) / double(lowered);
    if (!best || cost < bestCost) {
      best = op;
      bestCost = cost;
    }
  }
  return best;
}

} // namespace

int64_t mixprec::estimateTemporaryBytes(func::FuncOp step) {
  if (!step.getBody().hasOneBlock())
    return 0;
  return Schedule(step.getBody().front()).live.peak();
}
