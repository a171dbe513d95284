//===- ElementwiseOps.cpp - elementwise ops, casts, constants, dropout ----===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "llvm/Support/InterleavedRange.h"

#include <cmath>

using namespace mlir;
using namespace mixprec;

Type mixprec::promoteFloatTypes(Type lhs, Type rhs) {
  if (lhs == rhs)
    return lhs;
  // f16 and bf16 are both 16 bits wide, yet neither holds the other: only
  // f32 represents both.
  return Float32Type::get(lhs.getContext());
}

LogicalResult mixprec::inferElementwiseType(std::optional<Location> location,
                                            ValueRange operands,
                                            SmallVectorImpl<Type> &types) {
  auto lhs = cast<RankedTensorType>(operands[0].getType());
  auto rhs = cast<RankedTensorType>(operands[1].getType());
  if (lhs.getShape() != rhs.getShape())
    return emitOptionalError(location, "operand shapes must match, got ",
                             llvm::interleaved_array(lhs.getShape()), " and ",
                             llvm::interleaved_array(rhs.getShape()),
                             "; broadcast explicitly with mixprec.broadcast");
  types.push_back(
      lhs.clone(promoteFloatTypes(lhs.getElementType(), rhs.getElementType())));
  return success();
}

LogicalResult CastOp::verify() {
  Type resultType = getResult().getType().getElementType();
  if (!isa<FloatType>(resultType))
    return emitOpError("casts produce float tensors, got ") << resultType;
  return success();
}

/// Widening f16/bf16 to f32 is exact, so a cast of such a widening rounds
/// once, as a direct cast does.
static bool isExactWidening(Type from, Type to) {
  return (from.isF16() || from.isBF16()) && to.isF32();
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto producer = getInput().getDefiningOp<CastOp>();
  if (!producer ||
      !isExactWidening(producer.getInput().getType().getElementType(),
                       producer.getType().getElementType()))
    return {};
  if (producer.getInput().getType() == getType())
    return producer.getInput();
  getInputMutable().assign(producer.getInput());
  return getResult();
}

OpFoldResult ConstantOp::fold(FoldAdaptor adaptor) { return getValue(); }

LogicalResult DropoutOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p < 1.0))
    return emitOpError("p must be in [0, 1), got ") << p;
  // I64Attr getters are unsigned; the attribute holds the signed value.
  int64_t stream = getStreamAttr().getInt();
  if (stream < 0)
    return emitOpError("stream must be >= 0, got ") << stream;
  return success();
}

LogicalResult ClampOp::verify() {
  std::optional<double> min =
      getMinAttr() ? std::optional(getMinAttr().getValueAsDouble())
                   : std::nullopt;
  std::optional<double> max =
      getMaxAttr() ? std::optional(getMaxAttr().getValueAsDouble())
                   : std::nullopt;
  if (!min && !max)
    return emitOpError("needs a min or a max bound");
  // The adjoint compares x with the bounds by subtracting them, which an
  // infinite bound would turn into NaN at x = bound.
  for (auto [name, bound] : {std::pair{"min", min}, std::pair{"max", max}})
    if (bound && !std::isfinite(*bound))
      return emitOpError(name) << " must be finite, got " << *bound;
  if (min && max && *min > *max)
    return emitOpError("min must be <= max, got min = ")
           << *min << " and max = " << *max;
  return success();
}

Value mixprec::castElements(OpBuilder &b, Location loc, Value value,
                            Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return CastOp::create(b, loc, type.clone(elementType), value);
}
