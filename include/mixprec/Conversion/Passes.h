//===- Passes.h - conversions out of mixprec --------------------*- C++ -*-===//

#ifndef MIXPREC_CONVERSION_PASSES_H
#define MIXPREC_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mixprec {

#define GEN_PASS_DECL
#include "mixprec/Conversion/Passes.h.inc"

// The patterns of --convert-mixprec-to-linalg, one set per op group.
void populateElementwiseLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateContractionLoweringPatterns(mlir::RewritePatternSet &patterns);
void populatePoolingLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateNormalizationLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateReductionLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateShapeLoweringPatterns(mlir::RewritePatternSet &patterns);
void populateTrainingLoweringPatterns(mlir::RewritePatternSet &patterns);
/// With `scatterEmbeddingGradients`, embedding_grad becomes a loop that adds
/// each index's gradient row (the CPU's form); else one dense reduction.
void populateGradientLoweringPatterns(mlir::RewritePatternSet &patterns,
                                      bool scatterEmbeddingGradients);
/// conv2d and its gradients as im2col copies and GEMMs, preferred over the
/// loop forms where the groups are wide enough.
void populateConvolutionGemmPatterns(mlir::RewritePatternSet &patterns);
void populateIndexCheckLoweringPatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "mixprec/Conversion/Passes.h.inc"

} // namespace mixprec

#endif // MIXPREC_CONVERSION_PASSES_H
