//===- Passes.h - bufferized code to loops and kernels ----------*- C++ -*-===//

#ifndef MIXPREC_CODEGEN_PASSES_H
#define MIXPREC_CODEGEN_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mixprec {

#define GEN_PASS_DECL
#include "mixprec/Codegen/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mixprec/Codegen/Passes.h.inc"

} // namespace mixprec

#endif // MIXPREC_CODEGEN_PASSES_H
