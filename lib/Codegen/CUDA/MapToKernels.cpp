//===- MapToKernels.cpp - every loop and scalar computation on the GPU ----===//
//
// The host part of a CUDA function only allocates, views and launches;
// everything else -- parallel loop nests, sequential loops and the scalar
// code between them -- moves into gpu.launch ops here, in program order.
//
//===----------------------------------------------------------------------===//

#include "ThreadCost.h"

#include "mixprec/Codegen/Passes.h"
#include "mixprec/Codegen/ViewedBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <limits>

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECGPUMAPTOKERNELS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// Ops that stay on the host: they allocate, describe buffers or launch,
/// and never touch the memory behind a buffer.
static bool staysOnHost(Operation *op) {
  return op->hasTrait<OpTrait::ConstantLike>() ||
         isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
             memref::GetGlobalOp, ViewLikeOpInterface, memref::TransposeOp,
             memref::ReshapeOp, memref::MemorySpaceCastOp,
             memref::ExtractStridedMetadataOp, func::ReturnOp,
             gpu::LaunchFuncOp, gpu::LaunchOp>(op);
}

/// A run of ops that becomes one kernel: one scf.parallel, or consecutive
/// ops run by a single thread. A parallel one may start with the scalar ops
/// of the run before it (its prologue), which then has no kernel.
struct Segment {
  SmallVector<Operation *> ops;
  bool parallel = false;
  SmallVector<Operation *> prologue;
  bool inPrologue = false;
};

/// Whether each thread of `loop` can compute `ops` itself, instead of a
/// one-thread kernel before it: they only load scalars and compute on them
/// (the reads of a condition or a scale), all they compute is read by
/// `loop` alone, and `loop` writes none of the buffers they read.
bool computableByEachThread(ArrayRef<Operation *> ops, scf::ParallelOp loop) {
  Block &block = *loop->getBlock();
  DenseSet<Value> read;
  for (Operation *op : ops) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      read.insert(mixprec::viewedBuffer(load.getMemRef()));
    else if (op->getNumRegions() != 0 || !isPure(op))
      return false;
    for (Operation *user : op->getUsers()) {
      Operation *top = block.findAncestorOpInBlock(*user);
      if (top != loop.getOperation() && !llvm::is_contained(ops, top))
        return false;
    }
  }
  WalkResult writes = loop.walk([&](Operation *op) {
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return read.contains(mixprec::viewedBuffer(store.getMemRef()))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    // Any other write (a copy, an atomic) might reach them.
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    return effects.hasEffect<MemoryEffects::Write>() ||
                   effects.hasEffect<MemoryEffects::Free>()
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return !writes.wasInterrupted();
}

class KernelMapper {
public:
  KernelMapper(func::FuncOp function, int64_t blockSize)
      : function(function), blockSize(blockSize) {}

  LogicalResult run();

private:
  Value index(OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, function.getLoc(), value);
  }
  gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t blocks,
                             int64_t threads);
  /// Loads the device scalars `ops` read from outside into `mapping`, at
  /// the builder's position.
  void loadCapturedScalars(OpBuilder &b, ArrayRef<Operation *> ops,
                           IRMapping &mapping);
  LogicalResult mapParallel(scf::ParallelOp loop,
                            ArrayRef<Operation *> prologue);
  void mapSerial(ArrayRef<Operation *> ops);

  func::FuncOp function;
  int64_t blockSize;
  unsigned kernelCount = 0;
  /// Scalars computed in a kernel and read later: their device buffers.
  DenseMap<Value, Value> deviceScalars;
};

gpu::LaunchOp KernelMapper::createLaunch(OpBuilder &b, Location loc,
                                         int64_t blocks, int64_t threads) {
  Value one = index(b, 1);
  auto module = FlatSymbolRefAttr::get(b.getContext(), "kernels");
  auto name = FlatSymbolRefAttr::get(b.getContext(),
                                     function.getSymName().str() + "_kernel_" +
                                         std::to_string(kernelCount++));
  auto launch = gpu::LaunchOp::create(
      b, loc, index(b, blocks), one, one, index(b, threads), one, one,
      /*dynamicSharedMemorySize=*/Value(), /*asyncTokenType=*/Type(),
      /*asyncDependencies=*/ValueRange(), /*workgroupAttributions=*/{},
      /*privateAttributions=*/{}, /*clusterSizeX=*/Value(),
      /*clusterSizeY=*/Value(), /*clusterSizeZ=*/Value(), module, name);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  return launch;
}

