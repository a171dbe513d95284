//===- ModelABI.h - the C ABI of a compiled model ---------------*- C++ -*-===//
//
// The model library's ABI, for both backends: the signatures of its public
// functions and its state, and the generated C that exposes them through
// mixprec/Runtime/mixprec.h.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_MODELABI_MODELABI_H
#define MIXPREC_MODELABI_MODELABI_H

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

/// Elements times element size (i1 takes a byte).
size_t bytesOf(const TensorSpec &spec);

/// One check of --mixprec-check-indices: what the failure message says.
struct IndexCheckSpec {
  std::string op, location, noun;
  int64_t bound;
  llvm::SmallVector<int64_t> shape; // of the indices
};

struct FunctionSignature {
  std::string name;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  /// Non-empty when the lowered function has a hidden last result, its
  /// index report (see --mixprec-check-indices).
  std::vector<IndexCheckSpec> indexChecks;
  /// Built by --mixprec-autodiff from a train step: a trainer can drive it.
  bool trainStep = false;
  /// From the lowered function (readLoweredLayout): for each output, the
  /// input whose buffer the compiled code updates to hold it (a state
  /// written in place), or -1 for an output of its own; empty: all -1.
  std::vector<int32_t> outputHomes = {};
  int32_t outputHome(size_t output) const {
    return output < outputHomes.size() ? outputHomes[output] : -1;
  }
  /// The bytes of the workspace the compiled function takes as its last
  /// argument (0: none).
  int64_t workspaceBytes = 0;
};

/// How the runtime fills a state tensor at creation: the declaration's
/// initializer reduced to one of three draws (fans already applied).
struct StateInit {
  enum Kind { Constant = 0, Uniform = 1, Normal = 2 };
  Kind kind = Constant;
  double a = 0.0, b = 0.0; // value | low, high | mean, std
  uint64_t seed = 0;
};

/// A parameter or buffer of the model.
struct StateSpec {
  TensorSpec tensor;
  /// A parameter, a plain buffer, or the buffer's StateRole.
  mixprec_state_role role;
  /// The train step that owns a buffer with a role: the one its name
  /// begins with (`<step>.<rest>`). Empty for no step.
  std::string step;
  StateInit init;
};

/// The signatures of the module's public functions, before lowering. Emits
/// a located error for an argument or result the ABI cannot carry.
llvm::FailureOr<std::vector<FunctionSignature>>
collectSignatures(mlir::ModuleOp module);

/// Reads into `signatures` how each lowered function (LLVM dialect) takes
/// its tensors: the outputs that live in inputs
/// (`mixprec.results_in_arguments`) and its workspace
/// (`mixprec.workspace_bytes`). Emits an error when a function's record is
/// missing or does not match its signature.
llvm::LogicalResult
readLoweredLayout(mlir::ModuleOp lowered,
                  std::vector<FunctionSignature> &signatures);

/// The most bytes a call of `function` holds by its plan: its inputs, its
/// outputs that live in no input (the index report too) and its workspace;
/// on CUDA each rounded up to 256 bytes, as the call's device frame lays
/// them out (runtime/cuda/GpuLaunchRuntime.cpp).
int64_t plannedPeakBytes(const FunctionSignature &function, bool cuda);

/// The model's parameters and buffers in declaration order, read before
/// --mixprec-expose-state removes their declarations. Emits a located error
/// for an initializer the runtime cannot reproduce.
llvm::FailureOr<std::vector<StateSpec>> collectState(mlir::ModuleOp module);

/// The names of the functions that are optimizer steps, read before
/// --mixprec-expose-state drops their mark.
std::vector<std::string> trainStepNames(mlir::ModuleOp module);

/// C source defining the model's function and state tables over the lowered
/// `_mlir_ciface_<name>` entry points. With `cuda`, each function runs on
/// device copies of its tensors that runtime/cuda/CudaModel.h makes and
/// reports the GPU's errors.
std::string emitABISource(llvm::ArrayRef<FunctionSignature> functions,
                          llvm::ArrayRef<StateSpec> state, bool cuda = false);

/// A header for users of the compiled model: its functions and tensors.
std::string emitABIHeader(llvm::ArrayRef<FunctionSignature> functions,
                          llvm::StringRef modelName);

} // namespace mixprec

#endif // MIXPREC_MODELABI_MODELABI_H
