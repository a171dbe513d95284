//===- ContractionBody.cpp - what a contraction's body computes -----------===//

#include "mixprec/Codegen/ContractionBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

bool mixprec::computesContract(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body || body->getNumArguments() != 3)
    return false;
  BlockArgument a = body->getArgument(0), b = body->getArgument(1),
                acc = body->getArgument(2);
  Type accType = acc.getType();
  if (!isa<FloatType>(accType))
    return false;
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value product = add.getLhs() == acc   ? add.getRhs()
                  : add.getRhs() == acc ? add.getLhs()
                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  auto widened = [&](Value value, BlockArgument arg) {
    if (value == arg)
      return arg.getType() == accType;
    auto ext = value.getDefiningOp<arith::ExtFOp>();
    return ext && ext.getIn() == arg && ext.getType() == accType;
  };
  if (!((widened(mul.getLhs(), a) && widened(mul.getRhs(), b)) ||
        (widened(mul.getLhs(), b) && widened(mul.getRhs(), a))))
    return false;
  AffineMap outMap = op.getIndexingMapsArray().back();
  for (auto [dim, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if ((type == utils::IteratorType::parallel) != outMap.isFunctionOfDim(dim))
      return false;
  return true;
}
