//===- Npy.h - reading and writing .npy files -------------------*- C++ -*-===//
//
// NumPy's .npy format (versions 1.0 to 3.0), little-endian, C order. A tensor
// of mixprec dtype D is stored with NumPy dtype descrFor(D); bf16, which
// NumPy lacks, is stored as its raw bits in '<u2'.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_RUNTIME_NPY_H
#define MIXPREC_RUNTIME_NPY_H

#include "mixprec/Runtime/mixprec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mixprec::npy {

struct Array {
  mixprec_dtype dtype = MIXPREC_F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data; // row-major elements
};

/// The NumPy dtype string that stores `dtype`.
const char *descrFor(mixprec_dtype dtype);

/// The mixprec dtype stored as NumPy's `descr`, if any.
std::optional<mixprec_dtype> dtypeFor(const std::string &descr);

/// Parses a whole .npy file held in memory. On failure returns nothing and
/// sets `error`.
std::optional<Array> parse(const std::vector<uint8_t> &bytes,
                           std::string &error);

/// Reads a .npy file; the error names the file.
std::optional<Array> read(const std::string &path, std::string &error);

/// Serializes `array` as a version 1.0 .npy file.
std::vector<uint8_t> serialize(const Array &array);

/// Writes `array` to `path`; false and `error` on failure.
bool write(const std::string &path, const Array &array, std::string &error);

} // namespace mixprec::npy

#endif // MIXPREC_RUNTIME_NPY_H
