//===- ExecuteWarp.cpp - warp collectives and tensor cores ---------------===//
//
// ldmatrix, mma.sync and shfl.sync: instructions whose lanes exchange
// values, each needing the whole warp.
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
// Warp collectives
//===----------------------------------------------------------------------===//

void Executor::ldmatrix(const Instruction &in, uint32_t lanes) {
  if (!requireWholeWarp(in, lanes, "ldmatrix"))
    return;
  const Operand &out = in.operands[0];
  unsigned matrices = in.vectorWidth;
  if (out.kind != Operand::Vector || out.count != matrices) {
    raise(kIllegalInstruction, 0, "ldmatrix .x%u needs %u registers", matrices,
          matrices);
    return;
  }
  // Thread 8*i + r gives the address of row r of matrix i.
  uint16_t rows[4][8][8];
  for (unsigned matrix = 0; matrix < matrices; ++matrix) {
    uint64_t addresses[32];
    for (unsigned row = 0; row < 8; ++row) {
      int lane = int(8 * matrix + row);
      uint64_t addr = address(in.operands[1], lane);
      if (addr % 16) {
        raise(kMisalignedAddress, lane,
              "ldmatrix row address 0x%llx is not 16-byte aligned",
              (unsigned long long)addr);
        return;
      }
      if (!load(Space::Shared, lane, addr, 16, rows[matrix][row]))
        return;
      addresses[row] = addr;
    }
    countBankConflicts(addresses, 0xffu, 16);
  }
  // Thread t holds row t/4, columns 2(t%4) and 2(t%4)+1 of each matrix
  // (of its transpose with .trans).
  for (unsigned matrix = 0; matrix < matrices; ++matrix) {
    uint32_t reg = frame->function->vectorRegs[out.first + matrix];
    for (int lane = 0; lane < 32; ++lane) {
      unsigned row = lane / 4, column = 2 * (lane % 4);
      uint16_t low, high;
      if (in.trans) {
        low = rows[matrix][column][row];
        high = rows[matrix][column + 1][row];
      } else {
        low = rows[matrix][row][column];
        high = rows[matrix][row][column + 1];
      }
      if (reg != kNoReg)
        regs[size_t(reg) * 32 + lane] = uint32_t(low) | uint32_t(high) << 16;
    }
  }
}

/// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32: the
/// fragments of PTX ISA 9.7.14.5.8. Each product is exact and the sum runs
/// in k order, each step rounded to f32 (D = fma(A[m][k], B[k][n], D)).
void Executor::mma(const Instruction &in, uint32_t lanes) {
  if (!requireWholeWarp(in, lanes, "mma.sync"))
    return;
  const Operand &d = in.operands[0], &a = in.operands[1], &b = in.operands[2],
                &c = in.operands[3];
  if (d.kind != Operand::Vector || d.count != 4 || a.count != 4 ||
      b.count != 2 || c.count != 4 || a.kind != Operand::Vector ||
      b.kind != Operand::Vector || c.kind != Operand::Vector) {
    raise(kIllegalInstruction, 0,
          "mma.m16n8k16 takes 4 D, 4 A, 2 B and 4 C registers");
    return;
  }
  const std::vector<uint32_t> &vector = frame->function->vectorRegs;
  const float *widen = in.type2 == Type::F16 ? halfToFloat() : nullptr;
  auto reg = [&](const Operand &operand, unsigned i, int lane) -> uint64_t {
    uint32_t r = vector[operand.first + i];
    return r == kNoReg ? 0 : regs[size_t(r) * 32 + lane];
  };
  float A[16][16], B[16][8], C[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    int group = lane >> 2, inGroup = lane % 4;
    for (unsigned i = 0; i < 8; ++i) {
      uint64_t word = reg(a, i / 2, lane);
      uint64_t half = (i & 1) ? word >> 16 & 0xffff : word & 0xffff;
      int row = group + ((i / 2) % 2 ? 8 : 0);
      int column = inGroup * 2 + (i & 1) + (i >= 4 ? 8 : 0);
      A[row][column] = widen ? widen[half] : bitsToFloat(uint32_t(half) << 16);
    }
    for (unsigned i = 0; i < 4; ++i) {
      uint64_t word = reg(b, i / 2, lane);
      uint64_t half = (i & 1) ? word >> 16 & 0xffff : word & 0xffff;
      int row = inGroup * 2 + (i & 1) + (i >= 2 ? 8 : 0);
      B[row][group] = widen ? widen[half] : bitsToFloat(uint32_t(half) << 16);
    }
    for (unsigned i = 0; i < 4; ++i) {
      int row = group + (i >= 2 ? 8 : 0), column = inGroup * 2 + (i & 1);
      C[row][column] = f32(reg(c, i, lane));
    }
  }
  // Each product is exact in double. When every product is also an f32
  // number (always for f16; for bf16 when no magnitude is below 2^-63 or
  // above 2^63), rounding the double sum to f32 is the fma's one rounding
  // (double has more than 2 * 24 + 2 bits) and the loops vectorize;
  // otherwise each step is an fma.
  auto moderate = [](float value) {
    float magnitude = std::fabs(value);
    return magnitude == 0 || (magnitude >= 0x1p-63f && magnitude <= 0x1p63f);
  };
  bool exactInDouble = in.type2 == Type::F16;
  if (!exactInDouble) {
    exactInDouble = true;
    for (int m = 0; m < 16; ++m)
      for (int k = 0; k < 16; ++k)
        exactInDouble &= moderate(A[m][k]);
    for (int k = 0; k < 16; ++k)
      for (int n = 0; n < 8; ++n)
        exactInDouble &= moderate(B[k][n]);
  }
  float D[16][8];
  std::memcpy(D, C, sizeof(D));
  for (int k = 0; k < 16; ++k)
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n)
        D[m][n] =
            exactInDouble
                ? float(double(D[m][n]) + double(A[m][k]) * double(B[k][n]))
                : std::fma(A[m][k], B[k][n], D[m][n]);
  for (int lane = 0; lane < 32; ++lane) {
    int group = lane >> 2, inGroup = lane % 4;
    for (unsigned i = 0; i < 4; ++i) {
      int row = group + (i >= 2 ? 8 : 0), column = inGroup * 2 + (i & 1);
      uint32_t r = vector[d.first + i];
      if (r != kNoReg)
        regs[size_t(r) * 32 + lane] = floatToBits(D[row][column]);
    }
  }
  ++stats.mmaInstructions;
}

void Executor::shuffle(const Instruction &in, uint32_t lanes) {
  // shfl.sync.mode.b32 d[|p], a, b, c, membermask
  unsigned base = in.pairedDestination ? 2 : 1;
  if (in.numOperands != base + 4) {
    raise(kIllegalInstruction, 0, "shfl.sync takes d[|p], a, b, c, mask");
    return;
  }
  int first = __builtin_ctz(lanes);
  auto members = uint32_t(read(in.operands[base + 3], first));
  if (members != lanes) {
    raise(kLaunchFailed, first,
          "shfl.sync membermask 0x%08x but lanes 0x%08x executed it: "
          "divergent collective",
          members, lanes);
    return;
  }
  uint64_t source[32], results[32];
  bool valid[32];
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    source[lane] = read(in.operands[base], lane) & 0xffffffffu;
  }
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    int offset = int(read(in.operands[base + 1], lane) & 31);
    auto c = uint32_t(read(in.operands[base + 2], lane));
    int clamp = int(c & 31), segment = int(c >> 8 & 31);
    int maxLane = (lane & segment) | (clamp & ~segment);
    int minLane = lane & segment;
    int j = lane;
    bool inRange = false;
    switch (in.shflMode) {
    case ShflMode::Up:
      j = lane - offset;
      inRange = j >= maxLane;
      break;
    case ShflMode::Down:
      j = lane + offset;
      inRange = j <= maxLane;
      break;
    case ShflMode::Bfly:
      j = lane ^ offset;
      inRange = j <= maxLane;
      break;
    case ShflMode::Idx:
      j = minLane | (offset & ~segment);
      inRange = j <= maxLane;
      break;
    }
    if (!inRange)
      j = lane;
    if (!(lanes >> j & 1)) {
      raise(kLaunchFailed, lane,
            "shfl.sync reads lane %d, which did not execute it", j);
      return;
    }
    results[lane] = source[j];
    valid[lane] = inRange;
  }
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    write(in.operands[0], lane, results[lane]);
    if (in.pairedDestination)
      write(in.operands[1], lane, valid[lane]);
  }
}

} // namespace gpusim
