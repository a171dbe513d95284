//===- MixprecDialect.h - the mixprec dialect -------------------*- C++ -*-===//

#ifndef MIXPREC_DIALECT_MIXPREC_IR_MIXPRECDIALECT_H
#define MIXPREC_DIALECT_MIXPREC_IR_MIXPRECDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "mixprec/Dialect/Mixprec/IR/MixprecDialect.h.inc"

namespace mixprec {
/// Names a function argument or result in a compiled model's ABI: the
/// parameter or buffer it carries (see --mixprec-expose-state).
constexpr llvm::StringLiteral kABINameAttr = "mixprec.abi_name";

/// Pins one op to a precision (f16, bf16 or f32) for --mixprec-autocast.
constexpr llvm::StringLiteral kPrecisionAttr = "mixprec.precision";

/// Set by --mixprec-autocast on every op it decided: the rule that chose the
/// op's precision ("cast: ..." on the casts it inserted, with their reason).
constexpr llvm::StringLiteral kAutocastRuleAttr = "mixprec.autocast";

/// Numbers each op --mixprec-rematerialize cloned, so that CSE keeps it
/// apart from the original and from the other copies.
constexpr llvm::StringLiteral kRecomputedAttr = "mixprec.recomputed";

/// Marks the constant that seeds the reverse sweep with d(loss)/d(loss).
constexpr llvm::StringLiteral kLossSeedAttr = "mixprec.loss_seed";

/// Marks a train-step function: the optimizer's, the only place where
/// parameters are assigned.
constexpr llvm::StringLiteral kOptimizerStepAttr = "mixprec.optimizer_step";

/// On a result of a gradient function: the parameter it is the gradient of.
constexpr llvm::StringLiteral kGradientOfAttr = "mixprec.gradient_of";

/// Marks the hidden result of --mixprec-check-indices: the call's index
/// report, which the model ABI turns into a status.
constexpr llvm::StringLiteral kIndexReportAttr = "mixprec.index_report";

/// On a function with an index report: what each of its checks is (op,
/// location, noun, bound), for the failure's message.
constexpr llvm::StringLiteral kIndexChecksAttr = "mixprec.index_checks";

/// On a bufferized function (--mixprec-results-in-arguments): for each of
/// its original results, the argument whose buffer holds it, or -1; the
/// model ABI's trampoline passes such an output as that argument.
constexpr llvm::StringLiteral kResultsInArgumentsAttr =
    "mixprec.results_in_arguments";

/// --mixprec-plan-memory: records on a function the bytes of its workspace
/// (its last argument, or the allocation marked `mixprec.workspace` in a
/// function the library does not call) and the most bytes its buffers hold
/// at once.
constexpr llvm::StringLiteral kWorkspaceAttr = "mixprec.workspace";
constexpr llvm::StringLiteral kWorkspaceBytesAttr = "mixprec.workspace_bytes";
constexpr llvm::StringLiteral kLiveBytesAttr = "mixprec.live_bytes";
/// On an outlined CPU loop nest whose outer parallel loop runs in chunks
/// (--mixprec-parallel-loop-nests): the loop's extent and the iterations of
/// a chunk, i64 >= 1 each.
constexpr llvm::StringLiteral kParallelExtentAttr = "mixprec.parallel_extent";
constexpr llvm::StringLiteral kParallelChunkAttr = "mixprec.parallel_chunk";
} // namespace mixprec

#endif // MIXPREC_DIALECT_MIXPREC_IR_MIXPRECDIALECT_H
