//===- ShapeAdjoints.cpp - adjoints of shape and data-movement ops --------===//
//
// Reverse-mode rules (AdjointOpInterface) of reshape, transpose, broadcast,
// slice, concat and embedding: each moves the gradient back to where its
// forward op took the elements from.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

using namespace mlir;
using namespace mixprec;

LogicalResult ReshapeOp::buildAdjoint(AdjointContext &context,
                                      ArrayRef<Value> resultGradients) {
  Value g = resultGradients.front();
  Type elementType = cast<RankedTensorType>(g.getType()).getElementType();
  context.accumulate(
      getInput(), context.reshape(g, getInput().getType().clone(elementType)));
  return success();
}

LogicalResult TransposeOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  ArrayRef<int64_t> permutation = getPermutation();
  SmallVector<int64_t> inverse(permutation.size());
  for (auto [to, from] : llvm::enumerate(permutation))
    inverse[from] = to;
  context.accumulate(getInput(), context.create<TransposeOp>(
                                     resultGradients.front(), inverse));
  return success();
}

LogicalResult BroadcastOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  context.accumulate(
      getInput(), context.sumTo(resultGradients.front(), getInput().getType()));
  return success();
}

LogicalResult SliceOp::buildAdjoint(AdjointContext &context,
                                    ArrayRef<Value> resultGradients) {
  // The gradient in place, spread out by the strides, zeros around it:
  // concats per dim.
  Value g = resultGradients.front();
  RankedTensorType inputType = getInput().getType();
  Type type = cast<RankedTensorType>(g.getType()).getElementType();
  std::optional<ArrayRef<int64_t>> strides = getStrides();
  Value padded = g;
  for (int64_t dim = 0; dim < inputType.getRank(); ++dim) {
    int64_t before = getOffsets()[dim];
    padded = context.unstride(padded, dim, strides ? (*strides)[dim] : 1,
                              inputType.getDimSize(dim) - before);
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(padded.getType()).getShape());
    int64_t after = inputType.getDimSize(dim) - before - shape[dim];
    SmallVector<Value> parts;
    for (int64_t size : {before, int64_t(-1), after}) {
      if (size == -1) {
        parts.push_back(padded);
      } else if (size > 0) {
        shape[dim] = size;
        parts.push_back(context.splat(0.0, RankedTensorType::get(shape, type)));
      }
    }
    if (parts.size() > 1)
      padded = context.create<ConcatOp>(parts, static_cast<uint64_t>(dim));
  }
  context.accumulate(getInput(), padded);
  return success();
}

LogicalResult ConcatOp::buildAdjoint(AdjointContext &context,
                                     ArrayRef<Value> resultGradients) {
  Value g = resultGradients.front();
  int64_t axis = getAxis();
  SmallVector<int64_t> offsets(getType().getRank(), 0);
  for (Value input : getInputs()) {
    SmallVector<int64_t> sizes(
        cast<RankedTensorType>(input.getType()).getShape());
    Value part =
        context.create<SliceOp>(g, offsets, sizes, DenseI64ArrayAttr());
    context.accumulateCast(input, part);
    offsets[axis] += sizes[axis];
  }
  return success();
}

LogicalResult EmbeddingOp::buildAdjoint(AdjointContext &context,
                                        ArrayRef<Value> resultGradients) {
  RankedTensorType table = getTable().getType();
  OpBuilder &b = context.getBuilder();
  context.accumulate(getTable(),
                     context.create<EmbeddingGradOp>(
                         table, resultGradients.front(), getIndices(),
                         b.getI64IntegerAttr(table.getDimSize(0))));
  return success();
}
