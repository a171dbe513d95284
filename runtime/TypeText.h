//===- TypeText.h - tensor types in messages --------------------*- C++ -*-===//
//
// "f32[64, 784]": how every data error of the runtime and the tools shows
// the type it expected and the one it got. C library only, for the model
// runtime.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_TYPETEXT_H
#define MIXPREC_RUNTIME_TYPETEXT_H

#include "mixprec/Runtime/mixprec.h"

#include <cstddef>

namespace mixprec::runtime {

/// Marks a dim 0 that is any number of rows; see formatType.
constexpr int64_t kNoRows = -1;

/// Writes the type of a tensor to `buffer` (at most `size` bytes, always
/// terminated): "f32[2, 3]", "f32[]" for a scalar, "dtype 42[2]" for a dtype
/// outside the ABI, "f32 of rank -1" for a rank below 0 and "f32 of rank 2
/// without a shape" for a missing shape. Dim 0 reads "<rows> (rows)" when
/// `rows` is not kNoRows. Returns `buffer`.
const char *formatType(char *buffer, size_t size, int dtype, int32_t rank,
                       const int64_t *shape, int64_t rows = kNoRows);

/// A buffer that fits the type of any tensor of up to 16 dims.
constexpr size_t kTypeTextSize = 400;

} // namespace mixprec::runtime

#endif // MIXPREC_RUNTIME_TYPETEXT_H
