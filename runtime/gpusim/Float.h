//===- Float.h - IEEE rounding for the simulator's conversions --*- C++ -*-===//
//
// Conversions between the binary formats PTX uses, in every rounding mode,
// done on the bits: the host's own conversions round to nearest only and
// have no f16 or bf16.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_GPUSIM_FLOAT_H
#define MIXPREC_GPUSIM_FLOAT_H

#include <cstdint>

namespace gpusim {

/// A binary interchange format: exponent and stored-mantissa bits.
struct Format {
  int exponentBits, mantissaBits;
};
constexpr Format kHalf{5, 10}, kBFloat{8, 7}, kSingle{8, 23}, kDouble{11, 52};

enum class Rounding : uint8_t { NearestEven, TowardZero, Down, Up };

/// The canonical NaN PTX produces in `format`: all exponent and mantissa
/// bits set, sign clear (0x7fff for f16 and bf16, 0x7fffffff for f32).
uint64_t canonicalNaN(Format format);

/// Rounds the value of the double `value` (which holds an f16, bf16, f32 or
/// f64 exactly) to `format` in `mode`. NaN gives the canonical NaN;
/// `satfinite` clamps overflow and infinities to the largest finite value.
uint64_t roundDouble(double value, Format format, Rounding mode,
                     bool satfinite = false);

/// Rounds a signed or unsigned 64-bit integer to `format` in `mode`.
uint64_t roundInteger(uint64_t bits, bool isSigned, Format format,
                      Rounding mode);

/// The exact value of `bits` in `format` (every f16, bf16 and f32 value is a
/// double); NaN payloads are kept where they fit.
double toDouble(uint64_t bits, Format format);

/// Whether `bits` in `format` is a NaN, or a subnormal.
bool isNaN(uint64_t bits, Format format);
bool isSubnormal(uint64_t bits, Format format);

/// `bits` with a subnormal replaced by a zero of the same sign (.ftz).
uint64_t flushSubnormal(uint64_t bits, Format format);

inline float bitsToFloat(uint32_t bits) {
  float value;
  __builtin_memcpy(&value, &bits, 4);
  return value;
}
inline uint32_t floatToBits(float value) {
  uint32_t bits;
  __builtin_memcpy(&bits, &value, 4);
  return bits;
}
inline double bitsToDouble(uint64_t bits) {
  double value;
  __builtin_memcpy(&value, &bits, 8);
  return value;
}
inline uint64_t doubleToBits(double value) {
  uint64_t bits;
  __builtin_memcpy(&bits, &value, 8);
  return bits;
}

} // namespace gpusim

#endif // MIXPREC_GPUSIM_FLOAT_H
