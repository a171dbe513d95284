//===- ReverseSweep.cpp - adjoint rules of the reverse sweep --------------===//
//
// The loss is seeded with 1 (the constant marked `mixprec.loss_seed`), ops
// are visited last to first, and each op's adjoint rule turns the gradients
// of its results into gradients of its operands.
//
//   - An adjoint runs in its forward op's precision: the incoming gradient
//     is cast to the op's result type first; the adjoint of a cast is a cast
//     back, so parameters read in FP32 get FP32 gradients.
//   - A value used several times gets the sum of its gradients, in FP32.
//   - Broadcasts are undone by sums over the broadcast dims.
//
//===----------------------------------------------------------------------===//

#include "ReverseSweep.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mixprec;

static RankedTensorType tensorTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType());
}

static bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

Value ReverseSweep::castTo(Value value, Type elementType) {
  return castElements(b, loc, value, elementType);
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

/// The adjoint of taking every `stride`-th element along `dim`: `stride - 1`
/// zeros after each element of `gradient` ([n] -> [n, 1] ++ [n, stride - 1]
/// -> [n * stride]), cut to the `limit` elements the input has from the
/// first one on.
Value ReverseSweep::unstride(Value gradient, int64_t dim, int64_t stride,
                             int64_t limit) {
  RankedTensorType type = tensorTypeOf(gradient);
  int64_t count = type.getDimSize(dim);
  if (stride == 1 || count == 1)
    return gradient;
  SmallVector<int64_t> split(type.getShape());
  split.insert(split.begin() + dim + 1, 1);
  Value column = reshape(gradient, type.clone(split));
  split[dim + 1] = stride - 1;
  Value spread = ConcatOp::create(
      b, loc, ValueRange{column, splat(0.0, type.clone(split))},
      static_cast<uint64_t>(dim + 1));
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = count * stride;
  Value result = reshape(spread, type.clone(shape));
  if (limit >= shape[dim])
    return result;
  shape[dim] = limit;
  return SliceOp::create(b, loc, result, SmallVector<int64_t>(shape.size(), 0),
                         shape, DenseI64ArrayAttr());
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

/// The adjoint of batch_norm with `training = false`, which is affine per
/// channel: y = (x - mean) * rstd * scale + bias, rstd = (var + eps)^-1/2.
/// It runs in FP32, like batch_norm_grad, and rounds each gradient once.
/// Unlike PyTorch it also differentiates the running statistics, which the
/// result depends on here; it returns them unchanged.
void ReverseSweep::batchNormInference(BatchNormOp op, ArrayRef<Value> grads) {
  Value mean = op.getRunningMean(), var = op.getRunningVar();
  if (grads[1])
    accumulate(mean, grads[1]);
  if (grads[2])
    accumulate(var, grads[2]);
  Value g = grads[0];
  if (!g)
    return;
  RankedTensorType inputType = tensorTypeOf(op.getInput());
  RankedTensorType statsType = tensorTypeOf(mean);
  Type f32 = b.getF32Type();
  // [C] statistics meet [N, C(, H, W)] tensors as [1, C(, 1, 1)].
  SmallVector<int64_t> channelShape(inputType.getRank(), 1);
  channelShape[1] = inputType.getDimSize(1);
  SmallVector<int64_t> dims{0};
  for (int64_t dim = 2; dim < inputType.getRank(); ++dim)
    dims.push_back(dim);
  auto spread = [&](Value perChannel) -> Value {
    return BroadcastOp::create(
        b, loc, inputType.clone(f32),
        reshape(perChannel, RankedTensorType::get(channelShape, f32)));
  };
  auto sum = [&](Value value) -> Value {
    return ReduceSumOp::create(b, loc, value, dims);
  };

  Value rstd = RsqrtOp::create(
      b, loc,
      AddOp::create(b, loc, var,
                    splat(op.getEps().convertToDouble(), statsType)));
  Value factor = rstd;
  if (Value scale = op.getScale())
    factor = MulOp::create(b, loc, castTo(scale, f32), rstd);
  Value g32 = castTo(g, f32);
  Value dx = MulOp::create(b, loc, g32, spread(factor));
  accumulate(op.getInput(), castTo(dx, inputType.getElementType()));
  Value xhat = MulOp::create(
      b, loc, SubOp::create(b, loc, castTo(op.getInput(), f32), spread(mean)),
      spread(rstd));
  Value sumGXhat = sum(MulOp::create(b, loc, g32, xhat));
  // dmean = -sum(dx); dvar = -1/2 * scale * rstd^3 * sum(g * (x - mean)).
  accumulate(mean, NegOp::create(b, loc, sum(dx)));
  accumulate(var,
             MulOp::create(b, loc,
                           MulOp::create(b, loc, sumGXhat,
                                         MulOp::create(b, loc, factor, rstd)),
                           splat(-0.5, statsType)));
  if (Value scale = op.getScale()) {
    Type type = tensorTypeOf(scale).getElementType();
    accumulate(scale, castTo(sumGXhat, type));
    accumulate(op.getBias(), castTo(sum(g32), type));
  }
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
      .Case<MaximumOp, MinimumOp>([&](auto op) {
        // PyTorch's rule, ties split the gradient evenly: see maximum_grad.
        using GradOp =
            std::conditional_t<std::is_same_v<decltype(op), MaximumOp>,
                               MaximumGradOp, MinimumGradOp>;
        Type type = tensorTypeOf(op.getResult()).getElementType();
        auto grads = GradOp::create(b, loc, g, castTo(op.getLhs(), type),
                                    castTo(op.getRhs(), type));
        accumulate(op.getLhs(),
                   castTo(grads.getDlhs(),
                          tensorTypeOf(op.getLhs()).getElementType()));
        accumulate(op.getRhs(),
                   castTo(grads.getDrhs(),
                          tensorTypeOf(op.getRhs()).getElementType()));
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
        accumulate(op.getLogits(),
                   SoftmaxCrossEntropyGradOp::create(
                       b, loc, g, op.getLogits(), op.getLabels(),
                       op.getReductionAttr(), op.getIgnoreIndexAttr()));
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
        if (!op.getTraining()) {
          batchNormInference(op, grads);
          return success();
        }
        // The running statistics it returns carry no gradient.
        if (!grads.front())
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
      .Case([&](SliceOp op) {
        // The gradient in place, spread out by the strides, zeros around it:
        // concats per dim.
        RankedTensorType inputType = tensorTypeOf(op.getInput());
        Type type = tensorTypeOf(g).getElementType();
        std::optional<ArrayRef<int64_t>> strides = op.getStrides();
        Value padded = g;
        for (int64_t dim = 0; dim < inputType.getRank(); ++dim) {
          int64_t before = op.getOffsets()[dim];
          padded = unstride(padded, dim, strides ? (*strides)[dim] : 1,
                            inputType.getDimSize(dim) - before);
          SmallVector<int64_t> shape(tensorTypeOf(padded).getShape());
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
      .Case([&](ReduceMaxOp op) {
        // torch.amax's rule: tied maxima share the gradient equally (not
        // torch.max(x, dim)'s, which gives it all to one index).
        accumulate(op.getInput(), ReduceMaxGradOp::create(
                                      b, loc, g, op.getInput(), op.getResult(),
                                      op.getDims(), op.getKeepdim()));
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
