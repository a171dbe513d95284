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

#include "Executor.h"

#include <algorithm>
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
  globalLoads += other.globalLoads;
  globalLoads16 += other.globalLoads16;
  globalStoreBytes += other.globalStoreBytes;
  sharedLoadBytes += other.sharedLoadBytes;
  sharedStoreBytes += other.sharedStoreBytes;
  sharedBankConflicts += other.sharedBankConflicts;
  maxThreadInstructions =
      std::max(maxThreadInstructions, other.maxThreadInstructions);
}

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
  inFlight.assign(sharedBytes, 0);
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
  evaluatePrologue();
  for (ctaid[2] = 0; ctaid[2] < config.grid[2] && !fault.code; ++ctaid[2])
    for (ctaid[1] = 0; ctaid[1] < config.grid[1] && !fault.code; ++ctaid[1])
      for (ctaid[0] = 0; ctaid[0] < config.grid[0] && !fault.code; ++ctaid[0])
        runBlock();
  _mm_setcsr(savedCsr);
}

/// LLVM hoists every parameter's load (and its cvta.to.global) to a
/// kernel's entry: hundreds of instructions in a merged kernel, whose
/// values are the same in every thread. They are evaluated once per launch
/// here; each warp starts past them with their registers set, and counts
/// them as executed. The first one that does not qualify (or would fault)
/// ends the prologue, and the warps execute it themselves.
void Executor::evaluatePrologue() {
  prologueLength = 0;
  prologueValues.clear();
  std::vector<int8_t> known(kernel.numRegs, 0);
  std::vector<uint64_t> values(kernel.numRegs, 0);
  for (const Instruction &in : kernel.code) {
    const Operand &to = in.operands[0], &from = in.operands[1];
    if (in.guard != kNoReg || in.numOperands != 2 || to.kind != Operand::Reg)
      return;
    uint64_t value = 0;
    if (in.op == Op::Ld && in.space == Space::Param && in.vectorWidth == 1 &&
        from.kind == Operand::Address && from.reg == kNoReg &&
        !from.frameRelative) {
      unsigned bytes = typeBytes(in.type);
      if (!fits(from.imm, bytes, config.parameters.size()) || from.imm % bytes)
        return;
      copyBytes(&value, &config.parameters[from.imm], bytes);
      if (isSigned(in.type))
        value = uint64_t(signExtend(value, bytes));
    } else if (in.op == Op::CvtaTo && in.space == Space::Global &&
               from.kind == Operand::Reg && !from.negated && known[from.reg]) {
      value = values[from.reg]; // global addresses are the generic ones
    } else {
      return;
    }
    known[to.reg] = 1;
    values[to.reg] = value;
    prologueValues.emplace_back(to.reg, value);
    ++prologueLength;
  }
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
    for (auto [reg, value] : prologueValues)
      std::fill_n(&state.registers[size_t(reg) * 32], 32, value);
    if (state.alive == kFullWarp)
      state.fullWarpInstructions = prologueLength;
    else
      for (uint32_t m = state.alive; m; m &= m - 1)
        state.laneInstructions[__builtin_ctz(m)] = prologueLength;
    stats.warpInstructions += prologueLength;
    state.frames.clear();
    state.frames.push_back(Frame{&kernel, 0, 0, 0, {}, nullptr, 0});
    state.frames.back().stack.push_back(
        Entry{prologueLength, uint32_t(kernel.code.size()), state.alive});
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
    case Op::BrxIdx:
      branchIndexed(in, active, lanes);
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

void Executor::branchIndexed(const Instruction &in, uint32_t active,
                             uint32_t taken) {
  const std::vector<uint32_t> &targets =
      frame->function->branchTargets[in.operands[1].imm];
  // Lanes by the target they go to; those the guard stops fall through.
  std::vector<std::pair<uint32_t, uint32_t>> groups;
  for (uint32_t m = taken; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
    uint64_t index = read(in.operands[0], lane) & 0xffffffffu;
    if (index >= targets.size()) {
      raise(kIllegalInstruction, lane,
            "brx.idx index %llu is past its %zu targets",
            (unsigned long long)index, targets.size());
      return;
    }
    uint32_t target = targets[index];
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const auto &g) { return g.first == target; });
    if (group == groups.end())
      groups.push_back({target, 1u << lane});
    else
      group->second |= 1u << lane;
  }
  Entry &top = frame->stack.back();
  if (active != taken)
    groups.push_back({top.pc + 1, active & ~taken});
  if (groups.size() == 1) {
    top.pc = groups.front().first;
    return;
  }
  uint32_t meet = in.reconverge;
  bool ahead = top.runAhead;
  top.pc = meet;
  // Pushed last, run first: the lowest target, as bra runs its target.
  std::sort(groups.begin(), groups.end(),
            [](const auto &a, const auto &b) { return a.first > b.first; });
  for (const auto &[target, lanes] : groups)
    if (target != meet)
      frame->stack.push_back(Entry{target, meet, lanes, ahead});
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

void Executor::executeSimple(const Instruction &in, uint32_t lanes) {
  switch (in.op) {
#define OPCODE(name, text, handler, reach)                                     \
  case Op::name:                                                               \
    handler(in, lanes);                                                        \
    return;
#include "Opcodes.def"
  }
}

void Executor::control(const Instruction &in, uint32_t lanes) {
  raise(kIllegalInstruction, __builtin_ctz(lanes),
        "gpusim bug: a branch, call, return or barrier reached the "
        "instructions a warp runs lane by lane");
}

void execute(const Module &module, const Function &kernel,
             const LaunchConfig &config, DeviceMemory &memory,
             KernelStats &stats, Fault &fault) {
  Executor executor(module, kernel, config, memory, stats, fault);
  executor.run();
}

} // namespace gpusim
