//===- TensorCoreGemm.cpp - 16-bit contractions as mma.sync kernels -------===//
//
// Every multiply-accumulate linalg op with two f16 (or two bf16) inputs
// becomes a launch of a kernel built here: shared-memory tiles filled by
// 16-byte cp.async copies in a three-stage pipeline (or element by element
// through the op's indexing maps), `ldmatrix` fragments, and
// `mma.sync.m16n8k16` with f32 accumulators (Passes.td has the layout).
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/ContractionBody.h"
#include "mixprec/Codegen/Passes.h"
#include "mixprec/Codegen/ViewedBuffer.h"

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
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
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
// Tiles of the next K steps load while the tensor cores work on this one.
constexpr int64_t kStages = 3;
// A 16-byte copy: 8 f16 or bf16 elements, as ldmatrix reads a row.
constexpr int64_t kVector = 8;

/// How one operand's tiles go from global to shared memory.
enum class TileLayout {
  /// Element by element through the indexing map, stored [rows][K].
  Elements,
  /// 16-byte cp.async copies along K, the buffer's contiguous dimension,
  /// stored [rows][K]; ldmatrix reads rows of K.
  KContiguous,
  /// 16-byte cp.async copies along the rows (M for A, N for B), the
  /// buffer's contiguous dimension, stored [K][rows]; ldmatrix.trans reads
  /// them.
  RowsContiguous,
};

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

/// How tiles of an operand of `type`, indexed by `map`, can be copied: in
/// 16-byte pieces when the buffer's last dimension is contiguous, indexed
/// by the innermost loop of K or of `rows` alone, that loop's trip count a
/// multiple of 8, and every other stride and the offset multiples of 8
/// (the buffer itself is 256-byte aligned): then 8 consecutive indices of
/// the group from a multiple of 8 are 16 aligned bytes.
static TileLayout tileLayout(MemRefType type, AffineMap map,
                             const GemmLoops &loops, ArrayRef<unsigned> rows) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) || offset % kVector != 0 ||
      strides.back() != 1 ||
      llvm::any_of(ArrayRef<int64_t>(strides).drop_back(), [](int64_t stride) {
        return ShapedType::isDynamic(stride) || stride % kVector != 0;
      }))
    return TileLayout::Elements;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!last)
    return TileLayout::Elements;
  unsigned loop = last.getPosition();
  if (loops.bounds[loop] % kVector != 0 ||
      llvm::any_of(map.getResults().drop_back(), [&](AffineExpr result) {
        return result.isFunctionOfDim(loop);
      }))
    return TileLayout::Elements;
  if (!loops.k.empty() && loops.k.back() == loop)
    return TileLayout::KContiguous;
  if (!rows.empty() && rows.back() == loop)
    return TileLayout::RowsContiguous;
  return TileLayout::Elements;
}

/// The linalg.fill of +0.0 into `op`'s output that comes before `op` with
/// nothing between touching that buffer, or null: the kernel then writes
/// its sums (each output element once; a sum of products from +0.0 is
/// never -0.0, so the bits are those of adding) and the fill goes.
static linalg::FillOp zeroFillOf(linalg::LinalgOp op) {
  Value output = op.getDpsInitOperand(0)->get();
  Value root = mixprec::viewedBuffer(output);
  for (Operation *previous = op->getPrevNode(); previous;
       previous = previous->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(previous);
    if (fill && fill.getOutputs().front() == output)
      return matchPattern(fill.getInputs().front(), m_PosZeroFloat())
                 ? fill
                 : linalg::FillOp();
    if (isMemoryEffectFree(previous))
      continue;
    // A call, or anything that may reach the buffer, ends the search.
    bool touches = isa<CallOpInterface>(previous);
    previous->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        touches |= isa<MemRefType>(operand.getType()) &&
                   mixprec::viewedBuffer(operand) == root;
    });
    if (touches)
      return linalg::FillOp();
  }
  return linalg::FillOp();
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

/// One input of the GEMM: its buffer in the kernel, indexing map, row
/// loops (M for A, N for B), how its tiles are copied and their shared
/// buffer ([kStages][kBlockM][kBlockK], or [kStages][kBlockK][kBlockM] when
/// its rows are contiguous).
struct TileOperand {
  Value buffer;
  AffineMap map;
  ArrayRef<unsigned> rows;
  TileLayout layout;
  Value shared;
};

