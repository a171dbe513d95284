//===- PlanMemory.cpp - a function's temporaries in one planned workspace -===//
//
// --mixprec-plan-memory: lifetimes in program order and offsets packed
// greedily by size, so that a function holds what is live at once rather
// than every temporary it makes.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/BufferLiveness.h"
#include "mixprec/Codegen/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECPLANMEMORY
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// A buffer the plan places: its allocation, size and lifetime.
struct Buffer {
  Operation *allocation;
  int64_t bytes;
  LiveRange live;
  int64_t offset = 0;
};

bool isDeallocation(Operation *op) {
  return isa<memref::DeallocOp, gpu::DeallocOp>(op);
}

/// The buffer `op` allocates when the plan can place it: a static shape
/// with the identity layout, allocated synchronously. `onDevice` picks
/// gpu.alloc over memref.alloc.
Value plannableAllocation(Operation *op, bool onDevice) {
  Value buffer;
  if (auto alloc = dyn_cast<memref::AllocOp>(op); alloc && !onDevice)
    buffer = alloc.getMemref();
  if (auto alloc = dyn_cast<gpu::AllocOp>(op);
      alloc && onDevice && !alloc.getAsyncToken() && !alloc.getHostShared())
    buffer = alloc.getMemref();
  if (!buffer || op->getNumOperands() != 0)
    return nullptr;
  auto type = cast<MemRefType>(buffer.getType());
  if (!type.getLayout().isIdentity() || !staticBytes(type))
    return nullptr;
  return buffer;
}

/// Lowest multiple of `alignment` at or after `value`.
int64_t alignTo(int64_t value, int64_t alignment) {
  return int64_t(llvm::alignTo(uint64_t(value), uint64_t(alignment)));
}

class PlanMemoryPass
    : public mixprec::impl::MixprecPlanMemoryBase<PlanMemoryPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    if (alignment < 1 || !llvm::isPowerOf2_64(uint64_t(alignment))) {
      getOperation().emitError("mixprec-plan-memory: alignment must be a "
                               "power of two, got ")
          << int64_t(alignment);
      return signalPassFailure();
    }
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (!function.isExternal())
        plan(function);
  }

private:
  void plan(func::FuncOp function);
  /// Places `buffers` and returns the workspace's size.
  int64_t pack(MutableArrayRef<Buffer *> buffers);
  /// The workspace of `function`: a new last argument when only the
  /// library calls it, else allocated on entry and freed at each return.
  Value createWorkspace(func::FuncOp function, int64_t bytes, bool onDevice);
};

void PlanMemoryPass::plan(func::FuncOp function) {
  bool onDevice = false;
  function.walk([&](gpu::AllocOp) { onDevice = true; });
  SmallVector<Value> candidates;
  function.walk([&](Operation *op) {
    if (Value buffer = plannableAllocation(op, onDevice))
      candidates.push_back(buffer);
  });
  if (candidates.empty())
    return;

  ProgramOrder order(function);
  llvm::DenseMap<Value, Buffer> buffers;
  for (Value buffer : candidates)
    if (std::optional<LiveRange> live =
            liveRange(buffer, order, isDeallocation))
      buffers[buffer] = {buffer.getDefiningOp(), *staticBytes(buffer.getType()),
                         *live};

  SmallVector<Buffer *> placed;
  for (Value buffer : candidates)
    if (auto it = buffers.find(buffer); it != buffers.end())
      placed.push_back(&it->second);
  if (placed.empty())
    return;
  int64_t size = pack(placed);

  // The most bytes live at once: events sorted by position, a start
  // before an end at the same position.
  SmallVector<std::pair<int64_t, int64_t>> events;
  for (Buffer *buffer : placed) {
    events.push_back({2 * buffer->live.begin, buffer->bytes});
    events.push_back({2 * buffer->live.end + 1, -buffer->bytes});
  }
  llvm::sort(events);
  int64_t live = 0, mostLive = 0;
  for (auto [position, delta] : events)
    mostLive = std::max(mostLive, live += delta);

  MLIRContext *context = function.getContext();
  Value workspace = createWorkspace(function, size, onDevice);
  for (Buffer *buffer : placed) {
    Operation *allocation = buffer->allocation;
    OpBuilder b(allocation);
    Location loc = allocation->getLoc();
    Value offset = arith::ConstantIndexOp::create(b, loc, buffer->offset);
    Value view = memref::ViewOp::create(b, loc, allocation->getResultTypes(),
                                        workspace, offset, ValueRange());
    for (Operation *user :
         llvm::make_early_inc_range(allocation->getResult(0).getUsers()))
      if (isDeallocation(user))
        user->erase();
    allocation->getResult(0).replaceAllUsesWith(view);
    allocation->erase();
  }
  auto i64 = IntegerType::get(context, 64);
  function->setAttr(kWorkspaceBytesAttr, IntegerAttr::get(i64, size));
  function->setAttr(kLiveBytesAttr, IntegerAttr::get(i64, mostLive));
}

