//===- AmpPipeline.cpp - --mixprec-amp, the mixed-precision pipeline ------===//

#include "mixprec/Pipelines/AmpPipeline.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace mixprec {

void buildAmpPipeline(OpPassManager &pm, const AmpOptions &options) {
  // Each pass checks its own options and reports them with a location.
  MixprecAutocastOptions autocast;
  autocast.precision = options.precision;
  pm.addPass(createMixprecAutocast(autocast));
  pm.addPass(createMixprecAutodiff());
  MixprecMasterWeightsOptions masterWeights;
  masterWeights.mode = options.masterWeights;
  pm.addPass(createMixprecMasterWeights(masterWeights));
  MixprecLossScalingOptions scaling;
  // BF16 has FP32's exponent range: no scaling unless asked for.
  std::string mode = options.lossScaling;
  if (mode == "default")
    mode = options.precision == "f16" ? "dynamic" : "none";
  scaling.mode = mode;
  scaling.initScale = options.initScale;
  scaling.growthFactor = options.growthFactor;
  scaling.backoffFactor = options.backoffFactor;
  scaling.growthInterval = options.growthInterval;
  scaling.hysteresis = options.hysteresis;
  scaling.minScale = options.minScale;
  scaling.maxScale = options.maxScale;
  scaling.maxGradNorm = options.maxGradNorm;
  pm.addPass(createMixprecLossScaling(scaling));
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
}

void registerAmpPipeline() {
  PassPipelineRegistration<AmpOptions>(
      "mixprec-amp",
      "Mixed-precision training: autocast, autodiff, master weights, loss "
      "scaling, cleanup",
      [](OpPassManager &pm, const AmpOptions &options) {
        buildAmpPipeline(pm, options);
      });
}

} // namespace mixprec
