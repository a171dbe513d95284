//===- Autodiff.cpp - reverse-mode gradients of a train step's loss -------===//
//
// --mixprec-autodiff. For each `mixprec.train_step`, the forward loss
// function is cloned into `@<step>_gradients` and extended with its reverse
// sweep: the loss is seeded with 1 (the constant marked `mixprec.loss_seed`),
// ops are visited last to first, and each op's adjoint rule turns the
// gradients of its results into gradients of its operands (ReverseSweep.h).
// The train step then becomes one function: gradients, step count,
// optimizer updates.
//
//===----------------------------------------------------------------------===//

#include "ReverseSweep.h"

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECAUTODIFF
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

class AutodiffPass : public mixprec::impl::MixprecAutodiffBase<AutodiffPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto step : llvm::to_vector(module.getOps<TrainStepOp>())) {
      FailureOr<func::FuncOp> gradients = buildGradients(step);
      if (failed(gradients) || failed(buildStep(step, *gradients)))
        return signalPassFailure();
    }
  }

private:
  FailureOr<func::FuncOp> buildGradients(TrainStepOp step);
  LogicalResult buildStep(TrainStepOp step, func::FuncOp gradients);
};

} // namespace

/// A backward matmul whose only user casts its 16-bit result to FP32 (a
/// weight gradient on its way to an FP32 parameter) yields its FP32
/// accumulator instead: one rounding fewer, as autocast does for forward
/// contractions. Only the reverse sweep's ops, after the seed, are touched.
static void yieldAccumulators(Block &body) {
  auto seed = llvm::find_if(
      body, [](Operation &op) { return op.hasAttr(kLossSeedAttr); });
  if (seed == body.end())
    return;
  SmallVector<CastOp> casts;
  for (Operation &op : llvm::make_range(std::next(seed), body.end()))
    if (auto castOp = dyn_cast<CastOp>(&op))
      casts.push_back(castOp);
  for (CastOp castOp : casts) {
    Operation *producer = castOp.getInput().getDefiningOp();
    if (!producer || !isa<MatmulOp, BatchMatmulOp>(producer) ||
        !producer->hasOneUse() || producer->isBeforeInBlock(&*seed) ||
        !castOp.getType().getElementType().isF32())
      continue;
    producer->getResult(0).setType(castOp.getType());
    castOp.replaceAllUsesWith(producer->getResult(0));
    castOp.erase();
  }
}

FailureOr<func::FuncOp> AutodiffPass::buildGradients(TrainStepOp step) {
  ModuleOp module = getOperation();
  auto forward = module.lookupSymbol<func::FuncOp>(step.getForwardAttr());
  if (!forward || forward.isExternal() || !forward.getBody().hasOneBlock())
    return step.emitError("mixprec-autodiff: the forward function must be "
                          "defined, with one block");
  if (module.getOps<ParameterOp>().empty())
    return step.emitError("mixprec-autodiff: train step @")
           << step.getSymName()
           << " has no trainable parameter to update: the module declares no "
              "mixprec.parameter";
  std::string name = (step.getSymName() + "_gradients").str();
  if (module.lookupSymbol(name))
    return step.emitError("mixprec-autodiff: '@") << name << "' exists already";

  OpBuilder b(step);
  auto gradients = cast<func::FuncOp>(b.clone(*forward));
  gradients.setSymName(name);
  gradients.setPublic();
  Block &body = gradients.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  Value loss = ret.getOperand(0);

  ReverseSweep sweep(b);
  if (failed(sweep.run(body, loss)))
    return failure();

  // Every parameter's gradient (summed over its reads), in its own type, in
  // declaration order; zeros for parameters the loss does not read.
  llvm::DenseMap<Attribute, Value> byParameter;
  for (auto read : body.getOps<ReadOp>()) {
    Value gradient = sweep.gradientOf(read.getResult());
    if (!gradient)
      continue;
    Value &total = byParameter[read.getStateAttr()];
    if (total) {
      Type f32 = b.getF32Type();
      Location loc = read.getLoc();
      total = AddOp::create(b, loc, castElements(b, loc, total, f32),
                            castElements(b, loc, gradient, f32));
    } else {
      total = gradient;
    }
  }
  if (byParameter.empty()) {
    InFlightDiagnostic diag =
        step.emitError("mixprec-autodiff: train step @")
        << step.getSymName()
        << " has no trainable parameter to update: no mixprec.parameter gets "
           "a gradient from its loss";
    diag.attachNote(loss.getLoc()) << "the loss";
    return diag;
  }
  SmallVector<Value> results{loss};
  SmallVector<Attribute> gradientOf;
  for (auto parameter : module.getOps<ParameterOp>()) {
    auto ref = FlatSymbolRefAttr::get(parameter.getSymNameAttr());
    auto type = cast<RankedTensorType>(parameter.getType());
    Value gradient = byParameter.lookup(ref);
    if (!gradient)
      gradient = ConstantOp::create(
          b, parameter.getLoc(),
          DenseElementsAttr::get(type,
                                 b.getFloatAttr(type.getElementType(), 0.0)));
    else if (gradient.getType() != type)
      gradient = CastOp::create(b, parameter.getLoc(), type, gradient);
    results.push_back(gradient);
    gradientOf.push_back(ref);
  }
  func::ReturnOp::create(b, ret.getLoc(), results);
  ret.erase();
  gradients.setFunctionType(b.getFunctionType(gradients.getArgumentTypes(),
                                              ValueRange(results).getTypes()));
  for (auto [i, ref] : llvm::enumerate(gradientOf))
    gradients.setResultAttr(i + 1, kGradientOfAttr, ref);
  // Gradients of the batch and other values no parameter reaches are
  // computed by the sweep but never used.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isOpTriviallyDead(&op))
      op.erase();
  yieldAccumulators(body);
  return gradients;
}

