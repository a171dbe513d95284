//===- ConvolutionGemmLowering.cpp - conv2d and its gradients as GEMMs ----===//
//
// With --convert-mixprec-to-linalg{convolutions-as-gemms} (the CPU's form),
// conv2d and its two gradients copy their windows into an im2col tensor and
// contract it with the weight in one GEMM per group, whose loops chain in
// memory so that --mixprec-contractions-to-calls hands it to the runtime's
// GEMMs whole (s: stride, d: dilation, xpad: the zero-padded input):
//
//   conv2d:
//     cols[n, oh, ow, g, c, kh, kw] = xpad[n, g, c, oh*s + kh*d, ow*s + kw*d]
//     acc[n, oh, ow, g, f] = sum over c, kh, kw of cols * w[g, f, c, kh, kw]
//   conv2d_grad_weight:
//     colsT[g, c, kh, kw, n, oh, ow] = xpad[n, g, c, oh*s + kh*d, ow*s + kw*d]
//     gradT[g, f, n, oh, ow] = grad[n, g, f, oh, ow]
//     dw[g, f, c, kh, kw] = sum over n, oh, ow of gradT * colsT
//   conv2d_grad_input, with q the spread gradient (spreadGradient):
//     cols[n, h, w, g, o, kh, kw] = q[n, g, o, h + d(KH-1-kh), w + d(KW-1-kw)]
//     wT[g, o, kh, kw, c] = w[g, o, c, kh, kw]
//     acc[n, h, w, g, c] = sum over o, kh, kw of cols * wT
//
// Each is one f32 reduction rounded once, as in the loop forms, summed in
// another order. The epilogue moves channels back in front (NCHW), adds the
// bias and rounds. The weight gradient reads its windows in another layout
// than conv2d's, so common-subexpression elimination cannot keep the
// forward's im2col tensor alive until the backward. Groups too narrow for a
// GEMM (depthwise) keep the loop forms.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

/// Below this many output channels per group, or window elements (input
/// channels per group times kernel area), a GEMM per group loses to the loop
/// form.
constexpr int64_t kMinGemmExtent = 8;

/// Whether a convolution with these static shapes runs as GEMMs.
bool worthGemms(ArrayRef<RankedTensorType> types, ArrayRef<int64_t> weight,
                int64_t groups) {
  for (RankedTensorType type : types)
    if (!type.hasStaticShape() || type.getNumElements() == 0)
      return false;
  return weight[0] / groups >= kMinGemmExtent &&
         weight[1] * weight[2] * weight[3] >= kMinGemmExtent;
}

AffineExpr dim(MLIRContext *context, unsigned position) {
  return getAffineDimExpr(position, context);
}

/// The f32 contraction of `lhs` and `rhs` over the rank-8 iteration space
/// whose last three dims are reduced, into the kept dims in order.
Value contract(OpBuilder &b, Location loc, Value lhs, AffineMap lhsMap,
               Value rhs, AffineMap rhsMap, ArrayRef<int64_t> accShape) {
  return reduceInputs(
      b, loc, 8, {5, 6, 7}, {lhs, rhs}, {lhsMap, rhsMap},
      filledTensor(b, loc, RankedTensorType::get(accShape, b.getF32Type()),
                   0.0),
      multiplyAddCombine);
}

