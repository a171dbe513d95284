//===- Executor.h - the simulator's state while it runs a launch -*- C++
//-*-===//
//
// The warp scheduler (Execute.cpp), memory (ExecuteMemory.cpp), warp
// collectives and tensor cores (ExecuteWarp.cpp) and arithmetic
// (ExecuteArithmetic.cpp) share this: the executor of one launch, its
// warps and SIMT stacks, and the helpers they all use.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_GPUSIM_EXECUTOR_H
#define MIXPREC_GPUSIM_EXECUTOR_H

#include "Execute.h"
#include "Float.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace gpusim {

inline constexpr int kIllegalAddress = 700, kHardwareStackError = 714,
                     kIllegalInstruction = 715, kMisalignedAddress = 716,
                     kLaunchFailed = 719;
inline constexpr int kLaunchTimeout = 702;
inline constexpr uint32_t kFullWarp = 0xffffffffu;
// About three minutes of simulation: far more than any mixprec kernel.
inline constexpr uint64_t kDefaultInstructionLimit = 1ull << 31;

inline uint64_t widthMask(unsigned bytes) {
  return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
}
inline int64_t signExtend(uint64_t value, unsigned bytes) {
  unsigned shift = 64 - 8 * bytes;
  return int64_t(value << shift) >> shift;
}

/// memcpy for the sizes accesses have: each a fixed-size copy (a variable
/// size would make the compiler emit a slow `rep movs`).
inline void copyBytes(void *to, const void *from, unsigned bytes) {
  switch (bytes) {
  case 1:
    std::memcpy(to, from, 1);
    return;
  case 2:
    std::memcpy(to, from, 2);
    return;
  case 4:
    std::memcpy(to, from, 4);
    return;
  case 8:
    std::memcpy(to, from, 8);
    return;
  case 16:
    std::memcpy(to, from, 16);
    return;
  default:
    std::memcpy(to, from, bytes);
    return;
  }
}

/// Whether [addr, addr + bytes) lies in `range` (no wrap-around).
inline bool within(const DeviceMemory::Range &range, uint64_t addr,
                   uint64_t bytes) {
  return range.begin && addr >= range.begin && addr <= range.end &&
         bytes <= range.end - addr;
}

/// Whether [addr, addr + bytes) lies in [0, size) (no wrap-around).
inline bool fits(uint64_t addr, uint64_t bytes, uint64_t size) {
  return addr <= size && bytes <= size - addr;
}

inline Format formatOf(Type type) {
  switch (type) {
  case Type::F16:
    return kHalf;
  case Type::BF16:
    return kBFloat;
  case Type::F64:
    return kDouble;
  default:
    return kSingle;
  }
}

inline Rounding roundingOf(Round round) {
  switch (round) {
  case Round::Rz:
  case Round::Rzi:
    return Rounding::TowardZero;
  case Round::Rm:
  case Round::Rmi:
    return Rounding::Down;
  case Round::Rp:
  case Round::Rpi:
    return Rounding::Up;
  default:
    return Rounding::NearestEven;
  }
}

inline int hostMode(Round round) {
  switch (roundingOf(round)) {
  case Rounding::TowardZero:
    return FE_TOWARDZERO;
  case Rounding::Down:
    return FE_DOWNWARD;
  case Rounding::Up:
    return FE_UPWARD;
  default:
    return FE_TONEAREST;
  }
}

/// Sets the host's rounding mode for the lifetime of the object.
/// Only directed modes change it: the simulator runs with round to nearest.
class HostRounding {
public:
  explicit HostRounding(int mode) : changed(mode != FE_TONEAREST) {
    if (changed)
      std::fesetround(mode);
  }
  ~HostRounding() {
    if (changed)
      std::fesetround(FE_TONEAREST);
  }

private:
  bool changed;
};

inline float f32(uint64_t bits) { return bitsToFloat(uint32_t(bits)); }
inline double f64(uint64_t bits) { return bitsToDouble(bits); }

inline float flushF32(float value, bool ftz) {
  if (ftz && std::fpclassify(value) == FP_SUBNORMAL)
    return std::copysign(0.0f, value);
  return value;
}

/// A 16-bit or wider float value as a double (exact).
inline double toHost(uint64_t bits, Type type) {
  return type == Type::F64 ? f64(bits) : toDouble(bits, formatOf(type));
}

