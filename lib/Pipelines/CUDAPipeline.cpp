//===- CUDAPipeline.cpp - mixprec to GPU kernels and host code ------------===//

#include "SharedStages.h"
#include "mixprec/Codegen/Passes.h"
#include "mixprec/Conversion/Passes.h"
#include "mixprec/Pipelines/Pipelines.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

namespace mixprec {

const char *ptxFeaturesFor(StringRef chip) {
  return llvm::StringSwitch<const char *>(chip)
      .Case("sm_80", "+ptx80")
      .Case("sm_90", "+ptx80")
      .Case("sm_90a", "+ptx80")
      .Default(nullptr);
}

/// libdevice's sqrtf rounds as __nvvm_reflect("__CUDA_PREC_SQRT") says, and
/// that is 0 (approximate) unless LLVM's nvvm-reflect-add option sets it.
/// The CPU rounds square roots correctly; so must the kernels
/// (docs/design.md §4).
static void requestCorrectlyRoundedSqrt() {
  static bool requested = false;
  if (requested)
    return;
  auto options = llvm::cl::getRegisteredOptions();
  auto option = options.find("nvvm-reflect-add");
  if (option == options.end())
    llvm::report_fatal_error("LLVM has no nvvm-reflect-add option");
  option->second->addOccurrence(0, "nvvm-reflect-add", "__CUDA_PREC_SQRT=1");
  requested = true;
}

void buildCUDAPipeline(OpPassManager &pm, const CUDAPipelineOptions &options) {
  requestCorrectlyRoundedSqrt();
  pm.addPass(createMixprecExposeState());
  pm.addPass(createMixprecCheckIndices());
  // The state stays on the device, updated in place: a call whose indices
  // fail must leave it as it was, so it computes the old values.
  pm.addNestedPass<func::FuncOp>(createMixprecGuardStateUpdates());
  pm.addPass(createConvertMixprecToLinalg());
  pm.addPass(createCanonicalizerPass());
  MixprecFuseElementwiseOptions fusion;
  fusion.narrowApart = options.narrowApart;
  pm.addNestedPass<func::FuncOp>(createMixprecFuseElementwise(fusion));
  // A long reduction runs in parallel chunks, not on a few threads, and
  // every loop nest with its parallel loops outside.
  MixprecParallelReductionsOptions reductions;
  reductions.parallelOutermost = true;
  pm.addNestedPass<func::FuncOp>(createMixprecParallelReductions(reductions));
  pm.addNestedPass<func::FuncOp>(createMixprecDistinctResults());
  // As on the CPU: caller-allocated results, temporaries freed inside.
  addBufferizationPasses(pm, /*foldLoopCarriedBuffers=*/true,
                         options.planMemory);
  pm.addPass(createMixprecGpuTensorCoreGemm());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  MixprecGpuMapToKernelsOptions mapping;
  mapping.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(createMixprecGpuMapToKernels(mapping));
  pm.addNestedPass<func::FuncOp>(createMixprecGpuMergeKernels());
  pm.addNestedPass<func::FuncOp>(createMixprecGpuDeviceBuffers());
  // 256 bytes, as cuMemAlloc aligns: every access of a kernel stays as
  // aligned as on a buffer of its own; a call's tensors start so in its
  // device frame too (runtime/cuda/GpuLaunchRuntime.cpp).
  addMemoryPlanPasses(pm, /*alignment=*/256, options.planMemory,
                      options.memoryReport, options.memoryReportJson,
                      /*tensorAlignment=*/256);
  // Kernels on whole buffers; repeated layers compile each distinct kernel
  // once.
  pm.addPass(createMixprecGpuOutlineKernels());
  // Every launch, copy and free of a function goes on one stream.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  for (const std::string &chip : options.chips) {
    const char *features = ptxFeaturesFor(chip);
    assert(features && "the chips are checked before the pipeline is built");
    GpuNVVMAttachTargetOptions target;
    target.chip = chip;
    target.features = features;
    target.moduleMatcher = "kernels";
    pm.addPass(createGpuNVVMAttachTarget(target));
  }
  // No ftz and no fast-math flags anywhere: Inf and NaN must survive
  // (docs/design.md §4).
  // Views moved into the kernels become address arithmetic.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createParallelForToNestedForsPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  // Kernels take whole buffers: one pointer each.
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  toBinary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  GpuToLLVMConversionPassOptions toLLVM;
  toLLVM.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(toLLVM));
  addHostToLLVMPasses(pm);
}

void registerCUDAPipeline() {
  // Registered by hand so that bad chips are an error, not a crash.
  registerPassPipeline(
      "mixprec-cuda-pipeline",
      "Lower mixprec to GPU kernels (PTX) and host code for the CUDA backend",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CUDAPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (options.chips.empty())
          return errorHandler("mixprec-cuda-pipeline needs chips=sm_80, "
                              "sm_90 or sm_90a");
        for (const std::string &chip : options.chips)
          if (!ptxFeaturesFor(chip))
            return errorHandler("mixprec-cuda-pipeline: unknown chip '" + chip +
                                "' (expected sm_80, sm_90 or sm_90a)");
        buildCUDAPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionHandler) {
        optionHandler(CUDAPipelineOptions());
      });
}

} // namespace mixprec
