//===- Autodiff.cpp - reverse-mode gradients of a train step's loss -------===//
//
// --mixprec-autodiff. For each `mixprec.train_step`, the forward loss
// function is cloned into `@<step>_gradients` and extended with its reverse
// sweep: the loss is seeded with 1 (the constant marked `mixprec.loss_seed`),
// ops are visited last to first, and each op's adjoint rule turns the
// gradients of its results into gradients of its operands.
//
//   - An adjoint runs in its forward op's precision: the incoming gradient
//     is cast to the op's result type first; the adjoint of a cast is a cast
//     back, so parameters read in FP32 get FP32 gradients.
//   - A value used several times gets the sum of its gradients, in FP32.
//   - Broadcasts are undone by sums over the broadcast dims.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"
#include "mixprec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECAUTODIFF
#include "mixprec/Transforms/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

/// The reverse sweep over one function body.
class ReverseSweep {
public:
  explicit ReverseSweep(OpBuilder &builder) : b(builder) {}

  /// Seeds `loss` with 1 and propagates gradients to every value it
  /// depends on.
  LogicalResult run(Block &body, Value loss);

  /// The gradient of `value` (null if the loss does not depend on it).
  Value gradientOf(Value value) const { return adjoints.lookup(value); }

private:
  LogicalResult backprop(Operation *op);
  void accumulate(Value value, Value gradient);

  Value castTo(Value value, Type elementType);
  Value splat(double value, RankedTensorType type);
  Value reshape(Value value, RankedTensorType type);
  Value sumTo(Value gradient, RankedTensorType type);
  Value unreduce(Value gradient, Value input, ArrayRef<int64_t> dims);
  Value matmul(Value lhs, Value rhs, bool transposeLhs, bool transposeRhs,
               Type elementType, bool batched);

  OpBuilder &b;
  Location loc = b.getUnknownLoc();
  llvm::DenseMap<Value, Value> adjoints;
};

} // namespace

Value ReverseSweep::castTo(Value value, Type elementType) {
  RankedTensorType type = tensorTypeOf(value);
  if (type.getElementType() == elementType)
    return value;
  return CastOp::create(b, loc, type.clone(elementType), value);
}

Value ReverseSweep::splat(double value, RankedTensorType type) {
  return ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(type,
                             b.getFloatAttr(type.getElementType(), value)));
}

Value ReverseSweep::reshape(Value value, RankedTensorType type) {
  if (tensorTypeOf(value) == type)
    return value;
  return ReshapeOp::create(b, loc, type, value);
}

/// The adjoint of a numpy broadcast to `gradient`'s shape from `type`: sums
/// over the dims the broadcast added or stretched.
Value ReverseSweep::sumTo(Value gradient, RankedTensorType type) {
  RankedTensorType from = tensorTypeOf(gradient);
  int64_t added = from.getRank() - type.getRank();
  SmallVector<int64_t> dims;
  for (int64_t dim = 0; dim < from.getRank(); ++dim)
    if (dim < added ||
        (type.getDimSize(dim - added) == 1 && from.getDimSize(dim) != 1))
      dims.push_back(dim);
  Value summed = gradient;
  if (!dims.empty())
    summed = ReduceSumOp::create(b, loc, gradient, dims);
  return reshape(summed, type.clone(from.getElementType()));
}

/// The adjoint of a reduction over `dims` of `input`: the gradient
/// broadcast back over the reduced dims.
Value ReverseSweep::unreduce(Value gradient, Value input,
                             ArrayRef<int64_t> dims) {
  RankedTensorType inputType = tensorTypeOf(input);
  SmallVector<int64_t> keptShape(inputType.getShape());
  for (int64_t dim : dims)
    keptShape[dim] = 1;
  Type elementType = tensorTypeOf(gradient).getElementType();
  Value kept = reshape(gradient, RankedTensorType::get(keptShape, elementType));
  return BroadcastOp::create(b, loc, inputType.clone(elementType), kept);
}

