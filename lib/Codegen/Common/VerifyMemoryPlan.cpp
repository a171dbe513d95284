//===- VerifyMemoryPlan.cpp - no two live buffers share a byte ------------===//
//
// --mixprec-verify-memory-plan: recomputes the lifetime and the bytes of
// every view of a function's workspace and fails when two of them overlap
// in both.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/BufferLiveness.h"
#include "mixprec/Codegen/Passes.h"
#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECVERIFYMEMORYPLAN
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

struct PlacedView {
  memref::ViewOp view;
  int64_t begin, end; // bytes [begin, end)
  LiveRange live;
};

class VerifyMemoryPlanPass
    : public mixprec::impl::MixprecVerifyMemoryPlanBase<VerifyMemoryPlanPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    Value workspace = plannedWorkspace(function);
    if (!workspace)
      return;
    int64_t size = cast<MemRefType>(workspace.getType()).getNumElements();
    ProgramOrder order(function);
    SmallVector<PlacedView> views;
    for (Operation *user : workspace.getUsers()) {
      auto view = dyn_cast<memref::ViewOp>(user);
      if (!view)
        continue;
      APInt offset;
      std::optional<int64_t> bytes = staticBytes(view.getType());
      std::optional<LiveRange> live = liveRange(view, order);
      if (!matchPattern(view.getByteShift(), m_ConstantInt(&offset)) ||
          !bytes || !live) {
        view.emitError("mixprec-verify-memory-plan: a view of the workspace "
                       "without a constant offset, a static size or a "
                       "lifetime in its block");
        return signalPassFailure();
      }
      int64_t begin = offset.getSExtValue();
      if (begin < 0 || begin + *bytes > size) {
        view.emitError("mixprec-verify-memory-plan: bytes [")
            << begin << ", " << begin + *bytes << ") of a workspace of " << size
            << " bytes";
        return signalPassFailure();
      }
      views.push_back({view, begin, begin + *bytes, *live});
    }
    // By first byte; each view against those that start before it ends.
    llvm::sort(views, [](const PlacedView &a, const PlacedView &b) {
      return a.begin < b.begin;
    });
    for (size_t i = 0; i < views.size(); ++i)
      for (size_t j = i + 1; j < views.size() && views[j].begin < views[i].end;
           ++j) {
        if (!views[i].live.overlaps(views[j].live))
          continue;
        InFlightDiagnostic diagnostic =
            views[j].view.emitError("mixprec-verify-memory-plan: bytes [")
            << views[j].begin << ", " << views[j].end
            << ") of the workspace are also bytes [" << views[i].begin << ", "
            << views[i].end << ") of a buffer live at the same time";
        diagnostic.attachNote(views[i].view.getLoc()) << "that buffer";
        return signalPassFailure();
      }
  }
};

} // namespace
