//===- StateOps.cpp - parameters, buffers, read, assign -------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include <cmath>

using namespace mlir;
using namespace mixprec;

static LogicalResult verifyInitializer(Operation *op, Type type,
                                       InitializerAttrInterface initializer) {
  return initializer.verifyFor(cast<RankedTensorType>(type),
                               [op]() { return op->emitOpError(); });
}

LogicalResult ParameterOp::verify() {
  return verifyInitializer(*this, getType(), getInitializer());
}

/// A role fixes its buffer's type: the runtime and the passes read the step
/// count as i64, the loss scale as f32, the scaler's counters as i32.
static LogicalResult verifyRoleType(BufferOp buffer, StateRole role) {
  auto type = cast<RankedTensorType>(buffer.getType());
  Type element = type.getElementType();
  bool scalar = type.getRank() == 0;
  bool matches = false;
  StringRef expected;
  switch (role) {
  case StateRole::StepCount:
  case StateRole::SkippedSteps:
    matches = scalar && element.isSignlessInteger(64);
    expected = "tensor<i64>";
    break;
  case StateRole::Moment:
    matches = element.isF32();
    expected = "an f32 tensor";
    break;
  case StateRole::LossScale:
    matches = scalar && element.isF32();
    expected = "tensor<f32>";
    break;
  case StateRole::LossScaleTracker:
  case StateRole::LossScaleHysteresis:
    matches = scalar && element.isSignlessInteger(32);
    expected = "tensor<i32>";
    break;
  case StateRole::Skipped:
    matches = scalar && element.isSignlessInteger(1);
    expected = "tensor<i1>";
    break;
  case StateRole::FiniteGradients:
    matches = type.getRank() == 1 && element.isSignlessInteger(1);
    expected = "a 1-d tensor of i1";
    break;
  }
  if (matches)
    return success();
  return buffer.emitOpError("a ") << stringifyStateRole(role) << " buffer is "
                                  << expected << ", got " << type;
}

LogicalResult BufferOp::verify() {
  if (std::optional<StateRole> role = getRole())
    if (failed(verifyRoleType(*this, *role)))
      return failure();
  if (cast<RankedTensorType>(getType()).getElementType().isInteger()) {
    // Counters start from an exact integer; random draws make no sense.
    auto constant = dyn_cast<ConstantInitAttr>(getInitializer());
    double value = constant ? constant.getValue().convertToDouble() : 0.0;
    if (!isa<ZerosInitAttr, OnesInitAttr, ConstantInitAttr>(getInitializer()) ||
        value != std::trunc(value))
      return emitOpError("an integer buffer starts from zeros, ones or an "
                         "integral constant, not ")
             << getInitializer();
    unsigned width = cast<RankedTensorType>(getType())
                         .getElementType()
                         .getIntOrFloatBitWidth();
    double limit = width == 1 ? 1.0 : std::ldexp(1.0, int(width) - 1);
    if (value < (width == 1 ? 0.0 : -limit) ||
        value >= (width == 1 ? 2.0 : limit))
      return emitOpError("the constant ")
             << value << " does not fit the buffer's i" << width;
  }
  return verifyInitializer(*this, getType(), getInitializer());
}

/// Finds the parameter or buffer `name` refers to; its declared type goes to
/// `type`.
static Operation *lookupState(Operation *user, FlatSymbolRefAttr name,
                              SymbolTableCollection &symbolTable, Type &type) {
  Operation *decl = symbolTable.lookupNearestSymbolFrom(user, name);
  if (auto parameter = dyn_cast_or_null<ParameterOp>(decl))
    type = parameter.getType();
  else if (auto buffer = dyn_cast_or_null<BufferOp>(decl))
    type = buffer.getType();
  else if (decl)
    user->emitOpError() << name << " is a '" << decl->getName()
                        << "', not a parameter or buffer";
  else
    user->emitOpError() << name << " does not name a parameter or buffer";
  return type ? decl : nullptr;
}

static LogicalResult verifyStateType(Operation *user, FlatSymbolRefAttr name,
                                     Type declared, Type used) {
  if (declared == used)
    return success();
  return user->emitOpError("type ")
         << used << " does not match " << name << "'s type " << declared;
}

LogicalResult ReadOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Type declared;
  if (!lookupState(*this, getStateAttr(), symbolTable, declared))
    return failure();
  return verifyStateType(*this, getStateAttr(), declared, getType());
}

LogicalResult AssignOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Type declared;
  Operation *decl = lookupState(*this, getBufferAttr(), symbolTable, declared);
  if (!decl)
    return failure();
  auto function = (*this)->getParentOfType<func::FuncOp>();
  if (isa<ParameterOp>(decl) &&
      !(function && function->hasAttr(kOptimizerStepAttr)))
    return emitOpError() << getBufferAttr()
                         << " is a parameter; only the optimizer updates "
                            "parameters, assign targets buffers";
  return verifyStateType(*this, getBufferAttr(), declared,
                         getValue().getType());
}
