//===- TensorCoreGemm.cpp - 16-bit contractions as mma.sync kernels -------===//
//
// Every multiply-accumulate linalg op with two f16 (or two bf16) inputs
// becomes a launch of a kernel built here: shared-memory tiles filled
// through the op's indexing maps, `ldmatrix` fragments, and
// `mma.sync.m16n8k16` with f32 accumulators (Passes.td has the layout).
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/ContractionBody.h"
#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECGPUTENSORCOREGEMM
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

// A block of four warps (2x2) computes a kBlockM x kBlockN tile; each warp
// a 32x32 tile of 2x4 m16n8 mma tiles.
constexpr int64_t kBlockM = 64, kBlockN = 64, kBlockK = 32;
constexpr int64_t kThreads = 128, kWarpSize = 32;
constexpr int64_t kWarpTilesM = 2, kWarpTilesN = 4;
// Shared rows are padded by 8 elements: they stay 16-byte aligned for
// ldmatrix and consecutive rows start in different banks.
constexpr int64_t kSharedStride = kBlockK + 8;

enum class Role { Batch, M, N, K };

/// The loops of a contraction grouped by role, outer to inner.
struct GemmLoops {
  SmallVector<int64_t> bounds;
  SmallVector<unsigned> batch, m, n, k;

  int64_t size(ArrayRef<unsigned> loops) const {
    int64_t product = 1;
    for (unsigned loop : loops)
      product *= bounds[loop];
    return product;
  }
};

/// The loop roles of `op` if it is a contraction this kernel computes.
static std::optional<GemmLoops> matchGemm(linalg::LinalgOp op) {
  // Only ops of the host function itself: a launch cannot nest in a loop
  // that becomes a kernel. computesContract also makes the output indexed
  // by exactly the parallel loops: each element is written once, and the
  // epilogue may index it with K at 0.
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureBufferSemantics() || !mixprec::computesContract(op) ||
      !isa<func::FuncOp>(op->getParentOp()))
    return std::nullopt;
  auto a = dyn_cast<MemRefType>(op.getDpsInputOperand(0)->get().getType());
  auto b = dyn_cast<MemRefType>(op.getDpsInputOperand(1)->get().getType());
  auto c = dyn_cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  if (!a || !b || !c || !a.hasStaticShape() || !b.hasStaticShape() ||
      !c.hasStaticShape())
    return std::nullopt;
  Type element = a.getElementType();
  if (element != b.getElementType() || !(element.isF16() || element.isBF16()))
    return std::nullopt;
  // The kernel sums in f32 and rounds once: exact to the op's semantics
  // only when the op accumulates in f32 (a 16-bit accumulator would round
  // at every step; mixprec's lowering never makes one). Inputs are widened
  // exactly (computesContract), so the products are the tensor cores'.
  if (!c.getElementType().isF32())
    return std::nullopt;

  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[2].isProjectedPermutation())
    return std::nullopt;
  GemmLoops loops;
  loops.bounds = op.getStaticLoopRanges();
  if (llvm::any_of(loops.bounds, ShapedType::isDynamic))
    return std::nullopt;
  for (auto [loop, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (iterator == utils::IteratorType::reduction) {
      loops.k.push_back(loop);
      continue;
    }
    bool inA = maps[0].isFunctionOfDim(loop);
    bool inB = maps[1].isFunctionOfDim(loop);
    if (inA && !inB)
      loops.m.push_back(loop);
    else if (inB && !inA)
      loops.n.push_back(loop);
    else
      loops.batch.push_back(loop);
  }
  // An empty output needs no kernel (and a grid cannot be empty); batches
  // index grid z; indices are computed in 32 bits.
  if (loops.size(loops.m) == 0 || loops.size(loops.n) == 0 ||
      loops.size(loops.batch) == 0 || loops.size(loops.batch) > 65535 ||
      llvm::any_of(ArrayRef<MemRefType>{a, b, c},
                   [](MemRefType type) {
                     return type.getNumElements() >= (int64_t(1) << 31);
                   }) ||
      loops.size(loops.m) >= (int64_t(1) << 31) ||
      loops.size(loops.n) >= (int64_t(1) << 31) ||
      llvm::alignTo(loops.size(loops.k), kBlockK) >= (uint64_t(1) << 31))
    return std::nullopt;
  return loops;
}

