//===- GuardStateUpdates.cpp - no state change when indices fail ----------===//
//
// --mixprec-guard-state-updates: the index checks move to where their
// indices are known, and every new state value is selected against the old
// one on their verdict, so that a call with a label or token id out of range
// leaves the state it updates in place as it was.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECGUARDSTATEUPDATES
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// The argument that holds the old value of `function`'s result `result`
/// (the same `mixprec.abi_name` and type), or null.
BlockArgument stateArgumentOf(func::FuncOp function, unsigned result) {
  auto name = function.getResultAttrOfType<StringAttr>(result, kABINameAttr);
  if (!name)
    return nullptr;
  for (BlockArgument argument : function.getArguments())
    if (function.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                              kABINameAttr) == name &&
        argument.getType() == function.getResultTypes()[result])
      return argument;
  return nullptr;
}

/// The later of two ops of one block; null stands for the block's start.
Operation *later(Operation *a, Operation *b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return a->isBeforeInBlock(b) ? b : a;
}

/// The op of `block` that defines `value`, or null for a block argument.
Operation *definitionIn(Block &block, Value value) {
  Operation *definition = value.getDefiningOp();
  return definition ? block.findAncestorOpInBlock(*definition) : nullptr;
}

/// Moves each check of the chain ending in `report` to right after its
/// indices and the check before it; returns the last one.
IndexCheckOp hoistChecks(Block &block, Value report) {
  SmallVector<IndexCheckOp> chain;
  for (auto check = report.getDefiningOp<IndexCheckOp>(); check;
       check = check.getPrevious()
                   ? check.getPrevious().getDefiningOp<IndexCheckOp>()
                   : IndexCheckOp())
    chain.push_back(check);
  Operation *previous = nullptr;
  for (IndexCheckOp check : llvm::reverse(chain)) {
    if (check->getBlock() != &block)
      return nullptr;
    Operation *after = later(previous, definitionIn(block, check.getIndices()));
    if (after)
      check->moveAfter(after);
    else
      check->moveBefore(&block.front());
    previous = check;
  }
  return chain.empty() ? IndexCheckOp() : chain.front();
}

class GuardStateUpdatesPass
    : public mixprec::impl::MixprecGuardStateUpdatesBase<
          GuardStateUpdatesPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal() || function.getNumResults() == 0 ||
        !function.getBody().hasOneBlock())
      return;
    unsigned reportIndex = function.getNumResults() - 1;
    if (!function.getResultAttr(reportIndex, kIndexReportAttr))
      return;
    Block &body = function.getBody().front();
    if (!body.getOps<IndicesValidOp>().empty())
      return;
    Operation *terminator = body.getTerminator();
    IndexCheckOp last = hoistChecks(body, terminator->getOperand(reportIndex));
    if (!last)
      return;
    OpBuilder b(last->getContext());
    b.setInsertionPointAfter(last);
    Value valid = IndicesValidOp::create(b, last.getLoc(), last.getReport());
    Operation *verdict = valid.getDefiningOp();
    auto flag = RankedTensorType::get({}, b.getI1Type());
    // Each of loss scaling's conditions, and the verdict: one select each.
    llvm::DenseMap<Value, Value> both;
    auto withVerdict = [&](Value condition) {
      Value &combined = both[condition];
      if (combined)
        return combined;
      Location loc = condition.getLoc();
      b.setInsertionPointAfter(later(verdict, definitionIn(body, condition)));
      Value never = ConstantOp::create(
          b, loc, DenseElementsAttr::get(flag, b.getBoolAttr(false)));
      combined = SelectOp::create(b, loc, valid, condition, never);
      return combined;
    };

    for (unsigned result = 0; result < reportIndex; ++result) {
      BlockArgument old = stateArgumentOf(function, result);
      Value updated = terminator->getOperand(result);
      if (!old || updated == old)
        continue;
      // Loss scaling's guard of an optimizer write takes the verdict too.
      auto guarded = updated.getDefiningOp<SelectOp>();
      if (guarded && guarded.getFalseValue() == old &&
          guarded->getBlock() == &body && updated.hasOneUse() &&
          verdict->isBeforeInBlock(guarded)) {
        guarded.getConditionMutable().assign(
            withVerdict(guarded.getCondition()));
        continue;
      }
      Operation *after = later(verdict, definitionIn(body, updated));
      b.setInsertionPointAfter(after);
      terminator->setOperand(
          result, SelectOp::create(b, updated.getLoc(), valid, updated, old));
    }
  }
};

} // namespace
