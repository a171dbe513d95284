//===- Dtype.cpp - element types of the model ABI -------------------------===//
//
// Shared by the model runtime and the host tools; C library only.
//
//===----------------------------------------------------------------------===//

#include "Dtype.h"

namespace mixprec {

size_t dtypeSize(mixprec_dtype dtype) {
  switch (dtype) {
  case MIXPREC_F32:
  case MIXPREC_I32:
    return 4;
  case MIXPREC_F16:
  case MIXPREC_BF16:
    return 2;
  case MIXPREC_I64:
    return 8;
  case MIXPREC_BOOL:
    return 1;
  }
  return 0;
}

const char *dtypeName(mixprec_dtype dtype) {
  switch (dtype) {
  case MIXPREC_F32:
    return "f32";
  case MIXPREC_F16:
    return "f16";
  case MIXPREC_BF16:
    return "bf16";
  case MIXPREC_I32:
    return "i32";
  case MIXPREC_I64:
    return "i64";
  case MIXPREC_BOOL:
    return "bool";
  }
  return "unknown";
}

} // namespace mixprec
