//===- BufferLiveness.cpp - when a function's buffers are live ------------===//

#include "mixprec/Codegen/BufferLiveness.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

#include "llvm/ADT/SmallVector.h"

using namespace mlir;

namespace mixprec {

ProgramOrder::ProgramOrder(Operation *function) {
  int64_t next = 0;
  function->walk<WalkOrder::PreOrder>([&](Operation *op) {
    positions[op] = {next, next};
    ++next;
  });
  // Post-order visits an op after the ops of its regions.
  function->walk<WalkOrder::PostOrder>([&](Operation *op) {
    auto &range = positions[op];
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (!block.empty())
          range.second =
              std::max(range.second, positions[&block.back()].second);
  });
}

std::optional<LiveRange>
liveRange(Value buffer, const ProgramOrder &order,
          llvm::function_ref<bool(Operation *)> ignore) {
  Block *block = buffer.getParentBlock();
  Operation *definition = buffer.getDefiningOp();
  LiveRange range{
      definition ? order.begin(definition) : order.begin(&block->front()), 0};
  range.end = range.begin;
  SmallVector<Value> derived = {buffer};
  while (!derived.empty()) {
    Value value = derived.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (ignore && ignore(user))
        continue;
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        return std::nullopt;
      // Handed to a region (an iter_arg, a branch) or out of the block.
      if (user->hasTrait<OpTrait::IsTerminator>() ||
          isa<RegionBranchOpInterface>(user))
        return std::nullopt;
      range.end = std::max(range.end, order.end(ancestor));
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          derived.push_back(result);
    }
  }
  return range;
}

Value plannedWorkspace(Operation *function) {
  Value workspace;
  function->walk([&](Operation *op) {
    if (op->hasAttr(kWorkspaceAttr))
      workspace = op->getResult(0);
  });
  if (!workspace && function->hasAttr(kWorkspaceBytesAttr) &&
      function->getNumRegions() == 1 && !function->getRegion(0).empty())
    workspace = function->getRegion(0).front().getArguments().back();
  return workspace;
}

} // namespace mixprec