/// Builds the kernel body for one contraction.
class GemmKernelBuilder {
public:
  /// `accumulate`: the sums are added to the output's values, else they
  /// replace them (the output held zeros).
  GemmKernelBuilder(OpBuilder &b, Location loc, const GemmLoops &loops,
                    ArrayRef<AffineMap> maps, Type element, bool accumulate)
      : b(b), loc(loc), loops(loops), maps(maps), element(element),
        accumulate(accumulate) {}

  /// Fills `kernel`, whose arguments are the whole buffers of A, B and the
  /// output; `views` are the view ops from each to the op's operand.
  void build(gpu::GPUFuncOp kernel, ArrayRef<SmallVector<Operation *>> views,
             ArrayRef<TileLayout> layouts);

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

  Value xorIndex(Value x, Value y) {
    return widen(arith::XOrIOp::create(b, loc, narrow(x), narrow(y)));
  }
  /// Where element (row, column) of a tile lives in its shared buffer:
  /// the 16-byte pieces of a row are permuted (XOR) by the row, so that
  /// the 8 rows one ldmatrix reads, and the pieces a quarter warp writes,
  /// fall in different banks without padding.
  SmallVector<Value> sharedIndices(const TileOperand &tile, Value stage,
                                   Value row, Value column);
  /// Copies the tile of `tile` at (rowStart, kStart) into `stage`, zeros
  /// past the edges of its rows and of K.
  void copyTile(const TileOperand &tile, Value rowStart, Value kStart,
                Value stage, Value thread);
  /// The ldmatrix fragment of `tile` (x4 for A: 16 rows; x2 for B: 8) at
  /// rows from `rowStart` and K from `kStart` within the tile.
  Value fragment(const TileOperand &tile, int64_t matrices, Value stage,
                 Value rowStart, int64_t kStart, Value lane);
  Value mma(Value a, Value bFragment, Value accumulator);
  void storeResults(Value output, ArrayRef<Value> accumulators, Value mStart,
                    Value nStart, Value warpM, Value warpN, Value lane);

  OpBuilder &b;
  Location loc;
  const GemmLoops &loops;
  ArrayRef<AffineMap> maps;
  Type element;
  bool accumulate;
  /// Loop values every access uses: batch indices, zeros elsewhere.
  SmallVector<Value> base;
  Block *entry = nullptr;
  DenseMap<int64_t, Value> constants;
};

SmallVector<Value> GemmKernelBuilder::sharedIndices(const TileOperand &tile,
                                                    Value stage, Value row,
                                                    Value column) {
  // Stored [K][rows] (8 pieces a row) or [rows][K] (4 pieces a row, two
  // rows across the 32 banks).
  bool kRows = tile.layout == TileLayout::RowsContiguous;
  Value storedRow = kRows ? column : row, storedColumn = kRows ? row : column;
  Value pattern = kRows ? rem(storedRow, kVector) : rem(div(storedRow, 2), 4);
  Value piece = xorIndex(div(storedColumn, kVector), pattern);
  return {stage, storedRow,
          add(mul(piece, kVector), rem(storedColumn, kVector))};
}

