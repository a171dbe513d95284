//===- ReuseBuffers.cpp - elementwise results over their dead inputs ------===//
//
// --mixprec-reuse-buffers: a linalg op that computes each element of its
// output from the same element of an input (and whatever it reads of other
// buffers) writes the output into that input when it is a temporary of the
// same type that dies there.
//
//===----------------------------------------------------------------------===//

#include "mixprec/Codegen/BufferLiveness.h"
#include "mixprec/Codegen/Passes.h"
#include "mixprec/Codegen/ViewedBuffer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mixprec {
#define GEN_PASS_DEF_MIXPRECREUSEBUFFERS
#include "mixprec/Codegen/Passes.h.inc"
} // namespace mixprec

using namespace mlir;
using namespace mixprec;

namespace {

bool isDeallocation(Operation *op) { return isa<memref::DeallocOp>(op); }

/// Whether `op` computes element i of its output in iteration i alone,
/// from element i of `operand` (and whatever it reads of other buffers):
/// only parallel loops, identity maps for both.
bool isElementwiseIn(linalg::LinalgOp op, OpOperand *operand,
                     OpOperand *output) {
  return op.hasPureBufferSemantics() &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         op.getMatchingIndexingMap(operand).isIdentity() &&
         op.getMatchingIndexingMap(output).isIdentity();
}

class ReuseBuffersPass
    : public mixprec::impl::MixprecReuseBuffersBase<ReuseBuffersPass> {
public:
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    ProgramOrder order(function);
    // Extended as outputs take over their inputs' buffers.
    llvm::DenseMap<Value, LiveRange> lives;
    auto liveOf = [&](Value buffer) -> std::optional<LiveRange> {
      auto it = lives.find(buffer);
      if (it != lives.end())
        return it->second;
      std::optional<LiveRange> live = liveRange(buffer, order, isDeallocation);
      if (live)
        lives[buffer] = *live;
      return live;
    };
    SmallVector<memref::AllocOp> allocations;
    function.walk([&](memref::AllocOp alloc) { allocations.push_back(alloc); });
    for (memref::AllocOp allocation : allocations) {
      Value output = allocation.getMemref();
      // The op after the allocation, or after those of the op's other
      // outputs (a fused op that yields several).
      Operation *next = allocation->getNextNode();
      while (isa_and_nonnull<memref::AllocOp>(next))
        next = next->getNextNode();
      auto writer = dyn_cast_or_null<linalg::LinalgOp>(next);
      OpOperand *written = nullptr;
      if (writer)
        for (OpOperand &init : writer.getDpsInitsMutable())
          if (init.get() == output)
            written = &init;
      if (!written)
        continue;
      std::optional<LiveRange> outputLive = liveOf(output);
      if (!outputLive)
        continue;
      for (OpOperand *input : writer.getDpsInputOperands()) {
        // The input, or a view of a temporary (a reshape of it).
        Value source = input->get();
        Value buffer = viewedBuffer(source);
        if (source == output || source.getType() != output.getType() ||
            !buffer.getDefiningOp<memref::AllocOp>() ||
            buffer.getParentBlock() != output.getParentBlock() ||
            !isElementwiseIn(writer, input, written))
          continue;
        std::optional<LiveRange> sourceLive = liveOf(buffer);
        if (!sourceLive || sourceLive->end != order.end(writer))
          continue;
        // Another operand on the input's buffer would read it elsewhere
        // than at the element being written, unless it is the input read
        // the same way (x * x).
        if (llvm::any_of(writer->getOpOperands(), [&](OpOperand &other) {
              return &other != input && viewedBuffer(other.get()) == buffer &&
                     !(other.get() == source && writer.isDpsInput(&other) &&
                       writer.getMatchingIndexingMap(&other) ==
                           writer.getMatchingIndexingMap(input));
            }))
          continue;
        lives[buffer].end = std::max(sourceLive->end, outputLive->end);
        lives.erase(output);
        for (Operation *user : llvm::make_early_inc_range(output.getUsers()))
          if (isDeallocation(user))
            user->erase();
        output.replaceAllUsesWith(source);
        allocation.erase();
        break;
      }
    }
  }
};

} // namespace
