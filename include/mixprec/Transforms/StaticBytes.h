//===- StaticBytes.h - the bytes a value of a type takes --------*- C++ -*-===//
//
// One measure for the passes that count memory: the recomputation and
// scheduling passes on tensors, the memory plan and report on memrefs.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_TRANSFORMS_STATICBYTES_H
#define MIXPREC_TRANSFORMS_STATICBYTES_H

#include "mlir/IR/Types.h"

#include <optional>

namespace mixprec {

/// Bytes of a tensor or memref type with a static shape of integers or
/// floats (i1 takes a byte, as the backends store it); none for another
/// type.
std::optional<int64_t> staticBytes(mlir::Type type);

} // namespace mixprec

#endif // MIXPREC_TRANSFORMS_STATICBYTES_H
