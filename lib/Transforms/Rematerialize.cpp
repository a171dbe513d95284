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
#include "mixprec/Transforms/StaticBytes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <unordered_map>

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECREMATERIALIZE
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

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
    for (Operation *op : ops) {
      if (isa<ReadOp, ConstantOp>(op))
        continue;
      for (Value result : op->getResults())
        if (!isFusedAway(result))
          live.add(position[op], lastUse(result),
                   staticBytes(result.getType()).value_or(0));
      // A result written over an operand of its type that dies here
      // (--mixprec-reuse-buffers): elementwise ops, normalizations and
      // their gradients read element i where they write it; contractions
      // do not.
      if (isContraction(op) || op->getNumResults() != 1)
        continue;
      Type type = op->getResult(0).getType();
      for (Value operand : op->getOperands())
        if (operand.getType() == type && !isFree(operand) &&
            operand.getDefiningOp()->getBlock() == &body &&
            !isFusedAway(operand) && lastUse(operand) == position[op]) {
          live.add(position[op], position[op], -staticBytes(type).value_or(0));
          break;
        }
    }
  }

  /// Whether the backends compute `value` where it is read, holding no
  /// tensor of it (--mixprec-fuse-elementwise): a broadcast read by
  /// elementwise ops, an elementwise op's result that one elementwise op
  /// reads.
  static bool isFusedAway(Value value) {
    Operation *producer = value.getDefiningOp();
    auto readByElementwise = [&] {
      return llvm::all_of(value.getUsers(), [](Operation *user) {
        return user->hasTrait<ComputesElementwise>();
      });
    };
    if (isa<BroadcastOp>(producer))
      return readByElementwise();
    return producer->hasTrait<ComputesElementwise>() && value.hasOneUse() &&
           readByElementwise();
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

  /// Whether the state `read` reads is assigned after it and before
  /// position `at`.
  bool writtenBetween(ReadOp read, int64_t at) const {
    for (int64_t i = position.lookup(read) + 1; i < at; ++i)
      if (auto assign = dyn_cast<AssignOp>(ops[i]);
          assign && assign.getBufferAttr() == read.getStateAttr())
        return true;
    return false;
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
  /// Gives each reader but the first of a cheap value computed from the
  /// state, constants and arguments alone a copy of its own, made right
  /// before it.
  void copyToEachReader(Block &body, Sweeps &sweeps);
  /// Recomputes in the backward, from what it keeps anyway, the casts and
  /// the FP32 values of 16-bit operands that it reads.
  void recomputeFromKept(Block &body, Sweeps &sweeps);
  /// The forward ops that compute `value` from values that are free or live
  /// at `before` anyway, in program order; none when that takes more than
  /// `maxChain` ops, an op that cannot be repeated, or state that is
  /// written over before `before`. `leaves` gets the values the chain starts
  /// from.
  std::optional<SmallVector<Operation *>>
  chainFromKept(Value value, Operation *before, const Sweeps &sweeps,
                const Schedule &schedule, SmallVectorImpl<Value> &leaves,
                size_t maxChain = kMaxChain);
  /// Clones `chain` (which computes `values`) before `before`; the readers
  /// `replaced` accepts read the clones of `values`. Ops nothing reads any
  /// more go.
  Operation *clone(ArrayRef<Operation *> chain, ArrayRef<Value> values,
                   Operation *before,
                   llvm::function_ref<bool(OpOperand &)> replaced,
                   Sweeps &sweeps, bool backward);
  /// Makes each recomputed op that repeats an earlier one of the same run of
  /// recomputed ops (the same op on the same values) read the earlier one's
  /// result, and drops it: chains recomputed for values of one producer (a
  /// projection's q, k and v) compute it once. Across runs the earlier
  /// result would be held from one stretch of the backward to another.
  void mergeRepeatedRecomputations(Block &body, Sweeps &sweeps);
  /// A forward value the backward reads, and the ops that compute it again
  /// before its first backward reader.
  struct Recomputation {
    Value value;
    SmallVector<Operation *> chain;
    Operation *before;
  };
  /// Of the values live at the estimated peak and read again only after it,
  /// the one whose recomputation costs the fewest operations per byte it
  /// frees there, without raising the peak elsewhere; none if there is no
  /// such value.
  std::optional<Recomputation> cheapestAtPeak(const Sweeps &sweeps,
                                              const Schedule &schedule);

  /// Recomputations this far: each clone's `mixprec.recomputed`.
  int64_t recomputed = 0;
  /// The most ops a chain of casts recomputed from kept values has, and a
  /// chain recomputed under the budget.
  static constexpr size_t kMaxChain = 8, kMaxBudgetChain = 64;
};

/// Whether the result of `op` has more elements than its operands together.
bool expands(Operation *op) {
  auto elements = [](Value value) {
    auto type = dyn_cast<ShapedType>(value.getType());
    return type && type.hasStaticShape() ? type.getNumElements() : 0;
  };
  int64_t operands = 0;
  for (Value operand : op->getOperands())
    operands += elements(operand);
  return elements(op->getResult(0)) > operands;
}

/// Whether `read`'s state is assigned after it and before `reader`, both
/// in one block.
bool assignedBetween(ReadOp read, Operation *reader) {
  for (Operation *op = read->getNextNode(); op && op != reader;
       op = op->getNextNode())
    if (auto assign = dyn_cast<AssignOp>(op);
        assign && assign.getBufferAttr() == read.getStateAttr())
      return true;
  return false;
}

/// Whether `op` repeats what it computed when cloned: a forward op without
/// effects, of one result.
bool isRepeatable(Operation *op) {
  return isa<AdjointOpInterface>(op) && isPure(op) &&
         op->getNumResults() == 1 && !isa<ReadOp, ConstantOp>(op);
}

void RematerializePass::rematerialize(Block &body) {
  Sweeps sweeps(body);
  copyToEachReader(body, sweeps);
  recomputeFromKept(body, sweeps);
  if (budget == 0)
    return;
  // Under the budget: the cheapest recomputation per byte at the peak,
  // again, until the estimate fits or nothing lowers it.
  while (true) {
    Schedule schedule(body);
    if (schedule.live.peak() <= budget)
      return;
    std::optional<Recomputation> cheapest = cheapestAtPeak(sweeps, schedule);
    if (!cheapest)
      return;
    clone(
        cheapest->chain, cheapest->value, cheapest->before,
        [&](OpOperand &use) {
          return sweeps.backward.contains(
              body.findAncestorOpInBlock(*use.getOwner()));
        },
        sweeps, /*backward=*/true);
    mergeRepeatedRecomputations(body, sweeps);
  }
}

void RematerializePass::copyToEachReader(Block &body, Sweeps &sweeps) {
  for (Operation *op : llvm::to_vector(llvm::make_pointer_range(body))) {
    // A splat tensor is a scalar spread where it is read: a constant the
    // whole step would otherwise hold (the zeros of a masked gradient).
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
      if (!splat || splat.getNumElements() < 2)
        continue;
      auto scalarType = RankedTensorType::get({}, splat.getElementType());
      for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
        OpBuilder b(body.findAncestorOpInBlock(*use.getOwner()));
        Value scalar = ConstantOp::create(
            b, op->getLoc(),
            SplatElementsAttr::get(scalarType,
                                   splat.getSplatValue<Attribute>()));
        auto spread =
            BroadcastOp::create(b, op->getLoc(), constant.getType(), scalar);
        spread->setAttr(kRecomputedAttr, b.getI64IntegerAttr(recomputed++));
        use.set(spread);
      }
      op->erase();
      continue;
    }
    // One operation per element (a broadcast, a cast, a reshape) of free
    // operands: a constant spread over a batch, a weight's working copy.
    if (!isRepeatable(op) ||
        !(op->hasTrait<ComputesElementwise>() ||
          isa<BroadcastOp, ReshapeOp, TransposeOp>(op)) ||
        !llvm::all_of(op->getOperands(), Schedule::isFree))
      continue;
    Value value = op->getResult(0);
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        value.getUses(), [](OpOperand &use) { return &use; });
    llvm::sort(uses, [&](OpOperand *a, OpOperand *b) {
      return body.findAncestorOpInBlock(*a->getOwner())
          ->isBeforeInBlock(body.findAncestorOpInBlock(*b->getOwner()));
    });
    for (OpOperand *use : llvm::drop_begin(uses)) {
      Operation *reader = body.findAncestorOpInBlock(*use->getOwner());
      // A state's old value is not there to read once the new one is
      // written over it in place.
      if (llvm::any_of(op->getOperands(), [&](Value operand) {
            auto read = operand.getDefiningOp<ReadOp>();
            return read && assignedBetween(read, reader);
          }))
        continue;
      clone(
          op, value, reader,
          [&](OpOperand &candidate) { return &candidate == use; }, sweeps,
          sweeps.backward.contains(reader));
    }
  }
}

