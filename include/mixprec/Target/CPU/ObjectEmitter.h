//===- ObjectEmitter.h - LLVM dialect to host object files ------*- C++ -*-===//

#ifndef MIXPREC_TARGET_CPU_OBJECTEMITTER_H
#define MIXPREC_TARGET_CPU_OBJECTEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/Timing.h"

#include <string>
#include <vector>

namespace mixprec {

/// Translates an LLVM-dialect module to LLVM IR, optimizes it (O3) for
/// `cpu` ("native" for the host) and writes position-independent object
/// files into `directory`; returns their paths. Functions marked optnone
/// (the host code, which grows with the model) are generated at O0, whose
/// cost grows linearly with their size; the rest (the loop nests) at O3, in
/// one part per hardware thread (up to 16), all on threads of their own.
/// Each stage is timed under `timing`.
mlir::FailureOr<std::vector<std::string>>
emitObjectFiles(mlir::ModuleOp module, llvm::StringRef cpu,
                llvm::StringRef directory, mlir::TimingScope &timing);

/// The LLVM IR of an LLVM-dialect module, optimized (O3) as one module
/// (emitObjectFiles optimizes the loop nests in parts, apart from the host
/// code, which O3 leaves alone as optnone).
mlir::FailureOr<std::string> emitLLVMIR(mlir::ModuleOp module,
                                        llvm::StringRef cpu,
                                        mlir::TimingScope &timing);

} // namespace mixprec

#endif // MIXPREC_TARGET_CPU_OBJECTEMITTER_H
