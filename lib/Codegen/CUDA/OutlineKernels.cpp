//===- OutlineKernels.cpp - kernels on whole buffers, each one once -------===//
//
// --mixprec-gpu-outline-kernels: every gpu.launch becomes a gpu.func of its
// kernel module, with views and constants moved inside so that it takes
// whole buffers (bare pointers) and scalars; structurally identical kernels
// are one kernel. Linear in the number of launches.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"
#include "mixprec/Codegen/StructuralDedup.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECGPUOUTLINEKERNELS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// Ops the kernel computes itself rather than take as arguments: static
/// views of a buffer, and index and vector constants (loop bounds, shapes).
static bool movesIntoKernel(Operation *op) {
  if (isa<ViewLikeOpInterface>(op))
    return op->getNumOperands() == 1;
  return op->getNumResults() == 1 && matchPattern(op, m_Constant()) &&
         isa<IndexType, VectorType>(op->getResult(0).getType());
}

/// Clones into `launch`'s body the ops that move into kernels and that it
/// uses from above, with those of their operands that move too; what they
/// use from above (the whole buffers of views) becomes a kernel argument.
static void moveIntoKernel(gpu::LaunchOp launch) {
  llvm::SetVector<Value> used;
  getUsedValuesDefinedAbove(launch.getBody(), used);
  // Operands before their users.
  llvm::SetVector<Operation *> moved;
  std::function<void(Value)> visit = [&](Value value) {
    Operation *op = value.getDefiningOp();
    if (!op || moved.contains(op) || !movesIntoKernel(op))
      return;
    for (Value operand : op->getOperands())
      visit(operand);
    moved.insert(op);
  };
  for (Value value : used)
    visit(value);
  OpBuilder builder = OpBuilder::atBlockBegin(&launch.getBody().front());
  IRMapping mapping;
  for (Operation *op : moved) {
    Operation *clone = builder.clone(*op, mapping);
    for (auto [result, cloned] :
         llvm::zip(op->getResults(), clone->getResults()))
      replaceAllUsesInRegionWith(result, cloned, launch.getBody());
  }
}

/// A buffer that crosses a launch as one pointer.
static bool isWholeBuffer(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return !memref ||
         (memref.hasStaticShape() && memref.getLayout().isIdentity());
}

class KernelOutliner {
public:
  explicit KernelOutliner(ModuleOp module) : module(module) {}

  LogicalResult run() {
    // Kernels made before (the tensor-core GEMMs) join the sets first.
    for (auto kernels : module.getOps<gpu::GPUModuleOp>())
      for (auto kernel :
           llvm::make_early_inc_range(kernels.getOps<gpu::GPUFuncOp>()))
        keepFirst(kernel);

    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches)
      outline(launch);

    for (auto kernels : module.getOps<gpu::GPUModuleOp>())
      for (auto kernel : kernels.getOps<gpu::GPUFuncOp>())
        for (BlockArgument argument : kernel.getArguments())
          if (!isWholeBuffer(argument.getType())) {
            return kernel.emitError("kernel argument ")
                   << argument.getArgNumber() << " of type "
                   << argument.getType()
                   << " is not a whole buffer (static shape, identity layout)";
          }

    if (!firstOf.empty())
      module.walk([&](gpu::LaunchFuncOp launch) {
        if (SymbolRefAttr first = firstOf.lookup(launch.getKernel()))
          launch.setKernelAttr(first);
      });
    return success();
  }

private:
  void outline(gpu::LaunchOp launch) {
    moveIntoKernel(launch);
    StringRef moduleName = launch.getModule().value_or("kernels");
    auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(moduleName);
    if (!kernels) {
      OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
      kernels = gpu::GPUModuleOp::create(builder, launch.getLoc(), moduleName);
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      builder.getUnitAttr());
    }
    auto parent = launch->getParentOfType<FunctionOpInterface>();
    std::string name =
        launch.getFunction()
            ? launch.getFunction()->str()
            : (parent ? parent.getName() : StringRef("kernel")).str();
    SmallVector<Value> operands;
    gpu::GPUFuncOp kernel = outlineKernelFunc(launch, name, operands);
    symbolsOf(kernels).insert(kernel);
    kernel = keepFirst(kernel);

    OpBuilder builder(launch);
    Value token = launch.getAsyncToken();
    auto launchFunc = gpu::LaunchFuncOp::create(
        builder, launch.getLoc(), kernel, launch.getGridSizeOperandValues(),
        launch.getBlockSizeOperandValues(), launch.getDynamicSharedMemorySize(),
        operands, token ? token.getType() : Type(),
        launch.getAsyncDependencies(), launch.getClusterSizeOperandValues());
    launch->replaceAllUsesWith(launchFunc);
    launch.erase();
  }

  SymbolTable &symbolsOf(gpu::GPUModuleOp kernels) {
    auto &table = symbolTables[kernels];
    if (!table)
      table = std::make_unique<SymbolTable>(kernels);
    return *table;
  }

  /// The first kernel of `kernel`'s module structurally equal to it; a copy
  /// is erased, and launches of it are redirected at the end.
  gpu::GPUFuncOp keepFirst(gpu::GPUFuncOp kernel) {
    auto kernels = kernel->getParentOfType<gpu::GPUModuleOp>();
    auto first = cast<gpu::GPUFuncOp>(
        setsOf[kernels].findOrInsert(kernel).getOperation());
    if (first == kernel)
      return kernel;
    auto fullName = [&](gpu::GPUFuncOp function) {
      return SymbolRefAttr::get(
          kernels.getNameAttr(),
          {FlatSymbolRefAttr::get(function.getNameAttr())});
    };
    firstOf[fullName(kernel)] = fullName(first);
    symbolsOf(kernels).erase(kernel);
    return first;
  }

  ModuleOp module;
  DenseMap<Operation *, std::unique_ptr<SymbolTable>> symbolTables;
  DenseMap<Operation *, mixprec::StructuralFunctionSet> setsOf;
  // Each copy's full name (@module::@kernel), to its first kernel's.
  DenseMap<SymbolRefAttr, SymbolRefAttr> firstOf;
};

class OutlineKernelsPass
    : public mixprec::impl::MixprecGpuOutlineKernelsBase<OutlineKernelsPass> {
public:
  void runOnOperation() override {
    if (failed(KernelOutliner(getOperation()).run()))
      signalPassFailure();
  }
};

} // namespace
