//===- ReportSupport.h - shared pieces of the report passes -----*- C++ -*-===//
//
// What the precision report and the memory report (a codegen pass) share.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TRANSFORMS_REPORTSUPPORT_H
#define MIXPREC_TRANSFORMS_REPORTSUPPORT_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/JSON.h"

namespace mixprec {

/// "file:line:col" of the first file location in `op`'s location (a fused
/// or named one included), or the location printed in full without one.
std::string locationOf(mlir::Operation *op);

/// Writes `report` to `path`, indented; an error at `op` naming `pass` when
/// the file cannot be written.
llvm::LogicalResult writeJsonReport(mlir::Operation *op, llvm::StringRef pass,
                                    llvm::StringRef path,
                                    llvm::json::Value report);

} // namespace mixprec

#endif // MIXPREC_TRANSFORMS_REPORTSUPPORT_H
