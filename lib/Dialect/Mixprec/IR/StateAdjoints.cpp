//===- StateAdjoints.cpp - adjoints of model-state reads ------------------===//
//
// Reverse-mode rules (AdjointOpInterface) of the ops that read model state:
// the loss's dependence ends at them. The reverse sweep's caller collects
// the gradients of the parameters' reads.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

using namespace mlir;
using namespace mixprec;

LogicalResult ReadOp::buildAdjoint(AdjointContext &, ArrayRef<Value>) {
  return success();
}

LogicalResult RngStateOp::buildAdjoint(AdjointContext &, ArrayRef<Value>) {
  return success();
}