/// The whole buffer `view` is a view of; `views` gets the view ops from it
/// to `view`, outermost first. A kernel takes whole buffers (one pointer
/// each, see --mixprec-gpu-outline-kernels) and makes the views itself.
static Value peelViews(Value view, SmallVectorImpl<Operation *> &views) {
  while (Operation *op = view.getDefiningOp()) {
    auto viewLike = dyn_cast<ViewLikeOpInterface>(op);
    if (!viewLike || op->getNumOperands() != 1)
      break;
    views.push_back(op);
    view = viewLike.getViewSource();
  }
  std::reverse(views.begin(), views.end());
  return view;
}

/// Builds the kernel body for one contraction.
class GemmKernelBuilder {
public:
  GemmKernelBuilder(OpBuilder &b, Location loc, const GemmLoops &loops,
                    ArrayRef<AffineMap> maps, Type element)
      : b(b), loc(loc), loops(loops), maps(maps), element(element) {}

  /// Fills `kernel`, whose arguments are the whole buffers of A, B and the
  /// output; `views` are the view ops from each to the op's operand.
  void build(gpu::GPUFuncOp kernel, ArrayRef<SmallVector<Operation *>> views);

private:
  /// The index constant `value`, made once at the top of the kernel.
  Value index(int64_t value) {
    Value &constant = constants[value];
    if (!constant) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(entry);
      constant = arith::ConstantIndexOp::create(b, loc, value);
    }
    return constant;
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value mul(Value x, int64_t y) {
    return arith::MulIOp::create(b, loc, x, index(y));
  }
  // Division and remainder by constants in 32 bits (every index fits, see
  // matchGemm): 64-bit ones cost twice the registers and spill on sm_80.
  Value narrow(Value x) {
    return arith::IndexCastUIOp::create(b, loc, b.getI32Type(), x);
  }
  Value widen(Value x) {
    return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), x);
  }
  Value div(Value x, int64_t y) {
    return widen(arith::DivUIOp::create(b, loc, narrow(x), narrow(index(y))));
  }
  Value rem(Value x, int64_t y) {
    return widen(arith::RemUIOp::create(b, loc, narrow(x), narrow(index(y))));
  }
  Value less(Value x, int64_t y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 index(y));
  }

  /// Writes the indices of `group` (outer to inner) that `linear` stands
  /// for into `values`.
  void delinearize(Value linear, ArrayRef<unsigned> group,
                   SmallVectorImpl<Value> &values) {
    for (unsigned loop : llvm::reverse(group)) {
      values[loop] = rem(linear, loops.bounds[loop]);
      linear = div(linear, loops.bounds[loop]);
    }
  }
  SmallVector<Value> apply(AffineMap map, ArrayRef<Value> values) {
    return *affine::expandAffineMap(b, loc, map, values);
  }

  void loadTile(Value operand, AffineMap map, ArrayRef<unsigned> rows,
                Value rowStart, Value kStart, Value shared, Value thread);
  Value mma(Value a, Value bFragment, Value accumulator);
  void storeResults(Value output, ArrayRef<Value> accumulators, Value mStart,
                    Value nStart, Value warpM, Value warpN, Value lane);

  OpBuilder &b;
  Location loc;
  const GemmLoops &loops;
  ArrayRef<AffineMap> maps;
  Type element;
  /// Loop values every access uses: batch indices, zeros elsewhere.
  SmallVector<Value> base;
  Block *entry = nullptr;
  DenseMap<int64_t, Value> constants;
};

