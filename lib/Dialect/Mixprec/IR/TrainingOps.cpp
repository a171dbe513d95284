//===- TrainingOps.cpp - train_step, all_finite, loss scale, optimizers ---===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

LogicalResult
mixprec::verifyLossScaleParameters(function_ref<InFlightDiagnostic()> emitError,
                                   const LossScaleParameters &parameters,
                                   LossScaleNaming naming) {
  // The op's attributes are `growth_factor`, the pass's options
  // `growth-factor`.
  auto name = [naming](StringRef attribute) {
    std::string spelled = attribute.str();
    if (naming == LossScaleNaming::PassOptions)
      std::replace(spelled.begin(), spelled.end(), '_', '-');
    return spelled;
  };
  double growth = parameters.growthFactor;
  if (!(growth > 1.0 && std::isfinite(growth)))
    return emitError() << name("growth_factor")
                       << " must be finite and > 1, got " << growth;
  double backoff = parameters.backoffFactor;
  if (!(backoff > 0.0 && backoff < 1.0))
    return emitError() << name("backoff_factor") << " must be in (0, 1), got "
                       << backoff;
  // The tracker and the hysteresis count are i32 state.
  int64_t i32Max = std::numeric_limits<int32_t>::max();
  for (auto [attribute, count] :
       {std::pair<StringRef, int64_t>{"growth_interval",
                                      parameters.growthInterval},
        {"hysteresis", parameters.hysteresis}})
    if (count < 1 || count > i32Max)
      return emitError() << name(attribute) << " must be in [1, 2^31), got "
                         << count;
  double minScale = parameters.minScale, maxScale = parameters.maxScale;
  if (!(minScale > 0.0 && minScale <= maxScale && std::isfinite(maxScale)))
    return emitError() << "need 0 < " << name("min_scale")
                       << " <= " << name("max_scale") << " < inf, got "
                       << minScale << " and " << maxScale;
  return success();
}

