//===- AdjointContext.cpp - the shape algebra of adjoint rules ------------===//

#include "mixprec/Dialect/Mixprec/IR/AdjointContext.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

using namespace mlir;
using namespace mixprec;

#include "mixprec/Dialect/Mixprec/IR/MixprecAdjointInterface.cpp.inc"

static RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

AdjointContext::~AdjointContext() = default;

void AdjointContext::accumulateCast(Value value, Value gradient) {
  accumulate(value, castTo(gradient, tensorTypeOf(value).getElementType()));
}

InFlightDiagnostic AdjointContext::emitNoAdjoint(Operation *op) {
  return op->emitError("mixprec-autodiff: no adjoint for '")
         << op->getName() << "' yet";
}

Value AdjointContext::castTo(Value value, Type elementType) {
  return castElements(builder, loc, value, elementType);
}

Value AdjointContext::splat(double value, RankedTensorType type) {
  return ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(
          type, builder.getFloatAttr(type.getElementType(), value)));
}

Value AdjointContext::reshape(Value value, RankedTensorType type) {
  if (tensorTypeOf(value) == type)
    return value;
  return ReshapeOp::create(builder, loc, type, value);
}

Value AdjointContext::sumTo(Value gradient, RankedTensorType type) {
  RankedTensorType from = tensorTypeOf(gradient);
  int64_t added = from.getRank() - type.getRank();
  SmallVector<int64_t> dims;
  for (int64_t dim = 0; dim < from.getRank(); ++dim)
    if (dim < added ||
        (type.getDimSize(dim - added) == 1 && from.getDimSize(dim) != 1))
      dims.push_back(dim);
  Value summed = gradient;
  if (!dims.empty())
    summed = ReduceSumOp::create(builder, loc, gradient, dims);
  return reshape(summed, type.clone(from.getElementType()));
}

Value AdjointContext::unreduce(Value gradient, Value input,
                               ArrayRef<int64_t> dims) {
  RankedTensorType inputType = tensorTypeOf(input);
  SmallVector<int64_t> keptShape(inputType.getShape());
  for (int64_t dim : dims)
    keptShape[dim] = 1;
  Type elementType = tensorTypeOf(gradient).getElementType();
  Value kept = reshape(gradient, RankedTensorType::get(keptShape, elementType));
  return BroadcastOp::create(builder, loc, inputType.clone(elementType), kept);
}

/// [n] -> [n, 1] ++ [n, stride - 1] zeros -> [n * stride], then the first
/// `limit` elements.
Value AdjointContext::unstride(Value gradient, int64_t dim, int64_t stride,
                               int64_t limit) {
  RankedTensorType type = tensorTypeOf(gradient);
  int64_t count = type.getDimSize(dim);
  if (stride == 1 || count == 1)
    return gradient;
  SmallVector<int64_t> split(type.getShape());
  split.insert(split.begin() + dim + 1, 1);
  Value column = reshape(gradient, type.clone(split));
  split[dim + 1] = stride - 1;
  Value zeros = splat(0.0, type.clone(split));
  Value spread = ConcatOp::create(builder, loc, ValueRange{column, zeros},
                                  static_cast<uint64_t>(dim + 1));
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = count * stride;
  Value result = reshape(spread, type.clone(shape));
  if (limit >= shape[dim])
    return result;
  shape[dim] = limit;
  return SliceOp::create(builder, loc, result,
                         SmallVector<int64_t>(shape.size(), 0), shape,
                         DenseI64ArrayAttr());
}

Value AdjointContext::matmul(Value lhs, Value rhs, bool transposeLhs,
                             bool transposeRhs, Type elementType,
                             bool batched) {
  ArrayRef<int64_t> lhsShape = tensorTypeOf(lhs).getShape();
  ArrayRef<int64_t> rhsShape = tensorTypeOf(rhs).getShape();
  size_t rank = lhsShape.size();
  SmallVector<int64_t> shape(lhsShape.drop_back(2));
  shape.push_back(lhsShape[rank - (transposeLhs ? 1 : 2)]);
  shape.push_back(rhsShape[rank - (transposeRhs ? 2 : 1)]);
  auto type = RankedTensorType::get(shape, elementType);
  if (batched)
    return BatchMatmulOp::create(builder, loc, type, lhs, rhs, transposeLhs,
                                 transposeRhs);
  return MatmulOp::create(builder, loc, type, lhs, rhs, transposeLhs,
                          transposeRhs);
}
