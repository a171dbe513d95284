//===- ResultsInArguments.cpp - results whose buffer is an argument's -----===//
//
// --mixprec-results-in-arguments: after One-Shot Bufferize, a result of an
// entry function that returns one of its arguments' buffers is dropped and
// recorded in `mixprec.results_in_arguments`; a new state value must be one.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/BitVector.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECRESULTSINARGUMENTS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// The argument whose buffer `value` is (through casts), or null.
BlockArgument argumentBufferOf(Value value) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || !argument.getOwner()->isEntryBlock() ||
      !isa<func::FuncOp>(argument.getOwner()->getParentOp()))
    return nullptr;
  return argument;
}

/// The argument of `function` named as result `result` is, or -1.
int64_t stateArgumentIndex(func::FuncOp function, unsigned result) {
  auto name =
      function.getResultAttrOfType<StringAttr>(result, mixprec::kABINameAttr);
  for (unsigned i = 0; name && i < function.getNumArguments(); ++i)
    if (function.getArgAttrOfType<StringAttr>(i, mixprec::kABINameAttr) == name)
      return i;
  return -1;
}

class ResultsInArgumentsPass
    : public mixprec::impl::MixprecResultsInArgumentsBase<
          ResultsInArgumentsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      if (function.isPublic() &&
          SymbolTable::symbolKnownUseEmpty(function, module) &&
          failed(dropResultsInArguments(function)))
        return signalPassFailure();
      for (unsigned i = 0; i < function.getNumArguments(); ++i)
        function.removeArgAttr(i, mixprec::kABINameAttr);
      for (unsigned i = 0; i < function.getNumResults(); ++i)
        function.removeResultAttr(
            i, StringAttr::get(&getContext(), mixprec::kABINameAttr));
    }
  }

private:
  LogicalResult dropResultsInArguments(func::FuncOp function) {
    SmallVector<func::ReturnOp> returns;
    function.walk([&](func::ReturnOp ret) { returns.push_back(ret); });
    if (returns.size() != 1)
      return success();
    func::ReturnOp ret = returns.front();
    SmallVector<int64_t> homes;
    llvm::BitVector dropped(function.getNumResults());
    for (OpOperand &operand : ret->getOpOperands()) {
      unsigned result = operand.getOperandNumber();
      BlockArgument home = argumentBufferOf(operand.get());
      int64_t expected = stateArgumentIndex(function, result);
      if (expected >= 0 && (!home || home.getArgNumber() != expected))
        return function.emitError("mixprec-results-in-arguments: the new "
                                  "value of '")
               << function
                      .getResultAttrOfType<StringAttr>(result,
                                                       mixprec::kABINameAttr)
                      .getValue()
               << "' is not written in place into its argument (run "
                  "--mixprec-update-state-in-place before bufferizing)";
      homes.push_back(home ? int64_t(home.getArgNumber()) : -1);
      if (home)
        dropped.set(result);
    }
    ret->eraseOperands(dropped);
    if (failed(function.eraseResults(dropped)))
      return failure();
    function->setAttr(kResultsInArgumentsAttr,
                      DenseI64ArrayAttr::get(&getContext(), homes));
    return success();
  }
};

} // namespace
