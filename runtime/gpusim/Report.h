//===- Report.h - the simulator's counters, like ncu's ----------*- C++ -*-===//

#ifndef MIXPREC_GPUSIM_REPORT_H
#define MIXPREC_GPUSIM_REPORT_H

#include "Execute.h"

#include <map>
#include <string>

namespace gpusim {

/// Everything counted since the process loaded the simulator.
struct Counters {
  std::map<std::string, KernelStats> kernels; // by kernel name
  uint64_t hostToDeviceBytes = 0, deviceToHostBytes = 0;
  uint64_t peakDeviceBytes = 0;
  uint64_t deviceAllocations = 0; // cuMemAlloc(Async) calls that succeeded
  bool kernelsExecuted = true;    // false under MIXPREC_GPUSIM_SKIP_KERNELS
};

/// Writes `counters` as JSON to `path`: per kernel and for the process.
/// Returns false when the file cannot be written.
bool writeReport(const Counters &counters, const char *path);

} // namespace gpusim

#endif // MIXPREC_GPUSIM_REPORT_H
