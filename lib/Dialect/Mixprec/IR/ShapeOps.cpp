//===- ShapeOps.cpp - reductions, data movement and pooling ---------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mixprec;

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// reshape, broadcast and slice change nothing when their result has their
/// input's type (a slice of that type takes the whole input): they fold to
/// the input.
template <typename ShapeOp> static OpFoldResult foldIdentity(ShapeOp op) {
  if (op.getInput().getType() == op.getType())
    return op.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult mixprec::inferReductionType(std::optional<Location> location,
                                          Value input, ArrayRef<int64_t> dims,
                                          bool keepdim,
                                          SmallVectorImpl<Type> &types) {
  RankedTensorType type = tensorType(input);
  if (dims.empty())
    return emitOptionalError(location, "dims must not be empty");
  for (auto [index, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= type.getRank())
      return emitOptionalError(location, "dim ", dim,
                               " is out of range for rank ", type.getRank());
    if (index > 0 && dims[index - 1] >= dim)
      return emitOptionalError(location,
                               "dims must be strictly increasing, got ",
                               llvm::interleaved_array(dims));
  }
  SmallVector<int64_t> shape;
  for (auto [dim, size] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(dim)))
      shape.push_back(size);
    else if (keepdim)
      shape.push_back(1);
  }
  types.push_back(type.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// transpose
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(verifyForInference(context, location, adaptor)))
    return failure();
  RankedTensorType type = tensorType(adaptor.getInput());
  ArrayRef<int64_t> permutation = adaptor.getPermutation();
  SmallVector<int64_t> sorted(permutation);
  llvm::sort(sorted);
  if (sorted.size() != static_cast<size_t>(type.getRank()) ||
      !llvm::equal(sorted, llvm::seq<int64_t>(0, type.getRank())))
    return emitOptionalError(
        location, "permutation ", llvm::interleaved_array(permutation),
        " is not a permutation of the ", type.getRank(), " dims");
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  types.push_back(type.clone(shape));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> permutation = getPermutation();
  auto isIdentity = [](ArrayRef<int64_t> perm) {
    return llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
  };
  if (isIdentity(permutation))
    return getInput();
  auto producer = getInput().getDefiningOp<TransposeOp>();
  if (!producer)
    return {};
  // Result dim i is producer dim permutation[i], which is input dim
  // producer.permutation[permutation[i]].
  SmallVector<int64_t> composed;
  for (int64_t dim : permutation)
    composed.push_back(producer.getPermutation()[dim]);
  if (isIdentity(composed))
    return producer.getInput();
  getInputMutable().assign(producer.getInput());
  setPermutation(composed);
  return getResult();
}

//===----------------------------------------------------------------------===//
// reshape, broadcast
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError("reshape cannot change the element type");
  if (input.getNumElements() != result.getNumElements())
    return emitOpError("cannot reshape ")
           << input.getNumElements() << " elements into "
           << result.getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult identity = foldIdentity(*this))
    return identity;
  auto producer = getInput().getDefiningOp<ReshapeOp>();
  if (!producer)
    return {};
  if (producer.getInput().getType() == getType())
    return producer.getInput();
  getInputMutable().assign(producer.getInput());
  return getResult();
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError("broadcast cannot change the element type");
  if (input.getRank() > result.getRank())
    return emitOpError("cannot broadcast rank ")
           << input.getRank() << " to the lower rank " << result.getRank();
  int64_t offset = result.getRank() - input.getRank();
  for (auto [dim, size] : llvm::enumerate(input.getShape())) {
    int64_t target = result.getDimSize(offset + dim);
    if (size != 1 && size != target)
      return emitOpError("input dim ")
             << dim << " (size " << size << ") cannot broadcast to result dim "
             << offset + dim << " (size " << target << ")";
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  return foldIdentity(*this);
}