/// Every f16 value as a float (exact), for mma's fragments.
inline const float *halfToFloat() {
  static const std::vector<float> table = [] {
    std::vector<float> values(65536);
    for (uint32_t bits = 0; bits < 65536; ++bits)
      values[bits] = float(toDouble(bits, kHalf));
    return values;
  }();
  return table.data();
}

struct Entry {
  uint32_t pc, reconverge, mask;
  // Lanes run ahead of a barrier the rest of the warp waits at, to see
  // whether they exit first (an early return before __syncthreads).
  bool runAhead = false;
};

/// A reconvergence point no code reaches: run-ahead lanes go on until they
/// exit.
inline constexpr uint32_t kNever = ~0u;

struct Frame {
  const Function *function;
  size_t registerBase;
  uint32_t frameBase, localBase;
  std::vector<Entry> stack;
  const Instruction *call; // the caller's call, for its results
  uint32_t callMask;
};

struct PendingCopy {
  uint32_t shared;
  uint8_t bytes;
  uint8_t data[16];
  uint32_t group; // ~0u until committed
};

struct Warp {
  uint32_t index = 0, alive = 0;
  enum State { Running, AtBarrier, Done } state = Running;
  std::vector<uint64_t> registers;
  std::vector<Frame> frames;
  std::vector<uint8_t> frameMemory[32], localMemory[32];
  uint32_t tid[3][32];
  uint64_t fullWarpInstructions = 0, laneInstructions[32];
  std::vector<PendingCopy> pending[32];
  uint32_t groups[32];
  // The barrier lanes waitingLanes wait at while others run ahead.
  uint32_t barrierPc = 0, waitingLanes = 0;
};

/// Per shared byte: who touched it in the current barrier interval, and
/// whether anything wrote it in the current block.
struct Shadow {
  uint32_t interval = 0, writtenInBlock = 0;
  // The first two threads that read it.
  int16_t writer = -1, reader = -1, secondReader = -1;
  bool severalReaders = false;
};

/// What an instruction may touch (Opcodes.def).
enum class Reach { Lane, Others };

/// Whether `op` reaches memory or other threads: what lanes that run ahead
/// of a barrier must not do.
inline bool touchesOthers(Op op) {
  switch (op) {
#define OPCODE(name, text, handler, reach)                                     \
  case Op::name:                                                               \
    return Reach::reach == Reach::Others;
#include "Opcodes.def"
  }
  return true;
}

class Executor {
public:
  Executor(const Module &module, const Function &kernel,
           const LaunchConfig &config, DeviceMemory &memory, KernelStats &stats,
           Fault &fault)
      : module(module), kernel(kernel), config(config), memory(memory),
        stats(stats), fault(fault) {}

  void run();

private:
  const Module &module;
  const Function &kernel;
  const LaunchConfig &config;
  DeviceMemory &memory;
  KernelStats &stats;
  Fault &fault;

  uint32_t ctaid[3] = {0, 0, 0};
  uint32_t blockThreads = 0;
  std::vector<uint8_t> shared;
  std::vector<Shadow> shadow;
  uint32_t interval = 0, block = 0;
  std::vector<Warp> warps;
  size_t pendingCopies = 0; // cp.async copies issued and not yet applied
  // Per shared byte: 1 + the thread whose cp.async to it is in flight, or 0.
  std::vector<uint32_t> inFlight;
  // The watchdog: the counter's value at which the launch is stopped.
  uint64_t firstInstruction = 0, instructionLimit = 0;
  // The warp and frame being executed.
  Warp *warp = nullptr;
  Frame *frame = nullptr;
  uint64_t *regs = nullptr;
  const Instruction *current = nullptr;
  DeviceMemory::Range lastRange;
  std::vector<DeviceMemory::Range> ranges; // per kernel instruction
  // The kernel's leading instructions that compute the same value in every
  // thread of the launch, and the registers they set with those values.
  uint32_t prologueLength = 0;
  std::vector<std::pair<uint32_t, uint64_t>> prologueValues;