/// Fills a (rows x kBlockK) shared tile from `operand`, zero past the
/// edges of the rows' group and of K.
void GemmKernelBuilder::loadTile(Value operand, AffineMap map,
                                 ArrayRef<unsigned> rows, Value rowStart,
                                 Value kStart, Value shared, Value thread) {
  int64_t rowCount = loops.size(rows), kCount = loops.size(loops.k);
  static_assert(kBlockM == kBlockN, "one tile loader for A and B");
  int64_t perThread = kBlockM * kBlockK / kThreads;
  for (int64_t i = 0; i < perThread; ++i) {
    Value linear = add(index(i * kThreads), thread);
    Value row = div(linear, kBlockK), column = rem(linear, kBlockK);
    Value globalRow = add(rowStart, row), globalK = add(kStart, column);
    Value inside = arith::AndIOp::create(b, loc, less(globalRow, rowCount),
                                         less(globalK, kCount));
    auto branch = scf::IfOp::create(b, loc, element, inside, true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      SmallVector<Value> values(base);
      delinearize(globalRow, rows, values);
      delinearize(globalK, loops.k, values);
      Value loaded =
          memref::LoadOp::create(b, loc, operand, apply(map, values));
      scf::YieldOp::create(b, loc, loaded);
      b.setInsertionPointToStart(branch.elseBlock());
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
      scf::YieldOp::create(b, loc, zero);
    }
    memref::StoreOp::create(b, loc, branch.getResult(0), shared,
                            ValueRange{row, column});
  }
}

/// One m16n8k16 mma: `a` is an ldmatrix x4 fragment, `bFragment` an x2 one.
Value GemmKernelBuilder::mma(Value a, Value bFragment, Value accumulator) {
  // f16 operands go in pairs (vector<2xf16>); bf16 pairs as i32 registers.
  auto registers = [&](Value fragment, int64_t count) {
    SmallVector<Value> values;
    for (int64_t r = 0; r < count; ++r) {
      Value pair = vector::ExtractOp::create(b, loc, fragment, r);
      if (element.isBF16()) {
        Value word = vector::BitCastOp::create(
            b, loc, VectorType::get({1}, b.getI32Type()), pair);
        pair = vector::ExtractOp::create(b, loc, word, 0);
      }
      values.push_back(pair);
    }
    return values;
  };
  SmallVector<Value> c;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t col = 0; col < 2; ++col)
      c.push_back(vector::ExtractOp::create(b, loc, accumulator,
                                            ArrayRef<int64_t>{r, col}));
  Type f32 = b.getF32Type();
  auto resultType = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                                     SmallVector<Type>(4, f32));
  NVVM::MMATypes ptxType =
      element.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Value result = NVVM::MmaOp::create(
      b, loc, resultType, registers(a, 4), registers(bFragment, 2), c,
      {16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> sums;
  for (int64_t i = 0; i < 4; ++i)
    sums.push_back(LLVM::ExtractValueOp::create(b, loc, result, i));
  return vector::FromElementsOp::create(b, loc, VectorType::get({2, 2}, f32),
                                        sums);
}

/// Adds each accumulator element to its f32 output element, masked at the
/// edges.
void GemmKernelBuilder::storeResults(Value output, ArrayRef<Value> accumulators,
                                     Value mStart, Value nStart, Value warpM,
                                     Value warpN, Value lane) {
  int64_t mCount = loops.size(loops.m), nCount = loops.size(loops.n);
  Value group = div(lane, 4), pairColumn = mul(rem(lane, 4), 2);
  Value warpRow = add(mStart, mul(warpM, kBlockM / 2));
  Value warpColumn = add(nStart, mul(warpN, kBlockN / 2));
  for (int64_t i = 0; i < kWarpTilesM; ++i)
    for (int64_t j = 0; j < kWarpTilesN; ++j)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 2; ++c) {
          Value row = add(warpRow, add(group, index(i * 16 + r * 8)));
          Value column = add(warpColumn, add(pairColumn, index(j * 8 + c)));
          Value sum = vector::ExtractOp::create(
              b, loc, accumulators[i * kWarpTilesN + j],
              ArrayRef<int64_t>{r, c});
          Value inside = arith::AndIOp::create(b, loc, less(row, mCount),
                                               less(column, nCount));
          auto branch = scf::IfOp::create(b, loc, inside);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(branch.thenBlock());
          SmallVector<Value> values(base);
          delinearize(row, loops.m, values);
          delinearize(column, loops.n, values);
          SmallVector<Value> indices = apply(maps[2], values);
          Value old = memref::LoadOp::create(b, loc, output, indices);
          Value updated = arith::AddFOp::create(b, loc, old, sum);
          memref::StoreOp::create(b, loc, updated, output, indices);
        }
}

