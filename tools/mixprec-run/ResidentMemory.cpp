//===- ResidentMemory.cpp - the process's resident memory -----------------===//

#include "ResidentMemory.h"

#include <cstdio>
#include <cstring>
#include <malloc.h>
#include <unistd.h>

namespace mixprec {

ResidentMemory residentMemory() {
  ResidentMemory memory;
  FILE *status = std::fopen("/proc/self/status", "r");
  if (!status)
    return memory;
  char line[256];
  long long kib = 0;
  while (std::fgets(line, sizeof(line), status)) {
    if (std::sscanf(line, "VmRSS: %lld kB", &kib) == 1)
      memory.current = kib * 1024;
    else if (std::sscanf(line, "VmHWM: %lld kB", &kib) == 1)
      memory.peak = kib * 1024;
  }
  std::fclose(status);
  return memory;
}

void settleResidentMemory() {
  malloc_trim(0);
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return;
  long pageSize = sysconf(_SC_PAGESIZE);
  char line[4096];
  while (std::fgets(line, sizeof(line), maps)) {
    unsigned long begin = 0, end = 0;
    char permissions[5] = {};
    // Read-only mappings of files: code and constant data (libm's tables).
    if (std::sscanf(line, "%lx-%lx %4s", &begin, &end, permissions) != 3 ||
        permissions[0] != 'r' || permissions[1] != '-' ||
        !std::strchr(line, '/'))
      continue;
    for (unsigned long page = begin; page < end; page += pageSize)
      (void)*reinterpret_cast<const volatile char *>(page);
  }
  std::fclose(maps);
}

bool resetPeakResidentMemory() {
  FILE *clear = std::fopen("/proc/self/clear_refs", "w");
  if (!clear)
    return false;
  // 5: reset the peak resident set size to the current one.
  bool written = std::fputs("5", clear) >= 0;
  return std::fclose(clear) == 0 && written;
}

} // namespace mixprec
