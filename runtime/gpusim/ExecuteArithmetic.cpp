//===- ExecuteArithmetic.cpp - moves, integer and float arithmetic -------===//
//
// Every arithmetic instruction, lane by lane, bit-exact in every rounding
// mode (Float.cpp rounds what the host cannot).
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gpusim {

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

void Executor::move(const Instruction &in, uint32_t lanes) {
  const Operand &d = in.operands[0], &a = in.operands[1];
  const std::vector<uint32_t> &vector = frame->function->vectorRegs;
  unsigned bytes = typeBytes(in.type);
  if (a.kind == Operand::Vector) { // pack: the first register is lowest
    unsigned piece = bytes / a.count;
    for (uint32_t m = lanes; m; m &= m - 1) {
      int lane = __builtin_ctz(m);
      uint64_t value = 0;
      for (uint32_t i = 0; i < a.count; ++i) {
        uint32_t r = vector[a.first + i];
        uint64_t part = r == kNoReg ? 0 : regs[size_t(r) * 32 + lane];
        value |= (part & widthMask(piece)) << (8 * piece * i);
      }
      write(d, lane, value);
    }
    return;
  }
  if (d.kind == Operand::Vector) { // unpack
    unsigned piece = bytes / d.count;
    for (uint32_t m = lanes; m; m &= m - 1) {
      int lane = __builtin_ctz(m);
      uint64_t value = read(a, lane);
      for (uint32_t i = 0; i < d.count; ++i) {
        uint32_t r = vector[d.first + i];
        if (r != kNoReg)
          regs[size_t(r) * 32 + lane] =
              value >> (8 * piece * i) & widthMask(piece);
      }
    }
    return;
  }
  uint64_t mask = in.type == Type::Pred ? 1 : widthMask(bytes);
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    write(d, lane, read(a, lane) & mask);
  }
}

