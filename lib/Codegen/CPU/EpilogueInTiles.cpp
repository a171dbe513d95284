//===- EpilogueInTiles.cpp - a contraction's epilogue on its register tiles //
//
// --mixprec-epilogue-in-tiles: after --mixprec-tile-and-vectorize, the
// elementwise op that reads a contraction's f32 sums (its bias, its rounding
// to 16 bits, and what elementwise fusion put after them) runs on each
// register tile as the tile is written: the contraction's f32 result is
// never held whole, nor read back.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/ADT/SetVector.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECEPILOGUEINTILES
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// The values a tiled contraction threads its sums through, from a
/// linalg.fill to the value its epilogue reads: the fill, the loops'
/// iter_args and results, and each tile written. The epilogue can move into
/// the tiles when every value is only threaded on, or read by a
/// transfer_read of the tile that is written next (so each tile is read
/// once, still holding the fill, then written), in loops whose induction
/// variables index that tile.
struct Accumulator {
  linalg::FillOp fill;
  llvm::SetVector<Value> values;
  SmallVector<vector::TransferReadOp> reads;
  SmallVector<vector::TransferWriteOp> writes;

  bool collect(Value sums, Operation *epilogue) {
    SmallVector<Value> worklist = {sums};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (!values.insert(value))
        continue;
      if (auto argument = dyn_cast<BlockArgument>(value)) {
        auto loop = dyn_cast<scf::ForOp>(argument.getOwner()->getParentOp());
        if (!loop || argument.getArgNumber() == 0)
          return false;
        worklist.push_back(loop.getInitArgs()[argument.getArgNumber() - 1]);
        continue;
      }
      Operation *producer = value.getDefiningOp();
      if (auto write = dyn_cast<vector::TransferWriteOp>(producer)) {
        if (write.getMask() || !write.getPermutationMap().isMinorIdentity() ||
            llvm::any_of(write.getInBoundsValues(),
                         [](bool inBounds) { return !inBounds; }))
          return false;
        writes.push_back(write);
        worklist.push_back(write.getBase());
      } else if (auto loop = dyn_cast<scf::ForOp>(producer)) {
        unsigned i = cast<OpResult>(value).getResultNumber();
        worklist.push_back(loop.getYieldedValues()[i]);
        worklist.push_back(loop.getRegionIterArgs()[i]);
      } else if (auto init = dyn_cast<linalg::FillOp>(producer)) {
        if (fill ||
            !init.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>())
          return false;
        fill = init;
      } else {
        return false;
      }
    }
    return fill && usesAreThreadsOrPairedReads(sums, epilogue);
  }

private:
  bool usesAreThreadsOrPairedReads(Value sums, Operation *epilogue) {
    for (Value value : values)
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        if (value == sums && user == epilogue)
          continue;
        if (isa<scf::YieldOp>(user) &&
            values.contains(
                user->getParentOp()->getResult(use.getOperandNumber())))
          continue;
        if (auto loop = dyn_cast<scf::ForOp>(user);
            loop && use.getOperandNumber() >= loop.getNumControlOperands() &&
            values.contains(loop.getTiedLoopRegionIterArg(&use)))
          continue;
        if (auto write = dyn_cast<vector::TransferWriteOp>(user);
            write && &use == &write.getBaseMutable())
          continue;
        auto read = dyn_cast<vector::TransferReadOp>(user);
        if (!read || read.getMask() || !isReadOfTileWrittenNext(read, value))
          return false;
        reads.push_back(read);
      }
    return true;
  }

  bool isReadOfTileWrittenNext(vector::TransferReadOp read, Value value) {
    bool written = llvm::any_of(value.getUsers(), [&](Operation *user) {
      auto write = dyn_cast<vector::TransferWriteOp>(user);
      return write && write->getBlock() == read->getBlock() &&
             read->isBeforeInBlock(write) &&
             write.getIndices() == read.getIndices() &&
             write.getVectorType().getShape() ==
                 read.getVectorType().getShape() &&
             write.getPermutationMap() == read.getPermutationMap();
    });
    if (!written)
      return false;
    for (auto loop = read->getParentOfType<scf::ForOp>(); loop;
         loop = loop->getParentOfType<scf::ForOp>()) {
      if (llvm::none_of(loop.getRegionIterArgs(), [&](Value argument) {
            return values.contains(argument);
          }))
        break;
      if (!llvm::is_contained(read.getIndices(), loop.getInductionVar()))
        return false;
    }
    return true;
  }
};