Value ReverseSweep::matmul(Value lhs, Value rhs, bool transposeLhs,
                           bool transposeRhs, Type elementType, bool batched) {
  ArrayRef<int64_t> lhsShape = tensorTypeOf(lhs).getShape();
  ArrayRef<int64_t> rhsShape = tensorTypeOf(rhs).getShape();
  size_t rank = lhsShape.size();
  SmallVector<int64_t> shape(lhsShape.drop_back(2));
  shape.push_back(lhsShape[rank - (transposeLhs ? 1 : 2)]);
  shape.push_back(rhsShape[rank - (transposeRhs ? 2 : 1)]);
  auto type = RankedTensorType::get(shape, elementType);
  if (batched)
    return BatchMatmulOp::create(b, loc, type, lhs, rhs, transposeLhs,
                                 transposeRhs);
  return MatmulOp::create(b, loc, type, lhs, rhs, transposeLhs, transposeRhs);
}

void ReverseSweep::accumulate(Value value, Value gradient) {
  auto [it, inserted] = adjoints.try_emplace(value, gradient);
  if (inserted)
    return;
  // Fan-out gradients are summed in FP32.
  Type f32 = b.getF32Type();
  it->second =
      AddOp::create(b, loc, castTo(it->second, f32), castTo(gradient, f32));
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
      gradient = castTo(gradient, tensorTypeOf(result).getElementType());
    grads.push_back(gradient);
    any |= static_cast<bool>(gradient);
  }
  if (!any)
    return success();
  loc = op->getLoc();
  Value g = grads.front();
  auto unsupported = [&](Operation *op) {
    return op->emitError("mixprec-autodiff: no adjoint for '")
           << op->getName() << "' yet";
  };

  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      // State and constants: the loss's dependence ends here.
      .Case<ReadOp, ConstantOp, RngStateOp>([](auto) { return success(); })
      .Case([&](CastOp op) {
        accumulate(op.getInput(),
                   castTo(g, op.getInput().getType().getElementType()));
        return success();
      })
      // Elementwise.
      .Case([&](AddOp op) {
        accumulate(op.getLhs(),
                   castTo(g, tensorTypeOf(op.getLhs()).getElementType()));
        accumulate(op.getRhs(),
                   castTo(g, tensorTypeOf(op.getRhs()).getElementType()));
        return success();
      })
      .Case([&](SubOp op) {
        accumulate(op.getLhs(),
                   castTo(g, tensorTypeOf(op.getLhs()).getElementType()));
        accumulate(op.getRhs(),
                   castTo(NegOp::create(b, loc, g),
                          tensorTypeOf(op.getRhs()).getElementType()));
        return success();
      })
      .Case([&](MulOp op) {
        Type type = tensorTypeOf(op.getResult()).getElementType();
        Value lhs = castTo(op.getLhs(), type), rhs = castTo(op.getRhs(), type);
        accumulate(op.getLhs(),
                   castTo(MulOp::create(b, loc, g, rhs),
                          tensorTypeOf(op.getLhs()).getElementType()));
        accumulate(op.getRhs(),
                   castTo(MulOp::create(b, loc, g, lhs),
                          tensorTypeOf(op.getRhs()).getElementType()));
        return success();
      })
      .Case([&](DivOp op) {
        // d(a/b) = g/b da - g*(a/b)/b db
        Type type = tensorTypeOf(op.getResult()).getElementType();
        Value rhs = castTo(op.getRhs(), type);
        Value lhsGrad = DivOp::create(b, loc, g, rhs);
        Value rhsGrad = NegOp::create(
            b, loc,
            DivOp::create(b, loc, MulOp::create(b, loc, g, op.getResult()),
                          rhs));
        accumulate(op.getLhs(),
                   castTo(lhsGrad, tensorTypeOf(op.getLhs()).getElementType()));
        accumulate(op.getRhs(),
                   castTo(rhsGrad, tensorTypeOf(op.getRhs()).getElementType()));
        return success();
      })
      .Case([&](NegOp op) {
        accumulate(op.getInput(), NegOp::create(b, loc, g));
        return success();
      })
      .Case([&](ExpOp op) {
        accumulate(op.getInput(), MulOp::create(b, loc, g, op.getResult()));
        return success();
      })
      .Case([&](LogOp op) {
        accumulate(op.getInput(), DivOp::create(b, loc, g, op.getInput()));
        return success();
      })
      .Case([&](SqrtOp op) {
        Value y = op.getResult();
        accumulate(op.getInput(),
                   DivOp::create(b, loc, g, AddOp::create(b, loc, y, y)));
        return success();
      })
      .Case([&](RsqrtOp op) {
        // d(x^-1/2) = -1/2 x^-3/2 = -1/2 y^3
        Value y = op.getResult();
        Value cube = MulOp::create(b, loc, y, MulOp::create(b, loc, y, y));
        Value half = splat(-0.5, tensorTypeOf(y));
        accumulate(op.getInput(),
                   MulOp::create(b, loc, MulOp::create(b, loc, g, cube), half));
        return success();
      })
      .Case([&](TanhOp op) {
        Value y = op.getResult();
        accumulate(op.getInput(),
                   SubOp::create(
                       b, loc, g,
                       MulOp::create(b, loc, g, MulOp::create(b, loc, y, y))));
        return success();
      })
      .Case([&](SigmoidOp op) {
        Value y = op.getResult();
        Value slope = SubOp::create(b, loc, y, MulOp::create(b, loc, y, y));
        accumulate(op.getInput(), MulOp::create(b, loc, g, slope));
        return success();
      })
      .Case([&](ReluOp op) {
        accumulate(op.getInput(), ReluGradOp::create(b, loc, g, op.getInput()));
        return success();
      })
      .Case([&](GeluOp op) {
        accumulate(op.getInput(), GeluGradOp::create(b, loc, g, op.getInput(),
                                                     op.getApproximateAttr()));
        return success();
      })
      .Case([&](SoftmaxOp op) {
        accumulate(
            op.getInput(),
            SoftmaxGradOp::create(b, loc, g, op.getResult(), op.getAxisAttr()));
        return success();
      })
      .Case([&](LogSoftmaxOp op) {
        accumulate(op.getInput(),
                   LogSoftmaxGradOp::create(b, loc, g, op.getResult(),
                                            op.getAxisAttr()));
        return success();
      })
      .Case([&](LayerNormOp op) {
        // Without scale and bias the normalization has a scale of ones.
        RankedTensorType inputType = tensorTypeOf(op.getInput());
        Value scale = op.getScale();
        if (!scale)
          scale = splat(1.0, RankedTensorType::get(
                                 inputType.getShape().drop_front(op.getAxis()),
                                 inputType.getElementType()));
        auto grads = LayerNormGradOp::create(b, loc, g, op.getInput(), scale,
                                             op.getAxisAttr(), op.getEpsAttr());
        accumulate(op.getInput(), grads.getDx());
        if (op.getScale()) {
          accumulate(op.getScale(), grads.getDscale());
          accumulate(op.getBias(), grads.getDbias());
        }
        return success();
      })
      .Case([&](SoftmaxCrossEntropyOp op) {
        accumulate(op.getLogits(), SoftmaxCrossEntropyGradOp::create(
                                       b, loc, g, op.getLogits(),
                                       op.getLabels(), op.getReductionAttr()));
        return success();
      })
      .Case([&](DropoutOp op) {
        // The same Philox mask and scale.
        accumulate(op.getInput(),
                   DropoutOp::create(b, loc, g, op.getRng(), op.getPAttr(),
                                     op.getStreamAttr(), op.getTrainingAttr()));
        return success();
      })
      // Contractions: the gradient is cast to the inputs' type and the
      // products accumulate in FP32 as in the forward op.
      .Case<MatmulOp, BatchMatmulOp>([&](auto op) {
        bool batched = isa<BatchMatmulOp>(op.getOperation());
        Type type = tensorTypeOf(op.getLhs()).getElementType();
        Value gIn = castTo(g, type);
        Value lhs = op.getLhs(), rhs = op.getRhs();
        bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
        Value lhsGrad = !tl ? matmul(gIn, rhs, false, !tr, type, batched)
                            : matmul(rhs, gIn, tr, true, type, batched);
        Value rhsGrad = !tr ? matmul(lhs, gIn, !tl, false, type, batched)
                            : matmul(gIn, lhs, true, tl, type, batched);
        accumulate(lhs, lhsGrad);
        accumulate(rhs, rhsGrad);
        return success();
      })
      .Case([&](LinearOp op) {
        // Flattened to [M, in] x [out, in]^T: dx = g W, dW = g^T x,
        // db = the sum of g over M.
        RankedTensorType inputType = tensorTypeOf(op.getInput());
        Type type = inputType.getElementType();
        int64_t in = inputType.getShape().back();
        int64_t out = tensorTypeOf(op.getWeight()).getDimSize(0);
        int64_t rows = inputType.getNumElements() / std::max<int64_t>(in, 1);
        Value g2 =
            reshape(castTo(g, type), RankedTensorType::get({rows, out}, type));
        Value x2 =
            reshape(op.getInput(), RankedTensorType::get({rows, in}, type));
        Value inputGrad = matmul(g2, op.getWeight(), false, false, type, false);
        accumulate(op.getInput(), reshape(inputGrad, inputType));
        accumulate(op.getWeight(), matmul(g2, x2, true, false, type, false));
        if (Value bias = op.getBias())
          accumulate(bias,
                     ReduceSumOp::create(b, loc, g2, ArrayRef<int64_t>{0}));
        return success();
      })
      .Case([&](Conv2DOp op) {
        RankedTensorType inputType = tensorTypeOf(op.getInput());
        RankedTensorType weightType = tensorTypeOf(op.getWeight());
        Value gIn = castTo(g, inputType.getElementType());
        accumulate(op.getInput(),
                   Conv2DGradInputOp::create(
                       b, loc, inputType, gIn, op.getWeight(),
                       op.getStrideAttr(), op.getPaddingAttr(),
                       op.getDilationAttr(), op.getGroupsAttr(),
                       b.getDenseI64ArrayAttr(inputType.getShape())));
        accumulate(op.getWeight(),
                   Conv2DGradWeightOp::create(
                       b, loc, weightType, gIn, op.getInput(),
                       op.getStrideAttr(), op.getPaddingAttr(),
                       op.getDilationAttr(), op.getGroupsAttr(),
                       b.getDenseI64ArrayAttr(weightType.getShape())));
        if (Value bias = op.getBias())
          accumulate(bias, ReduceSumOp::create(b, loc, gIn,
                                               ArrayRef<int64_t>{0, 2, 3}));
        return success();
      })
      .Case([&](EmbeddingOp op) {
        RankedTensorType table = tensorTypeOf(op.getTable());
        accumulate(
            op.getTable(),
            EmbeddingGradOp::create(b, loc, table, g, op.getIndices(),
                                    b.getI64IntegerAttr(table.getDimSize(0))));
        return success();
      })
      .Case([&](MaxPool2DOp op) {
        accumulate(op.getInput(), MaxPool2DGradOp::create(
                                      b, loc, tensorTypeOf(op.getInput()), g,
                                      op.getInput(), op.getKernelAttr(),
                                      op.getStrideAttr(), op.getPaddingAttr()));
        return success();
      })
      .Case([&](AvgPool2DOp op) {
        accumulate(op.getInput(), AvgPool2DGradOp::create(
                                      b, loc, tensorTypeOf(op.getInput()), g,
                                      op.getInput(), op.getKernelAttr(),
                                      op.getStrideAttr(), op.getPaddingAttr()));
        return success();
      })
      .Case([&](BatchNormOp op) -> LogicalResult {
        // The running statistics it returns carry no gradient.
        if (!op.getTraining() || !grads.front())
          return unsupported(op);
        RankedTensorType inputType = tensorTypeOf(op.getInput());
        int64_t channels = inputType.getDimSize(1);
        auto scaleType =
            RankedTensorType::get({channels}, inputType.getElementType());
        Value scale = op.getScale();
        if (!scale)
          scale = splat(1.0, scaleType);
        auto batchNormGrads = BatchNormGradOp::create(
            b, loc, TypeRange{inputType, scaleType, scaleType}, g,
            op.getInput(), scale, op.getEpsAttr());
        accumulate(op.getInput(), batchNormGrads.getDx());
        if (op.getScale()) {
          accumulate(op.getScale(), batchNormGrads.getDscale());
          accumulate(op.getBias(), batchNormGrads.getDbias());
        }
        return success();
      })
      // Shapes.
      .Case([&](ReshapeOp op) {
        accumulate(op.getInput(),
                   reshape(g, tensorTypeOf(op.getInput())
                                  .clone(tensorTypeOf(g).getElementType())));
        return success();
      })
      .Case([&](TransposeOp op) {
        ArrayRef<int64_t> permutation = op.getPermutation();
        SmallVector<int64_t> inverse(permutation.size());
        for (auto [to, from] : llvm::enumerate(permutation))
          inverse[from] = to;
        accumulate(op.getInput(), TransposeOp::create(b, loc, g, inverse));
        return success();
      })
      .Case([&](BroadcastOp op) {
        accumulate(op.getInput(), sumTo(g, tensorTypeOf(op.getInput())));
        return success();
      })
      .Case([&](PowOp op) {
        // d(a^b) = b a^(b-1) da + a^b ln(a) db
        Type type = tensorTypeOf(op.getResult()).getElementType();
        Value lhs = castTo(op.getLhs(), type), rhs = castTo(op.getRhs(), type);
        Value lower = SubOp::create(b, loc, rhs, splat(1.0, tensorTypeOf(rhs)));
        Value lhsGrad = MulOp::create(
            b, loc, g,
            MulOp::create(b, loc, rhs, PowOp::create(b, loc, lhs, lower)));
        Value rhsGrad = MulOp::create(
            b, loc, g,
            MulOp::create(b, loc, op.getResult(), LogOp::create(b, loc, lhs)));
        accumulate(op.getLhs(),
                   castTo(lhsGrad, tensorTypeOf(op.getLhs()).getElementType()));
        accumulate(op.getRhs(),
                   castTo(rhsGrad, tensorTypeOf(op.getRhs()).getElementType()));
        return success();
      })
      .Case([&](SliceOp op) -> LogicalResult {
        // The gradient in place, zeros around it: one concat per dim.
        if (auto strides = op.getStrides();
            strides && llvm::any_of(*strides, [](int64_t s) { return s != 1; }))
          return unsupported(op);
        RankedTensorType inputType = tensorTypeOf(op.getInput());
        Type type = tensorTypeOf(g).getElementType();
        Value padded = g;
        for (int64_t dim = 0; dim < inputType.getRank(); ++dim) {
          SmallVector<int64_t> shape(tensorTypeOf(padded).getShape());
          int64_t before = op.getOffsets()[dim];
          int64_t after = inputType.getDimSize(dim) - before - shape[dim];
          SmallVector<Value> parts;
          for (int64_t size : {before, int64_t(-1), after}) {
            if (size == -1) {
              parts.push_back(padded);
            } else if (size > 0) {
              shape[dim] = size;
              parts.push_back(splat(0.0, RankedTensorType::get(shape, type)));
            }
          }
          if (parts.size() > 1)
            padded =
                ConcatOp::create(b, loc, parts, static_cast<uint64_t>(dim));
        }
        accumulate(op.getInput(), padded);
        return success();
      })
      .Case([&](ConcatOp op) {
        int64_t axis = op.getAxis();
        SmallVector<int64_t> offsets(tensorTypeOf(g).getRank(), 0);
        for (Value input : op.getInputs()) {
          SmallVector<int64_t> sizes(tensorTypeOf(input).getShape());
          Value part =
              SliceOp::create(b, loc, g, offsets, sizes, DenseI64ArrayAttr());
          accumulate(input, castTo(part, tensorTypeOf(input).getElementType()));
          offsets[axis] += sizes[axis];
        }
        return success();
      })
      // Reductions.
      .Case([&](ReduceSumOp op) {
        accumulate(op.getInput(), unreduce(g, op.getInput(), op.getDims()));
        return success();
      })
      .Case([&](ReduceMeanOp op) {
        int64_t count = 1;
        for (int64_t dim : op.getDims())
          count *= tensorTypeOf(op.getInput()).getDimSize(dim);
        Value spread = unreduce(g, op.getInput(), op.getDims());
        accumulate(op.getInput(),
                   MulOp::create(b, loc, spread,
                                 splat(1.0 / count, tensorTypeOf(spread))));
        return success();
      })
      // Losses.
      .Case([&](MseOp op) {
        // d/dx mean((x - t)^2) = 2 (x - t) / n
        RankedTensorType type = tensorTypeOf(op.getInput());
        double scale = op.getReduction() == Reduction::Mean
                           ? 2.0 / std::max<int64_t>(type.getNumElements(), 1)
                           : 2.0;
        Value diff = SubOp::create(b, loc, op.getInput(), op.getTarget());
        Value seed = BroadcastOp::create(
            b, loc, type,
            MulOp::create(b, loc, g, splat(scale, tensorTypeOf(g))));
        Value inputGrad = MulOp::create(b, loc, seed, diff);
        accumulate(op.getInput(), inputGrad);
        accumulate(op.getTarget(), NegOp::create(b, loc, inputGrad));
        return success();
      })
      .Default([&](Operation *op) { return unsupported(op); });
}