void Executor::integerOp(const Instruction &in, uint32_t lanes) {
  const unsigned bytes = typeBytes(in.type);
  const bool sign = isSigned(in.type);
  const uint64_t mask = widthMask(bytes);
  const unsigned bits = 8 * bytes;
  const Operand &d = in.operands[0], &x = in.operands[1], &y = in.operands[2],
                &z = in.operands[3];
  // One loop per operation: the switch stays out of the lane loop.
  auto each = [&](uint64_t resultMask, auto &&compute) {
    for (uint32_t m = lanes; m; m &= m - 1) {
      int lane = __builtin_ctz(m);
      write(d, lane, compute(lane) & resultMask);
    }
  };
  auto a = [&](int lane) { return read(x, lane) & mask; };
  auto b = [&](int lane) { return read(y, lane) & mask; };
  auto sa = [&](int lane) { return signExtend(read(x, lane), bytes); };
  auto sb = [&](int lane) { return signExtend(read(y, lane), bytes); };
  auto product = [&](int lane) -> unsigned __int128 {
    return sign ? (unsigned __int128)((__int128)sa(lane) * sb(lane))
                : (unsigned __int128)a(lane) * b(lane);
  };
  switch (in.op) {
  case Op::Add:
    if (in.sat) { // add.sat.s32
      int64_t high = int64_t(mask >> 1), low = -high - 1;
      each(mask, [&](int lane) {
        return uint64_t(std::min(std::max(sa(lane) + sb(lane), low), high));
      });
    } else {
      each(mask, [&](int lane) { return a(lane) + b(lane); });
    }
    return;
  case Op::Sub:
    if (in.sat) { // sub.sat.s32
      int64_t high = int64_t(mask >> 1), low = -high - 1;
      each(mask, [&](int lane) {
        return uint64_t(std::min(std::max(sa(lane) - sb(lane), low), high));
      });
    } else {
      each(mask, [&](int lane) { return a(lane) - b(lane); });
    }
    return;
  case Op::Mul:
  case Op::Mad: {
    bool add = in.op == Op::Mad;
    auto addend = [&](int lane) { return add ? read(z, lane) : 0; };
    if (in.mulMode == MulMode::Hi && in.sat) { // mad.hi.sat.s32
      int64_t high = int64_t(mask >> 1), low = -high - 1;
      each(mask, [&](int lane) {
        int64_t top = int64_t(__int128(sa(lane)) * sb(lane) >> bits);
        int64_t sum = top + signExtend(read(z, lane), bytes);
        return uint64_t(std::min(std::max(sum, low), high));
      });
    } else if (in.mulMode == MulMode::Hi)
      each(mask, [&](int lane) {
        return uint64_t(product(lane) >> bits) + addend(lane);
      });
    else if (in.mulMode == MulMode::Wide)
      each(widthMask(2 * bytes),
           [&](int lane) { return uint64_t(product(lane)) + addend(lane); });
    else if (bytes <= 4 && !sign) // the common case, without 128 bits
      each(mask, [&](int lane) { return a(lane) * b(lane) + addend(lane); });
    else
      each(mask,
           [&](int lane) { return uint64_t(product(lane)) + addend(lane); });
    return;
  }
  case Op::Div:
    each(mask, [&](int lane) -> uint64_t {
      if (b(lane) == 0)
        return ~0ull;
      if (!sign)
        return a(lane) / b(lane);
      // The one overflowing quotient, INT_MIN / -1, is INT_MIN.
      if (sa(lane) == -int64_t(mask >> 1) - 1 && sb(lane) == -1)
        return a(lane);
      return uint64_t(sa(lane) / sb(lane));
    });
    return;
  case Op::Rem:
    each(mask, [&](int lane) -> uint64_t {
      if (b(lane) == 0)
        return a(lane);
      if (!sign)
        return a(lane) % b(lane);
      return sb(lane) == -1 ? 0 : uint64_t(sa(lane) % sb(lane));
    });
    return;
  case Op::Min:
    each(mask, [&](int lane) {
      return sign ? uint64_t(std::min(sa(lane), sb(lane)))
                  : std::min(a(lane), b(lane));
    });
    return;
  case Op::Max:
    each(mask, [&](int lane) {
      return sign ? uint64_t(std::max(sa(lane), sb(lane)))
                  : std::max(a(lane), b(lane));
    });
    return;
  case Op::Neg:
    each(mask, [&](int lane) { return 0 - a(lane); });
    return;
  case Op::Abs:
    each(mask, [&](int lane) { return sa(lane) < 0 ? 0 - a(lane) : a(lane); });
    return;
  case Op::And:
    each(mask, [&](int lane) { return a(lane) & b(lane); });
    return;
  case Op::Or:
    each(mask, [&](int lane) { return a(lane) | b(lane); });
    return;
  case Op::Xor:
    each(mask, [&](int lane) { return a(lane) ^ b(lane); });
    return;
  case Op::Not:
    each(mask, [&](int lane) { return ~a(lane); });
    return;
  case Op::Shl:
    each(mask, [&](int lane) -> uint64_t {
      uint64_t amount = read(y, lane) & 0xffffffffu;
      return amount >= bits ? 0 : a(lane) << amount;
    });
    return;
  case Op::Shr:
    each(mask, [&](int lane) -> uint64_t {
      uint64_t amount = read(y, lane) & 0xffffffffu;
      if (sign)
        return uint64_t(sa(lane) >> std::min<uint64_t>(amount, bits - 1));
      return amount >= bits ? 0 : a(lane) >> amount;
    });
    return;
  case Op::Popc:
    each(0xffffffffu,
         [&](int lane) { return uint64_t(__builtin_popcountll(a(lane))); });
    return;
  case Op::Clz:
    each(0xffffffffu, [&](int lane) -> uint64_t {
      uint64_t value = a(lane);
      return value == 0 ? bits : uint64_t(__builtin_clzll(value) - (64 - bits));
    });
    return;
  case Op::Brev:
    each(mask, [&](int lane) {
      uint64_t value = a(lane), reversed = 0;
      for (unsigned i = 0; i < bits; ++i)
        reversed |= (value >> i & 1) << (bits - 1 - i);
      return reversed;
    });
    return;
  case Op::Bfe:
    // Bits [position, position + length) of a, sign-extended for .s types.
    each(mask, [&](int lane) -> uint64_t {
      uint64_t value = a(lane);
      unsigned position = unsigned(read(y, lane) & 0xff);
      unsigned length = unsigned(read(z, lane) & 0xff);
      if (!length)
        return 0;
      uint64_t signBit =
          sign ? value >> std::min(position + length - 1, bits - 1) & 1 : 0;
      uint64_t result = 0;
      for (unsigned i = 0; i < bits; ++i) {
        uint64_t bit = (i < length && position + i < bits)
                           ? value >> (position + i) & 1
                           : signBit;
        result |= bit << i;
      }
      return result;
    });
    return;
  case Op::Prmt:
    // Result byte i is byte (c >> 4i) & 7 of the pair {b, a} (a's bytes
    // 0-3, b's 4-7), or that byte's sign replicated when bit 3 is set.
    each(mask, [&](int lane) -> uint64_t {
      uint64_t pair = b(lane) << 32 | a(lane);
      uint64_t selectors = read(z, lane), result = 0;
      for (unsigned i = 0; i < 4; ++i) {
        unsigned selector = unsigned(selectors >> (4 * i)) & 0xf;
        uint64_t byte = pair >> (8 * (selector & 7)) & 0xff;
        if (selector & 8)
          byte = byte & 0x80 ? 0xff : 0;
        result |= byte << (8 * i);
      }
      return result;
    });
    return;
  default:
    raise(kIllegalInstruction, __builtin_ctz(lanes),
          "this instruction has no integer form");
    return;
  }
}