/// The input of `epilogue` that reads the sums: an elementwise generic with
/// one result, written through the identity, whose inputs are all read
/// through projected permutations and of whole bytes (no i1 mask), one of
/// them (the sums) through the identity, and whose body is scalar arith and
/// math that does not read the output.
OpOperand *sumsOperand(linalg::GenericOp epilogue) {
  if (epilogue.getNumDpsInits() != 1 || epilogue->getNumResults() != 1 ||
      epilogue.getNumLoops() != epilogue.getNumParallelLoops() ||
      !epilogue.hasPureTensorSemantics() ||
      !epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0))
           .isIdentity())
    return nullptr;
  Block *body = epilogue.getBody();
  if (!body->getArguments().back().use_empty())
    return nullptr;
  for (Operation &op : body->without_terminator())
    if (!isa<arith::ConstantOp>(op) &&
        !(op.hasTrait<OpTrait::Elementwise>() &&
          isa<arith::ArithDialect, math::MathDialect>(op.getDialect())))
      return nullptr;
  OpOperand *sums = nullptr;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation())
      return nullptr;
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    // A vector of i1 is bit-packed in memory, a buffer of i1 is not: masks
    // are read by the whole-tensor op.
    if (!type || type.getElementTypeBitWidth() % 8 != 0)
      return nullptr;
    Operation *producer = input->get().getDefiningOp();
    if (!sums && map.isIdentity() && type.getElementType().isF32() &&
        isa_and_nonnull<vector::TransferWriteOp, scf::ForOp>(producer))
      sums = input;
  }
  return sums;
}

/// The epilogue's body on the tile `sums` (written at `indices` of the
/// output, through a minor identity of `outputRank` dims): the other
/// inputs are read at that tile, broadcast where their maps drop dims.
Value epilogueOnTile(OpBuilder &b, Location loc, linalg::GenericOp epilogue,
                     OpOperand *sumsInput, Value sums, ValueRange indices) {
  auto tileType = cast<VectorType>(sums.getType());
  unsigned outputRank = indices.size();
  unsigned tileRank = tileType.getRank();
  Block *body = epilogue.getBody();
  IRMapping mapping;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    BlockArgument argument = body->getArgument(input->getOperandNumber());
    if (input == sumsInput) {
      mapping.map(argument, sums);
      continue;
    }
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    auto type = cast<RankedTensorType>(input->get().getType());
    SmallVector<Value> at;
    SmallVector<AffineExpr> toTile(tileRank, b.getAffineConstantExpr(0));
    for (auto [position, result] : llvm::enumerate(map.getResults())) {
      unsigned dim = cast<AffineDimExpr>(result).getPosition();
      at.push_back(indices[dim]);
      // Output dim `dim` is tile dim dim - (outputRank - tileRank).
      if (dim + tileRank >= outputRank)
        toTile[dim + tileRank - outputRank] = b.getAffineDimExpr(position);
    }
    AffineMap permutation =
        AffineMap::get(map.getNumResults(), 0, toTile, b.getContext());
    Value padding =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
    SmallVector<bool> inBounds(tileRank, true);
    Value read = vector::TransferReadOp::create(
        b, loc, tileType.clone(type.getElementType()), input->get(), at,
        padding, permutation, inBounds);
    mapping.map(argument, read);
  }
  for (Operation &op : body->without_terminator()) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto splat = SplatElementsAttr::get(tileType.clone(constant.getType()),
                                          constant.getValue());
      mapping.map(constant.getResult(),
                  arith::ConstantOp::create(b, loc, splat).getResult());
      continue;
    }
    // Scalars from outside the body are the same for every element.
    for (Value operand : op.getOperands())
      if (!mapping.contains(operand) && operand.getParentBlock() != body)
        mapping.map(operand,
                    vector::BroadcastOp::create(
                        b, loc, tileType.clone(operand.getType()), operand)
                        .getResult());
    // Elementwise ops take vectors as they take scalars.
    Operation *vectorOp = b.clone(op, mapping);
    for (OpResult result : vectorOp->getResults())
      result.setType(tileType.clone(result.getType()));
  }
  return mapping.lookup(body->getTerminator()->getOperand(0));
}

