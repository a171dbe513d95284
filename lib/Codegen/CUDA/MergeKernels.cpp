//===- MergeKernels.cpp - fewer launches for the same kernels -------------===//
//
// After --mixprec-gpu-map-to-kernels a host function launches one kernel
// per loop nest. Here the launches are scheduled again by what they read
// and write, and those that can run in one launch become one: kernels
// independent of each other side by side in one grid, and a kernel of one
// block after one it depends on, in the same block past a barrier.
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
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/BitVector.h"

#include <functional>

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECGPUMERGEKERNELS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// The buffers a top-level op of a host function reads and writes (a free
/// writes), each by the buffer it views. Distinct buffers -- allocations,
/// arguments -- never overlap: each argument of a CUDA call has a device
/// buffer of its own (runtime/cuda/GpuLaunchRuntime.cpp), and an output
/// updated in place is its input's argument.
struct Accesses {
  DenseSet<Value> reads, writes;
  /// Something unknown: the op keeps its place among all others.
  bool unknown = false;

  bool conflictsWith(const Accesses &later) const {
    if (unknown || later.unknown)
      return true;
    auto meets = [](const DenseSet<Value> &a, const DenseSet<Value> &b) {
      return llvm::any_of(a, [&](Value v) { return b.contains(v); });
    };
    return meets(writes, later.reads) || meets(writes, later.writes) ||
           meets(reads, later.writes);
  }
};

/// Adds the effects of `op`, nested in `scope`, to `accesses`; buffers
/// defined within `scope` are its own.
void addEffects(Operation *op, Operation *scope, Accesses &accesses) {
  auto interface = dyn_cast<MemoryEffectOpInterface>(op);
  if (!interface) {
    if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      accesses.unknown = true;
    return;
  }
  SmallVector<MemoryEffects::EffectInstance> effects;
  interface.getEffects(effects);
  for (const MemoryEffects::EffectInstance &effect : effects) {
    if (isa<MemoryEffects::Allocate>(effect.getEffect()))
      continue;
    Value value = effect.getValue();
    if (!value) {
      accesses.unknown = true;
      continue;
    }
    Value root = mixprec::viewedBuffer(value);
    if (scope->isAncestor(root.getParentRegion()->getParentOp()))
      continue;
    if (isa<MemoryEffects::Read>(effect.getEffect()))
      accesses.reads.insert(root);
    else
      accesses.writes.insert(root);
  }
}

Accesses accessesOf(Operation *op) {
  Accesses accesses;
  if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
    launch.getBody().walk(
        [&](Operation *inner) { addEffects(inner, launch, accesses); });
  } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
    // The kernel is elsewhere: it may read and write every buffer it takes.
    for (Value operand : launch.getKernelOperands())
      if (isa<MemRefType>(operand.getType())) {
        accesses.reads.insert(mixprec::viewedBuffer(operand));
        accesses.writes.insert(mixprec::viewedBuffer(operand));
      }
  } else if (!isa<memref::AllocOp, memref::AllocaOp>(op)) {
    addEffects(op, op, accesses);
  }
  return accesses;
}

