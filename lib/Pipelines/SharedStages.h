//===- SharedStages.h - the stages both backends run ------------*- C++ -*-===//

#ifndef MIXPREC_LIB_PIPELINES_SHAREDSTAGES_H
#define MIXPREC_LIB_PIPELINES_SHAREDSTAGES_H

#include "mlir/Pass/PassManager.h"

namespace mixprec {

/// Linalg on tensors to loops and linalg on buffers, as both backends want
/// them: one-shot bufferization across function boundaries with results
/// made caller-allocated out-parameters (a compiled function never returns
/// memory its caller must free), temporaries freed inside, and strided
/// copies made loops. `foldLoopCarriedBuffers` canonicalizes before the
/// results become out-parameters, for loops that carry their output
/// buffer as an iter_arg (tiled code).
void addBufferizationPasses(mlir::OpPassManager &pm,
                            bool foldLoopCarriedBuffers);

/// The host code's last steps to the LLVM dialect, once its loops are
/// control flow: views become address arithmetic, everything else LLVM, and
/// the unpacking of the memref descriptors the host just built folds away.
void addHostToLLVMPasses(mlir::OpPassManager &pm);

} // namespace mixprec

#endif // MIXPREC_LIB_PIPELINES_SHAREDSTAGES_H