void GemmKernelBuilder::build(gpu::GPUFuncOp kernel,
                              ArrayRef<SmallVector<Operation *>> views) {
  entry = &kernel.front();
  b.setInsertionPointToStart(entry);
  SmallVector<Value, 3> operands;
  for (auto [argument, chain] : llvm::zip(entry->getArguments(), views)) {
    IRMapping mapping;
    Value operand = argument;
    for (Operation *view : chain) {
      mapping.map(view->getOperand(0), operand);
      operand = b.clone(*view, mapping)->getResult(0);
    }
    operands.push_back(operand);
  }
  Value a = operands[0], bOperand = operands[1], output = operands[2];
  Value sharedA = kernel.getWorkgroupAttributions()[0];
  Value sharedB = kernel.getWorkgroupAttributions()[1];

  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::z);
  int64_t nTiles = llvm::divideCeil(loops.size(loops.n), kBlockN);
  Value mStart = mul(div(block, nTiles), kBlockM);
  Value nStart = mul(rem(block, nTiles), kBlockN);
  Value warp = div(thread, kWarpSize), lane = rem(thread, kWarpSize);
  Value warpM = div(warp, 2), warpN = rem(warp, 2);
  base.assign(loops.bounds.size(), index(0));
  delinearize(batch, loops.batch, base);

  VectorType accumulatorType = VectorType::get({2, 2}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accumulatorType, 0.0f));
  SmallVector<Value> initial(kWarpTilesM * kWarpTilesN, zero);
  int64_t kCount = loops.size(loops.k);
  auto kLoop = scf::ForOp::create(b, loc, index(0),
                                  index(llvm::alignTo(kCount, kBlockK)),
                                  index(kBlockK), initial);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value kStart = kLoop.getInductionVar();
    loadTile(a, maps[0], loops.m, mStart, kStart, sharedA, thread);
    loadTile(bOperand, maps[1], loops.n, nStart, kStart, sharedB, thread);
    gpu::BarrierOp::create(b, loc);
    SmallVector<Value> accumulators(kLoop.getRegionIterArgs());
    Value aRow = rem(lane, 16), aColumn = mul(div(lane, 16), 8);
    Value bRow = rem(lane, 8), bColumn = mul(rem(div(lane, 8), 2), 8);
    for (int64_t kk = 0; kk < kBlockK; kk += 16) {
      SmallVector<Value> aFragments, bFragments;
      for (int64_t i = 0; i < kWarpTilesM; ++i) {
        Value row = add(mul(warpM, kBlockM / 2), add(aRow, index(i * 16)));
        aFragments.push_back(nvgpu::LdMatrixOp::create(
            b, loc, VectorType::get({4, 2}, element), sharedA,
            ValueRange{row, add(aColumn, index(kk))}, false, 4));
      }
      for (int64_t j = 0; j < kWarpTilesN; ++j) {
        Value row = add(mul(warpN, kBlockN / 2), add(bRow, index(j * 8)));
        bFragments.push_back(nvgpu::LdMatrixOp::create(
            b, loc, VectorType::get({2, 2}, element), sharedB,
            ValueRange{row, add(bColumn, index(kk))}, false, 2));
      }
      for (int64_t i = 0; i < kWarpTilesM; ++i)
        for (int64_t j = 0; j < kWarpTilesN; ++j) {
          Value &accumulator = accumulators[i * kWarpTilesN + j];
          accumulator = mma(aFragments[i], bFragments[j], accumulator);
        }
    }
    // The next iteration overwrites the tiles every warp still reads.
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, accumulators);
  }
  storeResults(output, SmallVector<Value>(kLoop.getResults()), mStart, nStart,
               warpM, warpN, lane);
  gpu::ReturnOp::create(b, loc);
}

