//===- StaticBytes.cpp - the bytes a value of a type takes ----------------===//

#include "mixprec/Transforms/StaticBytes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

std::optional<int64_t> mixprec::staticBytes(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape() ||
      !shaped.getElementType().isIntOrFloat())
    return std::nullopt;
  return shaped.getNumElements() *
         int64_t(llvm::divideCeil(shaped.getElementTypeBitWidth(), 8));
}
