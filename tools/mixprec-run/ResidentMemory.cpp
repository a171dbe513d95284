//===- ResidentMemory.cpp - the process's resident memory -----------------===//

#include "ResidentMemory.h"

#include <alloca.h>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

namespace mixprec {

ResidentMemory residentMemory() {
  // Read with no stdio buffer: the reading allocates nothing it measures.
  ResidentMemory memory;
  int file = open("/proc/self/status", O_RDONLY);
  if (file < 0)
    return memory;
  char text[8192];
  ssize_t length = read(file, text, sizeof(text) - 1);
  close(file);
  if (length <= 0)
    return memory;
  text[length] = '\0';
  auto kibibytes = [&](const char *key) -> long long {
    const char *line = std::strstr(text, key);
    long long kib = 0;
    return line && std::sscanf(line + std::strlen(key), " %lld", &kib) == 1
               ? kib * 1024
               : -1;
  };
  memory.current = kibibytes("VmRSS:");
  memory.peak = kibibytes("VmHWM:");
  return memory;
}

namespace {

/// Makes `bytes` of the stack below the caller's frame resident.
__attribute__((noinline)) void touchStack(size_t bytes) {
  auto *probe = static_cast<volatile char *>(alloca(bytes));
  for (size_t offset = 0; offset < bytes; offset += 4096)
    probe[offset] = 0;
}

} // namespace

void settleResidentMemory() {
  touchStack(256 << 10);
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
