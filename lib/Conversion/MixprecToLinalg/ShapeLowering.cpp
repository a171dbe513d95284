//===- ShapeLowering.cpp - data movement, embedding and dropout -----------===//
//
// Data movement copies elements bit for bit in their own type (no widening):
// transpose, reshape, broadcast, slice and embedding never round. concat
// converts float inputs to the promoted result type (one rounding, none for a
// widening). dropout computes in f32 and rounds once to the result type.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mixprec/Conversion/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mixprec;
using namespace mixprec::lowering;

namespace {

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  return llvm::map_to_vector(values, [&](int64_t value) -> OpFoldResult {
    return b.getIndexAttr(value);
  });
}

//===----------------------------------------------------------------------===//
// transpose, reshape, broadcast, slice, concat
//===----------------------------------------------------------------------===//

struct TransposeLowering : public OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    // Both say: result dim i is input dim permutation[i].
    Location loc = op.getLoc();
    Value init = emptyTensor(rewriter, loc, op.getType());
    auto transpose = linalg::TransposeOp::create(rewriter, loc, op.getInput(),
                                                 init, op.getPermutation());
    rewriter.replaceOp(op, transpose->getResults());
    return success();
  }
};

struct ReshapeLowering : public OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    // Row-major: collapse to 1-D, expand to the result shape. A 0-d tensor
    // holds one element, so every dim on the other side is 1 and an empty
    // reassociation maps between them directly.
    Location loc = op.getLoc();
    Value input = op.getInput();
    RankedTensorType inputType = op.getInput().getType(), type = op.getType();
    if (inputType == type) {
      rewriter.replaceOp(op, input);
      return success();
    }
    if (inputType.getRank() == 0) {
      rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
          op, type, input, ArrayRef<ReassociationIndices>{});
      return success();
    }
    if (type.getRank() == 0) {
      rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
          op, type, input, ArrayRef<ReassociationIndices>{});
      return success();
    }
    auto allDims = [](int64_t rank) {
      ReassociationIndices dims(rank);
      std::iota(dims.begin(), dims.end(), 0);
      return SmallVector<ReassociationIndices>{dims};
    };
    Value flat = input;
    if (inputType.getRank() != 1)
      flat = tensor::CollapseShapeOp::create(rewriter, loc, flat,
                                             allDims(inputType.getRank()));
    if (type.getRank() != 1)
      flat = tensor::ExpandShapeOp::create(rewriter, loc, type, flat,
                                           allDims(type.getRank()));
    rewriter.replaceOp(op, flat);
    return success();
  }
};

struct BroadcastLowering : public OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    // numpy: dims align from the right; an input dim of size 1 is read at 0
    // for every result index, the leading result dims are not read at all.
    Location loc = op.getLoc();
    RankedTensorType inputType = op.getInput().getType(), type = op.getType();
    if (inputType == type) {
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    MLIRContext *context = rewriter.getContext();
    int64_t rank = type.getRank();
    int64_t leading = rank - inputType.getRank();
    SmallVector<AffineExpr> exprs;
    for (auto [dim, size] : llvm::enumerate(inputType.getShape())) {
      if (size == 1 && type.getDimSize(leading + dim) != 1)
        exprs.push_back(getAffineConstantExpr(0, context));
      else
        exprs.push_back(getAffineDimExpr(leading + dim, context));
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, exprs, context),
        AffineMap::getMultiDimIdentityMap(rank, context)};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getInput()},
        ValueRange{emptyTensor(rewriter, loc, type)}, maps,
        parallelIterators(rank),
        [](OpBuilder &b, Location nestedLoc, ValueRange args) {
          linalg::YieldOp::create(b, nestedLoc, args[0]);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

struct SliceLowering : public OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getType();
    SmallVector<int64_t> strides(type.getRank(), 1);
    if (std::optional<ArrayRef<int64_t>> given = op.getStrides())
      strides.assign(given->begin(), given->end());
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, op.getInput(), indexAttrs(rewriter, op.getOffsets()),
        indexAttrs(rewriter, op.getSizes()), indexAttrs(rewriter, strides));
    return success();
  }
};

