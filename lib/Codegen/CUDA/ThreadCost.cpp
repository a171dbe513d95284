//===- ThreadCost.cpp - about how long one GPU thread runs ----------------===//

#include "ThreadCost.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

int64_t mixprec::serialCost(Operation *op) {
  int64_t body = 0;
  for (Region &region : op->getRegions())
    for (Operation &inner : region.getOps())
      body += serialCost(&inner);
  int64_t trips = 1;
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound()),
                           upper = getConstantIntValue(loop.getUpperBound()),
                           step = getConstantIntValue(loop.getStep());
    if (lower && upper && step && *step > 0 && *upper > *lower)
      trips = llvm::divideCeil(*upper - *lower, *step);
  }
  return 1 + trips * body;
}
