//===- CopiesToLoops.cpp - memref.copy as linalg.copy ---------------------===//

#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECCOPIESTOLOOPS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {
struct MixprecCopiesToLoopsPass
    : public mixprec::impl::MixprecCopiesToLoopsBase<MixprecCopiesToLoopsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};
} // namespace