void GemmKernelBuilder::copyTile(const TileOperand &tile, Value rowStart,
                                 Value kStart, Value stage, Value thread) {
  int64_t rowCount = loops.size(tile.rows), kCount = loops.size(loops.k);
  static_assert(kBlockM == kBlockN, "one tile copier for A and B");
  // Whether the tile's element (row, column) lies inside, and its global
  // position (row and K).
  auto locate = [&](Value row, Value column) {
    Value globalRow = add(rowStart, row), globalK = add(kStart, column);
    Value inside = arith::AndIOp::create(b, loc, less(globalRow, rowCount),
                                         less(globalK, kCount));
    return std::make_tuple(inside, globalRow, globalK);
  };
  auto indicesAt = [&](Value globalRow, Value globalK) {
    SmallVector<Value> values(base);
    delinearize(globalRow, tile.rows, values);
    delinearize(globalK, loops.k, values);
    return apply(tile.map, values);
  };

  if (tile.layout == TileLayout::Elements) {
    for (int64_t i = 0; i < kBlockM * kBlockK / kThreads; ++i) {
      Value linear = add(index(i * kThreads), thread);
      Value row = div(linear, kBlockK), column = rem(linear, kBlockK);
      auto [inside, globalRow, globalK] = locate(row, column);
      auto branch = scf::IfOp::create(b, loc, element, inside, true);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(branch.thenBlock());
        SmallVector<Value> indices = indicesAt(globalRow, globalK);
        scf::YieldOp::create(
            b, loc,
            memref::LoadOp::create(b, loc, tile.buffer, indices).getResult());
        b.setInsertionPointToStart(branch.elseBlock());
        scf::YieldOp::create(
            b, loc,
            arith::ConstantOp::create(b, loc, b.getZeroAttr(element))
                .getResult());
      }
      memref::StoreOp::create(b, loc, branch.getResult(0), tile.shared,
                              sharedIndices(tile, stage, row, column));
    }
    return;
  }
  // 16-byte pieces: along K ([rows][K]) or along the rows ([K][rows]).
  bool kRows = tile.layout == TileLayout::RowsContiguous;
  int64_t piecesPerRow = (kRows ? kBlockM : kBlockK) / kVector;
  for (int64_t i = 0; i < kBlockM * kBlockK / kVector / kThreads; ++i) {
    Value linear = add(index(i * kThreads), thread);
    Value storedRow = div(linear, piecesPerRow);
    Value storedColumn = mul(rem(linear, piecesPerRow), kVector);
    Value row = kRows ? storedColumn : storedRow;
    Value column = kRows ? storedRow : storedColumn;
    auto [inside, globalRow, globalK] = locate(row, column);
    // Past an edge the copy reads nothing and writes zeros; its address is
    // the first element's, a valid one.
    SmallVector<Value> indices =
        indicesAt(arith::SelectOp::create(b, loc, inside, globalRow, index(0)),
                  arith::SelectOp::create(b, loc, inside, globalK, index(0)));
    Value readElements =
        arith::SelectOp::create(b, loc, inside, index(kVector), index(0));
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, tile.shared, sharedIndices(tile, stage, row, column),
        tile.buffer, indices, b.getIndexAttr(kVector), readElements,
        b.getUnitAttr());
  }
}

Value GemmKernelBuilder::fragment(const TileOperand &tile, int64_t matrices,
                                  Value stage, Value rowStart, int64_t kStart,
                                  Value lane) {
  // Lane 8q + r gives row r of 8x8 matrix q: for x4, q = (rows 8(q%2) on,
  // K 8(q/2) on); for x2, q = (rows 0 on, K 8q on).
  Value matrix = rem(div(lane, 8), matrices), r = rem(lane, 8);
  Value rowOffset = matrices == 4 ? mul(rem(matrix, 2), 8) : index(0);
  Value kOffset = mul(matrices == 4 ? div(matrix, 2) : matrix, 8);
  Value row = add(rowStart, rowOffset), column = add(index(kStart), kOffset);
  // [rows][K]: the lane's row is a tile row; [K][rows]: a K row, and the
  // transposing load gives the fragment of the same 8x8 matrix.
  bool kRows = tile.layout == TileLayout::RowsContiguous;
  if (kRows)
    column = add(column, r);
  else
    row = add(row, r);
  return nvgpu::LdMatrixOp::create(
      b, loc, VectorType::get({matrices, 2}, element), tile.shared,
      sharedIndices(tile, stage, row, column), kRows, matrices);
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

/// Writes each accumulator element to its f32 output element (added to it
/// when accumulating), masked at the edges.
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
          if (accumulate)
            sum = arith::AddFOp::create(
                b, loc, memref::LoadOp::create(b, loc, output, indices), sum);
          memref::StoreOp::create(b, loc, sum, output, indices);
        }
}

