//===- DeviceMemory.h - the simulated GPU's global memory -------*- C++ -*-===//
//
// Device memory lives in an address range of its own, reserved once and
// never handed to the host allocator: every allocation is a fresh range of
// pages (addresses are never reused, so a freed buffer stays invalid) with
// an unmapped guard page after it, and its bounds are known, so a kernel
// access to a host pointer, a freed buffer or past an allocation is caught.
//
//===----------------------------------------------------------------------===//

#ifndef MIXPREC_GPUSIM_DEVICEMEMORY_H
#define MIXPREC_GPUSIM_DEVICEMEMORY_H

#include <cstddef>
#include <cstdint>
#include <map>

namespace gpusim {

class DeviceMemory {
public:
  /// The capacity the device reports and enforces.
  static constexpr uint64_t kCapacity = 16ull << 30;

  DeviceMemory() = default;
  DeviceMemory(const DeviceMemory &) = delete;
  ~DeviceMemory();

  /// A new buffer of `bytes`, filled with 0xff bytes (so a kernel that reads
  /// what nobody wrote sees NaNs, not zeros); 0 when out of memory.
  uint64_t allocate(uint64_t bytes);
  /// False when `address` is not the start of a live allocation.
  bool release(uint64_t address);

  struct Range {
    uint64_t begin = 0, end = 0;
  };
  /// The live allocation holding `address`, or an empty range.
  Range find(uint64_t address) const;
  /// The live allocation starting at or before `address` nearest to it,
  /// whether or not it holds `address`; an empty range if none.
  Range preceding(uint64_t address) const;
  /// Whether [address, address + bytes) lies in one live allocation.
  bool contains(uint64_t address, uint64_t bytes) const {
    Range range = find(address);
    return range.begin && bytes <= range.end - address;
  }
  /// Whether `address` falls in the device's address range at all (live,
  /// freed or never allocated).
  bool isDeviceAddress(uint64_t address) const {
    return base && address >= base && address < base + kReserved;
  }

  uint64_t used() const { return bytesInUse; }
  uint64_t peak() const { return peakBytes; }

private:
  static constexpr uint64_t kReserved = 1ull << 40;
  static constexpr uint64_t kPage = 4096;
  bool reserve();
  uint64_t base = 0, next = 0;
  std::map<uint64_t, uint64_t> live; // start -> bytes
  uint64_t bytesInUse = 0, peakBytes = 0;
};

} // namespace gpusim

#endif // MIXPREC_GPUSIM_DEVICEMEMORY_H
