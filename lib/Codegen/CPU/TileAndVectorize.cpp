//===- TileAndVectorize.cpp - register-tiled vector contractions ----------===//
//
// --mixprec-tile-and-vectorize: every linalg contraction on tensors with
// static shapes becomes scf.for loops over (batch, m, n, k) register tiles
// whose body is one vector.contract (the CPU pipeline lowers it to outer
// products: scalar broadcasts and vector FMAs):
//
//   1. the op becomes one linalg.contract with the same maps; 16-bit inputs
//      are widened to the accumulator's type in a copy (exact), and a RHS
//      with a reduction dim innermost (the transposed weight of
//      mixprec.linear) is copied with its n dim innermost, so each k step
//      loads one contiguous RHS row and broadcasts LHS scalars;
//   2. scf::tileUsingSCF tiles the innermost m, n and k dims by tile-m,
//      tile-n and tile-k and every other dim by 1, k innermost;
//   3. the last, partial iteration of every tiled loop is peeled, so after
//      canonicalization every tile has a static shape (or, without peeling,
//      partial tiles are vectorized with masks);
//   4. linalg::vectorize turns each tile into transfer_reads, one
//      vector.contract and a transfer_write;
//   5. unit dims leave the vectors, slices fold into the transfers, 16-bit
//      inputs too large to widen in copies are widened in registers, and
//      the accumulator's read/write pair is hoisted out of the k loop, so
//      the tile lives in registers across the whole reduction.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/CleanupPatterns.h"
#include "mixprec/Codegen/ContractionBody.h"
#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#include "llvm/ADT/STLExtras.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECTILEANDVECTORIZE
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// Marks a tiled contraction until it is vectorized; the value is the vector
/// size of every loop of the tile (used when a tile is not static).
constexpr StringLiteral kVectorSizesAttr = "mixprec.vector_sizes";

/// How one contraction is tiled: a tile size per loop (0: not tiled) and the
/// loop order (batch, unclassified parallel, m, n, k).
struct TilingPlan {
  SmallVector<int64_t> tileSizes;
  SmallVector<int64_t> vectorSizes;
  SmallVector<int64_t> interchange;
};

/// The static contractions this pass handles: tensors only, static loop
/// ranges, and a multiply-add body (possibly with widened inputs).
bool isCandidate(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1)
    return false;
  if (!isa<TilingInterface>(op.getOperation()))
    return false;
  // A full reduction into a 0-d tensor (a dot product) would vectorize to a
  // vector.contract with a 0-d vector accumulator, which vector.contract
  // rejects: it stays a plain loop nest.
  if (op.getRank(op.getDpsInitOperand(0)) == 0)
    return false;
  // Dynamic loops cannot be planned; an empty one leaves nothing to tile
  // (the op becomes a loop nest that runs zero times).
  if (llvm::any_of(op.getStaticLoopRanges(), [](int64_t size) {
        return ShapedType::isDynamic(size) || size == 0;
      }))
    return false;
  return linalg::isaContractionOpInterface(op) &&
         succeeded(linalg::inferContractionDims(op)) &&
         mixprec::computesContract(op);
}

TilingPlan planTiling(linalg::LinalgOp op,
                      const linalg::ContractionDimensions &dims, int64_t tileM,
                      int64_t tileN, int64_t tileK) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned numLoops = ranges.size();
  TilingPlan plan;
  // Every dim is tiled by 1 unless it is the innermost m, n or k dim.
  plan.tileSizes.assign(numLoops, 1);
  auto setTile = [&](ArrayRef<unsigned> group, int64_t size) {
    if (!group.empty())
      plan.tileSizes[group.back()] = std::max<int64_t>(size, 1);
  };
  setTile(dims.m, tileM);
  setTile(dims.n, tileN);
  setTile(dims.k, tileK);
  // A dim that fits in one tile is not tiled at all: its tile is the whole
  // (static) extent.
  for (unsigned d = 0; d < numLoops; ++d)
    if (ranges[d] <= plan.tileSizes[d])
      plan.tileSizes[d] = 0;
  for (unsigned d = 0; d < numLoops; ++d)
    plan.vectorSizes.push_back(plan.tileSizes[d] == 0 ? ranges[d]
                                                      : plan.tileSizes[d]);

  // Loop order: batch, anything unclassified, m, n, then k innermost.
  llvm::SmallDenseSet<unsigned> classified;
  for (ArrayRef<unsigned> group :
       {ArrayRef<unsigned>(dims.batch), ArrayRef<unsigned>(dims.m),
        ArrayRef<unsigned>(dims.n), ArrayRef<unsigned>(dims.k)})
    classified.insert(group.begin(), group.end());
  plan.interchange.append(dims.batch.begin(), dims.batch.end());
  for (unsigned d = 0; d < numLoops; ++d)
    if (!classified.contains(d))
      plan.interchange.push_back(d);
  plan.interchange.append(dims.m.begin(), dims.m.end());
  plan.interchange.append(dims.n.begin(), dims.n.end());
  plan.interchange.append(dims.k.begin(), dims.k.end());
  return plan;
}

