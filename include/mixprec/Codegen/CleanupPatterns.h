//===- CleanupPatterns.h - canonicalization after tiling --------*- C++ -*-===//
//
// The patterns the tiling passes clean their loops with, between their
// steps: every loaded dialect's and op's canonicalizations, and the
// affine.min/max simplifications inside scf.for that make peeled tiles
// static.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_CODEGEN_CLEANUPPATTERNS_H
#define MIXPREC_CODEGEN_CLEANUPPATTERNS_H

#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/PatternMatch.h"

namespace mixprec {

inline void populateCleanupPatterns(mlir::MLIRContext *context,
                                    mlir::RewritePatternSet &patterns) {
  for (mlir::Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (mlir::RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  mlir::scf::populateSCFForLoopCanonicalizationPatterns(patterns);
}

} // namespace mixprec

#endif // MIXPREC_CODEGEN_CLEANUPPATTERNS_H
