//===- UpdateStateInPlace.cpp - new state values into their arguments ----===//
//
// --mixprec-update-state-in-place: each result that is the new value of a
// state argument (the same `mixprec.abi_name`) is materialized in that
// argument, and computed there directly when nothing reads the old value
// afterwards.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECUPDATESTATEINPLACE
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// The argument of `function` that holds the old value of `result`'s state,
/// or null.
BlockArgument stateArgumentOf(func::FuncOp function, unsigned result) {
  auto name =
      function.getResultAttrOfType<StringAttr>(result, mixprec::kABINameAttr);
  if (!name)
    return nullptr;
  for (BlockArgument argument : function.getArguments())
    if (function.getArgAttrOfType<StringAttr>(argument.getArgNumber(),
                                              mixprec::kABINameAttr) == name &&
        argument.getType() == function.getResultTypes()[result])
      return argument;
  return nullptr;
}

/// Makes the op that computes `value` write it into `state` when its
/// destination is a fresh tensor it does not read and no op after it reads
/// the old state.
void computeInto(Value value, BlockArgument state) {
  auto producer = value.getDefiningOp<DestinationStyleOpInterface>();
  if (!producer || producer->getBlock() != state.getOwner())
    return;
  OpOperand *init = producer.getTiedOpOperand(cast<OpResult>(value));
  auto empty = init->get().getDefiningOp<tensor::EmptyOp>();
  if (!empty || !empty->hasOneUse())
    return;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(producer.getOperation());
      !linalgOp || linalgOp.payloadUsesValueFromOperand(init))
    return;
  for (Operation *reader : state.getUsers()) {
    Operation *ancestor = state.getOwner()->findAncestorOpInBlock(*reader);
    if (ancestor != producer && producer->isBeforeInBlock(ancestor) &&
        !isa<bufferization::MaterializeInDestinationOp>(reader))
      return;
  }
  init->set(state);
  empty->erase();
}

/// `elements` inserted into `state` at the builder's point, row-major.
Value insertElements(OpBuilder &b, tensor::FromElementsOp elements,
                     Value state) {
  auto type = cast<RankedTensorType>(state.getType());
  Location loc = elements.getLoc();
  SmallVector<int64_t> strides = computeSuffixProduct(type.getShape());
  for (auto [linear, element] : llvm::enumerate(elements.getElements())) {
    SmallVector<Value> indices;
    for (int64_t index : delinearize(int64_t(linear), strides))
      indices.push_back(arith::ConstantIndexOp::create(b, loc, index));
    state = tensor::InsertOp::create(b, loc, element, state, indices);
  }
  return state;
}

class UpdateStateInPlacePass
    : public mixprec::impl::MixprecUpdateStateInPlaceBase<
          UpdateStateInPlacePass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    function.walk([&](func::ReturnOp ret) {
      OpBuilder b(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        BlockArgument state =
            stateArgumentOf(function, operand.getOperandNumber());
        Value value = operand.get();
        if (!state || value == state)
          continue;
        // Scalar code (the loss scaler's) builds its result from elements:
        // they go into the state's buffer one by one.
        if (auto elements = value.getDefiningOp<tensor::FromElementsOp>()) {
          operand.set(insertElements(b, elements, state));
          continue;
        }
        auto materialized = bufferization::MaterializeInDestinationOp::create(
            b, ret.getLoc(), value, state);
        operand.set(materialized.getResult());
        computeInto(value, state);
      }
    });
  }
};

} // namespace
