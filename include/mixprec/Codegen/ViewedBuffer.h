//===- ViewedBuffer.h - the buffer behind a view ----------------*- C++ -*-===//
//
// Passes that reason about which buffers ops touch compare the buffers
// themselves, not the views ops name them through.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_CODEGEN_VIEWEDBUFFER_H
#define MIXPREC_CODEGEN_VIEWEDBUFFER_H

#include "mlir/IR/Value.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mixprec {

/// The buffer `value` is a view of (through any number of views), or
/// `value` itself.
inline mlir::Value viewedBuffer(mlir::Value value) {
  while (auto view = value.getDefiningOp<mlir::ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

} // namespace mixprec

#endif // MIXPREC_CODEGEN_VIEWEDBUFFER_H
