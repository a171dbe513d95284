//===- BufferLiveness.h - when a function's buffers are live ----*- C++ -*-===//
//
// The lifetimes that --mixprec-plan-memory packs, that
// --mixprec-verify-memory-plan checks and that --mixprec-memory-report
// reads: positions of ops in program order, and the interval over which a
// buffer or any view of it is used.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_CODEGEN_BUFFERLIVENESS_H
#define MIXPREC_CODEGEN_BUFFERLIVENESS_H

#include "mixprec/Transforms/StaticBytes.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mixprec {

/// Each op of a function numbered in a pre-order walk: `begin` is the op's
/// own number and `end` the last number inside its regions (its own for an
/// op without regions). An op nested in another lies within the other's
/// [begin, end].
class ProgramOrder {
public:
  explicit ProgramOrder(mlir::Operation *function);
  int64_t begin(mlir::Operation *op) const { return positions.at(op).first; }
  int64_t end(mlir::Operation *op) const { return positions.at(op).second; }

private:
  llvm::DenseMap<mlir::Operation *, std::pair<int64_t, int64_t>> positions;
};

/// The positions [begin, end] over which a buffer is live.
struct LiveRange {
  int64_t begin, end;
  bool overlaps(const LiveRange &other) const {
    return begin <= other.end && other.begin <= end;
  }
};

/// The live range of `buffer`, a memref defined by an op in some block B:
/// from its definition to its last use, where a use is a use of `buffer` or
/// of any memref an op derives from it (views, casts, any memref result of
/// an op that takes it), and a use nested in an op of B counts at the end
/// of that op (through a loop, to the loop's end). Uses for which `ignore`
/// holds do not count. None when the buffer or a memref derived from it
/// leaves B: it is returned, yielded, or an operand of an op with regions.
std::optional<LiveRange>
liveRange(mlir::Value buffer, const ProgramOrder &order,
          llvm::function_ref<bool(mlir::Operation *)> ignore = nullptr);

/// The workspace --mixprec-plan-memory gave `function`: its allocation
/// marked `mixprec.workspace`, else its last argument when it records a
/// plan (`mixprec.workspace_bytes`); null without one.
mlir::Value plannedWorkspace(mlir::Operation *function);

} // namespace mixprec

#endif // MIXPREC_CODEGEN_BUFFERLIVENESS_H
