//===- SharedStages.h - the stages both backends run ------------*- C++ -*-===//

#ifndef MIXPREC_LIB_PIPELINES_SHAREDSTAGES_H
#define MIXPREC_LIB_PIPELINES_SHAREDSTAGES_H

#include "mlir/Pass/PassManager.h"

namespace mixprec {

/// Linalg on tensors to loops and linalg on buffers, as both backends want
/// them: new state values written over the old ones, one-shot
/// bufferization across function boundaries with the other results made
/// caller-allocated out-parameters (a compiled function never returns
/// memory its caller must free), temporaries freed inside, strided copies
/// made loops, and elementwise results written over their dead inputs.
/// `foldLoopCarriedBuffers` canonicalizes before the results become
/// out-parameters, for loops that carry their output buffer as an iter_arg
/// (tiled code). Without `reuseBuffers`, every result gets a buffer of its
/// own.
void addBufferizationPasses(mlir::OpPassManager &pm,
                            bool foldLoopCarriedBuffers, bool reuseBuffers);

/// Every temporary a function allocates placed in one workspace planned at
/// compile time (offsets a multiple of `alignment`; without `share`, each
/// in bytes of its own), and the plan checked;
/// with `report`, the memory report, a call's tensors counted in multiples
/// of `tensorAlignment`, also as JSON to `reportJson` unless it is empty.
void addMemoryPlanPasses(mlir::OpPassManager &pm, int64_t alignment, bool share,
                         bool report, llvm::StringRef reportJson,
                         int64_t tensorAlignment);

/// The host code's last steps to the LLVM dialect, once its loops are
/// control flow: views become address arithmetic, everything else LLVM, and
/// the unpacking of the memref descriptors the host just built folds away.
void addHostToLLVMPasses(mlir::OpPassManager &pm);

} // namespace mixprec

#endif // MIXPREC_LIB_PIPELINES_SHAREDSTAGES_H
