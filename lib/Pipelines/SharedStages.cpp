//===- SharedStages.cpp - the stages both backends run --------------------===//

#include "SharedStages.h"
#include "mixprec/Codegen/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace mixprec {

/// Upstream's buffer-deallocation-pipeline, with a straight-line function's
/// frees split in linear time (--mixprec-split-deallocs) before the
/// simplification, whose alias queries are quadratic in their number.
static void addBufferDeallocationPasses(OpPassManager &pm) {
  memref::ExpandReallocPassOptions expandRealloc;
  expandRealloc.emitDeallocs = false;
  pm.addPass(memref::createExpandReallocPass(expandRealloc));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createMixprecSplitDeallocs());
  pm.addPass(bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
}

void addBufferizationPasses(OpPassManager &pm, bool foldLoopCarriedBuffers,
                            bool reuseBuffers) {
  // State is held once: each new value is written over the old.
  pm.addNestedPass<func::FuncOp>(createMixprecUpdateStateInPlace());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (foldLoopCarriedBuffers)
    // Fold the iter_arg, so the returned buffer is the allocation and
    // becomes the out-parameter.
    pm.addPass(createCanonicalizerPass());
  pm.addPass(createMixprecResultsInArguments());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  addBufferDeallocationPasses(pm);
  // Strided copies would otherwise call memrefCopy (MLIR's runner
  // utilities): make them loops.
  pm.addPass(createMixprecCopiesToLoops());
  if (reuseBuffers)
    pm.addNestedPass<func::FuncOp>(createMixprecReuseBuffers());
}

void addMemoryPlanPasses(OpPassManager &pm, int64_t alignment, bool share,
                         bool report, StringRef reportJson,
                         int64_t tensorAlignment) {
  MixprecPlanMemoryOptions plan;
  plan.alignment = alignment;
  plan.share = share;
  pm.addPass(createMixprecPlanMemory(plan));
  pm.addNestedPass<func::FuncOp>(createMixprecVerifyMemoryPlan());
  if (!report && reportJson.empty())
    return;
  MixprecMemoryReportOptions options;
  options.jsonFile = reportJson.str();
  options.tensorAlignment = tensorAlignment;
  pm.addPass(createMixprecMemoryReport(options));
}

void addHostToLLVMPasses(OpPassManager &pm) {
  // Subviews with dynamic offsets (partial tiles) expand to affine.apply.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // Calls unpack memref descriptors field by field; fold the unpacking of
  // descriptors the host just built (the host is not optimized by LLVM, see
  // mixprec-compile).
  pm.addNestedPass<LLVM::LLVMFuncOp>(createCanonicalizerPass());
}

} // namespace mixprec
