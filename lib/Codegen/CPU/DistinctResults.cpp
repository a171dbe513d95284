//===- DistinctResults.cpp - one tensor per returned value ----------------===//
//
// --mixprec-distinct-results: a function that returns one value twice gets a
// copy for each repeat, so that every result has its own buffer when
// buffer-results-to-out-params turns results into caller-allocated
// out-parameters (it does not handle a buffer returned twice).
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseSet.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECDISTINCTRESULTS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

class DistinctResultsPass
    : public mixprec::impl::MixprecDistinctResultsBase<DistinctResultsPass> {
public:
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      llvm::DenseSet<Value> returned;
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type || returned.insert(value).second)
          continue;
        Value init = tensor::EmptyOp::create(b, ret.getLoc(), type.getShape(),
                                             type.getElementType());
        operand.set(
            linalg::CopyOp::create(b, ret.getLoc(), value, init).getResult(0));
      }
    });
  }
};

} // namespace
