//===- MixprecDialect.cpp - the mixprec dialect ---------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecAttrs.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mixprec;

#include "mixprec/Dialect/Mixprec/IR/MixprecAttrInterfaces.cpp.inc"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.cpp.inc"
#include "mixprec/Dialect/Mixprec/IR/MixprecEnums.cpp.inc"
#include "mixprec/Dialect/Mixprec/IR/MixprecOpInterfaces.cpp.inc"

void MixprecDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.cpp.inc"
      >();
}
