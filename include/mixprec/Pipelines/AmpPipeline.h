//===- AmpPipeline.h - --mixprec-amp, the AMP pipeline ---------*- C++ -*-===//

#ifndef MIXPREC_PIPELINES_AMPPIPELINE_H
#define MIXPREC_PIPELINES_AMPPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mixprec {

struct AmpOptions : public mlir::PassPipelineOptions<AmpOptions> {
  Option<std::string> precision{*this, "precision",
                                llvm::cl::desc("16-bit type: f16 or bf16"),
                                llvm::cl::init("f16")};
  Option<std::string> lossScaling{
      *this, "loss-scaling",
      llvm::cl::desc("dynamic, static or none (default: dynamic for f16, "
                     "none for bf16)"),
      llvm::cl::init("default")};
  Option<std::string> masterWeights{
      *this, "master-weights",
      llvm::cl::desc("fp32 (FP32 master copies) or none (pure 16-bit)"),
      llvm::cl::init("fp32")};
  Option<double> initScale{*this, "init-scale",
                           llvm::cl::desc("initial (or static) loss scale"),
                           llvm::cl::init(65536.0)};
  Option<double> growthFactor{*this, "growth-factor",
                              llvm::cl::desc("scale growth multiplier"),
                              llvm::cl::init(2.0)};
  Option<double> backoffFactor{*this, "backoff-factor",
                               llvm::cl::desc("scale backoff multiplier"),
                               llvm::cl::init(0.5)};
  Option<int64_t> growthInterval{
      *this, "growth-interval",
      llvm::cl::desc("clean steps before the scale grows"),
      llvm::cl::init(2000)};
  Option<int64_t> hysteresis{
      *this, "hysteresis",
      llvm::cl::desc("overflows tolerated before backing off"),
      llvm::cl::init(1)};
  Option<double> minScale{*this, "min-scale",
                          llvm::cl::desc("lower bound of the scale"),
                          llvm::cl::init(1.0)};
  Option<double> maxScale{*this, "max-scale",
                          llvm::cl::desc("upper bound of the scale"),
                          llvm::cl::init(16777216.0)};
  Option<double> maxGradNorm{
      *this, "max-grad-norm",
      llvm::cl::desc("clip unscaled gradients to this L2 norm (0: off)"),
      llvm::cl::init(0.0)};
};

/// autocast -> autodiff -> master weights -> loss scaling -> cse and
/// canonicalize; loss scaling defaults to dynamic for f16, none for bf16.
void buildAmpPipeline(mlir::OpPassManager &pm, const AmpOptions &options);

/// Registers --mixprec-amp.
void registerAmpPipeline();

} // namespace mixprec

#endif // MIXPREC_PIPELINES_AMPPIPELINE_H