/// A gpu.launch of a one-dimensional grid of one-dimensional blocks, of
/// constant sizes, whose threads never wait for each other: it can share a
/// launch. Its block count, or none.
std::optional<int64_t> mergeableBlocks(gpu::LaunchOp launch) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
      launch.getDynamicSharedMemorySize() || launch.hasClusterSize() ||
      launch.getNumWorkgroupAttributions() != 0 ||
      launch.getNumPrivateAttributions() != 0 ||
      !launch.getBody().hasOneBlock())
    return std::nullopt;
  for (Value one : {launch.getGridSizeY(), launch.getGridSizeZ(),
                    launch.getBlockSizeY(), launch.getBlockSizeZ()})
    if (getConstantIntValue(one) != 1)
      return std::nullopt;
  std::optional<int64_t> blocks = getConstantIntValue(launch.getGridSizeX());
  std::optional<int64_t> threads = getConstantIntValue(launch.getBlockSizeX());
  if (!blocks || !threads || *blocks < 1 || *threads < 1)
    return std::nullopt;
  // Barriers, shuffles and the like synchronize the threads of a block.
  Dialect *gpuDialect = launch->getDialect();
  WalkResult synchronizes = launch.getBody().walk([&](Operation *op) {
    return op->getDialect() == gpuDialect && !isa<gpu::TerminatorOp>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (synchronizes.wasInterrupted())
    return std::nullopt;
  return blocks;
}

/// One launch in place of several: `sideBySide` kernels each on blocks of
/// their own, or one block running `chain`'s kernels one after another
/// with a barrier before each that depends on one before it. Never both:
/// in a grid whose blocks branch on their index and their threads, LLVM
/// may thread those branches so that a warp reaches a barrier along two
/// paths, which an `.aligned` barrier forbids.
struct Merge {
  SmallVector<unsigned> sideBySide;
  SmallVector<unsigned> chain;
};

/// What `launch`'s kernel will take as parameters, at most: the values it
/// uses from above but index and vector constants (outlining moves those
/// into the kernel, and views onto the buffer they view).
SetVector<Value> parametersOf(Operation *launch) {
  SetVector<Value> used, parameters;
  getUsedValuesDefinedAbove(launch->getRegions(), used);
  for (Value value : used)
    if (!(matchPattern(value, m_Constant()) &&
          isa<IndexType, VectorType>(value.getType())))
      parameters.insert(value);
  return parameters;
}

class KernelScheduler {
public:
  KernelScheduler(func::FuncOp function, int64_t maxThreadCost,
                  int64_t maxParameterBytes)
      : function(function), maxThreadCost(maxThreadCost),
        maxParameterBytes(maxParameterBytes) {}
  void run();

private:
  void schedule(ArrayRef<Operation *> ops, SmallVector<Operation *> &order);
  /// Appends `op` to `order` after the host ops that define what it uses.
  void emit(Operation *op, SmallVector<Operation *> &order);
  /// Whether every launch `index` depends on is scheduled or in `within`.
  bool dependenciesIn(unsigned index, ArrayRef<unsigned> within) const;
  Merge gather();
  /// Adds launch `index`'s parameters to `merged` unless they would pass
  /// the bound.
  bool addParameters(unsigned index, DenseSet<Value> &merged) const;
  gpu::LaunchOp build(const Merge &merge);

  func::FuncOp function;
  int64_t maxThreadCost, maxParameterBytes;
  DenseSet<Operation *> emitted;
  // The launches of the part being scheduled.
  SmallVector<Operation *> launches;
  SmallVector<std::optional<int64_t>> blocks;
  SmallVector<int64_t> costs;
  SmallVector<SetVector<Value>> parameters;
  SmallVector<SmallVector<unsigned>> dependencies;
  llvm::BitVector scheduled;
};

void KernelScheduler::emit(Operation *op, SmallVector<Operation *> &order) {
  if (!emitted.insert(op).second)
    return;
  Block *body = &function.getBody().front();
  auto emitDefinition = [&](Value value) {
    Operation *definition = value.getDefiningOp();
    if (definition && definition->getBlock() == body)
      emit(definition, order);
  };
  for (Value operand : op->getOperands())
    emitDefinition(operand);
  op->walk([&](Operation *inner) {
    if (inner != op)
      for (Value operand : inner->getOperands())
        emitDefinition(operand);
  });
  order.push_back(op);
}

bool KernelScheduler::dependenciesIn(unsigned index,
                                     ArrayRef<unsigned> within) const {
  return llvm::all_of(dependencies[index], [&](unsigned dependency) {
    return scheduled[dependency] || llvm::is_contained(within, dependency);
  });
}

bool KernelScheduler::addParameters(unsigned index,
                                    DenseSet<Value> &merged) const {
  // Each is a bare pointer or a scalar: at most 8 bytes.
  size_t added = llvm::count_if(
      parameters[index], [&](Value value) { return !merged.contains(value); });
  if (int64_t(8 * (merged.size() + added)) > maxParameterBytes)
    return false;
  merged.insert(parameters[index].begin(), parameters[index].end());
  return true;
}

Merge KernelScheduler::gather() {
  SmallVector<unsigned> ready;
  for (unsigned i = 0; i < launches.size(); ++i)
    if (!scheduled[i] && blocks[i] && dependenciesIn(i, {}))
      ready.push_back(i);
  // One block runs the ready one-block kernels, then those that depend on
  // nothing else, as long as its threads do not run too long.
  Merge chained;
  int64_t cost = 0;
  DenseSet<Value> chainParameters;
  auto follow = [&](unsigned i) {
    if (blocks[i] != 1 || cost + costs[i] > maxThreadCost ||
        !addParameters(i, chainParameters))
      return false;
    chained.chain.push_back(i);
    cost += costs[i];
    return true;
  };
  for (unsigned i : ready)
    follow(i);
  size_t readyInChain = chained.chain.size();
  for (bool grew = true; grew;) {
    grew = false;
    for (unsigned i = 0; i < launches.size(); ++i)
      if (!scheduled[i] && !llvm::is_contained(chained.chain, i) &&
          dependenciesIn(i, chained.chain))
        grew |= follow(i);
  }
  // A chain only pays when kernels follow in it; otherwise all that is
  // ready goes side by side.
  if (chained.chain.size() > readyInChain)
    return chained;
  Merge merge;
  DenseSet<Value> sideBySideParameters;
  for (unsigned i : ready)
    if (addParameters(i, sideBySideParameters) || merge.sideBySide.empty())
      merge.sideBySide.push_back(i);
  return merge;
}

/// The block and thread counts of `launch`, a mergeable one.
std::pair<int64_t, int64_t> sizesOf(gpu::LaunchOp launch) {
  return {*getConstantIntValue(launch.getGridSizeX()),
          *getConstantIntValue(launch.getBlockSizeX())};
}

gpu::LaunchOp KernelScheduler::build(const Merge &merge) {
  SmallVector<unsigned> all(merge.sideBySide);
  all.append(merge.chain);
  llvm::sort(all);
  auto first = cast<gpu::LaunchOp>(launches[all.front()]);
  int64_t gridBlocks = merge.chain.empty() ? 0 : 1, blockThreads = 1;
  for (unsigned i : all) {
    auto [b, t] = sizesOf(cast<gpu::LaunchOp>(launches[i]));
    if (merge.chain.empty())
      gridBlocks += b;
    blockThreads = std::max(blockThreads, t);
  }

  Location loc = first.getLoc();
  OpBuilder b(first);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto merged = gpu::LaunchOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, gridBlocks), one, one,
      arith::ConstantIndexOp::create(b, loc, blockThreads), one, one,
      /*dynamicSharedMemorySize=*/Value(), /*asyncTokenType=*/Type(),
      /*asyncDependencies=*/ValueRange(), /*workgroupAttributions=*/{},
      /*privateAttributions=*/{}, /*clusterSizeX=*/Value(),
      /*clusterSizeY=*/Value(), /*clusterSizeZ=*/Value(), first.getModuleAttr(),
      first.getFunctionAttr());
  Block &body = merged.getBody().front();
  b.setInsertionPointToStart(&body);
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&body);
  // The body's index constants, each made once at its top.
  DenseMap<int64_t, Value> constants;
  auto index = [&](int64_t value) {
    Value &constant = constants[value];
    if (!constant) {
      OpBuilder atTop = OpBuilder::atBlockBegin(&body);
      constant = arith::ConstantIndexOp::create(atTop, loc, value);
    }
    return constant;
  };
  Value blockId = merged.getBlockIds().x, threadId = merged.getThreadIds().x;
  Value zero = index(0);
  one = index(1);

  // Runs `kernel`'s body as its block `kernelBlock` where `condition`
  // holds (always when null), at the builder's position.
  auto inline_ = [&](gpu::LaunchOp kernel, Value kernelBlock, Value condition) {
    auto [kernelBlocks, kernelThreads] = sizesOf(kernel);
    if (kernelThreads < blockThreads) {
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           threadId, index(kernelThreads));
      condition =
          condition
              ? arith::AndIOp::create(b, loc, condition, active).getResult()
              : active;
    }
    OpBuilder::InsertionGuard guard(b);
    if (condition) {
      auto branch = scf::IfOp::create(b, loc, condition);
      b.setInsertionPointToStart(branch.thenBlock());
    }
    IRMapping mapping;
    gpu::KernelDim3 ids[] = {kernel.getBlockIds(), kernel.getThreadIds()};
    Value xs[] = {kernelBlock, threadId};
    for (auto [dims, x] : llvm::zip(ids, xs)) {
      mapping.map(dims.x, x);
      mapping.map(dims.y, zero);
      mapping.map(dims.z, zero);
    }
    gpu::KernelDim3 sizes[] = {kernel.getGridSize(), kernel.getBlockSize()};
    int64_t counts[] = {kernelBlocks, kernelThreads};
    for (auto [dims, count] : llvm::zip(sizes, counts)) {
      mapping.map(dims.x, index(count));
      mapping.map(dims.y, one);
      mapping.map(dims.z, one);
    }
    for (Operation &op : kernel.getBody().front().without_terminator())
      b.clone(op, mapping);
  };

  // Side by side, a kernel's blocks are [starts[k], starts[k + 1]) of the
  // grid. A block finds its kernel by binary search on its index, the same
  // for all its threads: a few uniform branches, where a test per kernel
  // would cost every thread as many as there are kernels.
  SmallVector<int64_t> starts = {0};
  for (unsigned i : merge.sideBySide)
    starts.push_back(starts.back() +
                     sizesOf(cast<gpu::LaunchOp>(launches[i])).first);
  std::function<void(size_t, size_t)> dispatch = [&](size_t first,
                                                     size_t last) {
    if (last - first == 1) {
      Value kernelBlock =
          starts[first]
              ? arith::SubIOp::create(b, loc, blockId, index(starts[first]))
                    .getResult()
              : blockId;
      inline_(cast<gpu::LaunchOp>(launches[merge.sideBySide[first]]),
              kernelBlock, Value());
      return;
    }
    size_t middle = (first + last) / 2;
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        blockId, index(starts[middle]));
    auto branch = scf::IfOp::create(b, loc, below, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    dispatch(first, middle);
    b.setInsertionPointToStart(branch.elseBlock());
    dispatch(middle, last);
  };
  if (!merge.sideBySide.empty())
    dispatch(0, merge.sideBySide.size());
  // Since the last barrier: a kernel that depends on one of them waits.
  SmallVector<unsigned> unsynchronized;
  for (unsigned i : merge.chain) {
    if (llvm::any_of(dependencies[i], [&](unsigned dependency) {
          return llvm::is_contained(unsynchronized, dependency);
        })) {
      gpu::BarrierOp::create(b, loc);
      unsynchronized.clear();
    }
    inline_(cast<gpu::LaunchOp>(launches[i]), zero, Value());
    unsynchronized.push_back(i);
  }
  return merged;
}

