//===- CUDAPipeline.cpp - mixprec to GPU kernels and host code ------------===//

#include "Deallocation.h"
#include "mixprec/Codegen/Passes.h"
#include "mixprec/Conversion/Passes.h"
#include "mixprec/Pipelines/Pipelines.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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
  pm.addPass(createConvertMixprecToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createMixprecFuseElementwise());
  pm.addNestedPass<func::FuncOp>(createMixprecDistinctResults());
  std::string pipeline =
      // As on the CPU: caller-allocated results, temporaries freed inside.
      "one-shot-bufferize{bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map},"
      "canonicalize,"
      "buffer-results-to-out-params{hoist-static-allocs "
      "modify-public-functions}," +
      std::string(kBufferDeallocation) +
      "mixprec-copies-to-loops,"
      "mixprec-gpu-tensor-core-gemm,"
      "func.func(convert-linalg-to-parallel-loops),"
      "func.func(mixprec-gpu-map-to-kernels{block-size=" +
      std::to_string(options.blockSize) +
      "}),"
      "func.func(mixprec-gpu-device-buffers),"
      // Kernels on whole buffers; repeated layers compile each distinct
      // kernel once.
      "mixprec-gpu-outline-kernels,"
      // Every launch, copy and free of a function goes on one stream.
      "func.func(gpu-async-region),";
  for (const std::string &chip : options.chips)
    pipeline += "nvvm-attach-target{chip=" + chip +
                " features=" + ptxFeaturesFor(chip) + " module=kernels},";
  // No ftz and no fast-math flags anywhere: Inf and NaN must survive
  // (docs/design.md §4).
  // Views moved into the kernels become address arithmetic.
  pipeline += "gpu.module(scf-parallel-for-to-nested-fors,"
              "expand-strided-metadata,lower-affine,"
              "convert-scf-to-cf,convert-nvgpu-to-nvvm,"
              // Kernels take whole buffers: one pointer each.
              "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true},"
              "canonicalize,cse,reconcile-unrealized-casts),"
              "gpu-module-to-binary{format=isa toolkit=" +
              options.toolkit.getValue() +
              "},"
              "lower-affine,convert-scf-to-cf,"
              "gpu-to-llvm{use-bare-pointers-for-kernels=true},"
              "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
              "convert-to-llvm,reconcile-unrealized-casts,"
              // As on the CPU: fold the host's descriptor unpacking.
              "llvm.func(canonicalize)";
  if (failed(parsePassPipeline(pipeline, pm)))
    llvm::report_fatal_error("invalid built-in CUDA pipeline");
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
