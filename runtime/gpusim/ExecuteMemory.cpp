//===- ExecuteMemory.cpp - global, shared and local memory ---------------===//
//
// Loads and stores in every space, with the checks compute-sanitizer would
// make (bounds, alignment, races, uninitialized shared reads), bank
// conflicts, and cp.async with its groups.
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
    for (unsigned i = 0; i < bytes; ++i)
      if (uint32_t owner = inFlight[addr + i]) {
        raise(kLaunchFailed, lane,
              "shared %s of address 0x%llx while thread %u's cp.async to it "
              "is still in flight (no cp.async.wait_group before it)",
              isWrite ? "write" : "read", (unsigned long long)addr, owner - 1);
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
    countGlobalLoads(bytes, 1);
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
    if (isLoad)
      countGlobalLoads(bytes, __builtin_popcount(lanes));
    else
      stats.globalStoreBytes += uint64_t(bytes) * __builtin_popcount(lanes);
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

void Executor::cpAsync(const Instruction &in, uint32_t lanes) {
  // cp.async.{ca,cg}.shared.global [dst], [src], size{, src-size}; the
  // size is a constant of the instruction.
  if (!lanes)
    return;
  auto bytes = unsigned(read(in.operands[2], __builtin_ctz(lanes)));
  uint64_t destinations[32];
  for (uint32_t m = lanes; m; m &= m - 1) {
    int lane = __builtin_ctz(m);
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
    destinations[lane] = destination;
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
      countGlobalLoads(sourceBytes, 1);
    }
    // Two copies in flight to the same bytes race; so does this one with
    // any access before its wait.
    if (!sharedAccess(lane, copy.shared, bytes, true))
      return;
    std::fill_n(&inFlight[copy.shared], bytes, warp->index * 32 + lane + 1);
    warp->pending[lane].push_back(copy);
    ++pendingCopies;
  }
  // The copies land as the stores of one warp instruction would.
  countBankConflicts(destinations, lanes, bytes);
}

void Executor::cpAsyncCommit(const Instruction &, uint32_t lanes) {
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
    std::fill_n(&inFlight[copy.shared], copy.bytes, 0u);
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
    cpAsyncCommit(in, lanes);
  else
    keep = uint32_t(read(in.operands[0], __builtin_ctz(lanes)));
  for (uint32_t m = lanes; m; m &= m - 1)
    if (!applyCopies(*warp, __builtin_ctz(m), keep, false))
      return;
}

} // namespace gpusim