void KernelScheduler::schedule(ArrayRef<Operation *> ops,
                               SmallVector<Operation *> &order) {
  launches.clear();
  SmallVector<Operation *> hostOps;
  for (Operation *op : ops)
    (isa<gpu::LaunchOp, gpu::LaunchFuncOp>(op) ? launches : hostOps)
        .push_back(op);
  unsigned count = launches.size();
  SmallVector<Accesses> accesses(count);
  blocks.assign(count, std::nullopt);
  costs.assign(count, 0);
  parameters.assign(count, {});
  dependencies.assign(count, {});
  scheduled = llvm::BitVector(count);
  for (unsigned i = 0; i < count; ++i) {
    accesses[i] = accessesOf(launches[i]);
    if (auto launch = dyn_cast<gpu::LaunchOp>(launches[i]))
      blocks[i] = mergeableBlocks(launch);
    costs[i] = mixprec::serialCost(launches[i]);
    parameters[i] = parametersOf(launches[i]);
    for (unsigned j = 0; j < i; ++j)
      if (accesses[j].conflictsWith(accesses[i]))
        dependencies[i].push_back(j);
  }

  for (unsigned done = 0; done < count;) {
    // A kernel that cannot share its launch goes as soon as it may: what
    // it enables may join the next merge.
    for (bool progress = true; progress;) {
      progress = false;
      for (unsigned i = 0; i < count; ++i)
        if (!scheduled[i] && !blocks[i] && dependenciesIn(i, {})) {
          emit(launches[i], order);
          scheduled.set(i);
          ++done;
          progress = true;
        }
    }
    if (done == count)
      break;
    Merge merge = gather();
    SmallVector<unsigned> members(merge.sideBySide);
    members.append(merge.chain);
    assert(!members.empty() && "kernels depend on each other in a cycle");
    if (members.size() == 1) {
      emit(launches[members.front()], order);
    } else {
      gpu::LaunchOp merged = build(merge);
      emit(merged, order);
      for (unsigned i : members)
        launches[i]->erase();
    }
    for (unsigned i : members)
      scheduled.set(i);
    done += members.size();
  }
  // Frees, and host ops nothing used, keep their order after the launches
  // (merged ones are gone).
  for (Operation *op : hostOps)
    emit(op, order);
}

