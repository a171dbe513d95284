//===- OutParameters.h - entry points' results through pointers -*- C++ -*-===//
//
// How an entry point of the model ABI hands back a result: through an
// out-parameter, written only on success, a null one refused with a message
// that names the entry point. C library only, for the model runtime.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_OUTPARAMETERS_H
#define MIXPREC_RUNTIME_OUTPARAMETERS_H

#include "ModelEntries.h"

namespace mixprec::runtime {

/// The failure of `entryPoint` given a null out-parameter for its `what`.
inline mixprec_status noPlaceFor(const char *entryPoint, const char *what) {
  return mixprec_fail(MIXPREC_INVALID_ARGUMENT, "%s: no place for the %s",
                      entryPoint, what);
}

/// Writes `value`, the `what` of `entryPoint`, to `*out`.
template <typename T>
mixprec_status writeOut(const char *entryPoint, const char *what, T *out,
                        T value) {
  if (!out)
    return noPlaceFor(entryPoint, what);
  *out = value;
  return MIXPREC_OK;
}

/// Writes item `index` of the model's `count` items (`what`: "function"),
/// `itemAt(index)`, to `*out`; an index outside them is refused.
template <typename T, typename ItemAt>
mixprec_status writeItemAt(const char *entryPoint, const char *what,
                           int32_t index, int32_t count, T *out,
                           ItemAt itemAt) {
  if (!out)
    return noPlaceFor(entryPoint, what);
  if (index < 0 || index >= count)
    return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                        "no %s at index %d: the model has %d", what, index,
                        count);
  *out = itemAt(index);
  return MIXPREC_OK;
}

} // namespace mixprec::runtime

#endif // MIXPREC_RUNTIME_OUTPARAMETERS_H
