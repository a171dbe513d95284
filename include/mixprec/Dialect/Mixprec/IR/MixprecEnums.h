//===- MixprecEnums.h - enums of the mixprec dialect ------------*- C++ -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECENUMS_H
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECENUMS_H

#include "mlir/IR/BuiltinAttributes.h"

#include "mixprec/Dialect/Mixprec/IR/MixprecEnums.h.inc"

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECENUMS_H