std::optional<SmallVector<Operation *>> RematerializePass::chainFromKept(
    Value value, Operation *before, const Sweeps &sweeps,
    const Schedule &schedule, SmallVectorImpl<Value> &leaves, size_t maxChain) {
  llvm::SetVector<Operation *> chain;
  SmallVector<Value> worklist = {value};
  int64_t at = schedule.position.lookup(before);
  while (!worklist.empty()) {
    Value next = worklist.pop_back_val();
    Operation *producer = next.getDefiningOp();
    bool kept = next != value && (Schedule::isFree(next) ||
                                  (schedule.lastUse(next) >= at &&
                                   schedule.position.lookup(producer) < at));
    if (kept) {
      // The state's old value is read where it still is (the new one is
      // written over it in place).
      if (auto read = dyn_cast_or_null<ReadOp>(producer);
          read && schedule.writtenBetween(read, at))
        return std::nullopt;
      leaves.push_back(next);
      continue;
    }
    if (!producer || !sweeps.forward.contains(producer) ||
        !isRepeatable(producer) || producer->getBlock() != &schedule.body)
      return std::nullopt;
    if (!chain.insert(producer))
      continue;
    if (chain.size() > maxChain)
      return std::nullopt;
    llvm::append_range(worklist, producer->getOperands());
  }
  SmallVector<Operation *> ordered = chain.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

void RematerializePass::recomputeFromKept(Block &body, Sweeps &sweeps) {
  auto isNarrow = [](Value value) {
    Type element = getElementTypeOrSelf(value.getType());
    return element.isF16() || element.isBF16();
  };
  auto readByBackward = [&](OpOperand &use) {
    return sweeps.backward.contains(
        body.findAncestorOpInBlock(*use.getOwner()));
  };
  for (Operation *op : llvm::to_vector(llvm::make_pointer_range(body))) {
    if (!sweeps.forward.contains(op) || !isRepeatable(op) || op->use_empty())
      continue;
    Value value = op->getResult(0);
    Schedule schedule(body);
    // The value and the casts of it that the backward reads (its 16-bit
    // copy for a contraction), recomputed together before the first of
    // their backward readers.
    SmallVector<Value> recomputed = {value};
    Operation *first = firstBackwardUser(value, sweeps, schedule);
    if (getElementTypeOrSelf(value.getType()).isF32())
      for (Operation *user : value.getUsers())
        if (auto cast = dyn_cast<CastOp>(user);
            cast && sweeps.forward.contains(cast) && isNarrow(cast))
          if (Operation *castFirst =
                  firstBackwardUser(cast.getResult(), sweeps, schedule)) {
            recomputed.push_back(cast.getResult());
            if (!first || castFirst->isBeforeInBlock(first))
              first = castFirst;
          }
    if (!first)
      continue;
    SmallVector<Value> leaves;
    std::optional<SmallVector<Operation *>> chain =
        chainFromKept(value, first, sweeps, schedule, leaves);
    if (!chain)
      continue;
    // A cast that elementwise and normalizing ops compute from what is
    // kept (a 16-bit copy of a layer norm); or an FP32 value, and its
    // 16-bit copies, that 16-bit values kept anyway determine (an FP32
    // softmax of a 16-bit attention product): the backward keeps each
    // value once, in the precision the forward computed it in. A
    // contraction is repeated only when its product is larger than its
    // operands (attention's scores, from queries and keys of a small head
    // dim): a few operations per byte freed.
    if (llvm::any_of(*chain, [](Operation *link) {
          return isContraction(link) && !expands(link);
        }))
      continue;
    bool castOfKept = isa<CastOp>(op);
    bool wideOfNarrow = getElementTypeOrSelf(value.getType()).isF32() &&
                        llvm::any_of(leaves, isNarrow) &&
                        llvm::all_of(leaves, [&](Value leaf) {
                          return Schedule::isFree(leaf) || isNarrow(leaf);
                        });
    if (castOfKept)
      recomputed.resize(1);
    else if (!wideOfNarrow)
      continue;
    for (Value copy : llvm::drop_begin(recomputed))
      chain->push_back(copy.getDefiningOp());
    clone(*chain, recomputed, first, readByBackward, sweeps,
          /*backward=*/true);
  }
}

Operation *
RematerializePass::clone(ArrayRef<Operation *> chain, ArrayRef<Value> values,
                         Operation *before,
                         llvm::function_ref<bool(OpOperand &)> replaced,
                         Sweeps &sweeps, bool backward) {
  OpBuilder b(before);
  IRMapping mapping;
  Operation *last = nullptr;
  for (Operation *op : chain) {
    last = b.clone(*op, mapping);
    last->setAttr(kRecomputedAttr, b.getI64IntegerAttr(recomputed++));
    (backward ? sweeps.backward : sweeps.forward).insert(last);
  }
  for (Value value : values) {
    Value copy = mapping.lookup(value);
    value.replaceUsesWithIf(copy, replaced);
    if (report)
      llvm::errs() << "mixprec-rematerialize: recomputed "
                   << copy.getDefiningOp()->getName() << " ("
                   << locationOf(copy.getDefiningOp()) << ", "
                   << staticBytes(copy.getType()).value_or(0) << " bytes) with "
                   << chain.size() << " ops\n";
  }
  for (Operation *op : llvm::reverse(chain))
    if (op->use_empty()) {
      sweeps.forward.erase(op);
      op->erase();
    }
  return last;
}

/// Whether `value` is a recomputed copy of free operands alone, which
/// copyToEachReader gives each reader on purpose (a weight's 16-bit copy).
bool isCopyOfFree(Value value) {
  Operation *producer = value.getDefiningOp();
  return producer && producer->hasAttr(kRecomputedAttr) &&
         llvm::all_of(producer->getOperands(), Schedule::isFree);
}

void RematerializePass::mergeRepeatedRecomputations(Block &body,
                                                    Sweeps &sweeps) {
  constexpr auto flags = OperationEquivalence::IgnoreLocations |
                         OperationEquivalence::IgnoreDiscardableAttrs;
  // Two copies of the same free operands read alike.
  auto sameValue = [&](Value a, Value b) {
    return success(
        a == b || (isCopyOfFree(a) && isCopyOfFree(b) &&
                   OperationEquivalence::isEquivalentTo(
                       a.getDefiningOp(), b.getDefiningOp(),
                       OperationEquivalence::exactValueMatch, nullptr, flags)));
  };
  auto hashValue = [](Value value) {
    if (!isCopyOfFree(value))
      return hash_value(value);
    return OperationEquivalence::computeHash(
        value.getDefiningOp(), OperationEquivalence::directHashValue,
        OperationEquivalence::ignoreHashValue, flags);
  };
  std::unordered_map<size_t, SmallVector<Operation *, 1>> seen;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (!op.hasAttr(kRecomputedAttr)) {
      seen.clear();
      continue;
    }
    if (!isRepeatable(&op) || isCopyOfFree(op.getResult(0)))
      continue;
    size_t hash = OperationEquivalence::computeHash(
        &op, hashValue, OperationEquivalence::ignoreHashValue, flags);
    SmallVector<Operation *, 1> &earlier = seen[hash];
    Operation *same = nullptr;
    for (Operation *candidate : earlier)
      if (OperationEquivalence::isEquivalentTo(candidate, &op, sameValue,
                                               nullptr, flags))
        same = candidate;
    if (!same) {
      earlier.push_back(&op);
      continue;
    }
    llvm::SetVector<Operation *> operands;
    for (Value operand : op.getOperands())
      if (Operation *producer = operand.getDefiningOp())
        operands.insert(producer);
    op.getResult(0).replaceAllUsesWith(same->getResult(0));
    sweeps.backward.erase(&op);
    op.erase();
    // Its copies of free operands, read by it alone.
    for (Operation *producer : operands)
      if (producer->use_empty() && isCopyOfFree(producer->getResult(0))) {
        sweeps.backward.erase(producer);
        producer->erase();
      }
  }
}

