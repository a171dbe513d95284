//===- BooleansAsBytes.cpp - i1 in memory loaded and stored as bytes ------===//
//
// --mixprec-booleans-as-bytes: an i1 that a buffer holds (one byte per
// element) is loaded as its byte and compared with zero, and stored as its
// zero-extended byte, so that LLVM vectorizes a loop over a mask with byte
// loads instead of assembling each vector of i1 bit by bit.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECBOOLEANSASBYTES
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

// (LLVM has no atomic i1 access, so every non-volatile one is plain.)
struct LoadAsByte : OpRewritePattern<LLVM::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::LoadOp load,
                                PatternRewriter &rewriter) const override {
    if (!load.getType().isInteger(1) || load.getVolatile_())
      return failure();
    Location loc = load.getLoc();
    Type byte = rewriter.getI8Type();
    auto loaded = LLVM::LoadOp::create(rewriter, loc, byte, load.getAddr(),
                                       load.getAlignment().value_or(0));
    Value zero = LLVM::ConstantOp::create(rewriter, loc, byte, 0);
    rewriter.replaceOpWithNewOp<LLVM::ICmpOp>(load, LLVM::ICmpPredicate::ne,
                                              loaded, zero);
    return success();
  }
};

struct StoreAsByte : OpRewritePattern<LLVM::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::StoreOp store,
                                PatternRewriter &rewriter) const override {
    if (!store.getValue().getType().isInteger(1) || store.getVolatile_())
      return failure();
    Value byte = LLVM::ZExtOp::create(rewriter, store.getLoc(),
                                      rewriter.getI8Type(), store.getValue());
    rewriter.replaceOpWithNewOp<LLVM::StoreOp>(
        store, byte, store.getAddr(), store.getAlignment().value_or(0));
    return success();
  }
};

class BooleansAsBytesPass
    : public mixprec::impl::MixprecBooleansAsBytesBase<BooleansAsBytesPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LoadAsByte, StoreAsByte>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
