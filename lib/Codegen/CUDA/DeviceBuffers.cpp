//===- DeviceBuffers.cpp - a host function's buffers on the GPU -----------===//
//
// Allocations become gpu.alloc, deallocations gpu.dealloc, constants are
// copied to the device; a host op left touching memory is an error.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECGPUDEVICEBUFFERS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// A device buffer of `type` in place of `op`'s result.
static Value allocateOnDevice(OpBuilder &b, Operation *op, MemRefType type) {
  return gpu::AllocOp::create(b, op->getLoc(), type, /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange(),
                              op->getOperands(),
                              /*symbolOperands=*/ValueRange(),
                              /*hostShared=*/false)
      .getMemref();
}

/// Frees `buffer` before each of `returns`.
static void freeBeforeReturns(ArrayRef<func::ReturnOp> returns, Value buffer) {
  for (func::ReturnOp ret : returns) {
    OpBuilder b(ret);
    gpu::DeallocOp::create(b, ret.getLoc(), /*asyncToken=*/Type(), ValueRange(),
                           buffer);
  }
}

/// Whether `op`, at the top level of a host function, leaves the memory
/// behind its buffers alone.
static bool isHostSafe(Operation *op) {
  return isa<gpu::LaunchOp, gpu::LaunchFuncOp, gpu::AllocOp, gpu::DeallocOp,
             gpu::MemcpyOp, func::ReturnOp, ViewLikeOpInterface,
             memref::ExtractStridedMetadataOp>(op) ||
         isMemoryEffectFree(op);
}

struct MixprecGpuDeviceBuffersPass
    : public mixprec::impl::MixprecGpuDeviceBuffersBase<
          MixprecGpuDeviceBuffersPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    SmallVector<Operation *> ops;
    for (Operation &op : function.getBody().getOps())
      ops.push_back(&op);
    SmallVector<func::ReturnOp> returns(function.getOps<func::ReturnOp>());
    for (Operation *op : ops) {
      OpBuilder b(op);
      if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
        auto type = cast<MemRefType>(op->getResult(0).getType());
        Value buffer = allocateOnDevice(b, op, type);
        op->getResult(0).replaceAllUsesWith(buffer);
        // An alloca is freed by returning; its device copy explicitly.
        if (isa<memref::AllocaOp>(op))
          freeBeforeReturns(returns, buffer);
        op->erase();
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(b, op->getLoc(), /*asyncToken=*/Type(),
                               ValueRange(), dealloc.getMemref());
        op->erase();
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        Value buffer = allocateOnDevice(b, op, global.getType());
        global.getResult().replaceAllUsesWith(buffer);
        b.setInsertionPointAfter(op);
        gpu::MemcpyOp::create(b, op->getLoc(), /*asyncToken=*/Type(),
                              ValueRange(), buffer, global.getResult());
        freeBeforeReturns(returns, buffer);
      }
    }
    for (Operation &op : function.getBody().getOps())
      if (!isHostSafe(&op)) {
        op.emitError("'") << op.getName()
                          << "' on the host would touch GPU memory; the CUDA "
                             "backend runs it in no kernel";
        return signalPassFailure();
      }
  }
};

} // namespace
