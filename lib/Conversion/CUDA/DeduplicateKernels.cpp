//===- DeduplicateKernels.cpp - one kernel per distinct kernel ------------===//
//
// --mixprec-gpu-deduplicate-kernels: launches of structurally identical
// kernels launch one of them; the copies are erased before they are lowered
// and assembled.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Conversion/StructuralDedup.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECGPUDEDUPLICATEKERNELS
#include "mixprec/Conversion/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

class DeduplicateKernelsPass
    : public mixprec::impl::MixprecGpuDeduplicateKernelsBase<
          DeduplicateKernelsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Each copy's full name (@module::@kernel), to its first kernel's.
    DenseMap<SymbolRefAttr, SymbolRefAttr> firstOf;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      mixprec::StructuralFunctionSet kernels;
      SmallVector<gpu::GPUFuncOp> copies;
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>()) {
        auto first = cast<gpu::GPUFuncOp>(
            kernels.findOrInsert(kernel).getOperation());
        if (first == kernel)
          continue;
        auto name = [&](gpu::GPUFuncOp function) {
          return SymbolRefAttr::get(
              gpuModule.getNameAttr(),
              {FlatSymbolRefAttr::get(function.getNameAttr())});
        };
        firstOf[name(kernel)] = name(first);
        copies.push_back(kernel);
      }
      for (gpu::GPUFuncOp copy : copies)
        copy.erase();
    }
    if (firstOf.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (SymbolRefAttr first = firstOf.lookup(launch.getKernel()))
        launch.setKernelAttr(first);
    });
  }
};

} // namespace
