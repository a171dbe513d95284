//===- LossScaling.cpp - scaled backward, finite check, guarded update ----===//
//
// On each optimizer-step function: the loss seed times the scale, the
// gradients unscaled in FP32, one all-finite check over all of them, every
// optimizer write selected against the old value, and the scaler's state
// (docs/design.md §1) updated in buffers, so a step never asks the host.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <cmath>
#include <numeric>

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECLOSSSCALING
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

RankedTensorType scalarOf(Type element) {
  return RankedTensorType::get({}, element);
}

Value constantOf(OpBuilder &b, Location loc, RankedTensorType type,
                 Attribute element) {
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, element));
}

Value f32Scalar(OpBuilder &b, Location loc, double value) {
  return constantOf(b, loc, scalarOf(b.getF32Type()),
                    b.getF32FloatAttr(float(value)));
}

/// `scalar` broadcast to the shape of `like`.
Value spread(OpBuilder &b, Location loc, Value scalar, Value like) {
  auto type = cast<RankedTensorType>(like.getType());
  if (type.getRank() == 0)
    return scalar;
  return BroadcastOp::create(b, loc, type, scalar);
}

/// Whether `assign` writes what the optimizer owns: a parameter or moment
/// from an update, or the step count.
bool isOptimizerWrite(AssignOp assign) {
  if (isa_and_nonnull<OptimizerUpdateOpInterface>(
          assign.getValue().getDefiningOp()))
    return true;
  auto buffer = SymbolTable::lookupNearestSymbolFrom<BufferOp>(
      assign, assign.getBufferAttr());
  return buffer && buffer.getRole() == StateRole::StepCount;
}

/// The point right after the last of the updates' gradients is computed,
/// where they are all available.
Operation *afterGradients(Block &body,
                          ArrayRef<OptimizerUpdateOpInterface> updates) {
  Operation *last = nullptr;
  for (OptimizerUpdateOpInterface update : updates)
    if (Operation *def = update.getGrad().getDefiningOp())
      if (!last || last->isBeforeInBlock(def))
        last = def;
  return last ? last->getNextNode() : &body.front();
}

/// The gradient operands of `updates`, in FP32.
SmallVector<Value> gradientsOf(OpBuilder &b, Location loc,
                               ArrayRef<OptimizerUpdateOpInterface> updates) {
  return llvm::map_to_vector(updates, [&](OptimizerUpdateOpInterface update) {
    return castElements(b, loc, update.getGrad(), b.getF32Type());
  });
}

/// Makes `gradients` the updates' gradient operands, in their parameters'
/// types.
void setGradients(OpBuilder &b, Location loc,
                  ArrayRef<OptimizerUpdateOpInterface> updates,
                  ArrayRef<Value> gradients) {
  for (auto [element, gradient] : llvm::zip_equal(updates, gradients)) {
    // A copy: the interface's accessors are not const.
    OptimizerUpdateOpInterface update = element;
    Type paramElement = update.getParam().getType().getElementType();
    update.getGradMutable().set(castElements(b, loc, gradient, paramElement));
  }
}

struct MixprecLossScalingPass
    : public mixprec::impl::MixprecLossScalingBase<MixprecLossScalingPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult checkOptions();
  LogicalResult scaleStep(func::FuncOp step);
  /// Clipping alone, for mode=none.
  void clipStep(func::FuncOp step);
  /// Declares `@<name>` of `type` holding `role`, with `initializer`, among
  /// the module's other state declarations; a reference to it, or null
  /// (reported) when the name is taken.
  FlatSymbolRefAttr declareBuffer(func::FuncOp step, Twine name,
                                  RankedTensorType type, Attribute initializer,
                                  StateRole role);
  /// The global L2 norm of `gradients` clipped to max-grad-norm.
  void clip(OpBuilder &b, Location loc, SmallVectorImpl<Value> &gradients);
};

LogicalResult MixprecLossScalingPass::checkOptions() {
  ModuleOp module = getOperation();
  auto bad = [&](StringRef what) {
    return mlir::emitError(module.getLoc(), "mixprec-loss-scaling: ") << what;
  };
  if (!(initScale > 0.0 && std::isfinite(initScale)))
    return bad("init-scale must be finite and > 0, got ") << initScale;
  // The rule mixprec.loss_scale_update's verifier applies to its attributes.
  LossScaleParameters parameters{growthFactor, backoffFactor, growthInterval,
                                 hysteresis,   minScale,      maxScale};
  if (failed(verifyLossScaleParameters([&] { return bad(""); }, parameters,
                                       LossScaleNaming::PassOptions)))
    return failure();
  if (mode == LossScalingMode::Dynamic &&
      !(initScale >= minScale && initScale <= maxScale))
    return bad("init-scale must be within [min-scale, max-scale], got ")
           << initScale;
  if (!(maxGradNorm >= 0.0 && std::isfinite(maxGradNorm)))
    return bad("max-grad-norm must be finite and >= 0, got ") << maxGradNorm;
  return success();
}