LogicalResult ReverseSweep::run(Block &body, Value loss) {
  b.setInsertionPoint(body.getTerminator());
  Value seed = splat(1.0, tensorTypeOf(loss));
  seed.getDefiningOp()->setAttr(kLossSeedAttr, b.getUnitAttr());
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
      auto castF32 = [&](Value v) -> Value {
        auto type = tensorTypeOf(v);
        return type.getElementType() == f32
                   ? v
                   : CastOp::create(b, read.getLoc(), type.clone(f32), v);
      };
      total =
          AddOp::create(b, read.getLoc(), castF32(total), castF32(gradient));
    } else {
      total = gradient;
    }
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
    else if (tensorTypeOf(gradient) != type)
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

/// Replaces the train-step op with `@<step>(batch..., lr) -> loss`: the
/// gradient function's body, then one optimizer update per parameter, whose
/// new value and moments are assigned to the parameter and to new buffers
/// `@<parameter>.<moment>`.
LogicalResult AutodiffPass::buildStep(TrainStepOp step,
                                      func::FuncOp gradients) {
  auto sgd = dyn_cast<SGDAttr>(step.getOptimizer());
  if (!sgd) {
    // The gradients stand; the train step stays for a later pipeline.
    step.emitWarning("mixprec-autodiff: the step of ")
        << step.getOptimizer()
        << " needs an optimizer step count, which is not available yet: "
           "only @"
        << gradients.getSymName() << " is built";
    return success();
  }
  if (step.getAccumulationSteps() != 1)
    return step.emitError("mixprec-autodiff: gradient accumulation is not "
                          "available yet");
  ModuleOp module = getOperation();
  std::string name = step.getSymName().str();
  OpBuilder b(step);
  auto function = cast<func::FuncOp>(b.clone(*gradients));
  Block &body = function.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  auto f32Scalar = RankedTensorType::get({}, b.getF32Type());
  Value lr = body.addArgument(f32Scalar, step.getLoc());

  b.setInsertionPoint(ret);
  double momentum = sgd.getMomentum().convertToDouble();
  double weightDecay = sgd.getWeightDecay().convertToDouble();
  auto parameters = llvm::to_vector(module.getOps<ParameterOp>());
  for (auto [parameter, gradient] :
       llvm::zip_equal(parameters, ret.getOperands().drop_front())) {
    Location loc = parameter.getLoc();
    auto type = cast<RankedTensorType>(parameter.getType());
    auto ref = FlatSymbolRefAttr::get(parameter.getSymNameAttr());
    Value value = ReadOp::create(b, loc, type, ref);
    Value buffer;
    FlatSymbolRefAttr bufferRef;
    if (momentum > 0.0) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(step);
      std::string bufferName =
          (parameter.getSymName() + ".momentum_buffer").str();
      if (module.lookupSymbol(bufferName))
        return step.emitError("mixprec-autodiff: '@")
               << bufferName << "' exists already";
      auto f32Type = type.clone(b.getF32Type());
      BufferOp::create(
          b, loc, bufferName, f32Type,
          cast<InitializerAttrInterface>(ZerosInitAttr::get(b.getContext())));
      bufferRef = FlatSymbolRefAttr::get(b.getContext(), bufferName);
      b.setInsertionPoint(ret);
      buffer = ReadOp::create(b, loc, f32Type, bufferRef);
    }
    double decay = isDecayed(parameter, sgd) ? weightDecay : 0.0;
    auto update = SGDUpdateOp::create(
        b, loc, buffer ? TypeRange{type, buffer.getType()} : TypeRange{type},
        value, gradient, lr, buffer, sgd.getMomentum(), sgd.getDampening(),
        sgd.getNesterov(), APFloat(decay));
    AssignOp::create(b, loc, ref, update.getParamOut());
    if (buffer)
      AssignOp::create(b, loc, bufferRef, update.getMomentumBufferOut());
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
