//===- ModelABI.h - the C ABI of a compiled model ---------------*- C++ -*-===//
//
// What mixprec-compile needs to package lowered code as a model library:
// the signatures of its public functions, the generated C that exposes them
// through mixprec/Runtime/mixprec.h, and the object file.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TARGET_CPU_MODELABI_H
#define MIXPREC_TARGET_CPU_MODELABI_H

#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h"
#include "mixprec/Runtime/mixprec.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mixprec {

struct TensorSpec {
  std::string name;
  mixprec_dtype dtype;
  llvm::SmallVector<int64_t> shape;
};

struct FunctionSignature {
  std::string name;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

/// The signatures of the module's public functions, before lowering. Emits
/// a located error for an argument or result the ABI cannot carry.
llvm::FailureOr<std::vector<FunctionSignature>>
collectSignatures(mlir::ModuleOp module);

/// C source defining the model's function table over the lowered
/// `_mlir_ciface_<name>` entry points.
std::string emitABISource(llvm::ArrayRef<FunctionSignature> functions);

/// A header for users of the compiled model: its functions and tensors.
std::string emitABIHeader(llvm::ArrayRef<FunctionSignature> functions,
                          llvm::StringRef modelName);

/// Translates an LLVM-dialect module to LLVM IR, optimizes it (O3) for
/// `cpu` ("native" for the host) and writes a position-independent object.
mlir::LogicalResult emitObjectFile(mlir::ModuleOp module, llvm::StringRef cpu,
                                   llvm::StringRef path);

/// The LLVM IR of an LLVM-dialect module, optimized as for emitObjectFile.
mlir::FailureOr<std::string> emitLLVMIR(mlir::ModuleOp module,
                                        llvm::StringRef cpu);

} // namespace mixprec

#endif // MIXPREC_TARGET_CPU_MODELABI_H
