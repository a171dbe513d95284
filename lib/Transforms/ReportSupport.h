//===- ReportSupport.h - shared pieces of the report passes -----*- C++ -*-===//
//-*-===//

#ifndef MIXPREC_LIB_TRANSFORMS_REPORTSUPPORT_H
#define MIXPREC_LIB_TRANSFORMS_REPORTSUPPORT_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/JSON.h"

namespace mixprec {

/// "file:line:col" of `op`, or its location printed in full.
std::string locationOf(mlir::Operation *op);

/// Writes `report` to `path`, indented; an error at `op` naming `pass` when
/// the file cannot be written.
llvm::LogicalResult writeJsonReport(mlir::Operation *op, llvm::StringRef pass,
                                    llvm::StringRef path,
                                    llvm::json::Value report);

} // namespace mixprec

#endif // MIXPREC_LIB_TRANSFORMS_REPORTSUPPORT_H