/// The permutation of `map`'s results that moves the innermost n dim (of
/// the RHS) last when a reduction dim is innermost, or none: with k
/// innermost, the kernel would gather each row of its tile element by
/// element (the transposed weight of mixprec.linear).
std::optional<SmallVector<int64_t>>
transposeForRHS(AffineMap map, const linalg::ContractionDimensions &dims,
                ArrayRef<int64_t> ranges) {
  if (dims.n.empty() || !map.isProjectedPermutation() ||
      map.getNumResults() < 2)
    return std::nullopt;
  unsigned nDim = dims.n.back();
  if (ranges[nDim] <= 1)
    return std::nullopt;
  auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
  if (!last || !llvm::is_contained(dims.k, last.getPosition()))
    return std::nullopt;
  std::optional<unsigned> nPos =
      map.getResultPosition(getAffineDimExpr(nDim, map.getContext()));
  if (!nPos)
    return std::nullopt;
  // Results [.., n, .., k] -> [.., .., k, n].
  SmallVector<int64_t> permutation;
  for (unsigned i = 0, e = map.getNumResults(); i < e; ++i)
    if (i != *nPos)
      permutation.push_back(i);
  permutation.push_back(*nPos);
  return permutation;
}

/// A copy of `source` whose dim i is dim `permutation[i]` of `source` and
/// whose elements are widened (arith.extf, exact) to `elementType`, as one
/// elementwise linalg.generic; `map` (the contraction's indexing map of the
/// operand) is updated to read the copy.
Value packOperand(RewriterBase &rewriter, Location loc, Value source,
                  ArrayRef<int64_t> permutation, Type elementType,
                  AffineMap &map) {
  auto type = cast<RankedTensorType>(source.getType());
  unsigned rank = type.getRank();
  MLIRContext *context = rewriter.getContext();
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> packedExprs, readExprs(rank);
  for (auto [i, from] : llvm::enumerate(permutation)) {
    shape.push_back(type.getDimSize(from));
    packedExprs.push_back(map.getResult(from));
    // Source dim `from` is copy dim i.
    readExprs[from] = getAffineDimExpr(i, context);
  }
  map = AffineMap::get(map.getNumDims(), map.getNumSymbols(), packedExprs,
                       context);
  Value init = tensor::EmptyOp::create(rewriter, loc, shape, elementType);
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, readExprs, context),
      AffineMap::getMultiDimIdentityMap(rank, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto copy = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, ValueRange{source},
      ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
        Value value = args[0];
        if (value.getType() != elementType)
          value = arith::ExtFOp::create(b, nestedLoc, elementType, value);
        linalg::YieldOp::create(b, nestedLoc, value);
      });
  return copy.getResult(0);
}

/// `op` (matmul, batch_matmul or a generic contraction) as one linalg.contract
/// with the same maps: a single form whose tiles vectorize to
/// vector.contract. Its inputs are first packed where that pays (O(size of
/// the operand) against the contraction's O(m*n*k)): a transposed RHS into
/// a layout with n innermost (`transpose`), 16-bit inputs widened to the
/// accumulator's type (`widen`, for inputs whose f32 copy takes at most
/// `widenLimit` bytes), so the kernel broadcasts and loads f32.
linalg::ContractOp rewriteAsContract(RewriterBase &rewriter,
                                     linalg::LinalgOp op,
                                     const linalg::ContractionDimensions &dims,
                                     bool transpose, bool widen,
                                     int64_t widenLimit) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  Value init = op.getDpsInitOperand(0)->get();
  Type accType = getElementTypeOrSelf(init.getType());
  rewriter.setInsertionPoint(op);
  bool mixedInputs =
      getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType()) !=
      getElementTypeOrSelf(op.getDpsInputOperand(1)->get().getType());
  for (unsigned i = 0; i < 2; ++i)
    if (cast<RankedTensorType>(op.getDpsInputOperand(i)->get().getType())
                .getNumElements() *
            4 >
        widenLimit)
      widen = false;
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < 2; ++i) {
    Value input = op.getDpsInputOperand(i)->get();
    auto type = cast<RankedTensorType>(input.getType());
    SmallVector<int64_t> permutation =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    bool permute = false;
    if (i == 1 && transpose) {
      if (auto rhsPermutation = transposeForRHS(maps[1], dims, ranges)) {
        permutation = *rhsPermutation;
        permute = true;
      }
    }
    // vector.contract takes one element type for both inputs: inputs of
    // different types are widened whatever `widen` says.
    Type elementType = type.getElementType();
    if (elementType != accType && (widen || mixedInputs))
      elementType = accType;
    if (permute || elementType != type.getElementType())
      input = packOperand(rewriter, op.getLoc(), input, permutation,
                          elementType, maps[i]);
    inputs.push_back(input);
  }
  auto contract = linalg::ContractOp::create(
      rewriter, op.getLoc(), op->getResultTypes(), inputs, ValueRange{init},
      rewriter.getAffineMapArrayAttr(maps));
  rewriter.replaceOp(op, contract->getResults());
  return contract;
}

