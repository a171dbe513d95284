//===- StructuralDedup.h - functions computing the same thing -*- C++ -*-===//
//
// Both backends compile each distinct loop nest (CPU) or kernel (CUDA) once:
// a model whose layers repeat has one layer's worth of code.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_CODEGEN_STRUCTURALDEDUP_H
#define MIXPREC_CODEGEN_STRUCTURALDEDUP_H

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseMap.h"

namespace mixprec {

/// Functions seen so far, keyed by structure: the same attributes (the
/// function type among them) and bodies equal op by op (names, attributes,
/// types; locations aside). The functions' names do not matter.
class StructuralFunctionSet {
public:
  /// The first function seen that is structurally equal to `function`, or
  /// `function` itself when it is the first of its kind (it is then
  /// remembered).
  mlir::FunctionOpInterface findOrInsert(mlir::FunctionOpInterface function);

private:
  llvm::DenseMap<size_t, llvm::SmallVector<mlir::FunctionOpInterface, 1>>
      byHash;
};

} // namespace mixprec

#endif // MIXPREC_CODEGEN_STRUCTURALDEDUP_H
