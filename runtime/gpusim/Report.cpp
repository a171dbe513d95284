//===- Report.cpp - the simulator's counters as JSON ----------------------===//

#include "Report.h"

#include <cstdio>

namespace gpusim {

namespace {

void writeStats(std::FILE *file, const KernelStats &stats) {
  std::fprintf(
      file,
      "{\"launches\": %llu, \"threads\": %llu, \"warp_instructions\": %llu, "
      "\"mma_sync\": %llu, \"tensor_core_flops\": %llu, "
      "\"global_load_bytes\": %llu, \"global_store_bytes\": %llu, "
      "\"shared_load_bytes\": %llu, \"shared_store_bytes\": %llu, "
      "\"shared_bank_conflicts\": %llu, \"max_thread_instructions\": %llu, "
      "\"global_loads\": %llu, \"global_loads_16_bytes\": %llu}",
      (unsigned long long)stats.launches, (unsigned long long)stats.threads,
      (unsigned long long)stats.warpInstructions,
      (unsigned long long)stats.mmaInstructions,
      // m16n8k16: 16 * 8 * 16 multiply-adds, two FLOPs each.
      (unsigned long long)(stats.mmaInstructions * 2 * 16 * 8 * 16),
      (unsigned long long)stats.globalLoadBytes,
      (unsigned long long)stats.globalStoreBytes,
      (unsigned long long)stats.sharedLoadBytes,
      (unsigned long long)stats.sharedStoreBytes,
      (unsigned long long)stats.sharedBankConflicts,
      (unsigned long long)stats.maxThreadInstructions,
      (unsigned long long)stats.globalLoads,
      (unsigned long long)stats.globalLoads16);
}

} // namespace

bool writeReport(const Counters &counters, const char *path) {
  // Written whole to a temporary file, then renamed: a reader never sees a
  // half-written report.
  std::string temporary = std::string(path) + ".tmp";
  std::FILE *file = std::fopen(temporary.c_str(), "w");
  if (!file)
    return false;
  KernelStats total;
  std::fprintf(file, "{\n  \"kernels\": {");
  bool first = true;
  for (const auto &[name, stats] : counters.kernels) {
    std::fprintf(file, "%s\n    \"%s\": ", first ? "" : ",", name.c_str());
    writeStats(file, stats);
    total.add(stats);
    first = false;
  }
  std::fprintf(file, "\n  },\n  \"total\": ");
  writeStats(file, total);
  std::fprintf(file,
               ",\n  \"host_to_device_bytes\": %llu,\n"
               "  \"device_to_host_bytes\": %llu,\n"
               "  \"peak_device_bytes\": %llu,\n"
               "  \"device_allocations\": %llu,\n"
               "  \"kernels_executed\": %s\n}\n",
               (unsigned long long)counters.hostToDeviceBytes,
               (unsigned long long)counters.deviceToHostBytes,
               (unsigned long long)counters.peakDeviceBytes,
               (unsigned long long)counters.deviceAllocations,
               counters.kernelsExecuted ? "true" : "false");
  bool written = std::fflush(file) == 0;
  written &= std::fclose(file) == 0;
  return written && std::rename(temporary.c_str(), path) == 0;
}

} // namespace gpusim
