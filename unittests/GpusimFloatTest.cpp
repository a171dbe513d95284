//===- GpusimFloatTest.cpp - the simulator's conversions (gpusim/Float) ---===//
//
// f32 to f16 and bf16, f64 to f32 and integers to every format, in each of
// the four IEEE rounding modes: exact ties to even, overflow to infinity or
// to the largest finite value per mode and sign, .satfinite, the subnormal
// ranges and underflow per mode, signed zeros and NaN to the canonical NaN.
// Every expected value is a bit pattern worked out by hand from IEEE 754
// and the PTX ISA.
//
//===----------------------------------------------------------------------===//

#include "Float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

using gpusim::Format;
using gpusim::kBFloat;
using gpusim::kDouble;
using gpusim::kHalf;
using gpusim::kSingle;
using gpusim::Rounding;

namespace {

constexpr Rounding kModes[4] = {Rounding::NearestEven, Rounding::TowardZero,
                                Rounding::Down, Rounding::Up};
constexpr const char *kModeNames[4] = {"rn", "rz", "rm", "rp"};

std::string hex(uint64_t bits) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", (unsigned long long)bits);
  return text;
}

/// A value and what it rounds to in rn, rz, rm and rp.
struct Rounded {
  double value;
  uint64_t expected[4];
};

void expectRoundDouble(Format format, const std::vector<Rounded> &cases) {
  for (const Rounded &each : cases)
    for (int mode = 0; mode < 4; ++mode)
      EXPECT_EQ(hex(gpusim::roundDouble(each.value, format, kModes[mode])),
                hex(each.expected[mode]))
          << "value " << std::hexfloat << each.value << " ("
          << std::defaultfloat << each.value << "), mode " << kModeNames[mode];
}

/// An integer (its 64 bits, signed or not) and its roundings.
struct RoundedInteger {
  uint64_t bits;
  bool isSigned;
  uint64_t expected[4];
};

void expectRoundInteger(Format format,
                        const std::vector<RoundedInteger> &cases) {
  for (const RoundedInteger &each : cases)
    for (int mode = 0; mode < 4; ++mode)
      EXPECT_EQ(hex(gpusim::roundInteger(each.bits, each.isSigned, format,
                                         kModes[mode])),
                hex(each.expected[mode]))
          << (each.isSigned ? "signed " : "unsigned ") << hex(each.bits)
          << ", mode " << kModeNames[mode];
}

double single(uint32_t bits) { return gpusim::bitsToFloat(bits); }

TEST(GpusimFloatTest, SingleToHalfInEveryMode) {
  expectRoundDouble(
      kHalf,
      {
          {1.0, {0x3c00, 0x3c00, 0x3c00, 0x3c00}},
          // 1 + 2^-11: halfway between 0x3c00 and 0x3c01, even below.
          {0x1.002p+0, {0x3c00, 0x3c00, 0x3c00, 0x3c01}},
          // 1 + 3 * 2^-11: halfway between 0x3c01 and 0x3c02, even above.
          {0x1.006p+0, {0x3c02, 0x3c01, 0x3c01, 0x3c02}},
          {-0x1.002p+0, {0xbc00, 0xbc00, 0xbc01, 0xbc00}},
          {-0x1.006p+0, {0xbc02, 0xbc01, 0xbc02, 0xbc01}},
          // Just above and just below the halfway point.
          {0x1.00201p+0, {0x3c01, 0x3c00, 0x3c00, 0x3c01}},
          {0x1.001ffep+0, {0x3c00, 0x3c00, 0x3c00, 0x3c01}},
          {0.1f, {0x2e66, 0x2e66, 0x2e66, 0x2e67}},
          {-0.0, {0x8000, 0x8000, 0x8000, 0x8000}},
          {0.0, {0x0000, 0x0000, 0x0000, 0x0000}},
      });
}

TEST(GpusimFloatTest, SingleToHalfOverflow) {
  expectRoundDouble(
      kHalf, {
                 // 65504 is the largest finite f16; 65520 is halfway to 2^16.
                 {65504.0, {0x7bff, 0x7bff, 0x7bff, 0x7bff}},
                 {65519.0, {0x7bff, 0x7bff, 0x7bff, 0x7c00}},
                 {65520.0, {0x7c00, 0x7bff, 0x7bff, 0x7c00}},
                 {1e5, {0x7c00, 0x7bff, 0x7bff, 0x7c00}},
                 {-1e5, {0xfc00, 0xfbff, 0xfc00, 0xfbff}},
                 {single(0x7f7fffff), {0x7c00, 0x7bff, 0x7bff, 0x7c00}},
                 // Infinities are exact in every mode.
                 {INFINITY, {0x7c00, 0x7c00, 0x7c00, 0x7c00}},
                 {-INFINITY, {0xfc00, 0xfc00, 0xfc00, 0xfc00}},
             });
}