FlatSymbolRefAttr MixprecLossScalingPass::declareBuffer(func::FuncOp step,
                                                        Twine name,
                                                        RankedTensorType type,
                                                        Attribute initializer,
                                                        StateRole role) {
  ModuleOp module = getOperation();
  std::string symbol = name.str();
  if (module.lookupSymbol(symbol)) {
    step.emitError("mixprec-loss-scaling: '@") << symbol << "' exists already";
    return nullptr;
  }
  Operation *lastDeclaration = nullptr;
  for (Operation &op : module.getOps())
    if (isa<ParameterOp, BufferOp>(op))
      lastDeclaration = &op;
  OpBuilder b(module.getContext());
  if (lastDeclaration)
    b.setInsertionPointAfter(lastDeclaration);
  else
    b.setInsertionPointToStart(module.getBody());
  BufferOp::create(b, step.getLoc(), symbol, type,
                   cast<InitializerAttrInterface>(initializer),
                   StateRoleAttr::get(module.getContext(), role));
  return FlatSymbolRefAttr::get(module.getContext(), symbol);
}

void MixprecLossScalingPass::clip(OpBuilder &b, Location loc,
                                  SmallVectorImpl<Value> &gradients) {
  // PyTorch's clip_grad_norm_: coefficient min(1, max / (norm + 1e-6)).
  Value total;
  for (Value gradient : gradients) {
    auto type = cast<RankedTensorType>(gradient.getType());
    SmallVector<int64_t> dims(type.getRank());
    std::iota(dims.begin(), dims.end(), 0);
    Value square = MulOp::create(b, loc, gradient, gradient);
    Value sum = type.getRank() == 0
                    ? square
                    : Value(ReduceSumOp::create(b, loc, square, dims));
    total = total ? Value(AddOp::create(b, loc, total, sum)) : sum;
  }
  Value norm = SqrtOp::create(b, loc, total);
  Value coefficient = MinimumOp::create(
      b, loc, f32Scalar(b, loc, 1.0),
      DivOp::create(b, loc, f32Scalar(b, loc, maxGradNorm),
                    AddOp::create(b, loc, norm, f32Scalar(b, loc, 1e-6))));
  for (Value &gradient : gradients)
    gradient =
        MulOp::create(b, loc, gradient, spread(b, loc, coefficient, gradient));
}

