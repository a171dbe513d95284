//===- MixprecDialect.h - the mixprec dialect -------------------*- C++ -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECDIALECT_H
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h.inc"

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECDIALECT_H
