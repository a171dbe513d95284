//===- TypeText.cpp - tensor types in messages ----------------------------===//

#include "TypeText.h"
#include "Dtype.h"

#include <cstdarg>
#include <cstdio>

namespace mixprec::runtime {

namespace {

/// Dims printed before "...": a caller's rank may be anything.
constexpr int32_t kMaxShownDims = 16;

/// Appends to a text that stops growing at its buffer's end.
struct Appender {
  char *buffer;
  size_t size, length = 0;

  __attribute__((format(printf, 2, 3))) void operator()(const char *format,
                                                        ...) {
    if (length + 1 >= size)
      return;
    va_list args;
    va_start(args, format);
    int written = std::vsnprintf(buffer + length, size - length, format, args);
    va_end(args);
    if (written > 0)
      length +=
          size_t(written) < size - length ? size_t(written) : size - length - 1;
  }
};

} // namespace

const char *formatType(char *buffer, size_t size, int dtype, int32_t rank,
                       const int64_t *shape, int64_t rows) {
  if (size == 0)
    return buffer;
  buffer[0] = '\0';
  Appender append{buffer, size};
  const char *name = dtypeName(mixprec_dtype(dtype));
  if (dtypeSize(mixprec_dtype(dtype)) == 0)
    append("dtype %d", dtype);
  else
    append("%s", name);
  if (rank < 0) {
    append(" of rank %d", rank);
    return buffer;
  }
  if (rank > 0 && !shape) {
    append(" of rank %d without a shape", rank);
    return buffer;
  }
  append("[");
  for (int32_t dim = 0; dim < rank; ++dim) {
    if (dim == kMaxShownDims) {
      append(", ... (rank %d)", rank);
      break;
    }
    if (dim == 0 && rows != kNoRows)
      append("%lld (rows)", (long long)rows);
    else
      append("%s%lld", dim ? ", " : "", (long long)shape[dim]);
  }
  append("]");
  return buffer;
}

} // namespace mixprec::runtime