TEST(GpusimFloatTest, SingleToHalfSubnormalsAndUnderflow) {
  expectRoundDouble(
      kHalf,
      {
          {0x1p-14, {0x0400, 0x0400, 0x0400, 0x0400}},     // smallest normal
          {0x1p-24, {0x0001, 0x0001, 0x0001, 0x0001}},     // smallest subnormal
          {0x1.ff8p-15, {0x03ff, 0x03ff, 0x03ff, 0x03ff}}, // largest one
          // 2^-25: halfway between 0 and the smallest subnormal.
          {0x1p-25, {0x0000, 0x0000, 0x0000, 0x0001}},
          {-0x1p-25, {0x8000, 0x8000, 0x8001, 0x8000}},
          // 3/4 and 3/2 of the smallest subnormal.
          {0x1.8p-25, {0x0001, 0x0000, 0x0000, 0x0001}},
          {0x1.8p-24, {0x0002, 0x0001, 0x0001, 0x0002}},
          // 1023.5 * 2^-24: halfway from the largest subnormal to 2^-14.
          {0x1.ffcp-15, {0x0400, 0x03ff, 0x03ff, 0x0400}},
          {0x1p-30, {0x0000, 0x0000, 0x0000, 0x0001}},
          {-0x1p-30, {0x8000, 0x8000, 0x8001, 0x8000}},
          {0x1p-149, {0x0000, 0x0000, 0x0000, 0x0001}},
          {-0x1p-149, {0x8000, 0x8000, 0x8001, 0x8000}},
      });
}

TEST(GpusimFloatTest, SingleToBFloatInEveryMode) {
  expectRoundDouble(
      kBFloat,
      {
          {1.0, {0x3f80, 0x3f80, 0x3f80, 0x3f80}},
          // 1 + 2^-8 and 1 + 3 * 2^-8: ties, to even.
          {0x1.01p+0, {0x3f80, 0x3f80, 0x3f80, 0x3f81}},
          {0x1.03p+0, {0x3f82, 0x3f81, 0x3f81, 0x3f82}},
          {-0x1.01p+0, {0xbf80, 0xbf80, 0xbf81, 0xbf80}},
          {-0x1.03p+0, {0xbf82, 0xbf81, 0xbf82, 0xbf81}},
          {0x1.0101p+0, {0x3f81, 0x3f80, 0x3f80, 0x3f81}},
          {-0.0, {0x8000, 0x8000, 0x8000, 0x8000}},
          // Overflow: the largest f32 is above the bf16 rounding boundary,
          // (2 - 2^-8) * 2^127 is exactly on it.
          {0x1.fep+127, {0x7f7f, 0x7f7f, 0x7f7f, 0x7f7f}},
          {0x1.ffp+127, {0x7f80, 0x7f7f, 0x7f7f, 0x7f80}},
          {single(0x7f7fffff), {0x7f80, 0x7f7f, 0x7f7f, 0x7f80}},
          {single(0xff7fffff), {0xff80, 0xff7f, 0xff80, 0xff7f}},
          {-INFINITY, {0xff80, 0xff80, 0xff80, 0xff80}},
          // Subnormals: 2^-133 is the smallest, 2^-126 the smallest normal.
          {0x1p-126, {0x0080, 0x0080, 0x0080, 0x0080}},
          {0x1p-133, {0x0001, 0x0001, 0x0001, 0x0001}},
          {0x1p-134, {0x0000, 0x0000, 0x0000, 0x0001}},
          {0x1.8p-133, {0x0002, 0x0001, 0x0001, 0x0002}},
          {0x1.fcp-127, {0x007f, 0x007f, 0x007f, 0x007f}},
          // The largest f32 subnormal rounds up into the normal range.
          {single(0x007fffff), {0x0080, 0x007f, 0x007f, 0x0080}},
          {single(0x00000001), {0x0000, 0x0000, 0x0000, 0x0001}},
          {single(0x80000001), {0x8000, 0x8000, 0x8001, 0x8000}},
      });
}