/// The IEEE operations f32 and f64 share, in the host's current rounding
/// mode (.approx division and reciprocal are correctly rounded); false for
/// any other operation.
template <typename T> bool basicArithmetic(Op op, T a, T b, T c, T &result) {
  switch (op) {
  case Op::Add:
    result = a + b;
    return true;
  case Op::Sub:
    result = a - b;
    return true;
  case Op::Mul:
    result = a * b;
    return true;
  case Op::Fma:
  case Op::Mad:
    result = std::fma(a, b, c);
    return true;
  case Op::Div:
    result = a / b;
    return true;
  case Op::Rcp:
    result = T(1) / a;
    return true;
  case Op::Sqrt:
    result = std::sqrt(a);
    return true;
  default:
    return false;
  }
}

/// PTX min/max: a NaN input yields the other input (both NaN: the canonical
/// NaN), -0 orders below +0; with .NaN any NaN input yields the canonical
/// NaN.
double minMax(double a, double b, bool isMax, bool nanMode, bool &isNaN) {
  isNaN = false;
  bool aNaN = std::isnan(a), bNaN = std::isnan(b);
  if ((aNaN && bNaN) || (nanMode && (aNaN || bNaN))) {
    isNaN = true;
    return 0;
  }
  if (aNaN)
    return b;
  if (bNaN)
    return a;
  if (a == b) { // -0 and +0
    bool aNegative = std::signbit(a);
    return isMax ? (aNegative ? b : a) : (aNegative ? a : b);
  }
  return isMax ? std::max(a, b) : std::min(a, b);
}

