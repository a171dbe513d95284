//===- MasterWeights.cpp - storage types of the parameters ----------------===//
//
// mode=fp32 stores every parameter in FP32 and gives 16-bit consumers a
// working copy; mode=none stores a parameter in the 16-bit type its reads are
// cast to, so updates round to 16 bits (the lost-update problem).
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECMASTERWEIGHTS
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

/// Whether `use` is the parameter operand of an optimizer update.
bool isUpdateParameter(OpOperand &use) {
  auto update = dyn_cast<OptimizerUpdateOpInterface>(use.getOwner());
  return update && &use == &update.getParamMutable();
}

/// `value` as `type`, cast right after its definition: the gradient is then
/// ready where the backward ends, before any optimizer write (loss scaling
/// checks all gradients there).
Value castTo(Location loc, Value value, RankedTensorType type) {
  if (value.getType() == type)
    return value;
  // A gradient autodiff rounded for the parameter's old type: take what it
  // rounded instead of rounding twice.
  if (auto cast = value.getDefiningOp<CastOp>())
    if (cast.getInput().getType() == type)
      return cast.getInput();
  OpBuilder b(value.getContext());
  b.setInsertionPointAfterValue(value);
  return castElements(b, loc, value, type.getElementType());
}

/// Gives `parameter` the storage type `storage`: every read yields it; a
/// cast of a read to `storage` becomes the read; optimizer updates take and
/// return `storage` (their gradient cast to it); other users get a cast to
/// the read's old type.
void setStorage(ParameterOp parameter, RankedTensorType storage,
                ModuleOp module) {
  parameter.setType(storage);
  SmallVector<ReadOp> reads;
  module.walk([&](ReadOp read) {
    if (read.getStateAttr().getAttr() == parameter.getSymNameAttr())
      reads.push_back(read);
  });
  for (ReadOp read : reads) {
    auto old = cast<RankedTensorType>(read.getType());
    read.getResult().setType(storage);
    OpBuilder b(read->getContext());
    b.setInsertionPointAfter(read);
    Value oldCopy;
    for (OpOperand &use : llvm::make_early_inc_range(read->getUses())) {
      Operation *user = use.getOwner();
      if (auto cast = dyn_cast<CastOp>(user);
          cast && cast.getType() == storage) {
        cast.replaceAllUsesWith(read.getResult());
        cast.erase();
        continue;
      }
      if (isUpdateParameter(use)) {
        auto update = cast<OptimizerUpdateOpInterface>(user);
        OpOperand &gradient = update.getGradMutable();
        gradient.set(castTo(update.getLoc(), gradient.get(), storage));
        update.getParamOut().setType(storage);
        continue;
      }
      if (!oldCopy) {
        b.setInsertionPointAfter(read);
        oldCopy = CastOp::create(b, read.getLoc(), old, read.getResult());
      }
      use.set(oldCopy);
    }
  }
}

/// The one 16-bit type every read of `parameter` is cast to (updates
/// aside), if there is one.
std::optional<RankedTensorType> workingType(ParameterOp parameter,
                                            ModuleOp module) {
  std::optional<RankedTensorType> type;
  bool consistent = true;
  module.walk([&](ReadOp read) {
    if (read.getStateAttr().getAttr() != parameter.getSymNameAttr())
      return;
    for (OpOperand &use : read->getUses()) {
      if (isUpdateParameter(use))
        continue;
      auto cast = dyn_cast<CastOp>(use.getOwner());
      auto castType = cast ? cast.getType() : RankedTensorType();
      if (!castType || castType.getElementType().isF32() ||
          (type && *type != castType))
        consistent = false;
      else
        type = castType;
    }
  });
  return consistent ? type : std::nullopt;
}

struct MixprecMasterWeightsPass
    : public mixprec::impl::MixprecMasterWeightsBase<MixprecMasterWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto parameter : llvm::to_vector(module.getOps<ParameterOp>())) {
      auto type = cast<RankedTensorType>(parameter.getType());
      if (mode == MasterWeightsMode::None) {
        if (std::optional<RankedTensorType> working =
                workingType(parameter, module))
          setStorage(parameter, *working, module);
        continue;
      }
      if (!type.getElementType().isF32())
        setStorage(parameter, type.clone(Float32Type::get(&getContext())),
                   module);
    }
    if (mode == MasterWeightsMode::None)
      return;
    // FP32 masters take FP32 gradients.
    module.walk([&](OptimizerUpdateOpInterface update) {
      OpOperand &gradient = update.getGradMutable();
      gradient.set(
          castTo(update.getLoc(), gradient.get(), update.getParam().getType()));
    });
  }
};

} // namespace
