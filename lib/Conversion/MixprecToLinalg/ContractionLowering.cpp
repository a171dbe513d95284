//===- ContractionLowering.cpp ---------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

void mixprec::populateContractionLoweringPatterns(RewritePatternSet &patterns) {}