/// Whether the optimizer decays `parameter`: by its own `weight_decay`
/// attribute, else for rank >= 2 (or any rank with decay_norm_and_bias).
static bool isDecayed(ParameterOp parameter, OptimizerAttrInterface optimizer) {
  if (std::optional<bool> own = parameter.getWeightDecay())
    return *own;
  return optimizer.getDecayNormAndBias() ||
         cast<RankedTensorType>(parameter.getType()).getRank() >= 2;
}

/// Declares a buffer `name` of `type` holding `role`, filled with zeros,
/// before `step`.
static FailureOr<FlatSymbolRefAttr> declareZeroBuffer(TrainStepOp step,
                                                      StringRef name,
                                                      RankedTensorType type,
                                                      StateRole role) {
  MLIRContext *context = step.getContext();
  if (SymbolTable::lookupNearestSymbolFrom(step,
                                           StringAttr::get(context, name)))
    return step.emitError("mixprec-autodiff: '@") << name << "' exists already";
  OpBuilder b(step);
  auto zeros = cast<InitializerAttrInterface>(ZerosInitAttr::get(context));
  BufferOp::create(b, step.getLoc(), name, type, zeros,
                   StateRoleAttr::get(context, role));
  return FlatSymbolRefAttr::get(context, name);
}

/// A function like `gradients` over `count` micro-batches stacked along dim
/// 0 of each batch input: one copy of the body per micro-batch, on a slice
/// of each input, the losses and gradients averaged in FP32 (PyTorch's
/// `loss / count` per micro-batch). A buffer one micro-batch assigns is what
/// the next one reads; only the last assign stays.
static FailureOr<func::FuncOp> cloneAccumulated(OpBuilder &b, TrainStepOp step,
                                                func::FuncOp gradients,
                                                int64_t count) {
  Location loc = step.getLoc();
  SmallVector<Type> stackedTypes;
  for (Type type : gradients.getArgumentTypes()) {
    auto tensor = cast<RankedTensorType>(type);
    if (tensor.getRank() == 0)
      return step.emitError("mixprec-autodiff: gradient accumulation needs "
                            "a batch dim on every input of the forward");
    SmallVector<int64_t> shape(tensor.getShape());
    shape[0] *= count;
    stackedTypes.push_back(tensor.clone(shape));
  }
  auto function = func::FuncOp::create(
      b, gradients.getLoc(), gradients.getSymName(),
      b.getFunctionType(stackedTypes, gradients.getResultTypes()));
  // The stacked inputs keep the forward's names in the model ABI.
  function.setArgAttrsAttr(gradients.getArgAttrsAttr());
  Block *body = function.addEntryBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(body);

  Block &source = gradients.getBody().front();
  llvm::DenseMap<Attribute, Value> assigned;
  SmallVector<Value> totals;
  for (int64_t k = 0; k < count; ++k) {
    IRMapping mapping;
    for (auto [argument, stacked] :
         llvm::zip_equal(source.getArguments(), body->getArguments())) {
      auto type = cast<RankedTensorType>(argument.getType());
      SmallVector<int64_t> offsets(type.getRank(), 0);
      offsets[0] = k * type.getDimSize(0);
      mapping.map(argument,
                  SliceOp::create(b, loc, stacked, offsets, type.getShape(),
                                  /*strides=*/nullptr));
    }
    SmallVector<AssignOp> assigns;
    for (Operation &op : source.without_terminator()) {
      if (auto read = dyn_cast<ReadOp>(op))
        if (Value latest = assigned.lookup(read.getStateAttr())) {
          mapping.map(read.getResult(), latest);
          continue;
        }
      Operation *copy = b.clone(op, mapping);
      if (auto assign = dyn_cast<AssignOp>(copy))
        assigns.push_back(assign);
    }
    for (AssignOp assign : assigns) {
      assigned[assign.getBufferAttr()] = assign.getValue();
      if (k + 1 < count)
        assign.erase();
    }
    auto results = llvm::map_to_vector(
        source.getTerminator()->getOperands(),
        [&](Value v) { return mapping.lookupOrDefault(v); });
    for (auto [i, result] : llvm::enumerate(results)) {
      Value value = castElements(b, loc, result, b.getF32Type());
      if (k == 0)
        totals.push_back(value);
      else
        totals[i] = AddOp::create(b, loc, totals[i], value);
    }
  }
  SmallVector<Value> averages;
  for (auto [total, type] :
       llvm::zip_equal(totals, gradients.getResultTypes())) {
    auto f32Type = cast<RankedTensorType>(total.getType());
    Value scale = ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(f32Type, b.getF32FloatAttr(1.0f / count)));
    Value average = MulOp::create(b, loc, total, scale);
    if (average.getType() != type)
      average = CastOp::create(b, loc, type, average);
    averages.push_back(average);
  }
  func::ReturnOp::create(b, loc, averages);
  return function;
}

