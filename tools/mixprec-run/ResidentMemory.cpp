//===- ResidentMemory.cpp - the process's resident memory -----------------===//

#include "ResidentMemory.h"

#include <cstdio>
#include <cstring>

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

bool resetPeakResidentMemory() {
  FILE *clear = std::fopen("/proc/self/clear_refs", "w");
  if (!clear)
    return false;
  // 5: reset the peak resident set size to the current one.
  bool written = std::fputs("5", clear) >= 0;
  return std::fclose(clear) == 0 && written;
}

} // namespace mixprec