  void evaluatePrologue();
  void runBlock();
  void runWarp(Warp &w);
  void finishWarp(Warp &w);
  bool returnFromCall(Warp &w);
  void branch(const Instruction &in, uint32_t active, uint32_t taken);
  /// brx.idx: each lane of `taken` to the target its index selects.
  void branchIndexed(const Instruction &in, uint32_t active, uint32_t taken);
  void retire(Warp &w, uint32_t lanes, bool exitThreads);
  void call(Warp &w, const Instruction &in, uint32_t lanes);
  void executeSimple(const Instruction &in, uint32_t lanes);
  void countGlobalLoads(unsigned bytes, unsigned threads) {
    stats.globalLoadBytes += uint64_t(bytes) * threads;
    stats.globalLoads += threads;
    if (bytes == 16)
      stats.globalLoads16 += threads;
  }

  // Faults.
  void raise(int code, int lane, const char *format, ...)
      __attribute__((format(printf, 4, 5)));
  std::string lineText(uint32_t line) const;

  // Operands.
  inline uint64_t read(const Operand &operand, int lane) const;
  void write(const Operand &operand, int lane, uint64_t value) {
    if (operand.kind == Operand::Reg)
      regs[size_t(operand.reg) * 32 + lane] = value;
  }
  uint64_t special(Special which, int lane) const;
  uint64_t address(const Operand &operand, int lane) const {
    uint64_t base =
        operand.reg == kNoReg ? 0 : regs[size_t(operand.reg) * 32 + lane];
    return base + operand.imm + (operand.frameRelative ? frame->localBase : 0);
  }

  // Memory. Each returns false after raising a fault.
  bool load(Space space, int lane, uint64_t addr, unsigned bytes, void *out);
  bool store(Space space, int lane, uint64_t addr, unsigned bytes,
             const void *in);
  bool checkGlobal(int lane, uint64_t addr, unsigned bytes, bool isWrite,
                   DeviceMemory::Range &cache, bool aligned = false);
  DeviceMemory::Range &rangeCache(const Instruction &in);
  bool sharedAccess(int lane, uint64_t addr, unsigned bytes, bool isWrite);
  bool frameAccess(std::vector<uint8_t> &memory, uint32_t base, int lane,
                   uint64_t addr, unsigned bytes, const char *what);
  void countBankConflicts(const uint64_t *addresses, uint32_t lanes,
                          unsigned bytes);
  Space resolve(Space space, uint64_t &addr) const;

  // Instructions with their own rules.
  void loadStore(const Instruction &in, uint32_t lanes);
  void ldmatrix(const Instruction &in, uint32_t lanes);
  void mma(const Instruction &in, uint32_t lanes);
  void shuffle(const Instruction &in, uint32_t lanes);
  void cpAsync(const Instruction &in, uint32_t lanes);
  void cpAsyncCommit(const Instruction &in, uint32_t lanes);
  void cpAsyncWait(const Instruction &in, uint32_t lanes);
  bool applyCopies(Warp &w, int lane, uint32_t keepGroups, bool exiting);
  void integerOp(const Instruction &in, uint32_t lanes);
  void floatOp(const Instruction &in, uint32_t lanes);
  void convert(const Instruction &in, uint32_t lanes);
  void compare(const Instruction &in, uint32_t lanes);
  void move(const Instruction &in, uint32_t lanes);
  void convertAddress(const Instruction &in, uint32_t lanes);
  /// Float or integer arithmetic, by the instruction's type.
  void arithmetic(const Instruction &in, uint32_t lanes);
  /// and, or, xor, not: on predicates, or on integers.
  void logic(const Instruction &in, uint32_t lanes);
  void fence(const Instruction &in, uint32_t lanes) {}
  /// Branches, calls, returns and barriers: runWarp runs them, never this.
  void control(const Instruction &in, uint32_t lanes);
  bool requireWholeWarp(const Instruction &in, uint32_t lanes,
                        const char *what);
  bool runAheadOfBarrier(Warp &w, uint32_t lanes);
};

inline uint64_t Executor::read(const Operand &operand, int lane) const {
  switch (operand.kind) {
  case Operand::Reg:
    return regs[size_t(operand.reg) * 32 + lane] ^ uint64_t(operand.negated);
  case Operand::Imm:
    return operand.imm + (operand.frameRelative ? frame->localBase : 0);
  case Operand::Special:
    return special(operand.special, lane);
  default:
    return 0;
  }
}

} // namespace gpusim

#endif // MIXPREC_GPUSIM_EXECUTOR_H