TEST(GpusimFloatTest, DoubleToSingleInEveryMode) {
  expectRoundDouble(
      kSingle,
      {
          // 1 + 2^-24 and 1 + 3 * 2^-24: ties, to even.
          {0x1.000001p+0, {0x3f800000, 0x3f800000, 0x3f800000, 0x3f800001}},
          {0x1.000003p+0, {0x3f800002, 0x3f800001, 0x3f800001, 0x3f800002}},
          {0x1.0000010000001p+0,
           {0x3f800001, 0x3f800000, 0x3f800000, 0x3f800001}},
          {-0x1.000001p+0, {0xbf800000, 0xbf800000, 0xbf800001, 0xbf800000}},
          {0.1, {0x3dcccccd, 0x3dcccccc, 0x3dcccccc, 0x3dcccccd}},
          {-0.1, {0xbdcccccd, 0xbdcccccc, 0xbdcccccd, 0xbdcccccc}},
          // Overflow.
          {0x1.ffffffp+127, {0x7f800000, 0x7f7fffff, 0x7f7fffff, 0x7f800000}},
          {1e39, {0x7f800000, 0x7f7fffff, 0x7f7fffff, 0x7f800000}},
          {-1e39, {0xff800000, 0xff7fffff, 0xff800000, 0xff7fffff}},
          {std::numeric_limits<double>::max(),
           {0x7f800000, 0x7f7fffff, 0x7f7fffff, 0x7f800000}},
          // Subnormals and underflow.
          {0x1p-149, {0x00000001, 0x00000001, 0x00000001, 0x00000001}},
          {0x1p-150, {0x00000000, 0x00000000, 0x00000000, 0x00000001}},
          {0x1.8p-149, {0x00000002, 0x00000001, 0x00000001, 0x00000002}},
          {1e-50, {0x00000000, 0x00000000, 0x00000000, 0x00000001}},
          {-1e-50, {0x80000000, 0x80000000, 0x80000001, 0x80000000}},
          // The smallest double, far below half of 2^-149.
          {std::numeric_limits<double>::denorm_min(),
           {0x00000000, 0x00000000, 0x00000000, 0x00000001}},
          {-std::numeric_limits<double>::denorm_min(),
           {0x80000000, 0x80000000, 0x80000001, 0x80000000}},
          {-0.0, {0x80000000, 0x80000000, 0x80000000, 0x80000000}},
      });
}

TEST(GpusimFloatTest, SatfiniteClampsOverflowAndInfinity) {
  using gpusim::roundDouble;
  EXPECT_EQ(hex(roundDouble(1e5, kHalf, Rounding::NearestEven, true)),
            "0x7bff");
  EXPECT_EQ(hex(roundDouble(-1e5, kHalf, Rounding::NearestEven, true)),
            "0xfbff");
  EXPECT_EQ(hex(roundDouble(65520.0, kHalf, Rounding::Up, true)), "0x7bff");
  EXPECT_EQ(hex(roundDouble(INFINITY, kHalf, Rounding::TowardZero, true)),
            "0x7bff");
  EXPECT_EQ(hex(roundDouble(-INFINITY, kHalf, Rounding::NearestEven, true)),
            "0xfbff");
  EXPECT_EQ(hex(roundDouble(1.0, kHalf, Rounding::NearestEven, true)),
            "0x3c00");
  EXPECT_EQ(hex(roundDouble(single(0x7f7fffff), kBFloat, Rounding::NearestEven,
                            true)),
            "0x7f7f");
  EXPECT_EQ(hex(roundDouble(-INFINITY, kBFloat, Rounding::Down, true)),
            "0xff7f");
  EXPECT_EQ(hex(roundDouble(1e39, kSingle, Rounding::NearestEven, true)),
            "0x7f7fffff");
  // NaN stays NaN.
  EXPECT_EQ(hex(roundDouble(NAN, kHalf, Rounding::NearestEven, true)),
            "0x7fff");
}

TEST(GpusimFloatTest, NaNBecomesTheCanonicalNaN) {
  EXPECT_EQ(hex(gpusim::canonicalNaN(kHalf)), "0x7fff");
  EXPECT_EQ(hex(gpusim::canonicalNaN(kBFloat)), "0x7fff");
  EXPECT_EQ(hex(gpusim::canonicalNaN(kSingle)), "0x7fffffff");
  EXPECT_EQ(hex(gpusim::canonicalNaN(kDouble)), "0x7fffffffffffffff");
  // A quiet NaN, a negative one and one with a payload, in every mode.
  const double nans[] = {single(0x7fc00000), single(0xffc00000),
                         single(0x7fa00001),
                         gpusim::bitsToDouble(0xfff0000000000001ull)};
  for (double nan : nans)
    for (int mode = 0; mode < 4; ++mode) {
      EXPECT_EQ(hex(gpusim::roundDouble(nan, kHalf, kModes[mode])), "0x7fff");
      EXPECT_EQ(hex(gpusim::roundDouble(nan, kBFloat, kModes[mode])), "0x7fff");
      EXPECT_EQ(hex(gpusim::roundDouble(nan, kSingle, kModes[mode])),
                "0x7fffffff");
    }
}