/// Replaces the train-step op with `@<step>(batch..., lr) -> loss`: the
/// gradient function's body (once per micro-batch with gradient
/// accumulation, the batch inputs then stacking the micro-batches), the step
/// count's increment (buffer `@<step>.step_count`), then the optimizer's
/// update of each parameter, whose new value and moments are assigned to
/// the parameter and to new buffers `@<step>.<parameter>.<moment>`: each
/// train step keeps its own optimizer state, so several steps may update the
/// same parameters. The optimizer attribute names the moments and builds
/// the updates.
LogicalResult AutodiffPass::buildStep(TrainStepOp step,
                                      func::FuncOp gradients) {
  ModuleOp module = getOperation();
  std::string name = step.getSymName().str();
  OpBuilder b(step);
  func::FuncOp function;
  if (int64_t count = step.getAccumulationSteps(); count > 1) {
    FailureOr<func::FuncOp> accumulated =
        cloneAccumulated(b, step, gradients, count);
    if (failed(accumulated))
      return failure();
    function = *accumulated;
  } else {
    function = cast<func::FuncOp>(b.clone(*gradients));
  }
  Block &body = function.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  auto f32Scalar = RankedTensorType::get({}, b.getF32Type());
  // Through the function, so argument attributes stay in step.
  if (failed(function.insertArgument(function.getNumArguments(), f32Scalar,
                                     DictionaryAttr(), step.getLoc())))
    return failure();
  Value lr = body.getArguments().back();
  b.setInsertionPoint(ret);

  // The count of steps taken, this one included: Adam's bias correction
  // needs it, and every optimizer reports it.
  auto countType = RankedTensorType::get({}, b.getI64Type());
  FailureOr<FlatSymbolRefAttr> countRef = declareZeroBuffer(
      step, name + ".step_count", countType, StateRole::StepCount);
  if (failed(countRef))
    return failure();
  Value countBefore = ReadOp::create(b, step.getLoc(), countType, *countRef);
  Value count = IncrementOp::create(b, step.getLoc(), countBefore);
  AssignOp::create(b, step.getLoc(), *countRef, count);

  OptimizerAttrInterface optimizer = step.getOptimizer();
  SmallVector<StringRef> momentNames = optimizer.getMomentNames();
  auto parameters = llvm::to_vector(module.getOps<ParameterOp>());
  for (auto [parameter, gradient] :
       llvm::zip_equal(parameters, ret.getOperands().drop_front())) {
    Location loc = parameter.getLoc();
    auto type = cast<RankedTensorType>(parameter.getType());
    auto momentType = type.clone(b.getF32Type());
    auto ref = FlatSymbolRefAttr::get(parameter.getSymNameAttr());
    Value value = ReadOp::create(b, loc, type, ref);
    SmallVector<FlatSymbolRefAttr> momentRefs;
    SmallVector<Value> moments;
    for (StringRef moment : momentNames) {
      FailureOr<FlatSymbolRefAttr> momentRef = declareZeroBuffer(
          step, name + "." + parameter.getSymName().str() + "." + moment.str(),
          momentType, StateRole::Moment);
      if (failed(momentRef))
        return failure();
      momentRefs.push_back(*momentRef);
      moments.push_back(ReadOp::create(b, loc, momentType, *momentRef));
    }
    OptimizerUpdateOpInterface update =
        optimizer.buildUpdate(b, loc, value, gradient, moments, lr, count,
                              isDecayed(parameter, optimizer));
    AssignOp::create(b, loc, ref, update.getParamOut());
    for (auto [momentRef, newMoment] :
         llvm::zip_equal(momentRefs, update.getMomentsOut()))
      AssignOp::create(b, loc, momentRef, newMoment);
  }
  Value loss = ret.getOperand(0);
  func::ReturnOp::create(b, ret.getLoc(), loss);
  ret.erase();
  function.removeResAttrsAttr();
  function.setFunctionType(
      b.getFunctionType(body.getArgumentTypes(), loss.getType()));
  function->setAttr(kOptimizerStepAttr, b.getUnitAttr());
  step.erase();
  function.setSymName(name);
  return success();
}