void KernelMapper::loadCapturedScalars(OpBuilder &b, ArrayRef<Operation *> ops,
                                       IRMapping &mapping) {
  for (Operation *top : ops)
    top->walk([&](Operation *op) {
      for (Value operand : op->getOperands()) {
        auto buffer = deviceScalars.find(operand);
        if (buffer == deviceScalars.end() || mapping.contains(operand))
          continue;
        mapping.map(operand,
                    memref::LoadOp::create(b, op->getLoc(), buffer->second,
                                           ValueRange()));
      }
    });
}

LogicalResult KernelMapper::mapParallel(scf::ParallelOp loop,
                                        ArrayRef<Operation *> prologue) {
  if (loop.getNumResults() != 0)
    return loop.emitError("parallel loops with reductions cannot run on the "
                          "GPU yet");
  SmallVector<int64_t> lowers, steps, trips;
  for (auto [lower, upper, step] :
       llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    std::optional<int64_t> l = getConstantIntValue(lower),
                           u = getConstantIntValue(upper),
                           s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return loop.emitError("the CUDA backend needs static loop bounds "
                            "(static shapes)");
    lowers.push_back(*l);
    steps.push_back(*s);
    trips.push_back(*u > *l ? llvm::divideCeil(*u - *l, *s) : 0);
  }
  int64_t total = 1;
  for (int64_t trip : trips)
    total *= trip;
  if (total == 0)
    return success();
  if (llvm::divideCeil(total, blockSize) > std::numeric_limits<int32_t>::max())
    return loop.emitError("a loop of ")
           << total << " iterations needs more blocks than a grid has";

  Location loc = loop.getLoc();
  OpBuilder b(loop);
  gpu::LaunchOp launch =
      createLaunch(b, loc, llvm::divideCeil(total, blockSize), blockSize);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, launch.getBlockIds().x,
                            index(b, blockSize)),
      launch.getThreadIds().x);
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       linear, index(b, total));
  auto branch = scf::IfOp::create(b, loc, inside);
  b.setInsertionPointToStart(branch.thenBlock());

  IRMapping mapping;
  for (int64_t dim = trips.size() - 1; dim >= 0; --dim) {
    Value position =
        arith::RemUIOp::create(b, loc, linear, index(b, trips[dim]));
    linear = arith::DivUIOp::create(b, loc, linear, index(b, trips[dim]));
    Value iv = arith::AddIOp::create(
        b, loc, index(b, lowers[dim]),
        arith::MulIOp::create(b, loc, position, index(b, steps[dim])));
    mapping.map(loop.getInductionVars()[dim], iv);
  }
  SmallVector<Operation *> body(prologue);
  for (Operation &op : loop.getBody()->without_terminator())
    body.push_back(&op);
  loadCapturedScalars(b, body, mapping);
  for (Operation *op : body)
    b.clone(*op, mapping);
  return success();
}

void KernelMapper::mapSerial(ArrayRef<Operation *> ops) {
  Location loc = ops.front()->getLoc();
  // After the run's last op: the host ops among its ops (allocations,
  // views, constants) come first.
  OpBuilder b(ops.front()->getContext());
  b.setInsertionPointAfter(ops.back());
  // Scalars used after the run go through one-element device buffers.
  SmallVector<Value> escaping;
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *top =
                function.getBody().front().findAncestorOpInBlock(*user);
            return !llvm::is_contained(ops, top);
          }))
        escaping.push_back(result);
  // The function is one block (run() checks): freed before its return.
  OpBuilder atReturn(function.getBody().front().getTerminator());
  SmallVector<Value> buffers;
  for (Value value : escaping) {
    Value buffer =
        memref::AllocOp::create(b, loc, MemRefType::get({}, value.getType()));
    buffers.push_back(buffer);
    memref::DeallocOp::create(atReturn, loc, buffer);
  }

  gpu::LaunchOp launch = createLaunch(b, loc, 1, 1);
  b.setInsertionPointToStart(&launch.getBody().front());
  IRMapping mapping;
  loadCapturedScalars(b, ops, mapping);
  for (Operation *op : ops)
    b.clone(*op, mapping);
  // Later kernels read these (not this one: it computes them).
  for (auto [value, buffer] : llvm::zip(escaping, buffers)) {
    memref::StoreOp::create(b, loc, mapping.lookup(value), buffer,
                            ValueRange());
    deviceScalars[value] = buffer;
  }
}

