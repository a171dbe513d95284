//===- ReportSupport.cpp - shared pieces of the report passes -------------===//

#include "mixprec/Transforms/ReportSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

std::string mixprec::locationOf(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  FileLineColLoc file;
  op->getLoc()->walk([&](Location inner) {
    file = dyn_cast<FileLineColLoc>(inner);
    return file ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (file)
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    op->getLoc()->print(os);
  return text;
}

LogicalResult mixprec::writeJsonReport(Operation *op, StringRef pass,
                                       StringRef path,
                                       llvm::json::Value report) {
  std::error_code error;
  llvm::ToolOutputFile file(path, error, llvm::sys::fs::OF_Text);
  if (error)
    return op->emitError() << pass << ": cannot write '" << path
                           << "': " << error.message();
  file.os() << llvm::formatv("{0:2}", report) << "\n";
  file.keep();
  return success();
}
