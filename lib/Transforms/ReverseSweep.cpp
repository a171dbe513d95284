//===- ReverseSweep.cpp - the reverse sweep of --mixprec-autodiff ---------===//
//
// The loss is seeded with 1 (the constant marked `mixprec.loss_seed`), ops
// are visited last to first, and each op's adjoint (AdjointOpInterface, next
// to the op in the dialect) turns the gradients of its results into
// gradients of its operands.
//
//   - An adjoint runs in its forward op's precision: the incoming gradient
//     is cast to the op's result type first; the adjoint of a cast is a cast
//     back, so parameters read in FP32 get FP32 gradients.
//   - A value used several times gets the sum of its gradients, in FP32.
//
//===----------------------------------------------------------------------===//

#include "ReverseSweep.h"

using namespace mlir;
using namespace mixprec;

static bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

void ReverseSweep::accumulate(Value value, Value gradient) {
  auto [it, inserted] = adjoints.try_emplace(value, gradient);
  if (inserted)
    return;
  // Fan-out gradients are summed in FP32.
  Type f32 = getBuilder().getF32Type();
  Value added = castTo(gradient, f32);
  Value previous = castTo(it->second, f32);
  it->second = AddOp::create(getBuilder(), getLoc(), previous, added);
}

LogicalResult ReverseSweep::backprop(Operation *op) {
  if (op->getNumResults() == 0)
    return success();
  // Ops whose results the loss does not depend on have no adjoint.
  SmallVector<Value> grads;
  bool any = false;
  for (Value result : op->getResults()) {
    Value gradient = adjoints.lookup(result);
    if (gradient && isFloatTensor(result))
      gradient = castTo(
          gradient, cast<RankedTensorType>(result.getType()).getElementType());
    grads.push_back(gradient);
    any |= static_cast<bool>(gradient);
  }
  if (!any)
    return success();
  setLoc(op->getLoc());
  auto adjoint = dyn_cast<AdjointOpInterface>(op);
  if (!adjoint)
    return emitNoAdjoint(op);
  return adjoint.buildAdjoint(*this, grads);
}

LogicalResult ReverseSweep::run(Block &body, Value loss) {
  getBuilder().setInsertionPoint(body.getTerminator());
  Value seed = splat(1.0, cast<RankedTensorType>(loss.getType()));
  seed.getDefiningOp()->setAttr(kLossSeedAttr, getBuilder().getUnitAttr());
  adjoints[loss] = seed;
  SmallVector<Operation *> forward;
  for (Operation &op : body.without_terminator())
    forward.push_back(&op);
  for (Operation *op : llvm::reverse(forward)) {
    if (op->getNumRegions() != 0)
      return op->emitError("mixprec-autodiff: ops with regions are not "
                           "differentiated");
    if (failed(backprop(op)))
      return failure();
  }
  return success();
}
