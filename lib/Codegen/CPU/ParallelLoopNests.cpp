//===- ParallelLoopNests.cpp - outlined loop nests on the model's threads -===//
//
// Two passes, either side of the lowering to LLVM:
//
// --mixprec-parallel-loop-nests (after --mixprec-outline-loop-nests): an
//   outlined nest of one linalg op whose first loop is parallel, and which
//   does enough work, becomes loops at once; its function takes the outer
//   loop's range [begin, end) as two more arguments (its callers pass the
//   whole range) and is marked with the loop's extent and a chunk size.
//
// --mixprec-launch-parallel-nests (on the LLVM dialect): each call of a
//   marked function becomes mixprec_cpu_parallel_for(chunk, arguments,
//   extent, chunk size), where `chunk` is a new function that loads the
//   arguments from an array of 8-byte slots and calls the nest on one
//   range: the runtime runs the chunks on the model's threads.
//
// Each iteration of a parallel loop writes its own elements (every output
// is indexed by the loop), so the chunks, and the thread count, change no
// bit.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECPARALLELLOOPNESTS
#define GEN_PASS_DEF_MIXPRECLAUNCHPARALLELNESTS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

using mixprec::kParallelChunkAttr;
using mixprec::kParallelExtentAttr;
constexpr StringLiteral kParallelFor = "mixprec_cpu_parallel_for";

/// The one op of an outlined nest `function` besides constants.
Operation *onlyNest(func::FuncOp function) {
  if (!function.isPrivate() || function.isExternal() ||
      function.getNumResults() != 0 || !function.getBody().hasOneBlock())
    return nullptr;
  Operation *nest = nullptr;
  for (Operation &op : function.getBody().front()) {
    if (isa<arith::ConstantOp, func::ReturnOp>(op))
      continue;
    if (nest)
      return nullptr;
    nest = &op;
  }
  return nest;
}