LogicalResult KernelMapper::run() {
  if (function.isExternal())
    return success();
  if (!function.getBody().hasOneBlock())
    return function.emitError("the CUDA backend needs straight-line host "
                              "functions (one block)");
  SmallVector<Segment> segments;
  bool inRun = false;
  int64_t runCost = 0;
  for (Operation &op : function.getBody().front()) {
    if (staysOnHost(&op)) {
      // A run of scalar code goes on past what only allocates, views or
      // names a constant (its kernel follows them); a free or a launch
      // ends it.
      if (isa<memref::DeallocOp, gpu::LaunchFuncOp, gpu::LaunchOp>(op))
        inRun = false;
      continue;
    }
    // Device buffers are allocated and freed by the host, never in a kernel.
    WalkResult nested = op.walk([](Operation *inner) {
      if (isa<memref::AllocOp, memref::DeallocOp>(inner)) {
        inner->emitError("the CUDA backend allocates and frees buffers on "
                         "the host only, not under control flow");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (nested.wasInterrupted())
      return failure();
    if (isa<scf::ParallelOp>(op)) {
      segments.emplace_back();
      segments.back().ops.push_back(&op);
      segments.back().parallel = true;
      inRun = false;
      continue;
    }
    // A run stops growing before one thread would run too long.
    int64_t cost = mixprec::serialCost(&op);
    if (!inRun || runCost + cost > mixprec::kMaxThreadCost) {
      segments.emplace_back();
      runCost = 0;
    }
    segments.back().ops.push_back(&op);
    runCost += cost;
    inRun = true;
  }

  // Scalar reads right before a loop nest that alone uses them are done by
  // its threads: a launch fewer.
  for (size_t i = 0; i + 1 < segments.size(); ++i)
    if (!segments[i].parallel && segments[i + 1].parallel &&
        computableByEachThread(
            segments[i].ops,
            cast<scf::ParallelOp>(segments[i + 1].ops.front()))) {
      segments[i + 1].prologue = segments[i].ops;
      segments[i].inPrologue = true;
    }
  for (Segment &segment : segments) {
    if (segment.inPrologue)
      continue;
    if (!segment.parallel) {
      mapSerial(segment.ops);
      continue;
    }
    if (failed(mapParallel(cast<scf::ParallelOp>(segment.ops.front()),
                           segment.prologue)))
      return failure();
  }
  // Users come after their definitions: erase from the back.
  for (Segment &segment : llvm::reverse(segments))
    for (Operation *op : llvm::reverse(segment.ops)) {
      for (Value result : op->getResults())
        for (Operation *user : result.getUsers())
          if (staysOnHost(
                  function.getBody().front().findAncestorOpInBlock(*user)))
            return user->emitError(
                "the host needs a value computed on the GPU (a dynamic "
                "size?); the CUDA backend needs static shapes");
      op->erase();
    }
  return success();
}

struct MixprecGpuMapToKernelsPass
    : public mixprec::impl::MixprecGpuMapToKernelsBase<
          MixprecGpuMapToKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (blockSize <= 0 || blockSize > 1024) {
      getOperation().emitError("block-size must be in [1, 1024]");
      return signalPassFailure();
    }
    if (failed(KernelMapper(getOperation(), blockSize).run()))
      signalPassFailure();
  }
};

} // namespace