std::optional<RematerializePass::Recomputation>
RematerializePass::cheapestAtPeak(const Sweeps &sweeps,
                                  const Schedule &schedule) {
  int64_t at = 0;
  int64_t peak = schedule.live.peak(&at);
  std::optional<Recomputation> best;
  double bestCost = 0.0;
  auto isBackward = [&](Operation *inBody) {
    return sweeps.backward.contains(inBody);
  };
  for (Operation *op : schedule.ops) {
    // One tensor a forward op computes before the peak, that the forward
    // reads no more after it and the backward reads again.
    if (!sweeps.forward.contains(op) || !isRepeatable(op) ||
        Schedule::isFree(op->getResult(0)))
      continue;
    Value result = op->getResult(0);
    Operation *first = firstBackwardUser(result, sweeps, schedule);
    int64_t defined = schedule.position.lookup(op);
    if (!first || defined > at || schedule.position.lookup(first) <= at)
      continue;
    int64_t forwardEnd = schedule.lastUse(result, isBackward);
    if (forwardEnd >= at)
      continue;
    SmallVector<Value> leaves;
    std::optional<SmallVector<Operation *>> chain =
        chainFromKept(result, first, sweeps, schedule, leaves, kMaxBudgetChain);
    if (!chain)
      continue;
    // After: the forward's readers keep the value, the recomputed one lives
    // from the first backward reader to the last, and the chain's other
    // values briefly where it runs.
    int64_t clonePosition = schedule.position.lookup(first);
    int64_t bytes = staticBytes(result.getType()).value_or(0);
    LiveBytes after = schedule.live;
    after.add(defined, schedule.lastUse(result), -bytes);
    if (forwardEnd > defined)
      after.add(defined, forwardEnd, bytes);
    after.add(clonePosition, schedule.lastUse(result), bytes);
    // The chain runs in order: at each link its result and the chain's
    // values it reads are live.
    int64_t flops = 0, chainPeak = 0;
    llvm::SmallPtrSet<Operation *, 16> links(chain->begin(), chain->end());
    for (Operation *link : *chain) {
      flops += cast<AdjointOpInterface>(link).getRecomputeFlops();
      if (link == op)
        continue;
      int64_t linkBytes = staticBytes(link->getResult(0).getType()).value_or(0);
      for (Value operand : link->getOperands())
        if (links.contains(operand.getDefiningOp()) &&
            !Schedule::isFusedAway(operand))
          linkBytes += staticBytes(operand.getType()).value_or(0);
      chainPeak = std::max(chainPeak, linkBytes);
    }
    after.add(clonePosition, clonePosition, chainPeak);
    if (after.peak() > peak)
      continue;
    double cost = double(flops) / double(bytes);
    if (!best || cost < bestCost) {
      best = Recomputation{result, std::move(*chain), first};
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