struct MixprecGpuTensorCoreGemmPass
    : public mixprec::impl::MixprecGpuTensorCoreGemmBase<
          MixprecGpuTensorCoreGemmPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::vector<std::pair<linalg::LinalgOp, GemmLoops>> gemms;
    module.walk([&](linalg::LinalgOp op) {
      if (std::optional<GemmLoops> loops = matchGemm(op))
        gemms.emplace_back(op, *loops);
    });
    if (gemms.empty())
      return;

    MLIRContext *context = module.getContext();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(context));
    auto kernels = module.lookupSymbol<gpu::GPUModuleOp>("kernels");
    if (!kernels) {
      OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
      kernels = gpu::GPUModuleOp::create(builder, module.getLoc(), "kernels");
    }
    SymbolTable symbols(kernels);
    llvm::StringMap<unsigned> counters;
    for (auto &[op, loops] : gemms) {
      Location loc = op.getLoc();
      auto function = op->getParentOfType<func::FuncOp>();
      std::string base =
          (function ? function.getSymName().str() : std::string("gemm")) +
          "_gemm_";
      std::string name;
      do
        name = base + std::to_string(counters[base]++);
      while (symbols.lookup(name));

      SmallVector<SmallVector<Operation *>> views(3);
      Value a = peelViews(op.getDpsInputOperand(0)->get(), views[0]);
      Value bOperand = peelViews(op.getDpsInputOperand(1)->get(), views[1]);
      Value output = peelViews(op.getDpsInitOperand(0)->get(), views[2]);
      Type element = cast<MemRefType>(a.getType()).getElementType();
      auto workgroup = gpu::AddressSpaceAttr::get(
          context, gpu::GPUDialect::getWorkgroupAddressSpace());
      auto sharedType = MemRefType::get({kBlockM, kSharedStride}, element,
                                        AffineMap(), workgroup);
      OpBuilder builder = OpBuilder::atBlockEnd(kernels.getBody());
      auto kernel = gpu::GPUFuncOp::create(
          builder, loc, name,
          builder.getFunctionType(
              {a.getType(), bOperand.getType(), output.getType()}, {}),
          TypeRange{sharedType, sharedType});
      kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                      builder.getUnitAttr());
      kernel.setKnownBlockSizeAttr(
          builder.getDenseI32ArrayAttr({int32_t(kThreads), 1, 1}));
      // ldmatrix reads 16-byte rows.
      for (unsigned i = 0; i < 2; ++i)
        kernel.setWorkgroupAttributionAttr(
            i, LLVM::LLVMDialect::getAlignAttrName(),
            builder.getI64IntegerAttr(16));
      symbols.insert(kernel);
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      GemmKernelBuilder(builder, loc, loops, maps, element)
          .build(kernel, views);

      builder.setInsertionPoint(op);
      DenseMap<int64_t, Value> constants;
      auto constant = [&](int64_t value) -> Value {
        Value &cached = constants[value];
        if (!cached)
          cached = arith::ConstantIndexOp::create(builder, loc, value);
        return cached;
      };
      int64_t blocks = llvm::divideCeil(loops.size(loops.m), kBlockM) *
                       llvm::divideCeil(loops.size(loops.n), kBlockN);
      gpu::LaunchFuncOp::create(
          builder, loc, kernel,
          gpu::KernelDim3{constant(blocks), constant(1),
                          constant(loops.size(loops.batch))},
          gpu::KernelDim3{constant(kThreads), constant(1), constant(1)},
          /*dynamicSharedMemorySize=*/Value(), ValueRange{a, bOperand, output});
      op->erase();
    }
  }
};

} // namespace