void Executor::floatOp(const Instruction &in, uint32_t lanes) {
  const Operand *o = in.operands;
  Type type = in.type;
  Format format = formatOf(type);
  bool ftz = in.ftz && type == Type::F32;
  // .ftz (f32 and f16): subnormal inputs and results become signed zeros.
  bool flush = in.ftz && type != Type::F64;
  HostRounding rounding(hostMode(in.round));
  const uint64_t signBit = 1ull << (format.exponentBits + format.mantissaBits);
  const uint64_t valueMask = (signBit << 1) - 1;
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    uint64_t aBits = read(o[1], lane) & valueMask, bBits = 0, cBits = 0;
    if (in.numOperands > 2)
      bBits = read(o[2], lane) & valueMask;
    if (in.numOperands > 3)
      cBits = read(o[3], lane) & valueMask;
    if (flush) {
      aBits = flushSubnormal(aBits, format);
      bBits = flushSubnormal(bBits, format);
      cBits = flushSubnormal(cBits, format);
    }
    uint64_t result = 0;
    // Sign operations work on the bits.
    if (in.op == Op::Neg || in.op == Op::Abs || in.op == Op::Copysign) {
      if (in.op == Op::Neg)
        result = isNaN(aBits, format) ? aBits : aBits ^ signBit;
      else if (in.op == Op::Abs)
        result = aBits & ~signBit;
      else // copysign d, a, b: b's magnitude with a's sign
        result = ((bBits & valueMask) & ~signBit) | (aBits & signBit);
      write(o[0], lane, result);
      continue;
    }
    if (in.op == Op::Min || in.op == Op::Max) {
      double a = toHost(aBits & valueMask, type),
             b = toHost(bBits & valueMask, type);
      if (ftz) {
        a = flushF32(float(a), true);
        b = flushF32(float(b), true);
      }
      bool nan;
      double r = minMax(a, b, in.op == Op::Max, in.nanMode, nan);
      result = nan ? canonicalNaN(format)
                   : roundDouble(r, format, Rounding::NearestEven);
      write(o[0], lane, flush ? flushSubnormal(result, format) : result);
      continue;
    }
    if (type == Type::F32) {
      float a = flushF32(f32(aBits), ftz), b = flushF32(f32(bBits), ftz),
            c = flushF32(f32(cBits), ftz);
      float r = 0;
      if (!basicArithmetic(in.op, a, b, c, r)) {
        // .approx functions: computed in double, rounded once.
        double x = double(a);
        switch (in.op) {
        case Op::Rsqrt:
          r = float(1.0 / std::sqrt(x));
          break;
        case Op::Ex2:
          r = float(std::exp2(x));
          break;
        case Op::Lg2:
          r = float(std::log2(x));
          break;
        case Op::Sin:
          r = float(std::sin(x));
          break;
        case Op::Cos:
          r = float(std::cos(x));
          break;
        case Op::Tanh:
          r = float(std::tanh(x));
          break;
        default:
          raise(kIllegalInstruction, lane, "this instruction has no f32 form");
          return;
        }
      }
      if (in.sat)
        r = std::isnan(r) ? 0.0f : std::min(std::max(r, 0.0f), 1.0f);
      r = flushF32(r, ftz);
      result = std::isnan(r) ? canonicalNaN(format) : floatToBits(r);
    } else if (type == Type::F64) {
      double a = f64(aBits), b = f64(bBits), c = f64(cBits), r = 0;
      if (!basicArithmetic(in.op, a, b, c, r)) {
        if (in.op != Op::Rsqrt) {
          raise(kIllegalInstruction, lane, "this instruction has no f64 form");
          return;
        }
        r = 1.0 / std::sqrt(a);
      }
      if (in.ftz && std::fpclassify(r) == FP_SUBNORMAL)
        r = std::copysign(0.0, r);
      result = std::isnan(r) ? canonicalNaN(format) : doubleToBits(r);
    } else {
      // f16 and bf16: the exact result rounded to odd in double, then to the
      // format, is the correctly rounded result in every mode.
      double a = toHost(aBits & 0xffff, type), b = toHost(bBits & 0xffff, type),
             c = toHost(cBits & 0xffff, type), r = 0;
      {
        HostRounding truncate(FE_TOWARDZERO);
        std::feclearexcept(FE_INEXACT);
        switch (in.op) {
        case Op::Add:
          r = a + b;
          break;
        case Op::Sub:
          r = a - b;
          break;
        case Op::Mul:
          r = a * b;
          break;
        case Op::Fma:
        case Op::Mad:
          r = std::fma(a, b, c);
          break;
        default:
          raise(kIllegalInstruction, lane,
                "this instruction has no 16-bit form here");
          return;
        }
        if (std::fetestexcept(FE_INEXACT) && std::isfinite(r))
          r = bitsToDouble(doubleToBits(r) | 1);
      }
      if (in.sat)
        r = std::isnan(r) ? 0.0 : std::min(std::max(r, 0.0), 1.0);
      result = roundDouble(r, format, roundingOf(in.round));
    }
    write(o[0], lane, flush ? flushSubnormal(result, format) : result);
  }
}

bool isFloatCompareTrue(Compare compare, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (compare) {
  case Compare::Eq:
    return !unordered && a == b;
  case Compare::Ne:
    return !unordered && a != b;
  case Compare::Lt:
    return !unordered && a < b;
  case Compare::Le:
    return !unordered && a <= b;
  case Compare::Gt:
    return !unordered && a > b;
  case Compare::Ge:
    return !unordered && a >= b;
  case Compare::Equ:
    return unordered || a == b;
  case Compare::Neu:
    return unordered || a != b;
  case Compare::Ltu:
    return unordered || a < b;
  case Compare::Leu:
    return unordered || a <= b;
  case Compare::Gtu:
    return unordered || a > b;
  case Compare::Geu:
    return unordered || a >= b;
  case Compare::Num:
    return !unordered;
  case Compare::Nan:
    return unordered;
  default:
    return false;
  }
}

