//===- MixprecAttrs.h - initializer and optimizer attributes ----*- C++ -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECATTRS_H
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "mixprec/Dialect/Mixprec/IR/MixprecEnums.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecInterfaces.h"

namespace mixprec {
/// Parses a float literal (integers accepted) as a double-precision APFloat.
mlir::FailureOr<llvm::APFloat> parseF64Parameter(mlir::AsmParser &parser);
/// Parses `true` or `false` for a `bool` parameter.
mlir::FailureOr<bool> parseBoolParameter(mlir::AsmParser &parser);
} // namespace mixprec

#define GET_ATTRDEF_CLASSES
#include "mixprec/Dialect/Mixprec/IR/MixprecAttrs.h.inc"

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECATTRS_H