/// Moves `epilogue` into the tiles of `accumulator`: the threaded values
/// take the epilogue's result type, each tile is written through the
/// epilogue, and each read of a tile is the fill's value.
void moveIntoTiles(Accumulator &accumulator, linalg::GenericOp epilogue,
                   OpOperand *sumsInput) {
  auto resultType = cast<RankedTensorType>(epilogue.getResult(0).getType());
  OpBuilder b(accumulator.fill);
  Value fillValue = accumulator.fill.getDpsInputOperand(0)->get();
  for (vector::TransferReadOp read : accumulator.reads) {
    b.setInsertionPoint(read);
    Value filled = vector::BroadcastOp::create(b, read.getLoc(),
                                               read.getVectorType(), fillValue);
    read.getResult().replaceAllUsesWith(filled);
    read.erase();
  }
  for (vector::TransferWriteOp write : accumulator.writes) {
    b.setInsertionPoint(write);
    Value tile = epilogueOnTile(b, write.getLoc(), epilogue, sumsInput,
                                write.getValueToStore(), write.getIndices());
    write.getValueToStoreMutable().assign(tile);
  }
  b.setInsertionPoint(accumulator.fill);
  Value empty = tensor::EmptyOp::create(b, accumulator.fill.getLoc(),
                                        resultType.getShape(),
                                        resultType.getElementType());
  Value fillResult = accumulator.fill.getResult(0);
  for (Value value : accumulator.values)
    if (value != fillResult)
      value.setType(resultType);
  fillResult.replaceAllUsesWith(empty);
  accumulator.fill.erase();
  epilogue.getResult(0).replaceAllUsesWith(sumsInput->get());
  epilogue.erase();
}

struct EpilogueInTilesPass
    : public mixprec::impl::MixprecEpilogueInTilesBase<EpilogueInTilesPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> epilogues;
    getOperation().walk([&](linalg::GenericOp op) {
      if (sumsOperand(op))
        epilogues.push_back(op);
    });
    for (linalg::GenericOp epilogue : epilogues) {
      OpOperand *sums = sumsOperand(epilogue);
      if (!sums->get().hasOneUse() ||
          cast<RankedTensorType>(sums->get().getType()).getShape() !=
              cast<RankedTensorType>(epilogue.getResult(0).getType())
                  .getShape())
        continue;
      Accumulator accumulator;
      // In the fill's block, where what it reads can be checked to be
      // defined before the tiles.
      if (!accumulator.collect(sums->get(), epilogue) ||
          epilogue->getBlock() != accumulator.fill->getBlock())
        continue;
      // The epilogue's other inputs, and the scalars its body reads from
      // outside, are read where the tiles are written.
      SmallVector<Value> read =
          llvm::map_to_vector(epilogue.getDpsInputOperands(),
                              [](OpOperand *input) { return input->get(); });
      epilogue.getBody()->walk([&](Operation *op) {
        for (Value operand : op->getOperands())
          if (operand.getParentBlock() != epilogue.getBody())
            read.push_back(operand);
      });
      if (llvm::any_of(read, [&](Value value) {
            Operation *producer = value.getDefiningOp();
            return value != sums->get() && producer &&
                   producer->getBlock() == accumulator.fill->getBlock() &&
                   !producer->isBeforeInBlock(accumulator.fill);
          }))
        continue;
      moveIntoTiles(accumulator, epilogue, sums);
    }
  }
};

} // namespace
