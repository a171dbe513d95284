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

#define GET_OP_CLASSES
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.cpp.inc"
