//===- ContractionLowering.cpp - matmul, batch_matmul, linear, conv2d -----===//
//
// Every contraction becomes a linalg named op whose inputs keep their element
// type and whose output is an f32 accumulator filled with 0: the named ops'
// bodies widen the inputs (arith.extf for f16/bf16) before the product, so
// products and sums are f32 (docs/design.md §4). One epilogue then adds the
// widened bias, if any, and rounds once to the op's result type.
//
//   matmul       -> linalg.matmul (transposes as indexing_maps)
//   batch_matmul -> linalg.batch_matmul (batch dims collapsed to one)
//   linear       -> linalg.matmul with the weight read transposed (leading
//                   dims collapsed to one)
//   conv2d       -> tensor.pad + linalg.conv_2d_nchw_fchw, or for groups > 1
//                   linalg.conv_2d_ngchw_gfchw over a [N, G, C/G, H, W] view
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

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The f32 accumulator of `shape`, filled with 0.
Value zeroAccumulator(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  return filledTensor(b, loc, RankedTensorType::get(shape, b.getF32Type()),
                      0.0);
}

/// Adds the widened `bias` (indexed by iteration dim `biasDim`) to the f32
/// accumulator `acc` and rounds once to `elementType`; without a bias only
/// the rounding is left (none for an f32 result).
Value epilogue(OpBuilder &b, Location loc, Value acc, Value bias,
               int64_t biasDim, Type elementType) {
  if (!bias)
    return convertTensor(b, loc, acc, elementType);
  RankedTensorType accType = tensorType(acc);
  int64_t rank = accType.getRank();
  MLIRContext *context = b.getContext();
  AffineMap biasMap =
      AffineMap::get(rank, 0, getAffineDimExpr(biasDim, context));
  return mapElements(
      b, loc, accType.clone(elementType), ValueRange{acc, bias},
      [](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
        return arith::AddFOp::create(nested, nestedLoc, args[0], args[1]);
      },
      {AffineMap::getMultiDimIdentityMap(rank, context), biasMap});
}

/// `value` reshaped to `shape` along `reassociation` (a collapse when the
/// rank drops, an expansion when it grows, nothing when it stays).
Value reshape(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> shape,
              ArrayRef<ReassociationIndices> reassociation) {
  RankedTensorType type = tensorType(value);
  if (type.getShape() == shape)
    return value;
  RankedTensorType target = type.clone(shape);
  if (target.getRank() < type.getRank())
    return tensor::CollapseShapeOp::create(b, loc, target, value,
                                           reassociation);
  return tensor::ExpandShapeOp::create(b, loc, target, value, reassociation);
}

/// The f32 product of `lhs` and `rhs`, both rank 2 (`batched` false) or rank
/// 3 with one leading batch dim: a linalg.matmul / linalg.batch_matmul whose
/// indexing maps read the transposed operands in place.
Value contractMatrices(OpBuilder &b, Location loc, Value lhs, Value rhs,
                       bool transposeLhs, bool transposeRhs, bool batched) {
  MLIRContext *context = b.getContext();
  ArrayRef<int64_t> lhsShape = tensorType(lhs).getShape();
  ArrayRef<int64_t> rhsShape = tensorType(rhs).getShape();
  int64_t rank = lhsShape.size();
  int64_t m = lhsShape[rank - (transposeLhs ? 1 : 2)];
  int64_t n = rhsShape[rank - (transposeRhs ? 2 : 1)];

  // Iteration dims: [batch,] m, n, k.
  unsigned first = batched ? 1 : 0;
  AffineExpr dm = getAffineDimExpr(first, context);
  AffineExpr dn = getAffineDimExpr(first + 1, context);
  AffineExpr dk = getAffineDimExpr(first + 2, context);
  SmallVector<AffineExpr> lhsExprs, rhsExprs, outExprs;
  if (batched) {
    AffineExpr batch = getAffineDimExpr(0, context);
    lhsExprs.push_back(batch);
    rhsExprs.push_back(batch);
    outExprs.push_back(batch);
  }
  lhsExprs.append(transposeLhs ? SmallVector<AffineExpr>{dk, dm}
                               : SmallVector<AffineExpr>{dm, dk});
  rhsExprs.append(transposeRhs ? SmallVector<AffineExpr>{dn, dk}
                               : SmallVector<AffineExpr>{dk, dn});
  outExprs.append({dm, dn});
  unsigned numDims = first + 3;
  ArrayAttr maps =
      b.getAffineMapArrayAttr({AffineMap::get(numDims, 0, lhsExprs, context),
                               AffineMap::get(numDims, 0, rhsExprs, context),
                               AffineMap::get(numDims, 0, outExprs, context)});

  SmallVector<int64_t> accShape;
  if (batched)
    accShape.push_back(lhsShape[0]);
  accShape.append({m, n});
  Value acc = zeroAccumulator(b, loc, accShape);
  Type accType = acc.getType();
  if (batched) {
    auto op = linalg::BatchMatmulOp::create(
        b, loc, TypeRange{accType}, ValueRange{lhs, rhs}, ValueRange{acc});
    op.setIndexingMapsAttr(maps);
    return op.getResult(0);
  }
  auto op = linalg::MatmulOp::create(b, loc, TypeRange{accType},
                                     ValueRange{lhs, rhs}, ValueRange{acc});
  op.setIndexingMapsAttr(maps);
  return op.getResult(0);
}

