//===- TrainingOps.cpp - train_step, all_finite, loss scale, optimizers ---===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <cmath>

using namespace mlir;
using namespace mixprec;

LogicalResult TrainStepOp::verify() {
  int64_t steps = getAccumulationStepsAttr().getInt();
  if (steps < 1)
    return emitOpError("accumulation_steps must be >= 1, got ") << steps;
  return success();
}

/// Each buffer takes at most one new value per step.
static LogicalResult verifySingleAssignPerBuffer(TrainStepOp step,
                                                 func::FuncOp forward) {
  llvm::SmallDenseMap<StringAttr, AssignOp> assigned;
  WalkResult result = forward.walk([&](AssignOp assign) {
    auto [it, inserted] =
        assigned.try_emplace(assign.getBufferAttr().getAttr(), assign);
    if (inserted)
      return WalkResult::advance();
    InFlightDiagnostic diag = step.emitOpError("buffer ")
                              << assign.getBufferAttr()
                              << " is assigned twice in "
                              << step.getForwardAttr();
    diag.attachNote(it->second.getLoc()) << "first assigned here";
    diag.attachNote(assign.getLoc()) << "assigned again here";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// Where `forward` computes its loss: the op that defines the returned value,
/// else the return itself (or the function, when it has no body).
static Location lossLocation(func::FuncOp forward) {
  if (forward.isExternal())
    return forward.getLoc();
  Operation *ret = forward.getBody().front().getTerminator();
  if (Operation *definition = ret->getOperand(0).getDefiningOp())
    return definition->getLoc();
  return ret->getLoc();
}

LogicalResult
TrainStepOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *symbol =
      symbolTable.lookupNearestSymbolFrom(*this, getForwardAttr());
  if (!symbol)
    return emitOpError("forward function ") << getForwardAttr() << " not found";
  auto forward = dyn_cast<func::FuncOp>(symbol);
  if (!forward)
    return emitOpError() << getForwardAttr() << " is a '" << symbol->getName()
                         << "', not a func.func";
  FunctionType type = forward.getFunctionType();
  auto loss = type.getNumResults() == 1
                  ? dyn_cast<RankedTensorType>(type.getResult(0))
                  : RankedTensorType();
  if (!loss || loss.getRank() != 0 || !isa<FloatType>(loss.getElementType()))
    return emitOpError("forward function must return one 0-d float loss, "
                       "returns ")
           << type.getResults();
  // Loss scaling multiplies the loss by up to 2^24 (past the f16 range) and
  // the trainer reports it as f32.
  if (!loss.getElementType().isF32()) {
    std::string lossType, elementType;
    llvm::raw_string_ostream(lossType) << loss;
    llvm::raw_string_ostream(elementType) << loss.getElementType();
    InFlightDiagnostic diag =
        mlir::emitError(lossLocation(forward))
        << "the loss of train step @" << getSymName() << " must be f32, got "
        << elementType << "; cast it with `mixprec.cast %loss : " << lossType
        << " to tensor<f32>` and return tensor<f32>";
    diag.attachNote(getLoc()) << "the train step";
    return diag;
  }
  for (auto [index, input] : llvm::enumerate(type.getInputs())) {
    auto tensor = dyn_cast<RankedTensorType>(input);
    if (!tensor || !tensor.hasStaticShape())
      return emitOpError("forward function argument ")
             << index << " must be a statically shaped tensor, got " << input;
  }
  return verifySingleAssignPerBuffer(*this, forward);
}

LogicalResult AllFiniteOp::inferReturnTypes(MLIRContext *context,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto i1 = IntegerType::get(context, 1);
  types.push_back(RankedTensorType::get({}, i1));
  types.push_back(
      RankedTensorType::get({int64_t(adaptor.getInputs().size())}, i1));
  return success();
}

LogicalResult AllFiniteOp::verify() {
  if (getInputs().empty())
    return emitOpError("needs at least one tensor");
  int64_t flags = getEach().getType().getDimSize(0);
  if (flags != int64_t(getInputs().size()))
    return emitOpError("has ")
           << getInputs().size() << " inputs but 'each' holds " << flags
           << " flags";
  return success();
}

LogicalResult LossScaleUpdateOp::verify() {
  double growth = getGrowthFactor().convertToDouble();
  double backoff = getBackoffFactor().convertToDouble();
  double minScale = getMinScale().convertToDouble();
  double maxScale = getMaxScale().convertToDouble();
  if (!(growth > 1.0 && std::isfinite(growth)))
    return emitOpError("growth_factor must be finite and > 1, got ") << growth;
  if (!(backoff > 0.0 && backoff < 1.0))
    return emitOpError("backoff_factor must be in (0, 1), got ") << backoff;
  int64_t interval = getGrowthIntervalAttr().getInt();
  if (interval < 1)
    return emitOpError("growth_interval must be >= 1, got ") << interval;
  int64_t hysteresis = getHysteresisAttr().getInt();
  if (hysteresis < 1)
    return emitOpError("hysteresis must be >= 1, got ") << hysteresis;
  if (!(minScale > 0.0 && minScale <= maxScale && std::isfinite(maxScale)))
    return emitOpError("need 0 < min_scale <= max_scale < inf, got ")
           << minScale << " and " << maxScale;
  return success();
}

static LogicalResult verifyWeightDecay(Operation *op, double weightDecay) {
  if (weightDecay >= 0.0 && std::isfinite(weightDecay))
    return success();
  return op->emitOpError("weight_decay must be finite and >= 0, got ")
         << weightDecay;
}

/// The gradient reaches the update in the parameter's type: master-weight
/// training casts it to f32 first.
static LogicalResult verifyGradient(Operation *op, Value param, Value grad) {
  if (param.getType() == grad.getType())
    return success();
  return op->emitOpError("grad type ")
         << grad.getType() << " must match the parameter's " << param.getType();
}

static LogicalResult verifyMomentShape(Operation *op, Value param, Value moment,
                                       StringRef name) {
  auto paramType = cast<RankedTensorType>(param.getType());
  auto momentType = cast<RankedTensorType>(moment.getType());
  if (paramType.getShape() == momentType.getShape())
    return success();
  return op->emitOpError() << name << " shape must match the parameter's";
}

LogicalResult SGDUpdateOp::verify() {
  if (failed(verifyGradient(*this, getParam(), getGrad())))
    return failure();
  double momentum = getMomentum().convertToDouble();
  double dampening = getDampening().convertToDouble();
  if (!(momentum >= 0.0 && std::isfinite(momentum)))
    return emitOpError("momentum must be finite and >= 0, got ") << momentum;
  if (!(dampening >= 0.0 && dampening <= 1.0))
    return emitOpError("dampening must be in [0, 1], got ") << dampening;
  if (getNesterov() && (momentum == 0.0 || dampening != 0.0))
    return emitOpError("nesterov needs momentum > 0 and dampening = 0");
  if (failed(verifyWeightDecay(*this, getWeightDecay().convertToDouble())))
    return failure();
  if (getParamOut().getType() != getParam().getType())
    return emitOpError("param_out type must match the parameter's");
  Value buffer = getMomentumBuffer();
  if ((momentum > 0.0) != bool(buffer))
    return emitOpError("a momentum buffer is given iff momentum > 0");
  if (bool(buffer) != bool(getMomentumBufferOut()))
    return emitOpError("momentum_buffer_out is returned iff a momentum buffer "
                       "is given");
  if (!buffer)
    return success();
  if (getMomentumBufferOut().getType() != buffer.getType())
    return emitOpError("momentum_buffer_out type must match the buffer's");
  return verifyMomentShape(*this, getParam(), buffer, "momentum buffer");
}

LogicalResult AdamUpdateOp::verify() {
  if (failed(verifyGradient(*this, getParam(), getGrad())) ||
      failed(verifyMomentShape(*this, getParam(), getExpAvg(), "exp_avg")))
    return failure();
  double beta1 = getBeta1().convertToDouble();
  double beta2 = getBeta2().convertToDouble();
  double eps = getEps().convertToDouble();
  if (!(beta1 >= 0.0 && beta1 < 1.0) || !(beta2 >= 0.0 && beta2 < 1.0))
    return emitOpError("beta1 and beta2 must be in [0, 1), got ")
           << beta1 << " and " << beta2;
  if (!(eps > 0.0 && std::isfinite(eps)))
    return emitOpError("eps must be finite and > 0, got ") << eps;
  return verifyWeightDecay(*this, getWeightDecay().convertToDouble());
}