TEST(GpusimFloatTest, IntegerToSingle) {
  const uint64_t minus = ~0ull; // -1 as 64 bits
  expectRoundInteger(
      kSingle,
      {
          {16777216, false, {0x4b800000, 0x4b800000, 0x4b800000, 0x4b800000}},
          // 2^24 + 1 and 2^24 + 3: ties, to even.
          {16777217, false, {0x4b800000, 0x4b800000, 0x4b800000, 0x4b800001}},
          {16777219, false, {0x4b800002, 0x4b800001, 0x4b800001, 0x4b800002}},
          {16777217, true, {0x4b800000, 0x4b800000, 0x4b800000, 0x4b800001}},
          {0 - 16777217ull,
           true,
           {0xcb800000, 0xcb800000, 0xcb800001, 0xcb800000}},
          {0 - 16777219ull,
           true,
           {0xcb800002, 0xcb800001, 0xcb800002, 0xcb800001}},
          {minus, true, {0xbf800000, 0xbf800000, 0xbf800000, 0xbf800000}},
          // The same bits unsigned: 2^64 - 1.
          {minus, false, {0x5f800000, 0x5f7fffff, 0x5f7fffff, 0x5f800000}},
          {0x8000000000000000,
           true,
           {0xdf000000, 0xdf000000, 0xdf000000, 0xdf000000}},
          {0x8000000000000000,
           false,
           {0x5f000000, 0x5f000000, 0x5f000000, 0x5f000000}},
          {0xffffffff, false, {0x4f800000, 0x4f7fffff, 0x4f7fffff, 0x4f800000}},
          {0, true, {0x00000000, 0x00000000, 0x00000000, 0x00000000}},
          {0, false, {0x00000000, 0x00000000, 0x00000000, 0x00000000}},
      });
}

TEST(GpusimFloatTest, IntegerToHalfBFloatAndDouble) {
  expectRoundInteger(kHalf,
                     {
                         // 2049: halfway between 2048 and 2050.
                         {2049, false, {0x6800, 0x6800, 0x6800, 0x6801}},
                         {0 - 3ull, true, {0xc200, 0xc200, 0xc200, 0xc200}},
                         {65504, false, {0x7bff, 0x7bff, 0x7bff, 0x7bff}},
                         {65520, false, {0x7c00, 0x7bff, 0x7bff, 0x7c00}},
                         {0 - 70000ull, true, {0xfc00, 0xfbff, 0xfc00, 0xfbff}},
                     });
  expectRoundInteger(kBFloat,
                     {
                         // 257: halfway between 256 and 258.
                         {257, false, {0x4380, 0x4380, 0x4380, 0x4381}},
                         {0 - 257ull, true, {0xc380, 0xc380, 0xc381, 0xc380}},
                     });
  expectRoundInteger(kDouble, {
                                  // 2^53 + 1.
                                  {0x20000000000001,
                                   false,
                                   {0x4340000000000000, 0x4340000000000000,
                                    0x4340000000000000, 0x4340000000000001}},
                                  {0 - 0x20000000000001ull,
                                   true,
                                   {0xc340000000000000, 0xc340000000000000,
                                    0xc340000000000001, 0xc340000000000000}},
                              });
}

void expectExactly(double actual, double expected, const char *what) {
  EXPECT_EQ(hex(gpusim::doubleToBits(actual)),
            hex(gpusim::doubleToBits(expected)))
      << what << ": " << std::hexfloat << actual << " instead of " << expected;
}

