//===- TransposeLaneBlocks.cpp - lane reductions on transposed blocks -----===//
//
// --mixprec-transpose-lane-blocks: a reduction that
// --mixprec-reduce-across-lanes left with its lanes innermost reads each
// reduced operand with gathers from one row per lane. Here it reads the
// operand in square blocks instead: one contiguous vector per row,
// transposed in registers, then the block's columns added to the lanes'
// accumulators in their order. Each lane still sums its output in its own
// order: the same bits, with contiguous loads and the accumulators in
// registers across the whole reduction.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/CleanupPatterns.h"
#include "mixprec/Codegen/ContractionBody.h"
#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECTRANSPOSELANEBLOCKS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// Whether `op` is a reduction with `lanes` lanes innermost, its one reduced
/// loop just outside them and a multiple of `lanes` long, every other loop
/// parallel, and at least one f32 operand that both index with the reduced
/// loop last (the rows a block reads). Other operands may index either
/// loop alone (a row's maximum, a column's weight).
bool isLaneReduction(linalg::GenericOp op, int64_t lanes) {
  // A contraction adds each product with a fused multiply-add
  // (docs/design.md §4), which the vectorized reduction would not.
  if (!op.hasPureTensorSemantics() || op.hasIndexSemantics() ||
      mixprec::computesContract(op))
    return false;
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 2)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned laneDim = numLoops - 1, reducedDim = numLoops - 2;
  if (iterators[laneDim] != utils::IteratorType::parallel ||
      ranges[laneDim] != lanes ||
      iterators[reducedDim] != utils::IteratorType::reduction ||
      ranges[reducedDim] % lanes != 0)
    return false;
  for (unsigned dim = 0; dim < reducedDim; ++dim)
    if (iterators[dim] != utils::IteratorType::parallel)
      return false;
  bool readsBlocks = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation())
      return false;
    if (!map.isFunctionOfDim(reducedDim) || !map.isFunctionOfDim(laneDim))
      continue;
    if (map.getResults().back() !=
            getAffineDimExpr(reducedDim, op.getContext()) ||
        !getElementTypeOrSelf(input->get().getType()).isF32())
      return false;
    readsBlocks = true;
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isProjectedPermutation())
      return false;
  return readsBlocks && succeeded(linalg::vectorizeOpPrecondition(op));
}

/// Tiles `op` by `sizes` (0: whole) into loops of `type`; returns the tile.
FailureOr<linalg::GenericOp> tile(RewriterBase &rewriter, linalg::GenericOp op,
                                  ArrayRef<int64_t> sizes,
                                  scf::SCFTilingOptions::LoopType type) {
  scf::SCFTilingOptions options;
  options.setLoopType(type);
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(op, tiled->replacements);
  auto tiledOp = dyn_cast<linalg::GenericOp>(tiled->tiledOps.front());
  if (!tiledOp)
    return failure();
  return tiledOp;
}

/// `op` as an scf.forall over its parallel loops but the lanes, one
/// iteration per output block, around an scf.for over its reduced loop in
/// steps of `lanes`, around the vector code of one lanes x lanes block.
LogicalResult vectorizeInBlocks(RewriterBase &rewriter, linalg::GenericOp op,
                                int64_t lanes) {
  unsigned numLoops = op.getNumLoops();
  unsigned reducedDim = numLoops - 2;
  if (reducedDim > 0) {
    // The forall's first loop is where the model's threads split the nest.
    SmallVector<int64_t> outer(numLoops, 0);
    std::fill_n(outer.begin(), reducedDim, 1);
    FailureOr<linalg::GenericOp> block =
        tile(rewriter, op, outer, scf::SCFTilingOptions::LoopType::ForallOp);
    if (failed(block))
      return failure();
    op = *block;
  }
  SmallVector<int64_t> reduced(numLoops, 0);
  reduced[reducedDim] = lanes;
  FailureOr<linalg::GenericOp> square =
      tile(rewriter, op, reduced, scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(square))
    return failure();
  rewriter.setInsertionPoint(*square);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, *square);
  if (failed(vectorized))
    return failure();
  rewriter.replaceOp(*square, vectorized->replacements);
  return success();
}