/// The windows `op` (conv2d or its weight gradient) reads of its zero-padded
/// input, copied with no arithmetic:
///   windows[n, oh, ow, g, c, kh, kw] = xpad[n, g, c, oh*s + kh*d, ow*s + kw*d]
/// with the dims in the order `order` names them (the result's dim i is
/// dim order[i] of that list). `out` is the output's shape [N, F, OH, OW],
/// `w` the weight's.
template <typename ConvOp>
Value copyWindows(OpBuilder &b, Location loc, ConvOp op, ArrayRef<int64_t> out,
                  ArrayRef<int64_t> w, ArrayRef<unsigned> order) {
  MLIRContext *context = b.getContext();
  int64_t groups = op.getGroups();
  ArrayRef<int64_t> stride = op.getStride(), dilation = op.getDilation();
  Value x = splitGroups(b, loc,
                        padSpatial(b, loc, op.getInput(), op.getPadding(), 0.0),
                        1, groups);
  SmallVector<int64_t> extents = {out[0], out[2], out[3], groups,
                                  w[1],   w[2],   w[3]};
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> at(order.size());
  for (auto [position, window] : llvm::enumerate(order)) {
    shape.push_back(extents[window]);
    at[window] = dim(context, position);
  }
  AffineMap read = AffineMap::get(7, 0,
                                  {at[0], at[3], at[4],
                                   at[1] * stride[0] + at[5] * dilation[0],
                                   at[2] * stride[1] + at[6] * dilation[1]},
                                  context);
  return gatherElements(b, loc, x, shape, read);
}

/// `acc` [N, H, W, G, C/G] as NCHW of `resultType`, plus `bias` [C] if any,
/// rounded once.
Value channelsFirst(OpBuilder &b, Location loc, Value acc, Value bias,
                    RankedTensorType resultType) {
  MLIRContext *context = b.getContext();
  ArrayRef<int64_t> shape = resultType.getShape();
  Value merged = tensor::CollapseShapeOp::create(
      b, loc,
      RankedTensorType::get({shape[0], shape[2], shape[3], shape[1]},
                            b.getF32Type()),
      acc, ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  // Iteration space (n, c, h, w).
  SmallVector<Value> inputs = {merged};
  SmallVector<AffineMap> maps = {AffineMap::get(
      4, 0,
      {dim(context, 0), dim(context, 2), dim(context, 3), dim(context, 1)},
      context)};
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(AffineMap::get(4, 0, dim(context, 1)));
  }
  return mapElements(
      b, loc, resultType, inputs,
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
        return args.size() == 1 ? args[0]
                                : addF(nested, nestedLoc, args[0], args[1]);
      },
      maps);
}

struct Conv2DGemmLowering : public OpRewritePattern<Conv2DOp> {
  Conv2DGemmLowering(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(Conv2DOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    RankedTensorType inputType = op.getInput().getType();
    RankedTensorType weightType = op.getWeight().getType();
    ArrayRef<int64_t> w = weightType.getShape();
    int64_t groups = op.getGroups();
    if (!worthGemms({type, inputType, weightType}, w, groups))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    ArrayRef<int64_t> out = type.getShape();
    int64_t outPerGroup = w[0] / groups;
    auto d = [&](unsigned i) { return dim(context, i); };

    // [n, oh, ow, g, c, kh, kw].
    Value cols = copyWindows(rewriter, loc, op, out, w, {0, 1, 2, 3, 4, 5, 6});
    Value weight = splitGroups(rewriter, loc, op.getWeight(), 0, groups);
    // Iteration space (n, oh, ow, g, f, c, kh, kw).
    Value acc = contract(
        rewriter, loc, cols,
        AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(5), d(6), d(7)},
                       context),
        weight, AffineMap::get(8, 0, {d(3), d(4), d(5), d(6), d(7)}, context),
        {out[0], out[2], out[3], groups, outPerGroup});
    rewriter.replaceOp(op,
                       channelsFirst(rewriter, loc, acc, op.getBias(), type));
    return success();
  }
};

