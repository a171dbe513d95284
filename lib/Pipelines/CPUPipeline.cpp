//===- CPUPipeline.cpp - mixprec to the LLVM dialect for the CPU ----------===//

#include "SharedStages.h"
#include "mixprec/Codegen/Passes.h"
#include "mixprec/Conversion/Passes.h"
#include "mixprec/Pipelines/Pipelines.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace mixprec {

/// The subtarget of `cpu` (native: this machine's, with its features) on
/// the default triple, or null off x86.
static std::unique_ptr<llvm::MCSubtargetInfo> subtargetFor(StringRef cpu) {
  llvm::InitializeNativeTarget();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target || !triple.isX86())
    return nullptr;
  bool native = cpu.empty() || cpu == "native";
  std::string cpuName = native ? llvm::sys::getHostCPUName().str() : cpu.str();
  std::string features;
  if (native)
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features += (feature.second ? "+" : "-") + feature.first().str() + ",";
  return std::unique_ptr<llvm::MCSubtargetInfo>(
      target->createMCSubtargetInfo(triple, cpuName, features));
}

/// Bits of the vector registers LLVM uses for explicit vectors on `cpu`.
static unsigned vectorRegisterBits(StringRef cpu) {
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget = subtargetFor(cpu);
  if (!subtarget)
    return 128;
  // CPUs tuned for 256-bit vectors split 512-bit ones.
  if (subtarget->checkFeatures("+avx512f") &&
      !subtarget->checkFeatures("+prefer-256-bit"))
    return 512;
  if (subtarget->checkFeatures("+avx"))
    return 256;
  return 128;
}

RegisterTile chooseRegisterTile(StringRef cpu) {
  switch (vectorRegisterBits(cpu)) {
  case 512:
    return {8, 32, 1};
  case 256:
    return {6, 16, 1};
  default:
    return {6, 8, 1};
  }
}

void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options) {
  pm.addPass(createMixprecExposeState());
  pm.addPass(createMixprecCheckIndices());
  // State is updated in place, the caller's own: a call whose indices fail
  // must leave it as it was, so it computes the old values. (On CUDA the
  // device's copy is updated, and the caller's only when the call
  // succeeds.)
  pm.addNestedPass<func::FuncOp>(createMixprecGuardStateUpdates());
  ConvertMixprecToLinalgOptions lowering;
  lowering.scatterEmbeddingGradients = true;
  lowering.convolutionsAsGemms = options.convGemms;
  pm.addPass(createConvertMixprecToLinalg(lowering));
  pm.addPass(createCanonicalizerPass());
  // Broadcasts, casts and elementwise chains are computed where they are
  // read, with no buffer in between.
  MixprecFuseElementwiseOptions fusion;
  fusion.narrowApart = options.narrowApart;
  pm.addNestedPass<func::FuncOp>(createMixprecFuseElementwise(fusion));
  // Contractions read transposed operands where they are (the runtime's
  // GEMMs take strides).
  if (options.vectorize && options.libraryContractions)
    pm.addNestedPass<func::FuncOp>(createMixprecTransposesIntoContractions());
  // Long reductions in the chunks the CUDA backend sums in, so that both
  // compute the same bits.
  pm.addNestedPass<func::FuncOp>(createMixprecParallelReductions());
  // Vector lanes reduce different outputs, each in its order.
  pm.addNestedPass<func::FuncOp>(createMixprecReduceAcrossLanes());
  // ... read in blocks transposed in registers rather than with gathers.
  if (options.vectorize)
    pm.addNestedPass<func::FuncOp>(createMixprecTransposeLaneBlocks());
  pm.addNestedPass<func::FuncOp>(createMixprecDistinctResults());
  // Contractions become register tiles of vector.contract on tensors; the
  // rest of linalg stays and becomes plain loops after bufferization.
  if (options.vectorize) {
    RegisterTile tile = chooseRegisterTile(options.cpu);
    MixprecTileAndVectorizeOptions tiling;
    tiling.tileM = options.tileM > 0 ? options.tileM : tile.m;
    tiling.tileN = options.tileN > 0 ? options.tileN : tile.n;
    tiling.tileK = options.tileK > 0 ? options.tileK : tile.k;
    tiling.libraryContractions = options.libraryContractions;
    pm.addNestedPass<func::FuncOp>(createMixprecTileAndVectorize(tiling));
    pm.addNestedPass<func::FuncOp>(createMixprecEpilogueInTiles());
  }
  // No pass below adds fast-math flags: Inf and NaN must survive
  // (docs/design.md §4).
  // Tile loops carry their output buffer as an iter_arg.
  addBufferizationPasses(pm, /*foldLoopCarriedBuffers=*/options.vectorize,
                         options.planMemory);
  // The contractions left untiled above go to the runtime's GEMMs; before
  // the memory plan, which then holds no f32 result the runtime rounds to
  // bf16 itself.
  if (options.vectorize && options.libraryContractions) {
    MixprecContractionsToCallsOptions calls;
    calls.bf16DotProducts = options.bf16DotProducts;
    pm.addPass(createMixprecContractionsToCalls(calls));
  }
  // 64 bytes: a cache line, the widest vector load. A call's tensors are
  // its caller's, as they are.
  addMemoryPlanPasses(pm, /*alignment=*/64, options.planMemory,
                      options.memoryReport, options.memoryReportJson,
                      /*tensorAlignment=*/1);
  // Inner loops over contiguous elements vectorize as one long loop.
  pm.addNestedPass<func::FuncOp>(createMixprecCollapseInnerLoops());
  // LLVM optimizes each distinct loop nest once, in a small function.
  pm.addPass(createMixprecOutlineLoopNests());
  // Outer parallel loops run in chunks on the model's threads.
  pm.addPass(createMixprecParallelLoopNests());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  if (options.vectorize) {
    // Masked ops of partial tiles (when not peeled) lose their masks; n-D
    // transfers unroll into 1-D ones (tiles are register sized).
    OpPassManager &functions = pm.nest<func::FuncOp>();
    functions.addPass(vector::createLowerVectorMaskPass());
    functions.addPass(vector::createLowerVectorMultiReductionPass());
    pm.addPass(createConvertVectorToSCFPass(
        VectorTransferToSCFOptions().enableFullUnroll()));
  }
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // exp and erf as arithmetic, so that their loops vectorize (the other
  // math functions call libm); maximum and minimum as LLVM's intrinsics,
  // before arith-expand-ops makes them selects.
  if (options.expandMath)
    pm.addPass(createMixprecExpandMath());
  // __truncsfbf2 is missing from libgcc 12: expand bf16 truncation.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createConvertMathToLibmPass());
  if (options.vectorize) {
    // vector.contract -> vector.outerproduct -> broadcasts and
    // llvm.intr.fmuladd (the FMA the target has; its exact product is what
    // docs/design.md §4 asks of contractions; no fast-math flag).
    ConvertVectorToLLVMPassOptions vectorToLLVM;
    vectorToLLVM.vectorContractLowering =
        vector::VectorContractLowering::OuterProduct;
    pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  }
  addHostToLLVMPasses(pm);
  // Masks vectorize with byte loads.
  pm.addPass(createMixprecBooleansAsBytes());
  pm.addPass(createMixprecLaunchParallelNests());
}

void registerCPUPipeline() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "mixprec-cpu-pipeline",
      "Lower mixprec to the LLVM dialect for the CPU backend",
      buildCPUPipeline);
}

} // namespace mixprec
