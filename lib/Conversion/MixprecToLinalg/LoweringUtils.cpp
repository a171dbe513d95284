//===- LoweringUtils.cpp - shared pieces of the linalg lowering -----------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>
#include <numeric>

using namespace mlir;

namespace mixprec::lowering {

Type computeType(Type type) {
  if (isa<FloatType>(type))
    return Float32Type::get(type.getContext());
  return type;
}

Value convertScalar(OpBuilder &b, Location loc, Value scalar, Type type) {
  Type from = scalar.getType();
  if (from == type)
    return scalar;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(type);
  if (fromFloat && toFloat) {
    // f16 <-> bf16 goes through f32, which holds both exactly: one rounding.
    if (fromFloat.getWidth() == toFloat.getWidth()) {
      Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), scalar);
      return arith::TruncFOp::create(b, loc, type, wide);
    }
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, type, scalar);
    return arith::TruncFOp::create(b, loc, type, scalar);
  }
  if (toFloat) {
    // Integers convert through f32 (exact below 2^24), then round once more
    // for 16-bit targets.
    Value wide = from.isInteger(1)
                     ? arith::UIToFPOp::create(b, loc, b.getF32Type(), scalar)
                           .getResult()
                     : arith::SIToFPOp::create(b, loc, b.getF32Type(), scalar)
                           .getResult();
    return convertScalar(b, loc, wide, type);
  }
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, type, scalar);
  if (from.getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
    return from.isInteger(1)
               ? arith::ExtUIOp::create(b, loc, type, scalar).getResult()
               : arith::ExtSIOp::create(b, loc, type, scalar).getResult();
  return arith::TruncIOp::create(b, loc, type, scalar);
}

Value widen(OpBuilder &b, Location loc, Value scalar) {
  return convertScalar(b, loc, scalar, computeType(scalar.getType()));
}

Value floatConstant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   double value) {
  Value scalar = floatConstant(b, loc, type.getElementType(), value);
  return linalg::FillOp::create(b, loc, scalar, emptyTensor(b, loc, type))
      .getResult(0);
}

Value mapElements(OpBuilder &b, Location loc, RankedTensorType resultType,
                  ValueRange inputs, ScalarFn body,
                  ArrayRef<AffineMap> inputMaps) {
  MLIRContext *context = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(inputMaps);
  if (maps.empty())
    maps.assign(inputs.size(),
                AffineMap::getMultiDimIdentityMap(rank, context));
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, context));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Type elementType = resultType.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs,
      ValueRange{emptyTensor(b, loc, resultType)}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> widened;
        for (Value arg : args.drop_back())
          widened.push_back(widen(nested, nestedLoc, arg));
        Value result = body(nested, nestedLoc, widened);
        linalg::YieldOp::create(
            nested, nestedLoc,
            convertScalar(nested, nestedLoc, result, elementType));
      });
  return generic.getResult(0);
}

SmallVector<int64_t> dimRange(int64_t begin, int64_t end) {
  SmallVector<int64_t> dims(end - begin);
  std::iota(dims.begin(), dims.end(), begin);
  return dims;
}

Value sumCombine(OpBuilder &b, Location loc, ValueRange args) {
  return addF(b, loc, args[0], args[1]);
}

Value multiplyAddCombine(OpBuilder &b, Location loc, ValueRange args) {
  return addF(b, loc, args[0], mulF(b, loc, args[1], args[2]));
}

Value maxCombine(OpBuilder &b, Location loc, ValueRange args) {
  return arith::MaximumFOp::create(b, loc, args[0], args[1]);
}

AffineMap keptDimsMap(MLIRContext *context, int64_t rank,
                      ArrayRef<int64_t> reducedDims) {
  SmallVector<AffineExpr> kept;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (!llvm::is_contained(reducedDims, dim))
      kept.push_back(getAffineDimExpr(dim, context));
  return AffineMap::get(rank, 0, kept, context);
}

Value reduceInputs(OpBuilder &b, Location loc, int64_t rank,
                   ArrayRef<int64_t> reducedDims, ValueRange inputs,
                   ArrayRef<AffineMap> inputMaps, Value init,
                   ScalarFn combine) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(keptDimsMap(b.getContext(), rank, reducedDims));
  SmallVector<utils::IteratorType> iterators;
  for (int64_t dim = 0; dim < rank; ++dim)
    iterators.push_back(llvm::is_contained(reducedDims, dim)
                            ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               SmallVector<Value> operands{args.back()};
               for (Value arg : args.drop_back())
                 operands.push_back(widen(nested, nestedLoc, arg));
               linalg::YieldOp::create(nested, nestedLoc,
                                       combine(nested, nestedLoc, operands));
             })
      .getResult(0);
}

Value reduceDims(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> reducedDims, double init, ScalarFn combine) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t rank = inputType.getRank();
  SmallVector<int64_t> keptShape;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (!llvm::is_contained(reducedDims, dim))
      keptShape.push_back(inputType.getDimSize(dim));
  auto accType =
      RankedTensorType::get(keptShape, computeType(inputType.getElementType()));
  return reduceInputs(b, loc, rank, reducedDims, ValueRange{input},
                      {AffineMap::getMultiDimIdentityMap(rank, b.getContext())},
                      filledTensor(b, loc, accType, init), combine);
}

