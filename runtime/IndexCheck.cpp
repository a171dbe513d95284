//===- IndexCheck.cpp - the message of a failed index check ---------------===//
//
// Linked into each compiled model: C library only, like the rest of the
// model runtime.
//
//===----------------------------------------------------------------------===//

#include "ModelEntries.h"

#include <cstdio>

namespace {

/// `position` (row-major) as "row 3" for one dimension, "[2, 5]" otherwise.
void describePosition(char *text, size_t size, int64_t position,
                      const mixprec_index_check &check) {
  if (check.rank == 1) {
    std::snprintf(text, size, "row %lld", (long long)position);
    return;
  }
  int64_t at[16];
  int32_t rank = check.rank < 16 ? check.rank : 16;
  for (int32_t dim = check.rank; dim-- > 0;) {
    int64_t size = check.shape[dim] > 0 ? check.shape[dim] : 1;
    if (dim < rank)
      at[dim] = position % size;
    position /= size;
  }
  size_t used = std::snprintf(text, size, "[");
  for (int32_t dim = 0; dim < rank && used < size; ++dim)
    used += std::snprintf(text + used, size - used, dim ? ", %lld" : "%lld",
                          (long long)at[dim]);
  if (used < size)
    std::snprintf(text + used, size - used, "]");
}

} // namespace

extern "C" mixprec_status
mixprec_index_failure(const char *function, const int64_t *report,
                      const mixprec_index_check *checks, int32_t num_checks) {
  int64_t which = report[0];
  if (which < 0)
    return MIXPREC_OK;
  if (which >= num_checks)
    return mixprec_fail(MIXPREC_INTERNAL,
                        "%s: the index report names check %lld of %d", function,
                        (long long)which, num_checks);
  const mixprec_index_check &check = checks[which];
  char position[160];
  describePosition(position, sizeof(position), report[1], check);
  return mixprec_fail(MIXPREC_INVALID_ARGUMENT,
                      "%s: %s %lld at %s is outside [0, %lld) (%s at %s)",
                      function, check.noun, (long long)report[2], position,
                      (long long)check.bound, check.op, check.location);
}