/// A vector.contract of 16-bit inputs into an f32 accumulator (inputs too
/// large to widen in copies, `widen-limit`) widens each loaded tile in
/// registers (arith.extf, exact: F16C's vcvtph2ps on x86), since the
/// outer-product lowering takes one element type. A contract under a mask
/// is left as it is.
struct WidenContractInputs : public OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    Type accType = getElementTypeOrSelf(op.getAccType());
    auto widened = [&](Value input) -> Value {
      auto type = cast<VectorType>(input.getType());
      if (type.getElementType() == accType)
        return input;
      return arith::ExtFOp::create(rewriter, op.getLoc(), type.clone(accType),
                                   input);
    };
    if (!isa<FloatType>(accType) || op->getParentOfType<vector::MaskOp>() ||
        (getElementTypeOrSelf(op.getLhsType()) == accType &&
         getElementTypeOrSelf(op.getRhsType()) == accType))
      return failure();
    Value lhs = widened(op.getLhs()), rhs = widened(op.getRhs());
    rewriter.modifyOpInPlace(op, [&] {
      op.getLhsMutable().assign(lhs);
      op.getRhsMutable().assign(rhs);
    });
    return success();
  }
};

struct TileAndVectorizePass
    : public mixprec::impl::MixprecTileAndVectorizeBase<TileAndVectorizePass> {
  using MixprecTileAndVectorizeBase::MixprecTileAndVectorizeBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    MLIRContext *context = &getContext();
    if (tileM < 1 || tileN < 1 || tileK < 1) {
      function.emitError("mixprec-tile-and-vectorize: tile sizes must be "
                         "positive");
      return signalPassFailure();
    }

    SmallVector<linalg::LinalgOp> candidates;
    function.walk([&](linalg::LinalgOp op) {
      if (isCandidate(op))
        candidates.push_back(op);
    });
    if (candidates.empty())
      return;

    IRRewriter rewriter(context);
    for (linalg::LinalgOp op : candidates) {
      if (libraryContractions && leaveForLibrary(rewriter, op))
        continue;
      if (failed(tileContraction(rewriter, op)))
        return signalPassFailure();
    }

    // Peeled tiles become static: their affine.min sizes fold, single
    // iterations lose their loops and the slices their dynamic sizes. (Like
    // the canonicalizer, a rewrite that does not converge is not an error:
    // whatever is not static is masked.)
    {
      RewritePatternSet patterns(context);
      mixprec::populateCleanupPatterns(context, patterns);
      (void)applyPatternsGreedily(function, std::move(patterns));
    }

    SmallVector<linalg::LinalgOp> tiles;
    function.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kVectorSizesAttr))
        tiles.push_back(op);
    });
    for (linalg::LinalgOp tile : tiles) {
      auto sizes = cast<DenseI64ArrayAttr>(tile->getAttr(kVectorSizesAttr));
      tile->removeAttr(kVectorSizesAttr);
      // A static tile is vectorized at its shape; a dynamic one (not peeled)
      // with masks at the tile sizes.
      bool isStatic = !tile.hasDynamicShape();
      SmallVector<int64_t> vectorSizes;
      if (!isStatic)
        vectorSizes.assign(sizes.asArrayRef().begin(),
                           sizes.asArrayRef().end());
      SmallVector<bool> scalableDims(vectorSizes.size(), false);
      rewriter.setInsertionPoint(tile);
      FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
          rewriter, tile, vectorSizes, scalableDims,
          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/isStatic);
      if (failed(result)) {
        // Still correct: the tile becomes loops after bufferization.
        tile->emitWarning("mixprec-tile-and-vectorize: could not vectorize "
                          "this tile; it stays scalar");
        continue;
      }
      rewriter.replaceOp(tile, result->replacements);
    }

    // Slices fold into the transfers and unit batch dims leave the vectors
    // (contraction lowering expects none); then the accumulator's read/write
    // pair leaves each loop whose indices it does not depend on.
    {
      RewritePatternSet patterns(context);
      tensor::populateFoldTensorSubsetOpPatterns(patterns);
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      patterns.add<WidenContractInputs>(context);
      // Masked transfers (partial tiles, without peeling) take their mask as
      // an operand: bufferization and deallocation do not look into
      // vector.mask regions.
      vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
      mixprec::populateCleanupPatterns(context, patterns);
      (void)applyPatternsGreedily(function, std::move(patterns));
    }
    // Only the tile loops: those around the vector code of this pass.
    SmallVector<scf::ForOp> loops;
    function.walk([&](scf::ForOp loop) {
      WalkResult vectorCode = loop.getBody()->walk([](Operation *op) {
        return isa<vector::ContractionOp, vector::MultiDimReductionOp,
                   vector::MaskOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (vectorCode.wasInterrupted())
        loops.push_back(loop);
    });
    // Post-order: inner loops first, so a hoisted pair can move further out.
    for (scf::ForOp loop : loops) {
      moveLoopInvariantCode(loop);
      hoistLoopInvariantSubsets(rewriter, loop);
    }
    {
      RewritePatternSet patterns(context);
      mixprec::populateCleanupPatterns(context, patterns);
      (void)applyPatternsGreedily(function, std::move(patterns));
    }
  }

  /// Whether `op` is left for --mixprec-contractions-to-calls: f32 or bf16
  /// inputs as they are (the runtime widens bf16 a block at a time); other
  /// 16-bit inputs widened to f32 in copies when each copy fits
  /// `widen-limit`. Batched dot products (no m or n loop, a softmax's
  /// gradient) stay: one library call per output costs more than its sum.
  bool leaveForLibrary(RewriterBase &rewriter, linalg::LinalgOp op) {
    Type accType =
        getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
    if (!accType.isF32())
      return false;
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || (dims->m.empty() && dims->n.empty()))
      return false;
    SmallVector<RankedTensorType, 2> inputTypes;
    for (OpOperand *input : op.getDpsInputOperands())
      inputTypes.push_back(cast<RankedTensorType>(input->get().getType()));
    Type elementType = inputTypes[0].getElementType();
    if (elementType == inputTypes[1].getElementType() &&
        (elementType.isF32() || elementType.isBF16()))
      return true;
    for (RankedTensorType type : inputTypes)
      if (!type.getElementType().isF32() &&
          type.getNumElements() * 4 > widenLimit)
        return false;
    rewriteAsContract(rewriter, op, *dims, /*transpose=*/false,
                      /*widen=*/true, widenLimit);
    return true;
  }

  /// Packs, tiles and peels one contraction and marks its tiles.
  LogicalResult tileContraction(RewriterBase &rewriter, linalg::LinalgOp op) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims))
      return success();
    linalg::ContractOp contract = rewriteAsContract(
        rewriter, op, *dims, packTransposed, widenInputs, widenLimit);
    op = cast<linalg::LinalgOp>(contract.getOperation());
    TilingPlan plan = planTiling(op, *dims, tileM, tileN, tileK);

    scf::SCFTilingOptions options;
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
    options.setTileSizes(
        getAsIndexOpFoldResult(rewriter.getContext(), plan.tileSizes));
    options.setInterchange(plan.interchange);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled))
      return op->emitError("mixprec-tile-and-vectorize: tiling failed");
    rewriter.replaceOp(op, tiled->replacements);
    for (Operation *tile : tiled->tiledOps)
      tile->setAttr(kVectorSizesAttr,
                    rewriter.getDenseI64ArrayAttr(plan.vectorSizes));

    if (!peel)
      return success();
    // Innermost first: peeling an outer loop clones the (already peeled)
    // loops inside it.
    for (LoopLikeOpInterface loop : llvm::reverse(tiled->loops)) {
      auto forOp = dyn_cast<scf::ForOp>(loop.getOperation());
      if (!forOp)
        continue;
      scf::ForOp partial;
      // Fails (and changes nothing) when the step divides the trip range.
      (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial);
    }
    return success();
  }
};

} // namespace
