//===- CPUPipeline.cpp - mixprec to the LLVM dialect for the CPU ----------===//

#include "mixprec/Pipelines/Pipelines.h"
#include "Deallocation.h"
#include "mixprec/Codegen/Passes.h"
#include "mixprec/Conversion/Passes.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

namespace mixprec {

/// Bits of the vector registers LLVM uses for explicit vectors on `cpu`.
static unsigned vectorRegisterBits(StringRef cpu) {
  llvm::InitializeNativeTarget();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return 128;
  bool native = cpu.empty() || cpu == "native";
  std::string cpuName =
      native ? llvm::sys::getHostCPUName().str() : cpu.str();
  std::string features;
  if (native)
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features += (feature.second ? "+" : "-") + feature.first().str() + ",";
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, cpuName, features));
  if (!subtarget || !triple.isX86())
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
  pm.addPass(createConvertMixprecToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createMixprecDistinctResults());
  // Contractions become register tiles of vector.contract on tensors; the
  // rest of linalg stays and becomes plain loops after bufferization.
  if (options.vectorize) {
    RegisterTile tile = chooseRegisterTile(options.cpu);
    MixprecTileAndVectorizeOptions tiling;
    tiling.tileM = options.tileM > 0 ? options.tileM : tile.m;
    tiling.tileN = options.tileN > 0 ? options.tileN : tile.n;
    tiling.tileK = options.tileK > 0 ? options.tileK : tile.k;
    pm.addNestedPass<func::FuncOp>(createMixprecTileAndVectorize(tiling));
  }
  // Bufferization makes results caller-allocated out-parameters, so a
  // compiled function never returns memory its caller must free. No pass
  // below adds fast-math flags: Inf and NaN must survive
  // (docs/design.md §4).
  std::string lowering =
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map},";
  if (options.vectorize)
    // Tile loops carry their output buffer as an iter_arg: fold it, so the
    // returned buffer is the allocation and becomes the out-parameter.
    lowering += "canonicalize,";
  lowering +=
      "buffer-results-to-out-params{hoist-static-allocs "
      "modify-public-functions},";
  lowering += kBufferDeallocation;
  lowering +=
      // Strided copies would otherwise call memrefCopy (MLIR's runner
      // utilities): make them loops.
      "mixprec-copies-to-loops,"
      // LLVM optimizes each distinct loop nest once, in a small function.
      "mixprec-outline-loop-nests,"
      "func.func(convert-linalg-to-loops),";
  if (options.vectorize)
    // Masked ops of partial tiles (when not peeled) lose their masks; n-D
    // transfers unroll into 1-D ones (tiles are register sized).
    lowering += "func.func(lower-vector-mask,lower-vector-multi-reduction),"
                "convert-vector-to-scf{full-unroll=true},";
  lowering +=
      "lower-affine,convert-scf-to-cf,"
      // __truncsfbf2 is missing from libgcc 12: expand bf16 truncation.
      "arith-expand{include-bf16=true},"
      "convert-math-to-libm,";
  if (options.vectorize)
    // vector.contract -> vector.outerproduct -> broadcasts and
    // llvm.intr.fmuladd (the FMA the target has; its exact product is what
    // docs/design.md §4 asks of contractions; no fast-math flag).
    lowering += "convert-vector-to-llvm{vector-contract-lowering=outerproduct},";
  lowering +=
      // Subviews with dynamic offsets (partial tiles) expand to affine.apply.
      "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
      "convert-to-llvm,reconcile-unrealized-casts,"
      // Calls unpack memref descriptors field by field; fold the unpacking
      // of descriptors the host just built (the host is not optimized by
      // LLVM, see mixprec-compile).
      "llvm.func(canonicalize)";
  if (failed(parsePassPipeline(lowering, pm)))
    llvm::report_fatal_error("invalid built-in CPU pipeline");
}

void registerCPUPipeline() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "mixprec-cpu-pipeline",
      "Lower mixprec to the LLVM dialect for the CPU backend",
      buildCPUPipeline);
}

} // namespace mixprec