void GemmKernelBuilder::build(gpu::GPUFuncOp kernel,
                              ArrayRef<SmallVector<Operation *>> views,
                              ArrayRef<TileLayout> layouts) {
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
  TileOperand a{operands[0], maps[0], loops.m, layouts[0],
                kernel.getWorkgroupAttributions()[0]};
  TileOperand bTile{operands[1], maps[1], loops.n, layouts[1],
                    kernel.getWorkgroupAttributions()[1]};
  Value output = operands[2];
  bool copiesAsync = llvm::any_of(layouts, [](TileLayout layout) {
    return layout != TileLayout::Elements;
  });

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

  // Stage s holds K step s mod kStages. Each K step's copies are one
  // cp.async group: the first kStages - 1 go before the loop.
  int64_t kSteps = llvm::divideCeil(loops.size(loops.k), kBlockK);
  auto copyStep = [&](Value step) {
    Value stage = rem(step, kStages), kStart = mul(step, kBlockK);
    copyTile(a, mStart, kStart, stage, thread);
    copyTile(bTile, nStart, kStart, stage, thread);
  };
  auto commit = [&] {
    if (copiesAsync)
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
  };
  for (int64_t step = 0; step < kStages - 1; ++step) {
    if (step < kSteps)
      copyStep(index(step));
    commit();
  }

  VectorType accumulatorType = VectorType::get({2, 2}, b.getF32Type());
  Value zero = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accumulatorType, 0.0f));
  SmallVector<Value> initial(kWarpTilesM * kWarpTilesN, zero);
  auto kLoop =
      scf::ForOp::create(b, loc, index(0), index(kSteps), index(1), initial);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value step = kLoop.getInductionVar();
    // The step kStages - 1 ahead goes into the stage the last step read
    // (every warp is past it: the barrier at the end of the last step).
    Value ahead = add(step, index(kStages - 1));
    auto prefetch = scf::IfOp::create(b, loc, less(ahead, kSteps));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(prefetch.thenBlock());
      copyStep(ahead);
    }
    commit();
    // All but the newest kStages - 1 groups landed: this step's tiles.
    if (copiesAsync)
      NVVM::CpAsyncWaitGroupOp::create(b, loc,
                                       b.getI32IntegerAttr(kStages - 1));
    // Every thread's copies, for every warp's ldmatrix.
    gpu::BarrierOp::create(b, loc);
    Value stage = rem(step, kStages);
    SmallVector<Value> accumulators(kLoop.getRegionIterArgs());
    for (int64_t kk = 0; kk < kBlockK; kk += 16) {
      SmallVector<Value> aFragments, bFragments;
      for (int64_t i = 0; i < kWarpTilesM; ++i)
        aFragments.push_back(
            fragment(a, 4, stage, add(mul(warpM, kBlockM / 2), index(i * 16)),
                     kk, lane));
      for (int64_t j = 0; j < kWarpTilesN; ++j)
        bFragments.push_back(
            fragment(bTile, 2, stage,
                     add(mul(warpN, kBlockN / 2), index(j * 8)), kk, lane));
      for (int64_t i = 0; i < kWarpTilesM; ++i)
        for (int64_t j = 0; j < kWarpTilesN; ++j) {
          Value &accumulator = accumulators[i * kWarpTilesN + j];
          accumulator = mma(aFragments[i], bFragments[j], accumulator);
        }
    }
    // The next step's copies overwrite the stage every warp read before.
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
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      TileLayout layouts[] = {
          tileLayout(
              cast<MemRefType>(op.getDpsInputOperand(0)->get().getType()),
              maps[0], loops, loops.m),
          tileLayout(
              cast<MemRefType>(op.getDpsInputOperand(1)->get().getType()),
              maps[1], loops, loops.n)};
      SmallVector<Type, 2> sharedTypes;
      for (TileLayout layout : layouts)
        sharedTypes.push_back(
            MemRefType::get(layout == TileLayout::RowsContiguous
                                ? ArrayRef<int64_t>{kStages, kBlockK, kBlockM}
                                : ArrayRef<int64_t>{kStages, kBlockM, kBlockK},
                            element, AffineMap(), workgroup));
      OpBuilder builder = OpBuilder::atBlockEnd(kernels.getBody());
      auto kernel = gpu::GPUFuncOp::create(
          builder, loc, name,
          builder.getFunctionType(
              {a.getType(), bOperand.getType(), output.getType()}, {}),
          sharedTypes);
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
      linalg::FillOp zeros = zeroFillOf(op);
      GemmKernelBuilder(builder, loc, loops, maps, element, !zeros)
          .build(kernel, views, layouts);
      if (zeros)
        zeros->erase();

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