/// Whether the first loop of linalg op `nest` can be split: static ranges,
/// parallel, and every output indexed by it.
bool isSplittable(linalg::LinalgOp nest) {
  if (!nest.hasPureBufferSemantics() || nest.getNumLoops() == 0 ||
      nest.getIteratorTypesArray()[0] != utils::IteratorType::parallel ||
      llvm::any_of(nest.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  AffineExpr first = getAffineDimExpr(0, nest.getContext());
  for (OpOperand &init : nest.getDpsInitsMutable())
    if (!llvm::is_contained(nest.getMatchingIndexingMap(&init).getResults(),
                            first))
      return false;
  return true;
}

/// Whether scf.forall `nest` (independent iterations by definition) can be
/// split: on buffers, static bounds, its first loop from 0 in steps of 1.
bool isSplittable(scf::ForallOp nest) {
  return nest.getNumResults() == 0 &&
         !ShapedType::isDynamicShape(nest.getStaticLowerBound()) &&
         !ShapedType::isDynamicShape(nest.getStaticUpperBound()) &&
         !ShapedType::isDynamicShape(nest.getStaticStep()) &&
         nest.getStaticLowerBound()[0] == 0 && nest.getStaticStep()[0] == 1;
}

/// The ops `block` runs, counting those of static scf.for loops once per
/// iteration.
int64_t workOf(Block &block) {
  int64_t work = 0;
  for (Operation &op : block) {
    ++work;
    int64_t trips = 1;
    if (auto loop = dyn_cast<scf::ForOp>(op))
      if (std::optional<APInt> count = loop.getStaticTripCount())
        trips = count->getSExtValue();
    for (Region &region : op.getRegions())
      for (Block &inner : region)
        work += trips * workOf(inner);
  }
  return work;
}

struct ParallelLoopNestsPass
    : public mixprec::impl::MixprecParallelLoopNestsBase<
          ParallelLoopNestsPass> {
  using MixprecParallelLoopNestsBase::MixprecParallelLoopNestsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (chunkWork < 1) {
      module.emitError("mixprec-parallel-loop-nests: chunk-work must be "
                       "positive");
      return signalPassFailure();
    }
    // Every call, by callee, in one walk (a walk per nest would be
    // quadratic in the model's size).
    llvm::DenseMap<StringAttr, SmallVector<func::CallOp>> callsOf;
    module.walk([&](func::CallOp call) {
      callsOf[call.getCalleeAttr().getAttr()].push_back(call);
    });
    for (auto function : module.getOps<func::FuncOp>()) {
      Operation *nest = onlyNest(function);
      SmallVector<func::CallOp> calls =
          callsOf.lookup(function.getSymNameAttr());
      if (auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(nest)) {
        if (isSplittable(linalgOp))
          splitLinalg(function, linalgOp, calls);
      } else if (auto forall = dyn_cast_or_null<scf::ForallOp>(nest)) {
        if (isSplittable(forall))
          splitForall(function, forall, calls);
      }
    }
  }

  /// Iterations of the outer loop per chunk, or none when `extent`
  /// iterations of `perIteration` work make one chunk or less.
  std::optional<int64_t> chunkSize(int64_t extent, int64_t perIteration) {
    int64_t chunk =
        std::max<int64_t>(1, chunkWork / std::max<int64_t>(perIteration, 1));
    if (extent <= chunk)
      return std::nullopt;
    return chunk;
  }

  void splitLinalg(func::FuncOp function, linalg::LinalgOp nest,
                   ArrayRef<func::CallOp> calls) {
    SmallVector<int64_t> ranges = nest.getStaticLoopRanges();
    // The work of one outer iteration: its elements times the body's ops.
    int64_t perIteration =
        int64_t(nest->getRegion(0).front().getOperations().size());
    for (int64_t range : ArrayRef<int64_t>(ranges).drop_front())
      perIteration *= range;
    std::optional<int64_t> chunk = chunkSize(ranges[0], perIteration);
    if (!chunk)
      return;

    IRRewriter rewriter(nest->getContext());
    rewriter.setInsertionPoint(nest);
    FailureOr<linalg::LinalgLoops> loops =
        linalg::linalgOpToLoops(rewriter, nest);
    if (failed(loops) || loops->empty())
      return;
    auto outer = dyn_cast<scf::ForOp>(loops->front());
    if (!outer)
      return;
    rewriter.eraseOp(nest);
    takeRange(function, outer, ranges[0], *chunk, calls);
  }

  void splitForall(func::FuncOp function, scf::ForallOp nest,
                   ArrayRef<func::CallOp> calls) {
    ArrayRef<int64_t> lower = nest.getStaticLowerBound();
    ArrayRef<int64_t> upper = nest.getStaticUpperBound();
    ArrayRef<int64_t> steps = nest.getStaticStep();
    // The work of one outer iteration: the body's times the inner loops'
    // iterations.
    int64_t perIteration = workOf(*nest.getBody());
    for (unsigned dim = 1; dim < upper.size(); ++dim)
      perIteration *= llvm::divideCeil(upper[dim] - lower[dim], steps[dim]);
    std::optional<int64_t> chunk = chunkSize(upper[0], perIteration);
    if (!chunk)
      return;

    IRRewriter rewriter(nest->getContext());
    SmallVector<Operation *> loops;
    if (failed(scf::forallToForLoop(rewriter, nest, &loops)) || loops.empty())
      return;
    takeRange(function, cast<scf::ForOp>(loops.front()), upper[0], *chunk,
              calls);
  }

  /// `function`'s outer loop `outer`, of `extent` iterations, runs the
  /// range of two new arguments; its callers pass the whole range.
  void takeRange(func::FuncOp function, scf::ForOp outer, int64_t extent,
                 int64_t chunk, ArrayRef<func::CallOp> calls) {
    IRRewriter rewriter(function.getContext());

    Location loc = function.getLoc();
    Type index = rewriter.getIndexType();
    unsigned count = function.getNumArguments();
    (void)function.insertArguments({count, count}, {index, index},
                                   {DictionaryAttr(), DictionaryAttr()},
                                   {loc, loc});
    Block &entry = function.getBody().front();
    outer.getLowerBoundMutable().assign(entry.getArgument(count));
    outer.getUpperBoundMutable().assign(entry.getArgument(count + 1));
    function->setAttr(kParallelExtentAttr, rewriter.getI64IntegerAttr(extent));
    function->setAttr(kParallelChunkAttr, rewriter.getI64IntegerAttr(chunk));

    // Its callers run the whole range.
    for (func::CallOp call : calls) {
      rewriter.setInsertionPoint(call);
      Value begin = arith::ConstantIndexOp::create(rewriter, call.getLoc(), 0);
      Value end =
          arith::ConstantIndexOp::create(rewriter, call.getLoc(), extent);
      call.getOperandsMutable().append(ValueRange{begin, end});
    }
  }
};

/// Whether a value of `type` fits one 8-byte slot of the argument array.
bool fitsSlot(Type type) {
  if (isa<LLVM::LLVMPointerType>(type))
    return true;
  if (type.isIntOrFloat())
    return type.getIntOrFloatBitWidth() <= 64;
  return false;
}

struct LaunchParallelNestsPass
    : public mixprec::impl::MixprecLaunchParallelNestsBase<
          LaunchParallelNestsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> nests;
    for (auto function : module.getOps<LLVM::LLVMFuncOp>())
      if (function->hasAttr(kParallelExtentAttr) && !function.isExternal())
        nests.push_back(function);
    if (nests.empty())
      return;
    // Every call, by callee, in one walk, before the chunk functions add
    // theirs.
    llvm::DenseMap<StringAttr, SmallVector<LLVM::CallOp>> callsOf;
    module.walk([&](LLVM::CallOp call) {
      if (FlatSymbolRefAttr callee = call.getCalleeAttr())
        callsOf[callee.getAttr()].push_back(call);
    });
    for (LLVM::LLVMFuncOp nest : nests) {
      ArrayRef<Type> parameters = nest.getFunctionType().getParams();
      // The range is the last two parameters; the rest go in slots.
      if (parameters.size() < 2 ||
          !llvm::all_of(parameters.drop_back(2), fitsSlot))
        continue;
      LLVM::LLVMFuncOp chunk = chunkFunction(module, nest);
      for (LLVM::CallOp call : callsOf.lookup(nest.getSymNameAttr()))
        launch(module, call, nest, chunk);
    }
  }

  /// `nest`_chunk(arguments, begin, end): loads the slots and calls `nest`.
  LLVM::LLVMFuncOp chunkFunction(ModuleOp module, LLVM::LLVMFuncOp nest) {
    MLIRContext *context = module.getContext();
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    Location loc = nest.getLoc();
    Type ptr = LLVM::LLVMPointerType::get(context);
    Type i64 = builder.getI64Type();
    auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                            {ptr, i64, i64});
    auto chunk = LLVM::LLVMFuncOp::create(builder, loc,
                                          (nest.getSymName() + "_chunk").str(),
                                          type, LLVM::Linkage::Internal);
    Block *entry = chunk.addEntryBlock(builder);
    builder.setInsertionPointToStart(entry);
    ArrayRef<Type> parameters = nest.getFunctionType().getParams();
    SmallVector<Value> arguments;
    for (auto [slot, parameter] : llvm::enumerate(parameters.drop_back(2))) {
      Value address =
          LLVM::GEPOp::create(builder, loc, ptr, i64, entry->getArgument(0),
                              ArrayRef<LLVM::GEPArg>{int32_t(slot)});
      arguments.push_back(
          LLVM::LoadOp::create(builder, loc, parameter, address));
    }
    arguments.push_back(entry->getArgument(1));
    arguments.push_back(entry->getArgument(2));
    LLVM::CallOp::create(builder, loc, nest, arguments);
    LLVM::ReturnOp::create(builder, loc, ValueRange{});
    return chunk;
  }

  LLVM::LLVMFuncOp parallelFor(ModuleOp module) {
    if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(kParallelFor))
      return existing;
    MLIRContext *context = module.getContext();
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    Type ptr = LLVM::LLVMPointerType::get(context);
    Type i64 = builder.getI64Type();
    return LLVM::LLVMFuncOp::create(
        builder, module.getLoc(), kParallelFor,
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                    {ptr, ptr, i64, i64}));
  }

  /// Replaces `call` with the arguments stored in slots and a call of the
  /// runtime's parallel loop over `nest`'s outer range.
  void launch(ModuleOp module, LLVM::CallOp call, LLVM::LLVMFuncOp nest,
              LLVM::LLVMFuncOp chunk) {
    MLIRContext *context = module.getContext();
    Location loc = call.getLoc();
    Type ptr = LLVM::LLVMPointerType::get(context);
    OpBuilder builder(call);
    Type i64 = builder.getI64Type();
    unsigned slots = call.getArgOperands().size() - 2;
    Value slotArray;
    {
      // In the entry block: a call in a loop does not grow the stack.
      auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(&caller.getBody().front());
      Value size = LLVM::ConstantOp::create(builder, loc, i64,
                                            std::max<unsigned>(slots, 1));
      slotArray = LLVM::AllocaOp::create(builder, loc, ptr, i64, size);
    }
    for (auto [slot, argument] :
         llvm::enumerate(call.getArgOperands().drop_back(2))) {
      Value address =
          LLVM::GEPOp::create(builder, loc, ptr, i64, slotArray,
                              ArrayRef<LLVM::GEPArg>{int32_t(slot)});
      LLVM::StoreOp::create(builder, loc, argument, address);
    }
    auto extent = cast<IntegerAttr>(nest->getAttr(kParallelExtentAttr));
    auto chunkSize = cast<IntegerAttr>(nest->getAttr(kParallelChunkAttr));
    Value chunkAddress = LLVM::AddressOfOp::create(builder, loc, chunk);
    LLVM::CallOp::create(
        builder, loc, parallelFor(module),
        ValueRange{
            chunkAddress, slotArray,
            LLVM::ConstantOp::create(builder, loc, i64, extent.getInt()),
            LLVM::ConstantOp::create(builder, loc, i64, chunkSize.getInt())});
    call.erase();
  }
};

} // namespace
