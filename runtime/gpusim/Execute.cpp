//===- Execute.cpp - running one kernel launch ----------------------------===//
//
// Blocks run one after another; a block's warps run in turn until each
// reaches a barrier or exits. A warp executes an instruction for all its
// active lanes at once. Divergence follows a SIMT stack per call frame:
// a divergent branch pushes the two paths with the branch's immediate
// post-dominator as their meeting point (Reconvergence.cpp).
//
// Every access is checked the way compute-sanitizer's memcheck and
// racecheck would: bounds and alignment of global and shared accesses,
// freed or host memory, shared-memory races between two barriers, reads of
// shared memory nobody wrote, and `.aligned` collectives reached by part of
// a warp. The first problem ends the launch with the driver error the
// hardware would report.
//
//===----------------------------------------------------------------------===//

#include "Execute.h"
#include "Float.h"

#include <algorithm>
#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <xmmintrin.h>

namespace gpusim {

void KernelStats::add(const KernelStats &other) {
  launches += other.launches;
  threads += other.threads;
  warpInstructions += other.warpInstructions;
  mmaInstructions += other.mmaInstructions;
  globalLoadBytes += other.globalLoadBytes;
  globalStoreBytes += other.globalStoreBytes;
  sharedLoadBytes += other.sharedLoadBytes;
  sharedStoreBytes += other.sharedStoreBytes;
  sharedBankConflicts += other.sharedBankConflicts;
  maxThreadInstructions =
      std::max(maxThreadInstructions, other.maxThreadInstructions);
}

namespace {

constexpr int kIllegalAddress = 700, kHardwareStackError = 714,
              kIllegalInstruction = 715, kMisalignedAddress = 716,
              kLaunchFailed = 719;
constexpr int kLaunchTimeout = 702;
constexpr uint32_t kFullWarp = 0xffffffffu;
// About three minutes of simulation: far more than any mixprec kernel.
constexpr uint64_t kDefaultInstructionLimit = 1ull << 31;

uint64_t widthMask(unsigned bytes) {
  return bytes >= 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
}
int64_t signExtend(uint64_t value, unsigned bytes) {
  unsigned shift = 64 - 8 * bytes;
  return int64_t(value << shift) >> shift;
}

/// memcpy for the sizes accesses have: each a fixed-size copy (a variable
/// size would make the compiler emit a slow `rep movs`).
void copyBytes(void *to, const void *from, unsigned bytes) {
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
bool within(const DeviceMemory::Range &range, uint64_t addr, uint64_t bytes) {
  return range.begin && addr >= range.begin && addr <= range.end &&
         bytes <= range.end - addr;
}

/// Whether [addr, addr + bytes) lies in [0, size) (no wrap-around).
bool fits(uint64_t addr, uint64_t bytes, uint64_t size) {
  return addr <= size && bytes <= size - addr;
}

Format formatOf(Type type) {
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

Rounding roundingOf(Round round) {
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

int hostMode(Round round) {
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

float f32(uint64_t bits) { return bitsToFloat(uint32_t(bits)); }
double f64(uint64_t bits) { return bitsToDouble(bits); }

float flushF32(float value, bool ftz) {
  if (ftz && std::fpclassify(value) == FP_SUBNORMAL)
    return std::copysign(0.0f, value);
  return value;
}

/// A 16-bit or wider float value as a double (exact).
double toHost(uint64_t bits, Type type) {
  return type == Type::F64 ? f64(bits) : toDouble(bits, formatOf(type));
}

/// Every f16 value as a float (exact), for mma's fragments.
const float *halfToFloat() {
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
constexpr uint32_t kNever = ~0u;

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

/// Whether `op` reaches memory or other threads: what lanes that run ahead
/// of a barrier must not do.
bool touchesOthers(Op op) {
  switch (op) {
  case Op::Ld:
  case Op::St:
  case Op::Ldmatrix:
  case Op::Mma:
  case Op::CpAsync:
  case Op::CpAsyncWait:
  case Op::Shfl:
  case Op::BarSync:
  case Op::Call:
    return true;
  default:
    return false;
  }
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
  // The watchdog: the counter's value at which the launch is stopped.
  uint64_t firstInstruction = 0, instructionLimit = 0;
  // The warp and frame being executed.
  Warp *warp = nullptr;
  Frame *frame = nullptr;
  uint64_t *regs = nullptr;
  const Instruction *current = nullptr;
  DeviceMemory::Range lastRange;
  std::vector<DeviceMemory::Range> ranges; // per kernel instruction

  void runBlock();
  void runWarp(Warp &w);
  void finishWarp(Warp &w);
  bool returnFromCall(Warp &w);
  void branch(const Instruction &in, uint32_t active, uint32_t taken);
  void retire(Warp &w, uint32_t lanes, bool exitThreads);
  void call(Warp &w, const Instruction &in, uint32_t lanes);
  void executeSimple(const Instruction &in, uint32_t lanes);

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
  void cpAsyncCommit(uint32_t lanes);
  void cpAsyncWait(const Instruction &in, uint32_t lanes);
  bool applyCopies(Warp &w, int lane, uint32_t keepGroups, bool exiting);
  void integerOp(const Instruction &in, uint32_t lanes);
  void floatOp(const Instruction &in, uint32_t lanes);
  void convert(const Instruction &in, uint32_t lanes);
  void compare(const Instruction &in, uint32_t lanes);
  void move(const Instruction &in, uint32_t lanes);
  bool requireWholeWarp(const Instruction &in, uint32_t lanes,
                        const char *what);
  bool runAheadOfBarrier(Warp &w, uint32_t lanes);
};

std::string Executor::lineText(uint32_t line) const {
  const std::string &source = module.source;
  size_t start = 0;
  for (uint32_t i = 1; i < line && start != std::string::npos; ++i) {
    start = source.find('\n', start);
    if (start != std::string::npos)
      ++start;
  }
  if (start == std::string::npos)
    return "";
  size_t end = source.find('\n', start);
  std::string text = source.substr(start, end - start);
  size_t first = text.find_first_not_of(" \t");
  return first == std::string::npos ? "" : text.substr(first);
}

void Executor::raise(int code, int lane, const char *format, ...) {
  if (fault.code)
    return;
  char detail[512];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(detail, sizeof(detail), format, arguments);
  va_end(arguments);
  char message[1024];
  uint32_t line = current ? current->line : 0;
  const char *function = frame ? frame->function->name.c_str() : "";
  std::string where = frame && frame->function != &kernel
                          ? std::string(" (in function '") + function + "')"
                          : std::string();
  std::snprintf(
      message, sizeof(message),
      "gpusim: %s in kernel '%s'%s at PTX line %u (%s), block "
      "(%u,%u,%u), thread (%u,%u,%u)",
      detail, kernel.name.c_str(), where.c_str(), line, lineText(line).c_str(),
      ctaid[0], ctaid[1], ctaid[2], warp ? warp->tid[0][lane & 31] : 0,
      warp ? warp->tid[1][lane & 31] : 0, warp ? warp->tid[2][lane & 31] : 0);
  fault.code = code;
  fault.message = message;
}

void Executor::run() {
  blockThreads = config.block[0] * config.block[1] * config.block[2];
  uint32_t sharedBytes = kernel.sharedBytes + config.dynamicSharedBytes;
  shared.assign(sharedBytes, 0);
  ranges.assign(kernel.code.size(), DeviceMemory::Range());
  shadow.assign(sharedBytes, Shadow());
  uint32_t warpCount = (blockThreads + 31) / 32;
  warps.resize(warpCount);
  stats.launches += 1;
  firstInstruction = stats.warpInstructions;
  const char *limit = std::getenv("MIXPREC_GPUSIM_MAX_WARP_INSTRUCTIONS");
  instructionLimit =
      firstInstruction + (limit && *limit ? std::strtoull(limit, nullptr, 10)
                                          : kDefaultInstructionLimit);
  stats.threads +=
      uint64_t(blockThreads) * config.grid[0] * config.grid[1] * config.grid[2];
  // The host's floating-point environment is the caller's: PTX arithmetic
  // keeps subnormals and rounds to nearest unless an instruction says.
  unsigned savedCsr = _mm_getcsr();
  _mm_setcsr(0x1f80);
  for (ctaid[2] = 0; ctaid[2] < config.grid[2] && !fault.code; ++ctaid[2])
    for (ctaid[1] = 0; ctaid[1] < config.grid[1] && !fault.code; ++ctaid[1])
      for (ctaid[0] = 0; ctaid[0] < config.grid[0] && !fault.code; ++ctaid[0])
        runBlock();
  _mm_setcsr(savedCsr);
}

void Executor::runBlock() {
  ++block;
  ++interval;
  for (uint32_t w = 0; w < warps.size(); ++w) {
    Warp &state = warps[w];
    state.index = w;
    uint32_t lanes = std::min(32u, blockThreads - 32 * w);
    state.alive = lanes == 32 ? kFullWarp : (1u << lanes) - 1;
    state.state = Warp::Running;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      uint32_t linear = 32 * w + lane;
      state.tid[0][lane] = linear % config.block[0];
      state.tid[1][lane] = linear / config.block[0] % config.block[1];
      state.tid[2][lane] = linear / (config.block[0] * config.block[1]);
      state.frameMemory[lane].assign(kernel.frameBytes, 0);
      state.localMemory[lane].assign(kernel.localBytes, 0);
      state.laneInstructions[lane] = 0;
      state.pending[lane].clear();
      state.groups[lane] = 0;
    }
    state.fullWarpInstructions = 0;
    state.registers.assign(size_t(kernel.numRegs) * 32, 0);
    state.frames.clear();
    state.frames.push_back(Frame{&kernel, 0, 0, 0, {}, nullptr, 0});
    state.frames.back().stack.push_back(
        Entry{0, uint32_t(kernel.code.size()), state.alive});
  }
  while (!fault.code) {
    for (Warp &w : warps)
      if (w.state == Warp::Running)
        runWarp(w);
    if (fault.code)
      return;
    bool waiting = false;
    for (Warp &w : warps)
      waiting |= w.state == Warp::AtBarrier;
    if (!waiting)
      return;
    // Every warp that has not exited waits at a barrier: release them.
    for (Warp &w : warps)
      if (w.state == Warp::AtBarrier)
        w.state = Warp::Running;
    ++interval;
  }
}

void Executor::finishWarp(Warp &w) {
  for (int lane = 0; lane < 32; ++lane) {
    // Copies nobody waited for complete when the thread exits.
    if (!w.pending[lane].empty())
      applyCopies(w, lane, 0, true);
    uint64_t executed = w.fullWarpInstructions + w.laneInstructions[lane];
    stats.maxThreadInstructions =
        std::max(stats.maxThreadInstructions, executed);
  }
}

void Executor::runWarp(Warp &w) {
  warp = &w;
  while (!fault.code) {
    frame = &w.frames.back();
    if (frame->stack.empty()) {
      if (!returnFromCall(w)) {
        w.state = Warp::Done;
        finishWarp(w);
        return;
      }
      continue;
    }
    Entry &top = frame->stack.back();
    if (top.mask == 0 || top.pc == top.reconverge) {
      frame->stack.pop_back();
      continue;
    }
    const Function &function = *frame->function;
    if (top.pc >= function.code.size()) {
      current = nullptr;
      raise(kIllegalInstruction, __builtin_ctz(top.mask),
            "execution ran past the end of '%s'", function.name.c_str());
      return;
    }
    const Instruction &in = function.code[top.pc];
    current = &in;
    regs = &w.registers[frame->registerBase];
    uint32_t active = top.mask;
    uint32_t lanes = active;
    if (in.guard != kNoReg) {
      lanes = 0;
      const uint64_t *guard = &regs[size_t(in.guard) * 32];
      for (uint32_t m = active; m; m &= m - 1) {
        int lane = __builtin_ctz(m);
        if (bool(guard[lane] & 1) != in.guardNegated)
          lanes |= 1u << lane;
      }
    }
    if (++stats.warpInstructions > instructionLimit) {
      raise(kLaunchTimeout, __builtin_ctz(active),
            "the launch ran more than %llu warp instructions (a loop that "
            "never ends?); MIXPREC_GPUSIM_MAX_WARP_INSTRUCTIONS sets the "
            "limit",
            (unsigned long long)(instructionLimit - firstInstruction));
      return;
    }
    if (active == kFullWarp)
      ++w.fullWarpInstructions;
    else
      for (uint32_t m = active; m; m &= m - 1)
        ++w.laneInstructions[__builtin_ctz(m)];
    if (top.runAhead && touchesOthers(in.op)) {
      // Lanes that skip a barrier may only leave; going on to memory or a
      // collective means the warp diverged around the barrier.
      uint32_t waiting = w.waitingLanes;
      current = &function.code[w.barrierPc];
      raise(kLaunchFailed, __builtin_ctz(waiting),
            "bar.sync is .aligned but was reached by only part of warp %u "
            "(lanes 0x%08x; lanes 0x%08x went on past it without exiting, to "
            "PTX line %u): divergent barrier",
            w.index, waiting, active, in.line);
      return;
    }
    switch (in.op) {
    case Op::Bra:
      branch(in, active, lanes);
      continue;
    case Op::Ret:
    case Op::Exit:
      retire(w, lanes, in.op == Op::Exit || w.frames.size() == 1);
      continue;
    case Op::Call:
      call(w, in, lanes);
      continue;
    case Op::BarSync:
      if (!lanes) {
        ++top.pc;
        continue;
      }
      if (lanes != w.alive && !top.runAhead && runAheadOfBarrier(w, lanes))
        continue;
      if (!requireWholeWarp(in, lanes, "bar.sync"))
        return;
      if (in.numOperands > 1 &&
          read(in.operands[1], __builtin_ctz(lanes)) != blockThreads) {
        raise(kIllegalInstruction, __builtin_ctz(lanes),
              "bar.sync with a thread count other than the block's is not "
              "supported");
        return;
      }
      ++top.pc;
      w.state = Warp::AtBarrier;
      return;
    default:
      if (lanes)
        executeSimple(in, lanes);
      // executeSimple never changes the stack.
      ++frame->stack.back().pc;
      continue;
    }
  }
}

/// Part of the warp reached a barrier: the other live lanes wait in entries
/// below. Runs the nearest group of them ahead (the barrier is executed
/// again afterwards): lanes that exit no longer count, as on a GPU; lanes
/// that reach a barrier instead fault there. False when there is no such
/// group.
bool Executor::runAheadOfBarrier(Warp &w, uint32_t lanes) {
  uint32_t missing = w.alive & ~lanes;
  std::vector<Entry> &stack = frame->stack;
  for (size_t i = stack.size() - 1; i-- > 0;) {
    uint32_t group = stack[i].mask & missing;
    if (!group)
      continue;
    w.barrierPc = stack.back().pc;
    w.waitingLanes = lanes;
    stack.push_back(Entry{stack[i].pc, kNever, group, true});
    return true;
  }
  return false;
}

bool Executor::requireWholeWarp(const Instruction &in, uint32_t lanes,
                                const char *what) {
  uint32_t expected =
      in.op == Op::BarSync ? warp->alive : kFullWarp; // fragments need 32
  if (lanes == expected && (in.op == Op::BarSync || warp->alive == kFullWarp))
    return true;
  uint32_t missing = expected & ~lanes;
  raise(kLaunchFailed, __builtin_ctz(lanes),
        "%s is .aligned but was reached by only part of warp %u (lanes "
        "0x%08x of 0x%08x; lane %d did not arrive): divergent collective",
        what, warp->index, lanes, expected,
        missing ? __builtin_ctz(missing) : -1);
  return false;
}

void Executor::branch(const Instruction &in, uint32_t active, uint32_t taken) {
  Entry &top = frame->stack.back();
  uint32_t target = uint32_t(in.operands[0].imm);
  if (taken == active) {
    top.pc = target;
    return;
  }
  if (taken == 0) {
    ++top.pc;
    return;
  }
  uint32_t meet = in.reconverge, fallThrough = top.pc + 1;
  top.pc = meet;
  uint32_t notTaken = active & ~taken;
  bool ahead = top.runAhead;
  if (fallThrough != meet)
    frame->stack.push_back(Entry{fallThrough, meet, notTaken, ahead});
  if (target != meet)
    frame->stack.push_back(Entry{target, meet, taken, ahead});
}

void Executor::retire(Warp &w, uint32_t lanes, bool exitThreads) {
  uint32_t active = frame->stack.back().mask;
  if (exitThreads) {
    w.alive &= ~lanes;
    for (Frame &each : w.frames)
      for (Entry &entry : each.stack)
        entry.mask &= ~lanes;
  } else {
    for (Entry &entry : frame->stack)
      entry.mask &= ~lanes;
  }
  if (lanes != active)
    ++frame->stack.back().pc;
}

void Executor::call(Warp &w, const Instruction &in, uint32_t lanes) {
  ++frame->stack.back().pc;
  if (!lanes)
    return;
  const Function &callee = *module.functions[in.callee];
  const Operand &arguments = in.operands[1];
  if (arguments.count != callee.params.size() ||
      in.operands[0].count != callee.returns.size()) {
    raise(kIllegalInstruction, __builtin_ctz(lanes),
          "call to '%s' with %u arguments and %u results; it takes %zu and "
          "returns %zu",
          callee.name.c_str(), arguments.count, in.operands[0].count,
          callee.params.size(), callee.returns.size());
    return;
  }
  if (w.frames.size() >= 64) {
    raise(kHardwareStackError, __builtin_ctz(lanes),
          "call stack deeper than 64 frames");
    return;
  }
  const Function &caller = *frame->function;
  uint32_t callerFrame = frame->frameBase;
  uint32_t frameBase = uint32_t(w.frameMemory[0].size());
  uint32_t localBase = uint32_t(w.localMemory[0].size());
  for (int lane = 0; lane < 32; ++lane) {
    std::vector<uint8_t> &memory = w.frameMemory[lane];
    memory.resize(frameBase + callee.frameBytes);
    w.localMemory[lane].resize(localBase + callee.localBytes);
    if (!(lanes >> lane & 1))
      continue;
    for (uint32_t i = 0; i < arguments.count; ++i) {
      uint32_t from = callerFrame + caller.vectorRegs[arguments.first + i];
      const Function::Param &param = callee.params[i];
      std::memcpy(&memory[frameBase + param.offset], &memory[from],
                  param.bytes);
    }
  }
  size_t registerBase = w.registers.size();
  w.registers.resize(registerBase + size_t(callee.numRegs) * 32);
  w.frames.push_back(
      Frame{&callee, registerBase, frameBase, localBase, {}, &in, lanes});
  w.frames.back().stack.push_back(
      Entry{0, uint32_t(callee.code.size()), lanes});
}

bool Executor::returnFromCall(Warp &w) {
  if (w.frames.size() == 1)
    return false;
  Frame done = std::move(w.frames.back());
  w.frames.pop_back();
  Frame &caller = w.frames.back();
  const Function &callee = *done.function;
  const Operand &results = done.call->operands[0];
  uint32_t lanes = done.callMask & w.alive;
  for (int lane = 0; lane < 32; ++lane) {
    std::vector<uint8_t> &memory = w.frameMemory[lane];
    if (lanes >> lane & 1)
      for (uint32_t i = 0; i < results.count; ++i) {
        uint32_t to =
            caller.frameBase + caller.function->vectorRegs[results.first + i];
        const Function::Param &result = callee.returns[i];
        std::memcpy(&memory[to], &memory[done.frameBase + result.offset],
                    result.bytes);
      }
    memory.resize(done.frameBase);
    w.localMemory[lane].resize(done.localBase);
  }
  w.registers.resize(done.registerBase);
  return true;
}

uint64_t Executor::special(Special which, int lane) const {
  switch (which) {
  case Special::TidX:
    return warp->tid[0][lane];
  case Special::TidY:
    return warp->tid[1][lane];
  case Special::TidZ:
    return warp->tid[2][lane];
  case Special::NtidX:
    return config.block[0];
  case Special::NtidY:
    return config.block[1];
  case Special::NtidZ:
    return config.block[2];
  case Special::CtaidX:
    return ctaid[0];
  case Special::CtaidY:
    return ctaid[1];
  case Special::CtaidZ:
    return ctaid[2];
  case Special::NctaidX:
    return config.grid[0];
  case Special::NctaidY:
    return config.grid[1];
  case Special::NctaidZ:
    return config.grid[2];
  case Special::LaneId:
    return uint64_t(lane);
  case Special::WarpId:
    return warp->index;
  case Special::NwarpId:
    return warps.size();
  case Special::Clock:
    return stats.warpInstructions & 0xffffffffu;
  case Special::Clock64:
    return stats.warpInstructions;
  }
  return 0;
}

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

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Space Executor::resolve(Space space, uint64_t &addr) const {
  if (space != Space::Generic)
    return space;
  if (addr - kSharedWindow < kWindowSize) {
    addr -= kSharedWindow;
    return Space::Shared;
  }
  if (addr - kLocalWindow < kWindowSize) {
    addr -= kLocalWindow;
    return Space::Local;
  }
  return Space::Global;
}

/// The allocation this instruction touched last: most instructions touch
/// one buffer, so most checks need no search.
DeviceMemory::Range &Executor::rangeCache(const Instruction &in) {
  const std::vector<Instruction> &code = kernel.code;
  if (&in >= code.data() && &in < code.data() + code.size())
    return ranges[size_t(&in - code.data())];
  return lastRange;
}

bool Executor::checkGlobal(int lane, uint64_t addr, unsigned bytes,
                           bool isWrite, DeviceMemory::Range &cache,
                           bool aligned) {
  if (!aligned && addr % bytes) {
    raise(kMisalignedAddress, lane,
          "misaligned %u-byte global %s at address 0x%llx", bytes,
          isWrite ? "write" : "read", (unsigned long long)addr);
    return false;
  }
  if (within(cache, addr, bytes))
    return true;
  DeviceMemory::Range range = memory.find(addr);
  if (within(range, addr, bytes)) {
    cache = range;
    return true;
  }
  // Within an allocation's last page or the guard page after it: past its
  // end. Elsewhere: freed, never allocated, or not device memory.
  if (!range.begin) {
    DeviceMemory::Range before = memory.preceding(addr);
    if (before.begin && addr < (before.end + 4095) / 4096 * 4096 + 4096)
      range = before;
  }
  if (range.begin) {
    raise(kIllegalAddress, lane,
          "out-of-bounds %u-byte global %s at address 0x%llx, %llu bytes "
          "past the end of an allocation [0x%llx, 0x%llx)",
          bytes, isWrite ? "write" : "read", (unsigned long long)addr,
          (unsigned long long)(addr + bytes - range.end),
          (unsigned long long)range.begin, (unsigned long long)range.end);
    return false;
  }
  raise(kIllegalAddress, lane,
        "out-of-bounds %u-byte global %s at address 0x%llx, %s", bytes,
        isWrite ? "write" : "read", (unsigned long long)addr,
        memory.isDeviceAddress(addr)
            ? "outside every live allocation (freed, or never allocated)"
            : "not a device address (a host pointer?)");
  return false;
}

bool Executor::sharedAccess(int lane, uint64_t addr, unsigned bytes,
                            bool isWrite) {
  if (addr % bytes) {
    raise(kMisalignedAddress, lane,
          "misaligned %u-byte shared %s at shared address 0x%llx", bytes,
          isWrite ? "write" : "read", (unsigned long long)addr);
    return false;
  }
  if (!fits(addr, bytes, shared.size())) {
    raise(kIllegalAddress, lane,
          "out-of-bounds %u-byte shared %s at shared address 0x%llx (the "
          "block has %zu bytes of shared memory)",
          bytes, isWrite ? "write" : "read", (unsigned long long)addr,
          shared.size());
    return false;
  }
  // A cp.async whose wait has not come yet still owns its bytes.
  if (pendingCopies)
    for (const Warp &other : warps)
      for (int owner = 0; owner < 32; ++owner)
        for (const PendingCopy &copy : other.pending[owner])
          if (addr < copy.shared + copy.bytes && copy.shared < addr + bytes) {
            raise(kLaunchFailed, lane,
                  "shared %s of address 0x%llx while thread %u's cp.async "
                  "to it is still in flight (no cp.async.wait_group before "
                  "it)",
                  isWrite ? "write" : "read", (unsigned long long)addr,
                  other.index * 32 + owner);
            return false;
          }
  auto thread = int16_t(warp->index * 32 + lane);
  for (unsigned i = 0; i < bytes; ++i) {
    Shadow &byte = shadow[addr + i];
    auto location = (unsigned long long)(addr + i);
    if (byte.interval != interval) {
      byte.interval = interval;
      byte.writer = byte.reader = byte.secondReader = -1;
      byte.severalReaders = false;
    }
    if (isWrite) {
      if (byte.writer >= 0 && byte.writer != thread) {
        raise(kLaunchFailed, lane,
              "shared-memory race: write of shared address 0x%llx after a "
              "write by thread %d with no barrier between",
              location, byte.writer);
        return false;
      }
      if (byte.reader >= 0 && (byte.reader != thread || byte.severalReaders)) {
        raise(kLaunchFailed, lane,
              "shared-memory race: write of shared address 0x%llx after a "
              "read by %s%d with no barrier between",
              location,
              byte.severalReaders ? "several threads, e.g. thread " : "thread ",
              byte.reader != thread ? byte.reader : byte.secondReader);
        return false;
      }
      byte.writer = thread;
      byte.writtenInBlock = block;
      continue;
    }
    if (byte.writtenInBlock != block) {
      raise(kLaunchFailed, lane,
            "read of uninitialized shared memory at shared address 0x%llx "
            "(nothing in this block wrote it)",
            location);
      return false;
    }
    if (byte.writer >= 0 && byte.writer != thread) {
      raise(kLaunchFailed, lane,
            "shared-memory race: read of shared address 0x%llx written by "
            "thread %d with no barrier between",
            location, byte.writer);
      return false;
    }
    if (byte.reader == -1)
      byte.reader = thread;
    else if (byte.reader != thread && !byte.severalReaders) {
      byte.severalReaders = true;
      byte.secondReader = thread;
    }
  }
  return true;
}

bool Executor::frameAccess(std::vector<uint8_t> &memory, uint32_t base,
                           int lane, uint64_t addr, unsigned bytes,
                           const char *what) {
  if (addr % bytes || base > memory.size() ||
      !fits(addr, bytes, memory.size() - base)) {
    raise(kIllegalAddress, lane,
          "%s access of %u bytes at offset 0x%llx "
          "outside the thread's %zu bytes",
          what, bytes, (unsigned long long)addr, memory.size() - base);
    return false;
  }
  return true;
}

bool Executor::load(Space space, int lane, uint64_t addr, unsigned bytes,
                    void *out) {
  space = resolve(space, addr);
  switch (space) {
  case Space::Global:
  case Space::Const:
    if (!checkGlobal(lane, addr, bytes, false, rangeCache(*current)))
      return false;
    copyBytes(out, reinterpret_cast<const void *>(addr), bytes);
    stats.globalLoadBytes += bytes;
    return true;
  case Space::Shared:
    if (!sharedAccess(lane, addr, bytes, false))
      return false;
    copyBytes(out, &shared[addr], bytes);
    stats.sharedLoadBytes += bytes;
    return true;
  case Space::Param:
    if (!fits(addr, bytes, config.parameters.size()) || addr % bytes) {
      raise(kIllegalAddress, lane,
            "parameter read of %u bytes at offset %llu outside the kernel's "
            "%zu bytes of parameters",
            bytes, (unsigned long long)addr, config.parameters.size());
      return false;
    }
    copyBytes(out, &config.parameters[addr], bytes);
    return true;
  case Space::Frame: {
    std::vector<uint8_t> &memory = warp->frameMemory[lane];
    if (!frameAccess(memory, frame->frameBase, lane, addr, bytes, ".param"))
      return false;
    copyBytes(out, &memory[frame->frameBase + addr], bytes);
    return true;
  }
  case Space::Local: {
    std::vector<uint8_t> &memory = warp->localMemory[lane];
    if (!frameAccess(memory, 0, lane, addr, bytes, ".local"))
      return false;
    copyBytes(out, &memory[addr], bytes);
    return true;
  }
  case Space::Generic:
    break;
  }
  return false;
}

bool Executor::store(Space space, int lane, uint64_t addr, unsigned bytes,
                     const void *in) {
  space = resolve(space, addr);
  switch (space) {
  case Space::Global:
    if (!checkGlobal(lane, addr, bytes, true, rangeCache(*current)))
      return false;
    copyBytes(reinterpret_cast<void *>(addr), in, bytes);
    stats.globalStoreBytes += bytes;
    return true;
  case Space::Shared:
    if (!sharedAccess(lane, addr, bytes, true))
      return false;
    copyBytes(&shared[addr], in, bytes);
    stats.sharedStoreBytes += bytes;
    return true;
  case Space::Frame: {
    std::vector<uint8_t> &memory = warp->frameMemory[lane];
    if (!frameAccess(memory, frame->frameBase, lane, addr, bytes, ".param"))
      return false;
    copyBytes(&memory[frame->frameBase + addr], in, bytes);
    return true;
  }
  case Space::Local: {
    std::vector<uint8_t> &memory = warp->localMemory[lane];
    if (!frameAccess(memory, 0, lane, addr, bytes, ".local"))
      return false;
    copyBytes(&memory[addr], in, bytes);
    return true;
  }
  default:
    raise(kIllegalAddress, lane, "store to read-only %s memory",
          space == Space::Param ? "kernel parameter" : "constant");
    return false;
  }
}

/// Bank conflicts of one shared-memory warp access: lanes are served in
/// phases (all 32 for accesses of up to 4 bytes, 16 for 8 bytes, 8 for 16
/// bytes); a phase takes as many wavefronts as the most distinct 4-byte
/// words any of the 32 banks holds, and each wavefront past the first is a
/// conflict.
void Executor::countBankConflicts(const uint64_t *addresses, uint32_t lanes,
                                  unsigned bytes) {
  unsigned perPhase = bytes <= 4 ? 32 : bytes == 8 ? 16 : 8;
  for (unsigned phase = 0; phase < 32; phase += perPhase) {
    uint64_t words[128];
    unsigned count = 0;
    for (unsigned lane = phase; lane < phase + perPhase; ++lane) {
      if (!(lanes >> lane & 1))
        continue;
      for (uint64_t word = addresses[lane] / 4;
           word <= (addresses[lane] + bytes - 1) / 4; ++word)
        words[count++] = word;
    }
    if (!count)
      continue;
    std::sort(words, words + count);
    count = unsigned(std::unique(words, words + count) - words);
    unsigned perBank[32] = {};
    unsigned wavefronts = 0;
    for (unsigned i = 0; i < count; ++i)
      wavefronts = std::max(wavefronts, ++perBank[words[i] % 32]);
    stats.sharedBankConflicts += wavefronts - 1;
  }
}

/// The `bytes`-byte value at `pointer`, zero-extended.
uint64_t loadBits(uint64_t pointer, unsigned bytes) {
  const void *from = reinterpret_cast<const void *>(pointer);
  switch (bytes) {
  case 1:
    return *static_cast<const uint8_t *>(from);
  case 2: {
    uint16_t value;
    std::memcpy(&value, from, 2);
    return value;
  }
  case 4: {
    uint32_t value;
    std::memcpy(&value, from, 4);
    return value;
  }
  default: {
    uint64_t value;
    std::memcpy(&value, from, 8);
    return value;
  }
  }
}

void storeBits(uint64_t pointer, unsigned bytes, uint64_t value) {
  void *to = reinterpret_cast<void *>(pointer);
  switch (bytes) {
  case 1:
    *static_cast<uint8_t *>(to) = uint8_t(value);
    return;
  case 2: {
    auto narrow = uint16_t(value);
    std::memcpy(to, &narrow, 2);
    return;
  }
  case 4: {
    auto narrow = uint32_t(value);
    std::memcpy(to, &narrow, 4);
    return;
  }
  default:
    std::memcpy(to, &value, 8);
    return;
  }
}

void Executor::loadStore(const Instruction &in, uint32_t lanes) {
  bool isLoad = in.op == Op::Ld;
  const Operand &data = in.operands[isLoad ? 0 : 1];
  const Operand &where = in.operands[isLoad ? 1 : 0];
  unsigned elementBytes = typeBytes(in.type);
  unsigned vector = in.vectorWidth;
  unsigned bytes = elementBytes * vector;
  if (vector == 1 && in.space == Space::Global) {
    // The common case: one value per lane from or to global memory.
    DeviceMemory::Range &cache = rangeCache(in);
    bool sign = isSigned(in.type);
    for (uint32_t m = lanes; m; m &= m - 1) {
      int lane = __builtin_ctz(m);
      uint64_t addr = address(where, lane);
      if ((!within(cache, addr, bytes) || addr % bytes) &&
          !checkGlobal(lane, addr, bytes, !isLoad, cache))
        return;
      if (isLoad) {
        uint64_t value = loadBits(addr, bytes);
        write(data, lane, sign ? uint64_t(signExtend(value, bytes)) : value);
      } else {
        storeBits(addr, bytes, read(data, lane));
      }
    }
    uint64_t moved = uint64_t(bytes) * __builtin_popcount(lanes);
    (isLoad ? stats.globalLoadBytes : stats.globalStoreBytes) += moved;
    return;
  }
  uint64_t addresses[32];
  bool sharedAccessSeen = false;
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    uint64_t addr = address(where, lane);
    addresses[lane] = addr;
    uint64_t resolved = addr;
    sharedAccessSeen |= resolve(in.space, resolved) == Space::Shared;
    uint8_t buffer[32] = {};
    if (isLoad) {
      if (!load(in.space, lane, addr, bytes, buffer))
        return;
      for (unsigned e = 0; e < vector; ++e) {
        uint64_t value = 0;
        std::memcpy(&value, buffer + e * elementBytes, elementBytes);
        if (isSigned(in.type))
          value = uint64_t(signExtend(value, elementBytes));
        if (data.kind != Operand::Vector) {
          write(data, lane, value);
          continue;
        }
        uint32_t reg = frame->function->vectorRegs[data.first + e];
        if (reg != kNoReg)
          regs[size_t(reg) * 32 + lane] = value;
      }
    } else {
      for (unsigned e = 0; e < vector; ++e) {
        uint64_t value;
        if (data.kind == Operand::Vector) {
          uint32_t reg = frame->function->vectorRegs[data.first + e];
          value = reg == kNoReg ? 0 : regs[size_t(reg) * 32 + lane];
        } else {
          value = read(data, lane);
        }
        std::memcpy(buffer + e * elementBytes, &value, elementBytes);
      }
      if (!store(in.space, lane, addr, bytes, buffer))
        return;
    }
  }
  if (sharedAccessSeen) {
    for (uint32_t m = lanes; m; m &= m - 1) {
      int lane = __builtin_ctz(m);
      resolve(in.space, addresses[lane]);
    }
    countBankConflicts(addresses, lanes, bytes);
  }
}

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

void Executor::cpAsync(const Instruction &in, uint32_t lanes) {
  // cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size}
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    auto bytes = unsigned(read(in.operands[2], lane));
    if ((bytes != 4 && bytes != 8 && bytes != 16) ||
        (in.trans && bytes != 16)) {
      raise(kIllegalInstruction, lane, "cp.async of %u bytes", bytes);
      return;
    }
    unsigned sourceBytes =
        in.numOperands > 3 ? unsigned(read(in.operands[3], lane)) : bytes;
    if (sourceBytes > bytes) {
      raise(kIllegalInstruction, lane,
            "cp.async source size %u exceeds the copy size %u", sourceBytes,
            bytes);
      return;
    }
    uint64_t destination = address(in.operands[0], lane);
    uint64_t source = address(in.operands[1], lane);
    PendingCopy copy{};
    copy.bytes = uint8_t(bytes);
    copy.group = ~0u;
    if (destination % bytes || !fits(destination, bytes, shared.size())) {
      raise(destination % bytes ? kMisalignedAddress : kIllegalAddress, lane,
            "cp.async destination 0x%llx: %s", (unsigned long long)destination,
            destination % bytes ? "misaligned" : "outside shared memory");
      return;
    }
    copy.shared = uint32_t(destination);
    if (sourceBytes) {
      // Only the source size is read; the rest of the copy is zeros.
      if (source % bytes) {
        raise(kMisalignedAddress, lane,
              "cp.async source 0x%llx is not %u-byte aligned",
              (unsigned long long)source, bytes);
        return;
      }
      if (!checkGlobal(lane, source, sourceBytes, false, rangeCache(in),
                       /*aligned=*/true))
        return;
      std::memcpy(copy.data, reinterpret_cast<const void *>(source),
                  sourceBytes);
      stats.globalLoadBytes += sourceBytes;
    }
    warp->pending[lane].push_back(copy);
    ++pendingCopies;
  }
}

void Executor::cpAsyncCommit(uint32_t lanes) {
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    for (PendingCopy &copy : warp->pending[lane])
      if (copy.group == ~0u)
        copy.group = warp->groups[lane];
    ++warp->groups[lane];
  }
}

/// Writes the copies of lane's committed groups older than its newest
/// `keepGroups` into shared memory (all of them when the thread exits).
bool Executor::applyCopies(Warp &w, int lane, uint32_t keepGroups,
                           bool exiting) {
  std::vector<PendingCopy> &pending = w.pending[lane];
  std::vector<PendingCopy> kept;
  uint32_t newestDone = w.groups[lane] > keepGroups
                            ? w.groups[lane] - keepGroups
                            : 0; // groups below this index complete
  std::vector<PendingCopy> done;
  for (const PendingCopy &copy : pending) {
    bool complete = exiting || (copy.group != ~0u && copy.group < newestDone);
    (complete ? done : kept).push_back(copy);
  }
  pending.swap(kept);
  pendingCopies -= done.size();
  for (const PendingCopy &copy : done) {
    if (!sharedAccess(lane, copy.shared, copy.bytes, true))
      return false;
    std::memcpy(&shared[copy.shared], copy.data, copy.bytes);
    stats.sharedStoreBytes += copy.bytes;
  }
  return true;
}

void Executor::cpAsyncWait(const Instruction &in, uint32_t lanes) {
  uint32_t keep = 0;
  if (in.uni) // wait_all: commit, then wait for everything
    cpAsyncCommit(lanes);
  else
    keep = uint32_t(read(in.operands[0], __builtin_ctz(lanes)));
  for (uint32_t m = lanes; m; m &= m - 1)
    if (!applyCopies(*warp, __builtin_ctz(m), keep, false))
      return;
}

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

void Executor::executeSimple(const Instruction &in, uint32_t lanes) {
  switch (in.op) {
  case Op::Ld:
  case Op::St:
    loadStore(in, lanes);
    return;
  case Op::Mov:
    move(in, lanes);
    return;
  case Op::Cvta:
  case Op::CvtaTo: {
    uint64_t window = in.space == Space::Shared  ? kSharedWindow
                      : in.space == Space::Local ? kLocalWindow
                                                 : 0;
    for (uint32_t m = lanes; m; m &= m - 1) {
      int lane = __builtin_ctz(m);
      uint64_t value = read(in.operands[1], lane);
      write(in.operands[0], lane,
            in.op == Op::Cvta ? value + window : value - window);
    }
    return;
  }
  case Op::Setp:
  case Op::Selp:
    compare(in, lanes);
    return;
  case Op::Cvt:
    convert(in, lanes);
    return;
  case Op::Ldmatrix:
    ldmatrix(in, lanes);
    return;
  case Op::Mma:
    mma(in, lanes);
    return;
  case Op::Shfl:
    shuffle(in, lanes);
    return;
  case Op::CpAsync:
    cpAsync(in, lanes);
    return;
  case Op::CpAsyncCommit:
    cpAsyncCommit(lanes);
    return;
  case Op::CpAsyncWait:
    cpAsyncWait(in, lanes);
    return;
  case Op::Membar:
    return;
  case Op::And:
  case Op::Or:
  case Op::Xor:
  case Op::Not:
    if (in.type == Type::Pred) {
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
      return;
    }
    integerOp(in, lanes);
    return;
  default:
    if (isFloat(in.type))
      floatOp(in, lanes);
    else
      integerOp(in, lanes);
    return;
  }
}

} // namespace

void execute(const Module &module, const Function &kernel,
             const LaunchConfig &config, DeviceMemory &memory,
             KernelStats &stats, Fault &fault) {
  Executor executor(module, kernel, config, memory, stats, fault);
  executor.run();
}

} // namespace gpusim
