//===- MixprecAdjointInterface.h - reverse-mode rules -----------*- C++ -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECADJOINTINTERFACE_H
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECADJOINTINTERFACE_H

#include "mlir/IR/OpDefinition.h"

#include "mixprec/Dialect/Mixprec/IR/AdjointContext.h"

#include "mixprec/Dialect/Mixprec/IR/MixprecAdjointInterface.h.inc"

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECADJOINTINTERFACE_H
