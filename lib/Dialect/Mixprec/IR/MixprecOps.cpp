//===- MixprecOps.cpp - generated op definitions --------------------------===//
//
// The ODS-generated op classes. Verifiers, type inference and folders live
// beside their op group (ContractionOps.cpp, ShapeOps.cpp, ...).
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mixprec;

LogicalResult
mixprec::verifyStaticTensorOperands(std::optional<Location> location,
                                    ValueRange operands) {
  for (auto [index, operand] : llvm::enumerate(operands)) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape())
      return emitOptionalError(location, "operand #", index,
                               " must be a statically shaped tensor, got ",
                               operand.getType());
  }
  return success();
}

#define GET_OP_CLASSES
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.cpp.inc"
