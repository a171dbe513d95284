//===- AmpPipeline.cpp - --mixprec-amp, the mixed-precision pipeline ------===//

#include "mixprec/Pipelines/AmpPipeline.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace mixprec {

/// The `key[=value]` entries of a pass option string, as written; a value
/// may hold spaces inside quotes or braces, as MLIR's option parser allows.
static SmallVector<StringRef> splitOptionEntries(StringRef options) {
  SmallVector<StringRef> entries;
  size_t start = StringRef::npos;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0, e = options.size(); i < e; ++i) {
    char c = options[i];
    if (quote) {
      quote = c == quote ? 0 : quote;
      continue;
    }
    if (depth == 0 && llvm::isSpace(c)) {
      if (start != StringRef::npos)
        entries.push_back(options.slice(start, i));
      start = StringRef::npos;
      continue;
    }
    if (start == StringRef::npos)
      start = i;
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '{')
      ++depth;
    else if (c == '}')
      --depth;
  }
  if (start != StringRef::npos)
    entries.push_back(options.substr(start));
  return entries;
}

LogicalResult AmpOptions::parseFromString(StringRef options,
                                          raw_ostream &errorStream) {
  std::string own;
  lossScalingOptions.clear();
  for (StringRef entry : splitOptionEntries(options)) {
    StringRef key = entry.split('=').first;
    // The pass's mode comes from loss-scaling= and the precision.
    if (key == "mode") {
      errorStream << "<Pass-Options-Parser>: no such option mode (the "
                     "loss-scaling mode is loss-scaling=)\n";
      return failure();
    }
    bool isOwn = key == precision.getArgStr() ||
                 key == lossScaling.getArgStr() ||
                 key == masterWeights.getArgStr();
    std::string &text = isOwn ? own : lossScalingOptions;
    text += (text.empty() ? "" : " ") + entry.str();
  }
  if (failed(detail::PassOptions::parseFromString(own, errorStream)))
    return failure();
  // The pass's parser names an unknown option or a bad value.
  return createMixprecLossScaling()->initializeOptions(
      lossScalingOptions, [&](const Twine &message) {
        errorStream << message;
        return failure();
      });
}

LossScalingMode AmpOptions::lossScalingMode() const {
  switch (lossScaling) {
  case AmpLossScaling::ByPrecision:
    // BF16 has FP32's exponent range: no scaling unless asked for.
    return precision == AutocastPrecision::F16 ? LossScalingMode::Dynamic
                                               : LossScalingMode::None;
  case AmpLossScaling::Dynamic:
    return LossScalingMode::Dynamic;
  case AmpLossScaling::Static:
    return LossScalingMode::Static;
  case AmpLossScaling::None:
    return LossScalingMode::None;
  }
  llvm_unreachable("unknown loss-scaling choice");
}

std::unique_ptr<Pass> AmpOptions::createLossScalingPass() const {
  MixprecLossScalingOptions scaling;
  scaling.mode = lossScalingMode();
  std::unique_ptr<Pass> pass = createMixprecLossScaling(scaling);
  // parseFromString had the same parser accept these options.
  LogicalResult initialized = pass->initializeOptions(
      lossScalingOptions, [](const Twine &) { return failure(); });
  assert(succeeded(initialized) && "loss-scaling options checked at parsing");
  (void)initialized;
  return pass;
}

void buildAmpPipeline(OpPassManager &pm, const AmpOptions &options) {
  // Each pass checks its own options and reports them with a location.
  MixprecAutocastOptions autocast;
  autocast.precision = options.precision;
  pm.addPass(createMixprecAutocast(autocast));
  pm.addPass(createMixprecAutodiff());
  MixprecMasterWeightsOptions masterWeights;
  masterWeights.mode = options.masterWeights;
  pm.addPass(createMixprecMasterWeights(masterWeights));
  pm.addPass(options.createLossScalingPass());
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
