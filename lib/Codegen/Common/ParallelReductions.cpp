//===- ParallelReductions.cpp - reductions on many GPU threads ------------===//
//
// A GPU thread runs the reduced loops of its output element one after the
// other. Two things keep a reduction on a few threads: many elements
// reduced into few outputs (a loss, the all-finite check, batch-norm
// statistics), and a reduced loop outside a parallel one (the loop nest is
// then a sequential loop, one thread). Here such a reduction becomes two:
// partial results of fixed chunks, computed in parallel, then the chunks
// combined in order; and, for the GPU, the parallel loops move outermost.
// The chunks depend only on the shapes, so the bits do not depend on the
// launch configuration, and the CPU, which splits the same way, sums in the
// same order.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/ContractionBody.h"
#include "mixprec/Codegen/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECPARALLELREDUCTIONS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// What splitting a reduction needs to know: the dimension split, into how
/// many chunks, and each output's combiner with its neutral element.
struct Split {
  unsigned dim;
  int64_t chunks;
  bool whole; // chunks of one element: the dimension becomes parallel
  SmallVector<Operation *> combiners;
  SmallVector<TypedAttr> neutral;
};

/// `op` with its parallel loops outside its reduced ones, each kind in its
/// order: each output element reduces in the same order as before.
linalg::GenericOp moveParallelOutermost(RewriterBase &rewriter,
                                        linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || mixprec::computesContract(op))
    return op;
  SmallVector<unsigned> order;
  SmallVector<unsigned> reduced;
  for (auto [dim, type] : llvm::enumerate(op.getIteratorTypesArray()))
    (type == utils::IteratorType::parallel ? order : reduced).push_back(dim);
  llvm::append_range(order, reduced);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return op;
  FailureOr<linalg::GenericOp> interchanged =
      linalg::interchangeGenericOp(rewriter, op, order);
  return succeeded(interchanged) ? *interchanged : op;
}

/// The split of `op` that leaves each thread at most `maxSerial` reduced
/// elements, or nothing when `op` needs none or cannot be split.
std::optional<Split> chooseSplit(linalg::GenericOp op, int64_t maxSerial) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() == 0 ||
      mixprec::computesContract(op) ||
      !op.getBody()->getOps<linalg::IndexOp>().empty() ||
      !op.getShapesToLoopsMap())
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t reduced = 1;
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  for (unsigned dim : reductionDims) {
    if (ShapedType::isDynamic(ranges[dim]))
      return std::nullopt;
    reduced *= ranges[dim];
  }
  if (reduced <= maxSerial)
    return std::nullopt;
  Split split;
  for (unsigned i = 0; i < op.getNumDpsInits(); ++i) {
    SmallVector<Operation *> combiners;
    if (!matchReduction(op.getRegionOutputArgs(), i, combiners) ||
        combiners.size() != 1)
      return std::nullopt;
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combiners[0]);
    if (!neutral)
      return std::nullopt;
    split.combiners.push_back(combiners[0]);
    split.neutral.push_back(*neutral);
  }
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!op.getMatchingIndexingMap(&init).isProjectedPermutation())
      return std::nullopt;
  // The outermost reduced dimension that can be cut: into the fewest
  // chunks that leave at most maxSerial elements each; else, when other
  // reduced dimensions remain, into all of its elements (a later round cuts
  // the next one); else into as many chunks as it divides into. A prime
  // length alone cannot be cut.
  for (unsigned dim : reductionDims) {
    int64_t size = ranges[dim];
    // Each input that reads the dimension takes it whole: it is cut by a
    // reshape, a view.
    bool cuttable = size >= 2;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      for (AffineExpr expr : map.getResults())
        if (expr.isFunctionOfDim(dim) && !isa<AffineDimExpr>(expr))
          cuttable = false;
    }
    if (!cuttable)
      continue;
    int64_t fewest = 0, most = 0;
    for (int64_t chunks = 2; chunks < size && !fewest; ++chunks)
      if (size % chunks == 0) {
        most = chunks;
        if (reduced / chunks <= maxSerial)
          fewest = chunks;
      }
    split.dim = dim;
    split.chunks = fewest ? fewest : reduced > size ? size : most;
    split.whole = split.chunks == size;
    if (split.chunks)
      return split;
  }
  return std::nullopt;
}