//===----------------------------------------------------------------------===//
// slice, concat, embedding
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  if (failed(verifyForInference(context, location, adaptor)))
    return failure();
  RankedTensorType type = tensorType(adaptor.getInput());
  ArrayRef<int64_t> offsets = adaptor.getOffsets(), sizes = adaptor.getSizes();
  SmallVector<int64_t> strides(type.getRank(), 1);
  if (std::optional<ArrayRef<int64_t>> given = adaptor.getStrides())
    strides.assign(given->begin(), given->end());
  size_t rank = type.getRank();
  if (offsets.size() != rank || sizes.size() != rank || strides.size() != rank)
    return emitOptionalError(location,
                             "offsets, sizes and strides need one value per "
                             "dim (",
                             rank, ")");
  for (size_t dim = 0; dim < rank; ++dim) {
    if (offsets[dim] < 0 || sizes[dim] < 1 || strides[dim] < 1)
      return emitOptionalError(location, "slice of dim ", dim,
                               " needs offset >= 0, size >= 1, stride >= 1");
    // Overflow-checked: huge strides must not wrap around into range.
    int64_t last;
    if (llvm::MulOverflow(sizes[dim] - 1, strides[dim], last) ||
        llvm::AddOverflow(last, offsets[dim], last) ||
        last >= type.getDimSize(dim))
      return emitOptionalError(location, "slice of dim ", dim,
                               " reads past its size ", type.getDimSize(dim));
  }
  types.push_back(type.clone(sizes));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) { return foldIdentity(*this); }

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  if (failed(verifyForInference(context, location, adaptor)))
    return failure();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(location, "concat needs at least one input");
  RankedTensorType first = tensorType(inputs.front());
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= first.getRank())
    return emitOptionalError(location, "axis ", axis,
                             " is out of range for rank ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  Type elementType = first.getElementType();
  for (Value input : inputs.drop_front()) {
    RankedTensorType type = tensorType(input);
    if (type.getRank() != first.getRank())
      return emitOptionalError(location, "inputs must share one rank");
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      if (dim != axis && type.getDimSize(dim) != shape[dim])
        return emitOptionalError(location, "inputs differ in dim ", dim,
                                 ", which is not the concat axis");
    shape[axis] += type.getDimSize(axis);
    Type inputElementType = type.getElementType();
    if (isa<FloatType>(inputElementType) && isa<FloatType>(elementType))
      elementType = promoteFloatTypes(elementType, inputElementType);
    else if (inputElementType != elementType)
      return emitOptionalError(location,
                               "inputs must be all float or share one integer "
                               "type");
  }
  types.push_back(first.clone(shape, elementType));
  return success();
}

LogicalResult EmbeddingOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  if (failed(verifyForInference(context, location, adaptor)))
    return failure();
  RankedTensorType table = tensorType(adaptor.getTable());
  if (table.getRank() != 2)
    return emitOptionalError(location, "table must be [vocab, dim], got rank ",
                             table.getRank());
  RankedTensorType indices = tensorType(adaptor.getIndices());
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(table.getDimSize(1));
  types.push_back(table.clone(shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult mixprec::inferPool2DType(std::optional<Location> location,
                                       Value input, ArrayRef<int64_t> kernel,
                                       ArrayRef<int64_t> stride,
                                       ArrayRef<int64_t> padding,
                                       SmallVectorImpl<Type> &types) {
  RankedTensorType type = tensorType(input);
  if (type.getRank() != 4)
    return emitOptionalError(location, "input must be NCHW (rank 4), got rank ",
                             type.getRank());
  if (kernel.size() != 2 || stride.size() != 2 || padding.size() != 2)
    return emitOptionalError(location,
                             "kernel, stride and padding need 2 values each");
  SmallVector<int64_t> shape(type.getShape().take_front(2));
  for (int i = 0; i < 2; ++i) {
    if (kernel[i] < 1 || stride[i] < 1)
      return emitOptionalError(location, "kernel and stride must be >= 1");
    // padding <= kernel / 2, written so that no product can overflow.
    if (padding[i] < 0 || padding[i] > kernel[i] / 2)
      return emitOptionalError(location,
                               "padding must be in [0, kernel / 2], "
                               "got ",
                               padding[i], " for kernel ", kernel[i]);
    // dim - kernel first: 2 * padding <= kernel, so no sum overflows.
    int64_t extent = type.getDimSize(2 + i) - kernel[i] + 2 * padding[i];
    if (extent < 0)
      return emitOptionalError(location, "kernel ", kernel[i],
                               " is larger than padded spatial dim ", i);
    shape.push_back(extent / stride[i] + 1);
  }
  types.push_back(type.clone(shape));
  return success();
}
