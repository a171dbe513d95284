//===- ContractionOps.cpp - matmul, batch_matmul, linear, conv2d ----------===//

#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mixprec;

bool mixprec::isContraction(Operation *op) {
  auto iface = dyn_cast<AutocastOpInterface>(op);
  return iface &&
         iface.getDefaultAutocastCategory() == AutocastCategory::TensorCore;
}

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The type rule of every contraction: one input element type (bias
/// included); the result in that type or in f32, the accumulator's type.
static LogicalResult verifyContractionTypes(Operation *op, Value lhs, Value rhs,
                                            Value bias, Value result) {
  Type inputType = tensorType(lhs).getElementType();
  Type rhsType = tensorType(rhs).getElementType();
  if (inputType != rhsType)
    return op->emitOpError("operands must share one element type, got ")
           << inputType << " and " << rhsType;
  if (bias && tensorType(bias).getElementType() != inputType)
    return op->emitOpError("bias element type must be the operands' (")
           << inputType << "), got " << tensorType(bias).getElementType();
  Type resultType = tensorType(result).getElementType();
  if (resultType != inputType && !resultType.isF32())
    return op->emitOpError("result element type must be the operands' (")
           << inputType << ") or f32 (the accumulator), got " << resultType;
  return success();
}

static LogicalResult verifyResultShape(Operation *op, Value result,
                                       ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> shape = tensorType(result).getShape();
  if (shape == expected)
    return success();
  return op->emitOpError("result shape must be ")
         << llvm::interleaved_array(expected) << ", got "
         << llvm::interleaved_array(shape);
}

/// The checks matmul and batch_matmul share once their ranks are checked: the
/// contraction type rule, equal K in the last two dims, and the result shape,
/// batch dims + [M, N].
template <typename MatrixProductOp>
static LogicalResult verifyMatrixProduct(MatrixProductOp op) {
  if (failed(verifyContractionTypes(op, op.getLhs(), op.getRhs(), {},
                                    op.getResult())))
    return failure();
  RankedTensorType lhs = tensorType(op.getLhs()), rhs = tensorType(op.getRhs());
  bool transposeLhs = op.getTransposeLhs(), transposeRhs = op.getTransposeRhs();
  int64_t rank = lhs.getRank();
  ArrayRef<int64_t> lhsShape = lhs.getShape(), rhsShape = rhs.getShape();
  int64_t m = lhsShape[rank - (transposeLhs ? 1 : 2)];
  int64_t lhsK = lhsShape[rank - (transposeLhs ? 2 : 1)];
  int64_t rhsK = rhsShape[rank - (transposeRhs ? 1 : 2)];
  int64_t n = rhsShape[rank - (transposeRhs ? 2 : 1)];
  if (lhsK != rhsK)
    return op.emitOpError("contraction dims differ: lhs has K = ")
           << lhsK << ", rhs has K = " << rhsK;
  SmallVector<int64_t> shape(lhsShape.drop_back(2));
  shape.append({m, n});
  return verifyResultShape(op, op.getResult(), shape);
}

LogicalResult MatmulOp::verify() {
  RankedTensorType lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  if (lhs.getRank() != 2 || rhs.getRank() != 2)
    return emitOpError("operands must be rank 2, got rank ")
           << lhs.getRank() << " and " << rhs.getRank();
  return verifyMatrixProduct(*this);
}

LogicalResult BatchMatmulOp::verify() {
  RankedTensorType lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  if (lhs.getRank() < 3 || lhs.getRank() != rhs.getRank())
    return emitOpError("operands must have one rank >= 3, got rank ")
           << lhs.getRank() << " and " << rhs.getRank();
  ArrayRef<int64_t> lhsBatch = lhs.getShape().drop_back(2);
  ArrayRef<int64_t> rhsBatch = rhs.getShape().drop_back(2);
  if (lhsBatch != rhsBatch)
    return emitOpError("batch dims differ: ")
           << llvm::interleaved_array(lhsBatch) << " vs "
           << llvm::interleaved_array(rhsBatch);
  return verifyMatrixProduct(*this);
}

/// The bias of linear and conv2d is `[outFeatures]`.
static LogicalResult verifyBias(Operation *op, Value bias,
                                int64_t outFeatures) {
  if (!bias)
    return success();
  ArrayRef<int64_t> shape = tensorType(bias).getShape();
  if (shape.size() == 1 && shape[0] == outFeatures)
    return success();
  return op->emitOpError("bias must be [")
         << outFeatures << "], got " << llvm::interleaved_array(shape);
}

LogicalResult LinearOp::verify() {
  RankedTensorType input = tensorType(getInput());
  RankedTensorType weight = tensorType(getWeight());
  if (input.getRank() < 1)
    return emitOpError("input must have rank >= 1");
  if (weight.getRank() != 2)
    return emitOpError("weight must be rank 2 [out, in], got rank ")
           << weight.getRank();
  if (failed(verifyContractionTypes(*this, getInput(), getWeight(), getBias(),
                                    getResult())))
    return failure();
  int64_t inFeatures = input.getShape().back();
  int64_t outFeatures = weight.getDimSize(0);
  if (weight.getDimSize(1) != inFeatures)
    return emitOpError("input's last dim (")
           << inFeatures << ") must equal the weight's in-features ("
           << weight.getDimSize(1) << ")";
  if (failed(verifyBias(*this, getBias(), outFeatures)))
    return failure();
  SmallVector<int64_t> shape(input.getShape().drop_back());
  shape.push_back(outFeatures);
  return verifyResultShape(*this, getResult(), shape);
}

LogicalResult Conv2DOp::verify() {
  RankedTensorType input = tensorType(getInput());
  RankedTensorType weight = tensorType(getWeight());
  if (input.getRank() != 4 || weight.getRank() != 4)
    return emitOpError("input (NCHW) and weight (OIHW) must be rank 4, got "
                       "rank ")
           << input.getRank() << " and " << weight.getRank();
  if (failed(verifyContractionTypes(*this, getInput(), getWeight(), getBias(),
                                    getResult())))
    return failure();
  ArrayRef<int64_t> stride = getStride(), padding = getPadding(),
                    dilation = getDilation();
  if (stride.size() != 2 || padding.size() != 2 || dilation.size() != 2)
    return emitOpError("stride, padding and dilation need 2 values each");
  if (llvm::any_of(stride, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(dilation, [](int64_t d) { return d < 1; }))
    return emitOpError("stride and dilation must be >= 1");
  if (llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return emitOpError("padding must be >= 0, got ")
           << llvm::interleaved_array(padding);
  int64_t groups = getGroups();
  int64_t channels = input.getDimSize(1), outChannels = weight.getDimSize(0);
  if (groups < 1 || channels % groups != 0 || outChannels % groups != 0)
    return emitOpError("groups (")
           << groups << ") must be >= 1 and divide the input channels ("
           << channels << ") and the output channels (" << outChannels << ")";
  if (weight.getDimSize(2) < 1 || weight.getDimSize(3) < 1)
    return emitOpError("kernel dims must be >= 1, got ")
           << llvm::interleaved_array(weight.getShape().drop_front(2));
  if (weight.getDimSize(1) != channels / groups)
    return emitOpError("weight dim 1 must be input channels / groups (")
           << channels / groups << "), got " << weight.getDimSize(1);
  if (failed(verifyBias(*this, getBias(), outChannels)))
    return failure();
  SmallVector<int64_t> shape = {input.getDimSize(0), outChannels};
  for (int i = 0; i < 2; ++i) {
    // extent = in + 2 * pad - dilation * (k - 1) - 1, overflow-checked.
    int64_t padded, span, extent;
    if (llvm::MulOverflow(padding[i], int64_t(2), padded) ||
        llvm::AddOverflow(padded, input.getDimSize(2 + i), padded) ||
        llvm::MulOverflow(dilation[i], weight.getDimSize(2 + i) - 1, span) ||
        llvm::SubOverflow(padded, span, extent) ||
        llvm::SubOverflow(extent, int64_t(1), extent))
      return emitOpError("padding or dilation of spatial dim ")
             << i << " is too large";
    if (extent < 0)
      return emitOpError("the kernel does not fit spatial dim ")
             << i << " of the padded input";
    shape.push_back(extent / stride[i] + 1);
  }
  return verifyResultShape(*this, getResult(), shape);
}
