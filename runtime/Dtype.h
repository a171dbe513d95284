//===- Dtype.h - element types of the model ABI -----------------*- C++ -*-===//
//
// The sizes and names behind mixprec_dtype_size and mixprec_dtype_name, for
// the model runtime and the host tools, which link this directly. C library
// only.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_DTYPE_H
#define MIXPREC_RUNTIME_DTYPE_H

#include "mixprec/Runtime/mixprec.h"

#include <cstddef>

namespace mixprec {

/// Bytes per element of `dtype`; 0 for a value outside the enum.
size_t dtypeSize(mixprec_dtype dtype);
/// "f32", "bf16", ...; "unknown" for a value outside the enum.
const char *dtypeName(mixprec_dtype dtype);

} // namespace mixprec

#endif // MIXPREC_RUNTIME_DTYPE_H
