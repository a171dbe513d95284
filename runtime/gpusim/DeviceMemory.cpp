//===- DeviceMemory.cpp - the simulated GPU's global memory ---------------===//

#include "DeviceMemory.h"

#include <cstring>
#include <sys/mman.h>

namespace gpusim {

DeviceMemory::~DeviceMemory() {
  if (base)
    munmap(reinterpret_cast<void *>(base), kReserved);
}

bool DeviceMemory::reserve() {
  void *range = mmap(nullptr, kReserved, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED)
    return false;
  base = next = reinterpret_cast<uint64_t>(range);
  return true;
}

uint64_t DeviceMemory::allocate(uint64_t bytes) {
  if (!base && !reserve())
    return 0;
  if (bytes == 0 || bytes > kCapacity - bytesInUse)
    return 0;
  uint64_t pages = (bytes + kPage - 1) / kPage * kPage;
  // One guard page after every allocation.
  if (next + pages + kPage > base + kReserved)
    return 0;
  void *mapped =
      mmap(reinterpret_cast<void *>(next), pages, PROT_READ | PROT_WRITE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (mapped == MAP_FAILED)
    return 0;
  std::memset(mapped, 0xff, bytes);
  uint64_t address = next;
  next += pages + kPage;
  live[address] = bytes;
  bytesInUse += bytes;
  if (bytesInUse > peakBytes)
    peakBytes = bytesInUse;
  return address;
}

bool DeviceMemory::release(uint64_t address) {
  auto found = live.find(address);
  if (found == live.end())
    return false;
  uint64_t pages = (found->second + kPage - 1) / kPage * kPage;
  // Back to reserved, inaccessible and without pages.
  mmap(reinterpret_cast<void *>(address), pages, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
  bytesInUse -= found->second;
  live.erase(found);
  return true;
}

DeviceMemory::Range DeviceMemory::preceding(uint64_t address) const {
  auto after = live.upper_bound(address);
  if (after == live.begin())
    return {};
  --after;
  return {after->first, after->first + after->second};
}

DeviceMemory::Range DeviceMemory::find(uint64_t address) const {
  Range range = preceding(address);
  return address < range.end ? range : Range();
}

} // namespace gpusim
