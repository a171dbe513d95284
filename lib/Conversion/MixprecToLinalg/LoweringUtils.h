//===- LoweringUtils.h - shared pieces of the linalg lowering ---*- C++ -*-===//
//
// The 16-bit semantics of docs/design.md §4 live here, once: a 16-bit value
// is widened to f32 when it enters a computation and rounded to nearest even
// when the op's result is stored.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_LIB_CONVERSION_MIXPRECTOLINALG_LOWERINGUTILS_H
#define MIXPREC_LIB_CONVERSION_MIXPRECTOLINALG_LOWERINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mixprec::lowering {

using ScalarFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// The type an element of `type` is computed in: f32 for every float type,
/// the type itself otherwise.
mlir::Type computeType(mlir::Type type);

/// Widens a scalar to its compute type (exact).
mlir::Value widen(mlir::OpBuilder &b, mlir::Location loc, mlir::Value scalar);

/// Converts a scalar to `type`: float rounding is to nearest even; integers
/// convert as signed (i1 as unsigned).
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value scalar, mlir::Type type);

/// f32 scalar arithmetic for the bodies of linalg ops.
mlir::Value f32Constant(mlir::OpBuilder &b, mlir::Location loc, double value);
mlir::Value addF(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                 mlir::Value rhs);
mlir::Value subF(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                 mlir::Value rhs);
mlir::Value mulF(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                 mlir::Value rhs);
mlir::Value divF(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lhs,
                 mlir::Value rhs);

/// `input` (NCHW) padded by `padding` on both sides of H and W with `value`.
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input, llvm::ArrayRef<int64_t> padding,
                       double value);

/// Dim `dim` (0 or 1) of the rank-4 `value` split into [groups, size /
/// groups], and its inverse: dims `dim` and `dim + 1` of a rank-5 value
/// merged.
mlir::Value splitGroups(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value, int64_t dim, int64_t groups);
mlir::Value mergeGroups(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value, int64_t dim);

/// The gradient `grad` [N, O, OH, OW] of a convolution with input shape
/// `inputShape`, weight shape `weightShape` and `padding`, `stride`,
/// `dilation` spread into a zero tensor q [N, O, H + d * (KH - 1), ...] with
/// `stride - 1` zeros between its elements, at an offset that makes the
/// input gradient one correlation of q with the flipped weight:
///   q[n, o, j, i] = grad[n, o, oh, ow] where j = oh * s + d * (KH - 1) - p
/// (elements of grad that reach only padding are left out).
mlir::Value spreadGradient(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value grad, llvm::ArrayRef<int64_t> inputShape,
                           llvm::ArrayRef<int64_t> weightShape,
                           llvm::ArrayRef<int64_t> padding,
                           llvm::ArrayRef<int64_t> stride,
                           llvm::ArrayRef<int64_t> dilation);

/// A copy of `source` into a new tensor of `shape`, element i read at
/// `map(i)`: a gather, transpose or im2col, with no arithmetic.
mlir::Value gatherElements(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value source, llvm::ArrayRef<int64_t> shape,
                           mlir::AffineMap map);

/// A scalar float constant of `type`.
mlir::Value floatConstant(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Type type, double value);

/// `tensor.empty` of `type`.
mlir::Value emptyTensor(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType type);

/// A tensor of `type` filled with `value`.
mlir::Value filledTensor(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::RankedTensorType type, double value);

/// An elementwise computation over the iteration space of `resultType`.
/// `inputs[i]` is read through `inputMaps[i]` (identity when `inputMaps` is
/// empty); `body` gets the widened scalars and returns a compute-type value,
/// which is rounded to the result's element type.
mlir::Value mapElements(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::RankedTensorType resultType,
                        mlir::ValueRange inputs, ScalarFn body,
                        llvm::ArrayRef<mlir::AffineMap> inputMaps = {});

/// The dims [begin, end).
llvm::SmallVector<int64_t> dimRange(int64_t begin, int64_t end);