Value convertTensor(OpBuilder &b, Location loc, Value tensor,
                    Type elementType) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (type.getElementType() == elementType)
    return tensor;
  auto resultType = type.clone(elementType);
  int64_t rank = type.getRank();
  MLIRContext *context = b.getContext();
  SmallVector<AffineMap> maps(2,
                              AffineMap::getMultiDimIdentityMap(rank, context));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{resultType}, ValueRange{tensor},
             ValueRange{emptyTensor(b, loc, resultType)}, maps, iterators,
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(
                   nested, nestedLoc,
                   convertScalar(nested, nestedLoc, args[0], elementType));
             })
      .getResult(0);
}

RankedTensorType statType(OpBuilder &b, ArrayRef<int64_t> shape,
                          ArrayRef<int64_t> reducedDims) {
  SmallVector<int64_t> kept;
  for (auto [dim, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(reducedDims, static_cast<int64_t>(dim)))
      kept.push_back(size);
  return RankedTensorType::get(kept, b.getF32Type());
}

Value inverseStd(OpBuilder &b, Location loc, Value variance, double eps) {
  Type f32 = b.getF32Type();
  Value stddev = math::SqrtOp::create(
      b, loc,
      arith::AddFOp::create(b, loc, variance, floatConstant(b, loc, f32, eps)));
  return arith::DivFOp::create(b, loc, floatConstant(b, loc, f32, 1.0), stddev);
}

Moments computeMoments(OpBuilder &b, Location loc, Value input,
                       ArrayRef<int64_t> reducedDims, double eps) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *context = b.getContext();
  int64_t rank = type.getRank();
  int64_t count = 1;
  for (int64_t dim : reducedDims)
    count *= type.getDimSize(dim);
  RankedTensorType stats = statType(b, type.getShape(), reducedDims);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  AffineMap kept = keptDimsMap(context, rank, reducedDims);
  Type f32 = b.getF32Type();

  Value sum =
      reduceDims(b, loc, input, reducedDims, 0.0,
                 [](OpBuilder &b, Location loc, ValueRange args) {
                   return arith::AddFOp::create(b, loc, args[0], args[1]);
                 });
  double n = static_cast<double>(count);
  Value mean = mapElements(
      b, loc, stats, sum, [&](OpBuilder &b, Location loc, ValueRange args) {
        return arith::DivFOp::create(b, loc, args[0],
                                     floatConstant(b, loc, f32, n));
      });
  Value squaredDeviations =
      reduceInputs(b, loc, rank, reducedDims, {input, mean}, {identity, kept},
                   filledTensor(b, loc, stats, 0.0),
                   [](OpBuilder &b, Location loc, ValueRange args) {
                     Value deviation =
                         arith::SubFOp::create(b, loc, args[1], args[2]);
                     return arith::AddFOp::create(
                         b, loc, args[0],
                         arith::MulFOp::create(b, loc, deviation, deviation));
                   });
  Value invStd =
      mapElements(b, loc, stats, squaredDeviations,
                  [&](OpBuilder &b, Location loc, ValueRange args) {
                    Value variance = arith::DivFOp::create(
                        b, loc, args[0], floatConstant(b, loc, f32, n));
                    return inverseStd(b, loc, variance, eps);
                  });
  return {mean, invStd, squaredDeviations, count};
}

SoftmaxStats computeSoftmaxStats(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<int64_t> reducedDims) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *context = b.getContext();
  int64_t rank = type.getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  AffineMap kept = keptDimsMap(context, rank, reducedDims);
  Value max = reduceDims(b, loc, input, reducedDims,
                         -std::numeric_limits<double>::infinity(), maxCombine);
  Value init =
      filledTensor(b, loc, statType(b, type.getShape(), reducedDims), 0.0);
  Value sum =
      reduceInputs(b, loc, rank, reducedDims, {input, max}, {identity, kept},
                   init, [](OpBuilder &b, Location loc, ValueRange args) {
                     Value shifted = subF(b, loc, args[1], args[2]);
                     Value exp = math::ExpOp::create(b, loc, shifted);
                     return addF(b, loc, args[0], exp);
                   });
  return {max, sum};
}

LayerNormDims layerNormDims(MLIRContext *context, int64_t rank, int64_t axis) {
  SmallVector<int64_t> normalized = dimRange(axis, rank);
  SmallVector<AffineExpr> normalizedExprs;
  for (int64_t dim : normalized)
    normalizedExprs.push_back(getAffineDimExpr(dim, context));
  AffineMap rowMap = keptDimsMap(context, rank, normalized);
  AffineMap paramMap = AffineMap::get(rank, 0, normalizedExprs, context);
  return {normalized, rowMap, paramMap};
}

Value f32Constant(OpBuilder &b, Location loc, double value) {
  return floatConstant(b, loc, b.getF32Type(), value);
}

Value addF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::AddFOp::create(b, loc, lhs, rhs);
}

Value subF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::SubFOp::create(b, loc, lhs, rhs);
}