int64_t PlanMemoryPass::pack(MutableArrayRef<Buffer *> buffers) {
  // Largest first; ties in program order (each buffer begins at its own
  // allocation), so the plan is deterministic.
  llvm::sort(buffers, [](const Buffer *a, const Buffer *b) {
    if (a->bytes != b->bytes)
      return a->bytes > b->bytes;
    return a->live.begin < b->live.begin;
  });
  int64_t size = 0;
  SmallVector<Buffer *> placed, overlapping;
  for (Buffer *buffer : buffers) {
    overlapping.clear();
    for (Buffer *other : placed)
      if (!share || other->live.overlaps(buffer->live))
        overlapping.push_back(other);
    llvm::sort(overlapping, [](const Buffer *a, const Buffer *b) {
      return a->offset < b->offset;
    });
    // The lowest gap that fits.
    int64_t offset = 0;
    for (Buffer *other : overlapping) {
      if (offset + buffer->bytes <= other->offset)
        break;
      offset =
          std::max(offset, alignTo(other->offset + other->bytes, alignment));
    }
    buffer->offset = offset;
    size = std::max(size, offset + buffer->bytes);
    placed.push_back(buffer);
  }
  return alignTo(size, alignment);
}

Value PlanMemoryPass::createWorkspace(func::FuncOp function, int64_t bytes,
                                      bool onDevice) {
  MLIRContext *context = function.getContext();
  auto type = MemRefType::get({bytes}, IntegerType::get(context, 8));
  ModuleOp module = getOperation();
  if (function.isPublic() &&
      SymbolTable::symbolKnownUseEmpty(function, module)) {
    unsigned index = function.getNumArguments();
    if (failed(function.insertArgument(index, type, DictionaryAttr(),
                                       function.getLoc())))
      llvm_unreachable("a function without a body was skipped");
    return function.getArgument(index);
  }
  OpBuilder b = OpBuilder::atBlockBegin(&function.getBody().front());
  Location loc = function.getLoc();
  Value workspace;
  if (onDevice)
    workspace = gpu::AllocOp::create(b, loc, type, /*asyncToken=*/Type(),
                                     ValueRange(), ValueRange(), ValueRange(),
                                     /*hostShared=*/false)
                    .getMemref();
  else
    workspace =
        memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(alignment));
  workspace.getDefiningOp()->setAttr(kWorkspaceAttr, UnitAttr::get(context));
  function.walk([&](func::ReturnOp ret) {
    OpBuilder atReturn(ret);
    if (onDevice)
      gpu::DeallocOp::create(atReturn, ret.getLoc(), /*asyncToken=*/Type(),
                             ValueRange(), workspace);
    else
      memref::DeallocOp::create(atReturn, ret.getLoc(), workspace);
  });
  return workspace;
}

} // namespace
