//===- ExposeState.cpp - model state as arguments and results -------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECEXPOSESTATE
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// Rewrites `function` so that the state it reads and assigns flows through
/// its signature.
LogicalResult exposeState(func::FuncOp function,
                          ArrayRef<Operation *> declarations) {
  SmallVector<ReadOp> reads;
  SmallVector<AssignOp> assigns;
  SmallVector<RngStateOp> rngReads;
  function.walk([&](Operation *op) {
    if (auto read = dyn_cast<ReadOp>(op))
      reads.push_back(read);
    else if (auto assign = dyn_cast<AssignOp>(op))
      assigns.push_back(assign);
    else if (auto rng = dyn_cast<RngStateOp>(op))
      rngReads.push_back(rng);
  });
  if (reads.empty() && assigns.empty() && rngReads.empty())
    return success();
  for (Operation *op : llvm::concat<Operation *>(
           llvm::map_range(reads, [](ReadOp r) { return r.getOperation(); }),
           llvm::map_range(assigns,
                           [](AssignOp a) { return a.getOperation(); }),
           llvm::map_range(rngReads,
                           [](RngStateOp r) { return r.getOperation(); })))
    if (op->getBlock() != &function.getBody().front())
      return op->emitOpError("state is exposed only from the function's "
                             "entry block");

  Block &entry = function.getBody().front();
  MLIRContext *context = function.getContext();
  auto nameAttr = [&](StringRef name) {
    return NamedAttribute(StringAttr::get(context, kABINameAttr),
                          StringAttr::get(context, name));
  };

  // The function's own arguments keep their names in the ABI.
  for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
    if (!function.getArgAttr(i, kABINameAttr))
      function.setArgAttr(i, kABINameAttr,
                          StringAttr::get(context, "arg" + Twine(i)));

  // Arguments: the read state in declaration order, then the RNG state.
  llvm::DenseMap<StringAttr, SmallVector<ReadOp>> readsByState;
  for (ReadOp read : reads)
    readsByState[read.getStateAttr().getAttr()].push_back(read);
  unsigned insertAt = 0;
  for (Operation *decl : declarations) {
    StringAttr name = SymbolTable::getSymbolName(decl);
    auto it = readsByState.find(name);
    if (it == readsByState.end())
      continue;
    if (failed(function.insertArgument(
            insertAt, it->second.front().getType(),
            DictionaryAttr::get(context, {nameAttr(name)}), decl->getLoc())))
      return failure();
    for (ReadOp read : it->second) {
      read.replaceAllUsesWith(entry.getArgument(insertAt));
      read.erase();
    }
    ++insertAt;
  }
  if (!rngReads.empty()) {
    if (failed(function.insertArgument(
            insertAt, rngReads.front().getType(),
            DictionaryAttr::get(context, {nameAttr("rng_state")}),
            rngReads.front().getLoc())))
      return failure();
    for (RngStateOp rng : rngReads) {
      rng.replaceAllUsesWith(entry.getArgument(insertAt));
      rng.erase();
    }
  }

  // Results: the assigned buffers in declaration order.
  auto returnOp = cast<func::ReturnOp>(entry.getTerminator());
  SmallVector<Value> results(returnOp.getOperands());
  for (Operation *decl : declarations) {
    StringAttr name = SymbolTable::getSymbolName(decl);
    for (AssignOp assign : assigns) {
      if (assign.getBufferAttr().getAttr() != name)
        continue;
      unsigned index = results.size();
      results.push_back(assign.getValue());
      if (failed(function.insertResult(
              index, assign.getValue().getType(),
              DictionaryAttr::get(context, {nameAttr(name)}))))
        return failure();
    }
  }
  // Erased only now: the loop above visits every assign once per
  // declaration.
  for (AssignOp assign : assigns)
    assign.erase();
  OpBuilder builder(returnOp);
  func::ReturnOp::create(builder, returnOp.getLoc(), results);
  returnOp.erase();
  return success();
}

struct MixprecExposeStatePass
    : public mixprec::impl::MixprecExposeStateBase<MixprecExposeStatePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> declarations;
    for (Operation &op : module.getOps())
      if (isa<ParameterOp, BufferOp>(op))
        declarations.push_back(&op);

    SymbolTableCollection symbols;
    SymbolUserMap users(symbols, module);
    for (auto function : module.getOps<func::FuncOp>()) {
      // Parameters are arguments and results from now on.
      function->removeAttr(kOptimizerStepAttr);
      bool usesState = false;
      function.walk([&](Operation *op) {
        usesState |= isa<ReadOp, AssignOp, RngStateOp>(op);
      });
      if (!usesState)
        continue;
      for (Operation *user : users.getUsers(function))
        if (isa<func::CallOp>(user)) {
          user->emitOpError("calls @")
              << function.getSymName()
              << ", which uses model state; state is exposed only from "
                 "functions nobody calls";
          return signalPassFailure();
        }
      if (failed(exposeState(function, declarations)))
        return signalPassFailure();
    }
    for (Operation &op : llvm::make_early_inc_range(module.getOps()))
      if (isa<ParameterOp, BufferOp, TrainStepOp>(op))
        op.erase();
  }
};

} // namespace