Value mulF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::MulFOp::create(b, loc, lhs, rhs);
}

Value divF(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return arith::DivFOp::create(b, loc, lhs, rhs);
}

Value padSpatial(OpBuilder &b, Location loc, Value input,
                 ArrayRef<int64_t> padding, double value) {
  if (llvm::all_of(padding, [](int64_t p) { return p == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[2] += 2 * padding[0];
  shape[3] += 2 * padding[1];
  SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(0),
                                   b.getIndexAttr(padding[0]),
                                   b.getIndexAttr(padding[1])};
  Value pad = floatConstant(b, loc, type.getElementType(), value);
  return tensor::PadOp::create(b, loc, type.clone(shape), input, low, low, pad);
}

/// [A, B, ...] <-> [G, A / G, ...] on dim `dim` (0 or 1) of a rank-4 tensor.
static SmallVector<ReassociationIndices> groupReassociation(int64_t dim) {
  if (dim == 0)
    return {{0, 1}, {2}, {3}, {4}};
  return {{0}, {1, 2}, {3}, {4}};
}

Value splitGroups(OpBuilder &b, Location loc, Value value, int64_t dim,
                  int64_t groups) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= groups;
  shape.insert(shape.begin() + dim, groups);
  return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), value,
                                       groupReassociation(dim));
}

Value mergeGroups(OpBuilder &b, Location loc, Value value, int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] *= shape[dim + 1];
  shape.erase(shape.begin() + dim + 1);
  return tensor::CollapseShapeOp::create(b, loc, type.clone(shape), value,
                                         groupReassociation(dim));
}

Value spreadGradient(OpBuilder &b, Location loc, Value grad,
                     ArrayRef<int64_t> inputShape,
                     ArrayRef<int64_t> weightShape, ArrayRef<int64_t> padding,
                     ArrayRef<int64_t> stride, ArrayRef<int64_t> dilation) {
  auto gradType = cast<RankedTensorType>(grad.getType());
  ArrayRef<int64_t> gs = gradType.getShape();
  SmallVector<int64_t> qShape = {gs[0], gs[1], 0, 0};
  SmallVector<int64_t> first(2), count(2), offset(2);
  bool empty = false;
  for (int i = 0; i < 2; ++i) {
    qShape[2 + i] = inputShape[2 + i] + dilation[i] * (weightShape[2 + i] - 1);
    int64_t shift = dilation[i] * (weightShape[2 + i] - 1) - padding[i];
    // The outputs oh with 0 <= oh * s + shift < qShape.
    int64_t lo = shift >= 0 ? 0 : (-shift + stride[i] - 1) / stride[i];
    int64_t last = qShape[2 + i] - 1 - shift;
    int64_t hi = last < 0 ? 0 : std::min(gs[2 + i], last / stride[i] + 1);
    first[i] = lo;
    count[i] = hi - lo;
    offset[i] = lo * stride[i] + shift;
    empty |= count[i] <= 0;
  }
  Value q = filledTensor(b, loc, gradType.clone(qShape), 0.0);
  if (empty || gs[0] == 0 || gs[1] == 0)
    return q;
  auto index = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  SmallVector<OpFoldResult> sizes = {index(gs[0]), index(gs[1]),
                                     index(count[0]), index(count[1])};
  Value rows = tensor::ExtractSliceOp::create(
      b, loc, grad, {index(0), index(0), index(first[0]), index(first[1])},
      sizes, {index(1), index(1), index(1), index(1)});
  return tensor::InsertSliceOp::create(
      b, loc, rows, q, {index(0), index(0), index(offset[0]), index(offset[1])},
      sizes, {index(1), index(1), index(stride[0]), index(stride[1])});
}

Value gatherElements(OpBuilder &b, Location loc, Value source,
                     ArrayRef<int64_t> shape, AffineMap map) {
  auto type = RankedTensorType::get(
      shape, cast<RankedTensorType>(source.getType()).getElementType());
  SmallVector<AffineMap> maps = {
      map, AffineMap::getMultiDimIdentityMap(shape.size(), b.getContext())};
  SmallVector<utils::IteratorType> iterators(shape.size(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{source},
             ValueRange{emptyTensor(b, loc, type)}, maps, iterators,
             [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(nested, nestedLoc, args[0]);
             })
      .getResult(0);
}

Value isOtherThan(OpBuilder &b, Location loc, Value label, int64_t skipped) {
  Value wide = convertScalar(b, loc, label, b.getI64Type());
  Value other = arith::ConstantIntOp::create(b, loc, b.getI64Type(), skipped);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, wide, other);
}

Value countOtherThan(OpBuilder &b, Location loc, Value labels,
                     int64_t skipped) {
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, b.getContext());
  return reduceInputs(
      b, loc, 1, {0}, {labels}, {identity},
      filledTensor(b, loc, RankedTensorType::get({}, b.getF32Type()), 0.0),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value counted = isOtherThan(b, loc, args[1], skipped);
        Value one = arith::UIToFPOp::create(b, loc, b.getF32Type(), counted);
        return addF(b, loc, args[0], one);
      });
}

} // namespace mixprec::lowering