struct Conv2DGradWeightGemmLowering
    : public OpRewritePattern<Conv2DGradWeightOp> {
  Conv2DGradWeightGemmLowering(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(Conv2DGradWeightOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    RankedTensorType gradType = op.getGrad().getType();
    RankedTensorType inputType = op.getInput().getType();
    ArrayRef<int64_t> w = type.getShape();
    int64_t groups = op.getGroups();
    if (!worthGemms({type, gradType, inputType}, w, groups))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    ArrayRef<int64_t> gs = gradType.getShape();
    int64_t outPerGroup = w[0] / groups;
    auto d = [&](unsigned i) { return dim(context, i); };

    // [g, c, kh, kw, n, oh, ow].
    Value colsT = copyWindows(rewriter, loc, op, gs, w, {3, 4, 5, 6, 0, 1, 2});
    // Iteration space (g, f, n, oh, ow).
    Value gradT = gatherElements(
        rewriter, loc, splitGroups(rewriter, loc, op.getGrad(), 1, groups),
        {groups, outPerGroup, gs[0], gs[2], gs[3]},
        AffineMap::get(5, 0, {d(2), d(0), d(1), d(3), d(4)}, context));
    // Iteration space (g, f, c, kh, kw, n, oh, ow).
    Value acc = contract(
        rewriter, loc, gradT,
        AffineMap::get(8, 0, {d(0), d(1), d(5), d(6), d(7)}, context), colsT,
        AffineMap::get(8, 0, {d(0), d(2), d(3), d(4), d(5), d(6), d(7)},
                       context),
        {groups, outPerGroup, w[1], w[2], w[3]});
    Value result = convertTensor(rewriter, loc, acc, type.getElementType());
    rewriter.replaceOp(op, mergeGroups(rewriter, loc, result, 0));
    return success();
  }
};

struct Conv2DGradInputGemmLowering
    : public OpRewritePattern<Conv2DGradInputOp> {
  Conv2DGradInputGemmLowering(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(Conv2DGradInputOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    RankedTensorType gradType = op.getGrad().getType();
    RankedTensorType weightType = op.getWeight().getType();
    ArrayRef<int64_t> w = weightType.getShape();
    int64_t groups = op.getGroups();
    if (!worthGemms({type, gradType, weightType}, w, groups))
      return failure();
    Location loc = op.getLoc();
    MLIRContext *context = rewriter.getContext();
    ArrayRef<int64_t> dilation = op.getDilation();
    ArrayRef<int64_t> x = type.getShape();
    int64_t outPerGroup = w[0] / groups;
    auto d = [&](unsigned i) { return dim(context, i); };

    Value q =
        splitGroups(rewriter, loc,
                    spreadGradient(rewriter, loc, op.getGrad(), x, w,
                                   op.getPadding(), op.getStride(), dilation),
                    1, groups);
    // Iteration space (n, h, w, g, o, kh, kw).
    Value cols = gatherElements(
        rewriter, loc, q, {x[0], x[2], x[3], groups, outPerGroup, w[2], w[3]},
        AffineMap::get(7, 0,
                       {d(0), d(3), d(4),
                        d(1) + dilation[0] * (w[2] - 1) - d(5) * dilation[0],
                        d(2) + dilation[1] * (w[3] - 1) - d(6) * dilation[1]},
                       context));
    // Iteration space (g, o, kh, kw, c).
    Value weightT = gatherElements(
        rewriter, loc, splitGroups(rewriter, loc, op.getWeight(), 0, groups),
        {groups, outPerGroup, w[2], w[3], w[1]},
        AffineMap::get(5, 0, {d(0), d(1), d(4), d(2), d(3)}, context));
    // Iteration space (n, h, w, g, c, o, kh, kw).
    Value acc = contract(
        rewriter, loc, cols,
        AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(5), d(6), d(7)},
                       context),
        weightT, AffineMap::get(8, 0, {d(3), d(5), d(6), d(7), d(4)}, context),
        {x[0], x[2], x[3], groups, w[1]});
    rewriter.replaceOp(op, channelsFirst(rewriter, loc, acc, Value(), type));
    return success();
  }
};

} // namespace

void mixprec::populateConvolutionGemmPatterns(RewritePatternSet &patterns) {
  patterns.add<Conv2DGemmLowering, Conv2DGradWeightGemmLowering,
               Conv2DGradInputGemmLowering>(patterns.getContext());
}
