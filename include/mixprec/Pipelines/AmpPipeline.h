//===- AmpPipeline.h - --mixprec-amp, the AMP pipeline ---------*- C++ -*-===//

#ifndef MIXPREC_PIPELINES_AMPPIPELINE_H
#define MIXPREC_PIPELINES_AMPPIPELINE_H

#include "mixprec/Transforms/PassOptions.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mixprec {

/// loss-scaling=: a mode of --mixprec-loss-scaling, or the one that suits
/// the precision (BF16 has FP32's exponent range: no scaling).
enum class AmpLossScaling { ByPrecision, Dynamic, Static, None };

} // namespace mixprec

MIXPREC_ENUM_OPTION_PARSER(mixprec::AmpLossScaling)

namespace mixprec {

/// --mixprec-amp's options: its own three, and every option of
/// --mixprec-loss-scaling but `mode` (init-scale=1024 max-grad-norm=1.0 ...),
/// which it forwards to that pass as written: the pass declares, parses and
/// checks them.
struct AmpOptions : public mlir::PassPipelineOptions<AmpOptions> {
  Option<AutocastPrecision> precision{
      *this, "precision", llvm::cl::desc("16-bit type"),
      llvm::cl::init(AutocastPrecision::F16),
      llvm::cl::values(
          clEnumValN(AutocastPrecision::F16, "f16", "IEEE half"),
          clEnumValN(AutocastPrecision::BF16, "bf16", "bfloat16"))};
  Option<AmpLossScaling> lossScaling{
      *this, "loss-scaling",
      llvm::cl::desc("the loss-scaling mode; the other options of "
                     "--mixprec-loss-scaling are taken too"),
      llvm::cl::init(AmpLossScaling::ByPrecision),
      llvm::cl::values(clEnumValN(AmpLossScaling::ByPrecision, "default",
                                  "dynamic for f16, none for bf16"),
                       clEnumValN(AmpLossScaling::Dynamic, "dynamic",
                                  "the scale grows and backs off"),
                       clEnumValN(AmpLossScaling::Static, "static",
                                  "the scale stays at init-scale"),
                       clEnumValN(AmpLossScaling::None, "none", "no scaling"))};
  Option<MasterWeightsMode> masterWeights{
      *this, "master-weights", llvm::cl::desc("storage of the parameters"),
      llvm::cl::init(MasterWeightsMode::FP32),
      llvm::cl::values(
          clEnumValN(MasterWeightsMode::FP32, "fp32", "FP32 master copies"),
          clEnumValN(MasterWeightsMode::None, "none",
                     "pure 16-bit parameters"))};

  /// Parses `options`: this struct's own, the rest checked by
  /// --mixprec-loss-scaling's parser and kept for it. Hides
  /// PassOptions::parseFromString, which createFromString and
  /// PassPipelineRegistration call on this type.
  llvm::LogicalResult
  parseFromString(llvm::StringRef options,
                  llvm::raw_ostream &errorStream = llvm::errs());

  /// The loss-scaling mode `lossScaling` and `precision` choose.
  LossScalingMode lossScalingMode() const;

  /// The loss-scaling pass with the mode and the forwarded options.
  std::unique_ptr<mlir::Pass> createLossScalingPass() const;

private:
  /// The options given for --mixprec-loss-scaling, as written.
  std::string lossScalingOptions;
};

/// autocast -> autodiff -> master weights -> loss scaling -> cse and
/// canonicalize; loss scaling defaults to dynamic for f16, none for bf16.
void buildAmpPipeline(mlir::OpPassManager &pm, const AmpOptions &options);

/// Registers --mixprec-amp.
void registerAmpPipeline();

} // namespace mixprec

#endif // MIXPREC_PIPELINES_AMPPIPELINE_H
