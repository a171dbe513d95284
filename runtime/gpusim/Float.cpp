//===- Float.cpp - IEEE rounding for the simulator's conversions ----------===//

#include "Float.h"

#include <cmath>

namespace gpusim {

namespace {

uint64_t lowBits(int count) {
  return count >= 64 ? ~0ull : (1ull << count) - 1;
}

int bias(Format format) { return (1 << (format.exponentBits - 1)) - 1; }

uint64_t largestFinite(bool negative, Format format) {
  uint64_t exponentAllOnes = lowBits(format.exponentBits);
  return uint64_t(negative) << (format.exponentBits + format.mantissaBits) |
         (exponentAllOnes - 1) << format.mantissaBits |
         lowBits(format.mantissaBits);
}

uint64_t infinity(bool negative, Format format) {
  return uint64_t(negative) << (format.exponentBits + format.mantissaBits) |
         lowBits(format.exponentBits) << format.mantissaBits;
}

/// Rounds (-1)^negative * significand * 2^exponent, significand > 0.
uint64_t roundExact(bool negative, uint64_t significand, int exponent,
                    Format format, Rounding mode, bool satfinite) {
  const int mantissaBits = format.mantissaBits;
  const int minExponent = 1 - bias(format);
  int top = 63 - __builtin_clzll(significand) + exponent;
  int quantum = (top > minExponent ? top : minExponent) - mantissaBits;
  int shift = quantum - exponent;
  uint64_t units;
  if (shift <= 0) {
    units = significand << -shift;
  } else {
    units = shift >= 64 ? 0 : significand >> shift;
    uint64_t rest = shift >= 64 ? significand : significand & lowBits(shift);
    bool inexact = rest != 0;
    bool increment = false;
    switch (mode) {
    case Rounding::NearestEven: {
      // Compare the rest with half a unit without overflowing.
      if (shift > 64) {
        increment = false;
      } else {
        uint64_t half = 1ull << (shift - 1);
        increment = rest > half || (rest == half && (units & 1));
      }
      break;
    }
    case Rounding::TowardZero:
      break;
    case Rounding::Down:
      increment = negative && inexact;
      break;
    case Rounding::Up:
      increment = !negative && inexact;
      break;
    }
    units += increment;
  }
  if (units >> (mantissaBits + 1)) {
    units >>= 1;
    ++quantum;
  }
  uint64_t biased = units >> mantissaBits
                        ? uint64_t(quantum + mantissaBits + bias(format))
                        : 0;
  if (biased >= lowBits(format.exponentBits)) {
    if (satfinite)
      return largestFinite(negative, format);
    bool toInfinity = mode == Rounding::NearestEven ||
                      (mode == Rounding::Up && !negative) ||
                      (mode == Rounding::Down && negative);
    return toInfinity ? infinity(negative, format)
                      : largestFinite(negative, format);
  }
  return uint64_t(negative) << (format.exponentBits + mantissaBits) |
         biased << mantissaBits | (units & lowBits(mantissaBits));
}

} // namespace

uint64_t canonicalNaN(Format format) {
  return lowBits(format.exponentBits + format.mantissaBits);
}

uint64_t roundDouble(double value, Format format, Rounding mode,
                     bool satfinite) {
  if (std::isnan(value))
    return canonicalNaN(format);
  bool negative = std::signbit(value);
  if (std::isinf(value))
    return satfinite ? largestFinite(negative, format)
                     : infinity(negative, format);
  if (value == 0)
    return uint64_t(negative) << (format.exponentBits + format.mantissaBits);
  int exponent;
  double fraction = std::frexp(std::fabs(value), &exponent);
  // fraction * 2^53 is an integer: the double's significand.
  auto significand = uint64_t(std::ldexp(fraction, 53));
  return roundExact(negative, significand, exponent - 53, format, mode,
                    satfinite);
}

uint64_t roundInteger(uint64_t bits, bool isSigned, Format format,
                      Rounding mode) {
  bool negative = isSigned && int64_t(bits) < 0;
  uint64_t magnitude = negative ? 0 - bits : bits;
  if (magnitude == 0)
    return 0;
  return roundExact(negative, magnitude, 0, format, mode, false);
}

double toDouble(uint64_t bits, Format format) {
  if (format.exponentBits == kDouble.exponentBits)
    return bitsToDouble(bits);
  const int mantissaBits = format.mantissaBits;
  bool negative = bits >> (format.exponentBits + mantissaBits) & 1;
  uint64_t biased = bits >> mantissaBits & lowBits(format.exponentBits);
  uint64_t mantissa = bits & lowBits(mantissaBits);
  double value;
  if (biased == lowBits(format.exponentBits)) {
    if (mantissa == 0)
      return negative ? -INFINITY : INFINITY;
    // A NaN: keep the payload's top bits, quiet.
    uint64_t payload = mantissa << (52 - mantissaBits);
    return bitsToDouble(uint64_t(negative) << 63 | 0x7ffull << 52 | 1ull << 51 |
                        payload);
  }
  if (biased == 0)
    value = std::ldexp(double(mantissa), 1 - bias(format) - mantissaBits);
  else
    value = std::ldexp(double(mantissa | 1ull << mantissaBits),
                       int(biased) - bias(format) - mantissaBits);
  return negative ? -value : value;
}

bool isNaN(uint64_t bits, Format format) {
  uint64_t biased = bits >> format.mantissaBits & lowBits(format.exponentBits);
  return biased == lowBits(format.exponentBits) &&
         (bits & lowBits(format.mantissaBits));
}

bool isSubnormal(uint64_t bits, Format format) {
  uint64_t biased = bits >> format.mantissaBits & lowBits(format.exponentBits);
  return biased == 0 && (bits & lowBits(format.mantissaBits));
}

uint64_t flushSubnormal(uint64_t bits, Format format) {
  if (!isSubnormal(bits, format))
    return bits;
  return bits & 1ull << (format.exponentBits + format.mantissaBits);
}

} // namespace gpusim