void Executor::compare(const Instruction &in, uint32_t lanes) {
  // setp.cmp[.bop].type p[|q], a, b[, c]; selp.type d, a, b, c
  const Operand *o = in.operands;
  Type type = in.type;
  unsigned bytes = typeBytes(type);
  if (in.op == Op::Selp) {
    for (uint32_t m = lanes; m; m &= m - 1) {
      int lane = __builtin_ctz(m);
      bool choose = read(o[3], lane) & 1;
      write(o[0], lane,
            (choose ? read(o[1], lane) : read(o[2], lane)) & widthMask(bytes));
    }
    return;
  }
  unsigned sources = in.pairedDestination ? 2 : 1;
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    uint64_t a = read(o[sources], lane) & widthMask(bytes);
    uint64_t b = read(o[sources + 1], lane) & widthMask(bytes);
    bool result;
    if (isFloat(type)) {
      if (in.ftz && type != Type::F64) {
        a = flushSubnormal(a, formatOf(type));
        b = flushSubnormal(b, formatOf(type));
      }
      result = isFloatCompareTrue(in.compare, toHost(a, type), toHost(b, type));
    } else {
      bool sign = isSigned(type);
      int64_t sa = signExtend(a, bytes), sb = signExtend(b, bytes);
      switch (in.compare) {
      case Compare::Eq:
        result = a == b;
        break;
      case Compare::Ne:
        result = a != b;
        break;
      case Compare::Lt:
        result = sign ? sa < sb : a < b;
        break;
      case Compare::Le:
        result = sign ? sa <= sb : a <= b;
        break;
      case Compare::Gt:
        result = sign ? sa > sb : a > b;
        break;
      case Compare::Ge:
        result = sign ? sa >= sb : a >= b;
        break;
      case Compare::Lo:
        result = a < b;
        break;
      case Compare::Ls:
        result = a <= b;
        break;
      case Compare::Hi:
        result = a > b;
        break;
      case Compare::Hs:
        result = a >= b;
        break;
      default:
        raise(kIllegalInstruction, lane, "an unordered comparison of integers");
        return;
      }
    }
    bool complement = !result;
    if (in.boolOp != BoolOp::None) {
      bool c = read(o[sources + 2], lane) & 1;
      auto combine = [&](bool value) {
        return in.boolOp == BoolOp::And  ? value && c
               : in.boolOp == BoolOp::Or ? value || c
                                         : value != c;
      };
      result = combine(result);
      complement = combine(complement);
    }
    write(o[0], lane, result);
    if (in.pairedDestination)
      write(o[1], lane, complement);
  }
}

/// `value` rounded to an integer as .rni, .rzi, .rmi or .rpi say; any other
/// modifier leaves it, or truncates it when `truncateOtherwise`.
double toInteger(double value, Round round, bool truncateOtherwise) {
  switch (round) {
  case Round::Rni:
    return std::nearbyint(value);
  case Round::Rzi:
    return std::trunc(value);
  case Round::Rmi:
    return std::floor(value);
  case Round::Rpi:
    return std::ceil(value);
  default:
    return truncateOtherwise ? std::trunc(value) : value;
  }
}