LogicalResult MixprecLossScalingPass::scaleStep(func::FuncOp step) {
  Block &body = step.getBody().front();
  Location loc = step.getLoc();
  MLIRContext *context = &getContext();
  StringRef name = step.getSymName();
  SmallVector<Operation *> seeds;
  SmallVector<OptimizerUpdateOpInterface> updates;
  SmallVector<AssignOp> writes;
  for (Operation &op : body) {
    if (op.hasAttr(kLossSeedAttr))
      seeds.push_back(&op);
    if (auto update = dyn_cast<OptimizerUpdateOpInterface>(op))
      updates.push_back(update);
    if (auto assign = dyn_cast<AssignOp>(op);
        assign && isOptimizerWrite(assign))
      writes.push_back(assign);
  }
  if (seeds.empty())
    return step.emitError("mixprec-loss-scaling: @")
           << name
           << " has no loss seed (a mixprec.constant marked "
              "mixprec.loss_seed); run --mixprec-autodiff first";
  if (updates.empty())
    return step.emitError("mixprec-loss-scaling: @")
           << name
           << " has no trainable parameter to update: it has no "
              "mixprec.sgd_update or mixprec.adam_update";
  // The check goes where every gradient is known, before any write.
  Operation *check = afterGradients(body, updates);
  for (AssignOp write : writes)
    if (write->isBeforeInBlock(check))
      return write.emitError("mixprec-loss-scaling: this optimizer write "
                             "comes before the last gradient of @")
             << name;

  OpBuilder b = OpBuilder::atBlockBegin(&body);
  Type f32 = b.getF32Type(), i1 = b.getI1Type();
  auto i32Scalar = scalarOf(b.getI32Type());
  auto i64Scalar = scalarOf(b.getI64Type());
  bool dynamic = mode == LossScalingMode::Dynamic;

  // The scale: a buffer, or the static constant.
  Value scale, tracker, hysteresisLeft;
  FlatSymbolRefAttr scaleRef, trackerRef, hysteresisRef;
  if (dynamic) {
    scaleRef = declareBuffer(
        step, name + ".loss_scale", scalarOf(f32),
        ConstantInitAttr::get(context, APFloat(double(initScale))),
        StateRole::LossScale);
    trackerRef =
        declareBuffer(step, name + ".loss_scale_tracker", i32Scalar,
                      ZerosInitAttr::get(context), StateRole::LossScaleTracker);
    hysteresisRef = declareBuffer(
        step, name + ".loss_scale_hysteresis", i32Scalar,
        ConstantInitAttr::get(context, APFloat(double(hysteresis))),
        StateRole::LossScaleHysteresis);
    if (!scaleRef || !trackerRef || !hysteresisRef)
      return failure();
    scale = ReadOp::create(b, loc, scalarOf(f32), scaleRef);
    tracker = ReadOp::create(b, loc, i32Scalar, trackerRef);
    hysteresisLeft = ReadOp::create(b, loc, i32Scalar, hysteresisRef);
  } else {
    scale = f32Scalar(b, loc, initScale);
  }

  // Backward starts from the scale instead of 1.
  for (Operation *seed : seeds) {
    b.setInsertionPointAfter(seed);
    Value value = seed->getResult(0);
    auto scaled = MulOp::create(
        b, loc, value,
        castElements(b, loc, scale,
                     cast<RankedTensorType>(value.getType()).getElementType()));
    value.replaceAllUsesExcept(scaled, scaled);
  }

  // Unscale in FP32, check, clip.
  b.setInsertionPoint(check);
  Value inverse = DivOp::create(b, loc, f32Scalar(b, loc, 1.0), scale);
  SmallVector<Value> gradients = gradientsOf(b, loc, updates);
  for (Value &gradient : gradients)
    gradient =
        MulOp::create(b, loc, gradient, spread(b, loc, inverse, gradient));
  auto finite = AllFiniteOp::create(b, loc, gradients);
  Value ok = finite.getResult();
  if (maxGradNorm > 0.0)
    clip(b, loc, gradients);
  setGradients(b, loc, updates, gradients);

  // A step with a non-finite gradient writes the old values back.
  for (AssignOp assign : writes) {
    b.setInsertionPoint(assign);
    Value old = ReadOp::create(b, assign.getLoc(), assign.getValue().getType(),
                               assign.getBufferAttr());
    assign.getValueMutable().assign(
        SelectOp::create(b, assign.getLoc(), ok, assign.getValue(), old));
  }

  // The scaler's state and the step's report.
  b.setInsertionPoint(body.getTerminator());
  if (dynamic) {
    auto next = LossScaleUpdateOp::create(
        b, loc, TypeRange{scale.getType(), i32Scalar, i32Scalar}, scale,
        tracker, hysteresisLeft, ok, APFloat(double(growthFactor)),
        APFloat(double(backoffFactor)), growthInterval, hysteresis,
        APFloat(double(minScale)), APFloat(double(maxScale)));
    AssignOp::create(b, loc, scaleRef, next.getScaleOut());
    AssignOp::create(b, loc, trackerRef, next.getTrackerOut());
    AssignOp::create(b, loc, hysteresisRef, next.getHysteresisLeftOut());
  }
  auto flagType = scalarOf(i1);
  auto eachType = cast<RankedTensorType>(finite.getEach().getType());
  FlatSymbolRefAttr skippedRef =
      declareBuffer(step, name + ".skipped", flagType,
                    ZerosInitAttr::get(context), StateRole::Skipped);
  FlatSymbolRefAttr countRef =
      declareBuffer(step, name + ".skipped_steps", i64Scalar,
                    ZerosInitAttr::get(context), StateRole::SkippedSteps);
  FlatSymbolRefAttr eachRef =
      declareBuffer(step, name + ".finite_gradients", eachType,
                    OnesInitAttr::get(context), StateRole::FiniteGradients);
  if (!skippedRef || !countRef || !eachRef)
    return failure();
  AssignOp::create(
      b, loc, skippedRef,
      SelectOp::create(b, loc, ok,
                       constantOf(b, loc, flagType, b.getBoolAttr(false)),
                       constantOf(b, loc, flagType, b.getBoolAttr(true))));
  Value count = ReadOp::create(b, loc, i64Scalar, countRef);
  AssignOp::create(
      b, loc, countRef,
      SelectOp::create(b, loc, ok, count, IncrementOp::create(b, loc, count)));
  AssignOp::create(b, loc, eachRef, finite.getEach());
  return success();
}

void MixprecLossScalingPass::clipStep(func::FuncOp step) {
  Block &body = step.getBody().front();
  auto updates = llvm::to_vector(body.getOps<OptimizerUpdateOpInterface>());
  if (updates.empty())
    return;
  OpBuilder b(afterGradients(body, updates));
  SmallVector<Value> gradients = gradientsOf(b, step.getLoc(), updates);
  clip(b, step.getLoc(), gradients);
  setGradients(b, step.getLoc(), updates, gradients);
}

void MixprecLossScalingPass::runOnOperation() {
  if (failed(checkOptions()))
    return signalPassFailure();
  for (auto step : llvm::to_vector(getOperation().getOps<func::FuncOp>())) {
    if (!step->hasAttr(kOptimizerStepAttr))
      continue;
    if (mode != LossScalingMode::None) {
      if (failed(scaleStep(step)))
        return signalPassFailure();
    } else if (maxGradNorm > 0.0) {
      clipStep(step);
    }
  }
}

} // namespace