TEST(GpusimFloatTest, ToDouble) {
  using gpusim::toDouble;
  expectExactly(toDouble(0x0001, kHalf), 0x1p-24, "f16 0x0001");
  expectExactly(toDouble(0x03ff, kHalf), 0x1.ff8p-15, "f16 0x03ff");
  expectExactly(toDouble(0x8001, kHalf), -0x1p-24, "f16 0x8001");
  expectExactly(toDouble(0x0400, kHalf), 0x1p-14, "f16 0x0400");
  expectExactly(toDouble(0x3555, kHalf), 0x1.554p-2, "f16 0x3555");
  expectExactly(toDouble(0x7bff, kHalf), 65504.0, "f16 0x7bff");
  expectExactly(toDouble(0x7c00, kHalf), INFINITY, "f16 0x7c00");
  expectExactly(toDouble(0xfc00, kHalf), -INFINITY, "f16 0xfc00");
  expectExactly(toDouble(0x8000, kHalf), -0.0, "f16 0x8000");
  EXPECT_TRUE(std::isnan(toDouble(0x7e00, kHalf)));
  EXPECT_TRUE(std::isnan(toDouble(0xfc01, kHalf)));

  expectExactly(toDouble(0x0001, kBFloat), 0x1p-133, "bf16 0x0001");
  expectExactly(toDouble(0x007f, kBFloat), 0x1.fcp-127, "bf16 0x007f");
  expectExactly(toDouble(0x8001, kBFloat), -0x1p-133, "bf16 0x8001");
  expectExactly(toDouble(0x0080, kBFloat), 0x1p-126, "bf16 0x0080");
  expectExactly(toDouble(0x3f80, kBFloat), 1.0, "bf16 0x3f80");
  expectExactly(toDouble(0x7f7f, kBFloat), 0x1.fep+127, "bf16 0x7f7f");
  expectExactly(toDouble(0x7f80, kBFloat), INFINITY, "bf16 0x7f80");
  expectExactly(toDouble(0xff80, kBFloat), -INFINITY, "bf16 0xff80");
  EXPECT_TRUE(std::isnan(toDouble(0x7fc0, kBFloat)));

  expectExactly(toDouble(0x00000001, kSingle), 0x1p-149, "f32 0x00000001");
  expectExactly(toDouble(0x7f7fffff, kSingle), 0x1.fffffep+127,
                "f32 0x7f7fffff");
  expectExactly(toDouble(0x80000000, kSingle), -0.0, "f32 0x80000000");
}

TEST(GpusimFloatTest, ClassifyAndFlush) {
  EXPECT_FALSE(gpusim::isNaN(0x7c00, kHalf));
  EXPECT_TRUE(gpusim::isNaN(0x7c01, kHalf));
  EXPECT_TRUE(gpusim::isNaN(0xfe00, kHalf));
  EXPECT_TRUE(gpusim::isNaN(0x7f800001, kSingle));
  EXPECT_FALSE(gpusim::isNaN(0xff800000, kSingle));
  EXPECT_TRUE(gpusim::isSubnormal(0x03ff, kHalf));
  EXPECT_TRUE(gpusim::isSubnormal(0x8001, kHalf));
  EXPECT_FALSE(gpusim::isSubnormal(0x0400, kHalf));
  EXPECT_FALSE(gpusim::isSubnormal(0x8000, kHalf));
  EXPECT_TRUE(gpusim::isSubnormal(0x007f, kBFloat));
  EXPECT_EQ(hex(gpusim::flushSubnormal(0x8001, kHalf)), "0x8000");
  EXPECT_EQ(hex(gpusim::flushSubnormal(0x0400, kHalf)), "0x400");
  EXPECT_EQ(hex(gpusim::flushSubnormal(0x00000001, kSingle)), "0x0");
  EXPECT_EQ(hex(gpusim::flushSubnormal(0x807fffff, kSingle)), "0x80000000");
  EXPECT_EQ(hex(gpusim::flushSubnormal(0x00800000, kSingle)), "0x800000");
}

/// Every f16 and bf16 value converts to a double and back unchanged in
/// every mode; every NaN comes back as the canonical NaN.
TEST(GpusimFloatTest, SixteenBitValuesRoundTrip) {
  for (Format format : {kHalf, kBFloat}) {
    int failures = 0;
    for (uint32_t bits = 0; bits < 0x10000 && failures < 10; ++bits) {
      double value = gpusim::toDouble(bits, format);
      uint64_t expected = gpusim::isNaN(bits, format) ? 0x7fff : bits;
      for (int mode = 0; mode < 4; ++mode) {
        uint64_t back = gpusim::roundDouble(value, format, kModes[mode]);
        if (back != expected) {
          ++failures;
          ADD_FAILURE() << (format.mantissaBits == 10 ? "f16 " : "bf16 ")
                        << hex(bits) << " comes back as " << hex(back)
                        << " in mode " << kModeNames[mode];
        }
      }
    }
  }
}

} // namespace