/// Combiners for reduceDims / reduceInputs: accumulator + element,
/// maximumf(accumulator, element) (not maxnumf: NaN wins, as in torch.amax),
/// and accumulator + first * second (a contraction's body).
mlir::Value sumCombine(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::ValueRange args);
mlir::Value multiplyAddCombine(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::ValueRange args);
mlir::Value maxCombine(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::ValueRange args);

/// The map from a rank-`rank` iteration space to the dims it keeps when
/// `reducedDims` (sorted) are reduced away.
mlir::AffineMap keptDimsMap(mlir::MLIRContext *context, int64_t rank,
                            llvm::ArrayRef<int64_t> reducedDims);

/// Reduces over `reducedDims` (sorted, unique) of a rank-`rank` iteration
/// space that reads `inputs` through `inputMaps`, into `init` (a tensor of
/// the kept dims); `combine` gets (accumulator, widened inputs...).
mlir::Value reduceInputs(mlir::OpBuilder &b, mlir::Location loc, int64_t rank,
                         llvm::ArrayRef<int64_t> reducedDims,
                         mlir::ValueRange inputs,
                         llvm::ArrayRef<mlir::AffineMap> inputMaps,
                         mlir::Value init, ScalarFn combine);

/// Reduces `input` over `reducedDims` (sorted, unique) into a tensor of the
/// kept dims in the compute type, starting from `init`; `combine` gets
/// (accumulator, widened element).
mlir::Value reduceDims(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input, llvm::ArrayRef<int64_t> reducedDims,
                       double init, ScalarFn combine);

/// Converts every element of `tensor` to `elementType` (see convertScalar).
mlir::Value convertTensor(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value tensor, mlir::Type elementType);

/// The number of elements of the 1-d integer tensor `labels` that differ
/// from `skipped`, as a 0-d f32 tensor: the rows a loss with an ignored label
/// averages over.
mlir::Value countOtherThan(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value labels, int64_t skipped);

/// Whether the integer scalar `label` differs from `skipped` (an i1).
mlir::Value isOtherThan(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value label, int64_t skipped);

/// The f32 type of a statistic over the dims of `shape` that `reducedDims`
/// keeps.
mlir::RankedTensorType statType(mlir::OpBuilder &b,
                                llvm::ArrayRef<int64_t> shape,
                                llvm::ArrayRef<int64_t> reducedDims);

/// 1 / sqrt(variance + eps) of an f32 scalar, in f32.
mlir::Value inverseStd(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value variance, double eps);

/// Mean and 1/sqrt(var + eps) over `reducedDims` of `input` (biased
/// variance), plus the sum of squared deviations for callers that need the
/// unbiased variance: f32 tensors of the kept dims (statType). The variance
/// is two-pass, sum((x - mean)^2) after the mean.
struct Moments {
  mlir::Value mean, invStd, squaredDeviations;
  int64_t count;
};
Moments computeMoments(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input, llvm::ArrayRef<int64_t> reducedDims,
                       double eps);

/// softmax's statistics along `reducedDims` of `input`, f32 tensors of the
/// kept dims (statType): the maximum (a NaN makes its group's maximum NaN)
/// and sum(e^(x - max)).
struct SoftmaxStats {
  mlir::Value max, sum;
};
SoftmaxStats computeSoftmaxStats(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::Value input,
                                 llvm::ArrayRef<int64_t> reducedDims);

/// layer_norm's view of a rank-`rank` iteration space normalized over the
/// dims [axis, rank): those dims, the map that reads the per-row statistics
/// (the other dims) and the map that reads scale and bias (the normalized
/// dims).
struct LayerNormDims {
  llvm::SmallVector<int64_t> normalized;
  mlir::AffineMap rowMap, paramMap;
};
LayerNormDims layerNormDims(mlir::MLIRContext *context, int64_t rank,
                            int64_t axis);

} // namespace mixprec::lowering

#endif // MIXPREC_LIB_CONVERSION_MIXPRECTOLINALG_LOWERINGUTILS_H
