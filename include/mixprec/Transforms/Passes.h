//===- Passes.h - mixprec to mixprec transformations ------------*- C++ -*-===//

#ifndef MIXPREC_TRANSFORMS_PASSES_H
#define MIXPREC_TRANSFORMS_PASSES_H

#include "mixprec/Transforms/PassOptions.h"

#include "mlir/Pass/Pass.h"

namespace mixprec {

#define GEN_PASS_DECL
#include "mixprec/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mixprec/Transforms/Passes.h.inc"

} // namespace mixprec

#endif // MIXPREC_TRANSFORMS_PASSES_H
