//===- OutlineLoopNests.cpp - one function per distinct loop nest ---------===//
//
// --mixprec-outline-loop-nests: each loop nest of a bufferized function
// becomes a call of a private no_inline function, one function for every
// structurally identical nest, so that the code LLVM optimizes grows with the
// distinct nests of a model rather than with its depth.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"
#include "mixprec/Codegen/StructuralDedup.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECOUTLINELOOPNESTS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

static bool isLoopNest(Operation *op) {
  return isa<LoopLikeOpInterface, linalg::LinalgOp>(op);
}

/// Index and vector constants stay static inside the outlined function
/// (loop bounds, shapes, splats); other constants become arguments so that
/// nests differing only in a scalar share one function.
static bool clonedIntoFunction(Value value) {
  return isa<IndexType, VectorType>(value.getType()) &&
         matchPattern(value, m_Constant());
}

class Outliner {
public:
  Outliner(ModuleOp module, bool share)
      : module(module), symbols(module), share(share) {}

  /// Outlines every loop nest of `block` and of the regions of its other
  /// ops.
  void outlineNestsIn(Block &block, StringRef prefix) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isLoopNest(&op)) {
        outline(&op, prefix);
        continue;
      }
      for (Region &region : op.getRegions())
        for (Block &nested : region)
          outlineNestsIn(nested, prefix);
    }
  }

private:
  void outline(Operation *nest, StringRef prefix) {
    llvm::SetVector<Value> inputs(nest->getOperands().begin(),
                                  nest->getOperands().end());
    getUsedValuesDefinedAbove(nest->getRegions(), inputs);
    SmallVector<Value> arguments, constants;
    for (Value input : inputs)
      (clonedIntoFunction(input) ? constants : arguments).push_back(input);

    Location loc = nest->getLoc();
    OpBuilder builder(module.getContext());
    auto function = func::FuncOp::create(
        builder, loc, (prefix + "_loops_" + Twine(counter++)).str(),
        builder.getFunctionType(ValueRange(arguments).getTypes(),
                                nest->getResultTypes()));
    function.setPrivate();
    // LLVM would inline a function called once back into its caller; the
    // LLVM dialect takes function attributes it has no name for from
    // `passthrough`, which func-to-llvm carries over.
    function->setAttr("passthrough",
                      builder.getArrayAttr(builder.getStringAttr("noinline")));
    Block *entry = function.addEntryBlock();
    IRMapping mapping;
    mapping.map(arguments, entry->getArguments());
    builder.setInsertionPointToStart(entry);
    for (Value constant : constants)
      builder.clone(*constant.getDefiningOp(), mapping);
    Operation *clone = builder.clone(*nest, mapping);
    func::ReturnOp::create(builder, loc, clone->getResults());
    symbols.insert(function);

    func::FuncOp callee = function;
    if (share) {
      callee = cast<func::FuncOp>(shared.findOrInsert(function).getOperation());
      if (callee != function)
        symbols.erase(function);
    }
    builder.setInsertionPoint(nest);
    auto call = func::CallOp::create(builder, loc, callee, arguments);
    nest->replaceAllUsesWith(call.getResults());
    nest->erase();
  }

  ModuleOp module;
  SymbolTable symbols;
  bool share;
  mixprec::StructuralFunctionSet shared;
  unsigned counter = 0;
};

class OutlineLoopNestsPass
    : public mixprec::impl::MixprecOutlineLoopNestsBase<OutlineLoopNestsPass> {
public:
  using MixprecOutlineLoopNestsBase::MixprecOutlineLoopNestsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> functions;
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isExternal())
        functions.push_back(function);
    Outliner outliner(module, share);
    for (func::FuncOp function : functions)
      for (Block &block : function.getBody())
        outliner.outlineNestsIn(block, function.getSymName());
  }
};

} // namespace