void Executor::convert(const Instruction &in, uint32_t lanes) {
  Type to = in.type, from = in.type2;
  // No modifier beyond the rounding: the fast paths below apply.
  bool plain = !in.ftz && !in.sat && !in.satfinite && !in.relu;
  unsigned toBytes = typeBytes(to), fromBytes = typeBytes(from);
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    uint64_t a = read(in.operands[1], lane) & widthMask(fromBytes);
    uint64_t result = 0;
    if (!isFloat(to) && !isFloat(from)) {
      bool fromSigned = isSigned(from), toSigned = isSigned(to);
      int64_t value = fromSigned ? signExtend(a, fromBytes) : int64_t(a);
      if (in.sat) {
        // Clamp to the destination's range.
        unsigned bits = 8 * toBytes;
        if (toSigned) {
          int64_t high =
              bits == 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
          int64_t low = -high - 1;
          if (!fromSigned && a > uint64_t(high))
            value = high;
          else
            value = std::min(std::max(value, low), high);
        } else {
          uint64_t high = widthMask(toBytes);
          if (fromSigned && value < 0)
            value = 0;
          else if (uint64_t(value) > high)
            value = int64_t(high);
        }
      }
      result = uint64_t(value) & widthMask(toBytes);
      // A signed destination narrower than the register is sign-extended.
      if (toSigned)
        result = uint64_t(signExtend(result, toBytes));
    } else if (isFloat(from) && isFloat(to) && plain && to == Type::F32 &&
               (from == Type::F16 || from == Type::BF16)) {
      // Widening is exact (the common case, fast).
      float value =
          from == Type::F16 ? halfToFloat()[a] : bitsToFloat(uint32_t(a) << 16);
      result = std::isnan(value) ? canonicalNaN(kSingle) : floatToBits(value);
    } else if (isFloat(from) && isFloat(to) && plain && from == Type::F32 &&
               to == Type::BF16 && in.round == Round::Rn) {
      // f32 to bf16 to nearest even: the same exponent range, so rounding
      // the low 16 bits is the whole conversion.
      uint32_t bits = uint32_t(a);
      result = isNaN(bits, kSingle) ? canonicalNaN(kBFloat)
                                    : (bits + 0x7fffu + (bits >> 16 & 1)) >> 16;
    } else if (isFloat(from) && isFloat(to)) {
      Format toFormat = formatOf(to);
      double value = toHost(a, from);
      if (in.ftz && from == Type::F32)
        value = flushF32(float(value), true);
      value = toInteger(value, in.round, false);
      if (in.relu && value < 0)
        value = 0;
      // .sat clamps to [0, 1] and makes NaN +0.
      if (in.sat)
        value = std::isnan(value) ? 0.0 : std::min(std::max(value, 0.0), 1.0);
      result = roundDouble(value, toFormat, roundingOf(in.round), in.satfinite);
      if (in.ftz && to == Type::F32)
        result = flushSubnormal(result, toFormat);
    } else if (isFloat(from)) { // float to integer: saturates, NaN is 0
      double value = toHost(a, from);
      if (in.ftz && from == Type::F32)
        value = flushF32(float(value), true);
      value = toInteger(value, in.round, true);
      unsigned bits = 8 * toBytes;
      if (std::isnan(value)) {
        result = 0;
      } else if (isSigned(to)) {
        double high = std::ldexp(1.0, int(bits) - 1);
        int64_t v =
            value >= high
                ? (bits == 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1)
            : value < -high
                ? (bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1)))
                : int64_t(value);
        result = uint64_t(v) & widthMask(toBytes);
      } else {
        double high = std::ldexp(1.0, int(bits));
        uint64_t v = value <= 0      ? 0
                     : value >= high ? widthMask(toBytes)
                                     : uint64_t(value);
        result = v;
      }
    } else { // integer to float
      uint64_t value = isSigned(from) ? uint64_t(signExtend(a, fromBytes)) : a;
      result = roundInteger(value, isSigned(from), formatOf(to),
                            roundingOf(in.round));
      // .sat clamps to [0, 1]: the value is an integer, so 0 or 1 unless
      // it is 0 or 1 already.
      if (in.sat) {
        bool negative = isSigned(from) && int64_t(value) < 0;
        result = roundInteger(negative || value == 0 ? 0 : 1, false,
                              formatOf(to), Rounding::NearestEven);
      }
    }
    write(in.operands[0], lane, result);
  }
}

void Executor::convertAddress(const Instruction &in, uint32_t lanes) {
  uint64_t window = in.space == Space::Shared  ? kSharedWindow
                    : in.space == Space::Local ? kLocalWindow
                                               : 0;
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    uint64_t value = read(in.operands[1], lane);
    write(in.operands[0], lane,
          in.op == Op::Cvta ? value + window : value - window);
  }
}

void Executor::arithmetic(const Instruction &in, uint32_t lanes) {
  if (isFloat(in.type))
    floatOp(in, lanes);
  else
    integerOp(in, lanes);
}

void Executor::logic(const Instruction &in, uint32_t lanes) {
  if (in.type != Type::Pred) {
    integerOp(in, lanes);
    return;
  }
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    bool a = read(in.operands[1], lane) & 1;
    bool b = in.numOperands > 2 && (read(in.operands[2], lane) & 1);
    bool r = in.op == Op::And   ? a && b
             : in.op == Op::Or  ? a || b
             : in.op == Op::Xor ? a != b
                                : !a;
    write(in.operands[0], lane, r);
  }
}

} // namespace gpusim
