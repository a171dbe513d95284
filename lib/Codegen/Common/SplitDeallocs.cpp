//===- SplitDeallocs.cpp - one dealloc per fresh allocation ---------------===//
//
// --mixprec-split-deallocs: a bufferization.dealloc of distinct memref.alloc
// results, retaining nothing, becomes one dealloc per allocation, in linear
// time.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECSPLITDEALLOCS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;

namespace {

/// Whether `dealloc` frees distinct fresh allocations only: none of them
/// can alias another, so each can be freed on its own condition.
static bool freesDistinctAllocations(bufferization::DeallocOp dealloc) {
  if (!dealloc.getRetained().empty())
    return false;
  llvm::SmallPtrSet<Operation *, 16> allocations;
  for (Value memref : dealloc.getMemrefs()) {
    auto alloc = memref.getDefiningOp<memref::AllocOp>();
    if (!alloc || !allocations.insert(alloc).second)
      return false;
  }
  return true;
}

class SplitDeallocsPass
    : public mixprec::impl::MixprecSplitDeallocsBase<SplitDeallocsPass> {
public:
  void runOnOperation() override {
    getOperation()->walk([](bufferization::DeallocOp dealloc) {
      if (dealloc.getMemrefs().size() < 2 || !freesDistinctAllocations(dealloc))
        return;
      OpBuilder builder(dealloc);
      for (auto [memref, condition] :
           llvm::zip(dealloc.getMemrefs(), dealloc.getConditions()))
        bufferization::DeallocOp::create(builder, dealloc.getLoc(), memref,
                                         condition, ValueRange());
      dealloc.erase();
    });
  }
};

} // namespace