struct MatmulLowering : public OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value acc = contractMatrices(rewriter, loc, op.getLhs(), op.getRhs(),
                                 op.getTransposeLhs(), op.getTransposeRhs(),
                                 /*batched=*/false);
    rewriter.replaceOp(
        op, epilogue(rewriter, loc, acc, {}, 0, op.getType().getElementType()));
    return success();
  }
};

struct BatchMatmulLowering : public OpRewritePattern<BatchMatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getType();
    int64_t rank = resultType.getRank();
    // All batch dims into one: [B0, ..., Bk, X, Y] -> [B0 * ... * Bk, X, Y].
    SmallVector<ReassociationIndices> reassociation = {
        llvm::to_vector(llvm::seq<int64_t>(0, rank - 2)),
        {rank - 2},
        {rank - 1}};
    auto collapsed = [&](ArrayRef<int64_t> shape) {
      int64_t batch = 1;
      for (int64_t size : shape.drop_back(2))
        batch *= size;
      return SmallVector<int64_t>{batch, shape[rank - 2], shape[rank - 1]};
    };
    Value lhs =
        reshape(rewriter, loc, op.getLhs(),
                collapsed(tensorType(op.getLhs()).getShape()), reassociation);
    Value rhs =
        reshape(rewriter, loc, op.getRhs(),
                collapsed(tensorType(op.getRhs()).getShape()), reassociation);
    Value acc = contractMatrices(rewriter, loc, lhs, rhs, op.getTransposeLhs(),
                                 op.getTransposeRhs(), /*batched=*/true);
    Value result =
        epilogue(rewriter, loc, acc, {}, 0, resultType.getElementType());
    rewriter.replaceOp(op, reshape(rewriter, loc, result, resultType.getShape(),
                                   reassociation));
    return success();
  }
};

struct LinearLowering : public OpRewritePattern<LinearOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType inputType = tensorType(op.getInput());
    RankedTensorType resultType = op.getType();
    int64_t rank = inputType.getRank();
    // The input as a matrix [rows, in]: leading dims collapsed into one, or a
    // single row for a rank-1 input.
    SmallVector<ReassociationIndices> reassociation;
    int64_t rows = 1;
    if (rank == 1) {
      reassociation = {{0, 1}};
    } else {
      reassociation = {llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)),
                       {rank - 1}};
      for (int64_t size : inputType.getShape().drop_back())
        rows *= size;
    }
    int64_t inFeatures = inputType.getShape().back();
    Value input = reshape(rewriter, loc, op.getInput(), {rows, inFeatures},
                          reassociation);
    Value acc = contractMatrices(rewriter, loc, input, op.getWeight(),
                                 /*transposeLhs=*/false, /*transposeRhs=*/true,
                                 /*batched=*/false);
    Value result = epilogue(rewriter, loc, acc, op.getBias(), /*biasDim=*/1,
                            resultType.getElementType());
    rewriter.replaceOp(op, reshape(rewriter, loc, result, resultType.getShape(),
                                   reassociation));
    return success();
  }
};

struct Conv2DLowering : public OpRewritePattern<Conv2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2DOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType weightType = tensorType(op.getWeight());
    RankedTensorType resultType = op.getType();
    ArrayRef<int64_t> padding = op.getPadding();

    // Zero padding around H and W, in the input's type (0 is exact).
    Value input = padSpatial(rewriter, loc, op.getInput(), padding, 0.0);

    Attribute strides = rewriter.getI64TensorAttr(op.getStride());
    Attribute dilations = rewriter.getI64TensorAttr(op.getDilation());
    ArrayRef<int64_t> resultShape = resultType.getShape();
    int64_t groups = op.getGroups();
    Value acc;
    if (groups == 1) {
      Value init = zeroAccumulator(rewriter, loc, resultShape);
      acc = linalg::Conv2DNchwFchwOp::create(
                rewriter, loc, TypeRange{init.getType()},
                ValueRange{input, op.getWeight()}, ValueRange{init}, strides,
                dilations)
                .getResult(0);
    } else {
      // Channels split into groups: input [N, G, C/G, H, W], weight
      // [G, O/G, C/G, KH, KW], accumulator [N, G, O/G, OH, OW].
      ArrayRef<int64_t> in = tensorType(input).getShape();
      ArrayRef<int64_t> w = weightType.getShape();
      int64_t outPerGroup = w[0] / groups;
      Value groupedInput = reshape(
          rewriter, loc, input, {in[0], groups, in[1] / groups, in[2], in[3]},
          {{0}, {1, 2}, {3}, {4}});
      Value groupedWeight = reshape(rewriter, loc, op.getWeight(),
                                    {groups, outPerGroup, w[1], w[2], w[3]},
                                    {{0, 1}, {2}, {3}, {4}});
      Value init = zeroAccumulator(rewriter, loc,
                                   {resultShape[0], groups, outPerGroup,
                                    resultShape[2], resultShape[3]});
      Value grouped = linalg::Conv2DNgchwGfchwOp::create(
                          rewriter, loc, TypeRange{init.getType()},
                          ValueRange{groupedInput, groupedWeight},
                          ValueRange{init}, strides, dilations)
                          .getResult(0);
      acc =
          reshape(rewriter, loc, grouped, resultShape, {{0}, {1, 2}, {3}, {4}});
    }
    rewriter.replaceOp(op,
                       epilogue(rewriter, loc, acc, op.getBias(),
                                /*biasDim=*/1, resultType.getElementType()));
    return success();
  }
};

} // namespace

void mixprec::populateContractionLoweringPatterns(RewritePatternSet &patterns) {
  patterns
      .add<MatmulLowering, BatchMatmulLowering, LinearLowering, Conv2DLowering>(
          patterns.getContext());
}