struct ConcatLowering : public OpRewritePattern<ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConcatOp op,
                                PatternRewriter &rewriter) const override {
    // tensor.empty, then each input written into its slice of the result at
    // its running offset along the axis: by linalg.copy, or, for a float
    // input of another type, by a generic that converts it (one rounding, none
    // when widening). extract_slice / op / insert_slice of one slice
    // bufferizes in place: no temporary, and no memref.copy into a strided
    // subview (which would need a runtime memrefCopy).
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type elementType = type.getElementType();
    int64_t axis = op.getAxis();
    int64_t rank = type.getRank();
    MLIRContext *context = rewriter.getContext();
    Value result = emptyTensor(rewriter, loc, type);
    int64_t offset = 0;
    for (Value input : op.getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> offsets(rank, 0);
      offsets[axis] = offset;
      SmallVector<OpFoldResult> sliceOffsets = indexAttrs(rewriter, offsets);
      SmallVector<OpFoldResult> sliceSizes =
          indexAttrs(rewriter, inputType.getShape());
      SmallVector<OpFoldResult> sliceStrides =
          indexAttrs(rewriter, SmallVector<int64_t>(rank, 1));
      Value slice = tensor::ExtractSliceOp::create(
          rewriter, loc, inputType.clone(elementType), result, sliceOffsets,
          sliceSizes, sliceStrides);
      Value piece;
      if (inputType.getElementType() == elementType) {
        piece =
            linalg::CopyOp::create(rewriter, loc, input, slice).getResult(0);
      } else {
        SmallVector<AffineMap> maps(
            2, AffineMap::getMultiDimIdentityMap(rank, context));
        piece =
            linalg::GenericOp::create(
                rewriter, loc, TypeRange{slice.getType()}, ValueRange{input},
                ValueRange{slice}, maps, parallelIterators(rank),
                [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
                  linalg::YieldOp::create(
                      b, nestedLoc,
                      convertScalar(b, nestedLoc, args[0], elementType));
                })
                .getResult(0);
      }
      result = tensor::InsertSliceOp::create(
          rewriter, loc, piece, result, sliceOffsets, sliceSizes, sliceStrides);
      offset += inputType.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

struct EmbeddingLowering : public OpRewritePattern<EmbeddingOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(EmbeddingOp op,
                                PatternRewriter &rewriter) const override {
    // result[i..., d] = table[clamp(indices[i...], 0, V - 1), d].
    //
    // An index outside [0, V) fails the call (--mixprec-check-indices);
    // meanwhile the clamp keeps the read inside the table.
    Location loc = op.getLoc();
    RankedTensorType tableType = op.getTable().getType();
    RankedTensorType type = op.getType();
    int64_t vocab = tableType.getDimSize(0);
    if (vocab == 0 && type.getNumElements() != 0)
      return rewriter.notifyMatchFailure(
          op, "cannot gather rows from an empty table");
    MLIRContext *context = rewriter.getContext();
    int64_t rank = type.getRank();
    SmallVector<AffineMap> maps = {
        AffineMap::getMultiDimIdentityMap(rank, context).dropResult(rank - 1),
        AffineMap::getMultiDimIdentityMap(rank, context)};
    Value table = op.getTable();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{op.getIndices()},
        ValueRange{emptyTensor(rewriter, loc, type)}, maps,
        parallelIterators(rank),
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) {
          Value row = arith::IndexCastOp::create(b, nestedLoc, b.getIndexType(),
                                                 args[0]);
          Value zero = arith::ConstantIndexOp::create(b, nestedLoc, 0);
          Value last = arith::ConstantIndexOp::create(b, nestedLoc, vocab - 1);
          row = arith::MaxSIOp::create(b, nestedLoc, row, zero);
          row = arith::MinSIOp::create(b, nestedLoc, row, last);
          Value column = linalg::IndexOp::create(b, nestedLoc, rank - 1);
          Value element = tensor::ExtractOp::create(b, nestedLoc, table,
                                                    ValueRange{row, column});
          linalg::YieldOp::create(b, nestedLoc, element);
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// dropout: counter-based Philox4x32-10
//===----------------------------------------------------------------------===//
//
// The mask is a pure function of (seed, offset, stream, element index), the
// same on every backend; python/mixprec/philox.py is its reference.
//
//   key      k0 = low 32 bits of seed,  k1 = high 32 bits of seed
//            (seed = rng[0], offset = rng[1], as 64-bit patterns)
//   counter  c0 = low 32 bits of i,     c1 = high 32 bits of i
//            (i = row-major linear index of the element)
//            c2 = low 32 bits of `stream`, c3 = low 32 bits of offset
//   r        = word 0 of Philox4x32-10(counter, key)
//   keep     iff r >= p * 2^32, i.e. r >= ceil(p * 2^32) (uniform r/2^32 >= p)
//   result   x * (keep ? f32(1 / (1 - p)) : 0) in f32, rounded once to the
//            result type. Multiplying by 0 (rather than selecting 0) matches
//            PyTorch's `x * mask * scale`: a dropped Inf/NaN gives NaN, so an
//            overflow stays visible to the loss scaler's finite check.

constexpr uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;
constexpr int kPhiloxRounds = 10;

Value i32Constant(OpBuilder &b, Location loc, uint32_t value) {
  return arith::ConstantIntOp::create(
      b, loc, b.getI32Type(),
      static_cast<int64_t>(static_cast<int32_t>(value)));
}

Value i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, b.getI64Type(), value);
}

/// The low and high 32 bits of an i64.
std::pair<Value, Value> splitWords(OpBuilder &b, Location loc, Value word) {
  Type i32 = b.getI32Type();
  Value lo = arith::TruncIOp::create(b, loc, i32, word);
  Value shifted = arith::ShRUIOp::create(b, loc, word, i64Constant(b, loc, 32));
  Value hi = arith::TruncIOp::create(b, loc, i32, shifted);
  return {lo, hi};
}

/// The 64-bit product of two u32 as (lo, hi) words; `factor` is a constant.
std::pair<Value, Value> mulHiLo(OpBuilder &b, Location loc, uint32_t factor,
                                Value word) {
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), word);
  Value product = arith::MulIOp::create(
      b, loc, wide, i64Constant(b, loc, static_cast<int64_t>(factor)));
  return splitWords(b, loc, product);
}

