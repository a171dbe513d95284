//===- PoolingLowering.cpp - max_pool2d, avg_pool2d -----------------------===//
//
// NCHW pooling becomes tensor.pad + linalg.pooling_nchw_max / _sum into an f32
// accumulator (the named ops' bodies widen 16-bit inputs with arith.extf),
// then one elementwise epilogue that rounds to the result type (and, for the
// average, divides by the window size first).
//
//   max_pool2d: pads with -inf; max is arith.maximumf, so a NaN in a window
//               gives NaN (as PyTorch). The verifier keeps padding at most
//               half the kernel, so every window holds a real element.
//   avg_pool2d: pads with 0 and divides by kernel_h * kernel_w: padded
//               elements count (PyTorch's count_include_pad=True).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

/// The f32 window reduction of `op` with the linalg pooling op `PoolOpTy`,
/// starting from `init`, over the input padded with `padValue`.
template <typename PoolOpTy, typename OpTy>
Value poolF32(OpBuilder &b, OpTy op, double padValue, double init) {
  Location loc = op.getLoc();
  Value input = padSpatial(b, loc, op.getInput(), op.getPadding(), padValue);
  RankedTensorType accType = op.getType().clone(b.getF32Type());
  Value acc = filledTensor(b, loc, accType, init);
  // The window operand only carries the kernel's shape.
  Value window =
      tensor::EmptyOp::create(b, loc, op.getKernel(), b.getF32Type());
  return PoolOpTy::create(b, loc, TypeRange{accType}, ValueRange{input, window},
                          ValueRange{acc}, b.getI64TensorAttr(op.getStride()),
                          b.getI64TensorAttr({1, 1}))
      .getResult(0);
}

struct MaxPool2DLowering : public OpRewritePattern<MaxPool2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Value max =
        poolF32<linalg::PoolingNchwMaxOp>(rewriter, op, -INFINITY, -INFINITY);
    rewriter.replaceOp(op, convertTensor(rewriter, op.getLoc(), max,
                                         op.getType().getElementType()));
    return success();
  }
};

struct AvgPool2DLowering : public OpRewritePattern<AvgPool2DOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AvgPool2DOp op,
                                PatternRewriter &rewriter) const override {
    Value sum = poolF32<linalg::PoolingNchwSumOp>(rewriter, op, 0.0, 0.0);
    ArrayRef<int64_t> kernel = op.getKernel();
    double count = static_cast<double>(kernel[0] * kernel[1]);
    rewriter.replaceOp(
        op, mapElements(rewriter, op.getLoc(), op.getType(), ValueRange{sum},
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          Value divisor =
                              floatConstant(b, loc, b.getF32Type(), count);
                          return arith::DivFOp::create(b, loc, args[0], divisor)
                              .getResult();
                        }));
    return success();
  }
};

} // namespace

void mixprec::populatePoolingLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<MaxPool2DLowering, AvgPool2DLowering>(patterns.getContext());
}
