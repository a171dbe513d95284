//===- MixprecToLinalg.cpp - the --convert-mixprec-to-linalg pass ---------===//

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mixprec {
#define GEN_PASS_DEF_CONVERTMIXPRECTOLINALG
#include "mixprec/Conversion/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {
struct ConvertMixprecToLinalgPass
    : public mixprec::impl::ConvertMixprecToLinalgBase<
          ConvertMixprecToLinalgPass> {
  using ConvertMixprecToLinalgBase::ConvertMixprecToLinalgBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // State must already be function arguments and results; say so rather
    // than reporting a failed legalization.
    WalkResult stateLeft = module.walk([](Operation *op) {
      if (!isa<ReadOp, AssignOp, RngStateOp>(op))
        return WalkResult::advance();
      op->emitOpError("reads or writes model state, which must become "
                      "function arguments and results before lowering "
                      "(run --mixprec-expose-state)");
      return WalkResult::interrupt();
    });
    if (stateLeft.wasInterrupted())
      return signalPassFailure();

    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect, func::FuncDialect>();
    target.addIllegalDialect<MixprecDialect>();
    // Declarations stay for the tools that read the model's metadata.
    target.addLegalOp<ParameterOp, BufferOp, TrainStepOp>();

    RewritePatternSet patterns(context);
    populateElementwiseLoweringPatterns(patterns);
    populateContractionLoweringPatterns(patterns);
    populatePoolingLoweringPatterns(patterns);
    populateNormalizationLoweringPatterns(patterns);
    populateReductionLoweringPatterns(patterns);
    populateShapeLoweringPatterns(patterns);
    populateTrainingLoweringPatterns(patterns);
    populateGradientLoweringPatterns(patterns, scatterEmbeddingGradients);
    populateIndexCheckLoweringPatterns(patterns);
    if (convolutionsAsGemms)
      populateConvolutionGemmPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