/// Output word 0 of Philox4x32-10 with the per-round keys `roundKeys`
/// (round r uses roundKeys[r] = key + r * (W0, W1)).
Value philoxWord0(OpBuilder &b, Location loc, std::array<Value, 4> counter,
                  ArrayRef<std::pair<Value, Value>> roundKeys) {
  auto [c0, c1, c2, c3] = counter;
  for (auto [round, key] : llvm::enumerate(roundKeys)) {
    auto [k0, k1] = key;
    // Word 0 of a round needs only the M1 * c2 product: the last round
    // computes nothing else.
    auto [lo1, hi1] = mulHiLo(b, loc, kPhiloxM1, c2);
    Value next0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, hi1, c1), k0);
    if (round + 1 == roundKeys.size())
      return next0;
    auto [lo0, hi0] = mulHiLo(b, loc, kPhiloxM0, c0);
    Value next2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, hi0, c3), k1);
    c0 = next0;
    c1 = lo1;
    c2 = next2;
    c3 = lo0;
  }
  return c0;
}

struct DropoutLowering : public OpRewritePattern<DropoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DropoutOp op,
                                PatternRewriter &rewriter) const override {
    double p = op.getP().convertToDouble();
    // Evaluation, and p = 0 (x * 1 is x, NaN and -0 included): the identity.
    if (!op.getTraining() || p == 0.0) {
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
    Type f32 = rewriter.getF32Type();

    // Scalars shared by every element: the round keys and counter word 3.
    Value seed = tensor::ExtractOp::create(
        rewriter, loc, op.getRng(),
        ValueRange{arith::ConstantIndexOp::create(rewriter, loc, 0)});
    Value offset = tensor::ExtractOp::create(
        rewriter, loc, op.getRng(),
        ValueRange{arith::ConstantIndexOp::create(rewriter, loc, 1)});
    auto [key0, key1] = splitWords(rewriter, loc, seed);
    SmallVector<std::pair<Value, Value>> roundKeys = {{key0, key1}};
    for (int round = 1; round < kPhiloxRounds; ++round) {
      auto [k0, k1] = roundKeys.back();
      roundKeys.push_back(
          {arith::AddIOp::create(rewriter, loc, k0,
                                 i32Constant(rewriter, loc, kPhiloxW0)),
           arith::AddIOp::create(rewriter, loc, k1,
                                 i32Constant(rewriter, loc, kPhiloxW1))});
    }
    Value counter2 = i32Constant(
        rewriter, loc, static_cast<uint32_t>(op.getStreamAttr().getInt()));
    Value counter3 = arith::TruncIOp::create(rewriter, loc, i32, offset);

    // keep iff r >= ceil(p * 2^32); p * 2^32 is exact (a power-of-two
    // scaling) and below 2^32, its ceiling at most 2^32 (nothing kept).
    double threshold = std::ceil(std::ldexp(p, 32));
    bool keepNone = threshold >= 4294967296.0;
    uint32_t keepFrom = keepNone ? 0u : static_cast<uint32_t>(threshold);
    float scale = static_cast<float>(1.0 / (1.0 - p));

    int64_t rank = type.getRank();
    ArrayRef<int64_t> shape = type.getShape();
    Value result = mapElements(
        rewriter, loc, type, ValueRange{op.getInput()},
        [&](OpBuilder &b, Location nestedLoc, ValueRange args) -> Value {
          Value zero = floatConstant(b, nestedLoc, f32, 0.0);
          if (keepNone)
            return arith::MulFOp::create(b, nestedLoc, args[0], zero);
          // Row-major linear index, in i64.
          Value linear;
          for (int64_t dim = 0; dim < rank; ++dim) {
            Value index = arith::IndexCastOp::create(
                b, nestedLoc, i64, linalg::IndexOp::create(b, nestedLoc, dim));
            linear = !linear ? index
                             : arith::AddIOp::create(
                                   b, nestedLoc,
                                   arith::MulIOp::create(
                                       b, nestedLoc, linear,
                                       i64Constant(b, nestedLoc, shape[dim])),
                                   index)
                                   .getResult();
          }
          if (!linear)
            linear = i64Constant(b, nestedLoc, 0);
          auto [counter0, counter1] = splitWords(b, nestedLoc, linear);
          Value r =
              philoxWord0(b, nestedLoc,
                          {counter0, counter1, counter2, counter3}, roundKeys);
          Value keep =
              arith::CmpIOp::create(b, nestedLoc, arith::CmpIPredicate::uge, r,
                                    i32Constant(b, nestedLoc, keepFrom));
          Value factor = arith::SelectOp::create(
              b, nestedLoc, keep, floatConstant(b, nestedLoc, f32, scale),
              zero);
          return arith::MulFOp::create(b, nestedLoc, args[0], factor);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mixprec::populateShapeLoweringPatterns(RewritePatternSet &patterns) {
  patterns
      .add<TransposeLowering, ReshapeLowering, BroadcastLowering, SliceLowering,
           ConcatLowering, EmbeddingLowering, DropoutLowering>(
          patterns.getContext());
}