/// Whether `op`, at the top level of a host function, is other than a
/// launch, a free or an op that only names a buffer or a value: it keeps
/// its place.
bool keepsItsPlace(Operation &op) {
  if (isa<gpu::LaunchOp, gpu::LaunchFuncOp, memref::DeallocOp>(op))
    return false;
  if (op.getNumRegions() != 0)
    return true;
  Accesses accesses = accessesOf(&op);
  return accesses.unknown || !accesses.reads.empty() ||
         !accesses.writes.empty();
}

void KernelScheduler::run() {
  Block &body = function.getBody().front();
  // The launches between two ops that keep their place are scheduled
  // apart.
  SmallVector<Operation *> order, part;
  for (Operation &op : body.without_terminator()) {
    if (!keepsItsPlace(op)) {
      part.push_back(&op);
      continue;
    }
    schedule(part, order);
    part.clear();
    emit(&op, order);
  }
  schedule(part, order);
  for (Operation *op : order)
    op->moveBefore(body.getTerminator());
}

struct MixprecGpuMergeKernelsPass
    : public mixprec::impl::MixprecGpuMergeKernelsBase<
          MixprecGpuMergeKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    if (!function.getBody().hasOneBlock()) {
      function.emitError("the CUDA backend needs straight-line host "
                         "functions (one block)");
      return signalPassFailure();
    }
    if (maxThreadCost <= 0) {
      function.emitError("max-thread-cost must be positive");
      return signalPassFailure();
    }
    KernelScheduler(function, maxThreadCost, maxParameterBytes).run();
  }
};

} // namespace