/// Rewrites `op` as its partial results over the chunks of `split`, then
/// their combination in chunk order; returns the two new ops.
std::pair<linalg::GenericOp, linalg::GenericOp>
applySplit(RewriterBase &rewriter, linalg::GenericOp op, const Split &split) {
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  unsigned numDims = op.getNumLoops();
  // Cut into all of its elements, the dimension itself becomes parallel.
  // Else new dimension 0 is the chunk, old dimension k is k + 1, and the
  // split one is the position within the chunk.
  unsigned newDims = split.whole ? numDims : numDims + 1;
  AffineExpr chunk = getAffineDimExpr(split.whole ? split.dim : 0, context);
  SmallVector<AffineExpr> replacements;
  for (unsigned dim = 0; dim < numDims; ++dim)
    replacements.push_back(
        getAffineDimExpr(split.whole ? dim : dim + 1, context));
  rewriter.setInsertionPoint(op);
  // Each input that reads the split dimension is viewed with it cut in two.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (split.whole) {
      inputs.push_back(input->get());
      maps.push_back(map);
      continue;
    }
    auto type = cast<RankedTensorType>(input->get().getType());
    SmallVector<AffineExpr> exprs;
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> groups;
    for (auto [position, expr] : llvm::enumerate(map.getResults())) {
      int64_t size = type.getDimSize(position);
      if (expr.isFunctionOfDim(split.dim)) {
        groups.push_back({int64_t(shape.size()), int64_t(shape.size()) + 1});
        exprs.push_back(getAffineDimExpr(0, context));
        exprs.push_back(getAffineDimExpr(split.dim + 1, context));
        shape.push_back(split.chunks);
        shape.push_back(size / split.chunks);
        continue;
      }
      groups.push_back({int64_t(shape.size())});
      exprs.push_back(expr.replaceDims(replacements));
      shape.push_back(size);
    }
    maps.push_back(AffineMap::get(numDims + 1, 0, exprs, context));
    Value value = input->get();
    if (shape.size() != size_t(type.getRank()))
      value = tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
          value, groups);
    inputs.push_back(value);
  }
  SmallVector<Value> partialInits;
  SmallVector<Type> partialTypes;
  for (auto [i, init] : llvm::enumerate(op.getDpsInits())) {
    auto type = cast<RankedTensorType>(init.getType());
    SmallVector<int64_t> shape = {split.chunks};
    llvm::append_range(shape, type.getShape());
    auto partialType = RankedTensorType::get(shape, type.getElementType());
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    Value neutral = arith::ConstantOp::create(rewriter, loc, split.neutral[i]);
    partialInits.push_back(
        linalg::FillOp::create(rewriter, loc, neutral, empty).getResult(0));
    partialTypes.push_back(partialType);
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(i));
    SmallVector<AffineExpr> exprs = {chunk};
    for (AffineExpr expr : outMap.getResults())
      exprs.push_back(expr.replaceDims(replacements));
    maps.push_back(AffineMap::get(newDims, 0, exprs, context));
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (split.whole)
    iterators[split.dim] = utils::IteratorType::parallel;
  else
    iterators.insert(iterators.begin(), utils::IteratorType::parallel);
  auto partial = linalg::GenericOp::create(rewriter, loc, partialTypes, inputs,
                                           partialInits, maps, iterators);
  rewriter.cloneRegionBefore(op.getRegion(), partial.getRegion(),
                             partial.getRegion().end());

  // The chunks combined in order, into the original outputs.
  unsigned outRank =
      cast<RankedTensorType>(op.getDpsInits()[0].getType()).getRank();
  SmallVector<AffineMap> combineMaps;
  AffineMap all = rewriter.getMultiDimIdentityMap(outRank + 1);
  for (unsigned i = 0; i < op.getNumDpsInits(); ++i)
    combineMaps.push_back(all);
  for (unsigned i = 0; i < op.getNumDpsInits(); ++i)
    combineMaps.push_back(all.dropResult(0));
  SmallVector<utils::IteratorType> combineIterators(
      outRank + 1, utils::IteratorType::parallel);
  combineIterators[0] = utils::IteratorType::reduction;
  unsigned numOutputs = op.getNumDpsInits();
  auto combine = linalg::GenericOp::create(
      rewriter, loc, op.getResultTypes(), partial.getResults(),
      op.getDpsInits(), combineMaps, combineIterators,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        SmallVector<Value> yields;
        for (unsigned i = 0; i < numOutputs; ++i) {
          Operation *combiner = split.combiners[i];
          BlockArgument acc = op.getRegionOutputArgs()[i];
          IRMapping mapping;
          for (Value operand : combiner->getOperands())
            mapping.map(operand,
                        operand == acc ? args[numOutputs + i] : args[i]);
          yields.push_back(b.clone(*combiner, mapping)->getResult(0));
        }
        linalg::YieldOp::create(b, loc, yields);
      });
  rewriter.replaceOp(op, combine.getResults());
  return {partial, combine};
}

struct MixprecParallelReductionsPass
    : public mixprec::impl::MixprecParallelReductionsBase<
          MixprecParallelReductionsPass> {
  using Base::Base;
  void runOnOperation() override {
    if (maxSerial < 1) {
      getOperation().emitError("max-serial must be at least 1");
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> worklist;
    getOperation().walk([&](linalg::GenericOp op) { worklist.push_back(op); });
    IRRewriter rewriter(&getContext());
    while (!worklist.empty()) {
      linalg::GenericOp op = worklist.pop_back_val();
      if (parallelOutermost)
        op = moveParallelOutermost(rewriter, op);
      std::optional<Split> split = chooseSplit(op, maxSerial);
      if (!split)
        continue;
      auto [partial, combine] = applySplit(rewriter, op, *split);
      worklist.push_back(partial);
      worklist.push_back(combine);
    }
  }
};

} // namespace
