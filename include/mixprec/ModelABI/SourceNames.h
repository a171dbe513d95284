//===- SourceNames.h - ABI names from the model's source --------*- C++ -*-===//
//
// A model's inputs keep the names its author gave them: `%images` in the
// source is input "images" in the model ABI (the C header, mixprec-run
// --list, every data error, Python), not "arg0".
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_MODELABI_SOURCENAMES_H
#define MIXPREC_MODELABI_SOURCENAMES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/SourceMgr.h"

#include <memory>

namespace mixprec {

/// Parses and verifies the model in `sourceMgr`, as
/// parseSourceFile<ModuleOp>, and sets `mixprec.abi_name` on each argument
/// of a public function that has none to its SSA name in the source
/// (`%images` -> "images"; a number such as `%0` is no name). A name that is
/// the name of the model's state ("rng_state", a parameter or buffer, or
/// one the training passes derive from them or from a train step) is an
/// error: the ABI tells inputs apart by name. Null after a diagnostic.
mlir::OwningOpRef<mlir::ModuleOp>
parseModelWithSourceNames(const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
                          mlir::MLIRContext *context);

} // namespace mixprec

#endif // MIXPREC_MODELABI_SOURCENAMES_H