/// An elementwise op on 2-D vectors whose every user takes one row of it:
/// one op per row instead, on the operands' rows, so that the code after
/// is 1-D (LLVM's intrinsics, and so --mixprec-expand-math, take no 2-D
/// vectors) and a transposed block's rows are the shuffles' results.
struct ElementwiseByRows : RewritePattern {
  explicit ElementwiseByRows(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!OpTrait::hasElementwiseMappableTraits(op) ||
        op->getNumResults() != 1 || op->use_empty())
      return failure();
    auto type = dyn_cast<VectorType>(op->getResult(0).getType());
    if (!type || type.getRank() != 2)
      return failure();
    SmallVector<vector::ExtractOp> rows;
    for (Operation *user : op->getUsers()) {
      auto extract = dyn_cast<vector::ExtractOp>(user);
      if (!extract || extract.getNumIndices() != 1 ||
          extract.hasDynamicPosition())
        return failure();
      rows.push_back(extract);
    }
    for (vector::ExtractOp row : rows) {
      int64_t position = row.getStaticPosition()[0];
      rewriter.setInsertionPoint(row);
      SmallVector<Value> operands;
      for (Value operand : op->getOperands())
        operands.push_back(isa<VectorType>(operand.getType())
                               ? vector::ExtractOp::create(
                                     rewriter, op->getLoc(), operand, position)
                                     .getResult()
                               : operand);
      Operation *rowOp =
          rewriter.create(op->getLoc(), op->getName().getIdentifier(), operands,
                          TypeRange{row.getType()}, op->getAttrs());
      rewriter.replaceOp(row, rowOp->getResults());
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// A 2-D read that takes its two memory dimensions in the other order (a
/// block read by columns) reads in memory order, then transposes: one
/// contiguous row per vector. (Upstream's permutation lowering declines a
/// unit dimension between the two: a layer norm's chunk of its row.)
struct ReadRowsThenTranspose : OpRewritePattern<vector::TransferReadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransferReadOp read,
                                PatternRewriter &rewriter) const override {
    VectorType type = read.getVectorType();
    AffineMap map = read.getPermutationMap();
    if (type.getRank() != 2 || read.getMask() || map.getNumResults() != 2)
      return failure();
    auto columns = dyn_cast<AffineDimExpr>(map.getResult(0));
    auto rows = dyn_cast<AffineDimExpr>(map.getResult(1));
    if (!columns || !rows || rows.getPosition() >= columns.getPosition())
      return failure();
    SmallVector<bool> inBounds = read.getInBoundsValues();
    auto rowMajor = vector::TransferReadOp::create(
        rewriter, read.getLoc(),
        VectorType::get({type.getDimSize(1), type.getDimSize(0)},
                        type.getElementType()),
        read.getBase(), read.getIndices(), read.getPadding(),
        AffineMap::get(map.getNumDims(), 0, {rows, columns}, read.getContext()),
        ArrayRef<bool>{inBounds[1], inBounds[0]});
    rewriter.replaceOpWithNewOp<vector::TransposeOp>(read, rowMajor,
                                                     ArrayRef<int64_t>{1, 0});
    return success();
  }
};

/// Row i of a transposed broadcast of a 1-D vector (a column's weight read
/// in a block) is element i of the vector, splat: no shuffles.
struct RowOfTransposedBroadcast : OpRewritePattern<vector::ExtractOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ExtractOp row,
                                PatternRewriter &rewriter) const override {
    if (row.getNumIndices() != 1 || row.hasDynamicPosition())
      return failure();
    auto transpose = row.getSource().getDefiningOp<vector::TransposeOp>();
    if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
      return failure();
    auto broadcast = transpose.getVector().getDefiningOp<vector::BroadcastOp>();
    auto sourceType =
        broadcast ? dyn_cast<VectorType>(broadcast.getSourceType()) : nullptr;
    if (!sourceType || sourceType.getRank() != 1)
      return failure();
    Value element =
        vector::ExtractOp::create(rewriter, row.getLoc(), broadcast.getSource(),
                                  row.getStaticPosition()[0]);
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(row, row.getType(),
                                                     element);
    return success();
  }
};

void applyCleanup(Operation *root, RewritePatternSet &&patterns) {
  mixprec::populateCleanupPatterns(root->getContext(), patterns);
  (void)applyPatternsGreedily(root, std::move(patterns));
}

class TransposeLaneBlocksPass
    : public mixprec::impl::MixprecTransposeLaneBlocksBase<
          TransposeLaneBlocksPass> {
public:
  using Base::Base;
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    MLIRContext *context = &getContext();
    SmallVector<linalg::GenericOp> reductions;
    function.walk([&](linalg::GenericOp op) {
      if (isLaneReduction(op, lanes))
        reductions.push_back(op);
    });
    if (reductions.empty())
      return;
    IRRewriter rewriter(context);
    for (linalg::GenericOp op : reductions)
      if (failed(vectorizeInBlocks(rewriter, op, lanes))) {
        op->emitError("mixprec-transpose-lane-blocks: could not tile and "
                      "vectorize this reduction");
        return signalPassFailure();
      }

    // Slices fold into the transfers and the blocks' unit dims leave the
    // vectors; then the accumulators' read and write leave the loop over
    // the reduced loop's blocks: they stay in registers across it.
    {
      RewritePatternSet patterns(context);
      tensor::populateFoldTensorSubsetOpPatterns(patterns);
      vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
      applyCleanup(function, std::move(patterns));
    }
    function.walk([&](scf::ForOp loop) {
      WalkResult reduces = loop.getBody()->walk([](Operation *op) {
        return isa<vector::MultiDimReductionOp>(op) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
      });
      if (reduces.wasInterrupted()) {
        moveLoopInvariantCode(loop);
        hoistLoopInvariantSubsets(rewriter, loop);
      }
    });
    // A transposed read becomes a read of the block's rows and a
    // vector.transpose; the reduction adds the block's columns to the
    // accumulators one after the other; the body runs row by row.
    {
      RewritePatternSet patterns(context);
      vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
      patterns.add<ReadRowsThenTranspose>(context);
      vector::populateVectorMultiReductionLoweringPatterns(
          patterns, vector::VectorMultiReductionLowering::InnerParallel);
      patterns.add<ElementwiseByRows, RowOfTransposedBroadcast>(context);
      applyCleanup(function, std::move(patterns));
    }
    // The transposes become shuffles, whose results are the rows read.
    {
      RewritePatternSet patterns(context);
      vector::populateVectorTransposeLoweringPatterns(
          patterns, vector::VectorTransposeLowering::Shuffle16x16);
      applyCleanup(function, std::move(patterns));
    }
  }
};

} // namespace
