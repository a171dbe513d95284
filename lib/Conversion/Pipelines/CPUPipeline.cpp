//===- CPUPipeline.cpp - mixprec to the LLVM dialect for the CPU ----------===//

#include "mixprec/Conversion/Pipelines.h"
#include "mixprec/Conversion/Passes.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace mixprec {

void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options) {
  pm.addPass(createMixprecExposeState());
  pm.addPass(createConvertMixprecToLinalg());
  pm.addPass(createCanonicalizerPass());
  // Bufferization makes results caller-allocated out-parameters, so a
  // compiled function never returns memory its caller must free. No pass
  // below adds fast-math flags: Inf and NaN must survive (§4).
  std::string lowering =
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map},"
      "buffer-results-to-out-params{hoist-static-allocs "
      "modify-public-functions},"
      "buffer-deallocation-pipeline,"
      // Strided copies would otherwise call memrefCopy (MLIR's runner
      // utilities): make them loops.
      "mixprec-copies-to-loops,"
      "func.func(convert-linalg-to-loops),"
      "lower-affine,convert-scf-to-cf,"
      // __truncsfbf2 is missing from libgcc 12: expand bf16 truncation.
      "arith-expand{include-bf16=true},"
      "convert-math-to-libm,"
      "expand-strided-metadata,finalize-memref-to-llvm,"
      "convert-to-llvm,reconcile-unrealized-casts";
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