LogicalResult LossScaleUpdateOp::verify() {
  LossScaleParameters parameters{
      getGrowthFactor().convertToDouble(), getBackoffFactor().convertToDouble(),
      getGrowthIntervalAttr().getInt(),    getHysteresisAttr().getInt(),
      getMinScale().convertToDouble(),     getMaxScale().convertToDouble()};
  return verifyLossScaleParameters([this] { return emitOpError(); }, parameters,
                                   LossScaleNaming::Attributes);
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

/// What every update op checks against its optimizer attribute, whose own
/// verifier has checked the hyper-parameters: the gradient reaches the
/// update in the parameter's type (master-weight training casts it to f32
/// first), and the weight decay is the parameter's already.
static LogicalResult verifyUpdate(OptimizerUpdateOpInterface update,
                                  OptimizerAttrInterface optimizer) {
  Value param = update.getParam(), grad = update.getGrad();
  if (param.getType() != grad.getType())
    return update->emitOpError("grad type ")
           << grad.getType() << " must match the parameter's "
           << param.getType();
  if (optimizer.getDecayNormAndBias())
    return update->emitOpError(
        "takes its parameter's weight_decay; decay_norm_and_bias = true "
        "belongs to a train step's optimizer");
  return success();
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
  if (failed(verifyUpdate(*this, getOptimizer())))
    return failure();
  if (getParamOut().getType() != getParam().getType())
    return emitOpError("param_out type must match the parameter's");
  Value buffer = getMomentumBuffer();
  if ((getOptimizer().getMomentum().convertToDouble() > 0.0) != bool(buffer))
    return emitOpError("a momentum buffer is given iff momentum > 0");
  if (bool(buffer) != bool(getMomentumBufferOut()))
    return emitOpError("momentum_buffer_out is returned iff a momentum buffer "
                       "is given");
  if (bool(getStep()) != getOptimizer().needsStepCount())
    return emitOpError("a step count is given iff a momentum buffer is and "
                       "dampening != 0 (the first step sets the buffer to the "
                       "undamped gradient)");
  if (!buffer)
    return success();
  if (getMomentumBufferOut().getType() != buffer.getType())
    return emitOpError("momentum_buffer_out type must match the buffer's");
  return verifyMomentShape(*this, getParam(), buffer, "momentum buffer");
}

OperandRange SGDUpdateOp::getMoments() { return getMomentumBufferMutable(); }

ResultRange SGDUpdateOp::getMomentsOut() {
  return getOperation()->getResults().drop_front();
}

LogicalResult AdamUpdateOp::verify() {
  if (failed(verifyUpdate(*this, cast<OptimizerAttrInterface>(getOptimizer()))))
    return failure();
  return verifyMomentShape(*this, getParam(), getExpAvg(), "exp_avg");
}

OperandRange AdamUpdateOp::getMoments() {
  return getOperation()->getOperands().slice(2, 2);
}

ResultRange AdamUpdateOp::getMomentsOut() {
  return getOperation()->getResults().drop_front();
}

//===----------------------------------------------------------------------===//
// Optimizers: the moments each keeps and the update it builds
//===----------------------------------------------------------------------===//

/// The result types of an update: the parameter's, then each moment's.
static SmallVector<Type> updateResultTypes(Value param, ValueRange moments) {
  SmallVector<Type> types{param.getType()};
  llvm::append_range(types, moments.getTypes());
  return types;
}

SmallVector<StringRef> SGDAttr::getMomentNames() const {
  if (getMomentum().convertToDouble() > 0.0)
    return {"momentum_buffer"};
  return {};
}

bool SGDAttr::needsStepCount() const {
  return getMomentum().convertToDouble() > 0.0 &&
         getDampening().convertToDouble() != 0.0;
}

OptimizerUpdateOpInterface SGDAttr::buildUpdate(OpBuilder &builder,
                                                Location loc, Value param,
                                                Value grad, ValueRange moments,
                                                Value lr, Value stepCount,
                                                bool decayed) const {
  auto forParameter =
      SGDAttr::get(getContext(), getMomentum(), getDampening(), getNesterov(),
                   decayed ? getWeightDecay() : APFloat(0.0),
                   /*decay_norm_and_bias=*/false);
  Value buffer = moments.empty() ? Value() : moments.front();
  Value step = needsStepCount() ? stepCount : Value();
  return SGDUpdateOp::create(builder, loc, updateResultTypes(param, moments),
                             param, grad, lr, buffer, step, forParameter);
}

/// Adam and AdamW keep the same moments and share one update op.
template <typename AdamFamilyAttr>
static AdamUpdateOp buildAdamUpdate(AdamFamilyAttr optimizer,
                                    OpBuilder &builder, Location loc,
                                    Value param, Value grad, ValueRange moments,
                                    Value lr, Value stepCount, bool decayed) {
  auto forParameter = AdamFamilyAttr::get(
      optimizer.getContext(), optimizer.getBeta1(), optimizer.getBeta2(),
      optimizer.getEps(), decayed ? optimizer.getWeightDecay() : APFloat(0.0),
      /*decay_norm_and_bias=*/false);
  return AdamUpdateOp::create(builder, loc, updateResultTypes(param, moments),
                              param, grad, moments[0], moments[1], lr,
                              stepCount, forParameter);
}

SmallVector<StringRef> AdamAttr::getMomentNames() const {
  return {"exp_avg", "exp_avg_sq"};
}

OptimizerUpdateOpInterface AdamAttr::buildUpdate(OpBuilder &builder,
                                                 Location loc, Value param,
                                                 Value grad, ValueRange moments,
                                                 Value lr, Value stepCount,
                                                 bool decayed) const {
  return buildAdamUpdate(*this, builder, loc, param, grad, moments, lr,
                         stepCount, decayed);
}

SmallVector<StringRef> AdamWAttr::getMomentNames() const {
  return {"exp_avg", "exp_avg_sq"};
}

OptimizerUpdateOpInterface
AdamWAttr::buildUpdate(OpBuilder &builder, Location loc, Value param,
                       Value grad, ValueRange moments, Value lr,
                       Value stepCount, bool decayed) const {
  return buildAdamUpdate(*this, builder, loc, param, grad, moments, lr,
                         stepCount, decayed);
}
